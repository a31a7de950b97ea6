// The train_kernels.hpp SIMD functions, forwarded to the train_kernel_set built
// for the instruction set the forward kernels use (kernel_arch_name()), so
// kernel_use_arch switches forward and backward together.
#include <cstring>
#include <initializer_list>

#include "kernels/kernels.hpp"
#include "kernels/train_kernel_set.hpp"

namespace attn {

#if ATTN_KERNELS_X86
extern const train_kernel_set train_kernels_avx512f, train_kernels_avx2, train_kernels_sse2;
#else
extern const train_kernel_set train_kernels_default;
#endif

namespace {

const train_kernel_set* find_set(const char* name) {
#if ATTN_KERNELS_X86
    for (const train_kernel_set* s : {&train_kernels_avx512f, &train_kernels_avx2, &train_kernels_sse2})
        if (std::strcmp(s->name, name) == 0)
            return s;
    return &train_kernels_sse2;
#else
    (void)name;
    return &train_kernels_default;
#endif
}

const train_kernel_set* active() {
    static const char* last = nullptr;
    static const train_kernel_set* set = nullptr;
    const char* now = kernel_arch_name();
    if (now != last) {
        set = find_set(now);
        last = now;
    }
    return set;
}

}  // namespace

void kernel_matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows) {
    active()->matmul_at_acc(a, b, c, n, k, m, sparse_rows);
}
void kernel_softmax_rows_backward(const float* y, const float* dy, float* dx, int n, int m) {
    active()->softmax_rows_backward(y, dy, dx, n, m);
}
void kernel_adamw(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s) {
    active()->adamw(p, g, m, v, count, s);
}
void kernel_relu(float* x, int count) { active()->relu(x, count); }
void kernel_relu_backward(const float* x, float* dy, int count) { active()->relu_backward(x, dy, count); }
void kernel_rope_pairs(const float* x, const float* c, const float* s, float* y, int n) { active()->rope_pairs(x, c, s, y, n); }
void kernel_rope_pairs_backward(const float* x, const float* c, const float* s, float* y, int n) {
    active()->rope_pairs_backward(x, c, s, y, n);
}

}  // namespace attn
