// SIMD kernels over xsimd::batch<float> for the architecture this file is built
// for (wasm simd128 under -msimd128; SSE2/AVX natively). Each loop runs whole
// batches first and finishes with a scalar tail, so any size works.
//
// Shapes as in kernels.hpp. W is the batch width (4 floats for wasm and SSE).
//
// [SECTION] products: register tiles
//   The two products keep a small block of c in registers while they walk the
//   shared dimension, so each loaded value feeds several multiply-adds and there
//   are enough independent accumulators to hide the add latency (wasm simd128
//   has no fused multiply-add on this toolchain: xsimd::fma is a multiply and an
//   add there, and each add chain waits on the previous add).
// [SECTION] softmax: whole rows, and the online step of the tiled pass
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels.hpp"

namespace attn {

namespace {
using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);
constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// --- [SECTION] products: register tiles ---------------------------------------

// c[0..R)[j..j + C·W) (+)= a[0..R)[p0..p1) · b[p0..p1)[j..j + C·W): R rows of a
// (row stride lda), b and c with row stride ldb / ldc. R·C accumulators live in
// registers for the whole walk over p; each step loads C batches of b and
// broadcasts R scalars of a.
template <int R, int C>
inline void matmul_tile(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int p0, int p1, bool accumulate) {
    batch acc[R][C];
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < C; ++q)
            acc[r][q] = accumulate ? batch::load_unaligned(c + r * ldc + q * W) : batch(0.0f);
    for (int p = p0; p < p1; ++p) {
        const float* bp = b + p * ldb;
        batch bv[C];
        for (int q = 0; q < C; ++q)
            bv[q] = batch::load_unaligned(bp + q * W);
        for (int r = 0; r < R; ++r) {
            const batch ar(a[r * lda + p]);
            for (int q = 0; q < C; ++q)
                acc[r][q] = xsimd::fma(ar, bv[q], acc[r][q]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < C; ++q)
            acc[r][q].store_unaligned(c + r * ldc + q * W);
}

// R rows of c over columns [0, width) (b and c of row stride ld), shared
// dimension [p0, p1). Fewer rows get wider column blocks so that there are
// always about eight accumulators.
template <int R>
void matmul_rows(const float* a, int lda, const float* b, int ld, int width, float* c, int p0, int p1, bool accumulate) {
    constexpr int C = R >= 3 ? 2 : 8 / R;
    int j = 0;
    for (; j + C * W <= width; j += C * W)
        matmul_tile<R, C>(a, lda, b + j, ld, c + j, ld, p0, p1, accumulate);
    for (; j + W <= width; j += W)
        matmul_tile<R, 1>(a, lda, b + j, ld, c + j, ld, p0, p1, accumulate);
    for (; j < width; ++j)
        for (int r = 0; r < R; ++r) {
            float s = accumulate ? c[r * ld + j] : 0.0f;
            for (int p = p0; p < p1; ++p)
                s += a[r * lda + p] * b[p * ld + j];
            c[r * ld + j] = s;
        }
}

constexpr int k_block = 128;
constexpr int m_block = 64;

// c[0..R)[j0..j0 + W) = a[0..R) · b[j0..j0 + W)ᵀ: R rows of a against W rows of b
// (all rows of stride d). R·W accumulators, one per output; haddp folds the W
// accumulators of a row into one batch of W dot products.
template <int R>
inline void matmul_bt_tile(const float* a, const float* b, float* c, int ldc, int d) {
    batch acc[R][W];
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < W; ++q)
            acc[r][q] = batch(0.0f);
    const int dv = d - d % W;
    for (int p = 0; p < dv; p += W) {
        batch av[R];
        for (int r = 0; r < R; ++r)
            av[r] = batch::load_unaligned(a + r * d + p);
        for (int q = 0; q < W; ++q) {
            const batch bq = batch::load_unaligned(b + q * d + p);
            for (int r = 0; r < R; ++r)
                acc[r][q] = xsimd::fma(av[r], bq, acc[r][q]);
        }
    }
    for (int r = 0; r < R; ++r) {
        batch sums = xsimd::haddp(acc[r]);
        if (dv < d) {
            alignas(64) float tail[W];
            for (int q = 0; q < W; ++q) {
                float s = 0.0f;
                for (int p = dv; p < d; ++p)
                    s += a[r * d + p] * b[q * d + p];
                tail[q] = s;
            }
            sums += batch::load_aligned(tail);
        }
        sums.store_unaligned(c + r * ldc);
    }
}

// One dot product of length d, vectorised, with four accumulators.
inline float dot(const float* x, const float* y, int d) {
    batch acc[4] = {batch(0.0f), batch(0.0f), batch(0.0f), batch(0.0f)};
    int p = 0;
    for (; p + 4 * W <= d; p += 4 * W)
        for (int q = 0; q < 4; ++q)
            acc[q] = xsimd::fma(batch::load_unaligned(x + p + q * W), batch::load_unaligned(y + p + q * W), acc[q]);
    for (; p + W <= d; p += W)
        acc[0] = xsimd::fma(batch::load_unaligned(x + p), batch::load_unaligned(y + p), acc[0]);
    float s = xsimd::reduce_add((acc[0] + acc[1]) + (acc[2] + acc[3]));
    for (; p < d; ++p)
        s += x[p] * y[p];
    return s;
}

// Rows per matmul_bt tile: R·W accumulators plus R + 1 loaded batches must fit
// the register file (16 vector registers for SSE and for wasm on x86-64).
constexpr int bt_rows = W >= 8 ? 1 : 2;

}  // namespace

