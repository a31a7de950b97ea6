// Every SIMD kernel against its scalar twin over many random shapes, including
// sizes that are not multiples of the vector width, for every kernel set this
// build carries and this CPU runs (x86-64: avx512f, avx2 + FMA, sse2; wasm).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "compare.hpp"
#include "kernels/kernels.hpp"
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
    std::vector<shape> out = {{1, 1, 1}, {1, 3, 5}, {2, 4, 4}, {3, 7, 9}, {5, 8, 16}, {8, 64, 8}, {17, 33, 31}, {1, 1, 67}};
    rng g(99);
    for (int i = 0; i < 40; ++i)
        out.push_back({1 + int(g.next_u64() % 40), 1 + int(g.next_u64() % 70), 1 + int(g.next_u64() % 70)});
    return out;
}

// shapes() and rows as wide as decoding's (t keys): the softmax kernels' widest
// interleaved blocks (six batches: 96 floats with AVX-512) only start there.
std::vector<shape> wide_shapes() {
    std::vector<shape> out = shapes();
    for (const shape s : std::vector<shape>{{4, 1, 96}, {3, 1, 97}, {2, 1, 111}, {4, 1, 2048}, {2, 1, 2061}})
        out.push_back(s);
    return out;
}

}  // namespace

TEST_CASE("kernel_matmul equals its scalar twin") {
    each_kernel_set([&] {
        rng g(1);
        for (const shape s : shapes()) {
            const auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.k * s.m));
            std::vector<float> c(std::size_t(s.n * s.m), -1.0f), c_ref(c.size(), -2.0f);
            kernel_matmul(a.data(), b.data(), c.data(), s.n, s.k, s.m);
            kernel_matmul_naive(a.data(), b.data(), c_ref.data(), s.n, s.k, s.m);
            INFO("shape n=" << s.n << " k=" << s.k << " m=" << s.m);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k)), "matmul", simd_vs_naive) == 0);
        }
    });
}

TEST_CASE(
    "kernel_matmul_scale_acc equals its scalar twin: rows rescaled (a factor of 1 left alone, NaN kept), products added on") {
    each_kernel_set([&] {
        rng g(11);
        std::vector<shape> all = shapes();
        all.push_back({64, 64, 64});  // a tile of the tiled attention
        all.push_back({5, 0, 7});     // k = 0, no products: only the rescale
        for (const shape s : all) {
            const auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.k * s.m));
            std::vector<float> c = random_vector(g, std::size_t(s.n * s.m)), scale = random_vector(g, std::size_t(s.n));
            for (std::size_t i = 0; i < scale.size(); ++i)
                scale[i] = i % 3 == 0 ? 1.0f : i % 3 == 1 ? 0.0f : scale[i];
            if (!c.empty())
                c[0] = std::numeric_limits<float>::quiet_NaN();  // row 0's factor is 1: the NaN stays
            std::vector<float> c_ref = c;
            kernel_matmul_scale_acc(a.data(), b.data(), c.data(), s.n, s.k, s.m, scale.data());
            kernel_matmul_scale_acc_naive(a.data(), b.data(), c_ref.data(), s.n, s.k, s.m, scale.data());
            INFO("shape n=" << s.n << " k=" << s.k << " m=" << s.m);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k + 1)), "matmul_scale_acc", simd_vs_naive) == 0);
            if (!c.empty())
                CHECK(std::isnan(c[0]));
        }
    });
}

TEST_CASE("kernel_matmul_bt equals its scalar twin") {
    each_kernel_set([&] {
        rng g(2);
        for (const shape s : shapes()) {
            const auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.m * s.k));
            std::vector<float> c(std::size_t(s.n * s.m), -1.0f), c_ref(c.size(), -2.0f);
            kernel_matmul_bt(a.data(), b.data(), c.data(), s.n, s.m, s.k);
            kernel_matmul_bt_naive(a.data(), b.data(), c_ref.data(), s.n, s.m, s.k);
            INFO("shape n=" << s.n << " m=" << s.m << " d=" << s.k);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k)), "matmul_bt", simd_vs_naive) == 0);
        }
    });
}

