// One build of the SIMD kernels (kernels_simd.cpp) for one instruction set: the
// forward kernels (kernels.hpp) and training's backward kernels (train_kernels.hpp)
// together, so one choice of set covers both. Internal to the core:
// kernels_dispatch.cpp holds the sets this build carries and forwards the
// kernels.hpp and train_kernels.hpp functions to the one in use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/train_kernels.hpp"  // adamw_scalars

namespace attn {

// matmul_bt_16 widens b this many rows at a time into its caller's scratch of
// matmul_bt_16_scratch(n, d) floats (the block, and n rows of its products).
constexpr int matmul_bt_16_block = 16;
inline std::size_t matmul_bt_16_scratch(int n, int d) {
    return std::size_t(matmul_bt_16_block) * (std::size_t(d) + std::size_t(n));
}

struct kernel_set {
    const char* name;  // xsimd's name of the architecture: "sse2", "fma3+avx2", "avx512f", "wasm"
    // forward (kernels.hpp)
    void (*matmul)(const float* a, const float* b, float* c, int n, int k, int m);
    void (*matmul_scale_acc)(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale);
    void (*matmul_bt)(const float* a, const float* b, float* c, int n, int m, int d);
    bool (*matmul_bt_transposes)(int n, int d);
    void (*softmax_rows)(float* x, int n, int m, bool subtract_max);
    void (*softmax_online)(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale);
    void (*relu)(float* x, int count);
    void (*swiglu)(const float* gate, const float* up, float* out, int count);
    void (*gelu_tanh)(const float* x, float* out, int count);
    // 16-bit weights (f16, or bf16) widened, and read by matmul_bt
    void (*widen_16)(const std::uint16_t* b, bool bf16, float* out, std::size_t count);
    void (*matmul_bt_16)(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d, float* scratch);
    // backward (train_kernels.hpp)
    void (*matmul_at_acc)(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows);
    void (*softmax_rows_backward)(const float* y, const float* dy, float* dx, int n, int m);
    void (*adamw)(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s);
    void (*relu_backward)(const float* x, float* dy, int count);
    void (*rope_pairs)(const float* x, const float* c, const float* s, float* y, int n);
    void (*rope_pairs_backward)(const float* x, const float* c, const float* s, float* y, int n);
};

}  // namespace attn
