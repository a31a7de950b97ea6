// Patch from A: which of B's heads carry B's change from the pinned A.
//
// Shapes, named once: L layers, h heads, n tokens, d_k, the same in A and B.
//
// For every head (l, i) of B, B's forward pass is run with that head's output
// (head_trace::out, weights·V before W_O) replaced by A's output of the same
// head (forward.hpp's head_patch), and the final output y is measured:
//
//   explained = 1 − ‖y_patched − y_A‖_F / ‖y_B − y_A‖_F
//
// 1: putting A's head back takes B all the way back to A (that head carries
// the whole change); 0: it changes nothing; below 0: it moves B further from A.
// NaN when y_B = y_A (nothing to explain) or an output is NaN. Per position:
// the same with the head replaced at one position only (the other rows keep
// B's own). B's pass is B's: its weights (trained ones included: the trace's
// params), its tokens, and its interventions (ablated heads, masked edges) on.
//
//   compare_patch_result r = compare_patch(*s.pin, s.pin_tr, s.exp, s.tr);
//   r.explained[l * r.h + i];                   // head i of layer l
//   r.per_position[(l * r.h + i) * r.n + p];    // the same, at position p alone
//
// The work is done a piece at a time when asked (compare_patch_step), so a page
// can show the map filling in instead of freezing on a large experiment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/matrix.hpp"
#include "model/forward.hpp"
#include "play/session.hpp"
#include "spec/experiment.hpp"

namespace attn {

// Per-position patches of the layers before the last cost a forward pass of
// the layers after them each (h·n of them per layer). Their rows are computed
// only while the total stays under this many multiply-adds (measured: about
// half a second natively, two layers of 8 heads, d_model 64 over 128 tokens);
// the last layer's rows are always computed (its rows are independent: one
// patched pass per head gives them all).
constexpr double compare_patch_position_budget = 1e10;

// The first layer whose per-position rows e over n tokens computes (the budget above).
int compare_patch_position_from(const experiment& e, int n);

struct compare_patch_result {
    // Why nothing is measured: A and B differ in shape, or A is not there yet.
    // (measure_lessons.hpp's kinds: tokens, layers, heads, kv_heads, d_model, training, no_trace)
    using problem_kind = compare_problem;
    problem_kind what = problem_kind::none;
    int a = 0, b = 0;  // A's and B's counts; training: A's step, of b
    std::string
        problem;  // compare_problem_text in English ("A has 4 heads, B has 2: patching needs the same shape"), "" when none
    // A's weights are not B's (another recipe or task, another step of the same
    // run, another seed, other edits): each patch puts an activation of one model
    // into the other's pass, and a share says B's change runs through that head's
    // output, not that the two heads compute the same (compare_patch_other_weights).
    bool other_weights = false;

    int L = 0, h = 0, n = 0;
    std::vector<float> explained;     // (L·h), row l·h + i; NaN until computed
    std::vector<float> per_position;  // (L·h·n), (l·h + i)·n + p; NaN until computed, or where skipped
    int position_from = 0;            // the first layer whose per-position rows are computed (the earlier ones cost too much)
    double distance = 0;              // ‖y_B − y_A‖_F
    // The map as drawn: (L·h, 1 + n), column 0 `explained`, then each position;
    // `pending` is −∞ where a cell is not computed (yet, or skipped) and 0 where it is.
    matrix map, pending;
    int done = 0, total = 0;  // pieces of work: a head's patched pass, or one position's of a layer before the last
    bool complete() const { return done >= total; }
    // The head's pass in progress, a layer a step (a large model's pass takes
    // most of a second a layer): the output of layer `next_layer` − 1 so far.
    matrix partial;
    int next_layer = -1;  // −1: none in progress
};

// A (ea, traced as a) against B (eb, traced as b over its own weights): the
// shapes checked and the result laid out, nothing computed yet (a problem:
// nothing to compute). Then compare_patch_step, with the same traces, until
// complete(). compare_patch does both at once.
compare_patch_result compare_patch_begin(const experiment& ea, const trace& a, const experiment& eb, const trace& b);
// Works on r for about `seconds` (at least a layer of one head's pass, or one
// position's piece); true when complete.
bool compare_patch_step(compare_patch_result& r, const trace& a, const experiment& eb, const trace& b, double seconds);
compare_patch_result compare_patch(const experiment& ea, const trace& a, const experiment& eb, const trace& b);

// Whether ea's model and eb's differ in their weights: what training reads
// (trainer_key: shape, seed, recipe), the step a recipe is trained to, the edits.
bool compare_patch_other_weights(const experiment& ea, const experiment& eb);

// The session's pinned A against its current experiment, begun (as above); a
// problem when nothing is pinned, or A is still training to its step
// (session_pin_pending): then A's heads are not A's yet.
compare_patch_result session_compare_patch_begin(const session& s);

}  // namespace attn
