// The circuit study on L9's trained model (1500 steps: in the slow set): its
// claims are measure_circuit_claims's, the text's patching finds the circuit, and
// what the page waits for is measured (docs/circuits.md, "What L11 and L12 read",
// has the numbers: natively and in wasm).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "circuits/circuits.hpp"
#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"
#include "play/circuit_study.hpp"
#include "play/measure_circuit.hpp"
#include "play/measure_context.hpp"
#include "play/measure_training.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"
#include "train/task.hpp"
#include "train/trainer.hpp"

using namespace attn;

namespace {

using clock_type = std::chrono::steady_clock;

// The least of `times` runs of f, in milliseconds: what it costs on a quiet machine.
template <class F>
double least_ms(int times, F&& f) {
    double best = 1e30;
    for (int i = 0; i < times; ++i) {
        const auto start = clock_type::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
    }
    return best;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

experiment lesson(int trained) {
    experiment e = *experiment_parse(recipe_lesson_induction).value;
    e.train.trained = trained;
    return e;
}

}  // namespace

// Under ASan + UBSan L9's 1500 steps take minutes: the tiny recipes of
// test_circuit_study.cpp run the same code there.
#if defined(ATTN_SANITIZE)
constexpr bool l9_under_sanitizers = true;
#else
constexpr bool l9_under_sanitizers = false;
#endif

namespace {

// The study's claims are measure_circuit_claims's, and L9 (and the Train panel), L11
// and L12 name the same drop.
void check_claims_as_measured(trainer& t, const circuit_study& s) {
    circuit_claims want;
    measure_circuit_claims(*t.run, want);
    CHECK(s.claims.keys_shown == want.keys_shown);
    CHECK(s.claims.k_comp_shown == want.k_comp_shown);
    CHECK(s.claims.icl_shown == want.icl_shown);
    CHECK(same_bits(s.claims.k_all, want.k_all));
    CHECK(same_bits(s.claims.k_comp, want.k_comp));
    CHECK(s.claims.keys_shown);
    REQUIRE(s.patch_problem.empty());
    // One event, one number: L9 (and the Train panel), L11 and L12 name the same drop
    // (they read 331, 325 and, while training, 324 before train_find_drop).
    const formation_measure f = measure_formation(t);
    const context_claims k = measure_context(s.timeline, s.claims.step, s.snapshots_done);
    MESSAGE("the drop: L9 " << f.phase << " (plateau " << f.plateau_shown << "), L11 " << s.claims.drop_step << ", L12 "
                            << k.drop_step << ", the Train panel " << trainer_phase_step(t) << "; ICL at the end " << k.icl_now);
    CHECK(f.drop_shown);
    CHECK(f.plateau_shown);
    CHECK(f.phase == trainer_phase_step(t));
    CHECK(s.claims.drop_step == f.phase);
    CHECK(k.complete);
    CHECK(k.drop_step == f.phase);
    CHECK(k.bump_shown);
    CHECK(k.icl_shown);
}

// The induction head's OV circuit copies, trained; untrained it does not.
void check_induction_head_copies(const circuit_study& s, const std::vector<int>& text) {
    for (const circuit_head_maps& h : s.weights.heads)
        if (h.layer == s.claims.induction.layer && h.head == s.claims.induction.head)
            CHECK(circuit_copying_shown(h));
    trainer u;
    trainer_sync(u, lesson(0));
    trainer_finish(u);
    circuit_study s0;
    circuit_study_update(u, text, s0, 0);
    bool found = false;
    for (const circuit_head_maps& h : s0.weights.heads)
        if (h.layer == s0.claims.induction.layer && h.head == s0.claims.induction.head) {
            found = true;
            MESSAGE("step 0: the chosen induction head's OV top-1 " << h.ov_top1 << ", copying " << h.copying);
            CHECK_FALSE(circuit_copying_shown(h));
        }
    CHECK(found);
}

// What the page waits for, in milliseconds (each the least of its runs).
struct study_costs {
    double begin = 0, weights = 0, read = 0, patch = 0, snapshot = 0, row = 0;  // the at-once parts and the pieces alone
    double scrub = 1e30, first_piece = 1e30, new_text = 1e30;                   // as the page meets them
};

// The at-once parts, each alone, and the pieces.
void time_parts(train_run& run, const circuit_study& s, study_costs& ms) {
    circuit_timeline tl;
    circuit_weights w;
    circuit_read r;
    circuit_patching p;
    ms.begin = least_ms(3, [&] { circuits_timeline_begin(run, tl); });
    ms.weights = least_ms(3, [&] { circuits_weights(run, w); });
    ms.read =
        least_ms(3, [&] { circuits_read_tokens(run, s.clean_tokens.data(), s.clean_targets.data(), s.clean_counted.data(), r); });
    ms.patch = least_ms(3, [&] {
        circuits_patching(run, s.clean_tokens, s.clean_targets, s.clean_counted, s.corrupt_tokens, s.corrupt_targets,
                          s.corrupt_counted, p);
    });
    ms.snapshot = least_ms(3, [&] { circuits_timeline_snapshot(run, tl, tl.S - 1); });
    circuit_claims c;
    circuit_claims_begin(run, c);
    circuit_claims_over_training(s.timeline, c);
    int applies = 0;  // a row the corruption applies to (a segment of 4 or more)
    while (applies < claim_patch_rows && !circuits_patching_row(run, applies, p))
        ++applies;
    ms.row = least_ms(3, [&] { circuit_claims_patch_row(run, applies, c); });
}

// Scrubs between two snapshots' steps: the at-once part as the page meets it
// (every snapshot from the cache), the least of three each way, then the first piece
// (the text's patching); and the at-once part on a new text.
void time_scrubs(trainer& t, const std::vector<int>& text, circuit_study& s, study_costs& ms) {
    const int computed = s.snapshots_computed;
    for (int i = 0; i < 6; ++i) {
        trainer_sync(t, lesson(i % 2 ? 975 : 1000));
        trainer_finish(t);
        circuit_study_update(t, text, s, 1e-9);  // the at-once part alone
        CHECK_FALSE(s.patched);
        ms.scrub = std::min(ms.scrub, s.seconds_at_once * 1e3);
        circuit_study_update(t, text, s, 1e-9);  // the text's patching
        CHECK(s.patched);
        ms.first_piece = std::min(ms.first_piece, s.seconds_patch * 1e3);
    }
    CHECK(s.snapshots_computed == computed);
    for (int i = 0; i < 3; ++i) {
        std::vector<int> other = text;
        other[0] = task_symbol_index(i % 2 ? "h" : "i");
        circuit_study_update(t, other, s, 1e-9);
        ms.new_text = std::min(ms.new_text, s.seconds_at_once * 1e3);
    }
}

}  // namespace

TEST_CASE("circuit study on L9's model: the claims hold as measured at once, and what a frame waits for" *
          doctest::skip(l9_under_sanitizers)) {
    trainer t;
    trainer_sync(t, lesson(train_settings::trained_all));
    REQUIRE(t.run);
    trainer_finish(t);
    train_run& run = *t.run;
    std::vector<int> text;
    for (const char* s : {"j", "a", "b", "c", "d", "e", "f", "g", "c", "d", "e", "f", "g"})
        text.push_back(task_symbol_index(s));
    circuit_study s;
    circuit_study_update(t, text, s, 0);
    check_claims_as_measured(t, s);
    check_induction_head_copies(s, text);
    MESSAGE("L9 text: LD clean " << s.patching.ld_clean << ", corrupt " << s.patching.ld_corrupt << ", every layer-0 head into "
                                 << "layer 1's K " << s.patching.paths_all.k << ", Q " << s.patching.paths_all.q << ", V "
                                 << s.patching.paths_all.v);
    study_costs ms;
    time_parts(run, s, ms);
    time_scrubs(t, text, s, ms);
    MESSAGE("L9 circuit study (ms): heads + composition + layout "
            << ms.begin << ", weights' circuits " << ms.weights << ", the text's reading " << ms.read << ", its patching "
            << ms.patch << "; at once on a scrub " << ms.scrub << ", on a new text " << ms.new_text
            << "; then the text's patching " << ms.first_piece << "; one snapshot " << ms.snapshot << " (of " << s.timeline.S
            << "), one claim row " << ms.row);
}
