// [SECTION] index
//   state      per-widget cache: what was uploaded (id, version, size), ranges, row sums, zoom
//   layout     cell size, label bands, the size of the scrolling child
//   cells      one GPU quad (heatmap_gpu) or, without a GPU, rectangles for the visible cells
//   overlays   hover and highlight bands, numbers in cells, row sums, sticky labels
//   legend     gradient bar with the range's ends and swatches for NaN / ±inf / masked
//   compat     the first app's call
//
// Per frame the work is O(visible cells that show text) + O(labels' count) for
// the widest label; everything O(rows·cols) happens only when the data changes.
#include "heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "heatmap_gpu.hpp"
#include "imgui.h"

namespace attn::ui {

// --- state -------------------------------------------------------------------

namespace {

heatmap_gpu* g_gpu = nullptr;

struct label_width_cache {
    const std::vector<std::string>* labels = nullptr;
    std::size_t count = 0;
    std::uint64_t version = 0;
    float font = 0.0f;
    float widest = 0.0f;
};

struct widget_state {
    bool valid = false;
    std::uint64_t version = 0;
    int rows = -1, cols = -1;
    heatmap_gpu* uploaded_to = nullptr;   // the renderer that holds this widget's texture
    heatmap_range sequential, diverging;  // automatic ranges
    heatmap_counts counts;
    std::vector<float> row_sums;
    bool sums_valid = false;
    label_width_cache row_w, col_w;
    float user_zoom = 1.0f;  // Ctrl + wheel
    int last_frame = 0;
    int hovered_frame = -1;  // the last frame the pointer was over the cells
    ImVec2 last_grid0;       // where cell (0, 0) was drawn then, and the cell size
    float last_cell = 0.0f;
};

std::unordered_map<ImGuiID, widget_state> g_states;
std::vector<float> g_texels;  // scratch for uploads
int g_swept_frame = -1;

// Frees the state (and texture) of widgets not drawn for a while.
void states_sweep(int frame) {
    if (frame == g_swept_frame || frame % 120 != 0)
        return;
    g_swept_frame = frame;
    for (auto it = g_states.begin(); it != g_states.end();) {
        if (frame - it->second.last_frame > 300) {
            if (g_gpu && it->second.uploaded_to == g_gpu)
                g_gpu->forget(it->first);
            it = g_states.erase(it);
        } else {
            ++it;
        }
    }
}

// Recomputes what depends on the data when (version, rows, cols) changed, and
// uploads the texture when the current renderer does not hold it.
void state_refresh(widget_state& st, ImGuiID key, const matrix& m, const heatmap_options& opt) {
    if (!st.valid || st.version != opt.version || st.rows != m.rows || st.cols != m.cols) {
        st.valid = true;
        st.version = opt.version;
        st.rows = m.rows;
        st.cols = m.cols;
        st.sequential = heatmap_range_compute(m, opt.masked_from, colormap::sequential);
        st.diverging = heatmap_range_compute(m, opt.masked_from, colormap::diverging);
        st.counts = heatmap_count_cells(m, opt.masked_from);
        st.sums_valid = false;
        st.uploaded_to = nullptr;
    }
    if (g_gpu && st.uploaded_to != g_gpu && !m.empty()) {
        heatmap_texels_fill(m, opt.masked_from, g_texels);
        g_gpu->upload(key, m.rows, m.cols, g_texels.data());
        st.uploaded_to = g_gpu;
    }
    if (opt.show_row_sums && !st.sums_valid) {
        st.row_sums = heatmap_row_sums(m);
        st.sums_valid = true;
    }
}

float widest_label(label_width_cache& cache, const std::vector<std::string>* labels, std::uint64_t version) {
    if (!labels || labels->empty())
        return 0.0f;
    const float font = ImGui::GetFontSize();
    if (cache.labels != labels || cache.count != labels->size() || cache.version != version || cache.font != font) {
        cache = {labels, labels->size(), version, font, 0.0f};
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

}  // namespace

void heatmap_set_gpu(heatmap_gpu* gpu) {
    for (auto& [key, st] : g_states)
        st.uploaded_to = nullptr;  // the new renderer holds none of them
    g_gpu = gpu;
}

heatmap_gpu* heatmap_get_gpu() { return g_gpu; }

heatmap_result heatmap_draw(const char* id, const matrix& m, const heatmap_options& opt) {
    heatmap_result result;
    const ImGuiID key = ImGui::GetID(id);
    const int frame = ImGui::GetFrameCount();
    states_sweep(frame);
    widget_state& st = g_states[key];
    st.last_frame = frame;
    state_refresh(st, key, m, opt);

    // --- layout ----------------------------------------------------------------
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImGuiIO& io = ImGui::GetIO();
    const float font = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int rows = std::max(m.rows, 0), cols = std::max(m.cols, 0);
    const float row_label_full = widest_label(st.row_w, opt.row_labels, opt.version);
    const float col_label_full = widest_label(st.col_w, opt.col_labels, opt.version);
    const float row_band_full = row_label_full > 0.0f ? row_label_full + style.ItemSpacing.x : 0.0f;
    const float sums_full = opt.show_row_sums ? ImGui::CalcTextSize("-0.000").x + style.ItemSpacing.x * 2.0f : 0.0f;

    float base = opt.cell;
    if (base <= 0.0f) {
        const float fit = (avail.x - row_band_full - sums_full - style.ScrollbarSize) / float(std::max(cols, 1));
        base = std::clamp(fit, font * 0.3f, font * 3.0f);
    }
    const float min_cell = 0.25f, max_cell = font * 12.0f;
    // Ctrl + wheel over the cells last frame: zoom about the pointer (applied
    // before layout so this frame's content size already has the new cell size).
    float scroll_dx = 0.0f, scroll_dy = 0.0f;
    if (st.hovered_frame == frame - 1 && io.KeyCtrl && io.MouseWheel != 0.0f && st.last_cell > 0.0f) {
        const float before = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);
        st.user_zoom = std::clamp(st.user_zoom * std::pow(1.2f, io.MouseWheel), 0.01f, 100.0f);
        const float after = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);
        scroll_dx = (io.MousePos.x - st.last_grid0.x) / st.last_cell * (after - before);
        scroll_dy = (io.MousePos.y - st.last_grid0.y) / st.last_cell * (after - before);
    }
    const float cell = std::clamp(base * opt.zoom * st.user_zoom, min_cell, max_cell);

