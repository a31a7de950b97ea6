#include <doctest/doctest.h>

#include "base/tokenize.hpp"

using namespace attn;
using v = std::vector<std::string>;

TEST_CASE("tokenize: words and punctuation") {
    CHECK(tokenize("The cat sat.") == v{"The", "cat", "sat", "."});
    CHECK(tokenize("  don't  stop,x2 ") == v{"don't", "stop", ",", "x2"});
    CHECK(tokenize("naïve café") == v{"naïve", "café"});
    CHECK(tokenize("").empty());
    CHECK(tokenize(" \t\n").empty());
}

TEST_CASE("tokenize: Chinese is one token per character") {
    CHECK(tokenize("猫追狗") == v{"猫", "追", "狗"});
    CHECK(tokenize("狗追猫。") == v{"狗", "追", "猫", "。"});
    CHECK(tokenize("cat猫") == v{"cat", "猫"});
}

TEST_CASE("tokenize: invalid UTF-8 becomes U+FFFD tokens") {
    CHECK(tokenize("a\xff"
                   "b") == v{"a", "\xEF\xBF\xBD", "b"});
    CHECK(tokenize("\xe7\x8c") == v{"\xEF\xBF\xBD", "\xEF\xBF\xBD"});
}
