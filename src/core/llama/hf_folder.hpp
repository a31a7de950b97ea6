// A Hugging Face model folder, from its files' bytes by name, as the llama
// block's model and its tokenizer: what the command line, the native app and
// the page share, each reading the files its own way (from disk, from the files
// a person picked). The folder holds config.json, tokenizer.json, and either
// model.safetensors or model.safetensors.index.json with the shards it names.
// Every problem is a message naming the file it is in.
//
//   std::vector<std::string> names;                 // which files to read
//   if (auto why = hf_folder_files(index_or_null, names)) report(*why);
//   std::vector<hf_folder_file> files = …;          // each name with its bytes
//   hf_folder f;
//   if (auto why = hf_folder_read(files, f)) report(*why);
//   // f.model: the llama block's model (hf_model.hpp); f.config: what config.json said
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/hf_config.hpp"
#include "llama/tokenizer.hpp"

namespace attn {

inline constexpr const char* hf_config_file = "config.json";
inline constexpr const char* hf_tokenizer_file = "tokenizer.json";
inline constexpr const char* hf_weights_file = "model.safetensors";
inline constexpr const char* hf_index_file = "model.safetensors.index.json";

// One file of the folder: its plain name there and its bytes — borrowed (the
// caller keeps them alive while hf_folder_read runs; the model copies what it
// keeps), or, with `owner` set (owner.get() == bytes), handed over: a safetensors
// file's bytes are then the model's weights where they lie (hf_model.hpp's
// hf_shard), and the model may rewrite them (GPT-2's Conv1D weights are turned in
// place), so the caller does not read them again, not even after a refusal.
struct hf_folder_file {
    std::string name;
    const unsigned char* bytes = nullptr;
    std::size_t size = 0;
    std::shared_ptr<unsigned char> owner;

    hf_folder_file() = default;
    hf_folder_file(std::string file_name, const unsigned char* b, std::size_t n, std::shared_ptr<unsigned char> own = nullptr)
        : name(std::move(file_name)), bytes(b), size(n), owner(std::move(own)) {}
};

// The files a folder's reading needs, in the order read: config.json,
// tokenizer.json, then model.safetensors — or, given the bytes of the folder's
// model.safetensors.index.json, the index and the shards it names.
std::optional<std::string> hf_folder_files(const hf_folder_file* index, std::vector<std::string>& out);

struct hf_folder {
    hf_config config;
    llama_model model;
    llama_tokenizer tokenizer;
};

// The folder's files (those hf_folder_files names; others are ignored) read and
// checked: config.json (hf_config_read), the safetensors headers and the index
// (safetensors.hpp: each tensor in the file the index names, and in no other),
// the tensors against the config and the weights into the model (hf_model_read),
// and tokenizer.json for the model's vocabulary (hf_tokenizer.hpp), its EOS the
// config's eos_token_id where it names one. The tokenizer is read before the
// weights are placed, so a refused tokenizer.json leaves handed-over bytes as
// they were. On a problem `out` is left empty.
std::optional<std::string> hf_folder_read(const std::vector<hf_folder_file>& files, hf_folder& out);

}  // namespace attn
