#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>

#include "experiment.hpp"
#include "random.hpp"
#include "tokenize.hpp"

using namespace attn;

TEST_CASE("experiment text form: default round trip") {
    const experiment e;
    const std::string s = experiment_to_text(e);
    CHECK(s.rfind("v=1&", 0) == 0);
    const auto r = experiment_parse(s);
    REQUIRE(r.value);
    CHECK(*r.value == e);
    CHECK(experiment_to_text(*r.value) == s);
}

namespace {

// A random valid experiment touching every field.
experiment random_experiment(rng& g) {
    const char* texts[] = {"猫追狗", "a&b=c%d#e f", "hello, world! how are you", "x y", "tab\tand\nnewline ü"};
    auto pick = [&g](int n) { return int(g.next_u64() % std::uint64_t(n)); };
    experiment e;
    e.text = texts[pick(5)];
    const int n = int(tokenize(e.text).size());
    e.seed = std::uint32_t(g.next_u64());
    e.heads = 1 << pick(4);
    e.d_model = e.heads * (1 + pick(16));
    e.kv_heads = std::max(1, e.heads >> pick(3));
    e.layers = 1 + pick(experiment_limits::max_layers);
    e.block = pick(2) ? block_kind::full : block_kind::attention_only;
    e.weights = weight_init(pick(4));
    const bool two_heads = e.heads >= 2 && e.d_model / e.heads >= 2;
    if ((e.weights == weight_init::specialised && !two_heads) || (e.weights == weight_init::cancel && !two_heads) ||
        (e.weights == weight_init::sink && e.d_model < 3))
        e.weights = weight_init::random;
    if (e.weights == weight_init::cancel)
        e.kv_heads = e.heads;
    e.pos = positional(pick(3));
    e.rope_base = pick(2) ? 10000.0f : 2.0f + g.uniform() * 500.0f;
    e.pos_offset = pick(3) ? 0 : pick(5000);
    e.mask = mask_kind(pick(3));
    e.pad = e.mask == mask_kind::padding ? pick(n) : 0;
    for (int i = pick(4); i > 0; --i)
        e.edges.push_back({pick(e.layers), pick(e.heads), pick(n), pick(n)});
    e.scale = score_scale(pick(3));
    if (e.scale == score_scale::custom)
        e.scale_value = (g.uniform() - 0.5f) * 8.0f;
    e.softmax = softmax_mode(pick(3));
    e.temperature = pick(2) ? 1.0f : 0.01f + g.uniform() * 10.0f;
    e.mask_at = pick(2) ? mask_placement::after_softmax : mask_placement::before_softmax;
    e.use_wo = pick(2);
    e.prec = precision(pick(3));
    for (int i = pick(3); i > 0; --i)
        e.ablate.push_back({pick(e.layers), pick(e.heads)});
    e.decode = pick(n + 1);
    for (int i = pick(4); i > 0; --i) {
        value_edit x;
        x.target = edit_target(pick(e.block == block_kind::full ? 7 : 5));
        x.layer = x.target == edit_target::x ? 0 : pick(e.layers);
        x.row = pick(x.target == edit_target::x ? n : e.d_model);
        const bool kv = x.target == edit_target::w_k || x.target == edit_target::w_v;
        x.col = pick(kv ? e.kv_heads * (e.d_model / e.heads) : e.d_model);
        x.value = (g.uniform() - 0.5f) * 1000.0f;
        e.edits.push_back(x);
    }
    return e;
}

}  // namespace

TEST_CASE("experiment text form: random experiments round trip exactly") {
    rng g(5);
    for (int i = 0; i < 500; ++i) {
        const experiment e = random_experiment(g);
        const auto problems = experiment_validate(e);
        INFO((problems.empty() ? std::string() : problems.front()));
        REQUIRE(problems.empty());
        const std::string s = experiment_to_text(e);
        const auto r = experiment_parse(s);
        INFO(s);
        REQUIRE(r.errors.empty());
        CHECK(*r.value == e);
        CHECK(experiment_to_text(*r.value) == s);
        // Nothing a URL fragment would re-encode.
        for (char c : s)
            CHECK((std::isalnum(static_cast<unsigned char>(c)) || std::string("-._~%&=,:").find(c) != std::string::npos));
    }
}

TEST_CASE("experiment parse: keys in any order and missing keys take their defaults") {
    const auto r = experiment_parse("heads=4&v=1&mask=none");
    REQUIRE(r.value);
    CHECK(r.value->heads == 4);
    CHECK(r.value->kv_heads == 4);  // not given: plain multi-head attention
    CHECK(r.value->mask == mask_kind::none);
    CHECK(r.value->d_model == experiment{}.d_model);
}

