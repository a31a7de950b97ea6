// Hugging Face folders' files: safetensors headers (llama/safetensors.hpp) and
// config.json (llama/hf_config.hpp), each problem refused with its message, and
// the tensors a config wants checked against what the files hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compare.hpp"
#include "hf_check.hpp"
#include "kernels/kernels.hpp"
#include "llama/checkpoint.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama/hf_config.hpp"
#include "llama/hf_folder.hpp"
#include "llama/hf_model.hpp"
#include "llama/safetensors.hpp"
#include "llama/tokenizer.hpp"
#include "llama_test_files.hpp"
#include "test_util.hpp"

using namespace attn;

namespace {

// A safetensors file: the 8-byte length, the header (padded with spaces to a
// multiple of 8, as the format's writers do) and `data` bytes of tensors.
std::vector<unsigned char> safetensors_bytes(const std::string& header, std::size_t data, std::size_t pad = 0) {
    std::string h = header + std::string(pad, ' ');
    std::vector<unsigned char> b(8 + h.size() + data, 0);
    std::uint64_t n = h.size();
    for (int i = 0; i < 8; ++i)
        b[std::size_t(i)] = (unsigned char)(n >> (8 * i));
    std::memcpy(b.data() + 8, h.data(), h.size());
    return b;
}

std::string read_problem(const std::vector<unsigned char>& b) {
    safetensors_file f;
    const auto why = safetensors_read(b.data(), b.size(), b.size(), f);
    if (why)
        CHECK(f.tensors.empty());
    return why.value_or("");
}

}  // namespace

TEST_CASE("safetensors: a header read, its tensors found by name with their bytes in the file") {
    const std::string header =
        R"({"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[3],"data_offsets":[24,30]},)"
        R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"m":{"dtype":"U8","shape":[0],"data_offsets":[30,30]}})";
    const auto b = safetensors_bytes(header, 30, 5);
    safetensors_file f;
    REQUIRE_FALSE(safetensors_read(b.data(), b.size(), b.size(), f));
    REQUIRE(f.tensors.size() == 3);
    CHECK(f.data_begin == 8 + header.size() + 5);
    const safetensors_tensor* a = safetensors_find(f, "a");
    REQUIRE(a);
    CHECK(a->dtype == tensor_dtype::f32);
    CHECK(a->shape == std::vector<std::uint64_t>{2, 3});
    CHECK(a->elements() == 6);
    CHECK(a->begin == f.data_begin);
    CHECK(a->end == f.data_begin + 24);
    const safetensors_tensor* bt = safetensors_find(f, "b");
    REQUIRE(bt);
    CHECK(bt->dtype == tensor_dtype::bf16);
    CHECK(bt->element_bytes == 2);
    CHECK(safetensors_find(f, "m")->dtype == tensor_dtype::other);
    CHECK(safetensors_find(f, "m")->dtype_name == "U8");
    CHECK(safetensors_find(f, "c") == nullptr);
    REQUIRE(f.metadata.size() == 1);
    CHECK(f.metadata[0].second == "pt");
    // Only the header's bytes at hand (a large file read a piece at a time).
    CHECK(safetensors_header_bytes(b.data(), 8) == f.data_begin);
    safetensors_file head_only;
    CHECK_FALSE(safetensors_read(b.data(), std::size_t(f.data_begin), b.size(), head_only));
    CHECK(safetensors_read(b.data(), std::size_t(f.data_begin) - 1, b.size(), head_only)->find("only") != std::string::npos);
}

