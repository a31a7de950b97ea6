// [SECTION] helpers
// [SECTION] L1 soft lookup
// [SECTION] L2 why √d_k
// [SECTION] L3 heads are subspaces
// [SECTION] L4 order needs positions
// [SECTION] L5 cost and its remedies
// [SECTION] L6 the code
// [SECTION] L7 weights are not explanations
// [SECTION] L8 three classic bugs
// [SECTION] L9 an induction head forms
// [SECTION] L10 a shortcut, not a circuit
// [SECTION] card and navigation
#include "lessons/lesson_views.hpp"

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

// [SECTION] helpers

namespace lesson_parts {

// A number the view measured, for the page's hook and the text view.
void number(frame_out& out, const char* name, double v) {
    if (!out.numbers)
        out.numbers.emplace();
    out.numbers->emplace_back(name, v);
}

// The lesson's view as this frame asks for it so far.
lesson_view& lesson_wants(const app& a, frame_out& out) { return view_edit(a, out).lesson; }

// Horizontal bars for one value per token, centred on zero when signed.
void bars(frame_out& out, const char* id, const std::vector<std::string>& labels, const std::vector<float>& v, bool signed_values,
          ImU32 col) {
    ImGui::PushID(id);
    float span = 0;
    for (float x : v)
        if (std::isfinite(x))
            span = std::max(span, std::fabs(x));
    if (span == 0)
        span = 1;
    const float font = ImGui::GetFontSize();
    const float width = std::min(ImGui::GetContentRegionAvail().x - font * 10.0f, font * 16.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < v.size(); ++i) {
        text_plain(out, labels[i].c_str());
        ImGui::SameLine(font * 5.0f);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        const float x0 = signed_values ? p.x + width * 0.5f : p.x;
        const float len = std::isfinite(v[i]) ? v[i] / span * (signed_values ? width * 0.5f : width) : 0.0f;
        dl->AddRectFilled(ImVec2(std::min(x0, x0 + len), p.y + 2), ImVec2(std::max(x0, x0 + len), p.y + h - 2), col);
        if (signed_values)
            dl->AddLine(ImVec2(x0, p.y), ImVec2(x0, p.y + h), IM_COL32(160, 160, 160, 120));
        ImGui::Dummy(ImVec2(width, h));
        ImGui::SameLine();
        text_disabled(out, "%s", number_text(v[i]).c_str());
    }
    ImGui::PopID();
}

// On the line of the item before when a button labelled `label` fits there
// before the visible edge, else on the next line (a row of buttons wraps).
void same_line_if_fits(const char* label) {
    const float w = ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine();
    if (visible_width() < w)
        ImGui::NewLine();
}

// A sentence from a format in the current language.
claim_line claim(claim_style style, const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    std::string text = text_nonfinite_named(buf);  // never printf's "-nan"; also the text view's lines
    drop_negative_zero(text);
    return {style, std::move(text)};
}

// The card's sentences in their styles.
void draw_claims(frame_out& out, const std::vector<claim_line>& lines) {
    for (const claim_line& l : lines) {
        if (l.style == claim_style::highlight)
            text_colored(out, theme_highlight(), "%s", l.text.c_str());
        else if (l.style == claim_style::bad)
            text_colored(out, theme_bad(), "%s", l.text.c_str());
        else if (l.style == claim_style::muted)
            text_disabled(out, "%s", l.text.c_str());
        else
            text_plain(out, l.text.c_str());
    }
}

}  // namespace lesson_parts

namespace {

using namespace lesson_parts;

// [SECTION] L1 soft lookup

void view_lookup(const app& a, frame_out& out) {
    const int i = a.view.sel_row;
    const auto& tokens = a.model.tr.tokens;
    const lookup_measure& m =
        a.memo.lesson.lookup.get(a.model.version, std::uint64_t(i), [&] { return measure_lookup(a.model.tr, i); });
    textf(out, "%s \"%s\"", tr("query", "查询"), tokens[std::size_t(i)].c_str());
    section_text(out, tr("probe q_i · label k_j (scaled, masked)", "探针 q_i · 标签 k_j（缩放、掩码后）"));
    bars(out, "scores", tokens, m.scores, true, IM_COL32(90, 140, 220, 255));
    section_text(out, tr("weights after the softmax competition", "softmax 竞争后的权重"));
    bars(out, "weights", tokens, m.weights, false, IM_COL32(250, 200, 60, 255));
    {
        const experiment_controls controls(a);
        int mode = int(a.model.exp.softmax == softmax_mode::argmax);
        float t = a.model.exp.temperature;
        bool changed = ImGui::RadioButton("softmax", &mode, 0);
        mark_widget(out, "l1_softmax");
        ImGui::SameLine();
        changed |= ImGui::RadioButton(tr("argmax (hard)", "argmax（硬）"), &mode, 1);
        mark_widget(out, "l1_argmax");
        if (!mode) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
            changed |= key_input(key_of("temp"), tr("temperature", "温度"), t);  // the temp key's control
            note_clip(out, "temperature");
        }
        if (changed)
            request_experiment(out, lesson_lookup_edit(a.model.exp, mode != 0, t));
    }
    textf(out, "%s %.4f   %s %.4f   %s %.3f", tr("row sum", "行和"), m.row_sum, tr("largest weight", "最大权重"), m.max_weight,
          tr("entropy", "熵"), m.entropy);
    text_disabled(out, "%s",
                  tr("The output row O(i) = Σ_j P(i,j)·V(j): see the Weights·V stage.",
                     "输出行 O(i) = Σ_j P(i,j)·V(j)：见\"权重·V\"阶段。"));
    number(out, "row_sum", m.row_sum);
    number(out, "max_weight", m.max_weight);
    number(out, "one_hot", m.one_hot ? 1 : 0);
    number(out, "entropy", m.entropy);
}

// [SECTION] L2 why √d_k

