// The page's real model (play/real_model.hpp): the two files opened in either
// order and refused with the file's name, the text read with each head's
// scores and the next-token predictions, generation a token a call equal to
// llama_generate's.
#include <doctest/doctest.h>
#include <algorithm>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "llama/forward.hpp"
#include "llama_test_files.hpp"
#include "play/real_model.hpp"
#include "spec/link_codec.hpp"

using namespace attn;

namespace {

const std::vector<std::string> pieces = {" ",  "O",  "n",    "c",     "e",    "u",     "p",     "o",  "a",
                                         "t",  "i",  "m",    " O",    "On",   "ce",    " up",   "on", " a",
                                         " t", "im", "Once", " Once", "upon", " upon", " time", " ti"};

struct files {
    test::llama_bytes ckpt, tok;
    real_model_file a() const { return {ckpt.data(), ckpt.size(), "model.bin", "00112233445566778899aabbccddeeff"}; }
    real_model_file b() const { return {tok.data(), tok.size(), "tok.bin", ""}; }
};

files make_files() {
    files f;
    f.tok = test::llama_test_tokenizer(pieces);
    f.ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 259 + int(pieces.size()), 48, true), 5);
    return f;
}

// The test model opened and its reading of `text`.
struct opened_model {
    files f;
    real_model m;
    real_model_reading r;
};

opened_model opened(const std::string& text) {
    opened_model o{make_files(), {}, {}};
    REQUIRE_FALSE(real_model_open(o.f.a(), o.f.b(), o.m));
    real_model_read(o.m, text, o.r);
    return o;
}

}  // namespace

TEST_CASE("real model: opened in either order, refused with the file's name, its size and parameters") {
    const files f = make_files();
    real_model m;
    REQUIRE_FALSE(real_model_open(f.a(), f.b(), m));
    CHECK(m.name == "model.bin");
    CHECK(m.tokenizer_name == "tok.bin");
    CHECK(m.file_bytes == f.ckpt.size());
    CHECK(m.sha256 == "00112233445566778899aabbccddeeff");  // the checkpoint's, whichever order
    CHECK(link_model_ref(m.name, m.sha256) == "model.bin@0011223344556677");
    CHECK(link_model_ref("/home/a/my stories (1).bin", "ABCDEF0123456789ff") == "my_stories__1_.bin@abcdef0123456789");
    CHECK(link_model_ref("x.bin", "abc").empty());
    CHECK(m.parameters() == (f.ckpt.size() - 256) / 4);
    real_model swapped;
    REQUIRE_FALSE(real_model_open(f.b(), f.a(), swapped));
    CHECK(swapped.name == "model.bin");
    CHECK(swapped.sha256 == m.sha256);
    REQUIRE(swapped.model.weights.size == m.model.weights.size);
    CHECK(std::memcmp(m.model.weights.bytes, swapped.model.weights.bytes, m.model.weights.size) == 0);

    test::llama_bytes cut(f.ckpt.begin(), f.ckpt.end() - 8);
    real_model kept = std::move(swapped);
    const auto why = real_model_open({cut.data(), cut.size(), "cut.bin", ""}, f.b(), kept);
    REQUIRE(why);
    CHECK(why->find("cut.bin: the file is truncated") == 0);
    CHECK(kept.name == "model.bin");  // unchanged
    const test::llama_bytes small_tok = test::llama_test_tokenizer({" ", "a"});
    const auto why_tok = real_model_open(f.a(), {small_tok.data(), small_tok.size(), "small.bin", ""}, kept);
    REQUIRE(why_tok);
    CHECK(why_tok->find("small.bin: ") == 0);
}

