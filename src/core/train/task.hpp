// Toy tasks to train on: deterministic generators of (input, target, which
// positions count) from a seed. Every row is `seq` tokens over a vocabulary of
// `vocab` symbols (named a–z, A–Z, 0–9: task_symbol); the model predicts a
// target at every position and the loss counts only where `counted` is 1.
//
//   induction    a prefix, a segment of L distinct symbols, the segment again;
//                next-token targets, counted on the repeat after its first token.
//                L varies per row (3 … min((seq−2)/2, vocab−2)), so the distance
//                back to the earlier copy varies too: only an induction circuit
//                (find the earlier occurrence of this token, read the one after it)
//                solves it. The prefix avoids the segment's symbols, so the
//                earlier occurrence is unique.
//   copy_offset  uniform symbols; the target at t is the input at t − offset
//                (counted from t = offset): a fixed-offset head solves it.
//   previous     copy_offset with offset 1.
//   reverse      m = (seq−1)/2 symbols, a separator (the last symbol), the same m
//                reversed (the rest separators); next-token targets counted
//                where the reversed part is predicted.
//   sort         as reverse, with the m symbols sorted.
//   markov       in-context learning that is not copying: each row draws its own
//                transitions, every symbol's next-symbol distribution one
//                symmetric Dirichlet(markov_alpha) draw (Gamma deviates normalised,
//                rng::gamma); the first token is uniform, then the chain; next-token
//                targets, counted at every position but the last. The best a model
//                can do is the bigram counts of the row so far (markov_counts).
#pragma once

#include <cstdint>
#include <string>

#include "base/random.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"

namespace attn {

// Name of symbol v (0 ≤ v < 62): "a" … "z", "A" … "Z", "0" … "9".
std::string task_symbol(int v);
// The symbol's index, or -1.
int task_symbol_index(const std::string& s);

// A text of n copies of the first symbol: where training needs an experiment
// whose text it does not read (train_init, trainer_key), one valid for any recipe.
std::string untexted_text(int n);

// One row: input, target (seq) and counted (seq, 0 or 1), drawn from g.
void task_row(const train_settings& t, rng& g, int* input, int* target, unsigned char* counted);

// train=markov's row and the chain it followed: transitions (V × V, row-major,
// V = t.vocab) gets each drawn row — the next-token distribution of every token
// the row steps from, drawn when it is first left — and 0 in the rows never left.
// task_row draws the same bits.
void task_markov_row(const train_settings& t, rng& g, int* input, int* target, unsigned char* counted, float* transitions);

// The in-context predictors of the markov task, from a row's prefix and the run's
// α (V ≤ max_vocab): after add(x_0) … add(x_t) they predict x_{t+1} as
//   uniform  1/V
//   unigram  (n_j + α) / (n + Vα)          n_j: the times j is among x_0 … x_t, n = t + 1
//   bigram   (n_ij + α) / (n_i + Vα)       i = x_t; n_ij: the transitions i → j among
//                                          x_0 … x_t, n_i = Σ_j n_ij
// The bigram is the posterior mean of the row's transitions given its prefix: the
// Bayes-optimal prediction of the task. No allocation: fixed arrays.
struct markov_counts {
    int V = 0, n = 0, last = -1;
    double alpha = 1.0;
    int unigram[train_limits::max_vocab] = {};
    int from[train_limits::max_vocab] = {};
    int bigram[train_limits::max_vocab * train_limits::max_vocab] = {};

    void reset(int vocab, double a);
    void add(int token);
    // The three distributions of the next token, V each (add called at least once).
    void predict(double* uniform, double* unigram_p, double* bigram_p) const;
};

// The generator of the training batch of step `step` (0-based) and of the
// held-out set: separate streams of train_seed, so no step's batch depends on
// the ones before it (a run resumes from any step) and the held-out rows are
// never trained on (up to chance repeats of a short row).
rng task_batch_stream(std::uint32_t train_seed, int step);
rng task_eval_stream(std::uint32_t train_seed);

// What keeps the trained model from being traced on e's text: a token that is
// not one of the task's symbols, or more tokens than learned positions. The page
// refuses such an experiment (session.hpp); `attn eval` traces on a held-out row
// instead; training itself never reads the text.
std::vector<std::string> recipe_text_problems(const experiment& e);

}  // namespace attn