TEST_CASE("safetensors: every problem of a hostile header is refused with its message") {
    const auto t = [](const std::string& entries) { return "{" + entries + "}"; };
    const std::string a24 = R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]})";
    const std::vector<std::pair<std::vector<unsigned char>, std::string>> cases = {
        {{1, 2, 3}, "shorter than the 8 bytes"},
        {safetensors_bytes(t(a24), 10), "not inside the file"},
        {[] {
             auto b = safetensors_bytes("{}", 0);
             b[7] = 0x10;  // 2^60 bytes of header
             return b;
         }(),
         "over 100 MB"},
        {[] {
             auto b = safetensors_bytes("{}", 0);
             b[0] = 200;
             return b;
         }(),
         "more than the file's"},
        {safetensors_bytes("[1]", 0), "does not start with '{'"},
        {safetensors_bytes("{\"a\":", 0), "not JSON"},
        {safetensors_bytes(t(a24 + "," + a24), 24), "'a' is given twice"},
        {safetensors_bytes(t(R"("a":{"dtype":"Q4","shape":[2],"data_offsets":[0,2]})"), 2), "does not name"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]})"), 24), "spans 20 bytes"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]})"), 8), "whole sizes"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]})"), 8),
         "spans 8 bytes"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]})"), 8), "not inside"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2]})"), 8), "lacks its data_offsets"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]})"),
                           12),
         "overlap"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]})"), 12), "belong to no tensor"},
        {safetensors_bytes(t(R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), 12), "last 4 bytes"},
        {safetensors_bytes(t(R"("__metadata__":{"x":1})"), 0), "not a string"},
        {safetensors_bytes(R"({"a":[[[[[[[[[[[[1]]]]]]]]]]]})", 0), "deeper than"},
    };
    for (const auto& c : cases) {
        const std::vector<unsigned char>& bytes = c.first;
        const std::string& said = c.second;
        CAPTURE(said);
        const std::string why = read_problem(bytes);
        CHECK(why.find(said) != std::string::npos);
        CHECK(!why.empty());
    }
    CHECK(read_problem(safetensors_bytes("{}", 0)).empty());  // no tensor at all is a valid file
}

TEST_CASE("safetensors: a sharded folder's index names plain files") {
    safetensors_index x;
    REQUIRE_FALSE(safetensors_index_read(
        R"({"metadata":{"total_size":8},"weight_map":{"b":"model-00002-of-00002.safetensors","a":"model-00001-of-00002.safetensors","c":"model-00001-of-00002.safetensors"}})",
        x));
    REQUIRE(x.weight_map.size() == 3);
    CHECK(x.weight_map[0].first == "a");
    CHECK(x.files.size() == 2);
    CHECK(safetensors_index_read(R"({"weight_map":{"a":"../x.safetensors"}})", x)->find("not a file's name") !=
          std::string::npos);
    CHECK(x.files.empty());
    CHECK(safetensors_index_read(R"({"weight_map":{}})", x)->find("no tensor") != std::string::npos);
    CHECK(safetensors_index_read(R"({"weight_map":{"a":1}})", x)->find("not a string") != std::string::npos);
    CHECK(safetensors_index_read("{", x)->find("not JSON") != std::string::npos);
}

namespace {

const char* gpt2_config = R"({"architectures":["GPT2LMHeadModel"],"model_type":"gpt2","n_embd":8,"n_layer":2,
  "n_head":2,"n_positions":16,"vocab_size":11,"n_inner":null,"activation_function":"gelu_new","layer_norm_epsilon":1e-5})";
const char* qwen2_config = R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":16,
  "num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"vocab_size":10,
  "max_position_embeddings":64,"rope_theta":1000000.0,"rms_norm_eps":1e-6,"hidden_act":"silu","tie_word_embeddings":true,
  "use_sliding_window":false,"sliding_window":4096,"rope_scaling":null})";

std::string config_problem(std::string text, const std::string& from, const std::string& to) {
    if (!from.empty()) {
        const std::size_t at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    hf_config c;
    const auto why = hf_config_read(text, c);
    return why.value_or("");
}

// Tensors as a folder's files would hold them: the config's, F32 (no bytes needed).
std::vector<safetensors_tensor> tensors_of(const hf_config& c, const std::string& prefix = "") {
    std::vector<safetensors_tensor> out;
    for (const hf_tensor_want& w : hf_config_tensors(c)) {
        safetensors_tensor t;
        t.name = prefix + w.name;
        t.shape = w.shape;
        out.push_back(t);
    }
    return out;
}

std::string check(const hf_config& c, const std::vector<safetensors_tensor>& ts) {
    std::vector<const safetensors_tensor*> p;
    for (const safetensors_tensor& t : ts)
        p.push_back(&t);
    return hf_check_tensors(c, p).value_or("");
}

}  // namespace

