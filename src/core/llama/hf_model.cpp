#include "llama/hf_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

namespace attn {

namespace {

struct placed {
    const hf_shard* shard;
    const safetensors_tensor* tensor;
};

// The folder's tensor `name`, in whichever file holds it (hf_check_tensors has
// made sure it is there once), GPT-2's with or without "transformer." before it.
placed find(const std::vector<hf_shard>& shards, const std::string& name) {
    for (const hf_shard& s : shards) {
        if (const safetensors_tensor* t = safetensors_find(*s.header, name))
            return {&s, t};
        if (const safetensors_tensor* t = safetensors_find(*s.header, "transformer." + name))
            return {&s, t};
    }
    return {nullptr, nullptr};
}

std::optional<std::string> refuse_unsupported(const hf_config& c) {
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

weight_type type_of(const safetensors_tensor& t) {
    return t.dtype == tensor_dtype::f32 ? weight_type::f32 : t.dtype == tensor_dtype::f16 ? weight_type::f16 : weight_type::bf16;
}

// Copies the folder's tensors into the model's one buffer, each in its file's
// type, starting on a 4-byte boundary; remembers the first that is not finite.
struct placer {
    const std::vector<hf_shard>& shards;
    llama_model& m;
    unsigned char* base;  // the copy's buffer; null: every tensor read where it lies (the shards handed over)
    std::size_t at = 0;
    std::string not_finite;
    std::set<const safetensors_tensor*> turned;  // Conv1D weights turned in place already

    llama_tensor take(std::size_t size, weight_type type) {
        llama_tensor t{base + at, size, type};
        at += (t.bytes() + 3) / 4 * 4;
        return t;
    }
    void check(const llama_tensor& t, const std::string& name) {
        if (not_finite.empty() && !finite(m, t))
            not_finite = name;
    }
    // The tensor as it is (little-endian files and hosts).
    llama_tensor whole(const std::string& name) { return slice(name, 0, std::size_t(find(shards, name).tensor->elements())); }
    // Elements [first, first + count) (GPT-2's fused c_attn bias: q, k, v).
    llama_tensor slice(const std::string& name, std::size_t first, std::size_t count) {
        const placed p = find(shards, name);
        const weight_type type = type_of(*p.tensor);
        const unsigned char* from = p.shard->bytes + p.tensor->begin + first * weight_type_bytes(type);
        llama_tensor t{from, count, type};
        if (base) {
            t = take(count, type);
            std::memcpy(const_cast<unsigned char*>(t.data), from, t.bytes());
        }
        check(t, name);
        return t;
    }
    // Columns [col0, col0 + cols) of a Conv1D weight (in, out) as the block's
    // (out, in) rows: GPT-2 stores x·W, the block reads W's rows. In place, the
    // whole tensor is turned once where it lies (its file's bytes are the model's
    // to rewrite), through a copy of it: its rows col0… are then these.
    llama_tensor conv1d(const std::string& name, std::size_t col0, std::size_t cols) {
        const placed p = find(shards, name);
        const std::size_t in = std::size_t(p.tensor->shape[0]), out = std::size_t(p.tensor->shape[1]);
        const weight_type type = type_of(*p.tensor);
        const std::size_t es = weight_type_bytes(type);
        unsigned char* file = p.shard->owner.get() + p.tensor->begin;
        llama_tensor t{file + col0 * in * es, cols * in, type};
        if (base) {
            t = take(cols * in, type);
            turn(p.shard->bytes + p.tensor->begin, in, out, col0, cols, es, const_cast<unsigned char*>(t.data));
        } else if (turned.insert(p.tensor).second) {
            const std::vector<unsigned char> was(file, file + in * out * es);
            turn(was.data(), in, out, 0, out, es, file);
        }
        check(t, name);
        return t;
    }
    // Columns [col0, col0 + cols) of `from` (in, out), es bytes each, as (cols, in) rows at `to`.
    static void turn(const unsigned char* from, std::size_t in, std::size_t out, std::size_t col0, std::size_t cols,
                     std::size_t es, unsigned char* to) {
        for (std::size_t i = 0; i < in; ++i)
            for (std::size_t o = 0; o < cols; ++o)
                std::memcpy(to + (o * in + i) * es, from + (i * out + col0 + o) * es, es);
    }
};

// Whether the tensors can stay where they lie: every shard handed over, and each
// tensor's first byte aligned to its type (a float read in place must be).
bool adoptable(const hf_config& c, const std::vector<hf_shard>& shards) {
    for (const hf_shard& s : shards)
        if (!s.owner || s.owner.get() != s.bytes)
            return false;
    for (const hf_tensor_want& w : hf_config_tensors(c)) {
        const placed p = find(shards, w.name);
        if (reinterpret_cast<std::uintptr_t>(p.shard->bytes + p.tensor->begin) % weight_type_bytes(type_of(*p.tensor)) != 0)
            return false;
    }
    return true;
}

void place_llama(const hf_config& c, placer& p) {
    llama_model& m = p.m;
    m.token_embedding = p.whole("model.embed_tokens.weight");
    m.layers.resize(std::size_t(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        const std::string n = "model.layers." + std::to_string(l) + ".";
        llama_layer_tensors& w = m.layers[std::size_t(l)];
        w.rms_att = p.whole(n + "input_layernorm.weight");
        w.wq = p.whole(n + "self_attn.q_proj.weight");
        w.wk = p.whole(n + "self_attn.k_proj.weight");
        w.wv = p.whole(n + "self_attn.v_proj.weight");
        if (c.qkv_bias) {
            w.bq = p.whole(n + "self_attn.q_proj.bias");
            w.bk = p.whole(n + "self_attn.k_proj.bias");
            w.bv = p.whole(n + "self_attn.v_proj.bias");
        }
        w.wo = p.whole(n + "self_attn.o_proj.weight");
        w.rms_ffn = p.whole(n + "post_attention_layernorm.weight");
        w.w1 = p.whole(n + "mlp.gate_proj.weight");
        w.w3 = p.whole(n + "mlp.up_proj.weight");
        w.w2 = p.whole(n + "mlp.down_proj.weight");
    }
    m.rms_final = p.whole("model.norm.weight");
    m.classifier = c.tied ? m.token_embedding : p.whole("lm_head.weight");
}

// GPT-2: c_attn's (d, 3d) split into W_q, W_k, W_v (its columns q, k, v) and
// turned to (out, in), as c_proj and c_fc are; the LayerNorms' gains and biases.
void place_gpt2(const hf_config& c, placer& p) {
    llama_model& m = p.m;
    const std::size_t d = std::size_t(c.d_model), f = std::size_t(c.d_ff);
    m.token_embedding = p.whole("wte.weight");
    m.position_embedding = p.whole("wpe.weight");
    m.layers.resize(std::size_t(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        const std::string n = "h." + std::to_string(l) + ".";
        llama_layer_tensors& w = m.layers[std::size_t(l)];
        w.rms_att = p.whole(n + "ln_1.weight");
        w.norm_att_bias = p.whole(n + "ln_1.bias");
        w.wq = p.conv1d(n + "attn.c_attn.weight", 0, d);
        w.wk = p.conv1d(n + "attn.c_attn.weight", d, d);
        w.wv = p.conv1d(n + "attn.c_attn.weight", 2 * d, d);
        w.bq = p.slice(n + "attn.c_attn.bias", 0, d);
        w.bk = p.slice(n + "attn.c_attn.bias", d, d);
        w.bv = p.slice(n + "attn.c_attn.bias", 2 * d, d);
        w.wo = p.conv1d(n + "attn.c_proj.weight", 0, d);
        w.bo = p.whole(n + "attn.c_proj.bias");
        w.rms_ffn = p.whole(n + "ln_2.weight");
        w.norm_ffn_bias = p.whole(n + "ln_2.bias");
        w.w1 = p.conv1d(n + "mlp.c_fc.weight", 0, f);
        w.b1 = p.whole(n + "mlp.c_fc.bias");
        w.w2 = p.conv1d(n + "mlp.c_proj.weight", 0, d);
        w.b2 = p.whole(n + "mlp.c_proj.bias");
    }
    m.rms_final = p.whole("ln_f.weight");
    m.norm_final_bias = p.whole("ln_f.bias");
    m.classifier = m.token_embedding;
}

}  // namespace

llama_config hf_llama_config(const hf_config& c) {
    llama_config lc;
    lc.version = 1;
    lc.arch = c.arch == hf_arch::gpt2 ? llama_arch::gpt2 : llama_arch::llama;
    lc.dim = c.d_model, lc.hidden_dim = c.d_ff, lc.n_layers = c.layers;
    lc.n_heads = c.heads, lc.n_kv_heads = c.kv_heads, lc.vocab_size = c.vocab;
    lc.seq_len = std::min(c.context, llama_limits::max_seq_len);
    lc.shared_classifier = c.tied;
    lc.rope_theta = float(c.rope_theta), lc.rope_half = true, lc.norm_eps = float(c.norm_eps);
    return lc;
}

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
    llama_model m;
    m.config = hf_llama_config(c);
    placer p{shards, m, nullptr, 0, {}, {}};
    if (adoptable(c, shards)) {  // the files' bytes are the weights: memory for the files alone
        auto owners = std::make_shared<std::vector<std::shared_ptr<unsigned char>>>();
        for (const hf_shard& s : shards) {
            owners->push_back(s.owner);
            m.weights.size += s.size;
        }
        m.weights.bytes = shards.empty() ? nullptr : shards.front().bytes;
        m.weights.owner = std::shared_ptr<const void>(owners, owners.get());
    } else {  // each tensor copied in its file's type on a 4-byte boundary; GPT-2's fused ones become three
        std::size_t bytes = c.arch == hf_arch::gpt2 ? std::size_t(c.layers) * 16 : 0;
        for (const hf_tensor_want& w : hf_config_tensors(c)) {
            const placed q = find(shards, w.name);
            bytes += (std::size_t(q.tensor->end - q.tensor->begin) + 3) / 4 * 4;
        }
        if (std::int64_t(bytes) > llama_limits::max_floats * 4)
            return "the model's weights are " + std::to_string(bytes) + " bytes, more than the " +
                   std::to_string(llama_limits::max_floats * 4) + " the page can hold";
        std::shared_ptr<float[]> buffer(new float[bytes / 4]);
        p.base = reinterpret_cast<unsigned char*>(buffer.get());
        m.weights = {std::shared_ptr<const void>(buffer, buffer.get()), p.base, bytes};
    }
    if (c.arch == hf_arch::gpt2)
        place_gpt2(c, p);
    else
        place_llama(c, p);
    if (!p.not_finite.empty())
        return "the tensor '" + p.not_finite + "' holds a NaN or ±∞";
    out = std::move(m);
    return std::nullopt;
}

}  // namespace attn
