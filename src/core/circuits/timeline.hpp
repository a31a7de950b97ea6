// The circuit over training: for every kept snapshot of a run (train.hpp's
// snapshots: steps 0, every, 2·every, …, the last), the composition scores, the
// previous-token → induction K-composition, the held-out loss at each position, an
// in-context-learning score (induction) and the KL divergences to the markov task's
// three in-context predictors (docs/circuits.md has the definitions).
//
// Shapes: S snapshots, T seq, P head pairs (circuits.hpp's composition pairs).
#pragma once

#include <string>
#include <vector>

#include "circuits/circuits.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"

namespace attn {

struct circuit_timeline {
    int S = 0, T = 0, rows = 0;
    std::vector<int> steps;  // (S) the step of each snapshot
    int drop_step = -1;      // the run's drop up to its step (train_find_drop on its curve): −1, none
    int drop_window = 0;     // its window w: the fall spans [drop_step − w, drop_step + w)
    // The pairs of circuits_composition (their scores below), and its random baseline
    // (the same for every snapshot: it depends on the shapes only).
    std::vector<circuit_composition_pair> pairs;
    circuit_baseline base_q, base_k, base_v;
    std::vector<float> q, k, v;  // (S, P)
    // The previous-token head (layer 0, the largest prev score) and the induction head
    // (a later layer, the largest induction score), chosen on the run's current
    // weights over train_head_scores' first 32 held-out rows; −1 with one layer.
    int prev_layer = -1, prev_head = -1, ind_layer = -1, ind_head = -1;
    std::vector<float> prev_ind_k;  // (S) their K-composition; NaN without the pair
    // The held-out set (its first `rows` rows) at each snapshot:
    std::vector<float> loss;      // (S) mean cross-entropy over the counted positions (train_evaluate's)
    std::vector<float> pos_loss;  // (S, T) the same at each position; NaN where no row counts it
    // (S, T) the loss of the next token at every position, counted by the task or
    // not (the induction task's prefix and first occurrence too: what the model
    // cannot know there it cannot learn); NaN at the last position (no next token).
    std::vector<float> pos_loss_all;
    std::vector<float> icl;         // (S) the in-context-learning score; NaN with icl_problem
    std::vector<float> first_loss;  // (S) the loss at the same transitions' first occurrences (ICL's other term)
    std::string icl_problem;        // why there is no ICL score (another task), else empty
    // train=markov: the mean over the counted positions of KL(predictor ‖ model), the
    // predictors the row's own prefix counts with the run's α (markov_counts: task.hpp);
    // NaN with markov_problem for another task.
    std::vector<float> kl_uniform, kl_unigram, kl_bigram;  // (S)
    std::string markov_problem;                            // why there are no KLs, else empty
    // Scratch, reused between calls.
    circuit_composition comp;
    markov_counts counts;
    std::vector<double> sum, sum_all, sum_icl, sum_kl, predicted;
    std::vector<int> count;
    std::vector<head_scores> scores;
};

// Every kept snapshot of run (0 … snapshots_taken − 1), its losses over the first
// `rows` held-out rows (1 … train_eval_rows; all by default). The run's weights are
// swapped with each snapshot's in turn and back: the run is left at the weights it
// had, its step in progress abandoned (the held-out forward overwrites it). Almost
// all of the time is the held-out forward: snapshots × rows rows.
void circuits_timeline(train_run& run, circuit_timeline& out, int rows = train_eval_rows);

// circuits_timeline in pieces, so a page can spread it over frames. Begin
// abandons the step in progress, chooses the heads on the run's weights as they
// are, takes the composition pairs and baseline, and lays out `out` for the
// snapshots taken so far (S = snapshots_taken, steps filled, every measure NaN).
// Snapshot i (0 ≤ i < S) then swaps snapshot i's weights in, fills its entries and
// swaps them back. A snapshot's entries depend on its weights alone (and on the
// chosen pair for prev_ind_k), not on the step the run is at.
void circuits_timeline_begin(train_run& run, circuit_timeline& out, int rows = train_eval_rows);
void circuits_timeline_snapshot(train_run& run, circuit_timeline& out, int i);

// The snapshot nearest the run's drop (the earlier of two as near), −1 without a
// drop: where "the drop" and "before the drop" fall among the snapshots.
int circuits_timeline_drop_snapshot(const circuit_timeline& tl);

// KL(p ‖ softmax(logits)) = Σ_j p_j (ln p_j − ln q_j) in double, a term with p_j = 0
// counting 0: how much worse (nats per token) the model predicts than p if p were true.
double circuits_kl(const double* p, const float* logits, int V);

}  // namespace attn
