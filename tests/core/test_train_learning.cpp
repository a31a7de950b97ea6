// Learning, asserted on numbers: the lessons' recipes (recipe.hpp) train to the
// behaviour the lessons show. Each run takes a few seconds natively (train.cpp is
// optimised in every build type, see CMakeLists.txt).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "base/tokenize.hpp"
#include "circuits/patching.hpp"
#include "circuits/predict.hpp"
#include "circuits/timeline.hpp"
#include "kernels/kernels.hpp"
#include "model/forward.hpp"
#include "play/measure_circuit.hpp"
#include "play/measure_training.hpp"
#include "spec/experiment.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"
#include "train/trainer.hpp"
#include "train/trainer_file.hpp"

using namespace attn;

namespace {

#ifdef ATTN_TEST_RUNS_DIR
// The wasm build (under Node) keeps a lesson's own run where the browser tests take
// it (tests/web/harness.mjs, keepRun: ATTN_TEST_RUNS_DIR/<FNV-1a of the recipe>.run)
// instead of training the lesson again in a page: this build's bits, which the page
// checks as it checks any kept run (trainer_file.hpp), so one that differs fails there.
void keep_for_the_page(const char* recipe, const trainer& t) {
    const std::vector<unsigned char> bytes = trainer_save(t);
    REQUIRE_MESSAGE(!bytes.empty(), trainer_save_problem(t));
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.run", static_cast<unsigned long long>(hash_bytes(recipe)));
    const std::filesystem::path dir = ATTN_TEST_RUNS_DIR, file = dir / name;
    // Written aside and renamed: CTest's parts train it side by side, and a reader never sees half a file.
    const std::filesystem::path aside = file.string() + "." + std::to_string(std::random_device{}());
    std::filesystem::create_directories(dir);
    std::ofstream(aside, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::filesystem::rename(aside, file);
}
#endif

// Trained as the page trains it: through the trainer, which keeps the measures
// of every snapshot that lessons L9 and L10 read (measure_training.hpp). Each
// experiment is trained once a process, on each kernel set, and copied for every
// case that asks (a case changes its copy): the same bits as training it again.
trainer trained(const char* recipe, std::uint32_t seed = 0) {
    const auto parsed = experiment_parse(recipe);
    REQUIRE(parsed.value);
    experiment e = *parsed.value;
    if (seed)
        e.seed = seed;  // other initial weights, the same batches
    static std::map<std::string, trainer> done;
    const std::string key = std::string(kernel_arch_name()) + " " + experiment_to_text(e);
    if (const auto it = done.find(key); it != done.end())
        return it->second;
    trainer t;
    trainer_sync(t, e);
    REQUIRE(t.run);
    trainer_finish(t);
    REQUIRE(t.error.empty());
#ifdef ATTN_TEST_RUNS_DIR
    if (experiment_to_text(e) == experiment_to_text(*parsed.value))
        keep_for_the_page(recipe, t);
#endif
    return done.emplace(key, t).first->second;
}

// L9's claims on the lesson's own model: a plateau, then a drop at which the
// induction head's score jumps; it reads through layer 0's previous-token head.
void check_formation(const trainer& t, const head_report& prev, const head_report& induction) {
    const formation_measure f = measure_formation(t);
    MESSAGE("phase change at step " << f.phase << ": loss " << f.loss_before << " -> " << f.loss_after << "; induction score "
                                    << f.induction_before << " (step " << f.before_step << ") -> " << f.induction_after
                                    << " (step " << f.after_step << ")");
    CHECK(f.phase >= 100);
    CHECK(f.phase <= 1000);
    CHECK(f.loss_after < 0.6f * f.loss_before);
    CHECK(f.induction.layer == induction.layer);
    CHECK(f.induction.head == induction.head);
    CHECK(f.induction_before < 0.3f);
    CHECK(f.induction_after > 0.6f);
    CHECK(f.previous.head == prev.head);
    CHECK(f.previous_score >= 0.5f);
    REQUIRE(f.other.valid());
    CHECK(f.other.head != induction.head);
    // Everything L9 claims holds for the model at its last step, and the loss it
    // words runs from the plateau's level to where the model ends, not across the
    // drop's window alone (which read 1.68 → 0.58 for a fall from ≈ 2.6 to ≈ 0.002).
    MESSAGE("plateau " << f.plateau_loss << ", loss at step " << f.step << " " << f.loss_now);
    CHECK(f.step == t.run->e.train.steps);
    CHECK(f.induction_task);
    CHECK(f.drop_shown);
    CHECK(f.plateau_shown);  // a plateau before the drop (train_find_drop's rule): the lesson's curve has one
    CHECK(f.induction_shown);
    CHECK(f.jump_shown);
    CHECK(f.previous_shown);
    CHECK(f.plateau_loss > f.loss_before);
    CHECK(f.loss_now < 0.1f * f.plateau_loss);
    CHECK(f.loss_now < f.loss_after);
}

// The circuit claims L11 makes (docs/circuits.md), on the model trained from weight
// seed `seed`: the card's measure (play/measure_circuit.hpp) shows every claim (the
// previous-token -> induction K-composition ends well above its random baseline and
// rises within a few snapshots of the loss's drop; path patching every layer-0 head
// into the layer-1 heads' K input brings most of the clean logit difference back, Q
// and V almost none; the in-context-learning score is near 0 before the drop and
// clearly negative after). Checked here besides, from the timeline and the rows it
// read: K stays near its baseline before the drop and ICL negative and K above it
// from two snapshots after the drop on, and no row's recovery through K is small.
[[maybe_unused]] void check_circuit_claims(train_run& r, std::uint32_t seed) {
    circuit_claims c;
    measure_circuit_claims(r, c);
    REQUIRE(c.applies);
    const circuit_timeline& tl = c.timeline;
    REQUIRE(tl.S >= 2);
    CHECK(c.step == r.e.train.steps);
    CHECK(c.previous.layer == 0);
    CHECK(c.induction.layer == 1);
    CHECK(c.k_comp == tl.prev_ind_k.back());
    const float base = c.base, spread = c.spread;
    REQUIRE(c.drop_step > 0);
    REQUIRE(c.rise_step >= 0);
    const int drop = circuits_timeline_drop_snapshot(tl);
    REQUIRE(drop >= 0);
    float before_k = 0, after_icl = -1e30f, after_k = 1e30f;
    for (int i = 0; i < tl.S; ++i) {
        const float k = tl.prev_ind_k[std::size_t(i)];
        if (tl.loss[std::size_t(i)] > 0.75f * tl.loss[0])
            before_k = std::max(before_k, k);
        if (i >= drop + 2) {
            after_icl = std::max(after_icl, tl.icl[std::size_t(i)]);
            after_k = std::min(after_k, k);
        }
    }
    MESSAGE("seed " << seed << " (" << std::string(kernel_arch_name()) << "): L0H" << c.previous.head << " > L1H"
                    << c.induction.head << ", drop at step " << c.drop_step << ", K-composition above base + 5 spread at step "
                    << c.rise_step << "; before the drop |ICL| <= " << c.icl_before << ", K <= " << before_k
                    << "; from 2 snapshots after, ICL <= " << after_icl << ", K >= " << after_k << ", at the end " << c.k_comp
                    << " (baseline " << base << " +- " << spread << "); ICL at the end " << c.icl_now);
    // The least recovery through K over the rows the measure patched (it keeps their mean).
    circuit_patching p;
    double k_min = 1e30;
    int rows = 0;
    for (int row = 0; row < claim_patch_rows; ++row)
        if (circuits_patching_row(r, row, p)) {
            k_min = std::min(k_min, double(p.paths_all.k));
            ++rows;
        }
    MESSAGE("  path patching over " << c.rows << " rows: every layer-0 head into layer 1's K mean/min " << c.k_all << " / "
                                    << k_min << ", Q " << c.q_all << ", V " << c.v_all << "; the pair's K " << c.k_pair
                                    << "; LD span " << c.span);
    // Measured on seeds 1-3, natively with avx512f, avx2 and sse2 (the drop at steps
    // 275-350): before the drop |ICL| <= 0.17 and K <= 0.167 (baseline 0.144 +- 0.011);
    // from two snapshots after it ICL <= -3.3 and K >= 0.195, 0.31-0.35 at the end; the
    // K-composition passes base + 5 spread 0-2 snapshots before the drop. Every
    // layer-0 head into layer 1's K input recovers 0.98-1.04 on average (0.71 at
    // least), Q and V under 0.04; the named pair alone 0.52-1.01 (seeds 2 and 3 grow
    // a second previous-token head that shares the work).
    CHECK(c.k_comp_shown);  // K > base + 10 spread at the end
    CHECK(c.rise_shown);    // the rise within 3 snapshots of the drop
    CHECK(c.icl_shown);     // |ICL| < 0.5 before the drop, < -2 at the end
    CHECK(c.keys_shown);    // mean recovery through K >= 0.8, |Q|, |V| <= 0.1
    CHECK(before_k < base + 4 * spread);
    CHECK(after_icl < -2.0f);
    CHECK(after_k > base + 3 * spread);
    CHECK(c.rows >= 20);
    CHECK(rows == c.rows);
    CHECK(k_min > 0.5);
    CHECK(c.k_pair > 0.3f);
}

// The induction lesson's claims on the model trained from weight seed `seed`.
void check_induction_lesson(std::uint32_t seed) {
    trainer t = trained(recipe_lesson_induction, seed);
    train_run& r = *t.run;
    const train_diagnostics diag = train_diagnose(r);
    MESSAGE("induction lesson, seed " << seed << ": held-out accuracy " << diag.base.acc << ", loss " << diag.base.loss
                                      << ", weights " << train_weights_hash(r));
    CHECK(diag.base.acc >= 0.9f);
    const head_report* prev = nullptr;
    const head_report* induction = nullptr;
    for (const auto& h : diag.heads) {
        MESSAGE("layer " << h.layer << " head " << h.head << ": prev " << h.prev << ", induction " << h.induction
                         << ", zeroed acc " << h.ablate_acc << ", mean acc " << h.mean_acc);
        if (h.layer == 0 && (!prev || h.prev > prev->prev))
            prev = &h;
        if (h.layer == 1 && (!induction || h.induction > induction->induction))
            induction = &h;
    }
    REQUIRE(prev);
    REQUIRE(induction);
    CHECK(induction->induction >= 0.5f);
    CHECK(prev->prev >= 0.5f);
    // Zeroing layer 0's previous-token heads breaks the circuit. The lesson's own
    // model has one; from other weight seeds two heads sometimes share the work,
    // depending on the last bits of the products (seed 2 does with the avx2 kernel
    // set, where zeroing either one alone leaves 0.40 or 0.90; not with avx512f,
    // sse2 or in wasm), so all of them are zeroed together.
    std::vector<ablated_head> prev_heads;
    for (const auto& h : diag.heads)
        if (h.layer == 0 && h.prev >= 0.5f)
            prev_heads.push_back({h.layer, h.head});
    CHECK(trainer_task_with_ablated(t, prev_heads).acc < 0.3f);
    if (seed == 1) {  // the lesson's own model has one induction head; other seeds grow several that share the work
        CHECK(prev_heads.size() == 1);
        CHECK(prev->ablate_acc < 0.3f);
        // Zeroed, the induction head leaves 0.31 with the avx2 set (from 0.99; chance
        // is 0.1): broken by task_broken's rule, which 0.35 still is.
        CHECK(induction->ablate_acc < 0.35f);
        check_formation(t, *prev, *induction);
        const head_ref other = measure_formation(t).other;
        CHECK(diag.heads[std::size_t(other.layer * r.h + other.head)].ablate_acc > 0.9f);  // another head barely matters
    }

    // The trained model is an ordinary experiment: traced on the recipe's own text,
    // the layer-1 induction head looks from the repeated "c" (position 8) to the
    // "d" after the first "c" (position 4).
    const std::vector<std::string> tokens = tokenize(experiment_parse(recipe_lesson_induction).value->text);
    const auto w = train_weights_for(r, tokens);
    REQUIRE(w);
    const trace tr = forward_with(r.e, tokens, *w);
    const matrix& att = tr.layers[1].heads[std::size_t(induction->head)].weights;
    CHECK(tokens[8] == "c");
    CHECK(att(8, 4) >= 0.5f);
    if (seed == 1) {
        // The figures docs/using.md and the README word as "about": the held-out
        // accuracy with each head zeroed (the page's buttons), and the Output stage's
        // answer after the repeated "c" with the previous-token head zeroed.
        const train_eval_result zero_prev = trainer_task_with_ablated(t, {{0, prev->head}});
        const train_eval_result zero_ind = trainer_task_with_ablated(t, {{induction->layer, induction->head}});
        experiment zeroed = r.e;
        zeroed.ablate = {{0, prev->head}};
        circuit_prediction clean, cut;
        REQUIRE(circuits_predict(r, tr, clean));
        REQUIRE(circuits_predict(r, forward_with(zeroed, tokens, *w), cut));
        MESSAGE("L9 (" << std::string(kernel_arch_name()) << "): held-out accuracy " << diag.base.acc << ", previous-token head "
                       << "zeroed " << zero_prev.acc << ", induction head zeroed " << zero_ind.acc << "; after the repeated c: "
                       << clean.target_prob[8] << " -> " << cut.target_prob[8] << " (rank " << cut.target_rank[8] + 1 << ")");
        CHECK(zero_prev.acc < 0.3f);  // "about a tenth" (chance 1/16)
        CHECK(zero_ind.acc < 0.35f);
        CHECK(clean.target_prob[8] > 0.99f);
        CHECK(cut.target_prob[8] < 0.1f);  // "a few percent, out of first place"
        CHECK(cut.target_rank[8] > 0);
    }
#if !defined(ATTN_SANITIZE)  // the circuits code runs under the sanitizers on tiny recipes (test_circuits.cpp)
    check_circuit_claims(r, seed);
#endif
}

}  // namespace

// Every weight seed 1–3 meets the lesson's claims and L11's circuit claims,
// natively on the best kernel set here (the next case runs the others) and in wasm. Under ASan + UBSan (slow) seed 1 alone, and
// the claims' other whole runs (scrubbed, other tasks) are left to the native and wasm builds: they run the same trainer code on
// the same shapes as seed 1 does there.
#if defined(ATTN_SANITIZE)
constexpr std::uint32_t lesson_seeds[] = {1};
constexpr bool slow_under_sanitizers = true;
#else
constexpr std::uint32_t lesson_seeds[] = {1, 2, 3};
constexpr bool slow_under_sanitizers = false;
#endif

TEST_CASE("the induction lesson learns an induction circuit: a previous-token head feeding an induction head") {
    for (std::uint32_t seed : lesson_seeds)
        check_induction_lesson(seed);
}

namespace {

// The same claims on the kernel set at `index` (kernels.hpp: best first), when this
// build and CPU have one: one test case per set, so CTest runs them side by side.
// On the lesson's own weight seed: the sets differ in the last bits of their
// products (FMA or not), so each trains its own model, and the lesson's is the one
// the page shows; seeds 2 and 3 (the claims' robustness to the initial weights)
// are trained on the best set and in wasm.
void check_induction_lesson_on_kernel_set(int index) {
    if (index >= kernel_arch_count()) {
        MESSAGE("no kernel set " << index << " here (" << kernel_arch_count() << " in all)");
        return;
    }
    struct restore {  // the best set again after the case, even when a REQUIRE ends it early
        std::string best = kernel_arch_name();
        ~restore() { kernel_use_arch(best.c_str()); }
    } restore_best;
    REQUIRE(kernel_use_arch(kernel_arch_at(index)));
    check_induction_lesson(1);
}

}  // namespace

TEST_CASE("on every other kernel set: the second best, the induction lesson's claims and its circuit hold" *
          doctest::skip(slow_under_sanitizers)) {
    check_induction_lesson_on_kernel_set(1);
}

TEST_CASE("on every other kernel set: the third best, the induction lesson's claims and its circuit hold" *
          doctest::skip(slow_under_sanitizers)) {
    check_induction_lesson_on_kernel_set(2);
}

TEST_CASE("the copy_offset lesson is solved by the positional shortcut, with no induction head") {
    {
        // Untrained, L10 claims nothing: its accuracies sit at chance on both tasks
        // (the card said "accuracy 6 % (chance ≈ 6 %)" on the induction task as its finding).
        experiment e = *experiment_parse(recipe_lesson_copy_offset).value;
        e.train.trained = 0;
        trainer u;
        trainer_sync(u, e);
        trainer_finish(u);
        const shortcut_measure m0 = measure_shortcut(u);
        CHECK(m0.step == 0);
        CHECK_FALSE(m0.solved);
        CHECK_FALSE(m0.shortcut_shown);
        CHECK_FALSE(m0.fails_induction_shown);
    }
    trainer t = trained(recipe_lesson_copy_offset);
    train_run& r = *t.run;
    const train_diagnostics diag = train_diagnose(r);
    MESSAGE("copy_offset lesson: held-out accuracy " << diag.base.acc);
    CHECK(diag.base.acc >= 0.9f);
    float best_offset = 0.0f;
    for (const auto& h : diag.heads) {
        MESSAGE("layer " << h.layer << " head " << h.head << ": offset " << h.offset << ", induction " << h.induction);
        CHECK(h.induction <= 0.2f);
        best_offset = std::max(best_offset, h.offset);
    }
    CHECK(best_offset >= 0.5f);
    // L10: the shortcut, tested off its distribution, fails the induction task.
    const shortcut_measure m = measure_shortcut(t);
    MESSAGE("copy_offset model on the induction task: accuracy " << m.on_induction.acc);
    CHECK(!m.positional.empty());
    REQUIRE(m.best.valid());  // the head L10's map shows: the highest offset score, a positional one
    CHECK(t.now.heads[std::size_t(m.best.layer * r.h + m.best.head)].offset_mean() == m.max_offset);
    CHECK(std::find(m.positional.begin(), m.positional.end(), m.best) != m.positional.end());
    CHECK(m.max_induction <= 0.2f);
    CHECK(m.on_induction.acc < 0.3f);
    CHECK(m.solved);  // trained, L10's claims hold
    CHECK(m.shortcut_shown);
    CHECK(m.fails_induction_shown);
}

TEST_CASE("L9's claims while it trains: the heads' scores are the latest snapshot's, and the claim names that step") {
    trainer t;
    trainer_sync(t, *experiment_parse(recipe_lesson_induction).value);
    REQUIRE(t.run);
    const int every = t.run->snapshot_every;
    for (int i = 0; i < 100000 && (trainer_step(t) <= every || trainer_step(t) % every == 0); ++i)
        trainer_advance(t, 1e-4);  // past the first snapshot, between two
    const formation_measure f = measure_formation(t);
    REQUIRE_FALSE(t.marks.empty());
    CHECK(f.step == trainer_step(t));
    CHECK(f.scores_step == t.marks.back().step);  // the dots of the curve; the step has none of its own yet
    CHECK(f.scores_step < f.step);
    CHECK(f.scores_step % every == 0);
}

TEST_CASE("L9's claims follow the model's step: scrubbed back before the drop, it has no induction head yet" *
          doctest::skip(slow_under_sanitizers)) {
    trainer t = trained(recipe_lesson_induction);
    const formation_measure done = measure_formation(t);
    REQUIRE(done.induction_shown);
    REQUIRE(done.phase > 275);
    experiment e = *experiment_parse(recipe_lesson_induction).value;
    e.train.trained = 275;  // the scrubber's snapshot before the drop
    trainer_sync(t, e);
    trainer_finish(t);
    const formation_measure f = measure_formation(t);
    MESSAGE("at step " << f.step << ": induction score " << f.induction_score << ", previous " << f.previous_score);
    CHECK(f.step == 275);
    CHECK(f.phase == done.phase);  // the curve is kept whole when going back
    CHECK_FALSE(f.drop_shown);
    CHECK_FALSE(f.induction_shown);
    CHECK_FALSE(f.jump_shown);
    CHECK_FALSE(f.previous_shown);  // "it reads through" needs an induction head to read
    CHECK(f.induction_score < claim_induction_score);
    // Nor L11's: the K-composition near its baseline, the ICL score not yet negative,
    // and patching finds no circuit to restore.
    circuit_claims c;
    measure_circuit_claims(*t.run, c);
    MESSAGE("L11 at step " << c.step << ": K " << c.k_comp << " (base " << c.base << " +- " << c.spread << "), ICL " << c.icl_now
                           << ", patching span " << c.span << ", K " << c.k_all << ", Q " << c.q_all << ", V " << c.v_all
                           << " over " << c.rows << " rows; drop at " << c.drop_step << ", rise at " << c.rise_step);
    CHECK(c.applies);
    CHECK(c.step == 275);
    CHECK_FALSE(c.k_comp_shown);
    CHECK_FALSE(c.icl_shown);
    CHECK_FALSE(c.keys_shown);
    CHECK_FALSE(c.rise_shown);  // the drop lies after the step
    CHECK(c.drop_step == -1);
}

TEST_CASE("a model of another task makes no induction claims; its heads get that task's reading" *
          doctest::skip(slow_under_sanitizers)) {
    experiment e = *experiment_parse(recipe_lesson_induction).value;
    e.train.task = train_task::reverse;
    trainer t;
    trainer_sync(t, e);
    REQUIRE(t.run);
    trainer_finish(t);
    const formation_measure f = measure_formation(t);
    circuit_claims l11;
    measure_circuit_claims(*t.run, l11);
    CHECK_FALSE(l11.applies);  // nor L11's
    CHECK_FALSE(l11.keys_shown);
    CHECK_FALSE(f.induction_task);
    CHECK_FALSE(f.induction_shown);
    CHECK_FALSE(f.jump_shown);
    CHECK_FALSE(f.previous_shown);
    const task_reading r = measure_task_reading(t);
    MESSAGE("reverse: held-out accuracy " << t.now.held_out.acc << ", anti-diagonal score " << r.score << " (layer "
                                          << r.head.layer << " head " << r.head.head << ")");
    CHECK(r.task == train_task::reverse);
    CHECK(r.kind == head_reading::anti_diagonal);
    REQUIRE(r.head.valid());
    CHECK(r.score >= 0.0f);
    CHECK(r.score <= 1.0f);
    CHECK(r.shown == (r.score >= claim_reading_score));

    trainer c = trained(recipe_lesson_copy_offset);
    const task_reading o = measure_task_reading(c);
    MESSAGE("copy_offset: offset score " << o.score);
    CHECK(o.kind == head_reading::offset);
    CHECK(o.offset == c.run->e.train.offset);
    CHECK(o.shown);
    CHECK_FALSE(measure_formation(c).induction_shown);

    // A short run's first fall from the initial loss is no plateau and drop.
    experiment shortrun = e;
    shortrun.train.steps = 14;
    trainer s;
    trainer_sync(s, shortrun);
    trainer_finish(s);
    CHECK_FALSE(measure_formation(s).drop_shown);

    trainer none = trained(recipe_lesson_induction);
    CHECK(measure_task_reading(none).kind == head_reading::none);  // the induction task has L9's claims instead
}

TEST_CASE("task_broken: zeroing broke the task when the accuracy lost half its gain over chance") {
    const float chance = 0.1f;
    CHECK(task_broken({0.0f, 1.0f}, {0.0f, 0.14f}, chance));
    CHECK(task_broken({0.0f, 1.0f}, {0.0f, 0.55f}, chance));
    CHECK_FALSE(task_broken({0.0f, 1.0f}, {0.0f, 0.56f}, chance));
    CHECK_FALSE(task_broken({0.0f, 1.0f}, {0.0f, 1.0f}, chance));
    CHECK_FALSE(task_broken({0.0f, 0.3f}, {0.0f, 0.1f}, chance));  // an untrained model has nothing to break
}

// The induction lesson's weights before training and, in wasm, after 20 steps,
// recorded. The initial weights are seeded draws alone, the same bits in every
// build; after training steps, every wasm engine runs the same instructions
// (simd128, no relaxed ops), so Chromium computes the same hash in the page as
// Node here (tests/web/train.test.mjs reads both from this file). A change to
// the initial draws or to the training numerics changes them. They changed once
// when a batch's gradients came to be summed in fixed row groups (train.hpp's
// train_groups) so that any thread count gives the same bits.
constexpr const char* recorded_hash_step0 = "1aa79f3951829894";
[[maybe_unused]] constexpr const char* recorded_hash_step20 = "e7029b4ce1579506";
// After 120 steps (these two are checked in wasm only): the page trains the lesson's link with trained=120 to this
// hash (tests/web/train.test.mjs), through the Train panel's trainer.
[[maybe_unused]] constexpr const char* recorded_hash_step120 = "c0f65bbc7e852427";

// On one thread and on three (the same bits: train.hpp; the threaded wasm build,
// preset web-threads, runs these on real threads).
static std::string lesson_hash_after(int steps) {
    const auto parsed = experiment_parse(recipe_lesson_induction);
    REQUIRE(parsed.value);
    experiment e = *parsed.value;
    e.train.steps = steps;
    std::string hash;
    for (int threads : {1, 3}) {
        auto init = train_init(e);
        REQUIRE(init.run);
        init.run->threads = threads;
        train_run_all(*init.run);
        if (threads > 1)
            CHECK(train_weights_hash(*init.run) == hash);
        hash = train_weights_hash(*init.run);
    }
    return hash;
}

TEST_CASE("the induction lesson's initial weights have the recorded hash in every build") {
    CHECK(lesson_hash_after(0) == recorded_hash_step0);
}

#ifdef __EMSCRIPTEN__
TEST_CASE("wasm: the weights after 20 steps of the induction lesson have the recorded hash") {
    const std::string hash = lesson_hash_after(20);
    MESSAGE("wasm weights hash after 20 steps: " << hash);
    CHECK(hash == recorded_hash_step20);
}

TEST_CASE("wasm: the weights after 120 steps of the induction lesson have the recorded hash") {
    const std::string hash = lesson_hash_after(120);
    MESSAGE("wasm weights hash after 120 steps: " << hash);
    CHECK(hash == recorded_hash_step120);
}
#endif

// Issue 49, item 2: in trained L9, scrubbed back to ~100 and forward to 1425, the
// run trained again from the snapshot (57 s in a page) although it had kept 1425.
TEST_CASE("L9 scrubbed back and forward again trains nothing, and keeps dense snapshots around its drop" *
          doctest::skip(slow_under_sanitizers)) {
    trainer t = trained(recipe_lesson_induction);
    const int phase = trainer_phase_step(t), every = t.run->snapshot_every;
    const trainer_kept_summary k = trainer_kept_spacing(t);
    std::string dense;
    for (int i = 0; i < t.run->dense_taken; ++i)
        dense += " " + std::to_string(t.run->dense[std::size_t(i)].step);
    MESSAGE("grid every " << k.every << " steps to " << k.reach << "; " << k.dense << " dense snapshots (steps " << k.dense_first
                          << "-" << k.dense_last << "):" << dense << "; the phase change at step " << phase);
    REQUIRE(phase > 0);
    int near_drop = 0;  // within two grid spacings of the phase change
    for (int i = 0; i < t.run->dense_taken; ++i)
        near_drop += std::abs(t.run->dense[std::size_t(i)].step - phase) <= 2 * every;
    CHECK(near_drop >= 3);

    experiment e = *experiment_parse(recipe_lesson_induction).value;
    e.train.trained = 100;
    trainer_sync(t, e);
    trainer_finish(t);
    REQUIRE(trainer_step(t) == 100);
    e.train.trained = 1425;
    trainer_sync(t, e);
    trainer_advance(t, 1e9, 1, false);  // no step may be taken
    CHECK(trainer_step(t) == 1425);
    CHECK(trainer_done(t));
    CHECK(t.curve.size() == 1500);  // the curve stays whole
    train_init_result straight = train_init(e);
    REQUIRE(straight.run);
    for (int s = 0; s < 1425; ++s)
        REQUIRE(train_step(*straight.run));
    CHECK(train_weights_hash(*t.run) == train_weights_hash(*straight.run));
}
