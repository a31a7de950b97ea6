// The thread pool (base/threads) and what rests on it: training's weights are
// the same bits for every thread count.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/threads.hpp"
#include "llama/checkpoint.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama_test_files.hpp"
#include "model/forward.hpp"
#include "play/session.hpp"
#include "play/training.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"
#include "train/train.hpp"
#include "train/trainer.hpp"

using namespace attn;

TEST_CASE("parallel_for: after a call on 8 threads, calls on 2 and 3 run every item once, on at most that many threads") {
    parallel_for(64, 8, [](int) {});
    for (int threads : {2, 3, 2, 8, 2}) {
        std::mutex m;
        std::set<std::thread::id> ran_on;
        std::vector<std::atomic<int>> seen(200);
        parallel_for(200, threads, [&](int i) {
            seen[std::size_t(i)].fetch_add(1);
            const std::lock_guard<std::mutex> lock(m);
            ran_on.insert(std::this_thread::get_id());
        });
        for (const auto& s : seen)
            CHECK(s.load() == 1);
        CHECK(int(ran_on.size()) <= threads);
    }
}

TEST_CASE("parallel_for: every item exactly once, for any thread count; a call inside an item runs inline") {
    for (int threads : {1, 2, 3, 8}) {
        for (int n : {0, 1, 7, 1000}) {
            std::vector<std::atomic<int>> seen(std::size_t(n > 0 ? n : 1));
            parallel_for(n, threads, [&seen](int i) { seen[std::size_t(i)].fetch_add(1); });
            for (int i = 0; i < n; ++i)
                CHECK(seen[std::size_t(i)].load() == 1);
        }
        std::atomic<int> inner{0};
        parallel_for(4, threads, [&inner, threads](int) { parallel_for(5, threads, [&inner](int) { inner.fetch_add(1); }); });
        CHECK(inner.load() == 20);
    }
    CHECK(threads_available() >= 1);
    CHECK(threads_problem(1).empty());
    CHECK(threads_problem(threads_max).empty());
    CHECK(threads_problem(0) == "threads must be at least 1, not 0");
    CHECK(threads_problem(threads_max + 1).find("at most") != std::string::npos);
}

TEST_CASE("parallel_for: calls back to back from two threads, on 1 to 8 threads each, run every item exactly once") {
    threads_start(8);  // (in wasm only the main thread starts workers)
    const auto calls = [](int salt) {
        bool ok = true;
        for (int c = 0; c < 300; ++c) {
            const int n = 1 + (c * 7 + salt) % 23, threads = 1 + (c + salt) % 8;
            std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
            parallel_for(n, threads, [&seen](int i) { seen[std::size_t(i)].fetch_add(1); });
            for (const auto& x : seen)
                ok = ok && x.load() == 1;
        }
        return ok;
    };
    std::atomic<bool> other_ok{false};
    background_job job;
    job.start([&](const std::atomic<bool>&) { other_ok = calls(3); });
    const bool here_ok = calls(0);
    job.stop();
    CHECK(here_ok);
    CHECK(other_ok.load());
}

TEST_CASE("parallel_for: a call while another thread's call has the pool runs its items inline, without waiting") {
    if (!threads_background())
        return;
    std::atomic<bool> holding{false}, release{false};
    threads_start(2);    // the worker started here (in wasm only the main thread starts them)
    background_job job;  // its call holds the pool until released
    job.start([&](const std::atomic<bool>&) {
        parallel_for(2, 2, [&](int) {
            holding.store(true);
            while (!release.load()) {
            }
        });
    });
    while (!holding.load()) {
    }
    const std::thread::id caller = std::this_thread::get_id();
    std::vector<int> order;
    bool here = true;
    parallel_for(5, 2, [&](int i) {  // would wait for the release if it waited for the pool
        order.push_back(i);
        here = here && std::this_thread::get_id() == caller;
    });
    release.store(true);
    job.stop();
    CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(here);
}

