// Everything the lessons L1–L8 measure on an experiment, as plain functions of
// the experiment and its trace (forward.hpp), so that a unit test reaches every
// number a lesson shows, natively and in wasm; the views only draw them. Each
// result is cached by the experiment's version (version_cache below). The
// editing rules the lessons' controls follow are here too.
//
// Shapes, named once: n tokens, d_model, h heads, d_k = d_model / h. "Head 0"
// is layer 0's head 0, the head the lessons follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/measure.hpp"
#include "base/text_util.hpp"
#include "model/forward.hpp"
#include "model/tiled.hpp"
#include "spec/experiment.hpp"

namespace attn {

// A value computed from one version of the experiment (and a few view
// parameters folded into `key`), recomputed only when either changes.
// `made` counts the values computed: with the cache's address it names the
// value now held (what a picture drawn from it is keyed by).
template <class T>
struct version_cache {
    std::uint64_t version = 0;
    std::uint64_t key = 0;
    std::uint64_t made = 0;
    bool valid = false;
    T value{};
    template <class Make>
    const T& get(std::uint64_t v, std::uint64_t k, Make make) {
        if (!valid || v != version || k != key) {
            value = make();
            ++made;
            version = v;
            key = k;
            valid = true;
        }
        return value;
    }
};

// ‖a − b‖ measures: max |a − b| (∞ when the shapes differ), ‖a‖_F, ‖a − b‖_F.
double matrix_max_abs_diff(const matrix& a, const matrix& b);
double matrix_frobenius(const matrix& m);
double matrix_frobenius_diff(const matrix& a, const matrix& b);

// What an experiment's interventions (ablated heads, masked edges) do to its
// output: Δy = y − y0 (with them minus without), max |Δy| and ‖Δy‖_F/‖y0‖_F
// (0 when y0 is all zeros). A NaN anywhere in Δy makes both NaN: a broken
// output is never reported as unaffected. Shapes that differ give ∞ and no diff.
struct intervention_effect {
    matrix diff;
    double max_abs = 0, relative = 0;
    double diff_sq = 0, base_sq = 0;  // ‖Δy‖_F², ‖y0‖_F²: what several maps' relative size adds up from
};
intervention_effect measure_intervention_effect(const matrix& y, const matrix& y0);

// The same measure of any two matrices of one shape, b − a: the A/B compare's
// B − A (the effect above is y − y0). A cell equal in both, a masked −∞ in
// particular, differs by exactly 0.
intervention_effect measure_difference(const matrix& b, const matrix& a);

// --- A/B compare: a pinned experiment A against the current one, B -------------------
// Why A and B cannot be compared at a stage, nor B's heads patched from A's
// (compare_patch.hpp): one kind a problem, each worded once (compare_problem_text).
enum class compare_problem { none, tokens, layers, heads, kv_heads, d_model, maps, stage, shape, training, no_trace };
// What needs A and B alike: the sentence names it ("compare needs the same shape").
enum class compare_use { compare, patching };

// Why A and B cannot be compared at a stage, or kind::none when they can.
struct compare_mismatch {
    using kind = compare_problem;
    kind what = kind::none;
    int a = 0, b = 0;   // tokens, layers, (K/V) heads, d_model or maps of A and B; training: A's step, of b
    std::string label;  // kind::shape: the map; kind::stage: why A has no such stage
    int a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;  // kind::shape
    bool operator==(const compare_mismatch&) const = default;
};
// A problem of counts (what, A's, B's), or of none: patching's (compare_patch.hpp).
inline compare_mismatch compare_counts_mismatch(compare_problem what, int a = 0, int b = 0) {
    compare_mismatch m;
    m.what = what, m.a = a, m.b = b;
    return m;
}
// The shapes every stage's maps follow: tokens, layers (A must have `layer`), heads.
compare_mismatch compare_trace_mismatch(const trace& a, const trace& b, int layer);
// The first of tokens, layers, heads that differ between A and B (none: the same shape).
compare_mismatch compare_shape_mismatch(int a_tokens, int b_tokens, int a_layers, int b_layers, int a_heads, int b_heads);
// One map of A against the same map of B.
compare_mismatch compare_map_mismatch(const std::string& label, const matrix& a, const matrix& b);
// The sentence for m ("" for kind::none) in English or 中文, without a closing
// stop: "A has 6 tokens, B has 8: compare needs the same shape", "A 有 6 个词元，
// B 有 8 个：对比需要相同的形状"; with compare_use::patching, "patching needs …".
std::string compare_problem_text(const compare_mismatch& m, compare_use use = compare_use::compare,
                                 text_language lang = text_language::en);
// The English sentence for m: tests, tools, logs and the page's hook.
inline std::string compare_mismatch_text(const compare_mismatch& m) { return compare_problem_text(m); }

// A stage's compare: B − A of each of its maps (per head, in drawing order) and
// the summary over all of them: max |B − A| and ‖B − A‖_F/‖A‖_F (NaN when any
// difference is NaN; 0 relative when A is all zeros).
struct compare_result {
    compare_mismatch mismatch;  // what == none: the diffs below are meaningful
    std::vector<intervention_effect> maps;
    double max_abs = 0, relative = 0;
    double top = 0;  // the largest finite |value| of A's and B's maps: the one colour range they share
};
// One map of A against the same map of B (of one shape): its B − A into r.maps, and r.top widened.
void compare_add_map(compare_result& r, const matrix& a, const matrix& b);
// Adds up the maps' differences into r's summary.
void compare_summarise(compare_result& r);

// --- L1 soft lookup: query row i of head 0 ----------------------------------------
struct lookup_measure {
    std::vector<float> scores;   // (n) scaled, masked scores of row i
    std::vector<float> weights;  // (n) its softmax
    double row_sum = 0, max_weight = 0, entropy = 0;
    bool one_hot = false;  // a single weight of exactly 1: a hard lookup
};
lookup_measure measure_lookup(const trace& t, int row);
// L1's controls: softmax or argmax, and the temperature (softmax only).
experiment lesson_lookup_edit(const experiment& e, bool argmax, float temperature);

// --- L2 why √d_k -----------------------------------------------------------------
struct sqrt_dk_measure {
    int dk = 0;
    dot_stats stats;                               // `samples` dot products of unit-normal vectors of dimension dk
    histogram raw, scaled;                         // 41 bins over ±4√dk, before and after ÷√dk: one axis
    double entropy_raw = 0, entropy_scaled = 0;    // mean softmax-row entropy over rows of 8 of them
    double jacobian_raw = 0, jacobian_scaled = 0;  // mean ‖softmax Jacobian‖_F over the same rows
};
sqrt_dk_measure measure_sqrt_dk(int dk, int samples = 4000, std::uint64_t seed = 7);

// --- L3 heads are subspaces ------------------------------------------------------
struct heads_cost {
    int heads = 0, d_k = 0;
    std::int64_t params = 0, flops_matmul = 0;
};
struct subspace_measure {
    std::vector<heads_cost> by_heads;  // every head count dividing d_model, at this n and d_model (kv_heads = heads)
    heads_cost one_head, this_many;    // heads = 1, and the experiment's own
    bool specialised = false;          // weights = specialised: then the two numbers below
    double prev_token_weight = 0;      // head 0's mean weight on the previous token (rows 1 … n−1)
    double self_weight = 0;            // head 1's mean weight on the token itself (rows 1 … n−1)
};
subspace_measure measure_subspaces(const experiment& e, const trace& t);

// --- L4 order needs positions ----------------------------------------------------
struct order_measure {
    experiment reversed;     // the same, tokens in reverse order (no edits, no masked edges)
    trace reversed_trace;    // its trace
    double output_diff = 0;  // max |y_i − y'_{n−1−i}|: 0 when order does not matter
    double weight_diff = 0;  // the same for head 0's weights, rows and columns permuted
};
order_measure measure_order(const experiment& e, const trace& t);
struct rope_shift_measure {
    int row = 0, key = 0;                  // the score followed: (row, row − 1)
    float score = 0, score_unshifted = 0;  // at pos_offset and at pos_offset 0
    double score_diff = 0;                 // |score − score_unshifted|: 0 under RoPE
    double q_moved = 0;                    // max |Q_rot − Q_rot at offset 0|: the vectors did turn
};
rope_shift_measure measure_rope_shift(const experiment& e, const trace& t, int row);
experiment lesson_order_edit(const experiment& e, positional pos);
experiment lesson_shift_edit(const experiment& e, int pos_offset);

// --- L5 cost and its remedies ----------------------------------------------------
struct cost_measure {
    std::vector<float> gflops;  // score + weighted-sum GFLOPs for n = 256, 512, … 8192
    double ratio_32x = 0;       // score FLOPs at 128k tokens over 4k tokens
    double gb_scores_128k = 0;  // one head's (n, n) fp32 scores at 128k tokens
};
cost_measure measure_cost(const experiment& e);
struct tiled_measure {
    std::vector<tiled_step> steps;  // head 0, tile × tile, in visiting order
    double max_diff = 0;            // max |tiled − plain|
    std::size_t tiled_bytes = 0, plain_bytes = 0;
};
tiled_measure measure_tiled(const experiment& e, const trace& t, int tile);
struct decode_measure {
    bool active = false;                                 // decode > 0
    int cache_rows = 0;                                  // tokens in the KV cache
    double max_diff = 0;                                 // max |decoded − full causal pass| (heads side by side, before W_O)
    double bytes_mha = 0, bytes_gqa = 0, bytes_mqa = 0;  // K and V bytes one step reads, kv_heads = h, the experiment's, 1
    double bytes_read_step = 0;                          // what the last step of the experiment read
};
decode_measure measure_decode(const experiment& e, const trace& t);
experiment lesson_decode_edit(const experiment& e, int tokens);

// --- L7 weights are not explanations --------------------------------------------
struct bright_cell_measure {
    int row = 1, col = 0;  // head 0's brightest off-diagonal cell
    double weight = 0;
    double effect = 0;  // ‖Δy‖/‖y‖ when that edge is masked
};
bright_cell_measure measure_bright_cell(const experiment& e, const trace& t);
struct cancel_measure {
    double delta_one = 0, delta_both = 0;  // ‖Δy‖ zeroing head 0, and heads 0 and 1
};
cancel_measure measure_cancel(const experiment& e, const trace& t);
struct sink_measure {
    double weight = 0;      // head 0's mean weight on token 0 (rows 1 … n−1)
    double value_norm = 0;  // Σ |V(0, c)|: the sink carries nothing
    bool masked = false;    // the experiment masks edges (the sink button's state)
};
sink_measure measure_sink(const experiment& e, const trace& t);
// The sink button: mask column 0 of every head (rows 1 … n−1), or clear the masked edges.
experiment lesson_sink_edit(const experiment& e, int n);

// --- L8 three classic bugs -------------------------------------------------------
struct bugs_measure {
    trace correct;  // the same model without the three bugs
    double min_row_sum = 0;
    int nan_count = 0, correct_nan_count = 0;
    int overflow_row = -1, overflow_col = -1;  // first logit (÷ temperature) past fp16's exp limit 11.09
    float overflow_logit = 0;
    double output_norm = 0, correct_output_norm = 0, output_diff = 0;
    matrix diff;  // (n, d_model) output − correct output
};
bugs_measure measure_bugs(const experiment& e, const trace& t);
// L8's switches. Dropping x − max only overflows in half precision: it turns fp16 on.
experiment lesson_bugs_edit(const experiment& e, bool mask_after, bool no_max, bool no_wo);

}  // namespace attn
