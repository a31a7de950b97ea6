// Reading the circuit (circuits/circuits.hpp): the decompositions are identities
// on the model's own numbers, and on L9's trained model the previous-token head
// composes with the induction head through its keys.
#include <doctest/doctest.h>

#define EIGEN_RUNTIME_NO_MALLOC  // as circuits/weights.cpp: a test can forbid Eigen's heap
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "circuits/circuits.hpp"
#include "circuits/circuits_json.hpp"
#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"
#include "spec/experiment.hpp"
#include "spec/keys.hpp"
#include "spec/recipe.hpp"
#include "test_util.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"

using namespace attn;

namespace {

train_run make_run(const experiment& e) {
    auto init = train_init(e);
    REQUIRE_MESSAGE(init.errors.empty(), (init.errors.empty() ? "" : init.errors.front()));
    return std::move(*init.run);
}

// Under ASan + UBSan (slow: L9's 1500 steps took minutes there) the cases on L9's
// trained model are left to the native and wasm builds, as test_train_learning.cpp
// leaves seeds 2-3; the cases on tiny recipes run the same circuits code under the
// sanitizers.
#if defined(ATTN_SANITIZE)
constexpr bool l9_under_sanitizers = true;
#else
constexpr bool l9_under_sanitizers = false;
#endif

// L9's model at its last step, trained once per test binary (a few seconds natively).
train_run& lesson_induction() {
    static train_run run = [] {
        const auto parsed = experiment_parse(recipe_lesson_induction);
        REQUIRE(parsed.value);
        train_run r = make_run(*parsed.value);
        train_run_named(r);
        REQUIRE(r.error.empty());
        return r;
    }();
    return run;
}

// The largest |Σ parts − logit| / max(1, |logit|) over every position and token.
double worst_sum_error(const circuit_read& c, const std::vector<float>& parts, std::size_t count) {
    double worst = 0;
    const std::size_t n = std::size_t(c.T) * std::size_t(c.V);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t p = 0; p < count; ++p)
            s += double(parts[p * n + i]);
        const double logit = double(c.logits[i]);
        worst = std::max(worst, std::abs(s - logit) / std::max(1.0, std::abs(logit)));
    }
    return worst;
}

// The identities every read holds: probabilities sum to 1, the target's rank and
// probability agree with the logits, the lens's last layer is the prediction, the
// direct attribution sums to the logit.
void check_read_identities(const circuit_read& c) {
    for (int t = 0; t < c.T; ++t) {
        double s = 0;
        for (int v = 0; v < c.V; ++v)
            s += double(c.probs[std::size_t(t * c.V + v)]);
        CHECK(std::abs(s - 1.0) < 1e-6);
        const int target = c.targets[std::size_t(t)];
        CHECK(c.target_prob[std::size_t(t)] == c.probs[std::size_t(t * c.V + target)]);
        const float best = c.probs[std::size_t(t * c.V + c.top[std::size_t(t * c.top_k)])];
        CHECK((c.target_rank[std::size_t(t)] == 0) == (c.target_prob[std::size_t(t)] >= best));
    }
    const std::size_t n = std::size_t(c.T) * std::size_t(c.V), last = std::size_t(c.L - 1) * n;
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(c.lens_logits[last + i] == c.logits[i]);
        CHECK(c.lens_probs[last + i] == c.probs[i]);
    }
    const double dla = worst_sum_error(c, c.dla, c.dla_parts.size());
    MESSAGE("direct logit attribution: worst relative error of the sum " << dla);
    CHECK(dla <= 1e-5);
}

// The heads L9's model uses: the layer-0 head with the largest previous-token
// score and the layer-1 head with the largest induction score.
void lesson_heads(train_run& run, int& prev, int& ind) {
    std::vector<head_scores> scores;
    train_head_scores(run, 32, scores);
    prev = ind = 0;
    for (int h = 0; h < run.h; ++h) {
        if (scores[std::size_t(h)].prev_mean() > scores[std::size_t(prev)].prev_mean())
            prev = h;
        if (scores[std::size_t(run.h + h)].induction_mean() > scores[std::size_t(run.h + ind)].induction_mean())
            ind = h;
    }
}

// The same bits (NaN included: a recovery may be NaN).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A second report of the same shapes allocates nothing, and is the first one bit for bit.
void check_second_report_allocates_nothing(train_run& run, int row, const circuits_report& first, circuits_corrupt corrupt = {}) {
    circuits_report r = first;  // laid out by a first computation (its Eigen scratch starts empty)
    REQUIRE(circuits_report_compute(run, row, r, nullptr, corrupt));
    alloc_counter_start();  // operator new; Eigen's malloc is forbidden (an assertion when it is not compiled out)
    Eigen::internal::set_is_malloc_allowed(false);
    const bool again = circuits_report_compute(run, row, r, nullptr, corrupt);
    Eigen::internal::set_is_malloc_allowed(true);
    const std::size_t bytes = alloc_counter_stop();
    REQUIRE(again);
    CHECK(bytes == 0);
    CHECK(same_bits(r.read.logits, first.read.logits));
    CHECK(same_bits(r.read.dla, first.read.dla));
    REQUIRE(r.weights.heads.size() == first.weights.heads.size());
    for (std::size_t i = 0; i < r.weights.heads.size(); ++i) {
        const circuit_head_maps &a = r.weights.heads[i], &b = first.weights.heads[i];
        CHECK((same_bits(a.qk, b.qk) && same_bits(a.ov, b.ov) && same_bits(a.pos_qk, b.pos_qk)));
        CHECK((a.copying == b.copying && a.ov_top1 == b.ov_top1));
    }
    REQUIRE(r.weights.k_maps.size() == first.weights.k_maps.size());
    for (std::size_t i = 0; i < r.weights.k_maps.size(); ++i)
        CHECK(same_bits(r.weights.k_maps[i].map, first.weights.k_maps[i].map));
    REQUIRE(r.composition.pairs.size() == first.composition.pairs.size());
    for (std::size_t i = 0; i < r.composition.pairs.size(); ++i)
        CHECK((r.composition.pairs[i].q == first.composition.pairs[i].q &&
               r.composition.pairs[i].k == first.composition.pairs[i].k &&
               r.composition.pairs[i].v == first.composition.pairs[i].v));
    CHECK((same_bits(r.patching.heads, first.patching.heads) && same_bits(r.patching.resid, first.patching.resid)));
    CHECK((same_bits(r.timeline.loss, first.timeline.loss) && same_bits(r.timeline.k, first.timeline.k)));
}

}  // namespace

