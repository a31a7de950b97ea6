#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "base/random.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "spec/experiment.hpp"
#include "test_util.hpp"

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

TEST_CASE("experiment parse: one canonical text whatever the keys' order or spelling") {
    // train=none refuses the link's own recipe keys before or after it.
    for (const char* link : {"v=1&steps=5&train=none", "v=1&train=none&steps=5"}) {
        const auto r = experiment_parse(link);
        INFO(link);
        CHECK_FALSE(r.value);
        REQUIRE_FALSE(r.errors.empty());
        CHECK(r.errors.front().find("need train=<task>") != std::string::npos);
    }
    // ... and drops a base's recipe (a lesson's) in any order of the rest.
    experiment base;
    base.train.task = train_task::induction;
    base.train.steps = 300;
    for (const char* link : {"v=1&train=none&heads=4", "v=1&heads=4&train=none"}) {
        const auto r = experiment_parse(link, base);
        REQUIRE(r.value);
        CHECK(r.value->train == train_settings{});
    }
    // trained=steps is the whole run: written as no trained at all.
    const auto whole = experiment_parse("v=1&train=induction&steps=100&trained=100");
    const auto plain = experiment_parse("v=1&train=induction&steps=100");
    REQUIRE(whole.value);
    REQUIRE(plain.value);
    CHECK(*whole.value == *plain.value);
    CHECK(experiment_to_text(*whole.value).find("trained") == std::string::npos);
    // -0 is 0, in the recipe and the experiment.
    const auto neg = experiment_parse("v=1&train=induction&lr=-0&wd=-0&edits=x.0.0:-0&scale=-0");
    REQUIRE(neg.value);
    const std::string text = experiment_to_text(*neg.value);
    CHECK(text.find("-0") == std::string::npos);
    CHECK(text.find("&lr=0&") != std::string::npos);
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

namespace {
std::string joined(const std::vector<std::string>& errors) {
    std::string s;
    for (const auto& e : errors)
        s += e + "\n";
    return s;
}
}  // namespace

TEST_CASE("experiment parse: a NUL anywhere rejects the whole text, raw or percent-encoded") {
    using namespace std::string_view_literals;
    for (const auto text : {"v=1&heads=8\0&heads=99&garbage"sv, "\0v=1"sv, "v=1&text=a\0b"sv}) {
        const auto r = experiment_parse(text);
        INFO(joined(r.errors));
        CHECK_FALSE(r.value);
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].find("NUL") != std::string::npos);
    }
    const auto r = experiment_parse("v=1&text=a%00b");
    CHECK_FALSE(r.value);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0] == "text contains a NUL character (%00) at byte 1");
}

TEST_CASE("experiment parse: text must be valid UTF-8, raw or percent-encoded") {
    const std::pair<const char*, const char*> bad[] = {
        {"%C0%80", "overlong"},
        {"%C1%BF", "overlong"},
        {"%E0%80%AF", "overlong"},
        {"%F0%80%80%AF", "overlong"},
        {"%ED%A0%80", "surrogate"},
        {"%ED%BF%BF", "surrogate"},
        {"%F4%90%80%80", "U+10FFFF"},
        {"%F5%80%80%80", "U+10FFFF"},
        {"%FF", "broken"},
        {"a%80", "broken"},
        {"%E0%41%80", "broken"},
        {"%ED%41", "broken"},
        {"a%E2%82", "broken"},
        {"%E2%82%20", "broken"},
        {"\xC0\xAF", "overlong"},
        {"\xED\xA0\x80", "surrogate"},
        {"\xF4\x90\x80\x80", "U+10FFFF"},
    };
    for (const auto& c : bad) {
        const char *text = c.first, *what = c.second;  // not a structured binding: clang 14 cannot capture one
        const auto r = experiment_parse(std::string("v=1&text=") + text);
        INFO(text, " -> ", joined(r.errors));
        CHECK_FALSE(r.value);
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].rfind("text is not valid UTF-8: ", 0) == 0);
        CHECK(r.errors[0].find(what) != std::string::npos);
    }
    // The edges of what is valid.
    for (const char* text : {"%C2%80", "%DF%BF", "%E0%A0%80", "%ED%9F%BF", "%EE%80%80", "%EF%BF%BF", "%F0%90%80%80",
                             "%F4%8F%BF%BF", "猫追狗", "caf%C3%A9"}) {
        const auto r = experiment_parse(std::string("v=1&text=") + text);
        INFO(text, " -> ", joined(r.errors));
        CHECK(r.value);
    }
}

