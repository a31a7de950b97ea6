// Every backward kernel against its scalar twin over many random shapes,
// including sizes that are not multiples of the vector width, on every kernel
// set this build carries and this CPU runs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "compare.hpp"
#include "kernels/kernels.hpp"
#include "kernels/train_kernels.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::each_kernel_set;
using attn::test::mismatches;
using attn::test::random_vector;
using attn::test::relative;

namespace {

const attn::test::sides simd_vs_naive{"simd", "naive"};

struct shape {
    int n, k, m;
};

std::vector<shape> shapes() {
    std::vector<shape> out = {{1, 1, 1},    {1, 3, 5},    {2, 4, 4},  {3, 7, 9},    {24, 24, 12},
                              {48, 48, 24}, {24, 48, 44}, {8, 64, 8}, {17, 33, 31}, {1, 1, 67}};
    rng g(7);
    for (int i = 0; i < 40; ++i)
        out.push_back({1 + int(g.next_u64() % 40), 1 + int(g.next_u64() % 70), 1 + int(g.next_u64() % 70)});
    return out;
}

}  // namespace

TEST_CASE("kernel_matmul_at_acc equals its scalar twin") {
    each_kernel_set([&] {
        rng g(1);
        for (const shape s : shapes()) {
            auto a = random_vector(g, std::size_t(s.n * s.k));
            for (int r = 0; r < s.n; ++r)  // zeros as in causal attention weights (a(r, p) = 0 for p > r)
                for (int p = r + 1; p < s.k; ++p)
                    a[std::size_t(r * s.k + p)] = 0.0f;
            const auto b = random_vector(g, std::size_t(s.n * s.m));
            std::vector<float> c = random_vector(g, std::size_t(s.k * s.m)), c_ref = c, c_sparse = c;
            kernel_matmul_at_acc(a.data(), b.data(), c.data(), s.n, s.k, s.m);
            kernel_matmul_at_acc(a.data(), b.data(), c_sparse.data(), s.n, s.k, s.m, true);
            kernel_matmul_at_acc_naive(a.data(), b.data(), c_ref.data(), s.n, s.k, s.m);
            INFO("shape n=" << s.n << " k=" << s.k << " m=" << s.m);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.n + 1)), "matmul_at_acc", simd_vs_naive) == 0);
            CHECK(c_sparse == c);  // skipping the zero rows gives the same bits
        }
    });
}

TEST_CASE("kernel_softmax_rows_backward equals its scalar twin, and zero rows stay zero") {
    each_kernel_set([&] {
        rng g(2);
        for (const shape s : shapes()) {
            std::vector<float> y = random_vector(g, std::size_t(s.n * s.m));
            kernel_softmax_rows(y.data(), s.n, s.m, true);
            std::fill(y.begin(), y.begin() + s.m, 0.0f);  // row 0 fully masked
            const auto dy = random_vector(g, y.size());
            std::vector<float> dx(y.size(), -1.0f), dx_ref(y.size(), -2.0f);
            kernel_softmax_rows_backward(y.data(), dy.data(), dx.data(), s.n, s.m);
            kernel_softmax_rows_backward_naive(y.data(), dy.data(), dx_ref.data(), s.n, s.m);
            INFO("shape n=" << s.n << " m=" << s.m);
            CHECK(mismatches(dx, dx_ref, relative(1e-5f * float(s.m)), "softmax_rows_backward", simd_vs_naive) == 0);
            for (int j = 0; j < s.m; ++j)
                CHECK(dx[std::size_t(j)] == 0.0f);
        }
    });
}

TEST_CASE("kernel_relu and its backward equal their scalar twins bit for bit: NaN kept, -0 to +0, no branch") {
    each_kernel_set([&] {
        rng g(3);
        for (const int count : {1, 3, 4, 17, 64, 385}) {
            std::vector<float> x = random_vector(g, std::size_t(count));
            x[0] = -0.0f;
            if (count > 2) {
                x[1] = std::nanf("");
                x[2] = INFINITY;
            }
            std::vector<float> y = x, y_ref = x;
            kernel_relu(y.data(), count);
            kernel_relu_naive(y_ref.data(), count);
            const std::vector<float> dy = random_vector(g, x.size());
            std::vector<float> dx = dy, dx_ref = dy;
            kernel_relu_backward(x.data(), dx.data(), count);
            kernel_relu_backward_naive(x.data(), dx_ref.data(), count);
            INFO("count " << count);
            for (std::size_t i = 0; i < x.size(); ++i) {
                CHECK(std::memcmp(&y[i], &y_ref[i], sizeof(float)) == 0);
                CHECK(std::memcmp(&dx[i], &dx_ref[i], sizeof(float)) == 0);
            }
            CHECK(std::signbit(y[0]) == false);  // -0 became +0
            if (count > 2) {
                CHECK(std::isnan(y[1]));  // NaN kept in the forward, zero in the backward
                CHECK(dx[1] == 0.0f);
            }
        }
    });
}

