// Reading the circuit: how a trained model computes its answer on one row, in
// the model's own fp32 numbers (docs/circuits.md has the definitions).
//
// Shapes, named once (train/train.hpp's):
//   T  seq (tokens per row)    V  vocab        d  d_model
//   h  heads, d_k = d / h      g  kv_heads     L  layers
//   P  parts of a decomposition (one (T, V) map each)
//
// The model (train/train.hpp): x0 = W_e[token] + positions; per layer
//   attn_res  x_{l+1} = x_l + Σ_h A_h (x_l W_V^j) W_O^h          (no norm, no FFN)
//   full      r = x_l + Σ_h A_h (n(x_l) W_V^j) W_O^h, x_{l+1} = r + relu(n(r) W_1) W_2
//   attn      x_{l+1} = Σ_h A_h (x_l W_V^j) W_O^h                (no residual)
// and logits = x_L W_u, with no norm before W_u in any block. Here W_V^j are the
// columns of K/V head j = h / (h / g) and W_O^h the d_k rows of head h (the slice
// placement itself when W_O is off); n() is RMSNorm without a gain.
//
// Where each decomposition is exact (up to fp32 rounding of the sums):
//   * predictions and the logit lens: the model's own logits / residual stream.
//   * direct logit attribution (circuits_read): exact for every block, because
//     the last residual stream is a plain sum of what was written into it and W_u
//     is linear: x_L = W_e[tok] + pos + Σ_{l,h} head writes (+ Σ_l FFN writes). It
//     is *direct*: a head's effect through later layers is not in its part. With
//     block=full each write was computed through RMSNorm of this row (the norm's
//     scale is the row's, frozen as it was); with block=attn only the last layer
//     writes into the stream the unembedding reads, so only its heads are parts.
//   * path expansion: attn_res with one or two layers only, where the expansion
//     x_2 = x0 + Σ_h y_h + Σ_h' A'_h'((x0 + Σ_h y_h) W_V') W_O' is an identity
//     for the row's attention patterns A held fixed (the patterns themselves
//     depend on the row; the values path is linear). Not computed elsewhere
//     (circuit_read::paths_problem says why).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circuits/predict.hpp"
#include "train/train.hpp"

