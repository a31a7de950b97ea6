// The page's training (trainer.hpp): slices reach the weights of training
// straight there, going back and forth gives them bit for bit, and the session
// traces the trained model.
#include <doctest/doctest.h>

#include <cmath>

#include "base/tokenize.hpp"
#include "play/lesson_preset.hpp"
#include "play/link.hpp"
#include "play/measure_training.hpp"
#include "play/session.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"
#include "test_util.hpp"
#include "train/task.hpp"
#include "train/trainer.hpp"

using namespace attn;

namespace {

experiment small_recipe(int steps = 40) {
    return test::tiny_recipe(train_task::induction, block_kind::attention_residual, steps, "a b c d a b c");
}

// The hash of a fresh run of e's recipe after `steps` steps.
std::string straight_hash(experiment e, int steps) {
    e.train.trained = train_settings::trained_all;
    train_init_result init = train_init(e);
    REQUIRE(init.run);
    for (int i = 0; i < steps; ++i)
        REQUIRE(train_step(*init.run));
    return train_weights_hash(*init.run);
}

}  // namespace

TEST_CASE("the trainer reaches the experiment's step in slices, with the weights of training straight there") {
    const experiment e = small_recipe();
    trainer t;
    CHECK(trainer_sync(t, e));
    REQUIRE(t.run);
    CHECK(t.target == 40);
    CHECK(trainer_step(t) == 0);
    int calls = 0;
    while (!trainer_done(t)) {
        trainer_advance(t, 0.0);  // one step per call
        ++calls;
    }
    CHECK(calls == 40);
    CHECK(t.curve.size() == 40);
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 40));
    CHECK(t.marks.size() == std::size_t(t.run->snapshots_taken));
    CHECK(t.marks.back().step == 40);
    CHECK(t.measured_step == 40);
    CHECK(!trainer_sync(t, e));  // nothing changed: the same run
}

TEST_CASE("going back and forth gives the same weights and measures, bit for bit; the curve stays whole") {
    experiment e = small_recipe();
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    const std::vector<trainer_mark> marks = t.marks;
    REQUIRE(marks.size() >= 3);

    e.train.trained = 17;  // between snapshots: restores the one before, steps on
    trainer_sync(t, e);
    CHECK(!trainer_done(t));
    trainer_finish(t);
    CHECK(trainer_step(t) == 17);
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 17));
    CHECK(t.curve.size() == 40);
    CHECK(t.measured_step == 17);

    const trainer_mark& m = marks[1];  // a snapshot step: the scrubber's measures are the run's
    e.train.trained = m.step;
    trainer_sync(t, e);
    trainer_finish(t);
    CHECK(t.now.step == m.step);
    CHECK(t.now.held_out.loss == m.held_out.loss);
    CHECK(t.now.held_out.acc == m.held_out.acc);
    REQUIRE(t.now.heads.size() == m.heads.size());
    for (std::size_t i = 0; i < m.heads.size(); ++i) {
        CHECK(t.now.heads[i].prev_mean() == m.heads[i].prev_mean());
        CHECK(t.now.heads[i].induction_mean() == m.heads[i].induction_mean());
    }

    e.train.trained = train_settings::trained_all;  // on to the end again
    trainer_sync(t, e);
    trainer_finish(t);
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 40));
    CHECK(t.marks.back().held_out.loss == marks.back().held_out.loss);
}

// Issue 49, item 2: scrubbed back to ~100 and forward again, the run trained
// again from the snapshot although the later ones had been taken. Every kept
// step is reached with no step taken (steps = false: trainer_advance may only
// restore and measure), back and forward, and gives training straight's bits.
TEST_CASE("scrubbing forward to a kept step takes no training step and gives the weights of training straight there") {
    experiment e = small_recipe(300);
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    REQUIRE(t.run);
    REQUIRE(t.run->snapshot_every > 1);  // a grid with steps between
    const std::vector<trainer_mark> marks = t.marks;
    const std::vector<train_point> curve = t.curve;
    const std::vector<int> kept = train_kept_steps(*t.run);
    CHECK(kept.size() > marks.size());  // dense snapshots beside the grid's (the early fall)
    for (const int step : kept)
        CHECK(trainer_kept(t, step));

    e.train.trained = 100;  // back: the kept one before, then steps
    trainer_sync(t, e);
    trainer_finish(t);
    REQUIRE(trainer_step(t) == 100);
    // Forward again, to each kept step after it, and back to each before.
    std::vector<int> order;
    for (const int step : kept)
        if (step > 100 && step < 300)
            order.push_back(step);
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
        order.push_back(*it);
    for (const int step : order) {
        CAPTURE(step);
        e.train.trained = step;
        trainer_sync(t, e);
        trainer_advance(t, 1e9, 1, false);  // no step may be taken here
        CHECK(trainer_step(t) == step);
        CHECK(trainer_done(t));
        CHECK(train_weights_hash(*t.run) == straight_hash(e, step));
        CHECK(t.curve.size() == curve.size());  // the curve stays whole
    }
    CHECK(t.marks.size() == marks.size());
    for (std::size_t i = 0; i < marks.size(); ++i)
        CHECK(t.marks[i].held_out.loss == marks[i].held_out.loss);
    // A step between kept ones: from the kept one before, a few steps on.
    e.train.trained = 151;
    trainer_sync(t, e);
    trainer_advance(t, 1e9, 1, false);
    CHECK(trainer_step(t) == train_kept_before(*t.run, 151));
    trainer_finish(t);
    CHECK(trainer_step(t) == 151);
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 151));
}

