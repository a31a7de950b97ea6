// fp16/bf16 rounding by integer bit manipulation, and a SIMD twin of round_all.
//
// Float bit layout: sign (bit 31) | exponent (30..23, bias 127) | mantissa (22..0).
// Half: sign (15) | exponent (14..10, bias 15) | mantissa (9..0).
// Rounding to nearest, ties to even, on a mantissa shifted right by s bits: add
// 2^(s-1) - 1 plus the lowest kept bit, then drop the s bits. A carry out of the
// mantissa bumps the exponent, which is exactly the next binade's encoding.
#include "base/precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace attn {

namespace {

// memcpy rather than std::bit_cast: Emscripten 3.1's libc++ predates it.
std::uint32_t bits_of(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

float float_of(std::uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

constexpr std::uint32_t f32_abs_mask = 0x7FFFFFFFu;
constexpr std::uint32_t f32_inf = 0x7F800000u;
constexpr std::uint32_t f32_quiet = 0x00400000u;            // top mantissa bit: keeps a NaN a NaN after truncation
constexpr std::uint32_t f32_min_normal_half = 0x38800000u;  // 2^-14, fp16's smallest normal
constexpr std::uint32_t f32_half_overflow = 0x47800000u;    // 2^16: past fp16's top binade

}  // namespace

const char* precision_name(precision p) {
    switch (p) {
        case precision::fp32:
            return "fp32";
        case precision::fp16:
            return "fp16";
        case precision::bf16:
            return "bf16";
    }
    return "?";
}

std::optional<precision> precision_parse(std::string_view name) {
    for (precision p : {precision::fp32, precision::fp16, precision::bf16})
        if (name == precision_name(p))
            return p;
    return std::nullopt;
}

int precision_bytes(precision p) { return p == precision::fp32 ? 4 : 2; }

std::uint16_t fp16_from_float(float x) {
    const std::uint32_t f = bits_of(x);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t abs = f & f32_abs_mask;
    if (abs > f32_inf)  // NaN: quiet, keep the top payload bits
        return std::uint16_t(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
    if (abs >= f32_half_overflow)
        return std::uint16_t(sign | 0x7C00u);  // ±inf, and everything ≥ 2^16
    if (abs >= f32_min_normal_half) {
        // Rebias the exponent (127 → 15) and drop 13 mantissa bits. Rounding up
        // from 65504 + half an ulp carries into exponent 31: 0x7C00, infinity.
        std::uint32_t h = (abs - (112u << 23)) >> 13;
        const std::uint32_t rest = abs & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            ++h;
        return std::uint16_t(sign | h);
    }
    // Subnormal half: the value in units of 2^-24 is mant · 2^(exp - 126), a right
    // shift by 126 - exp ≥ 14. Shifts past 24 leave under half a unit: zero.
    const std::uint32_t exp = abs >> 23;
    const std::uint32_t shift = 126u - exp;
    if (exp == 0 || shift > 24)
        return std::uint16_t(sign);
    const std::uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rest = mant & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u)))
        ++h;  // may reach 0x400: the smallest normal, correctly encoded
    return std::uint16_t(sign | h);
}

float fp16_to_float(std::uint16_t bits) {
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1Fu;
    std::uint32_t mant = bits & 0x3FFu;
    if (exp == 0x1Fu)
        return float_of(sign | f32_inf | (mant << 13));  // inf, or NaN with its payload
    if (exp != 0)
        return float_of(sign | ((exp + 112u) << 23) | (mant << 13));
    if (mant == 0)
        return float_of(sign);
    // Subnormal half, mant · 2^-24: normalise so the leading 1 sits at bit 10.
    std::uint32_t e = 113u;  // float exponent field of 2^-14
    while (!(mant & 0x400u)) {
        mant <<= 1;
        --e;
    }
    return float_of(sign | (e << 23) | ((mant & 0x3FFu) << 13));
}

std::uint16_t bf16_from_float(float x) {
    const std::uint32_t f = bits_of(x);
    if ((f & f32_abs_mask) > f32_inf)
        return std::uint16_t((f >> 16) | 0x0040u);  // NaN, kept quiet
    return std::uint16_t((f + 0x7FFFu + ((f >> 16) & 1u)) >> 16);
}

float bf16_to_float(std::uint16_t bits) { return float_of(std::uint32_t(bits) << 16); }

