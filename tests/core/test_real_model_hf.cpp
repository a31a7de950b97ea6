// The page's real model from a Hugging Face folder (play/real_model.hpp's
// real_model_open_files): GPT-2 and Qwen2 folders written by the test, in F32
// and F16, borrowed and handed over — what is open, the reading with its heads,
// lens and attribution, the pipeline's layer, changes, generation with a seed,
// and the refusals (a file missing, the page's memory counted from real bytes).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "hf_test_folder.hpp"
#include "llama/hf_config.hpp"
#include "llama/hf_model.hpp"
#include "llama/tokenizer.hpp"
#include "llama_test_files.hpp"
#include "play/real_model.hpp"
#include "play/real_session.hpp"

using namespace attn;

namespace {

struct folder_case {
    const char* format;
    bool gpt2;
    weight_type type;
};
constexpr folder_case cases[] = {{"GPT-2", true, weight_type::f32},
                                 {"GPT-2", true, weight_type::f16},
                                 {"Qwen2", false, weight_type::f32},
                                 {"Qwen2", false, weight_type::f16}};

test::hf_test_folder folder_of(const folder_case& c, std::uint64_t seed = 7) {
    return c.gpt2 ? test::hf_test_gpt2(c.type, seed) : test::hf_test_qwen2(c.type, seed);
}

const std::string text = " the the ab the ab";

}  // namespace

TEST_CASE("real model from a folder: GPT-2 and Qwen2, F32 and F16, borrowed and handed over, say what is open") {
    for (const folder_case& c : cases) {
        CAPTURE(c.format);
        CAPTURE(weight_type_name(c.type));
        const test::hf_test_folder f = folder_of(c);
        real_model borrowed, handed;
        const auto a = real_model_open_files(f.files(), borrowed);
        REQUIRE_MESSAGE(!a, a.value_or(""));
        const auto b = real_model_open_files(f.files_handed_over(), handed);
        REQUIRE_MESSAGE(!b, b.value_or(""));
        for (const real_model* m : {&borrowed, &handed}) {
            CHECK(m->format == c.format);
            CHECK(m->dtype == c.type);
            CHECK(m->file_bytes == f.weights.size());
            CHECK(m->tokenizer_name == "tokenizer.json");
            CHECK(m->model.config.arch == (c.gpt2 ? llama_arch::gpt2 : llama_arch::llama));
            CHECK(llama_stop_token(m->tok) == test::hf_test_vocab - 1);  // <|endoftext|>, the config's eos
        }
        CHECK(borrowed.name == (c.gpt2 ? "GPT2LMHeadModel" : "Qwen2ForCausalLM"));  // no folder in the names
        // Handed over: the file's bytes are the weights (no copy); 16-bit weights stay 16-bit.
        CHECK(handed.model.weights.size == f.weights.size());
        CHECK(handed.model.layers[0].wq.type == c.type);
        // Both read the same text to the same logits, bit for bit.
        real_model_reading ra, rb;
        real_model_read(borrowed, text, ra);
        real_model_read(handed, text, rb);
        REQUIRE_FALSE(ra.ids.empty());
        CHECK(ra.ids == rb.ids);
        CHECK(ra.tr.logits.data == rb.tr.logits.data);
    }
}

TEST_CASE("real model from a folder: a name's folder names the model; llama2.c's pair still opens through the same door") {
    test::hf_test_folder f = test::hf_test_gpt2(weight_type::f32, 3);
    std::vector<real_model_file> files = f.files();
    for (real_model_file& x : files)
        x.name = "tiny-gpt2/" + x.name;
    files.push_back({nullptr, 0, "tiny-gpt2/README.md"});  // other files ignored
    real_model m;
    const auto why = real_model_open_files(files, m);
    REQUIRE_MESSAGE(!why, why.value_or(""));
    CHECK(m.name == "tiny-gpt2");
    // llama2.c's checkpoint and tokenizer, in either order.
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 262, 48, true), 3);
    real_model l;
    REQUIRE_FALSE(real_model_open_files({{tok.data(), tok.size(), "t.bin"}, {ckpt.data(), ckpt.size(), "x.bin"}}, l));
    CHECK(l.name == "x.bin");
    CHECK(l.format == "llama2.c");
    CHECK(l.dtype == weight_type::f32);
    CHECK(real_model_open_files({{ckpt.data(), ckpt.size(), "x.bin"}}, l)->find("only x.bin") == 0);
    CHECK(real_model_open_files({}, l)->find("choose two files") == 0);
}

