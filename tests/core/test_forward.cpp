// Properties of the forward pass, and an independent double-precision
// implementation of the same maths to compare against.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/precision.hpp"
#include "base/tokenize.hpp"
#include "compare.hpp"
#include "model/forward.hpp"
#include "model/stage.hpp"

using namespace attn;
using attn::test::max_abs_diff;

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
    const auto q = proj(w.layers[0].w_q), k = proj(w.layers[0].w_k), v = proj(w.layers[0].w_v);
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
                acc += concat[std::size_t(i * d + p)] * double(w.layers[0].w_o(p, j));
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
            e.kv_heads = heads;
            e.mask = mask;
            const trace t = forward(e);
            const auto want = reference_output(e, t.params);
            const double worst = test::max_abs_diff(t.output.data, want);
            INFO("heads=" << heads << " mask=" << mask_kind_name(mask) << " worst |diff|=" << worst);
            CHECK(worst < 1e-4);
        }
}

TEST_CASE("forward: weights rows sum to 1, masked weights are exactly 0") {
    experiment e;
    e.heads = 4;
    e.kv_heads = 4;
    const trace t = forward(e);
    const int n = int(t.tokens.size());
    REQUIRE(t.layers[0].heads.size() == 4);
    for (const auto& h : t.layers[0].heads)
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
    for (const auto& h : t.layers[0].heads)
        CHECK(h.weights(0, 0) == 1.0f);
}

namespace {

experiment small(const char* text = "the cat chased the dog", int d = 16, int heads = 4) {
    experiment e;
    e.text = text;
    e.d_model = d;
    e.heads = heads;
    e.kv_heads = heads;
    return e;
}

}  // namespace

TEST_CASE("permutation equivariance: without positions, shuffling tokens permutes rows and columns") {
    // "猫追狗" and "狗追猫" are the same bag of tokens: every token gets the same output.
    for (positional pos : {positional::none, positional::sinusoidal, positional::rope}) {
        experiment a = small("猫 追 狗 跑"), b = small("狗 追 猫 跑");
        a.mask = b.mask = mask_kind::none;
        a.pos = b.pos = pos;
        const trace ta = forward(a), tb = forward(b);
        const int perm[] = {2, 1, 0, 3};  // token i of a is token perm[i] of b
        double worst_out = 0, worst_w = 0;
        for (int i = 0; i < 4; ++i) {
            for (int c = 0; c < a.d_model; ++c)
                worst_out = std::max(worst_out, std::fabs(double(ta.output(i, c)) - double(tb.output(perm[i], c))));
            for (int j = 0; j < 4; ++j)
                worst_w = std::max(worst_w, std::fabs(double(ta.layers[0].heads[0].weights(i, j)) -
                                                      double(tb.layers[0].heads[0].weights(perm[i], perm[j]))));
        }
        INFO("positions " << positional_name(pos) << ": worst output diff " << worst_out << ", weights " << worst_w);
        if (pos == positional::none) {
            CHECK(worst_out < 1e-5);
            CHECK(worst_w < 1e-6);
        } else {
            CHECK(worst_out > 1e-2);  // order now matters
        }
    }
}

TEST_CASE("RoPE: shifting every position by the same amount leaves the scores unchanged") {
    experiment a = small();
    a.pos = positional::rope;
    experiment b = a;
    b.pos_offset = 37;
    const trace ta = forward(a), tb = forward(b);
    for (std::size_t h = 0; h < ta.layers[0].heads.size(); ++h)
        CHECK(max_abs_diff(ta.layers[0].heads[h].scores, tb.layers[0].heads[h].scores) < 1e-4);
    CHECK(max_abs_diff(ta.layers[0].q_rot, tb.layers[0].q_rot) > 1e-2);  // the vectors themselves did turn
    // Sinusoidal positions are added to the input, so the same shift changes the scores.
    a.pos = b.pos = positional::sinusoidal;
    CHECK(max_abs_diff(forward(a).layers[0].heads[0].scores, forward(b).layers[0].heads[0].scores) > 1e-2);
}