void view_sqrt_dk(const app& a, frame_out& out) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    int dk = a.view.lesson.dk;
    if (ImGui::SliderInt("d_k", &dk, 1, 1024, "%d", ImGuiSliderFlags_Logarithmic))
        lesson_wants(a, out).dk = dk;
    mark_slider(out, "l2_dk", "d_k");
    // Depends on d_k alone, not on the experiment.
    const sqrt_dk_measure& m = a.memo.lesson.sqrt_dk.get(0, std::uint64_t(dk), [dk] { return measure_sqrt_dk(dk); });
    const dot_stats& stats = m.stats;
    const std::vector<float> raw_counts(m.raw.counts.begin(), m.raw.counts.end());
    const std::vector<float> scaled_counts(m.scaled.counts.begin(), m.scaled.counts.end());
    const double ent_raw = m.entropy_raw, ent_scaled = m.entropy_scaled, jac_raw = m.jacobian_raw, jac_scaled = m.jacobian_scaled;
    const float w = ImGui::GetContentRegionAvail().x * 0.48f, hgt = ImGui::GetFontSize() * 5.0f;
    // One axis (±4√d_k) and one height scale for both, so the scaling is seen, not read.
    const float top = std::max(*std::max_element(raw_counts.begin(), raw_counts.end()),
                               *std::max_element(scaled_counts.begin(), scaled_counts.end()));
    char axis[64];
    std::snprintf(axis, sizeof axis, "−%.0f … 0 … +%.0f", 4.0 * std::sqrt(double(dk)), 4.0 * std::sqrt(double(dk)));
    char label[96];
    std::snprintf(label, sizeof label, "%s  std %.2f (√d_k = %.2f)", tr("q·k", "q·k"), stats.std_raw, std::sqrt(double(dk)));
    ImGui::BeginGroup();
    text_plain(out, label);
    ImGui::PlotHistogram("##raw", raw_counts.data(), int(raw_counts.size()), 0, nullptr, 0.0f, top, ImVec2(w, hgt));
    text_disabled(out, "%s", axis);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    std::snprintf(label, sizeof label, "%s  std %.2f", tr("q·k / √d_k", "q·k / √d_k"), stats.std_scaled);
    text_plain(out, label);
    ImGui::PlotHistogram("##scaled", scaled_counts.data(), int(scaled_counts.size()), 0, nullptr, 0.0f, top, ImVec2(w, hgt));
    text_disabled(out, "%s", axis);
    ImGui::EndGroup();
    mark_widget(out, "l2_hist");
    if (ImGui::BeginTable("l2", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn(tr("softmax over 8 keys", "8 个键上的 softmax"));
        ImGui::TableSetupColumn(tr("not scaled", "不缩放"));
        ImGui::TableSetupColumn(tr("÷ √d_k", "÷ √d_k"));
        ImGui::TableHeadersRow();
        const char* rows[] = {tr("row entropy (max ln 8 = 2.08)", "行熵（最大 ln 8 = 2.08）"),
                              tr("‖Jacobian‖ (gradient size)", "‖雅可比‖（梯度大小）")};
        const double vals[2][2] = {{ent_raw, ent_scaled}, {jac_raw, jac_scaled}};
        for (int r = 0; r < 2; ++r) {
            ImGui::TableNextColumn();
            text_plain(out, rows[r]);
            ImGui::TableNextColumn();
            textf(out, "%.4f", vals[r][0]);
            ImGui::TableNextColumn();
            textf(out, "%.4f", vals[r][1]);
        }
        ImGui::EndTable();
    }
    number(out, "dk", dk);
    number(out, "std_raw", stats.std_raw);
    number(out, "std_scaled", stats.std_scaled);
    number(out, "entropy_raw", ent_raw);
    number(out, "entropy_scaled", ent_scaled);
    number(out, "jacobian_raw", jac_raw);
    number(out, "jacobian_scaled", jac_scaled);
}

// [SECTION] L3 heads are subspaces

void view_subspaces(const app& a, frame_out& out) {
    const int d = a.model.exp.d_model;
    const subspace_measure& m =
        a.memo.lesson.subspaces.get(a.model.version, 0, [&] { return measure_subspaces(a.model.exp, a.model.tr); });
    if (ImGui::BeginTable("l3", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn(tr("heads", "头数"));
        ImGui::TableSetupColumn("d_k");
        ImGui::TableSetupColumn(tr("parameters", "参数量"));
        ImGui::TableSetupColumn(tr("matrix FLOPs", "矩阵 FLOPs"));
        ImGui::TableHeadersRow();
        for (const heads_cost& c : m.by_heads) {
            ImGui::TableNextColumn();
            textf(out, c.heads == a.model.exp.heads ? "%d  ←" : "%d", c.heads);
            ImGui::TableNextColumn();
            textf(out, "%d", c.d_k);
            ImGui::TableNextColumn();
            textf(out, "%lld", static_cast<long long>(c.params));
            ImGui::TableNextColumn();
            textf(out, "%lld", static_cast<long long>(c.flops_matmul));
        }
        ImGui::EndTable();
    }
    number(out, "params_1", double(m.one_head.params));
    number(out, "flops_1", double(m.one_head.flops_matmul));
    number(out, "params_h", double(m.this_many.params));
    number(out, "flops_h", double(m.this_many.flops_matmul));
    mark_widget(out, "l3_table");
    // The split on the real numbers: Q (n, d_model) → h blocks of d_k columns.
    text_plain(out, tr("Q (n, d_model) split by columns → (h, n, d_k):", "Q (n, d_model) 按列切分 → (h, n, d_k)："));
    const layer_trace& lt = a.model.tr.layers[0];
    heatmap_options opt;
    opt.map = colormap::diverging;
    opt.source = heatmap_source_of(a, a.model.tr);
    opt.row_labels = &a.model.tr.tokens;
    opt.axes = axes_tokens_by_dimensions();
    opt.show_values = false;
    opt.show_legend = false;
    opt.cell =
        std::clamp(ImGui::GetContentRegionAvail().x / float(2 * d + 8), ImGui::GetFontSize() * 0.4f, ImGui::GetFontSize() * 1.2f);
    heatmap_draw(*a.heatmaps, "l3_q", lt.q_rot, opt);
    note_clip(out, "l3_q");
    for (int h = 0; h < a.model.exp.heads; ++h) {
        if (h)
            ImGui::SameLine();
        ImGui::BeginGroup();
        textf(out, "Q_%d", h);
        char id[16];
        std::snprintf(id, sizeof id, "l3_q%d", h);
        heatmap_draw(*a.heatmaps, id, lt.heads[std::size_t(h)].q, opt);
        note_clip(out, id);
        ImGui::EndGroup();
    }
    if (m.specialised) {
        textf(out, "%s %.2f   %s %.2f", tr("head 0 → previous token:", "头 0 → 前一个词元："), m.prev_token_weight,
              tr("head 1 → itself:", "头 1 → 自己："), m.self_weight);
        number(out, "prev_token_weight", m.prev_token_weight);
        number(out, "self_weight", m.self_weight);
    }
}

// [SECTION] L4 order needs positions

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

// [SECTION] L5 cost and its remedies

// (a) The quadratic curve.
void cost_curve(const app& a, frame_out& out) {
    const cost_measure& m = a.memo.lesson.cost.get(a.model.version, 0, [&] { return measure_cost(a.model.exp); });
    ImGui::PlotLines("##cost", m.gflops.data(), int(m.gflops.size()), 0,
                     tr("score + weighted-sum GFLOPs, n = 256 … 8192", "打分 + 加权和 GFLOPs，n = 256 … 8192"), 0.0f, FLT_MAX,
                     ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4.5f));
    if (m.ratio_32x > 0) {
        textf(out, "4k → 128k tokens: 32× %s, %.0f× %s; %s %.1f GB %s", tr("length", "长度"), m.ratio_32x,
              tr("score FLOPs", "打分 FLOPs"), tr("the n×n scores of one head:", "一个头的 n×n 分数："), m.gb_scores_128k,
              "(fp32)");
        number(out, "cost_ratio_32x", m.ratio_32x);
    }
}

