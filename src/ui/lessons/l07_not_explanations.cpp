// L7, attention weights are not explanations.
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

// L7's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_07{view_not_explanations, nullptr};

}  // namespace attn::ui