TEST_CASE("circuits: on L9's model the parts of the logit sum to it, and the paths name the circuit" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    circuit_read c;
    std::string error;
    REQUIRE(circuits_read_row(run, 0, c, &error));
    check_read_identities(c);
    CHECK(c.dla_parts.size() == 2 + 8);  // embed, pos, 2 layers × 4 heads
    REQUIRE(c.paths_problem.empty());
    CHECK(c.path_parts.size() == 1 + 8 + 16);
    const double paths = worst_sum_error(c, c.paths, c.path_parts.size());
    MESSAGE("path expansion: worst relative error of the sum " << paths);
    CHECK(paths <= 1e-5);
    // A second read of the same shape allocates nothing.
    alloc_counter_start();
    const bool read = circuits_read_row(run, 1, c, &error);
    const std::size_t bytes = alloc_counter_stop();
    REQUIRE(read);
    CHECK(bytes == 0);
    // How long everything takes for one L9 model (a figure, not a claim: this
    // may be a debug build).
    circuits_report report;
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(circuits_report_compute(run, 0, report));
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    MESSAGE("L9: row, composition and weight-only circuits in " << ms << " ms");
    check_read_identities(c);
    check_second_report_allocates_nothing(run, 0, report);
}

TEST_CASE("circuits: a second report of the same shapes allocates nothing (tiny recipes, every corruption)") {
    for (int variant = 0; variant < 3; ++variant) {
        // induction and copy_offset (no swap: the report's messages), and block=full
        // with learned positions and grouped K/V heads (the positional pattern's other branch)
        const train_task task = variant == 1 ? train_task::copy_offset : train_task::induction;
        experiment e = test::tiny_recipe(task, variant == 2 ? block_kind::full : block_kind::attention_residual, 4, "a b c");
        if (variant == 2) {
            e.pos = positional::learned;
            e.kv_heads = 1;
        }
        train_run run = make_run(e);
        train_run_all(run);
        for (const circuits_corrupt corrupt : {circuits_corrupt{}, circuits_corrupt{circuits_corrupt::other_row, 7},
                                               circuits_corrupt{circuits_corrupt::none, 0}}) {
            INFO("variant " << variant << ", corruption " << int(corrupt.kind));
            circuits_report first;
            REQUIRE(circuits_report_compute(run, 2, first, nullptr, corrupt));
            check_second_report_allocates_nothing(run, 2, first, corrupt);
        }
    }
}

