// The core's Hugging Face tokenizer on the command line, for
// tests/hf_tokenizer_oracle_test.mjs, which compares it with @huggingface/tokenizers:
//
//   attn_hf_tokenize tokenizer.json VOCAB_SIZE < texts.jsonl
//
// Each input line is one JSON string. Each output line is JSON:
//   {"ids": llama_encode(text, bos = true), "plain": llama_encode(text, false),
//    "decoded": hex of llama_decode_piece over "plain" (−1 before the first)}
// A tokenizer.json the core refuses: its message on stderr, exit 1.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "llama/hf_tokenizer.hpp"

namespace {

std::string hex(const std::string& s) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const char c : s) {
        out.push_back(digits[static_cast<unsigned char>(c) >> 4]);
        out.push_back(digits[static_cast<unsigned char>(c) & 15]);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: attn_hf_tokenize tokenizer.json VOCAB_SIZE < texts.jsonl\n");
        return 2;
    }
    std::ifstream f(argv[1], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    attn::llama_tokenizer t;
    std::string why;
    if (!f || !attn::hf_tokenizer_read(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), std::atoi(argv[2]), t,
                                       &why)) {
        std::fprintf(stderr, "attn_hf_tokenize: %s: %s\n", argv[1], why.empty() ? "cannot be read" : why.c_str());
        return 1;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        const nlohmann::json text = nlohmann::json::parse(line, nullptr, false);
        if (!text.is_string()) {
            std::fprintf(stderr, "attn_hf_tokenize: a line that is not a JSON string\n");
            return 2;
        }
        const std::string& s = text.get_ref<const std::string&>();
        const std::vector<int> plain = attn::llama_encode(t, s, false);
        std::string decoded;
        for (std::size_t i = 0; i < plain.size(); ++i)
            decoded += attn::llama_decode_piece(t, i ? plain[i - 1] : -1, plain[i]);
        const nlohmann::json out = {{"ids", attn::llama_encode(t, s, true)}, {"plain", plain}, {"decoded", hex(decoded)}};
        std::cout << out.dump() << '\n';
    }
    return 0;
}
