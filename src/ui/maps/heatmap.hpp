// The heatmap widget: draws a matrix as coloured cells with token labels inside
// the current ImGui window, in a child region that scrolls when the matrix is
// larger than the space. Reads the matrix; what it keeps between frames (a small
// per-widget cache: value range, row sums, zoom; and, through heatmap_gpu.hpp, a
// texture) lives in a heatmap_context that the platform owns and passes in.
//
//   heatmap_context heatmaps;           // the platform's, one per ImGui context
//   heatmaps.set_gpu(gpu);              // optional: without it, rectangles
//   heatmap_options opt;
//   opt.source = {&a, a.version};       // what m was made from (panels.hpp: heatmap_source_of)
//   opt.row_labels = opt.col_labels = &tokens;
//   heatmap_result r = heatmap_draw(heatmaps, "weights_h0", m, opt);
//   if (r.clicked_row >= 0) ...
//
// Keyboard: the cells are one item that Tab (ImGui's keyboard navigation) stops
// on. While it has the focus the map owns the arrows, Home/End (Ctrl: the first
// or last cell) and PageUp/PageDown (ImGui's navigation does not see them) and
// moves a cursor from opt.cursor_row/col (or, where the caller keeps none, from
// where the keys last left it); Enter or Space presses the cursor cell as a click
// would (clicked_row/col).
//
// Colours: sequential = viridis (weights), diverging = blue - white - red centred
// on 0 (signed values). NaN is magenta, +inf white-hot with an orange dot, -inf
// black with a white dot, masked cells (masked_from is -inf there) grey hatching.
// Ctrl + mouse wheel over the matrix zooms it about the pointer; so does a
// pinch on a touch screen (heatmap_context::set_pinch), about the fingers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/matrix.hpp"
#include "maps/heatmap_data.hpp"

namespace attn::ui {

// What a map's numbers were made from: the object that holds them (a trace, a
// memo, a trainer) and the version of that object's contents. A widget keeps its
// texture, ranges and counts for one data key, which heatmap_draw derives from
// this source and the matrix itself (its storage's address and shape, and the
// mask's): another layer, head, stage or snapshot is another matrix or another
// version, so the key follows every input without the caller listing them. A
// source without a holder (the default) makes the key hash every value each
// frame: correct, and fine for small maps; a view drawing from a versioned
// holder names it (panels.hpp: heatmap_source_of) so large maps cost nothing.
struct heatmap_source {
    const void* holder = nullptr;
    std::uint64_t version = 0;
};

struct heatmap_options {
    colormap map = colormap::sequential;
    heatmap_source source;  // where m (and masked_from) come from: see above
    float cell = 0.0f;      // pixels per cell; 0 = fit the available width (clamped to a readable minimum)
    const std::vector<std::string>* row_labels = nullptr;
    const std::vector<std::string>* col_labels = nullptr;
    const matrix* masked_from = nullptr;         // cells where this matrix is -inf are drawn as masked
    const char* masked_name = nullptr;           // what the legend and a tooltip call those cells ("pending"); null: "masked"
    int highlight_row = -1, highlight_col = -1;  // e.g. the selected query row, followed through stages
    int cursor_row = -1, cursor_col = -1;        // the keyboard's cell (the selected one); -1: from highlight_row, column 0
    bool show_values = true, show_row_sums = false, show_legend = true;
    bool sparse_labels = false;  // cells too small for a label each: every k-th label (and the highlighted ones)
    bool fixed_range = false;
    float lo = 0, hi = 1;        // with fixed_range; else [min, max] of finite values (diverging: symmetric ±max|x|)
    bool veiled = false;         // nothing of it reaches the output (a zeroed head): dimmed and struck through
    const char* axes = nullptr;  // what its rows and columns are, a line over the map ("↓ query i   → key j")
    bool hover_value = false;    // a tooltip names the hovered cell's row, column and value (maps without an inspector)

