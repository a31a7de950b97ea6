// `attn eval '<link>' --model FILE --tokenizer FILE`: a llama2.c checkpoint and
// its tokenizer.bin read and checked (llama/checkpoint.hpp, llama/tokenizer.hpp),
// or `--model DIR`, a Hugging Face folder's files read from disk and made the
// llama block's model and its tokenizer by the core (llama/hf_folder.hpp);
// the link's text encoded with BOS as run.c does, and the llama block's pass
// (llama/forward.hpp) printed: a summary (the model's shape, the tokens, the
// next-token predictions after the last) or, with --json, the trace as
// trace_json.hpp writes it, logits and the SwiGLU parts included. The link's
// ablations and masked edges apply to the model's heads; with --generate, its
// view.temperature, view.top_p and view.gen_seed sample unless the options say
// otherwise (the same tokens as the page's Continue on that link).
#pragma once

#include "cli_options.hpp"
#include "spec/experiment.hpp"
#include "spec/values.hpp"

namespace attn {

// Exit codes as attn's: 0 ok, 1 a file or the text the model cannot take
// (the message on stderr names which and why).
int eval_model(const experiment& e, const link_view& v, const cli_options& o);

}  // namespace attn
