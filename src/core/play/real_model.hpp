// A real model opened in the page (llama/): llama2.c's two files, or a Hugging
// Face folder's (GPT-2, Llama, Qwen2 in F32, F16 or BF16), read and checked, the text's traced pass with what the model predicts
// next and what each head does on the text, and generation a token at a time so that the page keeps drawing. The page holds them
// in a real_session (real_session.hpp), which decides when each is computed; its Model window (src/ui/panels/model_window.cpp)
// draws them and computes nothing itself.
//
//   real_model m;
//   if (auto why = real_model_open({ckpt, ckpt_size, "stories15M.bin"}, {tok, tok_size, "tokenizer.bin"}, m)) report(*why);
//   if (auto why = real_model_open_files({{cfg, n, "config.json"}, {tj, n, "tokenizer.json"},
//                                         {st, n, "model.safetensors"}}, m)) report(*why);
//   real_model_reading r;
//   real_model_read(m, "Once upon a time", r);      // r.ids, r.tr, r.next, r.heads
//   real_model_generation g;
//   real_model_generate_start(m, r.ids, {0.8f, 0.9f, 42}, 50, g);
//   while (real_model_generate_step(m, g)) draw(g.ids);  // one token per call
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llama/checkpoint.hpp"
#include "llama/generate.hpp"
#include "llama/lens.hpp"
#include "llama/tokenizer.hpp"
#include "model/forward.hpp"
#include "train/head_score.hpp"

namespace attn {

// A file's bytes as the page hands them over: borrowed, or, with `owner` set,
// handed over: a checkpoint's or a safetensors file's bytes are then the model's
// weights, not copied, and the model's to rewrite (a GPT-2 folder's Conv1D
// weights are turned where they lie), so the caller does not read them again,
// not even after a refusal.
struct real_model_file {
    const unsigned char* bytes = nullptr;
    std::size_t size = 0;
    std::string name;
    std::string sha256;                    // its SHA-256 in hex, when the page computed it ("" otherwise)
    std::shared_ptr<unsigned char> owner;  // when set, owner.get() == bytes

