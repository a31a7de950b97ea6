// Training the playground's own model on a toy task (task.hpp), in fp32.
//
// Shapes, named once:
//   B  batch rows        T  seq (tokens per row)    V  vocab
//   d  d_model           h  heads, d_k = d / h      g  kv_heads (query head i reads K/V head i / (h / g))
//   f  FFN width, 4·d    L  layers
//
// The model is forward.hpp's, with what training needs around it:
//   x0 = W_e[token] (+ sinusoidal or learned positions W_p[t]) (T, d)
//   L layers exactly as forward.hpp (attention only, or pre-norm residual + FFN; RoPE, masks, GQA, W_O on/off)
//   logits = output · W_u (T, V);  loss = mean cross-entropy over the counted positions of the batch
// A trained model is an ordinary experiment: train_weights_for() gives the
// model_weights forward_with() traces, ablates and edits (its output equals the
// training forward's, tested), with learned positions folded into the rows.
//
// One buffer holds every parameter, one every gradient, two the AdamW moments;
// activations and scratch are laid out once in train_init. After the first step
// a step allocates nothing (tested with a counting operator new).
//
// Determinism: a run is a pure function of its recipe. The same build gives
// bit-identical weights at every step; every wasm engine runs the same
// instructions (simd128 without relaxed ops), so Node and Chromium agree to the
// bit. Native kernel sets (sse2, avx2 + FMA, avx512f) differ in the last bits;
// their loss curves agree to a tolerance the tests state. The thread count never
// changes a bit: rows are summed in fixed groups (train_groups), each group in
// row order, the groups in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/forward.hpp"
#include "spec/experiment.hpp"