TEST_CASE("GQA equals MHA with each K/V head repeated for its group") {
    experiment gqa = small("a b c d e f", 16, 4);
    gqa.kv_heads = 2;
    for (int kv : {1, 2, 4}) {
        gqa.kv_heads = kv;
        const auto tokens = tokenize(gqa.text);
        const model_weights pg = model_generate(gqa, tokens);
        experiment mha = gqa;
        mha.kv_heads = gqa.heads;
        model_weights pm = pg;
        const int dk = 4, group = gqa.heads / kv;
        for (auto* w : {&pm.layers[0].w_k, &pm.layers[0].w_v}) {
            const matrix src = *w;
            *w = matrix(16, 16);
            for (int r = 0; r < 16; ++r)
                for (int h = 0; h < gqa.heads; ++h)
                    for (int c = 0; c < dk; ++c)
                        (*w)(r, h * dk + c) = src(r, (h / group) * dk + c);
        }
        const trace tg = forward_with(gqa, tokens, pg), tm = forward_with(mha, tokens, pm);
        INFO("kv_heads " << kv);
        CHECK(max_abs_diff(tg.output, tm.output) < 1e-6);
        for (int h = 0; h < gqa.heads; ++h)
            CHECK(tg.layers[0].heads[std::size_t(h)].kv_group == h / group);
    }
}

TEST_CASE("fp16 without max-subtraction overflows to inf and NaN spreads; the stable form stays finite") {
    experiment e = small();
    e.scale = score_scale::custom;
    e.scale_value = 6.0f;  // logits well past 11, where exp overflows fp16's 65504
    e.prec = precision::fp16;
    e.softmax = softmax_mode::no_max;
    const trace bad = forward(e);
    float max_logit = -INFINITY;
    for (const auto& h : bad.layers[0].heads)
        for (float x : h.masked.data)
            max_logit = std::max(max_logit, x);
    REQUIRE(max_logit > 11.1f);
    CHECK(bad.nan_count > 0);
    int nan_out = 0;
    for (float x : bad.output.data)
        nan_out += std::isnan(x);
    CHECK(nan_out > 0);  // it reached the output
    e.softmax = softmax_mode::stable;
    const trace good = forward(e);
    CHECK(good.nan_count == 0);
    CHECK(good.inf_count == 0);
    e.prec = precision::fp32;
    e.softmax = softmax_mode::no_max;
    CHECK(forward(e).nan_count == 0);  // fp32's range holds exp(11) easily
}

TEST_CASE("mask after softmax: rows sum to less than 1 and the output darkens") {
    experiment e = small();
    const trace right = forward(e);
    e.mask_at = mask_placement::after_softmax;
    const trace wrong = forward(e);
    const auto& w = wrong.layers[0].heads[0];
    for (int i = 0; i + 1 < int(w.row_sums.size()); ++i)
        CHECK(w.row_sums[std::size_t(i)] < 0.9999f);
    CHECK(w.row_sums.back() == doctest::Approx(1.0f));  // the last row masks nothing
    double norm_right = 0, norm_wrong = 0;
    for (std::size_t i = 0; i < right.layers[0].concat.data.size(); ++i) {
        norm_right += std::fabs(right.layers[0].concat.data[i]);
        norm_wrong += std::fabs(wrong.layers[0].concat.data[i]);
    }
    CHECK(norm_wrong < norm_right);
}

TEST_CASE("W_O off: the output is the plain concatenation of the heads") {
    experiment e = small();
    e.use_wo = false;
    const trace t = forward(e);
    CHECK(max_abs_diff(t.output, t.layers[0].concat) == 0.0);
}

