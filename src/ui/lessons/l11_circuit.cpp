// L11, the circuit of L9's trained model: its claims (composition, patching, copying)
// and its views, every number the session's circuit study's (play/circuit_study.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "lessons/circuit_parts.hpp"
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

using namespace circuit_parts;

namespace {

using namespace lesson_parts;

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

// One of the induction head's maps over the symbols (rows and columns alike), on
// its own diverging range, under `title` (its two %d: the head's layer and index).
void symbol_map(const app& a, frame_out& out, const circuit_claims& c, const char* title, const char* name, const matrix& x,
                const std::vector<std::string>& symbols, const char* axes) {
    textf(out, title, c.induction.layer, c.induction.head);
    heatmap_options opt = small_map(a, 0, 0, colormap::diverging, 5);
    opt.fixed_range = false;
    opt.row_labels = opt.col_labels = &symbols;
    opt.axes = axes;
    report_map(out, name, heatmap_draw(*a.heatmaps, name, x, opt), opt.axes);
}

void weights_view(const app& a, frame_out& out, const circuit_study& s, const circuit_maps& m) {
    const circuit_claims& c = s.claims;
    section_text(out, tr("What the two heads do to tokens (weights only)", "两个头对词元做了什么（只看权重）"));
    if (!m.k_map.empty()) {
        symbol_map(a, out, c,
                   tr("QK through the previous-token head: layer %d · head %d's query token × the token before each key",
                      "经过前一词元头的 QK：第 %d 层 · 头 %d 的查询词元 × 每个键前面的那个词元"),
                   "l11_qk_map", m.k_map, m.symbols, tr("↓ query token   → token before the key", "↓ 查询词元   → 键前面的词元"));
        for (const circuit_k_map& k : s.weights.k_maps)
            if (k.layer_a == 0 && k.head_a == c.previous.head && k.layer_b == c.induction.layer && k.head_b == c.induction.head)
                textf(out,
                      tr("diagonal top-1: %.0f%% of the query tokens score the key after their own earlier copy highest",
                         "对角线 top-1：%.0f%% 的查询词元给“自己上一次出现之后的键”打分最高"),
                      double(k.top1) * 100.0);
    }
    if (!m.ov.empty())
        symbol_map(a, out, c,
                   tr("OV of layer %d · head %d: the token attended to × the logit its write raises",
                      "第 %d 层 · 头 %d 的 OV：被关注的词元 × 它的写入抬高的 logit"),
                   "l11_ov_map", m.ov, m.symbols, tr("↓ token attended to   → logit", "↓ 被关注的词元   → logit"));
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

// L11's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_11{view_circuit, circuit_lesson_claims};

}  // namespace attn::ui
