// L10, a shortcut, not a circuit.
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

}  // namespace

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

// L10's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_10{view_shortcut, nullptr};

}  // namespace attn::ui
