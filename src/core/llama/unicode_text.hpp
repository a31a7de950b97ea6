// Unicode for the Hugging Face tokenizers: UTF-8 to code points and back, the
// classes their split regexes name (\p{L} and its parts, \p{M}, \p{N}, \s as
// White_Space) and NFC. The tables are generated at build time from Debian's
// unicode-data (cmake/unicode_tables.py); unicode_version() names the version.
//
// Text a person hands over need not be UTF-8: a byte that starts no valid sequence
// (a stray continuation byte, an overlong form, a surrogate, a cut sequence) is
// kept as the code point utf8_raw_byte + byte, above U+10FFFF, in class `other`,
// written back as that byte, so every byte string survives the round trip.
//
//   std::u32string cps = utf8_decode(text);
//   if (unicode_class_of(cps[0]) == unicode_class::space) …
//   std::string nfc = utf8_encode(unicode_nfc(cps));
#pragma once

#include <string>
#include <string_view>

namespace attn {

inline constexpr char32_t utf8_raw_byte = 0x110000;

std::u32string utf8_decode(std::string_view text);
void utf8_append(std::string& out, char32_t c);
std::string utf8_encode(std::u32string_view cps);

enum class unicode_class : unsigned char { other, lu, ll, lt, lm, lo, mark, number, space };
unicode_class unicode_class_of(char32_t c);
inline bool unicode_is_letter(char32_t c) {
    const unicode_class k = unicode_class_of(c);
    return k >= unicode_class::lu && k <= unicode_class::lo;
}
inline bool unicode_is_number(char32_t c) { return unicode_class_of(c) == unicode_class::number; }
inline bool unicode_is_space(char32_t c) { return unicode_class_of(c) == unicode_class::space; }

// Canonical composition (NFC): canonical decomposition (Hangul by its formula),
// the canonical ordering of combining marks, then composition of primary composites.
std::u32string unicode_nfc(std::u32string_view text);

const char* unicode_version();

}  // namespace attn