float round_to(precision p, float x) {
    switch (p) {
        case precision::fp32:
            return x;
        case precision::fp16:
            return fp16_to_float(fp16_from_float(x));
        case precision::bf16:
            return bf16_to_float(bf16_from_float(x));
    }
    return x;
}

void round_all_naive(precision p, float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        x[i] = round_to(p, x[i]);
}

// The SIMD form stays in the float's bit pattern (never builds the 16-bit value):
// normal fp16 results round the fp32 mantissa to 10 bits in place; subnormal fp16
// results are |x| + 0.5 - 0.5 in float arithmetic, because floats in [0.5, 1)
// are spaced 2^-24 apart, fp16's subnormal step, and the add rounds to nearest
// even in hardware on every target (0.5's mantissa is 0, so "even" agrees).
// Its results are multiples of 2^-24, fp32 normals, so flush-to-zero modes cannot
// change them either.
// Signed 32-bit lanes: SSE2 and wasm both compare those natively, and every
// compared value is a magnitude below 2^31.
void round_all(precision p, float* x, std::size_t n) {
    using fbatch = xsimd::batch<float>;
    using ibatch = xsimd::batch<std::int32_t>;
    constexpr std::size_t w = fbatch::size;
    static_assert(ibatch::size == w);
    if (p == precision::fp32)
        return;

    // Every lane holds the bit pattern u (the constants are unsigned, the lanes signed).
    const auto splat = [](std::uint32_t u) { return ibatch(static_cast<std::int32_t>(u)); };
    const ibatch abs_mask = splat(f32_abs_mask), inf = splat(f32_inf), quiet = splat(f32_quiet);
    const std::size_t nv = n - n % w;
    std::size_t i = 0;
    if (p == precision::fp16) {
        const ibatch keep_hi = splat(~0x1FFFu), min_normal = splat(f32_min_normal_half), overflow = splat(f32_half_overflow);
        const fbatch half(0.5f);
        for (; i < nv; i += w) {
            const ibatch bits = xsimd::bitwise_cast<std::int32_t>(fbatch::load_unaligned(x + i));
            const ibatch abs = bits & abs_mask;
            const ibatch sign = bits & ~abs_mask;
            ibatch normal = (abs + ibatch(0xFFF) + ((abs >> 13) & ibatch(1))) & keep_hi;
            normal = xsimd::select(normal >= overflow, inf, normal);
            const ibatch sub = xsimd::bitwise_cast<std::int32_t>((xsimd::bitwise_cast<float>(abs) + half) - half);
            const ibatch rounded = sign | xsimd::select(abs < min_normal, sub, normal);
            const ibatch nan = (bits | quiet) & keep_hi;
            xsimd::bitwise_cast<float>(xsimd::select(abs > inf, nan, rounded)).store_unaligned(x + i);
        }
    } else {
        const ibatch keep_hi = splat(0xFFFF0000u);
        for (; i < nv; i += w) {
            const ibatch bits = xsimd::bitwise_cast<std::int32_t>(fbatch::load_unaligned(x + i));
            const ibatch rounded = (bits + ibatch(0x7FFF) + ((bits >> 16) & ibatch(1))) & keep_hi;
            const ibatch nan = (bits | quiet) & keep_hi;
            xsimd::bitwise_cast<float>(xsimd::select((bits & abs_mask) > inf, nan, rounded)).store_unaligned(x + i);
        }
    }
    for (; i < n; ++i)
        x[i] = round_to(p, x[i]);
}

void softmax_rows_rounded(float* x, int n, int m, bool subtract_max, precision p) {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
        float* r = x + std::size_t(i) * std::size_t(m);
        float mx = neg_inf;
        for (int j = 0; j < m; ++j)
            mx = std::fmax(mx, r[j]);
        if (mx == neg_inf) {  // no key visible: masked, or NaN (never masked)
            const bool any_nan = std::any_of(r, r + m, [](float v) { return std::isnan(v); });
            std::fill(r, r + m, any_nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
            continue;
        }
        const float shift = subtract_max ? mx : 0.0f;
        float sum = 0.0f;
        for (int j = 0; j < m; ++j) {
            r[j] = round_to(p, std::exp(round_to(p, r[j] - shift)));
            sum = round_to(p, sum + r[j]);
        }
        for (int j = 0; j < m; ++j)
            r[j] = round_to(p, r[j] / sum);
    }
}

}  // namespace attn
