// [SECTION] index
//   state      the context: per-widget cache (what was uploaded: its data key; ranges, row sums, zoom)
//   layout     cell size, label bands, the size of the scrolling child
//   cells      one GPU quad (heatmap_gpu) or, without a GPU, rectangles for the visible cells
//   overlays   hover and highlight bands, numbers in cells, row sums, sticky labels
//   legend     gradient bar with the range's ends and swatches for NaN / ±inf / masked
//   draw       heatmap_draw: state, layout, then the scrolling child's pieces in order
//
// Per frame the work is O(visible cells that show text) + O(labels' count) for
// the widest label; everything O(rows·cols) happens only when the data changes.
#include "maps/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>

#include "imgui.h"
#include "imgui_internal.h"  // key ownership: a focused map keeps its keys from ImGui's navigation
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap_gpu.hpp"

namespace attn::ui {

// --- state -------------------------------------------------------------------

namespace {

// The labels' widths are measured again when their text or the font changes.
struct label_width_cache {
    std::uint64_t text = 0;  // label_text_hash
    float font = 0.0f;
    float widest = 0.0f;
};

// What a widget's cached picture was made from (heatmap_source, heatmap.hpp): the
// holder and its version, the matrix's storage and shape, the mask's; without a
// holder, a hash of every value instead.
struct data_key {
    const void* holder = nullptr;
    std::uint64_t version = 0;
    const float* data = nullptr;
    int rows = -1, cols = -1;
    const float* mask = nullptr;
    int mask_rows = -1, mask_cols = -1;
    bool operator==(const data_key&) const = default;
};

constexpr std::uint64_t fnv_offset = 1469598103934665603ull, fnv_prime = 1099511628211ull;

std::uint64_t hash_bytes(std::uint64_t h, const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * fnv_prime;
    return h;
}

std::uint64_t hash_matrix(std::uint64_t h, const matrix* m) {
    if (!m)
        return hash_bytes(h, "-", 1);
    h = hash_bytes(h, &m->rows, sizeof m->rows);
    h = hash_bytes(h, &m->cols, sizeof m->cols);
    return hash_bytes(h, m->data.data(), m->data.size() * sizeof(float));
}

data_key data_key_of(const matrix& m, const heatmap_options& opt) {
    data_key k;
    k.rows = m.rows;
    k.cols = m.cols;
    if (!opt.source.holder) {  // no versioned holder: the values themselves
        k.version = hash_matrix(hash_matrix(fnv_offset, &m), opt.masked_from);
        return k;
    }
    k.holder = opt.source.holder;
    k.version = opt.source.version;
    k.data = m.data.data();
    if (opt.masked_from) {
        k.mask = opt.masked_from->data.data();
        k.mask_rows = opt.masked_from->rows;
        k.mask_cols = opt.masked_from->cols;
    }
    return k;
}

std::uint64_t label_text_hash(const std::vector<std::string>& labels) {
    std::uint64_t h = fnv_offset;
    for (const std::string& s : labels)
        h = hash_bytes(hash_bytes(h, s.data(), s.size()), "", 1);
    return h;
}

struct widget_state {
    bool valid = false;
    data_key key;
    heatmap_gpu* uploaded_to = nullptr;   // the renderer that holds this widget's texture
    heatmap_range sequential, diverging;  // automatic ranges
    heatmap_counts counts;
    heatmap_value_extent values;  // the widest value text, the cells that hold a value
    std::vector<float> row_sums;
    bool sums_valid = false;
    label_width_cache row_w, col_w;
    float user_zoom = 1.0f;  // Ctrl + wheel
    int last_frame = 0;
    int hovered_frame = -1;  // the last frame the pointer was over the cells
    ImVec2 last_grid0;       // where cell (0, 0) was drawn then, and the cell size
    float last_cell = 0.0f;
    int cells_frame = -1;  // the frame last_grid0 and last_cell are from
    // The keyboard's cell where the caller keeps none (opt.cursor_row < 0): a
    // lesson's map keeps its cursor here between frames.
    int cursor_row = -1, cursor_col = -1;
};

}  // namespace

struct heatmap_context::state {
    heatmap_gpu* gpu = nullptr;
    std::unordered_map<ImGuiID, widget_state> widgets;
    std::vector<float> texels;  // scratch for uploads
    int swept_frame = -1;
    float pinch = 1.0f;  // this frame's pinch: a zoom factor about (pinch_x, pinch_y)
    float pinch_x = 0.0f, pinch_y = 0.0f;
    std::string tooltip;  // the hovered cell's tooltip, in frame tooltip_frame
    int tooltip_frame = -1;
    std::vector<heatmap_cut> cut;  // the maps cut in frame cut_frame
    int cut_frame = -1;
};

heatmap_context::heatmap_context() : state_(std::make_unique<state>()) {}
heatmap_context::~heatmap_context() = default;

void heatmap_context::set_gpu(heatmap_gpu* gpu) {
    for (auto& [key, st] : state_->widgets)
        st.uploaded_to = nullptr;  // the new renderer holds none of them
    state_->gpu = gpu;
}

heatmap_gpu* heatmap_context::gpu() const { return state_->gpu; }

std::string heatmap_context::tooltip() const {
    return state_->tooltip_frame == ImGui::GetFrameCount() ? state_->tooltip : std::string();
}

std::vector<heatmap_cut> heatmap_context::cut() const {
    return state_->cut_frame == ImGui::GetFrameCount() ? state_->cut : std::vector<heatmap_cut>{};
}

void heatmap_context::set_pinch(float factor, float x, float y) {
    state_->pinch = std::isfinite(factor) && factor > 0.0f ? factor : 1.0f;
    state_->pinch_x = x;
    state_->pinch_y = y;
}

namespace {

// Frees the state (and texture) of widgets not drawn for a while.
void states_sweep(heatmap_context::state& ctx, int frame) {
    if (frame == ctx.swept_frame || frame % 120 != 0)
        return;
    ctx.swept_frame = frame;
    for (auto it = ctx.widgets.begin(); it != ctx.widgets.end();) {
        if (frame - it->second.last_frame > 300) {
            if (ctx.gpu && it->second.uploaded_to == ctx.gpu)
                ctx.gpu->forget(it->first);
            it = ctx.widgets.erase(it);
        } else {
            ++it;
        }
    }
}

// Recomputes what depends on the data when its data key changed, and uploads
// the texture when the current renderer does not hold it.
void state_refresh(heatmap_context::state& ctx, widget_state& st, ImGuiID key, const matrix& m, const heatmap_options& opt) {
    if (const data_key now = data_key_of(m, opt); !st.valid || !(st.key == now)) {
        st.valid = true;
        st.key = now;
        st.sequential = heatmap_range_compute(m, opt.masked_from, colormap::sequential);
        st.diverging = heatmap_range_compute(m, opt.masked_from, colormap::diverging);
        st.counts = heatmap_count_cells(m, opt.masked_from);
        st.values = heatmap_value_extent_of(m, opt.masked_from);
        st.sums_valid = false;
        st.uploaded_to = nullptr;
    }
    if (ctx.gpu && st.uploaded_to != ctx.gpu && !m.empty()) {
        heatmap_texels_fill(m, opt.masked_from, ctx.texels);
        ctx.gpu->upload(key, m.rows, m.cols, ctx.texels.data());
        st.uploaded_to = ctx.gpu;
    }
    if (opt.show_row_sums && !st.sums_valid) {
        st.row_sums = heatmap_row_sums(m);
        st.sums_valid = true;
    }
}

// O(the labels' bytes) a frame to hash them; measured again only when they change.
float widest_label(label_width_cache& cache, const std::vector<std::string>* labels) {
    if (!labels || labels->empty())
        return 0.0f;
    const float font = ImGui::GetFontSize();
    if (const std::uint64_t text = label_text_hash(*labels); cache.text != text || cache.font != font) {
        cache = {text, font, 0.0f};
        for (const auto& s : *labels)
            cache.widest = std::max(cache.widest, ImGui::CalcTextSize(s.c_str()).x);
    }
    return cache.widest;
}

ImU32 to_u32(rgb c, float alpha = 1.0f) {
    return IM_COL32(int(c.r * 255.0f + 0.5f), int(c.g * 255.0f + 0.5f), int(c.b * 255.0f + 0.5f), int(alpha * 255.0f + 0.5f));
}

// Cells [i0, i1) of n along one axis that intersect [a0, a1).
void visible_span(float a0, float a1, float g0, float cell, int n, int& i0, int& i1) {
    i0 = std::clamp(int(std::floor((a0 - g0) / cell)), 0, n);
    i1 = std::clamp(int(std::ceil((a1 - g0) / cell)), 0, n);
}

// --- cells (fallback) ----------------------------------------------------------

// Rectangles for the visible cells; when cells are under 2 pixels, one
// rectangle per block of cells, coloured by the block's first cell.
void cells_draw_rects(ImDrawList* dl, const matrix& m, const matrix* masked_from, colormap map, heatmap_range range, ImVec2 grid0,
                      float cell, int r0, int r1, int c0, int c1, bool markers, ImU32 gap) {
    const int step = cell < 2.0f ? int(std::ceil(2.0f / cell)) : 1;
    const bool big = cell >= 7.0f;                    // room for a marker
    const float inset = cell >= 12.0f ? 1.0f : 0.0f;  // a gap between cells (as the shader draws)
    r0 -= r0 % step;
    c0 -= c0 % step;
    if (inset > 0.0f)
        dl->AddRectFilled(ImVec2(grid0.x + float(c0) * cell, grid0.y + float(r0) * cell),
                          ImVec2(grid0.x + float(c1) * cell, grid0.y + float(r1) * cell), gap);
    for (int r = r0; r < r1; r += step)
        for (int c = c0; c < c1; c += step) {
            const heatmap_cell k = heatmap_classify(m, masked_from, r, c);
            const ImVec2 a(grid0.x + float(c) * cell, grid0.y + float(r) * cell);
            const ImVec2 b(grid0.x + float(std::min(c + step, m.cols)) * cell - inset,
                           grid0.y + float(std::min(r + step, m.rows)) * cell - inset);
            dl->AddRectFilled(a, b, to_u32(heatmap_color_cell(map, range, k, m(r, c))));
            const ImVec2 mid((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
            if (k == heatmap_cell::masked && cell >= 6.0f) {
                dl->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), IM_COL32(128, 128, 128, 255), std::max(1.0f, cell * 0.15f));
            } else if (markers && big && (k == heatmap_cell::pos_inf || k == heatmap_cell::neg_inf)) {
                dl->AddCircleFilled(mid, cell * 0.2f,
                                    k == heatmap_cell::pos_inf ? IM_COL32(255, 115, 0, 255) : IM_COL32(217, 217, 217, 255));
            }
        }
}

void legend_draw_rects(ImDrawList* dl, ImVec2 p0, ImVec2 p1, colormap map) {
    const int segments = 48;
    const float w = (p1.x - p0.x) / float(segments);
    for (int i = 0; i < segments; ++i) {
        const ImU32 a = to_u32(heatmap_color_map(map, float(i) / float(segments)));
        const ImU32 b = to_u32(heatmap_color_map(map, float(i + 1) / float(segments)));
        dl->AddRectFilledMultiColor(ImVec2(p0.x + float(i) * w, p0.y), ImVec2(p0.x + float(i + 1) * w, p1.y), a, b, b, a);
    }
}

// Text turned a quarter counter-clockwise (it reads bottom to top): its box
// spans x in [pos.x, pos.x + font size] and y in [pos.y - width, pos.y].
void text_vertical(ImDrawList* dl, ImVec2 pos, ImU32 col, const char* text) {
    const int v0 = dl->VtxBuffer.Size;
    // The font's own renderer, not AddText: AddText would clip the unturned
    // text to the current clip rectangle; the scissor clips the turned one.
    ImGui::GetFont()->RenderText(dl, ImGui::GetFontSize(), pos, col, ImVec4(-1e9f, -1e9f, 1e9f, 1e9f), text, nullptr, 0.0f,
                                 false);
    for (int i = v0; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        const float dx = p.x - pos.x, dy = p.y - pos.y;
        p = ImVec2(pos.x + dy, pos.y - dx);
    }
}

// --- layout --------------------------------------------------------------------

// Sizes of one frame's drawing, in display units, before anything is drawn.
struct layout {
    int rows = 0, cols = 0;
    float font = 0.0f;
    float cell = 0.0f;                         // after the options' and the user's zoom
    float scroll_dx = 0.0f, scroll_dy = 0.0f;  // the scroll a Ctrl + wheel zoom asks for
    float row_band = 0.0f, col_band = 0.0f, sums_w = 0.0f;
    int row_every = 1, col_every = 1;  // a label every k-th row and column (sparse labels)
    bool col_vertical = false;         // column labels turned a quarter (wider than a cell even when smaller)
    float col_font = 0.0f;             // upright column labels' size: the font's, or down to 0.7 of it to fit a cell
    float grid_w = 0.0f, grid_h = 0.0f, total_w = 0.0f, total_h = 0.0f;
    ImVec2 child_size;
    bool cut = false;  // a scrollbar of its own although the map could be whole (docs/using.md)
    colormap map = colormap::sequential;
    heatmap_range range;
    bool show_values = false;
};

// The cell edge: the options' (or the width's) cell times the zooms. A Ctrl +
// wheel over the cells last frame, or a pinch on them, zooms about the pointer
// or the fingers (applied before layout so this frame's content size already has
// the new cell size): it updates the widget's zoom and sets the scroll that keeps
// the pointed cell.
void layout_cell(layout& l, widget_state& st, const heatmap_options& opt, int frame, float fit_width,
                 const heatmap_context::state& ctx) {
    const ImGuiIO& io = ImGui::GetIO();
    float base = opt.cell;
    const float fit = fit_width / float(std::max(l.cols, 1));
    if (base <= 0.0f)
        base = std::clamp(fit, l.font * 0.3f, l.font * 3.0f);
    else if (opt.zoom == 1.0f)  // a cell asked for (one that fits the numbers) shrinks to keep the map whole
        base = std::min(base, std::max(fit, l.font * 0.3f));
    const float min_cell = 0.25f, max_cell = l.font * 12.0f;
    float factor = 1.0f;
    ImVec2 about = io.MousePos;
    if (st.hovered_frame == frame - 1 && io.KeyCtrl && io.MouseWheel != 0.0f)
        factor = std::pow(1.2f, io.MouseWheel);
    const ImVec2 g1(st.last_grid0.x + float(l.cols) * st.last_cell, st.last_grid0.y + float(l.rows) * st.last_cell);
    if (ctx.pinch != 1.0f && st.cells_frame == frame - 1 && ctx.pinch_x >= st.last_grid0.x && ctx.pinch_x < g1.x &&
        ctx.pinch_y >= st.last_grid0.y && ctx.pinch_y < g1.y) {
        factor = ctx.pinch;
        about = ImVec2(ctx.pinch_x, ctx.pinch_y);
    }
    if (factor != 1.0f && st.last_cell > 0.0f) {
        const float before = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);
        st.user_zoom = std::clamp(st.user_zoom * factor, 0.01f, 100.0f);
        const float after = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);
        l.scroll_dx = (about.x - st.last_grid0.x) / st.last_cell * (after - before);
        l.scroll_dy = (about.y - st.last_grid0.y) / st.last_cell * (after - before);
    }
    l.cell = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);
}

