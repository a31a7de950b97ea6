// The heatmap's ui-free logic: the class code every cell is uploaded with (the
// shader trusts it instead of isnan/isinf), the automatic value ranges, row
// sums, and the CPU twins of the shader's colour maps.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "maps/heatmap_data.hpp"

using namespace attn;
using namespace attn::ui;

namespace {
const float nan_f = std::numeric_limits<float>::quiet_NaN();
const float inf_f = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("every cell gets its class: finite, NaN, +inf, -inf, masked") {
    CHECK(heatmap_classify(0.5f, 0.0f) == heatmap_cell::finite);
    CHECK(heatmap_classify(0.0f, 0.0f) == heatmap_cell::finite);
    CHECK(heatmap_classify(nan_f, 0.0f) == heatmap_cell::nan);
    CHECK(heatmap_classify(inf_f, 0.0f) == heatmap_cell::pos_inf);
    CHECK(heatmap_classify(-inf_f, 0.0f) == heatmap_cell::neg_inf);
    // Masked where the companion matrix is -inf, whatever the value (a weight of 0,
    // or the -inf of the masked score matrix itself)...
    CHECK(heatmap_classify(0.0f, -inf_f) == heatmap_cell::masked);
    CHECK(heatmap_classify(-inf_f, -inf_f) == heatmap_cell::masked);
    // ...but a NaN stays visible, and +inf in the companion is no mask.
    CHECK(heatmap_classify(nan_f, -inf_f) == heatmap_cell::nan);
    CHECK(heatmap_classify(0.25f, inf_f) == heatmap_cell::finite);
}

TEST_CASE("texels: (value, class) pairs, row-major, non-finite values written as 0") {
    matrix m(2, 3);
    m.data = {0.5f, nan_f, inf_f, -inf_f, -2.0f, 0.0f};
    matrix mask(2, 3);
    mask(1, 2) = -inf_f;
    std::vector<float> t;
    heatmap_texels_fill(m, &mask, t);
    REQUIRE(t.size() == 12);
    const float want[12] = {0.5f, 0, 0, 1, 0, 2, 0, 3, -2.0f, 0, 0, 4};
    for (int i = 0; i < 12; ++i)
        CHECK_MESSAGE(t[std::size_t(i)] == want[i], "texel component " << i);
    // A companion of another shape is ignored rather than read out of bounds.
    matrix wrong(1, 1, -inf_f);
    heatmap_texels_fill(m, &wrong, t);
    CHECK(t[11] == 0.0f);
    CHECK(heatmap_count_cells(m, &mask).of(heatmap_cell::masked) == 1);
    CHECK(heatmap_count_cells(m, &mask).of(heatmap_cell::nan) == 1);
    CHECK(heatmap_count_cells(m, nullptr).of(heatmap_cell::finite) == 3);
}

TEST_CASE("ranges: finite unmasked min/max; diverging symmetric; degenerate ranges widened") {
    matrix m(2, 2);
    m.data = {-1.0f, 3.0f, nan_f, -inf_f};
    auto r = heatmap_range_compute(m, nullptr, colormap::sequential);
    CHECK(r.lo == -1.0f);
    CHECK(r.hi == 3.0f);
    r = heatmap_range_compute(m, nullptr, colormap::diverging);
    CHECK(r.lo == -3.0f);
    CHECK(r.hi == 3.0f);
    matrix mask(2, 2);
    mask(0, 1) = -inf_f;  // the 3 is masked: it does not stretch the range
    r = heatmap_range_compute(m, &mask, colormap::sequential);
    CHECK(r.lo == -1.0f);
    CHECK(r.hi == 0.0f);

    matrix ones(1, 1, 1.0f);  // one token: its weight 1 keeps the bright end
    r = heatmap_range_compute(ones, nullptr, colormap::sequential);
    CHECK(r.lo == 0.0f);
    CHECK(r.hi == 1.0f);
    matrix zeros(2, 2, 0.0f);
    r = heatmap_range_compute(zeros, nullptr, colormap::diverging);
    CHECK(r.lo == -1.0f);
    CHECK(r.hi == 1.0f);
    matrix none(1, 1, nan_f);
    r = heatmap_range_compute(none, nullptr, colormap::sequential);
    CHECK(r.lo == 0.0f);
    CHECK(r.hi == 1.0f);
    CHECK(heatmap_range_t({-2.0f, 2.0f}, 0.0f) == doctest::Approx(0.5f));
    CHECK(heatmap_range_t({0.0f, 1.0f}, 7.0f) == 1.0f);
    CHECK(heatmap_range_t({1.0f, 1.0f}, 1.0f) == 0.5f);
}

TEST_CASE("row sums in double; NaN propagates") {
    matrix m(2, 3);
    m.data = {0.25f, 0.25f, 0.5f, 1.0f, nan_f, 0.0f};
    const auto s = heatmap_row_sums(m);
    REQUIRE(s.size() == 2);
    CHECK(s[0] == 1.0f);
    CHECK(std::isnan(s[1]));
}

TEST_CASE("colour maps: viridis ends, diverging white at zero, special classes unmistakable") {
    const rgb lo = heatmap_color_sequential_rgb(0.0f), hi = heatmap_color_sequential_rgb(1.0f);
    CHECK(lo.r == doctest::Approx(0.267).epsilon(0.02));
    CHECK(lo.b == doctest::Approx(0.329).epsilon(0.02));
    CHECK(hi.r > 0.95f);
    CHECK(hi.g > 0.85f);
    CHECK(hi.b < 0.2f);
    // Luminance rises monotonically along viridis (it is perceptually ordered).
    float last = -1.0f;
    for (int i = 0; i <= 32; ++i) {
        const float y = heatmap_luma(heatmap_color_sequential_rgb(float(i) / 32.0f));
        CHECK(y > last);
        last = y;
    }
    const rgb mid = heatmap_color_diverging_rgb(0.5f), neg = heatmap_color_diverging_rgb(0.0f),
              pos = heatmap_color_diverging_rgb(1.0f);
    CHECK(mid.r > 0.95f);
    CHECK(mid.g > 0.95f);
    CHECK(mid.b > 0.95f);
    CHECK(neg.b > neg.r);
    CHECK(pos.r > pos.b);
    const heatmap_range r{0.0f, 1.0f};
    const rgb nan_c = heatmap_color_cell(colormap::sequential, r, heatmap_cell::nan, 0.0f);
    CHECK((nan_c.r == 1.0f && nan_c.g == 0.0f && nan_c.b == 1.0f));
    const rgb masked = heatmap_color_cell(colormap::sequential, r, heatmap_cell::masked, 0.0f);
    const rgb zero = heatmap_color_cell(colormap::sequential, r, heatmap_cell::finite, 0.0f);
    CHECK(std::fabs(masked.g - zero.g) > 0.2f);  // a masked cell is not a weight of 0
    CHECK(heatmap_luma(heatmap_color_cell(colormap::sequential, r, heatmap_cell::neg_inf, 0.0f)) == 0.0f);
    CHECK(heatmap_luma(heatmap_color_cell(colormap::sequential, r, heatmap_cell::pos_inf, 0.0f)) > 0.95f);
}

TEST_CASE("numbers in cells stay short") {
    char buf[16];
    CHECK(std::string(heatmap_format_value(0.25f, buf, sizeof buf)) == "0.25");
    CHECK(std::string(heatmap_format_value(-3.14159f, buf, sizeof buf)) == "-3.14");
    CHECK(std::string(heatmap_format_value(12.5f, buf, sizeof buf)) == "12.5");
    CHECK(std::string(heatmap_format_value(-1234.0f, buf, sizeof buf)) == "-1234");
    CHECK(std::string(heatmap_format_value(123456.0f, buf, sizeof buf)) == "1e+05");
    CHECK(std::string(heatmap_format_value(nan_f, buf, sizeof buf)) == "nan");
    CHECK(std::string(heatmap_format_value(-inf_f, buf, sizeof buf)) == "-inf");
    CHECK(std::string(heatmap_format_value(-0.001f, buf, sizeof buf)) == "0.00");  // rounds to zero: no sign
    CHECK(std::string(heatmap_format_value(-0.0f, buf, sizeof buf)) == "0.00");
    CHECK(std::string(heatmap_format_value(-0.006f, buf, sizeof buf)) == "-0.01");
}

TEST_CASE("a number's length in a cell is the length of its text, without formatting it") {
    char buf[24];
    int checked = 0, wrong = 0;
    const auto same = [&](float v) {
        ++checked;
        if (heatmap_value_chars(v) != int(std::strlen(heatmap_format_value(v, buf, sizeof buf))))
            ++wrong;
    };
    // Around every edge where the text changes length (each float within 64 steps), both signs.
    for (const float edge : {0.0f, 0.005f, 9.995f, 99.95f, 999.5f, 9999.5f, 3.4e38f})
        for (const float sign : {1.0f, -1.0f}) {
            float v = edge;
            for (int i = 0; i < 64; ++i)
                v = std::nextafter(v, 0.0f);
            for (int i = 0; i < 128; ++i, v = std::nextafter(v, inf_f))
                same(sign * v);
        }
    for (const float v : {nan_f, inf_f, -inf_f, -0.0f})
        same(v);
    // Every binary exponent a float has, with random mantissas and signs.
    std::uint32_t x = 12345;
    for (int i = 0; i < 200000; ++i) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        float v;
        std::memcpy(&v, &x, sizeof v);
        same(v);
    }
    CHECK(checked > 200000);
    CHECK(wrong == 0);
}

