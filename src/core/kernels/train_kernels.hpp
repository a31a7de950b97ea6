// The backward kernels of training, beside the forward ones of kernels.hpp.
//
// Like every kernel of the core, each comes as a SIMD function (built once per
// instruction set and picked with the forward kernels: kernel_use_arch switches
// both) and its `_naive` twin, the plain loop the formula reads as, which the
// tests compare it with over many shapes on every kernel set.
//
// All matrices are row-major and dense; shapes are (rows, cols).
#pragma once

namespace attn {

// c(k, m) += a(n, k)ᵀ · b(n, m)           -- weight gradients: Xᵀ·dY, weightsᵀ·dOut, dScoresᵀ·Q
// With sparse_rows (a: attention weights under a mask), the SIMD kernel skips
// the rows of a that are zero across a tile; the sums of finite values are the
// same bits either way (c + 0·b = c). Elsewhere the test would cost ~10 % of a step.
void kernel_matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows = false);
void kernel_matmul_at_acc_naive(const float* a, const float* b, float* c, int n, int k, int m);

// dx(n, m) = y ⊙ (dy − Σ_j y_j·dy_j), per row      -- softmax backward (y: the softmax output)
// A fully masked row (y all zero) gives zeros.
void kernel_softmax_rows_backward(const float* y, const float* dy, float* dx, int n, int m);
void kernel_softmax_rows_backward_naive(const float* y, const float* dy, float* dx, int n, int m);

// dy ← dy where x > 0, else 0 (NaN x: 0), in place     -- ReLU's backward (x: the ReLU's
// output; kernel_relu is in kernels.hpp). Selects with no branch, as kernel_relu.
void kernel_relu_backward(const float* x, float* dy, int count);
void kernel_relu_backward_naive(const float* x, float* dy, int count);

// RoPE's rotation of pairs (2p, 2p+1) with per-lane tables: c holds cos, cos and
// s holds −sin, +sin for each pair, so a pair (a, b) turns into (a·cos − b·sin,
// a·sin + b·cos) as y[q] = x[q]·c[q] + x[q^1]·s[q] (a·cos + b·(−sin) is a·cos − b·sin
// exactly), a multiply, a multiply and an add per entry (no fused multiply-add, so
// every build rounds as the scalar formula does). n even; y may be x.
//   kernel_rope_pairs:           y[q]  = x[q]·c[q] + x[q^1]·s[q]
//   kernel_rope_pairs_backward:  y[q] += x[q]·c[q] − x[q^1]·s[q]  (the transpose, added)
void kernel_rope_pairs(const float* x, const float* c, const float* s, float* y, int n);
void kernel_rope_pairs_naive(const float* x, const float* c, const float* s, float* y, int n);
void kernel_rope_pairs_backward(const float* x, const float* c, const float* s, float* y, int n);
void kernel_rope_pairs_backward_naive(const float* x, const float* c, const float* s, float* y, int n);

// One AdamW step over count parameters p with gradients g and moments m, v, in
// PyTorch's order of operations (torch.optim.AdamW):
//   p ← p·(1 − lr·wd);  m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
//   p ← p − step_size · m / (√v / bc2_sqrt + eps)
// with step_size = lr / (1 − β1ᵗ) and bc2_sqrt = √(1 − β2ᵗ).
struct adamw_scalars {
    float decay;  // 1 − lr·wd
    float beta1, beta2, step_size, bc2_sqrt, eps;
};
void kernel_adamw(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s);
void kernel_adamw_naive(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s);

}  // namespace attn
