// A trained run as bytes (trainer_file.hpp): opened again it is the run, and
// trains on to the bits of a run never saved; bytes that are cut, altered or
// another build's are refused with a message.
#include <doctest/doctest.h>

#include <cstring>

#include "play/session.hpp"
#include "play/training.hpp"
#include "test_util.hpp"
#include "train/trainer_file.hpp"

using namespace attn;

namespace {

// Long enough for a grid of every 5 steps, so dense snapshots and steps between kept ones exist.
experiment recipe(int trained) {
    experiment e = test::tiny_recipe(train_task::induction, block_kind::attention_residual, 300, "a b c d a b c");
    e.train.trained = trained;
    return e;
}

trainer trained_to(int step, int reach) {
    trainer t;
    trainer_sync(t, recipe(reach));
    trainer_finish(t);
    if (step != reach) {
        trainer_sync(t, recipe(step));
        trainer_finish(t);
    }
    REQUIRE(trainer_step(t) == step);
    REQUIRE(t.run->reach == reach);
    return t;
}

bool same_bits(const std::vector<train_point>& a, const std::vector<train_point>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(train_point)) == 0;
}

void check_same(const trainer& a, const trainer& b) {
    const train_run &x = *a.run, &y = *b.run;
    CHECK(trainer_step(a) == trainer_step(b));
    CHECK(x.reach == y.reach);
    CHECK(train_weights_hash(x) == train_weights_hash(y));
    CHECK((x.adam_m == y.adam_m && x.adam_v == y.adam_v));
    CHECK(same_bits(x.curve, y.curve));
    CHECK(same_bits(a.curve, b.curve));
    CHECK(a.smooth == b.smooth);
    CHECK(train_kept_steps(x) == train_kept_steps(y));
    REQUIRE(a.marks.size() == b.marks.size());
    for (std::size_t i = 0; i < a.marks.size(); ++i) {
        CHECK(a.marks[i].step == b.marks[i].step);
        CHECK(a.marks[i].held_out.loss == b.marks[i].held_out.loss);
        CHECK(a.marks[i].heads.back().induction == b.marks[i].heads.back().induction);
    }
    CHECK(a.now.held_out.loss == b.now.held_out.loss);
    CHECK(a.measured_step == b.measured_step);
    CHECK(a.probe_step == b.probe_step);
    REQUIRE(a.probe.size() == b.probe.size());
    CHECK(a.probe.back().data == b.probe.back().data);
    CHECK(a.probe_symbols == b.probe_symbols);
    CHECK(trainer_store_key(a.key) == trainer_store_key(b.key));
}

// The bytes with their checksum written again after a change (as a build that wrote them would).
void resum(std::vector<unsigned char>& bytes) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (std::size_t i = 0; i + 8 < bytes.size(); ++i)
        h = (h ^ bytes[i]) * 0x100000001B3ull;
    std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

std::string load_error(const std::vector<unsigned char>& bytes) {
    trainer_load_result r = trainer_load(bytes);
    CHECK(!r.run);
    return r.error;
}

}  // namespace

TEST_CASE("a kept run opens as the run it was: its step, weights, curve, snapshots and measures; trained on, the same bits") {
    // Trained to 200 of 300, then scrubbed back to 37 (between kept snapshots).
    const trainer t = trained_to(37, 200);
    const std::vector<unsigned char> bytes = trainer_save(t);
    REQUIRE(!bytes.empty());
    trainer_load_result back = trainer_load(bytes);
    INFO(back.error);
    REQUIRE(back.run);
    CHECK(back.key == trainer_store_key(recipe(300)));
    CHECK(trainer_done(*back.run));
    check_same(t, *back.run);
    CHECK(trainer_save(*back.run) == bytes);

    // On to a kept step (no step taken), and past the reach (steps taken): both alike.
    trainer a = t, b = std::move(*back.run);
    for (int to : {200, 300, 120}) {
        trainer_sync(a, recipe(to));
        trainer_sync(b, recipe(to));
        trainer_finish(a);
        trainer_finish(b);
        check_same(a, b);
    }
    CHECK(a.run->reach == 300);
}