    float zoom = 1.0f;  // multiplies cell (and the user's own Ctrl+wheel zoom)
    // Of the scrolling region in pixels; 0 = the available height (at least ~12 lines).
    // Its width is the window's visible width: a wider map scrolls inside itself.
    float max_height = 0.0f;
};

// A rectangle in screen pixels; all 0 when nothing was drawn there.
struct heatmap_rect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct heatmap_result {
    int cells = 0;     // the cells that hold a value (not masked)
    int labelled = 0;  // of them, the ones whose value is drawn: all or none
    int hovered_row = -1, hovered_col = -1;
    int clicked_row = -1, clicked_col = -1;  // a click (mouse or touch) released on a cell, or Enter / Space, this frame
    bool focused = false;                    // keyboard navigation is on the cells
    int cursor_row = -1, cursor_col = -1;    // then the keyboard's cell (after this frame's keys)
    int moved_row = -1, moved_col = -1;      // the cell the keys moved the cursor to this frame
    heatmap_rect highlight_row_label, highlight_col_label;  // where the highlighted row's and column's labels are
    std::string window;                                     // the name of the scrolling child the cells are in
    // Where the cells were drawn (screen pixels, not clipped: may extend past a
    // scrolled view) and the cell edge used after zoom; all 0 when not drawn.
    float cells_x0 = 0, cells_y0 = 0, cells_x1 = 0, cells_y1 = 0;
    float cell = 0;
};

class heatmap_gpu;

// What the heatmap widgets keep between frames: each widget's cache (keyed by
// its ImGui id; dropped with its texture once it has not been drawn for 300
// frames) and the renderer they draw with. Owned by the platform.
// A map drawn with a scrollbar of its own although it could be whole: its id,
// the scrolling child, where its cells are and the box that cuts them (screen pixels).
struct heatmap_cut {
    std::string id, window;
    float x0, y0, x1, y1;
    float box_x0, box_y0, box_x1, box_y1;
};

class heatmap_context {
  public:
    heatmap_context();
    ~heatmap_context();
    heatmap_context(const heatmap_context&) = delete;
    heatmap_context& operator=(const heatmap_context&) = delete;

    // The renderer (not owned; nullptr: rectangles). A new one holds no
    // texture, so every widget uploads again when next drawn. Set it to nullptr
    // before the renderer goes away.
    void set_gpu(heatmap_gpu* gpu);
    heatmap_gpu* gpu() const;

    // This frame's pinch (touch.hpp): the map whose cells were under (x, y) last
    // frame zooms by `factor` about that point. Set before the frame; 1: none.
    void set_pinch(float factor, float x, float y);

    // The hovered cell's tooltip drawn in this frame ("row 2 (b)   column 1 (a)
    // value 0.97"), or "" when none: what a person reads on hover, for tests.
    std::string tooltip() const;

    // The maps cut in this frame (heatmap_cut): ui().clipped counts them with the cut text.
    std::vector<heatmap_cut> cut() const;

    struct state;  // heatmap.cpp
    state& internal() { return *state_; }

  private:
    std::unique_ptr<state> state_;
};

// Draws m under the ImGui id `id` (unique within the current ID scope).
heatmap_result heatmap_draw(heatmap_context& ctx, const char* id, const matrix& m, const heatmap_options& opt);

// The cell edge (pixels, current font) at which a value text of `chars`
// characters fits: a map's numbers are drawn when its widest one fits.
float heatmap_value_cell(int chars);

// The text view's limits: a map over text_mirror_cell_limit cells is named with
// its shape and a note instead of its cells (the CSV export has every value).
inline constexpr int text_mirror_cell_limit = 4096;    // per map
inline constexpr int text_mirror_total_limit = 16384;  // over all maps of a stage

// What a cell of a map reads as in the text view: "0.25", "masked", "NaN",
// "+infinity", "−infinity" (in the current language).
std::string text_mirror_cell(float value, bool masked);

}  // namespace attn::ui
