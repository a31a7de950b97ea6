// [SECTION] exports
// [SECTION] top bar menu, embed bar, banner
#include "share.hpp"

#include <algorithm>
#include <cstdio>

#include "export.hpp"
#include "i18n.hpp"
#include "imgui.h"
#include "panels.hpp"
#include "trace_json.hpp"

namespace attn::ui {

// [SECTION] exports

namespace {

// Stable ASCII names (stage_name is translated).
const char* stage_slug(stage s) {
    static const char* names[stage_count] = {"embeddings",   "projections", "scores",      "scaled", "masked", "weights",
                                             "weighted_sum", "concat",      "output_proj", "block",  "output"};
    return names[int(s)];
}

}  // namespace

export_file share_export_csv(const app& a) {
    export_file f{std::string("attn-") + stage_slug(a.current) + ".csv", "text/csv", {}};
    const auto& tokens = a.model.tr.tokens;
    const int heads = stage_per_head(a.current) ? a.model.exp.heads : 1;
    for (int h = 0; h < heads; ++h) {
        for (const stage_matrix& sm : stage_matrices(a.current, a.model.tr, a.layer, h)) {
            if (!sm.m)
                continue;
            // The same labels the heatmap draws (pipeline.cpp).
            const bool token_rows = sm.m->rows == int(tokens.size()) && sm.target == edit_target::x && sm.label[0] != 'W';
            if (!f.bytes.empty())
                f.bytes += "\n";
            char title[64];
            std::snprintf(title, sizeof title, "# %s layer %d head %d: ", stage_slug(a.current), a.layer, h);
            f.bytes += title + std::string(sm.label) + "\n";
            f.bytes += matrix_to_csv(*sm.m, token_rows ? &tokens : nullptr, sm.token_cols ? &tokens : nullptr);
        }
    }
    return f;
}

export_file share_export_json(const app& a) {
    return {"attn-trace.json", "application/json", trace_to_json(a.model.exp, a.model.tr)};
}

std::string share_embed_link(const app& a) {
    link_view v = app_view(a);
    v.embed = true;
    return link_encode(a.model.exp, v);
}

std::string share_full_link(const app& a) {
    link_view v = app_view(a);
    v.embed = false;
    return link_encode(a.model.exp, v);
}

// [SECTION] top bar menu, embed bar, banner

float share_menu_width() {
    return ImGui::CalcTextSize(tr("Share", "分享")).x + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetStyle().ItemSpacing.x;
}

void share_menu(app& a) {
    if (ImGui::Button(tr("Share", "分享")))
        ImGui::OpenPopup("share_popup");
    mark_widget(a, "share");
    if (!ImGui::BeginPopup("share_popup"))
        return;
    auto item = [&a](const char* label, const char* name, share_action action) {
        if (ImGui::Selectable(label))
            a.requests.push_back(action);
        mark_widget(a, name);
    };
    item(tr("Copy link", "复制链接"), "share_copy_link", share_action::copy_link);
    item(tr("Copy embed code", "复制嵌入代码"), "share_copy_embed", share_action::copy_embed);
    ImGui::SeparatorText(tr("Export", "导出"));
    item(tr("This stage's matrices (CSV)", "这一步的矩阵（CSV）"), "share_export_csv", share_action::export_csv);
    item(tr("The whole trace (JSON)", "完整的计算过程（JSON）"), "share_export_json", share_action::export_json);
    item(tr("The picture (PNG)", "图片（PNG）"), "share_export_png", share_action::export_png);
    ImGui::EndPopup();
}

void embed_bar(app& a) {
    const char* label = tr("Open in the full playground ↗", "在完整的演练场中打开 ↗");
    const float w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    if (ImGui::SmallButton(label))
        a.requests.push_back(share_action::open_full);
    mark_widget(a, "open_full");
}

void banner(app& a) {
    if (a.errors.empty() && a.notice.empty())
        return;
    const bool error = !a.errors.empty();
    const float font = ImGui::GetFontSize();
    const int lines = error ? int(a.errors.size()) + 1 : 1;
    const float h = ImGui::GetTextLineHeightWithSpacing() * float(lines) + ImGui::GetStyle().WindowPadding.y * 2;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, error ? ImVec4(0.45f, 0.12f, 0.10f, 1.0f) : ImVec4(0.12f, 0.30f, 0.20f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.95f, 0.95f, 1.0f));  // the banner is dark in either theme
    ImGui::BeginChild("banner", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding);
    if (error) {
        ImGui::TextUnformatted(
            a.errors_from_link
                ? tr("This link could not be opened; showing the default experiment:", "无法打开这个链接，显示的是默认实验：")
                : tr("Change refused; the last good experiment stays:", "改动被拒绝，保留上一个有效的实验："));
        for (const auto& err : a.errors)
            ImGui::TextColored(ImVec4(1.0f, 0.80f, 0.72f, 1.0f), "  %s", err.c_str());
    } else {
        ImGui::TextUnformatted(a.notice.c_str());
    }
    ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - font * 1.6f, ImGui::GetStyle().WindowPadding.y));
    if (ImGui::SmallButton("×")) {
        a.errors.clear();
        a.notice.clear();
    }
    mark_widget(a, "banner_close");
    ImGui::EndChild();
    mark_widget(a, "banner");
    ImGui::PopStyleColor(2);
}

}  // namespace attn::ui
