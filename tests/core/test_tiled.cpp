// Tiled online-softmax attention against the pass that materialises the whole
// score matrix: same output, same per-row statistics, memory that grows with the
// tiles rather than with n², and masked tiles skipped under the causal mask.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "alloc_counter.hpp"
#include "base/random.hpp"
#include "compare.hpp"
#include "model/tiled.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::random_vector;

namespace {

struct problem {
    int n, m, d, d_v;
    std::vector<float> q, k, v;
};

problem random_problem(rng& g, int n, int m, int d, int d_v) {
    problem p{n, m, d, d_v, {}, {}, {}};
    p.q = random_vector(g, std::size_t(n * d));
    p.k = random_vector(g, std::size_t(m * d));
    p.v = random_vector(g, std::size_t(m * d_v));
    return p;
}

std::vector<float> run_tiled(const problem& p, const attention_options& opt, attention_stats* stats = nullptr,
                             std::vector<tiled_step>* steps = nullptr) {
    std::vector<float> o(std::size_t(p.n * p.d_v), -7.0f);
    attention_tiled(p.q.data(), p.k.data(), p.v.data(), o.data(), p.n, p.m, p.d, p.d_v, opt, stats, steps);
    return o;
}

std::vector<float> run_naive(const problem& p, const attention_options& opt, attention_stats* stats = nullptr) {
    std::vector<float> o(std::size_t(p.n * p.d_v), -7.0f);
    attention_naive(p.q.data(), p.k.data(), p.v.data(), o.data(), p.n, p.m, p.d, p.d_v, opt, stats);
    return o;
}

struct config {
    int n, m, d, d_v, tile_q, tile_k;
};

std::vector<config> configs() {
    std::vector<config> out = {{1, 1, 1, 1, 1, 1},        {4, 4, 8, 8, 2, 2},       {7, 7, 5, 3, 3, 2},
                               {16, 16, 16, 16, 4, 8},    {33, 33, 17, 9, 8, 5},    {10, 25, 8, 8, 4, 7},
                               {25, 10, 8, 8, 7, 4},      {50, 50, 32, 32, 64, 64}, {64, 100, 12, 20, 16, 16},
                               {100, 64, 12, 20, 13, 11}, {3, 40, 4, 4, 1, 40}};
    rng g(21);
    for (int i = 0; i < 40; ++i)
        out.push_back({1 + int(g.next_u64() % 60), 1 + int(g.next_u64() % 60), 1 + int(g.next_u64() % 40),
                       1 + int(g.next_u64() % 40), 1 + int(g.next_u64() % 20), 1 + int(g.next_u64() % 20)});
    return out;
}

}  // namespace

TEST_CASE("attention_tiled equals attention_naive, causal and not, over many shapes and tile sizes") {
    rng g(22);
    for (const config& c : configs()) {
        const problem p = random_problem(g, c.n, c.m, c.d, c.d_v);
        for (const bool causal : {false, true}) {
            const attention_options opt{0.0f, causal, c.tile_q, c.tile_k};
            INFO("n=" << c.n << " m=" << c.m << " d=" << c.d << " d_v=" << c.d_v << " tiles=" << c.tile_q << "x" << c.tile_k
                      << " causal=" << causal);
            CHECK(test::mismatches(run_tiled(p, opt), run_naive(p, opt), test::absolute(1e-5f), "attention",
                                   {"tiled", "naive"}) == 0);
        }
    }
}

