// The one change path (session.hpp) and what links open (lesson presets as the
// base of a lesson's link, stages an experiment has): the specification every
// door of the playground relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/tokenize.hpp"
#include "model/stage.hpp"
#include "play/edit.hpp"
#include "play/lesson_preset.hpp"
#include "play/link.hpp"
#include "play/measure_lessons.hpp"
#include "play/session.hpp"
#include "play/training.hpp"
#include "spec/recipe.hpp"
#include "train/task.hpp"

using namespace attn;

namespace {

experiment parsed(std::string_view text) {
    auto r = experiment_parse(text);
    REQUIRE(r.value);
    return *r.value;
}

std::string joined(const std::vector<std::string>& errors) {
    std::string s;
    for (const auto& e : errors)
        s += e + "\n";
    return s;
}

}  // namespace

TEST_CASE("lessons: every preset is a valid experiment, and its link opens it on its stage") {
    for (int l = 1; l <= lesson_count; ++l) {
        INFO("L" << l);
        const lesson_preset* p = lesson_preset_find(l);
        REQUIRE(p != nullptr);
        CHECK(std::string(p->id) == "L" + std::to_string(l));
        const auto r = experiment_parse(p->text);
        INFO(joined(r.errors));
        REQUIRE(r.value);
        experiment opened = *r.value;  // a training lesson opens its recipe untrained: the person presses Train
        if (p->untrained)
            opened.train.trained = 0;
        CHECK(lesson_experiment(l) == opened);
        CHECK(stage_applies(p->opens_on, *r.value));
        const auto link = link_parse(lesson_link(l));
        REQUIRE(link.value);
        CHECK(*link.value == opened);
        CHECK(link.view.lesson == l);
    }
    CHECK(lesson_preset_find(0) == nullptr);
    CHECK(lesson_preset_find(lesson_count + 1) == nullptr);
    for (const auto text : lesson7_models())
        CHECK(experiment_parse(text).value.has_value());
}

TEST_CASE("a lesson's link: the lesson's experiment is the base, the link's keys override only what they name") {
    // web/blog.html's L4 frame: the lesson has no mask (order must be a set
    // operation until positions enter); the link names text and pos only.
    const auto r = link_parse("v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&pos=rope&view.lesson=4&view.embed=1");
    INFO(joined(r.errors));
    REQUIRE(r.value);
    experiment want = lesson_experiment(4);
    want.pos = positional::rope;
    CHECK(*r.value == want);
    CHECK(r.value->mask == mask_kind::none);
    CHECK(r.view.lesson == 4);
    CHECK(r.view.embed);

    // heads without kv_heads still means multi-head; L5's grouped kv_heads stay when neither is named.
    const auto l2 = link_parse("http://127.0.0.1:8000/#v=1&heads=4&view.lesson=2");
    REQUIRE(l2.value);
    CHECK(l2.value->d_model == 64);
    CHECK(l2.value->heads == 4);
    CHECK(l2.value->kv_heads == 4);
    const auto l5 = link_parse("v=1&text=a%20b%20c%20d&view.lesson=5");
    REQUIRE(l5.value);
    CHECK(l5.value->heads == 4);
    CHECK(l5.value->kv_heads == 2);
    CHECK(l5.value->text == "a b c d");

    // A link without view.lesson still fills the defaults; a whole canonical link
    // names everything, so a lesson base changes nothing in it.
    CHECK(link_parse("v=1&text=x").value->mask == experiment{}.mask);
    experiment e;
    e.scale = score_scale::sqrt_dk;
    const auto full = link_parse(experiment_to_text(e) + "&view.lesson=8");  // L8's preset has scale=4
    REQUIRE(full.value);
    CHECK(*full.value == e);
}

TEST_CASE("view keys: a stage the experiment lacks and malformed values are errors, said plainly") {
    const auto r = link_parse("v=1&view.stage=9");
    CHECK_FALSE(r.value);
    CHECK(joined(r.errors).find("view.stage 9") != std::string::npos);
    CHECK(joined(r.errors).find("block=full") != std::string::npos);
    CHECK(link_parse("v=1&block=full&view.stage=9").value.has_value());
    CHECK(link_parse("v=1&block=attn_res&view.stage=9").value.has_value());
    for (const char* bad : {"view.stage=x", "view.stage=11", "view.stage=1.5", "view.stage= 3", "view.lesson=0", "view.lesson=14",
                            "view.lesson=two", "view.bogus=1"}) {
        INFO(bad);
        link_view v;
        CHECK_FALSE(link_view_set(v, bad).empty());
        CHECK_FALSE(link_parse(std::string("v=1&") + bad).value.has_value());
    }
    link_view v;
    CHECK(link_view_set(v, "view.stage=5").empty());
    CHECK(v.stage == 5);
    CHECK(link_view_set(v, "view.lesson=8").empty());
    CHECK(v.lesson == 8);
    long long n = 0;
    CHECK(parse_whole_number("42", n));
    CHECK(n == 42);
    for (const char* bad : {"x", "", "4x", " 4", "4.0"})
        CHECK_FALSE(parse_whole_number(bad, n));
}