TEST_CASE("config.json: GPT-2 and Qwen2 read; their tensors checked against the files'") {
    hf_config g;
    REQUIRE_FALSE(hf_config_read(gpt2_config, g));
    CHECK(g.arch == hf_arch::gpt2);
    CHECK(g.d_model == 8);
    CHECK(g.d_ff == 32);  // n_inner null: 4 × n_embd
    CHECK(g.head_dim == 4);
    CHECK(g.tied);
    CHECK(g.context == 16);
    CHECK(g.bos == -1);
    CHECK(g.eos == -1);
    REQUIRE_FALSE(hf_config_read(
        std::string(gpt2_config)
            .replace(std::string(gpt2_config).find("\"n_inner\":null"), 14, "\"bos_token_id\":3,\"eos_token_id\":[10,4]"),
        g));
    CHECK(g.bos == 3);
    CHECK(g.eos == 10);  // Llama 3 names a list: the first is the one that ends a text
    REQUIRE_FALSE(hf_config_read(gpt2_config, g));
    CHECK(hf_config_tensors(g).size() == 2 + 2 * 12 + 2);
    CHECK(check(g, tensors_of(g)).empty());
    CHECK(check(g, tensors_of(g, "transformer.")).empty());  // as GPT2LMHeadModel saves them
    auto with_buffers = tensors_of(g);
    with_buffers.push_back({});
    with_buffers.back().name = "h.1.attn.bias";  // the causal mask GPT-2 kept as a buffer
    CHECK(check(g, with_buffers).empty());

    hf_config q;
    REQUIRE_FALSE(hf_config_read(qwen2_config, q));
    CHECK(q.arch == hf_arch::qwen2);
    CHECK(q.qkv_bias);
    CHECK(q.tied);
    CHECK(q.kv_heads == 2);
    CHECK(q.head_dim == 4);
    CHECK(q.rope_theta == 1000000.0);
    auto ts = tensors_of(q);
    CHECK(check(q, ts).empty());
    // What the check refuses: a tensor missing, of another shape, of another dtype, one too many, one twice.
    auto missing = ts;
    missing.erase(missing.begin() + 1);
    CHECK(check(q, missing).find("has no tensor") != std::string::npos);
    auto reshaped = ts;
    reshaped[0].shape[0] += 1;
    CHECK(check(q, reshaped).find("config.json makes it") != std::string::npos);
    auto typed = ts;
    typed[0].dtype = tensor_dtype::other;
    typed[0].dtype_name = "I8";
    CHECK(check(q, typed).find("I8") != std::string::npos);
    auto extra = ts;
    extra.push_back(ts[0]);
    extra.back().name = "model.layers.0.mlp.extra.weight";
    CHECK(check(q, extra).find("does not have") != std::string::npos);
    auto twice = ts;
    twice.push_back(ts[0]);
    CHECK(check(q, twice).find("in two of the folder's files") != std::string::npos);
}

TEST_CASE("config.json: every architecture and option not implemented is refused, naming it") {
    CHECK(config_problem(qwen2_config, "Qwen2ForCausalLM", "MistralForCausalLM").find("'MistralForCausalLM'") !=
          std::string::npos);
    CHECK(config_problem(qwen2_config, "\"rope_scaling\":null", R"("rope_scaling":{"rope_type":"llama3","factor":32})")
              .find("'llama3'") != std::string::npos);
    CHECK(config_problem(qwen2_config, "\"use_sliding_window\":false", "\"use_sliding_window\":true").find("sliding-window") !=
          std::string::npos);
    CHECK(config_problem(qwen2_config, "\"silu\"", "\"gelu\"").find("hidden_act") != std::string::npos);
    CHECK(config_problem(qwen2_config, "\"num_key_value_heads\":2", "\"num_key_value_heads\":3").find("multiple") !=
          std::string::npos);
    CHECK(config_problem(qwen2_config, "\"hidden_size\":16", "\"hidden_size\":0").find("from 1 to") != std::string::npos);
    CHECK(config_problem(qwen2_config, "\"model_type\":\"qwen2\"", "\"model_type\":\"llama\"").find("model_type") !=
          std::string::npos);
    CHECK(config_problem(gpt2_config, "\"gelu_new\"", "\"relu\"").find("activation_function") != std::string::npos);
    CHECK(config_problem(gpt2_config, "\"n_inner\":null", "\"eos_token_id\":11").find("eos_token_id") != std::string::npos);
    CHECK(config_problem(gpt2_config, "\"n_head\":2", "\"n_head\":3").find("not a multiple") != std::string::npos);
    CHECK(config_problem(gpt2_config, "\"n_embd\":8,", "").find("no n_embd") != std::string::npos);
    CHECK(config_problem("[]", "", "").find("one JSON object") != std::string::npos);
    CHECK(config_problem("{\"architectures\":[\"A\",\"B\"]}", "", "").find("no single architecture") != std::string::npos);
    // Llama with its attention biases: not implemented, so refused (Qwen2's are).
    const std::string llama = std::string(qwen2_config)
                                  .replace(std::string(qwen2_config).find("Qwen2ForCausalLM"), 16, "LlamaForCausalLM")
                                  .replace(std::string(qwen2_config).find("\"qwen2\""), 7, "\"llama\"");
    hf_config l;
    REQUIRE_FALSE(hf_config_read(llama, l));
    CHECK_FALSE(l.qkv_bias);
    CHECK(config_problem(llama, "\"rope_scaling\":null", "\"attention_bias\":true").find("attention with biases") !=
          std::string::npos);
}

