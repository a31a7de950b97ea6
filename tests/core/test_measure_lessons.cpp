// Every number tests/web/lessons.test.mjs asserts on the page, asserted here on
// the core functions the lesson views draw (measure_lessons.hpp), starting from
// each lesson's own experiment and changed by the lessons' editing rules.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/text_util.hpp"
#include "model/rules.hpp"
#include "play/lesson_preset.hpp"
#include "play/measure_lessons.hpp"

using namespace attn;

namespace {

struct opened {
    experiment e;
    trace t;
};

opened lesson(int l) {
    opened o{lesson_experiment(l), {}};
    o.t = forward(o.e);
    return o;
}

opened with(const experiment& e) {
    REQUIRE(experiment_validate(e).empty());
    return {e, forward(e)};
}

int last_row(const opened& o) { return int(o.t.tokens.size()) - 1; }

}  // namespace

TEST_CASE("L1 soft lookup: weights sum to 1; argmax turns them into a hard, one-hot lookup") {
    opened o = lesson(1);
    lookup_measure m = measure_lookup(o.t, last_row(o));
    CHECK(std::fabs(m.row_sum - 1) < 1e-5);
    CHECK_FALSE(m.one_hot);
    CHECK(m.entropy > 0);
    o = with(lesson_lookup_edit(o.e, true, o.e.temperature));
    CHECK(o.e.softmax == softmax_mode::argmax);
    m = measure_lookup(o.t, last_row(o));
    CHECK(m.one_hot);
    CHECK(m.max_weight == 1.0);
    o = with(lesson_lookup_edit(o.e, false, 0.5f));
    CHECK_FALSE(measure_lookup(o.t, last_row(o)).one_hot);
    CHECK(o.e.temperature == 0.5f);
}

TEST_CASE("L2 √d_k: std of q·k is √d_k, 1 after scaling; without it entropy and the Jacobian collapse") {
    for (int dk : {2, 8, 16, 64, 256}) {
        INFO("d_k " << dk);
        const sqrt_dk_measure m = measure_sqrt_dk(dk);
        CHECK(std::fabs(m.stats.std_raw / std::sqrt(double(dk)) - 1) < 0.06);
        CHECK(std::fabs(m.stats.std_scaled - 1) < 0.06);
        CHECK(m.raw.counts.size() == 41);
        CHECK(m.scaled.counts.size() == 41);
        CHECK(m.scaled.lo == m.raw.lo);  // one axis: the scaled values crowd its middle
        CHECK(m.scaled.hi == m.raw.hi);
        if (dk >= 64) {  // ±4 of ±4√d_k: the middle 41/√d_k·… bins hold (nearly) every scaled value
            int middle = 0;
            for (int b = 18; b <= 22; ++b)
                middle += m.scaled.counts[std::size_t(b)];
            CHECK(middle > 3900);
        }
        if (dk >= 16) {
            CHECK(m.entropy_raw < 0.6 * m.entropy_scaled);
            CHECK(m.jacobian_raw < m.jacobian_scaled);
        }
    }
    CHECK(std::fabs(measure_sqrt_dk(64).stats.std_raw - 8.0) < 0.5);  // the README's "8.0 at 64"
}

TEST_CASE("L3 subspaces: parameters and matrix FLOPs do not depend on the head count; constructed heads specialise") {
    opened o = lesson(3);
    subspace_measure m = measure_subspaces(o.e, o.t);
    REQUIRE(m.specialised);
    CHECK(m.prev_token_weight > 0.9);
    CHECK(m.self_weight > 0.5);
    CHECK(m.this_many.params == m.one_head.params);
    CHECK(m.this_many.flops_matmul == m.one_head.flops_matmul);
    experiment four = o.e;
    four.heads = four.kv_heads = 4;
    four.weights = weight_init::random;
    o = with(four);
    m = measure_subspaces(o.e, o.t);
    CHECK(m.this_many.heads == 4);
    CHECK(m.this_many.params == m.one_head.params);
    CHECK(m.this_many.flops_matmul == m.one_head.flops_matmul);
    CHECK(m.by_heads.size() == 5);  // 1, 2, 4, 8, 16 divide 16
}

