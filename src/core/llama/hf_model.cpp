#include "llama/hf_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace attn {

namespace {

struct placed {
    const hf_shard* shard;
    const safetensors_tensor* tensor;
};

// The folder's tensor `name`, in whichever file holds it (hf_check_tensors has
// made sure it is there once).
placed find(const std::vector<hf_shard>& shards, const std::string& name) {
    for (const hf_shard& s : shards)
        if (const safetensors_tensor* t = safetensors_find(*s.header, name))
            return {&s, t};
    return {nullptr, nullptr};
}

std::optional<std::string> refuse_unsupported(const hf_config& c) {
    if (c.arch == hf_arch::gpt2)
        return std::string("GPT-2's block (LayerNorm, learned positions, GELU) is not implemented here yet");
    if (c.arch == hf_arch::qwen3)
        return std::string("Qwen3's per-head q/k RMSNorm is not implemented here yet");
    if (c.head_dim * c.heads != c.d_model)
        return "config.json's head_dim " + std::to_string(c.head_dim) + " × " + std::to_string(c.heads) +
               " heads is not hidden_size " + std::to_string(c.d_model) + ", which the llama block needs";
    if (c.layers > llama_limits::max_layers || c.d_ff > llama_limits::max_hidden)
        return std::string("config.json's sizes are over the llama block's limits");
    return std::nullopt;
}

// Whether every weight of t is finite, widened a block at a time.
bool finite(const llama_model& m, const llama_tensor& t) {
    std::vector<float> block(std::min<std::size_t>(t.size, 4096));
    for (std::size_t i = 0; i < t.size; i += block.size()) {
        const std::size_t n = std::min(block.size(), t.size - i);
        llama_floats(m, t, i, n, block.data());
        for (std::size_t j = 0; j < n; ++j)
            if (!std::isfinite(block[j]))
                return false;
    }
    return true;
}

}  // namespace

std::optional<std::string> hf_model_read(const hf_config& c, const std::vector<hf_shard>& shards, llama_model& out) {
    out = {};
    if (auto why = refuse_unsupported(c))
        return why;
    std::vector<const safetensors_tensor*> all;
    for (const hf_shard& s : shards)
        for (const safetensors_tensor& t : s.header->tensors)
            all.push_back(&t);
    if (auto why = hf_check_tensors(c, all))
        return why;
    const std::vector<hf_tensor_want> want = hf_config_tensors(c);
    std::size_t bytes = 0;  // each tensor in its file's type, starting on a 4-byte boundary
    for (const hf_tensor_want& w : want) {
        const placed p = find(shards, w.name);
        if (p.tensor->dtype == tensor_dtype::other)
            return "the tensor '" + w.name + "' is " + p.tensor->dtype_name + ": only F32, F16 and BF16 weights are read";
        bytes += (std::size_t(p.tensor->end - p.tensor->begin) + 3) / 4 * 4;
    }
    if (std::int64_t(bytes) > llama_limits::max_floats * 4)
        return "the model's weights are " + std::to_string(bytes) + " bytes, more than the " +
               std::to_string(llama_limits::max_floats * 4) + " the page can hold";
    std::shared_ptr<float[]> buffer(new float[bytes / 4]);
    unsigned char* base = reinterpret_cast<unsigned char*>(buffer.get());
    llama_model m;
    m.config.version = 1;
    m.config.dim = c.d_model, m.config.hidden_dim = c.d_ff, m.config.n_layers = c.layers;
    m.config.n_heads = c.heads, m.config.n_kv_heads = c.kv_heads, m.config.vocab_size = c.vocab;
    m.config.seq_len = std::min(c.context, llama_limits::max_seq_len);
    m.config.shared_classifier = c.tied;
    m.config.rope_theta = float(c.rope_theta), m.config.rope_half = true, m.config.norm_eps = float(c.norm_eps);
    m.weights = {std::shared_ptr<const void>(buffer, buffer.get()), base, bytes};
    std::size_t at = 0;
    std::string not_finite;  // the first tensor holding a NaN or ±∞
    const auto place = [&](const std::string& name) {
        const placed p = find(shards, name);
        const weight_type type = p.tensor->dtype == tensor_dtype::f32   ? weight_type::f32
                                 : p.tensor->dtype == tensor_dtype::f16 ? weight_type::f16
                                                                        : weight_type::bf16;
        const llama_tensor t{at, std::size_t(p.tensor->elements()), type};
        std::memcpy(base + at, p.shard->bytes + p.tensor->begin, t.bytes());  // little-endian files and hosts
        if (not_finite.empty() && !finite(m, t))
            not_finite = name;
        at += (t.bytes() + 3) / 4 * 4;
        return t;
    };
    m.token_embedding = place("model.embed_tokens.weight");
    m.layers.resize(std::size_t(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        llama_layer_tensors& w = m.layers[std::size_t(l)];
        w.rms_att = place(p + "input_layernorm.weight");
        w.wq = place(p + "self_attn.q_proj.weight");
        w.wk = place(p + "self_attn.k_proj.weight");
        w.wv = place(p + "self_attn.v_proj.weight");
        if (c.qkv_bias) {
            w.bq = place(p + "self_attn.q_proj.bias");
            w.bk = place(p + "self_attn.k_proj.bias");
            w.bv = place(p + "self_attn.v_proj.bias");
        }
        w.wo = place(p + "self_attn.o_proj.weight");
        w.rms_ffn = place(p + "post_attention_layernorm.weight");
        w.w1 = place(p + "mlp.gate_proj.weight");
        w.w3 = place(p + "mlp.up_proj.weight");
        w.w2 = place(p + "mlp.down_proj.weight");
    }
    m.rms_final = place("model.norm.weight");
    m.classifier = c.tied ? m.token_embedding : place("lm_head.weight");
    if (!not_finite.empty())
        return "the tensor '" + not_finite + "' holds a NaN or ±∞";
    out = std::move(m);
    return std::nullopt;
}

}  // namespace attn
