#include "base/tokenize.hpp"

namespace attn {

namespace {

// Decodes one code point at s[i]; returns its byte length (1 for an invalid byte,
// with cp set to U+FFFD).
int decode_utf8(std::string_view s, std::size_t i, char32_t& cp) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + std::size_t(len) > s.size()) {
        cp = 0xFFFD;
        return 1;
    }
    cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
        const unsigned char cc = static_cast<unsigned char>(s[i + std::size_t(k)]);
        if ((cc >> 6) != 0x2) {
            cp = 0xFFFD;
            return 1;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    return len;
}

bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x3000; }
bool is_word(char32_t c) {
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '\'' || c == '_';
    return c < 0x2E80 && c != 0xFFFD;
}

}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        if (!word.empty())
            out.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp;
        const int len = decode_utf8(text, i, cp);
        const std::string_view bytes =
            cp == 0xFFFD && len == 1 ? std::string_view("\xEF\xBF\xBD") : text.substr(i, std::size_t(len));
        i += std::size_t(len);
        if (is_space(cp)) {
            flush();
        } else if (is_word(cp)) {
            word.append(bytes);
        } else {
            flush();
            out.emplace_back(bytes);
        }
    }
    flush();
    return out;
}

}  // namespace attn