TEST_CASE("kernel_softmax_rows equals its scalar twin, stable and unstable, with -inf entries") {
    each_kernel_set([&] {
        rng g(3);
        for (const shape s : wide_shapes()) {
            for (bool stable : {true, false}) {
                auto x = random_vector(g, std::size_t(s.n * s.m), 3.0f);
                // Mask some entries the way the causal mask does.
                for (int i = 0; i < s.n; ++i)
                    for (int j = i + 1; j < s.m; ++j)
                        if ((i + j) % 3 == 0)
                            x[std::size_t(i * s.m + j)] = -INFINITY;
                auto x_ref = x;
                kernel_softmax_rows(x.data(), s.n, s.m, stable);
                kernel_softmax_rows_naive(x_ref.data(), s.n, s.m, stable);
                INFO("shape n=" << s.n << " m=" << s.m << " stable=" << stable);
                CHECK(mismatches(x, x_ref, relative(2e-6f), "softmax", simd_vs_naive) == 0);
            }
        }
    });
}

TEST_CASE("kernel_softmax_rows: many rows at once give each row the bits it gets alone (natively narrow rows go in groups)") {
    each_kernel_set([&] {
        rng g(17);
        for (int m = 1; m <= 70; ++m)
            for (int n : {1, 2, 3, 5, 8, 11}) {
                auto x = random_vector(g, std::size_t(n * m), 4.0f);
                for (int i = 0; i < n; ++i)
                    for (int j = i + 1; j < m; ++j)
                        if ((i + j) % 3 == 0)
                            x[std::size_t(i * m + j)] = -INFINITY;
                if (n >= 3) {  // a row with a NaN, and a row with nothing above −inf
                    x[std::size_t(1 * m + m / 2)] = std::numeric_limits<float>::quiet_NaN();
                    std::fill(x.begin() + 2 * m, x.begin() + 3 * m, -INFINITY);
                }
                auto alone = x;
                kernel_softmax_rows(x.data(), n, m, true);
                for (int i = 0; i < n; ++i)
                    kernel_softmax_rows(alone.data() + std::size_t(i * m), 1, m, true);
                INFO("n=" << n << " m=" << m);
                int differ = 0;
                for (std::size_t q = 0; q < x.size(); ++q)
                    differ += std::isnan(x[q]) ? !std::isnan(alone[q]) : std::memcmp(&x[q], &alone[q], sizeof(float)) != 0;
                CHECK(differ == 0);
            }
    });
}

TEST_CASE("kernel_softmax_rows: a fully masked row becomes zeros; overflow without max-subtraction gives NaN") {
    each_kernel_set([&] {
        std::vector<float> x = {-INFINITY, -INFINITY, -INFINITY, 1.0f, 100.0f, 2.0f};
        kernel_softmax_rows(x.data(), 2, 3, true);
        CHECK(x[0] == 0.0f);
        CHECK(x[2] == 0.0f);
        CHECK(x[4] == doctest::Approx(1.0f));
        std::vector<float> y = {1.0f, 100.0f, 2.0f};  // e^100 overflows float: inf / inf = NaN
        kernel_softmax_rows(y.data(), 1, 3, false);
        CHECK(std::isnan(y[1]));
    });
}