TEST_CASE("real model from a folder: the reading's heads, lens and attribution; the attribution sums to the logit") {
    for (const folder_case& c : cases) {
        CAPTURE(c.format);
        CAPTURE(weight_type_name(c.type));
        const test::hf_test_folder f = folder_of(c);
        real_model m;
        REQUIRE_FALSE(real_model_open_files(f.files_handed_over(), m));
        real_model_reading r;
        real_model_read(m, text, r);
        const llama_config& cf = m.model.config;
        REQUIRE(r.ids.size() >= 5);
        CHECK(r.ids.front() != m.tok.bos);  // neither adds a BOS
        CHECK(r.decoded == text);
        REQUIRE(r.heads.size() == std::size_t(cf.n_layers * cf.n_heads));
        for (const real_head_summary& h : r.heads) {
            CHECK(h.prev >= 0);
            CHECK(h.prev <= 1.0001f);
            CHECK(h.sink >= 0);
            CHECK(h.sink <= 1.0001f);
            CHECK(std::isfinite(h.entropy));
        }
        REQUIRE(r.next.size() == 5);
        REQUIRE(r.lens.size() == std::size_t(cf.n_layers + 1));
        CHECK(r.lens.back().top == r.next[0].id);  // the last layer's lens is the model's own prediction
        const llama_attribution& at = r.attribution;
        CHECK(at.target == r.next[0].id);
        CHECK(at.logit == doctest::Approx(r.next[0].logit));
        CHECK(at.sum() == doctest::Approx(double(at.logit)).epsilon(1e-4));
        CHECK(at.heads.size() == std::size_t(cf.n_layers * cf.n_heads));
        CHECK(at.ffn.size() == std::size_t(cf.n_layers));
        if (c.gpt2)
            CHECK(at.bias != 0.0f);  // W_O's and ln_f's biases: a part of their own
        else
            CHECK(at.bias == 0.0f);
        // The findings and the selected head's stages run on it.
        const real_model_findings k = real_model_find(m, r);
        CHECK(k.heads == cf.n_layers * cf.n_heads);
        const head_trace ht = real_head_stages(m, r, 1, 1);
        CHECK(ht.weights.data == r.tr.layers[1].heads[1].weights.data);
    }
}

TEST_CASE("real model from a folder: the pipeline's layer (no W_3 for GPT-2), a zeroed head's effect, masked edges") {
    for (const folder_case& c : cases) {
        CAPTURE(c.format);
        CAPTURE(weight_type_name(c.type));
        const test::hf_test_folder f = folder_of(c);
        real_model m;
        REQUIRE_FALSE(real_model_open_files(f.files(), m));
        real_model_reading r;
        real_model_read(m, text, r);
        const llama_config& cf = m.model.config;
        real_model_open_layer(m, r, 1);
        REQUIRE(r.whole_layer == 1);
        const layer_weights& w = r.tr.params.layers[1];
        CHECK(w.w_q.rows == cf.dim);
        CHECK(w.w_q.cols == cf.dim);
        CHECK(w.w_k.cols == cf.kv_dim());
        CHECK(w.w_1.rows == cf.dim);
        CHECK(w.w_1.cols == cf.hidden_dim);
        CHECK(w.w_2.rows == cf.hidden_dim);
        CHECK(w.w_3.size() == (c.gpt2 ? 0u : std::size_t(cf.dim) * std::size_t(cf.hidden_dim)));
        CHECK(r.tr.layers[1].heads[0].scores.size() > 0);
        // W_q as the pipeline reads it is the model's, widened: one weight checked where it lies.
        std::vector<float> wq = llama_floats(m.model, m.model.layers[1].wq);
        CHECK(w.w_q(2, 5) == wq[std::size_t(5) * std::size_t(cf.dim) + 2]);
        real_interventions iv = real_toggle_head({}, {0, 1});
        iv = real_toggle_edge(iv, {1, 0, 3, 1});
        REQUIRE(real_interventions_problems(m, r, iv).empty());
        real_effect e;
        real_model_intervene(m, r, iv, 1, e);
        REQUIRE(e.made);
        CHECK(e.next.size() == 5);
        CHECK(e.kl > 0);
        CHECK(e.tr.params.layers[1].w_2.size() > 0);
    }
}

