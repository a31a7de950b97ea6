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

// Each lesson's page, in lesson order (L1 … L13): lesson_page_01 … from its own
// file, listed by the build from the files' names (cmake/lesson_pages.cmake).
#include "lesson_pages.inc"
static_assert(std::size(pages) == lesson_count, "one file lessons/lNN_*.cpp per row of play/lesson_preset.cpp");

namespace {

void lesson_list(const app& a, frame_out& out) {
    text_plain(out, tr("Lessons", "课程"));
    char chip[64];
    for (int i = 0; i < lesson_count; ++i) {
        const lesson_preset& l = *lesson_at(i);
        std::snprintf(chip, sizeof chip, "%s %s", l.id, tr(l.chip));
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
            ImGui::SetTooltip("%s", tr(l.title));
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
    if (i < 0 || i >= int(std::size(pages)) || !pages[std::size_t(i)]->claims)
        return {};
    return pages[std::size_t(i)]->claims(a);
}

void panel_lesson(const app& a, frame_out& out) {
    out.numbers.emplace();  // what this frame's view measures
    // Opening a lesson replaces the experiment: not in a read-only link; an embed
    // shows only the open lesson's card.
    if (!a.options.embed) {
        const experiment_controls controls(a);
        lesson_list(a, out);
    }
    if (a.view.lesson.index < 0)
        return;
    const lesson_preset& l = *lesson_at(a.view.lesson.index);
    // A plain group, not an auto-resizing child: a child sized from the previous
    // frame clips (and so ignores the mouse over) controls a lesson has just added.
    ImGui::Separator();
    ImGui::BeginGroup();
    ImGui::PushID("lesson");
    // The visible edge, from the group's left (where SameLine's offsets count from).
    const float left = ImGui::GetCursorScreenPos().x, right = visible_width();
    textf(out, "%s  %s", l.id, tr(l.title));
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
        ImGui::BeginDisabled(a.view.lesson.index + 1 >= lesson_count);
        if (chip_button(tr("next ▶", "下一课 ▶")))
            lesson_open(a, out, a.view.lesson.index + 1);
        mark_widget(out, "lesson_next");
        ImGui::EndDisabled();
    }
    const lesson_preset& shown = *lesson_at(a.view.lesson.index);  // previous/next may have just moved on from l
    text_plain(out, tr(shown.try_text));
    ImGui::Separator();
    pages[std::size_t(a.view.lesson.index)]->view(a, out);
    ImGui::PopID();
    ImGui::EndGroup();
    ImGui::Separator();
}

}  // namespace attn::ui
