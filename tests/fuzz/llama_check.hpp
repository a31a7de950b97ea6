// The property the llama2.c file fuzzer checks, shared with the corpus replay
// test (tests/core/test_llama_files.cpp). The first byte picks the parser:
//   'C'  the rest is a checkpoint (llama_checkpoint_read)
//   'T'  two bytes of vocab_size (little-endian), then a tokenizer.bin
//        (llama_tokenizer_read), then a few texts encoded and decoded
// Any other first byte: both, on the whole input (vocab_size = that byte + 1).
//
// For any bytes: a checkpoint read either fails with a message or holds exactly
// the weights its header describes, every tensor inside the buffer and finite; a
// header that passes fails the read only on a non-finite weight. A tokenizer read
// either fails with a message or holds vocab_size pieces no longer than
// max_token_length; encoding gives ids in range, and every id decodes.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "llama/checkpoint.hpp"
#include "llama/tokenizer.hpp"

namespace attn {

inline std::string llama_checkpoint_fuzz_check(std::string_view input, bool* valid = nullptr) {
    const auto* b = reinterpret_cast<const unsigned char*>(input.data());
    llama_config header;
    std::string why_header, why;
    const bool header_ok = llama_checkpoint_header(b, input.size(), header, &why_header);
    llama_model m;
    const bool ok = llama_checkpoint_read(b, input.size(), m, &why);
    if (valid)
        *valid = ok;
    if (!ok) {
        if (why.empty())
            return "a refused checkpoint without a message";
        if (header_ok && why.find(" holds ") == std::string::npos)
            return "a header that passes, refused for another reason than a weight: " + why;
        return m.weights.empty() ? "" : "a refused checkpoint left weights behind";
    }
    if (!header_ok)
        return "the checkpoint was read but its header was refused: " + why_header;
    // Adopting a copy of the bytes (as attn eval and the page do) gives the same floats, read in place.
    std::shared_ptr<unsigned char[]> own(new unsigned char[input.size()]);
    std::memcpy(own.get(), b, input.size());
    llama_model adopted;
    if (!llama_checkpoint_adopt(std::shared_ptr<const unsigned char>(own, own.get()), input.size(), adopted, &why))
        return "read by copying but not adopted: " + why;
    if (adopted.weights.size != m.weights.size || std::memcmp(adopted.weights.bytes, m.weights.bytes, m.weights.size) != 0 ||
        adopted.weights.bytes < own.get() || adopted.weights.bytes + adopted.weights.size > own.get() + input.size())
        return "the adopted model's weights differ from the copied ones or lie outside the file";
    const auto inside = [&m](const llama_tensor& t) {
        if (t.data < m.weights.bytes || t.data + t.bytes() > m.weights.bytes + m.weights.size)
            return false;
        for (std::size_t i = 0; i < t.size; ++i)
            if (!std::isfinite(m.at(t)[i]))
                return false;
        return true;
    };
    if (!inside(m.token_embedding) || !inside(m.rms_final) || !inside(m.classifier) || int(m.layers.size()) != m.config.n_layers)
        return "a tensor outside the buffer, non-finite, or a layer missing";
    for (const llama_layer_tensors& l : m.layers)
        for (const llama_tensor* t : {&l.rms_att, &l.wq, &l.wk, &l.wv, &l.wo, &l.rms_ffn, &l.w1, &l.w2, &l.w3})
            if (!inside(*t) || t->size == 0)
                return "a layer's tensor outside the buffer, empty or non-finite";
    return "";
}

inline std::string llama_tokenizer_fuzz_check(std::string_view input, int vocab_size, bool* valid = nullptr) {
    const auto* b = reinterpret_cast<const unsigned char*>(input.data());
    llama_tokenizer t;
    std::string why;
    const bool ok = llama_tokenizer_read(b, input.size(), vocab_size, t, &why);
    if (valid)
        *valid = ok;
    if (!ok)
        return why.empty() ? "a refused tokenizer without a message" : t.pieces.empty() ? "" : "a refused tokenizer kept pieces";
    if (int(t.pieces.size()) != vocab_size || t.scores.size() != t.pieces.size())
        return "a tokenizer of another size than the model's vocabulary";
    for (const std::string& p : t.pieces)
        if (int(p.size()) > t.max_token_length)
            return "a piece longer than max_token_length";
    for (const std::string_view text : {"Once upon a time", "a", "猫 \xff\x01 z", ""})
        for (const bool bos : {false, true}) {
            const std::vector<int> ids = llama_encode(t, text, bos, true);
            int previous = llama_bos;
            for (const int id : ids) {
                if (id < 0 || id >= vocab_size)
                    return "an encoded id out of range";
                llama_decode_piece(t, previous, id);
                previous = id;
            }
        }
    return "";
}

// The fuzzer's one entry: "" when every property holds, else what broke.
inline std::string llama_fuzz_check(std::string_view input, bool* valid = nullptr) {
    if (input.empty())
        return "";
    const char mode = input[0];
    if (mode == 'C')
        return llama_checkpoint_fuzz_check(input.substr(1), valid);
    if (mode == 'T') {
        if (input.size() < 3)
            return "";
        const int vocab = int(static_cast<unsigned char>(input[1])) | int(static_cast<unsigned char>(input[2])) << 8;
        return llama_tokenizer_fuzz_check(input.substr(3), vocab, valid);
    }
    bool a = false, c = false;
    std::string problem = llama_checkpoint_fuzz_check(input, &a);
    if (problem.empty())
        problem = llama_tokenizer_fuzz_check(input, int(static_cast<unsigned char>(mode)) + 1, &c);
    if (valid)
        *valid = a || c;
    return problem;
}

}  // namespace attn
