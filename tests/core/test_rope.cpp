// RoPE: the SIMD rotation against its scalar twin, and the two properties that
// make it a position encoding: it preserves lengths, and Q·K depends only on the
// distance between the two positions.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "base/random.hpp"
#include "compare.hpp"
#include "model/rope.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::random_vector;

namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += double(a[i]) * double(b[i]);
    return s;
}

double norm(const std::vector<float>& a) { return std::sqrt(dot(a, a)); }

// One vector (1, d) rotated for position pos.
std::vector<float> rotated(std::vector<float> x, int pos, float base = 10000.0f) {
    rope_rotate(x.data(), 1, int(x.size()), pos, base);
    return x;
}

}  // namespace

TEST_CASE("rope_rotate equals its scalar twin") {
    rng g(11);
    struct shape {
        int n, d, pos0;
        float base;
    };
    std::vector<shape> shapes = {{1, 1, 0, 10000.0f}, {1, 2, 1, 10000.0f},     {3, 3, 5, 10000.0f}, {2, 8, 0, 10000.0f},
                                 {4, 17, 9, 100.0f},  {5, 64, 1000, 10000.0f}, {1, 67, 7, 500.0f},  {2, 128, 60000, 10000.0f}};
    for (int i = 0; i < 60; ++i)
        shapes.push_back(
            {1 + int(g.next_u64() % 12), 1 + int(g.next_u64() % 80), int(g.next_u64() % 20000), (i % 2) ? 10000.0f : 50.0f});
    for (const shape& s : shapes) {
        auto x = random_vector(g, std::size_t(s.n * s.d));
        auto x_ref = x;
        rope_rotate(x.data(), s.n, s.d, s.pos0, s.base);
        rope_rotate_naive(x_ref.data(), s.n, s.d, s.pos0, s.base);
        INFO("n=" << s.n << " d=" << s.d << " pos0=" << s.pos0 << " base=" << s.base);
        CHECK(test::mismatches(x, x_ref, test::relative(1e-6f), "rope_rotate", {"simd", "naive"}) == 0);
    }
}

TEST_CASE("rope_rotate turns each pair by pos·base^(-2p/d) and leaves an odd last component alone") {
    // A double-precision rotation of the same input: checks the angles at large
    // positions, where a float angle would already be visibly off.
    rng g(12);
    for (const int d : {6, 7, 64}) {
        for (const int pos : {0, 1, 37, 4096, 100000}) {
            const auto x = random_vector(g, std::size_t(d));
            const auto y = rotated(x, pos);
            INFO("d=" << d << " pos=" << pos);
            for (int p = 0; p < d / 2; ++p) {
                const double angle = double(pos) * std::pow(10000.0, -2.0 * p / d);
                const double a = x[std::size_t(2 * p)], b = x[std::size_t(2 * p + 1)];
                CHECK(y[std::size_t(2 * p)] == doctest::Approx(a * std::cos(angle) - b * std::sin(angle)).epsilon(1e-5));
                CHECK(y[std::size_t(2 * p + 1)] == doctest::Approx(a * std::sin(angle) + b * std::cos(angle)).epsilon(1e-5));
            }
            if (d % 2 == 1)
                CHECK(y[std::size_t(d - 1)] == x[std::size_t(d - 1)]);
            if (pos == 0)
                CHECK(y == x);
        }
    }
}

TEST_CASE("rope_rotate preserves the length of every pair") {
    rng g(13);
    for (const int d : {2, 5, 8, 31, 64, 96}) {
        const int n = 9;
        auto x = random_vector(g, std::size_t(n * d));
        const auto before = x;
        rope_rotate(x.data(), n, d, 123, 10000.0f);
        for (int i = 0; i < n; ++i)
            for (int p = 0; p < d / 2; ++p) {
                const std::size_t a = std::size_t(i * d + 2 * p), b = a + 1;
                const double r0 = std::hypot(double(before[a]), double(before[b]));
                const double r1 = std::hypot(double(x[a]), double(x[b]));
                INFO("d=" << d << " row=" << i << " pair=" << p);
                CHECK(std::fabs(r1 - r0) <= 1e-6 * (1.0 + r0));
            }
    }
}

TEST_CASE("rope_rotate: R_m q · R_n k depends only on n - m") {
    // Shifting both positions by s leaves the dot product unchanged, within 1e-4
    // of |q|·|k| (the scale a dot product of these vectors lives on); moving only
    // one of them changes it by more than that tolerance.
    rng g(14);
    for (const int d : {8, 33, 64}) {
        for (int trial = 0; trial < 10; ++trial) {
            const auto q = random_vector(g, std::size_t(d)), k = random_vector(g, std::size_t(d));
            const int m = int(g.next_u64() % 2000), n = int(g.next_u64() % 2000);
            const double scale = norm(q) * norm(k);
            const double base_dot = dot(rotated(q, m), rotated(k, n));
            for (const int s : {1, 3, 50, 1000, 20000}) {
                INFO("d=" << d << " m=" << m << " n=" << n << " shift=" << s);
                const double shifted = dot(rotated(q, m + s), rotated(k, n + s));
                CHECK(std::fabs(shifted - base_dot) <= 1e-4 * scale);
                const double one_moved = dot(rotated(q, m + s), rotated(k, n));
                CHECK(std::fabs(one_moved - base_dot) > 1e-4 * scale);
            }
        }
    }
}

TEST_CASE("rope_rotate_half (Hugging Face's rotate_half) equals its scalar twin, and rope_rotate on the pairs permuted") {
    rng g(13);
    for (const int d : {2, 4, 8, 14, 32, 64, 96, 128}) {
        for (const int pos0 : {0, 3, 777, 30000}) {
            const int n = 3;
            const float base = d == 64 ? 1000000.0f : 10000.0f;  // Qwen2's rope_theta, and the usual one
            const auto x = random_vector(g, std::size_t(n * d));
            auto simd = x, naive = x;
            rope_rotate_half(simd.data(), n, d, pos0, base);
            rope_rotate_half_naive(naive.data(), n, d, pos0, base);
            INFO("d=" << d << " pos0=" << pos0);
            CHECK(test::mismatches(simd, naive, test::relative(1e-6f), "rope_rotate_half", {"simd", "naive"}) == 0);
            // (x[p], x[p + d/2]) → (x[2p], x[2p+1]), rotated interleaved, and back.
            std::vector<float> inter(x.size()), back(x.size());
            for (int i = 0; i < n; ++i)
                for (int p = 0; p < d / 2; ++p) {
                    inter[std::size_t(i * d + 2 * p)] = x[std::size_t(i * d + p)];
                    inter[std::size_t(i * d + 2 * p + 1)] = x[std::size_t(i * d + p + d / 2)];
                }
            rope_rotate_naive(inter.data(), n, d, pos0, base);
            for (int i = 0; i < n; ++i)
                for (int p = 0; p < d / 2; ++p) {
                    back[std::size_t(i * d + p)] = inter[std::size_t(i * d + 2 * p)];
                    back[std::size_t(i * d + p + d / 2)] = inter[std::size_t(i * d + 2 * p + 1)];
                }
            CHECK(test::mismatches(naive, back, test::relative(1e-6f), "rope_rotate_half", {"half", "interleaved"}) == 0);
            // Row i turns by its own position: a row's first pair by pos·θ_0 = pos radians.
            const double angle = double(pos0 + 1);
            const double a = x[std::size_t(d)], b = x[std::size_t(d + d / 2)];
            CHECK(naive[std::size_t(d)] == doctest::Approx(a * std::cos(angle) - b * std::sin(angle)).epsilon(1e-5));
        }
    }
}
