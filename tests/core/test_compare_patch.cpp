// Patch from A (play/compare_patch.hpp) and the forward pass's head patch it
// runs on (model/forward.hpp: head_patch): a pass without a patch is the plain
// one bit for bit, the shortcut from a trace is the patched pass, and B's change
// from A is put on the head that made it.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "base/tokenize.hpp"
#include "compare.hpp"
#include "play/compare_patch.hpp"
#include "play/session.hpp"
#include "play/training.hpp"
#include "spec/recipe.hpp"
#include "test_util.hpp"

using namespace attn;

namespace {

experiment parsed(std::string_view text) {
    auto r = experiment_parse(text);
    REQUIRE(r.value);
    return *r.value;
}

bool same_bits(const matrix& a, const matrix& b) {
    return a.rows == b.rows && a.cols == b.cols && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

// Every matrix of two traces, bit for bit.
bool same_trace(const trace& a, const trace& b) {
    if (!same_bits(a.x0, b.x0) || !same_bits(a.output, b.output) || a.layers.size() != b.layers.size() ||
        a.nan_count != b.nan_count || a.inf_count != b.inf_count)
        return false;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        const layer_trace &x = a.layers[l], &y = b.layers[l];
        for (auto m : {&layer_trace::input, &layer_trace::q, &layer_trace::k, &layer_trace::v, &layer_trace::concat,
                       &layer_trace::attn_out, &layer_trace::output})
            if (!same_bits(x.*m, y.*m))
                return false;
        for (std::size_t h = 0; h < x.heads.size(); ++h)
            for (auto m : {&head_trace::scores, &head_trace::weights, &head_trace::out})
                if (!same_bits(x.heads[h].*m, y.heads[h].*m))
                    return false;
    }
    return true;
}

// The experiments the patch is tried on: one layer, two full layers in fp16,
// attention with a residual and RoPE, GQA with an ablated head and a masked edge.
std::vector<experiment> patch_cases() {
    return {parsed("v=1&heads=4&d_model=16"),
            parsed("v=1&layers=2&block=full&d_model=16&heads=2&precision=fp16&text=a%20b%20c%20a%20b%20c%20d"),
            parsed("v=1&layers=3&block=attn_res&pos=rope&d_model=8&heads=2"),
            parsed("v=1&layers=2&heads=4&kv_heads=2&d_model=16&ablate=0.1&edges=1.0.3.1")};
}

matrix random_rows(int n, int dk, std::uint64_t seed) {
    rng g(seed);
    matrix m(n, dk);
    for (float& x : m.data)
        x = g.normal();
    return m;
}

}  // namespace

TEST_CASE("forward: without a patch (or with an empty one) the pass is the plain one, bit for bit") {
    for (const experiment& e : patch_cases()) {
        INFO(experiment_to_text(e));
        const trace plain = forward(e);
        trace_options none;
        CHECK(same_trace(forward(e, none), plain));
        none.patch.layer = 0;  // a layer but no rows: not a patch
        CHECK(same_trace(forward(e, none), plain));
        // A head patched with its own output changes nothing either.
        trace_options own;
        own.patch.layer = e.layers - 1;
        own.patch.head = 1;
        own.patch.rows = &plain.layers.back().heads[1].out;
        CHECK(same_bits(forward(e, own).output, plain.output));
    }
}

TEST_CASE("forward_patched_output: the patched pass computed from a trace equals the pass with the patch") {
    for (const experiment& e : patch_cases()) {
        INFO(experiment_to_text(e));
        const trace t = forward(e);
        const int n = int(t.tokens.size());
        for (int l = 0; l < e.layers; ++l)
            for (int hi = 0; hi < e.heads; ++hi)
                for (int p = -1; p < n; ++p) {
                    INFO("layer " << l << " head " << hi << " position " << p);
                    const matrix rows = random_rows(n, experiment_d_k(e), std::uint64_t(l * 100 + hi * 10 + p + 1));
                    trace_options opt;
                    opt.patch = {l, hi, p, &rows};
                    const trace want = forward_with(e, t.tokens, t.params, opt);
                    const matrix got = forward_patched_output(e, t, opt.patch);
                    if (p < 0)  // the same matrices through the same kernels
                        CHECK(same_bits(got, want.output));
                    else  // one row through W_O and the FFN: the kernels may group it otherwise
                        CHECK(test::mismatches(got, want.output, test::relative(1e-5)) == 0);
                    CHECK(!same_bits(got, t.output));  // the patch did reach the output
                }
    }
}

