// fp16/bf16 emulation: every fp16 and bf16 value round-trips, every tie rounds to
// even, the overflow edges sit where IEEE puts them, and the SIMD round_all gives
// the same bits as its plain-loop twin.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ios>
#include <string>
#include <vector>

#include "base/precision.hpp"
#include "base/random.hpp"

using namespace attn;

namespace {

std::uint32_t bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

float from_bits(std::uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

bool is_fp16_nan(std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

// The value a binary16 pattern stands for, from the IEEE definition in double
// arithmetic: an independent check of fp16_to_float's bit shuffling.
double fp16_value(std::uint16_t h) {
    const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
    const double mag = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(1024 + m), e - 25);
    return (h & 0x8000u) ? -mag : mag;
}

// Floats that exercise rounding: every fp16 value, the midpoints between
// neighbours and one float step either side of them, specials, and random bits.
std::vector<float> tricky_floats() {
    std::vector<float> v;
    for (std::uint32_t h = 0; h < 0x7C00u; ++h) {
        const float lo = fp16_to_float(std::uint16_t(h)), hi = fp16_to_float(std::uint16_t(h + 1));
        const float mid = lo + (hi - lo) * 0.5f;
        for (float x : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
            v.push_back(x);
            v.push_back(-x);
        }
    }
    for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, 65504.0f, 65519.0f,
                    65520.0f, 1e30f, -1e-30f})
        v.push_back(x);
    for (std::uint32_t u : {0x7F800001u, 0xFF800001u, 0x7FC00000u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x7F7FFFFFu,
                            0x7F7F8000u, 0x7F7F7FFFu, 0x00000001u, 0x807FFFFFu})
        v.push_back(from_bits(u));
    rng g(7);
    for (int i = 0; i < 200000; ++i)
        v.push_back(from_bits(std::uint32_t(g.next_u64() >> 32)));
    return v;
}

}  // namespace

TEST_SUITE_BEGIN("precision");

TEST_CASE("precision names parse back, and nothing else parses") {
    for (precision p : {precision::fp32, precision::fp16, precision::bf16}) {
        const auto back = precision_parse(precision_name(p));
        REQUIRE(back.has_value());
        CHECK(*back == p);
    }
    CHECK(std::string(precision_name(precision::fp16)) == "fp16");
    CHECK(!precision_parse("FP16").has_value());
    CHECK(!precision_parse("fp8").has_value());
    CHECK(!precision_parse("").has_value());
    CHECK(precision_bytes(precision::fp32) == 4);
    CHECK(precision_bytes(precision::fp16) == 2);
    CHECK(precision_bytes(precision::bf16) == 2);
}

TEST_CASE("precision fp16: all 65536 bit patterns decode to their IEEE value and round-trip") {
    int bad = 0;
    for (std::uint32_t u = 0; u <= 0xFFFFu; ++u) {
        const auto h = std::uint16_t(u);
        const float f = fp16_to_float(h);
        if (is_fp16_nan(h)) {
            if (!std::isnan(f) || !is_fp16_nan(fp16_from_float(f)) || !std::isnan(round_to(precision::fp16, f)))
                ++bad;
            continue;
        }
        const bool is_inf = (h & 0x7FFFu) == 0x7C00u;
        const bool value_ok = is_inf ? std::isinf(f) && std::signbit(f) == bool(h & 0x8000u) : double(f) == fp16_value(h);
        const bool sign_ok = std::signbit(f) == bool(h & 0x8000u);  // -0 stays -0
        if (!value_ok || !sign_ok || fp16_from_float(f) != h || bits(round_to(precision::fp16, f)) != bits(f)) {
            if (bad < 5)
                MESSAGE("fp16 0x" << std::hex << u << " -> " << f);
            ++bad;
        }
    }
    CHECK(bad == 0);
}