TEST_CASE("circuits: the copying score with a kept solver is a fresh solver's, bit for bit") {
    rng g(7);
    circuit_eigen_scratch scratch;
    for (const int n : {10, 3, 10, 26, 1}) {
        const std::vector<float> m = test::random_vector(g, std::size_t(n * n));
        Eigen::MatrixXd a(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                a(i, j) = m[std::size_t(i * n + j)];
        const Eigen::EigenSolver<Eigen::MatrixXd> es(a, false);  // what circuit_copying_score did before it kept one
        double re = 0, mag = 0;
        for (int i = 0; i < n; ++i) {
            re += es.eigenvalues()[i].real();
            mag += std::abs(es.eigenvalues()[i]);
        }
        CHECK(circuit_copying_score(m.data(), n, scratch) == float(re / mag));
    }
}

TEST_CASE("circuits: a row outside the held-out set is refused with its reason" * doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    circuit_read c;
    std::string error;
    CHECK_FALSE(circuits_read_row(run, train_eval_rows, c, &error));
    CHECK(error == "row 128 is outside the held-out set (rows 0 to 127)");
    CHECK_FALSE(circuits_read_row(run, -1, c, &error));
}

TEST_CASE("circuits: direct attribution is exact for every block; path expansion only for attn_res") {
    for (block_kind b : {block_kind::full, block_kind::attention_only, block_kind::attention_residual}) {
        CAPTURE(int(b));
        train_run run = make_run(test::tiny_recipe(train_task::induction, b, 12, "a b c a b c"));
        train_run_all(run);
        circuit_read c;
        REQUIRE(circuits_read_row(run, 3, c));
        check_read_identities(c);
        CHECK(c.paths_problem.empty() == (b == block_kind::attention_residual));
        if (b == block_kind::full)
            CHECK(c.dla_parts.size() == 2 + 2 * (2 + 1));  // embed, pos; per layer 2 heads and the FFN
        if (b == block_kind::attention_only)
            CHECK(c.dla_parts.size() == 2);  // only the last layer writes what W_u reads
        if (c.paths_problem.empty())
            CHECK(worst_sum_error(c, c.paths, c.path_parts.size()) <= 1e-5);
    }
}

// Grouped K/V heads, W_O off and the other position kinds: the slices each part
// reads (K/V head i / (h / g), the placement of a head's columns, W_p or the
// sinusoidal table) are the model's.
TEST_CASE("circuits: the sums hold with grouped K/V heads, W_O off, learned and sinusoidal positions") {
    for (positional pos : {positional::learned, positional::sinusoidal, positional::none}) {
        for (bool wo : {true, false}) {
            CAPTURE(int(pos));
            CAPTURE(wo);
            experiment e = test::tiny_recipe(train_task::induction, block_kind::attention_residual, 12, "a b c");
            e.heads = 4;
            e.kv_heads = 2;
            e.pos = pos;
            e.use_wo = wo;
            train_run run = make_run(e);
            train_run_all(run);
            circuit_read c;
            REQUIRE(circuits_read_row(run, 5, c));
            check_read_identities(c);
            REQUIRE(c.paths_problem.empty());
            CHECK(worst_sum_error(c, c.paths, c.path_parts.size()) <= 1e-5);
            circuit_composition comp;
            circuits_composition(run, comp, 4);
            for (const circuit_composition_pair& p : comp.pairs)
                for (float x : {p.q, p.k, p.v}) {
                    CHECK(x >= 0.0f);
                    CHECK(x <= 1.0f);
                }
        }
    }
}

// Rank-one heads: head 0 of layer 0 has W_V = u e_0ᵀ, W_O = e_0 vᵀ, so
// W_OV = u vᵀ. Layer 1's head 0 is built so that its B is v wᵀ: then A B =
// (u vᵀ)(v wᵀ) = |v|² u wᵀ and ‖A B‖ = ‖A‖ ‖B‖, composition 1.
//   Q: W_QK = W_Q W_Kᵀ = v wᵀ with W_Q = v e_0ᵀ, W_K = w e_0ᵀ
//   K: W_QKᵀ = W_K W_Qᵀ = v wᵀ with W_K = v e_0ᵀ, W_Q = w e_0ᵀ
//   V: W_OV = v wᵀ with W_V = v e_0ᵀ, W_O = e_0 wᵀ
TEST_CASE("circuits: composition scores lie in [0, 1] and are 1 for aligned rank-one heads") {
    train_run run = make_run(test::tiny_recipe(train_task::induction, block_kind::attention_residual, 0, "a b c"));
    const int d = run.d, kv = run.g * run.dk;
    std::vector<float> u, v, w;
    for (int i = 0; i < d; ++i) {
        u.push_back(float(i % 3) - 1.0f);
        v.push_back(0.5f + float(i % 5));
        w.push_back(float(i % 2) - 0.3f);
    }
    for (const char* kind : {"q", "k", "v"}) {
        CAPTURE(kind);
        std::fill(run.params.begin(), run.params.end(), 0.0f);
        const train_layer_tensors& l0 = run.layout.layers[0];
        const train_layer_tensors& l1 = run.layout.layers[1];
        float* p = run.params.data();
        for (int i = 0; i < d; ++i) {
            p[l0.w_v.offset + std::size_t(i * kv)] = u[std::size_t(i)];  // column 0: head 0's first column
            p[l0.w_o.offset + std::size_t(i)] = v[std::size_t(i)];       // row 0
            const std::string k = kind;
            const std::vector<float>& first = k == "q" ? v : w;  // W_Q's column, W_K's column
            const std::vector<float>& second = k == "q" ? w : v;
            p[l1.w_q.offset + std::size_t(i * d)] = k == "v" ? 0.0f : first[std::size_t(i)];
            p[l1.w_k.offset + std::size_t(i * kv)] = k == "v" ? 0.0f : second[std::size_t(i)];
            p[l1.w_v.offset + std::size_t(i * kv)] = k == "v" ? v[std::size_t(i)] : 0.0f;
            p[l1.w_o.offset + std::size_t(i)] = k == "v" ? w[std::size_t(i)] : 0.0f;
        }
        circuit_composition c;
        circuits_composition(run, c, 8);
        const circuit_composition_pair* pair = circuit_composition_find(c, 0, 0, 1, 0);
        REQUIRE(pair);
        const float got = std::string(kind) == "q" ? pair->q : std::string(kind) == "k" ? pair->k : pair->v;
        CHECK(got == doctest::Approx(1.0).epsilon(1e-6));
    }
    // Random weights: every score in [0, 1], the baseline about 1/√d.
    train_run fresh = make_run(test::tiny_recipe(train_task::induction, block_kind::attention_residual, 0, "a b c"));
    circuit_composition c;
    circuits_composition(fresh, c);
    CHECK(c.pairs.size() == std::size_t(fresh.h * fresh.h));
    for (const circuit_composition_pair& p : c.pairs)
        for (float x : {p.q, p.k, p.v}) {
            CHECK(x >= 0.0f);
            CHECK(x <= 1.0f);
        }
    MESSAGE("baseline at d = " << fresh.d << ": q " << c.q.mean << " ± " << c.q.spread << ", k " << c.k.mean << " ± "
                               << c.k.spread << ", v " << c.v.mean << " ± " << c.v.spread);
    CHECK(c.k.mean == doctest::Approx(1.0 / std::sqrt(double(fresh.d))).epsilon(0.5));
}

TEST_CASE("circuits: on L9's model the previous-token head K-composes with the induction head" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    int prev = 0, ind = 0;
    lesson_heads(run, prev, ind);
    circuit_composition c;
    circuits_composition(run, c);
    const circuit_composition_pair* p = circuit_composition_find(c, 0, prev, 1, ind);
    REQUIRE(p);
    MESSAGE("previous-token L0H" << prev << " -> induction L1H" << ind << ": K " << p->k << ", Q " << p->q << ", V " << p->v
                                 << "; baseline K " << c.k.mean << " ± " << c.k.spread << " (" << c.samples << " samples)");
    for (const circuit_composition_pair& q : c.pairs)
        MESSAGE("L0H" << q.head_a << " -> L1H" << q.head_b << ": q " << q.q << " k " << q.k << " v " << q.v);
    CHECK(p->k > c.k.mean + 4 * c.k.spread);
}

// Vocabulary 8 inside d = 16, E the first 8 rows of the identity, and head 0 of
// layer 0 built as a copier: W_V^0 = W_Q = W_K = [I_8; 0] (16 × 8), W_O^0 = [I_8 0],
// W_U = [I_8; 0]. Then E W_OV U = I_8 (top-1 rate 1, copying score 1), its
// negation copies against (−1), and layer 1's head 0 with the same W_Q, W_K
// reads layer 0's write through its keys: E W_QK (E W_OV)ᵀ = I_8.
TEST_CASE("circuits: the full circuits of a constructed copying head have the structure they were built with") {
    experiment e = test::tiny_recipe(train_task::induction, block_kind::attention_residual, 0, "a b c");
    e.train.vocab = 8;
    train_run run = make_run(e);
    REQUIRE(run.dk == 8);
    for (float sign : {1.0f, -1.0f}) {
        std::fill(run.params.begin(), run.params.end(), 0.0f);
        float* p = run.params.data();
        const int d = run.d, kv = run.g * run.dk;
        for (int i = 0; i < 8; ++i) {
            p[run.layout.w_e.offset + std::size_t(i * d + i)] = 1.0f;
            p[run.layout.w_u.offset + std::size_t(i * run.V + i)] = 1.0f;
            for (int l = 0; l < 2; ++l) {
                const train_layer_tensors& t = run.layout.layers[std::size_t(l)];
                p[t.w_v.offset + std::size_t(i * kv + i)] = sign;
                p[t.w_o.offset + std::size_t(i * d + i)] = 1.0f;
                p[t.w_q.offset + std::size_t(i * d + i)] = 1.0f;
                p[t.w_k.offset + std::size_t(i * kv + i)] = 1.0f;
            }
        }
        circuit_weights w;
        circuits_weights(run, w);
        const circuit_head_maps& h = w.heads[0];
        CHECK(h.ov_top1 == (sign > 0 ? 1.0f : 0.0f));
        CHECK(h.copying == doctest::Approx(sign).epsilon(1e-6));
        CHECK(w.heads[1].copying == 0.0f);  // head 1 is all zeros
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                CHECK(h.qk[std::size_t(i * 8 + j)] == (i == j ? 1.0f : 0.0f));  // offset 0: E W_QK Eᵀ = I
                CHECK(h.ov[std::size_t(i * 8 + j)] == (i == j ? sign : 0.0f));
            }
        // Offset 1 turns each pair: the diagonal becomes cos θ_p of its pair (< 1 but for θ small).
        CHECK(h.qk[std::size_t(64)] == doctest::Approx(std::cos(1.0)).epsilon(1e-6));
        REQUIRE(w.k_maps.size() == 4);
        CHECK(w.k_maps[0].top1 == (sign > 0 ? 1.0f : 0.0f));
        CHECK(w.k_maps[0].map[0] == sign);
    }
}