layout layout_compute(widget_state& st, const matrix& m, const heatmap_options& opt, int frame,
                      const heatmap_context::state& ctx) {
    const ImGuiStyle& style = ImGui::GetStyle();
    layout l;
    l.font = ImGui::GetFontSize();
    const float font = l.font;
    // At most the window's visible width: in a window that scrolls sideways the
    // content region counts to the content's edge, and a map sized to it would keep
    // the panel as wide as it once was (after a resize, or beside a wide map).
    const ImGuiWindow* window = ImGui::GetCurrentWindow();
    const ImVec2 avail(std::min(ImGui::GetContentRegionAvail().x,
                                window->InnerRect.Max.x - window->WindowPadding.x - ImGui::GetCursorScreenPos().x),
                       ImGui::GetContentRegionAvail().y);
    l.rows = std::max(m.rows, 0);
    l.cols = std::max(m.cols, 0);
    const float row_label_full = widest_label(st.row_w, opt.row_labels);
    const float col_label_full = widest_label(st.col_w, opt.col_labels);
    const float row_band_full = row_label_full > 0.0f ? row_label_full + style.ItemSpacing.x : 0.0f;
    const float sums_full = opt.show_row_sums ? ImGui::CalcTextSize("-0.000").x + style.ItemSpacing.x * 2.0f : 0.0f;
    layout_cell(l, st, opt, frame, avail.x - row_band_full - sums_full - style.ScrollbarSize, ctx);
    const float cell = l.cell;

    const bool text_fits = cell >= font * 0.85f;  // a line of text per row
    const bool sparse = opt.sparse_labels && !text_fits && cell > 0.0f;
    l.row_band = text_fits || sparse ? row_band_full : 0.0f;
    l.sums_w = text_fits ? sums_full : 0.0f;
    const bool col_labels = (text_fits || sparse) && col_label_full > 0.0f;
    // Upright when the widest label fits a cell at 0.7 of the font or more: a
    // letter turned on its side ("m" as three prongs) is hard to read.
    const float fit = col_label_full > 0.0f ? (cell - 2.0f) / col_label_full : 1.0f;
    l.col_vertical = col_labels && !sparse && fit < 0.7f;
    l.col_font = sparse ? font : font * std::min(fit, 1.0f);
    if (sparse) {  // labels a line of text apart, columns' a label's width and a space apart
        l.row_every = int(std::ceil(font * 1.05f / cell));
        l.col_every = int(std::ceil((col_label_full + font) / cell));
    }
    l.col_band = !col_labels      ? 0.0f
                 : l.col_vertical ? std::min(col_label_full, font * 8.0f) + style.ItemSpacing.y
                                  : l.col_font + style.ItemSpacing.y;
    l.grid_w = float(l.cols) * cell;
    l.grid_h = float(l.rows) * cell;
    l.total_w = l.row_band + l.grid_w + l.sums_w;
    l.total_h = l.col_band + l.grid_h;

    const float legend_h = opt.show_legend ? ImGui::GetFrameHeightWithSpacing() : 0.0f;  // stays in view below
    const float max_h = opt.max_height > 0.0f ? opt.max_height : std::max(avail.y - legend_h, font * 12.0f);
    const float max_w = std::max(avail.x, std::min(l.total_w, font * 6.0f));
    const float sb = style.ScrollbarSize;
    bool need_x = l.total_w > max_w, need_y = l.total_h + (need_x ? sb : 0.0f) > max_h;
    need_x = l.total_w + (need_y ? sb : 0.0f) > max_w;
    l.child_size = ImVec2(std::min(max_w, l.total_w + (need_y ? sb : 0.0f) + 1.0f),
                          std::min(max_h, l.total_h + (need_x ? sb : 0.0f) + 1.0f));
    // A map is drawn whole, unless the person zoomed it, it is wider than the panel
    // at the smallest cell, or taller than two screens (where it scrolls in place).
    const bool zoomed = opt.zoom * st.user_zoom != 1.0f;
    l.cut = !zoomed &&
            ((need_x && float(l.cols) * font * 0.3f <= avail.x) || (need_y && l.total_h <= 2.0f * ImGui::GetIO().DisplaySize.y));

    l.map = opt.map;
    l.range = opt.fixed_range ? heatmap_range{opt.lo, opt.hi} : l.map == colormap::diverging ? st.diverging : st.sequential;
    // Every value or none: numbers when the map's widest one fits a cell.
    l.show_values = opt.show_values && cell >= heatmap_value_cell(st.values.widest_chars);
    return l;
}

