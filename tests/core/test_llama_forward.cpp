// The llama block's pass (llama/forward.hpp) and generation (llama/generate.hpp)
// on checkpoints with random weights written here: the KV-cache step gives the
// traced pass's logits and attention row by row, a prefix's rows do not see
// what follows, every kernel set agrees, and sampling is llama2.c's (argmax at
// temperature 0, the same seed the same tokens, the nucleus respected); the
// logit lens and the direct logit attribution (llama/lens.hpp) by hand. The
// numbers themselves are checked against PyTorch by tests/llama_torch_test.py.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compare.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama/lens.hpp"
#include "llama_test_files.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::mismatches;
using attn::test::relative;

namespace {

// A version-1 checkpoint with random weights (llama_test_files.hpp), read back.
llama_model random_model(int dim, int hidden, int layers, int heads, int kv, int vocab, int seq, bool shared,
                         std::uint64_t seed) {
    const test::llama_bytes b =
        test::llama_test_checkpoint(test::llama_test_config(dim, hidden, layers, heads, kv, vocab, seq, shared), seed);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    return m;
}

std::vector<int> some_ids(int n, int vocab, std::uint64_t seed) {
    rng g(seed);
    std::vector<int> ids{llama_bos};
    while (int(ids.size()) < n)
        ids.push_back(int(g.next_u64() % std::uint64_t(vocab)));
    return ids;
}

}  // namespace

TEST_CASE("llama forward: a step through the KV cache gives the traced pass's logits and weights, row by row (MHA, GQA, MQA)") {
    struct shape {
        int dim, hidden, layers, heads, kv;
        bool shared;
    };
    for (const shape s : {shape{32, 80, 2, 4, 4, true}, shape{48, 97, 3, 6, 2, false}, shape{24, 61, 1, 2, 1, true}}) {
        INFO("dim " << s.dim << ", heads " << s.heads << "/" << s.kv);
        const llama_model m = random_model(s.dim, s.hidden, s.layers, s.heads, s.kv, 50, 24, s.shared, 7);
        const std::vector<int> ids = some_ids(17, 50, 3);
        REQUIRE_FALSE(llama_tokens_problem(m.config, ids));
        const trace t = llama_forward(m, ids, llama_experiment(m.config));
        REQUIRE(t.logits.rows == 17);
        REQUIRE(t.logits.cols == 50);
        CHECK(t.nan_count == 0);
        CHECK(t.inf_count == 0);
        llama_decoder d(m, m.config.seq_len);
        for (int p = 0; p < int(ids.size()); ++p) {
            const float* z = d.step(ids[std::size_t(p)]);
            const std::vector<float> step(z, z + 50), row(t.logits.row(p), t.logits.row(p) + 50);
            CHECK(mismatches(step, row, relative(2e-5), "logits of row " + std::to_string(p), {"cache", "trace"}) == 0);
            for (int l = 0; l < s.layers; ++l)
                for (int h = 0; h < s.heads; ++h) {
                    const float* a = d.attention.data() + (std::size_t(l) * std::size_t(s.heads) + std::size_t(h)) * 24;
                    const head_trace& ht = t.layers[std::size_t(l)].heads[std::size_t(h)];
                    const std::vector<float> got(a, a + p + 1), want(ht.weights.row(p), ht.weights.row(p) + p + 1);
                    CHECK(mismatches(got, want, relative(2e-5), "weights", {"cache", "trace"}) == 0);
                    CHECK(ht.kv_group == h / (s.heads / s.kv));
                }
        }
        CHECK(d.cache_bytes_read(16) == std::size_t(s.layers) * 2 * 17 * std::size_t(s.kv * (s.dim / s.heads)) * 4);
        CHECK(llama_cache_bytes_per_token(m.config) * 17 == d.cache_bytes_read(16));
    }
}