#ifdef ATTN_HF_CORPUS_DIR
TEST_CASE("hf files: the fuzz corpus (tests/fuzz/hf_corpus) replays cleanly") {
    test::replay_fuzz_corpus(
        ATTN_HF_CORPUS_DIR, "valid files", [](const std::string& input) { return hf_fuzz_check(input); },
        [](const std::string& input) {
            bool valid = false;
            hf_fuzz_check(input, &valid);
            return valid;
        });
}
#endif

namespace {

// fp32 to the nearest f16 (ties to even), found among the halves themselves.
std::uint16_t to_f16(float v) {
    std::uint16_t lo = 0, hi = 0x7bff;  // |v| between halves lo and hi, by their fp32 values
    const float a = std::fabs(v);
    if (a >= f16_to_float(hi))
        lo = hi;
    while (hi - lo > 1) {
        const std::uint16_t mid = std::uint16_t((lo + hi) / 2);
        (f16_to_float(mid) <= a ? lo : hi) = mid;
    }
    const float dl = a - f16_to_float(lo), dh = f16_to_float(hi) - a;
    const std::uint16_t h = dl < dh || (dl == dh && lo % 2 == 0) ? lo : hi;
    return std::uint16_t(h | (std::signbit(v) ? 0x8000 : 0));
}

// fp32 to the nearest bfloat16 (ties to even).
std::uint16_t to_bf16(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return std::uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// A llama2.c model written as a Hugging Face Llama folder: its tensors under
// Hugging Face's names, as `type` (F32, or rounded to F16 or BF16), with W_q's and
// W_k's rows of each head put back in rotate_half's order (llama2.c's export.py
// permutes them the other way: its row 2p + s of a head is Hugging Face's row
// s·hd/2 + p).
std::vector<unsigned char> as_hf_folder(const llama_model& m, std::string& config, bool qwen2_biases = false,
                                        weight_type type = weight_type::f32) {
    const llama_config& c = m.config;
    const int hd = c.head_size();
    const std::size_t es = weight_type_bytes(type);
    const char* dtype = type == weight_type::f32 ? "F32" : type == weight_type::f16 ? "F16" : "BF16";
    std::string header = "{";
    std::vector<float> data;
    const auto put = [&](const std::string& name, std::vector<std::uint64_t> shape, const float* w, std::size_t n,
                         bool rows_permuted) {
        const std::size_t at = data.size() * es;
        if (!rows_permuted) {
            data.insert(data.end(), w, w + n);
        } else {
            const std::size_t in = std::size_t(shape[1]);
            for (std::uint64_t row = 0; row < shape[0]; ++row) {  // Hugging Face's row: head h, half s, pair p
                const int h = int(row) / hd, s = (int(row) % hd) / (hd / 2), p = int(row) % (hd / 2);
                const float* from = w + std::size_t(h * hd + 2 * p + s) * in;
                data.insert(data.end(), from, from + in);
            }
        }
        std::string dims;
        for (std::size_t i = 0; i < shape.size(); ++i)
            dims += (i ? "," : "") + std::to_string(shape[i]);
        header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" +
                  dims + "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(data.size() * es) + "]}";
    };
    using u = std::uint64_t;
    const u d = u(c.dim), kv = u(c.kv_dim()), f = u(c.hidden_dim), V = u(c.vocab_size);
    put("model.embed_tokens.weight", {V, d}, m.at(m.token_embedding), m.token_embedding.size, false);
    for (int l = 0; l < c.n_layers; ++l) {
        const llama_layer_tensors& w = m.layers[std::size_t(l)];
        const std::string p = "model.layers." + std::to_string(l) + ".";
        put(p + "input_layernorm.weight", {d}, m.at(w.rms_att), w.rms_att.size, false);
        put(p + "self_attn.q_proj.weight", {d, d}, m.at(w.wq), w.wq.size, true);
        put(p + "self_attn.k_proj.weight", {kv, d}, m.at(w.wk), w.wk.size, true);
        put(p + "self_attn.v_proj.weight", {kv, d}, m.at(w.wv), w.wv.size, false);
        if (qwen2_biases) {  // Qwen2's: q, k and v biases, some numbers of each size
            std::vector<float> b(static_cast<std::size_t>(d));
            for (std::size_t i = 0; i < b.size(); ++i)
                b[i] = 0.3f * std::sin(float(i * 7 + std::size_t(l) * 3));
            put(p + "self_attn.q_proj.bias", {d}, b.data(), std::size_t(d), false);
            put(p + "self_attn.k_proj.bias", {kv}, b.data() + 1, std::size_t(kv), false);
            put(p + "self_attn.v_proj.bias", {kv}, b.data() + 2, std::size_t(kv), false);
        }
        put(p + "self_attn.o_proj.weight", {d, d}, m.at(w.wo), w.wo.size, false);
        put(p + "post_attention_layernorm.weight", {d}, m.at(w.rms_ffn), w.rms_ffn.size, false);
        put(p + "mlp.gate_proj.weight", {f, d}, m.at(w.w1), w.w1.size, false);
        put(p + "mlp.up_proj.weight", {f, d}, m.at(w.w3), w.w3.size, false);
        put(p + "mlp.down_proj.weight", {d, f}, m.at(w.w2), w.w2.size, false);
    }
    put("model.norm.weight", {d}, m.at(m.rms_final), m.rms_final.size, false);
    if (!c.shared_classifier)
        put("lm_head.weight", {V, d}, m.at(m.classifier), m.classifier.size, false);
    header += "}";
    header += std::string((8 - header.size() % 8) % 8, ' ');
    std::vector<unsigned char> b = safetensors_bytes(header, data.size() * es);
    for (std::size_t i = 0; i < data.size(); ++i) {
        unsigned char* to = b.data() + 8 + header.size() + i * es;
        if (type == weight_type::f32) {
            std::memcpy(to, &data[i], 4);
        } else {
            const std::uint16_t h = type == weight_type::f16 ? to_f16(data[i]) : to_bf16(data[i]);
            std::memcpy(to, &h, 2);
        }
    }
    config = std::string(qwen2_biases ? R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":)"
                                      : R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":)") +
             std::to_string(c.dim) + R"(,"intermediate_size":)" + std::to_string(c.hidden_dim) + R"(,"num_hidden_layers":)" +
             std::to_string(c.n_layers) + R"(,"num_attention_heads":)" + std::to_string(c.n_heads) +
             R"(,"num_key_value_heads":)" + std::to_string(c.n_kv_heads) + R"(,"vocab_size":)" + std::to_string(c.vocab_size) +
             R"(,"max_position_embeddings":)" + std::to_string(c.seq_len) +
             R"(,"rms_norm_eps":1e-05,"rope_theta":10000.0,"hidden_act":"silu","tie_word_embeddings":)" +
             (c.shared_classifier ? "true" : "false") + "}";
    return b;
}

}  // namespace

