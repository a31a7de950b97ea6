// llama2.c's files: checkpoints of versions 0 and 1 (shared and unshared
// classifier, MHA and GQA, odd shapes) written here as export.py writes them,
// read back tensor by tensor; files that lie, end early, run long or hold NaN
// are refused with a message naming the problem; tokenizer.bin read, and text
// encoded and decoded as run.c does.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/tokenizer.hpp"
#include "llama_check.hpp"
#include "llama_test_files.hpp"
#include "test_util.hpp"

using namespace attn;

namespace {

using bytes = std::vector<unsigned char>;
using test::put_f32;
using test::put_i32;

// A tensor of n floats whose values say where they are: tag · 1000 + i (exact in fp32 for these sizes).
void put_tensor(bytes& b, int tag, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        put_f32(b, float(tag * 1000 + int(i % 997)));
}

// The tags of each tensor, so a test can tell them apart after reading.
enum tag {
    t_emb = 1,
    t_rms_att = 2,
    t_wq = 3,
    t_wk = 4,
    t_wv = 5,
    t_wo = 6,
    t_rms_ffn = 7,
    t_w1 = 8,
    t_w2 = 9,
    t_w3 = 10,
    t_rms_final = 11,
    t_cls = 12,
    t_rope = 13
};

// export.py's legacy_export (version 0) or version1_export, with tagged values (layer l adds 100·l to the tag).
bytes write_checkpoint(const llama_config& c) {
    bytes b;
    const std::size_t d = std::size_t(c.dim), h = std::size_t(c.hidden_dim), V = std::size_t(c.vocab_size),
                      kv = std::size_t(c.kv_dim());
    const auto layers = [&](int tag, std::size_t n) {
        for (int l = 0; l < c.n_layers; ++l)
            put_tensor(b, tag + 100 * l, n);
    };
    const auto fields = [&](std::int32_t vocab) {
        for (std::int32_t v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, vocab, c.seq_len})
            put_i32(b, v);
    };
    if (c.version == 0) {
        fields(c.shared_classifier ? c.vocab_size : -c.vocab_size);
        put_tensor(b, t_emb, V * d);
        layers(t_rms_att, d);
    } else {
        put_i32(b, 0x616b3432);
        put_i32(b, 1);
        fields(c.vocab_size);
        b.push_back(c.shared_classifier ? 1 : 0);
        b.resize(256, 0);
        layers(t_rms_att, d);
        layers(t_rms_ffn, d);
        put_tensor(b, t_rms_final, d);
        put_tensor(b, t_emb, V * d);
    }
    layers(t_wq, d * d);
    layers(t_wk, kv * d);
    layers(t_wv, kv * d);
    layers(t_wo, d * d);
    if (c.version == 0)
        layers(t_rms_ffn, d);
    layers(t_w1, h * d);
    layers(t_w2, d * h);
    layers(t_w3, h * d);
    if (c.version == 0) {
        put_tensor(b, t_rms_final, d);
        put_tensor(b, t_rope, std::size_t(c.seq_len) * std::size_t(c.head_size()));
    }
    if (!c.shared_classifier)
        put_tensor(b, t_cls, V * d);
    return b;
}

llama_config shape(int version, bool shared, int dim, int hidden, int layers, int heads, int kv, int vocab, int seq) {
    llama_config c;
    c.version = version;
    c.shared_classifier = shared;
    c.dim = dim, c.hidden_dim = hidden, c.n_layers = layers, c.n_heads = heads, c.n_kv_heads = kv, c.vocab_size = vocab,
    c.seq_len = seq;
    return c;
}

std::string read_error(const bytes& b) {
    llama_model m;
    std::string why;
    CHECK_FALSE(llama_checkpoint_read(b.data(), b.size(), m, &why));
    CHECK(m.weights.empty());
    return why;
}

}  // namespace