    const bool text_fits = cell >= font * 0.85f;  // a line of text per row
    const float row_band = text_fits ? row_band_full : 0.0f;
    const float sums_w = text_fits ? sums_full : 0.0f;
    const bool col_labels = text_fits && col_label_full > 0.0f;
    const bool col_vertical = col_labels && col_label_full > cell - 2.0f;
    const float col_band = !col_labels    ? 0.0f
                           : col_vertical ? std::min(col_label_full, font * 8.0f) + style.ItemSpacing.y
                                          : font + style.ItemSpacing.y;
    const float grid_w = float(cols) * cell, grid_h = float(rows) * cell;
    const float total_w = row_band + grid_w + sums_w, total_h = col_band + grid_h;

    const float legend_h = opt.show_legend ? ImGui::GetFrameHeightWithSpacing() : 0.0f;  // stays in view below
    const float max_h = opt.max_height > 0.0f ? opt.max_height : std::max(avail.y - legend_h, font * 12.0f);
    const float max_w = std::max(avail.x, std::min(total_w, font * 6.0f));
    const float sb = style.ScrollbarSize;
    bool need_x = total_w > max_w, need_y = total_h + (need_x ? sb : 0.0f) > max_h;
    need_x = total_w + (need_y ? sb : 0.0f) > max_w;
    const ImVec2 child_size(std::min(max_w, total_w + (need_y ? sb : 0.0f) + 1.0f),
                            std::min(max_h, total_h + (need_x ? sb : 0.0f) + 1.0f));

    const colormap map = opt.map;
    const heatmap_range range = opt.fixed_range              ? heatmap_range{opt.lo, opt.hi}
                                : map == colormap::diverging ? st.diverging
                                                             : st.sequential;
    // Numbers when "0.00" fits; each wider number is left out of a cell it overflows.
    const bool show_values = opt.show_values && cell >= std::max(font + 2.0f, ImGui::CalcTextSize("0.00").x + 4.0f);

