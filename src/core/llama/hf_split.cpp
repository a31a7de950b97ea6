#include "llama/hf_split.hpp"

#include "llama/unicode_text.hpp"

namespace attn {

namespace {

constexpr std::string_view gpt2_regex = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view llama3_regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view qwen2_regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

bool other(char32_t c) { return unicode_class_of(c) == unicode_class::other || unicode_class_of(c) == unicode_class::mark; }
bool newline(char32_t c) { return c == U'\r' || c == U'\n'; }
char32_t lower_ascii(char32_t c) { return c >= U'A' && c <= U'Z' ? c + 32 : c; }

// The end of a contraction at i ('s 't 're 've 'm 'll 'd), ASCII case folded when asked; i when none.
std::size_t contraction(std::u32string_view s, std::size_t i, bool fold) {
    if (s[i] != U'\'' || i + 1 >= s.size())
        return i;
    const auto at = [&](std::size_t k) { return k < s.size() ? (fold ? lower_ascii(s[k]) : s[k]) : 0; };
    const char32_t a = at(i + 1), b = at(i + 2);
    if (a == U's' || a == U't' || a == U'm' || a == U'd')
        return i + 2;
    if ((a == U'r' || a == U'v') && b == U'e')
        return i + 3;
    if (a == U'l' && b == U'l')
        return i + 3;
    return i;
}

template <class pred>
std::size_t run(std::u32string_view s, std::size_t i, pred in) {
    while (i < s.size() && in(s[i]))
        ++i;
    return i;
}

// ` ?X+`: an optional space, then at least one of X; i when none.
template <class pred>
std::size_t space_then(std::u32string_view s, std::size_t i, pred in) {
    const std::size_t j = s[i] == U' ' ? i + 1 : i;
    return j < s.size() && in(s[j]) ? run(s, j, in) : i;
}

// `\s+(?!\S)|\s+`: a run of white space, less its last when a non-space follows
// and the run is longer than one; i when s[i] is not white space.
std::size_t spaces(std::u32string_view s, std::size_t i) {
    const std::size_t k = run(s, i, unicode_is_space);
    if (k == i || k == s.size() || k - i == 1)
        return k;
    return k - 1;
}

std::size_t gpt2_match(std::u32string_view s, std::size_t i) {
    for (const std::size_t end : {contraction(s, i, false), space_then(s, i, unicode_is_letter),
                                  space_then(s, i, unicode_is_number), space_then(s, i, other)})
        if (end > i)
            return end;
    return spaces(s, i);
}

// `\s*[\r\n]+`: white space up to its last CR or LF; i when the run holds none.
std::size_t spaces_to_newline(std::u32string_view s, std::size_t i) {
    const std::size_t k = run(s, i, unicode_is_space);
    for (std::size_t j = k; j > i; --j)
        if (newline(s[j - 1]))
            return j;
    return i;
}

std::size_t llama3_match(std::u32string_view s, std::size_t i, std::size_t most_digits) {
    if (const std::size_t end = contraction(s, i, true); end > i)
        return end;
    const bool lead = !newline(s[i]) && !unicode_is_letter(s[i]) && !unicode_is_number(s[i]);
    if (lead && i + 1 < s.size() && unicode_is_letter(s[i + 1]))
        return run(s, i + 1, unicode_is_letter);
    if (unicode_is_letter(s[i]))
        return run(s, i, unicode_is_letter);
    if (unicode_is_number(s[i])) {
        std::size_t j = i;
        while (j < s.size() && j - i < most_digits && unicode_is_number(s[j]))
            ++j;
        return j;
    }
    if (const std::size_t end = space_then(s, i, other); end > i)
        return run(s, end, newline);
    if (const std::size_t end = spaces_to_newline(s, i); end > i)
        return end;
    return spaces(s, i);
}

}  // namespace

std::optional<hf_split_pattern> hf_split_pattern_of(std::string_view regex) {
    if (regex == gpt2_regex)
        return hf_split_pattern::gpt2;
    if (regex == llama3_regex)
        return hf_split_pattern::llama3;
    if (regex == qwen2_regex)
        return hf_split_pattern::qwen2;
    return std::nullopt;
}

std::vector<std::size_t> hf_split(hf_split_pattern p, std::u32string_view cps) {
    std::vector<std::size_t> ends;
    for (std::size_t i = 0; i < cps.size();) {
        std::size_t end = p == hf_split_pattern::gpt2     ? gpt2_match(cps, i)
                          : p == hf_split_pattern::llama3 ? llama3_match(cps, i, 3)
                                                          : llama3_match(cps, i, 1);
        if (end <= i)  // never: every code point is a letter, a number, white space or other
            end = i + 1;
        ends.push_back(end);
        i = end;
    }
    return ends;
}

}  // namespace attn
