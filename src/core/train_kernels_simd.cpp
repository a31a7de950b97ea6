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

// c(k, m) += a(n, k)ᵀ · b(n, m). A tile of R rows of c by one batch of columns
// stays in registers while r walks down a and b, so c is loaded and stored once
// per tile, not once per row of a (the shapes here are small: n = T, k and m = d
// or d_k; the weight gradients used to spend their time reloading c). Each
// element still sums c + a(0, p)·b(0, j) + a(1, p)·b(1, j) + … in order of r;
// rows of a whose R values are all zero (masked attention weights) are skipped.
template <int R>
void matmul_at_acc_rows(const float* a, const float* b, float* c, int n, int k, int m, int p, int mv) {
    float* cp = c + p * m;
    int j = 0;
    for (; j < mv; j += W) {
        batch acc[R];
        for (int i = 0; i < R; ++i)
            acc[i] = batch::load_unaligned(cp + i * m + j);
        for (int r = 0; r < n; ++r) {
            const float* ar = a + r * k + p;
            bool zero = true;
            for (int i = 0; i < R; ++i)
                zero = zero && ar[i] == 0.0f;
            if (zero)
                continue;
            const batch bv = batch::load_unaligned(b + r * m + j);
            for (int i = 0; i < R; ++i)
                acc[i] = xsimd::fma(batch(ar[i]), bv, acc[i]);
        }
        for (int i = 0; i < R; ++i)
            acc[i].store_unaligned(cp + i * m + j);
    }
    for (; j < m; ++j) {
        float acc[R];
        for (int i = 0; i < R; ++i)
            acc[i] = cp[i * m + j];
        for (int r = 0; r < n; ++r) {
            const float* ar = a + r * k + p;
            const float bv = b[r * m + j];
            for (int i = 0; i < R; ++i)
                acc[i] += ar[i] * bv;
        }
        for (int i = 0; i < R; ++i)
            cp[i * m + j] = acc[i];
    }
}

void matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m) {
    const int mv = m - m % W;
    int p = 0;
    for (; p + 4 <= k; p += 4)
        matmul_at_acc_rows<4>(a, b, c, n, k, m, p, mv);
    for (; p < k; ++p)
        matmul_at_acc_rows<1>(a, b, c, n, k, m, p, mv);
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
