#include "maps/heatmap_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/text_util.hpp"

namespace attn::ui {

heatmap_cell heatmap_classify(float value, float mask_value) {
    if (std::isnan(value))
        return heatmap_cell::nan;
    if (std::isinf(mask_value) && mask_value < 0.0f)
        return heatmap_cell::masked;
    if (std::isinf(value))
        return value > 0.0f ? heatmap_cell::pos_inf : heatmap_cell::neg_inf;
    return heatmap_cell::finite;
}

heatmap_cell heatmap_classify(const matrix& m, const matrix* masked_from, int r, int c) {
    const bool has_mask = masked_from && masked_from->rows == m.rows && masked_from->cols == m.cols;
    return heatmap_classify(m(r, c), has_mask ? (*masked_from)(r, c) : 0.0f);
}

namespace {

const matrix* usable_mask(const matrix& m, const matrix* masked_from) {
    return masked_from && masked_from->rows == m.rows && masked_from->cols == m.cols ? masked_from : nullptr;
}

}  // namespace

void heatmap_texels_fill(const matrix& m, const matrix* masked_from, std::vector<float>& out) {
    const matrix* mask = usable_mask(m, masked_from);
    out.resize(m.size() * 2);
    for (std::size_t i = 0; i < m.size(); ++i) {
        const float v = m.data[i];
        const heatmap_cell c = heatmap_classify(v, mask ? mask->data[i] : 0.0f);
        out[2 * i] = c == heatmap_cell::finite ? v : 0.0f;
        out[2 * i + 1] = float(int(c));
    }
}

heatmap_range heatmap_range_compute(const matrix& m, const matrix* masked_from, colormap map) {
    const matrix* mask = usable_mask(m, masked_from);
    float lo = INFINITY, hi = -INFINITY, max_abs = 0.0f;
    for (std::size_t i = 0; i < m.size(); ++i) {
        const float v = m.data[i];
        if (!std::isfinite(v) || (mask && std::isinf(mask->data[i]) && mask->data[i] < 0.0f))
            continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        max_abs = std::max(max_abs, std::fabs(v));
    }
    if (map == colormap::diverging) {
        const float a = max_abs > 0.0f ? max_abs : 1.0f;
        return {-a, a};
    }
    if (lo > hi)  // no finite cell
        return {0.0f, 1.0f};
    if (lo == hi) {
        if (lo > 0.0f)
            lo = 0.0f;
        else if (hi < 0.0f)
            hi = 0.0f;
        else
            hi = 1.0f;
    }
    return {lo, hi};
}

std::vector<float> heatmap_row_sums(const matrix& m) {
    std::vector<float> sums(std::size_t(m.rows));
    for (int r = 0; r < m.rows; ++r) {
        double s = 0.0;
        const float* row = m.row(r);
        for (int c = 0; c < m.cols; ++c)
            s += double(row[c]);
        sums[std::size_t(r)] = float(s);
    }
    return sums;
}

heatmap_counts heatmap_count_cells(const matrix& m, const matrix* masked_from) {
    const matrix* mask = usable_mask(m, masked_from);
    heatmap_counts n;
    for (std::size_t i = 0; i < m.size(); ++i)
        ++n.counts[int(heatmap_classify(m.data[i], mask ? mask->data[i] : 0.0f))];
    return n;
}

rgb heatmap_color_sequential_rgb(float t) {
    // Same polynomial as shaders/heatmap.frag (Matt Zucker's viridis fit).
    static const double c[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832},
    };
    const double x = std::clamp(double(t), 0.0, 1.0);
    double out[3];
    for (int k = 0; k < 3; ++k) {
        double v = c[6][k];
        for (int i = 5; i >= 0; --i)
            v = c[i][k] + x * v;
        out[k] = std::clamp(v, 0.0, 1.0);
    }
    return {float(out[0]), float(out[1]), float(out[2])};
}

rgb heatmap_color_diverging_rgb(float t) {
    // Same stops as shaders/heatmap.frag (ColorBrewer RdBu, reversed).
    static const float s[9][3] = {
        {0.129f, 0.400f, 0.675f}, {0.263f, 0.576f, 0.765f}, {0.573f, 0.773f, 0.871f},
        {0.820f, 0.898f, 0.941f}, {0.969f, 0.969f, 0.969f}, {0.992f, 0.859f, 0.780f},
        {0.957f, 0.647f, 0.510f}, {0.839f, 0.376f, 0.302f}, {0.698f, 0.094f, 0.169f},
    };
    const float x = std::clamp(t, 0.0f, 1.0f) * 8.0f;
    const int i = std::min(int(x), 7);
    const float f = x - float(i);
    return {s[i][0] + (s[i + 1][0] - s[i][0]) * f, s[i][1] + (s[i + 1][1] - s[i][1]) * f, s[i][2] + (s[i + 1][2] - s[i][2]) * f};
}

rgb heatmap_color_map(colormap map, float t) {
    return map == colormap::diverging ? heatmap_color_diverging_rgb(t) : heatmap_color_sequential_rgb(t);
}

float heatmap_range_t(heatmap_range range, float v) {
    const float span = range.hi - range.lo;
    return span > 0.0f ? std::clamp((v - range.lo) / span, 0.0f, 1.0f) : 0.5f;
}

rgb heatmap_color_cell(colormap map, heatmap_range range, heatmap_cell c, float v) {
    switch (c) {
        case heatmap_cell::finite:
            return heatmap_color_map(map, heatmap_range_t(range, v));
        case heatmap_cell::nan:
            return {1.0f, 0.0f, 1.0f};
        case heatmap_cell::pos_inf:
            return {1.0f, 0.98f, 0.82f};
        case heatmap_cell::neg_inf:
            return {0.0f, 0.0f, 0.0f};
        case heatmap_cell::masked:
            break;
    }
    return {0.41f, 0.41f, 0.41f};  // the hatching's average grey
}

float heatmap_luma(rgb c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

const char* heatmap_value_format(float v) {
    const float a = std::fabs(v);
    return a < 9.995f ? "%.2f" : a < 99.95f ? "%.1f" : a < 9999.5f ? "%.0f" : "%.0e";
}

const char* heatmap_format_value(float v, char* buf, std::size_t size) {
    // "-0.00" rounds to zero: "0.00" (number_text drops the sign).
    const std::string text = number_text(v, heatmap_value_format(v), {"nan", "inf", "-inf"});
    std::snprintf(buf, size, "%s", text.c_str());
    return buf;
}

int heatmap_value_chars(float v) {
    if (std::isnan(v))
        return 3;
    if (std::isinf(v))
        return v > 0 ? 3 : 4;
    const float a = std::fabs(v);
    const int sign = v < 0.0f ? 1 : 0;
    if (a < 9.995f)  // "%.2f": a sign only where it does not round to 0.00 (a double's exact digits)
        return 4 + (sign && double(a) >= 0.005 ? 1 : 0);
    if (a < 99.95f)  // "%.1f": 10.0 to 99.9
        return 4 + sign;
    if (a < 9999.5f)  // "%.0f": 100 to 9999, 999.5 rounding to even 1000
        return (a >= 999.5f ? 4 : 3) + sign;
    return 5 + sign;  // "%.0e": 1e+04 to 3e+38
}

heatmap_value_extent heatmap_value_extent_of(const matrix& m, const matrix* masked_from) {
    heatmap_value_extent e;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            if (heatmap_classify(m, masked_from, r, c) == heatmap_cell::masked)
                continue;
            ++e.cells;
            e.widest_chars = std::max(e.widest_chars, heatmap_value_chars(m(r, c)));
        }
    return e;
}

}  // namespace attn::ui