TEST_CASE("session_apply: an accepted change is the new experiment and one undo step") {
    session s;
    experiment next = s.exp;
    next.heads = 4;
    next.kv_heads = 4;
    const auto version = s.version;
    const change_result r = session_apply(s, change::set(next));
    CHECK(r.accepted);
    CHECK(r.errors.empty());
    CHECK(s.exp == next);
    CHECK(s.version == version + 1);
    REQUIRE(s.undo.size() == 1);
    CHECK(s.undo.back().exp == experiment{});
    CHECK(s.redo.empty());
}

TEST_CASE("session_apply: a rejected change keeps the last good experiment and the history, and says why") {
    session s;
    session_apply(s, change::set(parsed("v=1&heads=4")));
    const session before = s;
    experiment bad = s.exp;
    bad.heads = 3;  // does not divide d_model 8
    const change_result r = session_apply(s, change::set(bad));
    CHECK_FALSE(r.accepted);
    CHECK_FALSE(r.errors.empty());
    CHECK(s.exp == before.exp);
    CHECK(s.version == before.version);
    CHECK(s.undo == before.undo);
    const change_result l = session_apply(s, change::open("v=1&heads=banana&view.stage=99"));
    CHECK_FALSE(l.accepted);
    CHECK(l.errors.size() >= 2);
    CHECK(s.exp == before.exp);
    CHECK(s.undo == before.undo);
}

TEST_CASE("session_apply: a link is a change like any other, and returns its view") {
    session s;
    const change_result r = session_apply(s, change::open("v=1&heads=4&view.lesson=2&view.stage=3&view.row=1"));
    REQUIRE(r.accepted);
    REQUIRE(r.view);
    CHECK(r.view->lesson == 2);
    CHECK(r.view->stage == 3);
    CHECK(r.view->row == 1);
    CHECK(s.exp.d_model == 64);
    CHECK(s.undo.size() == 1);
    // The link a page opens with is not an undo step.
    session t;
    CHECK(session_apply(t, change::open("v=1&heads=4", false)).accepted);
    CHECK(t.undo.empty());
    // Opening the same experiment again records nothing.
    CHECK(session_apply(s, change::open("v=1&heads=4&view.lesson=2")).accepted);
    CHECK(s.undo.size() == 1);
}

TEST_CASE("session_apply: undo and redo walk the accepted changes, and nothing else") {
    session s;
    const experiment e0 = s.exp, e1 = parsed("v=1&heads=1"), e2 = parsed("v=1&heads=4");
    session_apply(s, change::set(e1));
    experiment bad = e1;
    bad.d_model = 0;
    session_apply(s, change::set(bad));  // rejected: no step
    session_apply(s, change::set(e1));   // no change: no step
    session_apply(s, change::open("v=1&heads=4"));
    CHECK(s.exp == e2);
    CHECK(s.undo.size() == 2);
    CHECK(session_apply(s, change::undo()).accepted);
    CHECK(s.exp == e1);
    CHECK(session_apply(s, change::undo()).accepted);
    CHECK(s.exp == e0);
    const change_result none = session_apply(s, change::undo());
    CHECK_FALSE(none.accepted);
    CHECK(none.errors.empty());
    CHECK(session_apply(s, change::redo()).accepted);
    CHECK(s.exp == e1);
    // A new change after an undo drops what could be redone.
    session_apply(s, change::set(parsed("v=1&heads=8")));
    CHECK(s.redo.empty());
    CHECK_FALSE(session_apply(s, change::redo()).accepted);
}

TEST_CASE("session_apply: the changes of one drag make one undo step") {
    session s;
    experiment e = s.exp;
    for (int k = 1; k <= 10; ++k) {
        e.pos_offset = k;
        CHECK(session_apply(s, change::set(e, 5.0 + 0.1 * k)).accepted);
    }
    CHECK(s.undo.size() == 1);
    e.pos_offset = 50;
    session_apply(s, change::set(e, 5.0 + 0.1 * 10 + session_merge_seconds + 0.1));  // a pause: a new step
    CHECK(s.undo.size() == 2);
    session_apply(s, change::undo());
    CHECK(s.exp.pos_offset == 10);
    session_apply(s, change::undo());
    CHECK(s.exp == experiment{});
}