namespace {

train_run run_of(const char* link) {
    const experiment_parse_result p = experiment_parse(link);
    REQUIRE(p.errors.empty());
    train_init_result init = train_init(*p.value);
    REQUIRE(init.run);
    return std::move(*init.run);
}

// batch=13: groups of one and two rows; batch=5: fewer rows than groups.
const char* const links[] = {
    "v=1&text=a%20b%20c&d_model=32&heads=4&layers=2&block=full&pos=rope&train=induction&seq=12&vocab=10&batch=13&steps=6",
    "v=1&text=a%20b%20c&d_model=16&heads=2&kv_heads=1&layers=2&block=attn_res&train=induction&seq=10&vocab=8&batch=5&steps=6",
};

}  // namespace

TEST_CASE(
    "training: the same bits with 1, 2, 3 and 8 threads, in whole steps or in pieces, and with the count changed mid-step") {
    for (const char* link : links) {
        INFO(link);
        train_run one = run_of(link);
        std::vector<std::string> hashes;
        while (train_step(one))
            hashes.push_back(train_weights_hash(one));
        REQUIRE(hashes.size() == 6);
        for (int threads : {2, 3, 8}) {
            INFO("threads " << threads);
            train_run r = run_of(link);
            r.threads = threads;
            for (const std::string& h : hashes) {
                REQUIRE(train_step(r));
                CHECK(train_weights_hash(r) == h);
            }
            CHECK(r.curve.back().loss == one.curve.back().loss);
            CHECK(r.curve.back().grad_norm == one.curve.back().grad_norm);
        }
        for (int threads : {2, 3}) {  // in pieces (the page's trainer): a few groups side by side, a few pieces each
            train_run r = run_of(link);
            r.threads = threads;
            r.threaded_pieces = 3;
            for (const std::string& h : hashes) {
                int pieces = 0;
                train_piece p = train_piece::partial;
                while (p == train_piece::partial) {
                    p = train_step_piece(r);
                    ++pieces;
                }
                REQUIRE(p == train_piece::step);
                CHECK(pieces > 3);
                CHECK(train_weights_hash(r) == h);
            }
        }
        train_run mixed = run_of(link);  // a step begun a piece at a time on one thread, finished on three
        for (int i = 0; i < 4; ++i)
            REQUIRE(train_step_piece(mixed) == train_piece::partial);
        mixed.threads = 3;
        REQUIRE(train_step(mixed));
        CHECK(train_weights_hash(mixed) == hashes[0]);
    }
}

