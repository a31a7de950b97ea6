// What lesson L11 ("how the induction head works") claims of a trained model,
// measured from the run so the card only draws it, each claim shown only when the
// model at its step supports it (docs/circuits.md, "The claims L11 makes"; the
// thresholds are those asserted there on seeds 1-3, every kernel set and wasm).
//
//   composition   the previous-token -> induction pair (circuits_timeline's choice)
//                 and its K-composition at the model's step, against the random
//                 baseline of the same shapes;
//   over training the run's drop (train_find_drop: the step L9 and the Train panel
//                 name) and the first snapshot where that K-composition passes its
//                 baseline + 5 spreads;
//                 the in-context-learning score before the drop and at the step;
//   patching      every layer-0 head patched into the layer-1 heads' Q, K or V
//                 inputs at once, over the held-out rows whose corruption applies
//                 (circuits_patching_row): the mean recovery through each, and the
//                 named pair's through K alone.
#pragma once

#include <limits>

#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"
#include "play/measure_training.hpp"
#include "train/train.hpp"

namespace attn {

inline constexpr float claim_k_spreads = 10.0f;     // "K-composes": K above baseline + this many spreads
inline constexpr float claim_rise_spreads = 5.0f;   // where the K-composition "rises"
inline constexpr int claim_rise_snapshots = 3;      // "with the drop": within this many snapshots of the fall's
inline constexpr float claim_recovery_part = 0.2f;  // a recovery below this: "the answer stays corrupted"
inline constexpr float claim_recovery_back = 0.8f;  // at least this: "brings the answer back"; between: "part of it"
inline constexpr float claim_keys_recovery = claim_recovery_back;  // "through the keys": mean recovery through K at least this
inline constexpr float claim_other_recovery = 0.1f;                // … and through Q and V at most this (either sign)
inline constexpr float claim_patch_span = 5.0f;  // the model tells clean from corrupted: mean LD span at least this
inline constexpr float claim_icl_before = 0.5f;  // "near 0 before the drop": |ICL| below this
inline constexpr float claim_icl_after = -2.0f;  // "clearly negative": ICL below this
inline constexpr int claim_patch_rows = 32;      // the held-out rows patched (those the corruption applies to)
inline constexpr float claim_copy_top1 = 0.5f;   // "its OV circuit copies": diagonal top-1 rate at least this
inline constexpr float claim_copy_score = 0.5f;  // … and copying score at least this (1: a pure copier)

// A recovery in words (docs/circuits.md, "A recovery in words"): none (not a
// number: the logit differences are equal or the run diverged), stays (below
// claim_recovery_part, negative included), part (below claim_recovery_back),
// back (up to 1), beyond (above 1: the patched run prefers the clean answer more
// than the clean run itself, the rest of the corrupted run pushing the same way).
enum class recovery_word { none, stays, part, back, beyond };
recovery_word circuit_recovery_word(float recovery);

// Whether a head's OV circuit copies (claim_copy_top1 and claim_copy_score): an
// untrained head's top-1 rate sits near 1 / V and says nothing.
bool circuit_copying_shown(const circuit_head_maps& h);

struct circuit_claims {
    int step = 0;          // the model's step: what the claims describe
    bool applies = false;  // an induction model with two or more layers (else nothing below is measured)
    head_ref previous, induction;
    float k_comp = std::numeric_limits<float>::quiet_NaN();  // the pair's K-composition at the step's snapshot
    float base = 0, spread = 0;                              // its random baseline
    int drop_step = -1, rise_step = -1;                      // −1: not at or before the step
    float icl_before = 0;                                    // the largest |ICL| while the loss is above ¾ of its start
    float icl_now = std::numeric_limits<float>::quiet_NaN();
    int rows = 0;    // rows patched
    float span = 0;  // mean LD clean − corrupt over them
    float k_all = 0, q_all = 0, v_all = 0, k_pair = 0;
    // What the model at `step` supports:
    bool k_comp_shown = false;  // k_comp > base + claim_k_spreads · spread
    bool rise_shown = false;    // the drop and the rise at or before the step, the rise within claim_rise_snapshots of
                                // the snapshots the fall spans ([drop − w, drop + w]: train_find_drop's window)
    bool keys_shown = false;  // span ≥ claim_patch_span, k_all ≥ claim_keys_recovery, |q_all|, |v_all| ≤ claim_other_recovery
    bool icl_shown = false;  // icl_before < claim_icl_before and icl_now < claim_icl_after
    // Whether every snapshot up to the step is in (circuit_claims_over_training ran):
    // until then k_comp_shown, rise_shown and icl_shown say nothing (the card says "measuring…").
    bool over_training_measured = false;
    // The sums over the patched rows so far (circuit_claims_patch_row), and scratch
    // reused between calls.
    double sum_span = 0, sum_k = 0, sum_q = 0, sum_v = 0, sum_pair = 0;
    int pairs = 0;
    circuit_timeline timeline;
    circuit_patching patching;
};

// The claims on run at its current step (its kept snapshots up to it). The
// timeline swaps each snapshot in and out and patching runs the training forward:
// a step in progress is abandoned (train.hpp), the weights stay as they were.
void measure_circuit_claims(train_run& run, circuit_claims& out);

// measure_circuit_claims in pieces, the same bits (circuit_study's way): begin
// (the step, whether the claims apply, everything else cleared); the timeline's
// claims from a timeline of the run's snapshots up to its step made at the step
// (circuits_timeline's heads and baseline, every snapshot computed); then each
// held-out row 0 … claim_patch_rows − 1 in order, patched if its corruption
// applies (true then), the means updated after each.
void circuit_claims_begin(const train_run& run, circuit_claims& out);
void circuit_claims_over_training(const circuit_timeline& tl, circuit_claims& out);
bool circuit_claims_patch_row(train_run& run, int row, circuit_claims& out);

}  // namespace attn
