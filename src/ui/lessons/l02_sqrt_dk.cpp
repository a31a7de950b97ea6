// L2, why scores are divided by √d_k.
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

void view_sqrt_dk(const app& a, frame_out& out) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
    int dk = a.view.lesson.dk;
    if (ImGui::SliderInt("d_k", &dk, 1, 1024, "%d", ImGuiSliderFlags_Logarithmic))
        lesson_wants(a, out).dk = dk;
    mark_slider(out, "l2_dk", "d_k");
    // Depends on d_k alone, not on the experiment.
    const sqrt_dk_measure& m = a.memo.lesson.sqrt_dk.get(0, std::uint64_t(dk), [dk] { return measure_sqrt_dk(dk); });
    const dot_stats& stats = m.stats;
    const std::vector<float> raw_counts(m.raw.counts.begin(), m.raw.counts.end());
    const std::vector<float> scaled_counts(m.scaled.counts.begin(), m.scaled.counts.end());
    const double ent_raw = m.entropy_raw, ent_scaled = m.entropy_scaled, jac_raw = m.jacobian_raw, jac_scaled = m.jacobian_scaled;
    const float w = ImGui::GetContentRegionAvail().x * 0.48f, hgt = ImGui::GetFontSize() * 5.0f;
    // One axis (±4√d_k) and one height scale for both, so the scaling is seen, not read.
    const float top = std::max(*std::max_element(raw_counts.begin(), raw_counts.end()),
                               *std::max_element(scaled_counts.begin(), scaled_counts.end()));
    char axis[64];
    std::snprintf(axis, sizeof axis, "−%.0f … 0 … +%.0f", 4.0 * std::sqrt(double(dk)), 4.0 * std::sqrt(double(dk)));
    char label[96];
    std::snprintf(label, sizeof label, "%s  std %.2f (√d_k = %.2f)", tr("q·k", "q·k"), stats.std_raw, std::sqrt(double(dk)));
    ImGui::BeginGroup();
    text_plain(out, label);
    ImGui::PlotHistogram("##raw", raw_counts.data(), int(raw_counts.size()), 0, nullptr, 0.0f, top, ImVec2(w, hgt));
    text_disabled(out, "%s", axis);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    std::snprintf(label, sizeof label, "%s  std %.2f", tr("q·k / √d_k", "q·k / √d_k"), stats.std_scaled);
    text_plain(out, label);
    ImGui::PlotHistogram("##scaled", scaled_counts.data(), int(scaled_counts.size()), 0, nullptr, 0.0f, top, ImVec2(w, hgt));
    text_disabled(out, "%s", axis);
    ImGui::EndGroup();
    mark_widget(out, "l2_hist");
    if (table_with_headers(
            "l2", {tr("softmax over 8 keys", "8 个键上的 softmax"), tr("not scaled", "不缩放"), tr("÷ √d_k", "÷ √d_k")})) {
        const char* rows[] = {tr("row entropy (max ln 8 = 2.08)", "行熵（最大 ln 8 = 2.08）"),
                              tr("‖Jacobian‖ (gradient size)", "‖雅可比‖（梯度大小）")};
        const double vals[2][2] = {{ent_raw, ent_scaled}, {jac_raw, jac_scaled}};
        for (int r = 0; r < 2; ++r) {
            ImGui::TableNextColumn();
            text_plain(out, rows[r]);
            ImGui::TableNextColumn();
            textf(out, "%.4f", vals[r][0]);
            ImGui::TableNextColumn();
            textf(out, "%.4f", vals[r][1]);
        }
        ImGui::EndTable();
    }
    number(out, "dk", dk);
    number(out, "std_raw", stats.std_raw);
    number(out, "std_scaled", stats.std_scaled);
    number(out, "entropy_raw", ent_raw);
    number(out, "entropy_scaled", ent_scaled);
    number(out, "jacobian_raw", jac_raw);
    number(out, "jacobian_scaled", jac_scaled);
}

// L2's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_02{view_sqrt_dk, nullptr};

}  // namespace attn::ui
