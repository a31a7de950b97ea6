#include <doctest/doctest.h>

#include <cmath>

#include "base/random.hpp"
#include "model/forward.hpp"

using namespace attn;

TEST_CASE("rng: same seed, same sequence; different seeds differ") {
    rng a(42), b(42), c(43);
    int differ = 0;
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next_u64();
        CHECK(x == b.next_u64());
        differ += x != c.next_u64();
    }
    CHECK(differ > 95);
}

TEST_CASE("rng::normal has mean 0 and variance 1") {
    rng g(7);
    const int n = 200000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
        const double x = g.normal();
        s += x;
        s2 += x * x;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    CHECK(std::fabs(mean) < 0.01);
    CHECK(std::fabs(var - 1.0) < 0.02);
}

TEST_CASE("rng::uniform stays in [0, 1)") {
    rng g(9);
    for (int i = 0; i < 10000; ++i) {
        const float u = g.uniform();
        CHECK(u >= 0.0f);
        CHECK(u < 1.0f);
    }
}

TEST_CASE("hash_combine separates names and seeds") {
    CHECK(hash_combine(1, "w_q") != hash_combine(1, "w_k"));
    CHECK(hash_combine(1, "w_q") != hash_combine(2, "w_q"));
    CHECK(hash_combine(1, "w_q") == hash_combine(1, "w_q"));
}

TEST_CASE("model parameters are the generator's draws in row-major order") {
    // Guards against compilers that reorder the draws (clang 14's SLP vectoriser
    // did under wasm simd128): each weight must equal the matching sequential draw.
    for (std::uint32_t seed : {1u, 77u, 12345u})
        for (int d : {8, 12}) {
            attn::experiment e;
            e.seed = seed;
            e.d_model = d;
            e.heads = 1;
            const auto w = attn::model_generate(e, {"a", "b"});
            // Three straight-line draws: no loop for a vectoriser to reorder.
            attn::rng g(attn::hash_combine(e.seed, "layer0.w_q"));
            const float scale = 1.0f / std::sqrt(float(d));
            const float first = g.normal() * scale;
            const float second = g.normal() * scale;
            const float third = g.normal() * scale;
            INFO("seed " << seed << " d_model " << d);
            CHECK(w.layers[0].w_q.data[0] == first);
            CHECK(w.layers[0].w_q.data[1] == second);
            CHECK(w.layers[0].w_q.data[2] == third);
        }
}