// Where this frame's cells are on screen, inside the scrolling child.
struct placement {
    ImVec2 grid0, grid1;                 // cell (0, 0)'s corner and the far corner of the last cell
    ImVec2 clip0, clip1;                 // the child's clip rectangle
    float top = 0.0f, left = 0.0f;       // the column labels stick to the top, the row labels to the left
    ImVec2 open0;                        // the cells not under a label band start here
    int r0 = 0, r1 = 0, c0 = 0, c1 = 0;  // the visible cells [r0, r1) × [c0, c1)
};

placement placement_compute(ImDrawList* dl, const layout& l) {
    placement p;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    p.grid0 = ImVec2(origin.x + l.row_band, origin.y + l.col_band);
    p.grid1 = ImVec2(p.grid0.x + l.grid_w, p.grid0.y + l.grid_h);
    p.clip0 = dl->GetClipRectMin();
    p.clip1 = dl->GetClipRectMax();
    p.top = std::max(origin.y, p.clip0.y);
    p.left = std::max(origin.x, p.clip0.x);
    p.open0 = ImVec2(p.left + l.row_band, p.top + l.col_band);
    visible_span(p.open0.y, p.clip1.y, p.grid0.y, l.cell, l.rows, p.r0, p.r1);
    visible_span(p.open0.x, p.clip1.x, p.grid0.x, l.cell, l.cols, p.c0, p.c1);
    return p;
}