    ImGui::BeginGroup();
    if (ImGui::BeginChild(id, child_size, ImGuiChildFlags_None, ImGuiWindowFlags_HorizontalScrollbar)) {
        if (scroll_dx != 0.0f || scroll_dy != 0.0f) {
            ImGui::SetScrollX(ImGui::GetScrollX() + scroll_dx);
            ImGui::SetScrollY(ImGui::GetScrollY() + scroll_dy);
        }
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const ImVec2 grid0(origin.x + row_band, origin.y + col_band);
        const ImVec2 grid1(grid0.x + grid_w, grid0.y + grid_h);
        const ImVec2 clip0 = dl->GetClipRectMin(), clip1 = dl->GetClipRectMax();
        const float top = std::max(origin.y, clip0.y);        // the column labels stick to the top
        const float left = std::max(origin.x, clip0.x);       // the row labels to the left
        const ImVec2 open0(left + row_band, top + col_band);  // the cells not under a label band
        int r0, r1, c0, c1;
        visible_span(open0.y, clip1.y, grid0.y, cell, rows, r0, r1);
        visible_span(open0.x, clip1.x, grid0.x, cell, cols, c0, c1);

        // Interaction first (it draws nothing), so this frame's overlays follow the pointer.
        // A click is a press and release on the cells without dragging (a touch is a click too).
        const bool pressed = ImGui::InvisibleButton("##cells", ImVec2(std::max(total_w, 1.0f), std::max(total_h, 1.0f)));
        const auto cell_at = [&](ImVec2 p, int& r, int& c) {
            r = c = -1;
            if (p.x < open0.x || p.y < open0.y || p.x >= grid1.x || p.y >= grid1.y || p.x >= clip1.x || p.y >= clip1.y)
                return false;
            r = std::clamp(int((p.y - grid0.y) / cell), 0, rows - 1);
            c = std::clamp(int((p.x - grid0.x) / cell), 0, cols - 1);
            return rows > 0 && cols > 0;
        };
        if (ImGui::IsItemHovered() && cell_at(io.MousePos, result.hovered_row, result.hovered_col)) {
            st.hovered_frame = frame;
        }
        if (pressed && io.MouseDragMaxDistanceSqr[0] <= io.MouseDragThreshold * io.MouseDragThreshold)
            cell_at(io.MouseClickedPos[0], result.clicked_row, result.clicked_col);
        st.last_grid0 = grid0;
        st.last_cell = cell;
        result.cells_x0 = grid0.x;
        result.cells_y0 = grid0.y;
        result.cells_x1 = grid1.x;
        result.cells_y1 = grid1.y;
        result.cell = cell;

        // --- cells ------------------------------------------------------------------
        heatmap_gpu_style gs;
        gs.map = map;
        gs.range = range;
        gs.cell_px = cell;
        gs.gap = style.Colors[ImGuiCol_WindowBg];
        gs.gap.w = 1.0f;
        gs.markers = !show_values;
        const bool on_gpu = rows > 0 && cols > 0 && g_gpu && st.uploaded_to == g_gpu && g_gpu->draw(dl, key, grid0, grid1, gs);
        if (!on_gpu && rows > 0 && cols > 0)
            cells_draw_rects(dl, m, opt.masked_from, map, range, grid0, cell, r0, r1, c0, c1, gs.markers,
                             ImGui::ColorConvertFloat4ToU32(gs.gap));

        // --- overlays ---------------------------------------------------------------
        dl->PushClipRect(open0, clip1, true);
        const ImU32 highlight = IM_COL32(255, 165, 0, 255);
        const float thick = std::max(1.0f, std::min(2.0f, cell * 0.25f));
        if (opt.highlight_row >= 0 && opt.highlight_row < rows)
            dl->AddRect(ImVec2(grid0.x, grid0.y + float(opt.highlight_row) * cell),
                        ImVec2(grid1.x, grid0.y + float(opt.highlight_row + 1) * cell), highlight, 0.0f, 0, thick);
        if (opt.highlight_col >= 0 && opt.highlight_col < cols)
            dl->AddRect(ImVec2(grid0.x + float(opt.highlight_col) * cell, grid0.y),
                        ImVec2(grid0.x + float(opt.highlight_col + 1) * cell, grid1.y), highlight, 0.0f, 0, thick);
        if (show_values) {
            char buf[24];
            for (int r = r0; r < r1; ++r)
                for (int c = c0; c < c1; ++c) {
                    const heatmap_cell k = heatmap_classify(m, opt.masked_from, r, c);
                    if (k == heatmap_cell::masked)
                        continue;
                    const float v = m(r, c);
                    heatmap_format_value(v, buf, sizeof buf);
                    const ImVec2 ts = ImGui::CalcTextSize(buf);
                    if (ts.x > cell - 2.0f)
                        continue;
                    const bool dark_text = heatmap_luma(heatmap_color_cell(map, range, k, v)) > 0.5f;
                    dl->AddText(ImVec2(grid0.x + float(c) * cell + (cell - ts.x) * 0.5f,
                                       grid0.y + float(r) * cell + (cell - ts.y) * 0.5f),
                                dark_text ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), buf);
                }
        }
        if (result.hovered_row >= 0) {
            const int r = result.hovered_row, c = result.hovered_col;
            const ImU32 tint = IM_COL32(255, 255, 255, 46), line = IM_COL32(255, 255, 255, 200);
            dl->AddRectFilled(ImVec2(grid0.x, grid0.y + float(r) * cell), ImVec2(grid1.x, grid0.y + float(r + 1) * cell), tint);
            dl->AddRectFilled(ImVec2(grid0.x + float(c) * cell, grid0.y), ImVec2(grid0.x + float(c + 1) * cell, grid1.y), tint);
            dl->AddRect(ImVec2(grid0.x, grid0.y + float(r) * cell), ImVec2(grid1.x, grid0.y + float(r + 1) * cell), line, 0.0f, 0,
                        1.0f);
            dl->AddRect(ImVec2(grid0.x + float(c) * cell, grid0.y), ImVec2(grid0.x + float(c + 1) * cell, grid1.y), line, 0.0f, 0,
                        1.0f);
            dl->AddRect(ImVec2(grid0.x + float(c) * cell - 1.0f, grid0.y + float(r) * cell - 1.0f),
                        ImVec2(grid0.x + float(c + 1) * cell + 1.0f, grid0.y + float(r + 1) * cell + 1.0f),
                        IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
        }
        dl->PopClipRect();

        const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
        const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f);
        const ImU32 hover_bg = ImGui::GetColorU32(ImGuiCol_HeaderHovered);
        if (sums_w > 0.0f && st.sums_valid) {
            char buf[24];
            for (int r = r0; r < r1; ++r) {
                const float s = st.row_sums[std::size_t(r)];
                if (std::isfinite(s) && std::fabs(s) < 1000.0f)
                    std::snprintf(buf, sizeof buf, "%.3f", double(s));
                else
                    heatmap_format_value(s, buf, sizeof buf);
                dl->AddText(ImVec2(grid1.x + style.ItemSpacing.x, grid0.y + float(r) * cell + (cell - font) * 0.5f),
                            r == result.hovered_row ? text_col : ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
            }
        }
        // Sticky labels: an opaque band over whatever scrolled under it.
        if (col_band > 0.0f) {
            dl->AddRectFilled(ImVec2(clip0.x, top), ImVec2(clip1.x, top + col_band), bg);
            dl->PushClipRect(ImVec2(open0.x, top), ImVec2(clip1.x, top + col_band), true);
            for (int c = c0; c < c1 && c < int(opt.col_labels->size()); ++c) {
                const char* s = (*opt.col_labels)[std::size_t(c)].c_str();
                const float x = grid0.x + float(c) * cell;
                const ImU32 col = c == opt.highlight_col ? highlight : text_col;
                if (c == result.hovered_col)
                    dl->AddRectFilled(ImVec2(x, top), ImVec2(x + cell, top + col_band), hover_bg);
                if (col_vertical) {
                    text_vertical(dl, ImVec2(x + (cell - font) * 0.5f, top + col_band - style.ItemSpacing.y * 0.5f), col, s);
                } else {
                    const float w = ImGui::CalcTextSize(s).x;
                    dl->AddText(ImVec2(x + (cell - w) * 0.5f, top + style.ItemSpacing.y * 0.5f), col, s);
                }
            }
            dl->PopClipRect();
        }
        if (row_band > 0.0f && opt.row_labels) {
            dl->AddRectFilled(ImVec2(left, top + col_band), ImVec2(left + row_band, clip1.y), bg);
            dl->PushClipRect(ImVec2(left, top + col_band), ImVec2(left + row_band, clip1.y), true);
            for (int r = r0; r < r1 && r < int(opt.row_labels->size()); ++r) {
                const char* s = (*opt.row_labels)[std::size_t(r)].c_str();
                const float y = grid0.y + float(r) * cell;
                if (r == result.hovered_row)
                    dl->AddRectFilled(ImVec2(left, y), ImVec2(left + row_band, y + cell), hover_bg);
                const float w = ImGui::CalcTextSize(s).x;
                dl->AddText(ImVec2(left + row_band - style.ItemSpacing.x * 0.5f - w, y + (cell - font) * 0.5f),
                            r == opt.highlight_row ? highlight : text_col, s);
            }
            dl->PopClipRect();
        }
    }
    ImGui::EndChild();