TEST_CASE("one layer: ablating a head changes the output by exactly its contribution through W_O") {
    experiment e = small();
    const trace full = forward(e);
    const int dk = 4;
    for (int h = 0; h < e.heads; ++h) {
        experiment a = e;
        a.ablate = {{0, h}};
        const trace ab = forward(a);
        const matrix& out_h = full.layers[0].heads[std::size_t(h)].out;
        const matrix& wo = full.params.layers[0].w_o;
        double worst = 0;
        for (int i = 0; i < full.output.rows; ++i)
            for (int c = 0; c < e.d_model; ++c) {
                double contrib = 0;
                for (int k = 0; k < dk; ++k)
                    contrib += double(out_h(i, k)) * double(wo(h * dk + k, c));
                worst = std::max(worst, std::fabs(double(full.output(i, c)) - double(ab.output(i, c)) - contrib));
            }
        INFO("head " << h);
        CHECK(worst < 1e-5);
        CHECK(ab.layers[0].heads[std::size_t(h)].ablated);
    }
}

TEST_CASE("two full layers: ablating a layer-0 head changes the final output downstream") {
    experiment e = small();
    e.layers = 2;
    e.block = block_kind::full;
    const trace base = forward(e);
    REQUIRE(base.layers.size() == 2);
    CHECK(base.layers[0].ffn_hidden.cols == 4 * e.d_model);
    e.ablate = {{0, 1}};
    const trace ab = forward(e);
    CHECK(max_abs_diff(base.layers[1].input, ab.layers[1].input) > 1e-3);
    CHECK(max_abs_diff(base.output, ab.output) > 1e-3);
}

TEST_CASE("block=attn_res: each layer's output is its input plus attention, with no norm and no FFN") {
    const auto parsed = experiment_parse("v=1&text=a%20b%20c%20d&d_model=8&heads=2&layers=2&block=attn_res");
    REQUIRE(parsed.value);
    CHECK(experiment_to_text(*parsed.value).find("block=attn_res") != std::string::npos);
    const trace t = forward(*parsed.value);
    REQUIRE(t.layers.size() == 2);
    for (const layer_trace& lt : t.layers) {
        CHECK(lt.normed.data == lt.input.data);  // no norm before attention
        CHECK(lt.ffn_hidden.size() == 0);
        matrix sum = lt.input;
        for (std::size_t i = 0; i < sum.data.size(); ++i)
            sum.data[i] += lt.attn_out.data[i];
        CHECK(max_abs_diff(sum, lt.residual) == 0.0f);
        CHECK(lt.output.data == lt.residual.data);
    }
    CHECK(t.layers[1].input.data == t.layers[0].output.data);
    CHECK(t.output.data == t.layers[1].output.data);
    CHECK(stage_applies(stage::block, *parsed.value));
}

TEST_CASE("masked edges, padding, argmax and temperature") {
    experiment e = small();
    e.mask = mask_kind::none;
    e.edges = {{0, 1, 3, 0}};
    trace t = forward(e);
    CHECK(t.layers[0].heads[1].weights(3, 0) == 0.0f);
    CHECK(t.layers[0].heads[0].weights(3, 0) > 0.0f);  // other heads keep the edge
    CHECK(t.layers[0].heads[1].row_sums[3] == doctest::Approx(1.0f));

    e.edges.clear();
    e.mask = mask_kind::padding;
    e.pad = 2;
    t = forward(e);
    for (int i = 0; i < 5; ++i)
        CHECK(t.layers[0].heads[0].weights(i, 4) == 0.0f);

    e.mask = mask_kind::causal;
    e.pad = 0;
    e.softmax = softmax_mode::argmax;
    t = forward(e);
    for (int i = 0; i < 5; ++i) {
        int ones = 0;
        for (int j = 0; j < 5; ++j)
            ones += t.layers[0].heads[0].weights(i, j) == 1.0f;
        CHECK(ones == 1);
    }
    e.softmax = softmax_mode::stable;
    float previous = INFINITY;
    for (float temp : {4.0f, 1.0f, 0.25f, 0.05f}) {  // colder: sharper rows, lower entropy
        e.temperature = temp;
        const float h = forward(e).layers[0].heads[0].row_entropies[4];
        CHECK(h < previous);
        previous = h;
    }
}