const char* kernel_arch_name() { return xsimd::default_arch::name(); }

void kernel_matmul(const float* a, const float* b, float* c, int n, int k, int m) {
    if (k == 0) {
        std::fill(c, c + n * m, 0.0f);
        return;
    }
    // Blocks of b (k_block × m_block floats, 32 KB) stay in L1 while every row
    // block of a goes over them.
    for (int p0 = 0; p0 < k; p0 += k_block) {
        const int p1 = std::min(k, p0 + k_block);
        const bool accumulate = p0 > 0;
        for (int j0 = 0; j0 < m; j0 += m_block) {
            const int mj = std::min(m_block, m - j0);
            int i = 0;
            for (; i + 4 <= n; i += 4)
                matmul_rows<4>(a + i * k, k, b + j0, m, mj, c + i * m + j0, p0, p1, accumulate);
            const float* ai = a + i * k;
            float* ci = c + i * m + j0;
            switch (n - i) {
                case 3:
                    matmul_rows<3>(ai, k, b + j0, m, mj, ci, p0, p1, accumulate);
                    break;
                case 2:
                    matmul_rows<2>(ai, k, b + j0, m, mj, ci, p0, p1, accumulate);
                    break;
                case 1:
                    matmul_rows<1>(ai, k, b + j0, m, mj, ci, p0, p1, accumulate);
                    break;
                default:
                    break;
            }
        }
    }
}

void kernel_matmul_bt(const float* a, const float* b, float* c, int n, int m, int d) {
    // Keys in blocks of m_block rows: a block of b stays in L1 while every row
    // pair of a goes over it, so b is read from memory once (decoding: K once
    // per step, whatever the group size).
    for (int j0 = 0; j0 < m; j0 += m_block) {
        const int j1 = std::min(m, j0 + m_block), jv = j0 + (j1 - j0) / W * W;
        int i = 0;
        for (; i + bt_rows <= n; i += bt_rows) {
            for (int j = j0; j < jv; j += W)
                matmul_bt_tile<bt_rows>(a + i * d, b + j * d, c + i * m + j, m, d);
            for (int r = 0; r < bt_rows; ++r)
                for (int j = jv; j < j1; ++j)
                    c[(i + r) * m + j] = dot(a + (i + r) * d, b + j * d, d);
        }
        for (; i < n; ++i) {
            for (int j = j0; j < jv; j += W)
                matmul_bt_tile<1>(a + i * d, b + j * d, c + i * m + j, m, d);
            for (int j = jv; j < j1; ++j)
                c[i * m + j] = dot(a + i * d, b + j * d, d);
        }
    }
}

