// Links (src/core/play/link.hpp): forms, golden v=1 links, round trips, view options,
// hostile input, and the replay of the fuzzer's corpus (tests/fuzz/corpus).
#include <doctest/doctest.h>

#include <algorithm>

#include "alloc_counter.hpp"
#include "base/random.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "link_check.hpp"
#include "model/stage.hpp"
#include "play/link.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::random_experiment;

namespace {

std::string all_errors(const std::vector<std::string>& errors) {
    std::string s;
    for (const auto& e : errors)
        s += e + "\n";
    return s;
}

bool mentions(const std::vector<std::string>& errors, std::string_view word) {
    return all_errors(errors).find(word) != std::string::npos;
}

link_view random_view(rng& g, int tokens) {
    auto pick = [&g](int n) { return int(g.next_u64() % std::uint64_t(n)); };
    link_view v;
    if (pick(2))
        return v;
    v.lesson = pick(2) ? -1 : 1 + pick(link_view_limits::max_lesson);
    v.stage = pick(link_view_limits::max_stage + 2) - 1;
    v.row = pick(tokens + 1) - 1;
    for (auto& h : v.hide)
        h = pick(3) == 0;
    v.readonly = pick(2);
    v.embed = pick(2);
    return v;
}

// 100 masked edges and 100 edits on a 12-token sentence: a state someone builds
// by clicking around for a while.
experiment busy_experiment() {
    experiment e;
    e.text = "the cat chased the dog because the dog took the cat's toy";
    e.d_model = 16;
    e.heads = 4;
    e.kv_heads = 4;
    e.layers = 2;
    rng g(11);
    auto pick = [&g](int n) { return int(g.next_u64() % std::uint64_t(n)); };
    const int n = int(tokenize(e.text).size());
    for (int i = 0; i < 100; ++i)
        e.edges.push_back({pick(2), pick(4), pick(n), pick(n)});
    for (int i = 0; i < 100; ++i) {
        value_edit x;
        x.target = edit_target(pick(5));
        x.layer = x.target == edit_target::x ? 0 : pick(2);
        x.row = pick(x.target == edit_target::x ? n : 16);
        x.col = pick(16);
        x.value = float(pick(81) - 40) * 0.125f;  // what dragging a slider in steps gives
        e.edits.push_back(x);
    }
    return e;
}

}  // namespace

// [SECTION] forms

TEST_CASE("link: a short experiment is its canonical text form") {
    const experiment e;
    const std::string s = link_encode(e);
    CHECK(s == experiment_to_text(e));
    CHECK(s.size() == 266);  // as link.hpp says, to explain the threshold
    CHECK(s.size() <= link_limits::compress_above);
    const auto r = link_decode(s);
    REQUIRE(r.value);
    CHECK(*r.value == e);
}

TEST_CASE("link: a long experiment compresses to under half") {
    const experiment e = busy_experiment();
    REQUIRE(experiment_validate(e).empty());
    const std::string canonical = experiment_to_text(e);
    const std::string s = link_encode(e);
    MESSAGE("200 edges/edits: canonical " << canonical.size() << " chars, link " << s.size() << " chars ("
                                          << 100.0 * double(s.size()) / double(canonical.size()) << "%)");
    CHECK(s.rfind("z=", 0) == 0);
    // Uniformly random lists are the hard case (xz -9e and bzip2 -9 make 1040 and
    // 948 bytes of this 2769-byte text, before base64): at most 45%.
    CHECK(s.size() * 100 < canonical.size() * 45);
    const auto r = link_decode(s);
    REQUIRE(r.value);
    CHECK(*r.value == e);

    // A longer sentence, in Chinese too, stays readable: it is far under the threshold.
    experiment t;
    t.text = "the quick brown fox jumps over the lazy dog while the cat sleeps";
    CHECK(link_encode(t) == experiment_to_text(t));
    t.text = "\xE7\x8C\xAB \xE8\xBF\xBD \xE7\x8B\x97";  // 猫 追 狗
    CHECK(link_encode(t) == experiment_to_text(t));
    CHECK(link_encode(t).find("%E7%8C%AB") != std::string::npos);
}

TEST_CASE("link: the compressed form is used only when it is shorter") {
    // 1000 random CJK characters: percent-encoded, they are long and hard to compress.
    experiment e;
    rng g(3);
    e.text.clear();
    for (int i = 0; i < 1000; ++i) {
        const std::uint32_t cp = 0x4E00 + std::uint32_t(g.next_u64() % 0x5000);
        e.text += char(0xE0 | (cp >> 12));
        e.text += char(0x80 | ((cp >> 6) & 63));
        e.text += char(0x80 | (cp & 63));
    }
    const std::string canonical = experiment_to_text(e), s = link_encode(e);
    MESSAGE("1000 random hanzi: canonical " << canonical.size() << " chars, link " << s.size() << " chars");
    CHECK(s.size() <= canonical.size());
    const auto r = link_decode(s);
    REQUIRE(r.value);
    CHECK(*r.value == e);
}