TEST_CASE("circuits: L9's induction head copies, and its keys read the previous-token head token for token" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    int prev = 0, ind = 0;
    lesson_heads(run, prev, ind);
    circuit_weights w;
    circuits_weights(run, w);
    for (const circuit_head_maps& h : w.heads)
        MESSAGE("L" << h.layer << "H" << h.head << ": OV top-1 " << h.ov_top1 << ", copying " << h.copying);
    for (const circuit_k_map& k : w.k_maps)
        MESSAGE("K-map L0H" << k.head_a << " -> L1H" << k.head_b << ": top-1 " << k.top1);
    // Measured: L1H3's OV top-1 1, copying 0.995; the K-map L0H0 -> L1H3 top-1 1.
    const circuit_head_maps& induction = w.heads[std::size_t(run.h + ind)];
    CHECK(induction.ov_top1 >= 0.9f);
    CHECK(induction.copying >= 0.9f);
    CHECK(w.k_maps[std::size_t(prev * run.h + ind)].top1 >= 0.9f);
}

// The path expansion splits the values, the patterns held fixed: the answer's
// value is the token the induction head attends to, read from the embedding, so
// its logit flows through the single-head path L1H<ind>; the previous-token
// head's part is *where* that head attends (K-composition, above), which the
// expansion does not split. Measured on 16 rows: L1H3 15.13 of a mean target
// logit of about 15.3; L0H0>L1H3 −0.12.
TEST_CASE("circuits: on L9's model the answer's value flows through the induction head reading the embedding" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    int prev = 0, ind = 0;
    lesson_heads(run, prev, ind);
    circuit_read c;
    std::vector<double> share;
    int counted = 0;
    for (int row = 0; row < 16; ++row) {
        REQUIRE(circuits_read_row(run, row, c));
        share.resize(c.path_parts.size(), 0.0);
        for (int t = 0; t < c.T; ++t) {
            if (!c.counted[std::size_t(t)])
                continue;
            ++counted;
            for (std::size_t p = 0; p < c.path_parts.size(); ++p)
                share[p] += double(circuit_path(c, int(p), t, c.targets[std::size_t(t)]));
        }
    }
    std::size_t best = 0;
    for (std::size_t p = 0; p < share.size(); ++p) {
        MESSAGE(c.path_parts[p].name << ": mean contribution to the target's logit " << share[p] / counted);
        if (share[p] > share[best])
            best = p;
    }
    double total = 0;
    for (double x : share)
        total += x;
    MESSAGE("mean target logit " << total / counted << " over " << counted << " counted positions");
    CHECK(c.path_parts[best].name == "L1H" + std::to_string(ind));
    // Most of it, not a figure: the trained weights differ in their last bits from one
    // compiler's rounding to another's (GCC: 0.99 of the total, clang 14: 0.865).
    CHECK(share[best] >= 0.8 * total);
    (void)prev;
}

