// Hugging Face tokenizer.json read into llama_tokenizer (src/core/llama/hf_tokenizer.hpp):
// the Unicode tables, the split regexes, a byte-level and a SentencePiece-style
// tokenizer written here with merges worked out by hand, and what is refused.
// tests/hf_tokenizer_oracle_test.mjs compares larger ones with @huggingface/tokenizers.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "llama/hf_split.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/unicode_text.hpp"

using namespace attn;

namespace {

using json = nlohmann::json;

// GPT-2's 256 byte characters, in byte order.
std::vector<std::string> byte_chars() {
    std::vector<std::string> out;
    int next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        std::string s;
        utf8_append(s, char32_t(printable ? b : next++));
        out.push_back(s);
    }
    return out;
}

json special(int id, const std::string& content) {
    return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
            {"rstrip", false}, {"normalized", false}, {"special", true}};
}

// Byte-level: ids 0–255 the bytes; "hello" and " world" by merges (ranks 0–8); <|endoftext|> = 265.
json byte_level_json() {
    json vocab = json::object();
    const std::vector<std::string> chars = byte_chars();
    for (int b = 0; b < 256; ++b)
        vocab[chars[std::size_t(b)]] = b;
    int id = 256;
    for (const char* t : {"Ġw", "or", "Ġwor", "ld", "Ġworld", "he", "ll", "hell", "hello"})
        vocab[t] = id++;
    vocab["<|endoftext|>"] = 265;
    return {{"version", "1.0"},
            {"added_tokens", {special(265, "<|endoftext|>")}},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
            {"post_processor", {{"type", "ByteLevel"}}},
            {"decoder", {{"type", "ByteLevel"}}},
            {"model",
             {{"type", "BPE"},
              {"unk_token", nullptr},
              {"vocab", vocab},
              {"merges", {"Ġ w", "o r", "Ġw or", "l d", "Ġwor ld", "h e", "l l", "he ll", "hell o"}}}}};
}