// A tile's query rows: the running max and sum before and after it, and the rescale.
void tile_rows(frame_out& out, const tiled_step& ts) {
    if (!ImGui::BeginTable("tile", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupColumn(tr("row", "行"));
    ImGui::TableSetupColumn("max m");
    ImGui::TableSetupColumn(tr("sum l", "和 l"));
    ImGui::TableSetupColumn(tr("rescale", "重缩放"));
    ImGui::TableHeadersRow();
    for (int r = 0; r < ts.q_rows; ++r) {
        const std::size_t i = std::size_t(r);
        ImGui::TableNextColumn();
        textf(out, "%d", ts.q0 + r);
        ImGui::TableNextColumn();
        textf(out, "%s → %s", number_text(ts.max_before[i]).c_str(), number_text(ts.max_after[i]).c_str());
        ImGui::TableNextColumn();
        textf(out, "%s → %s", number_text(ts.sum_before[i]).c_str(), number_text(ts.sum_after[i]).c_str());
        ImGui::TableNextColumn();
        textf(out, "×%s", number_text(ts.rescale[i]).c_str());
    }
    ImGui::EndTable();
}

// (b) Tiled online softmax on head 0 of layer 0.
void tile_stepper(const app& a, frame_out& out) {
    section_text(out, tr("Tiled online softmax, tile by tile", "分块在线 softmax，一块一块来"));
    const int n = int(a.model.tr.tokens.size());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    // The tile and the step this frame shows; a change is asked for at the end.
    int tile = a.view.lesson.tile, step = a.view.lesson.tile_step;
    if (ImGui::SliderInt(tr("tile", "块大小"), &tile, 1, std::max(1, n)))
        step = 0;
    note_clip(out, "tile");
    const tiled_measure& m = a.memo.lesson.tiled.get(a.model.version, std::uint64_t(tile),
                                                     [&] { return measure_tiled(a.model.exp, a.model.tr, tile); });
    const std::vector<tiled_step>& steps = m.steps;
    const int total = int(steps.size());
    step = std::clamp(step, 0, total);
    ImGui::SameLine();
    if (ImGui::Button(tr("◀ step", "◀ 上一块")) && step > 0)
        --step;
    note_clip(out, "step back");
    ImGui::SameLine();
    if (ImGui::Button(tr("step ▶", "下一块 ▶")) && step < total)
        ++step;
    mark_widget(out, "l5_step");
    ImGui::SameLine();
    textf(out, "%d / %d", step, total);
    // The score matrix as a grid of tiles: done, current, skipped (masked), to do.
    const float cell = std::clamp(ImGui::GetFontSize() * 8.0f / float(std::max(n, 1)), 4.0f, ImGui::GetFontSize() * 1.4f);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int s = 0; s < total; ++s) {
        const tiled_step& ts = steps[std::size_t(s)];
        const ImVec2 a0(p.x + float(ts.k0) * cell, p.y + float(ts.q0) * cell);
        const ImVec2 a1(a0.x + float(ts.k_rows) * cell - 1, a0.y + float(ts.q_rows) * cell - 1);
        const ImU32 col = ts.skipped      ? IM_COL32(60, 60, 60, 255)
                          : s + 1 == step ? IM_COL32(250, 200, 60, 255)
                          : s < step      ? IM_COL32(60, 150, 120, 255)
                                          : IM_COL32(45, 60, 80, 255);
        dl->AddRectFilled(a0, a1, col);
    }
    ImGui::Dummy(ImVec2(float(n) * cell, float(n) * cell));
    ImGui::SameLine();
    ImGui::BeginGroup();
    if (step > 0) {
        const tiled_step& ts = steps[std::size_t(step - 1)];
        textf(out, "%s %d–%d × %s %d–%d%s", tr("queries", "查询"), ts.q0, ts.q0 + ts.q_rows - 1, tr("keys", "键"), ts.k0,
              ts.k0 + ts.k_rows - 1, ts.skipped ? tr("  (fully masked: skipped)", "（完全被掩码：跳过）") : "");
        tile_rows(out, ts);
    } else {
        text_disabled(out, "%s", tr("Press step ▶ to run the first tile.", "按\"下一块 ▶\"运行第一块。"));
    }
    textf(out, "%s %s", tr("max |tiled − plain| =", "最大 |分块 − 普通| ="), number_text(m.max_diff).c_str());
    textf(out, "%s %zu B   %s %zu B", tr("working memory: tiled", "工作内存：分块"), m.tiled_bytes,
          tr("plain (n²)", "普通（n²）"), m.plain_bytes);
    ImGui::EndGroup();
    number(out, "tiled_max_diff", m.max_diff);
    number(out, "tiled_steps", total);
    number(out, "tile_step", step);
    if (tile != a.view.lesson.tile || step != a.view.lesson.tile_step) {
        lesson_wants(a, out).tile = tile;
        lesson_wants(a, out).tile_step = step;
    }
    number(out, "tiled_memory", double(m.tiled_bytes));
    number(out, "plain_memory", double(m.plain_bytes));
}

// (c) Decoding with a KV cache.
void decode_panel(const app& a, frame_out& out) {
    const int n = int(a.model.tr.tokens.size()), h = a.model.exp.heads;
    section_text(out, tr("Decoding with a KV cache", "用 KV 缓存解码"));
    int t = a.model.exp.decode;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    {
        const experiment_controls controls(a);
        if (ImGui::SliderInt(tr("tokens decoded", "已解码词元"), &t, 1, n))
            request_experiment(out, lesson_decode_edit(a.model.exp, t));
        mark_slider(out, "l5_decode", tr("tokens decoded", "已解码词元"));
    }
    const decode_measure& m =
        a.memo.lesson.decode.get(a.model.version, 0, [&] { return measure_decode(a.model.exp, a.model.tr); });
    if (!m.active)
        return;
    textf(out, "%s %d %s × %d KV %s; %s 1, %s %d", tr("cache:", "缓存："), m.cache_rows, tr("rows", "行"), a.model.exp.kv_heads,
          tr("heads", "头"), tr("computed this step:", "本步新算："), tr("reused:", "复用："), m.cache_rows - 1);
    textf(out, "%s %s", tr("max |decoded − full causal pass| =", "最大 |解码 − 完整因果计算| ="),
          number_text(m.max_diff).c_str());
    number(out, "decode_max_diff", m.max_diff);
    for (int kv : {h, std::max(1, a.model.exp.kv_heads), 1}) {
        const double bytes = kv == h ? m.bytes_mha : kv == 1 ? m.bytes_mqa : m.bytes_gqa;
        textf(out, "%s (kv_heads %d): %.0f B %s",
              kv == h   ? "MHA"
              : kv == 1 ? "MQA"
                        : "GQA",
              kv, bytes, tr("of K and V read this step", "本步读取的 K、V 字节"));
    }
    number(out, "bytes_mha", m.bytes_mha);
    number(out, "bytes_gqa", m.bytes_gqa);
    number(out, "bytes_mqa", m.bytes_mqa);
    number(out, "bytes_read_step", m.bytes_read_step);
    if (!a.real.model)
        return;
    // The same arithmetic on the real model the Model window has open: its own K/V heads, its context.
    textf(out,
          tr("On %s (the Model window's model; Continue there decodes through this cache):",
             "在 %s 上（模型窗口里的模型；在那里“续写”就是通过这个缓存解码）："),
          a.real.model->name.c_str());
    real_cache_lines(a, out, "l5_real_cache");
    const real_cache_measure r = real_model_cache(*a.real.model, a.real.gen);
    number(out, "real_per_token", double(r.per_token));
    number(out, "real_per_token_mha", double(r.per_token_mha));
    number(out, "real_last_step_read", double(r.last_step_read));
}

void view_cost(const app& a, frame_out& out) {
    cost_curve(a, out);
    tile_stepper(a, out);
    decode_panel(a, out);
}

// [SECTION] L6 the code

void view_code(const app& a, frame_out& out) {
    text_plain(out, tr("The code panel on the right follows you: each stage lights the lines that compute it.",
                       "右边的代码面板会跟着你：每个阶段都会点亮计算它的那几行。"));
    number(out, "code_lines", double(numpy_code_lines().size()));
    const auto [lo, hi] = stage_code_lines(a.view.current);
    number(out, "lit_from", lo);
    number(out, "lit_to", hi);
}

// [SECTION] L7 weights are not explanations

void view_not_explanations(const app& a, frame_out& out) {
    const char* labels[] = {tr("two layers, random", "两层，随机"), tr("cancelling heads", "相互抵消的头"),
                            tr("attention sink", "注意力沉淀")};
    {
        const experiment_controls controls(a);
        for (int i = 0; i < 3; ++i) {
            if (i)
                ImGui::SameLine();
            if (ImGui::Button(labels[i])) {
                auto r = experiment_parse(lesson7_models()[std::size_t(i)]);
                if (r.value)
                    request_experiment(out, *r.value);
            }
            mark_widget(out, (std::string("l7_preset") + std::to_string(i)).c_str());
        }
    }
    const bright_cell_measure& b =
        a.memo.lesson.bright.get(a.model.version, 0, [&] { return measure_bright_cell(a.model.exp, a.model.tr); });
    textf(out, "%s (%d, %d) = %.2f → %s %.2f%%", tr("brightest cell of head 0", "头 0 最亮的格子"), b.row, b.col, b.weight,
          tr("masking it changes the output by", "屏蔽它使输出改变"), b.effect * 100.0);
    number(out, "bright_weight", b.weight);
    number(out, "bright_effect", b.effect);
    if (a.model.exp.weights == weight_init::cancel) {
        const cancel_measure& c =
            a.memo.lesson.cancel.get(a.model.version, 0, [&] { return measure_cancel(a.model.exp, a.model.tr); });
        textf(out, "%s %.4f   %s %.4f", tr("zero head 0 alone: ‖Δy‖ =", "只把头 0 置零：‖Δy‖ ="), c.delta_one,
              tr("zero heads 0 and 1: ‖Δy‖ =", "把头 0 和 1 都置零：‖Δy‖ ="), c.delta_both);
        text_disabled(out, "%s",
                      tr("Both maps are bright, yet together they contribute nothing.", "两张图都很亮，合起来却毫无贡献。"));
        number(out, "cancel_delta_one", c.delta_one);
        number(out, "cancel_delta_both", c.delta_both);
    }
    if (a.model.exp.weights == weight_init::sink) {
        const sink_measure m = measure_sink(a.model.exp, a.model.tr);
        textf(out, "%s %.2f", tr("mean weight on the first token:", "第一个词元上的平均权重："), m.weight);
        {
            const experiment_controls controls(a);
            if (ImGui::Button(m.masked ? tr("Restore the sink", "恢复沉淀词元")
                                       : tr("Mask the sink (column 0)", "屏蔽沉淀词元（第 0 列）")))
                request_experiment(out, lesson_sink_edit(a.model.exp, int(a.model.tr.tokens.size())));
            mark_widget(out, "l7_sink");
        }
        number(out, "sink_weight", m.weight);
        number(out, "sink_value_norm", m.value_norm);
    }
}

// [SECTION] L8 three classic bugs

void view_bugs(const app& a, frame_out& out) {
    const experiment& e = a.model.exp;
    bool after = e.mask_at == mask_placement::after_softmax, no_max = e.softmax == softmax_mode::no_max, no_wo = !e.use_wo;
    {
        const experiment_controls controls(a);
        bool changed = ImGui::Checkbox(tr("mask after softmax", "softmax 之后再掩码"), &after);
        mark_widget(out, "l8_after");
        ImGui::SameLine();
        changed |= ImGui::Checkbox(tr("no x − max (in fp16)", "不减最大值（fp16）"), &no_max);
        mark_widget(out, "l8_nomax");
        ImGui::SameLine();
        changed |= ImGui::Checkbox(tr("forget W_O", "忘了 W_O"), &no_wo);
        mark_widget(out, "l8_nowo");
        if (changed)
            request_experiment(out, lesson_bugs_edit(e, after, no_max, no_wo));
    }
    const bugs_measure& m = a.memo.lesson.bugs.get(a.model.version, 0, [&] { return measure_bugs(e, a.model.tr); });
    textf(out, "%s %.4f   NaN: %d (%s %d)", tr("smallest row sum", "最小行和"), m.min_row_sum, m.nan_count,
          tr("correct:", "正确："), m.correct_nan_count);
    if (m.overflow_row >= 0)
        textf(out, "%s (%d, %d) = %s > 11.09 → e^x > 65504",
              tr("first logit past fp16's exp limit:", "第一个超过 fp16 exp 上限的 logit："), m.overflow_row, m.overflow_col,
              number_text(m.overflow_logit).c_str());
    text_plain(out, tr("output − correct output:", "输出 − 正确输出："));
    heatmap_options opt;
    opt.map = colormap::diverging;
    opt.source = heatmap_source_of(a.memo.lesson.bugs);
    opt.row_labels = &a.model.tr.tokens;
    opt.axes = axes_tokens_by_dimensions();
    opt.cell = 0.0f;  // fit the width: the numbers show when they fit, else the map says to hover
    opt.hover_value = true;
    heatmap_draw(*a.heatmaps, "l8_diff", m.diff, opt);
    note_clip(out, "l8_diff");
    textf(out, "‖y‖ = %s   ‖y_correct‖ = %s", number_text(m.output_norm).c_str(), number_text(m.correct_output_norm).c_str());
    number(out, "min_row_sum", m.min_row_sum);
    number(out, "nan_count", m.nan_count);
    number(out, "correct_nan_count", m.correct_nan_count);
    number(out, "overflow_row", m.overflow_row);
    number(out, "overflow_col", m.overflow_col);
    number(out, "output_norm", m.output_norm);
    number(out, "correct_output_norm", m.correct_output_norm);
    number(out, "output_diff", m.output_diff);
}

// [SECTION] L9 an induction head forms

// The experiment with only this head zeroed (none: nothing zeroed).
void zero_button(const app& a, frame_out& out, const char* label, const char* name, head_ref h) {
    experiment next = a.model.exp;
    next.ablate.clear();
    if (h.valid())
        next.ablate.push_back({h.layer, h.head});
    const bool on = next.ablate == a.model.exp.ablate;
    if (on)
        ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(label) && !on)
        request_experiment(out, std::move(next));
    if (on)
        ImGui::PopStyleColor();
    mark_widget(out, name);
}