TEST_CASE("llama forward: a prefix's rows are the whole pass's (causal), on every kernel set, and the llama stages are kept") {
    const llama_model m = random_model(32, 72, 2, 4, 2, 40, 32, false, 11);
    const std::vector<int> ids = some_ids(20, 40, 5);
    const trace whole = llama_forward(m, ids, llama_experiment(m.config));
    const trace prefix = llama_forward(m, std::vector<int>(ids.begin(), ids.begin() + 9), llama_experiment(m.config));
    for (int r = 0; r < 9; ++r) {
        const std::vector<float> a(prefix.logits.row(r), prefix.logits.row(r) + 40),
            b(whole.logits.row(r), whole.logits.row(r) + 40);
        CHECK(mismatches(a, b, relative(1e-5), "row " + std::to_string(r), {"prefix", "whole"}) == 0);
    }
    const layer_trace& lt = whole.layers[1];
    CHECK(lt.ffn_gate.rows == 20);
    CHECK(lt.ffn_gate.cols == 72);
    CHECK(lt.ffn_up.cols == 72);
    CHECK(lt.ffn_hidden.cols == 72);
    CHECK(lt.k.cols == 16);  // 2 K/V heads of 8
    CHECK(whole.final_normed.cols == 32);
    CHECK(whole.tokens[0] == "#1");
    llama_tokenizer tok;  // run.c's special pieces hold newlines: labels trim them
    for (int v = 0; v < 40; ++v)
        tok.pieces.push_back(v == 1 ? "\n<s>\n" : v == 7 ? " a\nb" : "p" + std::to_string(v));
    const trace labelled = llama_forward(m, {1, 7, 3}, llama_experiment(m.config), trace_options::lean(), &tok);
    CHECK(labelled.tokens == std::vector<std::string>{"<s>", " a\nb", "p3"});
    test::each_kernel_set([&] {
        const trace t = llama_forward(m, ids, llama_experiment(m.config));
        CHECK(mismatches(t.logits.data, whole.logits.data, relative(1e-5), "logits", {"this set", "the first"}) == 0);
    });
}

TEST_CASE("llama forward: an ablated head outputs zeros and changes the logits; the problems of ids are named") {
    const llama_model m = random_model(32, 64, 2, 4, 4, 30, 16, true, 13);
    const std::vector<int> ids = some_ids(10, 30, 9);
    experiment e = llama_experiment(m.config);
    const trace plain = llama_forward(m, ids, e);
    e.ablate.push_back({0, 2});
    const trace ablated = llama_forward(m, ids, e);
    CHECK(ablated.layers[0].heads[2].ablated);
    for (const float v : ablated.layers[0].heads[2].out.data)
        CHECK(v == 0.0f);
    CHECK(test::max_abs_diff(plain.logits, ablated.logits) > 1e-4);
    CHECK(*llama_tokens_problem(m.config, {}) == "there are no tokens to run");
    CHECK(llama_tokens_problem(m.config, some_ids(17, 30, 1))->find("context of 16") != std::string::npos);
    CHECK(llama_tokens_problem(m.config, {1, 30})->find("token 1 is id 30, outside the vocabulary of 30") != std::string::npos);
    CHECK(llama_tokens_problem(m.config, {1, -1}));
}

TEST_CASE("llama sampling: argmax at temperature 0, the same seed the same tokens, the softmax's frequencies, the nucleus") {
    const float logits[] = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f};
    rng g(1);
    CHECK(llama_sample(logits, 5, {0.0f, 0.9f, 1}, g) == 1);  // the first of equal maxima
    std::vector<int> counts(5, 0);
    const int draws = 20000;
    for (int i = 0; i < draws; ++i)
        ++counts[std::size_t(llama_sample(logits, 5, {1.0f, 0.0f, 1}, g))];
    double sum = 0;
    for (const float z : logits)
        sum += std::exp(double(z));
    for (int i = 0; i < 5; ++i)
        CHECK(double(counts[std::size_t(i)]) / draws == doctest::Approx(std::exp(double(logits[i])) / sum).epsilon(0.05));
    // top_p 0.5: the nucleus is the two tokens of logit 3 (0.34 each), ties by id; nothing else is drawn.
    std::vector<int> nucleus(5, 0);
    for (int i = 0; i < 2000; ++i)
        ++nucleus[std::size_t(llama_sample(logits, 5, {1.0f, 0.5f, 1}, g))];
    CHECK(nucleus[0] + nucleus[2] + nucleus[4] == 0);
    CHECK(nucleus[1] > 800);
    CHECK(nucleus[3] > 800);
    // A top_p below every candidate's share takes the largest.
    const float flat[] = {0.0f, 0.1f};
    CHECK(llama_sample(flat, 2, {1.0f, 0.001f, 1}, g) == 1);

    const llama_model m = random_model(24, 48, 2, 2, 1, 40, 20, true, 17);
    const std::vector<int> prompt = some_ids(4, 40, 2);
    const llama_sampling s{0.9f, 0.9f, 42};
    const std::vector<int> a = llama_generate(m, prompt, 30, s), b = llama_generate(m, prompt, 30, s);
    CHECK(a == b);
    CHECK(a.size() <= 20);  // the context ends it (or BOS)
    CHECK(std::vector<int>(a.begin(), a.begin() + 4) == prompt);
    const std::vector<int> greedy = llama_generate(m, prompt, 5, {0.0f, 0.9f, 1});
    llama_decoder d(m, m.config.seq_len);
    const float* z = nullptr;
    for (const int t : prompt)
        z = d.step(t);
    int best = 0;
    for (int i = 1; i < 40; ++i)
        best = z[i] > z[best] ? i : best;
    if (best != llama_bos)
        CHECK(greedy[4] == best);
}

