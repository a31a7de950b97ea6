// Touch gestures (src/ui/frame/touch.hpp): the arithmetic alone, then applied to a
// headless ImGui context: a tap clicks, a swipe scrolls the window under the
// finger and coasts after release, a press on a scrollbar drags it, a pinch
// reports its factor.
#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <vector>

#include "frame/touch.hpp"
#include "maps/heatmap.hpp"

using namespace attn;
using ui::touch_phase;
using kind = ui::touch_pointer_event::kind;

namespace {

constexpr double frame_s = 1.0 / 60.0;

struct finger_script {
    ui::touch_gestures g;
    double t = 0;
    std::vector<ui::touch_frame> frames;
    void event(touch_phase p, float x, float y, int id = 1) { ui::touch_gestures_event(g, {p, id, x, y, t}); }
    ui::touch_frame& frame(bool grabbed = false) {
        t += frame_s;
        frames.push_back(ui::touch_gestures_frame(g, t, grabbed));
        return frames.back();
    }
};

std::vector<kind> kinds(const ui::touch_frame& f) {
    std::vector<kind> k;
    for (const auto& e : f.pointer)
        k.push_back(e.what);
    return k;
}

}  // namespace

TEST_CASE("touch: a tap is a press and a release where the finger was, and the pointer stays") {
    finger_script s;
    s.event(touch_phase::start, 100, 200);
    CHECK(kinds(s.frame()) == std::vector<kind>{kind::move, kind::down});
    s.event(touch_phase::move, 103, 202);  // within the slop
    CHECK(s.frame().pointer.empty());
    s.event(touch_phase::end, 103, 202);
    const auto& f = s.frame();
    REQUIRE(kinds(f) == std::vector<kind>{kind::up});
    CHECK(f.scroll_dx == 0.0f);
    CHECK(f.scroll_dy == 0.0f);
    CHECK(s.g.now == ui::touch_gestures::mode::idle);
}

TEST_CASE("touch: a swipe cancels the press, moves the content with the finger, then coasts and stops") {
    finger_script s;
    s.event(touch_phase::start, 100, 300);
    s.frame();
    s.frame();
    float moved = 0;
    for (int i = 1; i <= 10; ++i) {  // 20 px a frame upwards: 1200 px a second
        s.t += 0.0001;
        s.event(touch_phase::move, 100, 300 - 20.0f * float(i));
        const auto& f = s.frame();
        if (f.scroll_begins) {
            CHECK(kinds(f) == std::vector<kind>{kind::away, kind::up});  // nothing is clicked
            CHECK(f.scroll_start_y == 300.0f);
        }
        moved += f.scroll_dy;
    }
    CHECK(moved == doctest::Approx(200.0f));  // the content followed the finger exactly
    s.event(touch_phase::end, 100, 100);
    std::vector<float> coast;
    for (int i = 0; i < 600 && s.g.now != ui::touch_gestures::mode::idle; ++i)
        coast.push_back(s.frame().scroll_dy);
    REQUIRE(coast.size() > 10);
    CHECK(coast[1] == doctest::Approx(1200.0 * frame_s).epsilon(0.1));  // it leaves at the finger's speed
    for (std::size_t i = 2; i < coast.size(); ++i)
        CHECK(coast[i] < coast[i - 1]);  // and slows down every frame
    float total = 0;
    for (float d : coast)
        total += d;
    // Exponential decay: the distance coasted is the speed times the decay time.
    CHECK(total == doctest::Approx(1200.0 * s.g.settings.decay).epsilon(0.1));
    CHECK(s.frame().scroll_dy == 0.0f);  // stopped
}

TEST_CASE("touch: a finger that stops before lifting does not coast; a new finger stops a coasting page") {
    finger_script s;
    s.event(touch_phase::start, 0, 300);
    s.frame();
    s.frame();
    s.event(touch_phase::move, 0, 200);
    s.frame();
    s.t += 0.5;  // held still half a second
    s.event(touch_phase::end, 0, 200);
    s.frame();
    CHECK(s.g.now == ui::touch_gestures::mode::idle);

    finger_script c;
    c.event(touch_phase::start, 0, 300);
    c.frame();
    c.frame();
    for (int i = 1; i <= 5; ++i) {
        c.event(touch_phase::move, 0, 300 - 30.0f * float(i));
        c.frame();
    }
    c.event(touch_phase::end, 0, 150);
    c.frame();
    REQUIRE(c.g.now == ui::touch_gestures::mode::coasting);
    c.event(touch_phase::start, 0, 150);
    const auto& f = c.frame();
    CHECK(f.pointer.empty());  // it stops the page and presses nothing
    CHECK(f.scroll_dy == 0.0f);
    c.event(touch_phase::end, 0, 150);
    CHECK(c.frame().pointer.empty());
}

