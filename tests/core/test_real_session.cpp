// A real model's session (play/real_session.hpp): what the page wants decides
// what is recomputed — a new text a new reading, new changes a new effect (a
// frame after it is announced), another head or stage its stages, the pipeline a
// layer made whole — and nothing else; generation advances within the slice;
// changes that do not fit, and files refused, keep the last good state.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "llama/forward.hpp"
#include "llama_test_files.hpp"
#include "play/real_session.hpp"

using namespace attn;

namespace {

struct files {
    test::llama_bytes ckpt, tok;
    real_model_file a() const { return {ckpt.data(), ckpt.size(), "model.bin", "00112233445566778899aabbccddeeff"}; }
    real_model_file b() const { return {tok.data(), tok.size(), "tok.bin", ""}; }
};

// 2 layers of 4 heads (2 K/V heads), a context of 48 tokens.
files make_files() {
    files f;
    f.tok = test::llama_test_tokenizer({" ", "a", "b", "c", " a", " b", " c"});
    f.ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 266, 48, true), 9);
    return f;
}

real_wants wants(const std::string& text) {
    real_wants w;
    w.text = text;
    w.shown = true;
    return w;
}

// The versions a session bumps as it recomputes, to say what did and what did not.
struct made {
    std::uint64_t version, pipeline, stages, effect;
    explicit made(const real_session& s)
        : version(s.version), pipeline(s.pipeline_made), stages(s.stages_made), effect(s.effect_made) {}
};

// Two updates: the first says the changes run, the second runs them.
void run_changes(real_session& s, const real_wants& w) {
    real_session_update(s, w, 0);
    CHECK(s.effect_announced);
    CHECK_FALSE(real_session_effect_current(s, w));
    real_session_update(s, w, 0);
    CHECK_FALSE(s.effect_announced);
    REQUIRE(real_session_effect_current(s, w));
}

}  // namespace

TEST_CASE("real session: opened, it reads the text at once; the same wants again recompute nothing") {
    const files f = make_files();
    real_session s;
    real_session_update(s, wants("a b"), 1.0);  // no model: nothing
    CHECK(s.version == 0);
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    CHECK(s.read_text == "a b a b");
    CHECK(s.reading.ids.size() == 5);  // BOS and the four tokens
    CHECK(s.exp.heads == 4);
    CHECK(s.exp.kv_heads == 2);
    const made before(s);
    real_wants w = wants("a b a b");
    real_session_update(s, w, 0);
    real_session_update(s, w, 0);
    CHECK(s.version == before.version);
    CHECK(s.pipeline_made == before.pipeline);
    CHECK(s.stages_made == before.stages);
    CHECK(s.effect_made == before.effect);
    CHECK_FALSE(real_session_working(s));
    // Another text: a new reading, once.
    w.text = "a b c a b c";
    real_session_update(s, w, 0);
    CHECK(s.version == before.version + 1);
    CHECK(s.read_text == "a b c a b c");
    CHECK(s.reading.ids.size() == 7);
    real_session_update(s, w, 0);
    CHECK(s.version == before.version + 1);
}

TEST_CASE("real session: a head past the model is fitted to the nearest it has") {
    const files f = make_files();
    real_session s;
    real_wants w = wants("a b");
    w.layer = 9, w.head = 9;
    CHECK(real_session_fit(s, w).layer == 9);  // no model: as asked
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b", 1));
    const real_wants fitted = real_session_fit(s, w);
    CHECK(fitted.layer == 1);
    CHECK(fitted.head == 3);
    w.stage = 0;
    real_session_update(s, w, 0);  // the stages of the head it has
    CHECK(s.stages_layer == 1);
    CHECK(s.stages_head == 3);
    CHECK(real_session_stages_current(s, fitted));
}

