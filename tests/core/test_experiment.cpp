#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>

#include "experiment.hpp"
#include "random.hpp"
#include "test_util.hpp"
#include "tokenize.hpp"

using namespace attn;
using attn::test::random_experiment;

TEST_CASE("experiment text form: default round trip") {
    const experiment e;
    const std::string s = experiment_to_text(e);
    CHECK(s.rfind("v=1&", 0) == 0);
    const auto r = experiment_parse(s);
    REQUIRE(r.value);
    CHECK(*r.value == e);
    CHECK(experiment_to_text(*r.value) == s);
}

TEST_CASE("experiment text form: random experiments round trip exactly") {
    rng g(5);
    for (int i = 0; i < 500; ++i) {
        const experiment e = random_experiment(g, 3);
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
