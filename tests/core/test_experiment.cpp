#include <doctest/doctest.h>

#include <cctype>

#include "experiment.hpp"
#include "random.hpp"

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

TEST_CASE("experiment text form: random experiments round trip exactly") {
    rng g(5);
    const char* texts[] = {"猫追狗", "a&b=c%d#e", "hello, world!", "x", "tab\tand\nnewline ü"};
    for (int i = 0; i < 200; ++i) {
        experiment e;
        e.text = texts[g.next_u64() % 5];
        e.seed = std::uint32_t(g.next_u64());
        e.heads = 1 << (g.next_u64() % 4);
        e.d_model = e.heads * int(1 + g.next_u64() % 16);
        e.mask = g.next_u64() % 2 ? mask_kind::causal : mask_kind::none;
        const std::string s = experiment_to_text(e);
        const auto r = experiment_parse(s);
        INFO(s);
        REQUIRE(r.errors.empty());
        CHECK(*r.value == e);
        CHECK(experiment_to_text(*r.value) == s);
        // The form is URL-safe: nothing a URL hash would re-encode.
        for (char c : s)
            CHECK((std::isalnum(static_cast<unsigned char>(c)) || std::string("-._~%&=").find(c) != std::string::npos));
    }
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