TEST_CASE("real model: the text read, each head's scores from its weights, the five likeliest next tokens") {
    auto [f, m, r] = opened("Once upon a time Once upon a time");
    CHECK(r.decoded == "Once upon a time Once upon a time");
    CHECK(r.ids.front() == llama_bos);
    const int n = int(r.ids.size());
    REQUIRE(r.heads.size() == 8);
    for (const real_head_summary& h : r.heads) {
        const matrix& w = r.tr.layers[std::size_t(h.layer)].heads[std::size_t(h.head)].weights;
        REQUIRE(w.rows == n);
        double prev = 0, sink = 0;
        for (int i = 1; i < n; ++i)
            prev += w(i, i - 1), sink += w(i, 0);
        CHECK(h.prev == doctest::Approx(prev / (n - 1)).epsilon(1e-5));
        CHECK(h.sink == doctest::Approx(sink / (n - 1)).epsilon(1e-5));
        CHECK(h.induction >= 0.0f);  // the text repeats
        CHECK(h.kv_head == h.head / 2);
        CHECK(r.tr.layers[std::size_t(h.layer)].heads[std::size_t(h.head)].scores.empty());
    }
    REQUIRE(r.next.size() == 5);
    double total = 0;
    for (std::size_t i = 0; i < r.next.size(); ++i) {
        total += r.next[i].probability;
        if (i)
            CHECK(r.next[i].logit <= r.next[i - 1].logit);
        CHECK(r.next[i].logit == r.tr.logits(n - 1, r.next[i].id));
    }
    CHECK(total <= 1.0 + 1e-6);
    // The lens and the attribution are of the likeliest token at the last position.
    REQUIRE(r.lens.size() == 3);
    CHECK(r.lens.back().top == r.next[0].id);
    CHECK(r.lens.back().target_rank == 0);
    CHECK(r.attribution.target == r.next[0].id);
    CHECK(r.attribution.pos == n - 1);
    CHECK(r.attribution.sum() == doctest::Approx(r.next[0].logit).epsilon(1e-4));
    real_model_reading once;
    real_model_read(m, "Once upon", once);
    for (const real_head_summary& h : once.heads)
        CHECK(h.induction == -1.0f);  // nothing repeats: no induction score

    std::string long_text;
    for (int i = 0; i < 40; ++i)
        long_text += "Once upon a time ";
    real_model_reading cut;
    real_model_read(m, long_text, cut);
    CHECK(cut.cut);
    CHECK(cut.ids.size() == 48);  // the context
}

TEST_CASE("real model: a head's stages, recomputed for the window, are the pass's own") {
    auto [f, m, r] = opened("Once upon a time");
    const trace full = llama_forward(m.model, r.ids, llama_experiment(m.model.config));
    for (const auto& [l, h] : {std::pair{0, 0}, std::pair{1, 3}}) {
        const head_trace s = real_head_stages(m, r, l, h);
        const head_trace& want = full.layers[std::size_t(l)].heads[std::size_t(h)];
        CHECK(s.kv_group == want.kv_group);
        for (const auto& [got, expect] : {std::pair{&s.scores, &want.scores}, std::pair{&s.scaled, &want.scaled},
                                          std::pair{&s.masked, &want.masked}, std::pair{&s.weights, &want.weights}}) {
            REQUIRE(got->rows == int(r.ids.size()));
            CHECK(got->data == expect->data);  // bit for bit: the same kernels on the same rows
        }
    }
    CHECK(real_head_stages(m, r, 2, 0).scores.empty());
    CHECK(real_head_stages(m, r, 0, 4).scores.empty());
}

TEST_CASE("real model: a layer made whole for the pipeline holds every head's stages and the layer's weights as (in, out)") {
    auto [f, m, r] = opened("Once upon a time Once upon");
    const llama_config& c = m.model.config;
    CHECK(r.whole_layer == -1);
    const std::vector<float> weights_before = r.tr.layers[1].heads[3].weights.data;
    real_model_open_layer(m, r, 1);
    CHECK(r.whole_layer == 1);
    for (int h = 0; h < c.n_heads; ++h) {
        const head_trace& ht = r.tr.layers[1].heads[std::size_t(h)];
        const head_trace want = real_head_stages(m, r, 1, h);
        CHECK(ht.scores.data == want.scores.data);
        CHECK(ht.masked.data == want.masked.data);
        CHECK(ht.weights.data == want.weights.data);
    }
    CHECK(r.tr.layers[1].heads[3].weights.data == weights_before);  // the pass's own weights, bit for bit
    REQUIRE(r.tr.params.layers.size() == std::size_t(c.n_layers));
    const layer_weights& w = r.tr.params.layers[1];
    const llama_layer_tensors& t = m.model.layers[1];
    CHECK(w.w_q.rows == c.dim);
    CHECK(w.w_k.cols == c.kv_dim());
    CHECK(w.w_q(3, 5) == m.model.at(t.wq)[5 * c.dim + 3]);  // (in, out) from the file's (out, in)
    CHECK(w.w_2(7, 2) == m.model.at(t.w2)[2 * c.hidden_dim + 7]);
    CHECK(w.w_3(1, 9) == m.model.at(t.w3)[9 * c.dim + 1]);
    CHECK(r.tr.params.embeddings.data == r.tr.x0.data);
    // Another layer: the first goes back to its weights alone.
    real_model_open_layer(m, r, 0);
    CHECK(r.whole_layer == 0);
    CHECK(r.tr.layers[1].heads[0].scores.empty());
    CHECK(r.tr.params.layers[1].w_q.empty());
    CHECK_FALSE(r.tr.layers[0].heads[0].scores.empty());
    real_model_open_layer(m, r, 7);  // a layer the model lacks: nothing changes
    CHECK(r.whole_layer == 0);
}