TEST_CASE("session_apply: a host's changes in a row make one undo step; the reader's own steps outlive any flood") {
    session s;
    // The reader's own steps: heads 1, 2, 4.
    for (const char* link : {"v=1&heads=1", "v=1&heads=2", "v=1&heads=4"})
        REQUIRE(session_apply(s, change::open(link)).accepted);
    REQUIRE(s.undo.size() == 3);
    // A host floods the page with more changes than the history holds.
    auto host = [](int offset) {
        change c = change::open("v=1&heads=4&pos_offset=" + std::to_string(offset));
        c.from_host = true;
        return c;
    };
    for (int k = 1; k <= int(session_history_limit) + 50; ++k)
        REQUIRE(session_apply(s, host(k)).accepted);
    CHECK(s.exp.pos_offset == int(session_history_limit) + 50);
    CHECK(s.undo.size() == 4);  // the reader's three and one for the whole flood
    // A reader's step between two floods ends the first: each flood is its own step.
    REQUIRE(session_apply(s, change::open("v=1&heads=8")).accepted);
    for (int k = 1; k <= 5; ++k)
        REQUIRE(session_apply(s, host(k)).accepted);
    CHECK(s.undo.size() == 6);
    // Undo walks back through the floods to every step the reader made.
    const int expected_heads[] = {8, 4, 4, 2, 1};
    const int expected_offset[] = {0, int(session_history_limit) + 50, 0, 0, 0};
    for (int i = 0; i < 5; ++i) {
        REQUIRE(session_apply(s, change::undo()).accepted);
        CHECK(s.exp.heads == expected_heads[i]);
        CHECK(s.exp.pos_offset == expected_offset[i]);
    }
    // After an undo a host's change is a new step, not merged into the undone one.
    REQUIRE(session_apply(s, host(7)).accepted);
    REQUIRE(session_apply(s, change::undo()).accepted);
    CHECK(s.exp.heads == 1);
    CHECK(s.exp.pos_offset == 0);
}

TEST_CASE("session_update: the trace is recomputed once per accepted change, at the caller's point") {
    session s;
    CHECK(session_update(s));
    CHECK(s.tr.tokens.size() == 5);
    CHECK_FALSE(session_update(s));  // nothing changed
    session_apply(s, change::open("v=1&text=a%20b%20c&ablate=0.1"));
    CHECK(s.tr.tokens.size() == 5);  // not yet: the views of this frame still read the old trace
    CHECK(session_update(s));
    CHECK(s.tr.tokens.size() == 3);
    CHECK(s.has_baseline);
    CHECK(s.baseline.tokens == s.tr.tokens);
    CHECK(s.traced_version == s.version);
}

TEST_CASE("session_update: new weights of a run that trains are traced a share of the time at most; once it stops, at once") {
    CHECK(session_trace_due(false, 3600.0, 0.0));  // not training: always
    CHECK(session_trace_due(true, 0.0, 0.0));      // a trace that costs nothing: every frame
    CHECK(session_trace_due(true, 0.5 * trace_free, 0.0));
    CHECK_FALSE(session_trace_due(true, 0.1, 0.1));
    CHECK(session_trace_due(true, 0.1, (1.0 / trace_share - 1.0) * 0.1));
    session s;
    s.trace_paced = true;  // as the page's frame loop sets it
    const change_result r = session_apply(s, change::open("v=1&text=a%20b%20c&train=induction&steps=20"));
    REQUIRE_MESSAGE(r.accepted, joined(r.errors));
    session_update(s);
    REQUIRE(s.train.run);
    const auto step = [&s] {  // pieces until the weights change (a step)
        const std::uint64_t before = s.train.weights_version;
        for (int i = 0; i < 1000 && s.train.weights_version == before; ++i)
            session_train(s, 1e-6);
    };
    step();
    REQUIRE(trainer_training(s.train));
    s.trace_seconds = 0.0;     // the last trace cost nothing
    CHECK(session_update(s));  // so the new weights are traced at once
    const std::uint64_t traced = s.traced_weights;
    CHECK(traced == s.train.weights_version);
    session_trace_drawn(s, 3600.0);  // the frame that drew it took an hour longer than the others
    session_trace_drawn(s, -1.0);    // one faster than the others takes nothing off
    CHECK(s.trace_seconds >= 3600.0);
    step();
    REQUIRE(trainer_training(s.train));
    REQUIRE(s.train.weights_version != traced);
    CHECK_FALSE(session_update(s));  // still training: the trace waits, and so does every map of it
    CHECK(s.traced_weights == traced);
    for (int i = 0; i < 1000 && trainer_training(s.train); ++i)
        session_train(s, 1.0);
    REQUIRE(trainer_done(s.train));
    CHECK(session_update(s));  // done: the last weights at once
    CHECK(s.traced_weights == s.train.weights_version);
    CHECK(s.trace_seconds < 3600.0);  // what that trace took
    // Without the page's frames (the command line, a host, a test) every new weights are traced at once.
    session bare;
    REQUIRE(session_apply(bare, change::open("v=1&text=a%20b%20c&train=induction&steps=20")).accepted);
    session_update(bare);
    bare.trace_seconds = 3600.0;
    for (int i = 0; i < 1000 && bare.train.weights_version == bare.traced_weights; ++i)
        session_train(bare, 1e-6);
    REQUIRE(trainer_training(bare.train));
    CHECK(session_update(bare));
}

