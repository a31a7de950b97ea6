// Generation: one token at a time through the KV cache (run.c's `forward` for a
// single position), and llama2.c's sampling — argmax at temperature 0, else the
// softmax of logits / temperature sampled whole or within its top-p nucleus —
// from a seeded generator, so that a seed in a link gives the same text.
//
//   llama_decoder d(model, prompt + steps);   // the cache: layers × those tokens × kv_dim, K and V
//   llama_sampling s{.temperature = 0.8f, .top_p = 0.9f, .seed = 42};
//   rng g(s.seed);
//   const float* logits = d.step(token);      // token at position d.pos, then d.pos += 1
//   int next = llama_sample(logits, vocab, s, g);
//
// step() gives the logits llama_forward gives for that row (the same formulas;
// the kernels group the sums by rows differently, so they agree to ~1e-6, not
// bit for bit), and keeps the step's attention weights for each head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/random.hpp"
#include "base/threads.hpp"
#include "llama/checkpoint.hpp"
#include "llama/tokenizer.hpp"

namespace attn {

struct llama_decoder {
    // A cache for `capacity` tokens (the prompt and those to generate; clamped
    // to [1, seq_len]): sized by what is asked, never by the context alone
    // (seq_len 32768 × 128 layers would be gigabytes for three tokens).
    llama_decoder(const llama_model& m, int capacity);

    const llama_model* model;
    int capacity = 0;                           // tokens the cache holds: steps stop at pos == capacity
    int pos = 0;                                // tokens consumed; the next goes at this position
    std::vector<float> key_cache;               // (layers, capacity, kv_dim) K after RoPE
    std::vector<float> value_cache;             // (layers, capacity, kv_dim)
    std::vector<float> attention;               // (layers, heads, capacity) the last step's weights, pos + 1 used per head
    std::vector<float> logits;                  // (vocab) the last step's
    std::vector<float> x, xb, xb2, q, hb, hb2;  // scratch of one position
    // The threads a step's products (rows in blocks) and heads run on
    // (base/threads.hpp): the same bits for any count. A step runs on `threads`
    // or on one, whichever is faster now (thread_choice: one on a busy machine).
    int threads = 1;
    thread_choice choice;
    int running = 1;  // this step's

    // Feeds `token` (in [0, vocab)) at position pos (< capacity) and returns the
    // logits of the next token. The caller checks both (llama_tokens_problem).
    const float* step(int token);
    // Back to position 0 (the cache's contents are overwritten as steps go).
    void reset() { pos = 0; }
    // Bytes of cached K and V one step at position p reads: every layer's
    // kv_heads × (p + 1) rows of K and of V (GQA shares one K/V head among
    // n_heads / n_kv_heads query heads).
    std::size_t cache_bytes_read(int p) const;
};

// Bytes a decoder of this capacity allocates (its cache, the last step's
// attention, the logits and one position's scratch), before it is made.
std::size_t llama_decoder_bytes(const llama_config& c, int capacity);

// Bytes the KV cache keeps per token: K and V, every layer, kv_heads × head_size
// floats each (L5's arithmetic on this model's shape; GQA divides it by
// n_heads / n_kv_heads against MHA).
std::size_t llama_cache_bytes_per_token(const llama_config& c);
// The same for this shape with a K/V head per query head (MHA), to compare.
std::size_t llama_cache_bytes_per_token_mha(const llama_config& c);

struct llama_sampling {
    float temperature = 1.0f;  // 0: argmax (greedy); else > 0
    float top_p = 0.9f;        // in (0, 1): nucleus sampling; 0 or ≥ 1: the whole distribution
    std::uint64_t seed = 1;
    int stop = llama_bos;  // the token that ends a generation: llama_stop_token(tokenizer); llama2.c's BOS by default
};

// The next token from logits (vocab): argmax at temperature 0 (the first of
// equal maxima); else softmax(logits / temperature) in double with
// random_exp (the same bits natively and in wasm), one draw of g, then run.c's
// sample_mult or sample_topp (candidates ≥ (1 − top_p) / (vocab − 1), sorted by
// probability, ties by id, cut where the cumulative sum passes top_p).
int llama_sample(const float* logits, int vocab, const llama_sampling& s, rng& g);

// The tokens a generation of `steps` after `prompt` tokens feeds through the
// cache: the prompt and every token sampled but the last, at most seq_len — the
// capacity llama_generate gives its decoder.
int llama_generate_capacity(const llama_config& c, int prompt, int steps);

// The prompt fed through a fresh decoder of llama_generate_capacity, then up to `steps` tokens sampled (stopping early at
// s.stop — BOS, which llama2.c's models emit to end a story, by default — or at seq_len): prompt
// followed by the tokens generated. The prompt must pass llama_tokens_problem.
std::vector<int> llama_generate(const llama_model& m, const std::vector<int>& prompt, int steps, const llama_sampling& s,
                                int threads = 1);

}  // namespace attn