TEST_CASE("parallel_for: with its helpers held back (never showing up) a call completes on the caller, every item once") {
    if (!threads_background())
        return;
    threads_start(4);
    threads_hold_helpers(true);
    std::vector<std::atomic<int>> seen(300);
    background_job caller;  // a pool that waited for its helpers would never finish this
    caller.start(
        [&seen](const std::atomic<bool>&) { parallel_for(300, 4, [&seen](int i) { seen[std::size_t(i)].fetch_add(1); }); });
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // (a bound, not a measure)
    while (!caller.finished() && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    CHECK(caller.finished());
    threads_hold_helpers(false);  // (the old pool finished then)
    caller.stop();
    for (const auto& v : seen)
        CHECK(v.load() == 1);
    parallel_for(300, 4, [&seen](int i) { seen[std::size_t(i)].fetch_add(1); });  // and the helpers, released, work again
    for (const auto& v : seen)
        CHECK(v.load() == 2);
}

TEST_CASE("training and generation: the same bits with the helpers held back throughout, or now and then (a busy machine)") {
    if (!threads_background())
        return;
    threads_start(3);
    for (const bool flicker : {false, true}) {
        CAPTURE(flicker);
        background_job toggler;  // holds the helpers back and lets them go, over and over, while the steps run
        if (flicker)
            toggler.start([](const std::atomic<bool>& stop) {
                for (int i = 0; !stop.load(); ++i) {
                    threads_hold_helpers(i % 2 == 0);
                    std::this_thread::sleep_for(std::chrono::microseconds(300));
                }
                threads_hold_helpers(false);
            });
        else
            threads_hold_helpers(true);
        for (const char* link : links) {
            INFO(link);
            train_run one = run_of(link), three = run_of(link);
            three.threads = 3;
            while (train_step(one)) {
                REQUIRE(train_step(three));
                CHECK(train_weights_hash(three) == train_weights_hash(one));
            }
        }
        const test::llama_bytes b = test::llama_test_checkpoint(test::llama_test_config(96, 200, 2, 6, 2, 301, 32, false), 5);
        llama_model m;
        std::string why;
        REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
        const llama_sampling s{0.9f, 0.9f, 7};
        const std::vector<int> tokens = llama_generate(m, {1, 5, 9}, 20, s);
        CHECK(llama_generate(m, {1, 5, 9}, 20, s, 3) == tokens);
        toggler.stop();
        threads_hold_helpers(false);
    }
}

TEST_CASE("generation through the KV cache: the same logits, bits and tokens on 1, 2 and 3 threads") {
    // Rows not a multiple of the threads' 16-row alignment or of any SIMD width
    // (dim 96 on 3 threads, hidden 200, vocab 301), GQA: every product split,
    // every head in parallel.
    const test::llama_bytes b = test::llama_test_checkpoint(test::llama_test_config(96, 200, 2, 6, 2, 301, 32, false), 5);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    llama_decoder one(m, 32), two(m, 32), three(m, 32);
    two.threads = 2;
    three.threads = 3;
    for (int token : {1, 17, 250, 3, 300, 42}) {
        const float* a = one.step(token);
        const std::vector<float> want(a, a + 301);
        for (llama_decoder* d : {&two, &three}) {
            const float* z = d->step(token);
            CHECK(std::vector<float>(z, z + 301) == want);
            CHECK(d->attention == one.attention);
        }
    }
    const llama_sampling s{0.9f, 0.9f, 7};
    const std::vector<int> tokens = llama_generate(m, {1, 5, 9}, 20, s);
    CHECK(llama_generate(m, {1, 5, 9}, 20, s, 3) == tokens);
}

namespace {

void check_same_trace(const trace& a, const trace& b) {
    REQUIRE(a.layers.size() == b.layers.size());
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        CAPTURE(l);
        const layer_trace &x = a.layers[l], &y = b.layers[l];
        CHECK(x.concat.data == y.concat.data);
        CHECK(x.output.data == y.output.data);
        REQUIRE(x.heads.size() == y.heads.size());
        for (std::size_t h = 0; h < x.heads.size(); ++h) {
            CAPTURE(h);
            CHECK(x.heads[h].weights.data == y.heads[h].weights.data);
            CHECK(x.heads[h].scores.data == y.heads[h].scores.data);
            CHECK(x.heads[h].out.data == y.heads[h].out.data);
            CHECK(x.heads[h].row_entropies == y.heads[h].row_entropies);
        }
    }
    CHECK(a.output.data == b.output.data);
    CHECK(a.logits.data == b.logits.data);
}

}  // namespace

TEST_CASE("the traced pass with a layer's heads side by side: every head's matrices the same bits on 1, 2 and 3 threads") {
    experiment e;
    e.text = "the cat sat on the mat and the dog sat on the log while the bird sang to the cat and the dog";
    e.d_model = 48;
    e.heads = 6;
    e.kv_heads = 3;
    e.layers = 2;
    e.block = block_kind::full;
    e.pos = positional::rope;
    e.ablate = {{1, 2}};
    for (const bool lean : {false, true}) {
        CAPTURE(lean);
        trace_options opt = lean ? trace_options::lean() : trace_options{};
        const trace one = forward(e, opt);
        for (int threads : {2, 3}) {
            opt.threads = threads;
            check_same_trace(forward(e, opt), one);
        }
    }
    // A real model's pass (GQA, RoPE, SwiGLU) likewise.
    const test::llama_bytes b = test::llama_test_checkpoint(test::llama_test_config(96, 200, 2, 6, 2, 301, 32, false), 5);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    const std::vector<int> ids = {1, 17, 250, 3, 300, 42, 17, 250, 3, 9, 12, 200};
    const experiment le = llama_experiment(m.config);
    trace_options opt;
    const trace one = llama_forward(m, ids, le, opt);
    opt.threads = 3;
    check_same_trace(llama_forward(m, ids, le, opt), one);
}