TEST_CASE("compare_patch: B is A with one head's W_v edited: that head explains all of it, the others nothing") {
    const experiment a = parsed("v=1&heads=4&d_model=16");
    experiment b = a;
    const int dk = experiment_d_k(a);
    for (int r = 0; r < a.d_model; ++r)  // head 1's V columns
        b.edits.push_back({edit_target::w_v, 0, r, dk + 1, 2.0f});
    const compare_patch_result p = compare_patch(a, forward(a), b, forward(b));
    REQUIRE(p.problem.empty());
    REQUIRE(p.complete());
    CHECK(p.L == 1);
    CHECK(p.h == 4);
    CHECK(p.n == 5);
    CHECK(p.distance > 0);
    CHECK(p.explained[1] == doctest::Approx(1.0).epsilon(1e-6));
    for (int hi : {0, 2, 3})
        CHECK(p.explained[std::size_t(hi)] == doctest::Approx(0.0).epsilon(1e-6));
    // By position: head 1 at one position explains part of the change; the others nothing.
    double parts = 0;
    for (int q = 0; q < p.n; ++q) {
        const float v = p.per_position[std::size_t(1 * p.n + q)];
        CHECK(v >= -1e-6f);
        CHECK(v <= 1.0f + 1e-6f);
        parts += v;
        for (int hi : {0, 2, 3})
            CHECK(p.per_position[std::size_t(hi * p.n + q)] == doctest::Approx(0.0).scale(1.0).epsilon(1e-5));
    }
    CHECK(parts > 0.5);
    // The map as drawn: the numbers, nothing left pending.
    CHECK(p.map.rows == 4);
    CHECK(p.map.cols == 6);
    CHECK(p.map(1, 0) == p.explained[1]);
    CHECK(p.map(1, 3) == p.per_position[std::size_t(p.n + 2)]);
    for (float x : p.pending.data)
        CHECK(x == 0.0f);
}