TEST_CASE("llama lens: the last layer's row is the model's prediction; each row is its own residual through the final norm") {
    const llama_model m = random_model(32, 64, 3, 4, 2, 40, 16, false, 21);
    const std::vector<int> ids = some_ids(12, 40, 4);
    const trace t = llama_forward(m, ids, llama_experiment(m.config), trace_options::lean());
    for (const int pos : {0, 5, 11}) {
        const float* z = t.logits.row(pos);
        const int top = int(std::max_element(z, z + 40) - z);
        const int target = (top + 7) % 40;
        const std::vector<llama_lens_row> lens = llama_logit_lens(m, t, pos, target);
        REQUIRE(lens.size() == 4);
        CHECK(lens.front().layer == -1);
        CHECK(lens.back().layer == 2);
        CHECK(lens.back().top == top);
        int rank = 0;
        for (int v = 0; v < 40; ++v)
            rank += z[v] > z[target];
        CHECK(lens.back().target_rank == rank);
        // Each row by hand: rms of that residual (not the final one's), the gain, the classifier, softmax.
        for (const llama_lens_row& r : lens) {
            const matrix& x = r.layer < 0 ? t.x0 : t.layers[std::size_t(r.layer)].output;
            double ms = 0;
            for (int i = 0; i < 32; ++i)
                ms += double(x(pos, i)) * x(pos, i);
            const double inv = 1.0 / std::sqrt(ms / 32 + 1e-5);
            std::vector<double> logit(40);
            for (int v = 0; v < 40; ++v)
                for (int i = 0; i < 32; ++i)
                    logit[std::size_t(v)] +=
                        double(x(pos, i)) * inv * m.at(m.rms_final)[i] * m.at(m.classifier)[std::size_t(v) * 32 + std::size_t(i)];
            const auto best = std::max_element(logit.begin(), logit.end());
            double sum = 0;
            for (const double l : logit)
                sum += std::exp(l - *best);
            CHECK(r.top == int(best - logit.begin()));
            CHECK(r.top_probability == doctest::Approx(1.0 / sum).epsilon(1e-4));
            CHECK(r.target_probability == doctest::Approx(std::exp(logit[std::size_t(target)] - *best) / sum).epsilon(1e-4));
        }
    }
}

TEST_CASE("llama direct logit attribution: the parts sum to the logit; a zeroed head's part is 0; the scale is this pass's") {
    const llama_model m = random_model(32, 64, 2, 4, 4, 30, 16, true, 17);
    const std::vector<int> ids = some_ids(9, 30, 3);
    experiment e = llama_experiment(m.config);
    e.ablate.push_back({1, 3});
    const trace t = llama_forward(m, ids, e, trace_options::lean());
    for (const int pos : {0, 8})
        for (const int target : {0, 11, 29}) {
            const llama_attribution a = llama_direct_logit_attribution(m, t, pos, target);
            CHECK(a.logit == t.logits(pos, target));
            REQUIRE(a.heads.size() == 8);
            REQUIRE(a.ffn.size() == 2);
            CHECK(a.heads[1 * 4 + 3] == 0.0f);
            double scale = std::abs(a.embedding);
            for (const float v : a.heads)
                scale = std::max(scale, double(std::abs(v)));
            CHECK(std::abs(a.sum() - double(a.logit)) <= 1e-5 * std::max(1.0, scale));
            // The scale divides the final residual's row: with it, the final norm's output is the trace's.
            CHECK(t.output(pos, 5) * a.inv_rms * m.at(m.rms_final)[5] == doctest::Approx(t.final_normed(pos, 5)).epsilon(1e-5));
        }
}
