#include "heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"

namespace attn::ui {

namespace {

ImU32 lerp_color(const float (*stops)[3], int count, float t) {
    t = std::clamp(t, 0.0f, 1.0f) * float(count - 1);
    const int i = std::min(int(t), count - 2);
    const float f = t - float(i);
    float rgb[3];
    for (int c = 0; c < 3; ++c)
        rgb[c] = stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f;
    return IM_COL32(int(rgb[0] * 255.0f), int(rgb[1] * 255.0f), int(rgb[2] * 255.0f), 255);
}

}  // namespace

unsigned heatmap_color_sequential(float t) {
    // A few stops of viridis: perceptually ordered, readable by colour-blind people.
    static const float stops[][3] = {
        {0.267f, 0.005f, 0.329f}, {0.231f, 0.322f, 0.545f}, {0.129f, 0.569f, 0.549f},
        {0.369f, 0.788f, 0.384f}, {0.993f, 0.906f, 0.144f},
    };
    return lerp_color(stops, 5, t);
}

std::pair<int, int> heatmap_draw(const char* id, const matrix& m, const std::vector<std::string>& rows,
                                 const std::vector<std::string>& cols, const heatmap_style& style) {
    ImGui::PushID(id);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float cell = style.cell;
    float label_w = 0.0f;
    for (const auto& r : rows)
        label_w = std::max(label_w, ImGui::CalcTextSize(r.c_str()).x);
    label_w += ImGui::GetStyle().ItemSpacing.x;
    const float label_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 grid0(origin.x + label_w, origin.y + label_h);

    // Column labels, clipped to the cell width.
    for (int c = 0; c < m.cols && c < int(cols.size()); ++c) {
        const ImVec2 p(grid0.x + float(c) * cell, origin.y);
        dl->PushClipRect(p, ImVec2(p.x + cell, p.y + label_h), true);
        dl->AddText(ImVec2(p.x + 2.0f, p.y), ImGui::GetColorU32(ImGuiCol_Text), cols[std::size_t(c)].c_str());
        dl->PopClipRect();
    }
    for (int r = 0; r < m.rows && r < int(rows.size()); ++r)
        dl->AddText(ImVec2(origin.x, grid0.y + float(r) * cell + (cell - ImGui::GetFontSize()) * 0.5f),
                    ImGui::GetColorU32(ImGuiCol_Text), rows[std::size_t(r)].c_str());

    const bool values_fit = style.show_values && cell >= ImGui::CalcTextSize("0.00").x + 2.0f;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            const float v = m(r, c);
            const ImVec2 a(grid0.x + float(c) * cell, grid0.y + float(r) * cell);
            const ImVec2 b(a.x + cell - 1.0f, a.y + cell - 1.0f);
            const ImU32 col = std::isnan(v) ? IM_COL32(255, 0, 255, 255) : heatmap_color_sequential(v);
            dl->AddRectFilled(a, b, col);
            if (values_fit && v > 0.0f) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "%.2f", double(v));
                const ImVec2 ts = ImGui::CalcTextSize(buf);
                dl->AddText(ImVec2(a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f),
                            v > 0.6f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), buf);
            }
        }

    const ImVec2 size(label_w + float(m.cols) * cell, label_h + float(m.rows) * cell);
    ImGui::InvisibleButton("grid", size);
    std::pair<int, int> hovered(-1, -1);
    if (ImGui::IsItemHovered()) {
        const ImVec2 mp = ImGui::GetIO().MousePos;
        const int c = int(std::floor((mp.x - grid0.x) / cell));
        const int r = int(std::floor((mp.y - grid0.y) / cell));
        if (r >= 0 && r < m.rows && c >= 0 && c < m.cols) {
            hovered = {r, c};
            dl->AddRect(ImVec2(grid0.x + float(c) * cell, grid0.y + float(r) * cell),
                        ImVec2(grid0.x + float(c + 1) * cell, grid0.y + float(r + 1) * cell), IM_COL32(255, 255, 255, 255), 0.0f,
                        0, 2.0f);
        }
    }
    ImGui::PopID();
    return hovered;
}

}  // namespace attn::ui
