// Properties of the forward pass, and an independent double-precision
// implementation of the same maths to compare against.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "forward.hpp"

using namespace attn;

namespace {

// softmax(mask(Q_h K_hᵀ / √d_k)) · V_h, concatenated, · W_o — in double, loops only.
std::vector<double> reference_output(const experiment& e, const model_weights& w) {
    const int n = w.embeddings.rows, d = e.d_model, h = e.heads, dk = d / h;
    auto proj = [&](const matrix& W) {
        std::vector<double> out(std::size_t(n * d));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < d; ++j) {
                double s = 0;
                for (int p = 0; p < d; ++p)
                    s += double(w.embeddings(i, p)) * double(W(p, j));
                out[std::size_t(i * d + j)] = s;
            }
        return out;
    };
    const auto q = proj(w.w_q), k = proj(w.w_k), v = proj(w.w_v);
    std::vector<double> concat(std::size_t(n * d));
    for (int hh = 0; hh < h; ++hh)
        for (int i = 0; i < n; ++i) {
            std::vector<double> s(static_cast<std::size_t>(n));
            double mx = -INFINITY;
            for (int j = 0; j < n; ++j) {
                double dot = 0;
                for (int c = 0; c < dk; ++c)
                    dot += q[std::size_t(i * d + hh * dk + c)] * k[std::size_t(j * d + hh * dk + c)];
                s[std::size_t(j)] = (e.mask == mask_kind::causal && j > i) ? -INFINITY : dot / std::sqrt(double(dk));
                mx = std::max(mx, s[std::size_t(j)]);
            }
            double sum = 0;
            for (auto& x : s)
                sum += (x = std::exp(x - mx));
            for (int c = 0; c < dk; ++c) {
                double acc = 0;
                for (int j = 0; j < n; ++j)
                    acc += s[std::size_t(j)] / sum * v[std::size_t(j * d + hh * dk + c)];
                concat[std::size_t(i * d + hh * dk + c)] = acc;
            }
        }
    std::vector<double> out(std::size_t(n * d));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) {
            double acc = 0;
            for (int p = 0; p < d; ++p)
                acc += concat[std::size_t(i * d + p)] * double(w.w_o(p, j));
            out[std::size_t(i * d + j)] = acc;
        }
    return out;
}

}  // namespace

TEST_CASE("forward equals an independent double-precision implementation") {
    for (int heads : {1, 2, 4})
        for (mask_kind mask : {mask_kind::causal, mask_kind::none}) {
            experiment e;
            e.text = "the quick brown fox jumps over the lazy dog";
            e.d_model = 16;
            e.heads = heads;
            e.mask = mask;
            const trace t = forward(e);
            const auto want = reference_output(e, t.params);
            REQUIRE(t.output.size() == want.size());
            double worst = 0;
            for (std::size_t i = 0; i < want.size(); ++i)
                worst = std::max(worst, std::fabs(double(t.output.data[i]) - want[i]));
            INFO("heads=" << heads << " mask=" << mask_kind_name(mask) << " worst |diff|=" << worst);
            CHECK(worst < 1e-4);
        }
}

TEST_CASE("forward: weights rows sum to 1, masked weights are exactly 0") {
    experiment e;
    e.heads = 4;
    const trace t = forward(e);
    const int n = int(t.tokens.size());
    REQUIRE(t.heads.size() == 4);
    for (const auto& h : t.heads)
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                sum += h.weights(i, j);
                if (j > i)
                    CHECK(h.weights(i, j) == 0.0f);
                CHECK(h.weights(i, j) >= 0.0f);
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
        }
}

TEST_CASE("forward: the same token text gets the same embedding row") {
    experiment e;
    e.text = "the cat saw the dog";
    const trace t = forward(e);
    for (int c = 0; c < e.d_model; ++c)
        CHECK(t.params.embeddings(0, c) == t.params.embeddings(3, c));
    bool differs = false;
    for (int c = 0; c < e.d_model; ++c)
        differs |= t.params.embeddings(0, c) != t.params.embeddings(1, c);
    CHECK(differs);
}

TEST_CASE("forward: the first query under a causal mask attends only to itself") {
    experiment e;
    const trace t = forward(e);
    for (const auto& h : t.heads)
        CHECK(h.weights(0, 0) == 1.0f);
}
