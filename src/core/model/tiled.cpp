// Tiled online-softmax attention and its materialising reference. The tiled
// pass is three SIMD kernels per (query tile, key tile) pair: Q·Kᵀ, the online
// softmax step (kernel_softmax_online: the per-row max, sum and rescale this
// file exists to show, written out in its scalar twin) and weights·V, added onto
// the rescaled output rows (kernel_matmul_scale_acc).
#include "model/tiled.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
// Tiles of 128 rows along a side of 1024 or more: for keys, half as many
// online-softmax steps per query row and rows of exps twice as long; for
// queries, each key tile transposed once per 128 rows. Measured natively with
// AVX-512 (W1, one core): n = 2048 unmasked 7.27 -> 6.79 ms with 128 keys, 6.4
// with 128 queries too; causal 3.78 -> 3.5. At n = 512, 128 keys cost 2 %
// natively and 8 % in wasm (causal), so below 1024 the tiles stay 64 × 64.
int default_tile(int count) { return count >= 1024 ? 128 : 64; }

float scale_for(const attention_options& opt, int d) { return opt.scale != 0.0f ? opt.scale : score_scale_default(d); }

// Query i sees keys [0, visible_keys(i)): all m, or under the end-aligned
// causal mask those with j ≤ i + (m − n).
int visible_keys(int i, int n, int m, bool causal) { return causal ? std::clamp(i + (m - n) + 1, 0, m) : m; }

// Hands out the working buffers and counts every float it hands out. All of them
// live for the whole pass, so the total is also the peak.
struct workspace {
    std::size_t floats = 0;
    std::vector<float> take(std::size_t count) {
        floats += count;
        return std::vector<float>(count);
    }
};

}  // namespace

