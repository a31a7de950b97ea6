// One build of the backward kernels (train_kernels_simd.cpp) for one instruction
// set. Internal to the core: train_kernels_dispatch.cpp forwards the
// train_kernels.hpp functions to the set named like the forward set in use.
#pragma once

#include "kernels/train_kernels.hpp"

namespace attn {

struct train_kernel_set {
    const char* name;  // xsimd's name of the architecture, as kernel_set::name
    void (*matmul_at_acc)(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows);
    void (*softmax_rows_backward)(const float* y, const float* dy, float* dx, int n, int m);
    void (*adamw)(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s);
    void (*relu)(float* x, int count);
    void (*relu_backward)(const float* x, float* dy, int count);
    void (*rope_pairs)(const float* x, const float* c, const float* s, float* y, int n);
    void (*rope_pairs_backward)(const float* x, const float* c, const float* s, float* y, int n);
};

}  // namespace attn
