// The playground's model: the experiment a person is looking at, its trace, the
// undo history, and the one path every change takes.
//
// Every door that changes the experiment (a control, undo and redo, a lesson,
// the link the page opens with, a pasted link or back/forward, the page's JS
// hook, a host's postMessage) describes what it wants as a `change` and hands
// it to session_apply, which yields the new experiment, or the errors and the
// last good one. Undo records every accepted change that alters the experiment
// and nothing else; no door clears the history or patches another's result.
// The trace is not recomputed there: session_update does it at one point, once
// per frame before anything draws (views hold references into it while they
// draw), and tools or hooks call it before they read the trace.
//
//   session s;                                       // the default experiment
//   session_apply(s, change::open("v=1&heads=4&view.lesson=2"));
//   session_update(s);                               // s.tr is s.exp's trace
//   session_apply(s, change::undo());
//
// A/B compare: change::pin(e) pins e as A, the experiment the current one (B)
// is compared against; change::unpin() drops it. Pinning is a change like any
// other (an undo step), the pin travels in the link (link.hpp: pin=), and
// session_update keeps A's trace beside B's.
//
// Training runs are kept while the session lives (trainer.hpp's trainer_store):
// leaving a recipe and coming back finds its run at its step, A and B of one
// recipe share the run (a copy), and a lesson's link (change::resume) opens its
// recipe at the step its kept run reached. The page also keeps runs in the
// browser (train/trainer_file.hpp, web/runs.js [Runs]) and gives them back
// through session_keep_run (training.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "circuits/predict.hpp"
#include "model/forward.hpp"
#include "play/circuit_study.hpp"
#include "play/link.hpp"
#include "play/measure_lessons.hpp"
#include "play/measure_training.hpp"
#include "spec/experiment.hpp"
#include "train/trainer.hpp"

namespace attn {

// Changes of one drag or one typed word arrive frame after frame: those less
// than this many seconds apart make one undo step.
inline constexpr double session_merge_seconds = 0.6;
inline constexpr std::size_t session_history_limit = 200;

struct change {
    enum class kind { set, link, undo, redo, pin, unpin };
    kind what = kind::set;
    experiment next;        // kind::set: the experiment wanted; kind::pin: the experiment pinned as A
    std::string link;       // kind::link: any form link_parse reads (canonical, z=, view.* keys, a whole URL)
    bool record = true;     // set, link: an undo step (false: the link a page opens with)
    bool keep_pin = false;  // link without pin=: keep the pinned A (a lesson's link, a host's) instead of unpinning
    bool resume = false;    // link with a recipe: open it at the step its kept run reached when that is further (a lesson's)
    double time = -1.0;     // set: when it was asked (seconds, any clock); < 0: never merges with the previous step
    // link: a host page's (attn:set). Host changes in a row make one undo step, so a
    // host's flood cannot push the reader's own steps out of the bounded history.
    bool from_host = false;
    // set, pin: Pause. `next`'s trained= is the step shown when it was pressed; the
    // steps training apart took since (until this change lands, a frame or two
    // later) are kept: trained= becomes the step the run reached, which the run
    // does not go back from (a Pause that took the model back to its snapshot
    // before and trained it on again would count down on screen). A run that
    // stopped meanwhile (a loss not finite) goes back to the step shown.
    bool pause = false;

    static change set(experiment e, double time = -1.0) { return {.next = std::move(e), .time = time}; }
    static change open(std::string link, bool record = true) {
        return {.what = kind::link, .link = std::move(link), .record = record};
    }
    static change undo() { return {.what = kind::undo}; }
    static change redo() { return {.what = kind::redo}; }
    static change pin(experiment a) { return {.what = kind::pin, .next = std::move(a)}; }
    static change paused(change c) {
        c.pause = true;
        return c;
    }
    static change unpin() { return {.what = kind::unpin}; }
};

// What one undo step restores: the experiment and the pinned A.
struct session_state {
    experiment exp;
    std::optional<experiment> pin;
    bool operator==(const session_state&) const = default;
};

struct session {
    experiment exp;                 // always valid: the last accepted experiment
    std::uint64_t version = 1;      // bumped whenever exp, or the trained weights it is traced with, change
    std::optional<experiment> pin;  // A, the experiment exp is compared against; none: nothing pinned
    std::uint64_t pin_version = 1;  // bumped whenever pin changes
    std::vector<session_state> undo, redo;
    double last_record_time = -1.0;
    bool host_step_open = false;  // the last undo step was a host's change: the host's next one merges into it

