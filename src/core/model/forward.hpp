// The forward pass of a small transformer, recorded step by step.
//
// Shapes, named once:
//   n        tokens
//   d        d_model, width of the residual stream
//   h        query heads, d_k = d / h per head
//   g        kv_heads (K/V heads); query head i reads K/V head i / (h / g)
//   f        FFN width, 4·d
//
// One layer, for block = attn (the article's attention alone):
//   x (n, d) ─┬─ ·W_q (d, d)    → Q (n, d)    ─ split → Q_i (n, d_k) ─ RoPE ─┐
//             ├─ ·W_k (d, g·d_k) → K (n, g·d_k) ─ split → K_j (n, d_k) ─ RoPE ─┤
//             └─ ·W_v (d, g·d_k) → V (n, g·d_k) ─ split → V_j (n, d_k)         │
//   scores_i = Q_i·K_jᵀ (n, n) → scaled (·1/√d_k, none or custom) → masked (-inf)
//   → weights = softmax(masked / temp) → out_i = weights·V_j (n, d_k)
//   → concat (n, d) → attn_out = concat·W_o (n, d) (or concat when W_O is off)
//   the layer's output is attn_out.
// For block = full (pre-norm, so ablation has downstream effects):
//   a = attention(rmsnorm(x)); r = x + a; output = r + relu(rmsnorm(r)·W_1)·W_2
//
// Positions: sinusoidal encodings are added to the embeddings before layer 0;
// RoPE rotates every Q_i and K_j row by its position (pos_offset + row).
// Precision fp16 / bf16 rounds every stored intermediate (round to nearest even).
//
// Numerics (the same rules in docs/numerics.md): IEEE semantics wherever a
// value is shown, identical on every kernel set (sse2, avx2, avx512f, wasm).
//   * NaN stays NaN through every kernel and fast path; overflow gives ±inf
//     where the precision would (fp32 e^x past x ≈ 88.72, fp16 past ≈ 11.09).
//   * softmax, stable: e^(x − max) / Σ; without max-subtraction (the bug
//     mode): e^x / Σ. The max skips NaN. In fp16/bf16 the steps are rounded as
//     stored: x − max, each e^(·), each partial sum, each quotient.
//   * A row whose every entry is −inf (masked, or a scaled score overflowed to
//     −inf) gets weights 0: a fully masked row. A row with any NaN gets NaN
//     weights (never shown as masked); its row sum and entropy are NaN.
//   * argmax: 1 at the first of equal maxima, 0 elsewhere; NaN row if any
//     entry is NaN; zeros if every entry is −inf.
//   * RMSNorm: x / sqrt(mean(x²) + 1e-6), summed in double, no learned gain.
//   * Entropy −Σ p ln p (nats), 0·ln 0 = 0, NaN if any p is NaN or ±inf.
//   * nan_count / inf_count count every matrix the trace stores once: x0; per
//     layer q, k, v, q_rot and k_rot (RoPE), concat, attn_out (W_O on), the
//     block = attn_res residual, the block = full matrices (normed, residual,
//     ffn_normed, ffn_hidden, ffn_out, output); per head scores, scaled, weights, out, row_sums,
//     row_entropies; decode.out. Not counted, being copies: each head's q, k,
//     v (columns of the layer's), `masked` (scaled with the mask's −inf), a
//     layer's input, attn-only output and the trace's output.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/matrix.hpp"
#include "model/decode.hpp"
#include "spec/experiment.hpp"