TEST_CASE("L4 order: without positions a reversed sentence gives the same outputs; RoPE breaks it and only offsets count") {
    opened o = lesson(4);
    order_measure m = measure_order(o.e, o.t);
    CHECK(m.output_diff < 1e-4);
    CHECK(m.weight_diff < 1e-5);
    CHECK(m.reversed.text == "狗 追 猫");
    o = with(lesson_order_edit(o.e, positional::sinusoidal));
    CHECK(measure_order(o.e, o.t).output_diff > 1e-3);
    o = with(lesson_order_edit(o.e, positional::rope));
    CHECK(measure_order(o.e, o.t).output_diff > 1e-3);
    o = with(lesson_shift_edit(o.e, 35));
    CHECK(o.e.pos_offset == 35);
    const rope_shift_measure r = measure_rope_shift(o.e, o.t, last_row(o));
    CHECK(r.q_moved > 1e-3);
    CHECK(r.score_diff < 1e-4);
    CHECK(r.key == r.row - 1);
}

TEST_CASE("L5 cost: 32× length is 1024× cost; tiled equals plain in less memory; decoding equals the causal pass") {
    opened o = lesson(5);
    CHECK(std::lround(measure_cost(o.e).ratio_32x) == 1024);
    for (int tile : {1, 2, 3}) {  // smaller than n = 8: the point of tiling
        const tiled_measure t = measure_tiled(o.e, o.t, tile);
        CHECK(t.max_diff < 1e-5);
        CHECK(t.tiled_bytes < t.plain_bytes);
        CHECK_FALSE(t.steps.empty());
    }
    decode_measure d = measure_decode(o.e, o.t);
    REQUIRE(d.active);
    CHECK(d.max_diff < 1e-5);
    CHECK(d.bytes_mha == 2 * d.bytes_gqa);
    CHECK(d.bytes_mha == 4 * d.bytes_mqa);
    CHECK(d.bytes_read_step == d.bytes_gqa);  // the lesson's experiment is GQA (kv_heads 2)
    const double before = d.bytes_gqa;
    o = with(lesson_decode_edit(o.e, int(o.t.tokens.size())));
    d = measure_decode(o.e, o.t);
    CHECK(d.bytes_gqa > before);
    CHECK(d.max_diff < 1e-5);
    CHECK(o.t.decode.steps == int(o.t.tokens.size()));
}

TEST_CASE("L7 weights are not explanations: cancelling heads, an attention sink, and ablation as the evidence") {
    opened o = lesson(7);
    const bright_cell_measure b = measure_bright_cell(o.e, o.t);
    CHECK(b.weight > 0);
    CHECK(std::isfinite(b.effect));
    CHECK(b.row != b.col);
    o = with(*experiment_parse(lesson7_models()[1]).value);
    const cancel_measure c = measure_cancel(o.e, o.t);
    CHECK(c.delta_one > 0.1);
    CHECK(c.delta_both < 1e-4);
    o = with(*experiment_parse(lesson7_models()[2]).value);
    sink_measure s = measure_sink(o.e, o.t);
    CHECK(s.weight > 0.6);
    CHECK(s.value_norm == 0);
    CHECK_FALSE(s.masked);
    o = with(lesson_sink_edit(o.e, int(o.t.tokens.size())));
    CHECK(experiment_to_text(o.e).find("edges=0.0.1.0") != std::string::npos);
    s = measure_sink(o.e, o.t);
    CHECK(s.masked);
    CHECK(s.weight == 0);
    CHECK(lesson_sink_edit(o.e, int(o.t.tokens.size())).edges.empty());  // the button again restores it
}