// The held-out accuracy with the zeroed heads, once the trainer is at its step.
void zeroed_task_line(const app& a, frame_out& out) {
    const float chance = 1.0f / float(a.model.exp.train.vocab);
    if (a.model.ablated_task.valid) {
        textf(out, "%s %.0f%%   (%s %.0f%%; %s ≈ %.0f%%)", tr("held-out accuracy with it zeroed:", "置零后留出集准确率："),
              double(a.model.ablated_task.ablated.acc) * 100.0, tr("intact", "完好时"),
              double(a.model.ablated_task.base.acc) * 100.0, tr("chance", "随机猜"), double(chance) * 100.0);
        number(out, "task_acc", a.model.ablated_task.base.acc);
        number(out, "task_acc_zeroed", a.model.ablated_task.ablated.acc);
    }
    number(out, "chance", chance);
}

const formation_measure& formation_of(const app& a) {
    return a.memo.lesson.formation.get(a.model.version, 0, [&] { return measure_formation(a.model.train); });
}

// Claim 1: the curve up to the model's step (the curve kept past it does not count).
claim_line drop_claim(const formation_measure& f) {
    if (f.drop_shown && !f.plateau_shown)
        return claim(claim_style::plain,
                     tr("1. No plateau: the train loss falls from the start, fastest at step %d; by step %d it is %.2g.",
                        "1. 没有平台：训练损失从一开始就在下降，在第 %d 步下降最快；到第 %d 步为 %.2g。"),
                     f.phase, f.step, double(f.loss_now));
    if (f.drop_shown)
        return claim(claim_style::plain,
                     tr("1. A plateau at train loss %.2f, then a drop at step %d; by step %d the loss is %.2g.",
                        "1. 训练损失先停在 %.2f 的平台上，然后在第 %d 步下降；到第 %d 步，损失为 %.2g。"),
                     double(f.plateau_loss), f.phase, f.step, double(f.loss_now));
    return claim(claim_style::plain,
                 tr("1. No drop yet at step %d: train loss %.2f.", "1. 到第 %d 步还没有下降：训练损失 %.2f。"), f.step,
                 double(f.loss_now));
}

