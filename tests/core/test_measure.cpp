// The lesson measurements: the size of q·k with and without 1/√d (L2), softmax
// saturation through the Jacobian and entropy (L2), and the cost of one attention
// layer as heads change (L3).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "base/measure.hpp"
#include "base/random.hpp"
#include "kernels/kernels.hpp"

using namespace attn;

namespace {

std::vector<float> softmax_of(std::vector<float> z) {
    kernel_softmax_rows_naive(z.data(), 1, int(z.size()), true);
    return z;
}

}  // namespace

TEST_SUITE_BEGIN("measure");

TEST_CASE("measure dot products: std is √d unscaled and 1 after dividing by √d") {
    for (int d : {4, 16, 64, 256}) {
        const dot_stats s = measure_dot_stats(d, 20000, 42);
        const double root_d = std::sqrt(double(d));
        MESSAGE("d=" << d << ": q·k mean " << s.mean_raw << " std " << s.std_raw << "; q·k/√d mean " << s.mean_scaled << " std "
                     << s.std_scaled);
        CHECK(s.raw.size() == 20000);
        CHECK(std::fabs(s.std_raw / root_d - 1.0) < 0.05);
        CHECK(std::fabs(s.std_scaled - 1.0) < 0.05);
        CHECK(std::fabs(s.mean_raw) < 0.05 * root_d);  // ~7 standard errors
        CHECK(std::fabs(s.mean_scaled) < 0.05);
    }
}

TEST_CASE("measure dot products are deterministic in the seed") {
    const dot_stats a = measure_dot_stats(8, 100, 1), b = measure_dot_stats(8, 100, 1), c = measure_dot_stats(8, 100, 2);
    CHECK(a.raw == b.raw);
    CHECK(a.std_raw == b.std_raw);
    CHECK(a.raw != c.raw);
}

TEST_CASE("measure histogram: every value lands in one bin or outside") {
    const std::vector<float> x = {-5.0f, -1.0f, -0.5f, 0.0f, 0.49f, 0.5f, 1.0f, 3.0f, NAN};
    const histogram h = histogram_build(x.data(), x.size(), -1.0f, 1.0f, 4);
    REQUIRE(h.counts.size() == 4);
    CHECK(h.below == 1);      // -5
    CHECK(h.above == 1);      // 3
    CHECK(h.counts[0] == 1);  // -1
    CHECK(h.counts[1] == 1);  // -0.5
    CHECK(h.counts[2] == 2);  // 0, 0.49
    CHECK(h.counts[3] == 2);  // 0.5 and 1 (hi belongs to the last bin)

    // The scale turns raw q·k into scaled q·k: at d = 64 almost all scaled values sit in [-4, 4].
    const dot_stats s = measure_dot_stats(64, 5000, 3);
    const histogram raw = histogram_build(s.raw.data(), s.raw.size(), -4.0f, 4.0f, 16);
    const histogram scaled = histogram_build(s.raw.data(), s.raw.size(), -4.0f, 4.0f, 16, 1.0f / 8.0f);
    int total = scaled.below + scaled.above;
    for (int c : scaled.counts)
        total += c;
    CHECK(total == 5000);
    CHECK(scaled.below + scaled.above < 10);
    CHECK(raw.below + raw.above > 2500);  // std 8: most raw dot products fall outside ±4
}

TEST_CASE("softmax jacobian: closed form equals the explicit matrix") {
    rng g(5);
    int bad = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int m = 1 + int(g.next_u64() % 40);
        const float scale = float(1 + g.next_u64() % 20);
        std::vector<float> z(static_cast<std::size_t>(m));
        for (float& v : z)
            v = g.normal() * scale;
        const auto p = softmax_of(z);
        const float fast = softmax_jacobian_norm(p.data(), m), slow = softmax_jacobian_norm_naive(p.data(), m);
        if (!(std::fabs(fast - slow) <= 1e-6f + 1e-5f * slow)) {
            if (bad < 5)
                MESSAGE("m=" << m << " scale=" << scale << ": closed " << fast << " vs naive " << slow);
            ++bad;
        }
    }
    CHECK(bad == 0);
}

TEST_CASE("softmax jacobian and entropy: uniform and one-hot rows") {
    for (int m : {1, 2, 3, 8, 64}) {
        const std::vector<float> uniform(std::size_t(m), 1.0f / float(m));
        CHECK(softmax_row_entropy(uniform.data(), m) == doctest::Approx(std::log(double(m))).epsilon(1e-5));
        // J = I/m − 11ᵀ/m²: ‖J‖² = (m − 1)/m².
        CHECK(softmax_jacobian_norm(uniform.data(), m) == doctest::Approx(std::sqrt(double(m - 1)) / m).epsilon(1e-5));
        std::vector<float> one_hot(std::size_t(m), 0.0f);
        one_hot[std::size_t(m / 2)] = 1.0f;
        CHECK(softmax_row_entropy(one_hot.data(), m) == 0.0f);
        CHECK(softmax_jacobian_norm(one_hot.data(), m) == 0.0f);
        CHECK(softmax_jacobian_norm_naive(one_hot.data(), m) == 0.0f);
    }
}

