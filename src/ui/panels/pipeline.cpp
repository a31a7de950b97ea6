// The stage stepper and the current stage's matrices: per-head stages side by
// side, one map per head; a click selects a cell for the inspector, or (on the
// softmax maps) masks that edge; each head can be zeroed from its header.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"

namespace attn::ui {

namespace {

void stepper(const app& a, frame_out& out) {
    const experiment& e = *app_pipeline(a).exp;
    ImGui::BeginDisabled(int(a.view.current) == 0);
    if (ImGui::ArrowButton("prev", ImGuiDir_Left)) {
        int s = int(a.view.current) - 1;
        while (s > 0 && !stage_applies(stage(s), e))
            --s;
        view_edit(a, out).current = stage(s);
    }
    mark_widget(out, "prev");
    ImGui::EndDisabled();
    ImGui::SameLine();
    for (int s = 0; s < stage_count; ++s) {
        if (!stage_applies(stage(s), e))
            continue;
        ImGui::PushID(s);
        const bool on = a.view.current == stage(s);
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(stage_name(stage(s))))
            view_edit(a, out).current = stage(s);
        if (on)
            ImGui::PopStyleColor();
        char name[16];
        std::snprintf(name, sizeof name, "stage%d", s);
        mark_widget(out, name);
        ImGui::PopID();
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 8.0f)
            ImGui::NewLine();
    }
    ImGui::BeginDisabled(int(a.view.current) == stage_count - 1);
    if (ImGui::ArrowButton("next", ImGuiDir_Right)) {
        int s = int(a.view.current) + 1;
        while (s < stage_count - 1 && !stage_applies(stage(s), e))
            ++s;
        view_edit(a, out).current = stage(s);
    }
    mark_widget(out, "next");
    ImGui::EndDisabled();
}

// "0", "1", … — built once and grown as needed (not per frame).
const std::vector<std::string>& index_labels(int n) {
    static std::vector<std::string> labels;
    while (int(labels.size()) < n)
        labels.push_back(std::to_string(labels.size()));
    return labels;
}

// Whether head `head` of the shown layer is zeroed, as its "zero" box says: the
// experiment's trace, or a real model's changes (its maps are veiled once the
// changed pass they are drawn from has it zeroed).
bool head_zeroed(const app& a, const pipeline_shown& p, int head) {
    return p.real ? a.view.model.changes.zeroes(p.layer, head)
                  : p.tr->layers[std::size_t(p.layer)].heads[std::size_t(head)].ablated;
}

// A map is drawn at its full height, never in a scrolling area of its own inside the
// scrolling panel (the panel scrolls instead: a lesson's maps sit whole under its
// card), unless it is taller than two screens (thousands of tokens: then it scrolls
// in place, its labels sticking to its edges). An embed's frame takes the height
// its content asks for (attn:resize): its maps at full height always.
float map_max_height(const app& a, int rows, float cell) {
    const float tall = float(rows) * std::max(cell, ImGui::GetFontSize() * 0.6f) + ImGui::GetFontSize() * 12.0f;
    return a.options.embed || tall <= 2.0f * ImGui::GetIO().DisplaySize.y ? 1e6f : 0.0f;
}

