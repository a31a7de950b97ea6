// The backward kernels as the plain loops their formulas read as: the reference
// the SIMD kernels are tested against (train_kernels.hpp).
#include <cmath>

#include "kernels/kernels.hpp"
#include "kernels/train_kernels.hpp"

namespace attn {

void kernel_matmul_at_acc_naive(const float* a, const float* b, float* c, int n, int k, int m) {
    for (int p = 0; p < k; ++p)
        for (int j = 0; j < m; ++j) {
            float s = c[p * m + j];
            for (int r = 0; r < n; ++r)
                s += a[r * k + p] * b[r * m + j];
            c[p * m + j] = s;
        }
}

void kernel_softmax_rows_backward_naive(const float* y, const float* dy, float* dx, int n, int m) {
    for (int i = 0; i < n; ++i) {
        float dot = 0.0f;
        for (int j = 0; j < m; ++j)
            dot += y[i * m + j] * dy[i * m + j];
        for (int j = 0; j < m; ++j)
            dx[i * m + j] = y[i * m + j] * (dy[i * m + j] - dot);
    }
}

void kernel_relu_naive(float* x, int count) {
    for (int i = 0; i < count; ++i)
        x[i] = std::isnan(x[i]) ? x[i] : x[i] > 0.0f ? x[i] : 0.0f;
}

void kernel_relu_backward_naive(const float* x, float* dy, int count) {
    for (int i = 0; i < count; ++i)
        dy[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

void kernel_rope_pairs_naive(const float* x, const float* c, const float* s, float* y, int n) {
    for (int q = 0; q + 1 < n; q += 2) {
        const float a = x[q], b = x[q + 1];
        const float ya = a * c[q] + b * s[q];
        const float yb = b * c[q + 1] + a * s[q + 1];
        y[q] = ya, y[q + 1] = yb;
    }
}

void kernel_rope_pairs_backward_naive(const float* x, const float* c, const float* s, float* y, int n) {
    for (int q = 0; q + 1 < n; q += 2) {
        const float a = x[q], b = x[q + 1];
        y[q] += a * c[q] - b * s[q];
        y[q + 1] += b * c[q + 1] - a * s[q + 1];
    }
}

void kernel_adamw_naive(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s) {
    for (int i = 0; i < count; ++i) {
        m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g[i];
        v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * (g[i] * g[i]);
        const float denom = std::sqrt(v[i]) / s.bc2_sqrt + s.eps;
        p[i] = p[i] * s.decay - s.step_size * (m[i] / denom);
    }
}

}  // namespace attn
