// The llama block's forward pass over a whole sequence (llama2.c's run.c
// `forward`, every position at once; GPT-2's with llama_config::arch = gpt2:
// LayerNorm with biases, learned positions in x0, no RoPE, GELU(ffn_gate) for
// ffn_hidden and no ffn_up, a bias after every projection), recorded in the trace of
// model/forward.hpp so that every view reads a real model as it reads ours.
//
// Shapes (llama_config): n tokens, d = dim, hs = head_size = d / n_heads,
// kv = n_kv_heads·hs, f = hidden_dim, V = vocab_size. Weights are (out, in), so
// x·Wᵀ is kernel_matmul_bt(x, W) straight from the checkpoint's buffer.
//
//   x0 = the tokens' rows of the embedding (n, d)
//   per layer, from x:
//     normed     = rmsnorm(x) ⊙ rms_att           (ε = 1e-5, as llama2.c)
//     q, k, v    = normed·wqᵀ (n, d), ·wkᵀ, ·wvᵀ (n, kv)
//     q_rot, k_rot: each head's hs columns turned by RoPE, pairs (2p, 2p+1) by
//                position·10000^(−2p/hs) (run.c's rotation; model/rope.hpp)
//     heads      (model/forward.hpp's forward_heads): scores · 1/√hs, causal
//                mask, stable softmax, weights·V; query head i reads K/V head
//                i / (n_heads / n_kv_heads) (GQA) → concat (n, d)
//     attn_out   = concat·woᵀ; residual = x + attn_out
//     ffn_normed = rmsnorm(residual) ⊙ rms_ffn
//     ffn_gate   = ffn_normed·w1ᵀ, ffn_up = ffn_normed·w3ᵀ (n, f)
//     ffn_hidden = silu(ffn_gate)·ffn_up (SwiGLU), ffn_out = ffn_hidden·w2ᵀ
//     output     = residual + ffn_out
//   final_normed = rmsnorm(output) ⊙ rms_final; logits = final_normed·wclsᵀ (n, V)
//
// fp32 throughout. The heads run under llama_experiment(c) (below) plus the
// interventions a caller adds to it (ablate, edges, a patch in trace_options).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/tokenizer.hpp"
#include "model/forward.hpp"
#include "model/rope.hpp"

namespace attn {

// One head's vector (head_size floats) turned by RoPE for position `pos`, with
// the model's base and pairing (llama_config: llama2.c's or Hugging Face's).
inline void llama_rope(const llama_config& c, float* x, int pos) {
    if (c.rope_half)
        rope_rotate_half(x, 1, c.head_size(), pos, c.rope_theta);
    else
        rope_rotate(x, 1, c.head_size(), pos, c.rope_theta);
}

// Rows x (rows, dim) through the model's norm into y (y may be x): RMSNorm with
// the gain (llama), or LayerNorm with gain and bias (GPT-2), ε the config's.
void llama_norm_rows(const llama_model& m, const llama_tensor& gain, const llama_tensor& bias, const float* x, float* y,
                     int rows);

// The residual stream's first row for `token` at position pos (dim floats into
// x): its embedding row, plus GPT-2's learned position row.
void llama_embed(const llama_model& m, int token, int pos, float* x);

// The experiment a llama model's heads run under: d_model = dim, its heads and
// K/V heads and layers, RoPE at the model's base from position 0, the causal mask,
// scale 1/√head_size, stable softmax, fp32, W_O on. Not a valid experiment for
// the toy models (its sizes pass their limits); forward_heads needs none.
experiment llama_experiment(const llama_config& c);

// Why ids cannot be run on a model of config c: none, more than seq_len, or an
// id outside [0, vocab_size). nullopt when they can.
std::optional<std::string> llama_tokens_problem(const llama_config& c, const std::vector<int>& ids);

// wᵀ (in, out) of a checkpoint's w (out, in) into wt, in 32 × 32 blocks (both
// sides stay in the cache): the pass's many-row products, the pipeline's weights.
void llama_transpose(const float* w, int out, int in, std::vector<float>& wt);
// The same for a model's tensor of any type (16-bit weights widened as they are turned).
void llama_transpose(const llama_model& m, const llama_tensor& w, int out, int in, std::vector<float>& wt);

// Bytes llama_forward over n tokens allocates at its peak under opt, from the
// config alone, before anything is allocated: the trace it returns (every
// stage above; each head's slices of q, k, v, its out, row sums and entropies,
// and the (n, n) matrices opt keeps — four for a head kept whole, the weights
// alone under keep_weights, none else), the heads in flight that drop theirs
// (four (n, n) matrices each, opt.threads side by side) and the transposed copy
// of the largest weight a many-row product makes (with the smaller one it grows
// from). An upper bound (the heads in flight are gone before the last stages
// come), checked against the bytes the pass allocates by a core test.
std::size_t llama_forward_bytes(const llama_config& c, int n, const trace_options& opt = {});

// The pass over ids (llama_tokens_problem(m.config, ids) empty), the heads under
// e (llama_experiment(m.config) with interventions, or that alone). The trace's
// tokens are the ids' pieces when a tokenizer is given (byte tokens as <0xNN>,
// the special tokens' surrounding newlines trimmed: "<s>"),
// else "#id". params stays empty (the weights are m's); nan_count and inf_count
// count every matrix stored once, as forward.hpp says, plus the llama stages.
trace llama_forward(const llama_model& m, const std::vector<int>& ids, const experiment& e, const trace_options& opt = {},
                    const llama_tokenizer* tok = nullptr);

}  // namespace attn