void draw_matrix(const app& a, frame_out& out, const stage_matrix& sm, int index, int head, float cell,
                 const std::vector<std::string>& feature_rows) {
    const pipeline_shown p = app_pipeline(a);
    const auto& tokens = p.tr->tokens;
    const bool token_rows = stage_matrix_token_rows(sm, int(tokens.size()));
    heatmap_options opt;
    opt.map = sm.signed_values ? colormap::diverging : colormap::sequential;
    opt.source = heatmap_source_of(a, *p.tr);
    opt.cell = cell;
    opt.row_labels = token_rows ? &tokens : &feature_rows;
    opt.col_labels = sm.token_cols ? &tokens : &index_labels(sm.m->cols);
    opt.masked_from = sm.masked_from;
    opt.show_row_sums = sm.row_sums;
    opt.axes = stage_matrix_axes(sm, int(tokens.size()));
    opt.max_height = map_max_height(a, sm.m->rows, cell);
    if (!sm.signed_values) {
        opt.fixed_range = true;
        opt.lo = 0.0f;
        opt.hi = 1.0f;
    } else if (const auto shared = app_shared_range(a); shared && head >= 0 && stage_per_head(a.view.current)) {
        opt.fixed_range = true;
        opt.lo = shared->lo;
        opt.hi = shared->hi;
    }
    opt.veiled =
        head >= 0 && stage_per_head(a.view.current) && p.tr->layers[std::size_t(p.layer)].heads[std::size_t(head)].ablated;
    if (token_rows && !p.real)  // the selected token is the experiment's
        opt.highlight_row = a.view.sel_row;
    const cell_ref& focus = a.view.hovered.valid() ? a.view.hovered : a.view.selected;
    if (focus.valid() && focus.at == a.view.current && focus.matrix == index && focus.head == head)
        opt.highlight_col = focus.col;
    const cell_ref& sel = a.view.selected;
    if (sel.valid() && sel.at == a.view.current && sel.matrix == index && sel.head == head) {
        opt.cursor_row = sel.row;  // the keys move from the selected cell
        opt.cursor_col = sel.col;
    }

    char id[48];
    std::snprintf(id, sizeof id, "m%d_h%d_s%d", index, head, int(a.view.current));
    const heatmap_result r = heatmap_draw(*a.heatmaps, id, *sm.m, opt);
    note_clip(out, sm.label);  // the map with its legend and notes (one group)
    // The cells' rectangle, under a name tests can click into ("grid_head1", "grid_map0").
    char name[24];
    if (stage_per_head(a.view.current))
        std::snprintf(name, sizeof name, "grid_head%d", head);
    else
        std::snprintf(name, sizeof name, "grid_map%d", index);
    out.widgets.push_back({name, r.cells_x0, r.cells_y0, r.cells_x1, r.cells_y1, r.window});
    out.maps.push_back({name, r.cells, r.labelled, opt.axes});
    if (r.focused)
        out.keyboard_focus = name;
    // The selected row's and column's labels ("grid_head0_row"), for the contrast test.
    for (const auto& [rect, suffix] : {std::pair{r.highlight_row_label, "_row"}, std::pair{r.highlight_col_label, "_col"}})
        if (rect.x1 > rect.x0 && rect.y1 > rect.y0)
            out.widgets.push_back({std::string(name) + suffix, rect.x0, rect.y0, rect.x1, rect.y1, r.window});
    if (r.hovered_row >= 0)
        view_edit(a, out).hovered = cell_ref{a.view.current, index, head, r.hovered_row, r.hovered_col};
    // The keys moved the cursor: that cell is selected, as a click would (without pressing it).
    if (r.moved_row >= 0) {
        view_edit(a, out).selected = cell_ref{a.view.current, index, head, r.moved_row, r.moved_col};
        if (token_rows && !p.real)
            view_edit(a, out).sel_row = r.moved_row;
    }
    if (r.clicked_row >= 0) {
        view_edit(a, out).selected = cell_ref{a.view.current, index, head, r.clicked_row, r.clicked_col};
        if (token_rows && !p.real)
            view_edit(a, out).sel_row = r.clicked_row;
        // A click on a softmax cell masks (or unmasks) that one edge (a real model's
        // change is the Model window's: view.model.changes).
        const masked_edge edge{p.layer, head, r.clicked_row, r.clicked_col};
        if (a.view.current == stage::weights && !a.options.readonly && !p.real)
            request_experiment(out, edit_toggle_edge(a.model.exp, edge));
        else if (a.view.current == stage::weights && !a.options.readonly)
            view_edit(a, out).model.changes = real_toggle_edge(a.view.model.changes, edge);
    }
}