TEST_CASE("edits override generated numbers and flow through") {
    experiment e = small();
    const trace base = forward(e);
    e.edits = {{edit_target::x, 0, 1, 2, 5.0f}, {edit_target::w_q, 0, 0, 0, -3.0f}};
    const trace t = forward(e);
    CHECK(t.params.embeddings(1, 2) == 5.0f);
    CHECK(t.params.layers[0].w_q(0, 0) == -3.0f);
    CHECK(max_abs_diff(base.output, t.output) > 1e-3);
}

TEST_CASE("bf16 and fp16 round every stored intermediate") {
    experiment e = small();
    for (precision p : {precision::fp16, precision::bf16}) {
        e.prec = p;
        const trace t = forward(e);
        for (float x : t.layers[0].heads[0].weights.data)
            CHECK(round_to(p, x) == x);
        for (float x : t.output.data)
            CHECK(round_to(p, x) == x);
    }
}

TEST_CASE("KV-cache decoding in the trace equals the full causal pass, for MHA, GQA and MQA") {
    for (int kv : {4, 2, 1})
        for (positional pos : {positional::none, positional::rope}) {
            experiment e = small("one two three four five six seven", 16, 4);
            e.kv_heads = kv;
            e.pos = pos;
            e.decode = 7;
            const trace t = forward(e);
            REQUIRE(t.decode.steps == 7);
            CHECK(t.decode.cache.tokens() == 7);
            CHECK(int(t.decode.cache.k.size()) == kv);
            CHECK(max_abs_diff(t.decode.out, t.layers[0].concat) < 1e-5);
            // Bytes read grow by one token's K and V each step: 2 · kv · d_k floats.
            for (int s = 1; s < 7; ++s)
                CHECK(t.decode.bytes_read[std::size_t(s)] - t.decode.bytes_read[std::size_t(s - 1)] ==
                      std::size_t(2 * kv * 4) * sizeof(float));
        }
    experiment e = small();
    e.decode = 2;
    const trace t = forward(e);
    CHECK(t.decode.out.rows == 2);
}

TEST_CASE("constructed weights: a previous-token head beside a same-token head") {
    experiment e = small("the cat sat on the warm mat", 16, 2);
    e.weights = weight_init::specialised;
    e.pos = positional::rope;
    const trace t = forward(e);
    const auto& prev = t.layers[0].heads[0].weights;
    const auto& self = t.layers[0].heads[1].weights;
    for (int i = 1; i < prev.rows; ++i) {
        CHECK(prev(i, i - 1) > 0.9f);
        CHECK(self(i, i) > 0.5f);
    }
    // Without positions the previous-token head has nothing to go on.
    e.pos = positional::none;
    CHECK(forward(e).layers[0].heads[0].weights(3, 2) < 0.5f);
}

TEST_CASE("constructed weights: two bright heads that cancel exactly") {
    experiment e = small("a b c d e", 16, 4);
    e.weights = weight_init::cancel;
    const trace t = forward(e);
    CHECK(max_abs_diff(t.layers[0].heads[0].weights, t.layers[0].heads[1].weights) == 0.0);
    float brightest = 0;
    for (float x : t.layers[0].heads[0].weights.data)
        if (x < 0.999f)
            brightest = std::max(brightest, x);
    CHECK(brightest > 0.5f);  // a sharp, "important-looking" map
    experiment both = e;
    both.ablate = {{0, 0}, {0, 1}};
    CHECK(max_abs_diff(forward(both).output, t.output) < 1e-5);  // removing both: no change
    experiment one = e;
    one.ablate = {{0, 0}};
    CHECK(max_abs_diff(forward(one).output, t.output) > 0.1);  // removing one: a large change
}

TEST_CASE("constructed weights: the first token is an attention sink with no content") {
    experiment e = small("<s> the cat sat down", 16, 4);
    e.weights = weight_init::sink;
    const trace t = forward(e);
    for (const auto& h : t.layers[0].heads) {
        for (int c = 0; c < h.v.cols; ++c)
            CHECK(h.v(0, c) == 0.0f);
        for (int i = 1; i < h.weights.rows; ++i)
            CHECK(h.weights(i, 0) > 0.6f);
    }
}
