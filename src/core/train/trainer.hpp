// The page's training: the run of an experiment's recipe, brought to the step
// the experiment asks for (train_settings::trained_steps) a slice at a time, so
// that the page draws between slices; and the numbers the Train panel shows.
//
//   trainer t;
//   trainer_sync(t, e);                // a new run when e's model or recipe changed
//   while (!trainer_done(t))
//       trainer_advance(t, 0.010);     // about 10 ms of steps per call
//
// The experiment says how far the model shown is trained (`trained=`, recipe.hpp):
// Pause, Step, Reset and the scrubber are changes of the experiment like any
// other, and the trainer follows. Going back or forward restores the latest
// snapshot kept at or before the step asked for (when that is nearer than where
// the run is) and steps on from there, which gives the weights of training
// straight there, bit for bit (train.hpp). Going back forgets nothing: every
// snapshot and the curve up to the furthest step stay, so scrubbing forward to
// a kept step again trains nothing.
//
// What it keeps for the panel:
//   curve     loss and accuracy of every step ever taken in this run, kept when
//             going back, so the curve stays whole while a marker shows the step
//   smooth    the train loss of each curve point smoothed (train_loss_ema)
//   marks     at each snapshot step reached: held-out loss and accuracy and every
//             head's scores on the held-out set (so the scrubber shows exactly
//             what the run showed when it passed there)
//   now       the same measures at the current step (train_diagnostics.hpp's scores)
//   probe     every head's attention on one fixed row of the task (held-out row 0)
//
// Runs are kept while the page is open (trainer_store): a run left for another
// experiment waits there, keyed by its recipe's canonical text (trainer_store_key),
// so coming back to that recipe finds it at its step instead of training again.
// The store counts the bytes of what it holds and drops the run left longest ago
// beyond its budget.
//
//   trainer_store kept;
//   trainer_sync(t, e, &kept);          // t's old run into kept; e's kept run (or a new one) out
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "spec/experiment.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"

namespace attn {

// Held-out measures of the model at one step.
struct trainer_mark {
    int step = 0;
    train_eval_result held_out;
    std::vector<head_scores> heads;  // L·h, layer by layer
};

// What the job of trainer_launch writes while it runs, for trainer_collect.
struct trainer_job_out {
    std::vector<trainer_mark> marks;  // the snapshots' measures it took
    int measuring = -1;               // the step whose measure (in trainer::measuring) it left unfinished
    std::vector<matrix> probe;        // the probe at a step it ended (a stop inside a step cannot take one)
    int probe_step = -1;              // that step; -1: none taken
};

struct trainer {
    // The run's steps on another thread (trainer_launch) until trainer_collect:
    // the run is the job's meanwhile. First of the members, so that copying or
    // moving a trainer stops its job before the run is touched.
    background_job job;
    int job_step = 0;                              // the run's step when the job started: trainer_step meanwhile
    trainer_job_out job_out;                       // the job's, until trainer_collect
    std::optional<train_run> run;                  // none: no recipe, or an invalid one (error says why)
    experiment key;                                // the experiment the run is for, with only what training reads (trainer_key)
    std::string error;                             // why there is no run, or why training stopped (a NaN loss)
    int target = 0;                                // the step the experiment asks for
    std::uint64_t weights_version = 0;             // bumped whenever the weights or a finished measure change
    std::vector<train_point> curve;                // every step taken in this run; see above
    std::vector<float> smooth;                     // (curve.size()) the train loss smoothed: train_loss_ema
    std::vector<trainer_mark> marks;               // by snapshot index, as far as the run got
    trainer_mark now;                              // at the current step
    std::vector<int> probe_tokens, probe_targets;  // (T) the probe row and what it is trained to predict
    std::vector<unsigned char> probe_counted;      // (T) 1 where the loss counts the prediction
    std::vector<std::string> probe_symbols;        // (T) the probe's tokens as text, for labels
    std::vector<matrix> probe;                     // L·h maps (T, T): its attention at the current step
    int measured_step = -1;                        // the step `now` and `probe` belong to
    int probe_step = -1;                           // the step `probe` shows (while training, `now` is the latest mark)
    // The held-out measure in progress, a row per piece (trainer_advance): a
    // snapshot's mark (it becomes marks[measuring_mark]) or, with -1, `now` at the
    // target. measuring_step is the step measured, -1 when nothing is.
    train_scored_job measuring;
    int measuring_step = -1, measuring_mark = -1;
    bool synced = false;  // key has been set by trainer_sync
    // The job's thread stopped answering (background_job::lost: a browser ended
    // its worker): the run and the job_ members are that thread's for good, never
    // written or freed here again; training stops where it was (error says so).
    bool lost = false;