TEST_CASE("experiment parse: one message per problem, naming overflow as such") {
    const std::pair<const char*, const char*> cases[] = {
        {"v=1&temp=1e39", "temp is out of range: '1e39' overflows a 32-bit float (largest about 3.4e38)"},
        {"v=1&temp=-1e39", "temp is out of range: '-1e39' overflows a 32-bit float (largest about 3.4e38)"},
        {"v=1&rope_base=9e99", "rope_base is out of range: '9e99' overflows a 32-bit float (largest about 3.4e38)"},
        {"v=1&scale=1e39", "scale is out of range: '1e39' overflows a 32-bit float (largest about 3.4e38)"},
        {"v=1&scale=abc", "scale must be 'sqrt', 'none' or a number, not 'abc'"},
        {"v=1&temp=x", "temp must be a number, not 'x'"},
        {"v=1&temp=1e7", "temp must be from 1e-6 to 1e6, not 10000000"},
        {"v=1&scale=2e6", "scale must be 'sqrt', 'none' or a number from -1e6 to 1e6, not 2000000"},
        {"v=1&edits=x.0.0:1e39", "edit of x at (0, 0) is out of range: edited values are from -1e6 to 1e6"},
        {"v=1&edits=x.0.0:-1e39", "edit of x at (0, 0) is out of range: edited values are from -1e6 to 1e6"},
        {"v=1&edits=x.0.0:2e6", "edit of x at (0, 0) is out of range: edited values are from -1e6 to 1e6"},
    };
    for (const auto& c : cases) {
        const char *text = c.first, *message = c.second;
        const auto r = experiment_parse(text);
        INFO(text, " -> ", joined(r.errors));
        CHECK_FALSE(r.value);
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0] == message);
    }
}

TEST_CASE("experiment parse: documented lower bounds of the float keys") {
    // temp: below 1e-6 an ordinary score over the temperature is infinite and the stable softmax NaN.
    for (const char* t : {"1e-45", "1e-38", "1e-7", "0", "-1", "1e-50"}) {
        const auto r = experiment_parse(std::string("v=1&temp=") + t);
        INFO(t, " -> ", joined(r.errors));
        CHECK_FALSE(r.value);
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].rfind("temp must be from 1e-6 to 1e6, not ", 0) == 0);
    }
    CHECK(experiment_parse("v=1&temp=1e-6").value);
    CHECK(experiment_parse("v=1&temp=1e6").value);
    for (const char* b : {"1", "0.5", "0", "-3", "2e9"})
        CHECK_FALSE(experiment_parse(std::string("v=1&rope_base=") + b).value);
    CHECK(experiment_parse("v=1&rope_base=1.001").value);
    CHECK(experiment_parse("v=1&rope_base=1e9").value);
    // scale and edits: every value within +-1e6 works, 0 and denormals included.
    for (const char* v : {"0", "1e-45", "-1e-45", "1e6", "-1e6"}) {
        CHECK(experiment_parse(std::string("v=1&scale=") + v).value);
        CHECK(experiment_parse(std::string("v=1&edits=x.0.0:") + v).value);
    }
}

