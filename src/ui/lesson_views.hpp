// The lessons' cards and views, drawn from the app: what a lesson shows beside
// the pipeline, worded from the state it describes (lessons.hpp: the list).
#pragma once

#include "app.hpp"
#include "lessons.hpp"

namespace attn::ui {

// Opens lesson i (0-based: L1 is 0) at the start of the next frame, as the link
// lesson_link(i + 1) would (its experiment and stage, an undo step); -1 leaves
// the lessons (free exploring) at once, keeping the experiment. The first form
// is a panel's request; the second a door outside the frame (tests, hooks).
void lesson_open(const app& a, frame_out& out, int i);
void lesson_open(app& a, int i);

// L9's sentences for the model at its step (empty for another lesson or
// without a run): only the claims the model supports (formation_measure's
// predicates), and for them what is not there yet; another task gets its own
// reading of the heads (measure_task_reading).
lesson_claims lesson_claims_of(const app& a);

// The current lesson's card and view, drawn at the top of the centre panel.
void panel_lesson(const app& a, frame_out& out);

}  // namespace attn::ui
