// Rotary position embedding (RoPE): positions enter attention as rotations of
// the query and key vectors, so Q·Kᵀ depends only on the distance between tokens.
//
// Shapes:
//   n     rows (tokens), row i is at position pos0 + i
//   d     width of a row (d_k of one head)
//
// Convention: interleaved pairs. Components (x[2p], x[2p+1]) form pair p, for
// p in [0, d/2), and pair p turns by the angle pos·θ_p with θ_p = base^(-2p/d)
// (base = 10000 in the RoFormer paper):
//   x[2p]   ← x[2p]·cos − x[2p+1]·sin
//   x[2p+1] ← x[2p]·sin + x[2p+1]·cos
// (Some libraries pair x[p] with x[p + d/2] instead; the two differ only by a
// fixed permutation of the components.) When d is odd, the last component has no
// partner and is left as it is.
//
// The angles are computed in double and rounded to float once, so native and
// WebAssembly builds agree to the last bit or so even at large positions.
#pragma once

namespace attn {

// x(n, d) ← each row i rotated for position pos0 + i, in place.
void rope_rotate(float* x, int n, int d, int pos0, float base);
void rope_rotate_naive(float* x, int n, int d, int pos0, float base);

// The same rotation in Hugging Face's convention for Llama and Qwen
// (rotate_half): pair p is (x[p], x[p + d/2]), with the same angle pos·θ_p:
//   x[p]       ← x[p]·cos − x[p + d/2]·sin
//   x[p + d/2] ← x[p + d/2]·cos + x[p]·sin
// d must be even (a config with an odd head_dim is refused before this).
// Equal to rope_rotate on the components permuted (x[p], x[p + d/2]) → (x[2p],
// x[2p+1]) and back, which is how llama2.c's export turns one into the other.
void rope_rotate_half(float* x, int n, int d, int pos0, float base);
void rope_rotate_half_naive(float* x, int n, int d, int pos0, float base);

}  // namespace attn