TEST_CASE("link: a leading '#', a whole URL and surrounding whitespace are accepted") {
    experiment e;
    e.text = "猫追狗";
    e.heads = 1;
    e.kv_heads = 1;
    const std::string canonical = link_encode(e);
    const std::string compressed = link_encode(busy_experiment());
    REQUIRE(compressed.rfind("z=", 0) == 0);
    for (const std::string& s :
         {"#" + canonical, "http://127.0.0.1:8000/#" + canonical, "https://example.org/attn/index.html?embed=1#" + canonical,
          "  " + canonical + "\n", "x#" + canonical}) {
        const auto r = link_decode(s);
        INFO(s);
        REQUIRE(r.value);
        CHECK(*r.value == e);
    }
    for (const std::string& s : {"#" + compressed, "https://example.org/attn/index.html?embed=1#" + compressed}) {
        const auto r = link_decode(s);
        REQUIRE(r.value);
        CHECK(*r.value == busy_experiment());
    }
    const auto no_hash = link_decode("https://example.org/attn/index.html?embed=1");
    CHECK_FALSE(no_hash.value);
    CHECK(mentions(no_hash.errors, "'#'"));
}

// [SECTION] golden links: these strings were written by the v=1 format. They must
// open the same experiment forever; if one fails, the change breaks links people
// have shared (add a migration instead of editing the expectation).

TEST_CASE("link golden v=1: canonical forms") {
    {
        const auto r = link_decode(
            "v=1&text=the%20cat%20chased%20the%20dog&seed=1&d_model=8&heads=2&kv_heads=2&layers=1&block=attn&weights=random"
            "&pos=none&rope_base=10000&pos_offset=0&mask=causal&pad=0&edges=&scale=sqrt&softmax=stable&temp=1&mask_at=before"
            "&wo=on&precision=fp32&ablate=&decode=0&edits=");
        REQUIRE(r.value);
        const experiment& e = *r.value;
        CHECK(e.text == "the cat chased the dog");
        CHECK(e.seed == 1);
        CHECK(e.d_model == 8);
        CHECK(e.heads == 2);
        CHECK(e.kv_heads == 2);
        CHECK(e.layers == 1);
        CHECK(e.block == block_kind::attention_only);
        CHECK(e.weights == weight_init::random);
        CHECK(e.pos == positional::none);
        CHECK(e.rope_base == 10000.0f);
        CHECK(e.mask == mask_kind::causal);
        CHECK(e.scale == score_scale::sqrt_dk);
        CHECK(e.softmax == softmax_mode::stable);
        CHECK(e.temperature == 1.0f);
        CHECK(e.mask_at == mask_placement::before_softmax);
        CHECK(e.use_wo);
        CHECK(e.prec == precision::fp32);
        CHECK(e.edges.empty());
        CHECK(e.ablate.empty());
        CHECK(e.edits.empty());
        CHECK(e.decode == 0);
    }
    {
        // Chinese text, GQA, RoPE, padding, edges, ablation, edits, a view.
        const auto r = link_parse(
            "#v=1&text=%E6%88%91%E4%BB%AC%E5%AD%A6%E4%B9%A0%E6%B3%A8%E6%84%8F%E5%8A%9B&seed=42&d_model=12&heads=4&kv_heads=2"
            "&layers=2&block=full&weights=random&pos=rope&rope_base=500&pos_offset=3&mask=padding&pad=2"
            "&edges=0.1.3.2,1.3.6.0&scale=0.25&softmax=no_max&temp=0.5&mask_at=after&wo=off&precision=bf16&ablate=1.2"
            "&decode=4&edits=x.2.3:0.5,l1.w_2.47.11:-1.25,l0.w_k.0.5:3&view.lesson=3&view.stage=5&view.row=2"
            "&view.hide=controls,code&view.readonly=1&view.embed=1");
        INFO(all_errors(r.errors));
        REQUIRE(r.value);
        const experiment& e = *r.value;
        CHECK(e.text == "我们学习注意力");
        CHECK(e.seed == 42);
        CHECK(e.d_model == 12);
        CHECK(e.heads == 4);
        CHECK(e.kv_heads == 2);
        CHECK(e.layers == 2);
        CHECK(e.block == block_kind::full);
        CHECK(e.pos == positional::rope);
        CHECK(e.rope_base == 500.0f);
        CHECK(e.pos_offset == 3);
        CHECK(e.mask == mask_kind::padding);
        CHECK(e.pad == 2);
        CHECK(e.edges == std::vector<masked_edge>{{0, 1, 3, 2}, {1, 3, 6, 0}});
        CHECK(e.scale == score_scale::custom);
        CHECK(e.scale_value == 0.25f);
        CHECK(e.softmax == softmax_mode::no_max);
        CHECK(e.temperature == 0.5f);
        CHECK(e.mask_at == mask_placement::after_softmax);
        CHECK_FALSE(e.use_wo);
        CHECK(e.prec == precision::bf16);
        CHECK(e.ablate == std::vector<ablated_head>{{1, 2}});
        CHECK(e.decode == 4);
        CHECK(e.edits == std::vector<value_edit>{{edit_target::x, 0, 2, 3, 0.5f},
                                                 {edit_target::w_2, 1, 47, 11, -1.25f},
                                                 {edit_target::w_k, 0, 0, 5, 3.0f}});
        CHECK(r.view.lesson == 3);
        CHECK(r.view.stage == 5);
        CHECK(r.view.row == 2);
        CHECK(r.view.hides(view_panel::controls));
        CHECK(r.view.hides(view_panel::code));
        CHECK_FALSE(r.view.hides(view_panel::inspector));
        CHECK(r.view.readonly);
        CHECK(r.view.embed);
    }
}

