// The SIMD functions of kernels.hpp and train_kernels.hpp, forwarded to the best
// kernel_set this CPU can run: one set, one choice, for the forward and the
// backward kernels. On x86-64 the build carries three (CMakeLists.txt,
// ATTN_KERNELS_X86): sse2 (any x86-64), avx2 + FMA, avx512f; elsewhere the one
// set of the target.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/kernel_set.hpp"
#include "kernels/kernels.hpp"
#include "kernels/train_kernels.hpp"

#if ATTN_KERNELS_X86
#include <xsimd/xsimd.hpp>  // available_architectures(): CPUID and the OS-enabled register state
#endif

namespace attn {

#if ATTN_KERNELS_X86
extern const kernel_set kernels_avx512f, kernels_avx2, kernels_sse2;
#else
extern const kernel_set kernels_default;
#endif

namespace {

struct runnable_sets {
    const kernel_set* sets[3] = {};
    int count = 0;
    runnable_sets() {
#if ATTN_KERNELS_X86
        const auto cpu = xsimd::available_architectures();
        if (cpu.avx512f && cpu.fma3_avx2)
            sets[count++] = &kernels_avx512f;
        if (cpu.fma3_avx2)
            sets[count++] = &kernels_avx2;
        sets[count++] = &kernels_sse2;
#else
        sets[count++] = &kernels_default;
#endif
    }
};

const runnable_sets& runnable() {
    static const runnable_sets r;
    return r;
}

const kernel_set*& active() {
    static const kernel_set* a = runnable().sets[0];
    return a;
}

}  // namespace

const char* kernel_arch_name() { return active()->name; }
int kernel_arch_count() { return runnable().count; }
const char* kernel_arch_at(int index) { return index >= 0 && index < runnable().count ? runnable().sets[index]->name : nullptr; }

bool kernel_use_arch(const char* name) {
    for (int i = 0; i < runnable().count; ++i)
        if (name && std::strcmp(runnable().sets[i]->name, name) == 0) {
            active() = runnable().sets[i];
            return true;
        }
    return false;
}

void kernel_matmul(const float* a, const float* b, float* c, int n, int k, int m) { active()->matmul(a, b, c, n, k, m); }
void kernel_matmul_scale_acc(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale) {
    active()->matmul_scale_acc(a, b, c, n, k, m, row_scale);
}
void kernel_matmul_bt(const float* a, const float* b, float* c, int n, int m, int d) { active()->matmul_bt(a, b, c, n, m, d); }
bool kernel_matmul_bt_transposes(int n, int d) { return active()->matmul_bt_transposes(n, d); }
void kernel_softmax_rows(float* x, int n, int m, bool subtract_max) { active()->softmax_rows(x, n, m, subtract_max); }
void kernel_softmax_online(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale) {
    active()->softmax_online(s, rows, cols, visible, scale, row_max, row_sum, rescale);
}
void kernel_relu(float* x, int count) { active()->relu(x, count); }
void kernel_swiglu(const float* gate, const float* up, float* out, int count) { active()->swiglu(gate, up, out, count); }
void kernel_gelu_tanh(const float* x, float* out, int count) { active()->gelu_tanh(x, out, count); }

void kernel_widen_16(const std::uint16_t* b, bool bf16, float* out, std::size_t count) {
    active()->widen_16(b, bf16, out, count);
}
void kernel_matmul_bt_16(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d) {
    thread_local std::vector<float> scratch;  // each thread its own: generation splits a product's rows
    scratch.resize(std::max(scratch.size(), matmul_bt_16_scratch(n, d)));
    active()->matmul_bt_16(a, b, bf16, c, n, m, d, scratch.data());
}

void kernel_matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows) {
    active()->matmul_at_acc(a, b, c, n, k, m, sparse_rows);
}
void kernel_softmax_rows_backward(const float* y, const float* dy, float* dx, int n, int m) {
    active()->softmax_rows_backward(y, dy, dx, n, m);
}
void kernel_adamw(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s) {
    active()->adamw(p, g, m, v, count, s);
}
void kernel_relu_backward(const float* x, float* dy, int count) { active()->relu_backward(x, dy, count); }
void kernel_rope_pairs(const float* x, const float* c, const float* s, float* y, int n) { active()->rope_pairs(x, c, s, y, n); }
void kernel_rope_pairs_backward(const float* x, const float* c, const float* s, float* y, int n) {
    active()->rope_pairs_backward(x, c, s, y, n);
}

}  // namespace attn
