// L9, an induction head forms: its view and the claims it reads.
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

}  // namespace

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

// L9's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_09{view_formation, formation_claims};

}  // namespace attn::ui