// The switch between one colour scale for the stage and one per map, shown on
// the stages that share one.
void scale_switch(const app& a, frame_out& out) {
    if (!stage_shares_scale(a.view.current))
        return;
    bool shared = !a.view.per_map_scale;
    if (ImGui::Checkbox(tr("one colour scale", "统一色标"), &shared))
        view_edit(a, out).per_map_scale = !shared;
    mark_widget(out, "shared_scale");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("On: every head, and Scores → Scaled → Masked, use one colour scale, so colours compare "
                                   "(scaling visibly fades them). Off: each map spans its own range.",
                                   "开：所有头，以及打分 → 缩放 → 掩码，用同一个色标，颜色可以直接比较（缩放后颜色明显变淡）。"
                                   "关：每张图用自己的范围。"));
}

// What the pipeline's memos are keyed by besides the experiment's version.
std::uint64_t stage_layer_key(const app& a) {
    return (std::uint64_t(a.view.current) << 16) | std::uint64_t(app_pipeline(a).layer);
}

// The cell edge at which the current stage's widest number fits.
float value_cell(const app& a) {
    const pipeline_shown p = app_pipeline(a);
    const int chars = a.memo.widest_value.get(p.version, stage_layer_key(a),
                                              [&a, &p] { return stage_widest_value_chars(a.view.current, *p.tr, p.layer); });
    return heatmap_value_cell(chars);
}

bool edge_in_head(const masked_edge& e, int layer, int head) { return e.layer == layer && e.head == head; }

// A head that was zeroed or had an edge masked says on its header what that did to
// the output (the interventions' effect: this head's alone when they are all on it).
// `zeroed`: the head itself is ablated (its trace says so).
void intervened_effect(const app& a, frame_out& out, int head, bool zeroed) {
    const experiment& x = a.model.exp;
    const intervention_effect& e = app_effect(a);
    const bool alone =
        x.ablate.size() == (zeroed ? 1u : 0u) &&
        std::all_of(x.edges.begin(), x.edges.end(), [&](const masked_edge& m) { return edge_in_head(m, a.view.layer, head); });
    text_colored(out, theme_bad(), "Δy %.3g (%.0f%%)%s", e.max_abs, e.relative * 100.0, alone ? "" : " *");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", !alone ? tr("* All interventions together change the output by max |Δy| (‖Δy‖/‖y‖ in brackets).",
                                            "* 全部干预一起使输出变化 max |Δy|（括号里是 ‖Δy‖/‖y‖）。")
                                : zeroed ? tr("Zeroing this head changes the output by max |Δy| (‖Δy‖/‖y‖ in brackets).",
                                              "把这个头置零使输出变化 max |Δy|（括号里是 ‖Δy‖/‖y‖）。")
                                         : tr("Masking this head's edges changes the output by max |Δy| (‖Δy‖/‖y‖ in brackets).",
                                              "屏蔽这个头的边使输出变化 max |Δy|（括号里是 ‖Δy‖/‖y‖）。"));
    char name[24];
    std::snprintf(name, sizeof name, "effect_head%d", head);
    mark_widget(out, name);
}