TEST_CASE("background_job: fn runs beside the caller until stop(); copying or moving a busy job stops it first") {
    background_job job;
    CHECK(!job.busy());
    if (threads_background()) {  // (without threads fn runs on the caller, at once: it must not wait for stop)
        std::atomic<int> spins{0};
        job.start([&spins](const std::atomic<bool>& stop) {
            while (!stop.load())
                spins.fetch_add(1);
        });
        CHECK(job.busy());
        while (spins.load() == 0) {  // it runs while the caller goes on
        }
        CHECK(!job.finished());
        const background_job copy = job;  // a copy waits for it: what fn writes is nobody else's
        CHECK(!job.busy());
        CHECK(!copy.busy());
    }
    int ran = 0;
    job.start([&ran](const std::atomic<bool>&) { ran = 1; });
    background_job moved = std::move(job);
    CHECK(ran == 1);
    CHECK(!job.busy());
    CHECK(!moved.busy());
}

namespace {

experiment apart_recipe(int steps) {
    const experiment_parse_result p = experiment_parse(recipe_lesson_induction);
    REQUIRE(p.value);
    experiment e = *p.value;
    e.train.steps = steps;
    e.train.trained = train_settings::trained_all;
    return e;
}

// One frame as the page runs it training apart: take the job's steps in, trace,
// launch again.
void frame_apart(session& s) {
    session_train(s, 0.002);
    session_update(s);
    session_train_launch(s);
}

// Frames as the page runs them training apart, each then drawing (here: reading
// what the panel reads) while the job runs. The
// curve keeps pace with the step; going back it stays whole, to the furthest
// step the run reached (`furthest`).
int frames_apart(session& s, int& launched, int furthest = 0) {
    int frames = 0;
    do {  // (the first frame takes a change in: trainer_sync)
        frame_apart(s);
        launched += s.train.job.busy() ? 1 : 0;
        if (s.train.job.busy())
            CHECK(s.train.run->threads == session_train_threads(s));  // (the job only reads it)
        CHECK(int(s.train.curve.size()) == std::max(trainer_step(s.train), furthest));
        ++frames;
    } while (!trainer_done(s.train) && frames < 1000000);
    return frames;
}

}  // namespace

TEST_CASE("training apart: a job beside the frames gives the bits, the curve and the measures of training in them") {
    const experiment e = apart_recipe(90);
    session here;
    REQUIRE(session_apply(here, change::set(e)).accepted);
    session_update(here);
    trainer_finish(here.train);
    session_update(here);
    REQUIRE(trainer_step(here.train) == 90);

    session s;
    s.threads = 3;
    CHECK(session_trains_apart(s) == threads_background());
    CHECK(session_train_threads(s) == (threads_background() ? 2 : 3));  // apart, one is the drawing's
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    int launched = 0;
    frames_apart(s, launched);
    CHECK((launched > 0) == threads_background());
    REQUIRE(trainer_step(s.train) == 90);
    CHECK(!s.train.job.busy());
    CHECK(train_weights_hash(*s.train.run) == train_weights_hash(*here.train.run));
    REQUIRE(s.train.curve.size() == here.train.curve.size());
    for (std::size_t i = 0; i < s.train.curve.size(); ++i) {
        CAPTURE(i);
        CHECK(s.train.curve[i].loss == here.train.curve[i].loss);
        CHECK(s.train.smooth[i] == here.train.smooth[i]);
    }
    REQUIRE(s.train.marks.size() == here.train.marks.size());
    for (std::size_t i = 0; i < s.train.marks.size(); ++i) {
        CHECK(s.train.marks[i].step == here.train.marks[i].step);
        CHECK(s.train.marks[i].held_out.loss == here.train.marks[i].held_out.loss);
    }
    CHECK(s.train.now.held_out.acc == here.train.now.held_out.acc);
    CHECK(s.train.measured_step == 90);
    session_update(s);
    CHECK(s.tr.output.data == here.tr.output.data);
}