TEST_CASE("kernel_softmax_online equals its scalar twin, with rows that see all, some or none of the tile") {
    each_kernel_set([&] {
        rng g(4);
        for (const shape s : wide_shapes()) {
            // full: every row sees the whole tile (neighbouring rows then go through
            // the two-row path of the SIMD kernel).
            for (const bool full : {false, true})
                for (const float scale : {0.125f, 1.0f, -0.5f}) {
                    auto x = random_vector(g, std::size_t(s.n * s.m), 3.0f);
                    std::vector<int> visible(std::size_t(s.n));
                    std::vector<float> row_max(std::size_t(s.n)), row_sum(std::size_t(s.n)), rescale(std::size_t(s.n), -1.0f);
                    for (int i = 0; i < s.n; ++i) {
                        // Causal-like diagonals, rows before any key (−inf max) and rows past the tile.
                        visible[std::size_t(i)] = full ? s.m : int(g.next_u64() % std::uint64_t(s.m + 3)) - 1;
                        const bool seen = g.next_u64() % 4 != 0;
                        row_max[std::size_t(i)] = seen ? g.normal() * 2.0f : -INFINITY;
                        row_sum[std::size_t(i)] = seen ? 1.0f + std::fabs(g.normal()) : 0.0f;
                    }
                    auto x_ref = x;
                    auto max_ref = row_max, sum_ref = row_sum, rescale_ref = rescale;
                    kernel_softmax_online(x.data(), s.n, s.m, visible.data(), scale, row_max.data(), row_sum.data(),
                                          rescale.data());
                    kernel_softmax_online_naive(x_ref.data(), s.n, s.m, visible.data(), scale, max_ref.data(), sum_ref.data(),
                                                rescale_ref.data());
                    INFO("shape n=" << s.n << " m=" << s.m << " scale=" << scale);
                    CHECK(mismatches(x, x_ref, relative(2e-6f), "weights", simd_vs_naive) == 0);
                    CHECK(mismatches(row_max, max_ref, relative(0.0f), "row_max", simd_vs_naive) == 0);
                    CHECK(mismatches(row_sum, sum_ref, relative(2e-6f * float(s.m)), "row_sum", simd_vs_naive) == 0);
                    CHECK(mismatches(rescale, rescale_ref, relative(2e-6f), "rescale", simd_vs_naive) == 0);
                }
        }
    });
}

TEST_CASE("kernel products equal their twins on attention-sized shapes (register tiles, k blocks, tails)") {
    each_kernel_set([&] {
        rng g(5);
        for (const shape s : std::vector<shape>{{64, 64, 64},
                                                {33, 300, 65},
                                                {8, 300, 100},
                                                {12, 129, 96},
                                                {4, 2048, 64},
                                                {1, 2048, 64},
                                                // decoding's y = W·x: one row against many, d not a multiple of a batch
                                                {1, 97, 301},
                                                {70, 513, 37},
                                                {9, 64, 2048},
                                                // training's heads, narrower than a wide batch: d_k = 12 and 24
                                                {24, 12, 24},
                                                {24, 24, 12},
                                                {48, 24, 48},
                                                {24, 48, 48},
                                                {17, 44, 29},
                                                // transposed key blocks with AVX-512: n >= 48, d <= 128, a short last block
                                                {50, 100, 70}}) {
            const auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.k * s.m));
            std::vector<float> c(std::size_t(s.n * s.m), -1.0f), c_ref(c.size(), -2.0f);
            kernel_matmul(a.data(), b.data(), c.data(), s.n, s.k, s.m);
            kernel_matmul_naive(a.data(), b.data(), c_ref.data(), s.n, s.k, s.m);
            INFO("shape n=" << s.n << " k=" << s.k << " m=" << s.m);
            CHECK(mismatches(c, c_ref, relative(1e-5f * std::sqrt(float(s.k))), "matmul", simd_vs_naive) == 0);
            kernel_matmul_bt(a.data(), b.data(), c.data(), s.n, s.m, s.k);
            kernel_matmul_bt_naive(a.data(), b.data(), c_ref.data(), s.n, s.m, s.k);
            CHECK(mismatches(c, c_ref, relative(1e-5f * std::sqrt(float(s.k))), "matmul_bt", simd_vs_naive) == 0);
        }
    });
}

TEST_CASE("where kernel_matmul_bt transposes b, kernel_matmul over bT gives the same bits (the trainer relies on it)") {
    int transposing = 0;
    each_kernel_set([&] {
        rng g(6);
        // a(n, d = s.k) · b(m = s.m, d)ᵀ, m a multiple of 4 (past the last batch of 4 each
        // product has a scalar tail, which the compiler may fuse in one and not the other)
        for (const shape s :
             std::vector<shape>{{24, 12, 24}, {24, 48, 48}, {48, 96, 384}, {48, 24, 48}, {64, 64, 64}, {17, 7, 12}}) {
            if (!kernel_matmul_bt_transposes(s.n, s.k))
                continue;
            ++transposing;
            const auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.m * s.k));
            std::vector<float> bt(b.size());
            for (int j = 0; j < s.m; ++j)
                for (int p = 0; p < s.k; ++p)
                    bt[std::size_t(p * s.m + j)] = b[std::size_t(j * s.k + p)];
            std::vector<float> c(std::size_t(s.n * s.m)), c_t(c.size());
            kernel_matmul_bt(a.data(), b.data(), c.data(), s.n, s.m, s.k);
            kernel_matmul(a.data(), bt.data(), c_t.data(), s.n, s.k, s.m);
            INFO("shape n=" << s.n << " d=" << s.k << " m=" << s.m);
            CHECK(c_t == c);
        }
    });