// One head's header ("head 1", its KV group, "zero") and its maps; a zeroed head's
// maps are dimmed and struck through (draw_matrix), since nothing of them reaches the output.
void draw_head(const app& a, frame_out& out, int hi, float cell, const std::vector<std::string>& feature_rows) {
    const pipeline_shown p = app_pipeline(a);
    ImGui::BeginGroup();
    ImGui::PushID(hi);
    const head_trace& ht = p.tr->layers[std::size_t(p.layer)].heads[std::size_t(hi)];
    textf(out, "%s %d", tr("head", "头"), hi);
    if (p.exp->kv_heads != p.exp->heads) {
        ImGui::SameLine();
        text_disabled(out, "(kv %d)", ht.kv_group);
    }
    ImGui::SameLine();
    bool zero = head_zeroed(a, p, hi);
    ImGui::BeginDisabled(a.options.readonly);
    const bool zero_clicked = ImGui::Checkbox(tr("zero", "置零"), &zero);
    ImGui::EndDisabled();
    if (zero_clicked && p.real)
        view_edit(a, out).model.changes = real_toggle_head(a.view.model.changes, ablated_head{p.layer, hi});
    else if (zero_clicked)
        request_experiment(out, edit_toggle_ablation(a.model.exp, ablated_head{p.layer, hi}));
    char name[24];
    std::snprintf(name, sizeof name, "zero_head%d", hi);
    mark_widget(out, name);
    const auto& edges = p.real ? a.view.model.changes.edges : a.model.exp.edges;
    const bool edge_masked =
        std::any_of(edges.begin(), edges.end(), [&](const masked_edge& m) { return edge_in_head(m, p.layer, hi); });
    if (!p.real && (ht.ablated || edge_masked) && a.model.has_baseline) {  // on the header's line: the maps stay aligned
        ImGui::SameLine();
        intervened_effect(a, out, hi, ht.ablated);
    }
    const auto mats = stage_matrices(a.view.current, *p.tr, p.layer, hi);
    for (std::size_t k = 0; k < mats.size(); ++k) {
        draw_matrix(a, out, mats[k], int(k), hi, cell, feature_rows);
        std::snprintf(name, sizeof name, "map_head%d", hi);
        mark_widget(out, name);
    }
    ImGui::PopID();
    ImGui::EndGroup();
}

// [SECTION] A/B compare

// A pinned recipe trains (after B, beside it) to A's own step: its progress, and
// Pause A / Train A, which change A's `trained=` (an undo step, in the link).
void pin_training(const app& a, frame_out& out) {
    const trainer& t = a.model.pin_train;
    if (!t.run || a.options.readonly)
        return;
    const experiment& pin = *a.model.pin;
    const int step = trainer_step(t), steps = pin.train.steps;
    const bool running = trainer_training(t);
    if (!running && (step >= steps || trainer_stopped(t)))
        return;  // trained through, or stopped: nothing to pause or go on with
    experiment next = pin;
    next.train.trained = running ? step : train_settings::trained_all;
    char label[96];
    std::snprintf(label, sizeof label, "%s (%s %d / %d)###pin_run", running ? tr("Pause A", "暂停 A") : tr("Train A", "训练 A"),
                  tr("step", "步"), step, steps);
    if (ImGui::Button(label))
        out.request = running ? change::paused(change::pin(std::move(next))) : change::pin(std::move(next));
    mark_widget(out, running ? "pin_pause" : "pin_train");
}

// "Pin as A", or "Unpin A" with the Compare switch and the summary in words.
void pin_bar(const app& a, frame_out& out) {
    ImGui::BeginDisabled(a.options.readonly);
    if (!a.model.pin) {
        if (ImGui::Button(tr("Pin as A", "固定为 A")))
            out.request = change::pin(a.model.exp);
        mark_widget(out, "pin");
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", tr("Keep this experiment as A: after any change, Compare shows A, B (now) and B − A.",
                                       "把当前实验固定为 A：之后无论怎么改，“对比”都会并排显示 A、B（当前）和 B − A。"));
        ImGui::EndDisabled();
        return;
    }
    if (ImGui::Button(tr("Unpin A", "取消固定 A")))
        out.request = change::unpin();
    mark_widget(out, "unpin");
    ImGui::EndDisabled();
    ImGui::SameLine();
    bool shown = a.view.compare_shown;
    if (ImGui::Checkbox(tr("Compare A | B | B − A", "对比 A | B | B − A"), &shown))
        view_edit(a, out).compare_shown = shown;
    mark_widget(out, "compare");
    if (a.view.compare_shown) {
        ImGui::SameLine();
        compare_patch_switch(a, out);
    }
    text_plain(out, compare_summary_text(app_compare(a)).c_str());
    mark_widget(out, "compare_summary");
    pin_training(a, out);
}

