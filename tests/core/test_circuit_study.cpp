// L11's and L12's study of the page's model (play/circuit_study.hpp) on tiny
// recipes: sliced it gives the one-shot timeline and claims bit for bit, a scrub
// back and forth measures no snapshot again, the text's corruption is the one
// documented, a cell's patch is the sweep's, and bad input gives a sentence.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "circuits/timeline.hpp"
#include "play/circuit_study.hpp"
#include "play/measure_circuit.hpp"
#include "play/measure_context.hpp"
#include "spec/experiment.hpp"
#include "test_util.hpp"
#include "train/task.hpp"
#include "train/trainer.hpp"

using namespace attn;

namespace {

// Symbols of a text of task symbol names ("j a b c").
std::vector<int> symbols(const std::string& text) {
    std::vector<int> out;
    for (std::size_t i = 0; i < text.size(); i += 2)
        out.push_back(task_symbol_index(text.substr(i, 1)));
    return out;
}

// A two-layer induction recipe of rows of 16 tokens, trained through a trainer to `trained`.
experiment tiny(train_task task = train_task::induction, int steps = 24) {
    experiment e = test::tiny_recipe(task, block_kind::attention_residual, steps, "j a b c");
    e.train.seq = 16;
    e.train.vocab = 12;
    return e;
}

void train_to(trainer& t, experiment e, int trained) {
    e.train.trained = trained;
    trainer_sync(t, e);
    REQUIRE(t.run);
    trainer_finish(t);
    REQUIRE(trainer_done(t));
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The study's timeline is circuits_timeline's at the run's step, bit for bit.
void check_timeline(train_run& run, const circuit_timeline& got) {
    circuit_timeline want;
    circuits_timeline(run, want);
    CHECK(got.S == want.S);
    CHECK(got.steps == want.steps);
    CHECK(got.prev_layer == want.prev_layer);
    CHECK(got.prev_head == want.prev_head);
    CHECK(got.ind_layer == want.ind_layer);
    CHECK(got.ind_head == want.ind_head);
    CHECK(same_bits(got.base_k.mean, want.base_k.mean));
    for (auto m : {&circuit_timeline::q, &circuit_timeline::k, &circuit_timeline::v, &circuit_timeline::prev_ind_k,
                   &circuit_timeline::loss, &circuit_timeline::pos_loss, &circuit_timeline::pos_loss_all, &circuit_timeline::icl,
                   &circuit_timeline::first_loss, &circuit_timeline::kl_uniform, &circuit_timeline::kl_unigram,
                   &circuit_timeline::kl_bigram})
        CHECK(same_bits(got.*m, want.*m));
}

// The study's claims are measure_circuit_claims's, field for field.
void check_claims(train_run& run, const circuit_claims& got) {
    circuit_claims want;
    measure_circuit_claims(run, want);
    CHECK(got.step == want.step);
    CHECK(got.applies == want.applies);
    CHECK(got.previous == want.previous);
    CHECK(got.induction == want.induction);
    for (auto m : {&circuit_claims::k_comp, &circuit_claims::base, &circuit_claims::spread, &circuit_claims::icl_before,
                   &circuit_claims::icl_now, &circuit_claims::span, &circuit_claims::k_all, &circuit_claims::q_all,
                   &circuit_claims::v_all, &circuit_claims::k_pair})
        CHECK(same_bits(got.*m, want.*m));
    CHECK(got.drop_step == want.drop_step);
    CHECK(got.rise_step == want.rise_step);
    CHECK(got.rows == want.rows);
    CHECK(got.k_comp_shown == want.k_comp_shown);
    CHECK(got.rise_shown == want.rise_shown);
    CHECK(got.keys_shown == want.keys_shown);
    CHECK(got.icl_shown == want.icl_shown);
}

const char* const lesson_text = "j a b c d e f g c d e f g";

}  // namespace

TEST_CASE("circuit_corrupt_text: the longest segment seen twice, its 1st and 3rd symbols swapped") {
    circuit_text_corruption c = circuit_corrupt_text(symbols(lesson_text));
    REQUIRE(c.found);
    CHECK(c.problem.empty());
    CHECK(c.first == 3);  // "c d e f g"
    CHECK(c.repeat == 8);
    CHECK(c.len == 5);
    CHECK(c.k == 3);
    CHECK(c.m == 5);
    // The 1st and 3rd are equal ("a b a c d"): the next pair, b and c.
    c = circuit_corrupt_text(symbols("a b a c d z a b a c d"));
    REQUIRE(c.found);
    CHECK(c.first == 0);
    CHECK(c.repeat == 6);
    CHECK(c.k == 1);
    CHECK(c.m == 3);
    // Overlapping occurrences do not count; nor segments of 3.
    for (const char* none : {"a b c a b c", "a a a a a a a a a a", "a b", ""}) {
        c = circuit_corrupt_text(symbols(none));
        CHECK_FALSE(c.found);
        CHECK_FALSE(c.problem.empty());
    }
}

TEST_CASE("circuit study: in slices the timeline and the claims are the one-shot measures, bit for bit") {
    trainer t;
    train_to(t, tiny(), train_settings::trained_all);
    const std::vector<int> text = symbols(lesson_text);
    circuit_study whole;
    CHECK(circuit_study_update(t, text, whole, 0));
    CHECK(whole.timeline_done());
    CHECK(whole.claims_done());
    CHECK(whole.snapshots_computed == whole.timeline.S);
    circuit_study sliced;
    int calls = 0;
    while (!(sliced.timeline_done() && sliced.claims_done() && calls > 0)) {
        circuit_study_update(t, text, sliced, 1e-9);  // a piece per call
        REQUIRE(++calls < 1000);
    }
    // The at-once part, then a piece a call: the text's patching, each snapshot, each row.
    CHECK(calls == 2 + sliced.timeline.S + claim_patch_rows);
    const std::uint64_t version = sliced.version;
    CHECK(version >= std::uint64_t(calls));                 // every call changed something
    CHECK_FALSE(circuit_study_update(t, text, sliced, 0));  // nothing changed: nothing to do
    CHECK(sliced.version == version);
    for (const circuit_study* s : {&whole, &sliced}) {
        CHECK(s->step == t.run->step);
        CHECK(s->run_key == trainer_store_key(t.key));
        check_timeline(*t.run, s->timeline);
        check_claims(*t.run, s->claims);
        CHECK(s->claims.applies);
    }
    CHECK(whole.weights.heads.size() == std::size_t(t.run->L * t.run->h));
    CHECK(whole.composition.pairs.size() == whole.timeline.pairs.size());
}

TEST_CASE("circuit study: a scrub back and forth measures no snapshot again") {
    const experiment e = tiny(train_task::induction, 120);  // a snapshot every 2 steps
    trainer t;
    train_to(t, e, train_settings::trained_all);
    REQUIRE(t.run->snapshot_every > 1);
    const std::vector<int> text = symbols(lesson_text);
    circuit_study s;
    circuit_study_update(t, text, s, 0);
    const int all = s.timeline.S, computed = s.snapshots_computed;
    REQUIRE(all >= 4);
    const int back = t.run->snapshots[std::size_t(all / 2)].step + 1;  // between two snapshots
    train_to(t, e, back);
    CHECK(circuit_study_update(t, text, s, 0));
    CHECK(s.step == back);
    CHECK(s.timeline.S == all);               // the later snapshots stay kept (the claims read those up to the step)
    CHECK(s.snapshots_computed == computed);  // every snapshot from the cache
    check_timeline(*t.run, s.timeline);
    check_claims(*t.run, s.claims);
    train_to(t, e, train_settings::trained_all);  // forward again: the last snapshot restored, the same bits
    CHECK(circuit_study_update(t, text, s, 0));
    CHECK(s.timeline.S == all);
    CHECK(s.snapshots_computed == computed);
    check_timeline(*t.run, s.timeline);
    check_claims(*t.run, s.claims);
    // A scrub the study has seen, again: its at-once parts and pieces reuse the
    // study's memory (a few strings and the corruption's table aside).
    train_to(t, e, back);
    alloc_counter_start();
    circuit_study_update(t, text, s, 0);
    const std::size_t peak = alloc_counter_stop();
    MESSAGE("a scrub seen before: peak " << peak << " bytes allocated");
    CHECK(peak < 4096);  // 1345 bytes measured: the run key, the corruption's table, messages
    // Another run (another seed) starts the cache again.
    experiment other = e;
    other.seed = 7;
    train_to(t, other, train_settings::trained_all);
    circuit_study_update(t, text, s, 0);
    CHECK(s.snapshots_computed == computed + s.timeline.S);
    check_timeline(*t.run, s.timeline);
}

TEST_CASE("circuit study: the text's rows, its metric positions, and a cell's patch is the sweep's") {
    trainer t;
    train_to(t, tiny(), train_settings::trained_all);
    const std::vector<int> text = symbols(lesson_text);
    circuit_study s;
    circuit_study_update(t, text, s, 0);
    REQUIRE(s.read_problem.empty());
    REQUIRE(s.patch_problem.empty());
    const int T = t.run->T, V = t.run->V, n = int(text.size());
    CHECK(s.n == n);
    CHECK(s.read.T == T);
    for (int i = 0; i < T; ++i) {
        CHECK(s.read.tokens[std::size_t(i)] == (i < n ? text[std::size_t(i)] : 0));
        CHECK(s.read.counted[std::size_t(i)] == (i < n - 1 ? 1 : 0));
    }
    CHECK(s.patching.positions == std::vector<int>{8, 10});  // the repeats of c and e
    CHECK(s.patching.corrupt_tokens[3] == text[5]);
    CHECK(s.patching.corrupt_tokens[5] == text[3]);
    CHECK(s.patching.corrupt_answer[8] == text[6]);   // c now sits before f
    CHECK(s.patching.corrupt_answer[10] == text[4]);  // e before d
    CHECK(s.patching.clean_answer[8] == text[9]);
    for (const circuit_cell cell : {circuit_cell{0, 1, 4}, circuit_cell{1, 0, 8}, circuit_cell{1, 1, T}}) {
        REQUIRE(circuit_study_patch_cell(t, s, cell));
        CHECK(s.cell == cell);
        CHECK(
            same_bits(s.cell_recovery, s.patching.heads[circuit_patch_head_index(s.patching, cell.layer, cell.head, cell.pos)]));
        REQUIRE(s.cell_probs.size() == std::size_t(2 * V));
        for (int p = 0; p < 2; ++p) {
            double sum = 0;
            for (int v = 0; v < V; ++v)
                sum += s.cell_probs[std::size_t(p * V + v)];
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
    }
    // A new text patches the cell again on it, in the piece after the text is read;
    // a cell the model does not have is refused.
    std::vector<int> other = text;
    other[0] = 1;
    CHECK(circuit_study_update(t, other, s, 1e-9));
    CHECK(s.read.tokens[0] == 1);  // read at once
    CHECK_FALSE(s.patched);        // patched in the next call
    CHECK(s.cell == circuit_cell{1, 1, T});
    CHECK(std::isnan(s.cell_recovery));
    REQUIRE(circuit_study_patch_cell(t, s, circuit_cell{0, 1, 5}));  // asked meanwhile: kept
    CHECK(circuit_study_update(t, other, s, 1e-9));
    CHECK(s.patched);
    CHECK(s.patching.clean_tokens[0] == 1);
    CHECK(s.cell == circuit_cell{0, 1, 5});
    CHECK(same_bits(s.cell_recovery, s.patching.heads[circuit_patch_head_index(s.patching, 0, 1, 5)]));
    REQUIRE(circuit_study_patch_cell(t, s, circuit_cell{1, 1, T}));
    CHECK(same_bits(s.cell_recovery, s.patching.heads[circuit_patch_head_index(s.patching, 1, 1, T)]));
    CHECK_FALSE(circuit_study_patch_cell(t, s, circuit_cell{2, 0, 0}));
    CHECK_FALSE(s.cell.valid());
    CHECK_FALSE(circuit_study_patch_cell(t, s, circuit_cell{0, 0, T + 1}));
    CHECK(circuit_study_patch_cell(t, s, circuit_cell{}));  // an invalid cell clears it
    CHECK(s.cell_probs.empty());
}

TEST_CASE("circuit study: bad text and other models give problems in words, never a crash") {
    trainer t;
    train_to(t, tiny(), train_settings::trained_all);
    circuit_study s;
    const int T = t.run->T;
    const std::vector<std::vector<int>> bad = {{}, std::vector<int>(std::size_t(T + 1), 1), {1, 2, 99, 3}, {1, -1, 2}};
    for (const std::vector<int>& text : bad) {
        circuit_study_update(t, text, s, 0);
        CHECK_FALSE(s.read_problem.empty());
        CHECK_FALSE(s.patch_problem.empty());
        CHECK(s.n == 0);
        CHECK(s.timeline_done());  // the run's own measures do not depend on the text
        CHECK_FALSE(circuit_study_patch_cell(t, s, circuit_cell{0, 0, 0}));
    }
    circuit_study_update(t, symbols("a b c d a b"), s, 0);  // read, but nothing to patch
    CHECK(s.read_problem.empty());
    CHECK_FALSE(s.corruption.found);
    CHECK(s.patch_problem == s.corruption.problem);

    trainer other;  // another task: measured, with no claims and no reading of the text
    train_to(other, tiny(train_task::copy_offset), train_settings::trained_all);
    circuit_study c;
    circuit_study_update(other, symbols(lesson_text), c, 0);
    CHECK_FALSE(c.read_problem.empty());
    CHECK_FALSE(c.claims.applies);
    CHECK(c.claims_done());
    CHECK_FALSE(c.timeline.icl_problem.empty());

    experiment one = tiny();  // one layer
    one.layers = 1;
    trainer l1;
    train_to(l1, one, train_settings::trained_all);
    circuit_study d;
    circuit_study_update(l1, symbols(lesson_text), d, 0);
    CHECK_FALSE(d.read_problem.empty());
    CHECK(d.timeline.prev_layer == -1);
    CHECK(d.claims_done());

    trainer none;  // no run, or one not at its step: nothing
    circuit_study e;
    CHECK_FALSE(circuit_study_update(none, symbols(lesson_text), e, 0));
    CHECK(e.step == -1);
}

TEST_CASE("circuit study: pending snapshots are a state of their own, and no claim is read from a part of them") {
    trainer t;
    train_to(t, tiny(train_task::induction, 120), train_settings::trained_all);
    const std::vector<int> text = symbols(lesson_text);
    circuit_study s;
    circuit_study_update(t, text, s, 1e-9);  // the at-once part alone
    REQUIRE(s.timeline.S >= 4);
    int calls = 0;
    bool saw_pending = false;
    while (!s.timeline_done()) {
        // Pending is not NaN: every snapshot from snapshots_done on is pending (its
        // entries NaN placeholders), every one before it measured (finite loss).
        for (int i = 0; i < s.timeline.S; ++i) {
            CHECK(circuit_study_pending(s, i) == (i >= s.snapshots_done));
            if (!circuit_study_pending(s, i))
                CHECK(std::isfinite(s.timeline.loss[std::size_t(i)]));
        }
        saw_pending = true;
        // Nothing is claimed before all of the evidence is in.
        const context_claims k = measure_context(s.timeline, s.claims.step, s.snapshots_done);
        CHECK_FALSE(k.complete);
        CHECK(k.measured == s.snapshots_done);
        CHECK(k.needed == s.timeline.S);
        CHECK(k.induction);  // which claims apply is known before
        CHECK_FALSE(k.bump_shown);
        CHECK_FALSE(k.icl_shown);
        CHECK(k.drop_step == -1);
        CHECK_FALSE(s.claims.over_training_measured);
        CHECK_FALSE(s.claims.k_comp_shown);
        CHECK_FALSE(s.claims.rise_shown);
        circuit_study_update(t, text, s, 1e-9);
        REQUIRE(++calls < 1000);
    }
    CHECK(saw_pending);
    for (int i = 0; i < s.timeline.S; ++i)
        CHECK_FALSE(circuit_study_pending(s, i));
    const context_claims k = measure_context(s.timeline, s.claims.step, s.snapshots_done);
    CHECK(k.complete);
    while (!s.claims_done())
        circuit_study_update(t, text, s, 1e-9);
    CHECK(s.claims.over_training_measured);
}

TEST_CASE("L11's words: a recovery by its thresholds, a cell's answer back only where every answer is, no copier untrained") {
    CHECK(circuit_recovery_word(std::numeric_limits<float>::quiet_NaN()) == recovery_word::none);
    CHECK(circuit_recovery_word(-0.3f) == recovery_word::stays);
    CHECK(circuit_recovery_word(0.19f) == recovery_word::stays);
    CHECK(circuit_recovery_word(0.2f) == recovery_word::part);
    CHECK(circuit_recovery_word(0.5f) == recovery_word::part);  // "it brings the answer back" said of 0.50 before
    CHECK(circuit_recovery_word(0.8f) == recovery_word::back);
    CHECK(circuit_recovery_word(1.0f) == recovery_word::back);
    CHECK(circuit_recovery_word(1.01f) == recovery_word::beyond);
    CHECK(circuit_recovery_word(1.186f) == recovery_word::beyond);
    // A cell: the reading counts the metric positions where the clean answer leads.
    trainer t;
    train_to(t, tiny(), train_settings::trained_all);
    circuit_study s;
    circuit_study_update(t, symbols(lesson_text), s, 0);
    REQUIRE(s.patch_problem.empty());
    CHECK(circuit_study_cell_reading(s).word == recovery_word::none);  // no cell
    REQUIRE(circuit_study_patch_cell(t, s, {s.claims.induction.layer, s.claims.induction.head, s.patching.T}));
    const cell_reading r = circuit_study_cell_reading(s);
    CHECK(r.positions == int(s.patching.positions.size()));
    CHECK(r.leads >= 0);
    CHECK(r.leads <= r.positions);
    if (r.word == recovery_word::back || r.word == recovery_word::beyond)
        CHECK(r.leads == r.positions);
    else
        CHECK(r.word != recovery_word::none);
    // Untrained, no head's OV circuit copies (its top-1 rate sits near 1 / V).
    train_to(t, tiny(), 0);
    circuit_study s0;
    circuit_study_update(t, symbols(lesson_text), s0, 0);
    REQUIRE_FALSE(s0.weights.heads.empty());
    for (const circuit_head_maps& h : s0.weights.heads) {
        CHECK_FALSE(circuit_copying_shown(h));
        CHECK(h.ov_top1 < claim_copy_top1);
    }
}
