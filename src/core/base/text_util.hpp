// Small text helpers shared by the parsers of the experiment and of links.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace attn {

// The page's two languages. A table of the core holds its words in both (a
// row's bilingual: spec/keys' help, for one); the UI shows the one its reader
// chose (src/ui/look/i18n.hpp: tr).
enum class text_language { en, zh };
struct bilingual {
    const char* en = nullptr;
    const char* zh = nullptr;
    constexpr const char* in(text_language l) const { return l == text_language::zh ? zh : en; }
};

// A number printed as "-0.00" ("−0.00", "-0") rounds to zero: its sign says
// nothing, and reads as a finding. Every formatter of the page's text passes its
// output through this: the sign of a number whose digits are all 0 is dropped
// ('-' or U+2212 '−' right before its digits, not after a letter, digit, '_',
// ')' or ']': "x − 0.5", "1-0" and "a-0" stay as they are).
inline void drop_negative_zero(std::string& s) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const auto word = [&](char c) {
        return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ')' || c == ']';
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const std::size_t sign = s[i] == '-' ? 1 : s.compare(i, 3, "\xE2\x88\x92") == 0 ? 3 : 0;
        if (!sign || (i > 0 && word(s[i - 1])))
            continue;
        std::size_t j = i + sign, digits = 0;
        bool zero = true;
        for (; j < s.size() && (digit(s[j]) || s[j] == '.'); ++j)
            if (digit(s[j]))
                ++digits, zero = zero && s[j] == '0';
        if (digits && zero)
            s.erase(i, sign);
    }
}

// What a number that is not finite reads as: NaN and ±∞ by name, never printf's
// "-nan" or "inf". The text view spells them out (src/ui/look/i18n.hpp), the
// command line writes "+inf" and "-inf".
struct nonfinite_words {
    const char* nan = "NaN";
    const char* plus_inf = "+∞";
    const char* minus_inf = "−∞";
};

// v as printf writes it with `format` (one conversion of a double: "%.4g",
// "%.1f%%"), NaN and ±∞ as `words` name them, and a number whose digits round to
// zero without its sign (drop_negative_zero): the number text of every panel,
// lesson, map cell, the text view and the command line.
inline std::string number_text(double v, const char* format = "%.4g", const nonfinite_words& words = {}) {
    if (std::isnan(v))
        return words.nan;
    if (std::isinf(v))
        return v > 0 ? words.plus_inf : words.minus_inf;
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, format, v);
    std::string s = buf;
    if (n >= int(sizeof buf)) {  // a long one ("%.2f" of 1e300): written again whole
        s.assign(std::size_t(n) + 1, '\0');
        std::snprintf(s.data(), s.size(), format, v);
        s.pop_back();
    }
    drop_negative_zero(s);
    return s;
}

// s in single quotes for an error message, cut to 40 bytes ("'abc...'"), never
// inside a UTF-8 sequence.
inline std::string quoted(std::string_view s) {
    std::size_t cut = s.size() > 40 ? 40 : s.size();
    if (cut < s.size())
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut;
    std::string out = "'";
    out.append(s.substr(0, cut));
    if (cut < s.size())
        out += "...";
    return out + "'";
}

// The bytes of the valid UTF-8 sequence at s[i] (1 to 4), or 0 when none starts
// there: a stray continuation byte, a truncated sequence, an overlong form (C0 80
// for NUL), an encoded UTF-16 surrogate (ED A0 80 …) or a code point above
// U+10FFFF (F4 90 …, F5 …). The second byte's range rules out the last three.
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80)
        return 1;
    const std::size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    const unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    bool ok = len > 0 && at(1) >= lo && at(1) <= hi;
    for (std::size_t k = 2; ok && k < len; ++k)
        ok = at(k) >= 0x80 && at(k) <= 0xBF;
    return ok ? len : 0;
}

