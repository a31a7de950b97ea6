// What the lessons' views share (lesson_parts.hpp).
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

}  // namespace lesson_parts

}  // namespace attn::ui