    // --- legend --------------------------------------------------------------------
    if (opt.show_legend && rows > 0 && cols > 0) {
        ImDrawList* dl = ImGui::GetWindowDrawList();
        char lo[24], hi[24];
        std::snprintf(lo, sizeof lo, "%.3g", double(range.lo));
        std::snprintf(hi, sizeof hi, "%.3g", double(range.hi));
        ImGui::TextUnformatted(lo);
        ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
        const ImVec2 bar(std::clamp(child_size.x * 0.4f, font * 4.0f, font * 12.0f), font * 0.8f);
        const ImVec2 p0(ImGui::GetCursorScreenPos().x,
                        ImGui::GetCursorScreenPos().y + (ImGui::GetTextLineHeight() - bar.y) * 0.5f);
        const ImVec2 p1(p0.x + bar.x, p0.y + bar.y);
        ImGui::Dummy(ImVec2(bar.x, ImGui::GetTextLineHeight()));
        heatmap_gpu_style gs;
        gs.map = map;
        gs.range = range;
        if (g_gpu)
            g_gpu->draw_legend(dl, p0, p1, gs);
        else
            legend_draw_rects(dl, p0, p1, map);
        if (map == colormap::diverging && range.lo < 0.0f && range.hi > 0.0f) {
            const float x = p0.x + bar.x * heatmap_range_t(range, 0.0f);
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
                                          {heatmap_cell::masked, "masked"}};
        for (const swatch& s : swatches) {
            if (st.counts.of(s.cell) == 0)
                continue;
            ImGui::SameLine();
            const ImVec2 a(ImGui::GetCursorScreenPos().x,
                           ImGui::GetCursorScreenPos().y + (ImGui::GetTextLineHeight() - bar.y) * 0.5f);
            const ImVec2 b(a.x + bar.y, a.y + bar.y);
            ImGui::Dummy(ImVec2(bar.y, ImGui::GetTextLineHeight()));
            dl->AddRectFilled(a, b, to_u32(heatmap_color_cell(map, range, s.cell, 0.0f)));
            if (s.cell == heatmap_cell::masked)
                dl->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), IM_COL32(128, 128, 128, 255), 2.0f);
            if (s.cell == heatmap_cell::pos_inf || s.cell == heatmap_cell::neg_inf)
                dl->AddCircleFilled(ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f), bar.y * 0.2f,
                                    s.cell == heatmap_cell::pos_inf ? IM_COL32(255, 115, 0, 255) : IM_COL32(217, 217, 217, 255));
            dl->AddRect(a, b, IM_COL32(128, 128, 128, 255));
            ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
            ImGui::Text("%s %d", s.name, st.counts.of(s.cell));
        }
    }
    ImGui::EndGroup();
    return result;
}

