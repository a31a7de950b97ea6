// The numeric kernels of the attention core.
//
// Every kernel comes in two forms: the SIMD one (xsimd, vectorised over the
// innermost dimension with a scalar tail) and its `_naive` twin, written as the
// plain loop the formula reads as. The twins are kept forever: the tests compare
// every SIMD kernel with its twin over many shapes, including sizes that are not
// multiples of the vector width.
//
// All matrices are row-major and dense. Shapes are given as (rows, cols).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace attn {

// c(n, m) = a(n, k) · b(k, m)            -- projections X·W, weights·V
void kernel_matmul(const float* a, const float* b, float* c, int n, int k, int m);
void kernel_matmul_naive(const float* a, const float* b, float* c, int n, int k, int m);

// c(n, m) ← diag(row_scale)·c + a(n, k) · b(k, m): each row of c multiplied by its
// factor, then the products added onto it -- the tiled attention's output rows,
// rescaled and given a tile's weights·V without a (rows, m) product in between.
// A row whose factor is exactly 1 is left as it is.
void kernel_matmul_scale_acc(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale);
void kernel_matmul_scale_acc_naive(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale);

// c(n, m) = a(n, d) · b(m, d)ᵀ           -- scores Q·Kᵀ
void kernel_matmul_bt(const float* a, const float* b, float* c, int n, int m, int d);
void kernel_matmul_bt_naive(const float* a, const float* b, float* c, int n, int m, int d);
// Whether kernel_matmul_bt, for n rows of width d, transposes b and then sums as
// kernel_matmul does (a chain of FMAs over d per element: the same bits for m a
// multiple of 4, where neither has a scalar tail): a caller that holds bᵀ already
// (the trainer's weights, transposed once a step) can then call kernel_matmul(a, bᵀ)
// and save the transposition. Natively with AVX2/AVX-512 for narrow rows; never
// in wasm or with sse2, whose matmul_bt folds lane sums.
bool kernel_matmul_bt_transposes(int n, int d);

// x ← max(x, 0) in place, NaN kept, −0 → +0    -- ReLU, the FFN's hidden layer (the
// forward pass and training both call this one). Selects with no branch: the signs
// of a hidden layer are a coin toss, and the branches of the plain loops cost T2 a
// sixth of its training step natively.
void kernel_relu(float* x, int count);
void kernel_relu_naive(float* x, int count);

// out = silu(gate)·up element-wise, silu(g) = g / (1 + e^−g)   -- SwiGLU, the
// llama block's FFN (llama/forward.hpp). NaN stays NaN; g → −∞ gives −0·up
// (e^−g overflows to +inf, g / inf = −0), g → +∞ gives g·up. e^x as exp_full
// (kernels_simd.cpp) rounds it: within a few ulp of the twin's std::exp.
void kernel_swiglu(const float* gate, const float* up, float* out, int count);
void kernel_swiglu_naive(const float* gate, const float* up, float* out, int count);

// out = gelu(x) element-wise with GPT-2's tanh approximation (gelu_new):
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), computed as x / (1 + e^(−2z)) for
// z = √(2/π)·(x + 0.044715·x³) (the same value; no 1 + tanh to cancel for negative
// x). NaN stays NaN, a large negative x gives −0, +∞ gives +∞ and −∞ NaN (−∞·0, as
// the textbook form gives). The twin evaluates the textbook form in double.
void kernel_gelu_tanh(const float* x, float* out, int count);
void kernel_gelu_tanh_naive(const float* x, float* out, int count);

// x(n, m) ← softmax of each row, in place.
// subtract_max = true is the stable form; false is the article's bug (exp of raw
// logits, which overflows to inf past x ≈ 88.72 exactly as fp32's e^x does, and
// gives subnormals down to e^−103.97). IEEE semantics on every kernel set: the
// max skips NaN, a NaN entry makes its row NaN, a row whose every entry is -inf
// (fully masked) becomes all zeros rather than 0/0, and an all-NaN row is NaN.
void kernel_softmax_rows(float* x, int n, int m, bool subtract_max);
void kernel_softmax_rows_naive(float* x, int n, int m, bool subtract_max);

// One online-softmax step of the tiled pass (tiled.hpp) over a tile of raw scores.
// s(rows, cols) holds Q·Kᵀ for the tile; row r sees its first visible[r] keys
// (clamped to [0, cols]). Per row, with m_old = row_max[r]:
//   s_j ← s_j · scale, m_new = max(m_old, max_j<visible s_j),
//   s_j ← exp(s_j − m_new) for j < visible and 0 after (while m_new = −inf:
//   exp(s_j), so −inf scores weigh 0 and NaN stays NaN),
//   rescale[r] = exp(m_old − m_new) (1 while the row has seen no key, m_new = −inf),
//   row_max[r] = m_new, row_sum[r] = row_sum[r] · rescale[r] + Σ_j s_j.
void kernel_softmax_online(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale);
void kernel_softmax_online_naive(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                                 float* rescale);

// 16-bit weights, as Hugging Face checkpoints ship them: IEEE half (f16) or
// bfloat16 (bf16, fp32's top half; `bf16` set below). The products read them where
// they lie and widen them exactly (every f16 and bf16 value is an fp32 value), so
// a model keeps its file's size in memory.
// The fp32 value of an IEEE half (normals, subnormals, ±0, ±inf, NaN with its payload).
inline float f16_to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, em = h & 0x7fffu;
    std::uint32_t bits = em << 13;
    float f;
    std::memcpy(&f, &bits, 4);
    f *= 0x1p112f;  // rebias 15 → 127; exact for normals and subnormals alike
    std::memcpy(&bits, &f, 4);
    if (em >= 0x7c00u)
        bits = (em << 13) | 0x7f800000u;  // inf and NaN keep their payload
    bits |= sign;
    std::memcpy(&f, &bits, 4);
    return f;
}
// The fp32 value of a bfloat16: its 16 bits on top.
inline float bf16_to_float(std::uint16_t h) {
    const std::uint32_t bits = std::uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// out[i] = b[i] widened to fp32, for count 16-bit weights at b.
void kernel_widen_16(const std::uint16_t* b, bool bf16, float* out, std::size_t count);
void kernel_widen_16_naive(const std::uint16_t* b, bool bf16, float* out, std::size_t count);

// c(n, m) = a(n, d) · b(m, d)ᵀ with b's weights 16-bit -- a real model's
// projections x·Wᵀ read from its file's bytes. b's rows are widened 16 at a time
// into a small buffer that kernel_matmul_bt then reads, so each c[i][j] gets the
// bits kernel_matmul_bt gives on the widened b (a block of rows or all of them, on
// any thread).
void kernel_matmul_bt_16(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d);
void kernel_matmul_bt_16_naive(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d);

// The SIMD kernels above are built once per instruction set the platform
// offers (wasm: simd128; x86-64: sse2, avx2 with FMA, avx512f), and the best one
// this CPU can run is used from the first call. The naive twins never change.
//
// Name of the instruction set in use ("sse2", "fma3+avx2", "avx512f", "wasm").
const char* kernel_arch_name();
// The instruction sets this build carries and this CPU can run, best first.
int kernel_arch_count();
const char* kernel_arch_at(int index);
// Switches every SIMD kernel to the named set (one of kernel_arch_at); false,
// and nothing changes, when there is no such set or the CPU cannot run it. For
// tests and benchmarks that compare the sets; not thread-safe.
bool kernel_use_arch(const char* name);

}  // namespace attn
