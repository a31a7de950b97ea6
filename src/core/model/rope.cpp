// RoPE, SIMD and scalar twin. Both take their cos/sin from the same table
// builder, so they differ only in how the float rotation is evaluated.
#include "model/rope.hpp"

#include <cmath>
#include <cstdint>
#include <vector>
#include <xsimd/xsimd.hpp>

namespace attn {

namespace {

using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);
static_assert(W % 2 == 0, "a batch must hold whole (x[2p], x[2p+1]) pairs");

// cos and sin of pos·θ_p for the d/2 pairs of one row. The exponent, the
// product and the trigonometry run in double: at pos ~ 10⁴ a float angle would
// already be off by ~10⁻³ rad, and float sin/cos differ between C libraries.
void rope_angles(int pos, int d, float base, float* cos_p, float* sin_p) {
    for (int p = 0; p < d / 2; ++p) {
        const double theta = std::pow(double(base), -2.0 * double(p) / double(d));
        const double angle = double(pos) * theta;
        cos_p[p] = float(std::cos(angle));
        sin_p[p] = float(std::sin(angle));
    }
}

// Lane i takes lane i ^ 1: (x0, x1, x2, x3) → (x1, x0, x3, x2).
struct swap_pairs {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

}  // namespace

// Per row, the table is spread to full width, c = (c0, c0, c1, c1, ...) and
// s = (−s0, s0, −s1, s1, ...), so a whole batch rotates as x·c + swap(x)·s.
// W is even, so a batch never splits a pair; the scalar tail finishes the last
// pairs and leaves an odd last component alone.
void rope_rotate(float* x, int n, int d, int pos0, float base) {
    const int half = d / 2;
    const int dv = 2 * half - (2 * half) % W;
    const std::size_t pairs = std::size_t(half);
    std::vector<float> cos_p(pairs), sin_p(pairs);
    std::vector<float> c(2 * pairs), s(2 * pairs);
    constexpr auto swap_mask = xsimd::make_batch_constant<std::uint32_t, batch::arch_type, swap_pairs>();
    for (int i = 0; i < n; ++i) {
        float* r = x + std::size_t(i) * std::size_t(d);
        rope_angles(pos0 + i, d, base, cos_p.data(), sin_p.data());
        for (int p = 0; p < half; ++p) {
            c[std::size_t(2 * p)] = c[std::size_t(2 * p + 1)] = cos_p[std::size_t(p)];
            s[std::size_t(2 * p)] = -sin_p[std::size_t(p)];
            s[std::size_t(2 * p + 1)] = sin_p[std::size_t(p)];
        }
        int j = 0;
        for (; j < dv; j += W) {
            const batch xv = batch::load_unaligned(r + j);
            const batch swapped = xsimd::swizzle(xv, swap_mask);
            const batch out = xsimd::fma(xv, batch::load_unaligned(c.data() + j), swapped * batch::load_unaligned(s.data() + j));
            out.store_unaligned(r + j);
        }
        for (int p = j / 2; p < half; ++p) {
            const float a = r[2 * p], b = r[2 * p + 1];
            const float cp = cos_p[std::size_t(p)], sp = sin_p[std::size_t(p)];
            r[2 * p] = a * cp - b * sp;
            r[2 * p + 1] = a * sp + b * cp;
        }
    }
}

void rope_rotate_naive(float* x, int n, int d, int pos0, float base) {
    const int half = d / 2;
    const std::size_t pairs = std::size_t(half);
    std::vector<float> cos_p(pairs), sin_p(pairs);
    for (int i = 0; i < n; ++i) {
        float* r = x + std::size_t(i) * std::size_t(d);
        rope_angles(pos0 + i, d, base, cos_p.data(), sin_p.data());
        for (int p = 0; p < half; ++p) {
            const float a = r[2 * p], b = r[2 * p + 1];
            const float cp = cos_p[std::size_t(p)], sp = sin_p[std::size_t(p)];
            r[2 * p] = a * cp - b * sp;
            r[2 * p + 1] = a * sp + b * cp;
        }
    }
}

// Both halves of a row are contiguous, so a batch rotates W pairs at once:
// out1 = x1·c − x2·s, out2 = x2·c + x1·s.
void rope_rotate_half(float* x, int n, int d, int pos0, float base) {
    const int half = d / 2;
    const int hv = half - half % W;
    std::vector<float> cos_p(static_cast<std::size_t>(half)), sin_p(static_cast<std::size_t>(half));
    for (int i = 0; i < n; ++i) {
        float* r1 = x + std::size_t(i) * std::size_t(d);
        float* r2 = r1 + half;
        rope_angles(pos0 + i, d, base, cos_p.data(), sin_p.data());
        int p = 0;
        for (; p < hv; p += W) {
            const batch a = batch::load_unaligned(r1 + p), b = batch::load_unaligned(r2 + p);
            const batch c = batch::load_unaligned(cos_p.data() + p), sn = batch::load_unaligned(sin_p.data() + p);
            xsimd::fms(a, c, b * sn).store_unaligned(r1 + p);
            xsimd::fma(b, c, a * sn).store_unaligned(r2 + p);
        }
        for (; p < half; ++p) {
            const float a = r1[p], b = r2[p];
            const float cp = cos_p[std::size_t(p)], sp = sin_p[std::size_t(p)];
            r1[p] = a * cp - b * sp;
            r2[p] = b * cp + a * sp;
        }
    }
}

void rope_rotate_half_naive(float* x, int n, int d, int pos0, float base) {
    const int half = d / 2;
    std::vector<float> cos_p(static_cast<std::size_t>(half)), sin_p(static_cast<std::size_t>(half));
    for (int i = 0; i < n; ++i) {
        float* r = x + std::size_t(i) * std::size_t(d);
        rope_angles(pos0 + i, d, base, cos_p.data(), sin_p.data());
        for (int p = 0; p < half; ++p) {
            const float a = r[p], b = r[p + half];
            const float cp = cos_p[std::size_t(p)], sp = sin_p[std::size_t(p)];
            r[p] = a * cp - b * sp;
            r[p + half] = b * cp + a * sp;
        }
    }
}

}  // namespace attn
