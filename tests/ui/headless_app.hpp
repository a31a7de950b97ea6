// The app drawn without a window or GL, for the ui's native tests: ImGui's
// context with its font atlas built (nothing uploads it), and a frame of the
// app with the heatmaps drawn as rectangles (no renderer).
//
//   test::headless_imgui imgui;   // one per test case
//   ui::app a;  ui::app_init(a, experiment{});
//   test::frame(a);
#pragma once

#include <imgui.h>

#include "frame/frame.hpp"
#include "maps/heatmap.hpp"
#include "view/app.hpp"

namespace attn::test {

struct headless_imgui {
    headless_imgui() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(1400, 900);
        io.IniFilename = nullptr;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas; nothing uploads it
    }
    ~headless_imgui() { ImGui::DestroyContext(); }
    headless_imgui(const headless_imgui&) = delete;
    headless_imgui& operator=(const headless_imgui&) = delete;
};

// One frame of the app at 60 frames a second.
inline void frame(ui::app& a) {
    static ui::heatmap_context heatmaps;  // no renderer: the heatmaps draw rectangles
    a.heatmaps = &heatmaps;
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ui::app_draw(a);
    ImGui::Render();
}

}  // namespace attn::test
