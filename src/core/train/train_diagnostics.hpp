// What the heads of a model do, measured on a task's held-out set.
//
// Scores of one head's attention weights w (n, n) over a row of tokens, each a
// mean over the queries it applies to (the first four are head_score.hpp's kinds,
// with their names and the bars the claims hold them to):
//   prev       w(i, i−1)                                        (i ≥ 1)
//   induction  w(i, j+1), j the latest earlier position holding token i's token
//              (queries with such a j and j + 1 < i)
//   offset     w(i, i−k) for the recipe's offset k              (i ≥ k)
//   sink       w(i, 0)                                          (i ≥ 1)
//   entropy    −Σ_j w(i, j) ln w(i, j)                          (every row)
// The ablation table says whether a head matters for the task: the held-out loss
// and accuracy with the head's output zeroed, and with it replaced by its mean
// output over the held-out set (which keeps what the head adds on average).
#pragma once

#include <vector>

#include "train/head_score.hpp"
#include "train/train.hpp"

namespace attn {

struct head_scores {
    double prev = 0, induction = 0, offset = 0, sink = 0, entropy = 0;
    int n_prev = 0, n_induction = 0, n_offset = 0, n_sink = 0, n_entropy = 0;

    // Adds one row: w (n, n), tokens (n), the offset k.
    void add(const float* w, const int* tokens, int n, int k);
    // The means (0 where nothing was counted).
    float prev_mean() const { return n_prev ? float(prev / n_prev) : 0.0f; }
    float induction_mean() const { return n_induction ? float(induction / n_induction) : 0.0f; }
    float offset_mean() const { return n_offset ? float(offset / n_offset) : 0.0f; }
    float sink_mean() const { return n_sink ? float(sink / n_sink) : 0.0f; }
    float entropy_mean() const { return n_entropy ? float(entropy / n_entropy) : 0.0f; }
};

// s's mean of kind k.
float head_score_mean(const head_scores& s, head_score k);

// Whether a run of `task` shows kind k: the offset score only where the task copies
// from a fixed distance back (copy_offset: the recipe's offset; previous: 1).
bool head_score_shown(head_score k, train_task task);

struct head_report {
    int layer = 0, head = 0;
    float prev = 0, induction = 0, offset = 0, sink = 0, entropy = 0;
    float ablate_loss = 0, ablate_acc = 0;  // head zeroed
    float mean_loss = 0, mean_acc = 0;      // head replaced by its mean output
};

struct train_diagnostics {
    train_eval_result base;          // held-out loss and accuracy of the model as it is
    std::vector<head_report> heads;  // layer by layer, head by head
};

// Scores and ablation table of run's model (at its current step) on its held-out set.
train_diagnostics train_diagnose(train_run& run);

// The scores alone, one per head (layer by layer, head by head), on the first
// `rows` rows of the held-out set; `scores` is resized to L·h. With `sum` (L·h·d_k)
// and `count`, also each head's output summed over those rows' positions.
void train_head_scores(train_run& run, int rows, std::vector<head_scores>& scores, std::vector<double>* sum = nullptr,
                       int* count = nullptr);

// The held-out result (train_evaluate) and every head's scores on all of the held-out
// rows (train_head_scores), from one forward pass: what the trainer measures at
// each kept snapshot.
train_eval_result train_evaluate_scored(train_run& run, std::vector<head_scores>& scores);

// The same in pieces of one row each (train_eval_job), to the bit: for a page
// that keeps drawing while it measures a big model.
struct train_scored_job {
    train_eval_job eval;
    std::vector<head_scores> heads;  // (L·h) over the rows done so far
};
void train_scored_piece(train_run& run, train_scored_job& job);

}  // namespace attn