TEST_CASE("editing rules: what a control changes keeps the experiment valid and drops what no longer fits") {
    experiment e = parsed("v=1&d_model=12&heads=6&kv_heads=3&ablate=0.1&edges=0.0.1.0&edits=x.0.0:1");
    experiment d = edit_d_model(e, 8);
    CHECK(d.d_model == 8);
    CHECK(d.heads == 4);  // the largest divisor of 8 not above 6
    CHECK(d.kv_heads == 2);
    CHECK(d.ablate.empty());
    CHECK(d.edges.empty());
    CHECK(d.edits.empty());
    CHECK(experiment_validate(d).empty());
    CHECK(divisor_at_most(7, 6) == 1);
    CHECK(divisor_at_most(12, 5) == 4);
    experiment h = edit_heads(e, 2);
    CHECK(h.kv_heads == 2);
    CHECK(h.ablate.empty());
    experiment kv = edit_kv_heads(e, 1);
    CHECK(kv.kv_heads == 1);
    CHECK(kv.edits.empty());
    CHECK(kv.ablate == e.ablate);
    experiment l = edit_layers(e, 2);
    CHECK(l.block == block_kind::full);
    CHECK(experiment_validate(l).empty());
    CHECK(edit_layers(e, 1).block == e.block);
    experiment res = e;
    res.block = block_kind::attention_residual;
    CHECK(edit_layers(res, 3).block == block_kind::attention_residual);  // already a residual stream
    CHECK(edit_block(e, e.block).edits == e.edits);
    CHECK(edit_block(e, block_kind::full).edits.empty());
    CHECK(edit_seed(e, 9).edits.empty());
    CHECK(edit_mask(e, mask_kind::padding).pad == 1);
    CHECK(edit_mask(edit_mask(e, mask_kind::padding), mask_kind::causal).pad == 0);
    const experiment c = edit_clear_interventions(e);
    CHECK((c.ablate.empty() && c.edges.empty() && c.edits.empty()));
}

TEST_CASE("editing a recipe: a new run shown untrained, a text the new task can read, limits kept") {
    const experiment e = edit_value(parsed(std::string(recipe_lesson_induction) + "&trained=800&ablate=1.3"),
                                    value_edit{edit_target::w_q, 0, 1, 1, 0.5f});
    REQUIRE((e.train.trained == 800 && e.edits.size() == 1));
    train_settings s = e.train;
    s.lr = 0.002f;
    const experiment lr = edit_recipe(e, s);
    CHECK(lr.train.lr == 0.002f);
    CHECK(lr.train.trained == 0);  // a new run starts at step 0: Train trains it
    CHECK(lr.text == e.text);      // the same rows: the text stays
    CHECK(lr.edits.empty());       // the trained weights change
    CHECK(lr.ablate == e.ablate);
    CHECK(recipe_validate(lr).empty());
    s = e.train;
    s.trained = 5;  // only how far it is trained: not a new run
    CHECK(edit_recipe(e, s) == e);
    s.task = train_task::reverse;
    s.vocab = 6;
    const experiment rev = edit_recipe(e, s);
    CHECK(rev.train.task == train_task::reverse);
    CHECK(rev.text == recipe_probe_text(rev.train));  // the new task's first held-out row
    CHECK(tokenize(rev.text).size() == std::size_t(rev.train.seq));
    CHECK(recipe_text_problems(rev).empty());
    CHECK(recipe_validate(rev).empty());
    s.task = train_task::induction;  // needs 8 symbols and 8 positions at least
    s.vocab = 4;
    s.seq = 4;
    const experiment ind = edit_recipe(rev, s);
    CHECK((ind.train.vocab == 8 && ind.train.seq == 8));
    CHECK(recipe_validate(ind).empty());
    CHECK(recipe_text_problems(ind).empty());
    s = e.train;
    s.steps = 1000000;
    s.batch = 0;
    s.task = train_task::copy_offset;
    s.offset = 99;
    const experiment far = edit_recipe(e, s);
    CHECK(far.train.steps == train_limits::max_steps);
    CHECK(far.train.batch == 1);
    CHECK(far.train.offset == far.train.seq - 1);
    CHECK(recipe_validate(far).empty());
    s.task = train_task::none;  // the panel has no "none": not a change
    CHECK(edit_recipe(e, s) == e);
}

