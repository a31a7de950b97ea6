// llama2.c's tokenizer.bin and its byte-pair encoding, as run.c encodes and
// decodes: the file is max_token_length (int32), then for each of the model's
// vocab_size tokens a float score, an int32 length and that many bytes.
//
// Encoding (llama_encode): BOS (1) when asked, a leading " " token (the dummy
// prefix) before non-empty text, each UTF-8 character as its token or, when the
// vocabulary lacks it, its bytes as the byte tokens <0xNN> (id byte + 3), then
// merging the adjacent pair whose joined text is the token with the best score,
// leftmost on ties, until no pair joins. Decoding (llama_decode_piece): a token's
// text, without its leading space after BOS, and <0xNN> as that byte.
//
// A Hugging Face tokenizer.json reads into the same struct (hf_tokenizer.hpp:
// hf_tokenizer_read), whose encoding and decoding these functions then follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn {

struct hf_tokenizer_tables;

enum class llama_tokenizer_kind {
    llama2c,           // tokenizer.bin: merges by score
    hf_byte_level,     // tokenizer.json, GPT-2's byte-level BPE (GPT-2, Llama 3, Qwen2)
    hf_sentencepiece,  // tokenizer.json, SentencePiece-style BPE with ▁ and byte fallback (Llama 2, TinyLlama)
};

inline constexpr int llama_bos = 1, llama_eos = 2;  // llama2.c's

struct llama_tokenizer {
    llama_tokenizer_kind kind = llama_tokenizer_kind::llama2c;
    int max_token_length = 0;
    std::vector<std::string> pieces;                // (vocab_size) each token's bytes (HF: its text, ▁ as a space)
    std::vector<float> scores;                      // (vocab_size) llama2.c's merge scores; empty for HF
    std::unordered_map<std::string, int> index;     // a piece's token; the lowest id where two tokens share a piece
    int bos = llama_bos, eos = llama_eos;           // −1 where the tokenizer has none
    std::shared_ptr<const hf_tokenizer_tables> hf;  // the HF kinds' tables
};

// `size` bytes at `bytes` for a model of vocab_size tokens (at least 3: <unk>,
// <s> = BOS and </s> = EOS come first, as encoding assumes). Every length is
// checked against max_token_length and the bytes left before it is read; the
// file must end after the last token. A NaN or infinite score is refused. False
// and a message naming the problem (and out left empty) otherwise.
bool llama_tokenizer_read(const unsigned char* bytes, std::size_t size, int vocab_size, llama_tokenizer& out,
                          std::string* error = nullptr);

// The longest a tokenizer.bin of vocab_size tokens can be that llama_tokenizer_read
// accepts (every piece max_token_length's limit, 1024 bytes long).
std::int64_t llama_tokenizer_max_bytes(int vocab_size);

// The token that ends a generation: llama2.c's models emit BOS to end a story;
// a Hugging Face model its EOS (BOS where it has none; −1 where neither).
int llama_stop_token(const llama_tokenizer& t);

// The text's tokens (see above); eos appends t.eos.
std::vector<int> llama_encode(const llama_tokenizer& t, std::string_view text, bool bos, bool eos = false);

// What run.c prints for `token` after `previous`: its piece, the leading space
// stripped after BOS, a byte token as its byte. Empty for an id out of range.
// (HF kinds: hf_tokenizer.hpp; `previous` −1 for the first token of a text.)
std::string llama_decode_piece(const llama_tokenizer& t, int previous, int token);

// The two above for the HF kinds (t.hf set), defined in hf_encode.cpp.
std::vector<int> hf_encode(const llama_tokenizer& t, std::string_view text, bool bos, bool eos);
std::string hf_decode_piece(const llama_tokenizer& t, int previous, int token);

}  // namespace attn
