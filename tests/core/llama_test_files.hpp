// llama2.c files the core tests write: a tokenizer.bin of the special tokens,
// the 256 byte tokens and given pieces, and a version-1 checkpoint of random
// weights (norm gains near 1), as export.py and the tokenizer export write them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "llama/checkpoint.hpp"

namespace attn::test {

using llama_bytes = std::vector<unsigned char>;

inline void put_i32(llama_bytes& b, std::int32_t v) {
    unsigned char p[4];
    std::memcpy(p, &v, 4);
    b.insert(b.end(), p, p + 4);
}
inline void put_f32(llama_bytes& b, float v) {
    unsigned char p[4];
    std::memcpy(p, &v, 4);
    b.insert(b.end(), p, p + 4);
}

// <unk>, <s>, </s>, <0x00> … <0xFF>, then `extra` scored −id (earlier merges
// first); max_token_length the longest piece unless max_len is given.
inline llama_bytes llama_test_tokenizer(const std::vector<std::string>& extra, int max_len = 0) {
    std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
    char buf[8];
    for (int i = 0; i < 256; ++i) {
        std::snprintf(buf, sizeof buf, "<0x%02X>", i);
        pieces.push_back(buf);
    }
    pieces.insert(pieces.end(), extra.begin(), extra.end());
    int longest = 0;
    for (const std::string& p : pieces)
        longest = std::max(longest, int(p.size()));
    llama_bytes b;
    put_i32(b, max_len ? max_len : longest);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        put_f32(b, i < 259 ? 0.0f : -float(i));
        put_i32(b, std::int32_t(pieces[i].size()));
        b.insert(b.end(), pieces[i].begin(), pieces[i].end());
    }
    return b;
}

// A version-1 checkpoint of config c (version and sizes as given) with weights
// unit-normal / √dim; the norm gains are those plus 1.
inline llama_bytes llama_test_checkpoint(const llama_config& c, std::uint64_t seed) {
    llama_bytes b(std::size_t(llama_checkpoint_bytes(c)), 0);
    const std::int32_t head[] = {0x616b3432,   1,        c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                                 c.vocab_size, c.seq_len};
    std::memcpy(b.data(), head, sizeof head);
    b[sizeof head] = c.shared_classifier ? 1 : 0;
    rng g(seed);
    const std::size_t d = std::size_t(c.dim), L = std::size_t(c.n_layers);
    const std::size_t gains = 256 + (2 * L + 1) * d * 4;  // version 1 starts with rms_att, rms_ffn, rms_final
    for (std::size_t at = 256; at + 4 <= b.size(); at += 4) {
        const float v = g.normal() / std::sqrt(float(c.dim)) + (at < gains ? 1.0f : 0.0f);
        std::memcpy(b.data() + at, &v, 4);
    }
    return b;
}

// Sets float i of tensor t (a place llama_checkpoint_read found in model m) in a
// version-1 checkpoint's bytes, whose floats start at byte 256.
inline void llama_test_put(llama_bytes& b, const llama_model& m, const llama_tensor& t, std::size_t i, float v) {
    std::memcpy(b.data() + 256 + std::size_t(t.data - m.weights.bytes) + 4 * i, &v, 4);
}

// The tensors of checkpoint b (of config c) as llama_checkpoint_read places them.
inline llama_model llama_test_places(const llama_bytes& b) {
    llama_model m;
    llama_checkpoint_read(b.data(), b.size(), m);
    return m;
}

// Every layer's attention (W_q, W_k, W_v, W_O) and FFN (W_1, W_2, W_3) weights
// zeroed in b: each layer writes nothing, the embedding alone reaches the
// classifier.
inline void llama_test_zero_layers(llama_bytes& b) {
    const llama_model m = llama_test_places(b);
    for (const llama_layer_tensors& l : m.layers)
        for (const llama_tensor* t : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w1, &l.w2, &l.w3})
            for (std::size_t i = 0; i < t->size; ++i)
                llama_test_put(b, m, *t, i, 0.0f);
}

inline llama_config llama_test_config(int dim, int hidden, int layers, int heads, int kv, int vocab, int seq, bool shared) {
    llama_config c;
    c.version = 1;
    c.dim = dim, c.hidden_dim = hidden, c.n_layers = layers, c.n_heads = heads, c.n_kv_heads = kv, c.vocab_size = vocab;
    c.seq_len = seq, c.shared_classifier = shared;
    return c;
}

}  // namespace attn::test