TEST_CASE("a run that is not at its step, or never stepped, is not saved") {
    trainer t;
    trainer_sync(t, recipe(100));
    CHECK(trainer_save_problem(t) != "");  // its first measure is under way
    CHECK(trainer_save(t).empty());
    trainer_advance(t, 0.0);
    CHECK(!trainer_done(t));
    CHECK(trainer_save(t).empty());
    trainer fresh;
    trainer_sync(fresh, recipe(0));
    trainer_finish(fresh);
    CHECK(trainer_done(fresh));
    CHECK(trainer_save_problem(fresh) == "it has not taken a step");
    trainer none;
    CHECK(trainer_save_problem(none) == "there is no run");
}

TEST_CASE("a kept run's bytes that are cut, altered or another build's are refused, each with its reason") {
    const trainer t = trained_to(150, 150);
    const std::vector<unsigned char> bytes = trainer_save(t);
    REQUIRE(bytes.size() > 1000);
    CHECK(load_error({}).find("truncated or altered") != std::string::npos);
    for (std::size_t n : {std::size_t(1), std::size_t(8), std::size_t(20), bytes.size() / 2, bytes.size() - 1}) {
        std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
        CHECK(load_error(cut).find("truncated or altered") != std::string::npos);
        resum(cut);  // cut, with a checksum of what is left: read to its end and no further
        CHECK(load_error(cut) != "");
    }
    for (std::size_t at : {std::size_t(0), std::size_t(30), bytes.size() / 3, bytes.size() - 9}) {
        std::vector<unsigned char> flipped = bytes;
        flipped[at] ^= 0x10;
        CHECK(load_error(flipped).find("checksum") != std::string::npos);
    }
    std::vector<unsigned char> other = bytes;
    other[0] = 'x';
    resum(other);
    CHECK(load_error(other).find("not a kept run") != std::string::npos);
    other = bytes;
    other[8] = 9;  // the format's version
    resum(other);
    CHECK(load_error(other).find("format 9") != std::string::npos);
    other = bytes;
    REQUIRE(other[20] == 'v');  // the recipe's text, after its length
    other[20] = 'w';
    resum(other);
    CHECK(load_error(other).find("recipe") != std::string::npos);

    // Another build's arithmetic: the loss of the step the check takes again (the one
    // after the latest kept snapshot) differs in its last bit.
    trainer altered = t;
    float& loss = altered.run->curve[std::size_t(train_kept_before(*t.run, 149))].loss;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &loss, 4);
    bits ^= 1;
    std::memcpy(&loss, &bits, 4);
    CHECK(load_error(trainer_save(altered)).find("taken again") != std::string::npos);
    // Weights that are not the ones their snapshot trains to.
    altered = t;
    altered.run->params[3] += 1e-3f;
    CHECK(load_error(trainer_save(altered)).find("its weights at step 150") != std::string::npos);
    // Bytes after the run.
    other = bytes;
    other.insert(other.end() - 8, {1, 2, 3});
    resum(other);
    CHECK(load_error(other).find("3 bytes follow") != std::string::npos);
}