namespace {

// A compressed form with no '#' in front: every field at its v=1 default but the sentence.
void check_compressed_defaults() {
    const auto r = link_decode("z=AcQCaba_9f8BHE9c-R1L4ci3nFati4U85Ufalgjz-7TJTDBhAAT91szyE--ImdQZcbV7tNiBnvV-GZXsAUVa");
    INFO(all_errors(r.errors));
    REQUIRE(r.value);
    experiment expected;  // the v=1 defaults, spelled out, and a longer sentence
    expected.text = "the quick brown fox jumps over the lazy dog while the cat sleeps";
    expected.seed = 1;
    expected.d_model = 8;
    expected.heads = 2;
    expected.kv_heads = 2;
    expected.layers = 1;
    expected.block = block_kind::attention_only;
    expected.weights = weight_init::random;
    expected.pos = positional::none;
    expected.rope_base = 10000.0f;
    expected.pos_offset = 0;
    expected.mask = mask_kind::causal;
    expected.pad = 0;
    expected.scale = score_scale::sqrt_dk;
    expected.softmax = softmax_mode::stable;
    expected.temperature = 1.0f;
    expected.mask_at = mask_placement::before_softmax;
    expected.use_wo = true;
    expected.prec = precision::fp32;
    expected.decode = 0;
    CHECK(*r.value == expected);
}

// Chinese text, GQA, RoPE, edges and edits in a whole URL, with a view after the link.
void check_compressed_url_with_view() {
    const auto r = link_parse(
        "https://example.org/attn/index.html?embed=1#z=AcsDnW9e7_wQJSasjO063Lcm8GNgyzx7cJxaWVR4YcF-Ru5bxbiMxHmkBM1f2vaAx66Tb_"
        "qPc0ObFWQQjk8nk0NLzb5w2I_Qsk3TbD6N-NIRsCNAaJ-BnGlMiLOzi3YgtGx8hmcI_Fp5U5bZMy5a0hvraYRvKXIEeombK72q0eeomAptjY23Oes"
        "&view.lesson=3&view.stage=5&view.row=2&view.hide=controls,code&view.readonly=1&view.embed=1");
    INFO(all_errors(r.errors));
    REQUIRE(r.value);
    const experiment& e = *r.value;
    CHECK(e.text == "我们今天学习注意力机制，猫追狗，狗追猫。");
    CHECK(e.d_model == 16);
    CHECK(e.heads == 4);
    CHECK(e.kv_heads == 2);
    CHECK(e.pos == positional::rope);
    CHECK(e.edges == std::vector<masked_edge>{{0, 1, 3, 2}, {0, 3, 9, 1}});
    CHECK(e.edits == std::vector<value_edit>{{edit_target::x, 0, 2, 3, 0.5f}, {edit_target::w_q, 0, 15, 1, -2.75f}});
    CHECK(e.mask == mask_kind::causal);
    CHECK(e.seed == 1);
    link_view v;
    v.lesson = 3;
    v.stage = 5;
    v.row = 2;
    v.hide[std::size_t(view_panel::controls)] = true;
    v.hide[std::size_t(view_panel::code)] = true;
    v.readonly = true;
    v.embed = true;
    CHECK(r.view == v);
}

// A busy experiment (a full block, specialised weights, padding, bf16): a band of masked edges, 17 edits, two ablated heads.
void check_compressed_busy() {
    const auto r = link_decode(
        "#z=AbsGRM4d_F_sVXtTo6Q4aL_Q0m-KblpWzfguktF4nU0Apue2tbXKSj6_vZ0G1YrOzJ8xELlXB2h7LeZ7h0i963HIaVUqo00CpbgIbeKaC1uO03"
        "hbUyCyNkl8kq3M3VUh-kkbx7OX4GWR6Zlk-mloBLf4NUQxSuHBpNnLCgm7czwjwG2iYvBbGdaBX82K6L5fcbmXmIk_BBytLqlQDVxHgdR8vUx32FH"
        "cusaUVyLYgHqzqAuJkbKBCpdIm9hWqLW_4YSMmJIB_tVzf5SYYXeqrhOat83aduKMPPdcm4tY_YZSqbKQUZ0");
    INFO(all_errors(r.errors));
    REQUIRE(r.value);
    const experiment& e = *r.value;
    CHECK(e.text == "the cat chased the dog because the dog took the cat's toy");
    CHECK(e.d_model == 16);
    CHECK(e.heads == 4);
    CHECK(e.kv_heads == 1);
    CHECK(e.layers == 2);
    CHECK(e.block == block_kind::full);
    CHECK(e.weights == weight_init::specialised);
    CHECK(e.mask == mask_kind::padding);
    CHECK(e.pad == 1);
    CHECK(e.softmax == softmax_mode::no_max);
    CHECK(e.temperature == 0.5f);
    CHECK(e.prec == precision::bf16);
    std::vector<masked_edge> band;  // a local-attention band masked in layer 1, head 2
    for (int q = 0; q < 12; ++q)
        for (int k = 0; k + 3 < q; ++k)
            band.push_back({1, 2, q, k});
    CHECK(e.edges == band);
    REQUIRE(e.edits.size() == 17);
    for (int j = 0; j < 16; ++j)
        CHECK(e.edits[std::size_t(j)] == value_edit{edit_target::x, 0, 4, j, 0.25f * float(j) - 2.0f});
    CHECK(e.edits[16] == value_edit{edit_target::w_2, 1, 63, 15, 1e-3f});
    CHECK(e.ablate == std::vector<ablated_head>{{0, 1}, {1, 3}});
}

}  // namespace