TEST_CASE("editing rules of the maps and the sentence: a click toggles, a typed number replaces, a new sentence drops") {
    const experiment e = parsed("v=1&text=a%20b%20c&ablate=0.1&edges=0.0.1.0&edits=x.0.0:1");
    const masked_edge edge{0, 0, 2, 1};
    const experiment masked = edit_toggle_edge(e, edge);
    CHECK(masked.edges.size() == 2);
    CHECK(edit_toggle_edge(masked, edge).edges == e.edges);  // a second click unmasks
    const experiment zeroed = edit_toggle_ablation(e, ablated_head{0, 0});
    CHECK(zeroed.ablate.size() == 2);
    CHECK(edit_toggle_ablation(zeroed, ablated_head{0, 0}).ablate == e.ablate);
    const experiment typed = edit_value(e, value_edit{edit_target::x, 0, 0, 0, 2.5f});
    REQUIRE(typed.edits.size() == 1);  // the same cell: replaced, not added
    CHECK(typed.edits[0].value == 2.5f);
    CHECK(edit_value(e, value_edit{edit_target::w_q, 0, 1, 1, 0.5f}).edits.size() == 2);
    const experiment t = edit_text(e, "x y");
    CHECK(t.text == "x y");
    CHECK((t.edges.empty() && t.edits.empty() && t.decode == 0 && t.pad == 0));
    CHECK(t.ablate == e.ablate);  // a head is not a token position
    const std::vector<std::string> tokens{"a", "b", "c"};
    const experiment s1 = edit_shuffle_tokens(e, tokens, 1);
    CHECK(s1.text == edit_shuffle_tokens(e, tokens, 1).text);  // the same draw, the same order
    std::vector<std::string> words = tokenize(s1.text);
    std::sort(words.begin(), words.end());
    CHECK(words == tokens);
    for (std::uint64_t draw = 0; draw < 20; ++draw)  // never the order it had
        CHECK(edit_shuffle_tokens(e, tokens, draw).text != "a b c");
    CHECK((s1.edges.empty() && s1.edits.empty()));
    for (const experiment& x : {masked, zeroed, typed, t, s1})
        CHECK(experiment_validate(x).empty());
}

// [SECTION] A/B compare: the pin is a change like any other, and B − A is a core number

namespace {

// Every map of `st` at layer 0 (each head's), A's against B's, as the pipeline compares them.
compare_result compare_weights(const session& s) {
    compare_result r;
    r.mismatch = compare_trace_mismatch(s.pin_tr, s.tr, 0);
    if (r.mismatch.what != compare_mismatch::kind::none)
        return r;
    const auto& la = s.pin_tr.layers[0];
    const auto& lb = s.tr.layers[0];
    for (std::size_t h = 0; h < lb.heads.size(); ++h)
        compare_add_map(r, la.heads[h].weights, lb.heads[h].weights);
    compare_summarise(r);
    return r;
}

}  // namespace

TEST_CASE("pin: pinning and unpinning are undo steps; undo unpins; the pin travels in the link") {
    session s;
    session_apply(s, change::set(parsed("v=1&heads=4")));
    const experiment a = s.exp;
    REQUIRE(session_apply(s, change::pin(a)).accepted);
    CHECK(s.pin == a);
    CHECK(s.undo.size() == 2);
    experiment b = a;
    b.scale = score_scale::none;
    REQUIRE(session_apply(s, change::set(b)).accepted);
    CHECK(s.pin == a);  // a change of B keeps A
    const std::string link = link_encode(s.exp, link_view{}, s.pin);
    CHECK(link.find("&pin=") != std::string::npos);
    session t;
    REQUIRE(session_apply(t, change::open(link)).accepted);
    CHECK(t.exp == b);
    CHECK(t.pin == a);
    session_apply(s, change::undo());
    CHECK(s.exp == a);
    CHECK(s.pin == a);
    session_apply(s, change::undo());
    CHECK_FALSE(s.pin);  // undo unpins
    session_apply(s, change::redo());
    CHECK(s.pin == a);
    REQUIRE(session_apply(s, change::unpin()).accepted);
    CHECK_FALSE(s.pin);
    session_apply(s, change::undo());
    CHECK(s.pin == a);
    // A link without pin= opens unpinned, unless it asks to keep the pin (a lesson's, a host's).
    change keeping = change::open("v=1&heads=1");
    keeping.keep_pin = true;
    session_apply(s, keeping);
    CHECK(s.pin == a);
    session_apply(s, change::open("v=1&heads=2"));
    CHECK_FALSE(s.pin);
}

TEST_CASE("pin: A's trace is computed only when A changes") {
    session s;
    session_update(s);
    CHECK(s.pin_tr.layers.empty());
    session_apply(s, change::pin(s.exp));
    CHECK(session_update(s));
    REQUIRE(s.pin_tr.layers.size() == 1);
    const float* kept = s.pin_tr.layers[0].heads[0].weights.data.data();
    experiment b = s.exp;
    b.seed = 5;
    session_apply(s, change::set(b));
    CHECK(session_update(s));
    CHECK(s.pin_tr.layers[0].heads[0].weights.data.data() == kept);  // B changed, A's trace stayed
    CHECK_FALSE(session_update(s));
}

