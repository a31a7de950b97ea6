// The benchmark's workloads, run on the attention core (src/core), and the C
// interface the drivers use: the native runner (runner_native.cpp) over a line
// protocol, the wasm build (Node and Chromium) through exported functions.
//
// Shapes, named once:
//   n      tokens (queries = keys in W1, W2)
//   d      width of one head (64 throughout)
//   d_m    d_model of W2 (512 = 8 heads × 64)
//   h      query heads, kv KV heads (W3: 8 and 8 for MHA, 8 and 2 for GQA)
//   t      tokens in the KV cache after the step's append (W3: 2048, and 32768 for MHA)
//
// Workloads (ids in this order):
//   W1  single-head attention O (n, d) = softmax(mask(Q·Kᵀ/√d))·V        attention_tiled
//   W2  x (n, d_m) → Q/K/V projections, 8 causal heads, concat, ·W_O    kernel_matmul + attention_tiled
//   W3  one decode step: append (kv, d) to a (kv, t − 1, d) cache, attend for h heads   decode_step
//   W4  attn::forward(attn::experiment{}): the playground's default, full trace
#pragma once

extern "C" {

// JSON array describing every workload: name, kind, parameters, inputs (name and
// shape, in the order of bench_input), output shape, FLOP (`flop`: dense-equivalent,
// masked entries counted as if computed; `flop_done`: causal attention counts the
// n(n+1)/2 entries of its lower triangle with the diagonal), bytes (W3: K and V read).
const char* bench_describe();

// Builds the workload's inputs (seeded, bit-identical natively and in wasm) and
// whatever state its run needs (W3: the prefilled cache). Idempotent.
void bench_prepare(int workload);

// Runs the workload reps times and returns seconds per run (steady clock).
double bench_run(int workload, int reps);

int bench_workload_count();
int bench_input_count(int workload);
const float* bench_input(int workload, int index);
int bench_input_size(int workload, int index);
const float* bench_output(int workload);
int bench_output_size(int workload);

// Peak probes. FLOP/s of independent multiply-add chains over xsimd batches of
// the instruction set the core's kernels use (attn::kernel_arch_name(): FMA
// where it has one; one multiply-add per lane counts as two FLOP), and read
// bandwidth in bytes/s, summing a buffer with the same instruction set: over
// `bytes` (a W3 case's K and V: the same working set, in whichever cache level
// holds it) or, bench_peak_bandwidth, over 256 MB (memory: far larger than the
// caches). Each runs for about `seconds` and returns the best of its trials.
// bench_read_bandwidth_threads reads on `threads` threads (the core's pool), each
// its own slice: what the cores together read (one thread where the build has none).
double bench_peak_flops(double seconds);
double bench_peak_bandwidth(double seconds);
double bench_read_bandwidth(double seconds, double bytes);
double bench_read_bandwidth_threads(double seconds, double bytes, int threads);
const char* bench_arch();  // the kernel set in use
// Switches the core to another of its kernel sets (attn::kernel_use_arch); 1 if it could.
int bench_use_arch(const char* name);
}

// Training workloads (src/core/train/train.hpp), ids in this order:
//   T1  one AdamW step (forward, backward, update) of the L9 lesson recipe
//       (recipe_lesson_induction: d_model 48, 4 heads, 2 layers, attn_res, RoPE, batch 32, seq 24)
//   T2  the same task on a 4× larger model: d_model 96, seq 48, block=full (FFN on)
// Their runs take 20000 steps at most; a run that reaches its end starts again
// from its first snapshot (step 0), so any number of steps can be timed.
extern "C" {
int bench_train_count();
const char* bench_train_name(int id);
const char* bench_train_recipe(int id);                     // the recipe as attn_train_dump and peers take it
void bench_train_prepare(int id);                           // train_init (idempotent)
double bench_train_run(int id, int reps, int threads = 1);  // reps steps on `threads` threads; seconds per step
float bench_train_loss(int id, int step);                   // the loss of a step taken (curve[step]); NaN if not taken
int bench_train_steps(int id);                              // steps taken since prepare
// T3, time to learn: seconds from a fresh start of the L9 recipe until its held-out
// accuracy, measured at the snapshots the page keeps (with every head's scores, as
// the page's trainer measures them), first reaches 0.9; that snapshot's step in
// *step (-1 if it never does).
double bench_train_learn(int* step);
// C1, C2: the circuit of the trained L9 model (trained once, on the first call):
// out[0] items 1-6 and 8 for one row, seconds per read after the first; out[1] the
// timeline over every snapshot and 128 held-out rows; out[2] over 32; out[3] the
// first read. reps: the reads timed for out[0].
void bench_circuits(double* out, int reps);
}

// Real models (llama2.c shapes; llama_workloads.cpp): a checkpoint and its
// tokenizer.bin, written by tests/llama_files.py with random weights, read by the
// core (llama_checkpoint_read copies the file's bytes into the model's buffer).
//   R1  llama_forward over forward_tokens ids (BOS, then a story's tokens repeated),
//       lean (trace_options::lean(): no head keeps its n×n matrices) or the full trace
//   R2  greedy generation through the KV cache (llama_decoder::step), after the prompt
//       "Once upon a time" (BOS first); BOS generated does not stop it
extern "C" {
// Reads the model (replacing any before it). JSON: the config, weight_bytes (the
// model's buffer), step_weight_bytes (the weights one decode step reads: every
// layer, the final norm, the classifier), load_seconds, forward_ids, prompt_ids;
// or {"error": …}.
const char* bench_llama_load(const unsigned char* model, double model_size, const unsigned char* tokenizer, double tokenizer_size,
                             int forward_tokens);
// R4-R6: a Hugging Face folder (tests/hf_files.py), its files handed over one by one:
// bench_hf_add takes `bytes` (malloc'd; freed by the bench, or kept by the model as its
// weights: hf_model_read reads handed-over shards where they lie), then bench_hf_load
// reads what was added (config.json, tokenizer.json, the safetensors files, the index)
// into the model the bench_llama_* calls below run; its JSON as bench_llama_load's.
void bench_hf_add(const char* name, unsigned char* bytes, double size);
const char* bench_hf_load(int forward_tokens);
// R1: seconds per pass (lean: 1 for trace_options::lean()); the first pass's last
// row of logits is kept (bench_llama_logits, vocab_size floats).
double bench_llama_forward(int lean, int reps);
const float* bench_llama_logits();
int bench_llama_logits_size();
// R2: the prompt, then `steps` greedy tokens; seconds per generated token (the
// prompt's time in bench_llama_prompt_seconds); the tokens in bench_llama_generated.
double bench_llama_generate(int steps, int threads = 1);  // on `threads` threads (the same tokens)
int bench_llama_generated_count();
const int* bench_llama_generated();
double bench_llama_prompt_seconds();
// The mean bytes of cached K and V one of those `steps` steps reads.
double bench_llama_cache_bytes(int steps);
// Where the time goes, as JSON. decode: each weight product of a step
// (kernel_matmul_bt with one row) over every layer, the classifier, and the whole
// step (seconds per step). forward: R1's products by kind on one layer's weight,
// warm, in GFLOP/s: kernel_matmul_bt(x, W) as the pass calls it, and
// kernel_matmul(x, Wᵀ) on a transposed copy.
const char* bench_llama_profile(int reps);
}

// y(rows) = w(rows, cols)·x(cols) by bench/src/peak.cpp's plain product (eight rows
// at a time) for the kernel set in use: the profile's comparison for a decode step.
void bench_matvec_probe(const float* w, const float* x, float* y, int rows, int cols);
