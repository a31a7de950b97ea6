// The numerics rules of forward.hpp ("Numerics") on whole experiments: NaN and
// ±inf are shown as what they are, the same on every kernel set (and in wasm,
// where this file runs too). Each case is a reproduction that once gave a
// number, a masked row or a kernel-set-dependent answer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/measure.hpp"
#include "base/tokenize.hpp"
#include "model/forward.hpp"
#include "spec/experiment.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::each_kernel_set;

namespace {

experiment parse(const std::string& text) {
    auto r = experiment_parse(text);
    INFO(text);
    REQUIRE(r.value);
    return *r.value;
}

std::string words(int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s += (i ? "%20w" : "w") + std::to_string(i);
    return s;
}

bool all_nan(const float* x, int n) {
    return std::all_of(x, x + n, [](float v) { return std::isnan(v); });
}

}  // namespace

TEST_CASE("numerics 1: NaN logits stay NaN through the fast exp at every length and on every kernel set") {
    each_kernel_set([] {
        for (int n : {15, 16, 17, 63, 64, 65, 100}) {
            INFO("tokens " << n);
            // Token 0's own logit overflows to +inf (8·(8·1e12)² · 1e6 / 1e-6 > 3.4e38) at the
            // smallest temperature allowed; inf − inf makes the row NaN in IEEE and numpy.
            std::string edits;
            for (int c = 0; c < 8; ++c) {
                edits += (c ? ",x.0." : "x.0.") + std::to_string(c) + ":1e6";
                for (int r = 0; r < 8; ++r)
                    for (const char* w : {"w_q", "w_k"})
                        edits += ",l0." + std::string(w) + "." + std::to_string(r) + "." + std::to_string(c) + ":1e6";
            }
            const experiment e =
                parse("v=1&text=" + words(n) + "&d_model=8&heads=1&mask=none&scale=1e6&temp=1e-6&wo=off&edits=" + edits);
            const trace t = forward(e);
            const head_trace& h = t.layers[0].heads[0];
            CHECK(all_nan(h.weights.row(0), n));
            CHECK(std::isnan(h.row_sums[0]));
            CHECK(std::isnan(h.row_entropies[0]));
            CHECK(t.nan_count > 0);
        }
    });
}

TEST_CASE("numerics 2: decoding agrees with the full pass on non-finite scores") {
    each_kernel_set([] {
        const experiment e = parse("v=1&text=a%20b%20c&d_model=2&heads=1&precision=fp16&mask=causal&decode=3&edits=x.0.0:-1e6");
        const trace t = forward(e);
        const matrix& full = t.layers[0].concat;
        const matrix& dec = t.decode.out;
        REQUIRE(dec.rows == 3);
        for (std::size_t i = 0; i < full.data.size(); ++i) {
            INFO("entry " << i << ": full " << full.data[i] << ", decode " << dec.data[i]);
            if (std::isnan(full.data[i]))
                CHECK(std::isnan(dec.data[i]));
            else
                CHECK(dec.data[i] == doctest::Approx(full.data[i]).epsilon(2e-3));
        }
    });
}

TEST_CASE("numerics 3: softmax=no_max overflows where fp32 does, whatever the length") {
    each_kernel_set([] {
        for (int n : {8, 15, 16, 17, 33, 64}) {
            std::string text = "a", edits;
            for (int i = 1; i < n; ++i)
                text += "%20a";
            for (int i = 0; i < n; ++i)
                edits += "x." + std::to_string(i) + ".0:1,";
            const std::string base =
                "v=1&text=" + text + "&d_model=1&heads=1&mask=causal&scale=none&softmax=no_max&wo=off&edits=" + edits;
            INFO("tokens " << n);
            // e^88.5 = 2.7e38 is finite: row 0 (one visible key) weighs exactly 1.
            const trace ok = forward(parse(base + "l0.w_q.0.0:1,l0.w_k.0.0:88.5"));
            CHECK(ok.layers[0].heads[0].weights(0, 0) == 1.0f);
            // e^88.8 overflows fp32: inf / inf.
            const trace over = forward(parse(base + "l0.w_q.0.0:1,l0.w_k.0.0:88.8"));
            CHECK(std::isnan(over.layers[0].heads[0].weights(0, 0)));
            // e^−95 is subnormal, not 0: still 1 / 1.
            const trace tiny = forward(parse(base + "l0.w_q.0.0:1,l0.w_k.0.0:-95"));
            CHECK(tiny.layers[0].heads[0].weights(0, 0) == 1.0f);
        }
    });
}

