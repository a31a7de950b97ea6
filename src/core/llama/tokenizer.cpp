#include "llama/tokenizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

namespace attn {

namespace {

constexpr int max_piece_bytes = 1024;  // max_token_length's limit

bool fail(std::string* error, std::string why) {
    if (error)
        *error = std::move(why);
    return false;
}

// The token of a piece; −1 when the vocabulary lacks it.
int lookup(const llama_tokenizer& t, const std::string& piece) {
    const auto it = t.index.find(piece);
    return it == t.index.end() ? -1 : it->second;
}

// A byte the vocabulary has no character token for: its byte token <0xNN>
// (id byte + 3: after <unk>, <s>, </s>), or <unk> (0) in a vocabulary too small to
// hold the byte tokens.
int byte_token(const llama_tokenizer& t, unsigned char b) {
    const int id = int(b) + 3;
    return id < int(t.pieces.size()) ? id : 0;
}

// The piece's byte when it is a byte token "<0xNN>", else −1.
int byte_of(const std::string& piece) {
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>')
        return -1;
    int v = 0;
    for (int i = 3; i < 5; ++i) {
        const char c = piece[std::size_t(i)];
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                             : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

// Each UTF-8 character (a lead byte and at most three continuation bytes) as its
// token, or its bytes as byte tokens.
void characters(const llama_tokenizer& t, std::string_view text, std::vector<int>& out) {
    std::string ch;
    for (std::size_t i = 0; i < text.size(); ++i) {
        ch.push_back(text[i]);
        const bool more = i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
        if (more && ch.size() < 4)
            continue;
        if (const int id = lookup(t, ch); id >= 0)
            out.push_back(id);
        else
            for (const char b : ch)
                out.push_back(byte_token(t, static_cast<unsigned char>(b)));
        ch.clear();
    }
}

}  // namespace

std::int64_t llama_tokenizer_max_bytes(int vocab_size) {
    return 4 + std::int64_t(std::max(vocab_size, 0)) * (8 + max_piece_bytes);  // max_token_length, then score, length, bytes
}

bool llama_tokenizer_read(const unsigned char* bytes, std::size_t size, int vocab_size, llama_tokenizer& out,
                          std::string* error) {
    out = llama_tokenizer{};
    if (vocab_size < 3)  // <unk>, <s> (BOS) and </s> (EOS) come first in every llama vocabulary
        return fail(error, "the model's vocab_size " + std::to_string(vocab_size) +
                               " is too small for a llama tokenizer: it needs <unk>, <s> and </s> at least");
    if (!bytes || size < 4)
        return fail(error, "the tokenizer file is " + std::to_string(size) + " bytes: too short for its header");
    llama_tokenizer t;
    std::int32_t max_len = 0;
    std::memcpy(&max_len, bytes, 4);
    if (max_len < 1 || max_len > max_piece_bytes)
        return fail(error, "the tokenizer's max_token_length " + std::to_string(max_len) + " is out of range (1 to 1024)");
    t.max_token_length = max_len;
    // Every token takes at least 8 bytes: a count the file cannot hold is refused before allocating.
    if (std::uint64_t(vocab_size) * 8 > size - 4)
        return fail(error, "the tokenizer file is " + std::to_string(size) + " bytes: too short for the model's " +
                               std::to_string(vocab_size) + " tokens");
    t.pieces.reserve(std::size_t(vocab_size));
    t.scores.reserve(std::size_t(vocab_size));
    std::size_t at = 4;
    for (int i = 0; i < vocab_size; ++i) {
        if (size - at < 8)
            return fail(error, "the tokenizer file ends after " + std::to_string(i) + " tokens; the model has " +
                                   std::to_string(vocab_size));
        float score = 0;
        std::int32_t len = 0;
        std::memcpy(&score, bytes + at, 4);
        std::memcpy(&len, bytes + at + 4, 4);
        at += 8;
        if (!std::isfinite(score))
            return fail(error, "token " + std::to_string(i) + "'s score is not finite");
        if (len < 0 || len > max_len)
            return fail(error, "token " + std::to_string(i) + "'s length " + std::to_string(len) +
                                   " is out of range (0 to max_token_length " + std::to_string(max_len) + ")");
        if (size - at < std::size_t(len))
            return fail(error, "the tokenizer file ends inside token " + std::to_string(i));
        t.pieces.emplace_back(reinterpret_cast<const char*>(bytes + at), std::size_t(len));
        t.scores.push_back(score);
        at += std::size_t(len);
    }
    if (at != size)
        return fail(error, "the tokenizer file holds " + std::to_string(size - at) + " bytes after the model's " +
                               std::to_string(vocab_size) + " tokens: is it the tokenizer of another model?");
    t.index.reserve(t.pieces.size());
    for (int i = 0; i < vocab_size; ++i)
        t.index.emplace(t.pieces[std::size_t(i)], i);  // emplace keeps the first: the lowest id
    out = std::move(t);
    return true;
}

int llama_stop_token(const llama_tokenizer& t) { return t.kind == llama_tokenizer_kind::llama2c || t.eos < 0 ? t.bos : t.eos; }

std::vector<int> llama_encode(const llama_tokenizer& t, std::string_view text, bool bos, bool eos) {
    if (t.hf)
        return hf_encode(t, text, bos, eos);
    std::vector<int> tokens;
    if (t.pieces.empty())
        return tokens;
    if (bos)
        tokens.push_back(t.bos);
    if (!text.empty())  // the dummy prefix: sentencepiece's leading space
        characters(t, " ", tokens);
    characters(t, text, tokens);
    std::string joined;
    for (;;) {
        float best = -1e10f;
        int best_id = -1, best_at = -1;
        for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
            joined = t.pieces[std::size_t(tokens[i])];
            joined += t.pieces[std::size_t(tokens[i + 1])];
            const int id = lookup(t, joined);
            if (id >= 0 && t.scores[std::size_t(id)] > best) {
                best = t.scores[std::size_t(id)];
                best_id = id;
                best_at = int(i);
            }
        }
        if (best_at < 0)
            break;
        tokens[std::size_t(best_at)] = best_id;
        tokens.erase(tokens.begin() + best_at + 1);
    }
    if (eos)
        tokens.push_back(t.eos);
    return tokens;
}

std::string llama_decode_piece(const llama_tokenizer& t, int previous, int token) {
    if (t.hf)
        return hf_decode_piece(t, previous, token);
    if (token < 0 || token >= int(t.pieces.size()))
        return "";
    std::string piece = t.pieces[std::size_t(token)];
    if (previous == t.bos && !piece.empty() && piece[0] == ' ')
        piece.erase(0, 1);
    if (const int b = byte_of(piece); b >= 0)
        return std::string(1, char(b));
    return piece;
}

}  // namespace attn
