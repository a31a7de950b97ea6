// KV-cache decoding (SIMD kernels) and the full-sequence causal pass it must
// reproduce (scalar kernels).
#include "model/decode.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

float scale_for(float scale, int d_k) { return scale != 0.0f ? scale : score_scale_default(d_k); }

// Columns [c0, c0 + w) of the (rows, stride) matrix a, packed into (rows, w).
std::vector<float> take_columns(const float* a, int rows, int stride, int c0, int w) {
    std::vector<float> out(std::size_t(rows) * std::size_t(w));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < w; ++c)
            out[std::size_t(r * w + c)] = a[std::size_t(r) * std::size_t(stride) + std::size_t(c0 + c)];
    return out;
}

}  // namespace

kv_cache::kv_cache(int kv_heads, int d_k)
    : kv_heads(kv_heads), d_k(d_k), k(std::size_t(kv_heads), matrix(0, d_k)), v(std::size_t(kv_heads), matrix(0, d_k)) {}

void kv_cache_append(kv_cache& cache, const float* k, const float* v) {
    const std::size_t dk = std::size_t(cache.d_k);
    for (std::size_t g = 0; g < std::size_t(cache.kv_heads); ++g) {
        matrix& kg = cache.k[g];
        matrix& vg = cache.v[g];
        kg.data.insert(kg.data.end(), k + g * dk, k + (g + 1) * dk);
        vg.data.insert(vg.data.end(), v + g * dk, v + (g + 1) * dk);
        ++kg.rows;
        ++vg.rows;
    }
}

// The query heads of group g are rows [g·group, (g+1)·group) of q, contiguous,
// so one Q·Kᵀ and one weights·V per KV head serve the whole group: K_g and V_g
// are streamed once per step, not once per query head. The softmax is the
// online step of the tiled pass over a single tile (scale, max, exp, sum in two
// sweeps, no normalising sweep): the group's rows of exp weights go through ·V
// as they are and each output row is divided by its sum at the end, d_k
// divisions instead of t.
std::size_t decode_step(kv_cache& cache, const float* q, const float* k, const float* v, float* out, int h, float scale,
                        precision prec) {
    assert(cache.kv_heads > 0 && h % cache.kv_heads == 0);
    kv_cache_append(cache, k, v);
    const int t = cache.tokens(), dk = cache.d_k, group = h / cache.kv_heads;
    const float s = scale_for(scale, dk);
    const std::size_t rows = static_cast<std::size_t>(group);
    kv_cache::workspace& w = cache.work;
    w.weights.resize(rows * std::size_t(t));  // (group, t)
    w.row_max.resize(rows);
    w.row_sum.resize(rows);
    w.rescale.resize(rows);
    w.visible.assign(rows, t);
    float* weights = w.weights.data();
    for (int g = 0; g < cache.kv_heads; ++g) {
        const std::size_t first = std::size_t(g) * std::size_t(group) * std::size_t(dk);
        kernel_matmul_bt(q + first, cache.k[std::size_t(g)].data.data(), weights, group, t, dk);
        if (prec != precision::fp32) {  // as the full pass stores each step: scores, scaled, weights
            const std::size_t cells = rows * std::size_t(t);
            round_all(prec, weights, cells);
            for (std::size_t i = 0; i < cells; ++i)
                weights[i] = round_to(prec, weights[i] * s);
            softmax_rows_rounded(weights, group, t, true, prec);
            kernel_matmul(weights, cache.v[std::size_t(g)].data.data(), out + first, group, t, dk);
            continue;
        }
        std::fill(w.row_max.begin(), w.row_max.end(), -std::numeric_limits<float>::infinity());
        std::fill(w.row_sum.begin(), w.row_sum.end(), 0.0f);
        kernel_softmax_online(weights, group, t, w.visible.data(), s, w.row_max.data(), w.row_sum.data(), w.rescale.data());
        kernel_matmul(weights, cache.v[std::size_t(g)].data.data(), out + first, group, t, dk);
        for (int r = 0; r < group; ++r) {
            float* row = out + first + std::size_t(r) * std::size_t(dk);
            const float sum = w.row_sum[std::size_t(r)];
            const float inv = sum == 0.0f ? 0.0f : 1.0f / sum;  // 0: every score −inf, as a masked row; NaN stays NaN
            for (int c = 0; c < dk; ++c)
                row[c] *= inv;
        }
    }
    return std::size_t(t) * std::size_t(cache.kv_heads) * std::size_t(dk) * 2 * sizeof(float);
}

void attention_grouped_causal_naive(const float* q, const float* k, const float* v, float* out, int n, int h, int kv_heads,
                                    int d_k, float scale) {
    assert(kv_heads > 0 && h % kv_heads == 0);
    const int group = h / kv_heads;
    const float s = scale_for(scale, d_k);
    std::vector<float> weights(std::size_t(n) * std::size_t(n));  // (n, n)
    std::vector<float> out_h(std::size_t(n) * std::size_t(d_k));  // (n, d_k)
    for (int head = 0; head < h; ++head) {
        const int g = head / group;
        const auto q_h = take_columns(q, n, h * d_k, head * d_k, d_k);
        const auto k_g = take_columns(k, n, kv_heads * d_k, g * d_k, d_k);
        const auto v_g = take_columns(v, n, kv_heads * d_k, g * d_k, d_k);
        kernel_matmul_bt_naive(q_h.data(), k_g.data(), weights.data(), n, n, d_k);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                float& w = weights[std::size_t(i) * std::size_t(n) + std::size_t(j)];
                w = j <= i ? w * s : -std::numeric_limits<float>::infinity();
            }
        kernel_softmax_rows_naive(weights.data(), n, n, true);
        kernel_matmul_naive(weights.data(), v_g.data(), out_h.data(), n, n, d_k);
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < d_k; ++c)
                out[std::size_t(i) * std::size_t(h * d_k) + std::size_t(head * d_k + c)] = out_h[std::size_t(i * d_k + c)];
    }
}

}  // namespace attn