TEST_CASE("circuits: the report's JSON has every documented key (docs/circuits.md)") {
    train_run run = make_run(test::tiny_recipe(train_task::induction, block_kind::attention_residual, 4, "a b c"));
    train_run_all(run);
    circuits_report r;
    std::string error;
    CHECK_FALSE(circuits_report_compute(run, 200, r, &error));
    CHECK(error == "row 200 is outside the held-out set (rows 0 to 127)");
    REQUIRE(circuits_report_compute(run, 2, r, &error));
    const std::string json = circuits_report_json(run, r);
    for (const char* k : {"\"recipe\":",
                          "\"step\":4",
                          "\"row\":2",
                          "\"vocab\":",
                          "\"tokens\":",
                          "\"targets\":",
                          "\"counted\":",
                          "\"predictions\":{\"logits\":",
                          "\"probs\":",
                          "\"top\":",
                          "\"target_prob\":",
                          "\"target_rank\":",
                          "\"dla\":{\"parts\":[\"embed\",\"pos\",\"L0H0\"",
                          "\"values\":",
                          "\"target\":",
                          "\"lens\":{\"probs\":",
                          "\"paths\":{\"parts\":[\"direct\"",
                          "\"L0H1>L1H0\"",
                          "\"composition\":{\"pairs\":[{\"a\":\"L0H0\",\"b\":\"L1H0\"",
                          "\"baseline\":{\"q\":{\"mean\":",
                          "\"samples\":64",
                          "\"weights\":{\"qk_offsets\":[[0,1]]",
                          "\"heads\":[{\"head\":\"L0H0\",\"qk\":",
                          "\"ov\":",
                          "\"ov_top1\":",
                          "\"copying\":",
                          "\"pos_qk\":[[",
                          "\"k_offset\":0",
                          "\"k_maps\":[{\"a\":\"L0H0\",\"b\":\"L1H0\",\"map\":",
                          "\"top1\":",
                          "\"timeline\":{\"steps\":[0,",
                          "\"loss\":[",
                          "\"pos_loss\":[[",
                          "\"icl\":[",
                          "\"icl_problem\":null",
                          "\"prev\":\"L0H",
                          "\"induction\":\"L1H",
                          "\"prev_ind_k\":[",
                          "\"pairs\":[{\"a\":\"L0H0\",\"b\":\"L1H0\",\"q\":[",
                          "\"baseline\":{\"q\":{\"mean\":"}) {
        CAPTURE(k);
        CHECK(json.find(k) != std::string::npos);
    }
    // NaN (null) only where a number is undefined: the timeline's positions no row counts.
    CHECK(json.substr(0, json.find("\"timeline\":")).find("null") == std::string::npos);
    circuits_corrupt other;
    other.kind = circuits_corrupt::other_row;
    other.row = 7;
    REQUIRE(circuits_report_compute(run, 2, r, &error, other));
    const std::string patched = circuits_report_json(run, r);
    for (const char* k :
         {"\"patching\":{\"corruption\":\"held-out row 7\"", "\"clean_tokens\":[", "\"corrupt_tokens\":[", "\"clean_answer\":[",
          "\"corrupt_answer\":[", "\"positions\":[", "\"ld_clean\":", "\"ld_corrupt\":", "\"heads\":[[[", "\"resid\":[[",
          "\"paths\":[{\"a\":\"L0H0\",\"b\":\"L1H0\",\"q\":", "\"paths_all\":{\"q\":"}) {
        CAPTURE(k);
        CHECK(patched.find(k) != std::string::npos);
    }
    other.row = 2;  // the row against itself: no logit difference, refused when asked for
    CHECK_FALSE(circuits_report_compute(run, 2, r, &error, other));
    CHECK(error.find("no logit difference") != std::string::npos);
    other.kind = circuits_corrupt::task;
    CHECK(circuits_corrupt_problem(run.e, other).empty());
    experiment copy = run.e;
    copy.train.task = train_task::copy_offset;
    CHECK(circuits_corrupt_problem(copy, other).find("does not apply to copy_offset") != std::string::npos);
}

TEST_CASE("circuits: the positional QK pattern: P W_QK Pᵀ for additive positions, a function of i - j under RoPE" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    circuit_weights w;
    circuits_weights(run, w);
    const int T = run.T;
    for (const circuit_head_maps& h : w.heads) {
        REQUIRE(h.pos_qk.size() == std::size_t(T * T));
        for (int i = 1; i < T; ++i)
            for (int j = 1; j <= i; ++j)
                CHECK(h.pos_qk[std::size_t(i * T + j)] == h.pos_qk[std::size_t((i - 1) * T + j - 1)]);
    }
    // Measured: the previous-token head's pattern over the offsets a causal query
    // sees peaks at offset 1 (L0H0: 80.9, 122.2, 79.3, −13.1, −75.8, −57.8 at 0 … 5).
    int p = 0, ind = 0;
    lesson_heads(run, p, ind);
    const circuit_head_maps& prev = w.heads[std::size_t(p)];
    int best = 0;
    for (int delta = 1; delta < T; ++delta)
        if (prev.pos_qk[std::size_t((T - 1) * T + (T - 1 - delta))] > prev.pos_qk[std::size_t((T - 1) * T + (T - 1 - best))])
            best = delta;
    CHECK(best == 1);
    std::string row;
    for (int delta = 0; delta < 6; ++delta)
        row += " " + std::to_string(prev.pos_qk[std::size_t((T - 1) * T + (T - 1 - delta))]);
    MESSAGE("L0H0 positional pattern at offsets 0..5:" << row);

    experiment e = test::tiny_recipe(train_task::induction, block_kind::attention_residual, 4, "a b c");
    e.pos = positional::learned;
    train_run learned = make_run(e);
    train_run_all(learned);
    circuits_weights(learned, w);
    std::vector<double> qk(std::size_t(learned.d * learned.d));
    circuits_head_qk(learned, 1, 1, 0, qk.data());
    const float* P = learned.params.data() + learned.layout.w_p.offset;
    for (int i = 0; i < learned.T; i += 5)
        for (int j = 0; j < learned.T; j += 3) {
            double s = 0;
            for (int a = 0; a < learned.d; ++a)
                for (int c = 0; c < learned.d; ++c)
                    s += double(P[i * learned.d + a]) * qk[std::size_t(a * learned.d + c)] * double(P[j * learned.d + c]);
            CHECK(w.heads[3].pos_qk[std::size_t(i * learned.T + j)] == doctest::Approx(s).epsilon(1e-5));
        }
}