    real_model_file() = default;
    real_model_file(const unsigned char* b, std::size_t n, std::string file_name, std::string sha = "",
                    std::shared_ptr<unsigned char> own = nullptr)
        : bytes(b), size(n), name(std::move(file_name)), sha256(std::move(sha)), owner(std::move(own)) {}
};

struct real_model {
    std::string name;                 // the checkpoint's file name; a folder's name (or its config's architecture)
    std::string tokenizer_name;       // the tokenizer's
    std::size_t file_bytes = 0;       // the checkpoint's size; a folder's safetensors files'
    std::string sha256;               // the checkpoint's (a folder's weights file or index), as the page gave it ("" unknown)
    std::string tokenizer_sha256;     // the tokenizer's, likewise
    std::string format = "llama2.c";  // what was opened: "llama2.c", "GPT-2", "Llama", "Qwen2"
    weight_type dtype = weight_type::f32;  // the projections' type, as the files store them
    llama_model model;
    llama_tokenizer tok;
    int threads = 1;                 // the traced passes' heads side by side (trace_options::threads; the same bits)
    std::size_t parameters() const;  // weights, without the legacy RoPE tables
};

// Reads the checkpoint and its tokenizer. Either order: when `a` is not a
// checkpoint but `b` is, b is the checkpoint and a the tokenizer. On a problem
// out is unchanged and the message names the file and what is wrong. A file
// without a name is one the person did not choose: the message asks for both.
// A model the page cannot hold (real_model_memory_problem) is refused from its
// header, before its weights are taken.
std::optional<std::string> real_model_open(const real_model_file& a, const real_model_file& b, real_model& out);

// The files a person picked or dropped, any order: llama2.c's two
// (real_model_open), or a Hugging Face folder's by plain name (config.json,
// tokenizer.json, model.safetensors or model.safetensors.index.json and the
// shards it names; a name's folder, "gpt2/config.json", is the model's name;
// other files ignored), read by llama/hf_folder.hpp with each problem naming its
// file. Handed-over safetensors files are the weights where they lie. The page's
// memory (real_model_memory_problem) is counted from config.json and the
// safetensors files' bytes (a 16-bit model's are half) before a weight is read.
// On a problem out is unchanged.
std::optional<std::string> real_model_open_files(const std::vector<real_model_file>& files, real_model& out);

// How long the two files of a link's model_url= / tokenizer_url= may be, from the
// checkpoint's first bytes (its header: 28 bytes for version 0, 256 for 1): the
// bytes its header describes, and the longest tokenizer its vocabulary allows.
// The page stops a download past them. `error` (the limits 0) when the bytes
// are no checkpoint's header, named `name`.
struct real_model_limits {
    std::int64_t checkpoint = 0, tokenizer = 0;
    std::string error;
};
real_model_limits real_model_download_limits(const unsigned char* head, std::size_t size, const std::string& name);

// One head's behaviour on the text (train_diagnostics.hpp's scores on its
// weights): the mean weight on the previous token, on the first token (the
// sink), and the induction score over queries whose token occurred before (−1
// when no token repeats).
struct real_head_summary {
    int layer = 0, head = 0, kv_head = 0;
    float prev = 0, sink = 0, induction = -1, entropy = 0;
};

// The kinds of score a real model's heads have (train/head_score.hpp's rows), in
// the order its views and the page's JSON show them; and h's score of kind k (−1:
// none, an induction score on a text where no token repeats, or the offset score).
inline constexpr head_score real_head_scores[] = {head_score::previous, head_score::sink, head_score::induction};
float real_head_score(const real_head_summary& h, head_score k);

struct real_next_token {
    int id = 0;
    float probability = 0, logit = 0;
};

// Largest text the page reads at once: n × n weights of every head are kept for
// the overview, so the tokens are capped (a longer text is cut with a note).
inline constexpr int real_model_max_tokens = 256;

struct real_model_reading {
    std::string text;
    std::vector<int> ids;
    bool cut = false;                      // the text had more tokens than real_model_max_tokens or the context
    trace tr;                              // heads keep their weights only (scores, scaled, masked dropped)
    std::vector<real_head_summary> heads;  // layer by layer, head by head
    std::vector<real_next_token> next;     // after the last token, the five likeliest
    std::string decoded;                   // the ids decoded back (what run.c prints)
    // At the last token, for the likeliest next token (next[0]): what each
    // layer's residual would predict, and who writes that token's logit
    // (llama/lens.hpp; the final norm's scale from this very pass).
    std::vector<llama_lens_row> lens;
    llama_attribution attribution;
    // The embedding alone decides every prediction on this text (llama_embedding_decides):
    // the layers change nothing that counts — a random or broken file.
    bool embedding_decides = false;
    int whole_layer = -1;  // the layer real_model_open_layer made whole (-1: none)
};

// Encodes text with BOS (run.c's rule; none for a tokenizer without one, where
// an empty text is the stop token alone), runs the pass, and measures.
void real_model_read(const real_model& m, const std::string& text, real_model_reading& out);

// What a person changes in a real model's pass, as the toy experiment's ablate=
// and edges= (spec/values.hpp): heads zeroed (their output all zeros) and
// attention edges masked (query i of a head no longer reads key j: the row's
// softmax runs over the keys left). The link holds them (view.model_ablate,
// view.model_edges).
struct real_interventions {
    std::vector<ablated_head> ablate;
    std::vector<masked_edge> edges;
    bool empty() const { return ablate.empty() && edges.empty(); }
    bool zeroes(int layer, int head) const;  // whether ablate names (layer, head)
    bool operator==(const real_interventions&) const = default;
};

// iv with the item added, or taken out when it is there. An edge whose key comes
// after its query (the causal mask hides it already) leaves iv as it is.
real_interventions real_toggle_head(const real_interventions& iv, const ablated_head& h);
real_interventions real_toggle_edge(const real_interventions& iv, const masked_edge& e);

// Why iv cannot run on m over the reading r: a head the model lacks, a query or
// key past the text's tokens, a key after its query (the causal mask hides it
// already), an item twice. One message each; empty when it can.
std::vector<std::string> real_interventions_problems(const real_model& m, const real_model_reading& r,
                                                     const real_interventions& iv);

// The pass with the interventions (every later layer recomputed) and the next
// token after the last as the model then predicts it, beside the reading's.
struct real_effect {
    bool made = false;
    real_interventions of;                       // what it was computed with
    int layer = -1;                              // the layer kept whole in `tr`
    std::vector<real_next_token> next;           // the five likeliest with the changes
    std::vector<float> reading_ids_probability;  // the reading's five (r.next's ids) with the changes, in that order
    float kl = 0;                                // KL(unchanged ‖ changed) over the whole vocabulary, in nats
    int keyless_rows = 0;                        // query rows of a head whose every key is masked: it writes nothing there
    // The changed pass: its heads keep their matrices in `layer` alone, whose
    // weights are in params as real_model_open_layer puts them (the pipeline and
    // the Model window draw that layer of it).
    trace tr;
};

// The effect of iv (real_interventions_problems empty) on the reading r of m (made
// by real_model_read), keeping `layer` whole. One pass over r's tokens: the page
// shows a frame saying so first.
void real_model_intervene(const real_model& m, const real_model_reading& r, const real_interventions& iv, int layer,
                          real_effect& out);

// What L13 says about a model on its text, each found here from the reading and
// said only when the reading supports it. A head counts as a sink, previous-token
// or induction head when its mean weight there reaches the bar: its score's
// real_bar (train/head_score.hpp), or twice what uniform attention over the same
// rows would give when that is more (on a short text even a blind head puts much
// weight on the first token; the induction rows are the queries whose token
// occurred before, not just before them, as train_diagnostics scores them).
// Induction needs such a row.

struct real_model_findings {
    int heads = 0;                // query heads in all
    float uniform = 0;            // uniform attention's weight on one earlier key, over queries 1 … n−1
    float uniform_induction = 0;  // the same over the induction rows (0 when none)
    float sink_bar = 0, previous_bar = 0, induction_bar = 0;  // the bars used
    std::vector<int> sink, previous, induction;               // indices into reading.heads, strongest first
    bool repeats = false;                                     // an induction row exists: induction can be measured
    int group = 1;                                            // query heads per K/V head (1: MHA)
};

real_model_findings real_model_find(const real_model& m, const real_model_reading& r);

// The page's memory for a model, counted from its header before anything is
// allocated, at the most the page asks of it: the weights (the checkpoint's
// bytes); the reading of `tokens` (real_model_max_tokens, or the context when
// shorter) — its pass keeping each head's weights, a layer made whole, the
// selected head's stages and the pass with changes beside it; and the
// generation of `steps` more (view.gen_tokens' largest) — its KV cache and each
// step's attention kept for the map. L × H × n² weights are most of a reading
// (8 layers of 256 heads over 256 tokens: 512 MB). `threads`: the heads side by
// side (each in flight holds its four (n, n) matrices).
struct real_model_bytes {
    int tokens = 0, steps = 0;
    std::size_t weights = 0, reading = 0, generation = 0;
    std::size_t total() const { return weights + reading + generation; }
};
real_model_bytes real_model_peak_bytes(const llama_config& c, std::size_t weight_bytes, int threads = 1);

// Why the page cannot hold a model of config c with weight_bytes of weights:
// its peak above page_memory_budget, said with each part in bytes. nullopt when
// it can.
std::optional<std::string> real_model_memory_problem(const llama_config& c, std::size_t weight_bytes, int threads = 1);

struct real_model_generation {
    std::unique_ptr<llama_decoder> decoder;  // the KV cache, for the prompt and the tokens asked
    rng g{1};
    llama_sampling sampling;
    std::vector<int> ids;  // the prompt, then each token generated
    int prompt = 0;        // how many of ids are the prompt
    int target = 0;        // tokens to generate
    int fed = 0;           // of ids, how many went through the cache
    bool done = true;
    std::string stopped;  // why it stopped: "", "bos", "context"
    std::string text;     // everything generated, decoded
    // Each sampled step's attention, as the token it chose arrives: the query at
    // position query_pos[s] (the last prompt token's, then each generated one's)
    // over keys 0 … query_pos[s], every head (layer by layer), from attention[at[s]].
    std::vector<int> query_pos;
    std::vector<std::size_t> at;
    std::vector<float> attention;
};

// A generation from the prompt ids (already read): the cache made for the
// prompt and `steps` tokens (not the whole context), the attention's store
// reserved whole, nothing fed yet; its steps on `threads` threads (the same
// tokens for any count).
void real_model_generate_start(const real_model& m, const std::vector<int>& prompt, const llama_sampling& s, int steps,
                               real_model_generation& g, int threads = 1);
// Feeds what is pending (the prompt, one token per call after the first) and
// samples the next token; false once done. Each call costs one token's pass.
bool real_model_generate_step(const real_model& m, real_model_generation& g);

// One head's stages on the reading (whose heads keep their weights only): Q·Kᵀ,
// scaled, masked and the weights, recomputed by model/forward's forward_heads from
// the layer's kept q_rot, k_rot and v under the model's experiment — the pass's
// own numbers. An empty head_trace for a head the model lacks.
head_trace real_head_stages(const real_model& m, const real_model_reading& r, int layer, int head);

// The reading's `layer` made whole for the pipeline, which draws a real model's
// layer as it draws ours (model/stage.hpp's stages from the same trace): every
// head's Q·Kᵀ, scaled and masked, recomputed by forward_heads from the layer's
// kept q_rot, k_rot and v (the weights are the pass's, bit for bit), and the
// layer's weights as the pipeline reads a toy's, (in, out) — W_q, W_k, W_v, W_O,
// W_1 (SwiGLU's gate, or GPT-2's up), W_3 (SwiGLU's up; empty for GPT-2), W_2 —
// copied (16-bit weights widened) from the model's (out, in) for this layer
// alone, and E as the tokens' embedding rows (x0; GPT-2's with its positions).
// GPT-2's and Qwen2's biases are not among them: the pipeline draws matrices, the
// stages it shows (q, k, v, the FFN's) are the pass's with the biases added, and
// the formulas say so. The layer made whole before goes back to the weights
// alone. A layer the model lacks: nothing.
void real_model_open_layer(const real_model& m, real_model_reading& r, int layer);

// L5's KV-cache arithmetic on the model: the bytes of K and V a token adds (with
// its K/V heads, and with MHA's, one per query head), a whole context's, and what
// the generation's last step read (0 before a step).
struct real_cache_measure {
    std::size_t per_token = 0, per_token_mha = 0;
    std::size_t context = 0, context_mha = 0;  // seq_len tokens
    std::size_t last_step_read = 0;
    int last_step_tokens = 0;  // the tokens in the cache at that step
};
real_cache_measure real_model_cache(const real_model& m, const real_model_generation& g);

// One head's attention over the generation's sampled steps: a row per step (its
// query over keys 0 … the last step's position; keys after its own are 0).
// Empty before the first sampled step.
matrix real_generation_attention(const real_model& m, const real_model_generation& g, int layer, int head);

}  // namespace attn
