// Scalar twins of the kernels in kernels_simd.cpp: the reference the tests trust.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"

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

void kernel_matmul_scale_acc_naive(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            float s = row_scale[i] == 1.0f ? c[i * m + j] : c[i * m + j] * row_scale[i];
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

void kernel_gelu_tanh_naive(const float* x, float* out, int count) {
    for (int i = 0; i < count; ++i) {
        const double v = x[i];
        out[i] = float(0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v))));
    }
}

void kernel_widen_16_naive(const std::uint16_t* b, bool bf16, float* out, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = bf16 ? bf16_to_float(b[i]) : f16_to_float(b[i]);
}

void kernel_matmul_bt_16_naive(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d) {
    for (std::size_t i = 0; i < std::size_t(n); ++i)
        for (std::size_t j = 0; j < std::size_t(m); ++j) {
            float s = 0.0f;
            for (std::size_t p = 0; p < std::size_t(d); ++p)
                s += a[i * std::size_t(d) + p] *
                     (bf16 ? bf16_to_float(b[j * std::size_t(d) + p]) : f16_to_float(b[j * std::size_t(d) + p]));
            c[i * std::size_t(m) + j] = s;
        }
}

void kernel_softmax_rows_naive(float* x, int n, int m, bool subtract_max) {
    for (int i = 0; i < n; ++i) {
        float* r = x + i * m;
        float mx = -std::numeric_limits<float>::infinity();
        for (int j = 0; j < m; ++j)
            mx = std::fmax(mx, r[j]);
        if (mx == -std::numeric_limits<float>::infinity()) {  // masked (zeros), or NaN if any entry is NaN
            bool any_nan = false;
            for (int j = 0; j < m; ++j)
                any_nan |= std::isnan(r[j]);
            for (int j = 0; j < m; ++j)
                r[j] = any_nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
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

void kernel_softmax_online_naive(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                                 float* rescale) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    for (int r = 0; r < rows; ++r) {
        float* sr = s + r * cols;
        const int vis = std::clamp(visible[r], 0, cols);
        float tile_max = neg_inf;
        for (int j = 0; j < vis; ++j) {
            sr[j] *= scale;
            tile_max = std::max(tile_max, sr[j]);
        }
        const float m_old = row_max[r];
        const float m_new = std::max(m_old, tile_max);
        const float alpha = m_new == neg_inf ? 1.0f : std::exp(m_old - m_new);
        float tile_sum = 0.0f;
        const float shift = m_new == neg_inf ? 0.0f : m_new;  // nothing seen yet: −inf scores weigh 0
        for (int j = 0; j < cols; ++j) {
            sr[j] = j < vis ? std::exp(sr[j] - shift) : 0.0f;
            tile_sum += sr[j];
        }
        row_max[r] = m_new;
        row_sum[r] = row_sum[r] * alpha + tile_sum;
        rescale[r] = alpha;
    }
}

void kernel_swiglu_naive(const float* gate, const float* up, float* out, int count) {
    for (int i = 0; i < count; ++i)
        out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace attn
