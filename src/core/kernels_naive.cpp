// Scalar twins of the kernels in kernels_simd.cpp: the reference the tests trust.
#include <cmath>
#include <limits>

#include "kernels.hpp"

namespace attn {

void kernel_matmul_naive(const float* a, const float* b, float* c, int n, int k, int m) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            float s = 0.0f;
            for (int p = 0; p < k; ++p)
                s += a[i * k + p] * b[p * m + j];
            c[i * m + j] = s;
        }
}

void kernel_matmul_bt_naive(const float* a, const float* b, float* c, int n, int m, int d) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            float s = 0.0f;
            for (int p = 0; p < d; ++p)
                s += a[i * d + p] * b[j * d + p];
            c[i * m + j] = s;
        }
}

void kernel_softmax_rows_naive(float* x, int n, int m, bool subtract_max) {
    for (int i = 0; i < n; ++i) {
        float* r = x + i * m;
        float mx = -std::numeric_limits<float>::infinity();
        for (int j = 0; j < m; ++j)
            mx = std::fmax(mx, r[j]);
        if (mx == -std::numeric_limits<float>::infinity()) {
            for (int j = 0; j < m; ++j)
                r[j] = 0.0f;
            continue;
        }
        const float shift = subtract_max ? mx : 0.0f;
        float sum = 0.0f;
        for (int j = 0; j < m; ++j) {
            r[j] = std::exp(r[j] - shift);
            sum += r[j];
        }
        for (int j = 0; j < m; ++j)
            r[j] /= sum;
    }
}

}  // namespace attn