TEST_CASE("training apart: a job stopped anywhere, in a step or in a snapshot's measure, goes on from there at the next launch") {
    if (!threads_background())
        return;
    const experiment e = apart_recipe(60);
    trainer straight;
    trainer_sync(straight, e);
    trainer_finish(straight);
    trainer t;
    trainer_sync(t, e);
    int collects = 0, measures_cut = 0, inside_steps = 0;
    for (int i = 0; !trainer_done(t) && i < 100000; ++i) {
        trainer_advance(t, 1e-6, 1, false);  // as the frames do between posts: a piece of a measure at most
        const int launched_at = t.run->step;
        if (!trainer_launch(t, 1 + i % 2))
            continue;
        const double run = 1e-4 * (1 + i % 7);  // stops at many different points of the run
        while (t.job.busy() && !t.job.finished() && t.job.seconds() < run) {
        }
        trainer_collect(t);
        ++collects;
        measures_cut += t.measuring_step >= 0 && t.measuring.eval.row > 0 ? 1 : 0;  // left partway, for the next job
        // What the panel shows after a post, mostly inside a step: the latest mark as `now`
        // (never the zeros of no measure), the probe of a step this job ended.
        inside_steps += train_step_in_progress(*t.run) ? 1 : 0;
        {
            const int m = std::min(int(t.marks.size()), t.run->snapshots_taken) - 1;
            if (m >= 0 && t.measured_step != t.run->step) {
                CHECK(t.now.step == t.marks[std::size_t(m)].step);
                CHECK(t.now.held_out.loss == t.marks[std::size_t(m)].held_out.loss);
            }
        }
        if (t.run->step > launched_at)
            CHECK(t.probe_step > launched_at);
    }
    CHECK(inside_steps > 0);
    // The job's probe buffers stay for the next job: a kept run's bytes count them.
    REQUIRE_FALSE(t.job_out.probe.empty());
    std::size_t probe_bytes = 0;
    for (const matrix& m : t.job_out.probe)
        probe_bytes += m.data.capacity() * sizeof(float);
    trainer without = t;
    without.job_out = trainer_job_out{};
    CHECK(trainer_bytes(t) >= trainer_bytes(without) + probe_bytes);
    REQUIRE(trainer_done(t));
    CHECK(collects > 10);
    CHECK(measures_cut > 0);
    CHECK(train_weights_hash(*t.run) == train_weights_hash(*straight.run));
    REQUIRE(t.marks.size() == straight.marks.size());
    for (std::size_t i = 0; i < t.marks.size(); ++i) {
        CAPTURE(i);
        CHECK(t.marks[i].step == straight.marks[i].step);
        CHECK(t.marks[i].held_out.loss == straight.marks[i].held_out.loss);
        CHECK(t.marks[i].held_out.acc == straight.marks[i].held_out.acc);
        REQUIRE(t.marks[i].heads.size() == straight.marks[i].heads.size());
        for (std::size_t h = 0; h < t.marks[i].heads.size(); ++h)
            CHECK(t.marks[i].heads[h].induction == straight.marks[i].heads[h].induction);
    }
    CHECK(t.now.held_out.loss == straight.now.held_out.loss);
}

TEST_CASE("training apart: a change while the job runs takes its steps in first; Pause lands where training straight goes") {
    experiment e = apart_recipe(2000);  // (Pause lands long before its end, however slow this thread)
    session s;
    s.threads = 2;
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    for (int frame = 0; frame < 3 || trainer_step(s.train) == 0 || (threads_background() && !s.train.job.busy()); ++frame)
        frame_apart(s);
    const int shown = trainer_step(s.train);  // what the panel shows as Pause is pressed, the job out
    e.train.trained = shown;
    REQUIRE(session_apply(s, change::paused(change::set(e))).accepted);
    CHECK(!s.train.job.busy());
    // The job's steps since the launch are in and kept: mostly none (it is
    // stopped inside its first step), a few when this thread lost its core meanwhile.
    const int reached = trainer_step(s.train);
    REQUIRE(reached < e.train.steps);
    CHECK(s.exp.train.trained == reached);  // the link says where it paused
    int launched = 0;
    frames_apart(s, launched);
    CHECK(trainer_step(s.train) == reached);
    CHECK(launched == 0);  // at its target: nothing to step
    session here;
    REQUIRE(session_apply(here, change::set(s.exp)).accepted);
    session_update(here);
    trainer_finish(here.train);
    CHECK(train_weights_hash(*s.train.run) == train_weights_hash(*here.train.run));
}

