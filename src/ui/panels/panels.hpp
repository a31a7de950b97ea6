// The panels app_draw lays out; each draws into the current ImGui child region.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imgui.h"
#include "maps/heatmap.hpp"
#include "view/app.hpp"
#include "view/widgets.hpp"

namespace attn::ui {

// Each panel reads the app and writes what it asks for into `out` (frame_out,
// app.hpp); app_draw applies it when the panel returns.
void panel_controls(const app& a, frame_out& out);  // controls.cpp: the experiment's settings

// A control's one line of help, shown on hover: keyed by its widget name (a
// radio button or a combo's item, "heads_4", has its row's: "heads"). Null for
// a name that is not a control's.
struct control_help {
    const char* name;
    const char* en;
    const char* zh;
};
const control_help* control_help_of(std::string_view name);
void panel_pipeline(const app& a, frame_out& out);  // pipeline.cpp: stage stepper and the stage's matrices
void panel_train(const app& a, frame_out& out);     // train_panel.cpp: a recipe's run, its curves and heads
// prediction_view.cpp: at the output stage of a trained recipe, the model's next-token
// prediction after the selected token and the logit lens (nothing otherwise).
void prediction_view(const app& a, frame_out& out);
// Who wrote most of the top token's logit after token t, in words (also the text view's).
std::string prediction_writer_text(const circuit_prediction& p, int t);
// The output stage's cell in row t of layer `layer`, in words: what the stream
// after that layer predicts (the logit lens) and, after the last layer, who wrote it
// ("After layer 1 (the output), “d” is 94.0 %: layer 1 · head 3 copied it from
// position 4 …"). Empty outside the prediction's shape.
std::string prediction_story(const circuit_prediction& p, int layer, int t);
// train_panel.cpp: one head's attention on the trainer's held-out probe row, its
// tokens labelling the rows and columns; where a lesson's claim about it is read.
void train_head_map(const app& a, frame_out& out, int layer, int head, const char* name);
void panel_inspector(const app& a, frame_out& out);  // inspector.cpp: the formula with the live values of a cell
void panel_impact(const app& a, frame_out& out);     // inspector.cpp: output before/after ablations and masked edges
void panel_code(const app& a, frame_out& out);       // inspector.cpp: the article's numpy code, current lines lit
void panel_help(const app& a, frame_out& out);       // inspector.cpp: keyboard shortcuts and how to use it
void panel_model(const app& a, frame_out& out);      // model_window.cpp: a real model opened from its files
// L5's KV-cache arithmetic on the open real model (a.real.model set): bytes a
// token adds (its K/V heads and MHA's), a whole context's, the last step's read;
// the first line is the widget `name`.
void real_cache_lines(const app& a, frame_out& out, const char* name);
// A real model's changes in words: "zeroed 0.3, 2.1 · masked 3 edge(s)" (the Model window, the text view).
std::string real_changes_text(const real_interventions& iv);
// What the Model window and the text view say when the embedding alone decides a
// model's predictions (real_model_reading::embedding_decides).
const char* real_embedding_decides_text();
void panel_start(const app& a, frame_out& out);  // inspector.cpp: the first visit's start card: three ways in

void share_menu(const app& a, frame_out& out);  // share.cpp: the top bar's Share menu (copy link / embed code, exports)
float share_menu_width();                       // its button's width, for right-aligning the top bar
void embed_bar(const app& a, frame_out& out);   // share.cpp: embed mode's only chrome, "Open in the full playground"
void banner(const app& a, frame_out& out);      // share.cpp: the errors under the top bar, with a close button
void toast(const app& a, frame_out& out);       // share.cpp: a notice over the bottom of the page, gone after a few seconds

// The inspector's lines for cell c of the current layer, built without ImGui:
// also what the text view reads out.
std::vector<std::string> cell_explanation(const app& a, const cell_ref& c);

// The interventions' effect on the output (measure_intervention_effect), by the
// experiment's version; meaningful when a.model.has_baseline.
const intervention_effect& app_effect(const app& a);

// The colour range the current stage's maps share (stage_shared_range), by the
// experiment's version, stage and layer; none when each map scales itself (the
// stage has no shared scale, or the person chose per-map scales).
std::optional<heatmap_range> app_shared_range(const app& a);

// The A/B compare of the current stage and layer (stage_compare), by the
// versions of B and the pinned A; meaningful while a.model.pin is set.
const compare_result& app_compare(const app& a);

// The compare's summary in words, in the current language: "max |B − A| 0.12
// ‖B − A‖/‖A‖ 3.4%", or why A and B cannot be compared.
std::string compare_summary_text(const compare_result& c);
// Why A and B cannot be compared or patched (the core's compare_problem_text), in
// the current language, closed with its stop.
std::string compare_problem_sentence(const compare_mismatch& m, compare_use use);

// compare_patch_view.cpp: "patch from A" (play/compare_patch.hpp) beside the
// compare: which of B's heads carry B's change from A. app_compare_patch is the
// memo by the versions of B and A, worked on a slice of each call (each frame
// that shows it) until complete; compare_patch_switch is its checkbox (on the
// compare's bar), compare_patch_view the map and its words under it, and
// compare_patch_table the map as the text view's table (false when not shown).
const compare_patch_result& app_compare_patch(const app& a);
void compare_patch_switch(const app& a, frame_out& out);
void compare_patch_view(const app& a, frame_out& out);
struct text_table {
    std::string caption;
    std::vector<std::string> rows, cols;
    std::vector<std::vector<std::string>> cells;
};
bool compare_patch_table(const app& a, text_table& t);

// Where a map's numbers come from (heatmap.hpp: heatmap_source), for its data
// key: the session's trace at its version (the pinned A's at A's), a memo's
// current value, the trainer's probe maps at its weights. A trace that is none
// of the session's gets no holder (its maps are keyed by their values).
heatmap_source heatmap_source_of(const app& a, const trace& t);
template <class T>
heatmap_source heatmap_source_of(const version_cache<T>& memo) {
    return {&memo, memo.made};
}
heatmap_source heatmap_source_of(const trainer& t);

}  // namespace attn::ui
