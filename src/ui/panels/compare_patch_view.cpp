// "Patch from A" beside the A/B compare (play/compare_patch.hpp): for each head
// of B, B's pass with that head's output put back as A's, and how much of B's
// change from A that undoes, for every position at once ("all") and for each
// position alone. The core computes it a piece at a time; this file keeps it in
// the app's memo, works on it a slice of each frame that shows it, and draws it
// as one diverging map on −1…1 (cells not computed yet, or skipped at this size,
// hatched), with its words in both languages and its table for the text view.
//
// [SECTION] The memo
// [SECTION] Words
// [SECTION] The switch and the map
// [SECTION] The text view's table
#include <cstdio>
#include <string>
#include <vector>

#include "look/i18n.hpp"
#include "maps/heatmap_data.hpp"
#include "panels/panels.hpp"

namespace attn::ui {

namespace {

// Seconds of patched passes a frame: the map fills in while the page keeps drawing.
constexpr double patch_slice_seconds = 0.03;

bool patch_shown(const app& a) { return a.model.pin && a.view.compare_shown && a.view.compare_patch_shown; }

// [SECTION] Words

// Why there is no map, in the current language ("" when there is one).
std::string problem_words(const compare_patch_result& r) {
    return r.what == compare_problem::none
               ? ""
               : compare_problem_sentence(compare_counts_mismatch(r.what, r.a, r.b), compare_use::patching);
}

// "L0H0", "L0H1", … for L layers of h heads.
std::vector<std::string> head_labels(int L, int h) {
    std::vector<std::string> rows;
    for (int l = 0; l < L; ++l)
        for (int i = 0; i < h; ++i)
            rows.push_back("L" + std::to_string(l) + "H" + std::to_string(i));
    return rows;
}

// "all" and then the positions' tokens.
std::vector<std::string> position_labels(const std::vector<std::string>& tokens) {
    std::vector<std::string> cols = {tr("all", "全部")};
    cols.insert(cols.end(), tokens.begin(), tokens.end());
    return cols;
}

// The map's labels, rebuilt when the shape, the tokens or the language change.
struct patch_labels {
    std::vector<std::string> rows, cols;
    int L = -1, h = -1;
    std::vector<std::string> tokens;
    language lang = language::en;
};
const patch_labels& labels_of(const compare_patch_result& r, const std::vector<std::string>& tokens) {
    static patch_labels p;
    if (p.L != r.L || p.h != r.h || p.tokens != tokens || p.lang != ui_language()) {
        p.L = r.L;
        p.h = r.h;
        p.tokens = tokens;
        p.lang = ui_language();
        p.rows = head_labels(r.L, r.h);
        p.cols = position_labels(tokens);
    }
    return p;
}

const char* explanation() {
    return tr(
        "Each row is B with one head's output (weights·V, before W_O) put back as A's; each cell is how much of B's "
        "change from A that undoes: 1 − ‖y_patched − y_A‖ / ‖y_B − y_A‖ (1: all of it, 0: nothing, below 0: further "
        "from A). Column \"all\" patches every position, the others one position alone.",
        "每一行是把 B 的某个头的输出（注意力权重·V，W_O 之前）换回 A 的输出；每个格子是这样做抵消了 B 相对 A 的变化的多少："
        "1 − ‖y_patched − y_A‖ / ‖y_B − y_A‖（1：全部，0：没有，小于 0：离 A "
        "更远）。“全部”一列在每个位置都替换，其余各列只替换一个位置。");
}

// When A and B are two models (their weights differ), what a row can mean.
const char* other_weights_words() {
    return tr(
        "A and B are different models (their weights differ): each row puts an activation of A's model into B's "
        "pass, which B's later layers never saw in training. A high share says B's change from A runs through that "
        "head's output; it does not say the two heads compute the same thing.",
        "A 和 B 是两个不同的模型（权重不同）：每一行把 A 的模型的一个激活放进 B 的计算，而 B 后面的层在训练中从未见过它。"
        "比例高说明 B 相对 A 的变化经过这个头的输出；并不说明两个头计算的是同一件事。");
}

}  // namespace

// [SECTION] The memo

const compare_patch_result& app_compare_patch(const app& a) {
    version_cache<compare_patch_result>& memo = a.memo.compare_patch;
    memo.get(a.model.version, a.model.pin_version, [&a] { return session_compare_patch_begin(a.model); });
    if (!memo.value.complete())
        compare_patch_step(memo.value, a.model.pin_tr, a.model.exp, a.model.tr, patch_slice_seconds);
    return memo.value;
}

// [SECTION] The switch and the map

void compare_patch_switch(const app& a, frame_out& out) {
    if (!a.model.pin || !a.view.compare_shown)
        return;
    bool on = a.view.compare_patch_shown;
    if (ImGui::Checkbox(tr("patch from A", "从 A 修补"), &on))
        view_edit(a, out).compare_patch_shown = on;
    mark_widget(out, "compare_patch");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("For each head of B: put back A's output of that head and see how much of B's change from "
                                   "A goes with it.",
                                   "对 B 的每个头：换回 A 在这个头上的输出，看 B 相对 A 的变化有多少随之消失。"));
}