TEST_CASE("link golden v=1: compressed forms") {
    check_compressed_defaults();
    check_compressed_url_with_view();
    check_compressed_busy();
}

TEST_CASE("link: the encoder writes the same bytes on every platform") {
    // Integer-only coding: native and wasm must write these exact links. Unlike the
    // golden decodes above, this may be re-pinned when the encoder is improved on
    // purpose (old links still decode: that is what the goldens check).
    experiment a;
    a.text = "the quick brown fox jumps over the lazy dog while the cat sleeps";
    const auto z = [](const experiment& e) { return "z=" + link_base64url_encode(link_compress(experiment_to_text(e))); };
    CHECK(z(a) == "z=AcQCaba_9f8BHE9c-R1L4ci3nFati4U85Ufalgjz-7TJTDBhAAT91szyE--ImdQZcbV7tNiBnvV-GZXsAUVa");
    const auto r = link_decode(
        "#z=AbsGRM4d_F_sVXtTo6Q4aL_Q0m-KblpWzfguktF4nU0Apue2tbXKSj6_vZ0G1YrOzJ8xELlXB2h7LeZ7h0i963HIaVUqo00CpbgIbeKaC1uO03"
        "hbUyCyNkl8kq3M3VUh-kkbx7OX4GWR6Zlk-mloBLf4NUQxSuHBpNnLCgm7czwjwG2iYvBbGdaBX82K6L5fcbmXmIk_BBytLqlQDVxHgdR8vUx32FH"
        "cusaUVyLYgHqzqAuJkbKBCpdIm9hWqLW_4YSMmJIB_tVzf5SYYXeqrhOat83aduKMPPdcm4tY_YZSqbKQUZ0");
    REQUIRE(r.value);
    CHECK(z(*r.value) ==
          "z=AbsGRM4d_F_sVXtTo6Q4aL_Q0m-KblpWzfguktF4nU0Apue2tbXKSj6_vZ0G1YrOzJ8xELlXB2h7LeZ7h0i963HIaVUqo00CpbgIbeKaC1uO03"
          "hbUyCyNkl8kq3M3VUh-kkbx7OX4GWR6Zlk-mloBLf4NUQxSuHBpNnLCgm7czwjwG2iYvBbGdaBX82K6L5fcbmXmIk_BBytLqlQDVxHgdR8vUx32FH"
          "cusaUVyLYgHqzqAuJkbKBCpdIm9hWqLW_4YSMmJIB_tVzf5SYYXeqrhOat83aduKMPPdcm4tY_YZSqbKQUZ0");
    // A realistic state (a masked band, an edited row): 827 characters would become
    // 309, but under link_limits::compress_above its link stays readable.
    CHECK(experiment_to_text(*r.value).size() == 827);
    CHECK(link_encode(*r.value) == experiment_to_text(*r.value));
}

// [SECTION] round trips

TEST_CASE("link: random experiments and views round trip exactly") {
    rng g(7);
    int compressed = 0;
    for (int i = 0; i < 400; ++i) {
        const experiment e = random_experiment(g, i % 4 == 0 ? 200 : 6);
        REQUIRE(experiment_validate(e).empty());
        link_view v = random_view(g, int(tokenize(e.text).size()));
        if (v.stage >= 0 && !stage_applies(stage(v.stage), e))
            v.stage = int(stage::output);  // a stage e lacks is an error (tested below)
        const std::string s = link_encode(e, v);
        INFO(s);
        compressed += s.rfind("z=", 0) == 0;
        CHECK(s.size() <= std::max(experiment_to_text(e).size(), link_limits::compress_above) + 120);
        const auto r = link_parse(s);
        INFO(all_errors(r.errors));
        REQUIRE(r.value);
        CHECK(*r.value == e);
        CHECK(r.view == v);
        CHECK(link_encode(*r.value, r.view) == s);
        CHECK(link_fuzz_check(s).empty());
        CHECK(link_fuzz_check("https://example.org/?a=b#" + s).empty());
    }
    CHECK(compressed > 50);  // both forms are exercised
}

TEST_CASE("link codec: random texts round trip, the empty text too") {
    rng g(9);
    for (int i = 0; i < 200; ++i) {
        std::string text;
        const int n = int(g.next_u64() % 3000);
        const int alphabet = 1 + int(g.next_u64() % 256);
        for (int k = 0; k < n; ++k)
            text += char(g.next_u64() % std::uint64_t(alphabet));
        const std::string packed = link_compress(text);
        std::string problem;
        const auto back = link_decompress(packed, &problem);
        INFO(problem);
        REQUIRE(back);
        CHECK(*back == text);
        CHECK(link_base64url_decode(link_base64url_encode(packed)) == packed);
    }
    CHECK(link_decompress(link_compress("")) == std::string());
    CHECK(link_compress(std::string(link_limits::max_payload_bytes + 1, 'a')).empty());
    const std::string big(link_limits::max_payload_bytes, 'a');
    CHECK(link_decompress(link_compress(big)) == big);
}

