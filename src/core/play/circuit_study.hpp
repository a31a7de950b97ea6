// What lessons L11 ("how the induction head works") and L12 ("learning in
// context") show of the page's trained model, measured here so the views only
// draw it, a slice of time at a time so the page keeps drawing (as
// session_measure_trained does for L9/L10).
//
//   over training  the circuit timeline (circuits/timeline.hpp) over the kept
//                  snapshots up to the model's step: composition, held-out loss by
//                  position, the ICL score, the markov KLs. A snapshot's numbers do
//                  not depend on the step the model is shown at (its weights are the
//                  same bits however the run got there), so those computed for
//                  another step of the same run are kept: scrubbing back and forth
//                  recomputes only what it has not seen.
//   at the step    weights only (at once, when the step changes): every head's QK and
//                  OV circuits and the K-composition maps (circuits/weights.hpp), the
//                  composition scores with their random baseline;
//   the text       the page's text (task symbols, n ≤ T) read by the training forward,
//                  padded to T with symbol 0, each position's target the next symbol,
//                  counted at positions < n − 1: with the causal mask positions < n see
//                  only the text, so every number there is the text's own. Its
//                  predictions, direct logit attribution and path expansion
//                  (circuits_read_tokens) at once; activation patching against its
//                  corruption the first piece after (`patched`): in the longest segment
//                  that occurs twice (at least 4 tokens), the first occurrence's 1st and
//                  3rd symbols swap places (circuit_text_corruption); the repeats of
//                  those two are the metric positions, each with the answer its earlier
//                  match now points to.
//   the claims     L11's (measure_circuit.hpp's circuit_claims) on the cached timeline
//                  and claim_patch_rows held-out rows, one row per piece.
//   one cell       a head's output at one position (or every position) patched from the
//                  clean run into the corrupted one: its recovery and the prediction it
//                  gives at each metric position (circuit_study_patch_cell).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circuits/circuits.hpp"
#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"
#include "play/measure_circuit.hpp"
#include "train/trainer.hpp"

namespace attn {

// How the text's corrupted twin is made: the positions of the first occurrence
// of its longest repeated segment whose symbols swap, and the segment. found =
// false with a message when the text has no repeated segment of 4 or more tokens.
//
// The segment is the longest that occurs twice without overlapping (the earliest
// such pair of occurrences), and the swap its 1st and 3rd symbols, or when those
// are equal, or the symbols after them are (no answer would change), the next
// pair j, j + 2 with j + 3 < len; a segment with no such pair gives way to the
// next. The repeats of the swapped symbols, at repeat + (k − first) and
// repeat + (m − first), are the metric positions: the repeat of the symbol at k
// now matches m and its corrupted answer is the symbol after m, and the other way
// round (circuits_corrupt_row's swap on a held-out row).
struct circuit_text_corruption {
    bool found = false;
    std::string problem;                   // why there is none, else empty
    int first = -1, repeat = -1, len = 0;  // the segment at `first` and again at `repeat`
    int k = -1, m = -1;  // the swapped positions (first + j, first + j + 2; j = 0 unless that pair cannot change an answer)
};
circuit_text_corruption circuit_corrupt_text(const std::vector<int>& text);

// One head_out patch of the clean run into the corrupted one, chosen by a click.
struct circuit_cell {
    int layer = -1, head = -1;
    int pos = -1;  // a position of the text, or T: every position at once
    bool valid() const { return layer >= 0; }
    bool operator==(const circuit_cell&) const = default;
};

struct circuit_study {
    // What it describes (the views draw nothing from a study of another run or step).
    std::string run_key;                // trainer_store_key of the run's experiment
    int step = -1;                      // the model's step
    std::uint64_t weights_version = 0;  // the trainer's, when measured
    std::vector<int> text;              // the text's symbols (n ≤ T)
    std::uint64_t version = 0;          // bumped whenever anything below that a view draws changes

    // Over training: timeline.S is the snapshots up to the step; entries of snapshots
    // not yet computed are NaN. previous / induction: the pair chosen at the step
    // (circuits_timeline's rule); prev_ind_k is theirs.
    circuit_timeline timeline;
    int snapshots_done = 0;  // snapshots 0 … snapshots_done − 1 are computed