TEST_CASE(
    "training apart: Pause landing a frame after the step it read keeps the job's steps; going back to that step retrains it, "
    "the curve whole") {
    experiment e = apart_recipe(2000);
    session s;
    s.threads = 2;
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    for (int i = 0; i < 1000000 && trainer_step(s.train) < 5; ++i)
        frame_apart(s);
    const int shown = trainer_step(s.train);  // read on one frame; the click lands on a later one
    REQUIRE((shown >= 5 && shown < e.train.steps));
    for (int i = 0; i < 1000000 && trainer_step(s.train) == shown; ++i)
        frame_apart(s);
    e.train.trained = shown;
    REQUIRE(session_apply(s, change::paused(change::set(e))).accepted);
    const int reached = trainer_step(s.train);
    REQUIRE((reached > shown && reached < e.train.steps));
    CHECK(s.exp.train.trained == reached);
    int launched = 0;
    frames_apart(s, launched);
    CHECK(launched == 0);
    CHECK(trainer_step(s.train) == reached);  // never counted down

    // The step shown asked for itself (the scrubber, a link): the run goes back
    // to the snapshot before it and steps on, the curve kept to the furthest step.
    REQUIRE(session_apply(s, change::set(e)).accepted);
    frames_apart(s, launched, reached);
    CHECK(trainer_step(s.train) == shown);
    CHECK(int(s.train.curve.size()) == reached);
    const int every = s.train.run->snapshot_every;
    CHECK((launched > 0) == (threads_background() && shown % every != 0));  // from the snapshot before, on the job
    session here;
    REQUIRE(session_apply(here, change::set(e)).accepted);
    session_update(here);
    trainer_finish(here.train);
    CHECK(train_weights_hash(*s.train.run) == train_weights_hash(*here.train.run));
    for (int i = 0; i < shown; ++i)
        CHECK(s.train.curve[std::size_t(i)].loss == here.train.curve[std::size_t(i)].loss);
}

TEST_CASE("training apart: Pause A keeps the steps A's job took until it landed") {
    experiment b = apart_recipe(2000);
    b.train.trained = 0;
    session s;
    s.threads = 2;
    REQUIRE(session_apply(s, change::set(b)).accepted);
    experiment a = apart_recipe(2000);  // A of B's recipe, trained through beside it
    REQUIRE(session_apply(s, change::pin(a)).accepted);
    for (int i = 0; i < 1000000 && trainer_step(s.pin_train) < 5; ++i)
        frame_apart(s);
    const int shown = trainer_step(s.pin_train);
    REQUIRE((shown >= 5 && shown < a.train.steps));
    for (int i = 0; i < 1000000 && trainer_step(s.pin_train) == shown; ++i)
        frame_apart(s);
    a.train.trained = shown;
    REQUIRE(session_apply(s, change::paused(change::pin(a))).accepted);
    const int reached = trainer_step(s.pin_train);
    REQUIRE((reached > shown && reached < a.train.steps));
    REQUIRE(s.pin);
    CHECK(s.pin->train.trained == reached);
    for (int i = 0; i < 1000000 && !(trainer_done(s.pin_train) && trainer_done(s.train)); ++i) {
        frame_apart(s);
        CHECK(trainer_step(s.pin_train) == reached);  // never counted down, never on
    }
    CHECK(trainer_step(s.train) == 0);  // B stays where it is
}

TEST_CASE(
    "training apart: a job whose thread never answers (a worker a browser ended) is given up; the frames go on and say why") {
    if (!threads_background())
        return;
    threads_set_patience(0.2);
    threads_hold_jobs(true);  // the job's thread stops before it runs: it never answers
    // Never freed (and reachable): what the job's thread may write stays its own (trainer::lost).
    static session* kept = new session;
    session& s = *kept;
    s.threads = 3;
    REQUIRE(session_apply(s, change::set(apart_recipe(60))).accepted);
    session_update(s);
    frame_apart(s);
    REQUIRE(s.train.job.busy());
    // Frames until the job is taken in (train_pace::post), which waits at most the
    // patience: a stop that joined the thread would hang here.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // (a bound, not a measure)
    while (!s.train.lost && std::chrono::steady_clock::now() < until)
        frame_apart(s);
    CHECK(s.train.lost);
    CHECK(!s.train.job.busy());
    CHECK(s.train.error ==
          "training stopped at step 0: a worker thread stopped answering (a browser may end one). Reload the page "
          "to train again.");
    CHECK(trainer_done(s.train));
    CHECK(!trainer_training(s.train));
    CHECK(trainer_stopped(s.train));
    CHECK(trainer_step(s.train) == 0);
    for (int i = 0; i < 3; ++i)  // later frames launch nothing and wait for nothing
        frame_apart(s);
    CHECK(!s.train.job.busy());
    REQUIRE(session_apply(s, change::set(apart_recipe(90))).accepted);  // nor does another recipe touch the run
    session_update(s);
    frame_apart(s);
    CHECK(s.train.lost);
    CHECK(!s.train.job.busy());
    threads_hold_jobs(false);  // (the thread goes on now, into memory nobody frees)
    threads_set_patience(5.0);
}