// The cell under a point of the open (unlabelled, unclipped) cells, or false.
bool cell_at(const layout& l, const placement& p, ImVec2 at, int& r, int& c) {
    r = c = -1;
    if (at.x < p.open0.x || at.y < p.open0.y || at.x >= p.grid1.x || at.y >= p.grid1.y || at.x >= p.clip1.x || at.y >= p.clip1.y)
        return false;
    r = std::clamp(int((at.y - p.grid0.y) / l.cell), 0, l.rows - 1);
    c = std::clamp(int((at.x - p.grid0.x) / l.cell), 0, l.cols - 1);
    return l.rows > 0 && l.cols > 0;
}

// The keys a focused map keeps (ImGui's navigation would move the focus with them).
constexpr ImGuiKey map_keys[] = {ImGuiKey_LeftArrow, ImGuiKey_RightArrow, ImGuiKey_UpArrow, ImGuiKey_DownArrow,
                                 ImGuiKey_Home,      ImGuiKey_End,        ImGuiKey_PageUp,  ImGuiKey_PageDown};

// Keyboard navigation on the cells (the last item, "##cells"): while it has the
// focus the map owns map_keys and moves its cursor with them; Enter or Space
// (`pressed`: the item activated without the mouse) presses the cursor cell. A
// page is the rows in view.
void cells_keys(widget_state& st, bool pressed, const heatmap_options& opt, const layout& l, const placement& p,
                heatmap_result& result) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!(io.ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) || !ImGui::IsItemFocused() || l.rows <= 0 || l.cols <= 0)
        return;
    const ImGuiID id = ImGui::GetItemID();
    result.focused = true;
    for (const ImGuiKey k : map_keys)
        ImGui::SetKeyOwner(k, id);
    const bool own = opt.cursor_row < 0;  // the widget keeps the cursor
    const int row0 = std::clamp(!own ? opt.cursor_row : st.cursor_row >= 0 ? st.cursor_row : opt.highlight_row, 0, l.rows - 1);
    const int col0 = std::clamp(!own                 ? opt.cursor_col
                                : st.cursor_col >= 0 ? st.cursor_col
                                                     : std::max(opt.highlight_col, 0),
                                0, l.cols - 1);
    result.cursor_row = row0;
    result.cursor_col = col0;
    if (pressed) {
        result.clicked_row = row0;
        result.clicked_col = col0;
    }
    const auto hit = [id](ImGuiKey k) { return ImGui::IsKeyPressed(k, id, ImGuiInputFlags_Repeat); };
    const int page = std::max(1, p.r1 - p.r0 - 1);
    int row = row0, col = col0;
    bool moved = false;
    const auto move = [&](ImGuiKey k, int dr, int dc) {
        if (hit(k)) {
            row += dr;
            col += dc;
            moved = true;
        }
    };
    move(ImGuiKey_LeftArrow, 0, -1);
    move(ImGuiKey_RightArrow, 0, 1);
    move(ImGuiKey_UpArrow, -1, 0);
    move(ImGuiKey_DownArrow, 1, 0);
    move(ImGuiKey_PageUp, -page, 0);
    move(ImGuiKey_PageDown, page, 0);
    move(ImGuiKey_Home, io.KeyCtrl ? -l.rows : 0, -l.cols);
    move(ImGuiKey_End, io.KeyCtrl ? l.rows : 0, l.cols);
    if (!moved)
        return;
    result.cursor_row = result.moved_row = std::clamp(row, 0, l.rows - 1);
    result.cursor_col = result.moved_col = std::clamp(col, 0, l.cols - 1);
    if (own)
        st.cursor_row = result.cursor_row, st.cursor_col = result.cursor_col;
    // Keep the cursor cell in view (the label bands cover the top and left).
    const ImVec2 a(p.grid0.x + float(result.moved_col) * l.cell, p.grid0.y + float(result.moved_row) * l.cell);
    ImGui::ScrollToRect(ImGui::GetCurrentWindow(),
                        ImRect(ImVec2(a.x - l.row_band, a.y - l.col_band), ImVec2(a.x + l.cell, a.y + l.cell)));
}

