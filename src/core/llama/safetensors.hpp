// Hugging Face safetensors files, read and checked before anything is allocated.
// A file is an 8-byte little-endian length N, N bytes of JSON (padded with
// spaces), then the tensors' bytes:
//   {"__metadata__": {"format": "pt"},
//    "wte.weight": {"dtype": "F32", "shape": [50257, 768], "data_offsets": [0, 154389504]}, …}
// with offsets counted from the end of the header. Checked: the header inside the
// file and at most 100 MB (the format's own limit); JSON that is one object, no
// name given twice; each tensor's dtype one the format names, its shape's bytes
// equal to its offsets' span (without overflow), its bytes inside the file; the
// tensors tiling the data with no overlap and no gap, as the format requires.
// Every problem has a message that names the tensor.
//
//   safetensors_file f;
//   if (auto why = safetensors_read(bytes, have, file_size, f)) report(*why);
//   const safetensors_tensor* t = safetensors_find(f, "wte.weight");
//   // its bytes: file bytes t->begin … t->end, little-endian, row-major
//
// A folder sharded over several files names each tensor's file in
// model.safetensors.index.json: {"metadata": {…}, "weight_map": {name: file}}
// (safetensors_index_read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

// The element types a model's weights come in; `other` is any other type the
// format names (I64, U8, BOOL, F64, …: buffers, never weights here), kept with
// its name and size so the file is still checked whole.
enum class tensor_dtype { f32, f16, bf16, other };

struct safetensors_tensor {
    std::string name;
    tensor_dtype dtype = tensor_dtype::f32;
    std::string dtype_name;  // as the header says: "F32", "BF16", "I64", …
    std::size_t element_bytes = 4;
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0, end = 0;  // in the file: the header's offsets + 8 + N
    std::uint64_t elements() const;
};

struct safetensors_file {
    std::uint64_t data_begin = 0;                               // 8 + N: where the tensors' bytes start
    std::vector<safetensors_tensor> tensors;                    // sorted by name
    std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", in the header's order
};

struct safetensors_limits {
    static constexpr std::uint64_t max_header = std::uint64_t(100) << 20;  // the format's own limit
    static constexpr std::size_t max_rank = 8;
    static constexpr std::size_t max_name = 1024;
};

// Reads the header of a file of `file_size` bytes from its first `have` bytes
// (the whole file, or at least 8 + N of it: safetensors_header_bytes). On a
// problem `out` is left empty and the message says what is wrong.
std::optional<std::string> safetensors_read(const unsigned char* bytes, std::size_t have, std::uint64_t file_size,
                                            safetensors_file& out);

// How many bytes of the file the header takes (8 + N), from its first 8; 0 when
// fewer are given or N is over the limit. A caller reading a large file reads
// this many first.
std::uint64_t safetensors_header_bytes(const unsigned char* bytes, std::size_t have);

// The tensor named `name`, or nullptr.
const safetensors_tensor* safetensors_find(const safetensors_file& f, std::string_view name);

// A sharded folder's index: which file holds each tensor (sorted by name), and
// the files named, each once. A file name must be a
// plain name in the folder (no '/', '\\' or "..").
struct safetensors_index {
    std::vector<std::pair<std::string, std::string>> weight_map;
    std::vector<std::string> files;
};
std::optional<std::string> safetensors_index_read(std::string_view json, safetensors_index& out);

}  // namespace attn
