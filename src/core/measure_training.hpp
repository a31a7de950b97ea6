// What lessons L9 and L10 show of a training run, measured from the trainer
// (trainer.hpp) so the views only draw it.
//
//   formation   the phase change (trainer_phase_step) with the train loss just
//               before and after it; the head of a later layer whose induction
//               score is highest at the step shown, with its score at the last
//               kept step before the drop and the first one after; the layer-0
//               head with the highest previous-token score.
//   shortcut    the heads whose offset score is at least shortcut_offset_score, the best of them,
//               their highest induction score, and the model on the induction
//               task's rows (the copy_offset model tested off its distribution).
#pragma once

#include <vector>

#include "trainer.hpp"

namespace attn {

struct head_ref {
    int layer = -1, head = -1;
    bool valid() const { return layer >= 0; }
    bool operator==(const head_ref&) const = default;
};

struct formation_measure {
    int phase = -1;  // -1: no drop yet
    float loss_before = 0, loss_after = 0;
    head_ref induction;  // in a layer ≥ 1
    float induction_score = 0;
    int before_step = -1, after_step = -1;  // the kept steps around the drop its score is read at
    float induction_before = 0, induction_after = 0;
    head_ref previous;  // in layer 0
    float previous_score = 0;
    head_ref other;  // the head of the induction head's layer with the lowest induction score
};

formation_measure measure_formation(const trainer& t);

inline constexpr float shortcut_offset_score = 0.5f;

struct shortcut_measure {
    std::vector<head_ref> positional;         // offset score ≥ shortcut_offset_score
    head_ref best;                            // the head with the highest offset score (max_offset's)
    float max_offset = 0, max_induction = 0;  // over every head
    train_eval_result on_induction;           // the model on the induction task's held-out rows
};

// Needs the run (the induction rows are evaluated on it): hence not const.
shortcut_measure measure_shortcut(trainer& t);

}  // namespace attn