// s as a JSON string literal: quotes, backslashes and control characters
// escaped; UTF-8 stays as it is, and each byte that is not part of valid UTF-8
// (a tokenizer's piece may hold any bytes) is written as U+FFFD, the
// replacement character, as tokenize() reads it: the JSON is always valid UTF-8.
inline void json_string_append(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const char ch = s[i];
        const auto u = static_cast<unsigned char>(ch);
        const std::size_t len = utf8_length(s, i);
        if (len == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (ch == '\n') {
            out += "\\n";
        } else if (u < 0x20) {
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out.append(s.substr(i, len));
        }
        i += len;
    }
    out += '"';
}
inline std::string json_string(std::string_view s) {
    std::string out;
    json_string_append(out, s);
    return out;
}

// v as a JSON number that reads back as the same float (9 significant digits);
// NaN and infinities, which JSON lacks, as null.
inline std::string json_number(double v) {
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// The message for input holding a NUL at byte `at` (a C string would end there).
inline std::string nul_message(std::size_t at) {
    return "the link contains a NUL character at byte " + std::to_string(at) +
           "; a link never holds one (was it cut or corrupted?)";
}

// At most this many messages reach a person; the rest are counted.
inline constexpr std::size_t max_error_messages = 20;

// Keeps the first of identical messages and at most max_error_messages of them,
// then one "... and N more problems" line. Idempotent: a list that already ends
// in such a line (from an inner parser) has its count carried over.
inline void errors_tidy(std::vector<std::string>& errors) {
    static constexpr std::string_view more_prefix = "... and ", more_suffix = " more problems";
    std::vector<std::string> kept;
    std::unordered_set<std::string> seen;
    std::size_t more = 0;
    for (auto& m : errors) {
        const std::string_view v = m;
        if (v.size() > more_prefix.size() + more_suffix.size() && v.substr(0, more_prefix.size()) == more_prefix &&
            v.substr(v.size() - more_suffix.size()) == more_suffix) {
            const std::string_view digits = v.substr(more_prefix.size(), v.size() - more_prefix.size() - more_suffix.size());
            std::size_t count = 0;
            bool number = digits.size() <= 9;
            for (char c : digits) {
                number = number && c >= '0' && c <= '9';
                count = count * 10 + std::size_t(c - '0');
            }
            if (number) {
                more += count;
                continue;
            }
        }
        if (!seen.insert(m).second)
            continue;
        if (kept.size() < max_error_messages)
            kept.push_back(std::move(m));
        else
            ++more;
    }
    if (more > 0)
        kept.push_back(std::string(more_prefix) + std::to_string(more) + std::string(more_suffix));
    errors = std::move(kept);
}

// The pieces of s between separators; an empty s has none ("a,,b" has three).
inline std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    if (s.empty())
        return out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t next = s.find(sep, pos);
        out.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (next == std::string_view::npos)
            return out;
        pos = next + 1;
    }
}

// Text printf wrote with NaN or ±inf among its numbers, those named as the views
// name them: printf's "nan", "-nan" become "NaN", "inf" "+∞" and "-inf" "−∞". Only
// a whole token (between spaces, brackets or punctuation) is replaced, never part
// of a word ("info", "nano").
inline std::string text_nonfinite_named(std::string_view s) {
    const auto edge = [](char c) {
        return c == ' ' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ';' || c == ':' || c == '/' ||
               c == '=' || c == '%' || c == '.' || c == '\n';
    };
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const bool minus = s[i] == '-';
        const std::size_t at = i + (minus ? 1 : 0);
        const bool starts = i == 0 || edge(s[i - 1]);
        const std::string_view word = s.substr(at, 3);
        const bool nan = word == "nan", inf = word == "inf";
        const std::size_t end = at + 3;
        if (starts && (nan || inf) && (end == s.size() || edge(s[end]))) {
            out += nan ? "NaN" : minus ? "−∞" : "+∞";
            i = end;
            continue;
        }
        out += s[i++];
    }
    return out;
}

}  // namespace attn
