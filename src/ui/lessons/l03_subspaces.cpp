// L3, heads are subspaces.
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

void view_subspaces(const app& a, frame_out& out) {
    const int d = a.model.exp.d_model;
    const subspace_measure& m =
        a.memo.lesson.subspaces.get(a.model.version, 0, [&] { return measure_subspaces(a.model.exp, a.model.tr); });
    if (table_with_headers("l3", {tr("heads", "头数"), "d_k", tr("parameters", "参数量"), tr("matrix FLOPs", "矩阵 FLOPs")})) {
        for (const heads_cost& c : m.by_heads) {
            ImGui::TableNextColumn();
            textf(out, c.heads == a.model.exp.heads ? "%d  ←" : "%d", c.heads);
            ImGui::TableNextColumn();
            textf(out, "%d", c.d_k);
            ImGui::TableNextColumn();
            textf(out, "%lld", static_cast<long long>(c.params));
            ImGui::TableNextColumn();
            textf(out, "%lld", static_cast<long long>(c.flops_matmul));
        }
        ImGui::EndTable();
    }
    number(out, "params_1", double(m.one_head.params));
    number(out, "flops_1", double(m.one_head.flops_matmul));
    number(out, "params_h", double(m.this_many.params));
    number(out, "flops_h", double(m.this_many.flops_matmul));
    mark_widget(out, "l3_table");
    // The split on the real numbers: Q (n, d_model) → h blocks of d_k columns.
    text_plain(out, tr("Q (n, d_model) split by columns → (h, n, d_k):", "Q (n, d_model) 按列切分 → (h, n, d_k)："));
    const layer_trace& lt = a.model.tr.layers[0];
    heatmap_options opt;
    opt.map = colormap::diverging;
    opt.source = heatmap_source_of(a, a.model.tr);
    opt.row_labels = &a.model.tr.tokens;
    opt.axes = axes_tokens_by_dimensions();
    opt.show_values = false;
    opt.show_legend = false;
    opt.cell =
        std::clamp(ImGui::GetContentRegionAvail().x / float(2 * d + 8), ImGui::GetFontSize() * 0.4f, ImGui::GetFontSize() * 1.2f);
    heatmap_draw(*a.heatmaps, "l3_q", lt.q_rot, opt);
    note_clip(out, "l3_q");
    for (int h = 0; h < a.model.exp.heads; ++h) {
        if (h)
            ImGui::SameLine();
        ImGui::BeginGroup();
        textf(out, "Q_%d", h);
        char id[16];
        std::snprintf(id, sizeof id, "l3_q%d", h);
        heatmap_draw(*a.heatmaps, id, lt.heads[std::size_t(h)].q, opt);
        note_clip(out, id);
        ImGui::EndGroup();
    }
    if (m.specialised) {
        textf(out, "%s %.2f   %s %.2f", tr("head 0 → previous token:", "头 0 → 前一个词元："), m.prev_token_weight,
              tr("head 1 → itself:", "头 1 → 自己："), m.self_weight);
        number(out, "prev_token_weight", m.prev_token_weight);
        number(out, "self_weight", m.self_weight);
    }
}

// L3's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_03{view_subspaces, nullptr};

}  // namespace attn::ui