TEST_CASE("L8 bugs: mask after softmax, no max-subtraction in fp16, no W_O — each against the correct computation") {
    const opened start = lesson(8);
    bugs_measure m = measure_bugs(start.e, start.t);
    CHECK(m.nan_count == 0);
    CHECK(m.overflow_row >= 0);
    opened o = with(lesson_bugs_edit(start.e, true, false, false));
    m = measure_bugs(o.e, o.t);
    CHECK(m.min_row_sum < 0.99);
    CHECK(m.output_norm < m.correct_output_norm);
    o = with(lesson_bugs_edit(start.e, false, true, false));
    CHECK(o.e.softmax == softmax_mode::no_max);
    m = measure_bugs(o.e, o.t);
    CHECK(m.nan_count > 0);
    CHECK(m.correct_nan_count == 0);
    bool nan_out = false;
    for (float x : o.t.output.data)
        nan_out |= std::isnan(x);
    CHECK(nan_out);
    o = with(lesson_bugs_edit(start.e, false, false, true));
    CHECK_FALSE(o.e.use_wo);
    m = measure_bugs(o.e, o.t);
    CHECK(m.output_diff > 1e-3);
    CHECK(m.nan_count == 0);
    // Dropping x − max turns half precision on when the experiment is in fp32.
    experiment fp32 = start.e;
    fp32.prec = precision::fp32;
    CHECK(lesson_bugs_edit(fp32, false, true, false).prec == precision::fp16);
}

TEST_CASE("the score scale is the core's: 1/√d_k, 1, or the experiment's number") {
    experiment e;  // d_model 8, 2 heads: d_k 4
    CHECK(experiment_score_scale(e) == 0.5f);
    e.scale = score_scale::none;
    CHECK(experiment_score_scale(e) == 1.0f);
    e.scale = score_scale::custom;
    e.scale_value = 4.0f;
    CHECK(experiment_score_scale(e) == 4.0f);
    const trace t = forward(e);
    const head_trace& h = t.layers[0].heads[0];
    CHECK(h.scaled(1, 0) == h.scores(1, 0) * 4.0f);
}

TEST_CASE("version_cache: recomputes only when the version or the key changes") {
    version_cache<int> c;
    int calls = 0;
    auto make = [&calls] { return ++calls; };
    CHECK(c.get(1, 0, make) == 1);
    CHECK(c.get(1, 0, make) == 1);
    CHECK(c.get(2, 0, make) == 2);
    CHECK(c.get(2, 5, make) == 3);
    CHECK(calls == 3);
}

TEST_CASE("the effect of interventions: Δy, its max and relative size; a NaN is never reported as no effect") {
    matrix y(2, 2), y0(2, 2);
    y0.data = {1, 2, 2, 0};
    y.data = {1, 2, 2, 3};
    const intervention_effect e = measure_intervention_effect(y, y0);
    CHECK(e.diff.data == std::vector<float>{0, 0, 0, 3});
    CHECK(e.max_abs == 3.0);
    CHECK(e.relative == doctest::Approx(1.0));  // ‖(0,0,0,3)‖ / ‖(1,2,2,0)‖ = 3 / 3
    CHECK(measure_intervention_effect(y0, y0).max_abs == 0.0);
    y.data[0] = std::numeric_limits<float>::quiet_NaN();
    const intervention_effect broken = measure_intervention_effect(y, y0);
    CHECK(std::isnan(broken.max_abs));
    CHECK(std::isnan(broken.relative));
    CHECK(std::isinf(measure_intervention_effect(matrix(1, 2), y0).max_abs));
}

TEST_CASE("numbers that round to zero lose their sign: \"-0.00\" is printed 0.00, other minus signs stay") {
    const auto fixed = [](std::string s) {
        drop_negative_zero(s);
        return s;
    };
    CHECK(fixed("-0.00") == "0.00");
    CHECK(fixed("recovery -0.00, keys -0.0, -0") == "recovery 0.00, keys 0.0, 0");
    CHECK(fixed("\xE2\x88\x92"
                "0.00") == "0.00");  // U+2212
    CHECK(fixed("(-0.00)") == "(0.00)");
    CHECK(fixed("-0.01") == "-0.01");
    CHECK(fixed("-10.00") == "-10.00");
    CHECK(fixed("x - 0.00") == "x - 0.00");  // a minus between terms
    CHECK(fixed("1-0") == "1-0");
    CHECK(fixed("a-0") == "a-0");
    CHECK(fixed("NaN -inf") == "NaN -inf");
}