TEST_CASE("compare_patch: an ablated head in B, two layers: patching it from A takes B back to A") {
    const experiment a = parsed("v=1&layers=2&block=full&d_model=16&heads=2&text=a%20b%20c%20a%20b%20c%20d");
    experiment b = a;
    b.ablate = {{0, 1}};
    const trace ta = forward(a), tb = forward(b);
    const compare_patch_result p = compare_patch(a, ta, b, tb);
    REQUIRE(p.problem.empty());
    CHECK(p.position_from == 0);  // small: every layer's rows by position
    CHECK(p.total == 4 + 2 * 7);
    CHECK(p.explained[1] == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(p.explained[0] == doctest::Approx(0.0).scale(1.0).epsilon(1e-6));
    // Each per-position number is the patched pass's, measured against A.
    for (int k = 0; k < 4; ++k)
        for (int q = 0; q < p.n; ++q) {
            trace_options opt;
            opt.patch = {k / 2, k % 2, q, &ta.layers[std::size_t(k / 2)].heads[std::size_t(k % 2)].out};
            const matrix y = forward_with(b, tb.tokens, tb.params, opt).output;
            const double want = 1.0 - matrix_frobenius_diff(y, ta.output) / matrix_frobenius_diff(tb.output, ta.output);
            INFO("head " << k << " position " << q);
            CHECK(p.per_position[std::size_t(k * p.n + q)] == doctest::Approx(want).epsilon(1e-4));
        }
}

TEST_CASE("compare_patch: A and B alike explain nothing (NaN); shapes that differ are a problem, and nothing crashes") {
    const experiment a = parsed("v=1&heads=4&d_model=16");
    const trace ta = forward(a);
    const compare_patch_result same = compare_patch(a, ta, a, ta);
    CHECK(same.problem.empty());
    CHECK(same.complete());
    CHECK(same.distance == 0);
    for (float x : same.map.data)
        CHECK(std::isnan(x));

    const experiment two = parsed("v=1&heads=2&d_model=16");
    const compare_patch_result heads = compare_patch(a, ta, two, forward(two));
    CHECK(heads.what == compare_patch_result::problem_kind::heads);
    CHECK(heads.problem == "A has 4 heads, B has 2: patching needs the same shape");
    CHECK(heads.complete());
    CHECK(heads.explained.empty());

    const experiment longer = parsed("v=1&heads=4&d_model=16&text=a%20b");
    CHECK(compare_patch(a, ta, longer, forward(longer)).problem == "A has 5 tokens, B has 2: patching needs the same shape");
    const experiment wider = parsed("v=1&heads=4&d_model=32");
    CHECK(compare_patch(a, ta, wider, forward(wider)).problem == "A's d_model is 16, B's is 32: patching needs the same shape");
    const experiment gqa = parsed("v=1&heads=4&kv_heads=2&d_model=16");
    CHECK(compare_patch(a, ta, gqa, forward(gqa)).what == compare_patch_result::problem_kind::kv_heads);
    const experiment deeper = parsed("v=1&heads=4&d_model=16&layers=2");
    CHECK(compare_patch(a, ta, deeper, forward(deeper)).what == compare_patch_result::problem_kind::layers);
    CHECK(compare_patch(a, trace{}, a, ta).what == compare_patch_result::problem_kind::no_trace);

    session s;  // nothing pinned
    CHECK_FALSE(session_compare_patch_begin(s).problem.empty());
}

TEST_CASE("compare_patch: a step at a time, the pieces fill the map in order until it is complete") {
    const experiment a = parsed("v=1&layers=2&heads=2&d_model=8");
    experiment b = a;
    b.ablate = {{1, 0}};
    const trace ta = forward(a), tb = forward(b);
    compare_patch_result r = compare_patch_begin(a, ta, b, tb);
    REQUIRE(r.total == 4 + 2 * 5);
    int steps = 0, done = 0;
    while (!compare_patch_step(r, ta, b, tb, 0.0)) {  // a layer of a head's pass, or a position's piece, a step
        ++steps;
        CHECK(r.done >= done);
        CHECK(r.done <= done + 1);
        done = r.done;
    }
    CHECK(r.done == r.total);
    CHECK(steps + 1 == 2 * 2 + 2 + 2 * 5);  // layer 0's heads take two steps each, layer 1's one
    const compare_patch_result whole = compare_patch(a, ta, b, tb);
    CHECK(same_bits(r.map, whole.map));
    CHECK(r.explained[2] == doctest::Approx(1.0).epsilon(1e-6));  // layer 1 head 0
}

TEST_CASE("compare_patch: a large experiment's earlier layers skip their per-position rows") {
    const experiment large = parsed("v=1&layers=4&heads=16&d_model=256&block=full");
    CHECK(compare_patch_position_from(large, 1024) == 3);  // the last layer's alone
    CHECK(compare_patch_position_from(large, 4) == 0);
    CHECK(compare_patch_position_from(experiment{}, 1024) == 0);  // one layer: always
}

TEST_CASE("compare_patch: a trained recipe's B is patched over its trained weights, its ablation on") {
    session s;
    const experiment recipe = test::tiny_recipe(train_task::induction, block_kind::full, 40, "a b c d e a b c");
    REQUIRE(session_apply(s, change::set(recipe)).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    trainer_finish(s.train);
    session_update(s);
    REQUIRE(session_apply(s, change::pin(s.exp)).accepted);
    experiment b = s.exp;
    b.ablate = {{0, 1}};
    REQUIRE(session_apply(s, change::set(b)).accepted);
    session_update(s);
    if (s.pin_train.run)
        trainer_finish(s.pin_train);
    session_update(s);
    REQUIRE(session_pin_pending(s).what == compare_mismatch::kind::none);
    // B's trace is of trained weights, not of the seed's.
    CHECK_FALSE(same_bits(s.tr.params.layers[0].w_v, model_generate(s.exp, s.tr.tokens).layers[0].w_v));
    compare_patch_result r = session_compare_patch_begin(s);
    REQUIRE(r.problem.empty());
    while (!compare_patch_step(r, s.pin_tr, s.exp, s.tr, 1.0)) {
    }
    CHECK(r.explained[1] == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(r.explained[0] == doctest::Approx(0.0).scale(1.0).epsilon(1e-6));
}

// Run by hand (--test-case='*timing*' --no-skip): how long the whole map takes
// for the page's default experiment and for larger ones.
TEST_CASE("compare_patch timing" * doctest::skip()) {
    const auto words = [](int n) {
        std::string text;
        for (int i = 0; i < n; ++i)
            text += (i ? " " : "") + std::string(1, char('a' + i % 26));
        return text;
    };
    for (const char* link : {"v=1", "v=1&layers=2&heads=8&d_model=64&block=full", "v=1&layers=4&heads=16&d_model=256&block=full"})
        for (int n : {0, 128, 1024}) {
            experiment a = parsed(link);
            if (n > 0)
                a.text = words(n);
            else if (std::string(link) != "v=1")
                continue;
            experiment b = a;
            b.ablate = {{0, 1}};
            const trace ta = forward(a, trace_options::lean()), tb = forward(b, trace_options::lean());
            // Processor time (std::clock): the machine may be shared; wall time beside it.
            const std::clock_t cpu0 = std::clock();
            const auto start = std::chrono::steady_clock::now();
            compare_patch_result r = compare_patch_begin(a, ta, b, tb);
            double longest = 0;
            while (!r.complete()) {
                const std::clock_t c0 = std::clock();
                compare_patch_step(r, ta, b, tb, 0.0);
                longest = std::max(longest, double(std::clock() - c0) / CLOCKS_PER_SEC);
            }
            const double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            MESSAGE(std::string(link) << " n=" << ta.tokens.size() << ": " << r.total << " pieces (rows by position from layer "
                                      << r.position_from << ") in " << cpu << " s of processor time (" << wall
                                      << " s wall), the longest piece " << longest << " s");
        }
}

TEST_CASE("patch from A between two models: their weights differ when what training reads, the step or the edits do") {
    const experiment recipe = *experiment_parse(recipe_lesson_induction).value;
    CHECK_FALSE(compare_patch_other_weights(recipe, recipe));
    experiment b = recipe;
    b.text = "j a b c d e f g c d e f";  // another text of the task, the same model
    b.ablate = {{0, 1}};                 // an intervention runs on the same weights
    CHECK_FALSE(compare_patch_other_weights(recipe, b));
    b = recipe;
    b.train.trained = 100;  // the same run at another step
    CHECK(compare_patch_other_weights(recipe, b));
    CHECK(compare_patch_other_weights(recipe, *experiment_parse(recipe_lesson_copy_offset).value));  // L9 against L10
    experiment plain, seeded;
    seeded.seed = 7;
    CHECK(compare_patch_other_weights(plain, seeded));
    experiment edited = plain;
    edited.edits = {{}};
    CHECK(compare_patch_other_weights(plain, edited));
}
