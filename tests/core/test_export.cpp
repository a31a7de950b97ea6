// Matrix -> CSV: labels, exact round-trip of values, the non-finite spellings.
#include <doctest/doctest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "model/export.hpp"

using namespace attn;

TEST_CASE("matrix_to_csv writes labels, exact values and nan/inf/-inf") {
    matrix m(2, 3);
    m(0, 0) = 0.1f;
    m(0, 1) = -2.5f;
    m(0, 2) = std::numeric_limits<float>::quiet_NaN();
    m(1, 0) = std::numeric_limits<float>::infinity();
    m(1, 1) = -std::numeric_limits<float>::infinity();
    m(1, 2) = 1e-30f;
    const std::vector<std::string> rows = {"the", "cat, \"tabby\""};
    const std::string csv = matrix_to_csv(m, &rows, &rows);
    CHECK(csv ==
          ",the,\"cat, \"\"tabby\"\"\",2\n"
          "the,0.100000001,-2.5,nan\n"
          "\"cat, \"\"tabby\"\"\",inf,-inf,1e-30\n");
    // %.9g round-trips every float exactly.
    CHECK(std::strtof("0.100000001", nullptr) == 0.1f);
    CHECK(std::strtof("1e-30", nullptr) == 1e-30f);
}

TEST_CASE("matrix_to_csv without labels numbers rows and columns from 0") {
    matrix m(1, 2, 3.0f);
    CHECK(matrix_to_csv(m) == ",0,1\n0,3,3\n");
    CHECK(matrix_to_csv(matrix{}) == "\n");
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a\nb") == "\"a\nb\"");
}