TEST_CASE("real model: a zeroed head's effect is the ablated pass's prediction; zeroing changes nothing it cannot") {
    auto [f, m, r] = opened("Once upon a time Once upon");
    const int n = int(r.ids.size());
    real_effect fx;
    real_model_intervene(m, r, {{{1, 2}}, {}}, 1, fx);
    CHECK(fx.made);
    CHECK(fx.layer == 1);
    experiment e = llama_experiment(m.model.config);
    e.ablate.push_back({1, 2});
    const trace t = llama_forward(m.model, r.ids, e);
    REQUIRE(fx.next.size() == 5);
    CHECK(fx.next[0].logit == t.logits(n - 1, fx.next[0].id));
    for (std::size_t i = 1; i < fx.next.size(); ++i)
        CHECK(fx.next[i].logit <= fx.next[i - 1].logit);
    REQUIRE(fx.reading_ids_probability.size() == r.next.size());
    double mx = t.logits(n - 1, 0), sum = 0;
    for (int v = 0; v < m.model.config.vocab_size; ++v)
        mx = std::max(mx, double(t.logits(n - 1, v)));
    for (int v = 0; v < m.model.config.vocab_size; ++v)
        sum += std::exp(double(t.logits(n - 1, v)) - mx);
    for (std::size_t i = 0; i < r.next.size(); ++i)
        CHECK(fx.reading_ids_probability[i] ==
              doctest::Approx(std::exp(double(t.logits(n - 1, r.next[i].id)) - mx) / sum).epsilon(1e-4));
    CHECK(fx.kl > 0.0f);
    CHECK(fx.tr.layers[1].heads[2].ablated);  // the changed pass, its layer 1 whole
    CHECK_FALSE(fx.tr.layers[1].heads[0].scores.empty());
    CHECK(fx.tr.layers[0].heads[0].scores.empty());
    CHECK(fx.tr.params.layers[1].w_q.rows == m.model.config.dim);  // the layer's weights, for the pipeline
    // A head the model lacks, or a key after its query, computes nothing and says why.
    real_model_intervene(m, r, {{{5, 0}}, {}}, 0, fx);
    CHECK_FALSE(fx.made);
    CHECK(fx.next.empty());
    const auto problems = real_interventions_problems(m, r, {{{5, 0}, {0, 9}, {1, 1}, {1, 1}}, {{0, 0, 1, 2}, {0, 0, n, 0}}});
    REQUIRE(problems.size() == 5);
    CHECK(problems[0] == "zeroed head 5.0: the model has layers 0 to 1");
    CHECK(problems[1].find("heads 0 to 3") != std::string::npos);
    CHECK(problems[2] == "zeroed head 1.1: it is named twice");
    CHECK(problems[3].find("after the query") != std::string::npos);
    CHECK(problems[4].find("tokens 0 to " + std::to_string(n - 1)) != std::string::npos);
}

