// The lesson card: the list of lessons, the open lesson's title, what to try, previous and next,
// and its view and sentences from the table of lesson pages.
#include "lessons/lesson_views.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include "base/measure.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "imgui.h"
#include "lessons/lesson_parts.hpp"
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

namespace {

// Each lesson's page, in lesson order (L1 … L13): its view under the card (its own
// file, lessons/lNN_*.cpp) and the sentences it reads of the model it describes
// (none where the view words its own).
struct lesson_page {
    void (*view)(const app&, frame_out&);
    lesson_claims (*claims)(const app&);
};
constexpr lesson_page pages[] = {
    {view_lookup, nullptr},
    {view_sqrt_dk, nullptr},
    {view_subspaces, nullptr},
    {view_order, nullptr},
    {view_cost, nullptr},
    {view_code, nullptr},
    {view_not_explanations, nullptr},
    {view_bugs, nullptr},
    {view_formation, formation_claims},
    {view_shortcut, nullptr},
    {view_circuit, circuit_lesson_claims},
    {view_context, context_lesson_claims},
    {view_real_model, model_lesson_claims},
};
static_assert(std::size(pages) == lesson_count);

void lesson_list(const app& a, frame_out& out) {
    const auto& list = lessons();
    text_plain(out, tr("Lessons", "课程"));
    char chip[64];
    for (int i = 0; i < int(list.size()); ++i) {
        const lesson& l = list[std::size_t(i)];
        std::snprintf(chip, sizeof chip, "%s %s", l.id, tr(l.chip_en, l.chip_zh));
        // Chips wrap to the next line rather than run off the panel.
        const float w = ImGui::CalcTextSize(chip).x + ImGui::GetStyle().FramePadding.x * 2;
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < w)
            ImGui::NewLine();
        const bool on = a.view.lesson.index == i;
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (chip_button(chip))
            lesson_open(a, out, i);
        if (on)
            ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr(list[std::size_t(i)].title_en, list[std::size_t(i)].title_zh));
        mark_widget(out, (std::string("lesson") + std::to_string(i + 1)).c_str());
    }
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(tr("explore", "自由探索")).x + ImGui::GetFontSize())
        ImGui::NewLine();
    if (chip_button(tr("explore", "自由探索")))
        lesson_open(a, out, -1);
    mark_widget(out, "explore");
}

}  // namespace

lesson_claims lesson_claims_of(const app& a) {
    const int i = a.view.lesson.index;
    if (i < 0 || i >= int(std::size(pages)) || !pages[std::size_t(i)].claims)
        return {};
    return pages[std::size_t(i)].claims(a);
}

void panel_lesson(const app& a, frame_out& out) {
    out.numbers.emplace();  // what this frame's view measures
    const auto& list = lessons();
    // Opening a lesson replaces the experiment: not in a read-only link; an embed
    // shows only the open lesson's card.
    if (!a.options.embed) {
        const experiment_controls controls(a);
        lesson_list(a, out);
    }
    if (a.view.lesson.index < 0)
        return;
    const lesson& l = list[std::size_t(a.view.lesson.index)];
    // A plain group, not an auto-resizing child: a child sized from the previous
    // frame clips (and so ignores the mouse over) controls a lesson has just added.
    ImGui::Separator();
    ImGui::BeginGroup();
    ImGui::PushID("lesson");
    // The visible edge, from the group's left (where SameLine's offsets count from).
    const float left = ImGui::GetCursorScreenPos().x, right = visible_width();
    textf(out, "%s  %s", l.id, tr(l.title_en, l.title_zh));
    if (!a.options.embed) {
        const experiment_controls controls(a);
        // Previous and next at the right of the title, or under it when they do not fit beside it.
        const ImGuiStyle& st = ImGui::GetStyle();
        const float nav = ImGui::CalcTextSize(tr("◀ previous", "◀ 上一课")).x + ImGui::CalcTextSize(tr("next ▶", "下一课 ▶")).x +
                          st.FramePadding.x * 4 + st.ItemSpacing.x;
        if (ImGui::GetItemRectMax().x - left + st.ItemSpacing.x + nav <= right)
            ImGui::SameLine(right - nav);
        ImGui::BeginDisabled(a.view.lesson.index == 0);
        if (chip_button(tr("◀ previous", "◀ 上一课")))
            lesson_open(a, out, a.view.lesson.index - 1);
        mark_widget(out, "lesson_previous");
        ImGui::EndDisabled();
        ImGui::SameLine();
        ImGui::BeginDisabled(a.view.lesson.index + 1 >= int(list.size()));
        if (chip_button(tr("next ▶", "下一课 ▶")))
            lesson_open(a, out, a.view.lesson.index + 1);
        mark_widget(out, "lesson_next");
        ImGui::EndDisabled();
    }
    const lesson& shown = list[std::size_t(a.view.lesson.index)];  // previous/next may have just moved on from l
    text_plain(out, tr(shown.try_en, shown.try_zh));
    ImGui::Separator();
    pages[std::size_t(a.view.lesson.index)].view(a, out);
    ImGui::PopID();
    ImGui::EndGroup();
    ImGui::Separator();
}

}  // namespace attn::ui