TEST_CASE("precision fp16: every tie between neighbours rounds to the even one") {
    int bad = 0;
    for (std::uint32_t h = 0; h < 0x7C00u; ++h) {  // positive finite, 0x7BFF's upper neighbour is +inf
        const float lo = fp16_to_float(std::uint16_t(h));
        const float hi = h + 1 == 0x7C00u ? 65536.0f : fp16_to_float(std::uint16_t(h + 1));
        const float mid = lo + (hi - lo) * 0.5f;  // exact: floats have 13 more mantissa bits
        const std::uint16_t even = (h & 1u) ? std::uint16_t(h + 1) : std::uint16_t(h);
        const bool ok = fp16_from_float(mid) == even && fp16_from_float(std::nextafter(mid, 0.0f)) == h &&
                        fp16_from_float(std::nextafter(mid, INFINITY)) == h + 1 && fp16_from_float(-mid) == (even | 0x8000u);
        if (!ok) {
            if (bad < 5)
                MESSAGE("tie above fp16 0x" << std::hex << h << ": mid " << mid << " -> 0x" << fp16_from_float(mid));
            ++bad;
        }
    }
    CHECK(bad == 0);
}

TEST_CASE("precision fp16: the rounding and overflow edges") {
    const auto r = [](float x) { return round_to(precision::fp16, x); };
    CHECK(r(1.0f + std::ldexp(1.0f, -11)) == 1.0f);                                // tie, 1 is even
    CHECK(r(1.0f + 3.0f * std::ldexp(1.0f, -11)) == 1.0f + std::ldexp(1.0f, -9));  // tie, rounds up to even
    CHECK(r(65504.0f) == 65504.0f);
    CHECK(r(65519.0f) == 65504.0f);
    CHECK(r(65520.0f) == INFINITY);
    CHECK(r(-65520.0f) == -INFINITY);
    CHECK(r(1e6f) == INFINITY);
    CHECK(r(FLT_MAX) == INFINITY);
    // Subnormals: 2^-24 is the smallest; half of it is a tie that goes to zero.
    CHECK(r(std::ldexp(1.0f, -24)) == std::ldexp(1.0f, -24));
    CHECK(r(std::ldexp(1.0f, -25)) == 0.0f);
    CHECK(r(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == std::ldexp(1.0f, -24));
    CHECK(r(std::ldexp(3.0f, -26)) == std::ldexp(1.0f, -24));
    CHECK(r(FLT_TRUE_MIN) == 0.0f);
    CHECK(std::signbit(r(-FLT_TRUE_MIN)));
    CHECK(r(std::nextafter(std::ldexp(1.0f, -14), 0.0f)) == std::ldexp(1.0f, -14));  // subnormal rounds up into the normals
    CHECK(std::isnan(r(NAN)));
    CHECK(r(INFINITY) == INFINITY);
    CHECK(r(-INFINITY) == -INFINITY);
    // A NaN whose payload lives only in the low bits must not truncate to infinity.
    CHECK(std::isnan(r(from_bits(0x7F800001u))));
}

TEST_CASE("precision fp16: exp overflows just past 11 (lesson L8)") {
    const float e11 = std::exp(11.0f), e111 = std::exp(11.1f);
    MESSAGE("exp(11.0) = " << e11 << " -> fp16 " << round_to(precision::fp16, e11) << "; exp(11.1) = " << e111 << " -> fp16 "
                           << round_to(precision::fp16, e111));
    CHECK(std::isfinite(round_to(precision::fp16, e11)));
    CHECK(std::fabs(round_to(precision::fp16, e11) - 59874.14f) <= 16.0f);  // fp16 spacing up there is 32
    CHECK(std::isinf(round_to(precision::fp16, e111)));
    // ln 65520 ≈ 11.0901: past it, the logit's exp overflows.
    CHECK(std::isfinite(round_to(precision::fp16, std::exp(11.089f))));
    CHECK(std::isinf(round_to(precision::fp16, std::exp(11.091f))));
}

TEST_CASE("precision bf16: all 65536 patterns round-trip, fp32's range, ~3 significant digits") {
    int bad = 0;
    for (std::uint32_t u = 0; u <= 0xFFFFu; ++u) {
        const auto b = std::uint16_t(u);
        const float f = bf16_to_float(b);
        const bool ok = std::isnan(f) ? std::isnan(round_to(precision::bf16, f))
                                      : bf16_from_float(f) == b && bits(round_to(precision::bf16, f)) == bits(f);
        if (!ok)
            ++bad;
    }
    CHECK(bad == 0);

    const auto r = [](float x) { return round_to(precision::bf16, x); };
    const float e80 = std::exp(80.0f);  // ≈ 5.5e34: far past fp16, well inside fp32
    CHECK(std::isfinite(r(e80)));
    CHECK(std::isinf(round_to(precision::fp16, e80)));
    CHECK(std::fabs(r(e80) - e80) <= e80 * std::ldexp(1.0f, -8));
    CHECK(r(1.0f + std::ldexp(1.0f, -8)) == 1.0f);                                // tie to even
    CHECK(r(1.0f + 3.0f * std::ldexp(1.0f, -8)) == 1.0f + std::ldexp(1.0f, -6));  // tie to even, upwards
    CHECK(r(1.001f) == 1.0f);                                                     // the 4th digit is gone
    CHECK(r(3.14159265f) == 3.140625f);
    CHECK(r(FLT_MAX) == INFINITY);  // past bf16's largest, (2 - 2^-7) · 2^127
    CHECK(std::isnan(r(from_bits(0x7F800001u))));

    // Relative error at most half an ulp: 8 significant bits, so 2^-8, over every binade.
    rng g(11);
    float worst = 0.0f;
    for (int i = 0; i < 100000; ++i) {
        const float x = std::ldexp(1.0f + g.uniform(), int(g.next_u64() % 200) - 100);
        worst = std::fmax(worst, std::fabs(r(x) - x) / x);
    }
    CHECK(worst <= std::ldexp(1.0f, -8));
    CHECK(worst > std::ldexp(1.0f, -9));  // and it does lose that much: ~2.4 decimal digits
}

TEST_CASE("precision fp32 is the identity, bit for bit") {
    int bad = 0;
    for (float x : tricky_floats())
        if (bits(round_to(precision::fp32, x)) != bits(x))
            ++bad;
    CHECK(bad == 0);
}

TEST_CASE("precision round_all (SIMD) equals round_all_naive bit for bit, every size") {
    const std::vector<float> input = tricky_floats();
    for (precision p : {precision::fp32, precision::fp16, precision::bf16}) {
        std::vector<float> got = input, want = input;
        round_all(p, got.data(), got.size());
        round_all_naive(p, want.data(), want.size());
        int bad = 0;
        for (std::size_t i = 0; i < input.size(); ++i)
            if (bits(got[i]) != bits(want[i])) {
                if (bad < 5)
                    MESSAGE(precision_name(p) << " x bits 0x" << std::hex << bits(input[i]) << ": simd 0x" << bits(got[i])
                                              << " vs naive 0x" << bits(want[i]));
                ++bad;
            }
        INFO("precision " << precision_name(p));
        CHECK(bad == 0);

        // Sizes around the vector width and unaligned starts: the tail must not be skipped or overrun.
        for (std::size_t n = 0; n < 40; ++n)
            for (std::size_t start = 0; start < 3; ++start) {
                std::vector<float> a(input.begin() + 1000, input.begin() + 1100), b = a;
                round_all(p, a.data() + start, n);
                round_all_naive(p, b.data() + start, n);
                CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
            }
    }
}

#if defined(__FLT16_MAX__) && !defined(__EMSCRIPTEN__)
TEST_CASE("precision fp16 agrees with the compiler's _Float16 conversion") {
    // Native only: an independent implementation (libgcc / compiler-rt) to compare
    // against. The core itself never uses _Float16, so wasm needs no support for it.
    int bad = 0;
    for (float x : tricky_floats()) {
        if (std::isnan(x))
            continue;
        const float want = float(static_cast<_Float16>(x));
        if (bits(round_to(precision::fp16, x)) != bits(want)) {
            if (bad < 5)
                MESSAGE("x " << x << ": ours " << round_to(precision::fp16, x) << " vs _Float16 " << want);
            ++bad;
        }
    }
    CHECK(bad == 0);
}
#endif

TEST_SUITE_END();