    trainer() = default;
    trainer(const trainer&) = default;
    trainer(trainer&&) = default;
    trainer& operator=(const trainer&) = default;
    trainer& operator=(trainer&&) = default;
    ~trainer() { job.stop(); }  // before the run it writes goes
};

// e with only what training reads: the model, the recipe (without `trained`).
experiment trainer_key(const experiment& e);

// A trainer around a run whose state was set from outside (trainer_file.hpp):
// t.run, key, curve, smooth, marks, now and measured_step are set; this lays out
// the probe row, sets the target at the run's step and measures it (the probe;
// `now` from its mark when the step has one).
void trainer_adopt(trainer& t);

// The bytes a run kept in a trainer_store holds (its vectors' capacities).
std::size_t trainer_bytes(const trainer& t);

// The runs not shown now, for going back to them. At most `budget` bytes
// (trainer_bytes) together: beyond it the least recently left run is dropped,
// and a run bigger than the whole budget is not kept.
inline constexpr std::size_t trainer_store_budget = std::size_t(160) << 20;
struct trainer_store {
    struct entry {
        std::string key;  // trainer_store_key of the run's experiment
        trainer kept;
        std::size_t bytes = 0;
        std::uint64_t left = 0;  // when it was put: the smallest goes first
    };
    std::vector<entry> entries;
    std::size_t bytes = 0;  // of all entries
    std::size_t budget = trainer_store_budget;
    std::uint64_t clock = 0;
};

// The canonical text of trainer_key(e): everything that determines the run's bits.
std::string trainer_store_key(const experiment& e);

// Keeps t's run (one that has ever taken a step, also when scrubbed back to 0; any other is cheap to start again).
void trainer_store_put(trainer_store& s, trainer t);

// The kept run of this key, taken out of the store; none when there is none.
std::optional<trainer> trainer_store_take(trainer_store& s, const std::string& key);

// The kept run of this key, left in the store (nullptr when there is none).
const trainer* trainer_store_find(const trainer_store& s, const std::string& key);

// A new run when trainer_key(e) changed (or none when e has no recipe); the target
// from e. Cheap when nothing changed. True when the weights changed. With `kept`,
// the run being left goes into it, and e's run comes from `twin` when that is
// e's run (a copy: A and B of one recipe), else from `kept` when it holds one.
bool trainer_sync(trainer& t, const experiment& e, trainer_store* kept = nullptr, trainer* twin = nullptr);

// Steps toward the target for about `seconds`, then measures the model where it
// stopped. The clock is read between pieces (train_step_piece, one row of a
// measure), so a call may end inside a step and the next goes on with it; the
// held-out measure at a snapshot or at the target is spread over calls the same
// way, and the step after a snapshot waits for it. seconds ≤ 0: exactly one
// whole step and whole measures (the tests' way of walking a run). A target at
// or before the run's step abandons the step in progress (Pause acts at once);
// one before restores the latest snapshot at or before it first, stopped run or
// not. Steps run on `threads` threads (the same bits for any count: train.hpp).
// True when the weights changed.
// With steps = false it takes no step (nor a piece of one): only the measures
// and what happens at the target, while trainer_launch's job does the steps.
bool trainer_advance(trainer& t, double seconds, int threads = 1, bool steps = true);

// Training off the drawing thread: steps toward the target on a thread of its
// own (and `threads` of the pool, the same bits for any count) while the caller
// goes on, with the held-out measure of each snapshot it reaches for the first
// time; it stops by itself at the target or where the loss stops being finite.
// A snapshot's measure begun here (or by an earlier job) is the job's to finish
// first; one it is stopped in goes on at the next launch (or in trainer_advance).
// Only the run, `measuring` and the job_ members are written there: the caller
// may read everything else of t and the run's shape (T, L, h, e), and
// trainer_step, trainer_done, trainer_training and trainer_stopped answer as at
// the launch (the run's step then, training). False when there is nothing to
// step, the measure at the target is due (trainer_advance does it), a job is
// already out, or the build has no threads.
bool trainer_launch(trainer& t, int threads);

// Stops the job (within a piece of a step, about a millisecond) and takes in
// what it did as trainer_advance would have: the curve, a snapshot's measure to
// do, the probe, an error. True when the weights changed. Nothing without a job.
// A job whose thread does not answer is given up (background_job::stop): t.lost,
// and from then on trainer_sync, trainer_advance and trainer_launch do nothing.
bool trainer_collect(trainer& t);

// Steps until the target is reached (or training stopped).
void trainer_finish(trainer& t);

// Whether the run has nothing more to do: at its target and measured, or none, or stopped.
bool trainer_done(const trainer& t);

// Whether steps remain before the target (not stopped): what Pause stops. The
// held-out measure after the last step may still be under way (trainer_done).
bool trainer_training(const trainer& t);

// Whether training stopped short of the target because the loss was not finite
// (t.error says at which step and why). The weights stay where it stopped; a
// target before that step (Reset, Step back, the scrubber) restores a kept
// snapshot and clears it.
bool trainer_stopped(const trainer& t);

// The step the run's weights are at (0 without a run).
int trainer_step(const trainer& t);

// The latest snapshot's mark at or before `step` (what stands for it while
// training), or nullptr.
const trainer_mark* trainer_mark_before(const trainer& t, int step);

// The train loss and accuracy of the step that brought the model to its step
// (curve[step − 1]); none at step 0 (after Reset too), where no batch has been
// trained on yet.
std::optional<train_point> trainer_last_point(const trainer& t);

// Whether `now` holds a measure: a snapshot's mark (while training the latest
// stands for the current step) or the current step's own. Before the first is
// done there is no held-out number to show.
bool trainer_measured(const trainer& t);

// The scrubber's stops: the steps of the run's grid snapshots, taken or not (0,
// every, 2·every, …, steps), and of the dense ones taken (train.hpp), ascending.
// Empty without a run.
std::vector<int> trainer_snapshot_steps(const trainer& t);

// Whether the run keeps a snapshot at `step` (taken): reaching it trains nothing,
// back or forward. A step between kept ones trains from the one before.
bool trainer_kept(const trainer& t, int step);

// How densely the run keeps its steps, for the scrubber to say: a grid snapshot
// every `every` steps up to `reach` (the furthest step taken), and `dense` more
// between dense_first and dense_last (where the loss fell fastest; -1 when none).
struct trainer_kept_summary {
    int every = 0, dense = 0, dense_first = -1, dense_last = -1, reach = 0;
};
trainer_kept_summary trainer_kept_spacing(const trainer& t);

// The drop of a loss curve: every view that names "the drop" (L9, L11, L12, the
// Train panel, the text view) reads this one rule (docs/training.md, "The drop and
// the plateau"). Over the first `upto` points of the curve, w = clamp(steps / 20,
// 5, 50) steps (steps: the run's length, so w does not change while it trains):
//   the drop     the step s where the mean loss over [s − w, s) minus that over
//                [s, s + w) is largest, when it is more than a tenth of the first
//                step's loss and the fall has settled: s + 2w ≤ upto (another
//                window after it is in the curve; until then −1: a drop still
//                under way is not named, so it never reads one step while
//                training and another once trained);
//   the plateau  before it: s ≥ 3w and the mean loss over [s − 3w, s − 2w) and
//                over [s − 2w, s − w) differ by at most train_plateau_flatness of
//                the drop (before − after). A loss falling smoothly from its start
//                falls about as fast there as at its fastest, and fails.
inline constexpr float train_plateau_flatness = 0.25f;
struct train_drop {
    int step = -1;  // −1: no drop (yet)
    int window = 0;
    float before = 0, after = 0;  // the mean loss over the window before and after the drop
    bool plateau = false;
};
train_drop train_find_drop(const std::vector<train_point>& curve, int upto, int steps);

// The trainer's curve's drop (train_find_drop over every step taken in the run,
// the run's length from its recipe; without a run, the curve's): its step, −1
// while there is none.
int trainer_phase_step(const trainer& t);

// The whole curve smoothed (train_loss_ema_next, train.hpp).
std::vector<float> train_loss_ema(const std::vector<train_point>& curve, int span);

// Held-out loss and accuracy of the model at its step with these heads' outputs
// zeroed (the effect of an ablation on the task).
train_eval_result trainer_task_with_ablated(trainer& t, const std::vector<ablated_head>& heads);

}  // namespace attn
