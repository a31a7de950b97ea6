// The lessons' cards and views, drawn from the app: what a lesson shows beside
// the pipeline, worded from the state it describes (lessons.hpp: the list).
#pragma once

#include "view/app.hpp"
#include "view/lessons.hpp"

namespace attn::ui {

// L9's sentences for the model at its step (empty for another lesson or
// without a run): only the claims the model supports (formation_measure's
// predicates), and for them what is not there yet; another task gets its own
// reading of the heads (measure_task_reading).
lesson_claims lesson_claims_of(const app& a);

// The current lesson's card and view, drawn at the top of the centre panel.
void panel_lesson(const app& a, frame_out& out);

}  // namespace attn::ui
