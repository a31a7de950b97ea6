// A Hugging Face tokenizer.json read into the core's llama_tokenizer, so
// llama_encode, llama_decode_piece and the pieces of the traces work on Hugging
// Face models as on llama2.c's. Two kinds, both BPE with merges by rank:
//   byte-level (GPT-2, Llama 3, Qwen2): the pre-tokenizer ends in ByteLevel; the
//     model's tokens are bytes written as GPT-2's printable characters (Ġ for a
//     space), and each token's piece is those bytes;
//   SentencePiece-style (Llama 2, TinyLlama): ▁ for a space (a Prepend + Replace
//     normalizer or the Metaspace pre-tokenizer), byte fallback to <0xNN>; a
//     piece is the token's text with ▁ as a space, <0xNN> kept as written.
//
// The file (JSON): "model" (type BPE: vocab {text: id}, merges as "a b" strings or
// [a, b] pairs, unk_token, byte_fallback, ignore_merges, fuse_unk), "added_tokens"
// ([{id, content, lstrip, rstrip, normalized, special, single_word}]), "normalizer"
// (null, NFC, Prepend, Replace of a String, Sequence of these), "pre_tokenizer"
// (null, ByteLevel, Split with the GPT-2, Llama 3 or Qwen2 regex and behavior
// Isolated, Metaspace, Sequence of these), "post_processor" (null, ByteLevel,
// TemplateProcessing, Sequence of these), "decoder" (ByteLevel; Metaspace; Sequence
// of Replace ▁ → " ", ByteFallback, Fuse, Strip of one leading space). Anything
// else (WordPiece, Unigram, another regex, a Regex Replace, single_word…) is
// refused with a message naming it.
//
// Encoding (llama_encode of an HF kind): added tokens found first in the raw text
// (leftmost, longest; lstrip / rstrip eat the white space beside them), the rest
// normalized, normalized added tokens found in it, pre-tokenized into words, each
// word's symbols (bytes, or characters with byte fallback) merged by rank (the
// lowest first, leftmost on ties); `bos` adds what the TemplateProcessing post-processor
// adds around the text (nothing for GPT-2 and Qwen2), `eos` appends the EOS.
// Decoding (llama_decode_piece): a byte-level piece as it is; a SentencePiece one
// with <0xNN> as its byte and, first in the text (no previous token, or BOS), its
// leading space stripped, as the decoder's Strip does.
//
//   llama_tokenizer t;
//   std::string why;
//   if (!hf_tokenizer_read(bytes, size, config.vocab, t, &why)) report("tokenizer.json: " + why);
//   std::vector<int> ids = llama_encode(t, "Hello world", true);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "llama/hf_split.hpp"
#include "llama/tokenizer.hpp"

namespace attn {

// The largest tokenizer.json read (Llama 3's is 9 MB, Qwen2's 7 MB): 64 MiB. A
// token's text is at most 1024 bytes, a vocabulary at most vocab_size tokens.
inline constexpr std::size_t hf_tokenizer_max_bytes = std::size_t(64) << 20;

// `size` bytes of a tokenizer.json for a model of vocab_size tokens (the config's:
// it may exceed the file's vocabulary, and ids without a token get an empty
// piece; a token id ≥ vocab_size is refused). False and a message naming the
// problem (and out left empty) otherwise.
bool hf_tokenizer_read(const unsigned char* bytes, std::size_t size, int vocab_size, llama_tokenizer& out,
                       std::string* error = nullptr);

// What encoding needs beyond the pieces (llama_tokenizer::hf points to it).
struct hf_tokenizer_tables {
    struct added_token {
        std::string content;  // the text matched (the normalized content for a normalized token)
        int id = 0;
        bool lstrip = false, rstrip = false, normalized = false;
    };
    struct normalize_step {
        enum kind_t { nfc, prepend, replace } kind = nfc;
        std::string text, with;  // prepend: text; replace: text → with
    };
    struct merge {
        int rank = 0, id = 0;
    };
    enum class prepend_scheme { always, first, never };

    std::vector<normalize_step> normalizer;
    std::vector<hf_split_pattern> splits;  // Split's, applied in turn, each to the pieces of the last
    bool byte_level = false, add_prefix_space = false, byte_level_regex = false;  // then ByteLevel's (GPT-2's regex)
    bool metaspace = false, metaspace_split = false;
    std::string replacement;  // Metaspace's (▁)
    prepend_scheme prepend = prepend_scheme::always;

    std::unordered_map<std::string, int> vocab;       // a model token's bytes (byte-level) or text
    std::unordered_map<std::uint64_t, merge> merges;  // (left id << 32 | right id) → rank and the merged token
    int unk = -1;
    bool byte_fallback = false, ignore_merges = false, fuse_unk = false;
    std::vector<int> byte_tokens;  // (256) <0xNN>'s id, −1 where the vocabulary lacks it

    // Matched before and after normalizing; each sorted by first byte, the longest first, with where
    // each first byte's tokens start (byte b's are [starts[b], starts[b + 1])).
    std::vector<added_token> raw_added, normalized_added;
    std::array<std::uint32_t, 257> raw_starts{}, normalized_starts{};
    std::vector<int> prefix, suffix;  // the template's tokens around the text
    bool decode_bytes = false;        // ByteFallback: <0xNN> decodes as its byte
    bool strip_first_space = false;   // the decoder drops the text's leading space
};

// The normalizer's steps applied to a text.
std::string hf_normalize(const hf_tokenizer_tables& t, std::string text);

}  // namespace attn