// SentencePiece-style (TinyLlama's layout): <unk> <s> </s>, <0x00>–<0xFF> at 3–258, then ▁ h e l o w r d
// (259–266) and ▁h el ▁hel lo ▁hello ▁w or ▁wor ld ▁world (267–276) by merges of ranks 0–9.
json sentencepiece_json() {
    json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
    static const char hex[] = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b)
        vocab[std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">"] = 3 + b;
    int id = 259;
    for (const char* t :
         {"▁", "h", "e", "l", "o", "w", "r", "d", "▁h", "el", "▁hel", "lo", "▁hello", "▁w", "or", "▁wor", "ld", "▁world"})
        vocab[t] = id++;
    const json strip = {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}};
    return {
        {"version", "1.0"},
        {"added_tokens", {special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")}},
        {"normalizer",
         {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "Prepend"}, {"prepend", "▁"}}, {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}}}}}},
        {"pre_tokenizer", nullptr},
        {"post_processor",
         {{"type", "TemplateProcessing"},
          {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
        {"decoder",
         {{"type", "Sequence"},
          {"decoders",
           {{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
            {{"type", "ByteFallback"}},
            {{"type", "Fuse"}},
            strip}}}},
        {"model",
         {{"type", "BPE"},
          {"unk_token", "<unk>"},
          {"byte_fallback", true},
          {"fuse_unk", true},
          {"vocab", vocab},
          {"merges", {"▁ h", "e l", "▁h el", "l o", "▁hel lo", "▁ w", "o r", "▁w or", "l d", "▁wor ld"}}}}};
}

bool read(const json& j, int vocab, llama_tokenizer& t, std::string* why = nullptr) {
    const std::string text = j.dump();
    return hf_tokenizer_read(reinterpret_cast<const unsigned char*>(text.data()), text.size(), vocab, t, why);
}

std::string refusal(const json& j, int vocab = 300) {
    llama_tokenizer t;
    std::string why;
    CHECK_FALSE(read(j, vocab, t, &why));
    CHECK(t.pieces.empty());
    CHECK_FALSE(t.hf);
    return why;
}

std::vector<std::string> pieces(hf_split_pattern p, std::string_view text) {
    const std::u32string c = utf8_decode(text);
    std::vector<std::string> out;
    std::size_t start = 0;
    for (const std::size_t end : hf_split(p, c)) {
        out.push_back(utf8_encode(std::u32string_view(c).substr(start, end - start)));
        start = end;
    }
    return out;
}

std::string decode(const llama_tokenizer& t, const std::vector<int>& ids) {
    std::string s;
    for (std::size_t i = 0; i < ids.size(); ++i)
        s += llama_decode_piece(t, i ? ids[i - 1] : -1, ids[i]);
    return s;
}

}  // namespace

TEST_CASE("hf tokenizer: Unicode classes and NFC from the generated tables") {
    CHECK(std::string(unicode_version()).rfind("15.", 0) == 0);
    CHECK(unicode_class_of(U'A') == unicode_class::lu);
    CHECK(unicode_class_of(U'a') == unicode_class::ll);
    CHECK(unicode_class_of(U'ǅ') == unicode_class::lt);
    CHECK(unicode_class_of(U'中') == unicode_class::lo);
    CHECK(unicode_class_of(U'٣') == unicode_class::number);
    CHECK(unicode_class_of(U'\u0301') == unicode_class::mark);
    CHECK(unicode_class_of(U'\u3000') == unicode_class::space);
    CHECK(unicode_class_of(U'\u0085') == unicode_class::space);
    CHECK(unicode_class_of(U'!') == unicode_class::other);
    CHECK(unicode_class_of(U'🙂') == unicode_class::other);
    CHECK(unicode_class_of(utf8_raw_byte + 0xFF) == unicode_class::other);
    const auto nfc = [](std::string_view s) { return utf8_encode(unicode_nfc(utf8_decode(s))); };
    CHECK(nfc("e\xCC\x81") == "\xC3\xA9");                     // e + U+0301 → é
    CHECK(nfc("\xE2\x84\xAB") == "\xC3\x85");                  // Å (U+212B, a singleton) → Å
    CHECK(nfc("\xE1\x84\x80\xE1\x85\xA1") == "\xEA\xB0\x80");  // ᄀ + ᅡ → 가 (Hangul by its formula)
    CHECK(nfc("a\xCC\x81\xCC\xA7") == "\xC3\xA1\xCC\xA7");     // marks reordered by class (cedilla 202 before acute 230)
    CHECK(nfc("\xEF\xAC\x81") == "\xEF\xAC\x81");              // ﬁ: a compatibility ligature, kept by NFC
    const std::string bad = "a\xFF\xC0\x80\xED\xA0\x80z";      // a stray byte, an overlong NUL, a surrogate
    CHECK(utf8_encode(utf8_decode(bad)) == bad);
    CHECK(utf8_decode(bad).size() == 8);
}

TEST_CASE("hf tokenizer: the split regexes, matched by hand") {
    CHECK(hf_split_pattern_of(R"(\w+)") == std::nullopt);
    CHECK(pieces(hf_split_pattern::gpt2, "I'M HERE'S 12345\r\n\n  x") ==
          std::vector<std::string>{"I", "'", "M", " HERE", "'", "S", " 12345", "\r\n\n ", " x"});
    CHECK(pieces(hf_split_pattern::gpt2, "it's  done ") == std::vector<std::string>{"it", "'s", " ", " done", " "});
    CHECK(pieces(hf_split_pattern::llama3, "I'M HERE'S 12345\r\n\n  x") ==
          std::vector<std::string>{"I", "'M", " HERE", "'S", " ", "123", "45", "\r\n\n", " ", " x"});
    CHECK(pieces(hf_split_pattern::qwen2, "x=123;\n") == std::vector<std::string>{"x", "=", "1", "2", "3", ";\n"});
    CHECK(pieces(hf_split_pattern::llama3, "你好,世界") == std::vector<std::string>{"你好", ",世界"});
    CHECK(pieces(hf_split_pattern::llama3, "").empty());
}

TEST_CASE("hf tokenizer: byte-level BPE (GPT-2's kind)") {
    llama_tokenizer t;
    std::string why;
    REQUIRE_MESSAGE(read(byte_level_json(), 270, t, &why), why);
    CHECK(t.kind == llama_tokenizer_kind::hf_byte_level);
    CHECK(t.pieces.size() == 270);
    CHECK(t.pieces[32] == " ");
    CHECK(t.pieces[260] == " world");
    CHECK(t.pieces[268].empty());  // beyond the file's vocabulary
    CHECK(t.bos == -1);
    CHECK(t.eos == 265);
    CHECK(llama_stop_token(t) == 265);
    CHECK(llama_encode(t, "hello world", true) == std::vector<int>{264, 260});  // GPT-2 adds no BOS
    CHECK(llama_encode(t, "hello world", false, true) == std::vector<int>{264, 260, 265});
    CHECK(llama_encode(t, "hello<|endoftext|> world", false) == std::vector<int>{264, 265, 260});
    const std::vector<int> emoji = llama_encode(t, "\xF0\x9F\x99\x82!", false);
    CHECK(emoji == std::vector<int>{0xF0, 0x9F, 0x99, 0x82, '!'});
    CHECK(decode(t, emoji) == "\xF0\x9F\x99\x82!");
    CHECK(decode(t, llama_encode(t, " hello  world\r\n", false)) == " hello  world\r\n");
    CHECK(llama_encode(t, "", true).empty());
}

TEST_CASE("hf tokenizer: SentencePiece-style BPE with byte fallback (TinyLlama's kind)") {
    llama_tokenizer t;
    std::string why;
    REQUIRE_MESSAGE(read(sentencepiece_json(), 277, t, &why), why);
    CHECK(t.kind == llama_tokenizer_kind::hf_sentencepiece);
    CHECK(t.bos == 1);
    CHECK(t.eos == 2);
    CHECK(llama_stop_token(t) == 2);
    CHECK(t.pieces[271] == " hello");
    CHECK(t.pieces[3 + 0x41] == "<0x41>");
    CHECK(t.index.at(" world") == 276);
    const std::vector<int> ids = llama_encode(t, "hello world", true);
    CHECK(ids == std::vector<int>{1, 271, 276});
    CHECK(llama_decode_piece(t, 1, 271) == "hello");  // the leading space stripped after BOS
    CHECK(llama_decode_piece(t, 271, 276) == " world");
    CHECK(llama_encode(t, "hello world", true, true).back() == 2);
    // i is not in the vocabulary: its byte; the emoji's four bytes.
    const std::vector<int> fallback = llama_encode(t, "hi\xF0\x9F\x99\x82", false);
    CHECK(fallback == std::vector<int>{267, 3 + 'i', 3 + 0xF0, 3 + 0x9F, 3 + 0x99, 3 + 0x82});
    CHECK(decode(t, fallback) == "hi\xF0\x9F\x99\x82");
    // After an added token the normalizer prepends ▁ again: " world" becomes ▁▁world, as Hugging Face encodes it.
    CHECK(llama_encode(t, "hello</s> world", false) == std::vector<int>{271, 2, 259, 276});
    CHECK(llama_encode(t, "", true) == std::vector<int>{1});
}

TEST_CASE("hf tokenizer: the Metaspace pre-tokenizer splits words before each ▁") {
    json j = sentencepiece_json();
    j["normalizer"] = nullptr;
    j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "first"}, {"split", true}};
    j["model"]["merges"].push_back("o ▁w");  // would join across words were they not split
    j["model"]["vocab"]["o▁w"] = 277;
    llama_tokenizer t;
    std::string why;
    REQUIRE_MESSAGE(read(j, 278, t, &why), why);
    CHECK(llama_encode(t, "hello world", false) == std::vector<int>{271, 276});
    CHECK(llama_encode(t, "</s>hello", false) == std::vector<int>{2, 260, 268, 270});  // no ▁ after the first section: h el lo
}

