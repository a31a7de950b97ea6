// The backward kernels over xsimd::batch<float>, built once per instruction set
// (CMakeLists.txt: attn_train_kernels_<set>, with the forward kernels' flags)
// into the train_kernel_set named by ATTN_TRAIN_KERNEL_SET. Everything else here
// has internal linkage, so the copies never meet. Whole batches first, then a
// scalar tail: any size works. Shapes as in train_kernels.hpp.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/narrow_batch.hpp"
#include "kernels/train_kernel_set.hpp"

#ifndef ATTN_TRAIN_KERNEL_SET
#error "build train_kernels_simd.cpp with ATTN_TRAIN_KERNEL_SET=<name of its train_kernel_set>"
#endif

namespace attn {

namespace {
using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);

// c(k, m) += a(n, k)ᵀ · b(n, m). A tile of R rows of c by C batches of B's
// columns stays in registers while r walks down a and b, so c is loaded and
// stored once per tile, not once per row of a (the shapes here are small: n = T,
// k and m = d or d_k; the weight gradients used to spend their time reloading
// c), and R·C independent accumulators hide the multiply-add latency. Each
// element still sums c + a(0, p)·b(0, j) + a(1, p)·b(1, j) + … in order of r;
// with Skip, rows of a whose R values are all zero (masked attention weights)
// are skipped (a template parameter: V8 does not hoist a test out of the loop).
template <class B, int R, int C, bool Skip>
void matmul_at_acc_tile(const float* a, const float* b, float* c, int n, int k, int m, int p, int j) {
    constexpr int N = int(B::size);
    float* cp = c + p * m + j;
    B acc[R][C];
    for (int i = 0; i < R; ++i)
        for (int q = 0; q < C; ++q)
            acc[i][q] = B::load_unaligned(cp + i * m + q * N);
    for (int r = 0; r < n; ++r) {
        const float* ar = a + r * k + p;
        if constexpr (Skip) {
            bool zero = true;
            for (int i = 0; i < R; ++i)
                zero = zero && ar[i] == 0.0f;
            if (zero)
                continue;
        }
        B bv[C];
        for (int q = 0; q < C; ++q)
            bv[q] = B::load_unaligned(b + r * m + j + q * N);
        for (int i = 0; i < R; ++i) {
            const B av(ar[i]);
            for (int q = 0; q < C; ++q)
                acc[i][q] = xsimd::fma(av, bv[q], acc[i][q]);
        }
    }
    for (int i = 0; i < R; ++i)
        for (int q = 0; q < C; ++q)
            acc[i][q].store_unaligned(cp + i * m + q * N);
}

// Natively the wide sets finish a row's last columns, fewer than W, with the
// narrower batches of narrow_batch.hpp, then scalars.
template <class B, int R>
void matmul_at_acc_narrow(const float* a, const float* b, float* c, int n, int k, int m, int p, int& j) {
    if constexpr (!std::is_void_v<B>) {
        for (; j + int(B::size) <= m; j += int(B::size))
            matmul_at_acc_tile<B, R, 1, false>(a, b, c, n, k, m, p, j);
    }
}

// The register tile: at_rows rows of c × at_cols batches (in wasm 2 × 4 took
// the same time as 4 × 2 on T2: 60 ms per step).
constexpr int at_rows = 4, at_cols = 2;

// Rows [p, p + R) of c: at_cols batches at a time, then one, then narrower, then scalars.
template <int R, bool Skip>
void matmul_at_acc_rows(const float* a, const float* b, float* c, int n, int k, int m, int p) {
    int j = 0;
    for (; j + at_cols * W <= m; j += at_cols * W)
        matmul_at_acc_tile<batch, R, at_cols, Skip>(a, b, c, n, k, m, p, j);
    for (; j + W <= m; j += W)
        matmul_at_acc_tile<batch, R, 1, Skip>(a, b, c, n, k, m, p, j);
    matmul_at_acc_narrow<half_batch, R>(a, b, c, n, k, m, p, j);
    matmul_at_acc_narrow<quarter_batch, R>(a, b, c, n, k, m, p, j);
    float* cp = c + p * m;
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

template <bool Skip>
void matmul_at_acc_all(const float* a, const float* b, float* c, int n, int k, int m) {
    int p = 0;
    for (; p + at_rows <= k; p += at_rows)
        matmul_at_acc_rows<at_rows, Skip>(a, b, c, n, k, m, p);
    for (; p < k; ++p)
        matmul_at_acc_rows<1, Skip>(a, b, c, n, k, m, p);
}

void matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows) {
    if (sparse_rows)
        matmul_at_acc_all<true>(a, b, c, n, k, m);
    else
        matmul_at_acc_all<false>(a, b, c, n, k, m);
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

// x ≤ 0 (−0 included) → +0; NaN compares false and stays.
void relu(float* x, int count) {
    const int cv = count - count % W;
    const batch zero(0.0f);
    int i = 0;
    for (; i < cv; i += W) {
        const batch v = batch::load_unaligned(x + i);
        xsimd::select(v <= zero, zero, v).store_unaligned(x + i);
    }
    for (; i < count; ++i)
        x[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

void relu_backward(const float* x, float* dy, int count) {
    const int cv = count - count % W;
    const batch zero(0.0f);
    int i = 0;
    for (; i < cv; i += W)
        xsimd::select(batch::load_unaligned(x + i) > zero, batch::load_unaligned(dy + i), zero).store_unaligned(dy + i);
    for (; i < count; ++i)
        dy[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

// Lane i takes lane i ^ 1: (x0, x1, x2, x3) → (x1, x0, x3, x2). W is even, so a
// batch never splits a pair.
struct swap_pairs {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

template <bool Backward>
void rope_pairs_simd(const float* x, const float* c, const float* s, float* y, int n) {
    constexpr auto swap = xsimd::make_batch_constant<std::uint32_t, batch::arch_type, swap_pairs>();
    const int nv = n - n % W;
    int q = 0;
    for (; q < nv; q += W) {
        const batch xv = batch::load_unaligned(x + q);
        const batch xc = xv * batch::load_unaligned(c + q);
        const batch ws = xsimd::swizzle(xv, swap) * batch::load_unaligned(s + q);
        if constexpr (Backward)
            (batch::load_unaligned(y + q) + (xc - ws)).store_unaligned(y + q);
        else
            (xc + ws).store_unaligned(y + q);
    }
    for (; q + 1 < n; q += 2) {
        const float a = x[q], b = x[q + 1];
        if constexpr (Backward) {
            y[q] += a * c[q] - b * s[q];
            y[q + 1] += b * c[q + 1] - a * s[q + 1];
        } else {
            const float ya = a * c[q] + b * s[q];
            const float yb = b * c[q + 1] + a * s[q + 1];
            y[q] = ya, y[q + 1] = yb;
        }
    }
}

void rope_pairs(const float* x, const float* c, const float* s, float* y, int n) { rope_pairs_simd<false>(x, c, s, y, n); }
void rope_pairs_backward(const float* x, const float* c, const float* s, float* y, int n) {
    rope_pairs_simd<true>(x, c, s, y, n);
}

}  // namespace

extern const train_kernel_set ATTN_TRAIN_KERNEL_SET = {
    xsimd::default_arch::name(), matmul_at_acc, softmax_rows_backward, adamw, relu, relu_backward, rope_pairs,
    rope_pairs_backward};

}  // namespace attn