TEST_CASE("attention_tiled: the final running max and sum of each row are the naive row max and row sum") {
    rng g(23);
    for (const config& c : configs()) {
        const problem p = random_problem(g, c.n, c.m, c.d, c.d_v);
        for (const bool causal : {false, true}) {
            const attention_options opt{0.0f, causal, c.tile_q, c.tile_k};
            attention_stats want;
            run_naive(p, opt, &want);
            std::vector<tiled_step> steps;
            run_tiled(p, opt, nullptr, &steps);
            INFO("n=" << c.n << " m=" << c.m << " tiles=" << c.tile_q << "x" << c.tile_k << " causal=" << causal);
            const int k_tiles = (c.m + c.tile_k - 1) / c.tile_k;
            REQUIRE(steps.size() == std::size_t(((c.n + c.tile_q - 1) / c.tile_q) * k_tiles));
            for (std::size_t si = 0; si < steps.size(); ++si) {
                const tiled_step& s = steps[si];
                // Each step starts where the previous one on the same query tile ended.
                if (s.k_tile > 0) {
                    CHECK(s.max_before == steps[si - 1].max_after);
                    CHECK(s.sum_before == steps[si - 1].sum_after);
                }
                for (int r = 0; r < s.q_rows; ++r) {
                    const std::size_t rr = std::size_t(r);
                    if (s.max_before[rr] != -INFINITY)
                        CHECK(s.rescale[rr] == doctest::Approx(std::exp(s.max_before[rr] - s.max_after[rr])));
                    CHECK(s.max_after[rr] >= s.max_before[rr]);
                }
                if (s.k_tile != k_tiles - 1)
                    continue;
                for (int r = 0; r < s.q_rows; ++r) {
                    const std::size_t i = std::size_t(s.q0 + r), rr = std::size_t(r);
                    if (want.row_max[i] == -INFINITY) {
                        CHECK(s.max_after[rr] == -INFINITY);
                        CHECK(s.sum_after[rr] == 0.0f);
                    } else {
                        CHECK(std::fabs(s.max_after[rr] - want.row_max[i]) <= 1e-5f);
                        CHECK(s.sum_after[rr] == doctest::Approx(want.row_sum[i]).epsilon(1e-5));
                    }
                }
            }
        }
    }
}

TEST_CASE("attention_tiled: working memory grows with the tiles, not with n²") {
    // Fixed d and tiles, n = m growing 4×: the materialised score matrix grows
    // 16×, the tiled pass's buffers at most linearly (here not at all).
    rng g(24);
    const int d = 32, tile = 32;
    const attention_options opt{0.0f, true, tile, tile};
    std::size_t tiled_floats[2], naive_floats[2];
    const int sizes[2] = {256, 1024};
    for (int s = 0; s < 2; ++s) {
        const problem p = random_problem(g, sizes[s], sizes[s], d, d);
        attention_stats tiled_stats, naive_stats;
        const auto o = run_tiled(p, opt, &tiled_stats);
        const auto o_ref = run_naive(p, opt, &naive_stats);
        CHECK(test::mismatches(o, o_ref, test::absolute(1e-5f), "attention", {"tiled", "naive"}) == 0);
        tiled_floats[s] = tiled_stats.peak_floats;
        naive_floats[s] = naive_stats.peak_floats;
        MESSAGE("n=" << sizes[s] << ": tiled " << tiled_stats.peak_bytes() << " B, naive " << naive_stats.peak_bytes()
                     << " B of working memory");
    }
    CHECK(tiled_floats[0] > 0);
    CHECK(double(tiled_floats[1]) / double(tiled_floats[0]) <= 4.5);
    CHECK(double(naive_floats[1]) / double(naive_floats[0]) == doctest::Approx(16.0));
    CHECK(tiled_floats[1] < naive_floats[1] / 100);
}

TEST_CASE("attention_tiled: the default tiles (128 from 1024 rows on) keep the working memory the same for any larger n") {
    rng g(26);
    const attention_options opt{0.0f, false, 0, 0};
    std::size_t floats[2];
    const int sizes[2] = {1024, 2500};
    for (int s = 0; s < 2; ++s) {
        const problem p = random_problem(g, sizes[s], sizes[s], 16, 16);
        attention_stats stats;
        (void)run_tiled(p, opt, &stats);
        floats[s] = stats.peak_floats;
    }
    CHECK(floats[0] == floats[1]);
    CHECK(floats[0] == std::size_t(128 * 128 + 128 * 16 + 3 * 128));  // scores, output rows, max, sum, rescale
}