// The induction task's claims 2 and 3, each only where the model supports it.
void induction_claims(const formation_measure& f, std::vector<claim_line>& lines) {
    if (f.jump_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("2. Layer %d · head %d's induction score jumps across it: %.2f (step %d) → %.2f (step %d); "
                                 "now %.2f.",
                                 "2. 第 %d 层 · 头 %d 的归纳得分在下降处跳升：%.2f（第 %d 步）→ %.2f（第 %d 步）；现在 %.2f。"),
                              f.induction.layer, f.induction.head, double(f.induction_before), f.before_step,
                              double(f.induction_after), f.after_step, double(f.induction_score)));
    else if (f.induction_shown)
        lines.push_back(
            claim(claim_style::plain,
                  tr("2. Layer %d · head %d is an induction head: score %.2f.", "2. 第 %d 层 · 头 %d 是归纳头：得分 %.2f。"),
                  f.induction.layer, f.induction.head, double(f.induction_score)));
    else
        lines.push_back(
            claim(claim_style::plain,
                  tr("2. No induction head yet at step %d: the highest induction score is %.2f (layer %d · head "
                     "%d); an induction head scores at least %.1f.",
                     "2. 到第 %d 步还没有归纳头：最高的归纳得分是 %.2f（第 %d 层 · 头 %d）；归纳头的得分至少为 %.1f。"),
                  f.scores_step, double(f.induction_score), f.induction.layer, f.induction.head, double(claim_induction_score)));
    if (f.previous_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("3. It reads through layer 0 · head %d, a previous-token head: score %.2f.",
                                 "3. 它依赖第 0 层 · 头 %d，一个前一词元头：得分 %.2f。"),
                              f.previous.head, double(f.previous_score)));
    else if (f.induction_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("3. No previous-token head in layer 0 yet: the highest score is %.2f.",
                                 "3. 第 0 层还没有前一词元头：最高得分是 %.2f。"),
                              double(f.previous_score)));
}