namespace attn {

struct layer_weights {
    matrix w_q;       // (d, d)
    matrix w_k, w_v;  // (d, g·d_k)
    matrix w_o;       // (d, d)
    matrix w_1;       // (d, f)   block = full only
    matrix w_2;       // (f, d)   block = full only
    matrix w_3;       // (d, f)   a llama block's SwiGLU up projection (empty for ours)
};

// The parameters an experiment's seed generates (after its edits are applied).
struct model_weights {
    matrix embeddings;  // (n, d): one row per token, drawn from hash(seed, token text)
    std::vector<layer_weights> layers;
};

struct head_trace {
    int kv_group = 0;  // which K/V head this query head reads
    matrix q, k, v;    // (n, d_k) after RoPE (q, k) when it is on
    matrix scores;     // (n, n) Q·Kᵀ
    matrix scaled;     // (n, n) scores · scale
    matrix masked;     // (n, n) -inf where the mask hides key j from query i (before softmax) — or scaled (mask after)
    matrix weights;    // (n, n) softmax (or argmax) of masked / temp, masked after softmax if asked
    matrix out;        // (n, d_k) weights·V (zero when the head is ablated)
    std::vector<float> row_sums;       // (n) Σ_j weights(i, j)
    std::vector<float> row_entropies;  // (n) −Σ p log p, natural log
    bool ablated = false;
};

struct layer_trace {
    matrix input;         // (n, d) the residual stream entering the layer
    matrix normed;        // (n, d) rmsnorm(input) for block = full, else = input
    matrix q, k, v;       // (n, d), (n, g·d_k), (n, g·d_k) projections before RoPE
    matrix q_rot, k_rot;  // the same after RoPE (= q, k without it)
    std::vector<head_trace> heads;
    matrix concat;      // (n, d)
    matrix attn_out;    // (n, d) concat·W_o, or concat when W_O is off
    matrix residual;    // (n, d) input + attn_out            (block = full)
    matrix ffn_normed;  // (n, d) rmsnorm(residual)           (block = full)
    matrix ffn_gate;    // (n, f) ffn_normed·W_1ᵀ             (llama: SwiGLU's gate)
    matrix ffn_up;      // (n, f) ffn_normed·W_3ᵀ             (llama: SwiGLU's up)
    matrix ffn_hidden;  // (n, f) relu(ffn_normed·W_1)        (block = full; llama: silu(gate)·up)
    matrix ffn_out;     // (n, d) ffn_hidden·W_2              (block = full)
    matrix output;      // (n, d) what the next layer reads
};

// KV-cache decoding of layer 0, token by token, up to experiment.decode tokens.
// It follows the plain causal path (scale as set, stable softmax; no edge masks,
// ablation or temperature; a custom scale of 0 reads as 1/√d_k), so its rows
// equal the full pass's under mask=causal.
struct decode_trace {
    int steps = 0;                        // tokens consumed
    kv_cache cache;                       // after the last step: kv_heads × (steps, d_k)
    matrix out;                           // (steps, d) each step's heads side by side, before W_O, rounded to the precision
    std::vector<std::size_t> bytes_read;  // (steps) bytes of cached K and V each step read
};

struct trace {
    std::vector<std::string> tokens;
    model_weights params;
    matrix positions;  // (n, d) sinusoidal encodings (zeros unless pos = sin)
    matrix x0;         // (n, d) embeddings + positions, rounded to the precision
    std::vector<layer_trace> layers;
    matrix output;        // (n, d) the last layer's output
    matrix final_normed;  // (n, d) the final norm of output  (llama; empty otherwise)
    matrix logits;        // (n, vocab) the classifier's       (llama; empty otherwise)
    decode_trace decode;  // empty when experiment.decode is 0
    int nan_count = 0;    // over every stored matrix (see "Numerics" above)
    int inf_count = 0;    // ±inf, likewise
};

// Activation patching: one head's output (head_trace::out, (n, d_k): weights·V
// before W_O) replaced by other rows — another experiment's same head, say —
// at every position or at one, and everything after it computed from there.
// The rows are rounded to the experiment's precision as they are stored. A
// patched head that is ablated takes the rows too: the patch is what it outputs.
struct head_patch {
    int layer = -1;                // < 0: no patch
    int head = 0;                  // query head
    int position = -1;             // < 0: every row; else that row alone (the others are the head's own)
    const matrix* rows = nullptr;  // (n, d_k), at least; not owned, read while the pass runs
    bool active() const { return layer >= 0 && rows; }
};

// What a trace keeps. The (n, n) matrices of each head (scores, scaled, masked,
// weights: 16 MB per head at 1024 tokens) are most of a trace; a head whose
// matrices are not kept computes them, takes its row sums, entropies and out,
// and drops them (empty matrices), so memory stays bounded by one head's.
inline constexpr int heads_side_by_side_tokens = 256;
struct trace_options {
    // (layer, head) → keep that head's (n, n) matrices. Empty: keep all.
    std::function<bool(int layer, int head)> keep_head_matrices;
    // A head whose output is replaced (above). None (the default): the pass is
    // the plain one, bit for bit.
    head_patch patch;
    // The heads of a layer side by side on this many threads (base/threads):
    // each head writes only its own trace and columns, so the bits are the same
    // for any count. More than one only where it costs no memory: every head's
    // matrices kept (the trace holds them anyway), or at most
    // heads_side_by_side_tokens tokens (a head's working (n, n) matrices are
    // then 1 MB at most a thread).
    int threads = 1;
    // A head whose matrices are not kept keeps its softmax weights nonetheless
    // (one of its four (n, n) matrices): what an overview of every head reads.
    bool keep_weights = false;
    static trace_options lean() {
        trace_options o;
        o.keep_head_matrices = [](int, int) { return false; };
        return o;
    }
};

// Bytes the trace of e over n tokens stores (matrices and vectors; params
// included), computed before anything is allocated. lean: no head keeps its
// (n, n) matrices.
std::size_t trace_bytes(const experiment& e, int n, bool lean = false);

// Peak bytes recomputing e over n tokens needs where the page holds one trace
// at a time: the trace, plus the lean baseline when e ablates heads or masks
// edges (the comparison without interventions needs only its output), plus one
// head's (n, n) working matrices.
std::size_t experiment_peak_bytes(const experiment& e, int n);

// The same for e over its own tokens; 0 when e is not valid.
std::size_t experiment_peak_bytes(const experiment& e);

// From about this peak a recompute takes seconds in the page, which first
// draws a frame that says so instead of freezing without a word.
constexpr std::size_t slow_recompute_bytes = std::size_t(256) << 20;

// The page's wasm heap stops at 2 GB; experiment_peak_bytes of every valid
// experiment stays below this (a test checks the largest).
constexpr std::size_t page_memory_budget = std::size_t(1536) << 20;

// Parameters for e, deterministic in e.seed and the token texts; e.edits applied.
// Besides weights=random, three constructed models show one behaviour each (on
// top of the random draw, in every layer; channel 0 of every embedding is set to
// 1, a constant "bias" feature the constructions read):
//   specialised  head 0 attends to the previous token (with RoPE: q is constant
//                and k is q turned by one position, so q·R_{j-i}k peaks at j = i-1),
//                head 1 to the token itself (W_q = W_k, scaled up)
//   cancel       head 1 copies head 0's W_q, W_k and W_O rows and negates its W_v:
//                two identical bright heatmaps whose contributions sum to zero
//   sink         the first token carries a marker (channel 1) that every query
//                matches and has no content (V = 0): an attention sink
model_weights model_generate(const experiment& e, const std::vector<std::string>& tokens);

// Sets the values edits name (value_edit, experiment.hpp) in w; an edit of X
// past w's rows is skipped. e's edits are checked against its shapes by
// experiment_validate.
void model_apply_edits(model_weights& w, const std::vector<value_edit>& edits);

// Sinusoidal encodings for n positions starting at pos0: PE(p, 2i) = sin(p / 10000^(2i/d)),
// PE(p, 2i+1) = cos(same angle). Computed in double, rounded once to float.
matrix positions_sinusoidal(int n, int d, int pos0);

// The heads of one layer from lt.q_rot, lt.k_rot and lt.v (set by the caller):
// each head's trace under e's mask, scale, softmax, temperature, edges,
// ablation and opt's patch, and lt.concat — the part of a layer between its
// projections and W_O, for a block whose projections are computed elsewhere
// (llama/forward.hpp). e's shapes must match lt's; e need not be valid.
void forward_heads(const experiment& e, int layer, layer_trace& lt, const trace_options& opt = {});

// Runs e; e must be valid (experiment_validate(e) empty).
trace forward(const experiment& e, const trace_options& opt = {});

// Runs e with parameters given (e.g. to compare an ablation on the same weights).
trace forward_with(const experiment& e, const std::vector<std::string>& tokens, const model_weights& params,
                   const trace_options& opt = {});

// The output (n, d) of e's pass with patch p, computed from t, e's own trace
// (t.tokens, t.params: the weights e was traced with, trained ones included):
// the layers before p.layer are t's, and of p.layer only the rows the patch
// reaches are recomputed (its heads' outputs are t's, the patched rows
// replaced; W_O and the block's tail are row by row). The same numbers as
// forward_with(e, t.tokens, t.params, {.patch = p}).output, up to the last bit
// of how the kernels group rows; p must name a head of e, with p.rows (n, d_k).
matrix forward_patched_output(const experiment& e, const trace& t, const head_patch& p);

// Its two parts, for a caller that spreads the work over time: the output of
// the patched layer p.layer alone, and then layers [first, last) of e over
// params from their input x (n, d), nothing kept but their output.
matrix forward_patched_layer(const experiment& e, const trace& t, const head_patch& p);
matrix forward_layers(const experiment& e, const model_weights& params, int first, int last, matrix x);

}  // namespace attn
