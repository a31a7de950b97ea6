// Activation patching between a clean and a corrupted row of one shape: which
// activation, copied from the clean run into the corrupted one, brings the clean
// answer back (docs/circuits.md has the definitions).
//
// Shapes: T seq, V vocab, d d_model, h heads (d_k = d / h), L layers; the stream
// x_s (s = 0 … L) is the residual stream before layer s: x_0 the embedding and
// positions, x_{l+1} the stream after layer l (x_L what W_u reads).
//
// The metric (one number per run): the logit difference
//   LD = mean over the metric positions t of logit_t[a_t] − logit_t[b_t]
// with a_t the clean row's target and b_t the corrupted row's, the positions t
// those counted in both rows where a_t ≠ b_t; and a patch's recovery
//   (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)
// 0: the patch changes nothing, 1: the clean answer is back (NaN when
// LD_clean = LD_corrupt).
//
// Every run is the training forward's arithmetic (the same kernels in the same
// order on fp32, checked against train_logits by the tests) with the patches
// applied; a patched run starts at the first layer a patch touches, the layers
// before it are the corrupted run's.
#pragma once

#include <string>
#include <vector>

#include "train/train.hpp"

namespace attn {

// One intervention on the corrupted run.
struct circuit_patch {
    enum kind_t {
        head_out,  // head (layer, head)'s output (before W_O) at `pos` ← the clean run's
        resid,     // the stream x_s (s = layer, 0 … L) at `pos` ← the clean run's
        path,      // one input (q, k or v) of the receiver head (layer, head) reads
                   // x_layer + write_sender(clean) − write_sender(corrupt), x_layer the
                   // stream this run has there (the corrupted run's when no earlier patch
                   // changed it); every other reader of the stream sees it unchanged
    } kind = head_out;
    int layer = 0, head = 0;
    int pos = -1;                           // one position; −1 every position (head_out, resid)
    int sender_layer = 0, sender_head = 0;  // path: the earlier head whose write is swapped
    char input = 'k';                       // path: 'q', 'k' or 'v'
};

// One (sender, receiver) pair of path patching and its recovery per receiver input.
struct circuit_path_recovery {
    int layer_a = 0, head_a = 0, layer_b = 0, head_b = 0;
    float q = 0, k = 0, v = 0;
};

struct circuit_patching {
    int T = 0, V = 0, L = 0, h = 0, d = 0;
    std::vector<int> clean_tokens, corrupt_tokens;  // (T)
    std::vector<int> clean_answer, corrupt_answer;  // (T) a_t, b_t
    std::vector<int> positions;                     // the metric positions, ascending
    std::string corruption;                         // how the corrupted row was made (circuits_patching_row), else empty
    double ld_clean = 0, ld_corrupt = 0;
    std::vector<float> clean_logits, corrupt_logits, patched_logits;  // (T, V); patched: the last run
    // Recovery of each single patch (NaN where undefined), the last column (index T)
    // patching every position at once:
    std::vector<float> heads;                  // (L, h, T + 1) head_out
    std::vector<float> resid;                  // (L + 1, T + 1) the stream x_s
    std::vector<circuit_path_recovery> paths;  // every pair whose sender writes into the receiver's input stream
    circuit_path_recovery paths_all;           // every pair of `paths` patched at once, per input (layers and heads −1)
    // The two runs' streams and head outputs, and scratch: laid out on the first
    // call for a shape, reused after.
    std::vector<float> clean_x, corrupt_x;      // (L + 1, T, d)
    std::vector<float> clean_cat, corrupt_cat;  // (L, T, d) heads' outputs side by side
    std::vector<float> corrupt_qkv;             // (L, h + 2g, T, d_k) the corrupted run's queries, keys, values
    std::vector<float> cur, nxt, normed, mq, mk, mv, qh, kh, vh, att, out, cat, attn_out, res, hid, own, split, delta;
    int laid_T = 0, laid_d = 0, laid_L = 0, laid_h = 0, laid_V = 0, laid_f = 0, laid_g = 0;
    // circuits_patching_row's two rows (a clean, b corrupted) and the corruption's text.
    std::vector<int> a_tokens, a_targets, b_tokens, b_targets;
    std::vector<unsigned char> a_counted, b_counted;
    std::string b_how;
    std::vector<circuit_patch> all;  // scratch: the patches of paths_all
};

// The induction task's corruption of held-out row `row` (0 ≤ row < train_eval_rows):
// two symbols of the segment's first occurrence, k < m with m − k ≥ 2 and both
// followed by another segment symbol (k, m ≤ len − 2), drawn from
// train_seed and the row, swap places. The repeat of each then matches the other's
// position, whose next token (not itself swapped) is the corrupted answer: the
// tokens read there are the clean run's, only what the key positions' previous
// tokens are has changed. The corrupted row's targets are those answers, and it counts
// the two repeats (the positions whose match moved). False and a message naming the
// problem for another task, a row outside the set, or a segment shorter than 4.
bool circuits_corrupt_row(const train_run& run, int row, std::vector<int>& tokens, std::vector<int>& targets,
                          std::vector<unsigned char>& counted, std::string* error = nullptr, std::string* how = nullptr);

// Patching between any two rows of T task symbols (with their targets and counted
// flags): both runs, the metric, every head_out and resid patch at each position
// and at all, every path patch. False and a message naming the problem for rows of
// different shapes, of another length than the model's, a token outside the
// vocabulary, or no metric position.
bool circuits_patching(const train_run& run, const std::vector<int>& clean_tokens, const std::vector<int>& clean_targets,
                       const std::vector<unsigned char>& clean_counted, const std::vector<int>& corrupt_tokens,
                       const std::vector<int>& corrupt_targets, const std::vector<unsigned char>& corrupt_counted,
                       circuit_patching& out, std::string* error = nullptr);

// Held-out row `row` against its task corruption (circuits_corrupt_row).
bool circuits_patching_row(const train_run& run, int row, circuit_patching& out, std::string* error = nullptr);

// Held-out row `row` (clean) against held-out row `other` (corrupted; `attn circuits
// --corrupt row:N`), corruption "held-out row N". False and a message naming the
// problem for a row outside the held-out set, or as circuits_patching. Both rows are
// copied into out's scratch: a later call of the same shape allocates nothing.
bool circuits_patching_rows(const train_run& run, int row, int other, circuit_patching& out, std::string* error = nullptr);

// One run of the corrupted row with the given patches (after circuits_patching
// laid out both runs): its logits into out.patched_logits; returns its LD. NaN, and
// nothing run, when a patch names a layer, head or position the model does not have,
// a path's sender is not in an earlier layer than its receiver, or its input is not
// q, k or v.
double circuits_patch_run(const train_run& run, circuit_patching& out, const circuit_patch* patches, int count);

// The recovery of an LD against out's clean and corrupted runs.
float circuits_recovery(const circuit_patching& out, double ld);

// Index of head_out's recovery for (layer, head, pos), pos = T for every position.
inline std::size_t circuit_patch_head_index(const circuit_patching& p, int layer, int head, int pos) {
    return (std::size_t(layer) * std::size_t(p.h) + std::size_t(head)) * std::size_t(p.T + 1) + std::size_t(pos);
}

}  // namespace attn
