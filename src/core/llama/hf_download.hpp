// How far the page reads each file of a Hugging Face folder it downloads (a
// link's model_url= naming a folder, web/folders.js): config.json, the index and
// tokenizer.json no further than fixed limits, a safetensors file no further than
// its header says it is (8 + N + the end of its last tensor) — so a host answering
// endless bytes is stopped, and a shard's length is known before its tensors'
// bytes are taken.
//
//   hf_download_limit l = hf_download_limit_of(name, first, have);
//   if (!l.error.empty()) stop(l.error);
//   else if (l.need > have) read_more_then_ask_again(l.need);  // a shard's header: 8 bytes, then 8 + N
//   else read_at_most(l.bytes);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attn {

// The JSON files' limits: config.json and the index are small (an index of a
// thousand tensors is about 100 kB); tokenizer.json's is hf_tokenizer_max_bytes.
inline constexpr std::uint64_t hf_download_config_bytes = std::uint64_t(1) << 20;
inline constexpr std::uint64_t hf_download_index_bytes = std::uint64_t(16) << 20;

struct hf_download_limit {
    std::uint64_t bytes = 0;  // the most bytes the file may have (0 while `need` asks for more)
    std::uint64_t need = 0;   // a safetensors file: read this many first and ask again (its header)
    std::string error;        // why the file is refused, naming it ("" when it is not)
};

// The limit of the folder's file `name` (a plain name: config.json,
// model.safetensors.index.json, tokenizer.json or a .safetensors file), from its
// first `have` bytes (a safetensors file's header is checked whole, as
// safetensors_read checks it, before its tensors' bytes are read).
hf_download_limit hf_download_limit_of(const std::string& name, const unsigned char* head, std::size_t have);

}  // namespace attn
