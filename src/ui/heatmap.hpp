// Draws a matrix as a grid of coloured cells with token labels, inside the
// current ImGui window. Reads the matrix; owns nothing.
#pragma once

#include <string>
#include <vector>

#include "matrix.hpp"

namespace attn::ui {

struct heatmap_style {
    float cell = 28.0f;       // cell edge in pixels (already scaled for the display)
    bool show_values = true;  // print the number in each cell when it fits
};

// Sequential map for values in [0, 1] (weights): dark blue → teal → yellow.
unsigned heatmap_color_sequential(float t);

// Draws m with row labels `rows` and column labels `cols`; returns the hovered
// cell as (row, col) or (-1, -1).
std::pair<int, int> heatmap_draw(const char* id, const matrix& m, const std::vector<std::string>& rows,
                                 const std::vector<std::string>& cols, const heatmap_style& style);

}  // namespace attn::ui