TEST_CASE("llama checkpoints: versions 0 and 1, shared and unshared, MHA and GQA, odd shapes, read tensor by tensor") {
    for (const llama_config& c : {shape(0, true, 16, 40, 2, 4, 4, 37, 9), shape(0, false, 16, 40, 2, 4, 2, 37, 9),
                                  shape(1, true, 12, 20, 3, 3, 1, 29, 7), shape(1, false, 24, 50, 1, 6, 3, 11, 5)}) {
        CAPTURE(c.version);
        CAPTURE(c.shared_classifier);
        CAPTURE(c.n_kv_heads);
        const bytes b = write_checkpoint(c);
        CHECK(std::int64_t(b.size()) == llama_checkpoint_bytes(c));
        llama_model m;
        std::string why;
        REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
        const llama_config& r = m.config;
        CHECK(r.version == c.version);
        CHECK(r.shared_classifier == c.shared_classifier);
        CHECK(r.vocab_size == c.vocab_size);  // positive, whatever the legacy sign
        CHECK(r.kv_dim() == c.kv_dim());
        const std::size_t d = std::size_t(c.dim), kv = std::size_t(c.kv_dim()), h = std::size_t(c.hidden_dim);
        // Each tensor starts with its own tag and is as long as its shape.
        const auto starts = [&m](const llama_tensor& t, int tag, std::size_t n) {
            CHECK(t.size == n);
            CHECK(m.at(t)[0] == float(tag * 1000));
            CHECK(m.at(t)[n - 1] == float(tag * 1000 + int((n - 1) % 997)));
        };
        starts(m.token_embedding, t_emb, std::size_t(c.vocab_size) * d);
        starts(m.rms_final, t_rms_final, d);
        starts(m.classifier, c.shared_classifier ? t_emb : t_cls, std::size_t(c.vocab_size) * d);
        CHECK((m.classifier.data == m.token_embedding.data) == c.shared_classifier);
        REQUIRE(int(m.layers.size()) == c.n_layers);
        for (int l = 0; l < c.n_layers; ++l) {
            const llama_layer_tensors& t = m.layers[std::size_t(l)];
            const int k = 100 * l;
            starts(t.rms_att, t_rms_att + k, d);
            starts(t.wq, t_wq + k, d * d);
            starts(t.wk, t_wk + k, kv * d);
            starts(t.wv, t_wv + k, kv * d);
            starts(t.wo, t_wo + k, d * d);
            starts(t.rms_ffn, t_rms_ffn + k, d);
            starts(t.w1, t_w1 + k, h * d);
            starts(t.w2, t_w2 + k, d * h);
            starts(t.w3, t_w3 + k, h * d);
        }
    }
}