// [SECTION] view options

TEST_CASE("link view: defaults are not written, others in a fixed order") {
    const experiment e;
    CHECK(link_encode(e, link_view{}) == experiment_to_text(e));
    link_view v;
    v.embed = true;
    v.hide[std::size_t(view_panel::stepper)] = true;
    v.hide[std::size_t(view_panel::controls)] = true;
    v.lesson = 1;
    CHECK(link_encode(e, v) == experiment_to_text(e) + "&view.lesson=1&view.hide=controls,stepper&view.embed=1");
    // Keys in any order, views before the experiment keys.
    const auto r = link_parse("view.embed=1&view.hide=stepper,controls&v=1&view.lesson=1");
    REQUIRE(r.value);
    CHECK(r.view == v);
    // A view next to a compressed experiment stays readable.
    const std::string z = link_encode(busy_experiment(), v);
    CHECK(z.rfind("z=", 0) == 0);
    CHECK(z.find("&view.lesson=1&view.hide=controls,stepper&view.embed=1") != std::string::npos);
    CHECK(link_parse(z).view == v);
}

TEST_CASE("link view: rejections, each with a message, and no value") {
    const char* bad[] = {"v=1&view.lesson=14",
                         "v=1&view.lesson=0",
                         "v=1&view.lesson=-2",
                         "v=1&view.stage=11",
                         "v=1&view.stage=x",
                         "v=1&view.row=5",  // the default text has 5 tokens (0..4)
                         "v=1&view.row=-3",
                         "v=1&view.hide=controls,sidebar",
                         "v=1&view.hide=code,code",
                         "v=1&view.readonly=yes",
                         "v=1&view.embed=2",
                         "v=1&view.zoom=2",
                         "v=1&view.lesson=1&view.lesson=2",
                         "v=1&view.lesson"};
    for (const char* s : bad) {
        const auto r = link_parse(s);
        INFO(s);
        CHECK_FALSE(r.value);
        REQUIRE_FALSE(r.errors.empty());
        CHECK(mentions(r.errors, "view."));
    }
    CHECK(link_parse("v=1&view.row=4").value);
    CHECK(link_parse("v=1&view.hide=").value);
    // Errors from both parts come back together.
    const auto r = link_parse("v=1&heads=3&view.lesson=99");
    CHECK(mentions(r.errors, "heads"));
    CHECK(mentions(r.errors, "view.lesson"));
}

// [SECTION] hostile input

TEST_CASE("link: malformed links are errors with messages") {
    const std::string z = link_encode(busy_experiment());
    const std::string payload = z.substr(2);
    const std::string bad[] = {
        "",
        "#",
        "z=",
        "z=@@@@",
        "z=" + payload + "=",                                                // padding
        "z=" + payload.substr(0, payload.size() / 2),                        // truncated
        "z=" + payload.substr(0, payload.size() - 1),                        // one character short
        "z=" + payload + "A",                                                // one character too many
        "z=" + payload + "&heads=2",                                         // compressed and plain keys
        "z=" + payload + "&z=" + payload,                                    // twice
        "z=" + link_base64url_encode(std::string("\x02\x05", 2) + "abcde"),  // unknown method
        "v=1&text=%zz",
    };
    for (const auto& s : bad) {
        const auto r = link_decode(s);
        INFO(s.substr(0, 80));
        CHECK_FALSE(r.value);
        CHECK_FALSE(r.errors.empty());
        CHECK(link_fuzz_check(s).empty());
    }
    // Every single-character change of a compressed link is an error or the same experiment.
    int rejected = 0;
    for (std::size_t i = 2; i < z.size(); ++i) {
        std::string s = z;
        s[i] = s[i] == 'A' ? 'B' : 'A';
        const auto r = link_decode(s);
        rejected += !r.value;
        if (r.value)
            CHECK(*r.value == busy_experiment());
    }
    CHECK(rejected == int(z.size()) - 2);
}

// Refused before any work: the allocator sees almost nothing (timings belong in the benchmark).
TEST_CASE("link: oversized input is refused at once, with bounded memory") {
    const std::string huge(10 * 1024 * 1024, 'a');
    const std::string huge_z = "z=" + std::string(10 * 1024 * 1024, 'A');
    for (const std::string* s : {&huge, &huge_z}) {
        alloc_counter_start();
        const auto r = link_decode(*s);
        const std::size_t peak = alloc_counter_stop();
        CHECK_FALSE(r.value);
        CHECK(mentions(r.errors, "limit"));
        CHECK(peak < 4096);
    }
}