TEST_CASE("compare: B − A of an unchanged experiment is exactly zero; of a scale change it is not") {
    session s;
    session_apply(s, change::pin(s.exp));
    session_update(s);
    const compare_result same = compare_weights(s);
    REQUIRE(same.mismatch.what == compare_mismatch::kind::none);
    CHECK(same.max_abs == 0.0);
    CHECK(same.relative == 0.0);
    for (const auto& d : same.maps)
        for (float x : d.diff.data)
            CHECK(x == 0.0f);  // masked cells (−∞ in both) too
    experiment b = s.exp;
    b.scale = score_scale::none;
    session_apply(s, change::set(b));
    session_update(s);
    const compare_result scaled = compare_weights(s);
    CHECK(scaled.max_abs > 0.0);
    CHECK(scaled.relative > 0.0);
    CHECK(std::isfinite(scaled.max_abs));
}

TEST_CASE("compare: A and B of different shapes give a reason, not a diff") {
    session s;
    session_apply(s, change::pin(parsed("v=1&text=a%20b%20c%20d%20e%20f")));
    session_apply(s, change::set(parsed("v=1&text=a%20b%20c%20d%20e%20f%20g%20h")));
    session_update(s);
    const compare_result r = compare_weights(s);
    CHECK(r.mismatch.what == compare_mismatch::kind::tokens);
    CHECK(r.maps.empty());
    CHECK(compare_mismatch_text(r.mismatch) == "A has 6 tokens, B has 8: compare needs the same shape");
    session_apply(s, change::set(parsed("v=1&text=a%20b%20c%20d%20e%20f&heads=4")));
    session_update(s);
    CHECK(compare_weights(s).mismatch.what == compare_mismatch::kind::heads);
    const compare_mismatch m = compare_map_mismatch("W_q", matrix(8, 8), matrix(16, 16));
    CHECK(compare_mismatch_text(m) == "A's W_q is 8 × 8, B's is 16 × 16: compare needs the same shape");
    CHECK(compare_map_mismatch("W_q", matrix(8, 8), matrix(8, 8)).what == compare_mismatch::kind::none);
}

// Issue 51, item 4: the compare's and patching's problems were worded four times
// over two enums (the core's English, the panels' in both languages).
TEST_CASE("compare_problem_text: one sentence a problem, in both languages, for the compare and for patching") {
    using k = compare_problem;
    for (const k what :
         {k::tokens, k::layers, k::heads, k::kv_heads, k::d_model, k::maps, k::stage, k::shape, k::training, k::no_trace}) {
        compare_mismatch m{what, 6, 8, "W_q", 8, 8, 16, 16};
        CAPTURE(int(what));
        for (const compare_use use : {compare_use::compare, compare_use::patching}) {
            const std::string en = compare_problem_text(m, use), zh = compare_problem_text(m, use, text_language::zh);
            CHECK_FALSE(en.empty());
            CHECK_FALSE(zh.empty());
            CHECK(en != zh);
            CHECK(en.back() != '.');  // the page closes the sentence
        }
    }
    CHECK(compare_problem_text(compare_counts_mismatch(k::none)).empty());
    CHECK(compare_problem_text(compare_counts_mismatch(k::none), compare_use::patching, text_language::zh).empty());
    const compare_mismatch tokens = compare_counts_mismatch(k::tokens, 6, 8);
    CHECK(compare_problem_text(tokens) == "A has 6 tokens, B has 8: compare needs the same shape");
    CHECK(compare_problem_text(tokens, compare_use::patching) == "A has 6 tokens, B has 8: patching needs the same shape");
    CHECK(compare_problem_text(tokens, compare_use::compare, text_language::zh) ==
          "A 有 6 个词元，B 有 8 个：对比需要相同的形状");
    CHECK(compare_problem_text(compare_counts_mismatch(k::kv_heads, 2, 1), compare_use::patching, text_language::zh) ==
          "A 有 2 个K/V 头，B 有 1 个：修补需要相同的形状");
    CHECK(compare_problem_text(compare_counts_mismatch(k::d_model, 16, 32), compare_use::patching) ==
          "A's d_model is 16, B's is 32: patching needs the same shape");
    CHECK(compare_problem_text(compare_counts_mismatch(k::training, 3, 30)) == "A is still training (step 3 of 30)");
    CHECK(compare_problem_text(compare_counts_mismatch(k::no_trace), compare_use::patching) == "A or B has no trace yet");
    CHECK(compare_mismatch_text(tokens) == compare_problem_text(tokens));
}

TEST_CASE("pin: a pinned A that is not valid is refused, and the session stays") {
    session s;
    experiment bad;
    bad.heads = 3;
    const change_result r = session_apply(s, change::pin(bad));
    CHECK_FALSE(r.accepted);
    CHECK(joined(r.errors).find("pinned A") != std::string::npos);
    CHECK_FALSE(s.pin);
    CHECK(s.undo.empty());
}

namespace {

// The largest experiment the limits allow: 1024 tokens at every size's maximum.
experiment largest() {
    std::string text = "a";
    for (int i = 1; i < experiment_limits::max_tokens; ++i)
        text += "%20a";
    return parsed("v=1&text=" + text + "&d_model=256&heads=16&layers=4&block=full&decode=1024");
}

}  // namespace