TEST_CASE("llama checkpoints: a truncated, long, lying or NaN-holding file is refused with what is wrong") {
    const llama_config c = shape(1, false, 16, 40, 2, 4, 2, 37, 9);
    const bytes good = write_checkpoint(c);
    bytes b = good;
    b.pop_back();
    CHECK(read_error(b).find("truncated") != std::string::npos);
    b = good;
    b.push_back(0);
    CHECK(read_error(b).find("too long") != std::string::npos);
    CHECK(read_error(bytes(good.begin(), good.begin() + 20)).find("too short") != std::string::npos);
    CHECK(read_error({}).find("too short") != std::string::npos);
    // Header fields out of range or inconsistent, each named.
    const auto with_field = [&good](int index, std::int32_t v) {
        bytes x = good;
        std::memcpy(x.data() + 8 + 4 * index, &v, 4);
        return read_error(x);
    };
    CHECK(with_field(0, 0).find("dim 0 is out of range") != std::string::npos);
    CHECK(with_field(0, -16).find("dim -16") != std::string::npos);
    CHECK(with_field(2, 1 << 30).find("n_layers") != std::string::npos);
    CHECK(with_field(3, 3).find("not a multiple of n_heads") != std::string::npos);
    CHECK(with_field(4, 3).find("not a multiple of n_kv_heads") != std::string::npos);
    CHECK(with_field(4, 8).find("n_kv_heads 8 is out of range") != std::string::npos);
    CHECK(with_field(3, 16).find("is odd") != std::string::npos);           // a head size of 1
    CHECK(with_field(5, -37).find("vocab_size -37") != std::string::npos);  // v1 has no legacy sign
    // Sizes that would overflow 32 bits, or the page's heap: refused before anything is allocated.
    {
        bytes x = good;
        for (auto [i, v] : {std::pair{0, 8192}, {1, 32768}, {2, 128}, {5, 262144}}) {
            const std::int32_t w = v;
            std::memcpy(x.data() + 8 + 4 * i, &w, 4);
        }
        CHECK(read_error(x).find("more than the") != std::string::npos);
    }
    bytes shared = good;
    shared[36] = 7;
    CHECK(read_error(shared).find("shared-classifier flag is 7") != std::string::npos);
    bytes v2 = good;
    const std::int32_t two = 2, nine = 9;
    std::memcpy(v2.data() + 4, &two, 4);
    CHECK(read_error(v2).find("version 2 (Q8_0") != std::string::npos);
    std::memcpy(v2.data() + 4, &nine, 4);
    CHECK(read_error(v2).find("unknown checkpoint version 9") != std::string::npos);
    // A NaN or an infinity in a weight: the tensor and the element named.
    bytes nan = good;
    const float q = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    llama_model m;
    REQUIRE(llama_checkpoint_read(good.data(), good.size(), m));
    std::memcpy(nan.data() + 256 + std::size_t(m.layers[1].wk.data - m.weights.bytes) + 5 * 4, &q, 4);
    CHECK(read_error(nan) == "layer 1's wk holds NaN at element 5");
    bytes big = good;
    std::memcpy(big.data() + 256 + std::size_t(m.classifier.data - m.weights.bytes) + 2 * 4, &inf, 4);
    CHECK(read_error(big) == "classifier holds +inf at element 2");
    // The legacy file's RoPE tables are skipped, not checked: llama2.c recomputes them.
    const llama_config c0 = shape(0, true, 16, 40, 1, 4, 4, 5, 3);
    bytes legacy = write_checkpoint(c0);
    std::memcpy(legacy.data() + legacy.size() - 4, &q, 4);
    CHECK(llama_checkpoint_read(legacy.data(), legacy.size(), m));
}

TEST_CASE("llama checkpoints: an adopted file is the weights (no copy), a refused one is released, a misaligned one copied") {
    for (const llama_config& c : {shape(1, false, 12, 20, 2, 3, 1, 29, 7), shape(0, true, 16, 40, 1, 4, 2, 37, 9)}) {
        CAPTURE(c.version);
        const bytes b = write_checkpoint(c);
        llama_model copied, adopted;
        REQUIRE(llama_checkpoint_read(b.data(), b.size(), copied));
        std::shared_ptr<unsigned char[]> own(new unsigned char[b.size()]);
        std::memcpy(own.get(), b.data(), b.size());
        std::shared_ptr<const unsigned char> file(own, own.get());
        std::string why;
        REQUIRE_MESSAGE(llama_checkpoint_adopt(file, b.size(), adopted, &why), why);
        const std::size_t start = c.version == 1 ? 256 : 28;
        CHECK(static_cast<const void*>(adopted.weights.bytes) == static_cast<const void*>(own.get() + start));
        CHECK(own.use_count() == 3);  // own, file, and the model's weights
        REQUIRE(adopted.weights.size == copied.weights.size);
        CHECK(std::memcmp(adopted.weights.bytes, copied.weights.bytes, copied.weights.size) == 0);
        CHECK(std::memcmp(adopted.at(adopted.layers[0].w2), copied.at(copied.layers[0].w2), copied.layers[0].w2.size * 4) == 0);
        const llama_model shared = adopted;  // a copy shares the bytes
        CHECK(shared.weights.bytes == adopted.weights.bytes);
        adopted = llama_model{};
        CHECK(own.use_count() == 3);
    }
    const llama_config c = shape(1, true, 12, 20, 1, 3, 3, 29, 7);
    bytes b = write_checkpoint(c);
    // Refused (a NaN): the model stays empty and lets the file go.
    std::shared_ptr<unsigned char[]> bad(new unsigned char[b.size()]);
    std::memcpy(bad.get(), b.data(), b.size());
    const float q = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bad.get() + 256, &q, 4);
    llama_model m;
    std::string why;
    CHECK_FALSE(llama_checkpoint_adopt(std::shared_ptr<const unsigned char>(bad, bad.get()), b.size(), m, &why));
    CHECK(why.find("NaN") != std::string::npos);
    CHECK(m.weights.empty());
    CHECK(bad.use_count() == 1);
    // One byte off a float's alignment: read by copying, the same floats.
    std::shared_ptr<unsigned char[]> odd(new unsigned char[b.size() + 1]);
    std::memcpy(odd.get() + 1, b.data(), b.size());
    REQUIRE(llama_checkpoint_adopt(std::shared_ptr<const unsigned char>(odd, odd.get() + 1), b.size(), m, &why));
    CHECK(odd.use_count() == 1);
    llama_model copied;
    REQUIRE(llama_checkpoint_read(b.data(), b.size(), copied));
    CHECK(std::memcmp(m.weights.bytes, copied.weights.bytes, copied.weights.size) == 0);
}

