// Hugging Face folders the tests write: a small GPT-2 or Qwen2 model of random
// weights as config.json, a byte-level tokenizer.json (the 256 bytes as GPT-2
// maps them, a few merges, <|endoftext|> as the end of a text) and
// model.safetensors in F32, F16 or BF16 — each file by its plain name, as the
// page's chooser and the native app hand them to real_model_open_files.
//
//   const test::hf_test_folder f = test::hf_test_gpt2(weight_type::f16, 7);
//   real_model m;
//   real_model_open_files(f.files(), m);             // borrowed: the weights copied
//   real_model_open_files(f.files_handed_over(), m); // handed over: read where they lie
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "llama/checkpoint.hpp"
#include "play/real_model.hpp"

namespace attn::test {

struct hf_test_tensor {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
};

// fp32 to the nearest IEEE half (ties to even; subnormals kept, overflow to ±∞).
inline std::uint16_t hf_test_f16(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu;
    std::uint32_t mant = x & 0x7fffffu;
    const int exp = int(e) - 127 + 15;
    if (e == 0xff)
        return std::uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));
    if (exp >= 31)
        return std::uint16_t(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10)
            return std::uint16_t(sign);
        mant |= 0x800000u;
        const int shift = 14 - exp;
        std::uint32_t h = mant >> shift;
        const std::uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        h += rem > half || (rem == half && (h & 1u));
        return std::uint16_t(sign | h);
    }
    std::uint32_t h = (std::uint32_t(exp) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    h += rem > 0x1000u || (rem == 0x1000u && (h & 1u));  // a carry into the exponent is the right rounding
    return std::uint16_t(sign | h);
}

// fp32 to the nearest bfloat16 (ties to even).
inline std::uint16_t hf_test_bf16(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return std::uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// The tensors as one safetensors file of `type`, the header padded to 8 bytes.
inline std::vector<unsigned char> hf_test_safetensors(const std::vector<hf_test_tensor>& ts, weight_type type) {
    const std::size_t es = weight_type_bytes(type);
    std::string header = "{";
    std::size_t at = 0;
    for (const hf_test_tensor& t : ts) {
        std::string dims;
        for (std::size_t i = 0; i < t.shape.size(); ++i)
            dims += (i ? "," : "") + std::to_string(t.shape[i]);
        header += (header.size() > 1 ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + weight_type_name(type) +
                  "\",\"shape\":[" + dims + "],\"data_offsets\":[" + std::to_string(at) + "," +
                  std::to_string(at + t.values.size() * es) + "]}";
        at += t.values.size() * es;
    }
    header += "}";
    header += std::string((8 - header.size() % 8) % 8, ' ');
    std::vector<unsigned char> b(8 + header.size() + at);
    for (int i = 0; i < 8; ++i)
        b[std::size_t(i)] = (unsigned char)(std::uint64_t(header.size()) >> (8 * i));
    std::memcpy(b.data() + 8, header.data(), header.size());
    unsigned char* to = b.data() + 8 + header.size();
    for (const hf_test_tensor& t : ts)
        for (const float v : t.values) {
            if (type == weight_type::f32) {
                std::memcpy(to, &v, 4);
            } else {
                const std::uint16_t h = type == weight_type::f16 ? hf_test_f16(v) : hf_test_bf16(v);
                std::memcpy(to, &h, 2);
            }
            to += es;
        }
    return b;
}

// UTF-8 of a code point below 0x800.
inline std::string hf_test_utf8(unsigned cp) {
    if (cp < 0x80)
        return std::string(1, char(cp));
    return {char(0xc0 | (cp >> 6)), char(0x80 | (cp & 0x3f))};
}

// A byte-level BPE tokenizer.json: ids 0 … 255 the bytes (GPT-2's
// bytes_to_unicode), then the merges' tokens, then <|endoftext|> (id
// hf_test_vocab − 1, special).
inline constexpr int hf_test_vocab = 256 + 4 + 1;
inline std::string hf_test_tokenizer_json() {
    std::vector<unsigned> of(256);  // byte → its character
    int extra = 0;
    for (unsigned b = 0; b < 256; ++b) {
        const bool kept = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
        of[b] = kept ? b : 256u + unsigned(extra++);
    }
    std::string vocab;
    for (unsigned b = 0; b < 256; ++b) {
        std::string c = hf_test_utf8(of[b]);
        if (c == "\"" || c == "\\")
            c = "\\" + c;
        vocab += (b ? ",\"" : "\"") + c + "\":" + std::to_string(b);
    }
    const std::string space = hf_test_utf8(of[' ']);  // Ġ
    vocab += ",\"" + space + "t\":256,\"he\":257,\"" + space + "the\":258,\"ab\":259";
    const std::string merges = "\"" + space + " t\",\"h e\",\"" + space + "t he\",\"a b\"";
    return R"({"model":{"type":"BPE","vocab":{)" + vocab + R"(},"merges":[)" + merges +
           R"(]},"added_tokens":[{"id":260,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,)"
           R"("normalized":false,"special":true}],"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,)"
           R"("use_regex":true},"decoder":{"type":"ByteLevel"}})";
}

// A folder's three files.
struct hf_test_folder {
    std::string config, tokenizer;
    std::vector<unsigned char> weights;

    // Borrowed: the caller's bytes, copied by the model.
    std::vector<real_model_file> files() const {
        const auto bytes = [](const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); };
        return {{bytes(config), config.size(), "config.json"},
                {bytes(tokenizer), tokenizer.size(), "tokenizer.json"},
                {weights.data(), weights.size(), "model.safetensors"}};
    }
    // Handed over: the weights in a buffer of their own, the model's to keep (and rewrite).
    std::vector<real_model_file> files_handed_over() const {
        std::vector<real_model_file> out = files();
        std::shared_ptr<unsigned char[]> own(new unsigned char[weights.size()]);
        std::memcpy(own.get(), weights.data(), weights.size());
        const std::shared_ptr<unsigned char> owner(own, own.get());
        out[2] = {owner.get(), weights.size(), "model.safetensors", "", owner};
        return out;
    }
};