TEST_CASE("attention_tiled: under the causal mask, exactly the fully masked tiles are skipped") {
    rng g(25);
    for (const config& c :
         {config{100, 100, 8, 8, 16, 16}, config{40, 70, 8, 8, 8, 16}, config{70, 40, 8, 8, 16, 8}, config{37, 37, 4, 4, 5, 9}}) {
        const problem p = random_problem(g, c.n, c.m, c.d, c.d_v);
        for (const bool causal : {false, true}) {
            std::vector<tiled_step> steps;
            run_tiled(p, attention_options{0.0f, causal, c.tile_q, c.tile_k}, nullptr, &steps);
            INFO("n=" << c.n << " m=" << c.m << " causal=" << causal);
            int skipped = 0;
            for (const tiled_step& s : steps) {
                // Last query of the tile sees keys j ≤ q0 + q_rows − 1 + (m − n).
                const bool all_masked = causal && s.k0 > s.q0 + s.q_rows - 1 + (c.m - c.n);
                CHECK(s.skipped == all_masked);
                if (s.skipped) {
                    ++skipped;
                    CHECK(s.max_after == s.max_before);
                    CHECK(s.sum_after == s.sum_before);
                    CHECK(s.rescale == std::vector<float>(std::size_t(s.q_rows), 1.0f));
                }
            }
            if (causal)
                CHECK(skipped > 0);
            else
                CHECK(skipped == 0);
        }
    }
}

TEST_CASE("attention_tiled: a query that sees no key (causal, m < n) gets a zero row") {
    rng g(26);
    const problem p = random_problem(g, 6, 3, 4, 5);  // queries 0..2 see j ≤ i − 3: nothing
    const attention_options opt{0.0f, true, 4, 2};
    attention_stats stats;
    const auto o = run_tiled(p, opt, &stats);
    for (int i = 0; i < 3; ++i) {
        CHECK(stats.row_max[std::size_t(i)] == -INFINITY);
        CHECK(stats.row_sum[std::size_t(i)] == 0.0f);
        for (int c = 0; c < 5; ++c)
            CHECK(o[std::size_t(i * 5 + c)] == 0.0f);
    }
    CHECK(stats.row_sum[5] > 0.0f);
}

TEST_CASE("attention_tiled: counted from outside, its heap use grows with n·d while the naive pass grows with n²") {
    // The allocator itself counts here, so nothing depends on the kernel's own report.
    const int d = 32;
    attention_options opt;
    opt.causal = true;
    opt.tile_q = opt.tile_k = 32;
    std::size_t tiled[2], naive[2];
    const int sizes[2] = {256, 1024};
    for (int i = 0; i < 2; ++i) {
        rng g(11);
        const problem p = random_problem(g, sizes[i], sizes[i], d, d);
        std::vector<float> o(std::size_t(p.n * d));
        alloc_counter_start();
        attention_tiled(p.q.data(), p.k.data(), p.v.data(), o.data(), p.n, p.m, d, d, opt);
        tiled[i] = alloc_counter_stop();
        alloc_counter_start();
        attention_naive(p.q.data(), p.k.data(), p.v.data(), o.data(), p.n, p.m, d, d, opt);
        naive[i] = alloc_counter_stop();
    }
    MESSAGE("heap peak, n=256 -> 1024: tiled " << tiled[0] << " -> " << tiled[1] << " B, naive " << naive[0] << " -> " << naive[1]
                                               << " B");
    CHECK(naive[1] >= std::size_t(1024) * 1024 * sizeof(float));                  // the n×n matrix really is allocated there
    CHECK(double(naive[1]) / double(naive[0]) > 12.0);                            // ~16×: quadratic
    CHECK(double(tiled[1]) <= 4.5 * double(std::max<std::size_t>(tiled[0], 1)));  // at most linear in n
    CHECK(tiled[1] < naive[1] / 50);
}