// The colours of one compare map: A and B on one range, every B − A of the stage on
// one range diverging around 0.
heatmap_options compare_options(const app& a, const stage_matrix& sm, bool diff, double top, float cell) {
    heatmap_options opt;
    opt.map = diff || sm.signed_values ? colormap::diverging : colormap::sequential;
    opt.cell = cell;
    opt.masked_from = sm.masked_from;
    opt.fixed_range = true;
    const float t = std::isfinite(top) && top > 0 ? float(top) : 1.0f;
    if (!diff && !sm.signed_values) {
        opt.lo = 0.0f;
        opt.hi = 1.0f;
    } else {
        opt.lo = -t;
        opt.hi = t;
    }
    opt.max_height = map_max_height(a, sm.m->rows, cell);
    return opt;
}

// One map of the stage three times: A, B and B − A side by side.
void compare_row(const app& a, frame_out& out, const stage_matrix (&m)[2], const intervention_effect& d, int index, float cell,
                 float width) {
    const compare_result& c = app_compare(a);
    const trace* traces[2] = {&a.model.pin_tr, &a.model.tr};
    const char* titles[3] = {"A", "B", "B − A"};
    const std::vector<std::string>& features = index_labels(std::max(m[1].m->rows, m[1].m->cols));
    for (int k = 0; k < 3; ++k) {
        const stage_matrix& sm = m[k == 0 ? 0 : 1];
        const trace& t = *traces[k == 0 ? 0 : 1];
        heatmap_options opt = compare_options(a, sm, k == 2, k == 2 ? c.max_abs : c.top, cell);
        // A's maps from A's trace, B's from B's, B − A from the compare's memo.
        opt.source = k == 2 ? heatmap_source_of(a.memo.compare) : heatmap_source_of(a, t);
        opt.hover_value = true;  // the inspector explains B's cells only: the tooltip says every map's value
        if (k == 2)              // a cell masked in both differs by 0 and is drawn so; the legend stays narrow
            opt.masked_from = nullptr;
        opt.row_labels = stage_matrix_token_rows(sm, int(t.tokens.size())) ? &t.tokens : &features;
        opt.col_labels = sm.token_cols ? &t.tokens : &features;
        opt.axes = stage_matrix_axes(sm, int(t.tokens.size()));
        if (k > 0)  // side by side while the next map fits the visible width, else below
            same_line_if_fits(ImGui::GetItemRectSize().x);
        ImGui::BeginGroup();
        // Its words wrap within its third of the row, so the three fit side by side.
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        text_plain(out, titles[k]);
        char id[40], name[24];
        std::snprintf(id, sizeof id, "cmp%d_m%d_s%d", k, index, int(a.view.current));
        const heatmap_result r = heatmap_draw(*a.heatmaps, id, k == 2 ? d.diff : *sm.m, opt);
        std::snprintf(name, sizeof name, "cmp_%c%d", "abd"[k], index);
        out.widgets.push_back({name, r.cells_x0, r.cells_y0, r.cells_x1, r.cells_y1, r.window});
        out.maps.push_back({name, r.cells, r.labelled, opt.axes});
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
    }
}

// At a stage of each head's maps: which head the compare shows ("all", 0, 1, …),
// so that a head far down the list (the induction head) is one click away.
void compare_head_picker(const app& a, frame_out& out, int heads) {
    text_plain(out, tr("head:", "头："));
    const int shown = a.view.compare_head < heads ? a.view.compare_head : -1;
    for (int hi = -1; hi < heads; ++hi) {
        ImGui::SameLine();
        char label[32], name[32];
        std::snprintf(label, sizeof label, "%s##cmp_head%d", hi < 0 ? tr("all", "全部") : std::to_string(hi).c_str(), hi);
        if (ImGui::RadioButton(label, shown == hi))
            view_edit(a, out).compare_head = hi;
        std::snprintf(name, sizeof name, "compare_head_%s", hi < 0 ? "all" : std::to_string(hi).c_str());
        mark_widget(out, name);
    }
}

