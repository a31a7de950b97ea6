// What L11 and L12 share (circuit_parts.hpp), and their maps and tables for the text
// view and the SVG export (lesson_parts.hpp: circuit_lesson_tables, circuit_lesson_maps).
#include "lessons/circuit_parts.hpp"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "lessons/lesson_parts.hpp"

#include "base/text_util.hpp"
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

using namespace circuit_parts;
using namespace lesson_parts;

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

}  // namespace

namespace circuit_parts {

using namespace lesson_parts;

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

}  // namespace circuit_parts

using namespace circuit_parts;

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

// A map with its own range, as heatmap_draw finds it for a map without a fixed one.
void own_range_map(std::vector<lesson_map>& out, std::string title, const matrix& x, const std::vector<std::string>& rows,
                   const std::vector<std::string>& cols, colormap map) {
    if (x.empty())
        return;
    const heatmap_range r = heatmap_range_compute(x, nullptr, map);
    out.push_back({std::move(title), &x, &rows, &cols, map, r.lo, r.hi});
}

void circuit_maps_list(const circuit_study&, const circuit_maps& m, std::vector<lesson_map>& out) {
    const char* kinds[3] = {"Q", "K", "V"};
    for (int k = 0; k < 3; ++k)
        out.push_back(
            {std::string(kinds[k]) + tr("-composition: layer-0 head × layer-1 head", " 组合：第 0 层的头 × 第 1 层的头"),
             &m.comp[k], &m.l0, &m.l1, colormap::sequential, 0, m.comp_hi});
    out.push_back({tr("Random weights of the same shapes", "同样形状的随机权重"), &m.base, &m.base_rows, &m.base_cols,
                   colormap::sequential, 0, m.comp_hi});
    own_range_map(out,
                  tr("QK through the previous-token head: query token × token before the key",
                     "经过前一词元头的 QK：查询词元 × 键前面的词元"),
                  m.k_map, m.symbols, m.symbols, colormap::diverging);
    own_range_map(out, tr("The induction head's OV circuit: token attended to × logit", "归纳头的 OV 回路：被关注的词元 × logit"),
                  m.ov, m.symbols, m.symbols, colormap::diverging);
    if (!m.patch.empty())
        out.push_back({tr("Patching: recovery by position × head", "修补：按位置 × 头的恢复"), &m.patch, &m.patch_rows, &m.heads,
                       colormap::diverging, -1, 1});
}

void context_maps_list(const circuit_study&, const circuit_maps& m, std::vector<lesson_map>& out) {
    if (!m.any_pending)  // a pending snapshot holds no number to colour (the table says "pending")
        own_range_map(out, tr("Held-out loss of the next token: position × step", "下一个词元的留出集损失：位置 × 训练步"),
                      m.pos_loss, m.positions, m.snap_steps, colormap::sequential);
}

// What the open lesson shows of the study: L11's (index 10) while its claims
// apply, L12's (index 11); nothing for another lesson or while the study does
// not describe the model shown.
template <class T>
std::vector<T> circuit_lesson_parts(const app& a, void (*circuit)(const circuit_study&, const circuit_maps&, std::vector<T>&),
                                    void (*context)(const circuit_study&, const circuit_maps&, std::vector<T>&)) {
    std::vector<T> out;
    const circuit_study* s = study_of(a);
    if (!s || (a.view.lesson.index != 10 && a.view.lesson.index != 11))
        return out;
    const circuit_maps& m = maps_of(a, *s);
    if (a.view.lesson.index == 10 && s->claims.applies)
        circuit(*s, m, out);
    if (a.view.lesson.index == 11)
        context(*s, m, out);
    return out;
}

}  // namespace

std::vector<lesson_table> circuit_lesson_tables(const app& a) { return circuit_lesson_parts(a, circuit_tables, context_tables); }

std::vector<lesson_map> circuit_lesson_maps(const app& a) {
    return circuit_lesson_parts(a, circuit_maps_list, context_maps_list);
}

}  // namespace attn::ui
