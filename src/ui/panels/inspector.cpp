// [SECTION] inspector: the current stage's formula with the live values of a cell
// [SECTION] impact: the output before and after ablations and masked edges
// [SECTION] code: the article's numpy implementation, current lines lit
// [SECTION] help
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/text_util.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "model/rules.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"

namespace attn::ui {

namespace {

// "a·b + c·d + … = r" for a dot product over k terms, the first few written out.
std::string dot_terms(const float* a, int sa, const float* b, int sb, int k, float result) {
    std::string s;
    const int shown = std::min(k, 3);
    for (int i = 0; i < shown; ++i) {
        if (i)
            s += " + ";
        s += "(" + number_text(a[i * sa]) + ")·(" + number_text(b[i * sb]) + ")";
    }
    if (k > shown)
        s += " + … (" + std::to_string(k - shown) + tr(" more)", " 项)");
    return s + " = " + number_text(result);
}

// Q, K or V (i, c) as the sum that made it, and RoPE's turn for Q and K.
std::string projection_line(const app& a, const stage_matrix& sm, int i, int j, float v) {
    const char which = sm.label[0];
    if (which != 'Q' && which != 'K' && which != 'V')
        return {};
    const pipeline_shown p = app_pipeline(a);
    const trace& t = *p.tr;
    const layer_trace& lt = t.layers[std::size_t(p.layer)];
    if (std::size_t(p.layer) >= t.params.layers.size())
        return {};
    const layer_weights& lw = t.params.layers[std::size_t(p.layer)];
    const matrix& w = which == 'Q' ? lw.w_q : which == 'K' ? lw.w_k : lw.w_v;
    const matrix& before = which == 'Q' ? lt.q : which == 'K' ? lt.k : lt.v;
    std::string line = std::string(sm.label) + "(i,c) = Σ_k x(i,k)·W(k,c) = " +
                       dot_terms(lt.normed.row(i), 1, w.data.data() + j, w.cols, w.rows, before(i, j));
    if (p.real && a.real.model && std::size_t(p.layer) < a.real.model->model.layers.size() &&
        a.real.model->model.layers[std::size_t(p.layer)].bq.size)  // GPT-2's, Qwen2's: the pipeline draws no bias
        line += tr("\nwith its bias added (the sum's last term; the pipeline draws the weights alone)",
                   "\n再加上偏置（和的最后一项；流水线只画权重）");
    if (p.exp->pos == positional::rope && which != 'V')
        line += tr("\nthen rotated by RoPE for position ", "\n再按 RoPE 旋转，位置 ") + std::to_string(p.exp->pos_offset + i) +
                " → " + number_text(v);
    return line;
}

// The softmax of row i at key j, the row's sum and entropy, and what clicking does.
std::string weights_line(const app& a, const head_trace& ht, int i, int j, float v) {
    const auto& tokens = app_pipeline(a).tr->tokens;
    float mx = -INFINITY;
    for (int k = 0; k < ht.masked.cols; ++k)
        mx = std::max(mx, ht.masked(i, k));
    std::string line = "exp(" + number_text(ht.masked(i, j)) + " − " + number_text(mx) + ") / Σ = " + number_text(v);
    line += std::string("\n") + tr("row sum ", "行和 ") + number_text(ht.row_sums[std::size_t(i)]) + tr(",  entropy ", "，熵 ") +
            number_text(ht.row_entropies[std::size_t(i)]) + " nats";
    line += std::string("\n\"") + tokens[std::size_t(i)] + "\" " + tr("takes ", "从 \"") + number_text(v * 100.0f) +
            tr("% of its mix from \"", "% 的内容来自 \"") + tokens[std::size_t(j)] + "\"";
    line += tr("\nclick: mask this edge (click again to restore)", "\n点击：屏蔽这条边（再点恢复）");
    return line;
}

// The formula of the cell's stage with its live values (lines split by '\n'); empty
// for a stage without one.
std::string stage_line(const app& a, const cell_ref& c, const stage_matrix& sm, float v) {
    const pipeline_shown p = app_pipeline(a);
    const trace& t = *p.tr;
    const layer_trace& lt = t.layers[std::size_t(p.layer)];
    const head_trace& ht = lt.heads[std::size_t(c.head)];
    const int i = c.row, j = c.col, dk = experiment_d_k(*p.exp);
    switch (c.at) {
        case stage::embeddings:
            if (sm.label[0] == 'X' && !t.positions.empty())
                return "X = E + PE = " + number_text(t.params.embeddings(i, j)) + " + " + number_text(t.positions(i, j)) + " = " +
                       number_text(v);
            return {};
        case stage::projections:
            return projection_line(a, sm, i, j, v);
        case stage::scores:
            return "q_i·k_j = " + dot_terms(ht.q.row(i), 1, ht.k.row(j), 1, dk, v) + "\n\"" + t.tokens[std::size_t(i)] +
                   "\" → \"" + t.tokens[std::size_t(j)] + "\"";
        case stage::scaled:  // the scale the forward pass used, from the experiment (model/rules.hpp)
            return number_text(ht.scores(i, j)) + " × " + number_text(experiment_score_scale(*p.exp)) + " = " + number_text(v);
        case stage::masked:
            return std::isinf(v) && v < 0 ? tr("hidden: key j may not be seen from query i", "被屏蔽：查询 i 看不到键 j")
                                          : tr("visible: the scaled score passes through", "可见：缩放后的分数原样通过");
        case stage::weights:
            return weights_line(a, ht, i, j, v);
        case stage::weighted_sum:
            return "Σ_j P(i,j)·V(j,c) = " + dot_terms(ht.weights.row(i), 1, ht.v.data.data() + j, ht.v.cols, ht.v.rows, v);
        case stage::concat:
            return tr("from head ", "来自头 ") + std::to_string(j / dk) + tr(", column ", "，第 ") + std::to_string(j % dk) +
                   tr("", " 列");
        case stage::output_proj:
            if (sm.label[0] == 'A' && std::size_t(p.layer) < t.params.layers.size())
                return "Σ_k O(i,k)·W_O(k,c) = " + dot_terms(lt.concat.row(i), 1,
                                                            t.params.layers[std::size_t(p.layer)].w_o.data.data() + j,
                                                            p.exp->d_model, p.exp->d_model, v);
            return {};
        default:
            return {};
    }
}

std::vector<std::string> explanation_of(const app& a, const cell_ref& c) {
    std::vector<std::string> out;
    const pipeline_shown p = app_pipeline(a);
    if (c.head < 0 || c.head >= int(p.tr->layers[std::size_t(p.layer)].heads.size()))
        return out;  // a cell of another model's layer (the pipeline switched)
    const auto mats = stage_matrices(c.at, *p.tr, p.layer, c.head);
    if (c.matrix < 0 || c.matrix >= int(mats.size()))
        return out;
    const stage_matrix& sm = mats[std::size_t(c.matrix)];
    if (c.row >= sm.m->rows || c.col >= sm.m->cols)
        return out;
    const float v = (*sm.m)(c.row, c.col);
    if (stage_per_head(c.at))
        out.push_back(std::string(tr("head", "头")) + " " + std::to_string(c.head));
    out.push_back(std::string(sm.label) + "(" + std::to_string(c.row) + ", " + std::to_string(c.col) + ") = " + number_text(v));
    std::string line = stage_line(a, c, sm, v);
    if (c.at == stage::output && !p.real) {  // a trained model's prediction at this row, in words
        const std::string story = prediction_story(a.model.prediction, a.view.layer, c.row);
        line += (line.empty() || story.empty() ? "" : "\n") + story;
    }
    for (std::size_t at = 0; !line.empty() && at != std::string::npos;) {
        const std::size_t end = line.find('\n', at);
        out.push_back(line.substr(at, end == std::string::npos ? end : end - at));
        at = end == std::string::npos ? end : end + 1;
    }
    return out;
}

void explain_cell(const app& a, frame_out& out, const cell_ref& c) {
    const std::vector<std::string> lines = explanation_of(a, c);
    if (lines.empty())
        return;
    for (const std::string& line : lines)
        text_plain(out, line.c_str());
    const pipeline_shown p = app_pipeline(a);
    const auto mats = stage_matrices(c.at, *p.tr, p.layer, c.head);
    const stage_matrix& sm = mats[std::size_t(c.matrix)];
    const int i = c.row, j = c.col;
    const float v = (*sm.m)(i, j);

    if (sm.editable && !p.real && !a.options.readonly && c.at == a.view.selected.at && c.row == a.view.selected.row &&
        c.col == a.view.selected.col && c.matrix == a.view.selected.matrix) {
        // Editing a generated number: drag or type; it becomes an edit in the experiment.
        float x = v;
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
        if (ImGui::DragFloat(tr("edit value", "修改数值"), &x, 0.01f, -100.0f, 100.0f, "%.4f"))
            request_experiment(
                out, edit_value(a.model.exp, value_edit{sm.target, sm.target == edit_target::x ? 0 : a.view.layer, i, j, x}));
        mark_widget(out, "edit_value");
    }
}

}  // namespace

std::vector<std::string> cell_explanation(const app& a, const cell_ref& c) { return explanation_of(a, c); }

const intervention_effect& app_effect(const app& a) {
    return a.memo.effect.get(a.model.version, 0,
                             [&a] { return measure_intervention_effect(a.model.tr.output, a.model.baseline.output); });
}

// [SECTION] inspector

void panel_inspector(const app& a, frame_out& out) {
    section_text(out, tr("Inspector", "检查器"));
    const pipeline_shown p = app_pipeline(a);
    text_plain(out, p.real && a.real.model ? stage_formula_real(a.view.current, a.real.model->model.config)
                                           : stage_formula(a.view.current));
    const cell_ref& c = a.view.hovered.valid() ? a.view.hovered : a.view.selected;
    if (c.valid() && c.at == a.view.current)
        explain_cell(a, out, c);
    else if (const std::string story = a.view.current == stage::output && !p.real
                                           ? prediction_story(a.model.prediction, a.view.layer, a.view.sel_row)
                                           : std::string();
             !story.empty())
        text_plain(out, story.c_str());  // the selected row's prediction, until a cell is hovered or clicked
    else
        text_disabled(out, "%s",
                      tr("Hover or click a cell to see how it is computed.", "悬停或点击一个格子，查看它是怎么算出来的。"));
    const trace& t = *p.tr;
    if (t.nan_count || t.inf_count)
        text_colored(out, theme_nonfinite(), "%s: %d NaN, %d ±∞", tr("non-finite values", "非有限值"), t.nan_count, t.inf_count);
}

// [SECTION] impact

void panel_impact(const app& a, frame_out& out) {
    if (!a.model.has_baseline || app_pipeline(a).real)  // a real model's changes: the Model window's effect
        return;
    section_text(out, tr("Effect of the interventions", "干预的效果"));
    const intervention_effect& effect = app_effect(a);
    textf(out, "%s %.4g   %s %.1f%%", tr("max |Δy|", "最大 |Δy|"), effect.max_abs, tr("‖Δy‖/‖y‖", "‖Δy‖/‖y‖"),
          effect.relative * 100.0);
    mark_widget(out, "impact");
    if (a.model.ablated_task.valid) {  // a trained model: what the zeroed heads do to the task it learned
        const task_effect& t = a.model.ablated_task;
        text_colored(out, theme_bad(), "%s %.1f%% → %.1f%%   %s %.3f → %.3f", tr("on its task: accuracy", "对它的任务：准确率"),
                     double(t.base.acc) * 100.0, double(t.ablated.acc) * 100.0, tr("loss", "损失"), double(t.base.loss),
                     double(t.ablated.loss));
        mark_widget(out, "impact_task");
    }
    text_disabled(out, "%s", tr("Δy = output with the interventions − output without", "Δy = 有干预的输出 − 无干预的输出"));
    heatmap_options opt;
    opt.map = colormap::diverging;
    opt.source = heatmap_source_of(a.memo.effect);
    opt.row_labels = &a.model.tr.tokens;
    opt.axes = axes_tokens_by_dimensions();
    opt.cell = 0.0f;  // fit the width: the numbers show when they fit, else the map says to hover
    opt.hover_value = true;
    heatmap_draw(*a.heatmaps, "impact_diff", effect.diff, opt);
    note_clip(out, "impact_diff");
}

// [SECTION] code

void panel_code(const app& a, frame_out& out) {
    section_text(out, tr("The code (the article's numpy)", "代码（文章里的 numpy）"));
    const auto [lo, hi] = stage_code_lines(a.view.current);
    const auto& lines = numpy_code_lines();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int i = 0; i < int(lines.size()); ++i) {
        const bool lit = i >= lo && i <= hi;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->ChannelsSplit(2);  // the lit background under the line, as tall as the line wrapped
        dl->ChannelsSetCurrent(1);
        text_disabled(out, "%2d", i + 1);
        ImGui::SameLine();
        if (lit)
            text_plain(out, lines[std::size_t(i)]);
        else
            text_disabled(out, "%s", lines[std::size_t(i)]);
        if (lit && i == lo)
            mark_widget(out, "code_lit");
        dl->ChannelsSetCurrent(0);
        if (lit)
            dl->AddRectFilled(
                p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y),
                ImGui::GetColorU32(theme_lit_line()));
        dl->ChannelsMerge();
    }
    if (lo < 0)
        text_disabled(out, "%s", tr("(this stage is beyond the article's 30 lines)", "（这一步在文章的 30 行代码之外）"));
}