TEST_CASE("touch: a press on something a finger drags keeps the pointer; a pinch gives its factor and centre") {
    finger_script s;
    s.event(touch_phase::start, 50, 50);
    s.frame(true);
    s.frame(true);
    s.event(touch_phase::move, 50, 90);
    const auto& f = s.frame(true);
    CHECK(kinds(f) == std::vector<kind>{kind::move});
    CHECK(f.scroll_dy == 0.0f);
    s.event(touch_phase::end, 50, 95);
    CHECK(kinds(s.frame(true)) == std::vector<kind>{kind::move, kind::up});

    finger_script p;
    p.event(touch_phase::start, 100, 100, 1);
    p.frame();
    p.event(touch_phase::start, 200, 100, 2);
    CHECK(kinds(p.frame()) == std::vector<kind>{kind::away, kind::up});  // the first finger's press is taken back
    p.event(touch_phase::move, 50, 100, 1);
    p.event(touch_phase::move, 250, 100, 2);
    const auto& z = p.frame();
    CHECK(z.pinch == doctest::Approx(2.0f));
    CHECK(z.pinch_x == doctest::Approx(150.0f));
    p.event(touch_phase::end, 50, 100, 1);
    p.event(touch_phase::move, 400, 400, 2);  // the finger left behind does nothing
    const auto& after = p.frame();
    CHECK(after.pointer.empty());
    CHECK(after.scroll_dy == 0.0f);
    CHECK(after.pinch == 1.0f);
}

namespace {

struct headless {
    headless() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(400, 300);
        io.IniFilename = nullptr;
        io.ConfigFlags |= ImGuiConfigFlags_IsTouchScreen;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    ~headless() { ImGui::DestroyContext(); }
};

// A window taller than the screen with a button at its top; returns whether it was pressed.
bool draw(ui::touch_input& t, double now, float& scroll) {
    ui::touch_input_frame(t, now, 1.0f, nullptr);
    ImGui::GetIO().DeltaTime = float(frame_s);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(400, 300));
    ImGui::Begin("page", nullptr, ImGuiWindowFlags_NoDecoration);
    const bool pressed = ImGui::Button("press me", ImVec2(200, 40));
    for (int i = 0; i < 100; ++i)
        ImGui::Text("line %d", i);
    scroll = ImGui::GetScrollY();
    ImGui::End();
    ImGui::Render();
    return pressed;
}

}  // namespace

TEST_CASE("touch in ImGui: a tap on a button clicks it; a swipe starting on it scrolls the window and clicks nothing") {
    headless h;
    ui::touch_input t;
    double now = 0;
    float scroll = 0;
    int presses = 0;
    auto frames = [&](int n) {
        for (int i = 0; i < n; ++i)
            presses += draw(t, now += frame_s, scroll) ? 1 : 0;
    };
    frames(2);
    ui::touch_input_event(t, {touch_phase::start, 7, 50, 20, now});
    frames(3);
    ui::touch_input_event(t, {touch_phase::end, 7, 50, 20, now});
    frames(3);
    CHECK(presses == 1);
    CHECK(scroll == 0.0f);

    ui::touch_input_event(t, {touch_phase::start, 8, 50, 20, now});
    frames(3);
    for (int i = 1; i <= 8; ++i) {
        ui::touch_input_event(t, {touch_phase::move, 8, 50, 20.0f + 2.0f - 12.0f * float(i), now});
        frames(1);
    }
    const float followed = scroll;
    CHECK(followed > 80.0f);
    ui::touch_input_event(t, {touch_phase::end, 8, 50, 20.0f - 94.0f, now});
    frames(10);
    CHECK(scroll > followed + 20.0f);  // it coasted on
    CHECK(presses == 1);               // the swipe clicked nothing
}