TEST_CASE("llama files: read whole, exactly; a missing file named") {
    const bytes b = write_checkpoint(shape(1, true, 12, 20, 1, 3, 3, 29, 7));
    const std::string path = "llama_file_read_test.bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
    std::string why;
    const llama_file got = llama_file_read(path, why);
    std::remove(path.c_str());
    REQUIRE_MESSAGE(got.bytes, why);
    REQUIRE(got.size == b.size());
    CHECK(std::memcmp(got.bytes.get(), b.data(), b.size()) == 0);
    llama_model m;
    CHECK(llama_checkpoint_adopt(got.bytes, got.size, m));
    const llama_file none = llama_file_read("no such directory/no such file.bin", why);
    CHECK_FALSE(none.bytes);
    CHECK(why == "cannot open no such directory/no such file.bin");
}

namespace {

// A tokenizer.bin as llama2.c's tokenizer.py writes it: <unk>, <s>, </s>, the 256
// byte tokens, then the pieces given (score = −index: earlier merges win).
bytes write_tokenizer(const std::vector<std::string>& extra, int max_len = 0) {
    return test::llama_test_tokenizer(extra, max_len);
}

const std::vector<std::string> story_pieces = {" ",  "e",   "o",     "n",     "c",     "t",   "a",  "u",   "p",  "m",   "i",
                                               "O",  "▁",   " t",    "on",    " on",   "ce",  "up", " up", "im", "tim", "ti",
                                               " a", "nce", " once", " upon", " time", "pon", " u", "on ", "e ", " tim"};

std::string decode_all(const llama_tokenizer& t, const std::vector<int>& ids) {
    std::string s;
    for (std::size_t i = 0; i < ids.size(); ++i)
        s += llama_decode_piece(t, i ? ids[i - 1] : llama_bos, ids[i]);
    return s;
}

}  // namespace