TEST_CASE("a llama2.c model written as a Hugging Face folder computes the same logits through rotate_half") {
    for (const bool shared : {true, false}) {
        CAPTURE(shared);
        const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 48, 2, 4, 2, 40, 64, shared), 7);
        llama_model m;
        REQUIRE(llama_checkpoint_read(ckpt.data(), ckpt.size(), m));
        std::string config;
        const std::vector<unsigned char> file = as_hf_folder(m, config);
        hf_config c;
        REQUIRE_FALSE(hf_config_read(config, c));
        safetensors_file header;
        const auto read = safetensors_read(file.data(), file.size(), file.size(), header);
        REQUIRE_MESSAGE(!read, read.value_or(""));
        llama_model hf;
        const auto opened = hf_model_read(c, {{file.data(), file.size(), &header}}, hf);
        REQUIRE_MESSAGE(!opened, opened.value_or(""));
        CHECK(hf.config.rope_half);
        const std::vector<int> ids = {1, 5, 9, 3, 5, 9, 3, 7, 2, 11, 5, 9};
        const trace a = llama_forward(m, ids, llama_experiment(m.config));
        const trace b = llama_forward(hf, ids, llama_experiment(hf.config));
        REQUIRE(a.logits.size() == b.logits.size());
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < a.logits.data.size(); ++i) {
            worst = std::max(worst, std::fabs(double(a.logits.data[i]) - double(b.logits.data[i])));
            scale = std::max(scale, std::fabs(double(a.logits.data[i])));
        }
        CHECK(worst <= 1e-5 * std::max(scale, 1.0));
        // The same weights under llama2.c's pairing are another model: the permutation is what makes them equal.
        llama_model wrong = hf;
        wrong.config.rope_half = false;
        const trace w = llama_forward(wrong, ids, llama_experiment(wrong.config));
        double off = 0;
        for (std::size_t i = 0; i < a.logits.data.size(); ++i)
            off = std::max(off, std::fabs(double(a.logits.data[i]) - double(w.logits.data[i])));
        CHECK(off > 1e-3);
    }
}