    // exp's trace (and, when exp ablates heads or masks edges, the trace of the
    // same model without them), as of session_update.
    trace tr;
    trace baseline;
    bool has_baseline = false;
    std::uint64_t traced_version = 0;  // the version tr belongs to
    // What tr's model predicts after each token (circuits/predict.hpp), as of
    // session_update: n = 0 unless exp is a trained recipe (with a run).
    circuit_prediction prediction;
    // exp's training run when it has a recipe (trainer.hpp): the trace uses its
    // weights at its current step. session_update syncs it with exp; the page
    // advances it a slice per frame, and each slice bumps `version`.
    trainer train;
    int threads = 1;  // the threads training and generation use (the same bits for any count); the app sets every core (≤ 8)
    std::uint64_t traced_weights = 0;      // the train.weights_version the version belongs to
    trainer pin_train;                     // pin's run when A has a recipe: A is traced at its own step
    std::uint64_t pin_traced_weights = 0;  // the pin_train.weights_version the pin_version belongs to
    trace pin_tr;                          // pin's trace (empty when nothing is pinned)
    std::uint64_t pin_traced_version = 0;  // the pin_version pin_tr belongs to
    trainer_store kept;                    // the runs neither train nor pin_train holds now
    // While the run trains, its new weights are traced on exp's text a share of
    // the time at most (session_trace_due): a text of 1024 tokens costs a trace,
    // and the frame that draws its maps, far more than the steps between frames.
    // trace_seconds: what the last trace took, and its frame beyond the others';
    // traced_at: when it ended. trace_paced: set by the page's frame loop; without
    // it (the command line, a host or a test calling the core) every new weights
    // are traced at once.
    bool trace_paced = false;
    double trace_seconds = 0;
    std::chrono::steady_clock::time_point traced_at;
    // A store of runs beyond the session (the page's: web/runs.js [Runs]) that
    // may hold exp's run further: session_train asks it (run_asks counts the
    // asks, run_asked names the recipe, trainer_store_key) when a recipe's run is
    // made and whenever it starts training past its reach again (not a scrub
    // within it), and takes no step until it
    // answered (session_run_answered), so the run it gives is not raced by steps
    // it spares. While another page of the site trains the recipe
    // (session_run_elsewhere), the answer is its run, when it is stored: the
    // Train panel says so.
    bool runs_beyond = false;
    std::string run_asked;
    int run_asks = 0;
    bool run_awaited = false;
    bool run_elsewhere = false;
    bool run_was_training = false;  // as of the last session_train
    // What the trained model does at its step, a few held-out rows a frame
    // (session_measure_trained, training.hpp).
    task_effect ablated_task;  // the task with exp's ablated heads zeroed, beside the model intact
    head_ablations each_head;  // every head zeroed in turn
    shortcut_result shortcut;  // L10: a model trained on another task than induction
    // L11 and L12: the circuit of the trained model at its step and on the page's
    // text, a snapshot or a claim row a frame (session_measure_circuit, training.hpp).
    circuit_study circuit;
};

struct change_result {
    bool accepted = false;            // false: the session is unchanged
    std::vector<std::string> errors;  // why not (empty for an undo with nothing to undo)
    std::optional<link_view> view;    // kind::link, accepted: what the link asks to show
};

// The one change path: see the top of this file.
change_result session_apply(session& s, const change& c);

// Recomputes the trace when the experiment changed since the last call (and
// A's when the pin did); true when it did. New weights of a run that is still
// training are traced only when session_trace_due.
bool session_update(session& s);

// Whether a run's new weights are traced now: always once it stops training
// (done, paused, stopped), and while it trains when the last trace cost less
// than `trace_free` (the lessons' texts: the maps follow every step); else once
// `since` seconds have passed since the last trace ended, (1 / share - 1) times
// what it took (`cost`), so tracing takes at most `share` of the page's time and
// training the rest: a text of 1024 tokens is traced a few times a second, the
// maps a fraction of a second behind the steps.
inline constexpr double trace_free = 0.004;
inline constexpr double trace_share = 0.15;
bool session_trace_due(bool training, double cost, double since);

// The page's frame that drew the last trace took `excess` seconds more than its
// other frames (its training aside): that is the trace's cost too.
void session_trace_drawn(session& s, double excess);

// A's shape against B's, from the experiments alone: the tokens, layers and heads
// every stage's compare needs (as compare_trace_mismatch finds them in the
// traces). While they differ no B − A can be shown, so A's recipe is not trained
// and its run is not even made (session_update): A's maps are of its untrained
// model until B has A's shape.
compare_mismatch session_pin_shape(const session_state& s);

// What s.pin_train follows: A, or no experiment (no run) when nothing is pinned
// or A's shape is not B's.
experiment session_pin_training(const session& s);

// Why A cannot be compared yet: kind::training (a = A's step, b = the step A is
// at when trained) while A's run has not reached A's step, else kind::none. Until
// then A's maps are of a model part-way, and no B − A of them is shown.
compare_mismatch session_pin_pending(const session& s);

// The experiment without its interventions (ablated heads, masked edges): the
// baseline their effect is measured against.
experiment experiment_without_interventions(const experiment& e);

// The page's memory for a state, counted before anything is allocated.
struct session_bytes {
    std::size_t exp = 0;   // exp's peak: its trace and baseline (experiment_peak_bytes)
    std::size_t pin = 0;   // A's whole trace, kept beside exp's
    std::size_t runs = 0;  // exp's and A's training runs (train_run_bytes; one recipe: two copies)
    std::size_t kept = 0;  // the store of runs left, at its budget
    std::size_t total() const { return exp + pin + runs + kept; }
};
session_bytes session_peak_bytes(const session_state& s);

// Why the page cannot hold s: each experiment's problems (A's start "pinned A: "),
// then a total above page_memory_budget, with its parts in bytes. Every change
// is checked by it (session_apply), and `attn check` checks a link by it.
std::vector<std::string> session_state_problems(const session_state& s);

}  // namespace attn