TEST_CASE("link codec: hostile payloads fail fast, before allocating") {
    auto decompress_peak = [](const std::string& payload, std::string& problem) {
        alloc_counter_start();
        const auto text = link_decompress(payload, &problem);
        const std::size_t peak = alloc_counter_stop();
        CHECK_FALSE(text);
        CHECK_FALSE(problem.empty());
        return peak;
    };
    std::string problem;
    // Claimed sizes: 2^63, 2^70 (an overlong varint), just over the limit.
    for (const std::string& payload : {std::string("\x01\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00", 13),
                                       std::string("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
                                       link_payload_from_tokens({}, link_limits::max_payload_bytes + 1, 0)}) {
        CHECK(decompress_peak(payload, problem) < 256);
        INFO(problem);
        CHECK(problem.find("limit") != std::string::npos);
    }
    // Truncated headers, a non-minimal size.
    for (const std::string& payload : {std::string("\x01", 1), std::string("\x01\x85", 2), std::string("\x01\x05\x00", 3),
                                       std::string("\x01\x80\x00\x00\x00\x00", 6)}) {
        CHECK(decompress_peak(payload, problem) < 256);
        CHECK((problem.find("truncated") != std::string::npos || problem.find("minimal") != std::string::npos));
    }

    // A long run of continuation bytes (found by the fuzzer: the shift grew past 63).
    CHECK(decompress_peak("\x01" + std::string(80, '\x80') + std::string(4, '\0'), problem) < 256);
    CHECK(problem.find("longer than") != std::string::npos);

    const std::size_t model_bytes = 8 * 1024;  // the token model plus a short window
    // A copy from before the start of the dictionary.
    CHECK(decompress_peak(link_payload_from_tokens({{'a', 0, 0}, {0, 5, 100000}}, 6, 0), problem) < model_bytes);
    CHECK(problem.find("before the start") != std::string::npos);
    // A copy running past the declared size (a "cycle" that would repeat forever).
    CHECK(decompress_peak(link_payload_from_tokens({{'a', 0, 0}, {0, 1000000, 1}}, 100, 0), problem) < model_bytes);
    CHECK(problem.find("past its declared size") != std::string::npos);
    // Overlapping copies are fine when they stay in bounds (a run of 'a').
    const std::string run(100, 'a');
    CHECK(link_decompress(link_payload_from_tokens({{'a', 0, 0}, {0, 99, 1}}, 100, link_payload_check(run))) == run);
    // The right tokens with a wrong check: damage, not a different text.
    CHECK(decompress_peak(link_payload_from_tokens({{'a', 0, 0}, {0, 99, 1}}, 100, 12345), problem) < model_bytes);
    CHECK(problem.find("check") != std::string::npos);
    // Fewer tokens than the declared size: the reader runs out of input.
    CHECK(decompress_peak(link_payload_from_tokens({{'a', 0, 0}}, 30000, 0), problem) < 40 * 1024 + model_bytes);
    // Trailing bytes after a complete stream.
    CHECK(decompress_peak(link_compress("v=1&heads=1") + std::string(8, '\x07'), problem) < model_bytes);
    CHECK(problem.find("unused bytes") != std::string::npos);
}

// [SECTION] fuzz corpus replay

#ifdef ATTN_FUZZ_CORPUS_DIR
TEST_CASE("link: the fuzz corpus (tests/fuzz/corpus) replays cleanly") {
    test::replay_fuzz_corpus(ATTN_FUZZ_CORPUS_DIR, "valid links", link_fuzz_check,
                             [](const std::string& input) { return link_decode(input).value.has_value(); });
}
#endif

TEST_CASE("link parse: a NUL is refused before anything else; view errors are capped and cut") {
    using namespace std::string_view_literals;
    for (const auto link : {"v=1&heads=8\0&heads=99&garbage"sv, "https://x.org/#v=1&view.stage=2\0"sv, "z=AQ\0"sv}) {
        const auto r = link_parse(link);
        CHECK_FALSE(r.value);
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].find("NUL character") != std::string::npos);
    }
    std::string hidden = "v=1&view.hide=";
    for (int i = 0; i < 500; ++i)
        hidden += (i ? ",p" : "p") + std::to_string(i);
    auto r = link_parse(hidden);
    REQUIRE(r.errors.size() == max_error_messages + 1);
    CHECK(r.errors.back() == "... and 480 more problems");
    const std::string key = "view." + std::string(20000, 'k');
    r = link_parse("v=1&" + key + "=1&" + key + "=1");
    REQUIRE(r.errors.size() == 2);
    for (const auto& e : r.errors)
        CHECK(e.size() < 400);  // the key cut, then the view keys' names
}

TEST_CASE("view.theme: light or dark, written back only when a link names it") {
    const auto r = link_parse("v=1&view.theme=light");
    REQUIRE(r.value);
    CHECK(r.view.theme == view_theme::light);
    CHECK(link_encode(*r.value, r.view) == experiment_to_text(*r.value) + "&view.theme=light");
    CHECK(link_parse("v=1&view.theme=dark").view.theme == view_theme::dark);
    CHECK(link_parse("v=1").view.theme == view_theme::automatic);
    CHECK(link_encode(*r.value, link_view{}) == experiment_to_text(*r.value));
    const auto bad = link_parse("v=1&view.theme=sepia");
    CHECK_FALSE(bad.value);
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0] == "view.theme must be light or dark, not 'sepia'");
}