TEST_CASE("a kept run given back to a session: in place of a run of its recipe that went less far, else among the kept") {
    const trainer done = trained_to(300, 300);
    const std::string hash = train_weights_hash(*done.run);
    const auto loaded = [&done] {
        trainer_load_result r = trainer_load(trainer_save(done));
        REQUIRE(r.run);
        return std::move(*r.run);
    };
    session s;
    REQUIRE(session_apply(s, change::set(recipe(250))).accepted);
    session_update(s);
    trainer_advance(s.train, 0.0);
    trainer_advance(s.train, 0.0);
    REQUIRE(trainer_step(s.train) == 2);
    const std::uint64_t version = s.train.weights_version;
    CHECK(session_keep_run(s, loaded()));
    CHECK(s.train.weights_version > version);
    CHECK(s.train.target == 250);  // the experiment's step, not the kept run's
    int steps = 0;
    while (!trainer_done(s.train)) {
        trainer_advance(s.train, 0.0);
        ++steps;
    }
    CHECK(steps <= 1);  // 250 is kept: restored, not trained
    CHECK(trainer_step(s.train) == 250);
    CHECK(s.train.run->reach == 300);
    CHECK(!session_keep_run(s, loaded()));  // this one went as far

    // Another recipe open: among the kept runs, and its recipe found there at once.
    experiment other = recipe(300);
    other.train.lr = 0.02f;
    session t;
    REQUIRE(session_apply(t, change::set(other)).accepted);
    session_update(t);
    CHECK(session_keep_run(t, loaded()));
    CHECK(t.kept.entries.size() == 1);
    CHECK(!session_keep_run(t, loaded()));
    REQUIRE(session_apply(t, change::set(recipe(300))).accepted);
    session_update(t);
    CHECK(trainer_done(t.train));
    CHECK(train_weights_hash(*t.train.run) == hash);
}

TEST_CASE("a store of runs beyond the session: asked once a recipe, and no step is taken before its answer") {
    session s;
    s.runs_beyond = true;
    REQUIRE(session_apply(s, change::set(recipe(20))).accepted);
    session_update(s);
    CHECK(session_train(s, 1.0) == 0);
    CHECK(s.run_awaited);
    const std::string key = s.run_asked;
    CHECK(key == trainer_store_key(s.train.key));
    for (int i = 0; i < 3; ++i)
        session_train(s, 1.0);
    CHECK(trainer_step(s.train) == 0);  // the kept run, when there is one, spares these steps
    session_run_answered(s, "another recipe's key");
    CHECK(s.run_awaited);
    // Another page trains it: the answer waits for that page's run, and says so.
    session_run_elsewhere(s, "another recipe's key");
    CHECK_FALSE(s.run_elsewhere);
    session_run_elsewhere(s, key);
    CHECK(s.run_elsewhere);
    session_train(s, 1.0);
    CHECK(trainer_step(s.train) == 0);
    session_run_answered(s, key);
    CHECK_FALSE(s.run_awaited);
    CHECK_FALSE(s.run_elsewhere);
    const auto a_step_on = [&s] {  // slices until the run takes a step (not to its end)
        const int from = trainer_step(s.train);
        for (int i = 0; i < 100000 && trainer_step(s.train) == from; ++i)
            session_train(s, 1e-5);
        return trainer_step(s.train) > from;
    };
    CHECK(a_step_on());
    // Paused, then trained on (Train pressed again): asked again, since another page may have
    // trained the recipe meanwhile; no step until the answer.
    const int at = trainer_step(s.train), asks = s.run_asks;
    experiment paused = s.exp;
    paused.train.trained = at;
    REQUIRE(session_apply(s, change::set(paused)).accepted);
    session_update(s);
    session_train(s, 1.0);
    CHECK(s.run_asks == asks);  // not training: nothing asked
    CHECK_FALSE(s.run_awaited);
    experiment on = s.exp;
    on.train.trained = 20;
    REQUIRE(session_apply(s, change::set(on)).accepted);
    session_update(s);
    session_train(s, 1.0);
    CHECK(s.run_asks == asks + 1);
    CHECK(s.run_awaited);
    session_run_elsewhere(s, key);
    CHECK(s.run_elsewhere);
    session_train(s, 1.0);
    CHECK(trainer_step(s.train) == at);
    session_run_answered(s, key);
    CHECK(a_step_on());
    // Another step of the same recipe while it trains: asked already, nothing waits.
    REQUIRE(session_apply(s, change::set(recipe(30))).accepted);
    session_update(s);
    session_train(s, 1.0);
    CHECK(s.run_asked == key);
    CHECK(s.run_asks == asks + 1);
    CHECK_FALSE(s.run_awaited);
}