TEST_CASE("Qwen2's q/k/v biases: the KV cache's steps give the trace's logits, and the biases count") {
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 48, 2, 4, 2, 40, 64, true), 9);
    llama_model m;
    REQUIRE(llama_checkpoint_read(ckpt.data(), ckpt.size(), m));
    std::string config;
    const std::vector<unsigned char> file = as_hf_folder(m, config, true);
    hf_config c;
    REQUIRE_FALSE(hf_config_read(config, c));
    REQUIRE(c.qkv_bias);
    safetensors_file header;
    REQUIRE_FALSE(safetensors_read(file.data(), file.size(), file.size(), header));
    llama_model q;
    const auto opened = hf_model_read(c, {{file.data(), file.size(), &header}}, q);
    REQUIRE_MESSAGE(!opened, opened.value_or(""));
    REQUIRE(q.layers[0].bk.size == std::size_t(q.config.kv_dim()));
    const std::vector<int> ids = {1, 5, 9, 3, 5, 9, 3, 7, 2, 11};
    const trace t = llama_forward(q, ids, llama_experiment(q.config));
    llama_decoder d(q, q.config.seq_len);
    for (int p = 0; p < int(ids.size()); ++p) {
        const float* z = d.step(ids[std::size_t(p)]);
        const std::vector<float> step(z, z + 40), row(t.logits.row(p), t.logits.row(p) + 40);
        CHECK(test::mismatches(step, row, test::relative(2e-5f), "logits of row " + std::to_string(p), {"cache", "trace"}) == 0);
    }
    llama_model unbiased = q;
    for (llama_layer_tensors& w : unbiased.layers)
        w.bq = w.bk = w.bv = llama_tensor{};
    const trace u = llama_forward(unbiased, ids, llama_experiment(unbiased.config));
    double off = 0;
    for (std::size_t i = 0; i < t.logits.data.size(); ++i)
        off = std::max(off, std::fabs(double(t.logits.data[i]) - double(u.logits.data[i])));
    CHECK(off > 1e-3);
}

TEST_CASE("a Hugging Face folder the llama block cannot compute yet is refused, naming why") {
    llama_model m;
    hf_config q;
    REQUIRE_FALSE(hf_config_read(qwen2_config, q));
    std::vector<safetensors_tensor> ts = tensors_of(q);
    ts[0].dtype = tensor_dtype::other;
    ts[0].dtype_name = "I8";
    safetensors_file f;
    f.tensors = ts;
    std::sort(f.tensors.begin(), f.tensors.end(),
              [](const safetensors_tensor& a, const safetensors_tensor& b) { return a.name < b.name; });
    CHECK(hf_model_read(q, {{nullptr, 0, &f}}, m)->find("is I8: weights are read in F32, F16 or BF16") != std::string::npos);
    CHECK(m.weights.empty());
}

namespace {

// A folder's model read from `file` (as_hf_folder's) and its config.
llama_model read_folder(const std::vector<unsigned char>& file, const std::string& config) {
    hf_config c;
    REQUIRE_FALSE(hf_config_read(config, c));
    safetensors_file header;
    REQUIRE_FALSE(safetensors_read(file.data(), file.size(), file.size(), header));
    llama_model m;
    const auto opened = hf_model_read(c, {{file.data(), file.size(), &header}}, m);
    REQUIRE_MESSAGE(!opened, opened.value_or(""));
    return m;
}

}  // namespace

