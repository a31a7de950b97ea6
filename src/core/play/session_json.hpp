// The session's state as JSON, for the page's JS hook (window.attn.ui()'s
// "train" and "prediction", web/shell.js) and an embed's host (attn:train):
// numbers with 9 significant digits, NaN and infinities as null.
#pragma once

#include <string>

#include "play/real_model.hpp"
#include "play/session.hpp"

namespace attn {

// Every head's scores at a mark: [{prev, induction, offset, sink}, ...], layer by layer.
std::string trainer_heads_json(const trainer_mark& m);

// The training of a recipe's experiment, null without one: its step, target and
// steps, the last train loss and accuracy, the held-out ones at the step, done,
// stopped (the loss stopped being finite short of the target), the weights hash
// when done, the phase-change step, the error, the estimate from the shape
// (train_estimate: a step's and the run's seconds, and whether it opens
// paused), a step or measure in progress; with `heads`,
// every head's scores and the task with the ablated heads zeroed.
std::string session_train_json(const session& s, bool heads);

// The output stage's prediction after token `row` (clamped to the text; circuits_predict, the
// session's): {row, token, target (null after the last token), targetProb,
// targetRank (0: the top), top: [{token, p}], lens: [{layer, top, p, targetRank}],
// writer: {kind (embed, head, ffn), layer, head, part, logit, attendsTo, weight}};
// null unless the experiment is a trained recipe.
std::string session_prediction_json(const session& s, int row);

// How long a link's model files may be (real_model_download_limits):
// {"checkpoint":bytes,"tokenizer":bytes}, or {"error":why}.
std::string real_model_limits_json(const real_model_limits& l);

}  // namespace attn