// The dense snapshots' rule (train.hpp): where the smoothed loss moved by
// train_dense_change since the kept one before, off the grid, at most the limit.
TEST_CASE("dense snapshots are kept where the smoothed loss moved fastest, between the grid's") {
    experiment e = small_recipe(300);
    train_init_result init = train_init(e);
    REQUIRE(init.run);
    train_run& r = *init.run;
    train_run_all(r);
    REQUIRE(r.dense_taken > 0);
    CHECK(r.dense_taken <= train_limits::max_dense_snapshots);
    const int span = train_dense_span(r.snapshot_every);
    float smooth = 0.0f, at_kept = 0.0f;
    int dense = 0;
    for (int s = 1; s <= r.reach; ++s) {
        smooth = train_loss_ema_next(smooth, r.curve[std::size_t(s - 1)].loss, span, s == 1);
        if (s == 1)
            at_kept = smooth;
        const bool grid = s % r.snapshot_every == 0 || s == e.train.steps;
        const bool taken = !grid && dense < int(r.dense.size()) && std::fabs(std::log(smooth / at_kept)) >= train_dense_change;
        if (taken) {
            REQUIRE(dense < r.dense_taken);
            CHECK(r.dense[std::size_t(dense)].step == s);
            ++dense;
        }
        if (grid || taken)
            at_kept = smooth;
    }
    CHECK(dense == r.dense_taken);
}

TEST_CASE("only the model and the recipe make a new run; the text, interventions and `trained` do not") {
    experiment e = small_recipe();
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    const std::uint64_t v = t.weights_version;
    e.text = "c d e";
    e.ablate.push_back({1, 0});
    e.train.trained = 3;
    CHECK(!trainer_sync(t, e));
    CHECK(t.weights_version == v);
    e.train.lr = 0.02f;
    CHECK(trainer_sync(t, e));
    CHECK(trainer_step(t) == 0);
    CHECK(t.curve.empty());
    experiment plain;
    CHECK(trainer_sync(t, plain));
    CHECK(!t.run);
    CHECK(trainer_done(t));
}

