// Lesson measurements. Sums run in double in a fixed order: these are reports,
// not kernels, and double keeps the 20000-sample statistics exact to far more
// digits than the tests or the UI read, identically natively and in wasm.
#include "base/measure.hpp"

#include <cmath>
#include <limits>

#include "base/random.hpp"

namespace attn {

namespace {

struct mean_std {
    double mean, std;
};

// Sample mean and (n − 1) standard deviation, two passes so a large mean cannot
// cancel the spread away.
mean_std mean_and_std(const std::vector<float>& x, double scale) {
    double sum = 0;
    for (float v : x)
        sum += double(v) * scale;
    const double mean = sum / double(x.size());
    double ss = 0;
    for (float v : x) {
        const double e = double(v) * scale - mean;
        ss += e * e;
    }
    return {mean, std::sqrt(ss / double(x.size() - 1))};
}

}  // namespace

dot_stats measure_dot_stats(int d, int samples, std::uint64_t seed) {
    dot_stats out;
    out.d = d;
    out.samples = samples;
    out.raw.resize(std::size_t(samples));
    rng g(seed);
    std::vector<float> q(static_cast<std::size_t>(d)), k(static_cast<std::size_t>(d));  // (d) each
    for (float& dot : out.raw) {
        for (float& v : q)
            v = g.normal();
        for (float& v : k)
            v = g.normal();
        float s = 0.0f;
        for (int i = 0; i < d; ++i)
            s += q[std::size_t(i)] * k[std::size_t(i)];
        dot = s;
    }
    const mean_std raw = mean_and_std(out.raw, 1.0);
    const mean_std scaled = mean_and_std(out.raw, 1.0 / std::sqrt(double(d)));
    out.mean_raw = raw.mean;
    out.std_raw = raw.std;
    out.mean_scaled = scaled.mean;
    out.std_scaled = scaled.std;
    return out;
}

histogram histogram_build(const float* x, std::size_t count, float lo, float hi, int bins, float scale) {
    histogram h;
    h.lo = lo;
    h.hi = hi;
    h.counts.assign(std::size_t(bins), 0);
    const double width = (double(hi) - double(lo)) / double(bins);
    for (std::size_t i = 0; i < count; ++i) {
        const double v = double(x[i]) * double(scale);
        if (std::isnan(v))
            continue;
        if (v < lo) {
            ++h.below;
        } else if (v > hi) {
            ++h.above;
        } else {
            const int b = int((v - double(lo)) / width);
            ++h.counts[std::size_t(b < bins ? b : bins - 1)];  // v == hi lands in the last bin
        }
    }
    return h;
}

float softmax_jacobian_norm(const float* p, int m) {
    double diag = 0, s2 = 0, s4 = 0;
    for (int i = 0; i < m; ++i) {
        const double pi = p[i], pi2 = pi * pi;
        diag += pi2 * (1.0 - pi) * (1.0 - pi);
        s2 += pi2;
        s4 += pi2 * pi2;
    }
    // Σ_{i≠j} p_i² p_j² = (Σ p_i²)² − Σ p_i⁴ ≥ 0; rounding can dip it just below zero.
    const double off = s2 * s2 - s4;
    return float(std::sqrt(diag + (off > 0 ? off : 0.0)));
}

float softmax_jacobian_norm_naive(const float* p, int m) {
    std::vector<double> jac(std::size_t(m) * std::size_t(m));  // (m, m)
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j)
            jac[std::size_t(i * m + j)] = (i == j ? double(p[i]) : 0.0) - double(p[i]) * double(p[j]);
    double ss = 0;
    for (double v : jac)
        ss += v * v;
    return float(std::sqrt(ss));
}

float softmax_row_entropy(const float* p, int m) {
    double h = 0;
    for (int i = 0; i < m; ++i)
        if (!std::isfinite(p[i]))  // NaN or ±inf is no probability: H is NaN, never skipped
            return std::numeric_limits<float>::quiet_NaN();
        else if (p[i] > 0)
            h -= double(p[i]) * std::log(double(p[i]));
    return float(h);
}

std::optional<attention_cost> measure_attention_cost(int n, int d_model, int heads, int kv_heads, int bytes_per_value) {
    if (n < 1 || d_model < 1 || heads < 1 || kv_heads < 1 || d_model % heads != 0 || heads % kv_heads != 0)
        return std::nullopt;
    using i64 = std::int64_t;
    attention_cost c;
    c.d_k = d_model / heads;
    const i64 nn = n, dm = d_model, h = heads, dk = c.d_k, kv_width = i64(kv_heads) * dk, bytes = bytes_per_value;

    c.params_q = dm * dm;
    c.params_k = dm * kv_width;
    c.params_v = dm * kv_width;
    c.params_o = dm * dm;
    c.params_total = c.params_q + c.params_k + c.params_v + c.params_o;

    c.flops_projections = 2 * nn * (c.params_q + c.params_k + c.params_v);  // each weight: one multiply-add per token
    c.flops_scores = h * 2 * nn * nn * dk;                                  // = 2 n² d_model whatever h is
    c.flops_softmax = h * 5 * nn * nn;
    c.flops_weighted_sum = h * 2 * nn * nn * dk;
    c.flops_output = 2 * nn * c.params_o;
    c.flops_matmul = c.flops_projections + c.flops_scores + c.flops_weighted_sum + c.flops_output;
    c.flops_total = c.flops_matmul + c.flops_softmax;

    c.bytes_scores_per_head = nn * nn * bytes;
    c.bytes_scores_all_heads = h * c.bytes_scores_per_head;
    c.bytes_kv_cache_per_token = 2 * kv_width * bytes;
    return c;
}

}  // namespace attn
