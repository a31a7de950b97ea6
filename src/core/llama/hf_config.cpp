#include "llama/hf_config.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "llama/json_checked.hpp"

namespace attn {

namespace {

using json = nlohmann::json;

struct arch_row {
    const char* architecture;
    const char* model_type;
    hf_arch arch;
};
constexpr arch_row arch_table[] = {
    {"GPT2LMHeadModel", "gpt2", hf_arch::gpt2},
    {"LlamaForCausalLM", "llama", hf_arch::llama},
    {"Qwen2ForCausalLM", "qwen2", hf_arch::qwen2},
    {"Qwen3ForCausalLM", "qwen3", hf_arch::qwen3},
};

// A size: a whole number from 1 to `most`, under any of `names` (GPT-2's and the
// Llama family's spell them differently).
std::optional<std::string> size_at(const json& j, std::initializer_list<const char*> names, int most, int& out,
                                   std::optional<int> fallback = std::nullopt) {
    for (const char* name : names) {
        const json* v = json_member(j, name);
        if (!v || v->is_null())
            continue;
        if (!v->is_number_unsigned() || v->get<std::uint64_t>() < 1 || v->get<std::uint64_t>() > std::uint64_t(most))
            return std::string("config.json's ") + name + " must be a whole number from 1 to " + std::to_string(most);
        out = int(v->get<std::uint64_t>());
        return std::nullopt;
    }
    if (fallback) {
        out = *fallback;
        return std::nullopt;
    }
    return std::string("config.json has no ") + *names.begin();
}

// An option this playground does not implement, refused when the config sets it.
std::optional<std::string> refuse_if(const json& j, const char* name, bool when_true, const char* what) {
    const std::optional<bool> v = json_bool_at(j, name);
    if (v && *v == when_true)
        return std::string("config.json sets ") + name + " = " + (when_true ? "true" : "false") + ": " + what +
               " is not implemented here";
    return std::nullopt;
}

std::optional<std::string> read_gpt2(const json& j, hf_config& c) {
    for (const auto& [name, most, field] :
         {std::tuple{"n_embd", llama_limits::max_dim, &c.d_model}, std::tuple{"n_layer", llama_limits::max_layers, &c.layers},
          std::tuple{"n_head", llama_limits::max_heads, &c.heads}, std::tuple{"vocab_size", llama_limits::max_vocab, &c.vocab}})
        if (auto why = size_at(j, {name}, most, *field))
            return why;
    if (auto why = size_at(j, {"n_positions", "n_ctx"}, hf_max_context, c.context))
        return why;
    if (auto why = size_at(j, {"n_inner"}, llama_limits::max_hidden, c.d_ff, 4 * c.d_model))
        return why;
    if (c.d_ff > llama_limits::max_hidden)
        return std::string("config.json's 4 × n_embd is over ") + std::to_string(llama_limits::max_hidden);
    const std::string* act = json_string_at(j, "activation_function");
    if (act && *act != "gelu_new" && *act != "gelu_pytorch_tanh")
        return "config.json's activation_function is '" + act->substr(0, 40) +
               "': GPT-2's tanh-approximated GELU (gelu_new) is implemented here";
    for (auto why : {refuse_if(j, "scale_attn_by_inverse_layer_idx", true, "scaling attention by the layer's index"),
                     refuse_if(j, "scale_attn_weights", false, "attention without the 1/√d scale"),
                     refuse_if(j, "add_cross_attention", true, "cross-attention"),
                     refuse_if(j, "tie_word_embeddings", false, "a GPT-2 head apart from its embedding")})
        if (why)
            return why;
    c.norm_eps = json_number_at(j, "layer_norm_epsilon").value_or(1e-5);
    c.kv_heads = c.heads;
    c.tied = true;
    if (c.d_model % c.heads != 0)
        return "config.json's n_embd " + std::to_string(c.d_model) + " is not a multiple of n_head " + std::to_string(c.heads);
    c.head_dim = c.d_model / c.heads;
    return std::nullopt;
}

std::optional<std::string> read_rope(const json& j, hf_config& c) {
    if (const json* s = json_member(j, "rope_scaling"); s && !s->is_null()) {
        const std::string* type = json_string_at(*s, "rope_type");
        if (!type)
            type = json_string_at(*s, "type");
        return "config.json's rope_scaling" + (type ? " of type '" + type->substr(0, 40) + "'" : std::string()) +
               " is not implemented here: RoPE is computed without scaling";
    }
    c.rope_theta = json_number_at(j, "rope_theta").value_or(10000.0);
    if (!(c.rope_theta > 1.0 && c.rope_theta < 1e12))
        return std::string("config.json's rope_theta must be a number above 1");
    return std::nullopt;
}

std::optional<std::string> read_llama_family(const json& j, hf_config& c) {
    for (const auto& [name, most, field] : {std::tuple{"hidden_size", llama_limits::max_dim, &c.d_model},
                                            std::tuple{"num_hidden_layers", llama_limits::max_layers, &c.layers},
                                            std::tuple{"num_attention_heads", llama_limits::max_heads, &c.heads},
                                            std::tuple{"intermediate_size", llama_limits::max_hidden, &c.d_ff},
                                            std::tuple{"vocab_size", llama_limits::max_vocab, &c.vocab}})
        if (auto why = size_at(j, {name}, most, *field))
            return why;
    if (auto why = size_at(j, {"max_position_embeddings"}, hf_max_context, c.context))
        return why;
    if (auto why = size_at(j, {"num_key_value_heads"}, llama_limits::max_heads, c.kv_heads, c.heads))
        return why;
    const bool own_head_dim = json_member(j, "head_dim") && !json_member(j, "head_dim")->is_null();
    if (!own_head_dim && c.d_model % c.heads != 0)
        return "config.json's hidden_size " + std::to_string(c.d_model) + " is not a multiple of num_attention_heads " +
               std::to_string(c.heads);
    if (auto why = size_at(j, {"head_dim"}, llama_limits::max_dim, c.head_dim, c.d_model / c.heads))
        return why;
    if (c.head_dim % 2 != 0)
        return "config.json's head_dim " + std::to_string(c.head_dim) + " is odd: RoPE rotates pairs";
    if (c.heads % c.kv_heads != 0)
        return "config.json's num_attention_heads " + std::to_string(c.heads) + " is not a multiple of num_key_value_heads " +
               std::to_string(c.kv_heads);
    const std::string* act = json_string_at(j, "hidden_act");
    if (act && *act != "silu")
        return "config.json's hidden_act is '" + act->substr(0, 40) + "': SwiGLU with SiLU is implemented here";
    if (auto why = read_rope(j, c))
        return why;
    for (auto why : {refuse_if(j, "use_sliding_window", true, "sliding-window attention"),
                     refuse_if(j, "mlp_bias", true, "an MLP with biases"),
                     c.arch == hf_arch::qwen2 ? std::nullopt : refuse_if(j, "attention_bias", true, "attention with biases")})
        if (why)
            return why;
    c.norm_eps = json_number_at(j, "rms_norm_eps").value_or(1e-6);
    c.tied = json_bool_at(j, "tie_word_embeddings").value_or(false);
    c.qkv_bias = c.arch == hf_arch::qwen2;
    c.qk_norm = c.arch == hf_arch::qwen3;
    return std::nullopt;
}

// bos_token_id or eos_token_id: a token of the vocabulary, or a list of them
// (Llama 3's eos), whose first is kept; absent or null: −1.
std::optional<std::string> token_id_at(const json& j, const char* name, int vocab, int& out) {
    const json* v = json_member(j, name);
    if (v && v->is_array() && !v->empty())
        v = &(*v)[0];
    if (!v || v->is_null() || (v->is_array() && v->empty()))
        return std::nullopt;
    if (!v->is_number_unsigned() || v->get<std::uint64_t>() >= std::uint64_t(vocab))
        return std::string("config.json's ") + name + " is not one of its vocab_size " + std::to_string(vocab) + " tokens";
    out = int(v->get<std::uint64_t>());
    return std::nullopt;
}

std::string shape_text(const std::vector<std::uint64_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

// GPT-2's mask buffers: h.<n>.attn.bias and h.<n>.attn.masked_bias (not weights).
bool gpt2_buffer(std::string_view name) {
    if (name.substr(0, 2) != "h.")
        return false;
    const std::size_t dot = name.find('.', 2);
    if (dot == std::string_view::npos || dot == 2 ||
        name.substr(2, dot - 2).find_first_not_of("0123456789") != std::string_view::npos)
        return false;
    const std::string_view rest = name.substr(dot);
    return rest == ".attn.bias" || rest == ".attn.masked_bias";
}

}  // namespace

std::optional<std::string> hf_config_read(std::string_view text, hf_config& out) {
    out = {};
    json j;
    if (auto why = json_parse_checked(text, j, 16))
        return "config.json: " + *why;
    if (!j.is_object())
        return std::string("config.json is not one JSON object");
    const json* archs = json_member(j, "architectures");
    if (!archs || !archs->is_array() || archs->size() != 1 || !(*archs)[0].is_string())
        return std::string("config.json names no single architecture (\"architectures\": [\"…ForCausalLM\"])");
    const std::string& name = (*archs)[0].get_ref<const std::string&>();
    const auto row =
        std::find_if(std::begin(arch_table), std::end(arch_table), [&](const arch_row& r) { return name == r.architecture; });
    if (row == std::end(arch_table))
        return "config.json's architecture is '" + name.substr(0, 60) +
               "': this playground computes GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM and Qwen3ForCausalLM";
    if (const std::string* type = json_string_at(j, "model_type"); type && *type != row->model_type)
        return "config.json's model_type '" + type->substr(0, 40) + "' is not " + row->architecture + "'s ('" + row->model_type +
               "')";
    hf_config c;
    c.arch = row->arch;
    c.architecture = row->architecture;
    if (auto why = c.arch == hf_arch::gpt2 ? read_gpt2(j, c) : read_llama_family(j, c))
        return why;
    for (const auto& [name, id] : {std::pair{"bos_token_id", &c.bos}, std::pair{"eos_token_id", &c.eos}})
        if (auto why = token_id_at(j, name, c.vocab, *id))
            return why;
    out = c;
    return std::nullopt;
}

std::vector<hf_tensor_want> hf_config_tensors(const hf_config& c) {
    using u = std::uint64_t;
    const u d = u(c.d_model), ff = u(c.d_ff), v = u(c.vocab), hd = u(c.head_dim), q = u(c.heads) * hd, kv = u(c.kv_heads) * hd;
    std::vector<hf_tensor_want> w;
    if (c.arch == hf_arch::gpt2) {
        w.push_back({"wte.weight", {v, d}});
        w.push_back({"wpe.weight", {u(c.context), d}});
        for (int l = 0; l < c.layers; ++l) {
            const std::string p = "h." + std::to_string(l) + ".";
            for (const char* n : {"ln_1", "ln_2"}) {
                w.push_back({p + n + ".weight", {d}});
                w.push_back({p + n + ".bias", {d}});
            }
            w.push_back({p + "attn.c_attn.weight", {d, 3 * d}});
            w.push_back({p + "attn.c_attn.bias", {3 * d}});
            w.push_back({p + "attn.c_proj.weight", {d, d}});
            w.push_back({p + "attn.c_proj.bias", {d}});
            w.push_back({p + "mlp.c_fc.weight", {d, ff}});
            w.push_back({p + "mlp.c_fc.bias", {ff}});
            w.push_back({p + "mlp.c_proj.weight", {ff, d}});
            w.push_back({p + "mlp.c_proj.bias", {d}});
        }
        w.push_back({"ln_f.weight", {d}});
        w.push_back({"ln_f.bias", {d}});
        return w;
    }
    w.push_back({"model.embed_tokens.weight", {v, d}});
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        w.push_back({p + "input_layernorm.weight", {d}});
        w.push_back({p + "self_attn.q_proj.weight", {q, d}});
        w.push_back({p + "self_attn.k_proj.weight", {kv, d}});
        w.push_back({p + "self_attn.v_proj.weight", {kv, d}});
        if (c.qkv_bias) {
            w.push_back({p + "self_attn.q_proj.bias", {q}});
            w.push_back({p + "self_attn.k_proj.bias", {kv}});
            w.push_back({p + "self_attn.v_proj.bias", {kv}});
        }
        if (c.qk_norm) {
            w.push_back({p + "self_attn.q_norm.weight", {hd}});
            w.push_back({p + "self_attn.k_norm.weight", {hd}});
        }
        w.push_back({p + "self_attn.o_proj.weight", {d, q}});
        w.push_back({p + "post_attention_layernorm.weight", {d}});
        w.push_back({p + "mlp.gate_proj.weight", {ff, d}});
        w.push_back({p + "mlp.up_proj.weight", {ff, d}});
        w.push_back({p + "mlp.down_proj.weight", {d, ff}});
    }
    w.push_back({"model.norm.weight", {d}});
    if (!c.tied)
        w.push_back({"lm_head.weight", {v, d}});
    return w;
}

std::optional<std::string> hf_check_tensors(const hf_config& c, const std::vector<const safetensors_tensor*>& tensors) {
    // GPT-2's files spell the names with or without "transformer." (as the model
    // saved them): the prefix all of them share, or none.
    const bool prefixed = c.arch == hf_arch::gpt2 && !tensors.empty() &&
                          std::all_of(tensors.begin(), tensors.end(), [](const safetensors_tensor* t) {
                              return t->name.rfind("transformer.", 0) == 0 || t->name == "lm_head.weight";
                          });
    std::map<std::string_view, const safetensors_tensor*> by_name;
    for (const safetensors_tensor* t : tensors) {
        std::string_view name = t->name;
        if (prefixed && name != "lm_head.weight")
            name.remove_prefix(12);
        if (!by_name.emplace(name, t).second)
            return "the tensor '" + t->name.substr(0, 80) + "' is in two of the folder's files";
    }
    for (const hf_tensor_want& want : hf_config_tensors(c)) {
        const auto it = by_name.find(want.name);
        if (it == by_name.end())
            return "the folder has no tensor '" + want.name + "', which a " + c.architecture + " of this config.json holds";
        const safetensors_tensor& t = *it->second;
        if (t.shape != want.shape)
            return "the tensor '" + t.name + "' is " + shape_text(t.shape) + "; config.json makes it " + shape_text(want.shape);
        if (t.dtype == tensor_dtype::other)
            return "the tensor '" + t.name + "' is " + t.dtype_name + ": weights are read in F32, F16 or BF16";
        by_name.erase(it);
    }
    for (const auto& [name, t] : by_name) {
        if (c.arch == hf_arch::gpt2 && gpt2_buffer(name))
            continue;  // the causal mask GPT-2 kept as a buffer: not a weight
        if (c.tied && name == "lm_head.weight" &&
            t->shape == std::vector<std::uint64_t>{std::uint64_t(c.vocab), std::uint64_t(c.d_model)})
            continue;  // a tied head saved as well: the embedding is what is computed with
        return "the folder holds the tensor '" + t->name.substr(0, 80) + "', which a " + c.architecture +
               " of this config.json does not have: refused rather than computing another model";
    }
    return std::nullopt;
}

}  // namespace attn