TEST_CASE("real model: a file whose layers write nothing is said to be decided by its embedding; a working one is not") {
    const std::string text = "Once upon a time Once upon";
    // Random weights: the layers change predictions.
    const opened_model o = opened(text);
    CHECK_FALSE(o.r.embedding_decides);
    // Attention and FFN weights all zero: the residual is the embedding after every layer.
    files f = make_files();
    test::llama_test_zero_layers(f.ckpt);
    real_model m;
    REQUIRE_FALSE(real_model_open(f.a(), f.b(), m));
    real_model_reading r;
    real_model_read(m, text, r);
    CHECK(r.embedding_decides);
    for (const llama_lens_row& row : r.lens)
        CHECK(row.top == r.lens[0].top);
    // Zeroing a head changes nothing there.
    real_effect fx;
    real_model_intervene(m, r, {{{1, 2}}, {}}, 1, fx);
    REQUIRE(fx.made);
    CHECK(fx.next[0].id == r.next[0].id);
    CHECK(fx.kl == doctest::Approx(0.0));
    // The lens alike at every layer is not enough: a position whose prediction the layers changed says no.
    CHECK(llama_embedding_decides(m.model, r.tr, r.ids, r.lens));
    std::vector<llama_lens_row> differs = r.lens;
    differs.back().top = (differs.back().top + 1) % m.model.config.vocab_size;
    CHECK_FALSE(llama_embedding_decides(m.model, r.tr, r.ids, differs));
    trace changed = r.tr;
    const int V = m.model.config.vocab_size;
    float* z = changed.logits.row(1);
    const int top = int(std::max_element(z, z + V) - z);
    z[(top + 1) % V] = z[top] + 1.0f;
    CHECK_FALSE(llama_embedding_decides(m.model, changed, r.ids, r.lens));
}

TEST_CASE("real model: masked edges change the head's weights and the prediction as the experiment's edges= do") {
    auto [f, m, r] = opened("Once upon a time Once upon");
    const int n = int(r.ids.size());
    REQUIRE(n >= 4);
    // Query n-1 of layer 0 head 3 no longer reads keys 0 and 1; query 1 reads no key at all.
    real_interventions iv;
    iv = real_toggle_edge(iv, {0, 3, n - 1, 0});
    iv = real_toggle_edge(iv, {0, 3, n - 1, 1});
    iv = real_toggle_edge(iv, {0, 3, 1, 0});
    iv = real_toggle_edge(iv, {0, 3, 1, 1});
    iv = real_toggle_head(iv, {1, 2});
    CHECK(iv.edges.size() == 4);
    CHECK(real_toggle_edge(iv, {0, 3, 1, 1}).edges.size() == 3);  // a second click unmasks
    CHECK(real_toggle_head(iv, {1, 2}).ablate.empty());
    CHECK(real_toggle_edge(iv, {0, 3, 1, 2}) == iv);  // a key after its query: hidden already, nothing to mask
    CHECK(iv.zeroes(1, 2));
    CHECK_FALSE(iv.zeroes(0, 3));
    CHECK(real_interventions_problems(m, r, iv).empty());
    real_effect fx;
    real_model_intervene(m, r, iv, 0, fx);
    REQUIRE(fx.made);
    CHECK(fx.of == iv);
    CHECK(fx.keyless_rows == 1);
    experiment e = llama_experiment(m.model.config);
    e.ablate = iv.ablate, e.edges = iv.edges;
    const trace t = llama_forward(m.model, r.ids, e);
    const head_trace& want = t.layers[0].heads[3];
    const head_trace& got = fx.tr.layers[0].heads[3];
    CHECK(got.weights.data == want.weights.data);  // bit for bit the pass's
    CHECK(got.weights(n - 1, 0) == 0.0f);
    CHECK(got.masked(n - 1, 0) == -INFINITY);  // drawn as masked
    CHECK(got.weights(1, 0) == 0.0f);
    CHECK(got.weights(1, 1) == 0.0f);  // no key left: the head writes nothing for query 1
    double row = 0;
    for (int k = 0; k < n; ++k)
        row += got.weights(n - 1, k);
    CHECK(row == doctest::Approx(1.0).epsilon(1e-5));  // the keys left share the whole weight
    CHECK(fx.next[0].logit == t.logits(n - 1, fx.next[0].id));
    CHECK(fx.kl > 0.0f);
}

