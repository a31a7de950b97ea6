// [SECTION] helpers
// [SECTION] L11 claims
// [SECTION] L11 views
// [SECTION] L12 learning in context
//
// The circuit lessons' cards and views (lesson_parts.hpp), drawn from the
// session's circuit study (play/circuit_study.hpp) and the context measure
// (play/measure_context.hpp): every number here is the core's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/text_util.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/lesson_views.hpp"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/circuit_study.hpp"
#include "play/measure_context.hpp"
#include "spec/recipe.hpp"
#include "train/task.hpp"
#include "view/widgets.hpp"

namespace attn::ui {

namespace {

using namespace lesson_parts;

// [SECTION] helpers

// The study when it describes the model shown (its run, at its step); nullptr
// while the run trains or the study is being brought to it.
const circuit_study* study_of(const app& a) {
    const trainer& t = a.model.train;
    const circuit_study& s = a.model.circuit;
    if (!t.run || !trainer_done(t) || s.step != trainer_step(t) || s.weights_version != t.weights_version)
        return nullptr;
    return &s;
}

// While L9's model trains (or is being read), one line saying so; false then.
bool model_ready(const app& a, frame_out& out) {
    const trainer& t = a.model.train;
    if (!t.run)
        return false;
    if (trainer_stopped(t))  // the claims say it (circuit_lesson_claims); no maps of NaN weights
        return false;
    if (!trainer_done(t)) {
        text_colored(out, theme_highlight(),
                     tr("Training L9's model: step %d of %d. Its circuit is read once it is trained.",
                        "正在训练 L9 的模型：第 %d 步，共 %d 步。训练完成后再读它的回路。"),
                     trainer_step(t), t.target);
        return false;
    }
    if (!study_of(a)) {
        text_disabled(out, "%s", tr("Reading the circuit…", "正在读取回路…"));
        return false;
    }
    return true;
}

std::string head_name(int layer, int head) { return "L" + std::to_string(layer) + "H" + std::to_string(head); }

// The maps' labels and the comp matrices.
void layout_comp(const circuit_study& s, int h, circuit_maps& m) {
    for (int i = 0; i < h; ++i) {
        m.l0.push_back(head_name(0, i));
        m.l1.push_back(head_name(1, i));
    }
    for (matrix& c : m.comp)
        c = matrix(h, h, std::nanf(""));
    float hi = 0;
    for (const circuit_composition_pair& p : s.composition.pairs)
        if (p.layer_a == 0 && p.layer_b == 1) {
            m.comp[0](p.head_a, p.head_b) = p.q;
            m.comp[1](p.head_a, p.head_b) = p.k;
            m.comp[2](p.head_a, p.head_b) = p.v;
            hi = std::max({hi, p.q, p.k, p.v});
        }
    const circuit_baseline* b[3] = {&s.composition.q, &s.composition.k, &s.composition.v};
    m.base = matrix(1, 3);
    for (int i = 0; i < 3; ++i) {
        m.base(0, i) = b[i]->mean;
        hi = std::max(hi, b[i]->mean + 3 * b[i]->spread);
    }
    m.base_cols = {"Q", "K", "V"};
    m.base_rows = {tr("random", "随机")};
    m.comp_hi = hi > 0 ? hi : 1.0f;
}

void layout_weights(const circuit_study& s, int V, circuit_maps& m) {
    for (int v = 0; v < V; ++v)
        m.symbols.push_back(task_symbol(v));
    const head_ref p = s.claims.previous, i = s.claims.induction;
    for (const circuit_k_map& k : s.weights.k_maps)
        if (k.layer_a == p.layer && k.head_a == p.head && k.layer_b == i.layer && k.head_b == i.head)
            m.k_map = matrix(V, V), std::copy(k.map.begin(), k.map.end(), m.k_map.data.begin());
    for (const circuit_head_maps& h : s.weights.heads)
        if (h.layer == i.layer && h.head == i.head)
            m.ov = matrix(V, V), std::copy(h.ov.begin(), h.ov.end(), m.ov.data.begin());
}

void layout_patch(const circuit_study& s, circuit_maps& m) {
    const circuit_patching& p = s.patching;
    if (!s.patched || !s.patch_problem.empty() || p.T == 0)
        return;
    // Positions down (the text reads down the rows), heads across: it fits the panel's width.
    m.patch = matrix(s.n + 1, p.L * p.h);
    for (int l = 0; l < p.L; ++l)
        for (int hh = 0; hh < p.h; ++hh) {
            m.heads.push_back(head_name(l, hh));
            for (int t = 0; t <= s.n; ++t)
                m.patch(t, l * p.h + hh) = p.heads[circuit_patch_head_index(p, l, hh, t == s.n ? p.T : t)];
        }
    for (int t = 0; t < s.n; ++t)
        m.patch_rows.push_back(std::to_string(t) + " " + task_symbol(p.clean_tokens[std::size_t(t)]));
    m.patch_rows.push_back(tr("all", "全部"));
}

void layout_timeline(const circuit_study& s, circuit_maps& m) {
    const circuit_timeline& tl = s.timeline;
    const std::vector<float>& all = tl.pos_loss_all;
    if (tl.S == 0 || all.size() != std::size_t(tl.S) * std::size_t(tl.T))
        return;
    m.pos_loss = matrix(tl.T - 1, tl.S);
    m.pos_pending = matrix(tl.T - 1, tl.S);  // −inf where the snapshot is pending: drawn as pending, not as NaN
    for (int i = 0; i < tl.S; ++i) {
        const bool pending = circuit_study_pending(s, i);
        m.any_pending |= pending;
        for (int t = 0; t + 1 < tl.T; ++t) {
            m.pos_loss(t, i) = pending ? 0.0f : all[std::size_t(i) * std::size_t(tl.T) + std::size_t(t)];
            m.pos_pending(t, i) = pending ? -INFINITY : 0.0f;
        }
    }
    for (int t = 0; t + 1 < tl.T; ++t)
        m.positions.push_back(std::to_string(t));
    for (int i = 0; i < tl.S; ++i)
        m.snap_steps.push_back(std::to_string(tl.steps[std::size_t(i)]));
}

const circuit_maps& maps_of(const app& a, const circuit_study& s) {
    // Keyed by the language too: a few labels are words.
    return a.memo.lesson.circuit.get(s.version, std::uint64_t(ui_language()), [&] {
        circuit_maps m;
        const train_run& run = *a.model.train.run;
        layout_comp(s, run.h, m);
        layout_weights(s, run.V, m);
        layout_patch(s, m);
        layout_timeline(s, m);
        return m;
    });
}

// A small map with every number drawn.
heatmap_options small_map(const app& a, float lo, float hi, colormap map, int chars) {
    heatmap_options opt;
    opt.source = heatmap_source_of(a.memo.lesson.circuit);
    opt.map = map;
    opt.fixed_range = true;
    opt.lo = lo, opt.hi = hi;
    opt.cell = heatmap_value_cell(chars);
    opt.max_height = 1e6f;
    opt.show_legend = true;
    return opt;
}

void report_map(frame_out& out, const char* name, const heatmap_result& r, const char* axes) {
    out.widgets.push_back({name, r.cells_x0, r.cells_y0, r.cells_x1, r.cells_y1, r.window});
    if (r.focused)  // a map's cells take the keyboard as the pipeline's do ("grid_…": the arrows move within)
        out.keyboard_focus = std::string("grid_") + name;
    out.maps.push_back({name, r.cells, r.labelled, axes});
    note_clip(out, name);
}

// One line per series over the training steps: values against the step axis with
// the phase-change line, the model's step, and a band (a baseline ± its spread).
struct series {
    const std::vector<float>* v;
    ImU32 col;
};
struct step_axis {
    const std::vector<int>* steps;
    int total = 1;   // the run's last step
    int phase = -1;  // the drop, −1: none
    int now = 0;     // the model's step
    float lo = 0, hi = 1;
    float band_lo = NAN, band_hi = NAN;
};

void step_plot(frame_out& out, const char* name, const step_axis& ax, const series* s, int count) {
    const float font = ImGui::GetFontSize(), height = font * 7.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float left = ImGui::CalcTextSize("-0.000").x + font * 0.5f;
    const float w = std::max(visible_width(), font * 12.0f);
    const ImVec2 p0(p.x + left, p.y + font * 0.5f), p1(p.x + w - font, p.y + height - font * 1.5f);
    auto x = [&](float step) { return p0.x + (p1.x - p0.x) * step / float(std::max(ax.total, 1)); };
    auto y = [&](float v) { return p1.y - (p1.y - p0.y) * (v - ax.lo) / std::max(ax.hi - ax.lo, 1e-6f); };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border), label = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    if (std::isfinite(ax.band_lo))
        dl->AddRectFilled(ImVec2(p0.x, y(std::min(ax.band_hi, ax.hi))), ImVec2(p1.x, y(std::max(ax.band_lo, ax.lo))),
                          ImGui::GetColorU32(ImGuiCol_TextDisabled, 0.25f));
    dl->AddRect(p0, p1, frame);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", double(ax.hi));
    dl->AddText(ImVec2(p0.x - ImGui::CalcTextSize(buf).x - 4, p0.y - font * 0.5f), label, buf);
    std::snprintf(buf, sizeof buf, "%.3g", double(ax.lo));
    dl->AddText(ImVec2(p0.x - ImGui::CalcTextSize(buf).x - 4, p1.y - font * 0.5f), label, buf);
    dl->AddText(ImVec2(p0.x, p1.y + 2), label, "0");
    std::snprintf(buf, sizeof buf, "%s %d", tr("step", "步"), ax.total);
    dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(buf).x, p1.y + 2), label, buf);
    for (int k = 0; k < count; ++k) {
        std::vector<ImVec2> line;
        auto flush = [&] {
            if (line.size() > 1)
                dl->AddPolyline(line.data(), int(line.size()), s[k].col, 0, 2.0f);
            line.clear();
        };
        for (std::size_t i = 0; i < s[k].v->size() && i < ax.steps->size(); ++i) {
            const float v = (*s[k].v)[i];
            if (!std::isfinite(v)) {
                flush();
                continue;
            }
            const ImVec2 q(x(float((*ax.steps)[i])), y(std::clamp(v, ax.lo, ax.hi)));
            line.push_back(q);
            dl->AddCircleFilled(q, 2.5f, s[k].col);
        }
        flush();
    }
    if (ax.phase >= 0) {
        const float xp = x(float(ax.phase));
        for (float yy = p0.y; yy < p1.y; yy += 6.0f)
            dl->AddLine(ImVec2(xp, yy), ImVec2(xp, std::min(yy + 3.0f, p1.y)), ImGui::GetColorU32(theme_bad()));
    }
    const float xs = x(float(ax.now));
    dl->AddLine(ImVec2(xs, p0.y), ImVec2(xs, p1.y), ImGui::GetColorU32(ImGuiCol_Text), 1.5f);
    ImGui::Dummy(ImVec2(p1.x - p.x, height));
    mark_widget(out, name);
}