inline std::vector<float> hf_test_random(rng& g, std::size_t n, float scale, float mean = 0) {
    std::vector<float> v(n);
    for (float& x : v)
        x = mean + scale * (2.0f * g.uniform() - 1.0f);
    return v;
}

// GPT-2: d 16, 2 heads, 2 layers, a context of 32, tied head.
inline hf_test_folder hf_test_gpt2(weight_type type, std::uint64_t seed) {
    constexpr std::uint64_t d = 16, ff = 4 * d, context = 32, V = hf_test_vocab;
    rng g(seed);
    std::vector<hf_test_tensor> t = {{"wte.weight", {V, d}, hf_test_random(g, V * d, 0.5f)},
                                     {"wpe.weight", {context, d}, hf_test_random(g, context * d, 0.3f)}};
    for (int l = 0; l < 2; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        t.push_back({p + "ln_1.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
        t.push_back({p + "ln_1.bias", {d}, hf_test_random(g, d, 0.1f)});
        t.push_back({p + "attn.c_attn.weight", {d, 3 * d}, hf_test_random(g, d * 3 * d, 0.4f)});
        t.push_back({p + "attn.c_attn.bias", {3 * d}, hf_test_random(g, 3 * d, 0.1f)});
        t.push_back({p + "attn.c_proj.weight", {d, d}, hf_test_random(g, d * d, 0.3f)});
        t.push_back({p + "attn.c_proj.bias", {d}, hf_test_random(g, d, 0.1f)});
        t.push_back({p + "ln_2.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
        t.push_back({p + "ln_2.bias", {d}, hf_test_random(g, d, 0.1f)});
        t.push_back({p + "mlp.c_fc.weight", {d, ff}, hf_test_random(g, d * ff, 0.3f)});
        t.push_back({p + "mlp.c_fc.bias", {ff}, hf_test_random(g, ff, 0.1f)});
        t.push_back({p + "mlp.c_proj.weight", {ff, d}, hf_test_random(g, ff * d, 0.2f)});
        t.push_back({p + "mlp.c_proj.bias", {d}, hf_test_random(g, d, 0.1f)});
    }
    t.push_back({"ln_f.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
    t.push_back({"ln_f.bias", {d}, hf_test_random(g, d, 0.1f)});
    hf_test_folder f;
    f.config = R"({"architectures":["GPT2LMHeadModel"],"model_type":"gpt2","n_embd":16,"n_layer":2,"n_head":2,)"
               R"("n_positions":32,"n_ctx":32,"vocab_size":261,"n_inner":null,"activation_function":"gelu_new",)"
               R"("layer_norm_epsilon":1e-5,"tie_word_embeddings":true,"bos_token_id":260,"eos_token_id":260})";
    f.tokenizer = hf_test_tokenizer_json();
    f.weights = hf_test_safetensors(t, type);
    return f;
}

// Qwen2: d 16, 4 heads sharing 2 K/V heads, 2 layers, q/k/v biases, a separate head.
inline hf_test_folder hf_test_qwen2(weight_type type, std::uint64_t seed) {
    constexpr std::uint64_t d = 16, kv = 8, ff = 24, V = hf_test_vocab;
    rng g(seed);
    std::vector<hf_test_tensor> t = {{"model.embed_tokens.weight", {V, d}, hf_test_random(g, V * d, 0.5f)}};
    for (int l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t.push_back({p + "input_layernorm.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
        t.push_back({p + "self_attn.q_proj.weight", {d, d}, hf_test_random(g, d * d, 0.4f)});
        t.push_back({p + "self_attn.q_proj.bias", {d}, hf_test_random(g, d, 0.1f)});
        t.push_back({p + "self_attn.k_proj.weight", {kv, d}, hf_test_random(g, kv * d, 0.4f)});
        t.push_back({p + "self_attn.k_proj.bias", {kv}, hf_test_random(g, kv, 0.1f)});
        t.push_back({p + "self_attn.v_proj.weight", {kv, d}, hf_test_random(g, kv * d, 0.4f)});
        t.push_back({p + "self_attn.v_proj.bias", {kv}, hf_test_random(g, kv, 0.1f)});
        t.push_back({p + "self_attn.o_proj.weight", {d, d}, hf_test_random(g, d * d, 0.3f)});
        t.push_back({p + "post_attention_layernorm.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
        t.push_back({p + "mlp.gate_proj.weight", {ff, d}, hf_test_random(g, ff * d, 0.3f)});
        t.push_back({p + "mlp.up_proj.weight", {ff, d}, hf_test_random(g, ff * d, 0.3f)});
        t.push_back({p + "mlp.down_proj.weight", {d, ff}, hf_test_random(g, d * ff, 0.2f)});
    }
    t.push_back({"model.norm.weight", {d}, hf_test_random(g, d, 0.2f, 1.0f)});
    t.push_back({"lm_head.weight", {V, d}, hf_test_random(g, V * d, 0.5f)});
    hf_test_folder f;
    f.config = R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":16,"num_hidden_layers":2,)"
               R"("num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"vocab_size":261,)"
               R"("max_position_embeddings":64,"rope_theta":1000000.0,"rms_norm_eps":1e-6,"hidden_act":"silu",)"
               R"("tie_word_embeddings":false,"use_sliding_window":false,"sliding_window":4096,"rope_scaling":null,)"
               R"("eos_token_id":260})";
    f.tokenizer = hf_test_tokenizer_json();
    f.weights = hf_test_safetensors(t, type);
    return f;
}

}  // namespace attn::test
