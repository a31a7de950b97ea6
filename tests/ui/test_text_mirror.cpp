// The text view (text_mirror.hpp): the document a screen reader reads instead
// of the canvas holds the numbers the maps show, the masked, NaN and infinite
// cells in words, the inspector's formula and what an intervention did.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "frame/text_mirror.hpp"
#include "maps/heatmap_data.hpp"
#include "view/app.hpp"

using namespace attn;

namespace {

ui::app opened(const experiment& e, stage s) {
    ui::app a;
    ui::app_init(a, e);
    ui::app_sync(a);
    a.view.current = s;
    return a;
}

std::string shown(float v) {
    char buf[16];
    return ui::heatmap_format_value(v, buf, sizeof buf);
}

// The JSON of one row of a table: ["a","b",…]
std::string row_json(const matrix& m, int r, const matrix* masked_from) {
    std::string s = "[";
    for (int c = 0; c < m.cols; ++c) {
        if (c)
            s += ',';
        const bool masked = masked_from && std::isinf((*masked_from)(r, c)) && (*masked_from)(r, c) < 0;
        s += '"' + ui::text_mirror_cell(m(r, c), masked) + '"';
    }
    return s + "]";
}

}  // namespace

TEST_CASE("text view: a cell reads as the map shows it, and non-numbers in words") {
    CHECK(ui::text_mirror_cell(0.25f, false) == shown(0.25f));
    CHECK(ui::text_mirror_cell(-3.14159f, false) == shown(-3.14159f));
    CHECK(ui::text_mirror_cell(0.0f, true) == "masked");
    CHECK(ui::text_mirror_cell(std::numeric_limits<float>::quiet_NaN(), true) == "NaN");  // NaN wins over the mask
    CHECK(ui::text_mirror_cell(std::numeric_limits<float>::infinity(), false) == "+infinity");
    CHECK(ui::text_mirror_cell(-std::numeric_limits<float>::infinity(), false) == "−infinity");
}

TEST_CASE("text view: the weights stage lists every head's softmax, row by row, masked cells in words") {
    experiment e;
    e.mask = mask_kind::causal;
    ui::app a = opened(e, stage::weights);
    const std::string doc = ui::text_mirror_json(a);
    REQUIRE(a.model.tr.layers.size() == 1);
    const auto& heads = a.model.tr.layers[0].heads;
    REQUIRE(heads.size() == std::size_t(e.heads));
    for (const head_trace& ht : heads)
        for (int r = 0; r < ht.weights.rows; ++r)
            CHECK_MESSAGE(doc.find(row_json(ht.weights, r, &ht.masked)) != std::string::npos, "row " << r);
    CHECK(doc.find("\"masked\"") != std::string::npos);  // causal: row 0 sees only itself
    for (const std::string& token : a.model.tr.tokens)
        CHECK(doc.find('"' + token + '"') != std::string::npos);
    CHECK(doc.find("\"caption\":\"P, head 1 (") != std::string::npos);
}

TEST_CASE("text view: the summary says what an ablation did, the inspector's lines follow the selected cell") {
    experiment e;
    e.ablate.push_back({0, 1});
    ui::app a = opened(e, stage::weights);
    a.view.selected = ui::cell_ref{stage::weights, 0, 0, 1, 0};
    const std::string doc = ui::text_mirror_json(a);
    CHECK(doc.find("1 head(s) zeroed.") != std::string::npos);
    CHECK(doc.find("max |Δy|") != std::string::npos);
    CHECK(doc.find("head 1 (zeroed)") != std::string::npos);
    CHECK(doc.find("\"inspector\":[\"head 0\",\"P(1, 0) = ") != std::string::npos);
}

TEST_CASE("text view: a NaN in the trace is listed as NaN and counted in the summary") {
    // e^88.8 overflows fp32 without the max subtraction: inf / inf in row 0.
    const auto parsed = experiment_parse(
        "v=1&text=a%20b&d_model=1&heads=1&mask=causal&scale=none&softmax=no_max&wo=off"
        "&edits=x.0.0:1,x.1.0:1,l0.w_q.0.0:1,l0.w_k.0.0:88.8");
    REQUIRE(parsed.errors.empty());
    ui::app a = opened(*parsed.value, stage::weights);
    REQUIRE(a.model.tr.nan_count > 0);
    const std::string doc = ui::text_mirror_json(a);
    CHECK(doc.find("[\"NaN\",\"NaN\"]") != std::string::npos);  // a NaN row is NaN everywhere, never masked
    CHECK(doc.find(" NaN, ") != std::string::npos);
}

TEST_CASE("text view: a map too large to list is named with its shape and a note, not cut silently") {
    experiment e;
    e.text.clear();
    for (int i = 0; i < 80; ++i)
        e.text += (i ? " w" : "w") + std::to_string(i);
    ui::app a = opened(e, stage::weights);
    REQUIRE(a.model.tr.tokens.size() == 80);
    const std::string doc = ui::text_mirror_json(a);
    CHECK(doc.find("(80 × 80)\",\"note\":\"Too many values") != std::string::npos);
    CHECK(doc.find("\"cells\"") == std::string::npos);
}