// A row of tabs (chips), the chosen one lit; returns the one clicked or −1.
int tabs(frame_out& out, const char* const* labels, const char* const* names, int count, int chosen) {
    int clicked = -1;
    for (int i = 0; i < count; ++i) {
        if (i > 0)
            ImGui::SameLine();
        const bool on = i == chosen;
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (chip_button(labels[i]) && !on)
            clicked = i;
        if (on)
            ImGui::PopStyleColor();
        mark_widget(out, names[i]);
    }
    return clicked;
}

// [SECTION] L11 claims

void composition_claims(const circuit_study& s, std::vector<claim_line>& lines) {
    const circuit_claims& c = s.claims;
    if (!c.over_training_measured) {  // the snapshots are the evidence of 1 and 2: nothing before they are in
        lines.push_back(claim(claim_style::muted, tr("1–2. Measuring the snapshots: %d of %d…", "1–2. 正在测量快照：%d / %d……"),
                              s.snapshots_done, s.timeline.S));
        return;
    }
    if (c.k_comp_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("1. Layer 0 · head %d attends to the previous token; layer %d · head %d is the induction "
                                 "head, and its keys read head %d's output: K-composition %.3f, against %.3f ± %.3f for random "
                                 "weights of the same shapes.",
                                 "1. 第 0 层 · 头 %d 关注前一个词元；第 %d 层 · 头 %d 是归纳头，它的键读取头 %d 的输出：K 组合 "
                                 "%.3f，而同样形状的随机权重是 %.3f ± %.3f。"),
                              c.previous.head, c.induction.layer, c.induction.head, c.previous.head, double(c.k_comp),
                              double(c.base), double(c.spread)));
    else
        lines.push_back(claim(claim_style::plain,
                              tr("1. At step %d the induction head's keys do not read a previous-token head more than chance: "
                                 "K-composition %.3f (layer 0 · head %d → layer %d · head %d), random weights %.3f ± %.3f.",
                                 "1. 到第 %d 步，归纳头的键读取前一词元头的程度不比随机高：K 组合 %.3f（第 0 层 · 头 %d → 第 %d "
                                 "层 · 头 %d），随机权重 %.3f ± %.3f。"),
                              c.step, double(c.k_comp), c.previous.head, c.induction.layer, c.induction.head, double(c.base),
                              double(c.spread)));
    if (c.rise_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("2. It rose with the drop: above chance from step %d; the loss dropped at step %d.",
                                 "2. 它随损失下降一起升高：从第 %d 步起高于随机；损失在第 %d 步下降。"),
                              c.rise_step, c.drop_step));
    else if (c.drop_step < 0)
        lines.push_back(claim(claim_style::plain,
                              tr("2. By step %d the loss has not dropped yet.", "2. 到第 %d 步，损失还没有下降。"), c.step));
}