TEST_CASE("softmax jacobian: saturation as logits grow (lesson L2)") {
    // Logits s·u, u unit normal: s plays √d_k when the scores are not scaled.
    const int m = 8, rows = 500;
    double last_norm = 1e9, last_entropy = 1e9;
    for (float s : {1.0f, 8.0f, 64.0f}) {
        rng g(9);  // the same u for every s
        double norm = 0, entropy = 0;
        for (int r = 0; r < rows; ++r) {
            std::vector<float> z(m);
            for (float& v : z)
                v = s * g.normal();
            const auto p = softmax_of(z);
            norm += softmax_jacobian_norm(p.data(), m);
            entropy += softmax_row_entropy(p.data(), m);
        }
        norm /= rows;
        entropy /= rows;
        MESSAGE("s=" << s << ": mean ‖J‖_F " << norm << ", mean entropy " << entropy << " nats (uniform: " << std::log(8.0)
                     << ")");
        CHECK(norm < last_norm);
        CHECK(entropy < last_entropy);
        last_norm = norm;
        last_entropy = entropy;
    }
    CHECK(last_norm < 0.05);

    // One logit 10 above the rest takes almost all the mass and passes almost no gradient.
    for (int n = 2; n <= 8; ++n) {
        std::vector<float> z(std::size_t(n), 0.0f);
        z[0] = 10.0f;
        const auto p = softmax_of(z);
        INFO("m=" << n << " p_top=" << p[0]);
        CHECK(p[0] > 0.99f);
        CHECK(softmax_jacobian_norm(p.data(), n) < 0.02f);
    }
}

TEST_CASE("flop counts: a worked example pins the conventions") {
    // n = 4, d_model = 8, 2 heads of d_k = 4, grouped into 1 kv head.
    const auto c = measure_attention_cost(4, 8, 2, 1);
    REQUIRE(c.has_value());
    CHECK(c->d_k == 4);
    CHECK(c->params_q == 64);
    CHECK(c->params_k == 32);
    CHECK(c->params_v == 32);
    CHECK(c->params_o == 64);
    CHECK(c->params_total == 192);
    CHECK(c->flops_projections == 2 * 4 * (64 + 32 + 32));
    CHECK(c->flops_scores == 2 * (2 * 4 * 4 * 4));
    CHECK(c->flops_softmax == 2 * 5 * 16);
    CHECK(c->flops_weighted_sum == 2 * (2 * 4 * 4 * 4));
    CHECK(c->flops_output == 2 * 4 * 64);
    CHECK(c->flops_total == c->flops_matmul + c->flops_softmax);
    CHECK(c->bytes_scores_per_head == 16 * 4);
    CHECK(c->bytes_scores_all_heads == 2 * 16 * 4);
    CHECK(c->bytes_kv_cache_per_token == 2 * 1 * 4 * 4);
    CHECK(measure_attention_cost(4, 8, 2, 1, 2)->bytes_kv_cache_per_token == 2 * 1 * 4 * 2);

    CHECK(!measure_attention_cost(4, 8, 3, 3).has_value());  // 3 does not divide 8
    CHECK(!measure_attention_cost(4, 8, 4, 3).has_value());  // 3 does not divide 4
    CHECK(!measure_attention_cost(0, 8, 2, 2).has_value());
    CHECK(!measure_attention_cost(4, 8, 0, 1).has_value());
}

TEST_CASE("flop counts: multi-head costs the same as one head (lesson L3)") {
    for (int d_model : {48, 64, 96}) {
        const int n = 10;
        const auto one = measure_attention_cost(n, d_model, 1, 1);
        REQUIRE(one.has_value());
        for (int h = 1; h <= d_model; ++h) {
            if (d_model % h != 0)
                continue;
            const auto c = measure_attention_cost(n, d_model, h, h);
            REQUIRE(c.has_value());
            INFO("d_model=" << d_model << " heads=" << h);
            CHECK(c->params_total == one->params_total);
            CHECK(c->flops_projections == one->flops_projections);
            CHECK(c->flops_scores == one->flops_scores);
            CHECK(c->flops_weighted_sum == one->flops_weighted_sum);
            CHECK(c->flops_output == one->flops_output);
            CHECK(c->flops_matmul == one->flops_matmul);
            // The elementwise softmax is per (head, i, j): the one term that grows with h.
            CHECK(c->flops_softmax == h * one->flops_softmax);
        }
    }
}

TEST_CASE("flop counts: scores grow 4x when n doubles; the kv cache shrinks under GQA/MQA") {
    for (int n : {1, 7, 64, 1000}) {
        const auto a = measure_attention_cost(n, 64, 8, 8), b = measure_attention_cost(2 * n, 64, 8, 8);
        CHECK(b->flops_scores == 4 * a->flops_scores);
        CHECK(b->flops_weighted_sum == 4 * a->flops_weighted_sum);
        CHECK(b->flops_softmax == 4 * a->flops_softmax);
        CHECK(b->bytes_scores_per_head == 4 * a->bytes_scores_per_head);
        CHECK(b->flops_projections == 2 * a->flops_projections);  // linear in n
        CHECK(b->bytes_kv_cache_per_token == a->bytes_kv_cache_per_token);
    }
    const int heads = 8;
    const auto mha = measure_attention_cost(128, 512, heads, heads);
    for (int kv : {8, 4, 2, 1}) {
        const auto c = measure_attention_cost(128, 512, heads, kv);
        REQUIRE(c.has_value());
        INFO("kv_heads=" << kv);
        CHECK(c->bytes_kv_cache_per_token * (heads / kv) == mha->bytes_kv_cache_per_token);
        CHECK(c->params_k * (heads / kv) == mha->params_k);
        CHECK(c->flops_scores == mha->flops_scores);  // every query head still scores every key
    }
}

TEST_SUITE_END();
