// llama2.c checkpoints: the header checked against limits and against the
// file's length before anything is allocated, then the fp32 tensors read into
// one buffer with every weight's place in it — the model's own copy, or the
// file's bytes themselves when the caller hands them over (llama_checkpoint_adopt:
// no copy, the file's size in memory and no more). Versions 0 (legacy: seven int32
// fields, a negative vocab_size for an unshared classifier, the tensors in
// run.c's order, then two RoPE tables we skip) and 1 (magic "ak42", version,
// the seven fields, a shared-classifier byte, padded to 256 bytes, the tensors
// in export.py's version-1 order). Version 2 (Q8_0) is refused with a message.
//
//   llama_model m;
//   std::string why;
//   if (!llama_checkpoint_read(bytes, size, m, &why)) report(why);      // copies the weights
//   if (!llama_checkpoint_adopt(std::move(file), size, m, &why)) ...   // keeps the file's bytes
//   const float* wq0 = m.at(m.layers[0].wq);   // (n_heads·head_size, dim) row-major, fp32
//
// Shapes follow PyTorch's nn.Linear: a projection's weight is (out, in),
// row-major, so out[i] = Σ_j w[i·in + j]·x[j] (run.c's matmul).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

// The block a model computes: the llama family's (RMSNorm, RoPE, SwiGLU), or
// GPT-2's (LayerNorm with biases, learned absolute positions added to the
// embedding, a GELU FFN of one matrix up and one down, biases on every projection).
enum class llama_arch { llama, gpt2 };

// A tensor's weights as its file stores them: fp32, IEEE half or bfloat16.
enum class weight_type : unsigned char { f32, f16, bf16 };
inline std::size_t weight_type_bytes(weight_type t) { return t == weight_type::f32 ? 4 : 2; }
inline const char* weight_type_name(weight_type t) {  // as safetensors names it
    return t == weight_type::f32 ? "F32" : t == weight_type::f16 ? "F16" : "BF16";
}

// What the header says, after checking. vocab_size is positive here; the
// legacy sign is shared_classifier.
struct llama_config {
    int version = 0;  // 0 legacy, 1
    int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
    bool shared_classifier = true;
    // How RoPE and RMSNorm are computed: llama2.c's (base 10000, interleaved pairs,
    // ε 1e-5), unless a Hugging Face config.json says otherwise (hf_config.hpp).
    float rope_theta = 10000.0f;
    bool rope_half = false;  // pairs (x[p], x[p + d/2]) (rotate_half), not (x[2p], x[2p+1])
    float norm_eps = 1e-5f;
    llama_arch arch = llama_arch::llama;
    int head_size() const { return n_heads > 0 ? dim / n_heads : 0; }
    int kv_dim() const { return n_kv_heads * head_size(); }
};

// The limits a header must keep: enough for llama2.c's published models (the
// 110M one is 768 / 2048 / 12 layers / 12 heads / 32000 / 1024) with room, and a
// model that fits the page's 2 GB heap (at most llama_max_floats weights).
struct llama_limits {
    static constexpr int max_dim = 8192;
    static constexpr int max_hidden = 32768;
    static constexpr int max_layers = 128;
    static constexpr int max_heads = 256;
    static constexpr int max_vocab = 262144;
    static constexpr int max_seq_len = 32768;
    static constexpr std::int64_t max_floats = std::int64_t(400) << 20;  // 1.6 GB of fp32
};

// A tensor in the model's bytes: its first weight, how many weights it holds and
// their type (fp32 for llama2.c's files; a Hugging Face file's F32, F16 or BF16
// as stored), in memory the model's `weights` keep alive.
struct llama_tensor {
    const unsigned char* data = nullptr;
    std::size_t size = 0;
    weight_type type = weight_type::f32;
    std::size_t bytes() const { return size * weight_type_bytes(type); }
};

struct llama_layer_tensors {
    llama_tensor rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;
    llama_tensor bq, bk, bv;  // Qwen2's biases on q, k and v (size 0: none, as in llama2.c's files)
    // GPT-2's: the norms' biases (rms_att and rms_ffn are then LayerNorms' gains), the
    // output projection's and the FFN's (w1 up, w2 down; no w3). Size 0 otherwise.
    llama_tensor norm_att_bias, norm_ffn_bias, bo, b1, b2;
};