void patching_claims(const circuit_study& s, std::vector<claim_line>& lines) {
    const circuit_claims& c = s.claims;
    if (!s.claims_done()) {
        lines.push_back(claim(claim_style::muted, tr("3. Patching held-out rows: %d of %d…", "3. 正在对留出行做修补：%d / %d…"),
                              s.claim_rows_done, claim_patch_rows));
        return;
    }
    if (c.keys_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("3. Layer 0 acts through layer 1's keys: patching its heads' writes into the keys alone "
                                 "brings the answer back (recovery %.2f over %d held-out rows); into the queries %.2f, the "
                                 "values %.2f.",
                                 "3. 第 0 层通过第 1 层的键起作用：只把它的各头的写入补进键，答案就回来了（恢复 %.2f，共 %d "
                                 "个留出行）；补进查询 %.2f，补进值 %.2f。"),
                              double(c.k_all), c.rows, double(c.q_all), double(c.v_all)));
    if (c.keys_shown && circuit_recovery_word(c.k_all) == recovery_word::beyond)
        lines.push_back(claim(claim_style::muted, "%s",
                              tr("A recovery above 1: the patched runs prefer the clean answer more strongly than the clean "
                                 "runs themselves.",
                                 "恢复大于 1：修补后的运行比干净运行本身更偏向干净答案。")));
    if (!c.keys_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("3. Patching layer 0's writes into layer 1's keys recovers %.2f, queries %.2f, values %.2f "
                                 "(%d held-out rows): no single input carries the answer yet.",
                                 "3. 把第 0 层的写入补进第 1 层的键恢复 %.2f，查询 %.2f，值 %.2f（%d "
                                 "个留出行）：还没有哪一个输入单独携带答案。"),
                              double(c.k_all), double(c.q_all), double(c.v_all), c.rows));
}

void copying_claim(const circuit_study& s, std::vector<claim_line>& lines) {
    for (const circuit_head_maps& h : s.weights.heads)
        if (h.layer == s.claims.induction.layer && h.head == s.claims.induction.head && !circuit_copying_shown(h))
            lines.push_back(claim(claim_style::plain,
                                  tr("4. Its OV circuit does not copy yet: for %.0f%% of the tokens it attends to, the logit it "
                                     "raises most is that token's own (copying score %.2f); a copier reaches %.0f%% and %.1f.",
                                     "4. 它的 OV 回路还没有在复制：对它关注的 %.0f%% 的词元，它抬高得最多的输出分数是该词元自己的"
                                     "（复制得分 %.2f）；复制头分别至少达到 %.0f%% 和 %.1f。"),
                                  double(h.ov_top1) * 100.0, double(h.copying), double(claim_copy_top1) * 100.0,
                                  double(claim_copy_score)));
        else if (h.layer == s.claims.induction.layer && h.head == s.claims.induction.head)
            lines.push_back(
                claim(claim_style::plain,
                      tr("4. Its OV circuit copies: for %.0f%% of the tokens it attends to, the logit it raises "
                         "most is that token's own (copying score %.2f; 1 is a pure copier).",
                         "4. 它的 OV 回路在复制：对它关注的 %.0f%% 的词元，它抬高得最多的输出分数就是该词元自己的（复制得分 "
                         "%.2f；1 表示纯复制）。"),
                      double(h.ov_top1) * 100.0, double(h.copying)));
}

}  // namespace

lesson_claims circuit_lesson_claims(const app& a) {
    lesson_claims c;
    const circuit_study* s = study_of(a);
    if (const trainer& t = a.model.train; trainer_stopped(t)) {  // no circuit to read: never "recovers NaN"
        c.claims.push_back(claim(claim_style::bad,
                                 tr("This run diverged: training stopped at step %d (%s). A diverged model has no circuit "
                                    "to read: scrub back to a step before it, or lower lr (L9's recipe trains).",
                                    "这次训练发散了：在第 %d 步停止（%s）。发散的模型没有可读的回路：把步数拖回它之前，"
                                    "或调低 lr（L9 的配方可以训练）。"),
                                 trainer_step(t), t.error.c_str()));
        return c;
    }
    if (!s)
        return c;
    if (!s->claims.applies) {
        c.claims.push_back(
            claim(claim_style::highlight, "%s",
                  tr("This model is not L9's induction model (two layers, the induction task): L11 reads "
                     "that circuit. Open L11 again to load it.",
                     "这个模型不是 L9 的归纳模型（两层、归纳任务）：L11 读的是那个回路。重新打开 L11 来载入它。")));
        return c;
    }
    composition_claims(*s, c.claims);
    patching_claims(*s, c.claims);
    copying_claim(*s, c.claims);
    if (s->claims.icl_shown)
        c.claims.push_back(claim(claim_style::plain,
                                 tr("5. It learns in context: the in-context-learning score is %.2f now, within ±%.2f before "
                                    "the drop (L12).",
                                    "5. 它在上下文中学习：上下文学习得分现在是 %.2f，下降之前在 ±%.2f 以内（L12）。"),
                                 double(s->claims.icl_now), double(s->claims.icl_before)));
    return c;
}