// The current stage as A | B | B − A, each map of the head picked (or of each
// head) on its own row.
void compare_maps(const app& a, frame_out& out) {
    const compare_result& c = app_compare(a);
    if (c.mismatch.what != compare_mismatch::kind::none)
        return;
    const float font = ImGui::GetFontSize();
    const float third = (visible_width() - ImGui::GetStyle().ItemSpacing.x * 2) / 3.0f;
    const int heads = stage_per_head(a.view.current) ? a.model.exp.heads : 1;
    if (heads > 1)
        compare_head_picker(a, out, heads);
    const int picked = a.view.compare_head < heads ? a.view.compare_head : -1;
    std::size_t index = 0;
    for (int hi = 0; hi < heads; ++hi) {
        const auto ma = stage_matrices(a.view.current, a.model.pin_tr, a.view.layer, hi);
        const auto mb = stage_matrices(a.view.current, a.model.tr, a.view.layer, hi);
        if (picked >= 0 && hi != picked) {  // the maps of the heads not shown keep their places in c.maps
            index += std::min(ma.size(), mb.size());
            continue;
        }
        for (std::size_t k = 0; k < mb.size() && k < ma.size() && index < c.maps.size(); ++k, ++index) {
            if (stage_per_head(a.view.current))
                textf(out, "%s %d · %s", tr("head", "头"), hi, mb[k].label);
            else
                text_plain(out, mb[k].label);
            const float cell =
                std::clamp((third - font * 4.0f) / float(mb[k].m->cols), font * 0.6f, std::max(font * 2.4f, value_cell(a)));
            const stage_matrix pair[2] = {ma[k], mb[k]};
            compare_row(a, out, pair, c.maps[index], int(index), cell, third);
        }
    }
}

}  // namespace

pipeline_shown app_pipeline(const app& a) {
    pipeline_shown p;
    const real_session& r = a.real;
    // The changed pass (its layer whole) or the reading's layer made whole (real_session_pipeline).
    const trace* real = a.view.model.pipeline && r.model ? real_session_pipeline(r, app_model_wants(a)) : nullptr;
    if (real) {
        const bool changed = real == &r.effect.tr;
        p.tr = real, p.exp = &r.exp, p.layer = a.view.model.layer, p.real = true;
        p.version = (std::uint64_t(1) << 63) | (changed ? (std::uint64_t(1) << 62) | r.effect_made : r.pipeline_made);
    } else
        p.tr = &a.model.tr, p.exp = &a.model.exp, p.layer = a.view.layer, p.version = a.model.version;
    return p;
}

heatmap_source heatmap_source_of(const app& a, const trace& t) {
    if (&t == &a.real.reading.tr)
        return {&t, a.real.pipeline_made};
    if (&t == &a.real.effect.tr)
        return {&t, a.real.effect_made};
    if (&t == &a.model.pin_tr)
        return {&t, a.model.pin_version};
    if (&t == &a.model.tr || &t == &a.model.baseline)
        return {&t, a.model.version};
    return {};
}

heatmap_source heatmap_source_of(const trainer& t) { return {&t.probe, t.weights_version}; }

const compare_result& app_compare(const app& a) {
    static const compare_result none;
    if (!a.model.pin)
        return none;
    // The experiment's compare (never the real model's): its own stage and layer in the key.
    const std::uint64_t key = (a.model.pin_version << 24) | (std::uint64_t(a.view.current) << 16) | std::uint64_t(a.view.layer);
    return a.memo.compare.get(a.model.version, key, [&a] {
        compare_result pending;  // A part-way through its run: no B − A yet
        pending.mismatch = session_pin_pending(a.model);
        return pending.mismatch.what != compare_mismatch::kind::none
                   ? pending
                   : stage_compare(a.view.current, *a.model.pin, a.model.pin_tr, a.model.tr, a.view.layer);
    });
}

