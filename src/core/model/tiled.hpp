// Attention computed tile by tile with an online softmax (the FlashAttention
// idea), next to the plain pass that materialises the whole score matrix.
//
// Shapes:
//   n     queries, Q (n, d)
//   m     keys,    K (m, d), V (m, d_v)
//   d     width of a query/key row, d_v width of a value row
//   O (n, d_v) = softmax(mask(Q·Kᵀ · scale)) · V
//
// The tiled pass walks query tiles (tile_q rows) and, for each, streams the key
// tiles (tile_k rows of K and V). Each query row keeps a running max m_i and a
// running sum l_i = Σ exp(s_ij − m_i) over the keys seen so far, plus an
// unnormalised output row. When a tile raises the max from m_old to m_new, what
// was accumulated is rescaled by exp(m_old − m_new) before the tile's terms are
// added; after the last tile the output row is divided by l_i. Working memory is
// a few tiles, whatever n and m are: the n×m matrix never exists.
//
// Causal mask, aligned to the end: query i sees key j iff j ≤ i + (m − n). With
// n = m that is the usual j ≤ i; with m > n the queries are the last n tokens of
// a sequence whose first m − n tokens are only keys (a prompt already in a
// cache). A query that sees no key at all (possible when m < n) gets a zero
// output row, max −inf and sum 0, like a fully masked row in kernel_softmax_rows.
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

// Zero means "the usual choice" for every field.
struct attention_options {
    float scale = 0.0f;   // multiplies Q·Kᵀ; 0 → 1/√d
    bool causal = false;  // mask as described above
    int tile_q = 0;       // query rows per tile (tiled pass only); 0 → 64, or 128 from 1024 queries on
    int tile_k = 0;       // key rows per tile (tiled pass only); 0 → 64, or 128 from 1024 keys on
};

// What a pass reports beside O.
struct attention_stats {
    std::vector<float> row_max;   // (n) max_j of the masked, scaled scores; −inf if row i sees no key
    std::vector<float> row_sum;   // (n) Σ_j exp(s_ij − row_max_i); 0 if row i sees no key
    std::size_t peak_floats = 0;  // working floats the pass allocated (not Q, K, V, O, nor these stats)
    std::size_t peak_bytes() const { return peak_floats * sizeof(float); }
};

// One (query tile, key tile) pair the tiled pass visited, in visiting order.
// The vectors have one entry per row of the query tile.
struct tiled_step {
    int q_tile = 0, k_tile = 0;                // tile indices
    int q0 = 0, q_rows = 0;                    // queries [q0, q0 + q_rows)
    int k0 = 0, k_rows = 0;                    // keys [k0, k0 + k_rows)
    bool skipped = false;                      // causal and every (query, key) pair masked: no work done, nothing changes
    std::vector<float> max_before, max_after;  // running max m_i
    std::vector<float> sum_before, sum_after;  // running sum l_i
    std::vector<float> rescale;                // exp(m_old − m_new), applied to l_i and the output row; 1 if skipped
};

// o(n, d_v) ← attention of q(n, d) over k(m, d), v(m, d_v), tile by tile.
// stats and steps are optional; steps, when given, is cleared and filled.
void attention_tiled(const float* q, const float* k, const float* v, float* o, int n, int m, int d, int d_v,
                     const attention_options& opt, attention_stats* stats = nullptr, std::vector<tiled_step>* steps = nullptr);

// The same result the plain way: the full (n, m) score matrix, masked, softmaxed
// row by row, times V, with the scalar kernels. The reference for the tiled pass.
void attention_naive(const float* q, const float* k, const float* v, float* o, int n, int m, int d, int d_v,
                     const attention_options& opt, attention_stats* stats = nullptr);

}  // namespace attn