TEST_CASE("real model from a folder: generation with a seed gives the same tokens twice, stopping at <|endoftext|>") {
    for (const folder_case& c : cases) {
        CAPTURE(c.format);
        CAPTURE(weight_type_name(c.type));
        const test::hf_test_folder f = folder_of(c);
        real_model m;
        REQUIRE_FALSE(real_model_open_files(f.files_handed_over(), m));
        real_model_reading r;
        real_model_read(m, text, r);
        std::vector<int> first;
        for (int run = 0; run < 2; ++run) {
            real_model_generation g;
            real_model_generate_start(m, r.ids, {0.9f, 0.9f, 42}, 12, g);
            while (real_model_generate_step(m, g)) {
            }
            REQUIRE(g.done);
            CHECK(int(g.ids.size()) > g.prompt);
            for (std::size_t i = std::size_t(g.prompt); i < g.ids.size(); ++i)
                CHECK(g.ids[i] != llama_stop_token(m.tok));  // the stop token ends it, never shown
            CHECK((g.stopped == "bos" || int(g.ids.size()) - g.prompt == 12));
            if (run == 0)
                first = g.ids;
            else
                CHECK(g.ids == first);
        }
        // Greedy steps through the cache agree with the traced pass's prediction.
        real_model_generation g;
        real_model_generate_start(m, r.ids, {0.0f, 0.9f, 1}, 1, g);
        while (real_model_generate_step(m, g)) {
        }
        if (g.stopped.empty())
            CHECK(g.ids.back() == r.next[0].id);
    }
    // An empty text: GPT-2 begins at its <|endoftext|>, as it was trained.
    const test::hf_test_folder f = test::hf_test_gpt2(weight_type::f32, 7);
    real_model m;
    REQUIRE_FALSE(real_model_open_files(f.files(), m));
    real_model_reading r;
    real_model_read(m, "", r);
    CHECK(r.ids == std::vector<int>{test::hf_test_vocab - 1});
    CHECK(r.next.size() == 5);
}