std::string compare_problem_sentence(const compare_mismatch& m, compare_use use) {
    std::string s = compare_problem_text(m, use, ui_language()) + tr(".", "。");
    glyphs_require(s);
    return s;
}

std::string compare_summary_text(const compare_result& c) {
    if (c.mismatch.what != compare_problem::none)
        return compare_problem_sentence(c.mismatch, compare_use::compare);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s %.4g   %s %.2f%%", tr("max |B − A|", "最大 |B − A|"), c.max_abs,
                  tr("‖B − A‖/‖A‖", "‖B − A‖/‖A‖"), c.relative * 100.0);
    return buf;
}

std::optional<heatmap_range> app_shared_range(const app& a) {
    if (a.view.per_map_scale)
        return std::nullopt;
    const pipeline_shown p = app_pipeline(a);
    return a.memo.shared_range.get(p.version, stage_layer_key(a),
                                   [&a, &p] { return stage_shared_range(a.view.current, *p.tr, p.layer); });
}

namespace {

// While the pipeline shows a real model: which, the layer, and the way back.
void real_banner(const app& a, frame_out& out) {
    if (a.view.scroll_to_pipeline) {  // opened from a lesson's card above: the pipeline comes into view
        ImGui::SetScrollHereY(0.0f);
        view_edit(a, out).scroll_to_pipeline = false;
    }
    const llama_config& c = a.real.model->model.config;
    ImGui::PushTextWrapPos(0.0f);
    textf(out,
          tr("The pipeline shows the model %s on its text: layer %d of %d, %d heads (%s: the stages are its own numbers).",
             "流水线显示模型 %s 在它的文字上：第 %d 层（共 %d 层），%d 个头（%s：各阶段都是它自己的数）。"),
          a.real.model->name.c_str(), a.view.model.layer, c.n_layers, c.n_heads, real_block_words(c));
    mark_widget(out, "pipeline_model");
    const real_interventions& iv = a.view.model.changes;
    if (!iv.empty()) {  // what is drawn: the changed pass once it ran
        const real_wants w = app_model_wants(a);
        const std::vector<std::string> problems = real_session_problems(a.real, w);
        if (!problems.empty())
            text_colored(out, theme_bad(), "%s (%s)", problems.front().c_str(),
                         tr("nothing runs until the changes are cleared: Model window", "清除改动之前不会运行：见模型窗口"));
        else if (!real_session_effect_current(a.real, w))
            text_disabled(out, "%s", tr("Running the model with the changes…", "正在带着这些改动运行模型…"));
        else
            textf(out,
                  tr("Changed: %s. The maps are the changed pass; the next token moves by KL %.3g nats (Model window).",
                     "已改动：%s。这些图是改动后的计算；下一个词元的 KL 变化为 %.3g nats（见模型窗口）。"),
                  real_changes_text(iv).c_str(), double(a.real.effect.kl));
        mark_widget(out, "pipeline_model_changes");
    }
    ImGui::PopTextWrapPos();
    if (chip_button(tr("Back to the experiment", "回到实验"))) {
        view_state& v = view_edit(a, out);
        v.model.pipeline = false;
        v.selected = v.hovered = cell_ref{};  // the model's cells
    }
    mark_widget(out, "pipeline_model_back");
    ImGui::SameLine();
    if (chip_button(tr("Model window", "模型窗口")))
        view_edit(a, out).model.open = true;
    mark_widget(out, "pipeline_model_window");
}

// The layer slider: the experiment's, or the real model's (its selected head's layer).
void layer_slider(const app& a, frame_out& out, const pipeline_shown& p) {
    if (p.exp->layers <= 1)
        return;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    int layer = p.layer;
    if (ImGui::SliderInt(tr("layer", "层"), &layer, 0, p.exp->layers - 1)) {
        view_state& v = view_edit(a, out);
        (p.real ? v.model.layer : v.layer) = layer;
        v.selected = v.hovered = cell_ref{};  // a cell of another layer
    }
    mark_slider(out, "layer", tr("layer", "层"));
}

}  // namespace