TEST_CASE("pin: A's trace and both runs count in the page's memory; a state beyond it is refused with the figure") {
    session s;
    const experiment big = largest();
    REQUIRE(session_apply(s, change::set(big)).accepted);  // alone it fits
    const session_bytes alone = session_peak_bytes({big, std::nullopt});
    CHECK(alone.pin == 0);
    CHECK(alone.kept == trainer_store_budget);
    CHECK(alone.total() <= page_memory_budget);

    // Pinned against itself: two whole traces of 1127 MB do not fit in the 2 GB heap.
    const session_bytes both = session_peak_bytes({big, big});
    CHECK(both.pin == trace_bytes(big, experiment_limits::max_tokens));
    CHECK(both.total() > page_memory_budget);
    const change_result r = session_apply(s, change::pin(big));
    CHECK_FALSE(r.accepted);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].find(std::to_string(both.total()) + " bytes") != std::string::npos);
    CHECK(r.errors[0].find("at most " + std::to_string(page_memory_budget) + " bytes") != std::string::npos);
    CHECK_FALSE(s.pin);  // the last good state stays
    CHECK(s.exp == big);

    // The same pair as a link (pin= holds A) is refused the same way.
    const change_result l = session_apply(s, change::open(link_encode(big, link_view{}, big)));
    CHECK_FALSE(l.accepted);
    CHECK(joined(l.errors).find("pinned A beside it needs") != std::string::npos);

    // A small A beside the largest B fits.
    CHECK(session_apply(s, change::pin(experiment{})).accepted);
}

TEST_CASE("pin: a pinned recipe's run counts, as train_init will take it") {
    const experiment lesson = parsed("v=1&train=induction&steps=300");
    const std::size_t run = train_run_bytes(lesson);
    CHECK(run > 0);
    CHECK(run <= train_run_max_bytes);
    CHECK(train_run_bytes(experiment{}) == 0);  // no recipe, no run
    const session_bytes b = session_peak_bytes({lesson, lesson});
    CHECK(b.runs == 2 * run);  // A and B of one recipe each hold a copy
    trainer t;                 // what the run holds once made is what was counted, within its small tables
    trainer_sync(t, lesson);
    REQUIRE(t.run);
    MESSAGE("counted " << run << " bytes, held " << trainer_bytes(t));
    CHECK(double(trainer_bytes(t)) >= 0.9 * double(run));
    CHECK(double(trainer_bytes(t)) <= 1.25 * double(run));
    // A run whose parameters weigh most (few snapshots, short rows): the row groups'
    // gradients (train_groups of them) are counted on both sides.
    const experiment wide = parsed("v=1&d_model=128&heads=4&layers=4&block=full&train=induction&steps=2&batch=8&seq=8");
    trainer w;
    trainer_sync(w, wide);
    REQUIRE(w.run);
    REQUIRE(w.run->groups == 8);
    MESSAGE("counted " << train_run_bytes(wide) << " bytes, held " << trainer_bytes(w));
    CHECK(double(trainer_bytes(w)) >= 0.9 * double(train_run_bytes(wide)));
    CHECK(double(trainer_bytes(w)) <= 1.25 * double(train_run_bytes(wide)));
}

TEST_CASE("pin: a pinned recipe of another shape than B is not trained, nor its run made; of B's shape it is") {
    session s;
    // B: the page's default; A: the largest recipe (20000 steps at every size's maximum).
    const experiment big = parsed(
        "v=1&text=a%20b%20c&d_model=256&heads=16&layers=4&block=full&train=induction&seq=128&vocab=62&batch=31&steps=20000");
    REQUIRE(session_apply(s, change::pin(big)).accepted);
    const compare_mismatch shape = session_pin_shape({s.exp, s.pin});
    CHECK(shape.what == compare_mismatch::kind::tokens);
    CHECK(session_pin_training(s) == experiment{});
    session_update(s);
    CHECK_FALSE(s.pin_train.run);  // nothing allocated, nothing to train
    CHECK(session_pin_pending(s).what == compare_mismatch::kind::none);
    CHECK_FALSE(s.pin_tr.tokens.empty());  // A's maps: its untrained model

    // B given A's tokens, layers and heads: A's run is made and waits to be trained.
    experiment b = big;
    b.train.trained = 0;
    REQUIRE(session_apply(s, change::set(b)).accepted);
    CHECK(session_pin_shape({s.exp, s.pin}).what == compare_mismatch::kind::none);
    const experiment lesson = parsed("v=1&text=a%20b%20c&train=induction&steps=300");
    experiment untrained = lesson;
    untrained.train.trained = 0;
    const change_result r = session_apply(s, change::set(untrained));
    REQUIRE_MESSAGE(r.accepted, joined(r.errors));
    REQUIRE(session_apply(s, change::pin(lesson)).accepted);
    session_update(s);
    REQUIRE(s.pin_train.run);
    CHECK(session_pin_pending(s).what == compare_mismatch::kind::training);
    CHECK(session_pin_pending(s).b == 300);
}

