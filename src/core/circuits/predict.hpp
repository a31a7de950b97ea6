// What the page's trained model predicts: the trace of a trained recipe on its
// text (train_weights_for + forward_with, with the experiment's ablations, edge
// masks and edits: the page's own trace) read through the run's unembedding W_u.
// The same reading as circuits_read's predictions and logit lens, on the
// trace's residual streams instead of the training forward's: what a person sees
// change when they zero a head or mask an edge.
//
// Shapes: n the trace's tokens (≤ T), V vocab, L layers, k top tokens.
#pragma once

#include <string>
#include <vector>

#include "model/forward.hpp"
#include "train/train.hpp"

namespace attn {

// How many top tokens a prediction lists (here and in circuits_read).
inline constexpr int circuit_top_k = 5;

// What wrote most of a logit directly into the last residual stream (direct logit
// attribution on the trace): the embedding with the positions, one head, or one
// layer's FFN. For a head, where its query at that position looks most.
struct circuit_writer {
    enum kind_t { none, embed, head, ffn } kind = none;
    int layer = -1, head_index = -1;
    float part = 0;       // its contribution to the logit
    float logit = 0;      // the logit itself (the sum of every part, up to rounding)
    int attends_to = -1;  // head: the key position with the largest attention weight (−1: not kept)
    float weight = 0;     // head: that weight
};

// How a writer's part stands to the whole logit, so its words are true:
//   exceeds  the part is positive and larger than the logit (the other parts add up
//            to logit − part < 0): "most of" would be false, the net is named;
//   most     at least half of a positive logit;
//   largest  otherwise: only the largest of the parts.
enum class writer_share { most, largest, exceeds };
writer_share circuit_writer_share(const circuit_writer& w);

struct circuit_prediction {
    int n = 0, V = 0, L = 0, top_k = 0;
    std::vector<int> tokens;           // (n) the text's symbols
    std::vector<int> targets;          // (n) the next token of the text; −1 after the last
    std::vector<float> logits, probs;  // (n, V)
    std::vector<int> top;              // (n, top_k) tokens by descending probability, the lower token first on ties
    std::vector<float> target_prob;    // (n) NaN without a target
    std::vector<int> target_rank;      // (n) tokens with a larger logit than the target; −1 without a target
    // The logit lens: the residual stream after layer l (l = 0 … L−1; the last is
    // the model's output, so its row is the prediction itself) times W_u.
    std::vector<float> lens_probs;      // (L, n, V)
    std::vector<int> lens_top;          // (L, n) the most probable token after layer l
    std::vector<int> lens_target_rank;  // (L, n) −1 without a target
    // The largest direct writer of each position's top token's logit. Exact as a sum
    // for attention + residual and full blocks (the stream is x0 plus every write);
    // with block=attn only the last layer writes into the stream W_u reads. None
    // where the logit or the part is not finite (a diverged model).
    std::vector<circuit_writer> writer;  // (n)
    std::vector<float> wu_col, wo_u;     // scratch (d), (d_k)
    std::vector<float> lens_logits;      // scratch (n, V)
};

// tr is run's model traced on a text of task symbols (train_weights_for's tokens).
// False and a message when a token is not one of the run's symbols or the trace is
// not of the run's shape (d_model, layers). Allocates only when n or the shape grows.
bool circuits_predict(const train_run& run, const trace& tr, circuit_prediction& out, std::string* error = nullptr);

// The rules circuits_read and circuits_predict share, on rows of V logits:
// probs = softmax (in double), rank[t] = how many tokens have a larger logit than
// targets[t] (−1 when targets[t] < 0); top (k per row) by descending probability.
void circuits_softmax_rank(const float* logits, float* probs, int* rank, const int* targets, int T, int V);
void circuits_top_tokens(const float* probs, int V, int k, int* top);

}  // namespace attn