    // At the step.
    circuit_weights weights;
    circuit_composition composition;

    // The text.
    circuit_read read;  // T positions; only the first n are the text's
    int n = 0;
    std::string read_problem;  // why there is no reading (not an induction model, a symbol outside the task)
    circuit_text_corruption corruption;
    // The patching is the first piece after a new step or text (too long for the
    // frame that changed them in wasm: docs/circuits.md, "What L11 and L12 read"):
    // valid when `patched`, patch_problem is empty and corruption.found.
    circuit_patching patching;
    std::string patch_problem;
    bool patched = false;  // the text's patching (or its problem) is of this step and text

    // The clicked cell and what it does (valid when cell.valid(), patched and patch_problem is empty).
    circuit_cell cell;
    float cell_recovery = 0;
    std::vector<float> cell_probs;  // (metric positions, V) the patched run's probabilities there

    // L11's claims, as measure_circuit_claims gives them (bit for bit), filled a row at a time.
    circuit_claims claims;
    int claim_rows_done = 0;  // held-out rows tried for patching, of claim_patch_rows

    // Kept between updates: every snapshot of the run (run_key) measured so far, by
    // snapshot index, each with its step; a snapshot's row is the same bits whatever
    // step the run is shown at, so a scrub back and forth measures none of them again.
    struct snapshot_row {
        int step = -1;              // −1: not measured
        std::vector<float> values;  // the timeline's entries of the snapshot (circuit_study.cpp's snapshot_fields)
    };
    std::vector<snapshot_row> cache;
    int snapshots_computed = 0;  // snapshots measured since the study was made (the tests count the cache's use)
    // Seconds the last update's at-once part took (the heads, composition, weights'
    // circuits, the text's reading) and the last piece of each kind.
    double seconds_at_once = 0, seconds_patch = 0, seconds_snapshot = 0, seconds_claim_row = 0;
    // The text's clean and corrupted rows (T each), laid out once per shape.
    std::vector<int> clean_tokens, clean_targets, corrupt_tokens, corrupt_targets;
    std::vector<unsigned char> clean_counted, corrupt_counted;

    bool timeline_done() const { return snapshots_done >= timeline.S; }
    bool claims_done() const { return claim_rows_done >= claim_patch_rows && timeline_done(); }
};

// Brings the study to `t`'s run at its step and to `text` for about `seconds`
// (the weights-only parts and the text's reading at once; then the text's
// patching, the timeline a snapshot and the claims a patched row per piece while
// time is left: a call that did the at-once part may do no piece, any other does
// at least one; seconds ≤ 0: everything). Nothing without a finished
// run (trainer_done); on a model the text is not read on (not a causal two-layer
// attn_res induction model) read_problem says why. Cheap when nothing changed. True when anything a view draws
// changed. The run's weights are left as they were (a step in progress is
// abandoned, as by the timeline).
bool circuit_study_update(trainer& t, const std::vector<int>& text, circuit_study& study, double seconds);

// Patches one cell (circuit_cell) of the study's text: its recovery and the
// patched probabilities at the metric positions. An invalid cell clears it. One
// the model does not have, or asked of a study of another step or of a text with
// patch_problem, is refused (false, and cell stays cleared). While the text's
// patching waits (not `patched`) the cell is kept and its numbers (NaN, none
// until then) come with that piece; a new step or text patches it again.
bool circuit_study_patch_cell(trainer& t, circuit_study& study, circuit_cell cell);

// The clicked cell's recovery in words (circuit_recovery_word), and at how many
// metric positions the patched run puts the clean answer above the corrupted one:
// "back" or "beyond" only when it does at every one (else "part": one answer on
// screen still corrupted is not the answer back). none without a patched cell.
struct cell_reading {
    recovery_word word = recovery_word::none;
    int leads = 0, positions = 0;
};
cell_reading circuit_study_cell_reading(const circuit_study& s);

// Whether snapshot i of the study's timeline is still to be measured (i ≥
// snapshots_done): its entries are NaN placeholders, not measurements. A view
// draws such a cell as pending, never as NaN, and no claim reads it
// (measure_context's `measured`, circuit_claims' over_training_measured).
bool circuit_study_pending(const circuit_study& s, int snapshot);

}  // namespace attn