void attention_tiled(const float* q, const float* k, const float* v, float* o, int n, int m, int d, int d_v,
                     const attention_options& opt, attention_stats* stats, std::vector<tiled_step>* steps) {
    const float scale = scale_for(opt, d);
    const int tq = std::max(1, std::min(opt.tile_q > 0 ? opt.tile_q : default_tile(n), n));
    const int tk = std::max(1, std::min(opt.tile_k > 0 ? opt.tile_k : default_tile(m), m));

    // Working memory: tile-sized only, independent of n and m beyond the clamp above.
    workspace ws;
    std::vector<float> s = ws.take(std::size_t(tq) * std::size_t(tk));     // (tq, tk) scores, then exp weights
    std::vector<float> acc = ws.take(std::size_t(tq) * std::size_t(d_v));  // (tq, d_v) unnormalised output
    std::vector<float> run_max = ws.take(std::size_t(tq));                 // (tq) m_i
    std::vector<float> run_sum = ws.take(std::size_t(tq));                 // (tq) l_i
    std::vector<float> rescale = ws.take(std::size_t(tq));                 // (tq) exp(m_old − m_new)
    std::vector<int> visible(static_cast<std::size_t>(tq));                // (tq) keys of the tile each row sees

    if (steps)
        steps->clear();
    if (stats) {
        stats->row_max.assign(std::size_t(n), neg_inf);
        stats->row_sum.assign(std::size_t(n), 0.0f);
        stats->peak_floats = ws.floats;
    }

    const int q_tiles = (n + tq - 1) / tq, k_tiles = (m + tk - 1) / tk;
    for (int qt = 0; qt < q_tiles; ++qt) {
        const int q0 = qt * tq, qr = std::min(tq, n - q0);
        std::fill(acc.begin(), acc.end(), 0.0f);
        std::fill(run_max.begin(), run_max.end(), neg_inf);
        std::fill(run_sum.begin(), run_sum.end(), 0.0f);
        // Under the causal mask the tile's last query sees the most keys; key
        // tiles starting at or past that are masked for every row of the tile.
        const int keys_seen = visible_keys(q0 + qr - 1, n, m, opt.causal);

        for (int kt = 0; kt < k_tiles; ++kt) {
            const int k0 = kt * tk, kr = std::min(tk, m - k0);
            tiled_step* step = nullptr;
            if (steps) {
                step = &steps->emplace_back();
                step->q_tile = qt;
                step->k_tile = kt;
                step->q0 = q0;
                step->q_rows = qr;
                step->k0 = k0;
                step->k_rows = kr;
                step->max_before.assign(run_max.begin(), run_max.begin() + qr);
                step->sum_before.assign(run_sum.begin(), run_sum.begin() + qr);
            }
            const bool skip = k0 >= keys_seen;
            if (skip) {
                std::fill(rescale.begin(), rescale.end(), 1.0f);
            } else {
                kernel_matmul_bt(q + std::size_t(q0) * std::size_t(d), k + std::size_t(k0) * std::size_t(d), s.data(), qr, kr, d);
                for (int r = 0; r < qr; ++r)
                    visible[std::size_t(r)] = visible_keys(q0 + r, n, m, opt.causal) - k0;
                kernel_softmax_online(s.data(), qr, kr, visible.data(), scale, run_max.data(), run_sum.data(), rescale.data());
                // acc ← acc · exp(m_old − m_new) + weights · V tile, row by row.
                kernel_matmul_scale_acc(s.data(), v + std::size_t(k0) * std::size_t(d_v), acc.data(), qr, kr, d_v,
                                        rescale.data());
            }
            if (step) {
                step->skipped = skip;
                step->max_after.assign(run_max.begin(), run_max.begin() + qr);
                step->sum_after.assign(run_sum.begin(), run_sum.begin() + qr);
                step->rescale.assign(rescale.begin(), rescale.begin() + qr);
            }
        }

        for (int r = 0; r < qr; ++r) {
            const float l = run_sum[std::size_t(r)];
            const float inv = l == 0.0f ? 0.0f : 1.0f / l;  // 0: every key masked; NaN stays NaN
            const float* ar = acc.data() + std::size_t(r) * std::size_t(d_v);
            float* orow = o + std::size_t(q0 + r) * std::size_t(d_v);
            for (int c = 0; c < d_v; ++c)
                orow[c] = ar[c] * inv;
            if (stats) {
                stats->row_max[std::size_t(q0 + r)] = run_max[std::size_t(r)];
                stats->row_sum[std::size_t(q0 + r)] = l;
            }
        }
    }
}

void attention_naive(const float* q, const float* k, const float* v, float* o, int n, int m, int d, int d_v,
                     const attention_options& opt, attention_stats* stats) {
    const float scale = scale_for(opt, d);
    workspace ws;
    std::vector<float> p = ws.take(std::size_t(n) * std::size_t(m));  // (n, m) scores, then weights
    if (stats) {
        stats->row_max.assign(std::size_t(n), neg_inf);
        stats->row_sum.assign(std::size_t(n), 0.0f);
        stats->peak_floats = ws.floats;
    }
    kernel_matmul_bt_naive(q, k, p.data(), n, m, d);
    for (int i = 0; i < n; ++i) {
        float* row = p.data() + std::size_t(i) * std::size_t(m);
        const int vis = visible_keys(i, n, m, opt.causal);
        float mx = neg_inf;
        for (int j = 0; j < m; ++j) {
            row[j] = j < vis ? row[j] * scale : neg_inf;
            mx = std::max(mx, row[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < m; ++j) {
            row[j] = j < vis ? std::exp(row[j] - (mx == neg_inf ? 0.0f : mx)) : 0.0f;  // all −inf: weights 0
            sum += row[j];
        }
        for (int j = 0; j < m; ++j)
            row[j] = sum == 0.0f ? 0.0f : row[j] / sum;  // NaN stays NaN
        if (stats) {
            stats->row_max[std::size_t(i)] = mx;
            stats->row_sum[std::size_t(i)] = sum;
        }
    }
    kernel_matmul_naive(p.data(), v, o, n, m, d_v);
}

}  // namespace attn