TEST_CASE("the session traces a recipe's experiment with the trained weights at the trainer's step") {
    session s;
    REQUIRE(session_apply(s, change::set(small_recipe())).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    const std::uint64_t v0 = s.version;
    trainer_advance(s.train, 0.0);
    CHECK(session_update(s));
    CHECK(s.version > v0);
    const std::vector<std::string> tokens = tokenize(s.exp.text);
    const auto w = train_weights_for(*s.train.run, tokens);
    REQUIRE(w);
    const trace direct = forward_with(s.exp, tokens, *w);
    CHECK(s.tr.output.data == direct.output.data);
    CHECK(!session_update(s));  // nothing new: no recompute

    experiment edited = s.exp;  // an edit acts on the trained weights, the run stays
    edited.edits.push_back({edit_target::w_q, 1, 2, 3, 0.5f});
    const std::uint64_t weights = s.train.weights_version;
    REQUIRE(session_apply(s, change::set(edited)).accepted);
    session_update(s);
    CHECK(s.train.weights_version == weights);
    CHECK(s.tr.params.layers[1].w_q(2, 3) == 0.5f);
    CHECK(s.tr.params.layers[1].w_q(2, 4) == w->layers[1].w_q(2, 4));
}

TEST_CASE("the page's recipe has the task's symbols for text, and trained at most steps") {
    session s;
    const auto r = session_apply(s, change::open("v=1&text=the%20cat&train=induction&steps=10"));
    REQUIRE(!r.accepted);
    CHECK(r.errors.front().find("'the' is not a symbol of the task's vocabulary") != std::string::npos);
    CHECK(s.exp == experiment{});  // the last good experiment stays
    CHECK(
        experiment_parse("v=1&text=the%20cat&train=induction&steps=10").value);  // the CLI trains it (and traces a held-out row)
    const auto far = experiment_parse("v=1&text=a%20b&train=induction&steps=10&trained=11");
    REQUIRE(!far.value);
    CHECK(far.errors.front().find("trained must be at most steps (10)") != std::string::npos);
    const auto ok = experiment_parse("v=1&text=a%20b&train=induction&steps=10&trained=4");
    REQUIRE(ok.value);
    CHECK(ok.value->train.trained_steps() == 4);
    CHECK(experiment_to_text(*ok.value).find("&trained=4") != std::string::npos);
    experiment all = *ok.value;
    all.train.trained = train_settings::trained_all;
    CHECK(experiment_to_text(all).find("trained") == std::string::npos);
}

TEST_CASE("the task with heads zeroed is the diagnostics' ablation table's; the phase step is where the loss fell") {
    experiment e = small_recipe(60);
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    const train_diagnostics d = train_diagnose(*t.run);
    const train_eval_result one = trainer_task_with_ablated(t, {{1, 0}});
    CHECK(one.loss == d.heads[2].ablate_loss);
    CHECK(one.acc == d.heads[2].ablate_acc);
    const train_eval_result none = trainer_task_with_ablated(t, {});
    CHECK(none.loss == d.base.loss);
    const train_eval_result both = trainer_task_with_ablated(t, {{1, 0}, {1, 1}});
    CHECK(both.loss != one.loss);

    trainer fake;
    for (int i = 0; i < 200; ++i)
        fake.curve.push_back(train_point{i, i < 120 ? 2.0f : 0.2f, 0.0f, 0.0f, 0.0f});
    CHECK(trainer_phase_step(fake) == 120);
    for (auto& p : fake.curve)
        p.loss = 2.0f;
    CHECK(trainer_phase_step(fake) == -1);
}

namespace {

std::vector<train_point> loss_curve(int steps, float (*loss)(int)) {
    std::vector<train_point> c;
    for (int i = 0; i < steps; ++i)
        c.push_back(train_point{i, loss(i), 0.0f, 0.0f, 0.0f});
    return c;
}

// L9's shape: a quick fall from ln 16 to a plateau, the plateau, then the drop at 330.
float plateau_then_drop(int t) {
    return t < 330 ? 2.3f + 0.47f * std::exp(-float(t) / 10.0f) : 0.05f + 2.25f * std::exp(-float(t - 330) / 5.0f);
}
// Falling from the start: an exponential, and a smooth sigmoid whose fastest fall is at 139 (the reverse task's shape).
float smooth_exponential(int t) { return 0.1f + 2.67f * std::exp(-float(t) / 200.0f); }
float smooth_sigmoid(int t) { return 0.1f + 2.6f / (1.0f + std::exp(float(t - 139) / 30.0f)); }

}  // namespace

TEST_CASE("the drop is one rule: a plateau curve has one, a smooth fall has no plateau, and training never moves it") {
    const std::vector<train_point> plateau = loss_curve(1500, plateau_then_drop);
    const train_drop d = train_find_drop(plateau, 1500, 1500);
    CHECK(d.window == 50);
    CHECK(d.step >= 330);
    CHECK(d.step <= 340);
    CHECK(d.plateau);
    CHECK(d.before > 2.0f);
    CHECK(d.after < 1.0f);
    // Trained a step at a time (the Train panel's curve as it grows): no drop while
    // the fall is under way, then the final one, never another.
    int first_named = -1;
    for (int n = 1; n <= 1500; ++n) {
        const int s = train_find_drop(plateau, n, 1500).step;
        if (s >= 0 && first_named < 0)
            first_named = n;
        if (s >= 0)
            REQUIRE(s == d.step);
        else
            REQUIRE(n < d.step + 2 * d.window);
    }
    CHECK(first_named == d.step + 2 * d.window);
    // Falling smoothly from the start: the fastest fall is a drop but no plateau.
    const train_drop e = train_find_drop(loss_curve(600, smooth_exponential), 600, 600);
    CHECK(e.step >= 0);
    CHECK_FALSE(e.plateau);
    const train_drop g = train_find_drop(loss_curve(600, smooth_sigmoid), 600, 600);
    CHECK(std::abs(g.step - 139) <= 2);
    CHECK_FALSE(g.plateau);
    // The trainer's phase step is this rule on its curve.
    trainer fake;
    fake.curve = plateau;
    CHECK(trainer_phase_step(fake) == d.step);
}

TEST_CASE("a training lesson's link opens untrained; its model trained, or another experiment, round trips through it") {
    const auto opened = link_parse(lesson_link(9));
    REQUIRE(opened.value);
    CHECK(opened.value->train.task == train_task::induction);
    CHECK(opened.value->train.trained == 0);
    link_view v;
    v.lesson = 9;
    experiment all = *opened.value;  // Train pressed: `trained` is no longer written
    all.train.trained = train_settings::trained_all;
    const auto back = link_parse(link_encode(all, v));
    REQUIRE(back.value);
    CHECK(*back.value == all);
    const experiment plain;  // no recipe at all, under the lesson's view
    const auto none = link_parse(link_encode(plain, v));
    REQUIRE(none.value);
    CHECK(*none.value == plain);
}

TEST_CASE("a pinned recipe is traced with its own run's weights at its own step (A | B of two trained models)") {
    session s;
    experiment e = small_recipe(20);
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    trainer_finish(s.train);
    session_update(s);
    REQUIRE(session_apply(s, change::pin(s.exp)).accepted);
    session_update(s);
    REQUIRE(s.pin_train.run);
    CHECK(trainer_step(s.pin_train) == 20);  // B's run, copied: A is not trained again
    CHECK(session_pin_pending(s).what == compare_mismatch::kind::none);
    CHECK(train_weights_hash(*s.pin_train.run) == train_weights_hash(*s.train.run));
    CHECK(s.pin_tr.output.data == s.tr.output.data);  // the same recipe, the same step: the same model
    e.train.trained = 5;                              // B goes back; A stays where it was pinned
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    trainer_finish(s.train);
    session_update(s);
    CHECK(trainer_step(s.pin_train) == 20);
    CHECK(s.pin_tr.output.data != s.tr.output.data);
}

TEST_CASE("a run left for another experiment is kept: reopening its recipe finds it at its step, no step run again") {
    session s;
    const experiment r = small_recipe(40);
    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    trainer_finish(s.train);
    REQUIRE(trainer_step(s.train) == 40);
    const std::string hash = train_weights_hash(*s.train.run);
    CHECK(hash == straight_hash(r, 40));
    experiment other = small_recipe(30);  // another recipe, then no recipe at all
    other.train.lr = 0.02f;
    REQUIRE(session_apply(s, change::set(other)).accepted);
    session_update(s);
    CHECK(trainer_step(s.train) == 0);
    REQUIRE(s.kept.entries.size() == 1);
    CHECK(s.kept.entries[0].key == trainer_store_key(r));
    CHECK(s.kept.bytes == trainer_bytes(s.kept.entries[0].kept));
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);
    CHECK(!s.train.run);

    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    CHECK(trainer_done(s.train));  // no trainer_advance since: nothing was trained again
    CHECK(trainer_step(s.train) == 40);
    CHECK(s.train.curve.size() == 40);
    CHECK(s.train.marks.size() == trainer_snapshot_steps(s.train).size());
    CHECK(train_weights_hash(*s.train.run) == hash);
    CHECK(s.kept.entries.empty());  // taken out: the store holds only runs not shown
    CHECK(s.kept.bytes == 0);

    // Back along the kept run and on again: the bits of training straight there.
    experiment back = r;
    back.train.trained = 10;
    REQUIRE(session_apply(s, change::set(back)).accepted);
    session_update(s);
    trainer_finish(s.train);
    CHECK(train_weights_hash(*s.train.run) == straight_hash(r, 10));
    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    trainer_finish(s.train);
    CHECK(train_weights_hash(*s.train.run) == hash);
}

