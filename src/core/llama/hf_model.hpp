// A Hugging Face GPT-2, Llama or Qwen2 folder as the llama block's model: the config
// (hf_config.hpp) and the tensors of its safetensors files, checked against each
// other, copied into one buffer in the block's places (rotate_half RoPE with the
// config's rope_theta, its RMSNorm ε, Qwen2's q/k/v biases, a tied or separate
// head). Each tensor keeps its file's type, F32, F16 or BF16: the kernels read
// 16-bit weights where they lie (kernels.hpp's kernel_matmul_bt_16), so a BF16
// model takes half an F32 one's memory. GPT-2 (llama_arch::gpt2): its Conv1D
// weights (in, out) turned to the block's (out, in) rows as they are copied,
// c_attn split into W_q, W_k, W_v and its bias into theirs, the LayerNorms' gains
// and biases, the learned positions, the tied head. Qwen3 is refused until its
// per-head q/k norm exists.
//
//   std::vector<hf_shard> shards = {{bytes, size, &header}};        // borrowed: the tensors are copied
//   std::vector<hf_shard> shards = {{own.get(), size, &header, own}};  // handed over: read where they lie
//   llama_model m;
//   if (auto why = hf_model_read(config, shards, m)) report(*why);
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/hf_config.hpp"
#include "llama/safetensors.hpp"

namespace attn {

// One safetensors file of the folder: its bytes and its header as read, and,
// when the caller hands the bytes over, their owner (owner.get() == bytes). When
// every shard is handed over and each tensor lies aligned to its type, the model
// keeps the files' bytes as its weights (memory for the files alone; GPT-2's
// Conv1D weights are turned to (out, in) where they lie, so the bytes change);
// else each tensor is copied, in its type, into one buffer of the model's.
struct hf_shard {
    const unsigned char* bytes = nullptr;
    std::size_t size = 0;
    const safetensors_file* header = nullptr;
    std::shared_ptr<unsigned char> owner;

    hf_shard() = default;
    hf_shard(const unsigned char* b, std::size_t n, const safetensors_file* h, std::shared_ptr<unsigned char> own = nullptr)
        : bytes(b), size(n), header(h), owner(std::move(own)) {}
};

// The llama block's config of a model of config c (what hf_model_read gives the
// model): what the page's memory is counted from before any weight is read.
llama_config hf_llama_config(const hf_config& c);

std::optional<std::string> hf_model_read(const hf_config& c, const std::vector<hf_shard>& shards, llama_model& out);

}  // namespace attn
