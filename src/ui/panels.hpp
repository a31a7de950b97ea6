// The panels app_draw lays out; each draws into the current ImGui child region.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app.hpp"

namespace attn::ui {

// controls.cpp: the experiment's settings. Returns the experiment a control
// asks for this frame (the caller queues it with apply), or nothing.
std::optional<experiment> panel_controls(app& a);
void panel_pipeline(app& a);   // pipeline.cpp: stage stepper and the stage's matrices
void panel_inspector(app& a);  // inspector.cpp: the formula with the live values of a cell
void panel_impact(app& a);     // inspector.cpp: output before/after ablations and masked edges
void panel_code(app& a);       // inspector.cpp: the article's numpy code, current lines lit
void panel_help(app& a);       // inspector.cpp: keyboard shortcuts and how to use it

void share_menu(app& a);   // share.cpp: the top bar's Share menu (copy link / embed code, exports)
float share_menu_width();  // its button's width, for right-aligning the top bar
void embed_bar(app& a);    // share.cpp: embed mode's only chrome, "Open in the full playground"
void banner(app& a);       // share.cpp: the errors (or a notice) under the top bar, with a close button

// The inspector's lines for cell c of the current layer, built without ImGui:
// also what the text view reads out.
std::vector<std::string> cell_explanation(const app& a, const cell_ref& c);

// The interventions' effect on the output (measure_intervention_effect), by the
// experiment's version; meaningful when a.model.has_baseline.
const intervention_effect& app_effect(app& a);

// Records the last ImGui item's rectangle under `name` (tests click through these).
void mark_widget(app& a, const char* name);

// The same for a slider or drag labelled `label`: only its frame, not the label
// beside it (a click on the label does nothing; a click on the frame sets the value).
void mark_slider(app& a, const char* name, const char* label);

// Queues a change made by a control. The next app_draw makes it current
// (recompute, history, URL) before anything is drawn, so a view may keep
// references into a.tr for the whole frame.
void apply(app& a, const experiment& next);

}  // namespace attn::ui
