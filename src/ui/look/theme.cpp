#include "look/theme.hpp"

namespace attn::ui {

namespace {

bool style_is_light() {
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    return 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z > 0.5f;
}

}  // namespace

void theme_style(ImGuiStyle& style, theme t) {
    if (t == theme::dark) {
        ImGui::StyleColorsDark(&style);
        style.Colors[ImGuiCol_ModalWindowDimBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.6f);  // the start card over a darkened page
        return;
    }
    ImGui::StyleColorsLight(&style);
    ImVec4* c = style.Colors;
    c[ImGuiCol_Text] = ImVec4(0.06f, 0.07f, 0.09f, 1.0f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.33f, 0.35f, 0.38f, 1.0f);  // 7:1 on the window background
    c[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.97f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.0f);
    c[ImGuiCol_Border] = ImVec4(0.0f, 0.0f, 0.0f, 0.22f);
    // Buttons and frames light enough for dark text (≥ 4.5:1 on every state).
    c[ImGuiCol_Button] = ImVec4(0.80f, 0.87f, 0.96f, 1.0f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.70f, 0.80f, 0.95f, 1.0f);
    c[ImGuiCol_ButtonActive] = ImVec4(0.62f, 0.75f, 0.95f, 1.0f);
    c[ImGuiCol_FrameBg] = ImVec4(0.88f, 0.90f, 0.93f, 1.0f);
    c[ImGuiCol_ModalWindowDimBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.35f);
}

ImVec4 theme_good() { return style_is_light() ? ImVec4(0.05f, 0.42f, 0.16f, 1.0f) : ImVec4(0.5f, 0.9f, 0.5f, 1.0f); }
ImVec4 theme_bad() { return style_is_light() ? ImVec4(0.66f, 0.24f, 0.0f, 1.0f) : ImVec4(1.0f, 0.6f, 0.3f, 1.0f); }
// Light: #9E4200, 6.1:1 on the light window background (the bright orange was 1.8:1).
ImVec4 theme_highlight() { return style_is_light() ? ImVec4(0.62f, 0.26f, 0.0f, 1.0f) : ImVec4(1.0f, 0.647f, 0.0f, 1.0f); }
ImVec4 theme_nonfinite() { return style_is_light() ? ImVec4(0.62f, 0.0f, 0.50f, 1.0f) : ImVec4(1.0f, 0.4f, 0.9f, 1.0f); }
ImVec4 theme_lit_line() {
    return style_is_light() ? ImVec4(0.72f, 0.88f, 0.80f, 1.0f) : ImVec4(60 / 255.0f, 110 / 255.0f, 90 / 255.0f, 160 / 255.0f);
}

}  // namespace attn::ui