namespace {

// [SECTION] L11 views

void composition_view(const app& a, frame_out& out, const circuit_study& s, const circuit_maps& m) {
    section_text(out, tr("Which layer-0 head feeds which layer-1 head", "第 0 层哪个头喂给第 1 层哪个头"));
    static const char* const labels[] = {"Q", "K", "V"};
    static const char* const names[] = {"l11_comp_q", "l11_comp_k", "l11_comp_v"};
    const int kind = std::clamp(a.view.lesson.comp, 0, 2);
    if (const int c = tabs(out, labels, names, 3, kind); c >= 0)
        lesson_wants(a, out).comp = c;
    heatmap_options opt = small_map(a, 0, m.comp_hi, colormap::sequential, 5);
    opt.row_labels = &m.l0;
    opt.col_labels = &m.l1;
    opt.axes = tr("↓ layer-0 head (writes)   → layer-1 head (reads)", "↓ 第 0 层的头（写）   → 第 1 层的头（读）");
    opt.highlight_row = s.claims.previous.head;
    opt.highlight_col = s.claims.induction.layer == 1 ? s.claims.induction.head : -1;
    report_map(out, "l11_comp_map", heatmap_draw(*a.heatmaps, "l11_comp_map", m.comp[kind], opt), opt.axes);
    text_disabled(out, "%s",
                  tr("Random weights of the same shapes, on the same colour scale:", "同样形状的随机权重，用同一个色标："));
    heatmap_options b = small_map(a, 0, m.comp_hi, colormap::sequential, 5);
    b.col_labels = &m.base_cols;
    b.show_legend = false;
    report_map(out, "l11_comp_base", heatmap_draw(*a.heatmaps, "l11_comp_base", m.base, b), nullptr);
}

void rise_view(const app& a, frame_out& out, const circuit_study& s) {
    const circuit_claims& c = s.claims;
    section_text(out, tr("That K-composition over training", "这个 K 组合在训练中的变化"));
    step_axis ax;
    ax.steps = &s.timeline.steps;
    ax.total = a.model.exp.train.steps;
    ax.phase = c.drop_step;
    ax.now = c.step;
    ax.lo = 0;
    ax.hi = 0.5f;
    for (float k : s.timeline.prev_ind_k)
        if (std::isfinite(k))
            ax.hi = std::max(ax.hi, k * 1.1f);
    ax.band_lo = c.base - c.spread, ax.band_hi = c.base + c.spread;
    const series k{&s.timeline.prev_ind_k, ImGui::GetColorU32(theme_highlight())};
    step_plot(out, "l11_k_curve", ax, &k, 1);
    text_disabled(out, "%s",
                  tr("grey band: random weights (mean ± spread); dashed: the loss drop; solid: the model's step",
                     "灰带：随机权重（均值 ± 标准差）；虚线：损失下降处；实线：模型当前所在的步"));
}

void weights_view(const app& a, frame_out& out, const circuit_study& s, const circuit_maps& m) {
    const circuit_claims& c = s.claims;
    section_text(out, tr("What the two heads do to tokens (weights only)", "两个头对词元做了什么（只看权重）"));
    if (!m.k_map.empty()) {
        textf(out,
              tr("QK through the previous-token head: layer %d · head %d's query token × the token before each key",
                 "经过前一词元头的 QK：第 %d 层 · 头 %d 的查询词元 × 每个键前面的那个词元"),
              c.induction.layer, c.induction.head);
        heatmap_options opt = small_map(a, 0, 0, colormap::diverging, 5);
        opt.fixed_range = false;
        opt.row_labels = opt.col_labels = &m.symbols;
        opt.axes = tr("↓ query token   → token before the key", "↓ 查询词元   → 键前面的词元");
        report_map(out, "l11_qk_map", heatmap_draw(*a.heatmaps, "l11_qk_map", m.k_map, opt), opt.axes);
        for (const circuit_k_map& k : s.weights.k_maps)
            if (k.layer_a == 0 && k.head_a == c.previous.head && k.layer_b == c.induction.layer && k.head_b == c.induction.head)
                textf(out,
                      tr("diagonal top-1: %.0f%% of the query tokens score the key after their own earlier copy highest",
                         "对角线 top-1：%.0f%% 的查询词元给“自己上一次出现之后的键”打分最高"),
                      double(k.top1) * 100.0);
    }
    if (!m.ov.empty()) {
        textf(out,
              tr("OV of layer %d · head %d: the token attended to × the logit its write raises",
                 "第 %d 层 · 头 %d 的 OV：被关注的词元 × 它的写入抬高的 logit"),
              c.induction.layer, c.induction.head);
        heatmap_options opt = small_map(a, 0, 0, colormap::diverging, 5);
        opt.fixed_range = false;
        opt.row_labels = opt.col_labels = &m.symbols;
        opt.axes = tr("↓ token attended to   → logit", "↓ 被关注的词元   → logit");
        report_map(out, "l11_ov_map", heatmap_draw(*a.heatmaps, "l11_ov_map", m.ov, opt), opt.axes);
    }
}

void paths_view(const app& a, frame_out& out, const circuit_study& s) {
    const circuit_read& r = s.read;
    if (!s.read_problem.empty() || r.path_parts.empty() || s.n < 1) {
        if (!s.read_problem.empty())
            text_disabled(out, "%s", s.read_problem.c_str());
        return;
    }
    const int t = std::clamp(a.view.sel_row, 0, s.n - 1);
    const int v = r.top[std::size_t(t) * std::size_t(r.top_k)];
    section_text(out, tr("Where the answer comes from: the path expansion", "答案从哪里来：路径展开"));
    textf(out,
          tr("After token %d (%s) the model predicts %s (logit %s). The logit is the sum of these paths:",
             "在第 %d 个词元（%s）之后，模型预测 %s（logit %s）。这个 logit 是下面这些路径之和："),
          t, task_symbol(r.tokens[std::size_t(t)]).c_str(), task_symbol(v).c_str(),
          number_text(r.logits[std::size_t(t) * std::size_t(r.V) + std::size_t(v)]).c_str());
    std::vector<int> order(r.path_parts.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return std::fabs(circuit_path(r, x, t, v)) > std::fabs(circuit_path(r, y, t, v)); });
    constexpr std::size_t shown = 8;
    std::vector<std::string> labels;
    std::vector<float> values;
    float rest = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const float x = circuit_path(r, order[i], t, v);
        if (i < shown) {
            std::string name = r.path_parts[std::size_t(order[i])].name;
            if (const std::size_t gt = name.find('>'); gt != std::string::npos)
                name.replace(gt, 1, " → ");
            labels.push_back(name);
            values.push_back(x);
        } else {
            rest += x;
        }
    }
    if (order.size() > shown) {
        labels.push_back(tr("the rest", "其余"));
        values.push_back(rest);
    }
    bars(out, "l11_paths", labels, values, true, ImGui::GetColorU32(theme_highlight()));
    mark_widget(out, "l11_paths");
    text_disabled(out, "%s",
                  tr("Each bar is one path to this logit with the row's attention patterns held fixed: a head's own bar reads "
                     "the tokens through its values, \"A → B\" reads A's write through B's values. Where a head looks is not "
                     "a path here: patching, below, tests that.",
                     "每一条是通向这个 logit 的一条路径，这一行的注意力模式保持不变：单个头的那条通过它的值读取词元，"
                     "“A → B” 通过 B 的值读取 A 的写入。头看向哪里不是这里的路径：下面的修补检验的是它。"));
    number(out, "path_row", t);
    number(out, "path_token", v);
}

std::string symbols_text(const std::vector<int>& tokens, int n) {
    std::string s;
    for (int t = 0; t < n && t < int(tokens.size()); ++t)
        s += (t ? " " : "") + task_symbol(tokens[std::size_t(t)]);
    return s;
}

void recovery_sentence(frame_out& out, const cell_reading& r) {
    switch (r.word) {
        case recovery_word::none:
            text_colored(out, theme_bad(), "%s",
                         tr("No recovery: the clean and corrupted logit differences are equal, or the run diverged.",
                            "没有恢复值：干净和被破坏的 logit 差相等，或者训练发散了。"));
            break;
        case recovery_word::stays:
            text_colored(out, theme_bad(), "%s",
                         tr("The answer stays corrupted: this output alone does not carry it.",
                            "答案仍是被破坏的：单靠这个输出不携带答案。"));
            break;
        case recovery_word::part:
            text_colored(out, theme_highlight(),
                         tr("It brings part of the answer back: the clean answer leads at %d of %d positions.",
                            "答案回来了一部分：干净答案在 %d / %d 个位置上领先。"),
                         r.leads, r.positions);
            break;
        case recovery_word::back:
            text_colored(out, theme_good(), "%s",
                         tr("It brings the answer back: this head's output carries it.", "答案回来了：这个头的输出携带着它。"));
            break;
        case recovery_word::beyond:
            text_colored(out, theme_good(), "%s",
                         tr("It brings the answer back, and more: a recovery above 1 means the patched run prefers the clean "
                            "answer more strongly than the clean run itself (the rest of the corrupted run pushes the same way).",
                            "答案回来了，而且更多：恢复大于 1 表示修补后的运行比干净运行本身更偏向干净答案"
                            "（被破坏运行的其余部分也朝同一方向推）。"));
            break;
    }
}