namespace attn {

// One part of a decomposition: the embedding, the positions, one head's write,
// one FFN's write, or (path expansion) a path through up to two heads.
struct circuit_part {
    enum kind_t { embed, pos, direct, head, ffn, path2 } kind = embed;
    int layer = -1, head_index = -1;  // the head (head, path2: the later head), the FFN's layer
    int layer0 = -1, head0 = -1;      // path2: the earlier head, read through the later one's values
    std::string name;                 // "embed", "pos", "direct", "L0H1", "ffn0", "L0H1>L1H2"
};

// Everything circuits_read computes for one row. Laid out on the first read of a
// model's shape; later reads of the same shape allocate nothing.
struct circuit_read {
    int T = 0, V = 0, L = 0, top_k = 0;
    std::vector<int> tokens, targets;    // (T)
    std::vector<unsigned char> counted;  // (T) 1 where the task counts the prediction
    // Predictions (the model's own logits).
    std::vector<float> logits, probs;  // (T, V)
    std::vector<int> top;              // (T, top_k) tokens by descending probability
    std::vector<float> target_prob;    // (T)
    std::vector<int> target_rank;      // (T) 0 when the target is the top token
    // Direct logit attribution: parts (P) and their contributions (P, T, V),
    // summing over parts to `logits`.
    std::vector<circuit_part> dla_parts;
    std::vector<float> dla;
    // Logit lens: the residual stream after layer l (l = 0 … L−1) times W_u.
    std::vector<float> lens_logits, lens_probs;  // (L, T, V)
    std::vector<int> lens_target_rank;           // (L, T)
    // Path expansion (attn_res, L ≤ 2): parts and contributions (P, T, V) summing to `logits`.
    std::vector<circuit_part> path_parts;
    std::vector<float> paths;
    std::string paths_problem;  // why there is no path expansion, else empty
    // Scratch, and the shape the read was laid out for (heads, d, block).
    std::vector<float> x, y, z, hv;
    int laid_h = 0, laid_d = 0, laid_block = -1;
};

// The row: the held-out row `row` of run's task (0 ≤ row < train_eval_rows).
// False and a message naming the problem when row is outside that set.
bool circuits_read_row(train_run& run, int row, circuit_read& out, std::string* error = nullptr);

// Any row of T tokens (task symbols 0 … V−1) with its targets and counted flags
// (counted may be null: all count). Runs the training forward on it (as
// train_forward_rows: a step in progress is abandoned), then reads every part.
void circuits_read_tokens(train_run& run, const int* tokens, const int* targets, const unsigned char* counted, circuit_read& out);

// The contribution of part p to the logit of token v at position t.
inline float circuit_dla(const circuit_read& r, int p, int t, int v) {
    return r.dla[(std::size_t(p) * std::size_t(r.T) + std::size_t(t)) * std::size_t(r.V) + std::size_t(v)];
}
inline float circuit_path(const circuit_read& r, int p, int t, int v) {
    return r.paths[(std::size_t(p) * std::size_t(r.T) + std::size_t(t)) * std::size_t(r.V) + std::size_t(v)];
}

// --- Composition (weights only) -------------------------------------------------
//
// Per head, with the head's own slices (d × d each):
//   W_OV = W_V^j W_O^h          (d × d_k)(d_k × d)
//   W_QK = W_Q^h (W_K^j)ᵀ       (d × d_k)(d_k × d)
// Row vectors throughout: a head writes x W_OV, and scores q·k = x_i W_QK x_jᵀ.
// For an earlier head a and a later head b, with A = W_OV^a:
//   Q-composition  ‖A W_QK^b‖_F   / (‖A‖_F ‖W_QK^b‖_F)   a's write read by b's queries
//   K-composition  ‖A (W_QK^b)ᵀ‖_F / (‖A‖_F ‖W_QK^b‖_F)  a's write read by b's keys:
//                  the score term is x_i W_QK (y A)ᵀ = x_i (W_QK Aᵀ) yᵀ, and
//                  ‖W_QK Aᵀ‖_F = ‖A W_QKᵀ‖_F
//   V-composition  ‖A W_OV^b‖_F   / (‖A‖_F ‖W_OV^b‖_F)   a's write read by b's values
// Each lies in [0, 1] (Cauchy–Schwarz), 1 when both are rank one and A's row
// space is B's column space. RoPE: W_QK is the product at relative offset 0 (no
// rotation). block=full: the RMSNorm between them scales each position by a
// positive number and has no gain, so it does not change these ratios'
// meaning; the scores ignore it.
struct circuit_composition_pair {
    int layer_a = 0, head_a = 0, layer_b = 0, head_b = 0;
    float q = 0, k = 0, v = 0;
};
struct circuit_baseline {
    float mean = 0, spread = 0;  // mean and standard deviation over the samples
};
struct circuit_composition {
    std::vector<circuit_composition_pair> pairs;  // every (layer_a < layer_b) pair, a's layer, head, then b's
    // The same statistics for random factors of the same shapes (Irwin–Hall
    // normal, base/random.hpp), `samples` draws from `seed`: ≈ 1/√d.
    circuit_baseline q, k, v;
    int samples = 0;
    std::uint64_t seed = 0;
    int baseline_d = 0, baseline_k = 0;  // the shape the baseline was drawn for: kept while it is the same
    std::vector<double> a, b;            // scratch (d_k × d_k)
};
inline constexpr int circuit_baseline_samples = 64;
inline constexpr std::uint64_t circuit_baseline_seed = 0x63697263756974ull;

// Composition scores of run's weights (at its current step) and the random baseline.
void circuits_composition(const train_run& run, circuit_composition& out, int samples = circuit_baseline_samples,
                          std::uint64_t seed = circuit_baseline_seed);

// One head's d × d matrices in double, row-major: W_OV = W_V^j W_O^h, and
// W_QK(δ) = W_Q^h R(δ) (W_K^j)ᵀ with RoPE's rotation R(δ) of each pair of the
// head's d_k columns at relative offset δ = query position − key position (the
// model's q·k at positions i, j is q R(i)·k R(j) = q R(i − j) kᵀ); without RoPE,
// or at δ = 0, R is the identity.
void circuits_head_ov(const train_run& run, int layer, int head, double* dst);
void circuits_head_qk(const train_run& run, int layer, int head, int offset, double* dst);

// One pair's entry, or nullptr.
const circuit_composition_pair* circuit_composition_find(const circuit_composition& c, int layer_a, int head_a, int layer_b,
                                                         int head_b);

}  // namespace attn