// Another task's one line about its heads.
claim_line reading_claim(const task_reading& r, int step) {
    if (r.kind == head_reading::none)
        return claim(claim_style::muted, "%s",
                     tr("No one-line reading of the heads for this task.", "这个任务的头没有一句话的解读。"));
    const bool offset = r.kind == head_reading::offset;
    if (!r.shown && offset)
        return claim(claim_style::plain,
                     tr("At step %d no single head attends %d back: the best offset score is %.2f (layer %d · head %d).",
                        "到第 %d 步，没有哪个头单独关注往回第 %d 个词元：最高偏移得分是 %.2f（第 %d 层 · 头 %d）。"),
                     step, r.offset, double(r.score), r.head.layer, r.head.head);
    if (!r.shown)
        return claim(claim_style::plain,
                     tr("At step %d no single head attends to the mirrored position: the best anti-diagonal score is %.2f (layer "
                        "%d · head %d, on the held-out row).",
                        "到第 %d 步，没有哪个头单独关注镜像位置：最高反对角线得分是 %.2f（第 %d 层 · 头 %d，在留出行上）。"),
                     step, double(r.score), r.head.layer, r.head.head);
    if (offset)
        return claim(claim_style::plain,
                     tr("Its heads: layer %d · head %d attends %d back (offset score %.2f).",
                        "它的头：第 %d 层 · 头 %d 关注往回第 %d 个词元（偏移得分 %.2f）。"),
                     r.head.layer, r.head.head, r.offset, double(r.score));
    return claim(claim_style::plain,
                 tr("Its heads: layer %d · head %d reads the mirrored position (anti-diagonal score %.2f on the held-out row).",
                    "它的头：第 %d 层 · 头 %d 读取镜像位置（留出行上的反对角线得分 %.2f）。"),
                 r.head.layer, r.head.head, double(r.score));
}

// Below the buttons: what the zeroed heads did to the task, worded from the result.
void ablation_claims(const app& a, const formation_measure& f, std::vector<claim_line>& lines) {
    const float chance = 1.0f / float(a.model.exp.train.vocab);
    const auto& ab = a.model.exp.ablate;
    if (ab.empty() || !a.model.ablated_task.valid || !trainer_done(a.model.train)) {
        lines.push_back(claim(claim_style::muted, "%s",
                              tr("Zero a head and read the task's accuracy: ablation, not looking, is the evidence.",
                                 "把一个头置零，看任务准确率：证据来自消融，不是观察。")));
        return;
    }
    const train_eval_result& base = a.model.ablated_task.base;
    const train_eval_result& zeroed = a.model.ablated_task.ablated;
    lines.push_back(claim(claim_style::plain,
                          tr("held-out accuracy with it zeroed: %.0f%%   (intact %.0f%%; chance ≈ %.0f%%)",
                             "置零后留出集准确率：%.0f%%   （完好时 %.0f%%；随机猜 ≈ %.0f%%）"),
                          double(zeroed.acc) * 100.0, double(base.acc) * 100.0, double(chance) * 100.0));
    const bool induction =
        f.induction_shown && ab.size() == 1 && ab[0].layer == f.induction.layer && ab[0].head == f.induction.head;
    const bool broken = task_broken(base, zeroed, chance);
    if (induction && broken)
        lines.push_back(claim(claim_style::muted, "%s",
                              tr("Its map is sharp and it matters: zeroing it breaks the task. L7's bright cells were bright "
                                 "and changed little. Ablation, not looking, is the evidence.",
                                 "它的图很尖锐，而且确实重要：置零它，任务就崩了。L7 "
                                 "里那些亮格子很亮，却几乎没改变什么。证据来自消融，不是观察。")));
    else if (broken)
        lines.push_back(claim(claim_style::muted, "%s", tr("Zeroing it breaks the task.", "置零它，任务就崩了。")));
    else
        lines.push_back(
            claim(claim_style::muted, "%s", tr("Zeroing it leaves the task standing.", "置零它，任务依然完成得了。")));
}

lesson_claims formation_claims(const app& a) {
    lesson_claims c;
    const trainer& t = a.model.train;
    if (!t.run)
        return c;
    const formation_measure& f = formation_of(a);
    if (f.step == 0)
        c.claims.push_back(claim(claim_style::highlight, "%s",
                                 tr("Press Train in the Train panel. The claims fill in as the model learns them.",
                                    "在“训练”面板里按“训练”。模型学会之后，这里的结论才会填上。")));
    if (!f.induction_task) {
        c.claims.push_back(claim(claim_style::highlight,
                                 tr("This model is trained on %s, not on the induction task: L9's claims about an induction "
                                    "head do not apply to it.",
                                    "这个模型训练的是 %s，不是归纳任务：L9 关于归纳头的结论不适用于它。"),
                                 train_task_name(t.run->e.train.task)));
        if (f.step > 0) {
            c.claims.push_back(drop_claim(f));
            c.claims.push_back(
                reading_claim(a.memo.lesson.reading.get(a.model.version, 0, [&] { return measure_task_reading(t); }), f.step));
        }
    } else if (f.step > 0) {
        c.claims.push_back(drop_claim(f));
        induction_claims(f, c.claims);
    }
    if (f.step > 0)
        ablation_claims(a, f, c.after);
    return c;
}