#if defined(__EMSCRIPTEN__)
    CHECK(transposing == 0);  // wasm folds lane sums: the trainer keeps calling kernel_matmul_bt there
#else
    MESSAGE("kernel sets x shapes that transpose: " << transposing);
#endif
}

TEST_CASE("kernel sets: the best one this CPU runs is in use; each can be chosen; unknown names change nothing") {
    const std::string arch = kernel_arch_name();
    MESSAGE("kernel sets: " << kernel_arch_count() << ", in use: " << arch);
    REQUIRE(kernel_arch_count() >= 1);
    CHECK(arch == kernel_arch_at(0));
    CHECK(kernel_arch_at(kernel_arch_count()) == nullptr);
    CHECK(kernel_arch_at(-1) == nullptr);
#ifdef __EMSCRIPTEN__
    CHECK(arch == "wasm");
#elif defined(__x86_64__)
    CHECK(std::string(kernel_arch_at(kernel_arch_count() - 1)) == "sse2");  // every x86-64 runs it
#endif
    CHECK_FALSE(kernel_use_arch("no-such-set"));
    CHECK_FALSE(kernel_use_arch(nullptr));
    CHECK(kernel_arch_name() == arch);
    for (int i = 0; i < kernel_arch_count(); ++i) {
        CHECK(kernel_use_arch(kernel_arch_at(i)));
        CHECK(std::string(kernel_arch_name()) == kernel_arch_at(i));
    }
    CHECK(kernel_use_arch(arch.c_str()));
}

// --- NaN, ±inf, huge and subnormal inputs: IEEE semantics on every kernel set ---

namespace {

// Replaces about one entry in `every` of x with one of `specials`.
void sprinkle(rng& g, std::vector<float>& x, const std::vector<float>& specials, int every) {
    for (float& v : x)
        if (g.next_u64() % std::uint64_t(every) == 0)
            v = specials[g.next_u64() % specials.size()];
}

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float subnormal = 1e-40f;

}  // namespace

TEST_CASE("kernel products equal their twins with NaN, ±inf, huge and subnormal inputs") {
    // Huge values only in a: a product of two would overflow inside an FMA but
    // not in the twin's rounded product, which is a legitimate difference.
    const std::vector<float> in_a = {nan_f, INFINITY, -INFINITY, 1e30f, -3e30f, subnormal, -subnormal};
    const std::vector<float> in_b = {nan_f, INFINITY, -INFINITY, subnormal};
    each_kernel_set([&] {
        rng g(6);
        for (const shape s : shapes()) {
            auto a = random_vector(g, std::size_t(s.n * s.k)), b = random_vector(g, std::size_t(s.k * s.m));
            sprinkle(g, a, in_a, 9);
            sprinkle(g, b, in_b, 13);
            std::vector<float> c(std::size_t(s.n * s.m), -1.0f), c_ref(c.size(), -2.0f);
            INFO("shape n=" << s.n << " k=" << s.k << " m=" << s.m);
            kernel_matmul(a.data(), b.data(), c.data(), s.n, s.k, s.m);
            kernel_matmul_naive(a.data(), b.data(), c_ref.data(), s.n, s.k, s.m);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k)), "matmul", simd_vs_naive) == 0);
            std::vector<float> bt(std::size_t(s.m * s.k));
            for (int i = 0; i < s.m * s.k; ++i)
                bt[std::size_t(i)] = b[std::size_t(i)];
            kernel_matmul_bt(a.data(), bt.data(), c.data(), s.n, s.m, s.k);
            kernel_matmul_bt_naive(a.data(), bt.data(), c_ref.data(), s.n, s.m, s.k);
            CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k)), "matmul_bt", simd_vs_naive) == 0);
        }
    });
}

