// What a llama model's residual stream says about the next token, read from a
// traced pass (llama/forward.hpp) at one position:
//
//   logit lens   the residual after the embedding and after each layer, each put
//                through the final RMSNorm with its own scale — rms of that very
//                row, as the model would if it stopped there — and the
//                classifier. The last row is the model's own prediction.
//   direct logit attribution
//                the final residual is the sum of its writes: the embedding's
//                row, each head's (its out · W_O's columns of that head) and
//                each FFN's output. The final norm divides the sum by this row's
//                rms (from this forward, never a stored scale) and weighs it by
//                the gain, so
//                  logit(v) = inv_rms · Σ_parts part · (g_final ⊙ W_cls[v])
//                exactly: the parts sum to the logit (up to float rounding).
//                GPT-2's LayerNorm first subtracts the row's mean, which is
//                linear: each part is dotted with the centred vector, the scale
//                is 1/√(var + ε) of this pass, and the biases (W_O's, ln_f's)
//                are one more part.
//
// TransformerLens calls these accumulated_resid(apply_ln=True) through the
// unembedding, and decompose_resid / stack_head_results with the final
// layer's cached scale.
#pragma once

#include <vector>

#include "llama/checkpoint.hpp"
#include "model/forward.hpp"

namespace attn {

struct llama_lens_row {
    int layer = -1;                // the residual after this layer; -1: the embedding's row
    int top = 0;                   // its likeliest next token
    float top_probability = 0;     // that token's probability
    float target_probability = 0;  // the target's
    int target_rank = 0;           // 0: the target is the likeliest
};

// The lens at position pos (< the trace's tokens) for target (a vocabulary id):
// n_layers + 1 rows, the embedding's first.
std::vector<llama_lens_row> llama_logit_lens(const llama_model& m, const trace& t, int pos, int target);

// Whether the token embedding alone decides the model's predictions on the
// traced text (its token ids): the lens's likeliest token (lens, as llama_logit_lens gives it)
// is the same after the embedding and after every layer, and at every position
// the model's likeliest next token is the one that token's embedding row alone
// predicts (through the final norm and the classifier). Then no layer changes a
// prediction: a file of random or broken weights, not a trained model. Cheap
// when the lens already differs; else a pass of the classifier per distinct
// token, stopping at the first that differs.
bool llama_embedding_decides(const llama_model& m, const trace& t, const std::vector<int>& ids,
                             const std::vector<llama_lens_row>& lens);

struct llama_attribution {
    int pos = 0, target = 0;
    float logit = 0;           // the model's logit of target at pos (the trace's)
    float inv_rms = 0;         // 1 / rms of the final residual's row: the final norm's scale in this pass
    float embedding = 0;       // the token embedding's part (GPT-2's: with its position's row)
    float bias = 0;            // GPT-2's: each layer's attention-output bias and the final norm's bias (0 for llama)
    std::vector<float> heads;  // layer · n_heads + head: each head's write
    std::vector<float> ffn;    // per layer: the FFN's output
    double sum() const;        // of the parts: the logit
};

// The parts of target's logit at pos. The trace must keep each head's out
// (trace_options::lean() does) and each layer's ffn_out.
llama_attribution llama_direct_logit_attribution(const llama_model& m, const trace& t, int pos, int target);

}  // namespace attn