TEST_CASE("F16 and BF16 folders stay 16-bit in memory and compute what F32 does on the same (rounded) weights, bit for bit") {
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 48, 2, 4, 2, 40, 64, false), 11);
    llama_model m;
    REQUIRE(llama_checkpoint_read(ckpt.data(), ckpt.size(), m));
    for (const weight_type type : {weight_type::f16, weight_type::bf16}) {
        CAPTURE(int(type));
        std::string config;
        const std::vector<unsigned char> half = as_hf_folder(m, config, true, type);
        const llama_model h = read_folder(half, config);
        CHECK(h.layers[1].w2.type == type);
        CHECK(h.weights.size <= half.size());  // the file's size, not an fp32 copy's
        // The same values in F32: each half widened, written again.
        llama_model wide = h;
        std::vector<float> floats;
        floats.reserve(llama_parameters(h) + h.classifier.size);  // never moved: the tensors point into it
        const auto widen = [&](llama_tensor& t) {
            const std::vector<float> v = llama_floats(h, t);
            t.data = reinterpret_cast<const unsigned char*>(floats.data() + floats.size()), t.type = weight_type::f32;
            floats.insert(floats.end(), v.begin(), v.end());
        };
        widen(wide.token_embedding), widen(wide.rms_final), widen(wide.classifier);
        for (llama_layer_tensors& l : wide.layers)
            for (llama_tensor* t : {&l.rms_att, &l.wq, &l.wk, &l.wv, &l.wo, &l.rms_ffn, &l.w1, &l.w2, &l.w3, &l.bq, &l.bk, &l.bv})
                widen(*t);
        wide.weights = {nullptr, reinterpret_cast<const unsigned char*>(floats.data()), floats.size() * 4};
        // Few rows (read straight from the bytes) and many (through the transposed copy), and the KV cache's steps.
        for (const std::size_t n : {std::size_t(7), std::size_t(24)}) {
            std::vector<int> ids;
            for (std::size_t i = 0; i < n; ++i)
                ids.push_back(int((i * 7 + 3) % 40));
            const trace a = llama_forward(h, ids, llama_experiment(h.config));
            const trace b = llama_forward(wide, ids, llama_experiment(wide.config));
            CHECK(a.logits.data == b.logits.data);
            CHECK(a.layers[1].ffn_hidden.data == b.layers[1].ffn_hidden.data);
            llama_decoder dh(h, h.config.seq_len), dw(wide, wide.config.seq_len);
            for (const int id : ids) {
                const float* zh = dh.step(id);
                const float* zw = dw.step(id);
                CHECK(std::vector<float>(zh, zh + 40) == std::vector<float>(zw, zw + 40));
            }
        }
        // And near the fp32 model it was rounded from (without the biases): bf16 keeps 8 bits of mantissa, f16 11.
        std::string plain_config;
        const std::vector<unsigned char> plain_file = as_hf_folder(m, plain_config, false, type);
        const llama_model plain = read_folder(plain_file, plain_config);
        const std::vector<int> ids = {1, 5, 9, 3, 5, 9, 3, 7, 2, 11};
        const trace exact = llama_forward(m, ids, llama_experiment(m.config));
        const trace rounded = llama_forward(plain, ids, llama_experiment(plain.config));
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < exact.logits.data.size(); ++i) {
            worst = std::max(worst, std::fabs(double(exact.logits.data[i]) - double(rounded.logits.data[i])));
            scale = std::max(scale, std::fabs(double(exact.logits.data[i])));
        }
        CHECK(worst > 0);
        CHECK(worst <= (type == weight_type::bf16 ? 5e-2 : 5e-3) * scale);
    }
}

TEST_CASE("a NaN in an F16 or BF16 tensor is refused, naming the tensor") {
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 48, 1, 4, 4, 40, 64, true), 12);
    llama_model m;
    REQUIRE(llama_checkpoint_read(ckpt.data(), ckpt.size(), m));
    for (const weight_type type : {weight_type::f16, weight_type::bf16}) {
        std::string config;
        std::vector<unsigned char> file = as_hf_folder(m, config, false, type);
        safetensors_file header;
        REQUIRE_FALSE(safetensors_read(file.data(), file.size(), file.size(), header));
        const safetensors_tensor* t = safetensors_find(header, "model.layers.0.mlp.up_proj.weight");
        REQUIRE(t);
        const std::uint16_t nan = type == weight_type::f16 ? 0x7e00 : 0x7fc0;
        std::memcpy(file.data() + t->begin + 2 * 17, &nan, 2);
        hf_config c;
        REQUIRE_FALSE(hf_config_read(config, c));
        llama_model out;
        const auto why = hf_model_read(c, {{file.data(), file.size(), &header}}, out);
        REQUIRE(why);
        CHECK(why->find("'model.layers.0.mlp.up_proj.weight' holds a NaN") != std::string::npos);
        CHECK(out.weights.empty());
    }
}