void cell_result(frame_out& out, const circuit_study& s) {
    const circuit_patching& p = s.patching;
    if (!s.cell.valid() || !s.patched || s.cell_probs.size() != p.positions.size() * std::size_t(p.V)) {
        text_disabled(out, "%s",
                      tr("Click a cell to patch that head's output at that position back from the clean text.",
                         "点一个格子：把那个头在那个位置的输出从干净文本补回来。"));
        return;
    }
    const std::string where = s.cell.pos >= p.T ? std::string(tr("every position", "所有位置"))
                                                : std::string(tr("position ", "位置 ")) + std::to_string(s.cell.pos);
    textf(out, tr("%s at %s patched back: recovery %s", "%s 在%s补回：恢复 %s"), head_name(s.cell.layer, s.cell.head).c_str(),
          where.c_str(), number_text(s.cell_recovery).c_str());
    // Worded from the result by the thresholds of docs/circuits.md ("A recovery in words").
    const cell_reading reading = circuit_study_cell_reading(s);
    const bool back = reading.word == recovery_word::back || reading.word == recovery_word::beyond;
    recovery_sentence(out, reading);
    mark_widget(out, "l11_cell_sentence");
    for (std::size_t i = 0; i < p.positions.size(); ++i) {
        const int t = p.positions[i];
        const float* pr = s.cell_probs.data() + i * std::size_t(p.V);
        const int good = p.clean_answer[std::size_t(t)], bad = p.corrupt_answer[std::size_t(t)];
        textf(out,
              tr("  after token %d: %s (clean answer) %.0f%%, %s (corrupted answer) %.0f%%",
                 "  第 %d 个词元之后：%s（干净答案）%.0f%%，%s（被破坏后的答案）%.0f%%"),
              t, task_symbol(good).c_str(), double(pr[good]) * 100.0, task_symbol(bad).c_str(), double(pr[bad]) * 100.0);
    }
    number(out, "cell_recovery", s.cell_recovery);
    number(out, "cell_brings_back", back);
    number(out, "cell_leads", reading.leads);
    number(out, "cell_positions", reading.positions);
    number(out, "cell_head", s.cell.layer * p.h + s.cell.head);
    number(out, "cell_pos", s.cell.pos);
}

// One head's output patched back at every position (none: nothing patched), lit when it is the cell.
void patch_button(const app& a, frame_out& out, const char* label, const char* name, circuit_cell cell) {
    const bool on = cell == a.view.lesson.cell;
    if (on)
        ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(label) && !on)
        lesson_wants(a, out).cell = cell;
    if (on)
        ImGui::PopStyleColor();
    mark_widget(out, name);
}

// L9's style: one button per intervention, the named heads patched back at every position.
void patch_buttons(const app& a, frame_out& out, const circuit_study& s) {
    const circuit_claims& c = s.claims;
    const int T = s.patching.T, h = s.patching.h;
    const int other = h > 1 ? (c.previous.head + 1) % h : -1;  // another layer-0 head
    patch_button(a, out, tr("patch the previous-token head back", "补回前一词元头"), "l11_patch_previous",
                 {0, c.previous.head, T});
    same_line_if_fits(tr("patch the induction head back", "补回归纳头"));
    patch_button(a, out, tr("patch the induction head back", "补回归纳头"), "l11_patch_induction",
                 {c.induction.layer, c.induction.head, T});
    if (other >= 0) {
        same_line_if_fits(tr("patch another head back", "补回另一个头"));
        patch_button(a, out, tr("patch another head back", "补回另一个头"), "l11_patch_other", {0, other, T});
    }
    same_line_if_fits(tr("none", "都不补"));
    patch_button(a, out, tr("none", "都不补"), "l11_patch_none", circuit_cell{});
}

void patch_view(const app& a, frame_out& out, const circuit_study& s, const circuit_maps& m) {
    section_text(out, tr("Patching: which head carries the answer", "修补：哪个头携带了答案"));
    if (!s.patched) {
        text_disabled(out, "%s", tr("Patching the text…", "正在修补这段文本…"));
        return;
    }
    if (!s.patch_problem.empty() || m.patch.empty()) {
        text_disabled(
            out, "%s",
            s.patch_problem.empty() ? tr("No patching for this text.", "这段文本不能做修补。") : s.patch_problem.c_str());
        return;
    }
    const circuit_patching& p = s.patching;
    const circuit_text_corruption& c = s.corruption;
    textf(out, "%s %s", tr("clean:", "干净："), symbols_text(p.clean_tokens, s.n).c_str());
    textf(out, tr("corrupted: %s   (%s ↔ %s in the first occurrence)", "被破坏：%s   （第一次出现里 %s ↔ %s）"),
          symbols_text(p.corrupt_tokens, s.n).c_str(), task_symbol(p.clean_tokens[std::size_t(c.k)]).c_str(),
          task_symbol(p.clean_tokens[std::size_t(c.m)]).c_str());
    textf(out,
          tr("logit difference (clean answer − corrupted answer): clean %s, corrupted %s",
             "logit 差（干净答案 − 被破坏的答案）：干净 %s，被破坏 %s"),
          number_text(p.ld_clean).c_str(), number_text(p.ld_corrupt).c_str());
    patch_buttons(a, out, s);
    heatmap_options opt = small_map(a, -1, 1, colormap::diverging, 5);
    opt.row_labels = &m.patch_rows;
    opt.col_labels = &m.heads;
    opt.axes = tr("↓ position patched (all: every one)   → head whose output is patched",
                  "↓ 被修补的位置（全部：所有位置）   → 被修补输出的头");
    if (s.cell.valid()) {
        opt.highlight_row = s.cell.pos >= p.T ? s.n : s.cell.pos;
        opt.highlight_col = s.cell.layer * p.h + s.cell.head;
    }
    const heatmap_result r = heatmap_draw(*a.heatmaps, "l11_patch_map", m.patch, opt);
    report_map(out, "l11_patch_map", r, opt.axes);
    if (r.clicked_row >= 0 && r.clicked_col >= 0)
        lesson_wants(a, out).cell = {r.clicked_col / p.h, r.clicked_col % p.h, r.clicked_row == s.n ? p.T : r.clicked_row};
    // A button's or a cell's result is drawn below the map: brought into view once it is there.
    ImGui::BeginGroup();
    cell_result(out, s);
    ImGui::EndGroup();
    const circuit_cell& cell = s.cell;
    const std::uint64_t asked =
        cell.valid() ? 1 + std::uint64_t(cell.layer) * 1000003u + std::uint64_t(cell.head) * 1009u + std::uint64_t(cell.pos) : 0;
    reveal_when_new("l11_cell_result", asked, s.patched && !s.cell_probs.empty());
    for (const circuit_path_recovery& pr : p.paths)
        if (pr.layer_a == 0 && pr.head_a == s.claims.previous.head && pr.layer_b == s.claims.induction.layer &&
            pr.head_b == s.claims.induction.head) {
            textf(out,
                  tr("Path patching layer 0 · head %d's write into layer %d · head %d alone: keys %s, queries %s, values %s",
                     "只把第 0 层 · 头 %d 的写入补进第 %d 层 · 头 %d：键 %s，查询 %s，值 %s"),
                  pr.head_a, pr.layer_b, pr.head_b, number_text(pr.k).c_str(), number_text(pr.q).c_str(),
                  number_text(pr.v).c_str());
            number(out, "path_k", pr.k);
        }
}

void circuit_numbers(frame_out& out, const circuit_study& s) {
    const circuit_claims& c = s.claims;
    number(out, "step", c.step);
    number(out, "previous_head", c.previous.head);
    number(out, "induction_layer", c.induction.layer);
    number(out, "induction_head", c.induction.head);
    number(out, "k_comp", c.k_comp);
    number(out, "k_base", c.base);
    number(out, "k_spread", c.spread);
    number(out, "drop_step", c.drop_step);
    number(out, "rise_step", c.rise_step);
    number(out, "icl_now", c.icl_now);
    number(out, "icl_before", c.icl_before);
    number(out, "claims_done", s.claims_done());
    number(out, "snapshots_done", s.snapshots_done);
    number(out, "snapshots", s.timeline.S);
    number(out, "k_all", c.k_all);
    number(out, "q_all", c.q_all);
    number(out, "v_all", c.v_all);
    number(out, "k_comp_shown", c.k_comp_shown);
    number(out, "rise_shown", c.rise_shown);
    number(out, "keys_shown", c.keys_shown);
    number(out, "icl_shown", c.icl_shown);
    number(out, "patched", s.patched);
    if (s.patched && s.patch_problem.empty()) {
        number(out, "ld_clean", s.patching.ld_clean);
        number(out, "ld_corrupt", s.patching.ld_corrupt);
    }
}

}  // namespace