// The bytes every tensor lives in: a buffer the model allocated, or the files'
// bytes it adopted; `owner` keeps them alive (a model copied shares them: weights
// are never written after loading). `bytes` is the first (a llama2.c
// checkpoint's tensors, in the file's order, all lie in it); `size` counts them all.
struct llama_weights {
    std::shared_ptr<const void> owner;
    const unsigned char* bytes = nullptr;
    std::size_t size = 0;  // in bytes, over every buffer
    bool empty() const { return size == 0; }
};

struct llama_model {
    llama_config config;
    llama_weights weights;
    llama_tensor token_embedding, rms_final, classifier;  // classifier = token_embedding when shared
    llama_tensor position_embedding, norm_final_bias;     // GPT-2's (seq_len, dim) positions and ln_f's bias
    std::vector<llama_layer_tensors> layers;
    // An fp32 tensor's floats (llama2.c's files hold no other type).
    const float* at(const llama_tensor& t) const {
        assert(t.type == weight_type::f32);
        return reinterpret_cast<const float*>(t.data);
    }
    // Any tensor's first weight, of type t.type.
    const void* raw(const llama_tensor& t) const { return t.data; }
    // Row `row` of a (rows, cols) tensor, of type t.type.
    const void* row(const llama_tensor& t, std::size_t row, std::size_t cols) const {
        return t.data + row * cols * weight_type_bytes(t.type);
    }
};

// The weights the model's tensors hold (a shared classifier once; not v0's RoPE tables).
std::size_t llama_parameters(const llama_model& m);

// Weights [first, first + count) of tensor t as fp32, into out (widened exactly).
void llama_floats(const llama_model& m, const llama_tensor& t, std::size_t first, std::size_t count, float* out);
std::vector<float> llama_floats(const llama_model& m, const llama_tensor& t);

// y(n, out) = x(n, in)·W[first_row .. first_row + out)ᵀ for a (·, in) tensor W
// of any type (fp32: kernels.hpp's kernel_matmul_bt; 16-bit: kernel_matmul_bt_16).
void llama_matmul_bt(const float* x, const llama_model& m, const llama_tensor& w, std::size_t first_row, float* y, int n, int out,
                     int in);

// The header alone, from a file's first `size` bytes (its first 256, or all it
// has): the version and the fields checked as below, but not the file's length.
// What the page reads first of a download, to know how long the file may be
// (llama_checkpoint_bytes) before it takes more.
bool llama_checkpoint_fields(const unsigned char* bytes, std::size_t size, llama_config& out, std::string* error = nullptr);

// The header of `size` bytes at `bytes`: the version, the fields checked against
// llama_limits and each other (dim a multiple of n_heads, an even head size for
// RoPE's pairs, n_heads a multiple of n_kv_heads), and the file's length against
// the tensors they describe. False and a message naming the problem otherwise.
bool llama_checkpoint_header(const unsigned char* bytes, std::size_t size, llama_config& out, std::string* error = nullptr);

// The whole checkpoint: the header as above, then the tensors copied into
// out.weights (allocated once, after every check), each tensor's place set. A
// weight that is NaN or ±∞ is refused with the tensor's name and index. On
// failure out is left empty.
bool llama_checkpoint_read(const unsigned char* bytes, std::size_t size, llama_model& out, std::string* error = nullptr);

// The same checks, but the model keeps `file` (size bytes) and reads its weights
// where they lie (version 1's start at byte 256, version 0's at 28): memory for
// the file alone. A file whose weights are not 4-byte aligned in memory is
// copied instead. On failure out is left empty and `file` released.
bool llama_checkpoint_adopt(std::shared_ptr<const unsigned char> file, std::size_t size, llama_model& out,
                            std::string* error = nullptr);

// A whole file, as the command line and the native app open a checkpoint or a
// tokenizer: one allocation of the file's size, read in place, ready for
// llama_checkpoint_adopt. Null with a message naming the file when it cannot be
// opened or read, is a folder, or is larger than any checkpoint llama_limits allows.
// The bytes are the caller's to hand over, and the receiver's to rewrite
// (a Hugging Face folder's GPT-2 weights are turned where they lie).
struct llama_file {
    std::shared_ptr<unsigned char> bytes;
    std::size_t size = 0;
};
llama_file llama_file_read(const std::string& path, std::string& error);

// The bytes a checkpoint of this config holds (header, tensors, v0's RoPE
// tables): what the header is checked against, and what a writer writes.
std::int64_t llama_checkpoint_bytes(const llama_config& c);

}  // namespace attn