// A run scrubbed back to step 0 still holds every step it took: left there for another
// experiment it is kept too, and its end is reached again without a step (it was dropped,
// and the page trained L9's 1500 steps again after a look at its first snapshot).
TEST_CASE("a run left at step 0 after training is kept: its recipe's end comes back with no step run again") {
    session s;
    const experiment r = small_recipe(40);
    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    trainer_finish(s.train);
    const std::string hash = train_weights_hash(*s.train.run);
    experiment start = r;
    start.train.trained = 0;
    REQUIRE(session_apply(s, change::set(start)).accepted);
    session_update(s);
    trainer_finish(s.train);
    REQUIRE(trainer_step(s.train) == 0);
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);
    REQUIRE(s.kept.entries.size() == 1);
    CHECK(s.kept.entries[0].key == trainer_store_key(r));

    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    trainer_advance(s.train, 1e9, 1, false);  // no step may be taken
    CHECK(trainer_step(s.train) == 40);
    CHECK(trainer_done(s.train));
    CHECK(s.train.curve.size() == 40);
    CHECK(train_weights_hash(*s.train.run) == hash);

    // A run that never took a step is not kept: it is as cheap to start again.
    REQUIRE(session_apply(s, change::set(start)).accepted);
    session_update(s);
    experiment fresh = small_recipe(30);
    fresh.train.lr = 0.02f;
    fresh.train.trained = 0;
    REQUIRE(session_apply(s, change::set(fresh)).accepted);
    session_update(s);
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);
    REQUIRE(s.kept.entries.size() == 1);
    CHECK(s.kept.entries[0].key == trainer_store_key(r));
}

