// L1, attention as a soft lookup.
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

// L1's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_01{view_lookup, nullptr};

}  // namespace attn::ui
