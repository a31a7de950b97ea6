// SIMD kernels over xsimd::batch<float> for the architecture this file is built
// for (wasm simd128 under -msimd128; SSE2/AVX natively). Each loop runs whole
// batches first and finishes with a scalar tail, so any size works.
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels.hpp"

namespace attn {

namespace {
using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);
}  // namespace

const char* kernel_arch_name() { return xsimd::default_arch::name(); }

// Row i of c is Σ_p a[i,p] · b[p,:]: a broadcast multiply-add over contiguous rows
// of b, so every load is unit-stride.
void kernel_matmul(const float* a, const float* b, float* c, int n, int k, int m) {
    const int mv = m - m % W;
    for (int i = 0; i < n; ++i) {
        float* ci = c + i * m;
        for (int j = 0; j < m; ++j)
            ci[j] = 0.0f;
        for (int p = 0; p < k; ++p) {
            const float aip = a[i * k + p];
            const float* bp = b + p * m;
            const batch av(aip);
            int j = 0;
            for (; j < mv; j += W) {
                batch acc = batch::load_unaligned(ci + j);
                acc = xsimd::fma(av, batch::load_unaligned(bp + j), acc);
                acc.store_unaligned(ci + j);
            }
            for (; j < m; ++j)
                ci[j] += aip * bp[j];
        }
    }
}

// Dot products of rows: two independent accumulators hide the add latency.
void kernel_matmul_bt(const float* a, const float* b, float* c, int n, int m, int d) {
    const int d2 = d - d % (2 * W);
    const int d1 = d - d % W;
    for (int i = 0; i < n; ++i) {
        const float* ai = a + i * d;
        for (int j = 0; j < m; ++j) {
            const float* bj = b + j * d;
            batch acc0(0.0f), acc1(0.0f);
            int p = 0;
            for (; p < d2; p += 2 * W) {
                acc0 = xsimd::fma(batch::load_unaligned(ai + p), batch::load_unaligned(bj + p), acc0);
                acc1 = xsimd::fma(batch::load_unaligned(ai + p + W), batch::load_unaligned(bj + p + W), acc1);
            }
            for (; p < d1; p += W)
                acc0 = xsimd::fma(batch::load_unaligned(ai + p), batch::load_unaligned(bj + p), acc0);
            float s = xsimd::reduce_add(acc0 + acc1);
            for (; p < d; ++p)
                s += ai[p] * bj[p];
            c[i * m + j] = s;
        }
    }
}

void kernel_softmax_rows(float* x, int n, int m, bool subtract_max) {
    const int mv = m - m % W;
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
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

}  // namespace attn