TEST_CASE("a lesson's link opens its recipe at the step its kept run reached; a plain link at the step it names") {
    session s;
    experiment r = small_recipe(40);
    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    trainer_finish(s.train);
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);
    experiment untrained = r;  // as a lesson's link opens it: before Train is pressed
    untrained.train.trained = 0;
    const std::string link = link_encode(untrained, link_view{});
    REQUIRE(session_apply(s, change::open(link)).accepted);
    CHECK(s.exp.train.trained == 0);  // a link that says step 0 is step 0 (from the kept run's first snapshot)
    session_update(s);
    trainer_finish(s.train);  // back along the kept run to its first snapshot
    CHECK(trainer_step(s.train) == 0);
    CHECK(train_weights_hash(*s.train.run) == straight_hash(r, 0));
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);

    REQUIRE(session_apply(s, change::set(r)).accepted);  // trained again, then left part-way back
    session_update(s);
    trainer_finish(s.train);
    r.train.trained = 25;
    REQUIRE(session_apply(s, change::set(r)).accepted);
    session_update(s);
    trainer_finish(s.train);
    REQUIRE(session_apply(s, change::set(experiment{})).accepted);
    session_update(s);
    change lesson = change::open(link);
    lesson.resume = true;
    REQUIRE(session_apply(s, lesson).accepted);
    CHECK(s.exp.train.trained == 25);  // where the person left it
    session_update(s);
    CHECK(trainer_done(s.train));
    CHECK(trainer_step(s.train) == 25);
    CHECK(train_weights_hash(*s.train.run) == straight_hash(r, 25));
}

TEST_CASE("the kept runs stay within their budget: the run left longest ago goes first") {
    std::vector<trainer> runs;
    for (int i = 0; i < 3; ++i) {
        experiment e = small_recipe(10 + i);
        trainer t;
        trainer_sync(t, e);
        trainer_finish(t);
        runs.push_back(std::move(t));
    }
    const std::size_t each = trainer_bytes(runs[0]);
    CHECK(each > 4 * sizeof(float) * runs[0].run->params.size());  // parameters, moments, snapshots counted
    trainer_store kept;
    kept.budget = 2 * each + each / 2;  // room for two
    for (trainer& t : runs)
        trainer_store_put(kept, t);
    REQUIRE(kept.entries.size() == 2);
    CHECK(!trainer_store_find(kept, trainer_store_key(runs[0].key)));  // the oldest went
    CHECK(trainer_store_find(kept, trainer_store_key(runs[1].key)));
    CHECK(trainer_store_find(kept, trainer_store_key(runs[2].key)));
    CHECK(kept.bytes <= kept.budget);
    CHECK(kept.bytes == kept.entries[0].bytes + kept.entries[1].bytes);
    trainer_store_put(kept, runs[1]);  // left again: now the newest, the same run once
    trainer_store_put(kept, runs[0]);
    CHECK(kept.entries.size() == 2);
    CHECK(!trainer_store_find(kept, trainer_store_key(runs[2].key)));
    trainer_store take_none;  // a run bigger than the whole budget is not kept
    take_none.budget = each / 2;
    trainer_store_put(take_none, runs[2]);
    CHECK(take_none.entries.empty());
    trainer fresh;
    trainer_sync(fresh, small_recipe(5));  // a run that has taken no step is not kept
    trainer_store_put(take_none, fresh);
    CHECK(take_none.entries.empty());

    // docs/training.md ("Kept runs"): the lessons' runs are small beside the budget.
    const auto l9 = link_parse(recipe_lesson_induction);
    REQUIRE(l9.value);
    trainer lesson;
    trainer_sync(lesson, *l9.value);  // its memory is all taken at step 0
    const std::size_t mb = trainer_bytes(lesson) >> 20;
    MESSAGE("L9's run: " << mb << " MB");
    CHECK(mb >= 12);
    CHECK(mb <= 20);
    CHECK(trainer_bytes(lesson) * 8 <= trainer_store_budget);
}

TEST_CASE("while A's run has not reached A's step, compare says A is still training and gives no figures") {
    session s;
    const experiment b = small_recipe(20);
    REQUIRE(session_apply(s, change::set(b)).accepted);
    session_update(s);
    trainer_finish(s.train);
    experiment a = small_recipe(30);  // a recipe this session never trained
    a.train.lr = 0.02f;
    REQUIRE(session_apply(s, change::pin(a)).accepted);
    session_update(s);
    REQUIRE(s.pin_train.run);
    compare_mismatch m = session_pin_pending(s);
    CHECK(m.what == compare_mismatch::kind::training);
    CHECK(m.a == 0);
    CHECK(m.b == 30);
    CHECK(compare_mismatch_text(m) == "A is still training (step 0 of 30)");
    trainer_advance(s.pin_train, 0.0);  // one step
    CHECK(compare_mismatch_text(session_pin_pending(s)) == "A is still training (step 1 of 30)");
    trainer_finish(s.pin_train);
    session_update(s);
    CHECK(session_pin_pending(s).what == compare_mismatch::kind::none);
    REQUIRE(session_apply(s, change::unpin()).accepted);
    session_update(s);
    CHECK(session_pin_pending(s).what == compare_mismatch::kind::none);
    CHECK(trainer_store_find(s.kept, trainer_store_key(a)));  // A's run, kept for a later pin
}

