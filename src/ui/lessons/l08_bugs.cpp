// L8, three classic bugs.
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

using namespace lesson_parts;

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

// L8's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_08{view_bugs, nullptr};

}  // namespace attn::ui