namespace attn {

// Where one parameter matrix lives in the parameter (and gradient) buffer.
struct train_tensor {
    std::size_t offset = 0;
    int rows = 0, cols = 0;
    std::size_t size() const { return std::size_t(rows) * std::size_t(cols); }
};

struct train_layer_tensors {
    train_tensor w_q, w_k, w_v, w_o, w_1, w_2;  // w_o absent (size 0) with wo=off; w_1, w_2 with block=full only
};

struct train_layout {
    train_tensor w_e;  // (V, d) token embeddings
    train_tensor w_p;  // (T, d) learned positions (pos=learned only)
    std::vector<train_layer_tensors> layers;
    train_tensor w_u;  // (d, V) unembedding
    std::size_t total = 0;
};

struct train_point {
    int step = 0;       // the step whose batch this is (0-based)
    float loss = 0.0f;  // mean cross-entropy over the batch's counted positions
    float acc = 0.0f;   // argmax == target over the same positions
    float lr = 0.0f;    // the learning rate the update used
    float grad_norm = 0.0f;
};

// The weights at one step and the optimizer state, enough to resume exactly.
struct train_snapshot {
    int step = 0;  // steps taken
    std::vector<float> params, adam_m, adam_v;
};

// Loss and accuracy on the held-out set, optionally with one head replaced.
struct train_eval_result {
    float loss = 0.0f, acc = 0.0f;
};

// One head's output replaced in every position: by zeros, or by a given vector
// (d_k). `next` chains more of them (several heads ablated at once).
struct head_override {
    int layer = -1, head = -1;
    const float* value = nullptr;  // nullptr: zeros
    const head_override* next = nullptr;
};

// Where one row's activations live inside its slice of train_run::acts (offsets in floats).
struct train_layer_slots {
    std::size_t in, normed, inv1, qh, kh, vh, att, concat, attn_out, r, fnormed, inv2, hid;
};
struct train_row_slots {
    std::vector<train_layer_slots> layers;
    std::size_t out = 0, logits = 0, total = 0;
};
struct train_scratch_slots {
    std::size_t dx, dnormed, dtmp, dconcat, dhead, datt, dscores, dq, dk, dv, dQ, dK, dV, dhid, dlogits, total;
};

// A batch's rows are cut into train_groups groups (fewer when B is smaller): rows
// [k·B/G, (k+1)·B/G) form group k. Each group sums its rows' gradients in row
// order into its own buffer, and the update adds the groups in order 0, 1, …:
// the groups are the work a thread takes, so the weights are the same bits for
// any thread count (1, 2, 3, 8 …) and for a step taken in pieces.
inline constexpr int train_groups = 8;

// Where one group of the step in progress stands: the row and layer of its next
// piece, and its sums so far.
struct train_group_cursor {
    enum phase_kind { forward, logits, backward, done } phase = forward;
    int row = 0, layer = 0;  // row: the batch row (absolute)
    double loss = 0.0, correct = 0.0;
};

// Where the step in progress stands (train_step_piece): the phase, each group's
// cursor, the batch's counted positions. Idle between steps.
struct train_cursor {
    enum phase_kind { idle, rows, update } phase = idle;
    int total = 0;                     // counted positions of the batch
    float weight = 0.0f;               // 1 / total: each position's share of the loss
    double loss = 0.0, correct = 0.0;  // the groups' sums, added in order when the rows are done
    train_group_cursor group[train_groups];
};

struct train_run {
    experiment e;
    int B = 0, T = 0, V = 0, d = 0, h = 0, g = 0, dk = 0, f = 0, L = 0;
    train_layout layout;
    std::vector<float> params, grads, adam_m, adam_v;
    // Groups 1 … groups−1's gradients, (groups − 1) × params (group 0's are `grads`).
    std::vector<float> group_grads;
    int groups = 1;
    std::vector<double> chunk_squares;  // the squared gradients summed per 2^16 parameters, for the norm
    // The threads train_step uses (base/threads.hpp; not part of the recipe: every
    // count gives the same bits). 1 unless the caller sets it.
    int threads = 1;
    int threaded_pieces = 1;  // pieces each group takes per threaded train_step_piece (about 1 ms of work)
    // Each weight matrix transposed at the same offset, refreshed before each
    // batch where the kernels would otherwise transpose it for every row
    // (kernel_matmul_bt_transposes): the backward's dY·Wᵀ reads it.
    std::vector<float> params_t;
    int step = 0;                    // steps taken so far
    std::vector<train_point> curve;  // one point per step taken (reserved for all steps)
    // Snapshots at steps 0, every, 2·every, … and the last step: at most
    // train_limits::max_snapshots, and fewer when they would need more than
    // train_snapshot_bytes. Their memory is taken in train_init. Going back
    // (train_restore) keeps them all: the run's furthest step (`reach`) stays
    // reachable, and stepping again over a kept one takes it again to the same bits.
    std::vector<train_snapshot> snapshots;
    int snapshot_every = 1;
    int snapshots_taken = 0;
    // Dense snapshots between the grid's, where the loss falls fastest (the drop):
    // at a step first reached, not on the grid, when the loss smoothed over
    // train_dense_span steps has moved by train_dense_change (in log) since the
    // kept snapshot before. At most train_limits::max_dense_snapshots, in what
    // train_snapshot_bytes leaves beside the grid's; in step order.
    std::vector<train_snapshot> dense;
    int dense_taken = 0;
    int reach = 0;                // the furthest step the run has taken (curve.size())
    float fast_loss = 0.0f;       // the smoothed loss at `reach` (train_dense_span)
    float fast_loss_kept = 0.0f;  // the same at the latest snapshot kept by then
    std::string error;            // why training stopped early (a NaN loss), else empty
    train_cursor cursor;

