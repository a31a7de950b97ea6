// llama2.c checkpoints: the header checked against limits and against the
// file's length before anything is allocated, then the fp32 tensors read into
// one buffer with every weight's place in it. Versions 0 (legacy: seven int32
// fields, a negative vocab_size for an unshared classifier, the tensors in
// run.c's order, then two RoPE tables we skip) and 1 (magic "ak42", version,
// the seven fields, a shared-classifier byte, padded to 256 bytes, the tensors
// in export.py's version-1 order). Version 2 (Q8_0) is refused with a message.
//
//   llama_model m;
//   std::string why;
//   if (!llama_checkpoint_read(bytes, size, m, &why)) report(why);
//   const float* wq0 = m.at(m.layers[0].wq);   // (n_heads·head_size, dim) row-major
//
// Shapes follow PyTorch's nn.Linear: a projection's weight is (out, in),
// row-major, so out[i] = Σ_j w[i·in + j]·x[j] (run.c's matmul).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// What the header says, after checking. vocab_size is positive here; the
// legacy sign is shared_classifier.
struct llama_config {
    int version = 0;  // 0 legacy, 1
    int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
    bool shared_classifier = true;
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

// A span of the model's buffer: offset and length in floats.
struct llama_tensor {
    std::size_t offset = 0, size = 0;
};

struct llama_layer_tensors {
    llama_tensor rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;
};

struct llama_model {
    llama_config config;
    std::vector<float> weights;                           // every tensor, in the file's order
    llama_tensor token_embedding, rms_final, classifier;  // classifier = token_embedding when shared
    std::vector<llama_layer_tensors> layers;
    const float* at(const llama_tensor& t) const { return weights.data() + t.offset; }
};

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

// The bytes a checkpoint of this config holds (header, tensors, v0's RoPE
// tables): what the header is checked against, and what a writer writes.
std::int64_t llama_checkpoint_bytes(const llama_config& c);

}  // namespace attn