TEST_CASE("real model: L13's findings pass two bars (the threshold and twice uniform attention); induction needs a repeat") {
    auto [f, m, r] = opened("Once upon a time Once upon a time");
    const int n = int(r.ids.size());
    double u = 0;
    for (int i = 1; i < n; ++i)
        u += 1.0 / (i + 1);
    // The scores by hand: head 0 a sink, head 1 a previous-token head, head 5 an
    // induction head; head 2 just under each bar; the rest flat.
    for (real_head_summary& h : r.heads)
        h.sink = h.prev = 0.1f, h.induction = 0.05f;
    r.heads[0].sink = 0.9f;
    r.heads[3].sink = 0.6f;
    r.heads[1].prev = 0.7f;
    r.heads[5].induction = 0.45f;
    r.heads[2].sink = 0.49f, r.heads[2].prev = 0.39f, r.heads[2].induction = 0.29f;
    real_model_findings k = real_model_find(m, r);
    CHECK(k.heads == 8);
    CHECK(k.uniform == doctest::Approx(u / (n - 1)));
    CHECK(k.uniform < 0.25f);  // so the fixed thresholds are the bars here
    CHECK(k.uniform_induction > 0.0f);
    CHECK(k.uniform_induction < k.uniform);  // the induction rows come late in the text
    CHECK(k.sink_bar == 0.5f);
    CHECK(k.previous_bar == 0.4f);
    CHECK(k.induction_bar == doctest::Approx(std::max(0.3f, 2.0f * k.uniform_induction)));
    CHECK(k.sink == std::vector<int>{0, 3});  // strongest first
    CHECK(k.previous == std::vector<int>{1});
    CHECK(k.repeats);
    CHECK(k.induction == std::vector<int>{5});
    CHECK(k.group == 2);
    // A short text: uniform attention gives the first token a lot, and the bar rises with it.
    real_model_reading shortr = r;
    shortr.ids.resize(2);  // one query over two keys: uniform gives 0.5 each
    for (real_head_summary& h : shortr.heads)
        h.sink = 0.9f, h.prev = 0.9f;
    shortr.heads[4].sink = 1.0f;
    k = real_model_find(m, shortr);
    CHECK(k.uniform == doctest::Approx(0.5));
    CHECK(k.sink == std::vector<int>{4});  // only ≥ 2 × 0.5
    CHECK_FALSE(k.repeats);
    CHECK(k.induction.empty());
    // A token repeated right after itself has no induction row (head_scores::add's rule): nothing measured.
    real_model_reading adjacent = r;
    adjacent.ids = {1, 300, 300};
    CHECK_FALSE(real_model_find(m, adjacent).repeats);
    adjacent.ids = {1, 300, 301, 300};
    CHECK(real_model_find(m, adjacent).repeats);
}

TEST_CASE("real model: a head's scores by kind are its summary's, in the order the views show them") {
    real_head_summary h;
    h.prev = 0.25f, h.sink = 0.5f, h.induction = -1.0f;
    CHECK(real_head_score(h, head_score::previous) == 0.25f);
    CHECK(real_head_score(h, head_score::sink) == 0.5f);
    CHECK(real_head_score(h, head_score::induction) == -1.0f);  // no token repeats
    CHECK(real_head_score(h, head_score::offset) == -1.0f);     // a real model's heads have none
    std::vector<std::string> keys;
    for (const head_score k : real_head_scores)
        keys.push_back(head_score_of(k).key);
    CHECK(keys == std::vector<std::string>{"prev", "sink", "induction"});  // the page's JSON, as before
}

