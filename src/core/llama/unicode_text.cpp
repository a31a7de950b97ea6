#include "llama/unicode_text.hpp"

#include <algorithm>
#include <cstdint>

namespace attn {

namespace {

struct ucd_range {
    std::uint32_t first, last, value;
};
struct ucd_triple {
    std::uint32_t a, b, c;
};

#include "unicode_tables.inc"  // generated into the build folder by cmake/unicode_tables.py

// Hangul syllables: S = 0xAC00 + (L·21 + V)·28 + T (The Unicode Standard, 3.12).
constexpr char32_t hangul_s = 0xAC00, hangul_l = 0x1100, hangul_v = 0x1161, hangul_t = 0x11A7;
constexpr int hangul_l_count = 19, hangul_v_count = 21, hangul_t_count = 28, hangul_n = 21 * 28, hangul_count = 19 * 21 * 28;

template <std::size_t n>
std::uint32_t range_value(const ucd_range (&table)[n], char32_t c) {
    const auto it = std::upper_bound(std::begin(table), std::end(table), std::uint32_t(c),
                                     [](std::uint32_t v, const ucd_range& r) { return v < r.first; });
    if (it == std::begin(table))
        return 0;
    const ucd_range& r = *(it - 1);
    return c <= r.last ? r.value : 0;
}

int combining_class(char32_t c) { return int(range_value(ucd_combining, c)); }

void decompose(char32_t c, std::u32string& out) {
    if (c >= hangul_s && c < hangul_s + hangul_count) {
        const int s = int(c - hangul_s);
        out.push_back(hangul_l + char32_t(s / hangul_n));
        out.push_back(hangul_v + char32_t(s % hangul_n / hangul_t_count));
        if (s % hangul_t_count)
            out.push_back(hangul_t + char32_t(s % hangul_t_count));
        return;
    }
    const auto it = std::lower_bound(std::begin(ucd_decompositions), std::end(ucd_decompositions), std::uint32_t(c),
                                     [](const ucd_triple& t, std::uint32_t v) { return t.a < v; });
    if (it == std::end(ucd_decompositions) || it->a != c) {
        out.push_back(c);
        return;
    }
    decompose(it->b, out);
    if (it->c)
        decompose(it->c, out);
}

// The primary composite of a + b, or 0.
char32_t compose(char32_t a, char32_t b) {
    if (a >= hangul_l && a < hangul_l + hangul_l_count && b >= hangul_v && b < hangul_v + hangul_v_count)
        return hangul_s + char32_t((int(a - hangul_l) * hangul_v_count + int(b - hangul_v)) * hangul_t_count);
    if (a >= hangul_s && a < hangul_s + hangul_count && (a - hangul_s) % hangul_t_count == 0 && b > hangul_t &&
        b < hangul_t + hangul_t_count)
        return a + (b - hangul_t);
    const auto key = std::pair{std::uint32_t(a), std::uint32_t(b)};
    const auto it = std::lower_bound(std::begin(ucd_compositions), std::end(ucd_compositions), key,
                                     [](const ucd_triple& t, const std::pair<std::uint32_t, std::uint32_t>& k) {
                                         return std::pair{t.a, t.b} < k;
                                     });
    return it != std::end(ucd_compositions) && it->a == a && it->b == b ? char32_t(it->c) : 0;
}

// Each run of combining marks sorted by class, stably (canonical ordering).
void order_marks(std::u32string& s) {
    for (std::size_t i = 0; i < s.size();) {
        if (combining_class(s[i]) == 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < s.size() && combining_class(s[j]) != 0)
            ++j;
        std::stable_sort(s.begin() + std::ptrdiff_t(i), s.begin() + std::ptrdiff_t(j),
                         [](char32_t x, char32_t y) { return combining_class(x) < combining_class(y); });
        i = j;
    }
}

// A continuation byte's six bits, or −1.
int continuation(std::string_view t, std::size_t i) {
    if (i >= t.size())
        return -1;
    const auto b = static_cast<unsigned char>(t[i]);
    return (b & 0xC0) == 0x80 ? b & 0x3F : -1;
}

// The code point at t[i] and its length, or 0 for a byte that starts no valid sequence.
int utf8_at(std::string_view t, std::size_t i, char32_t& c) {
    const auto b = static_cast<unsigned char>(t[i]);
    if (b < 0x80) {
        c = b;
        return 1;
    }
    const int n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    char32_t v = b & (0x7F >> n);
    for (int k = 1; k < n; ++k) {
        const int bits = continuation(t, i + std::size_t(k));
        if (bits < 0)
            return 0;
        v = (v << 6) | char32_t(bits);
    }
    const char32_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (n == 0 || v < least || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    c = v;
    return n;
}

}  // namespace

std::u32string utf8_decode(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const int n = utf8_at(text, i, c);
        out.push_back(n ? c : utf8_raw_byte + static_cast<unsigned char>(text[i]));
        i += std::size_t(n ? n : 1);
    }
    return out;
}

void utf8_append(std::string& out, char32_t c) {
    if (c >= utf8_raw_byte) {
        out.push_back(char(c - utf8_raw_byte));
    } else if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
}

std::string utf8_encode(std::u32string_view cps) {
    std::string out;
    out.reserve(cps.size());
    for (const char32_t c : cps)
        utf8_append(out, c);
    return out;
}

unicode_class unicode_class_of(char32_t c) { return static_cast<unicode_class>(range_value(ucd_classes, c)); }

std::u32string unicode_nfc(std::u32string_view text) {
    std::u32string d;
    d.reserve(text.size());
    for (const char32_t c : text)
        decompose(c, d);
    order_marks(d);
    std::u32string out;
    out.reserve(d.size());
    std::ptrdiff_t starter = -1;
    int last = -1;  // the class of the last code point kept after the starter; −1: none yet
    for (const char32_t c : d) {
        const int cc = combining_class(c);
        const bool blocked = last != -1 && (cc == 0 || last >= cc);
        if (starter >= 0 && !blocked)
            if (const char32_t k = compose(out[std::size_t(starter)], c)) {
                out[std::size_t(starter)] = k;
                continue;
            }
        if (cc == 0) {
            starter = std::ptrdiff_t(out.size());
            last = -1;
        } else {
            last = cc;
        }
        out.push_back(c);
    }
    return out;
}

const char* unicode_version() { return ucd_version; }

}  // namespace attn