// --- Activation patching (circuits/patching.hpp) ----------------------------------

namespace {

struct row_triple {
    std::vector<int> tokens, targets;
    std::vector<unsigned char> counted;
};

row_triple held_out(const train_run& run, int row) {
    const std::size_t at = std::size_t(row) * std::size_t(run.T), end = at + std::size_t(run.T);
    row_triple r;
    r.tokens.assign(run.eval_tokens.begin() + std::ptrdiff_t(at), run.eval_tokens.begin() + std::ptrdiff_t(end));
    r.targets.assign(run.eval_targets.begin() + std::ptrdiff_t(at), run.eval_targets.begin() + std::ptrdiff_t(end));
    r.counted.assign(run.eval_counted.begin() + std::ptrdiff_t(at), run.eval_counted.begin() + std::ptrdiff_t(end));
    return r;
}

bool patching_of(const train_run& run, const row_triple& a, const row_triple& b, circuit_patching& p,
                 std::string* error = nullptr) {
    return circuits_patching(run, a.tokens, a.targets, a.counted, b.tokens, b.targets, b.counted, p, error);
}

circuit_patch patch_of(circuit_patch::kind_t kind, int layer, int head, int pos) {
    circuit_patch c;
    c.kind = kind;
    c.layer = layer;
    c.head = head;
    c.pos = pos;
    return c;
}

// Every patch of every kind, one at a time, leaves the clean row's logits as they
// were when the corrupted row is the clean row (its targets other answers).
void check_clean_into_clean(const train_run& run) {
    row_triple a = held_out(run, 2), b = a;
    for (int& t : b.targets)
        t = (t + 1) % run.V;
    circuit_patching p;
    REQUIRE(patching_of(run, a, b, p));
    CHECK(p.clean_logits == p.corrupt_logits);
    std::vector<circuit_patch> all;
    for (int l = 0; l < run.L; ++l)
        for (int h = 0; h < run.h; ++h)
            for (int t : {-1, 0, run.T - 1})
                all.push_back(patch_of(circuit_patch::head_out, l, h, t));
    for (int s = 0; s <= run.L; ++s)
        all.push_back(patch_of(circuit_patch::resid, s, 0, -1));
    for (char input : {'q', 'k', 'v'}) {
        circuit_patch c = patch_of(circuit_patch::path, run.L - 1, run.h - 1, -1);
        c.input = input;
        all.push_back(c);
    }
    for (const circuit_patch& c : all) {
        circuits_patch_run(run, p, &c, 1);
        CHECK(p.patched_logits == p.clean_logits);
    }
    CHECK(circuits_patch_run(run, p, all.data(), int(all.size())) == p.ld_clean);
    CHECK(p.patched_logits == p.clean_logits);
}

// Two held-out rows: the runs are the training forward's logits, and patching the
// embedding and every head at every position, or the last stream, gives the clean run.
void check_patch_everything(train_run& run) {
    const row_triple a = held_out(run, 0), b = held_out(run, 1);
    circuit_patching p;
    REQUIRE(patching_of(run, a, b, p));
    const std::vector<float> clean = train_logits(run, a.tokens), corrupt = train_logits(run, b.tokens);
    CHECK(p.clean_logits == clean);
    CHECK(p.corrupt_logits == corrupt);
    std::vector<circuit_patch> all{patch_of(circuit_patch::resid, 0, 0, -1)};
    for (int l = 0; l < run.L; ++l)
        for (int h = 0; h < run.h; ++h)
            all.push_back(patch_of(circuit_patch::head_out, l, h, -1));
    CHECK(circuits_recovery(p, circuits_patch_run(run, p, all.data(), int(all.size()))) == 1.0f);
    CHECK(p.patched_logits == p.clean_logits);
    const circuit_patch last = patch_of(circuit_patch::resid, run.L, 0, -1);
    CHECK(circuits_recovery(p, circuits_patch_run(run, p, &last, 1)) == 1.0f);
    CHECK(p.patched_logits == p.clean_logits);
    CHECK(p.resid[std::size_t(run.L) * std::size_t(run.T + 1) + std::size_t(run.T)] == 1.0f);
    CHECK(p.resid[std::size_t(run.T)] == 1.0f);  // the embedding of every position: the clean row itself
}

}  // namespace

TEST_CASE("patching: clean into clean changes nothing; patching everything recovers the clean run exactly") {
    for (block_kind b : {block_kind::full, block_kind::attention_only, block_kind::attention_residual}) {
        CAPTURE(int(b));
        train_run run = make_run(test::tiny_recipe(train_task::induction, b, 12, "a b c a b c"));
        train_run_all(run);
        check_clean_into_clean(run);
        check_patch_everything(run);
    }
    for (positional pos : {positional::learned, positional::sinusoidal, positional::none, positional::rope}) {
        CAPTURE(int(pos));
        experiment e = test::tiny_recipe(train_task::induction, block_kind::attention_residual, 12, "a b c");
        e.heads = 4;
        e.kv_heads = 2;
        e.pos = pos;
        e.use_wo = pos != positional::learned;
        train_run run = make_run(e);
        train_run_all(run);
        check_clean_into_clean(run);
        check_patch_everything(run);
    }
}