TEST_CASE("view.poster: 0 or 1, written back only when set") {
    const auto r = link_parse("v=1&view.embed=1&view.poster=1");
    REQUIRE(r.value);
    CHECK(r.view.poster);
    CHECK(link_encode(*r.value, r.view) == experiment_to_text(*r.value) + "&view.embed=1&view.poster=1");
    CHECK_FALSE(link_parse("v=1&view.poster=0").view.poster);
    CHECK(link_encode(*link_parse("v=1&view.poster=0").value, link_parse("v=1&view.poster=0").view) ==
          experiment_to_text(*r.value));
    for (const char* bad : {"v=1&view.poster=yes", "v=1&view.poster=2", "v=1&view.poster=", "v=1&view.poster=1&view.poster=1"}) {
        INFO(bad);
        const auto b = link_parse(bad);
        CHECK_FALSE(b.value);
        REQUIRE(b.errors.size() == 1);
        CHECK(mentions(b.errors, "view.poster"));
    }
    CHECK(link_parse("v=1&view.poster=true").errors[0] == "view.poster must be 0 or 1, not 'true'");
}

// [SECTION] pin: the pinned A of an A/B compare

TEST_CASE("link pin: a pinned A round trips beside either form of the experiment and the view") {
    rng g(23);
    for (int i = 0; i < 60; ++i) {
        const experiment e = random_experiment(g, i % 4 == 0 ? 200 : 6);
        const experiment a = random_experiment(g, 6);
        link_view v;
        v.stage = int(stage::weights);
        v.embed = i % 2 == 0;
        const std::string s = link_encode(e, v, a);
        INFO(s);
        CHECK(s.find("&pin=") != std::string::npos);
        const auto r = link_parse(s);
        INFO(all_errors(r.errors));
        REQUIRE(r.value);
        CHECK(*r.value == e);
        REQUIRE(r.pin);
        CHECK(*r.pin == a);
        CHECK(r.view == v);
        CHECK(link_encode(*r.value, r.view, r.pin) == s);
        CHECK(link_fuzz_check(s).empty());
    }
    // No pin: no pin= pair, and the link reads as it always did.
    CHECK(link_encode(experiment{}, link_view{}, std::nullopt) == link_encode(experiment{}));
    CHECK_FALSE(link_parse(link_encode(experiment{})).pin);
}

TEST_CASE("link pin: a malformed pin is an error that says so, and nothing is opened") {
    const std::string good = link_encode(experiment{}, link_view{}, experiment{});
    const std::string pin = good.substr(good.find("&pin=") + 5);
    std::string bad_a = experiment_to_text(experiment{});
    bad_a.replace(bad_a.find("heads=2"), 7, "heads=3");
    const std::string base = experiment_to_text(experiment{});
    const std::pair<std::string, std::string_view> cases[] = {
        {base + "&pin=", "pin"},
        {base + "&pin=!!!", "pin is not valid base64url"},
        {base + "&pin=" + pin + "&pin=" + pin, "pin is given twice"},
        {base + "&pin=" + pin.substr(0, pin.size() - 2), "pin"},
        {base + "&pin=" + link_base64url_encode(link_compress(bad_a)), "pin: "},
        {base + "&pin=" + link_base64url_encode(link_compress("v=1&pin=x")), "pin: "},
    };
    for (const auto& c : cases) {
        const std::string& link = c.first;
        const std::string_view word = c.second;
        INFO(link);
        const auto r = link_parse(link);
        INFO(all_errors(r.errors));
        CHECK_FALSE(r.value);
        CHECK_FALSE(r.pin);
        CHECK(mentions(r.errors, word));
        CHECK(link_fuzz_check(link).empty());
    }
}

TEST_CASE("link: model=<file name>@<16 hex digits> names a real model; it round-trips; other forms are refused") {
    const link_parse_result r = link_parse("v=1&text=Once%20upon&model=stories15M.bin@0123456789abcdef");
    REQUIRE(r.errors.empty());
    CHECK(r.view.model == "stories15M.bin@0123456789abcdef");
    const std::string again = link_encode(*r.value, r.view);
    CHECK(again.find("&model=stories15M.bin@0123456789abcdef") != std::string::npos);
    CHECK(link_parse(again).view == r.view);
    for (const char* bad : {"model=stories15M.bin", "model=a@0123456789abcde", "model=a@0123456789ABCDEF",
                            "model=a b@0123456789abcdef", "model=@0123456789abcdef", "model=a/b@0123456789abcdef"}) {
        const link_parse_result b = link_parse(std::string("v=1&text=a&") + bad);
        INFO(bad);
        REQUIRE(b.errors.size() == 1);
        CHECK(b.errors[0].find("is not <file name>@<16 hex digits>") != std::string::npos);
    }
    const link_parse_result twice = link_parse("v=1&text=a&model=a@0123456789abcdef&model=b@0123456789abcdef");
    REQUIRE(twice.errors.size() == 1);
    CHECK(twice.errors[0] == "model is given twice");
    CHECK(link_parse("v=1&text=a&model=" + std::string(129, 'x') + "@0123456789abcdef").errors.size() == 1);
}