TEST_CASE("the smoothed train loss: an EMA of log(loss) over a fiftieth of the run, kept beside the curve") {
    CHECK(train_loss_ema_span(1500) == 30);
    CHECK(train_loss_ema_span(10) == 1);
    const auto points = [](std::vector<float> losses) {
        std::vector<train_point> c;
        for (float l : losses)
            c.push_back({int(c.size()), l});
        return c;
    };
    // A constant loss stays itself; the first point starts it (it does not rise from 0).
    for (float v : train_loss_ema(points({2.0f, 2.0f, 2.0f, 2.0f}), 5))
        CHECK(v == doctest::Approx(2.0f));
    // Each step moves 2 / (span + 1) of the way on the log scale: a geometric mean of the noise.
    const std::vector<float> two = train_loss_ema(points({1.0f, 100.0f}), 3);
    CHECK(two[1] == doctest::Approx(10.0f).epsilon(1e-5));  // halfway between 1 and 100 in log: 10
    const std::vector<float> noisy = train_loss_ema(points({0.1f, 10.0f, 0.1f, 10.0f, 0.1f, 10.0f, 0.1f, 10.0f}), 1);
    CHECK(noisy.back() == doctest::Approx(10.0f));  // span 1: no smoothing
    // A drop from a plateau reads as a drop: it falls every step after it, and lags it.
    std::vector<float> drop(40, 3.0f);
    for (std::size_t i = 20; i < drop.size(); ++i)
        drop[i] = 0.03f;
    const std::vector<float> s = train_loss_ema(points(drop), 5);
    CHECK(s[19] == doctest::Approx(3.0f));
    for (std::size_t i = 20; i < s.size(); ++i) {
        CHECK(s[i] < s[i - 1]);
        CHECK(s[i] > 0.03f);
    }
    CHECK(s[20] > 10.0f * 0.03f);  // one step after the drop it is still well above the new level
    CHECK(s.back() < 0.05f);
    // Zero is the plot's floor (1e-6); NaN stays NaN.
    CHECK(train_loss_ema(points({0.0f}), 5)[0] == doctest::Approx(1e-6f));
    CHECK(std::isnan(train_loss_ema(points({1.0f, std::nanf("")}), 5)[1]));
    // The trainer keeps it beside its curve, step by step: the same numbers.
    const experiment e = small_recipe();
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    REQUIRE(t.smooth.size() == t.curve.size());
    const std::vector<float> whole = train_loss_ema(t.curve, train_loss_ema_span(e.train.steps));
    for (std::size_t i = 0; i < whole.size(); ++i)
        CHECK(t.smooth[i] == whole[i]);
}

// Issue 29, item 4: L9's shape with lr·wd = 10, so decoupled decay multiplies the
// weights by −9 each step and the loss stops being finite at step 21.
TEST_CASE("a diverged run can be undone: going back restores a kept snapshot; its accuracy over NaN logits is NaN") {
    const auto parsed = experiment_parse(std::string(recipe_lesson_induction) + "&lr=10&wd=1&clip=0");
    REQUIRE(parsed.value);
    experiment e = *parsed.value;
    e.train.steps = 300;
    e.train.trained = train_settings::trained_all;
    trainer t;
    trainer_sync(t, e);
    trainer_finish(t);
    REQUIRE(t.run);
    CHECK(trainer_stopped(t));
    CHECK(trainer_done(t));  // nothing more to do: the page does not keep stepping
    CHECK(trainer_step(t) == 21);
    CHECK(t.target == 300);
    CHECK(t.error.find("at step 21") != std::string::npos);
    // The model at step 21 has NaN logits: no argmax, so its accuracy is NaN, not
    // the share of targets argmax over NaN happens to hit.
    CHECK(t.now.step == 21);
    CHECK(std::isnan(t.now.held_out.loss));
    CHECK(std::isnan(t.now.held_out.acc));
    REQUIRE(t.run->snapshots_taken >= 2);
    const int last_kept = t.run->snapshots[std::size_t(t.run->snapshots_taken - 1)].step;
    CHECK(last_kept < 21);

    // Step back, then every kept snapshot, then Reset: each restores and clears the stop.
    std::vector<int> targets = {20};
    for (int i = t.run->snapshots_taken - 1; i >= 0; --i)
        targets.push_back(t.run->snapshots[std::size_t(i)].step);
    for (const int step : targets) {
        CAPTURE(step);
        experiment back = e;
        back.train.trained = step;
        trainer_sync(t, back);
        CHECK(trainer_advance(t, 1e9));
        CHECK(!trainer_stopped(t));
        CHECK(t.error.empty());
        CHECK(trainer_done(t));
        CHECK(trainer_step(t) == step);
        CHECK(train_weights_hash(*t.run) == straight_hash(e, step));
        CHECK(t.now.step == step);
        CHECK(std::isfinite(t.now.held_out.acc));
        CHECK(std::isfinite(t.now.held_out.loss));
        e.train.trained = train_settings::trained_all;  // back to the stop, each time
        trainer_sync(t, e);
        trainer_finish(t);
        CHECK(trainer_stopped(t));
        CHECK(trainer_step(t) == 21);
    }
}

