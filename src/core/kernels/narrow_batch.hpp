// The narrower batches a wide kernel set finishes a row with (kernels_simd.cpp): what is left after whole batches of W goes
// through AVX2 / SSE batches of the same CPU, FMA included, before any scalar tail. The heads of a small model are narrower than
// one AVX-512 batch (d_k = 12 in the training lessons). void where there is none: sse2 and wasm (W = 4). Internal to the SIMD
// kernel files, each built once per instruction set.
#pragma once

#include <xsimd/xsimd.hpp>

namespace attn {
namespace {

#if defined(__AVX512F__)
using half_batch = xsimd::batch<float, xsimd::fma3<xsimd::avx2>>;
using quarter_batch = xsimd::batch<float, xsimd::fma3<xsimd::sse4_2>>;
#elif defined(__AVX2__) && defined(__FMA__)
using half_batch = xsimd::batch<float, xsimd::fma3<xsimd::sse4_2>>;
using quarter_batch = void;
#else
using half_batch = void;
using quarter_batch = void;
#endif

}  // namespace
}  // namespace attn
