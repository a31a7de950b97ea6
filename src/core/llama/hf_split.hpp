// The split regexes of Hugging Face tokenizers, matched by hand (no regex engine:
// each pattern is recognised by its exact text in tokenizer.json and matched as
// Oniguruma would match it, alternatives in order, quantifiers greedy):
//   gpt2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//           (also ByteLevel's own when use_regex is on)
//   llama3  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   qwen2   the same with \p{N} (one digit a piece) for \p{N}{1,3}
// \s is White_Space, the classes are unicode_text's. Every pattern matches every
// code point, so the matches tile the text: hf_split gives where each ends.
//
//   if (auto p = hf_split_pattern_of(regex)) for (std::size_t end : hf_split(*p, cps)) …
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class hf_split_pattern { gpt2, llama3, qwen2 };

std::optional<hf_split_pattern> hf_split_pattern_of(std::string_view regex);

// The end of each match, in order; the last is cps.size() (none for empty text).
std::vector<std::size_t> hf_split(hf_split_pattern p, std::u32string_view cps);

}  // namespace attn
