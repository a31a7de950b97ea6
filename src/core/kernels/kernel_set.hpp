// One build of the SIMD kernels (kernels_simd.cpp) for one instruction set.
// Internal to the core: kernels_dispatch.cpp holds the sets this build carries
// and forwards the kernels.hpp functions to the one in use.
#pragma once

namespace attn {

struct kernel_set {
    const char* name;  // xsimd's name of the architecture: "sse2", "fma3+avx2", "avx512f", "wasm"
    void (*matmul)(const float* a, const float* b, float* c, int n, int k, int m);
    void (*matmul_scale_acc)(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale);
    void (*matmul_bt)(const float* a, const float* b, float* c, int n, int m, int d);
    bool (*matmul_bt_transposes)(int n, int d);
    void (*softmax_rows)(float* x, int n, int m, bool subtract_max);
    void (*softmax_online)(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale);
};

}  // namespace attn