TEST_CASE("session_measuring: the trained model's measures have work left until session_measure_trained is through") {
    session s;
    const change_result r = session_apply(s, change::open("v=1&text=a%20b%20c&train=induction&steps=20&ablate=0.0"));
    REQUIRE_MESSAGE(r.accepted, joined(r.errors));
    session_update(s);
    REQUIRE(s.train.run);
    CHECK_FALSE(session_measuring(s));  // training: nothing to measure yet (the page is awake for training)
    for (int i = 0; i < 1000 && !trainer_done(s.train); ++i)
        session_train(s, 1.0);
    REQUIRE(trainer_done(s.train));
    session_update(s);
    CHECK(session_measuring(s));  // the ablated head's task effect, the every-head table: to do
    int slices = 0;
    for (; slices < 100000 && session_measuring(s); ++slices)
        session_measure_trained(s, 1e-4);
    CHECK_FALSE(session_measuring(s));
    CHECK(slices > 1);  // it took slices, and said so until the last
    CHECK(s.ablated_task.valid);
    CHECK(s.each_head.complete());
    session_measure_trained(s, 1e-4);  // nothing left: nothing starts again
    CHECK_FALSE(session_measuring(s));
}

TEST_CASE("training's slice follows the frame interval to the one aimed at, within its bounds") {
    train_pace p;
    const double first = p.slice;
    train_pace_update(p, 0.5, 0.0);  // no training in that frame: nothing changes
    CHECK(p.slice == first);
    CHECK(p.interval == 0.0);

    train_pace_update(p, 0.020, 0.010);  // frames faster than aimed at: a longer slice
    CHECK(p.slice > first);
    for (int i = 0; i < 200; ++i)
        train_pace_update(p, 0.005, 0.003);
    CHECK(p.slice == train_pace::most);
    for (int i = 0; i < 200; ++i)
        train_pace_update(p, 0.158, 0.150);  // frames slow from training (steps longer than the slice): down to a step a frame
    CHECK(p.slice == train_pace::least);

    // Drawing alone takes 90 ms, twice the frame aimed at: training less would not
    // make frames come faster, so training keeps a third of the drawing's time.
    train_pace d;
    for (int i = 0; i < 200; ++i)
        train_pace_update(d, 0.090 + d.slice, d.slice);
    CHECK(d.slice == doctest::Approx(0.030).epsilon(0.02));
    CHECK(d.drawing == doctest::Approx(0.090).epsilon(0.02));

    // Drawing takes 10 ms and the frame is drawing plus the slice: the slice settles
    // where frames come at the interval aimed at, and stays there.
    p = train_pace{};
    for (int i = 0; i < 100; ++i)
        train_pace_update(p, 0.010 + p.slice, p.slice);
    CHECK(p.slice == doctest::Approx(train_pace::frame - 0.010).epsilon(0.02));
    CHECK(p.interval == doctest::Approx(train_pace::frame).epsilon(0.02));

    // A tab hidden for 5 s counts as a quarter-second frame, not as 5 s.
    train_pace q = p;
    train_pace_update(q, 5.0, q.slice);
    CHECK(q.interval == doctest::Approx(0.75 * p.interval + 0.25 * 0.25));
    CHECK(q.slice >= train_pace::least);
}

// Issue 49, item 16: `attn check` accepted batch 41–102 at d_model 256 that `attn
// train` refused from 50 (and the page from 40). One limit, train_batch_max, with
// one message: train_init's refusal is the page's and `attn check`'s.
TEST_CASE("one batch limit: what train_init refuses, the page and attn check refuse with the same words") {
    const auto p = link_parse(
        "v=1&text=a%20b%20c&d_model=256&heads=16&layers=4&block=full&train=induction&seq=128&vocab=62&batch=31&steps=2000");
    REQUIRE(p.value);
    experiment e = *p.value;
    const int most = train_batch_max(e);
    MESSAGE("the largest batch at this shape: " << most);
    REQUIRE(most >= 31);  // the largest shape's links (batch=31) still open
    REQUIRE(most < train_limits::max_batch);
    e.train.batch = most;
    CHECK(session_state_problems({e, std::nullopt}).empty());
    CHECK(train_run_problem(e).empty());
    e.train.batch = most + 1;
    const std::string why = train_run_problem(e);
    CHECK(why.find("batch must be at most " + std::to_string(most)) == 0);
    const std::vector<std::string> page = session_state_problems({e, std::nullopt});
    REQUIRE(page.size() == 1);
    CHECK(page[0] == why);
    const train_init_result init = train_init(e);  // refused before anything is allocated
    CHECK_FALSE(init.run);
    REQUIRE(init.errors.size() == 1);
    CHECK(init.errors[0] == why);
}