void compare_patch_view(const app& a, frame_out& out) {
    if (!patch_shown(a))
        return;
    const compare_patch_result& r = app_compare_patch(a);
    section_text(out, tr("Patch from A", "从 A 修补"));
    if (!r.problem.empty()) {
        text_plain(out, problem_words(r).c_str());
        mark_widget(out, "compare_patch_problem");
        return;
    }
    text_plain(out, explanation());
    if (r.other_weights) {
        text_plain(out, other_weights_words());
        mark_widget(out, "compare_patch_other_weights");
    }
    if (r.distance == 0)
        text_plain(out,
                   tr("B's output is A's: there is no change to explain (NaN).", "B 的输出与 A 相同：没有变化可解释（NaN）。"));
    if (r.position_from > 0)
        textf(out,
              tr("Layers before %d: only \"all\" (one position at a time costs too much at this size; hatched).",
                 "第 %d 层之前：只有“全部”（在这个规模下逐个位置计算太费时；画为斜线）。"),
              r.position_from);
    if (!r.complete())
        textf(out, "%s %d / %d", tr("computing…", "计算中…"), r.done, r.total);
    const patch_labels& labels = labels_of(r, a.model.tr.tokens);
    heatmap_options opt;
    opt.map = colormap::diverging;
    opt.fixed_range = true;
    opt.lo = -1.0f;
    opt.hi = 1.0f;
    opt.source = {&a.memo.compare_patch, (a.memo.compare_patch.made << 32) | std::uint64_t(r.done)};
    opt.row_labels = &labels.rows;
    opt.col_labels = &labels.cols;
    opt.masked_from = &r.pending;
    opt.hover_value = true;
    opt.axes = tr("↓ head of B patched from A   → all positions, or one", "↓ 从 A 修补的 B 的头   → 全部位置，或单个位置");
    const heatmap_result h = heatmap_draw(*a.heatmaps, "compare_patch_map", r.map, opt);
    out.widgets.push_back({"compare_patch_map", h.cells_x0, h.cells_y0, h.cells_x1, h.cells_y1, h.window});
    out.maps.push_back({"compare_patch_map", h.cells, h.labelled, opt.axes});
    ImGui::Separator();
}

// [SECTION] The text view's table

bool compare_patch_table(const app& a, text_table& t) {
    if (!patch_shown(a))
        return false;
    const compare_patch_result& r = app_compare_patch(a);
    t.caption = std::string(tr("Patch from A", "从 A 修补")) + ": ";
    if (!r.problem.empty()) {
        t.caption += problem_words(r);
        return true;
    }
    t.caption += explanation();
    if (r.other_weights)
        t.caption += std::string(" ") + other_weights_words();
    if (!r.complete()) {
        char buf[80];
        std::snprintf(buf, sizeof buf, " (%s %d / %d)", tr("computing…", "计算中…"), r.done, r.total);
        t.caption += buf;
    }
    const patch_labels& labels = labels_of(r, a.model.tr.tokens);
    // Past the text view's allowance for a map, the "all" column alone.
    const int cols = long(r.map.rows) * long(r.map.cols) > text_mirror_cell_limit ? 1 : r.map.cols;
    if (cols < r.map.cols)
        t.caption +=
            tr(" Only the column \"all\": the positions' are too many to list.", " 只列出“全部”一列：各位置的数值太多。");
    t.rows = labels.rows;
    t.cols.assign(labels.cols.begin(), labels.cols.begin() + cols);
    for (int k = 0; k < r.map.rows; ++k) {
        std::vector<std::string> row;
        for (int c = 0; c < cols; ++c)
            row.push_back(r.pending(k, c) == 0.0f ? text_mirror_cell(r.map(k, c), false) : "—");
        t.cells.push_back(std::move(row));
    }
    return true;
}

}  // namespace attn::ui