TEST_CASE("link: model_url= and tokenizer_url= say where a host keeps the files; with model=, both, http(s) or a path") {
    const std::string m = "v=1&text=Once&model=stories15M.bin@0123456789abcdef";
    const link_parse_result r =
        link_parse(m + "&model_url=https://models.example.org/s/stories15M.bin&tokenizer_url=models/tokenizer%20v2.bin");
    REQUIRE(r.errors.empty());
    CHECK(r.view.model_url == "https://models.example.org/s/stories15M.bin");
    CHECK(r.view.tokenizer_url == "models/tokenizer%20v2.bin");
    const std::string again = link_encode(*r.value, r.view);
    CHECK(again.find("&model_url=https://models.example.org/s/stories15M.bin&tokenizer_url=models/tokenizer%20v2.bin") !=
          std::string::npos);
    CHECK(link_parse(again).view == r.view);
    CHECK(link_parse(m + "&model_url=HTTP://x/a.bin&tokenizer_url=/t.bin?v=2:3").errors.empty());
    const auto one = [&](const std::string& extra) {
        const link_parse_result b = link_parse(m + extra);
        return b.errors.size() == 1 ? b.errors[0] : "(" + std::to_string(b.errors.size()) + " errors)";
    };
    CHECK(one("&model_url=javascript:alert(1)&tokenizer_url=t.bin") ==
          "model_url='javascript:alert(1)' is not an http:// or https:// address or a path on this site");
    CHECK(one("&model_url=a.bin&tokenizer_url=data:,x") ==
          "tokenizer_url='data:,x' is not an http:// or https:// address or a path on this site");
    CHECK(one("&model_url=a b.bin&tokenizer_url=t.bin").find("holds a character") != std::string::npos);
    CHECK(one("&model_url=a\"x.bin&tokenizer_url=t.bin").find("holds a character") != std::string::npos);
    CHECK(one("&model_url=&tokenizer_url=t.bin") == "model_url= must be an address of 1 to 2048 characters");
    CHECK(one("&model_url=" + std::string(2049, 'a') + "&tokenizer_url=t.bin") ==
          "model_url= must be an address of 1 to 2048 characters");
    CHECK(one("&model_url=a.bin") == "model_url and tokenizer_url go together: the checkpoint's address and its tokenizer's");
    CHECK(one("&model_url=a.bin&model_url=b.bin&tokenizer_url=t.bin") == "model_url is given twice");
    // A folder's address holds its tokenizer.json (web/folders.js fetches it from there).
    CHECK(one("&model_url=https://host/gpt2/") == "(0 errors)");
    CHECK(one("&model_url=https%3A%2F%2Fhost%2Fgpt2%2F") == "(0 errors)");
    CHECK(one("&model_url=models/gpt2/&tokenizer_url=t.bin") ==
          "model_url names a folder (it ends in '/'), which holds its tokenizer.json: no tokenizer_url");
    CHECK(link_parse("v=1&text=a&model_url=a.bin&tokenizer_url=t.bin").errors ==
          std::vector<std::string>{"model_url needs model=<file name>@<16 hex digits>: the page checks the fetched file's "
                                   "SHA-256 against it"});
}

TEST_CASE("link: tokenizer=<file name>@<16 hex digits> names the model's tokenizer; with model=, once; it round-trips") {
    const std::string m = "v=1&text=Once&model=stories15M.bin@0123456789abcdef";
    const link_parse_result r = link_parse(m + "&tokenizer=tokenizer.bin@fedcba9876543210&model_url=a.bin&tokenizer_url=t.bin");
    REQUIRE(r.errors.empty());
    CHECK(r.view.tokenizer == "tokenizer.bin@fedcba9876543210");
    const std::string again = link_encode(*r.value, r.view);
    CHECK(again.find("&model=stories15M.bin@0123456789abcdef&tokenizer=tokenizer.bin@fedcba9876543210&model_url=") !=
          std::string::npos);
    CHECK(link_parse(again).view == r.view);
    CHECK(link_parse(m).view.tokenizer.empty());  // a link written before tokenizer= existed still opens
    const auto errors = [&](const std::string& link) { return link_parse(link).errors; };
    CHECK(errors(m + "&tokenizer=t.bin@0123") ==
          std::vector<std::string>{"tokenizer='t.bin@0123' is not <file name>@<16 hex digits> (the name: letters, digits, "
                                   ". _ -, at most 128 of them; the digits: the start of the file's SHA-256)"});
    CHECK(errors(m + "&tokenizer=t.bin@0123456789abcdef&tokenizer=t.bin@0123456789abcdef") ==
          std::vector<std::string>{"tokenizer is given twice"});
    CHECK(errors("v=1&text=a&tokenizer=t.bin@0123456789abcdef") ==
          std::vector<std::string>{"tokenizer needs model=<file name>@<16 hex digits>: it names that model's tokenizer"});
}

// The page decodes an address with decodeURIComponent: what it cannot decode is
// the link's error, not a fetch that never starts.
TEST_CASE("link: model_url= and tokenizer_url= must percent-decode to UTF-8 text") {
    const std::string m = "v=1&text=Once&model=stories15M.bin@0123456789abcdef";
    const std::string why =
        " is not a percent-encoded address: each % must start two hex digits, and the bytes they make "
        "must be UTF-8 text";
    CHECK(link_parse(m + "&model_url=%FF&tokenizer_url=t.bin").errors == std::vector<std::string>{"model_url='%FF'" + why});
    CHECK(link_parse(m + "&model_url=a.bin&tokenizer_url=t%2.bin").errors ==
          std::vector<std::string>{"tokenizer_url='t%2.bin'" + why});
    CHECK(link_parse(m + "&model_url=a.bin&tokenizer_url=t%").errors == std::vector<std::string>{"tokenizer_url='t%'" + why});
    CHECK(link_parse(m + "&model_url=m%2F%E6%A8%A1.bin&tokenizer_url=t%20v2.bin").errors.empty());
}