TEST_CASE("kernel_softmax_rows equals its twin with NaN, ±inf, huge and subnormal logits") {
    // 88.5 and −95: e^x finite and subnormal in fp32, where the no-max form must
    // still give the format's answer.
    const std::vector<float> specials = {nan_f, INFINITY, -INFINITY, 1e30f, -1e30f, 88.5f, -95.0f, subnormal};
    each_kernel_set([&] {
        rng g(7);
        for (const shape s : wide_shapes())
            for (bool stable : {true, false})
                for (int every : {3, 40}) {
                    auto x = random_vector(g, std::size_t(s.n * s.m), 3.0f);
                    sprinkle(g, x, specials, every);
                    auto x_ref = x;
                    kernel_softmax_rows(x.data(), s.n, s.m, stable);
                    kernel_softmax_rows_naive(x_ref.data(), s.n, s.m, stable);
                    INFO("shape n=" << s.n << " m=" << s.m << " stable=" << stable << " every=" << every);
                    CHECK(mismatches(x, x_ref, relative(2e-6f), "softmax", simd_vs_naive) == 0);
                }
    });
}

TEST_CASE("kernel_softmax_online equals its twin with NaN, ±inf and huge scores") {
    const std::vector<float> specials = {nan_f, INFINITY, -INFINITY, 1e30f, -1e30f, subnormal};
    each_kernel_set([&] {
        rng g(8);
        for (const shape s : wide_shapes())
            for (const float scale : {0.125f, -0.5f}) {
                auto x = random_vector(g, std::size_t(s.n * s.m), 3.0f);
                sprinkle(g, x, specials, 11);
                std::vector<int> visible(std::size_t(s.n));
                std::vector<float> row_max(std::size_t(s.n), -INFINITY), row_sum(std::size_t(s.n), 0.0f);
                std::vector<float> rescale(std::size_t(s.n), -1.0f);
                for (int i = 0; i < s.n; ++i)
                    visible[std::size_t(i)] = int(g.next_u64() % std::uint64_t(s.m + 1));
                auto x_ref = x;
                auto max_ref = row_max, sum_ref = row_sum, rescale_ref = rescale;
                kernel_softmax_online(x.data(), s.n, s.m, visible.data(), scale, row_max.data(), row_sum.data(), rescale.data());
                kernel_softmax_online_naive(x_ref.data(), s.n, s.m, visible.data(), scale, max_ref.data(), sum_ref.data(),
                                            rescale_ref.data());
                INFO("shape n=" << s.n << " m=" << s.m << " scale=" << scale);
                CHECK(mismatches(x, x_ref, relative(2e-6f), "weights", simd_vs_naive) == 0);
                CHECK(mismatches(row_max, max_ref, relative(0.0f), "row_max", simd_vs_naive) == 0);
                CHECK(mismatches(row_sum, sum_ref, relative(2e-6f * float(s.m)), "row_sum", simd_vs_naive) == 0);
                CHECK(mismatches(rescale, rescale_ref, relative(2e-6f), "rescale", simd_vs_naive) == 0);
            }
    });
}

TEST_CASE("softmax rows: a NaN anywhere makes the row NaN at every length; all-NaN is NaN, all −inf is masked") {
    each_kernel_set([&] {
        for (int m = 1; m <= 140; ++m)
            for (bool stable : {true, false}) {
                INFO("m=" << m << " stable=" << stable);
                std::vector<float> x(std::size_t(m), 0.5f);
                x[std::size_t(m / 2)] = nan_f;
                kernel_softmax_rows(x.data(), 1, m, stable);
                CHECK(std::all_of(x.begin(), x.end(), [](float v) { return std::isnan(v); }));
                std::vector<float> all_nan(std::size_t(m), nan_f);
                kernel_softmax_rows(all_nan.data(), 1, m, stable);
                CHECK(std::all_of(all_nan.begin(), all_nan.end(), [](float v) { return std::isnan(v); }));
                std::vector<float> masked(std::size_t(m), -INFINITY);
                kernel_softmax_rows(masked.data(), 1, m, stable);
                CHECK(std::all_of(masked.begin(), masked.end(), [](float v) { return v == 0.0f; }));
            }
    });
}

