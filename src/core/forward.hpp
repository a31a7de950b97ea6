// The forward pass of one multi-head self-attention layer, recorded step by step.
//
// Shapes, named once:
//   n        tokens
//   d_model  width of the residual stream
//   h        heads, d_k = d_model / h per head
//
//   X (n, d_model) ─┬─ ·W_q → Q (n, d_model) ─ split → Q_h (n, d_k)
//                   ├─ ·W_k → K ...                    K_h (n, d_k)
//                   └─ ·W_v → V ...                    V_h (n, d_k)
//   scores_h = Q_h·K_hᵀ (n, n) → scaled = scores/√d_k → masked → weights = softmax
//   out_h = weights·V_h (n, d_k) → concat (n, d_model) → ·W_o → output (n, d_model)
#pragma once

#include <string>
#include <vector>

#include "experiment.hpp"
#include "matrix.hpp"

namespace attn {

// The parameters an experiment's seed generates.
struct model_weights {
    matrix embeddings;          // (n, d_model): one row per token, drawn from hash(seed, token text)
    matrix w_q, w_k, w_v, w_o;  // (d_model, d_model)
};

struct head_trace {
    matrix q, k, v;  // (n, d_k)
    matrix scores;   // (n, n) Q_h·K_hᵀ
    matrix scaled;   // (n, n) scores / √d_k
    matrix masked;   // (n, n) scaled with -inf where the mask hides j from i
    matrix weights;  // (n, n) softmax of masked, rows sum to 1
    matrix out;      // (n, d_k) weights·V_h
};

struct trace {
    std::vector<std::string> tokens;
    model_weights params;
    matrix q, k, v;                 // (n, d_model) before the split into heads
    std::vector<head_trace> heads;  // h entries
    matrix concat;                  // (n, d_model)
    matrix output;                  // (n, d_model) concat·W_o
};

// Parameters for e, deterministic in e.seed and the token texts.
model_weights model_generate(const experiment& e, const std::vector<std::string>& tokens);

// Runs e; e must be valid (experiment_validate(e) empty).
trace forward(const experiment& e);

}  // namespace attn