TEST_CASE("numerics 3b: fp16 no_max overflows at e^11.09") {
    const std::string base =
        "v=1&text=a%20b&d_model=1&heads=1&mask=causal&scale=none&softmax=no_max&wo=off&precision=fp16"
        "&edits=x.0.0:1,x.1.0:1,l0.w_q.0.0:1,l0.w_k.0.0:";
    CHECK(forward(parse(base + "11")).layers[0].heads[0].weights(0, 0) == 1.0f);  // e^11 = 59874 < 65504
    CHECK(std::isnan(forward(parse(base + "11.2")).layers[0].heads[0].weights(0, 0)));
}

TEST_CASE("numerics 4: a row of NaN logits is NaN, not a masked row (fp16, two layers)") {
    each_kernel_set([] {
        const experiment e = parse(
            "v=1&text=the%20cat%20sat&d_model=4&heads=1&layers=2&precision=fp16&softmax=no_max&mask=none&scale=none&wo=off"
            "&edits=l0.w_q.0.0:50,l0.w_k.0.0:50");
        const trace t = forward(e);
        const head_trace& h = t.layers[1].heads[0];
        for (int i = 0; i < 3; ++i) {
            INFO("row " << i);
            if (std::any_of(h.masked.row(i), h.masked.row(i) + 3, [](float v) { return std::isnan(v); })) {
                CHECK(all_nan(h.weights.row(i), 3));
                CHECK(std::isnan(h.row_sums[std::size_t(i)]));
                CHECK(std::isnan(h.row_entropies[std::size_t(i)]));
            }
        }
        CHECK(all_nan(h.masked.row(0), 3));  // the reproduction's logits really are NaN
    });
}

TEST_CASE("numerics 4b: argmax of a NaN row is NaN; ties go to the first maximum; all −inf is masked") {
    const trace t =
        forward(parse("v=1&text=a%20b%20c&d_model=1&heads=1&mask=none&scale=none&wo=off&softmax=argmax"
                      "&edits=x.0.0:1,x.1.0:1,x.2.0:1,l0.w_q.0.0:1,l0.w_k.0.0:1"));
    const matrix& w = t.layers[0].heads[0].weights;
    CHECK(w(0, 0) == 1.0f);  // three equal scores: the first wins
    CHECK(w(0, 1) == 0.0f);
    const trace bad =
        forward(parse("v=1&text=a%20b%20c&d_model=1&heads=1&mask=none&scale=none&wo=off&softmax=argmax"
                      "&precision=fp16&edits=x.0.0:1000,x.1.0:-1000,l0.w_q.0.0:1000,l0.w_k.0.0:1000"));
    const head_trace& h = bad.layers[0].heads[0];
    for (int i = 0; i < 3; ++i)
        if (std::any_of(h.masked.row(i), h.masked.row(i) + 3, [](float v) { return std::isnan(v); }))
            CHECK(all_nan(h.weights.row(i), 3));
}

TEST_CASE("numerics 5: entropy of a row with NaN or inf is NaN") {
    const float nan_row[] = {NAN, 0.5f, 0.5f}, inf_row[] = {INFINITY, 0.0f, NAN}, ok[] = {0.5f, 0.5f, 0.0f};
    CHECK(std::isnan(softmax_row_entropy(nan_row, 3)));
    CHECK(std::isnan(softmax_row_entropy(inf_row, 3)));
    CHECK(softmax_row_entropy(ok, 3) == doctest::Approx(std::log(2.0)));
}

TEST_CASE("numerics 6: inf_count counts infinities made by overflow, in every stored matrix") {
    const trace t =
        forward(parse("v=1&text=a%20b%20c&d_model=1&heads=1&mask=causal&precision=fp16&scale=-500&wo=off"
                      "&edits=x.0.0:1,x.1.0:2,x.2.0:3,l0.w_q.0.0:8,l0.w_k.0.0:8"));
    const head_trace& h = t.layers[0].heads[0];
    int visible_inf = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j <= i; ++j)
            visible_inf += std::isinf(h.scaled(i, j));
    REQUIRE(visible_inf > 0);
    CHECK(t.inf_count >= visible_inf);
    // Every stored matrix is counted (forward.hpp's list): recount them here.
    const trace p =
        forward(parse("v=1&text=a%20b%20c&d_model=4&heads=2&block=full&decode=3&pos=rope&precision=fp16"
                      "&edits=l0.w_q.0.0:1e5,l0.w_v.1.0:1e5,l0.w_2.0.0:1e5"));
    long nan = 0, inf = 0;
    auto add = [&](const std::vector<float>& v) {
        for (float x : v) {
            nan += std::isnan(x);
            inf += std::isinf(x);
        }
    };
    add(p.x0.data);
    for (const auto& lt : p.layers) {
        for (const matrix* m : {&lt.normed, &lt.q, &lt.k, &lt.v, &lt.q_rot, &lt.k_rot, &lt.concat, &lt.attn_out, &lt.residual,
                                &lt.ffn_normed, &lt.ffn_hidden, &lt.ffn_out, &lt.output})
            add(m->data);
        for (const auto& ht : lt.heads) {
            for (const matrix* m : {&ht.scores, &ht.scaled, &ht.weights, &ht.out})
                add(m->data);
            add(ht.row_sums);
            add(ht.row_entropies);
        }
    }
    add(p.decode.out.data);
    REQUIRE(inf + nan > 0);
    CHECK(p.nan_count == nan);
    CHECK(p.inf_count == inf);
}