TEST_CASE("hf tokenizer: added tokens' lstrip and rstrip, ignore_merges, a TemplateProcessing BOS") {
    json j = byte_level_json();
    j["added_tokens"].push_back(special(266, "<mask>"));
    j["added_tokens"].back()["lstrip"] = true;
    j["added_tokens"].back()["rstrip"] = true;
    j["model"]["vocab"]["Ġhello"] = 267;  // no merge makes it: only ignore_merges finds it
    j["model"]["ignore_merges"] = true;
    j["post_processor"] = {
        {"type", "TemplateProcessing"},
        {"single",
         {{{"SpecialToken", {{"id", "<|endoftext|>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
        {"special_tokens", {{"<|endoftext|>", {{"id", "<|endoftext|>"}, {"ids", {265}}}}}}};
    llama_tokenizer t;
    std::string why;
    REQUIRE_MESSAGE(read(j, 268, t, &why), why);
    CHECK(t.bos == 265);
    // The white space either side of <mask> is eaten: "world" without its Ġ is w or ld.
    CHECK(llama_encode(t, "hello  <mask>  world", true) == std::vector<int>{265, 264, 266, 'w', 257, 259});
    CHECK(llama_encode(t, "x hello", false) == std::vector<int>{'x', 267});
}

TEST_CASE("hf tokenizer: what is not implemented, or not a tokenizer, is refused by name") {
    json j = byte_level_json();
    j["model"]["type"] = "WordPiece";
    CHECK(refusal(j).find("'WordPiece'") != std::string::npos);
    j = byte_level_json();
    j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "\\w+"}}}, {"behavior", "Isolated"}};
    CHECK(refusal(j).find("regex '\\w+'") != std::string::npos);
    j = byte_level_json();
    j["normalizer"] = {{"type", "Lowercase"}};
    CHECK(refusal(j).find("'Lowercase'") != std::string::npos);
    j = byte_level_json();
    j["decoder"] = nullptr;
    CHECK(refusal(j).find("no decoder") != std::string::npos);
    j = byte_level_json();
    j["added_tokens"][0]["single_word"] = true;
    CHECK(refusal(j).find("single_word") != std::string::npos);
    j = byte_level_json();
    j["model"]["merges"].push_back("Ġ zz");
    CHECK(refusal(j).find("lacks 'zz'") != std::string::npos);
    CHECK(refusal(byte_level_json(), 265).find("outside the model's vocab_size 265") != std::string::npos);
    j = sentencepiece_json();
    j["post_processor"] = {{"type", "RobertaProcessing"}};
    CHECK(refusal(j).find("'RobertaProcessing'") != std::string::npos);
    j = sentencepiece_json();
    j["model"]["vocab"]["dup"] = 5;
    CHECK(refusal(j).find("gives id 5 to both") != std::string::npos);
    llama_tokenizer t;
    std::string why;
    const std::string not_json = "{\"model\": ";
    CHECK_FALSE(hf_tokenizer_read(reinterpret_cast<const unsigned char*>(not_json.data()), not_json.size(), 10, t, &why));
    CHECK(why.find("not JSON") != std::string::npos);
    CHECK_FALSE(
        hf_tokenizer_read(reinterpret_cast<const unsigned char*>(not_json.data()), hf_tokenizer_max_bytes + 1, 10, t, &why));
    CHECK(why.find("64 MiB") != std::string::npos);
}
