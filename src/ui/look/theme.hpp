// The two colour themes. Dark is Dear ImGui's dark style; light is its light
// style with stronger text. Which one shows: a link's view.theme (an embed's
// host matching its page), else the reader's choice in the View menu
// (remembered), else the system's prefers-color-scheme.
#pragma once

#include <imgui.h>

namespace attn::ui {

enum class theme { dark, light };

// The theme's colours into style (its sizes are left alone).
void theme_style(ImGuiStyle& style, theme t);

// The playground's own text colours, for the theme of the current ImGui style,
// each at least 4.5:1 against its window background: a note that something
// holds, one that it does not, and the non-finite warning.
ImVec4 theme_good();
ImVec4 theme_bad();
ImVec4 theme_nonfinite();
// The selected row's and column's labels on the maps: orange (dark orange on light).
ImVec4 theme_highlight();
// The background of the code lines a stage lights up, under the theme's text colour.
ImVec4 theme_lit_line();

}  // namespace attn::ui