TEST_CASE("real session: the selected head's stages follow its head, its stage and the reading") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    real_wants w = wants("a b a b");
    w.layer = 1, w.head = 2;
    real_session_update(s, w, 0);  // the weights: the reading's own, no stages made
    CHECK_FALSE(real_session_stages_current(s, w));
    const made before(s);
    w.stage = 1;  // scaled: the head's stages, made at once
    real_session_update(s, w, 0);
    REQUIRE(real_session_stages_current(s, w));
    CHECK(s.stages_made == before.stages + 1);
    CHECK(s.stages.scaled.data == real_head_stages(*s.model, s.reading, 1, 2).scaled.data);
    w.stage = 0;  // another stage of the same head: they are there
    real_session_update(s, w, 0);
    CHECK(s.stages_made == before.stages + 1);
    w.head = 0;  // another head: made again
    real_session_update(s, w, 0);
    CHECK(s.stages_made == before.stages + 2);
    CHECK(s.stages_head == 0);
    w.text = "b a b a";  // another reading: made again on it
    real_session_update(s, w, 0);
    CHECK(s.stages_made == before.stages + 3);
    CHECK(s.stages_of == s.version);
    CHECK(s.pipeline_made == before.pipeline);  // nothing asked the pipeline
    CHECK(s.effect_made == before.effect);
}

TEST_CASE("real session: the pipeline's layer is made whole, once; the changed pass shows once it ran") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    real_wants w = wants("a b a b");
    w.layer = 1, w.pipeline = true;
    CHECK(real_session_pipeline(s, w) == nullptr);  // not yet whole
    const made before(s);
    real_session_update(s, w, 0);
    CHECK(s.reading.whole_layer == 1);
    CHECK(s.pipeline_made == before.pipeline + 1);
    CHECK(real_session_pipeline(s, w) == &s.reading.tr);
    for (const head_trace& h : s.reading.tr.layers[1].heads)
        CHECK_FALSE(h.scores.empty());  // every stage of every head
    real_session_update(s, w, 0);
    CHECK(s.pipeline_made == before.pipeline + 1);
    w.layer = 0;
    real_session_update(s, w, 0);
    CHECK(s.reading.whole_layer == 0);
    CHECK(s.pipeline_made == before.pipeline + 2);
    // With changes: the reading's layer until they ran, then the changed pass.
    w.changes = real_toggle_head({}, {0, 1});
    real_session_update(s, w, 0);
    CHECK(real_session_pipeline(s, w) == &s.reading.tr);
    real_session_update(s, w, 0);
    CHECK(real_session_pipeline(s, w) == &s.effect.tr);
    CHECK(s.effect.tr.layers[0].heads[1].ablated);
    w.pipeline = false;
    CHECK(real_session_pipeline(s, w) == nullptr);
}

TEST_CASE("real session: changes run a frame after they are announced, again only when they, the layer or the text change") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    real_wants w = wants("a b a b");
    w.layer = 1, w.head = 2;
    w.changes = real_toggle_edge(real_toggle_head({}, {0, 1}), {1, 2, 3, 0});
    const made before(s);
    run_changes(s, w);
    CHECK(real_session_working(s) == false);
    CHECK(s.effect_made == before.effect + 1);
    CHECK(s.effect.of == w.changes);
    CHECK(s.effect.layer == 1);
    CHECK(s.effect.tr.layers[1].heads[2].weights(3, 0) == 0.0f);  // the masked edge, as the pass ran it
    CHECK(s.effect.tr.layers[0].heads[1].ablated);
    CHECK(real_session_changed(s, w));
    w.head = 0;  // another head of the same layer: the same pass
    real_session_update(s, w, 0);
    CHECK(real_session_effect_current(s, w));
    CHECK(s.effect_made == before.effect + 1);
    w.changes = real_toggle_head(w.changes, {1, 3});  // another change: run again
    CHECK_FALSE(real_session_effect_current(s, w));
    run_changes(s, w);
    CHECK(s.effect_made == before.effect + 2);
    w.layer = 0;  // another layer kept whole
    run_changes(s, w);
    CHECK(s.effect_made == before.effect + 3);
    w.text = "a b c a b";  // another reading
    run_changes(s, w);
    CHECK(s.effect_made == before.effect + 4);
    CHECK(s.effect_of == s.version);
    // Nothing shows the model: nothing runs, nothing is announced.
    w.changes = real_toggle_head(w.changes, {0, 0});
    w.shown = false;
    real_session_update(s, w, 0);
    real_session_update(s, w, 0);
    CHECK_FALSE(s.effect_announced);
    CHECK(s.effect_made == before.effect + 4);
    CHECK_FALSE(real_session_changed(s, w));
}

