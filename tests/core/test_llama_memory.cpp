// A real model's memory, counted before anything is allocated (issue 49, item 12):
// llama_forward_bytes against the bytes the pass allocates, a header whose
// reading or generation the page cannot hold refused at open with the figure,
// and generation's cache sized by the prompt and the tokens asked, not by the
// context.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "base/text_util.hpp"
#include "base/threads.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama_test_files.hpp"
#include "model/trace_json.hpp"
#include "play/real_model.hpp"

using namespace attn;

namespace {

// A version-1 file of config c whose weights are all zero: the header is what
// is read before the weights are taken (quicker than random weights at 18 MB).
test::llama_bytes zero_checkpoint(const llama_config& c) {
    test::llama_bytes b(std::size_t(llama_checkpoint_bytes(c)), 0);
    const std::int32_t head[] = {0x616b3432,   1,        c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                                 c.vocab_size, c.seq_len};
    std::memcpy(b.data(), head, sizeof head);
    b[sizeof head] = 1;
    return b;
}

std::vector<int> some_ids(int n, int vocab) {
    std::vector<int> ids{llama_bos};
    for (int i = 1; i < n; ++i)
        ids.push_back(3 + (i * 37) % (vocab - 3));
    return ids;
}

}  // namespace

TEST_CASE("llama memory: llama_forward_bytes bounds the bytes the pass allocates, within 30 %") {
    const llama_config c = test::llama_test_config(64, 96, 2, 8, 2, 300, 256, true);
    const test::llama_bytes b = test::llama_test_checkpoint(c, 11);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    trace_options weights = trace_options::lean(), one_layer = trace_options::lean();
    weights.keep_weights = true;
    one_layer.keep_head_matrices = [](int l, int) { return l == 1; };
    const std::pair<std::string, trace_options> cases[] = {{"every head whole", {}},
                                                           {"lean", trace_options::lean()},
                                                           {"the weights alone", weights},
                                                           {"one layer whole", one_layer}};
    for (const int n : {5, 40, 200}) {
        const std::vector<int> ids = some_ids(n, c.vocab_size);
        for (const auto& one : cases) {
            const auto& what = one.first;  // (not a structured binding: clang 14 cannot capture one in INFO's lambda)
            const auto& opt = one.second;
            INFO(what << ", " << n << " tokens");
            alloc_counter_start();
            {
                const trace t = llama_forward(m, ids, llama_experiment(c), opt);
                CHECK(t.logits.rows == n);
            }
            const std::size_t measured = alloc_counter_stop(), counted = llama_forward_bytes(c, n, opt);
            MESSAGE(what << ", " << n << " tokens: " << measured << " bytes allocated, " << counted << " counted");
            CHECK(measured <= counted);
            // Fewer tokens: the weight's transposed copy (kept between passes, so not always allocated
            // again) and the heads' bookkeeping are most of it.
            if (n >= 200)
                CHECK(double(measured) >= 0.7 * double(counted));
        }
    }
    // Weights alone keep one (n, n) matrix of a head's four: the reading of 8 layers
    // of 256 heads over 256 tokens holds 512 MB of them where the whole trace held 2 GB.
    const llama_config wide = test::llama_test_config(512, 2, 8, 256, 1, 652, 512, true);
    CHECK(llama_forward_bytes(wide, 256, weights) < (std::size_t(640) << 20));
    CHECK(llama_forward_bytes(wide, 256) > (std::size_t(2048) << 20));
}

TEST_CASE("llama memory: a model whose reading or generation the page cannot hold is refused at open, with the figure") {
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b"});
    // The attacker's 18 MB file: 8 layers of 256 heads over a context of 512.
    const llama_config wide = test::llama_test_config(512, 2, 8, 256, 1, 262, 512, true);
    const test::llama_bytes w = zero_checkpoint(wide);
    const real_model_bytes bytes = real_model_peak_bytes(wide, w.size());
    CHECK(bytes.tokens == 256);  // real_model_max_tokens
    CHECK(bytes.steps == 256);   // view.gen_tokens' largest
    CHECK(bytes.reading > (std::size_t(900) << 20));
    CHECK(bytes.total() > page_memory_budget);
    real_model m;
    const auto why = real_model_open({w.data(), w.size(), "wide.bin", ""}, {tok.data(), tok.size(), "tok.bin", ""}, m);
    REQUIRE(why);
    MESSAGE(*why);
    CHECK(why->find("wide.bin: reading 256 tokens and generating 256 after them needs ") == 0);
    CHECK(why->find(std::to_string(real_model_peak_bytes(wide, w.size(), threads_available()).total()) + " bytes") !=
          std::string::npos);
    CHECK(why->find("the page holds at most 1610612736 bytes") != std::string::npos);
    CHECK(m.model.weights.empty());  // nothing taken
    // 128 layers and a context of 32768: it fits, as the cache is for 511 tokens; for the context it would be 2 GB.
    const llama_config deep = test::llama_test_config(64, 2, 128, 4, 4, 262, 32768, true);
    const real_model_bytes d = real_model_peak_bytes(deep, std::size_t(llama_checkpoint_bytes(deep)));
    CHECK(d.generation < (std::size_t(300) << 20));
    CHECK(llama_decoder_bytes(deep, 32768) > (std::size_t(2048) << 20));
    CHECK(d.total() <= page_memory_budget);
    CHECK_FALSE(real_model_memory_problem(deep, std::size_t(llama_checkpoint_bytes(deep))));
    // The test model opens (every other test of real_model.cpp opens it).
    const llama_config small = test::llama_test_config(32, 64, 2, 4, 2, 262, 48, true);
    CHECK_FALSE(real_model_memory_problem(small, std::size_t(llama_checkpoint_bytes(small))));
}

