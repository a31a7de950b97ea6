// The heatmap's ui-free logic: the class code every cell is uploaded with (the
// shader trusts it instead of isnan/isinf), the automatic value ranges, row
// sums, and the CPU twins of the shader's colour maps.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "heatmap_data.hpp"

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
}