void view_circuit(const app& a, frame_out& out) {
    if (!model_ready(a, out))
        return;
    const circuit_study& s = *study_of(a);
    draw_claims(out, circuit_lesson_claims(a).claims);
    if (!s.claims.applies)
        return;
    const circuit_maps& m = maps_of(a, s);
    composition_view(a, out, s, m);
    rise_view(a, out, s);
    weights_view(a, out, s, m);
    paths_view(a, out, s);
    patch_view(a, out, s, m);
    circuit_numbers(out, s);
}

// [SECTION] L12 learning in context

namespace {

const context_claims& context_of(const app& a, const circuit_study& s) {
    return a.memo.lesson.context.get(s.version, 0, [&] { return measure_context(s.timeline, s.claims.step, s.snapshots_done); });
}

void bump_claims(const context_claims& k, std::vector<claim_line>& lines) {
    if (k.bump_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("1. After the drop (step %d) the repeat is cheap: its held-out loss fell from %.2f (step %d) to "
                                 "%.2f. The same transitions at their first occurrence did not get cheaper (%.2f → %.2f): "
                                 "there the next symbol is random, and only the repeat can be read from the context.",
                                 "1. 下降（第 %d 步）之后，重复段变便宜了：它的留出集损失从 %.2f（第 %d 步）降到 %.2f。"
                                 "同样的转移在第一次出现时并没有变便宜（%.2f → %.2f）：那里的下一个符号是随机的，"
                                 "只有重复段能从上下文里读出来。"),
                              k.drop_step, double(k.repeat_before), k.before_step, double(k.repeat_now), double(k.first_before),
                              double(k.first_now)));
    else
        lines.push_back(claim(claim_style::plain,
                              tr("1. At step %d the repeat costs %.2f and its first occurrence %.2f: the context does not "
                                 "make the repeat cheap yet.",
                                 "1. 到第 %d 步，重复段的损失是 %.2f，第一次出现处是 %.2f：上下文还没有让重复段变便宜。"),
                              k.step, double(k.repeat_now), double(k.first_now)));
    if (k.icl_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("2. The in-context-learning score (loss at a repeat minus loss at its first occurrence) is "
                                 "%.2f now; before the drop it stayed within ±%.2f.",
                                 "2. 上下文学习得分（重复处的损失减去第一次出现处的损失）现在是 %.2f；下降之前一直在 ±%.2f "
                                 "以内。"),
                              double(k.icl_now), double(k.icl_before)));
    else
        lines.push_back(claim(claim_style::plain,
                              tr("2. The in-context-learning score is %.2f at step %d: not yet clearly below zero.",
                                 "2. 上下文学习得分是 %.2f（第 %d 步）：还没有明显低于 0。"),
                              double(k.icl_now), k.step));
}

void markov_claims(const context_claims& k, std::vector<claim_line>& lines) {
    if (k.phases_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("1. Each row has its own random rule. The model first predicts like the uniform guess, "
                                 "from step %d like the row's unigram counts, from step %d like its bigram counts: KL now "
                                 "%.3f (bigram), %.3f (unigram), %.3f (uniform).",
                                 "1. 每一行都有自己的随机规则。模型先像均匀猜测那样预测，从第 %d 步起像这一行的一元计数，从第 %d "
                                 "步起像它的二元计数：现在的 KL 为 %.3f（二元）、%.3f（一元）、%.3f（均匀）。"),
                              k.unigram_from, k.bigram_from, double(k.kl_bigram), double(k.kl_unigram), double(k.kl_uniform)));
    else
        lines.push_back(claim(claim_style::plain,
                              tr("1. At step %d the model is nearest the %s predictor: KL %.3f (bigram), %.3f (unigram), "
                                 "%.3f (uniform).",
                                 "1. 到第 %d 步，模型最接近%s预测：KL %.3f（二元）、%.3f（一元）、%.3f（均匀）。"),
                              k.step,
                              k.nearest.empty()       ? "—"
                              : k.nearest.back() == 2 ? tr("bigram", "二元")
                              : k.nearest.back() == 1 ? tr("unigram", "一元")
                                                      : tr("uniform", "均匀"),
                              double(k.kl_bigram), double(k.kl_unigram), double(k.kl_uniform)));
    if (k.bump_shown)
        lines.push_back(claim(claim_style::plain,
                              tr("2. Late in a row the model predicts better than early: the next token's loss is %.3f over the "
                                 "last quarter of the positions, %.3f over the first — the longer the context, the better its "
                                 "counts.",
                                 "2. 在一行的后部，模型预测得比前部好：后四分之一位置上下一个词元的损失是 %.3f，前四分之一是 "
                                 "%.3f——上下文越长，计数越准。"),
                              double(k.late_now), double(k.early_now)));
}

}  // namespace

lesson_claims context_lesson_claims(const app& a) {
    lesson_claims c;
    const circuit_study* s = study_of(a);
    if (!s)
        return c;
    const context_claims& k = context_of(a, *s);
    if ((k.markov || k.induction) && !k.complete)
        c.claims.push_back(claim(claim_style::muted,
                                 tr("Measuring the snapshots: %d of %d… the claims appear once every one is in.",
                                    "正在测量快照：%d / %d…… 全部测完后结论才会出现。"),
                                 k.measured, k.needed));
    else if (k.markov)
        markov_claims(k, c.claims);
    else if (k.induction)
        bump_claims(k, c.claims);
    else
        c.claims.push_back(claim(claim_style::highlight, "%s",
                                 tr("L12 reads the induction task's model and the markov task's; this one is trained on "
                                    "another task.",
                                    "L12 读的是归纳任务和马尔可夫任务的模型；这个模型训练的是别的任务。")));
    return c;
}