TEST_CASE("thread_choice: a repeated piece of work runs on one thread while one is faster, else on the count asked") {
    // Times as a busy machine gives them (two threads slower than one), then a quiet one's.
    thread_choice c;
    const auto run = [&c](int pieces, double many, double one) {
        int on_many = 0;
        for (int i = 0; i < pieces; ++i) {
            const int n = thread_choice_next(c, 2);
            CHECK((n == 1 || n == 2));
            on_many += n == 2;
            thread_choice_took(c, 2, n == 2 ? many : one);
        }
        return on_many;
    };
    // Busy: two threads take twice one's time; only the probes run on two.
    int on_many = run(thread_choice::cycle * 4, 2e-3, 1e-3);
    CHECK(on_many == 4 * thread_choice::probe);
    // Quiet: two threads help; all but the one-thread probes run on two, from the next cycle on.
    on_many = run(thread_choice::cycle * 4, 0.5e-3, 1e-3);
    CHECK(on_many == 4 * (thread_choice::cycle - thread_choice::probe));
    // An outlier among the probes (a page fault, a frame) does not decide: the median does.
    thread_choice d;
    for (int i = 0; i < 2 * thread_choice::probe; ++i) {
        const int n = thread_choice_next(d, 2);
        thread_choice_took(d, 2, n == 2 ? (i == 0 ? 50e-3 : 0.5e-3) : 1e-3);
    }
    CHECK(thread_choice_next(d, 2) == 2);
    // One thread asked: always one, nothing probed.
    thread_choice e;
    for (int i = 0; i < 100; ++i) {
        CHECK(thread_choice_next(e, 1) == 1);
        thread_choice_took(e, 1, 1e-3);
    }
    CHECK(e.piece == 0);
}

TEST_CASE(
    "parallel_for: a helper that stops in the middle of an item (a browser ended its worker): the caller runs that item after "
    "its patience, and every later call alone") {
    if (!threads_background())
        return;  // a build without threads: every item runs on its caller
    threads_set_patience(0.2);
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> helper_in{false}, release{false};
    std::vector<int> ran(16, 0);  // written by the caller alone: the helper's item never writes
    // Named, not a temporary: the stopped helper runs on in it after parallel_for returned (a
    // worker a browser ended never does), so it must outlive the call (ASan: stack-use-after-scope).
    const auto item = [&](int i) {
        if (std::this_thread::get_id() != caller) {
            if (!helper_in.exchange(true))
                while (!release.load())  // stopped here until the test lets it go
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return;
        }
        // The caller's first item waits for the helper to stop in one of its own.
        for (int k = 0; k < 5000 && !helper_in.load(); ++k)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ++ran[std::size_t(i)];
    };
    parallel_for(16, 2, item);
    REQUIRE(helper_in.load());
    CHECK(threads_lost());
    // Every item ran once on the caller: its own, and the one the helper stopped in.
    for (const int r : ran)
        CHECK(r == 1);
    // From now on every call runs on its caller.
    std::vector<std::thread::id> on(8);
    parallel_for(8, 2, [&on](int i) { on[std::size_t(i)] = std::this_thread::get_id(); });
    for (const std::thread::id& id : on)
        CHECK(id == caller);
    release.store(true);
    threads_mend();
    CHECK_FALSE(threads_lost());
    threads_set_patience(5.0);
    std::atomic<int> count{0};
    parallel_for(64, 2, [&count](int) { count.fetch_add(1); });
    CHECK(count.load() == 64);
}