TEST_CASE("numerics 7: decode.out is rounded to fp16 / bf16 like every other stored value") {
    for (const char* p : {"fp16", "bf16"}) {
        const trace t =
            forward(parse(std::string("v=1&text=the%20cat%20sat%20on&d_model=8&heads=2&mask=causal&decode=4&precision=") + p));
        const precision prec = *precision_parse(p);
        REQUIRE(t.decode.out.rows == 4);
        for (float x : t.decode.out.data)
            CHECK(round_to(prec, x) == x);
    }
}

TEST_CASE("numerics 8: the tokenizer keeps '_' inside a word, as documented; other ASCII punctuation splits") {
    CHECK(tokenize("x_1") == std::vector<std::string>{"x_1"});
    CHECK(tokenize("x-1") == std::vector<std::string>{"x", "-", "1"});
    CHECK(tokenize("don't") == std::vector<std::string>{"don't"});
}

// --- the largest experiments: memory known before allocating -------------------

namespace {

std::size_t stored_bytes(const trace& t) {
    std::size_t f = 0;
    auto m = [&f](const matrix& x) { f += x.data.size(); };
    m(t.params.embeddings);
    m(t.positions);
    m(t.x0);
    m(t.output);
    for (std::size_t l = 0; l < t.layers.size(); ++l) {
        const layer_weights& w = t.params.layers[l];
        for (const matrix* x : {&w.w_q, &w.w_k, &w.w_v, &w.w_o, &w.w_1, &w.w_2})
            m(*x);
        const layer_trace& lt = t.layers[l];
        for (const matrix* x : {&lt.input, &lt.normed, &lt.q, &lt.k, &lt.v, &lt.q_rot, &lt.k_rot, &lt.concat, &lt.attn_out,
                                &lt.residual, &lt.ffn_normed, &lt.ffn_hidden, &lt.ffn_out, &lt.output})
            m(*x);
        for (const head_trace& ht : lt.heads) {
            for (const matrix* x : {&ht.q, &ht.k, &ht.v, &ht.scores, &ht.scaled, &ht.masked, &ht.weights, &ht.out})
                m(*x);
            f += ht.row_sums.size() + ht.row_entropies.size();
        }
    }
    m(t.decode.out);
    for (const matrix& x : t.decode.cache.k)
        m(x);
    for (const matrix& x : t.decode.cache.v)
        m(x);
    return f * sizeof(float);
}

}  // namespace

TEST_CASE("trace_bytes equals what a trace stores, full and lean, for random experiments") {
    rng g(16);
    for (int i = 0; i < 60; ++i) {
        const experiment e = attn::test::random_experiment(g, 4);
        const int n = int(tokenize(e.text).size());
        INFO(experiment_to_text(e));
        CHECK(trace_bytes(e, n) == stored_bytes(forward(e)));
        const trace lean = forward(e, trace_options::lean());
        CHECK(trace_bytes(e, n, true) == stored_bytes(lean));
        CHECK(lean.layers[0].heads[0].weights.empty());
        CHECK(lean.layers[0].heads[0].scores.data.capacity() == 0);  // given back, not just cleared
        // A lean trace computes the same numbers it keeps.
        const trace full = forward(e);
        CHECK(lean.output.data.size() == full.output.data.size());
        for (std::size_t k = 0; k < full.output.data.size(); ++k)
            CHECK((lean.output.data[k] == full.output.data[k] ||
                   (std::isnan(lean.output.data[k]) && std::isnan(full.output.data[k]))));
    }
}

TEST_CASE("the largest valid experiment, with interventions, fits the page's memory budget") {
    const int n = experiment_limits::max_tokens;
    std::string text = "a";
    for (int i = 1; i < n; ++i)
        text += "%20a";
    const experiment e =
        parse("v=1&text=" + text + "&d_model=256&heads=16&layers=4&block=full&decode=1024&ablate=3.15&edges=3.15.1023.0");
    REQUIRE(int(tokenize(e.text).size()) == n);
    const std::size_t peak = experiment_peak_bytes(e, n);
    MESSAGE("largest experiment: trace " << (trace_bytes(e, n) >> 20) << " MB, peak " << (peak >> 20) << " MB");
    CHECK(peak < page_memory_budget);
    CHECK(page_memory_budget < (std::size_t(2) << 30));
}
