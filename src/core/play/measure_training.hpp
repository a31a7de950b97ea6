// What lessons L9 and L10 show of a training run, measured from the trainer
// (trainer.hpp) so the views only draw it.
//
//   formation   the phase change (trainer_phase_step) with the train loss just
//               before and after it, the plateau's level and the loss at the
//               model's step; the head of a later layer whose induction score is
//               highest at the step shown, with its score at the last kept step
//               before the drop and the first one after; the layer-0 head with
//               the highest previous-token score; and which of L9's claims the
//               model at its step supports (the card words only those).
//   reading     for a task other than induction, the one head that reads it:
//               the offset score (copy_offset, previous) or the anti-diagonal
//               score (reverse); none for sort.
//   shortcut    the heads whose offset score is at least shortcut_offset_score, the best of them,
//               their highest induction score, and the model on the induction
//               task's rows (the copy_offset model tested off its distribution).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "train/head_score.hpp"
#include "train/trainer.hpp"

namespace attn {

struct head_ref {
    int layer = -1, head = -1;
    bool valid() const { return layer >= 0; }
    bool operator==(const head_ref&) const = default;
};

// L9's thresholds: a claim is shown only when the model at its step passes its own
// (the head scores' are their rows' in train/head_score.hpp).
inline constexpr float claim_induction_score = head_score_of(head_score::induction).claim;  // "an induction head"
inline constexpr float claim_previous_score = head_score_of(head_score::previous).claim;    // "a previous-token head"
inline constexpr float claim_reading_score = 0.5f;                                          // another task's head reading

struct formation_measure {
    int step = 0;                           // the model's step: what the claims describe
    int phase = -1;                         // -1: no drop in the curve (trainer_phase_step: the whole curve's)
    int window = 0;                         // train_find_drop's window (steps)
    float loss_before = 0, loss_after = 0;  // mean train loss over the window just before and after the drop
    float plateau_loss = 0;                 // median train loss over the plateau, [window, phase − window)
    float loss_now = 0;                     // median train loss over the window up to the model's step
    int scores_step = 0;                    // the step the heads' scores are from (while training, the latest snapshot)
    head_ref induction;                     // in a layer ≥ 1
    float induction_score = 0;
    int before_step = -1, after_step = -1;  // the kept steps around the drop its score is read at
    float induction_before = 0, induction_after = 0;
    head_ref previous;  // in layer 0
    float previous_score = 0;
    head_ref other;  // the head of the induction head's layer with the lowest induction score
    // What the model at `step` supports (false: the card says what is not there yet):
    bool induction_task = false;   // it is trained on the induction task
    bool drop_shown = false;       // the drop (train_find_drop) is settled at or before `step`
    bool plateau_shown = false;    // and a plateau comes before it (a smooth fall has none)
    bool induction_shown = false;  // induction task, and the induction head's score now ≥ claim_induction_score
    bool jump_shown = false;       // and its score jumped across the drop (from below to at least the threshold)
    bool previous_shown = false;   // an induction head, and a layer-0 previous-token score ≥ claim_previous_score
};

formation_measure measure_formation(const trainer& t);

// Whether a model solves its task: its accuracy is well above chance (by at
// least claim_task_solved; an untrained model sits at chance).
inline constexpr float claim_task_solved = 0.5f;
bool task_solved(const train_eval_result& r, float chance);

// Whether zeroing heads broke the task: the accuracy lost at least half of what the
// intact model gains over chance, and the intact model solves it (task_solved).
bool task_broken(const train_eval_result& intact, const train_eval_result& zeroed, float chance);

enum class head_reading { none, offset, anti_diagonal };

struct task_reading {
    train_task task = train_task::none;
    head_reading kind = head_reading::none;  // none: no one-line reading for this task (sort, induction)
    head_ref head;                           // the head that scores highest
    float score = 0;
    int offset = 0;      // head_reading::offset: k
    bool shown = false;  // score ≥ claim_reading_score
};

// The one-line reading of the heads for the run's task, at the model's step:
//   copy_offset, previous   the head with the highest offset score (w(i, i−k), held-out rows)
//   reverse                 the head with the highest anti-diagonal score on the probe row:
//                           the mean of w(i, 2m−1−i) over the counted queries i ∈ [m, 2m−1],
//                           m the first counted position (the mirrored symbol it must copy)
task_reading measure_task_reading(const trainer& t);

inline constexpr float shortcut_offset_score = head_score_of(head_score::offset).claim;  // a positional head

struct shortcut_measure {
    std::vector<head_ref> positional;         // offset score ≥ shortcut_offset_score
    head_ref best;                            // the head with the highest offset score (max_offset's)
    float max_offset = 0, max_induction = 0;  // over every head
    train_eval_result on_induction;           // the model on the induction task's held-out rows
    int step = 0;                             // the model's step: what the claims describe
    float chance = 0;                         // 1 / vocabulary
    train_eval_result own;                    // the model on its own task's held-out rows (at scores_step's measure)
    // What the model at `step` supports (an untrained model solves nothing: no claim, no pin):
    bool solved = false;                 // task_solved on its own task
    bool shortcut_shown = false;         // solved, by positional heads, with no induction head (max < claim_induction_score)
    bool fails_induction_shown = false;  // solved, and task_broken from its own task to the induction task's rows
};

// Needs the run (the induction rows are evaluated on it): hence not const.
shortcut_measure measure_shortcut(trainer& t);
// The same with the induction rows already evaluated (shortcut_induction_job's
// result): the page spreads them over frames.
shortcut_measure measure_shortcut(const trainer& t, const train_eval_result& on_induction);
train_eval_job shortcut_induction_job(const trainer& t);

// The held-out task with the experiment's ablated heads zeroed, beside the
// model as it is: the effect of an ablation on what a trained model does.
struct task_effect {
    bool valid = false;
    std::uint64_t version = 0;  // the model.version it was measured at
    train_eval_result base, ablated;
    // The measure in progress, a few rows a frame (a big model's takes seconds).
    std::uint64_t measuring = 0;  // the model.version it is for (0: none)
    train_eval_job base_job, ablated_job;
};

// The held-out task with each head zeroed alone, for every head of a trained
// model at its step (the text view's ablation table): one head a frame, so a
// large model does not stop the page. Rows in head order (layer, then head).
struct head_ablations {
    std::uint64_t weights_version = 0;  // the trainer's weights it was measured on (0: none)
    int step = -1;
    train_eval_result intact;
    std::vector<std::pair<ablated_head, train_eval_result>> rows;
    int heads = 0;       // how many rows there will be (layers × heads); 0 until intact is measured
    train_eval_job job;  // the row in progress (intact first), a few held-out rows a frame
    bool complete() const { return heads > 0 && int(rows.size()) == heads; }
};

// L10's measures of a trained model (measure_training.hpp), once the trainer is
// at its step: they evaluate on the run, which a view cannot.
struct shortcut_result {
    bool valid = false;
    std::uint64_t version = 0;
    shortcut_measure measure;
    std::uint64_t measuring = 0;  // the model.version the induction rows in progress are for
    train_eval_job job;
};

}  // namespace attn
