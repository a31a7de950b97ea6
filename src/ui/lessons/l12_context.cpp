// L12, learning in context over training: the context measure (play/measure_context.hpp)
// over the study's snapshots, its claims and curves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "lessons/circuit_parts.hpp"
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

using namespace circuit_parts;
using namespace lesson_parts;

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

// L12's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_12{view_context, context_lesson_claims};

}  // namespace attn::ui
