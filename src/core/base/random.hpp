// Deterministic numbers from a seed, bit-identical natively and in WebAssembly.
//
// The generator is SplitMix64. Normal deviates use the Irwin-Hall sum of twelve
// uniforms minus six (mean 0, variance 1, bounded to [-6, 6]) instead of
// Box-Muller: it needs no log/sin/cos, whose last bits differ between C
// libraries, so every platform draws exactly the same floats.
//
// Where a distribution needs a logarithm (the Gamma deviates of a Dirichlet draw,
// train=markov), random_log and random_exp compute it from +, −, ×, ÷, sqrt and
// frexp/ldexp only: IEEE operations, rounded the same everywhere, so no C library's
// last bits enter. That holds while nothing fuses a multiply and an add: x86-64's
// baseline, for which the core outside the kernels is compiled, and wasm have no FMA
// (a native build for a CPU with FMA and -ffp-contract=fast, e.g. GCC on arm64, would
// have to turn contraction off for these).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace attn {

// ln x for finite x > 0 (−inf at 0), to about 1e-16 relative: x = m·2^e with m in
// [√½, √2), ln m = 2 atanh f, f = (m − 1)/(m + 1), |f| < 0.172, by its odd series.
inline double random_log(double x) {
    if (!(x > 0.0))
        return x == 0.0 ? -HUGE_VAL : NAN;
    int e = 0;
    double m = std::frexp(x, &e);  // [0.5, 1)
    if (m < 0.70710678118654752) {
        m *= 2.0;
        --e;
    }
    const double f = (m - 1.0) / (m + 1.0), f2 = f * f;
    double s = 0.0;
    for (int k = 25; k >= 3; k -= 2)  // f² < 0.0295: 12 terms reach 1e-18
        s = (s + 1.0 / k) * f2;
    return 2.0 * f * (1.0 + s) + e * 0.69314718055994531;
}

// e^x for x ≤ 709 (0 below −745): x = k ln 2 + r, |r| ≤ ln 2 / 2, by Taylor's series of e^r.
inline double random_exp(double x) {
    if (x < -745.0)
        return 0.0;
    const double k = std::floor(x * 1.4426950408889634 + 0.5);
    const double r = (x - k * 0.69314718055994531) - k * 2.319046813846299558e-17;  // ln 2's low part
    double p = 1.0;
    for (int n = 16; n >= 1; --n)  // |r| < 0.35: the terms below 0.35¹⁶/16! are far under 1e-17
        p = 1.0 + p * r / n;
    return std::ldexp(p, int(k));
}

struct rng {
    std::uint64_t state;

    explicit rng(std::uint64_t seed) : state(seed) {}

    std::uint64_t next_u64() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 24 random bits: exactly representable as float.
    float uniform() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }
    // Approximately standard normal (Irwin-Hall, n = 12), summed in a fixed order.
    float normal() {
        float s = 0.0f;
        for (int i = 0; i < 12; ++i)
            s += uniform();
        return s - 6.0f;
    }
    // Uniform in (0, 1), never 0: 53 random bits, for a logarithm.
    double uniform_open() { return (double(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
    // Standard normal, exactly in distribution (unlike normal()): Marsaglia's polar
    // method on random_log; the pair's second deviate is dropped (no state kept).
    double gaussian() {
        for (;;) {
            const double u = 2.0 * uniform_open() - 1.0, v = 2.0 * uniform_open() - 1.0, s = u * u + v * v;
            if (s < 1.0 && s > 0.0)
                return u * std::sqrt(-2.0 * random_log(s) / s);
        }
    }
    // Gamma(alpha, 1) for alpha > 0: Marsaglia and Tsang (2000), and for alpha < 1
    // their boost Gamma(alpha) = Gamma(alpha + 1) · U^(1/alpha).
    double gamma(double alpha) {
        if (alpha < 1.0) {
            const double g = gamma(alpha + 1.0);
            return g * random_exp(random_log(uniform_open()) / alpha);
        }
        const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
        for (;;) {
            double x = 0.0, v = 0.0;
            do {
                x = gaussian();
                v = 1.0 + c * x;
            } while (v <= 0.0);
            v = v * v * v;
            const double u = uniform_open(), x2 = x * x;
            if (u < 1.0 - 0.0331 * x2 * x2 || random_log(u) < 0.5 * x2 + d * (1.0 - v + random_log(v)))
                return d * v;
        }
    }
};

// FNV-1a over bytes: stable seeds derived from names (a token, "layer0.W_q").
inline std::uint64_t hash_bytes(std::string_view s, std::uint64_t h = 0xCBF29CE484222325ull) {
    for (unsigned char c : s)
        h = (h ^ c) * 0x100000001B3ull;
    return h;
}

inline std::uint64_t hash_combine(std::uint64_t seed, std::string_view name) {
    return hash_bytes(name, seed * 0x9E3779B97F4A7C15ull + 0xCBF29CE484222325ull);
}

}  // namespace attn
