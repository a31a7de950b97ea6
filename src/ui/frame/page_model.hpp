// The real model's state as the page's JS hook tells it (window.attn.ui()'s
// "realModel", "wantedModel" and "modelFetch"; page_state.hpp): what the Model
// window shows, for the browser tests and the shell's fetch of a link's model.
#pragma once

#include <string>

#include "view/app.hpp"

namespace attn::ui {

// The Model window's real model for tests: null when none is open (or {error,
// kept} when files were refused or the browser keeps models), else {key (the
// link's model= value), kept (models this browser keeps), format ("llama2.c",
// "GPT-2", "Llama", "Qwen2"), dtype ("F32", "F16", "BF16"), name, tokenizer, bytes, params, config: {dim, hidden, layers, heads,
// kvHeads, vocab, seqLen, version, shared}, error, open, text, ids, decoded, cut, next: [{id, p, logit}], heads: [{layer, head,
// kv, prev, sink, induction}], gen: {ids, prompt, done, stopped, text}, layer, head, and the reading's lens, attribution, changes
// and effect}.
std::string real_model_json(const app& a);

// ,"wantedModel": the model the link names and has not opened, with its
// tokenizer= ("" when the link names none) and where a host keeps the files
// (the shell fetches them from there), or null; ,"modelFetch": that fetch
// under way ({received, total, file}, file "" when none runs).
std::string wanted_model_json(const app& a);

}  // namespace attn::ui
