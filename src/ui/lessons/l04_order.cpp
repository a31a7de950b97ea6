// L4, order needs positions (sinusoids, RoPE).
#include "lessons/lesson_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include "base/measure.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "model/tiled.hpp"
#include "panels/panels.hpp"
#include "play/lesson_preset.hpp"
#include "spec/keys.hpp"
#include "view/app.hpp"

namespace attn::ui {

namespace {

using namespace lesson_parts;

// L4's positions: none, sinusoidal or RoPE.
void order_positions(const app& a, frame_out& out) {
    const experiment_controls controls(a);
    int pos = int(a.model.exp.pos);
    bool changed = false;
    text_plain(out, tr("positions:", "位置编码："));
    const char* names[] = {tr("none", "无"), tr("sinusoidal", "正弦"), "RoPE"};
    for (int p = 0; p < 3; ++p) {
        ImGui::SameLine();
        if (ImGui::RadioButton(names[p], &pos, p))
            changed = true;
        mark_widget(out, (std::string("l4_pos") + std::to_string(p)).c_str());
    }
    if (changed)
        request_experiment(out, lesson_order_edit(a.model.exp, positional(pos)));
}

// L4 with RoPE: pair 0 of q_i and k_j as 2-D vectors, turned by position, and a
// shift of both positions that leaves the score as it was.
void order_rope(const app& a, frame_out& out) {
    // RoPE: pair 0 of q_i and k_j as 2-D vectors, turned by position.
    section_text(
        out, tr("RoPE: the first (q, k) pair of each token, as 2-D vectors", "RoPE：每个词元的第一对 (q, k) 分量，画成二维向量"));
    const head_trace& h = a.model.tr.layers[0].heads[0];
    const float r = ImGui::GetFontSize() * 5.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 c(p.x + r + 4, p.y + r + 4);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddCircle(c, r, IM_COL32(120, 120, 120, 160), 64);
    float big = 1e-6f;
    const int n = int(a.model.tr.tokens.size());
    for (int i = 0; i < n; ++i)
        big = std::max({big, std::hypot(h.q(i, 0), h.q(i, 1)), std::hypot(h.k(i, 0), h.k(i, 1))});
    for (int i = 0; i < n; ++i) {
        const ImU32 qc = IM_COL32(90, 160, 255, 255), kc = IM_COL32(255, 170, 60, 255);
        const ImVec2 q(c.x + h.q(i, 0) / big * r, c.y - h.q(i, 1) / big * r),
            k(c.x + h.k(i, 0) / big * r, c.y - h.k(i, 1) / big * r);
        dl->AddLine(c, q, qc, 2.0f);
        dl->AddLine(c, k, kc, 2.0f);
        dl->AddText(q, qc, ("q" + std::to_string(i)).c_str());
        dl->AddText(k, kc, ("k" + std::to_string(i)).c_str());
    }
    ImGui::Dummy(ImVec2(2 * r + 8, 2 * r + 8));
    ImGui::SameLine();
    ImGui::BeginGroup();
    int shift = a.model.exp.pos_offset;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    {
        const experiment_controls controls(a);
        if (key_input(key_of("pos_offset"), tr("shift both positions", "两个位置一起平移"), shift))
            request_experiment(out, lesson_shift_edit(a.model.exp, shift));
        mark_slider(out, "l4_shift", tr("shift both positions", "两个位置一起平移"));
    }
    const rope_shift_measure& rm = a.memo.lesson.rope.get(a.model.version, std::uint64_t(a.view.sel_row), [&] {
        return measure_rope_shift(a.model.exp, a.model.tr, a.view.sel_row);
    });
    textf(out, "score(%d, %d) %s %s", rm.row, rm.key, tr("at this shift:", "当前平移："), number_text(rm.score).c_str());
    textf(out, "score(%d, %d) %s %s", rm.row, rm.key, tr("at shift 0:", "平移 0："), number_text(rm.score_unshifted).c_str());
    ImGui::EndGroup();
    number(out, "rope_score_shift_diff", rm.score_diff);
    number(out, "rope_q_moved", rm.q_moved);
}

}  // namespace

void view_order(const app& a, frame_out& out) {
    order_positions(a, out);

    // The same tokens in reverse order, run side by side.
    const order_measure& m = a.memo.lesson.order.get(a.model.version, 0, [&] { return measure_order(a.model.exp, a.model.tr); });
    const experiment& rev = m.reversed;
    const trace& tb = m.reversed_trace;
    const double out_diff = m.output_diff, w_diff = m.weight_diff;
    heatmap_options opt;
    opt.source = heatmap_source_of(a, a.model.tr);
    opt.fixed_range = true;
    opt.lo = 0;
    opt.hi = 1;
    opt.show_legend = false;
    opt.cell = std::max(ImGui::GetFontSize() * 1.8f, heatmap_value_cell(4));  // a weight's "0.32" fits: the numbers show
    ImGui::BeginGroup();
    text_plain(out, a.model.exp.text.c_str());
    opt.row_labels = opt.col_labels = &a.model.tr.tokens;
    opt.axes = axes_queries_by_keys();
    heatmap_draw(*a.heatmaps, "l4_a", a.model.tr.layers[0].heads[0].weights, opt);
    note_clip(out, "l4_a");
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    text_plain(out, rev.text.c_str());
    opt.row_labels = opt.col_labels = &tb.tokens;
    opt.source = heatmap_source_of(a.memo.lesson.order);
    heatmap_draw(*a.heatmaps, "l4_b", tb.layers[0].heads[0].weights, opt);
    note_clip(out, "l4_b");
    ImGui::EndGroup();
    const bool same = out_diff < 1e-4;
    text_colored(out, same ? theme_good() : theme_bad(), "%s %s",
                 same ? tr("Same outputs, token for token:", "逐词元输出相同：")
                      : tr("Order matters now — outputs differ by", "现在顺序有影响——输出相差"),
                 number_text(out_diff).c_str());
    number(out, "reverse_output_diff", out_diff);
    number(out, "reverse_weight_diff", w_diff);

    if (a.model.exp.pos == positional::rope)
        order_rope(a, out);
    if (a.model.exp.pos == positional::sinusoidal) {
        section_text(out, tr("sinusoidal encodings added to X", "加到 X 上的正弦位置编码"));
        heatmap_options po;
        po.map = colormap::diverging;
        po.source = heatmap_source_of(a, a.model.tr);
        po.row_labels = &a.model.tr.tokens;
        po.axes = tr("↓ position   → dimension", "↓ 位置   → 维度");
        po.show_values = false;
        po.cell = ImGui::GetFontSize() * 1.2f;
        heatmap_draw(*a.heatmaps, "l4_pe", a.model.tr.positions, po);
        note_clip(out, "l4_pe");
    }
}

// L4's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_04{view_order, nullptr};

}  // namespace attn::ui