// Hover and click, before anything is drawn (it draws nothing), so this frame's
// overlays follow the pointer. A click is a press and release on the cells
// without dragging (a touch is a click too). Fills the result's cell fields.
void cells_interact(widget_state& st, const heatmap_options& opt, const layout& l, const placement& p, int frame,
                    heatmap_result& result) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool pressed = ImGui::InvisibleButton("##cells", ImVec2(std::max(l.total_w, 1.0f), std::max(l.total_h, 1.0f)));
    if (ImGui::IsItemHovered() && cell_at(l, p, io.MousePos, result.hovered_row, result.hovered_col)) {
        st.hovered_frame = frame;
    }
    const bool by_mouse = pressed && ImGui::IsMouseReleased(ImGuiMouseButton_Left);
    if (by_mouse && io.MouseDragMaxDistanceSqr[0] <= io.MouseDragThreshold * io.MouseDragThreshold)
        cell_at(l, p, io.MouseClickedPos[0], result.clicked_row, result.clicked_col);
    cells_keys(st, pressed && !by_mouse, opt, l, p, result);
    result.window = ImGui::GetCurrentWindow()->Name;
    st.last_grid0 = p.grid0;
    st.last_cell = l.cell;
    st.cells_frame = frame;
    result.cells_x0 = p.grid0.x;
    result.cells_y0 = p.grid0.y;
    result.cells_x1 = p.grid1.x;
    result.cells_y1 = p.grid1.y;
    result.cell = l.cell;
}

// --- cells -----------------------------------------------------------------------

// One GPU quad when the renderer holds the widget's texture, else rectangles.
void cells_draw(heatmap_context::state& ctx, ImDrawList* dl, const widget_state& st, ImGuiID key, const matrix& m,
                const heatmap_options& opt, const layout& l, const placement& p) {
    if (l.rows <= 0 || l.cols <= 0)
        return;
    heatmap_gpu_style gs;
    gs.map = l.map;
    gs.range = l.range;
    gs.cell_px = l.cell;
    gs.gap = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    gs.gap.w = 1.0f;
    gs.markers = !l.show_values;
    const bool on_gpu = ctx.gpu && st.uploaded_to == ctx.gpu && ctx.gpu->draw(dl, key, p.grid0, p.grid1, gs);
    if (!on_gpu)
        cells_draw_rects(dl, m, opt.masked_from, l.map, l.range, p.grid0, l.cell, p.r0, p.r1, p.c0, p.c1, gs.markers,
                         ImGui::ColorConvertFloat4ToU32(gs.gap));
}

// --- overlays --------------------------------------------------------------------

const ImU32 highlight_colour = IM_COL32(255, 165, 0, 255);  // the bands over the cells

// The selected row's and column's labels: orange, dark on the light theme (≥ 4.5:1 there too).
ImU32 highlight_label_colour() { return ImGui::ColorConvertFloat4ToU32(theme_highlight()); }

void overlay_highlights(ImDrawList* dl, const heatmap_options& opt, const layout& l, const placement& p) {
    const float cell = l.cell;
    const float thick = std::max(1.0f, std::min(2.0f, cell * 0.25f));
    if (opt.highlight_row >= 0 && opt.highlight_row < l.rows)
        dl->AddRect(ImVec2(p.grid0.x, p.grid0.y + float(opt.highlight_row) * cell),
                    ImVec2(p.grid1.x, p.grid0.y + float(opt.highlight_row + 1) * cell), highlight_colour, 0.0f, 0, thick);
    if (opt.highlight_col >= 0 && opt.highlight_col < l.cols)
        dl->AddRect(ImVec2(p.grid0.x + float(opt.highlight_col) * cell, p.grid0.y),
                    ImVec2(p.grid0.x + float(opt.highlight_col + 1) * cell, p.grid1.y), highlight_colour, 0.0f, 0, thick);
}