TEST_CASE("real model from a folder: a missing file or shard is named; the session keeps the model it had") {
    const test::hf_test_folder f = test::hf_test_gpt2(weight_type::f16, 7);
    real_session s;
    REQUIRE_FALSE(real_session_open_files(s, f.files(), text, 1));
    REQUIRE(s.model);
    const std::uint64_t version = s.version;
    std::vector<real_model_file> no_tokenizer = f.files();
    no_tokenizer.erase(no_tokenizer.begin() + 1);
    CHECK(real_session_open_files(s, no_tokenizer, text, 1) == "the folder has no tokenizer.json");
    CHECK(s.error == "the folder has no tokenizer.json");
    CHECK(s.model->format == "GPT-2");
    CHECK(s.version == version);
    const std::string index = R"({"metadata":{},"weight_map":{"wte.weight":"model-00001-of-00002.safetensors",)"
                              R"("ln_f.weight":"model-00002-of-00002.safetensors"}})";
    std::vector<real_model_file> sharded = f.files();
    sharded[2].name = "model-00001-of-00002.safetensors";
    sharded.push_back({reinterpret_cast<const unsigned char*>(index.data()), index.size(), "model.safetensors.index.json"});
    CHECK(real_session_open_files(s, sharded, text, 1) ==
          "the folder has no model-00002-of-00002.safetensors, which model.safetensors.index.json names");
    CHECK(s.model->format == "GPT-2");
    // A tokenizer.json that cannot be read is named, and handed-over weights are left as they were (read after it).
    std::vector<real_model_file> bad = f.files_handed_over();
    const std::string broken = "{}";
    bad[1] = {reinterpret_cast<const unsigned char*>(broken.data()), broken.size(), "tokenizer.json"};
    const std::vector<unsigned char> before(bad[2].bytes, bad[2].bytes + bad[2].size);
    CHECK(real_session_open_files(s, bad, text, 1).value_or("").rfind("tokenizer.json: ", 0) == 0);
    CHECK(std::memcmp(before.data(), bad[2].bytes, before.size()) == 0);
    CHECK(s.model->format == "GPT-2");
}

TEST_CASE("real model from a folder: the page's memory is counted from the files' real bytes, before any weight is read") {
    // GPT-2's shape (124M): its weights are what its safetensors files hold, half in F16 of what F32 takes.
    const std::string config = R"({"architectures":["GPT2LMHeadModel"],"model_type":"gpt2","n_embd":768,"n_layer":12,)"
                               R"("n_head":12,"n_positions":1024,"vocab_size":50257,"n_inner":null,)"
                               R"("activation_function":"gelu_new","layer_norm_epsilon":1e-5})";
    hf_config hc;
    REQUIRE_FALSE(hf_config_read(config, hc));
    const llama_config lc = hf_llama_config(hc);
    const std::size_t rest = real_model_peak_bytes(lc, 0, threads_available()).total();
    INFO(rest);
    REQUIRE(rest < page_memory_budget);
    const std::size_t room = page_memory_budget - rest;  // the most the weights' files may hold
    // The files are never read past their headers when refused: a few bytes stand for them, their sizes claimed.
    const std::vector<unsigned char> stand_in(64, 0);
    const std::string tokenizer = test::hf_test_tokenizer_json();
    const auto files = [&](std::size_t weights) {
        return std::vector<real_model_file>{
            {reinterpret_cast<const unsigned char*>(config.data()), config.size(), "gpt2/config.json"},
            {reinterpret_cast<const unsigned char*>(tokenizer.data()), tokenizer.size(), "gpt2/tokenizer.json"},
            {stand_in.data(), weights, "gpt2/model.safetensors"}};
    };
    real_model m;
    const auto refused = real_model_open_files(files(room + 1), m);
    REQUIRE(refused);
    CHECK(refused->find("gpt2: reading ") == 0);
    CHECK(refused->find(" needs ") != std::string::npos);
    CHECK(m.model.weights.empty());
    // One byte less fits: the memory is not what refuses it (the stand-in is no safetensors file).
    const auto fits = real_model_open_files(files(room), m);
    REQUIRE(fits);
    CHECK(fits->find(" needs ") == std::string::npos);
    CHECK(fits->rfind("model.safetensors: ", 0) == 0);
    // A real F16 folder's bytes are half its F32 twin's (less the headers), and that is what is counted.
    real_model a, b;
    REQUIRE_FALSE(real_model_open_files(test::hf_test_gpt2(weight_type::f32, 1).files(), a));
    REQUIRE_FALSE(real_model_open_files(test::hf_test_gpt2(weight_type::f16, 1).files(), b));
    CHECK(b.file_bytes < a.file_bytes * 6 / 10);
    CHECK(b.model.weights.size < a.model.weights.size * 6 / 10);
}