void panel_pipeline(const app& a, frame_out& out) {
    const pipeline_shown p = app_pipeline(a);
    if (p.real)
        real_banner(a, out);
    if (!a.options.hides(view_panel::stepper))
        stepper(a, out);
    layer_slider(a, out, p);
    text_plain(out, stage_explain(a.view.current));
    text_disabled(
        out, "%s",
        p.real && a.real.model ? stage_formula_real(a.view.current, a.real.model->model.config) : stage_formula(a.view.current));
    scale_switch(a, out);
    if (!p.real)
        pin_bar(a, out);
    ImGui::Separator();
    if (!p.real && a.model.pin && a.view.compare_shown) {
        compare_patch_view(a, out);
        compare_maps(a, out);
        return;
    }

    const int n = int(p.tr->tokens.size());
    const int h = p.exp->heads;
    const float font = ImGui::GetFontSize();
    const float avail = ImGui::GetContentRegionAvail().x;
    view_edit(a, out).hovered = cell_ref{};  // unless a map says otherwise below
    const int features = std::max({experiment_ffn_width(*p.exp), n, p.real ? a.real.model->model.config.hidden_dim : 0});
    const std::vector<std::string>& feature_rows = index_labels(features);

    if (stage_per_head(a.view.current)) {
        // Heads side by side, each map sized so that all fit when they can.
        const int cols = a.view.current == stage::weighted_sum ? experiment_d_k(*p.exp) : n;
        // Room per head beside its grid: row labels, the row sums of softmax maps.
        const float extra = font * (a.view.current == stage::weights ? 9.0f : 6.0f);
        // As many heads per row as fit with cells that hold their numbers; the rest wrap.
        const float need = value_cell(a);
        const int per_row = std::clamp(int(avail / (extra + need * float(cols))), 1, h);
        const float per_head = avail / float(per_row) - extra;
        const float cell = std::clamp(per_head / float(cols), font * 0.6f, std::max(font * 2.6f, need));
        for (int hi = 0; hi < h; ++hi) {
            if (hi % per_row != 0)
                ImGui::SameLine();
            draw_head(a, out, hi, cell, feature_rows);
        }
        return;
    }

    const auto mats = stage_matrices(a.view.current, *p.tr, p.layer, 0);
    // Two columns when the stage shows several matrices (W_q beside W_k, …) and
    // their numbers still fit; else one below the other.
    int widest_cols = 1;
    for (const stage_matrix& sm : mats)
        widest_cols = std::max(widest_cols, sm.m->cols);
    const float half = avail * 0.5f - ImGui::GetStyle().ItemSpacing.x;
    const bool two = mats.size() > 1 && (half - font * 4.0f) / float(widest_cols) >= value_cell(a);
    const float column = two ? half : avail;
    for (std::size_t k = 0; k < mats.size(); ++k) {
        const stage_matrix& sm = mats[k];
        const float cell =
            std::clamp((column - font * 4.0f) / float(sm.m->cols), font * 0.6f, std::max(font * 2.4f, value_cell(a)));
        const bool editable = sm.editable && !p.real;  // a real model's weights are its file's
        ImGui::BeginGroup();
        textf(out, "%s  (%d × %d)%s", sm.label, sm.m->rows, sm.m->cols, editable ? "  ✎" : "");
        if (editable && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("Editable: click a cell, then drag or type its value in the inspector.",
                                       "可编辑：点击格子，然后在检查器里拖动或输入它的值。"));
        draw_matrix(a, out, sm, int(k), 0, cell, feature_rows);
        char name[24];
        std::snprintf(name, sizeof name, "map%zu", k);
        mark_widget(out, name);
        ImGui::EndGroup();
        if (two && k % 2 == 0 && k + 1 < mats.size() && ImGui::GetItemRectSize().x * 2 <= avail)
            ImGui::SameLine();
    }
    if (a.view.current == stage::output && !p.real)
        prediction_view(a, out);
}

}  // namespace attn::ui