// --- [SECTION] softmax --------------------------------------------------------

namespace {

// e^x for x ≤ 0 (what a softmax with its max subtracted sees), within 2 ulp of
// std::exp; below −87 (where e^x leaves the normal floats) it gives exactly 0.
// Cody–Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, Cephes' degree-6 polynomial
// for e^r, and 2^n built in the exponent bits. About 20 vector operations:
// several times fewer than the general xsimd::exp, which must also handle
// overflow, NaN and x > 0.
//
// It works on U batches at once, step by step across them: each e^x is a chain of
// some twenty dependent operations, and interleaving independent chains in the
// instruction stream is what lets the core overlap them (V8 barely reorders).
template <int U>
inline void exp_nonpositive(batch* x) {
    using ibatch = xsimd::batch<std::int32_t>;
    const batch round_magic(12582912.0f);  // 1.5·2^23: adding it rounds to an integer in the low mantissa bits
    const batch lo(-87.0f), log2e(1.44269504088896341f), ln2_hi(0.693359375f), ln2_lo(-2.12194440e-4f);
    decltype(x[0] < lo) underflow[U];
    batch t[U], r[U], p[U];
    for (int u = 0; u < U; ++u) {
        underflow[u] = x[u] < lo;
        t[u] = xsimd::fma(xsimd::max(x[u], lo), log2e, round_magic);
    }
    for (int u = 0; u < U; ++u) {
        const batch n = t[u] - round_magic;
        r[u] = xsimd::fnma(n, ln2_lo, xsimd::fnma(n, ln2_hi, xsimd::max(x[u], lo)));  // x − n·ln2, ln2 in two parts
        p[u] = batch(1.9875691500e-4f);
    }
    for (const float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
        for (int u = 0; u < U; ++u)
            p[u] = xsimd::fma(p[u], r[u], batch(c));
    for (int u = 0; u < U; ++u) {
        p[u] = xsimd::fma(p[u] * r[u], r[u], r[u]) + batch(1.0f);
        // 2^n: n + 127 in the exponent field; n ≥ −126 after the clamp.
        const ibatch n_int = xsimd::bitwise_cast<std::int32_t>(t[u]) - xsimd::bitwise_cast<std::int32_t>(round_magic);
        x[u] = xsimd::select(underflow[u], batch(0.0f), p[u] * xsimd::bitwise_cast<float>((n_int + ibatch(127)) << 23));
    }
}

inline float exp_nonpositive(float x) {
    batch b(x);
    exp_nonpositive<1>(&b);
    return b.get(0);
}

}  // namespace

void kernel_softmax_rows(float* x, int n, int m, bool subtract_max) {
    const int mv = m - m % W;
    for (int i = 0; i < n; ++i) {
        float* r = x + i * m;
        float mx = neg_inf;
        {
            batch bm(neg_inf);
            int j = 0;
            for (; j < mv; j += W)
                bm = xsimd::max(bm, batch::load_unaligned(r + j));
            mx = xsimd::reduce_max(bm);
            for (; j < m; ++j)
                mx = std::fmax(mx, r[j]);
        }
        if (mx == neg_inf) {
            for (int j = 0; j < m; ++j)
                r[j] = 0.0f;
            continue;
        }
        const float shift = subtract_max ? mx : 0.0f;
        const batch bs(shift);
        batch bsum(0.0f);
        int j = 0;
        if (subtract_max)  // every x − max ≤ 0: the short exp, four batches at a time
            for (; j + 4 * W <= mv; j += 4 * W) {
                batch e[4];
                for (int u = 0; u < 4; ++u)
                    e[u] = batch::load_unaligned(r + j + u * W) - bs;
                exp_nonpositive<4>(e);
                for (int u = 0; u < 4; ++u) {
                    e[u].store_unaligned(r + j + u * W);
                    bsum += e[u];
                }
            }
        for (; j < mv; j += W) {
            const batch e = xsimd::exp(batch::load_unaligned(r + j) - bs);
            e.store_unaligned(r + j);
            bsum += e;
        }
        float sum = xsimd::reduce_add(bsum);
        for (; j < m; ++j) {
            r[j] = std::exp(r[j] - shift);
            sum += r[j];
        }
        const batch inv(1.0f / sum);
        j = 0;
        for (; j < mv; j += W)
            (batch::load_unaligned(r + j) * inv).store_unaligned(r + j);
        for (; j < m; ++j)
            r[j] *= 1.0f / sum;
    }
}

void kernel_softmax_online(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale) {
    const batch bscale(scale);
    for (int r = 0; r < rows; ++r) {
        float* sr = s + r * cols;
        const int vis = std::clamp(visible[r], 0, cols);
        const int vv = vis - vis % W;
        // Pass 1: the tile's max of the scaled scores (stored scaled only when
        // the scale is not positive, where max(s·scale) ≠ scale·max(s)).
        float tile_max = neg_inf;
        int j = 0;
        if (scale > 0.0f) {
            batch bm(neg_inf);
            for (; j < vv; j += W)
                bm = xsimd::max(bm, batch::load_unaligned(sr + j));
            float raw_max = xsimd::reduce_max(bm);
            for (; j < vis; ++j)
                raw_max = std::max(raw_max, sr[j]);
            tile_max = raw_max * scale;
        } else {
            batch bm(neg_inf);
            for (; j < vv; j += W) {
                const batch x = batch::load_unaligned(sr + j) * bscale;
                x.store_unaligned(sr + j);
                bm = xsimd::max(bm, x);
            }
            tile_max = xsimd::reduce_max(bm);
            for (; j < vis; ++j) {
                sr[j] *= scale;
                tile_max = std::max(tile_max, sr[j]);
            }
        }
        const float m_old = row_max[r];
        const float m_new = std::max(m_old, tile_max);
        // While a row has seen no key its max stays −inf and there is nothing
        // to rescale (exp(−inf − (−inf)) would be NaN).
        const float alpha = m_new == neg_inf ? 1.0f : exp_nonpositive(m_old - m_new);
        // Pass 2: weights and their sum.
        const batch bnew(m_new), bmul(scale > 0.0f ? scale : 1.0f);
        batch bsum(0.0f);
        j = 0;
        for (; j + 4 * W <= vv; j += 4 * W) {
            batch e[4];
            for (int u = 0; u < 4; ++u)
                e[u] = batch::load_unaligned(sr + j + u * W) * bmul - bnew;
            exp_nonpositive<4>(e);
            for (int u = 0; u < 4; ++u) {
                e[u].store_unaligned(sr + j + u * W);
                bsum += e[u];
            }
        }
        for (; j < vv; j += W) {
            batch e = batch::load_unaligned(sr + j) * bmul - bnew;
            exp_nonpositive<1>(&e);
            e.store_unaligned(sr + j);
            bsum += e;
        }
        if (j < vis) {  // the last vis − vv < W weights, through one padded batch
            alignas(64) float tail[W];
            for (int q = 0; q < W; ++q)
                tail[q] = j + q < vis ? sr[j + q] : neg_inf;  // → exp(−inf) = 0
            batch e = batch::load_aligned(tail) * bmul - bnew;
            exp_nonpositive<1>(&e);
            e.store_aligned(tail);
            bsum += e;
            for (; j < vis; ++j)
                sr[j] = tail[j - vv];
        }
        const float tile_sum = xsimd::reduce_add(bsum);
        for (; j < cols; ++j)
            sr[j] = 0.0f;
        row_max[r] = m_new;
        row_sum[r] = row_sum[r] * alpha + tile_sum;
        rescale[r] = alpha;
    }
}

}  // namespace attn
