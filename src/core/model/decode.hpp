// Autoregressive decoding with a KV cache, for multi-head (MHA), grouped-query
// (GQA) and multi-query (MQA) attention.
//
// Shapes:
//   h          query heads
//   kv_heads   key/value heads; h must be a multiple of kv_heads
//   group      h / kv_heads query heads share one KV head: head i uses
//              KV head g = i / group (MHA: kv_heads = h, MQA: kv_heads = 1)
//   d_k        width of one head (queries, keys and values alike)
//   t          tokens in the cache, the new one included
//   n          tokens of a whole sequence (the reference pass)
//
// Each decoding step appends the new token's K and V rows to the cache and lets
// the new token's queries attend over all t cached tokens. Nothing the new token
// cannot see is in the cache, so no mask is needed: token by token this is the
// causal pass over the whole sequence.
#pragma once

#include <cstddef>
#include <vector>

#include "base/matrix.hpp"
#include "base/precision.hpp"

namespace attn {

struct kv_cache {
    int kv_heads = 0;
    int d_k = 0;
    std::vector<matrix> k, v;  // kv_heads entries, each (t, d_k): row j is token j
    // decode_step's working memory (one group's weights and row statistics),
    // kept between steps: a step allocates only when t outgrows the capacity.
    struct workspace {
        std::vector<float> weights, row_max, row_sum, rescale;
        std::vector<int> visible;
    } work;

    kv_cache() = default;
    kv_cache(int kv_heads, int d_k);

    int tokens() const { return k.empty() ? 0 : k.front().rows; }
};

// k, v (kv_heads, d_k): one row per KV head, appended as token t.
void kv_cache_append(kv_cache& cache, const float* k, const float* v);

// One decoding step. q (h, d_k) are the new token's queries, k and v
// (kv_heads, d_k) its keys and values; out (h, d_k) receives each query head's
// attention over the cache after k and v were appended. scale multiplies Q·Kᵀ
// (0 → 1/√d_k). Returns the bytes of cached K and V the step read:
// t · kv_heads · d_k · 2 · sizeof(float). Each KV head is read once for the whole
// group of query heads that share it, which is why GQA reads h / kv_heads times
// fewer bytes than MHA.
//
// The numbers are the stable softmax's over the same q, k, v (forward.hpp,
// "Numerics"): a +inf score makes its row NaN, a row of −inf scores is 0. In
// fp16 / bf16 (`prec`) each step is rounded as the full pass stores it: the
// scores Q·Kᵀ, the scaled scores, the softmax's steps (softmax_rows_rounded),
// and the weights are normalised before ·V; out itself is left for the caller to
// round. fp32 uses the online step (kernel_softmax_online) and divides at the end.
std::size_t decode_step(kv_cache& cache, const float* q, const float* k, const float* v, float* out, int h, float scale = 0.0f,
                        precision prec = precision::fp32);

// The reference: all n tokens at once, causal, with the scalar kernels.
// q (n, h·d_k) and out (n, h·d_k) hold the heads side by side in each row
// (head i in columns [i·d_k, (i+1)·d_k)); k, v are (n, kv_heads·d_k) likewise.
void attention_grouped_causal_naive(const float* q, const float* k, const float* v, float* out, int n, int h, int kv_heads,
                                    int d_k, float scale = 0.0f);

}  // namespace attn