void view_formation(const app& a, frame_out& out) {
    const trainer& t = a.model.train;
    if (!t.run)
        return;
    const formation_measure& f = formation_of(a);
    const lesson_claims c = formation_claims(a);
    draw_claims(out, c.claims);
    if (f.induction_shown)  // the claim's head, where the claim is read
        train_head_map(a, out, f.induction.layer, f.induction.head, "l9_head_map");
    {
        const experiment_controls controls(a);
        ImGui::BeginDisabled(!trainer_done(t) || !f.induction_shown);
        zero_button(a, out, tr("zero the induction head", "置零归纳头"), "l9_zero_induction", f.induction);
        same_line_if_fits(tr("zero the previous-token head", "置零前一词元头"));
        zero_button(a, out, tr("zero the previous-token head", "置零前一词元头"), "l9_zero_previous", f.previous);
        same_line_if_fits(tr("zero another head", "置零另一个头"));
        zero_button(a, out, tr("zero another head", "置零另一个头"), "l9_zero_other", f.other);
        same_line_if_fits(tr("none", "都不置零"));
        zero_button(a, out, tr("none", "都不置零"), "l9_zero_none", head_ref{});
        ImGui::EndDisabled();
    }
    draw_claims(out, c.after);
    if (a.model.ablated_task.valid) {
        number(out, "task_acc", a.model.ablated_task.base.acc);
        number(out, "task_acc_zeroed", a.model.ablated_task.ablated.acc);
    }
    number(out, "chance", 1.0f / float(a.model.exp.train.vocab));
    number(out, "step", f.step);
    number(out, "phase", f.phase);
    number(out, "plateau_loss", f.plateau_loss);
    number(out, "loss_before", f.loss_before);
    number(out, "loss_after", f.loss_after);
    number(out, "loss_now", f.loss_now);
    number(out, "induction_layer", f.induction.layer);
    number(out, "induction_head", f.induction.head);
    number(out, "induction_score", f.induction_score);
    number(out, "induction_before", f.induction_before);
    number(out, "induction_after", f.induction_after);
    number(out, "previous_head", f.previous.head);
    number(out, "previous_score", f.previous_score);
    number(out, "other_head", f.other.head);
    number(out, "drop_shown", f.drop_shown);
    number(out, "plateau_shown", f.plateau_shown);
    number(out, "induction_shown", f.induction_shown);
    number(out, "previous_shown", f.previous_shown);
}

// [SECTION] L10 a shortcut, not a circuit

// L10's three lines, each a claim only where the model supports it: an untrained
// model's accuracies sit at chance and say nothing about a shortcut.
void shortcut_lines(frame_out& out, const shortcut_measure& m) {
    if (!m.solved) {
        text_colored(out, theme_highlight(),
                     tr("At step %d the model does not solve its own task yet: held-out accuracy %.0f%% (chance ≈ %.0f%%). "
                        "Press Train; the claims appear once it does.",
                        "到第 %d 步，模型还没有解出自己的任务：留出集准确率 %.0f%%（随机猜 ≈ %.0f%%）。"
                        "按“训练”；它解出之后，结论才会出现。"),
                     m.step, double(m.own.acc) * 100.0, double(m.chance) * 100.0);
        return;
    }
    textf(out, "1. %s %.0f%%", tr("held-out accuracy on its own task:", "在自己任务上的留出集准确率："),
          double(m.own.acc) * 100.0);
    std::string heads;
    for (const head_ref& h : m.positional)
        heads += (heads.empty() ? "" : ", ") + std::to_string(h.layer) + "·" + std::to_string(h.head);
    textf(out, "2. %s %s (%s %.2f); %s %.2f", tr("positional heads (layer·head):", "位置头（层·头）："),
          heads.empty() ? "—" : heads.c_str(), tr("best offset score", "最高偏移得分"), double(m.max_offset),
          tr("highest induction score of any head", "所有头中最高的归纳得分"), double(m.max_induction));
    if (m.fails_induction_shown)
        text_colored(out, theme_bad(), "3. %s %.0f%% (%s ≈ %.0f%%)",
                     tr("on the induction task's sequences it fails: accuracy", "在归纳任务的序列上失败：准确率"),
                     double(m.on_induction.acc) * 100.0, tr("chance", "随机猜"), double(m.chance) * 100.0);
    else
        textf(out, "3. %s %.0f%% (%s ≈ %.0f%%)", tr("on the induction task's sequences: accuracy", "在归纳任务的序列上：准确率"),
              double(m.on_induction.acc) * 100.0, tr("chance", "随机猜"), double(m.chance) * 100.0);
}