TEST_CASE("experiment parse: lists") {
    const auto r = experiment_parse("v=1&layers=2&block=full&edges=0.1.3.2,1.0.4.1&ablate=1.1&edits=x.2.3:0.5,l1.w_2.31.7:-1.25");
    REQUIRE(r.errors.empty());
    const experiment& e = *r.value;
    CHECK(e.edges == std::vector<masked_edge>{{0, 1, 3, 2}, {1, 0, 4, 1}});
    CHECK(e.ablate == std::vector<ablated_head>{{1, 1}});
    REQUIRE(e.edits.size() == 2);
    CHECK(e.edits[0] == value_edit{edit_target::x, 0, 2, 3, 0.5f});
    CHECK(e.edits[1] == value_edit{edit_target::w_2, 1, 31, 7, -1.25f});
    CHECK_FALSE(experiment_parse("v=1&edges=0.1.3").value);                   // too few parts
    CHECK_FALSE(experiment_parse("v=1&edges=0.9.0.0").value);                 // no head 9
    CHECK_FALSE(experiment_parse("v=1&edges=0.0.0.99").value);                // no key 99
    CHECK_FALSE(experiment_parse("v=1&ablate=1.0").value);                    // one layer only
    CHECK_FALSE(experiment_parse("v=1&edits=x.0.0:nan").value);               // not finite
    CHECK_FALSE(experiment_parse("v=1&edits=x.0.0:1e30").value);              // out of range
    CHECK_FALSE(experiment_parse("v=1&edits=l0.w_1.0.0:1").value);            // no FFN in block=attn
    CHECK_FALSE(experiment_parse("v=1&edits=w_q.0.0:1").value);               // weights need a layer
    CHECK_FALSE(experiment_parse("v=1&edits=l0.x.0.0:1").value);              // x has none
    CHECK_FALSE(experiment_parse("v=1&kv_heads=3&heads=4&d_model=8").value);  // 3 does not divide 4
    CHECK_FALSE(experiment_parse("v=1&temp=0").value);
    CHECK_FALSE(experiment_parse("v=1&scale=inf").value);
    CHECK_FALSE(experiment_parse("v=1&pad=2").value);  // pad without mask=padding
    CHECK_FALSE(experiment_parse("v=1&decode=99").value);
}

TEST_CASE("experiment parse: a leading # and raw UTF-8 are accepted") {
    const auto r = experiment_parse("#v=1&text=猫追狗&heads=1");
    REQUIRE(r.value);
    CHECK(r.value->text == "猫追狗");
    CHECK(r.value->heads == 1);
}

TEST_CASE("experiment parse: every problem is reported and nothing is half-applied") {
    const auto r = experiment_parse("v=1&heads=3&d_model=8&mask=sideways&bogus=1&seed=-4&text=%zz");
    CHECK_FALSE(r.value);
    const std::string all = [&] {
        std::string s;
        for (const auto& e : r.errors)
            s += e + "\n";
        return s;
    }();
    INFO(all);
    CHECK(all.find("mask") != std::string::npos);
    CHECK(all.find("bogus") != std::string::npos);
    CHECK(all.find("seed") != std::string::npos);
    CHECK(all.find("percent") != std::string::npos);
    CHECK(r.errors.size() >= 4);
}

TEST_CASE("experiment parse: rejections") {
    CHECK_FALSE(experiment_parse("").value);                               // no version
    CHECK_FALSE(experiment_parse("v=2&heads=2").value);                    // future version
    CHECK_FALSE(experiment_parse("v=1&heads=3").value);                    // 3 does not divide 8
    CHECK_FALSE(experiment_parse("v=1&d_model=100000").value);             // too wide
    CHECK_FALSE(experiment_parse("v=1&text=%20%20").value);                // no tokens
    CHECK_FALSE(experiment_parse("v=1&heads=2&heads=2").value);            // duplicate
    CHECK_FALSE(experiment_parse("v=1&heads").value);                      // no '='
    CHECK_FALSE(experiment_parse("v=1&heads=2x").value);                   // trailing junk
    CHECK_FALSE(experiment_parse("v=1&seed=99999999999999999999").value);  // overflow
    CHECK_FALSE(experiment_parse(std::string(100000, 'a')).value);         // oversized
    std::string many = "v=1&text=";
    for (int i = 0; i < experiment_limits::max_tokens + 1; ++i)
        many += "a%20";
    CHECK_FALSE(experiment_parse(many).value);
}

TEST_CASE("experiment_validate names the limits") {
    experiment e;
    e.d_model = 0;
    e.heads = 0;
    e.text = "";
    CHECK(experiment_validate(e).size() == 3);
}