TEST_CASE("experiment parse: errors are deduplicated, capped, and echo at most 40 bytes of input") {
    std::string repeated = "v=1";
    for (int i = 0; i < 9555; ++i)
        repeated += "&x";
    auto r = experiment_parse(repeated);
    CHECK(r.errors == std::vector<std::string>{"expected key=value, got 'x'"});

    std::string many = "v=1";
    for (int i = 0; i < 300; ++i)
        many += "&k" + std::to_string(i) + "=1";
    r = experiment_parse(many);
    REQUIRE(r.errors.size() == max_error_messages + 1);
    CHECK(r.errors.front() == "unknown key 'k0'");
    CHECK(r.errors.back() == "... and 280 more problems");

    // 300 edges outside the model: at most 256 per list, each message once, capped.
    std::string edges = "v=1&edges=";
    for (int i = 0; i < 256; ++i)
        edges += (i ? "," : "") + std::string("0.0.0.") + std::to_string(100 + i);
    r = experiment_parse(edges);
    REQUIRE(r.errors.size() == max_error_messages + 1);
    CHECK(r.errors.back() == "... and 236 more problems");

    const std::string key(8000, 'k');  // three of them stay under the input limit
    r = experiment_parse("v=1&" + key + "=1&" + key + "=2&" + key + "=%zz");
    REQUIRE_FALSE(r.value);
    for (const auto& e : r.errors) {
        INFO(e.substr(0, 200));
        CHECK(e.size() < 120);
    }
    CHECK(joined(r.errors).find("is given twice") != std::string::npos);
}

TEST_CASE("errors_tidy keeps order, carries an inner count over, and is idempotent") {
    std::vector<std::string> e = {"a", "b", "a", "... and 5 more problems", "c"};
    errors_tidy(e);
    CHECK(e == std::vector<std::string>{"a", "b", "c", "... and 5 more problems"});
    auto again = e;
    errors_tidy(again);
    CHECK(again == e);
    std::vector<std::string> odd = {"... and x more problems"};  // not a count: kept as a message
    errors_tidy(odd);
    CHECK(odd == std::vector<std::string>{"... and x more problems"});
}

// Issue 49, item 16: a diverged L11 printed "recovers -nan" and "1.05e+09 of -nan".
TEST_CASE("text_nonfinite_named: printf's nan and inf tokens read as the views name them, words stay") {
    char buf[128];
    std::snprintf(buf, sizeof buf, "recovers %.2f, queries %.2f (%.3g of %.3g)", -std::nan(""), double(INFINITY), 1.05e9,
                  -double(INFINITY));
    const std::string named = text_nonfinite_named(buf);
    CHECK(named.find("nan") == std::string::npos);
    CHECK(named.find("inf") == std::string::npos);
    CHECK(named == "recovers NaN, queries +∞ (1.05e+09 of −∞)");
    CHECK(text_nonfinite_named("info, nano, banana, inflow: nan.") == "info, nano, banana, inflow: NaN.");
    CHECK(text_nonfinite_named("-nan") == "NaN");
    CHECK(text_nonfinite_named("“nan”") == "“nan”");  // a quoted token of a text is a word
}

// Issue 51, item 4: the panels, the lessons, the maps' cells, the text view and the
// command line wrote this four times over.
TEST_CASE("number_text: printf's text of a number, NaN and ±∞ by name, a rounded zero without its sign") {
    const double nan = std::nan(""), inf = double(INFINITY);
    CHECK(number_text(nan) == "NaN");
    CHECK(number_text(-nan) == "NaN");
    CHECK(number_text(inf) == "+∞");
    CHECK(number_text(-inf) == "−∞");
    CHECK(number_text(0.0) == "0");
    CHECK(number_text(-0.0, "%.2f") == "0.00");
    CHECK(number_text(-0.001, "%.2f") == "0.00");  // rounds to zero: no sign
    CHECK(number_text(-0.006, "%.2f") == "-0.01");
    CHECK(number_text(0.123456) == "0.1235");  // "%.4g" unless told
    CHECK(number_text(1234567.0) == "1.235e+06");
    CHECK(number_text(0.4567, "%.1f%%") == "0.5%");
    CHECK(number_text(0.941 * 100.0, "%.1f %%") == "94.1 %");
    CHECK(number_text(1e300, "%.2f").size() == 304);  // longer than any buffer: whole
    const nonfinite_words spelled{"NaN", "+infinity", "−infinity"};
    CHECK(number_text(inf, "%.3f", spelled) == "+infinity");
    CHECK(number_text(-inf, "%.3f", spelled) == "−infinity");
    CHECK(number_text(nan, "%.3f", spelled) == "NaN");
    CHECK(number_text(2.5, "%.3f", spelled) == "2.500");
}