// Each visible, unmasked cell's number, black or white for contrast, when it fits.
void overlay_values(ImDrawList* dl, const matrix& m, const heatmap_options& opt, const layout& l, const placement& p) {
    const float cell = l.cell;
    char buf[24];
    for (int r = p.r0; r < p.r1; ++r)
        for (int c = p.c0; c < p.c1; ++c) {
            const heatmap_cell k = heatmap_classify(m, opt.masked_from, r, c);
            if (k == heatmap_cell::masked)
                continue;
            const float v = m(r, c);
            heatmap_format_value(v, buf, sizeof buf);
            const ImVec2 ts = ImGui::CalcTextSize(buf);
            if (ts.x > cell - 2.0f)
                continue;
            const bool dark_text = heatmap_luma(heatmap_color_cell(l.map, l.range, k, v)) > 0.5f;
            dl->AddText(
                ImVec2(p.grid0.x + float(c) * cell + (cell - ts.x) * 0.5f, p.grid0.y + float(r) * cell + (cell - ts.y) * 0.5f),
                dark_text ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), buf);
        }
}

// The hovered cell's row and column, tinted and outlined.
void overlay_hover(ImDrawList* dl, const layout& l, const placement& p, int r, int c) {
    const float cell = l.cell;
    const ImVec2 g0 = p.grid0, g1 = p.grid1;
    const ImU32 tint = IM_COL32(255, 255, 255, 46), line = IM_COL32(255, 255, 255, 200);
    dl->AddRectFilled(ImVec2(g0.x, g0.y + float(r) * cell), ImVec2(g1.x, g0.y + float(r + 1) * cell), tint);
    dl->AddRectFilled(ImVec2(g0.x + float(c) * cell, g0.y), ImVec2(g0.x + float(c + 1) * cell, g1.y), tint);
    dl->AddRect(ImVec2(g0.x, g0.y + float(r) * cell), ImVec2(g1.x, g0.y + float(r + 1) * cell), line, 0.0f, 0, 1.0f);
    dl->AddRect(ImVec2(g0.x + float(c) * cell, g0.y), ImVec2(g0.x + float(c + 1) * cell, g1.y), line, 0.0f, 0, 1.0f);
    dl->AddRect(ImVec2(g0.x + float(c) * cell - 1.0f, g0.y + float(r) * cell - 1.0f),
                ImVec2(g0.x + float(c + 1) * cell + 1.0f, g0.y + float(r + 1) * cell + 1.0f), IM_COL32(255, 255, 255, 255), 0.0f,
                0, 2.0f);
}

void overlay_row_sums(ImDrawList* dl, const widget_state& st, const layout& l, const placement& p, int hovered_row) {
    const ImGuiStyle& style = ImGui::GetStyle();
    char buf[24];
    for (int r = p.r0; r < p.r1; ++r) {
        const float s = st.row_sums[std::size_t(r)];
        if (std::isfinite(s) && std::fabs(s) < 1000.0f)
            std::snprintf(buf, sizeof buf, "%.3f", double(s));
        else
            heatmap_format_value(s, buf, sizeof buf);
        dl->AddText(ImVec2(p.grid1.x + style.ItemSpacing.x, p.grid0.y + float(r) * l.cell + (l.cell - l.font) * 0.5f),
                    r == hovered_row ? ImGui::GetColorU32(ImGuiCol_Text) : ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
    }
}

// Sparse labels: every k-th from the first, the last and the highlighted one,
// each alone within k of its neighbours (the highlighted one wins over a
// multiple of k near it, the last over the multiple before it).
bool sparse_label_shown(int i, int k, int highlighted, int n) {
    if (i == highlighted || i == n - 1)
        return true;
    if (i % k != 0)
        return false;
    const bool near_highlight = highlighted >= 0 && std::abs(i - highlighted) < k;
    return !near_highlight && n - 1 - i >= k;
}

// Sticky labels: an opaque band over whatever scrolled under it.
void overlay_column_labels(ImDrawList* dl, const heatmap_options& opt, const layout& l, const placement& p,
                           heatmap_result& result) {
    const int hovered_col = result.hovered_col;
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 hover_bg = ImGui::GetColorU32(ImGuiCol_HeaderHovered);
    const float cell = l.cell, top = p.top;
    dl->AddRectFilled(ImVec2(p.clip0.x, top), ImVec2(p.clip1.x, top + l.col_band), ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f));
    dl->PushClipRect(ImVec2(p.open0.x, top), ImVec2(p.clip1.x, top + l.col_band), true);
    for (int c = p.c0; c < p.c1 && c < int(opt.col_labels->size()); ++c) {
        if (l.col_every > 1 && !sparse_label_shown(c, l.col_every, opt.highlight_col, int(opt.col_labels->size())))
            continue;
        const char* s = (*opt.col_labels)[std::size_t(c)].c_str();
        const float x = p.grid0.x + float(c) * cell;
        const ImU32 col = c == opt.highlight_col ? highlight_label_colour() : text_col;
        if (c == hovered_col)
            dl->AddRectFilled(ImVec2(x, top), ImVec2(x + cell, top + l.col_band), hover_bg);
        if (c == opt.highlight_col)
            result.highlight_col_label = {std::max(x, p.open0.x), top, std::min(x + cell, p.clip1.x), top + l.col_band};
        if (l.col_vertical) {
            text_vertical(dl, ImVec2(x + (cell - l.font) * 0.5f, top + l.col_band - style.ItemSpacing.y * 0.5f), col, s);
        } else {
            const float w = ImGui::CalcTextSize(s).x * l.col_font / l.font;
            float tx = x + (cell - w) * 0.5f;
            if (l.col_every > 1)  // a tick's label wider than its cell stays over the map: the last one's too
                tx = std::clamp(tx, p.grid0.x, std::max(p.grid0.x, p.grid0.x + float(l.cols) * cell - w));
            dl->AddText(ImGui::GetFont(), l.col_font, ImVec2(tx, top + style.ItemSpacing.y * 0.5f), col, s);
        }
    }
    dl->PopClipRect();
}