TEST_CASE("kernel_rope_pairs and its backward equal their scalar twins, in place too; a NaN stays in its pair") {
    each_kernel_set([&] {
        rng g(5);
        for (const int n : {2, 4, 12, 18, 48, 96, 130}) {
            const std::vector<float> x = random_vector(g, std::size_t(n));
            std::vector<float> c(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(n));
            for (int p = 0; p < n / 2; ++p) {  // the tables' per-lane form: cos, cos; −sin, +sin
                const float angle = float(p) * 0.37f + 0.1f;
                c[std::size_t(2 * p)] = c[std::size_t(2 * p + 1)] = std::cos(angle);
                s[std::size_t(2 * p)] = -std::sin(angle);
                s[std::size_t(2 * p + 1)] = std::sin(angle);
            }
            std::vector<float> y(x.size()), y_ref(x.size()), in_place = x;
            kernel_rope_pairs(x.data(), c.data(), s.data(), y.data(), n);
            kernel_rope_pairs_naive(x.data(), c.data(), s.data(), y_ref.data(), n);
            kernel_rope_pairs(in_place.data(), c.data(), s.data(), in_place.data(), n);
            std::vector<float> dx = random_vector(g, x.size());
            std::vector<float> dx_ref = dx;
            kernel_rope_pairs_backward(x.data(), c.data(), s.data(), dx.data(), n);
            kernel_rope_pairs_backward_naive(x.data(), c.data(), s.data(), dx_ref.data(), n);
            INFO("n " << n);
            CHECK(mismatches(y, y_ref, relative(1e-6f), "rope", simd_vs_naive) == 0);
            CHECK(mismatches(in_place, y, relative(0.0f), "in place", {"in place", "apart"}) == 0);
            CHECK(mismatches(dx, dx_ref, relative(1e-6f), "rope backward", simd_vs_naive) == 0);
            // The rotation and its transpose undo each other.
            std::vector<float> back(x.size(), 0.0f);
            kernel_rope_pairs_backward(y.data(), c.data(), s.data(), back.data(), n);
            CHECK(mismatches(back, x, relative(1e-5f), "rotated back", {"back", "x"}) == 0);
            // A NaN reaches its pair's two entries and no other.
            std::vector<float> poisoned = x;
            poisoned[std::size_t(n - 2)] = std::nanf("");
            kernel_rope_pairs(poisoned.data(), c.data(), s.data(), poisoned.data(), n);
            for (int q = 0; q < n; ++q)
                CHECK(std::isnan(poisoned[std::size_t(q)]) == (q >= n - 2));
        }
    });
}

TEST_CASE("kernel_adamw equals its scalar twin") {
    each_kernel_set([&] {
        rng g(3);
        for (const shape s : shapes()) {
            const int count = s.n * s.m;
            const auto grad = random_vector(g, std::size_t(count));
            std::vector<float> p = random_vector(g, std::size_t(count)), m = random_vector(g, std::size_t(count), 0.1f);
            std::vector<float> v;
            for (int i = 0; i < count; ++i)
                v.push_back(g.uniform() * 0.01f);
            std::vector<float> p2 = p, m2 = m, v2 = v;
            const adamw_scalars sc{
                1.0f - 3e-3f * 0.01f, 0.9f, 0.99f, 3e-3f / (1.0f - 0.9f * 0.9f), std::sqrt(1.0f - 0.99f * 0.99f), 1e-8f};
            kernel_adamw(p.data(), grad.data(), m.data(), v.data(), count, sc);
            kernel_adamw_naive(p2.data(), grad.data(), m2.data(), v2.data(), count, sc);
            INFO("count " << count);
            CHECK(mismatches(p, p2, relative(1e-6f), "adamw p", simd_vs_naive) == 0);
            CHECK(mismatches(m, m2, relative(1e-6f), "adamw m", simd_vs_naive) == 0);
            CHECK(mismatches(v, v2, relative(1e-6f), "adamw v", simd_vs_naive) == 0);
        }
    });
}