TEST_CASE("llama tokenizer: read as the model's vocabulary; encode merges the best pair first; decode as run.c prints") {
    const bytes b = write_tokenizer(story_pieces);
    const int V = 259 + int(story_pieces.size());
    llama_tokenizer t;
    std::string why;
    REQUIRE_MESSAGE(llama_tokenizer_read(b.data(), b.size(), V, t, &why), why);
    CHECK(t.pieces.size() == std::size_t(V));
    const auto id = [&t](const char* piece) { return t.index.at(piece); };
    // " " is the dummy prefix; then the characters, merged by score (lower index = higher score here).
    const std::vector<int> tokens = llama_encode(t, "once upon a time", true);
    CHECK(tokens == std::vector<int>{llama_bos, id(" once"), id(" upon"), id(" a"), id(" time")});
    CHECK(decode_all(t, std::vector<int>(tokens.begin() + 1, tokens.end())) == "once upon a time");
    // Characters the vocabulary lacks fall back to their bytes, and decode back to them.
    const std::string text = "once 猫 z!";
    const std::vector<int> fallback = llama_encode(t, text, false, true);
    CHECK(fallback.front() == id(" once"));
    CHECK(fallback.back() == llama_eos);
    CHECK(std::count(fallback.begin(), fallback.end(), 0xE7 + 3) == 1);  // 猫 = E7 8C AB, as three byte tokens
    CHECK(decode_all(t, std::vector<int>(fallback.begin(), fallback.end() - 1)) == text);
    // Nothing to encode: no dummy prefix.
    CHECK(llama_encode(t, "", true) == std::vector<int>{llama_bos});
    CHECK(llama_encode(t, "", false).empty());
    // After BOS the leading space is stripped; after another token it is kept.
    CHECK(llama_decode_piece(t, llama_bos, id(" time")) == "time");
    CHECK(llama_decode_piece(t, id(" a"), id(" time")) == " time");
    CHECK(llama_decode_piece(t, 0, 0x41 + 3) == "A");
    CHECK(llama_decode_piece(t, 0, V).empty());
    CHECK(llama_decode_piece(t, 0, -1).empty());
}

TEST_CASE("llama tokenizer: a file for another vocabulary, a lying length or a NaN score is refused with what is wrong") {
    const bytes b = write_tokenizer(story_pieces);
    const int V = 259 + int(story_pieces.size());
    llama_tokenizer t;
    std::string why;
    CHECK_FALSE(llama_tokenizer_read(b.data(), b.size(), V + 1, t, &why));
    CHECK(why.find("ends after " + std::to_string(V) + " tokens") != std::string::npos);
    CHECK_FALSE(llama_tokenizer_read(b.data(), b.size(), V - 1, t, &why));
    CHECK(why.find("after the model's") != std::string::npos);
    CHECK_FALSE(llama_tokenizer_read(b.data(), b.size(), 1 << 30, t, &why));
    CHECK(why.find("too short for the model's") != std::string::npos);
    CHECK(t.pieces.empty());
    // A token longer than max_token_length.
    const bytes narrow = write_tokenizer(story_pieces, 3);
    CHECK_FALSE(llama_tokenizer_read(narrow.data(), narrow.size(), V, t, &why));
    CHECK(why.find("token 0's length 5 is out of range") != std::string::npos);
    // A length past the end of the file.
    bytes lying = b;
    const std::int32_t huge = 1000;
    std::memcpy(lying.data() + 4 + 4, &huge, 4);
    CHECK_FALSE(llama_tokenizer_read(lying.data(), lying.size(), V, t, &why));
    CHECK(why.find("token 0's length 1000") != std::string::npos);
    bytes nan = b;
    const float q = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(nan.data() + 4, &q, 4);
    CHECK_FALSE(llama_tokenizer_read(nan.data(), nan.size(), V, t, &why));
    CHECK(why == "token 0's score is not finite");
    CHECK_FALSE(llama_tokenizer_read(b.data(), b.size(), 2, t, &why));  // BOS and EOS need ids 1 and 2
    CHECK(why.find("too small for a llama tokenizer") != std::string::npos);
    CHECK_FALSE(llama_tokenizer_read(b.data(), 3, V, t, &why));
    CHECK(why.find("too short for its header") != std::string::npos);
}

#ifdef ATTN_LLAMA_CORPUS_DIR
TEST_CASE("llama files: the fuzz corpus (tests/fuzz/llama_corpus) replays cleanly") {
    test::replay_fuzz_corpus(
        ATTN_LLAMA_CORPUS_DIR, "valid files", [](const std::string& input) { return llama_fuzz_check(input); },
        [](const std::string& input) {
            bool valid = false;
            llama_fuzz_check(input, &valid);
            return valid;
        });
}
#endif