namespace {

void position_map(const app& a, frame_out& out, const circuit_study& s, const circuit_maps& m, const context_claims& k) {
    if (m.pos_loss.empty())
        return;
    section_text(
        out, tr("Held-out loss of the next token at each position, over training", "训练过程中每个位置上下一个词元的留出集损失"));
    heatmap_options opt = small_map(a, 0, 0, colormap::sequential, 4);
    opt.fixed_range = false;
    opt.show_values = false;
    opt.hover_value = true;
    // Every snapshot within the panel's width.
    opt.cell = std::clamp((visible_width() - ImGui::GetFontSize() * 3.0f) / float(std::max(m.pos_loss.cols, 1)), 3.0f,
                          ImGui::GetFontSize() * 0.8f);
    opt.row_labels = &m.positions;
    opt.col_labels = &m.snap_steps;
    opt.sparse_labels = true;  // ticks: a few positions and steps, the drop's step among them
    if (k.drop_step >= 0)
        opt.highlight_col = circuits_timeline_drop_snapshot(s.timeline);
    opt.axes = tr("↓ position in the row   → training step (kept snapshots; lit: the drop)",
                  "↓ 行中的位置   → 训练步（保存的快照；高亮：下降处）");
    if (m.any_pending) {
        opt.masked_from = &m.pos_pending;
        opt.masked_name = tr("pending", "待测");
        text_disabled(out, tr("measuring the snapshots: %d of %d…", "正在测量快照：%d / %d……"), s.snapshots_done, s.timeline.S);
    }
    report_map(out, "l12_pos_loss", heatmap_draw(*a.heatmaps, "l12_pos_loss", m.pos_loss, opt), opt.axes);
    if (k.induction)
        text_disabled(out, "%s",
                      tr("A row is random symbols, then a segment, then the segment again, ending at the last position: the "
                         "late positions are mostly the repeat. The task trains only the repeat, so elsewhere nothing keeps "
                         "the model's guesses modest, and their loss grows.",
                         "一行先是随机符号，然后是一段，再把这一段重复一遍，结束在最后一个位置：靠后的位置大多是重复段。"
                         "任务只训练重复段，所以在别处没有什么让模型的猜测保持谨慎，那里的损失会变大。"));
}

step_axis context_axis(const app& a, const circuit_study& s, const context_claims& k) {
    step_axis ax;
    ax.steps = &s.timeline.steps;
    ax.total = a.model.exp.train.steps;
    ax.phase = k.markov ? k.bigram_from : k.drop_step;
    ax.now = k.step;
    return ax;
}

void repeat_curves(const app& a, frame_out& out, const circuit_study& s, const context_claims& k) {
    section_text(out, tr("Held-out loss at the repeat and at its first occurrence", "重复段与它第一次出现处的留出集损失"));
    step_axis ax = context_axis(a, s, k);
    ax.lo = 0, ax.hi = 1;
    for (const std::vector<float>* v : {&s.timeline.loss, &s.timeline.first_loss})
        for (float x : *v)
            if (std::isfinite(x))
                ax.hi = std::max(ax.hi, x);
    const series two[2] = {{&s.timeline.loss, IM_COL32(230, 120, 40, 255)},
                           {&s.timeline.first_loss, IM_COL32(150, 150, 150, 255)}};
    step_plot(out, "l12_repeat_curves", ax, two, 2);
    text_colored(out, ImVec4(0.90f, 0.47f, 0.16f, 1), "— %s",
                 tr("the repeat (what the task trains)", "重复段（任务训练的部分）"));
    ImGui::SameLine();
    text_colored(out, ImVec4(0.59f, 0.59f, 0.59f, 1), "— %s", tr("its first occurrence", "它第一次出现处"));
}

void icl_curve(const app& a, frame_out& out, const circuit_study& s, const context_claims& k) {
    section_text(out, tr("The in-context-learning score over training", "训练过程中的上下文学习得分"));
    step_axis ax = context_axis(a, s, k);
    ax.lo = -1, ax.hi = 1;
    for (float v : s.timeline.icl)
        if (std::isfinite(v))
            ax.lo = std::min(ax.lo, v), ax.hi = std::max(ax.hi, v);
    ax.band_lo = -claim_icl_before, ax.band_hi = claim_icl_before;
    const series icl{&s.timeline.icl, ImGui::GetColorU32(theme_highlight())};
    step_plot(out, "l12_icl_curve", ax, &icl, 1);
    text_disabled(out, "%s",
                  tr("below 0: a repeat costs less than its first occurrence; grey band: ±0.5 (near 0); dashed: the drop",
                     "低于 0：重复处比第一次出现便宜；灰带：±0.5（接近 0）；虚线：下降处"));
}

void kl_curves(const app& a, frame_out& out, const circuit_study& s, const context_claims& k) {
    section_text(out, tr("KL(predictor ‖ model) over training", "训练过程中的 KL(预测器 ‖ 模型)"));
    step_axis ax = context_axis(a, s, k);
    ax.lo = 0, ax.hi = 0.1f;
    for (const std::vector<float>* v : {&s.timeline.kl_uniform, &s.timeline.kl_unigram, &s.timeline.kl_bigram})
        for (float x : *v)
            if (std::isfinite(x))
                ax.hi = std::max(ax.hi, x);
    const series kl[3] = {{&s.timeline.kl_uniform, IM_COL32(150, 150, 150, 255)},
                          {&s.timeline.kl_unigram, IM_COL32(60, 160, 230, 255)},
                          {&s.timeline.kl_bigram, IM_COL32(230, 120, 40, 255)}};
    step_plot(out, "l12_kl_curves", ax, kl, 3);
    text_colored(out, ImVec4(0.59f, 0.59f, 0.59f, 1), "— %s", tr("uniform", "均匀"));
    ImGui::SameLine();
    text_colored(out, ImVec4(0.24f, 0.63f, 0.90f, 1), "— %s", tr("unigram of the row", "这一行的一元计数"));
    ImGui::SameLine();
    text_colored(out, ImVec4(0.90f, 0.47f, 0.16f, 1), "— %s", tr("bigram of the row", "这一行的二元计数"));
}

// The other model of the lesson: the markov task from L9's, and back.
void other_model_button(const app& a, frame_out& out, const context_claims& k) {
    const experiment_controls controls(a);
    const char* label = k.markov ? tr("back to L9's model", "回到 L9 的模型") : tr("open the markov task", "打开马尔可夫任务");
    if (ImGui::Button(label)) {
        if (k.markov) {
            lesson_open(a, out, 11);
        } else {
            out.request = change::open(std::string(recipe_markov) + "&view.lesson=12");
            out.scope = link_scope::lesson;
        }
    }
    mark_widget(out, "l12_other_model");
}

}  // namespace

void view_context(const app& a, frame_out& out) {
    if (!model_ready(a, out))
        return;
    const circuit_study& s = *study_of(a);
    const context_claims& k = context_of(a, s);
    draw_claims(out, context_lesson_claims(a).claims);
    other_model_button(a, out, k);
    const circuit_maps& m = maps_of(a, s);
    position_map(a, out, s, m, k);
    if (k.induction) {
        repeat_curves(a, out, s, k);
        icl_curve(a, out, s, k);
    }
    if (k.markov)
        kl_curves(a, out, s, k);
    number(out, "step", k.step);
    number(out, "drop_step", k.drop_step);
    number(out, "repeat_before", k.repeat_before);
    number(out, "repeat_now", k.repeat_now);
    number(out, "first_before", k.first_before);
    number(out, "first_now", k.first_now);
    number(out, "early_before", k.early_before);
    number(out, "early_now", k.early_now);
    number(out, "late_before", k.late_before);
    number(out, "late_now", k.late_now);
    number(out, "bump_shown", k.bump_shown);
    number(out, "icl_now", k.icl_now);
    number(out, "icl_before", k.icl_before);
    number(out, "icl_shown", k.icl_shown);
    number(out, "unigram_from", k.unigram_from);
    number(out, "bigram_from", k.bigram_from);
    number(out, "phases_shown", k.phases_shown);
    number(out, "snapshots_done", s.snapshots_done);
    number(out, "snapshots", s.timeline.S);
}

// [SECTION] the text view's tables

