#include "model/rules.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

float score_scale_default(int d_k) { return 1.0f / std::sqrt(float(std::max(d_k, 1))); }

float weight_init_scale(int fan_in) { return 1.0f / std::sqrt(float(fan_in)); }

float experiment_score_scale(const experiment& e) {
    switch (e.scale) {
        case score_scale::sqrt_dk:
            return score_scale_default(experiment_d_k(e));
        case score_scale::none:
            return 1.0f;
        case score_scale::custom:
            break;
    }
    return e.scale_value;
}

int mask_visible_keys(const experiment& e, int n, int i) {
    switch (e.mask) {
        case mask_kind::none:
            break;
        case mask_kind::causal:
            return std::min(i + 1, n);
        case mask_kind::padding:
            return std::max(0, n - e.pad);
    }
    return n;
}

namespace {

// 1 / √(mean(x²) + eps) of one row, the squares summed in double, rounded to float once.
float rms_factor(const float* xr, int cols, double eps) {
    double ss = 0;
    for (int c = 0; c < cols; ++c)
        ss += double(xr[c]) * double(xr[c]);
    return float(1.0 / std::sqrt(ss / double(std::max(1, cols)) + eps));
}

}  // namespace

void rmsnorm_rows(const float* x, float* y, float* inv, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + std::size_t(r) * std::size_t(cols);
        float* yr = y + std::size_t(r) * std::size_t(cols);
        const float k = rms_factor(xr, cols, 1e-6);
        if (inv)
            inv[r] = k;
        for (int c = 0; c < cols; ++c)
            yr[c] = xr[c] * k;
    }
}

void layernorm_rows(const float* x, const float* gain, const float* bias, float* y, int rows, int cols, float eps, float* inv,
                    float* mean) {
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + std::size_t(r) * std::size_t(cols);
        float* yr = y + std::size_t(r) * std::size_t(cols);
        double s = 0, ss = 0;
        for (int c = 0; c < cols; ++c)
            s += double(xr[c]);
        const double mu = s / double(std::max(1, cols));
        for (int c = 0; c < cols; ++c)
            ss += (double(xr[c]) - mu) * (double(xr[c]) - mu);
        const float k = float(1.0 / std::sqrt(ss / double(std::max(1, cols)) + double(eps))), m = float(mu);
        if (inv)
            inv[r] = k;
        if (mean)
            mean[r] = m;
        for (int c = 0; c < cols; ++c)
            yr[c] = (xr[c] - m) * k * gain[c] + bias[c];
    }
}

void rmsnorm_gain_rows(const float* x, const float* gain, float* y, int rows, int cols, float eps) {
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + std::size_t(r) * std::size_t(cols);
        float* yr = y + std::size_t(r) * std::size_t(cols);
        const float k = rms_factor(xr, cols, double(eps));
        for (int c = 0; c < cols; ++c)
            yr[c] = xr[c] * k * gain[c];
    }
}

}  // namespace attn
