// The core tests' one way to compare computed numbers with reference numbers
// (a SIMD kernel with its scalar twin, a tiled pass with the naive one, two
// traces): how many elements fall outside a tolerance, with the first few
// reported like a diff, and the largest absolute difference.
//
//   CHECK(test::mismatches(c, c_ref, test::relative(1e-5f), "matmul", {"simd", "naive"}) == 0);
//   CHECK(test::max_abs_diff(a.output, b.output) < 1e-6);
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "base/matrix.hpp"

namespace attn::test {

// got agrees with want when |got - want| <= abs + rel·|want|, or when both are
// the same value (infinities included) or both NaN.
struct tolerance {
    double abs = 0.0, rel = 0.0;
};
inline tolerance absolute(double t) { return {t, 0.0}; }
inline tolerance relative(double t) { return {t, t}; }  // t·(1 + |want|)

// How a report names the two sides ("simd 0.5 vs naive 0.25").
struct sides {
    const char* got = "got";
    const char* want = "want";
};

inline bool agree(double got, double want, tolerance tol) {
    if (got == want || (std::isnan(got) && std::isnan(want)))
        return true;
    return std::fabs(got - want) <= tol.abs + tol.rel * std::fabs(want);
}

// How many elements of got (any indexable sequence of numbers) disagree with
// want; the first five are reported as "what [i]: got x vs want y (|diff| d)".
// Sequences of different lengths disagree everywhere.
template <class Got, class Want>
int mismatches(const Got& got, const Want& want, tolerance tol, const std::string& what = "", sides names = {}) {
    if (got.size() != want.size()) {
        MESSAGE(what << ": " << names.got << " has " << got.size() << " values, " << names.want << " " << want.size());
        return int(std::max(got.size(), want.size()));
    }
    int bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double g = double(got[i]), w = double(want[i]);
        if (agree(g, w, tol))
            continue;
        if (bad < 5)
            MESSAGE(what << " [" << i << "]: " << names.got << " " << g << " vs " << names.want << " " << w << " (|diff| "
                         << std::fabs(g - w) << ")");
        ++bad;
    }
    return bad;
}

inline int mismatches(const matrix& got, const matrix& want, tolerance tol, const std::string& what = "", sides names = {}) {
    if (got.rows != want.rows || got.cols != want.cols) {
        MESSAGE(what << ": " << names.got << " is " << got.rows << "x" << got.cols << ", " << names.want << " " << want.rows
                     << "x" << want.cols);
        return int(std::max(got.size(), want.size()));
    }
    return mismatches(got.data, want.data, tol, what, names);
}

// max_i |a[i] - b[i]| in double (NaN when a NaN meets a number); the sizes must match.
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(double(a[i]) - double(b[i]));
        worst = std::isnan(d) || std::isnan(worst) ? NAN : std::max(worst, d);
    }
    return worst;
}

inline double max_abs_diff(const matrix& a, const matrix& b) {
    REQUIRE(a.rows == b.rows);
    REQUIRE(a.cols == b.cols);
    return max_abs_diff(a.data, b.data);
}

}  // namespace attn::test