TEST_CASE("real model: generation a token a call gives llama_generate's tokens; it stops at the count or the context") {
    auto [f, m, r] = opened("Once upon a");
    for (const float temperature : {0.0f, 1.0f, 2.5f}) {
        const llama_sampling s{temperature, 0.9f, 77};
        real_model_generation g;
        real_model_generate_start(m, r.ids, s, 12, g);
        int calls = 0;
        while (real_model_generate_step(m, g))
            ++calls;
        CHECK(g.ids == llama_generate(m.model, r.ids, 12, s));
        CHECK(calls >= int(r.ids.size()) - 1);
        CHECK(g.done);
        if (g.stopped.empty())
            CHECK(int(g.ids.size()) - g.prompt == 12);
    }
    // Each sampled step's attention, kept as its token arrives: the traced pass's rows over the same tokens.
    real_model_generation g;
    real_model_generate_start(m, r.ids, {1.0f, 0.9f, 5}, 8, g);
    CHECK(real_generation_attention(m, g, 0, 0).rows == 0);
    while (real_model_generate_step(m, g)) {
    }
    // The last prompt token's step, then each fed one's; the last token chosen is not fed (BOS is not kept).
    const bool bos = g.stopped == "bos";
    REQUIRE(g.query_pos.size() == g.ids.size() - std::size_t(g.prompt) + (bos ? 1 : 0));
    CHECK(g.query_pos.front() == g.prompt - 1);
    const std::vector<int> fed(g.ids.begin(), g.ids.end() - (bos ? 0 : 1));
    const trace t = llama_forward(m.model, fed, llama_experiment(m.model.config), {}, &m.tok);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const matrix a = real_generation_attention(m, g, l, h);
            REQUIRE(a.rows == int(g.query_pos.size()));
            REQUIRE(a.cols == g.query_pos.back() + 1);
            const matrix& w = t.layers[std::size_t(l)].heads[std::size_t(h)].weights;
            for (int s = 0; s < a.rows; ++s)
                for (int j = 0; j < a.cols; ++j)
                    CHECK(a(s, j) == doctest::Approx(w(g.query_pos[std::size_t(s)], j)).epsilon(1e-5));
        }
    CHECK(real_generation_attention(m, g, 2, 0).rows == 0);  // no layer 2
    // L5's arithmetic on this shape (2 layers, 2 K/V heads of 8 dims, context 48), and the last step's read.
    const real_cache_measure cache = real_model_cache(m, g);
    CHECK(cache.per_token == 2u * 2 * 2 * 8 * 4);
    CHECK(cache.per_token_mha == 2u * 2 * 4 * 8 * 4);
    CHECK(cache.context == cache.per_token * 48);
    CHECK(cache.context_mha == cache.per_token_mha * 48);
    CHECK(cache.last_step_tokens == g.query_pos.back() + 1);
    CHECK(cache.last_step_read == cache.per_token * std::size_t(cache.last_step_tokens));
    CHECK(real_model_cache(m, real_model_generation{}).last_step_read == 0);

    real_model_generation all;
    real_model_generate_start(m, r.ids, {1.5f, 0.0f, 3}, 1000, all);
    while (real_model_generate_step(m, all)) {
    }
    CHECK(all.ids.size() <= 48);
    CHECK((all.stopped == "context" || all.stopped == "bos"));
    CHECK(all.ids == llama_generate(m.model, r.ids, 1000, {1.5f, 0.0f, 3}));
}

TEST_CASE("real model: one file, or none, asks for both") {
    const files f = make_files();
    real_model m;
    CHECK(*real_model_open(f.a(), {nullptr, 0, "", ""}, m) ==
          "only model.bin: choose two files at once: the checkpoint (.bin) and its tokenizer (tokenizer.bin)");
    CHECK(real_model_open({nullptr, 0, "", ""}, {nullptr, 0, "", ""}, m)->find("choose two files at once") == 0);
    CHECK(m.model.weights.empty());
}

// A link's model_url= download is read no further than its header says the file
// is (and the tokenizer no further than its vocabulary allows): the page asks
// real_model_download_limits after the first 256 bytes.
TEST_CASE("real model: a download's limits come from the checkpoint's first bytes; bytes that are no header are refused") {
    const llama_config c = test::llama_test_config(32, 64, 2, 4, 2, 300, 48, true);
    const test::llama_bytes ckpt = test::llama_test_checkpoint(c, 1);
    const real_model_limits l = real_model_download_limits(ckpt.data(), 256, "m.bin");
    CHECK(l.error.empty());
    CHECK(l.checkpoint == std::int64_t(ckpt.size()));
    CHECK(l.tokenizer == 4 + 300 * (8 + 1024));
    const test::llama_bytes tok = test::llama_test_tokenizer(pieces, 1024);
    CHECK(std::int64_t(tok.size()) <= real_model_download_limits(ckpt.data(), 256, "m.bin").tokenizer);
    // A version-0 header is 28 bytes: they are enough.
    const std::int32_t v0[] = {32, 64, 2, 4, 2, -300, 48};
    const real_model_limits l0 = real_model_download_limits(reinterpret_cast<const unsigned char*>(v0), sizeof v0, "legacy.bin");
    CHECK(l0.error.empty());
    CHECK(l0.checkpoint > 28);
    // Zeros (a host answering anything): no checkpoint, said with the file's name, no limit to grow to.
    const std::vector<unsigned char> zeros(256, 0);
    const real_model_limits z = real_model_download_limits(zeros.data(), zeros.size(), "zeros.bin");
    CHECK(z.error.rfind("zeros.bin: ", 0) == 0);
    CHECK(z.checkpoint == 0);
    CHECK(real_model_download_limits(ckpt.data(), 100, "m.bin").error ==
          "m.bin: the file is 100 bytes: too short for its 256-byte header");
}
