// The backward kernels over xsimd::batch<float>, built once per instruction set
// (CMakeLists.txt: attn_train_kernels_<set>, with the forward kernels' flags)
// into the train_kernel_set named by ATTN_TRAIN_KERNEL_SET. Everything else here
// has internal linkage, so the copies never meet. Whole batches first, then a
// scalar tail: any size works. Shapes as in train_kernels.hpp.
#include <cmath>
#include <xsimd/xsimd.hpp>

#include "train_kernel_set.hpp"

#ifndef ATTN_TRAIN_KERNEL_SET
#error "build train_kernels_simd.cpp with ATTN_TRAIN_KERNEL_SET=<name of its train_kernel_set>"
#endif

namespace attn {

namespace {
using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);

// c(k, m) += a(n, k)ᵀ · b(n, m): for each row r of a and b, c's row p gets
// a(r, p) · b's row r, an axpy along m. Two rows of c at a time share each load of b.
void matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m) {
    const int mv = m - m % W;
    for (int r = 0; r < n; ++r) {
        const float* br = b + r * m;
        const float* ar = a + r * k;
        int p = 0;
        for (; p + 2 <= k; p += 2) {
            const float s0 = ar[p], s1 = ar[p + 1];
            if (s0 == 0.0f && s1 == 0.0f)
                continue;  // masked attention weights: half of a causal matrix
            float* c0 = c + p * m;
            float* c1 = c0 + m;
            const batch a0(s0), a1(s1);
            int j = 0;
            for (; j < mv; j += W) {
                const batch bv = batch::load_unaligned(br + j);
                xsimd::fma(a0, bv, batch::load_unaligned(c0 + j)).store_unaligned(c0 + j);
                xsimd::fma(a1, bv, batch::load_unaligned(c1 + j)).store_unaligned(c1 + j);
            }
            for (; j < m; ++j) {
                c0[j] += s0 * br[j];
                c1[j] += s1 * br[j];
            }
        }
        for (; p < k; ++p) {
            const float s0 = ar[p];
            float* c0 = c + p * m;
            const batch a0(s0);
            int j = 0;
            for (; j < mv; j += W)
                xsimd::fma(a0, batch::load_unaligned(br + j), batch::load_unaligned(c0 + j)).store_unaligned(c0 + j);
            for (; j < m; ++j)
                c0[j] += s0 * br[j];
        }
    }
}

// dx = y ⊙ (dy − y·dy) per row.
void softmax_rows_backward(const float* y, const float* dy, float* dx, int n, int m) {
    const int mv = m - m % W;
    for (int i = 0; i < n; ++i) {
        const float* yr = y + i * m;
        const float* gr = dy + i * m;
        float* xr = dx + i * m;
        batch acc(0.0f);
        int j = 0;
        for (; j < mv; j += W)
            acc = xsimd::fma(batch::load_unaligned(yr + j), batch::load_unaligned(gr + j), acc);
        float dot = xsimd::reduce_add(acc);
        for (; j < m; ++j)
            dot += yr[j] * gr[j];
        const batch bdot(dot);
        for (j = 0; j < mv; j += W) {
            const batch yv = batch::load_unaligned(yr + j);
            (yv * (batch::load_unaligned(gr + j) - bdot)).store_unaligned(xr + j);
        }
        for (; j < m; ++j)
            xr[j] = yr[j] * (gr[j] - dot);
    }
}

void adamw(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s) {
    const batch decay(s.decay), b1(s.beta1), b2(s.beta2), c1(1.0f - s.beta1), c2(1.0f - s.beta2);
    const batch step(s.step_size), bc2(s.bc2_sqrt), eps(s.eps);
    const int cv = count - count % W;
    int i = 0;
    for (; i < cv; i += W) {
        const batch gv = batch::load_unaligned(g + i);
        const batch mv = b1 * batch::load_unaligned(m + i) + c1 * gv;
        const batch vv = b2 * batch::load_unaligned(v + i) + c2 * (gv * gv);
        const batch pv = batch::load_unaligned(p + i) * decay;
        const batch denom = xsimd::sqrt(vv) / bc2 + eps;
        (pv - step * (mv / denom)).store_unaligned(p + i);
        mv.store_unaligned(m + i);
        vv.store_unaligned(v + i);
    }
    for (; i < count; ++i) {
        m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g[i];
        v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * (g[i] * g[i]);
        const float denom = std::sqrt(v[i]) / s.bc2_sqrt + s.eps;
        p[i] = p[i] * s.decay - s.step_size * (m[i] / denom);
    }
}

}  // namespace

extern const train_kernel_set ATTN_TRAIN_KERNEL_SET = {xsimd::default_arch::name(), matmul_at_acc, softmax_rows_backward, adamw};

}  // namespace attn
