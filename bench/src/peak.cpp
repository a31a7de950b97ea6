// The FLOP/s probe and the read kernel of the bandwidth probe (and a plain
// matrix-vector product for the real models' profile), built once per
// instruction set like the core's kernels (bench/CMakeLists.txt: PEAK_PROBE,
// READ_PROBE and MATVEC_PROBE name the functions): natively sse2, avx2 + FMA
// and avx512f, in wasm simd128. workloads.cpp runs the ones matching the kernel set in use, so each
// result is a fraction of what its own instructions can do (a cache-resident
// read with 16-byte loads would understate what avx512f's 64-byte loads reach).
#include <algorithm>
#include <chrono>
#include <xsimd/xsimd.hpp>

#include <cstddef>

#if !defined(PEAK_PROBE) || !defined(READ_PROBE) || !defined(MATVEC_PROBE)
#error "build peak.cpp with PEAK_PROBE, READ_PROBE and MATVEC_PROBE=<function name>"
#endif

namespace {

using batch = xsimd::batch<float>;
using clock_type = std::chrono::steady_clock;
// Enough independent chains to cover latency × issue width: wasm and SSE2 have
// no FMA (a multiply, 3-4 cycles, then an add, 3 cycles, each on two pipes);
// FMA is one 4-cycle operation on two pipes.
constexpr int chains = 12;

// noinline: V8 tiers a wasm function up between calls, so the probe calls this
// repeatedly rather than running one long inlined loop in the baseline tier.
[[gnu::noinline]] float flops_kernel(long iterations, float seed) {
    batch acc[chains];
    for (int c = 0; c < chains; ++c)
        acc[c] = batch(seed + float(c) * 1e-3f);
    const batch a(0.999999f), b(1e-6f);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c)
            acc[c] = xsimd::fma(acc[c], a, b);  // one FMA, or a multiply and an add where there is none
    batch s = acc[0];
    for (int c = 1; c < chains; ++c)
        s += acc[c];
    return xsimd::reduce_add(s);
}

volatile float sink;

}  // namespace

// Best FLOP/s (2 per lane per multiply-add) over about `seconds` of trials.
double PEAK_PROBE(double seconds) {
    long iterations = 1 << 16;
    double best = 0;
    const auto start = clock_type::now();
    auto since = [](clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); };
    while (since(start) < seconds) {
        const auto t0 = clock_type::now();
        sink = flops_kernel(iterations, float(iterations % 7) * 0.1f);
        const double dt = since(t0);
        best = std::max(best, double(iterations) * chains * 2.0 * double(batch::size) / dt);
        if (dt < 0.02)
            iterations *= 2;
    }
    return best;
}

// The sum of data[0, count) (count a multiple of 8 batches), read once with
// aligned loads into eight independent accumulators: enough loads in flight that
// a buffer in L1 or L2 is read at the cache's rate, not at the adds' latency.
[[gnu::noinline]] float READ_PROBE(const float* data, std::size_t count) {
    constexpr std::size_t lanes = batch::size, accumulators = 8;
    batch acc[accumulators];
    for (std::size_t c = 0; c < accumulators; ++c)
        acc[c] = batch(0.0f);
    for (std::size_t i = 0; i + accumulators * lanes <= count; i += accumulators * lanes)
        for (std::size_t c = 0; c < accumulators; ++c)
            acc[c] += batch::load_aligned(data + i + c * lanes);
    for (std::size_t c = 1; c < accumulators; ++c)
        acc[0] += acc[c];
    return xsimd::reduce_add(acc[0]);
}

// y(rows) = w(rows, cols)·x(cols), eight rows of w at a time, one accumulator
// each, summed at the end of the rows: eight independent chains and eight
// sequential streams in flight. Not the core's: the real models' profile
// (llama_workloads.cpp) runs a decode step's products through it beside
// kernel_matmul_bt with one row, to see what a matrix-vector product of the
// same weights reaches in the same runtime.
[[gnu::noinline]] void MATVEC_PROBE(const float* w, const float* x, float* y, int rows, int cols) {
    constexpr int R = 8, lanes = int(batch::size);
    int i = 0;
    for (; i + R <= rows; i += R) {
        batch acc[R];
        for (int r = 0; r < R; ++r)
            acc[r] = batch(0.0f);
        const float* wr = w + std::size_t(i) * std::size_t(cols);
        int j = 0;
        for (; j + lanes <= cols; j += lanes) {
            const batch xv = batch::load_unaligned(x + j);
            for (int r = 0; r < R; ++r)
                acc[r] = xsimd::fma(batch::load_unaligned(wr + std::size_t(r) * std::size_t(cols) + std::size_t(j)), xv, acc[r]);
        }
        for (int r = 0; r < R; ++r) {
            float s = xsimd::reduce_add(acc[r]);
            for (int k = j; k < cols; ++k)
                s += wr[std::size_t(r) * std::size_t(cols) + std::size_t(k)] * x[k];
            y[i + r] = s;
        }
    }
    for (; i < rows; ++i) {
        float s = 0.0f;
        for (int k = 0; k < cols; ++k)
            s += w[std::size_t(i) * std::size_t(cols) + std::size_t(k)] * x[k];
        y[i] = s;
    }
}
