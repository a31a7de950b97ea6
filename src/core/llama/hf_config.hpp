// A Hugging Face folder's config.json for the architectures this playground
// computes: GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM and
// Qwen3ForCausalLM. Any other architecture, and any option of these it does not
// implement (rope_scaling, sliding windows, Llama's attention or MLP biases,
// another activation, GPT-2's per-layer attention scaling or cross-attention), is
// refused with a message naming it: never a different model computed silently.
// Then the tensors such a folder must hold, by name and shape
// (hf_config_tensors), checked against what its safetensors files hold
// (hf_check_tensors) before any weight is read.
//
//   hf_config c;
//   if (auto why = hf_config_read(text_of_config_json, c)) report(*why);
//   if (auto why = hf_check_tensors(c, tensors_of_every_shard)) report(*why);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/safetensors.hpp"

namespace attn {

enum class hf_arch { gpt2, llama, qwen2, qwen3 };

struct hf_config {
    hf_arch arch = hf_arch::llama;
    std::string architecture;  // as config.json names it: "Qwen2ForCausalLM"
    int layers = 0, d_model = 0, heads = 0, kv_heads = 0, head_dim = 0, d_ff = 0, vocab = 0;
    int context = 0;            // n_positions / max_position_embeddings
    double norm_eps = 1e-5;     // layer_norm_epsilon / rms_norm_eps
    double rope_theta = 10000;  // the Llama family's (GPT-2 has learned positions)
    bool tied = false;          // the output head is the token embedding (GPT-2 always)
    bool qkv_bias = false;      // Qwen2: biases on q, k and v
    bool qk_norm = false;       // Qwen3: an RMSNorm over each head's q and k
    int bos = -1, eos = -1;     // bos_token_id, eos_token_id (the first of a list): −1 where it names none
};

// A config keeps the limits of every real model (llama/checkpoint.hpp:
// llama_limits); its context, a number the model was trained to and never
// allocated here, may be up to hf_max_context (Llama 3.2 names 131072).
inline constexpr int hf_max_context = 1 << 20;

std::optional<std::string> hf_config_read(std::string_view json, hf_config& out);

// A tensor a folder of this config holds: its name as the files spell it (GPT-2's
// without the "transformer." some files put before it) and its shape, row-major:
// nn.Linear's (out, in), GPT-2's Conv1D (in, out).
struct hf_tensor_want {
    std::string name;
    std::vector<std::uint64_t> shape;
};
std::vector<hf_tensor_want> hf_config_tensors(const hf_config& c);

// The tensors of every file of the folder against the config: each wanted one
// there once, of its shape, in F32, F16 or BF16; none besides them but GPT-2's
// attention-mask buffers (h.N.attn.bias, h.N.attn.masked_bias) and, for a tied
// head, a copy of the embedding as lm_head.weight.
std::optional<std::string> hf_check_tensors(const hf_config& c, const std::vector<const safetensors_tensor*>& tensors);

}  // namespace attn
