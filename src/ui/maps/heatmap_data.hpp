// What a heatmap shows, computed without ImGui or GL so tests can reach it:
// the class of every cell, the value range the colour map spans, row sums, and
// the colour maps themselves (the CPU twins of shaders/heatmap.frag, used by the
// fallback renderer, the legend swatches and the colour of text inside cells).
//
// Shapes: m is (rows, cols); masked_from, when given, has the same shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/matrix.hpp"

namespace attn::ui {

enum class colormap { sequential, diverging };

// One code per cell, sent to the GPU beside the value (the G channel of an
// RG32F texel) because GLSL isnan/isinf cannot be trusted.
enum class heatmap_cell : int { finite = 0, nan = 1, pos_inf = 2, neg_inf = 3, masked = 4 };

// NaN wins over the mask (a NaN is a bug worth seeing); a cell whose companion
// value is -inf is masked; then ±inf; else finite.
heatmap_cell heatmap_classify(float value, float mask_value);
heatmap_cell heatmap_classify(const matrix& m, const matrix* masked_from, int r, int c);

// The texture's contents: rows·cols (value, class) pairs, row-major, row 0 first.
// Non-finite values are written as 0 so no driver ever sees them.
void heatmap_texels_fill(const matrix& m, const matrix* masked_from, std::vector<float>& out);

struct heatmap_range {
    float lo = 0.0f, hi = 1.0f;
};

// The values the colour map's ends stand for, over finite, unmasked cells:
// sequential [min, max], diverging [-max|x|, +max|x|]. A degenerate range is
// widened to include 0 (sequential) or to ±1, so one value still has a colour.
heatmap_range heatmap_range_compute(const matrix& m, const matrix* masked_from, colormap map);

// Σ_j m(r, j) in double, rounded once: (rows). NaN and ±inf propagate.
std::vector<float> heatmap_row_sums(const matrix& m);

// How many cells of each class: counts[int(heatmap_cell)].
struct heatmap_counts {
    int counts[5] = {};
    int of(heatmap_cell c) const { return counts[int(c)]; }
};
heatmap_counts heatmap_count_cells(const matrix& m, const matrix* masked_from);

struct rgb {
    float r = 0, g = 0, b = 0;
};

// t in [0, 1] (clamped). Sequential: viridis; diverging: RdBu reversed, white at 0.5.
rgb heatmap_color_sequential_rgb(float t);
rgb heatmap_color_diverging_rgb(float t);
rgb heatmap_color_map(colormap map, float t);
// The colour of a cell of class c holding value v under range `range`.
rgb heatmap_color_cell(colormap map, heatmap_range range, heatmap_cell c, float v);
// Where v falls in the range, in [0, 1]; 0.5 for an empty range.
float heatmap_range_t(heatmap_range range, float v);

// Perceived brightness (Rec. 709 luma) of a colour, to choose black or white text on it.
float heatmap_luma(rgb c);

// Short text for a value in a cell: at most 5 characters for |v| < 1e4
// ("0.25", "-3.14", "12.5", "-1234", "1e+05"), "nan", "inf", "-inf".
// Writes into buf (size >= 16) and returns it.
const char* heatmap_format_value(float v, char* buf, std::size_t size);
// The printf format that text takes for a finite v, by its size: "%.2f", "%.1f",
// "%.0f" or "%.0e" (number_text writes it; the text view's cells too).
const char* heatmap_value_format(float v);
// The length of heatmap_format_value(v) without formatting it: a map of 1024
// tokens holds a million cells, measured each time the weights traced change.
int heatmap_value_chars(float v);

// The longest heatmap_format_value text (in characters) over the cells that hold
// a value (not masked), and how many cells hold one: a map shows every value or
// none, never some (a blank cell would read as zero).
struct heatmap_value_extent {
    int widest_chars = 0;
    int cells = 0;
};
heatmap_value_extent heatmap_value_extent_of(const matrix& m, const matrix* masked_from);

}  // namespace attn::ui