TEST_CASE("patching: rows of different shapes, a corruption for another task and other bad input are refused") {
    train_run run = make_run(test::tiny_recipe(train_task::induction, block_kind::attention_residual, 2, "a b c"));
    circuit_patching p;
    std::string error;
    row_triple a = held_out(run, 0), b = held_out(run, 1);
    b.tokens.pop_back();
    CHECK_FALSE(patching_of(run, a, b, p, &error));
    CHECK(error.find("two rows of one shape") != std::string::npos);
    b = a;
    b.tokens[3] = run.V;
    CHECK_FALSE(patching_of(run, a, b, p, &error));
    CHECK(error.find("outside the vocabulary") != std::string::npos);
    CHECK_FALSE(patching_of(run, a, a, p, &error));
    CHECK(error.find("no logit difference") != std::string::npos);
    CHECK_FALSE(circuits_patching_row(run, train_eval_rows, p, &error));
    CHECK(error.find("outside the held-out set") != std::string::npos);
    train_run other = make_run(test::tiny_recipe(train_task::copy_offset, block_kind::attention_residual, 2, "a b c"));
    CHECK_FALSE(circuits_patching_row(other, 0, p, &error));
    CHECK(error.find("induction task only, not copy_offset") != std::string::npos);
    int shortest = -1;  // a row whose segment has 3 symbols: too short to swap two in
    for (int row = 0; row < train_eval_rows && shortest < 0; ++row)
        if (run.eval_counted[std::size_t(row * run.T + run.T - 3)] == 1 &&
            run.eval_counted[std::size_t(row * run.T + run.T - 4)] == 0)
            shortest = row;
    REQUIRE(shortest >= 0);
    CHECK_FALSE(circuits_patching_row(run, shortest, p, &error));
    CHECK(error.find("the swap needs 4 or more") != std::string::npos);
    // Patches outside the model run nothing.
    REQUIRE(patching_of(run, held_out(run, 0), held_out(run, 1), p));
    circuit_patch path = patch_of(circuit_patch::path, 1, 0, -1);
    path.sender_layer = 1;  // not earlier than its receiver
    for (const circuit_patch& c : {patch_of(circuit_patch::head_out, 2, 0, -1), patch_of(circuit_patch::head_out, 0, 2, -1),
                                   patch_of(circuit_patch::resid, 3, 0, -1), patch_of(circuit_patch::resid, 0, 0, run.T), path})
        CHECK(std::isnan(circuits_patch_run(run, p, &c, 1)));
}

namespace {

// Patched runs after the first on L9's model (p holds a row's patching; prev and ind are the
// previous-token and induction heads): nothing allocated, the same bits from kept projections.
void check_patched_runs_after_the_first(train_run& run, circuit_patching& p, int prev, int ind) {
    // A patched run after the first allocates nothing.
    circuit_patch c;
    c.kind = circuit_patch::path;
    c.layer = 1;
    c.head = ind;
    c.sender_head = prev;
    alloc_counter_start();
    const double ld = circuits_patch_run(run, p, &c, 1);
    CHECK(alloc_counter_stop() == 0);
    CHECK(circuits_recovery(p, ld) > 0.5);
    // A patched run starting from the corrupted run's kept projections gives the bits a
    // run through the whole layer gives: a stream patch where both runs agree (position
    // 0: before the swap, causal) forces the whole layer without changing its input.
    const std::size_t td = std::size_t(p.T * p.d);
    REQUIRE(std::equal(p.clean_x.begin() + std::ptrdiff_t(td), p.clean_x.begin() + std::ptrdiff_t(td + std::size_t(p.d)),
                       p.corrupt_x.begin() + std::ptrdiff_t(td)));
    for (circuit_patch one : {patch_of(circuit_patch::head_out, 1, ind, 5), c}) {
        circuits_patch_run(run, p, &one, 1);
        const std::vector<float> kept = p.patched_logits;
        const circuit_patch both[2] = {one, patch_of(circuit_patch::resid, 1, 0, 0)};
        circuits_patch_run(run, p, both, 2);
        CHECK(p.patched_logits == kept);
    }
    // So does a whole row's patching after the first (every sweep).
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(circuits_patching_row(run, 1, p));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("one row's patching (" << p.paths.size() << " pairs): " << ms << " ms");
    alloc_counter_start();
    REQUIRE(circuits_patching_row(run, 1, p));
    CHECK(alloc_counter_stop() == 0);
}

}  // namespace

TEST_CASE("patching: on L9's model the previous-token head acts through the induction head's keys" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    int prev = 0, ind = 0;
    lesson_heads(run, prev, ind);
    circuit_patching p;
    std::vector<double> k_path, q_path, v_path, prev_all, ind_all, spans, k_all;
    std::string error;
    for (int row = 0; row < 32; ++row) {
        if (!circuits_patching_row(run, row, p, &error)) {
            CHECK(error.find("the swap needs 4 or more") != std::string::npos);
            continue;
        }
        for (const circuit_path_recovery& pr : p.paths)
            if (pr.layer_a == 0 && pr.head_a == prev && pr.layer_b == 1 && pr.head_b == ind) {
                k_path.push_back(pr.k);
                q_path.push_back(pr.q);
                v_path.push_back(pr.v);
            }
        prev_all.push_back(p.heads[circuit_patch_head_index(p, 0, prev, p.T)]);
        ind_all.push_back(p.heads[circuit_patch_head_index(p, 1, ind, p.T)]);
        spans.push_back(p.ld_clean - p.ld_corrupt);
        k_all.push_back(p.paths_all.k);
    }
    auto stats = [](const std::vector<double>& v) {
        double s = 0, lo = 1e9;
        for (double x : v) {
            s += x;
            lo = std::min(lo, x);
        }
        return std::pair<double, double>(s / double(v.size()), lo);
    };
    MESSAGE("rows " << k_path.size() << ", LD clean − corrupt mean/min " << stats(spans).first << " / " << stats(spans).second);
    MESSAGE("path L0H" << prev << " > L1H" << ind << " K mean/min " << stats(k_path).first << " / " << stats(k_path).second
                       << ", Q " << stats(q_path).first << ", V " << stats(v_path).first);
    MESSAGE("every layer-0 head into every layer-1 head's K input at once: mean/min " << stats(k_all).first << " / "
                                                                                      << stats(k_all).second);
    MESSAGE("head outputs at every position: L0H" << prev << " " << stats(prev_all).first << ", L1H" << ind << " "
                                                  << stats(ind_all).first);
    // Measured (1500 steps, rows 0-31, 28 with a segment of 4 or more): K 1.004 mean,
    // 0.748 at least; Q 2e-7, V 0.002; LD span 31.0 mean, 21.2 at least.
    REQUIRE(k_path.size() >= 20);
    CHECK(stats(spans).second > 5.0);
    CHECK(stats(k_path).first > 0.8);
    CHECK(stats(k_path).second > 0.5);
    CHECK(std::abs(stats(q_path).first) < 0.1);
    CHECK(std::abs(stats(v_path).first) < 0.1);
    CHECK(stats(k_all).first > 0.8);  // measured 1.007, 0.747 at least
    CHECK(stats(prev_all).first > 0.8);
    CHECK(stats(ind_all).first > 0.8);
    check_patched_runs_after_the_first(run, p, prev, ind);
}

