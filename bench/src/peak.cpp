// The FLOP/s probe and the read kernel of the bandwidth probe, built once per
// instruction set like the core's kernels (bench/CMakeLists.txt: PEAK_PROBE and
// READ_PROBE name the functions): natively sse2, avx2 + FMA and avx512f, in wasm
// simd128. workloads.cpp runs the ones matching the kernel set in use, so each
// result is a fraction of what its own instructions can do (a cache-resident
// read with 16-byte loads would understate what avx512f's 64-byte loads reach).
#include <algorithm>
#include <chrono>
#include <xsimd/xsimd.hpp>

#include <cstddef>

#if !defined(PEAK_PROBE) || !defined(READ_PROBE)
#error "build peak.cpp with PEAK_PROBE=<function name> and READ_PROBE=<function name>"
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