TEST_CASE("softmax without max-subtraction overflows where fp32 does (e^88.72), and subnormal sums still divide") {
    each_kernel_set([&] {
        for (int m = 1; m <= 70; ++m) {
            INFO("m=" << m);
            std::vector<float> below(std::size_t(m), 0.0f), above(std::size_t(m), 0.0f), tiny(std::size_t(m), -95.0f);
            below[0] = 88.7f;   // e^88.7 = 3.3e38, finite: weight 1
            above[0] = 88.75f;  // e^88.75 overflows: inf / inf
            kernel_softmax_rows(below.data(), 1, m, false);
            kernel_softmax_rows(above.data(), 1, m, false);
            kernel_softmax_rows(tiny.data(), 1, m, false);
            CHECK(below[0] == doctest::Approx(1.0f));
            CHECK(std::isnan(above[0]));
            CHECK(tiny[0] == doctest::Approx(1.0f / float(m)).epsilon(0.02));  // e^−95 is subnormal, not 0
        }
    });
}

TEST_CASE("kernel_swiglu equals its scalar twin: silu(gate)·up, NaN kept, −∞ and +∞ gates, every tail length") {
    each_kernel_set([&] {
        rng g(23);
        for (int count : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 64, 65, 127, 768, 1001}) {
            std::vector<float> gate = random_vector(g, std::size_t(count), 4.0f), up = random_vector(g, std::size_t(count));
            const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity(),
                                      -std::numeric_limits<float>::infinity(),
                                      100.0f,
                                      -100.0f,
                                      0.0f,
                                      -0.0f,
                                      1e-40f};
            for (int i = 0; i < count; i += 5)
                gate[std::size_t(i)] = specials[std::size_t(i / 5) % 8];
            std::vector<float> out(gate.size(), -7.0f), out_ref(gate.size(), -9.0f);
            kernel_swiglu(gate.data(), up.data(), out.data(), count);
            kernel_swiglu_naive(gate.data(), up.data(), out_ref.data(), count);
            INFO("count " << count);
            CHECK(mismatches(out, out_ref, relative(2e-6), "swiglu", simd_vs_naive) == 0);
        }
        const float big[] = {-100.0f, 100.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
        const float ones[] = {1.0f, 1.0f, 1.0f, 3.0f};
        float out[4];
        kernel_swiglu(big, ones, out, 4);
        CHECK(out[0] == 0.0f);  // −100 / (1 + e^100) = −0 (e^100 overflows)
        CHECK(std::signbit(out[0]));
        CHECK(out[1] == 100.0f);
        CHECK(std::isnan(out[2]));
        CHECK(out[3] == doctest::Approx(3.0 * 2.0 / (1.0 + std::exp(-2.0))).epsilon(1e-6));
    });
}

TEST_CASE("16-bit weights: every f16 and bf16 value widens exactly, as its twin does, on every kernel set") {
    std::vector<std::uint16_t> all(65536);
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = std::uint16_t(i);
    // Spot values, read off IEEE 754: 1, -2, the largest half, its smallest subnormal, ±inf; bf16 is fp32's top half.
    CHECK(f16_to_float(0x3c00) == 1.0f);
    CHECK(f16_to_float(0xc000) == -2.0f);
    CHECK(f16_to_float(0x7bff) == 65504.0f);
    CHECK(f16_to_float(0x0001) == 0x1p-24f);
    CHECK(f16_to_float(0x7c00) == std::numeric_limits<float>::infinity());
    CHECK(f16_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(f16_to_float(0x7e00)));
    CHECK(std::signbit(f16_to_float(0x8000)));
    CHECK(bf16_to_float(0x3f80) == 1.0f);
    CHECK(bf16_to_float(0xbf80) == -1.0f);
    each_kernel_set([&] {
        for (const bool bf16 : {false, true}) {
            std::vector<float> got(all.size()), want(all.size());
            kernel_widen_16(all.data(), bf16, got.data(), all.size());
            kernel_widen_16_naive(all.data(), bf16, want.data(), all.size());
            CHECK(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);  // bits, NaN payloads included
            for (std::size_t i = 0; i < all.size(); i += 257) {
                const float v = bf16 ? bf16_to_float(all[i]) : f16_to_float(all[i]);
                CHECK(std::memcmp(&got[i], &v, 4) == 0);
            }
        }
    });
}