// [SECTION] help

void panel_help(const app& a, frame_out& out) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(vp->WorkSize.x * 0.9f, ImGui::GetFontSize() * 34.0f), 0));
    bool open = a.view.show_help;
    ImGui::Begin(tr("Help###help", "帮助###help"), &open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
    if (!open)  // its close button
        view_edit(a, out).show_help = false;
    text_plain(out, tr("Type a sentence, step through the stages, and change any setting: every number is recomputed at once. "
                       "The address bar always holds the whole experiment: copy it to share exactly what you see.",
                       "输入一句话，逐步查看各个阶段，改动任何设置：所有数字立即重算。地址栏始终保存完整的实验：复制它，"
                       "别人就能看到和你完全一样的东西。"));
    ImGui::Spacing();
    const char* keys[][3] = {
        {"← / →", "previous / next stage", "上一步 / 下一步"},
        {"↑ / ↓", "previous / next query token", "上一个 / 下一个查询词元"},
        {"Ctrl+Z", "undo", "撤销"},
        {"Ctrl+Shift+Z, Ctrl+Y", "redo", "重做"},
        {"H", "this help", "本帮助"},
        {"L", "English / 中文", "English / 中文"},
        {"Esc", "close help; end keyboard navigation", "关闭帮助；结束键盘导航"},
        {"Tab / Shift+Tab", "keyboard navigation: next / previous control", "键盘导航：下一个 / 上一个控件"},
        {"Space, Enter", "press the focused control; type into a slider", "按下当前控件；在滑块里输入数值"},
        {"Shift+Tab (outside navigation)", "leave the canvas for the text view button", "离开画布，到文本视图按钮"},
        {tr("on a map (Tab to it): arrows", "在热力图上（用 Tab 到达）：方向键"), "move the selected cell; the inspector follows",
         "移动选中的格子；检查器随之更新"},
        {"Home / End, Ctrl+Home / End", "first / last cell of the row; of the map", "本行的第一个 / 最后一个格子；整张图的"},
        {"PageUp / PageDown", "a page of rows up / down", "向上 / 向下翻一页行"},
        {tr("Enter, Space (on a map)", "Enter、空格（在热力图上）"), "press the cell, as a click does", "按下格子，与点击相同"},
        {tr("click a cell", "点击格子"), "inspect it; on softmax maps: mask that edge", "查看它；在 softmax 图上：屏蔽这条边"},
        {tr("zero (head header)", "置零（头标题）"), "ablate that head", "消融这个头"},
        {"Ctrl + wheel", "zoom a map", "缩放热力图"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        for (const auto& k : keys) {
            ImGui::TableNextColumn();
            text_plain(out, k[0]);
            ImGui::TableNextColumn();
            text_plain(out, tr(k[1], k[2]));
        }
        ImGui::EndTable();
    }
    mark_widget(out, "help_table");
    ImGui::End();
}

// [SECTION] start card

// What a first visit sees over the (dimmed) page: what this is, and three ways in.
// A modal: its close button, Escape or any of the three closes it for good.
void panel_start(const app& a, frame_out& out) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float font = ImGui::GetFontSize();
    if (!ImGui::IsPopupOpen("###start"))
        ImGui::OpenPopup("###start");
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(vp->WorkSize.x * 0.94f, font * 36.0f), 0));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->WorkSize.x, vp->WorkSize.y * 0.96f));
    bool open = true;
    if (!ImGui::BeginPopupModal(tr("Welcome###start", "欢迎###start"), &open,
                                ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove)) {
        view_edit(a, out).show_start = false;  // closed by its button
        return;
    }
    bool dismiss = ImGui::IsKeyPressed(ImGuiKey_Escape, false);
    text_plain(out, tr("Watch a transformer's attention compute, step by step, on a sentence you type. Every number "
                       "is live: change any setting or any weight and see every consequence at once.",
                       "在你输入的句子上，一步一步地看 Transformer 的注意力怎样计算。每个数字都是实时的："
                       "改动任何设置或任何权重，立刻看到它带来的全部变化。"));
    ImGui::Spacing();
    const float w = ImGui::GetContentRegionAvail().x;
    const int count = lesson_count;
    char guided[96], blurb[192];
    std::snprintf(guided, sizeof guided, tr("Guided path: lessons L1 → L%d", "循序渐进：课程 L1 → L%d"), count);
    std::snprintf(blurb, sizeof blurb,
                  tr("%d short lessons, each a live claim you can check and break.",
                     "%d 节短课，每一节都是一个可以亲手验证、也可以亲手打破的结论。"),
                  count);
    if (ImGui::Button(guided, ImVec2(w, 0))) {
        lesson_open(a, out, 0);
        dismiss = true;
    }
    mark_widget(out, "start_lessons");
    text_plain(out, blurb);
    ImGui::Spacing();
    if (ImGui::Button(tr("Explore freely, from the first stage", "自由探索，从第一步开始"), ImVec2(w, 0))) {
        view_edit(a, out).current = stage::embeddings;
        dismiss = true;
    }
    mark_widget(out, "start_explore");
    text_plain(out, tr("Tokens → X → Q, K, V → scores → softmax → output: ← / → step through; click any cell.",
                       "词元 → X → Q、K、V → 打分 → softmax → 输出：用 ← / → 逐步查看，点击任何格子。"));
    ImGui::Spacing();
    if (ImGui::Button(tr("Teaching? Embed it", "教学？嵌入你的页面"), ImVec2(w, 0))) {
        out.share.push_back(share_action::copy_embed);
        dismiss = true;
    }
    mark_widget(out, "start_embed");
    text_plain(out, tr("Copies an <iframe> of this exact view for a page or slides (Share has it too; the link holds "
                       "the whole experiment).",
                       "复制这个视图的 <iframe> 代码，用于网页或幻灯片（“分享”里也有；链接保存完整的实验）。"));
    mark_window(out, "start_card");
    if (dismiss) {
        view_edit(a, out).show_start = false;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

}  // namespace attn::ui
