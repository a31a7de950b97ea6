// The rules the forward pass, training and the page share (model/rules.hpp): each
// is one function, and the passes that use it agree with it.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "model/forward.hpp"
#include "model/rules.hpp"

using namespace attn;

TEST_CASE("mask_visible_keys: none sees all, causal up to itself, padding all but the last pad") {
    experiment e;
    e.mask = mask_kind::none;
    CHECK(mask_visible_keys(e, 5, 0) == 5);
    e.mask = mask_kind::causal;
    CHECK(mask_visible_keys(e, 5, 0) == 1);
    CHECK(mask_visible_keys(e, 5, 4) == 5);
    e.mask = mask_kind::padding;
    e.pad = 2;
    CHECK(mask_visible_keys(e, 5, 0) == 3);
    CHECK(mask_visible_keys(e, 5, 4) == 3);
    e.pad = 9;
    CHECK(mask_visible_keys(e, 5, 1) == 0);
}

TEST_CASE("the forward pass hides exactly the keys mask_visible_keys leaves out") {
    for (const mask_kind m : {mask_kind::none, mask_kind::causal, mask_kind::padding}) {
        experiment e;
        e.mask = m;
        e.pad = m == mask_kind::padding ? 2 : 0;
        const trace t = forward(e);
        const matrix& masked = t.layers[0].heads[0].masked;
        for (int i = 0; i < masked.rows; ++i)
            for (int j = 0; j < masked.cols; ++j)
                CHECK((std::isinf(masked(i, j)) && masked(i, j) < 0) == (j >= mask_visible_keys(e, masked.rows, i)));
    }
}

TEST_CASE("rmsnorm_rows: x / √(mean(x²) + 1e-6) per row, the factor kept, in place allowed") {
    const std::vector<float> x = {3.0f, 4.0f, 0.0f, 0.0f};
    std::vector<float> y(4), inv(2);
    rmsnorm_rows(x.data(), y.data(), inv.data(), 2, 2);
    CHECK(inv[0] == float(1.0 / std::sqrt(12.5 + 1e-6)));
    CHECK(y[0] == 3.0f * inv[0]);
    CHECK(y[1] == 4.0f * inv[0]);
    CHECK(y[2] == 0.0f);
    std::vector<float> z = x;
    rmsnorm_rows(z.data(), z.data(), nullptr, 2, 2);
    CHECK(z == y);
}

TEST_CASE("the forward pass normalises with rmsnorm_rows and scales by experiment_score_scale") {
    experiment e;
    e.block = block_kind::full;
    const trace t = forward(e);
    const layer_trace& lt = t.layers[0];
    matrix normed(lt.input.rows, lt.input.cols);
    rmsnorm_rows(lt.input.data.data(), normed.data.data(), nullptr, normed.rows, normed.cols);
    CHECK(normed.data == lt.normed.data);
    CHECK(score_scale_default(experiment_d_k(e)) == experiment_score_scale(e));
    const head_trace& h = lt.heads[0];
    for (std::size_t k = 0; k < h.scores.data.size(); ++k)
        CHECK(h.scaled.data[k] == h.scores.data[k] * experiment_score_scale(e));
}