// --- Over training (circuits/timeline.hpp) -----------------------------------------

TEST_CASE("timeline: on L9's run the ICL score turns negative and the K-composition rises at the phase change" *
          doctest::skip(l9_under_sanitizers)) {
    train_run& run = lesson_induction();
    const std::string hash = train_weights_hash(run);
    circuit_timeline tl;
    const auto t0 = std::chrono::steady_clock::now();
    circuits_timeline(run, tl);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CHECK(train_weights_hash(run) == hash);  // the run is left at its weights
    const std::vector<float> first_icl = tl.icl;
    alloc_counter_start();
    circuits_timeline(run, tl);
    CHECK(alloc_counter_stop() == 0);  // a second pass allocates nothing
    CHECK(tl.icl == first_icl);
    // The last snapshot is the run's weights: its loss is train_evaluate's (summed apart).
    const float eval_loss = train_evaluate(run).loss;
    MESSAGE("last snapshot loss " << tl.loss.back() << ", train_evaluate " << eval_loss);
    CHECK(std::abs(tl.loss.back() - eval_loss) <= 1e-5f * eval_loss);
    // A quarter of the held-out rows: a quarter of the time, the same shape of curve.
    circuit_timeline quarter;
    const auto t1 = std::chrono::steady_clock::now();
    circuits_timeline(run, quarter, 32);
    MESSAGE("32 rows: " << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count()
                        << " ms; ICL at the end " << quarter.icl.back());
    CHECK(quarter.rows == 32);
    CHECK(quarter.prev_ind_k == tl.prev_ind_k);
    CHECK(quarter.icl.back() < -5.0f);
    REQUIRE(tl.S >= 2);
    MESSAGE("snapshots " << tl.S << " in " << ms << " ms; heads L" << tl.prev_layer << "H" << tl.prev_head << " > L"
                         << tl.ind_layer << "H" << tl.ind_head << "; baseline K " << tl.base_k.mean << " ± " << tl.base_k.spread);
    for (int i = 0; i < tl.S; ++i)
        MESSAGE("step " << tl.steps[std::size_t(i)] << " loss " << tl.loss[std::size_t(i)] << " icl " << tl.icl[std::size_t(i)]
                        << " K " << tl.prev_ind_k[std::size_t(i)]);
    // Measured (61 snapshots, every 25 steps): the loss plateaus at 2.6-2.7 (steps
    // 50-150) and falls below half its step-0 value (3.35) at step 325; the ICL score
    // is within 0.1 of 0 to step 125, -0.17 at 150, -2.1 at 300, -5.8 at 375 and -13.0 at
    // the end; the K-composition L0H0 > L1H3 stays 0.14-0.17 (baseline 0.144 ± 0.011)
    // to step 250, then 0.209, 0.271, 0.292 at steps 275-325 and 0.344 at the end.
    const float base = tl.base_k.mean, spread = tl.base_k.spread;
    CHECK(tl.prev_layer == 0);
    CHECK(tl.ind_layer == 1);
    int phase = -1, rise = -1;
    for (int i = 0; i < tl.S; ++i) {
        const float loss = tl.loss[std::size_t(i)], icl = tl.icl[std::size_t(i)], k = tl.prev_ind_k[std::size_t(i)];
        if (phase < 0 && loss < 0.5f * tl.loss[0])
            phase = i;
        if (rise < 0 && k > base + 5 * spread)
            rise = i;
        if (loss > 0.75f * tl.loss[0]) {  // before the drop
            CHECK(std::abs(icl) < 0.25f);
            CHECK(k < base + 4 * spread);
        }
    }
    REQUIRE(phase > 0);
    REQUIRE(rise >= 0);
    CHECK(std::abs(rise - phase) <= 3);  // the K-composition rises within a few snapshots of the drop
    for (int i = phase + 2; i < tl.S; ++i) {
        CHECK(tl.icl[std::size_t(i)] < -3.0f);
        CHECK(tl.prev_ind_k[std::size_t(i)] > base + 10 * spread);
    }
    CHECK(tl.prev_ind_k.back() > base + 15 * spread);
    // The loss per position: NaN where no held-out row counts the position (the
    // first ones: a prefix and a segment of 3 or more come before any repeat).
    const float* last = tl.pos_loss.data() + std::size_t(tl.S - 1) * std::size_t(tl.T);
    CHECK(std::isnan(last[0]));
    CHECK(std::isfinite(last[tl.T - 2]));
    CHECK(std::isnan(last[tl.T - 1]));  // the last position has no next token
}

TEST_CASE("timeline: another task has no ICL score, a one-layer model no induction pair") {
    experiment e = test::tiny_recipe(train_task::copy_offset, block_kind::attention_residual, 6, "a b c");
    e.layers = 1;
    train_run run = make_run(e);
    train_run_all(run);
    circuit_timeline tl;
    circuits_timeline(run, tl);
    CHECK(tl.S == run.snapshots_taken);
    CHECK(tl.icl_problem.find("induction task, not copy_offset") != std::string::npos);
    CHECK(std::isnan(tl.icl.back()));
    CHECK(tl.prev_layer == -1);
    CHECK(std::isnan(tl.prev_ind_k.back()));
    CHECK(tl.pairs.empty());
    CHECK(std::isfinite(tl.loss.back()));
}
