// The property the Hugging Face file fuzzer checks, shared with the corpus replay
// test (tests/core/test_hf_files.cpp). The first byte picks the parser:
//   'S'  the rest is a safetensors file (safetensors_read)
//   'C'  the rest is a config.json (hf_config_read), then its tensors checked
//        against themselves (hf_config_tensors, hf_check_tensors)
//   'I'  the rest is a model.safetensors.index.json (safetensors_index_read)
//   'T'  the rest is a tokenizer.json (hf_tokenizer_read, for a model of
//        hf_fuzz_vocab tokens), then texts encoded and decoded with it
// Any other first byte: all four, on the whole input.
//
// For any bytes: a read either fails with a message and leaves its result empty,
// or holds what it promises: a safetensors file's tensors sorted by name, each
// found by it, inside the file, their bytes their shape's and tiling the data; a
// config's sizes within llama_limits, its heads dividing evenly, its tensors
// accepted as a folder of it would hold them; an index's files plain names; a
// tokenizer's pieces one per id, its BOS and EOS ids or −1, and every id it
// encodes (texts of every kind, the input itself among them) a token of the model.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "llama/hf_config.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/safetensors.hpp"

namespace attn {

inline std::string hf_safetensors_fuzz_check(std::string_view input, bool* valid = nullptr) {
    safetensors_file f;
    const auto* b = reinterpret_cast<const unsigned char*>(input.data());
    const auto why = safetensors_read(b, input.size(), input.size(), f);
    if (valid)
        *valid = !why;
    if (why)
        return why->empty()                              ? "a refused file without a message"
               : f.tensors.empty() && f.metadata.empty() ? ""
                                                         : "a refused file left tensors behind";
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < f.tensors.size(); ++i) {
        const safetensors_tensor& t = f.tensors[i];
        if (i && !(f.tensors[i - 1].name < t.name))
            return "tensors not sorted by name, or a name twice: " + t.name;
        if (safetensors_find(f, t.name) != &t)
            return "a tensor not found by its name: " + t.name;
        if (t.begin < f.data_begin || t.end > input.size() || t.begin > t.end)
            return "a tensor outside the file: " + t.name;
        if (t.end - t.begin != t.elements() * t.element_bytes)
            return "a tensor whose bytes are not its shape's: " + t.name;
        total += t.end - t.begin;
    }
    return total == input.size() - f.data_begin ? "" : "the tensors do not cover the data";
}

inline std::string hf_config_fuzz_check(std::string_view input, bool* valid = nullptr) {
    hf_config c;
    const auto why = hf_config_read(input, c);
    if (valid)
        *valid = !why;
    if (why)
        return why->empty() ? "a refused config without a message" : c.layers == 0 ? "" : "a refused config left sizes behind";
    if (c.layers < 1 || c.layers > llama_limits::max_layers || c.d_model < 1 || c.d_model > llama_limits::max_dim ||
        c.heads < 1 || c.kv_heads < 1 || c.heads % c.kv_heads != 0 || c.head_dim < 1 || c.vocab < 1 ||
        c.vocab > llama_limits::max_vocab || c.d_ff < 1 || c.d_ff > llama_limits::max_hidden || c.context < 1)
        return "a config read with a size out of its limits";
    if (c.arch == hf_arch::gpt2 && c.head_dim * c.heads != c.d_model)
        return "a GPT-2 config whose heads do not divide n_embd";
    const std::vector<hf_tensor_want> want = hf_config_tensors(c);
    std::vector<safetensors_tensor> held(want.size());
    std::vector<const safetensors_tensor*> p;
    for (std::size_t i = 0; i < want.size(); ++i) {
        held[i].name = want[i].name;
        held[i].shape = want[i].shape;
        p.push_back(&held[i]);
    }
    if (auto no = hf_check_tensors(c, p))
        return "a folder holding exactly the config's tensors was refused: " + *no;
    if (!p.empty()) {
        p.pop_back();
        if (!hf_check_tensors(c, p))
            return "a folder lacking a tensor was accepted";
    }
    return "";
}

inline std::string hf_index_fuzz_check(std::string_view input, bool* valid = nullptr) {
    safetensors_index x;
    const auto why = safetensors_index_read(input, x);
    if (valid)
        *valid = !why;
    if (why)
        return why->empty() ? "a refused index without a message" : x.weight_map.empty() ? "" : "a refused index left names";
    for (const auto& [name, file] : x.weight_map)
        if (file.empty() || file.find('/') != std::string::npos || file == ".." ||
            std::find(x.files.begin(), x.files.end(), file) == x.files.end())
            return "an index naming a file outside the folder, or unlisted: " + file;
    return "";
}

inline constexpr int hf_fuzz_vocab = 600;

inline std::string hf_tokenizer_fuzz_check(std::string_view input, bool* valid = nullptr) {
    llama_tokenizer t;
    std::string why;
    const bool ok = hf_tokenizer_read(reinterpret_cast<const unsigned char*>(input.data()), input.size(), hf_fuzz_vocab, t, &why);
    if (valid)
        *valid = ok;
    if (!ok)
        return why.empty()                 ? "a refused tokenizer without a message"
               : t.pieces.empty() && !t.hf ? ""
                                           : "a refused tokenizer left pieces";
    if (int(t.pieces.size()) != hf_fuzz_vocab || !t.hf || t.bos < -1 || t.bos >= hf_fuzz_vocab || t.eos < -1 ||
        t.eos >= hf_fuzz_vocab)
        return "a tokenizer read without a piece per id, or with BOS or EOS out of range";
    for (const std::string_view text :
         {std::string_view(""), std::string_view(" Hello, world!\r\n  I'M 12345 "),
          std::string_view("\xE4\xBD\xA0\xE5\xA5\xBD e\xCC\x81 \xF0\x9F\x99\x82 \xFF\xC0"), input.substr(0, 256)}) {
        const std::vector<int> ids = llama_encode(t, text, true, true);
        int previous = -1;
        for (const int id : ids) {
            if (id < 0 || id >= hf_fuzz_vocab)
                return "an encoding gave the id " + std::to_string(id) + ", outside the vocabulary";
            llama_decode_piece(t, previous, id);
            previous = id;
        }
    }
    return "";
}

inline std::string hf_fuzz_check(std::string_view input, bool* valid = nullptr) {
    if (input.empty())
        return "";
    const std::string_view rest = input.substr(1);
    switch (input[0]) {
        case 'S':
            return hf_safetensors_fuzz_check(rest, valid);
        case 'C':
            return hf_config_fuzz_check(rest, valid);
        case 'I':
            return hf_index_fuzz_check(rest, valid);
        case 'T':
            return hf_tokenizer_fuzz_check(rest, valid);
        default: {
            std::string p = hf_safetensors_fuzz_check(input);
            if (p.empty())
                p = hf_config_fuzz_check(input);
            if (p.empty())
                p = hf_index_fuzz_check(input);
            if (p.empty())
                p = hf_tokenizer_fuzz_check(input);
            return p;
        }
    }
}

}  // namespace attn