// [SECTION] colour vision deficiency: Machado, Oliveira & Fernandes (2009),
// severity 1, applied to linear RGB; distances are CIE76 ΔE in CIELAB (D65).

namespace {

using mat3 = std::array<std::array<double, 3>, 3>;
const std::pair<const char*, mat3> simulations[] = {
    {"protanopia", {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}}},
    {"deuteranopia", {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}}},
    {"tritanopia", {{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}}},
};

std::array<double, 3> seen_lab(ui::rgb c, const mat3& m) {
    auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double l[3] = {lin(c.r), lin(c.g), lin(c.b)};
    double s[3];
    for (int i = 0; i < 3; ++i)
        s[i] = std::clamp(m[std::size_t(i)][0] * l[0] + m[std::size_t(i)][1] * l[1] + m[std::size_t(i)][2] * l[2], 0.0, 1.0);
    const double x = (0.4124 * s[0] + 0.3576 * s[1] + 0.1805 * s[2]) / 0.95047;
    const double y = 0.2126 * s[0] + 0.7152 * s[1] + 0.0722 * s[2];
    const double z = (0.0193 * s[0] + 0.1192 * s[1] + 0.9505 * s[2]) / 1.08883;
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))};
}

double delta_e(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

}  // namespace

TEST_CASE("colour-blind check: NaN stays apart from every colour of both maps; the diverging map's ends stay apart") {
    // NaN is told by colour alone (±∞ carry a dot and masked cells a hatch as well).
    const ui::rgb nan = ui::heatmap_color_cell(ui::colormap::sequential, {}, ui::heatmap_cell::nan, 0.0f);
    for (const auto& simulation : simulations) {
        const char* name = simulation.first;  // (clang 14 cannot capture a structured binding, as INFO does)
        const mat3& m = simulation.second;
        INFO(name);
        const auto n = seen_lab(nan, m);
        double nearest = 1e9;
        for (int i = 0; i <= 255; ++i)
            for (const ui::colormap map : {ui::colormap::sequential, ui::colormap::diverging})
                nearest = std::min(nearest, delta_e(n, seen_lab(ui::heatmap_color_map(map, float(i) / 255.0f), m)));
        CHECK(nearest >= 15.0);  // measured: protanopia 34, deuteranopia 20, tritanopia 28
        const double ends =
            delta_e(seen_lab(ui::heatmap_color_diverging_rgb(0.0f), m), seen_lab(ui::heatmap_color_diverging_rgb(1.0f), m));
        CHECK(ends >= 40.0);  // measured: 61, 84, 105: negative and positive stay apart
    }
}

TEST_CASE("a map's value extent: the widest value text and the cells that hold a value, masked cells left out") {
    matrix m(2, 3);
    m.data = {0.25f, -3.14159f, 12.5f, -1234.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f};
    heatmap_value_extent e = heatmap_value_extent_of(m, nullptr);
    CHECK(e.cells == 6);
    CHECK(e.widest_chars == 5);  // "-3.14", "-1234"
    matrix mask = m;
    mask(0, 1) = -std::numeric_limits<float>::infinity();
    mask(1, 0) = -std::numeric_limits<float>::infinity();
    e = heatmap_value_extent_of(m, &mask);
    CHECK(e.cells == 4);
    CHECK(e.widest_chars == 4);  // "12.5", "0.25"
}