namespace {

// `pending`, when given: −inf where a cell is still to be measured ("pending", never a number or NaN).
lesson_table matrix_table(const std::string& caption, const matrix& m, const std::vector<std::string>& rows,
                          const std::vector<std::string>& cols, const matrix* pending = nullptr) {
    lesson_table t{caption, rows, cols, {}};
    for (int r = 0; r < m.rows; ++r) {
        std::vector<std::string> row;
        for (int c = 0; c < m.cols; ++c)
            row.push_back(pending && std::isinf((*pending)(r, c)) ? tr("pending", "待测") : number_text(m(r, c)));
        t.cells.push_back(std::move(row));
    }
    return t;
}

// One row per snapshot of s's timeline; a pending snapshot's cells say so (circuit_study_pending).
lesson_table curve_table(const std::string& caption, const circuit_study& s, const std::vector<std::string>& cols,
                         std::initializer_list<const std::vector<float>*> values) {
    lesson_table t{caption, {}, cols, {}};
    const std::vector<int>& steps = s.timeline.steps;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        t.rows.push_back(std::to_string(steps[i]));
        std::vector<std::string> row;
        const bool pending = circuit_study_pending(s, int(i));
        for (const std::vector<float>* v : values)
            row.push_back(pending ? tr("pending", "待测") : i < v->size() ? number_text((*v)[i]) : "");
        t.cells.push_back(std::move(row));
    }
    return t;
}

void circuit_tables(const circuit_study& s, const circuit_maps& m, std::vector<lesson_table>& out) {
    const char* kinds[3] = {"Q", "K", "V"};
    for (int k = 0; k < 3; ++k)
        out.push_back(matrix_table(std::string(kinds[k]) + tr("-composition: layer-0 head (row) into layer-1 head (column)",
                                                              " 组合：第 0 层的头（行）进入第 1 层的头（列）"),
                                   m.comp[k], m.l0, m.l1));
    out.push_back(matrix_table(tr("Random weights of the same shapes (mean)", "同样形状的随机权重（均值）"), m.base, m.base_rows,
                               m.base_cols));
    out.push_back(curve_table(tr("The pair's K-composition at each kept snapshot", "这一对在每个快照上的 K 组合"), s, {"K"},
                              {&s.timeline.prev_ind_k}));
    if (!m.k_map.empty())
        out.push_back(matrix_table(tr("QK through the previous-token head: query token (row) × token before the key (column)",
                                      "经过前一词元头的 QK：查询词元（行）× 键前面的词元（列）"),
                                   m.k_map, m.symbols, m.symbols));
    if (!m.ov.empty())
        out.push_back(matrix_table(tr("The induction head's OV circuit: token attended to (row) × logit (column)",
                                      "归纳头的 OV 回路：被关注的词元（行）× logit（列）"),
                                   m.ov, m.symbols, m.symbols));
    if (!m.patch.empty())
        out.push_back(
            matrix_table(tr("Patching: recovery with the output of a head (column) at a position (row) from the clean text",
                            "修补：把一个头（列）在一个位置（行）的输出从干净文本补回后的恢复"),
                         m.patch, m.patch_rows, m.heads));
}

void context_tables(const circuit_study& s, const circuit_maps& m, std::vector<lesson_table>& out) {
    if (!m.pos_loss.empty())
        out.push_back(matrix_table(tr("Held-out loss of the next token: position (row) × step (column)",
                                      "下一个词元的留出集损失：位置（行）× 训练步（列）"),
                                   m.pos_loss, m.positions, m.snap_steps, &m.pos_pending));
    if (s.timeline.icl_problem.empty())
        out.push_back(curve_table(
            tr("Held-out loss at the repeat and at its first occurrence", "重复段与它第一次出现处的留出集损失"), s,
            {tr("repeat", "重复段"), tr("first occurrence", "第一次出现")}, {&s.timeline.loss, &s.timeline.first_loss}));
    if (s.timeline.icl_problem.empty())
        out.push_back(curve_table(tr("The in-context-learning score at each kept snapshot", "每个快照上的上下文学习得分"), s,
                                  {"ICL"}, {&s.timeline.icl}));
    if (s.timeline.markov_problem.empty())
        out.push_back(curve_table(tr("KL(predictor ‖ model) at each kept snapshot", "每个快照上的 KL(预测器 ‖ 模型)"), s,
                                  {tr("uniform", "均匀"), tr("unigram", "一元"), tr("bigram", "二元")},
                                  {&s.timeline.kl_uniform, &s.timeline.kl_unigram, &s.timeline.kl_bigram}));
}

}  // namespace

std::vector<lesson_table> circuit_lesson_tables(const app& a) {
    std::vector<lesson_table> out;
    const circuit_study* s = study_of(a);
    if (!s || (a.view.lesson.index != 10 && a.view.lesson.index != 11))
        return out;
    const circuit_maps& m = maps_of(a, *s);
    if (a.view.lesson.index == 10 && s->claims.applies)
        circuit_tables(*s, m, out);
    if (a.view.lesson.index == 11)
        context_tables(*s, m, out);
    return out;
}

std::vector<lesson_map> circuit_lesson_maps(const app& a) {
    std::vector<lesson_map> out;
    const circuit_study* s = study_of(a);
    if (!s || (a.view.lesson.index != 10 && a.view.lesson.index != 11))
        return out;
    const circuit_maps& m = maps_of(a, *s);
    // Its own range, as heatmap_draw finds it for a map without a fixed one.
    auto own = [&](std::string title, const matrix& x, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                   colormap map) {
        if (x.empty())
            return;
        const heatmap_range r = heatmap_range_compute(x, nullptr, map);
        out.push_back({std::move(title), &x, &rows, &cols, map, r.lo, r.hi});
    };
    if (a.view.lesson.index == 11) {
        if (!m.any_pending)  // a pending snapshot holds no number to colour (the table says "pending")
            own(tr("Held-out loss of the next token: position × step", "下一个词元的留出集损失：位置 × 训练步"), m.pos_loss,
                m.positions, m.snap_steps, colormap::sequential);
        return out;
    }
    if (!s->claims.applies)
        return out;
    const char* kinds[3] = {"Q", "K", "V"};
    for (int k = 0; k < 3; ++k)
        out.push_back(
            {std::string(kinds[k]) + tr("-composition: layer-0 head × layer-1 head", " 组合：第 0 层的头 × 第 1 层的头"),
             &m.comp[k], &m.l0, &m.l1, colormap::sequential, 0, m.comp_hi});
    out.push_back({tr("Random weights of the same shapes", "同样形状的随机权重"), &m.base, &m.base_rows, &m.base_cols,
                   colormap::sequential, 0, m.comp_hi});
    own(tr("QK through the previous-token head: query token × token before the key",
           "经过前一词元头的 QK：查询词元 × 键前面的词元"),
        m.k_map, m.symbols, m.symbols, colormap::diverging);
    own(tr("The induction head's OV circuit: token attended to × logit", "归纳头的 OV 回路：被关注的词元 × logit"), m.ov,
        m.symbols, m.symbols, colormap::diverging);
    if (!m.patch.empty())
        out.push_back({tr("Patching: recovery by position × head", "修补：按位置 × 头的恢复"), &m.patch, &m.patch_rows, &m.heads,
                       colormap::diverging, -1, 1});
    return out;
}

}  // namespace attn::ui