// --- steps and measures in pieces (a big recipe keeps the page drawing) ----------

namespace {

experiment full_recipe(int steps) { return test::tiny_recipe(train_task::induction, block_kind::full, steps, "a b c d a b c"); }

// The recipes of the Freeze report: the largest shape the limits allow, and a moderate one.
experiment recipe_of(const char* link) {
    const experiment_parse_result p = link_decode(link);
    REQUIRE(p.errors.empty());
    return *p.value;
}
const char* const largest_link =
    "v=1&text=a%20b%20c&d_model=256&heads=16&layers=4&block=full&train=induction&seq=128&vocab=62&batch=31&steps=20000";
const char* const moderate_link =
    "v=1&text=a%20b%20c&d_model=128&heads=8&layers=2&block=full&seq=64&vocab=32&batch=32&steps=2000&train=induction";

}  // namespace

TEST_CASE("a step in pieces gives the bits of whole steps; an abandoned step leaves the weights as they were") {
    const experiment e = full_recipe(6);
    train_init_result a = train_init(e), b = train_init(e);
    REQUIRE(a.run);
    REQUIRE(b.run);
    train_run& r = *b.run;
    const int pieces_per_step = 2 + r.B * (2 * r.L + 1);  // begin, per row L + 1 + L, update
    for (int s = 0; s < 3; ++s) {
        REQUIRE(train_step(*a.run));
        int pieces = 0;
        train_piece p = train_piece::partial;
        while (p == train_piece::partial) {
            p = train_step_piece(r);
            ++pieces;
        }
        CHECK(p == train_piece::step);
        CHECK(pieces == pieces_per_step);
        CHECK(train_weights_hash(r) == train_weights_hash(*a.run));
        CHECK(r.curve.back().loss == a.run->curve.back().loss);
    }
    const std::string before = train_weights_hash(r);
    for (int i = 0; i < pieces_per_step / 2; ++i)  // into the middle of a row's backward
        REQUIRE(train_step_piece(r) == train_piece::partial);
    CHECK(train_step_in_progress(r));
    train_step_abandon(r);
    CHECK(!train_step_in_progress(r));
    CHECK(train_weights_hash(r) == before);
    CHECK(r.step == 3);
    for (int i = 0; i < 5; ++i)  // a measure in between abandons the step: its rows' activations are the step's
        train_step_piece(r);
    train_evaluate(r);
    CHECK(!train_step_in_progress(r));
    REQUIRE(train_step(r));
    REQUIRE(train_step(*a.run));
    CHECK(train_weights_hash(r) == train_weights_hash(*a.run));
}

TEST_CASE("the held-out measure in pieces of a row gives train_evaluate_scored's numbers to the bit") {
    train_init_result init = train_init(full_recipe(3));
    REQUIRE(init.run);
    train_run& r = *init.run;
    train_run_all(r);
    std::vector<head_scores> whole;
    const train_eval_result w = train_evaluate_scored(r, whole);
    train_scored_job job;
    int pieces = 0;
    while (!job.eval.done()) {
        train_scored_piece(r, job);
        ++pieces;
    }
    CHECK(pieces == train_eval_rows);
    CHECK(job.eval.result().loss == w.loss);
    CHECK(job.eval.result().acc == w.acc);
    REQUIRE(job.heads.size() == whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        CHECK(job.heads[i].induction_mean() == whole[i].induction_mean());
        CHECK(job.heads[i].entropy_mean() == whole[i].entropy_mean());
    }
    train_eval_job ablated;
    ablated.heads = {head_override{1, 0, nullptr, nullptr}, head_override{0, 1, nullptr, nullptr}};
    while (!ablated.done())
        train_evaluate_piece(r, ablated);
    head_override second{0, 1, nullptr, nullptr}, first{1, 0, nullptr, &second};
    CHECK(ablated.result().loss == train_evaluate(r, &first).loss);
}