    // Laid out once by train_init; see train.cpp.
    std::vector<int> tokens, targets;  // (B, T)
    std::vector<unsigned char> counted;
    std::vector<unsigned char> hidden;                 // (T, T) 1 where the mask hides key j from query i
    std::vector<float> rope_cos, rope_sin, positions;  // (T, d) per lane ×2 (train.cpp), (T, d) sinusoidal
    std::vector<int> eval_tokens, eval_targets;        // (train_eval_rows, T) the held-out set
    std::vector<unsigned char> eval_counted;
    train_row_slots slots;
    train_scratch_slots scratch_slots{};
    std::vector<float> acts;     // (B, slots.total) what backward reads
    std::vector<float> scratch;  // gradients of one row's activations, one slice per group
};

struct train_init_result {
    std::optional<train_run> run;  // set only when errors is empty
    std::vector<std::string> errors;
};

// A run of e's recipe, at step 0. Checks e (and the memory the run needs) first.
train_init_result train_init(const experiment& e);

// The bytes train_init would take for e's run (at most train_run_max_bytes, or it
// refuses), computed without allocating; 0 when e has no recipe or is not valid.
std::size_t train_run_bytes(const experiment& e);

// The largest batch whose run fits train_run_max_bytes with e's shape and recipe
// (0 when not even a batch of 1 does): the one batch limit. train_init refuses
// above it, and the page and `attn check` with it (session_state_problems), with
// train_run_problem's words.
int train_batch_max(const experiment& e);

// Why e's run cannot be made for its memory ("batch must be at most 49 for this
// shape: ..."), or "" when it fits (or e has no valid recipe).
std::string train_run_problem(const experiment& e);
// Parameters, moments, the row groups' gradients (train_groups), activations,
// snapshots. 640 MB: the groups' gradients made the largest shape's run with
// batch=31 (the largest under the earlier 512 MB) 601 MB, and its links still open.
inline constexpr std::size_t train_run_max_bytes = std::size_t(640) << 20;

// One AdamW step on the next batch. False when the run is finished (step == steps)
// or stopped: a loss that is not finite leaves the weights as they were and sets
// run.error ("loss became NaN at step 12: ...").
bool train_step(train_run& run);

// A step in pieces, each about one layer of one row (forward or backward), so
// that a page can draw between them: begin (the batch; each group zeroes its gradients in its first piece), then
// per row L forward pieces, the logits and loss, L backward pieces, then the
// update. With run.threads > 1 a piece runs that many groups side by side, each
// a few pieces (about a millisecond of work: threaded_pieces); train_step runs
// every group to its end at once. `step` when that piece completed a step, `none` when the run is
// finished or stopped (as train_step's false), else `partial`. Pieces give the
// bits of whole steps (tested); train_step is pieces until a step completes.
// The weights change only in the update piece, so abandoning a step in
// progress (train_step_abandon: nothing more than resetting the cursor) leaves
// the model as it was. Anything that runs the training forward on other rows
// (train_forward_rows, train_evaluate, train_restore) abandons it first: those
// rows' activations are the step's.
enum class train_piece { none, partial, step };
train_piece train_step_piece(train_run& run);
bool train_step_in_progress(const train_run& run);
void train_step_abandon(train_run& run);

// Steps until finished or stopped.
void train_run_all(train_run& run);

// Steps until the step the run's experiment names (train_settings::trained_steps:
// `trained=` when the link says so, else `steps`), or stopped: the model a link names.
void train_run_named(train_run& run);

// The loss and its gradient (into run.grads) on the batch of run.step, without
// updating anything. For the tests and the reference check.
float train_loss_and_grad(train_run& run);

// The held-out set (train_eval_rows rows from train_seed's separate stream).
// With `visit`, it is called after the forward of each batch of those rows with
// the first row's index and their count, so that the caller may read the batch's
// attention (train_attention) before the next one is computed.
inline constexpr int train_eval_rows = 128;
train_eval_result train_evaluate(train_run& run, const head_override* ov = nullptr,
                                 const std::function<void(int first, int rows)>& visit = {});

// The held-out evaluation in pieces of one row each (its forward and loss), the
// sums kept between pieces: for a page that draws between them. The result is
// train_evaluate's to the bit (the same rows summed in the same order). A piece
// abandons a step in progress (train_forward_rows), and a job holds no
// activations between pieces, so steps may run between them; the caller starts
// the job again when the weights changed.
struct train_eval_job {
    std::vector<head_override> heads;  // heads replaced (each piece links their `next`)
    std::vector<int> tokens, targets;  // (train_eval_rows, T) other rows; empty: the run's held-out set
    std::vector<unsigned char> counted;
    int row = 0;  // the next row
    double loss = 0.0, correct = 0.0;
    int total = 0;
    bool done() const { return row >= train_eval_rows; }
    train_eval_result result() const;
};
// One row (nothing when done); its activations are then batch row 0's
// (train_attention(run, 0, layer)) until the next forward.
void train_evaluate_piece(train_run& run, train_eval_job& job);

// A job over another task's held-out rows (train_evaluate_task's).
train_eval_job train_evaluate_task_job(const train_run& run, train_settings task);

// The same model on another task's held-out rows (drawn as that task's own held-out
// set, at the run's seq and vocabulary): a model tested off its training distribution.
train_eval_result train_evaluate_task(train_run& run, train_settings task);

// Back to snapshot i (weights, optimizer state, step): stepping on from there
// repeats the original run bit for bit. Nothing is forgotten: the later
// snapshots and the curve beyond the step stay (the curve holds every step
// reached, `reach` of them), so a later kept step is restored as quickly.
void train_restore(train_run& run, int snapshot_index);

// Every kept snapshot's step (the grid's taken and the dense ones), ascending.
std::vector<int> train_kept_steps(const train_run& run);

// The step of the latest kept snapshot at or before `step` (0 at least: step 0 is kept).
int train_kept_before(const train_run& run, int step);

// The grid snapshot kept at exactly `step` (its index in run.snapshots), or -1.
int train_snapshot_index(const train_run& run, int step);

// To the kept snapshot (grid or dense) at exactly `step`, back or forward; false
// when none is kept there.
bool train_restore_step(train_run& run, int step);

// The dense snapshots' rule (train_run::dense): the loss smoothed as the
// Train panel's curve (train_loss_ema_next) over a quarter of the grid's
// spacing, and a dense snapshot where it moved by 0.25 in log (about 22 %)
// since the kept one before.
int train_dense_span(int snapshot_every);
inline constexpr float train_dense_change = 0.25f;

// The train loss smoothed for its log-scale plot: an exponential moving average
// of log(loss) (losses below 1e-6 count as 1e-6, the plot's floor; NaN stays
// NaN), each step weighted 2 / (span + 1), started at the first loss rather than
// at 0; given back as losses. On the log scale it runs through the middle of the
// step-to-step noise, so a fall of the loss reads as a fall. The span is a
// fiftieth of the run (at least 1 step). train_loss_ema_next takes one step
// (`previous`: the smoothed loss before, ignored for the first point).
int train_loss_ema_span(int steps);
float train_loss_ema_next(float previous, float loss, int span, bool first);

// FNV-1a over the parameter bytes, as 16 hex digits.
std::string train_weights_hash(const train_run& run);

// The weights hash of the model a recipe's link names, trained here from step 0
// to `steps` steps of its run (as `trained=steps` would say; the link's own
// trained= or steps when steps < 0) on `threads` threads (the same bits on any
// count); or, hash empty, why not (the link's first problem, the run's error).
struct train_link_hash_result {
    std::string hash, error;
};
train_link_hash_result train_link_hash(std::string_view recipe, int steps, int threads);

// The model_weights of the trained model for these tokens (task symbols), for
// forward_with(run.e, tokens, ...): embedding rows W_e[token] (+ W_p[t] with
// learned positions), layers as trained, e.edits applied. nullopt and a message
// when a token is not a symbol of the vocabulary or there are more than T tokens
// with learned positions.
std::optional<model_weights> train_weights_for(const train_run& run, const std::vector<std::string>& tokens,
                                               std::string* error = nullptr);

// The logits (T, V) of the training forward for one row of tokens, computed by
// the same code as training (for tests comparing it with forward_with).
std::vector<float> train_logits(train_run& run, const std::vector<int>& tokens, std::vector<float>* output = nullptr);

// The training forward on `rows` (≤ B) rows of T tokens, one head optionally
// replaced; then, for row b < rows: the attention weights (h, T, T) and the
// heads' outputs side by side (T, d, before W_O) of a layer, and the logits (T, V).
void train_forward_rows(train_run& run, const int* tokens, int rows, const head_override* ov = nullptr);
const float* train_attention(const train_run& run, int b, int layer);
const float* train_concat(const train_run& run, int b, int layer);
const float* train_row_logits(const train_run& run, int b);

// What a recipe's training costs, counted from its shape before anything runs:
// floating-point operations (a multiply-add is 2) of the matrix products, the
// attention and the update; the element-wise rest is left out. The backward
// does two products for each of the forward's. For the page: how long a piece
// (train_step_piece) and a whole run take, and whether to start it at all.
struct train_cost {
    double layer_forward = 0;   // one layer of one row, forward
    double layer_backward = 0;  // the same, backward
    double logits = 0;          // one row's logits, loss and W_u backward
    double update = 0;          // zeroing and transposing at the step's start; the AdamW update
    double piece = 0;           // the largest piece of a step
    double step = 0;            // one whole step: every row forward and backward, and the update
    double measure = 0;         // the held-out measure: train_eval_rows rows forward
    double run = 0;             // every step of the recipe and a measure at each snapshot
};
train_cost train_estimate(const experiment& e);

// The page's rate, for turning a cost into seconds: about what the wasm build
// reaches (simd128, one thread) on a laptop; native builds are faster. An
// estimate to decide with, not a promise.
inline constexpr double train_flops_per_second = 15e9;
inline double train_seconds(double flops) { return flops / train_flops_per_second; }

// A recipe the page opens paused, its estimate shown, rather than start a run
// of this long (train_estimate's run at train_flops_per_second) on open.
inline constexpr double train_long_seconds = 30 * 60;
inline bool train_is_long(const experiment& e) { return train_seconds(train_estimate(e).run) > train_long_seconds; }

// Bytes all snapshots of a run may take together (train_init lowers their count to fit).
inline constexpr std::size_t train_snapshot_bytes = std::size_t(128) << 20;

}  // namespace attn
