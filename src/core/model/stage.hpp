// The pipeline's stages, from the tokens to the output: what a link's
// view.stage and the native --stage count (0 = embeddings … 10 = output), and
// which of them an experiment has. How each is drawn lives in src/ui/view/stages.cpp.
#pragma once

#include "spec/experiment.hpp"

namespace attn {

enum class stage {
    embeddings,    // X = embeddings (+ positions)
    projections,   // Q = X·W_q, K = X·W_k, V = X·W_v (+ RoPE)
    scores,        // Q_h·K_hᵀ
    scaled,        // · 1/√d_k
    masked,        // -inf where hidden
    weights,       // softmax
    weighted_sum,  // weights·V_h
    concat,        // heads side by side
    output_proj,   // ·W_O
    block,         // residual + FFN (block = full)
    output,        // what the model returns
    count
};

constexpr int stage_count = int(stage::count);

// The stage a page opens on when neither its link nor a lesson names one: the
// first, so that a newcomer steps through the pipeline from the tokens on.
constexpr stage stage_default = stage::embeddings;

// Whether e has stage s: the residual + FFN block only with block = full.
bool stage_applies(stage s, const experiment& e);

// Why e has no stage s ("" when it has): for the messages of links and flags.
const char* stage_missing_reason(stage s, const experiment& e);

}  // namespace attn
