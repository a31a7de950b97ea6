// Splitting the input text into tokens.
//
// The rule, applied to UTF-8 text:
//   * whitespace separates tokens and is dropped;
//   * a run of letters, digits, apostrophes, underscores and other non-CJK
//     code points (é, ß, Ω, ...) is one token ("don't", "naïve", "x2", "x_1");
//   * every other ASCII character (punctuation, symbols: "x-1" → x / - / 1) is a
//     token of its own;
//   * every code point from U+2E80 up (CJK ideographs, kana, hangul, fullwidth
//     punctuation) is a token of its own: "猫追狗" → 猫 / 追 / 狗.
// Invalid UTF-8 bytes are replaced by U+FFFD and counted as one token each.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attn {

std::vector<std::string> tokenize(std::string_view text);

}  // namespace attn
