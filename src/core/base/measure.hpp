// The numbers the lessons quote, measured: why divide by √d_k (L2), what a
// softmax row's gradient looks like when it saturates (L2), and what one
// attention layer costs as heads change (L3).
//
// Shapes, named once:
//   n         tokens
//   d_model   width of the residual stream
//   heads     query heads, d_k = d_model / heads each
//   kv_heads  key/value heads (= heads: multi-head; 1: multi-query; between: grouped)
//   m         entries in one softmax row
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace attn {

// --- L2: the size of q·k --------------------------------------------------------

// Dot products of pairs of independent unit-normal vectors of dimension d.
struct dot_stats {
    int d = 0;
    int samples = 0;
    double mean_raw = 0, std_raw = 0;        // of q·k: about 0 and √d
    double mean_scaled = 0, std_scaled = 0;  // of q·k / √d: about 0 and 1
    std::vector<float> raw;                  // (samples) every q·k, for a histogram; divide by √d for the scaled one
};

// Draws `samples` pairs (q, k) from attn::rng(seed) and measures q·k. Deterministic
// in (d, samples, seed) on every platform. d ≥ 1, samples ≥ 2.
dot_stats measure_dot_stats(int d, int samples, std::uint64_t seed);

// Counts of values in `bins` equal bins over [lo, hi); hi itself falls in the last bin.
struct histogram {
    float lo = 0, hi = 0;
    std::vector<int> counts;   // (bins)
    int below = 0, above = 0;  // values outside [lo, hi]; NaNs are not counted anywhere
};

// bins ≥ 1, lo < hi. `scale` multiplies each value first (1/√d turns raw q·k into scaled).
histogram histogram_build(const float* x, std::size_t count, float lo, float hi, int bins, float scale = 1.0f);

// --- L2: a softmax row's Jacobian and entropy --------------------------------------

// ‖J‖_F for J = diag(p) − p pᵀ (m, m), the Jacobian of softmax at output p, in
// closed form: √(Σ_i p_i²(1 − p_i)² + (Σ_i p_i²)² − Σ_i p_i⁴). A saturated row
// (one p_i ≈ 1) has J ≈ 0: no gradient flows back through it.
float softmax_jacobian_norm(const float* p, int m);
// The same by building J (m, m) entry by entry: the reference for the closed form.
float softmax_jacobian_norm_naive(const float* p, int m);

// −Σ p_i ln p_i with 0 · ln 0 = 0, in nats: ln m for a uniform row, 0 for one-hot;
// NaN when any p_i is NaN or ±inf (a NaN row is never shown as certain).
float softmax_row_entropy(const float* p, int m);

// --- L3: what one attention layer costs -------------------------------------------

// Counts for one layer and one sequence. Weights only (no biases). FLOPs count a
// multiply-add as 2. Softmax convention: 5 FLOPs per score (scale by 1/√d_k,
// subtract the row max, exp, add to the row sum, divide), exp counted as one FLOP
// and the max's comparisons not counted.
struct attention_cost {
    int d_k = 0;
    std::int64_t params_q = 0;  // W_q (d_model, d_model)
    std::int64_t params_k = 0;  // W_k (d_model, kv_heads · d_k)
    std::int64_t params_v = 0;  // W_v (d_model, kv_heads · d_k)
    std::int64_t params_o = 0;  // W_o (d_model, d_model)
    std::int64_t params_total = 0;

    std::int64_t flops_projections = 0;   // X·W_q, X·W_k, X·W_v
    std::int64_t flops_scores = 0;        // Q_h·K_hᵀ (n, n) for every head
    std::int64_t flops_softmax = 0;       // 5 per score per head: the one term that grows with heads
    std::int64_t flops_weighted_sum = 0;  // P_h·V_h (n, d_k) for every head
    std::int64_t flops_output = 0;        // concat·W_o
    std::int64_t flops_matmul = 0;        // projections + scores + weighted sum + output
    std::int64_t flops_total = 0;         // flops_matmul + flops_softmax

    std::int64_t bytes_scores_per_head = 0;     // one (n, n) score matrix
    std::int64_t bytes_scores_all_heads = 0;    // heads of them, held at once
    std::int64_t bytes_kv_cache_per_token = 0;  // K and V rows: 2 · kv_heads · d_k values
};

// nullopt unless n ≥ 1, heads ≥ 1, kv_heads ≥ 1, heads divides d_model and
// kv_heads divides heads. bytes_per_value: 4 for fp32, 2 for fp16/bf16 (precision_bytes).
std::optional<attention_cost> measure_attention_cost(int n, int d_model, int heads, int kv_heads, int bytes_per_value = 4);

}  // namespace attn