TEST_CASE("a Hugging Face folder from its files by name: which files, and each problem naming its file") {
    std::vector<std::string> names;
    REQUIRE_FALSE(hf_folder_files(nullptr, names));
    CHECK(names == std::vector<std::string>{"config.json", "tokenizer.json", "model.safetensors"});
    const std::string index_text = R"({"metadata":{},"weight_map":{"model.norm.weight":"model-00002-of-00002.safetensors",)"
                                   R"("model.embed_tokens.weight":"model-00001-of-00002.safetensors"}})";
    const auto bytes = [](const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); };
    const hf_folder_file index{"model.safetensors.index.json", bytes(index_text), index_text.size()};
    REQUIRE_FALSE(hf_folder_files(&index, names));
    CHECK(names == std::vector<std::string>{"config.json", "tokenizer.json", "model.safetensors.index.json",
                                            "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
    const std::string bad_text = R"({"weight_map":{"a":"../secret.safetensors"}})";
    const hf_folder_file bad{"model.safetensors.index.json", bytes(bad_text), bad_text.size()};
    CHECK(hf_folder_files(&bad, names)->find("../secret.safetensors") != std::string::npos);
    CHECK(names.empty());

    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 48, 2, 4, 2, 40, 64, true), 7);
    llama_model m;
    REQUIRE(llama_checkpoint_read(ckpt.data(), ckpt.size(), m));
    std::string config;
    const std::vector<unsigned char> weights = as_hf_folder(m, config);
    const std::string tokenizer = "{}";
    const hf_folder_file config_file{"config.json", bytes(config), config.size()},
        tokenizer_file{"tokenizer.json", bytes(tokenizer), tokenizer.size()},
        weights_file{"model.safetensors", weights.data(), weights.size()};
    hf_folder f;
    CHECK(hf_folder_read({tokenizer_file, weights_file}, f) == "the folder has no config.json");
    CHECK(hf_folder_read({config_file, weights_file}, f) == "the folder has no tokenizer.json");
    CHECK(hf_folder_read({config_file, tokenizer_file}, f) == "the folder has no model.safetensors");
    std::vector<unsigned char> cut(weights.begin(), weights.end() - 4);
    const auto truncated = hf_folder_read({config_file, tokenizer_file, {"model.safetensors", cut.data(), cut.size()}}, f);
    CHECK(truncated.value_or("").rfind("model.safetensors: ", 0) == 0);
    CHECK(f.model.weights.empty());
    // Sharded: the index names two files; the second holds no tensor, though the index puts one there.
    const std::vector<unsigned char> empty = safetensors_bytes("{}      ", 0);
    const hf_folder_file first{"model-00001-of-00002.safetensors", weights.data(), weights.size()},
        second{"model-00002-of-00002.safetensors", empty.data(), empty.size()};
    CHECK(hf_folder_read({config_file, tokenizer_file, index, first}, f) ==
          "the folder has no model-00002-of-00002.safetensors, which model.safetensors.index.json names");
    CHECK(hf_folder_read({config_file, tokenizer_file, index, first, second}, f)
              .value_or("")
              .find("which model.safetensors.index.json does not name") != std::string::npos);
    CHECK(hf_folder_read({config_file, tokenizer_file, weights_file}, f).value_or("").rfind("tokenizer.json: ", 0) == 0);

    // A whole folder: the model as hf_model_read makes it, and a byte-level tokenizer.json (three tokens, one merge)
    // whose end of text is the config's eos_token_id.
    const std::string small_tokenizer =
        R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"added_tokens":[],)"
        R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},"decoder":{"type":"ByteLevel"}})";
    const std::string config_eos = config.substr(0, config.size() - 1) + R"(,"eos_token_id":3})";
    const hf_folder_file small{"tokenizer.json", bytes(small_tokenizer), small_tokenizer.size()},
        eos_config{"config.json", bytes(config_eos), config_eos.size()};
    const auto opened = hf_folder_read({eos_config, small, weights_file, {"README.md", nullptr, 0}}, f);
    REQUIRE_MESSAGE(!opened, opened.value_or(""));
    CHECK(f.config.arch == hf_arch::llama);
    CHECK(f.model.config.rope_half);
    CHECK(f.model.weights.size == m.weights.size);
    CHECK(f.tokenizer.eos == 3);
    CHECK(llama_encode(f.tokenizer, "abab", true) == std::vector<int>{2, 2});
}
