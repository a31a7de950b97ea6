// The training workloads of workloads.hpp (T1, T2) on the core's trainer.
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "circuits/circuits.hpp"
#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"
#include "train/train.hpp"
#include "train/trainer.hpp"
#include "workloads.hpp"

namespace {

struct train_workload {
    const char* name;
    std::string recipe;
    std::optional<attn::train_run> run;
    int taken = 0;
};

// steps=20000 (the most a recipe may ask): the runs never end while timed.
std::string long_run(std::string recipe) {
    const auto at = recipe.find("steps=1500");
    return recipe.replace(at, 10, "steps=20000");
}

std::vector<train_workload>& train_workloads() {
    static std::vector<train_workload> all = [] {
        const std::string lesson = attn::recipe_lesson_induction;
        std::string larger = lesson;
        larger.replace(larger.find("d_model=48"), 10, "d_model=96");
        larger.replace(larger.find("block=attn_res"), 14, "block=full");
        larger += "&seq=48";
        std::vector<train_workload> w;
        w.push_back({"T1 train step, L9 lesson (d_model 48, seq 24, attn_res)", long_run(lesson), std::nullopt, 0});
        w.push_back({"T2 train step, d_model 96, seq 48, block=full", long_run(larger), std::nullopt, 0});
        return w;
    }();
    return all;
}

}  // namespace

extern "C" {

int bench_train_count() { return int(train_workloads().size()); }
const char* bench_train_name(int id) { return train_workloads()[std::size_t(id)].name; }
const char* bench_train_recipe(int id) { return train_workloads()[std::size_t(id)].recipe.c_str(); }

void bench_train_prepare(int id) {
    auto& w = train_workloads()[std::size_t(id)];
    if (w.run)
        return;
    const auto parsed = attn::experiment_parse(w.recipe);
    auto init = attn::train_init(*parsed.value);
    w.run = std::move(init.run);
    w.taken = 0;
}

double bench_train_run(int id, int reps, int threads) {
    auto& w = train_workloads()[std::size_t(id)];
    bench_train_prepare(id);
    w.run->threads = threads;  // the same bits for any count: one run serves every thread count
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
        if (!attn::train_step(*w.run))
            attn::train_restore(*w.run, 0);
        ++w.taken;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}

float bench_train_loss(int id, int step) {
    const auto& w = train_workloads()[std::size_t(id)];
    if (!w.run || step < 0 || std::size_t(step) >= w.run->curve.size())
        return NAN;
    return w.run->curve[std::size_t(step)].loss;
}

int bench_train_steps(int id) { return train_workloads()[std::size_t(id)].taken; }

double bench_train_learn(int* step) {
    const auto parsed = attn::experiment_parse(attn::recipe_lesson_induction);
    attn::trainer t;
    const auto t0 = std::chrono::steady_clock::now();
    attn::trainer_sync(t, *parsed.value);
    *step = -1;
    while (!attn::trainer_done(t)) {
        attn::trainer_advance(t, 0.005);  // the page's loop, less the drawing: slices, then the measures
        if (!t.marks.empty() && t.marks.back().held_out.acc >= 0.9f) {
            *step = t.marks.back().step;
            break;
        }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}

// --- C1, C2: reading the circuit of a trained model (issue 31's speed targets) ------

namespace {

// The L9 recipe trained to its last step once, kept for every timing after it.
attn::train_run& circuits_model() {
    static std::optional<attn::train_run> run = [] {
        const auto parsed = attn::experiment_parse(attn::recipe_lesson_induction);
        auto init = attn::train_init(*parsed.value);
        attn::train_run_named(*init.run);
        return std::move(init.run);
    }();
    return *run;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

extern "C" {

// out[0]: items 1-6 and 8 for one row of the trained L9 model (the row read, the
// composition with its baseline kept, the weight-only circuits, the patching against
// the row's corruption), seconds per read after a first one; out[1]: the timeline
// over every kept snapshot and all 128 held-out rows; out[2]: over 32 rows; out[3]:
// the first read, baseline drawn (seconds). Held-out row 1 (rows 0 and 3 are too
// short to corrupt).
void bench_circuits(double* out, int reps) {
    attn::train_run& run = circuits_model();
    static attn::circuit_read read;
    static attn::circuit_composition composition;
    static attn::circuit_weights weights;
    static attn::circuit_patching patching;
    static attn::circuit_timeline timeline;
    auto once = [&] {
        attn::circuits_read_row(run, 1, read);
        attn::circuits_composition(run, composition);
        attn::circuits_weights(run, weights);
        attn::circuits_patching_row(run, 1, patching);
    };
    auto t0 = std::chrono::steady_clock::now();
    once();
    out[3] = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r)
        once();
    out[0] = seconds_since(t0) / reps;
    t0 = std::chrono::steady_clock::now();
    attn::circuits_timeline(run, timeline);
    out[1] = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    attn::circuits_timeline(run, timeline, 32);
    out[2] = seconds_since(t0);
}
}