// --- compat ----------------------------------------------------------------------

unsigned heatmap_color_sequential(float t) { return to_u32(heatmap_color_sequential_rgb(t)); }

std::pair<int, int> heatmap_draw(const char* id, const matrix& m, const std::vector<std::string>& rows,
                                 const std::vector<std::string>& cols, const heatmap_style& style) {
    // A version from the storage address, the shape and a sample of the values:
    // a recomputed trace allocates new storage while the old one is still alive,
    // so the address alone already changes with the data.
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](std::uint64_t x) { h = (h ^ x) * 1099511628211ull; };
    mix(std::uint64_t(reinterpret_cast<std::uintptr_t>(m.data.data())));
    mix(std::uint64_t(m.rows) << 32 | std::uint32_t(m.cols));
    const std::size_t n = m.size(), step = std::max<std::size_t>(1, n / 61);
    for (std::size_t i = 0; i < n; i += step) {
        std::uint32_t bits;
        std::memcpy(&bits, &m.data[i], sizeof bits);
        mix(bits);
    }
    heatmap_options opt;
    opt.version = h;
    opt.cell = style.cell;
    opt.show_values = style.show_values;
    opt.row_labels = &rows;
    opt.col_labels = &cols;
    opt.fixed_range = true;
    opt.lo = 0.0f;
    opt.hi = 1.0f;
    const heatmap_result r = heatmap_draw(id, m, opt);
    return {r.hovered_row, r.hovered_col};
}

}  // namespace attn::ui