TEST_CASE("kernel_matmul_bt_16 equals its twin, and kernel_matmul_bt on the widened weights bit for bit") {
    each_kernel_set([&] {
        rng g(41);
        std::vector<shape> all = shapes();
        for (const shape s : std::vector<shape>{{1, 768, 50}, {3, 64, 33}, {15, 96, 17}, {1, 300, 16}, {2, 5, 1}})
            all.push_back(s);
        for (const shape s : all)
            for (const bool bf16 : {false, true}) {
                const auto a = random_vector(g, std::size_t(s.n * s.k)), wide = random_vector(g, std::size_t(s.m * s.k));
                std::vector<std::uint16_t> half(wide.size());
                for (std::size_t i = 0; i < wide.size(); ++i) {  // the top half of each float: a bf16; halves through its bits
                    std::uint32_t bits;
                    std::memcpy(&bits, &wide[i], 4);
                    half[i] =
                        bf16 ? std::uint16_t(bits >> 16) : std::uint16_t((bits >> 31) << 15 | (0x3800u + (bits >> 14) % 0x1000u));
                }
                std::vector<float> widened(wide.size());
                kernel_widen_16_naive(half.data(), bf16, widened.data(), wide.size());
                std::vector<float> c(std::size_t(s.n * s.m), -1.0f), c_ref(c.size(), -2.0f), c_wide(c.size(), -3.0f);
                kernel_matmul_bt_16(a.data(), half.data(), bf16, c.data(), s.n, s.m, s.k);
                kernel_matmul_bt_16_naive(a.data(), half.data(), bf16, c_ref.data(), s.n, s.m, s.k);
                kernel_matmul_bt(a.data(), widened.data(), c_wide.data(), s.n, s.m, s.k);
                INFO("shape n=" << s.n << " m=" << s.m << " d=" << s.k << " bf16 " << bf16);
                CHECK(mismatches(c, c_ref, relative(1e-5f * float(s.k)), "matmul_bt_16", simd_vs_naive) == 0);
                CHECK(std::memcmp(c.data(), c_wide.data(), c.size() * 4) == 0);
            }
    });
}

TEST_CASE("kernel_gelu_tanh equals its twin (GPT-2's gelu_new in double): NaN kept, ±∞, huge, every tail length") {
    each_kernel_set([&] {
        rng g(29);
        for (int count : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 64, 65, 127, 768, 1001}) {
            std::vector<float> x = random_vector(g, std::size_t(count), 6.0f);
            const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity(),
                                      -std::numeric_limits<float>::infinity(),
                                      30.0f,
                                      -30.0f,
                                      0.0f,
                                      -0.0f,
                                      1e-30f,
                                      -9.0f};
            for (int i = 0; i < count; i += 4)
                x[std::size_t(i)] = specials[std::size_t(i / 4) % 9];
            std::vector<float> out(x.size(), -7.0f), out_ref(x.size(), -9.0f);
            kernel_gelu_tanh(x.data(), out.data(), count);
            kernel_gelu_tanh_naive(x.data(), out_ref.data(), count);
            INFO("count " << count);
            CHECK(mismatches(out, out_ref, relative(2e-5), "gelu_tanh", simd_vs_naive) == 0);
        }
        // Values from the formula by hand: gelu(1) = 0.8411920, gelu(−1) = −0.1588080; −∞ gives NaN (−∞ · 0, as
        // the textbook form and PyTorch give), +∞ gives +∞.
        const float in[] = {1.0f, -1.0f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
        float out[4];
        kernel_gelu_tanh(in, out, 4);
        CHECK(out[0] == doctest::Approx(0.8411920).epsilon(1e-6));
        CHECK(out[1] == doctest::Approx(-0.1588080).epsilon(1e-5));
        CHECK(std::isnan(out[2]));
        CHECK(out[3] == std::numeric_limits<float>::infinity());
        const float far = -200.0f;  // a large finite negative: −0
        kernel_gelu_tanh(&far, out, 1);
        CHECK(out[0] == 0.0f);
    });
}