TEST_CASE("real session: changes that do not fit are said and nothing runs; the last good effect stays") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    real_wants w = wants("a b a b");
    w.changes = real_toggle_head({}, {1, 2});
    run_changes(s, w);
    const real_effect good = s.effect;
    const made before(s);
    real_wants bad = w;
    bad.changes.ablate = {{7, 0}};
    const std::vector<std::string> problems = real_session_problems(s, bad);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "zeroed head 7.0: the model has layers 0 to 1");
    for (int frame = 0; frame < 3; ++frame)
        real_session_update(s, bad, 0);
    CHECK_FALSE(s.effect_announced);  // nothing announced, nothing run
    CHECK_FALSE(real_session_working(s));
    CHECK(s.effect_made == before.effect);
    CHECK(s.effect.of == good.of);
    CHECK(s.effect.next[0].id == good.next[0].id);
    CHECK_FALSE(real_session_effect_current(s, bad));
    CHECK(real_session_effect_current(s, w));  // back to the good changes: nothing to run
    real_session_update(s, w, 0);
    CHECK(s.effect_made == before.effect);
}

TEST_CASE("real session: files refused keep the model, its reading and its effect; another model starts over") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    real_wants w = wants("a b a b");
    w.changes = real_toggle_head({}, {0, 2});
    run_changes(s, w);
    const made before(s);
    test::llama_bytes cut(f.ckpt.begin(), f.ckpt.begin() + 300);
    const auto why = real_session_open(s, {cut.data(), cut.size(), "cut.bin"}, f.b(), "c c", 1);
    REQUIRE(why);
    CHECK(why->find("cut.bin") == 0);
    CHECK(s.error == *why);
    CHECK(s.model->name == "model.bin");
    CHECK(s.read_text == "a b a b");
    CHECK(s.version == before.version);
    CHECK(real_session_effect_current(s, w));
    // Other files: read at once, nothing of the last model's kept, the versions counting on.
    REQUIRE_FALSE(real_session_open(s, {f.ckpt.data(), f.ckpt.size(), "other.bin"}, f.b(), "c c", 1));
    CHECK(s.error.empty());
    CHECK(s.model->name == "other.bin");
    CHECK(s.read_text == "c c");
    CHECK(s.version > before.version);
    CHECK(s.effect_made > before.effect);
    CHECK(s.pipeline_made > before.pipeline);
    CHECK(s.stages_made > before.stages);
    CHECK_FALSE(s.effect.made);
    CHECK_FALSE(real_session_effect_current(s, w));
}

TEST_CASE("real session: generation advances within the slice — no step in no time, one in a moment, all in time") {
    const files f = make_files();
    real_session s;
    REQUIRE_FALSE(real_session_open(s, f.a(), f.b(), "a b a b", 1));
    const real_wants w = wants("a b a b");
    const llama_sampling sampling{0.0f, 0.9f, 7};
    real_session_generate(s, sampling, 6);
    CHECK(real_session_working(s));
    const std::size_t prompt = s.reading.ids.size();
    CHECK(s.gen.ids.size() == prompt);
    real_session_update(s, w, 0);  // no time: no step
    CHECK(s.gen.fed == 0);
    // A moment: one step (a token's pass through the cache), then the slice is over.
    for (std::size_t step = 1; step <= prompt; ++step) {
        real_session_update(s, w, 1e-12);
        CHECK(s.gen.fed == int(step));
    }
    CHECK(s.gen.ids.size() == prompt + 1);  // the prompt fed, the first token sampled
    real_session_update(s, w, 60.0);        // time enough: the rest
    CHECK(s.gen.done);
    CHECK_FALSE(real_session_working(s));
    CHECK(s.gen.ids == llama_generate(s.model->model, s.reading.ids, 6, sampling));
    // Stop: it ends where it is.
    real_session_generate(s, sampling, 6);
    real_session_update(s, w, 1e-12);
    real_session_stop(s);
    CHECK_FALSE(real_session_working(s));
    real_session_update(s, w, 60.0);
    CHECK(s.gen.fed == 1);
    CHECK(s.gen.ids.size() == prompt);
}