void overlay_row_labels(ImDrawList* dl, const heatmap_options& opt, const layout& l, const placement& p, heatmap_result& result) {
    const int hovered_row = result.hovered_row;
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 hover_bg = ImGui::GetColorU32(ImGuiCol_HeaderHovered);
    const float cell = l.cell, left = p.left, band = l.row_band, top = p.top + l.col_band;
    dl->AddRectFilled(ImVec2(left, top), ImVec2(left + band, p.clip1.y), ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f));
    dl->PushClipRect(ImVec2(left, top), ImVec2(left + band, p.clip1.y), true);
    for (int r = p.r0; r < p.r1 && r < int(opt.row_labels->size()); ++r) {
        if (l.row_every > 1 && !sparse_label_shown(r, l.row_every, opt.highlight_row, int(opt.row_labels->size())))
            continue;
        const char* s = (*opt.row_labels)[std::size_t(r)].c_str();
        const float y = p.grid0.y + float(r) * cell;
        if (r == hovered_row)
            dl->AddRectFilled(ImVec2(left, y), ImVec2(left + band, y + cell), hover_bg);
        const float w = ImGui::CalcTextSize(s).x;
        float ty = y + (cell - l.font) * 0.5f;
        if (l.row_every > 1)  // a tick's label taller than its row stays beside the map: the first one's too
            ty = std::clamp(ty, p.grid0.y, std::max(p.grid0.y, p.grid0.y + float(l.rows) * cell - l.font));
        dl->AddText(ImVec2(left + band - style.ItemSpacing.x * 0.5f - w, ty),
                    r == opt.highlight_row ? highlight_label_colour() : text_col, s);
        if (r == opt.highlight_row)
            result.highlight_row_label = {left, std::max(y, top), left + band, std::min(y + cell, p.clip1.y)};
    }
    dl->PopClipRect();
}

// Everything over the cells, in drawing order: highlights, numbers and the
// hover (clipped to the open cells), then row sums and the label bands.
void overlays_draw(ImDrawList* dl, const widget_state& st, const matrix& m, const heatmap_options& opt, const layout& l,
                   const placement& p, heatmap_result& result) {
    dl->PushClipRect(p.open0, p.clip1, true);
    overlay_highlights(dl, opt, l, p);
    if (l.show_values)
        overlay_values(dl, m, opt, l, p);
    if (opt.veiled) {
        const ImVec2 end(p.grid0.x + float(m.cols) * l.cell, p.grid0.y + float(m.rows) * l.cell);
        ImVec4 veil = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
        veil.w = 0.65f;
        dl->AddRectFilled(p.grid0, end, ImGui::GetColorU32(veil));
        dl->AddLine(p.grid0, end, ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
    }
    if (result.hovered_row >= 0)
        overlay_hover(dl, l, p, result.hovered_row, result.hovered_col);
    if (result.focused)  // the keyboard's cell: a ring in the text colour, over a dark one, on any cell colour
        for (const auto& [colour, grow] :
             {std::pair{IM_COL32(0, 0, 0, 255), 3.0f}, std::pair{ImGui::GetColorU32(ImGuiCol_NavHighlight), 1.5f}}) {
            const ImVec2 a(p.grid0.x + float(result.cursor_col) * l.cell, p.grid0.y + float(result.cursor_row) * l.cell);
            dl->AddRect(ImVec2(a.x - grow, a.y - grow), ImVec2(a.x + l.cell + grow, a.y + l.cell + grow), colour, 0.0f, 0, 2.0f);
        }
    dl->PopClipRect();
    if (l.sums_w > 0.0f && st.sums_valid)
        overlay_row_sums(dl, st, l, p, result.hovered_row);
    if (l.col_band > 0.0f)
        overlay_column_labels(dl, opt, l, p, result);
    if (l.row_band > 0.0f && opt.row_labels)
        overlay_row_labels(dl, opt, l, p, result);
}

// --- legend ------------------------------------------------------------------------

// A small square of class `cell` followed by "name count" (the name: the
// class's own spelling, NaN / +inf / -inf, or "masked" in the language shown).
void legend_swatch(ImDrawList* dl, const layout& l, heatmap_cell cell, const char* name, int count, float edge) {
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::SameLine();
    const ImVec2 a(ImGui::GetCursorScreenPos().x, ImGui::GetCursorScreenPos().y + (ImGui::GetTextLineHeight() - edge) * 0.5f);
    const ImVec2 b(a.x + edge, a.y + edge);
    ImGui::Dummy(ImVec2(edge, ImGui::GetTextLineHeight()));
    dl->AddRectFilled(a, b, to_u32(heatmap_color_cell(l.map, l.range, cell, 0.0f)));
    if (cell == heatmap_cell::masked)
        dl->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), IM_COL32(128, 128, 128, 255), 2.0f);
    if (cell == heatmap_cell::pos_inf || cell == heatmap_cell::neg_inf)
        dl->AddCircleFilled(ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f), edge * 0.2f,
                            cell == heatmap_cell::pos_inf ? IM_COL32(255, 115, 0, 255) : IM_COL32(217, 217, 217, 255));
    dl->AddRect(a, b, IM_COL32(128, 128, 128, 255));
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    ImGui::Text("%s %d", name, count);
}