TEST_CASE("llama memory: generation allocates for the prompt and the tokens asked, not the context") {
    // A context of 32768 over 32 layers: a cache for the whole context is 142 MB.
    const llama_config c = test::llama_test_config(16, 2, 32, 2, 2, 300, 32768, true);
    const test::llama_bytes b = test::llama_test_checkpoint(c, 4);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    const std::vector<int> prompt = some_ids(5, c.vocab_size);
    CHECK(llama_generate_capacity(c, 5, 3) == 7);  // the last token sampled is not fed
    CHECK(llama_generate_capacity(c, 5, 0) == 5);
    CHECK(llama_generate_capacity(c, 30000, 30000) == 32768);
    alloc_counter_start();
    const std::vector<int> out = llama_generate(m, prompt, 3, {0.0f, 0.9f, 1});
    const std::size_t peak = alloc_counter_stop();
    MESSAGE("generating 3 tokens: " << peak << " bytes at the peak");
    CHECK(peak <= llama_decoder_bytes(c, 7) + 4096);  // the sampling's probabilities are vocab doubles at most
    CHECK(llama_decoder_bytes(c, 7) < (std::size_t(64) << 10));
    // The same tokens as a decoder of the whole context, stepped by hand.
    llama_decoder whole(m, c.seq_len);
    const float* z = nullptr;
    for (const int t : prompt)
        z = whole.step(t);
    std::vector<int> by_hand = prompt;
    rng g(1);
    for (int i = 0; i < 3; ++i) {
        const int next = llama_sample(z, c.vocab_size, {0.0f, 0.9f, 1}, g);
        if (next == llama_bos)
            break;
        by_hand.push_back(next);
        z = whole.step(next);
    }
    CHECK(out == by_hand);
    // The page's generation: its decoder is as large as its prompt and tokens.
    real_model rm;
    rm.model = m;
    real_model_generation gen;
    real_model_generate_start(rm, prompt, {0.0f, 0.9f, 1}, 3, gen);
    CHECK(gen.decoder->capacity == 7);
    CHECK(gen.decoder->key_cache.size() == std::size_t(32 * 7 * 16));
}

TEST_CASE("llama memory: JSON strings are valid UTF-8 whatever bytes a tokenizer's pieces hold") {
    CHECK(json_string("\xff") == "\"\\ufffd\"");
    CHECK(json_string("a\xc3") == "\"a\\ufffd\"");                                      // a truncated sequence
    CHECK(json_string("\xc0\x80") == "\"\\ufffd\\ufffd\"");                             // an overlong NUL
    CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");                  // a surrogate
    CHECK(json_string("\xf4\x90\x80\x80x") == "\"\\ufffd\\ufffd\\ufffd\\ufffdx\"");     // above U+10FFFF
    CHECK(json_string("é猫\xf4\x8f\xbf\xbf\n\"") == "\"é猫\xf4\x8f\xbf\xbf\\n\\\"\"");  // valid UTF-8 stays
    // A real model's trace whose tokens are such pieces: its JSON is UTF-8 throughout.
    const test::llama_bytes tb = test::llama_test_tokenizer({"\xc3", "\xbc", "ok"});
    const llama_config c = test::llama_test_config(32, 64, 2, 4, 2, 262, 48, true);
    const test::llama_bytes cb = test::llama_test_checkpoint(c, 2);
    real_model m;
    REQUIRE_FALSE(real_model_open({cb.data(), cb.size(), "m.bin", ""}, {tb.data(), tb.size(), "t.bin", ""}, m));
    const trace t = llama_forward(m.model, {llama_bos, 259, 260, 261}, llama_experiment(c), trace_options::lean(), &m.tok);
    std::string json;
    trace_write_json(llama_experiment(c), t, {}, [&json](std::string_view s) { json += s; });
    for (std::size_t i = 0; i < json.size();) {
        const std::size_t len = utf8_length(json, i);
        REQUIRE_MESSAGE(len > 0, "an invalid byte at " << i);
        i += len;
    }
    CHECK(json.find("\"\\ufffd\",\"\\ufffd\"") != std::string::npos);
}
