// The rules of the transformer that the forward pass (forward.cpp), training
// (train/train.cpp) and the page (play/, src/ui) share, each written once here:
// the score scale, the mask, RMS normalisation. Two more live lower down, where
// every caller reaches them: d_k is experiment_d_k (spec/experiment.hpp) and ReLU
// is kernel_relu (kernels/kernels.hpp).
#pragma once

#include "spec/experiment.hpp"

namespace attn {

// 1/√d_k, the scale of scaled dot-product attention (a d_k below 1 counts as 1).
// The default of the lower-level passes (tiled.hpp, decode.hpp) and of the experiment.
float score_scale_default(int d_k);

// 1/√fan_in, the scale of the seeded normal draws of a weight matrix with fan_in
// rows, which keeps every component of its product near unit variance: the
// experiment's random model (forward.cpp) and training's first weights are one.
float weight_init_scale(int fan_in);

// What the experiment multiplies the scores Q·Kᵀ by before the mask and softmax:
// 1/√d_k (scale=sqrt), 1 (scale=none) or its own number (scale=<number>).
float experiment_score_scale(const experiment& e);

// How many keys query i sees under the experiment's mask in a sequence of n
// tokens: keys [0, that) are visible and the rest hidden (−∞ before softmax).
// mask=none: all n; causal: i + 1 (no looking ahead); padding: all but the last
// `pad`. Masked edges (experiment::edges) come on top, per head, in forward.cpp.
int mask_visible_keys(const experiment& e, int n, int i);

// y(rows, cols) = x / √(mean(x²) + 1e-6) per row, without a learned gain: the
// norm of block=full (before attention and before the FFN). inv(rows), when
// given, keeps each row's factor for the backward pass. y may be x.
void rmsnorm_rows(const float* x, float* y, float* inv, int rows, int cols);

// y(rows, cols) = gain ⊙ x / √(mean(x²) + eps) per row, with the learned gain
// (cols): the llama block's norm (eps 1e-5 there, as llama2.c). The sum of
// squares in double, the factor rounded to float once, then y = x·k·gain. y may
// be x.
void rmsnorm_gain_rows(const float* x, const float* gain, float* y, int rows, int cols, float eps);

// y(rows, cols) = gain ⊙ (x − mean(x)) / √(var(x) + eps) + bias per row (GPT-2's
// LayerNorm: the biased variance, eps 1e-5 there). The mean and variance in double,
// the factor rounded to float once, then y = (x − mean)·k·gain + bias; inv (rows),
// when given, gets each row's k and mean (rows) its mean. y may be x.
void layernorm_rows(const float* x, const float* gain, const float* bias, float* y, int rows, int cols, float eps,
                    float* inv = nullptr, float* mean = nullptr);

}  // namespace attn