TEST_CASE("the cost of a step from the shape: at the largest recipe no piece is more than 1/100 of a step") {
    const train_cost big = train_estimate(recipe_of(largest_link));
    CHECK(big.piece <= big.step / 100);
    CHECK(big.layer_forward * 4 * 128 <= big.measure);  // the measure: 128 rows of 4 layers forward, and the logits
    CHECK(big.measure <= big.piece * 4 * 128);          // … in pieces of a row: at most 4 of the largest step piece each
    // What the page decides with: the largest runs for hours, so it opens paused; the moderate one trains.
    CHECK(train_seconds(big.step) > 1.0);
    CHECK(train_is_long(recipe_of(largest_link)));
    CHECK(train_run_bytes(recipe_of(largest_link)) <=
          train_run_max_bytes);  // its links open (tests/web/freeze.test.mjs trains it)
    CHECK(!train_is_long(recipe_of(moderate_link)));
    CHECK(!train_is_long(full_recipe(40)));
    // The count matches the code: a layer forward of the moderate shape, by hand.
    const train_cost mid = train_estimate(recipe_of(moderate_link));
    const double T = 64, d = 128, f = 512;
    CHECK(mid.layer_forward == doctest::Approx(2 * T * d * 3 * d + 4 * T * T * d + 2 * T * d * d + 4 * T * d * f));
    CHECK(mid.step == doctest::Approx(32 * (2 * 3 * mid.layer_forward + 6 * T * d * 32) + 2 * mid.update));
}

TEST_CASE(
    "the trainer in slices shorter than a step: a call ends mid-step, the bits are whole steps'; Pause drops the partial step") {
    experiment e = full_recipe(12);
    trainer t;
    trainer_sync(t, e);
    int calls = 0;
    bool ended_mid_step = false;
    while (!trainer_done(t)) {
        trainer_advance(t, 1e-12);  // one piece per call
        ended_mid_step = ended_mid_step || train_step_in_progress(*t.run);
        ++calls;
    }
    CHECK(ended_mid_step);
    CHECK(calls > 12 * (2 + 4 * 5));
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 12));
    trainer whole;
    trainer_sync(whole, e);
    trainer_finish(whole);
    REQUIRE(whole.marks.size() == t.marks.size());
    for (std::size_t i = 0; i < t.marks.size(); ++i)
        CHECK(t.marks[i].held_out.loss == whole.marks[i].held_out.loss);
    CHECK(t.now.held_out.loss == whole.now.held_out.loss);
    CHECK(t.measured_step == 12);

    e.train.steps = 40;  // a new run, paused in the middle of a step
    e.train.trained = train_settings::trained_all;
    trainer_sync(t, e);
    while (trainer_step(t) < 3 || !train_step_in_progress(*t.run))
        trainer_advance(t, 1e-12);
    const std::string at = train_weights_hash(*t.run);
    e.train.trained = trainer_step(t);  // Pause: the target is the step reached
    trainer_sync(t, e);
    trainer_advance(t, 1e-12);
    CHECK(!train_step_in_progress(*t.run));
    CHECK(train_weights_hash(*t.run) == at);
    while (!trainer_done(t))
        trainer_advance(t, 1e-12);
    CHECK(trainer_step(t) == 3);
    CHECK(t.measured_step == 3);
    e.train.trained = train_settings::trained_all;  // and on again: the same bits as straight there
    trainer_sync(t, e);
    trainer_finish(t);
    CHECK(train_weights_hash(*t.run) == straight_hash(e, 40));
}

TEST_CASE("a link to a recipe estimated long opens paused at step 0; a moderate one, or one naming its step, trains") {
    session s;
    REQUIRE(session_apply(s, change::open(largest_link)).accepted);
    CHECK(s.exp.train.trained == 0);
    CHECK(experiment_to_text(s.exp).find("trained=0") != std::string::npos);
    REQUIRE(session_apply(s, change::open(std::string(largest_link) + "&trained=3")).accepted);
    CHECK(s.exp.train.trained == 3);
    const change_result moderate = session_apply(s, change::open(moderate_link));
    INFO((moderate.errors.empty() ? std::string() : moderate.errors[0]));
    REQUIRE(moderate.accepted);
    CHECK(s.exp.train.trained == train_settings::trained_all);
}

TEST_CASE("a measure finished in pieces bumps the version; before it, L9's reading still knows the task") {
    trainer t;
    experiment e;
    e.text = "a b c";
    e.train.task = train_task::induction;
    e.train.steps = 50;
    e.train.trained = 0;
    trainer_sync(t, e);
    REQUIRE(t.run);
    // However far the step-0 measure has got, the task is the recipe's: the card
    // must never say the model is trained on another task than induction.
    CHECK(measure_formation(t).induction_task);
    const std::uint64_t before = t.weights_version;
    int calls = 0;
    while (!trainer_done(t) && calls < 100000) {
        trainer_advance(t, 1e-9);  // a piece per call, as a slow frame gets
        ++calls;
    }
    REQUIRE(trainer_done(t));
    CHECK_FALSE(t.now.heads.empty());
    CHECK(t.weights_version > before);  // what is drawn from `now` is recomputed
    CHECK(measure_formation(t).induction_task);
}