// The range's ends around a gradient bar, then a swatch for each class of
// unusual cell the matrix has.
void legend_draw(heatmap_gpu* gpu, const widget_state& st, const layout& l, const char* masked_name) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float font = l.font;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    char lo[24], hi[24];
    std::snprintf(lo, sizeof lo, "%.3g", double(l.range.lo));
    std::snprintf(hi, sizeof hi, "%.3g", double(l.range.hi));
    ImGui::TextUnformatted(lo);
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    const ImVec2 bar(std::clamp(l.child_size.x * 0.4f, font * 4.0f, font * 12.0f), font * 0.8f);
    const ImVec2 p0(ImGui::GetCursorScreenPos().x, ImGui::GetCursorScreenPos().y + (ImGui::GetTextLineHeight() - bar.y) * 0.5f);
    const ImVec2 p1(p0.x + bar.x, p0.y + bar.y);
    ImGui::Dummy(ImVec2(bar.x, ImGui::GetTextLineHeight()));
    heatmap_gpu_style gs;
    gs.map = l.map;
    gs.range = l.range;
    if (gpu)
        gpu->draw_legend(dl, p0, p1, gs);
    else
        legend_draw_rects(dl, p0, p1, l.map);
    if (l.map == colormap::diverging && l.range.lo < 0.0f && l.range.hi > 0.0f) {
        const float x = p0.x + bar.x * heatmap_range_t(l.range, 0.0f);
        dl->AddLine(ImVec2(x, p0.y - 2.0f), ImVec2(x, p1.y + 2.0f), ImGui::GetColorU32(ImGuiCol_Text));
    }
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    ImGui::TextUnformatted(hi);
    struct swatch {
        heatmap_cell cell;
        const char* name;
    };
    static const swatch swatches[] = {{heatmap_cell::nan, "NaN"},
                                      {heatmap_cell::pos_inf, "+inf"},
                                      {heatmap_cell::neg_inf, "-inf"},
                                      {heatmap_cell::masked, nullptr}};
    for (const swatch& s : swatches)
        if (st.counts.of(s.cell) > 0)
            legend_swatch(dl, l, s.cell,
                          s.name        ? s.name
                          : masked_name ? masked_name
                                        : tr("masked", "已遮蔽"),
                          st.counts.of(s.cell), bar.y);
}

// The hovered cell in words: its row's and column's labels (or indices) and its
// value as the cells write it (masked, NaN and ±inf as they are).
std::string hover_tooltip(const matrix& m, const heatmap_options& opt, int r, int c) {
    const auto label = [](const std::vector<std::string>* labels, int i) {
        return labels && i < int(labels->size()) ? (*labels)[std::size_t(i)] : std::to_string(i);
    };
    char value[24];
    if (heatmap_classify(m, opt.masked_from, r, c) == heatmap_cell::masked)
        std::snprintf(value, sizeof value, "%s", opt.masked_name ? opt.masked_name : tr("masked", "已遮蔽"));
    else
        heatmap_format_value(m(r, c), value, sizeof value);
    char text[256];
    std::snprintf(text, sizeof text, "%s %d (%s)   %s %d (%s)   %s %s", tr("row", "行"), r, label(opt.row_labels, r).c_str(),
                  tr("column", "列"), c, label(opt.col_labels, c).c_str(), tr("value", "值"), value);
    ImGui::SetTooltip("%s", text);
    return text;
}

}  // namespace

float heatmap_value_cell(int chars) {
    // Digits are the widest characters of a value's text ("-", ".", "e", "+" are narrower).
    static constexpr char eights[] = "8888888888888888";
    const int n = std::clamp(chars, 1, int(sizeof eights) - 1);
    return std::max(ImGui::GetFontSize() + 2.0f, ImGui::CalcTextSize(eights, eights + n).x + 4.0f);
}

// --- draw ------------------------------------------------------------------------

heatmap_result heatmap_draw(heatmap_context& context, const char* id, const matrix& m, const heatmap_options& opt) {
    heatmap_context::state& ctx = context.internal();
    heatmap_result result;
    const ImGuiID key = ImGui::GetID(id);
    const int frame = ImGui::GetFrameCount();
    states_sweep(ctx, frame);
    widget_state& st = ctx.widgets[key];
    st.last_frame = frame;
    state_refresh(ctx, st, key, m, opt);
    ImGui::BeginGroup();
    if (opt.axes)
        ImGui::TextDisabled("%s", opt.axes);
    const layout l = layout_compute(st, m, opt, frame, ctx);

    // Flattened: Tab reaches the cells from the panel's other controls.
    if (ImGui::BeginChild(id, l.child_size, ImGuiChildFlags_None,
                          ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NavFlattened)) {
        if (l.scroll_dx != 0.0f || l.scroll_dy != 0.0f) {
            ImGui::SetScrollX(ImGui::GetScrollX() + l.scroll_dx);
            ImGui::SetScrollY(ImGui::GetScrollY() + l.scroll_dy);
        }
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const placement p = placement_compute(dl, l);
        cells_interact(st, opt, l, p, frame, result);
        cells_draw(ctx, dl, st, key, m, opt, l, p);
        overlays_draw(dl, st, m, opt, l, p, result);
    }
    ImGui::EndChild();
    if (l.cut && result.cells_x1 > result.cells_x0) {  // drawn, and cut by its own box
        if (ctx.cut_frame != frame) {
            ctx.cut.clear();
            ctx.cut_frame = frame;
        }
        const ImVec2 b0 = ImGui::GetItemRectMin(), b1 = ImGui::GetItemRectMax();
        ctx.cut.push_back(
            {id, result.window, result.cells_x0, result.cells_y0, result.cells_x1, result.cells_y1, b0.x, b0.y, b1.x, b1.y});
    }
    if (opt.hover_value && result.hovered_row >= 0) {
        ctx.tooltip = hover_tooltip(m, opt, result.hovered_row, result.hovered_col);
        ctx.tooltip_frame = frame;
    }
    if (opt.show_legend && l.rows > 0 && l.cols > 0)
        legend_draw(ctx.gpu, st, l, opt.masked_name);
    result.cells = st.values.cells;
    result.labelled = l.show_values ? st.values.cells : 0;
    if (opt.show_values && !l.show_values && result.cells > 0) {  // said in words, never half-labelled; as wide as the map
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(l.child_size.x, l.font * 8.0f));
        ImGui::TextDisabled("%s", tr("numbers too wide for these cells: hover a cell for its value",
                                     "格子太小，放不下数字：把指针移到格子上查看数值"));
        ImGui::PopTextWrapPos();
    }
    ImGui::EndGroup();
    return result;
}

std::string text_mirror_cell(float value, bool masked) {
    if (masked && !std::isnan(value))
        return tr("masked", "已屏蔽");
    return number_text(value, heatmap_value_format(value), nonfinite_spelled());
}

}  // namespace attn::ui