void view_shortcut(const app& a, frame_out& out) {
    const trainer& t = a.model.train;
    if (!t.run)
        return;
    if (!a.model.shortcut.valid) {
        text_colored(out, theme_highlight(), "%s",
                     tr("Press Train in the Train panel; the measures below appear when it stops.",
                        "在“训练”面板里按“训练”；停下后下面会出现测量结果。"));
        return;
    }
    const shortcut_measure& m = a.model.shortcut.measure;
    shortcut_lines(out, m);
    if (m.shortcut_shown)  // the claim's best positional head, where the claim is read
        train_head_map(a, out, m.best.layer, m.best.head, "l10_head_map");
    {
        const experiment_controls controls(a);
        experiment next = a.model.exp;
        next.ablate.clear();
        for (const head_ref& h : m.positional)
            next.ablate.push_back({h.layer, h.head});
        if (ImGui::Button(tr("zero the positional heads", "置零位置头")) && !(next == a.model.exp))
            request_experiment(out, std::move(next));
        mark_widget(out, "l10_zero_positional");
        same_line_if_fits(tr("none", "都不置零"));
        zero_button(a, out, tr("none", "都不置零"), "l10_zero_none", head_ref{});
    }
    text_disabled(out, "%s",
                  tr("Side by side with L9's model: pin this one as A, open L9, train it, then tick \"Compare A | B\" "
                     "under a stage's formula. The same sentence, two ways of attending.",
                     "和 L9 的模型并排看：把这个模型固定为 A，打开 L9 并训练，然后勾选阶段公式下的“比较 A | B”。"
                     "同一句话，两种注意方式。"));
    {
        const experiment_controls controls(a);
        const bool pinned = a.model.pin && *a.model.pin == a.model.exp;
        ImGui::BeginDisabled(pinned || !trainer_done(t) || !m.solved);  // an untrained model is nothing to compare
        if (ImGui::Button(pinned ? tr("pinned as A", "已固定为 A") : tr("pin this model as A", "把这个模型固定为 A")))
            out.request = change::pin(a.model.exp);
        ImGui::EndDisabled();
        mark_widget(out, "l10_pin");
        same_line_if_fits(tr("open L9's model", "打开 L9 的模型"));
        if (ImGui::Button(tr("open L9's model", "打开 L9 的模型")))
            lesson_open(a, out, 8);
        mark_widget(out, "l10_open_l9");
    }
    zeroed_task_line(a, out);
    number(out, "own_acc", t.now.held_out.acc);
    number(out, "positional_heads", double(m.positional.size()));
    number(out, "max_offset", m.max_offset);
    number(out, "max_induction", m.max_induction);
    number(out, "induction_task_acc", m.on_induction.acc);
    number(out, "solved", m.solved);
    number(out, "shortcut_shown", m.shortcut_shown);
    number(out, "fails_induction_shown", m.fails_induction_shown);
}

}  // namespace

lesson_claims lesson_claims_of(const app& a) {
    switch (a.view.lesson.index) {
        case 8:
            return formation_claims(a);
        case 10:
            return circuit_lesson_claims(a);
        case 11:
            return context_lesson_claims(a);
        case 12:
            return model_lesson_claims(a);
        default:
            return {};
    }
}

// [SECTION] card and navigation

namespace {

void lesson_list(const app& a, frame_out& out) {
    const auto& list = lessons();
    text_plain(out, tr("Lessons", "课程"));
    char chip[64];
    for (int i = 0; i < int(list.size()); ++i) {
        const lesson& l = list[std::size_t(i)];
        std::snprintf(chip, sizeof chip, "%s %s", l.id, tr(l.chip_en, l.chip_zh));
        // Chips wrap to the next line rather than run off the panel.
        const float w = ImGui::CalcTextSize(chip).x + ImGui::GetStyle().FramePadding.x * 2;
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < w)
            ImGui::NewLine();
        const bool on = a.view.lesson.index == i;
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (chip_button(chip))
            lesson_open(a, out, i);
        if (on)
            ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr(list[std::size_t(i)].title_en, list[std::size_t(i)].title_zh));
        mark_widget(out, (std::string("lesson") + std::to_string(i + 1)).c_str());
    }
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(tr("explore", "自由探索")).x + ImGui::GetFontSize())
        ImGui::NewLine();
    if (chip_button(tr("explore", "自由探索")))
        lesson_open(a, out, -1);
    mark_widget(out, "explore");
}

}  // namespace

void panel_lesson(const app& a, frame_out& out) {
    out.numbers.emplace();  // what this frame's view measures
    const auto& list = lessons();
    // Opening a lesson replaces the experiment: not in a read-only link; an embed
    // shows only the open lesson's card.
    if (!a.options.embed) {
        const experiment_controls controls(a);
        lesson_list(a, out);
    }
    if (a.view.lesson.index < 0)
        return;
    const lesson& l = list[std::size_t(a.view.lesson.index)];
    // A plain group, not an auto-resizing child: a child sized from the previous
    // frame clips (and so ignores the mouse over) controls a lesson has just added.
    ImGui::Separator();
    ImGui::BeginGroup();
    ImGui::PushID("lesson");
    // The visible edge, from the group's left (where SameLine's offsets count from).
    const float left = ImGui::GetCursorScreenPos().x, right = visible_width();
    textf(out, "%s  %s", l.id, tr(l.title_en, l.title_zh));
    if (!a.options.embed) {
        const experiment_controls controls(a);
        // Previous and next at the right of the title, or under it when they do not fit beside it.
        const ImGuiStyle& st = ImGui::GetStyle();
        const float nav = ImGui::CalcTextSize(tr("◀ previous", "◀ 上一课")).x + ImGui::CalcTextSize(tr("next ▶", "下一课 ▶")).x +
                          st.FramePadding.x * 4 + st.ItemSpacing.x;
        if (ImGui::GetItemRectMax().x - left + st.ItemSpacing.x + nav <= right)
            ImGui::SameLine(right - nav);
        ImGui::BeginDisabled(a.view.lesson.index == 0);
        if (chip_button(tr("◀ previous", "◀ 上一课")))
            lesson_open(a, out, a.view.lesson.index - 1);
        mark_widget(out, "lesson_previous");
        ImGui::EndDisabled();
        ImGui::SameLine();
        ImGui::BeginDisabled(a.view.lesson.index + 1 >= int(list.size()));
        if (chip_button(tr("next ▶", "下一课 ▶")))
            lesson_open(a, out, a.view.lesson.index + 1);
        mark_widget(out, "lesson_next");
        ImGui::EndDisabled();
    }
    const lesson& shown = list[std::size_t(a.view.lesson.index)];  // previous/next may have just moved on from l
    text_plain(out, tr(shown.try_en, shown.try_zh));
    ImGui::Separator();
    // Each lesson's view, in lesson order (L1 … L13).
    using view_fn = void (*)(const app&, frame_out&);
    constexpr view_fn views[] = {view_lookup,  view_sqrt_dk,          view_subspaces, view_order,     view_cost,
                                 view_code,    view_not_explanations, view_bugs,      view_formation, view_shortcut,
                                 view_circuit, view_context,          view_real_model};
    static_assert(std::size(views) == lesson_count);
    views[std::size_t(a.view.lesson.index)](a, out);
    ImGui::PopID();
    ImGui::EndGroup();
    ImGui::Separator();
}

}  // namespace attn::ui
