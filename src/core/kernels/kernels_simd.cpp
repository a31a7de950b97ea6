// SIMD kernels over xsimd::batch<float> for the architecture this file is built
// for. The build compiles it once per instruction set (wasm simd128 under
// -msimd128; natively sse2, avx2 + FMA and avx512f, each with its own flags)
// into the kernel_set named by ATTN_KERNEL_SET; kernels_dispatch.cpp picks one
// at run time. Everything else here has internal linkage, so the copies never
// meet. Each loop runs whole batches first and finishes with a scalar tail, so
// any size works.
//
// Shapes as in kernels.hpp. W is the batch width (4 floats for wasm and SSE, 8
// for AVX2, 16 for AVX-512).
//
// [SECTION] products: register tiles
//   The two products keep a small block of c in registers while they walk the
//   shared dimension, so each loaded value feeds several multiply-adds and there
//   are enough independent accumulators to hide the add latency (wasm simd128
//   has no fused multiply-add on this toolchain: xsimd::fma is a multiply and an
//   add there, and each add chain waits on the previous add).
// [SECTION] softmax: whole rows, and the online step of the tiled pass
// [SECTION] backward: training's kernels (train_kernels.hpp) and ReLU, whose
//   forward the inference pass shares. A tile of the weight gradients' product
//   keeps c in registers as the forward products do; ReLU and its backward select
//   with no branch; RoPE's pairs swap lanes with a constant swizzle.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/kernel_set.hpp"
#include "kernels/narrow_batch.hpp"

#ifndef ATTN_KERNEL_SET
#error "build kernels_simd.cpp with ATTN_KERNEL_SET=<name of its kernel_set>"
#endif

namespace attn {

namespace {
using batch = xsimd::batch<float>;
constexpr int W = int(batch::size);
constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// --- [SECTION] products: register tiles ---------------------------------------

// The register tile of the big products: tile_rows rows of a × tile_cols
// batches of b. With AVX2 and SSE 4 × 2, eight accumulators (four broadcasts and
// two loads per step); with AVX-512's 32 registers 4 × 4, sixteen (W1 dense −5 %,
// W2 −8 %; 6 × 4 gained nothing); V8 compiles 2 × 4 better (measured, W2: 41 ms
// against 43 ms in Node; 4 × 3, 3 × 3 and wider spill: 52 ms and more).
#if defined(__wasm__)
constexpr int tile_rows = 2, tile_cols = 4;
#elif defined(__AVX512F__)
constexpr int tile_rows = 4, tile_cols = 4;
#else
constexpr int tile_rows = 4, tile_cols = 2;
#endif
constexpr int panel_w = tile_cols * W;  // columns per packed strip: one tile wide
constexpr int pack_min_rows = 8;        // fewer rows of a: b is read in place

// A register tile of R rows × C batches of B (N floats each), the three products'
// below share: it starts from c (R rows ldc floats apart) or, given none, from
// zero; each step loads C batches of a row of b and multiplies them by R
// broadcast scalars of a, a_at(r) for row r (called once per row, in order), into
// the accumulators; at the end it is stored into c.
template <class B, int R, int C>
inline void tile_start(B (&acc)[R][C], const float* c, int ldc) {
    constexpr int N = int(B::size);
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < C; ++q)
            acc[r][q] = c ? B::load_unaligned(c + r * ldc + q * N) : B(0.0f);
}

template <class B, int R, int C, class A>
inline void tile_step(B (&acc)[R][C], A&& a_at, const float* b) {
    constexpr int N = int(B::size);
    B bv[C];
    for (int q = 0; q < C; ++q)
        bv[q] = B::load_unaligned(b + q * N);
    for (int r = 0; r < R; ++r) {
        const B ar(a_at(r));
        for (int q = 0; q < C; ++q)
            acc[r][q] = xsimd::fma(ar, bv[q], acc[r][q]);
    }
}

template <class B, int R, int C>
inline void tile_store(const B (&acc)[R][C], float* c, int ldc) {
    constexpr int N = int(B::size);
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < C; ++q)
            acc[r][q].store_unaligned(c + r * ldc + q * N);
}

// c[0..R)[j..j + C·W) (+)= a[0..R)[p0..p1) · b[p0..p1)[j..j + C·W): R rows of a
// (row stride lda), b and c with row stride ldb / ldc. R·C accumulators live in
// registers for the whole walk over p; each step loads C batches of b and
// broadcasts R scalars of a.
template <int R, int C>
inline void matmul_tile(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int p0, int p1, bool accumulate) {
    batch acc[R][C];
    tile_start(acc, accumulate ? c : nullptr, ldc);
    // Pointers stepped by hand, one per row of a and one for b: in wasm each
    // load then needs no address arithmetic of its own (emscripten runs LLVM
    // without loop strength reduction, and V8 does not do it either).
    const float* ap[R];
    for (int r = 0; r < R; ++r)
        ap[r] = a + r * lda + p0;
    const float* bp = b + p0 * ldb;
    for (int steps = p1 - p0; steps > 0; --steps, bp += ldb)
        tile_step(
            acc, [&ap](int r) { return *ap[r]++; }, bp);
    tile_store(acc, c, ldc);
}

// Columns [j, width) of R rows of c, in tiles of C batches, then of C/2, C/4, ...
// as long as whole tiles fit; j ends at the first column no tile covered.
template <int R, int C>
void matmul_cols(const float* a, int lda, const float* b, int ld, int width, float* c, int p0, int p1, bool accumulate, int& j) {
    for (; j + C * W <= width; j += C * W)
        matmul_tile<R, C>(a, lda, b + j, ld, c + j, ld, p0, p1, accumulate);
    if constexpr (C > 1)
        matmul_cols<R, C / 2>(a, lda, b, ld, width, c, p0, p1, accumulate, j);
}

// Natively the wide sets finish a row's last columns, fewer than W, with the
// narrower batches of narrow_batch.hpp instead of the scalar tail: each element
// a chain of FMAs over p in order. (The scalar tail's last bits depended on how
// the compiler vectorised and fused it; the native training tests hold either
// way.) wasm has no narrower batch than its W = 4, and its numbers do not change.
// Columns [j, width) of R rows of c in batches of B (one per row, a chain over
// p each), as long as whole ones fit; j ends at the first column left. B = void:
// nothing.
template <class B, int R>
void matmul_cols_narrow(const float* a, int lda, const float* b, int ld, int width, float* c, int p0, int p1, bool accumulate,
                        int& j) {
    if constexpr (!std::is_void_v<B>) {
        constexpr int N = int(B::size);
        for (; j + N <= width; j += N) {
            B acc[R];
            for (int r = 0; r < R; ++r)
                acc[r] = accumulate ? B::load_unaligned(c + r * ld + j) : B(0.0f);
            for (int p = p0; p < p1; ++p) {
                const B bv = B::load_unaligned(b + p * ld + j);
                for (int r = 0; r < R; ++r)
                    acc[r] = xsimd::fma(B(a[r * lda + p]), bv, acc[r]);
            }
            for (int r = 0; r < R; ++r)
                acc[r].store_unaligned(c + r * ld + j);
        }
    }
}

// R rows of c over columns [0, width) (b and c of row stride ld), shared
// dimension [p0, p1), b read in place. Three or more rows take tile_cols batches
// at a time; fewer rows get wider column blocks so that there are about eight
// accumulators when the width allows.
template <int R>
void matmul_rows(const float* a, int lda, const float* b, int ld, int width, float* c, int p0, int p1, bool accumulate) {
    int j = 0;
    matmul_cols<R, R >= 3 ? tile_cols : 8 / R>(a, lda, b, ld, width, c, p0, p1, accumulate, j);
    matmul_cols_narrow<half_batch, R>(a, lda, b, ld, width, c, p0, p1, accumulate, j);
    matmul_cols_narrow<quarter_batch, R>(a, lda, b, ld, width, c, p0, p1, accumulate, j);
    for (; j < width; ++j)
        for (int r = 0; r < R; ++r) {
            float s = accumulate ? c[r * ld + j] : 0.0f;
            for (int p = p0; p < p1; ++p)
                s += a[r * lda + p] * b[p * ld + j];
            c[r * ld + j] = s;
        }
}

constexpr int k_block = 128;
constexpr int m_block = 64;

// R rows of c, columns [j0, j0 + mj) of a k_block × m_block block: the first
// `packed` columns from the packed strips (panel, kb rows each), the rest from
// b in place.
template <int R>
void matmul_block(const float* a, int lda, const float* b, int ld, const float* panel, int kb, float* c, int j0, int packed,
                  int mj, int p0, int p1, bool accumulate) {
    for (int s = 0; s < packed; s += panel_w)
        matmul_tile<R, tile_cols>(a + p0, lda, panel + s * kb, panel_w, c + j0 + s, ld, 0, p1 - p0, accumulate);
    if (packed < mj)
        matmul_rows<R>(a, lda, b + j0 + packed, ld, mj - packed, c + j0 + packed, p0, p1, accumulate);
}

// The last rows of c, fewer than a whole tile: `rows` ≤ R of them.
template <int R>
void matmul_block_last(int rows, const float* a, int lda, const float* b, int ld, const float* panel, int kb, float* c, int j0,
                       int packed, int mj, int p0, int p1, bool accumulate) {
    if constexpr (R > 0) {
        if (rows == R)
            matmul_block<R>(a, lda, b, ld, panel, kb, c, j0, packed, mj, p0, p1, accumulate);
        else
            matmul_block_last<R - 1>(rows, a, lda, b, ld, panel, kb, c, j0, packed, mj, p0, p1, accumulate);
    }
}

// The W sums of W batches as one batch: lane q holds the sum of the lanes of
// acc[q]. xsimd::haddp, except for AVX-512, where xsimd 13.2's haddp mixes up
// lanes (the kernel tests caught it): there each half-width sum goes through
// the AVX2 haddp and the two halves are joined.
inline batch fold_sums(const batch* acc) {
#if defined(__AVX512F__)
    using half = xsimd::batch<float, xsimd::fma3<xsimd::avx2>>;
    static_assert(W == 16);
    half lo[8], hi[8];
    for (int q = 0; q < 8; ++q) {
        const __m512 x = acc[q], y = acc[q + 8];
        lo[q] = _mm256_add_ps(_mm512_castps512_ps256(x), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
        hi[q] = _mm256_add_ps(_mm512_castps512_ps256(y), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1)));
    }
    const __m256 a = xsimd::haddp(lo), b = xsimd::haddp(hi);
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(a)), _mm256_castps_pd(b), 1));
#else
    return xsimd::haddp(acc);
#endif
}

// c[0..R)[j0..j0 + W) = a[0..R) · b[j0..j0 + W)ᵀ: R rows of a against W rows of b
// (all rows of stride d). R·W accumulators, one per output; fold_sums folds the W
// accumulators of a row into one batch of W dot products. D > 0 fixes d at
// compile time (the usual head widths): the rows' offsets r·d and q·d then sit in
// the loads as constants, and the loop steps two pointers and nothing else.
template <int R, int D>
inline void matmul_bt_tile(const float* a, const float* b, float* c, int ldc, int d_runtime) {
    const int d = D > 0 ? D : d_runtime;
    batch acc[R][W];
    for (int r = 0; r < R; ++r)
        for (int q = 0; q < W; ++q)
            acc[r][q] = batch(0.0f);
    const int dv = d - d % W;
    const float* ap = a;
    const float* bp = b;
    for (int steps = dv / W; steps > 0; --steps, ap += W, bp += W) {
        batch av[R];
        for (int r = 0; r < R; ++r)
            av[r] = batch::load_unaligned(ap + r * d);
        for (int q = 0; q < W; ++q) {
            const batch bq = batch::load_unaligned(bp + q * d);
            for (int r = 0; r < R; ++r)
                acc[r][q] = xsimd::fma(av[r], bq, acc[r][q]);
        }
    }
    for (int r = 0; r < R; ++r) {
        batch sums = fold_sums(acc[r]);
        if (dv < d) {
            alignas(64) float tail[W];
            for (int q = 0; q < W; ++q) {
                float s = 0.0f;
                for (int p = dv; p < d; ++p)
                    s += a[r * d + p] * b[q * d + p];
                tail[q] = s;
            }
            sums += batch::load_aligned(tail);
        }
        sums.store_unaligned(c + r * ldc);
    }
}

// One dot product of length d, vectorised, with four accumulators.
inline float dot(const float* x, const float* y, int d) {
    batch acc[4] = {batch(0.0f), batch(0.0f), batch(0.0f), batch(0.0f)};
    int p = 0;
    for (; p + 4 * W <= d; p += 4 * W)
        for (int q = 0; q < 4; ++q)
            acc[q] = xsimd::fma(batch::load_unaligned(x + p + q * W), batch::load_unaligned(y + p + q * W), acc[q]);
    for (; p + W <= d; p += W)
        acc[0] = xsimd::fma(batch::load_unaligned(x + p), batch::load_unaligned(y + p), acc[0]);
    float s = xsimd::reduce_add((acc[0] + acc[1]) + (acc[2] + acc[3]));
    for (; p < d; ++p)
        s += x[p] * y[p];
    return s;
}

// Rows per matmul_bt tile: R·W accumulators plus R + 1 loaded batches must fit
// the register file (16 vector registers for SSE and for wasm on x86-64).
constexpr int bt_rows = W >= 8 ? 1 : 2;

// kernel_matmul, adding onto c when accumulate is set.
void matmul_onto(const float* a, const float* b, float* c, int n, int k, int m, bool accumulate_c) {
    // b is walked in blocks of k_block rows × m_block columns. Each block is first
    // copied into strips of panel_w columns, each strip's rows one after another
    // (32 KB in all), so that a register tile reads it as one sequential stream:
    // read in place, its rows lie m floats apart, and for the power-of-two widths
    // of a model (m = 512: 2 KB) they all fall into the same few L1 sets and evict
    // each other. Every row block of a then goes over the packed block in L1.
    alignas(64) float panel[k_block * m_block];
    for (int p0 = 0; p0 < k; p0 += k_block) {
        const int p1 = std::min(k, p0 + k_block), kb = p1 - p0;
        const bool accumulate = accumulate_c || p0 > 0;
        for (int j0 = 0; j0 < m; j0 += m_block) {
            const int mj = std::min(m_block, m - j0);
            // Columns [j0, j0 + packed) go through the panel; with few rows of a
            // the copy would cost as much as the product, and b is read in place.
            // b no wider than a strip is a strip already.
            const int packed = n >= pack_min_rows && m > panel_w ? mj / panel_w * panel_w : 0;
            for (int s = 0; s < packed; s += panel_w)
                for (int p = 0; p < kb; ++p)
                    for (int q = 0; q < panel_w; q += W)
                        batch::load_unaligned(b + (p0 + p) * m + j0 + s + q).store_aligned(panel + s * kb + p * panel_w + q);
            int i = 0;
            for (; i + tile_rows <= n; i += tile_rows)
                matmul_block<tile_rows>(a + i * k, k, b, m, panel, kb, c + i * m, j0, packed, mj, p0, p1, accumulate);
            if (i < n)
                matmul_block_last<tile_rows - 1>(n - i, a + i * k, k, b, m, panel, kb, c + i * m, j0, packed, mj, p0, p1,
                                                 accumulate);
        }
    }
}

void kernel_matmul(const float* a, const float* b, float* c, int n, int k, int m) {
    if (k == 0)
        std::fill(c, c + n * m, 0.0f);
    else
        matmul_onto(a, b, c, n, k, m, false);
}

void kernel_matmul_scale_acc(const float* a, const float* b, float* c, int n, int k, int m, const float* row_scale) {
    for (int i = 0; i < n; ++i) {
        if (row_scale[i] == 1.0f)
            continue;
        const batch f(row_scale[i]);
        float* ci = c + i * m;
        int j = 0;
        for (; j + W <= m; j += W)
            (batch::load_unaligned(ci + j) * f).store_unaligned(ci + j);
        for (; j < m; ++j)
            ci[j] *= row_scale[i];
    }
    if (k > 0)
        matmul_onto(a, b, c, n, k, m, true);
}

// One row of a against W rows of b. Out of line: V8 allocates registers for it
// better on its own (wasm, decoding one head: 11.6 against 14 µs per 2048 keys).
[[gnu::noinline]] void matmul_bt_row(const float* a, const float* b, float* c, int d) { matmul_bt_tile<1, 0>(a, b, c, 0, d); }

#if defined(__wasm__)
// matmul_bt_row for one row against b read from memory (decoding: y = W·x), with
// the next tile's W rows of b, at `next`, touched as it goes: a word of each of
// their cache lines is read (W·d floats, 16 to a line, one line a step), so those
// lines are on their way before the next call needs them. wasm has no prefetch,
// and without this V8's code keeps too few loads in flight to stream b at the
// memory's rate (decoding stories15M in Node: 4.65 against 2.43 ms a token). The
// words are or-ed into a volatile so the loads stay; the sums are
// matmul_bt_tile<1, 0>'s, bit for bit.
[[gnu::noinline]] void matmul_bt_row_ahead(const float* a, const float* b, float* c, int d, const float* next) {
    constexpr int line = 16;  // floats per 64-byte line
    static_assert(W * W == line, "one line of the next tile a step");
    batch acc[W];
    for (int q = 0; q < W; ++q)
        acc[q] = batch(0.0f);
    const int dv = d - d % W;
    std::uint32_t touched = 0;
    const float* t = next;
    for (int p = 0; p < dv; p += W, t += line) {
        const batch av = batch::load_unaligned(a + p);
        for (int q = 0; q < W; ++q)
            acc[q] = xsimd::fma(av, batch::load_unaligned(b + q * d + p), acc[q]);
        std::uint32_t word;
        std::memcpy(&word, t, sizeof word);
        touched |= word;
    }
    batch sums = fold_sums(acc);
    if (dv < d) {
        alignas(64) float tail[W];
        for (int q = 0; q < W; ++q) {
            float s = 0.0f;
            for (int p = dv; p < d; ++p)
                s += a[p] * b[q * d + p];
            tail[q] = s;
        }
        sums += batch::load_aligned(tail);
    }
    sums.store_unaligned(c);
    [[maybe_unused]] volatile std::uint32_t kept = touched;
}
#endif

// c[0..R)[j..j + C·N) for B of width N from the transposed block bt (d rows of
// stride m_block, column j of bt being row j of b): a chain of FMAs over p from
// zero per element, R·C of them side by side.
template <class B, int R, int C>
inline void matmul_bt_narrow_tile(const float* a, int d, const float* bt, float* c, int ldc) {
    B acc[R][C];
    tile_start(acc, nullptr, 0);
    for (int p = 0; p < d; ++p)
        tile_step(
            acc, [a, d, p](int r) { return a[r * d + p]; }, bt + p * m_block);
    tile_store(acc, c, ldc);
}

// Columns [j, j1) of R rows with C batches of B at a time while whole ones fit.
template <class B, int R, int C>
void matmul_bt_narrow_cols(const float* a, int d, const float* bt, float* c, int m, int j0, int j1, int& j) {
    if constexpr (!std::is_void_v<B>) {
        for (; j + C * int(B::size) <= j1; j += C * int(B::size))
            matmul_bt_narrow_tile<B, R, C>(a, d, bt + (j - j0), c + j, m);
    }
}

// R rows of c against the transposed key block [j0, j1): two batches of keys at
// a time, then one, then narrower batches, then scalars.
template <int R>
void matmul_bt_narrow_rows(const float* a, const float* bt, float* c, int m, int d, int j0, int j1) {
    int j = j0;
    if constexpr (W >= 16 && R >= 4)  // 16 accumulators: AVX-512 has the registers
        matmul_bt_narrow_cols<batch, R, 4>(a, d, bt, c, m, j0, j1, j);
    matmul_bt_narrow_cols<batch, R, 2>(a, d, bt, c, m, j0, j1, j);
    matmul_bt_narrow_cols<batch, R, 1>(a, d, bt, c, m, j0, j1, j);
    matmul_bt_narrow_cols<half_batch, R, 1>(a, d, bt, c, m, j0, j1, j);
    matmul_bt_narrow_cols<quarter_batch, R, 1>(a, d, bt, c, m, j0, j1, j);
    for (; j < j1; ++j)
        for (int r = 0; r < R; ++r) {
            float s = 0.0f;
            for (int p = 0; p < d; ++p)
                s += a[r * d + p] * bt[p * m_block + (j - j0)];
            c[r * m + j] = s;
        }
}

// matmul_bt by transposed key blocks (native wide sets only). Each block of
// keys is transposed once (d rows of m_block) and every row of a runs broadcast
// multiply-adds over it, keys along the batch, as kernel_matmul does, with no
// fold. Below d = W, matmul_bt_tile would compute everything in its scalar tail;
// above, each W outputs cost a fold of W batches for d / W multiply-adds each,
// while the transposition costs one pass over the block for all n rows. Measured
// (GFLOP/s, one core): n = 24, d = 12 / 48: 43–83 / 44–86 against 6 / 36–58
// folded; n = 24, d = 64: 57–94 against 65–124 folded; n = 64 (attention
// tiles), d = 64–128: 128–137 against 73–88 folded with AVX-512, a tie with AVX2.
constexpr int narrow_max_d = 128;
[[maybe_unused]] constexpr bool transpose_keys(int n, int d) {
    return d < W || (d <= 48 && n >= 16) || (W >= 16 && d <= narrow_max_d && n >= 48);
}

// bt (d rows of stride m_block) ← rows [j0, j1) of b (m, d) transposed: 8 × 8
// blocks through registers with an 8-float batch where the set has one (a
// scalar copy of a 64-key block cost a third of the products with it), the
// edges one float at a time.
using batch8 = std::conditional_t<W == 8, batch, std::conditional_t<W == 16, half_batch, void>>;
template <class B8 = batch8>
void transpose_key_block(const float* b, float* bt, int d, int j0, int j1) {
    int jb = 0, pe = 0;
    if constexpr (!std::is_void_v<B8>) {
        pe = d / 8 * 8;
        for (; j0 + jb + 8 <= j1; jb += 8)
            for (int p = 0; p < pe; p += 8) {
                B8 rows[8];
                for (int r = 0; r < 8; ++r)
                    rows[r] = B8::load_unaligned(b + (j0 + jb + r) * d + p);
                xsimd::transpose(rows, rows + 8);
                for (int r = 0; r < 8; ++r)
                    rows[r].store_aligned(bt + (p + r) * m_block + jb);
            }
        for (int j = j0; j < j0 + jb; ++j)
            for (int p = pe; p < d; ++p)
                bt[p * m_block + (j - j0)] = b[j * d + p];
    }
    for (int j = j0 + jb; j < j1; ++j)
        for (int p = 0; p < d; ++p)
            bt[p * m_block + (j - j0)] = b[j * d + p];
}

[[maybe_unused]] void matmul_bt_narrow(const float* a, const float* b, float* c, int n, int m, int d) {
    alignas(64) float bt[narrow_max_d * m_block];
    for (int j0 = 0; j0 < m; j0 += m_block) {
        const int j1 = std::min(m, j0 + m_block);
        transpose_key_block(b, bt, d, j0, j1);
        int i = 0;
        for (; i + 4 <= n; i += 4)
            matmul_bt_narrow_rows<4>(a + i * d, bt, c + i * m, m, d, j0, j1);
        for (; i < n; ++i)
            matmul_bt_narrow_rows<1>(a + i * d, bt, c + i * m, m, d, j0, j1);
    }
}

// kernel_matmul_bt with d fixed at compile time when D > 0 (see matmul_bt_tile).
template <int D>
void matmul_bt(const float* a, const float* b, float* c, int n, int m, int d) {
    if constexpr (W >= 8) {
        if (transpose_keys(n, d))
            return matmul_bt_narrow(a, b, c, n, m, d);
    }
    // Keys in blocks of m_block rows: a block of b stays in L1 while every row
    // pair of a goes over it, so b is read from memory once (decoding: K once
    // per step, whatever the group size).
    for (int j0 = 0; j0 < m; j0 += m_block) {
        const int j1 = std::min(m, j0 + m_block), jv = j0 + (j1 - j0) / W * W;
        int i = 0;
        for (; i + bt_rows <= n; i += bt_rows) {
            for (int j = j0; j < jv; j += W)
                matmul_bt_tile<bt_rows, D>(a + i * d, b + j * d, c + i * m + j, m, d);
            for (int r = 0; r < bt_rows; ++r)
                for (int j = jv; j < j1; ++j)
                    c[(i + r) * m + j] = dot(a + (i + r) * d, b + j * d, d);
        }
        for (; i < n; ++i) {
#if defined(__wasm__)
            if (n == 1) {  // the last tile of b has no next to touch
                int j = j0;
                for (; j < jv && j + 2 * W <= m; j += W)
                    matmul_bt_row_ahead(a, b + j * d, c + j, d, b + (j + W) * d);
                for (; j < jv; j += W)
                    matmul_bt_row(a, b + j * d, c + j, d);
            } else
#endif
                for (int j = j0; j < jv; j += W)
                    matmul_bt_row(a + i * d, b + j * d, c + i * m + j, d);
            for (int j = jv; j < j1; ++j)
                c[i * m + j] = dot(a + i * d, b + j * d, d);
        }
    }
}

void kernel_matmul_bt(const float* a, const float* b, float* c, int n, int m, int d) {
    switch (d) {
        case 32:
            return matmul_bt<32>(a, b, c, n, m, d);
        case 64:
            return matmul_bt<64>(a, b, c, n, m, d);
        case 128:
            return matmul_bt<128>(a, b, c, n, m, d);
        default:
            return matmul_bt<0>(a, b, c, n, m, d);
    }
}

// --- [SECTION] 16-bit weights ------------------------------------------------

// A batch of halves, each in the low 16 bits of its word, as fp32: normals
// rebiased (exponent + 112), subnormals through an exact int → float, inf and NaN
// with their payload; the sign on top. The same bits as kernels.hpp's f16_to_float.
inline batch f16_batch(const xsimd::batch<std::uint32_t>& h) {
    using ubatch = xsimd::batch<std::uint32_t>;
    const ubatch em = h & ubatch(0x7fffu), sign = (h & ubatch(0x8000u)) << 16;
    const ubatch normal = (em << 13) + ubatch(0x38000000u), special = (em << 13) | ubatch(0x7f800000u);
    const batch sub = xsimd::to_float(xsimd::bitwise_cast<std::int32_t>(em)) * batch(0x1p-24f);
    const ubatch bits = xsimd::select(em >= ubatch(0x7c00u), special,
                                      xsimd::select(em >= ubatch(0x400u), normal, xsimd::bitwise_cast<std::uint32_t>(sub)));
    return xsimd::bitwise_cast<float>(bits | sign);
}

// f16 or bf16 to fp32, as kernels.hpp's f16_to_float and bf16_to_float. bf16 is
// a shift every compiler vectorises; f16 goes 256 at a time through words on the
// stack (the same zero-extending loop) and f16_batch.
void widen_16(const std::uint16_t* b, bool bf16, float* out, std::size_t count) {
    if (bf16) {
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t bits = std::uint32_t(b[i]) << 16;
            std::memcpy(out + i, &bits, 4);
        }
        return;
    }
    constexpr std::size_t chunk = 256;
    static_assert(chunk % W == 0);
    alignas(64) std::uint32_t words[chunk];
    std::size_t i = 0;
    for (; i + chunk <= count; i += chunk) {
        for (std::size_t k = 0; k < chunk; ++k)
            words[k] = b[i + k];
        for (std::size_t k = 0; k < chunk; k += W)
            f16_batch(xsimd::batch<std::uint32_t>::load_aligned(words + k)).store_unaligned(out + i + k);
    }
    for (; i < count; ++i) {
        const std::uint32_t em = b[i] & 0x7fffu, sign = std::uint32_t(b[i] & 0x8000u) << 16;
        const float sub = float(em) * 0x1p-24f;
        std::uint32_t bits;
        std::memcpy(&bits, &sub, 4);
        bits = (em >= 0x7c00u ? (em << 13) | 0x7f800000u : em >= 0x400u ? (em << 13) + 0x38000000u : bits) | sign;
        std::memcpy(out + i, &bits, 4);
    }
}

// c = a·bᵀ for 16-bit b: its rows widened a block at a time into `scratch`
// (matmul_bt_16_scratch floats, kernel_set.hpp), which stays in L1, then
// kernel_matmul_bt over the block. Blocks of 16 rows, a multiple of every W, so
// each row lands where kernel_matmul_bt over the widened b puts it (a full W-row
// tile or the same scalar tail) and gets the same bits.
void matmul_bt_16(const float* a, const std::uint16_t* b, bool bf16, float* c, int n, int m, int d, float* scratch) {
    constexpr int block = matmul_bt_16_block;
    float* wide = scratch;
    float* part = scratch + std::size_t(block) * std::size_t(d);
    for (int j0 = 0; j0 < m; j0 += block) {
        const int rows = std::min(block, m - j0);
        widen_16(b + std::size_t(j0) * std::size_t(d), bf16, wide, std::size_t(rows) * std::size_t(d));
        if (n == 1) {
            kernel_matmul_bt(a, wide, c + j0, 1, rows, d);
            continue;
        }
        kernel_matmul_bt(a, wide, part, n, rows, d);
        for (int i = 0; i < n; ++i)
            std::copy(part + std::size_t(i) * std::size_t(rows), part + std::size_t(i + 1) * std::size_t(rows),
                      c + std::size_t(i) * std::size_t(m) + std::size_t(j0));
    }
}

// --- [SECTION] softmax --------------------------------------------------------

// The reduction and polynomial both exps below share, U batches step by step:
// t = x·log2e + 1.5·2^23 holds n, x·log2e rounded, in its low mantissa bits;
// p = e^r for r = x − n·ln2 (|r| ≤ ln2/2, ln2 in two parts), Cephes' degree-6
// polynomial. What is left to each is 2^n, from t, and its range.
constexpr float exp_round_magic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer in the low mantissa bits

template <int U>
inline void exp_reduced(const batch* x, const batch* t, batch* p) {
    const batch round_magic(exp_round_magic), ln2_hi(0.693359375f), ln2_lo(-2.12194440e-4f);
    batch r[U];
    for (int u = 0; u < U; ++u) {
        const batch n = t[u] - round_magic;
        r[u] = xsimd::fnma(n, ln2_lo, xsimd::fnma(n, ln2_hi, x[u]));  // x − n·ln2, ln2 in two parts
        p[u] = batch(1.9875691500e-4f);
    }
    for (const float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
        for (int u = 0; u < U; ++u)
            p[u] = xsimd::fma(p[u], r[u], batch(c));
    for (int u = 0; u < U; ++u)
        p[u] = xsimd::fma(p[u] * r[u], r[u], r[u]) + batch(1.0f);
}

// e^x for x ≤ 0 (what a softmax with its max subtracted sees), within 2 ulp of
// std::exp; below −87 (where e^x leaves the normal floats) it gives exactly 0,
// and NaN stays NaN. Cody–Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, Cephes'
// degree-6 polynomial for e^r, and 2^n built in the exponent bits. About 20
// vector operations: several times fewer than the general xsimd::exp.
//
// x is not clamped: a lane below −87 (−inf included) is replaced by 0 at the
// end whatever its 2^n bits hold, and a NaN lane (x < −87 is false for it)
// carries NaN through the polynomial. A clamp with max(x, −87) would turn NaN
// into e⁻⁸⁷ on x86, where max returns its second operand when either is NaN.
//
// It works on U batches at once, step by step across them: each e^x is a chain of
// some twenty dependent operations, and interleaving independent chains in the
// instruction stream is what lets the core overlap them (V8 barely reorders).
template <int U>
inline void exp_nonpositive(batch* x) {
    using ibatch = xsimd::batch<std::int32_t>;
    const batch round_magic(exp_round_magic), lo(-87.0f), log2e(1.44269504088896341f);
    decltype(x[0] < lo) underflow[U];
    batch t[U], p[U];
    for (int u = 0; u < U; ++u) {
        underflow[u] = x[u] < lo;
        t[u] = xsimd::fma(x[u], log2e, round_magic);
    }
    exp_reduced<U>(x, t, p);
    for (int u = 0; u < U; ++u) {
        // 2^n: n + 127 in the exponent field; n ≥ −126 in every lane kept.
        const ibatch n_int = xsimd::bitwise_cast<std::int32_t>(t[u]) - xsimd::bitwise_cast<std::int32_t>(round_magic);
        x[u] = xsimd::select(underflow[u], batch(0.0f), p[u] * xsimd::bitwise_cast<float>((n_int + ibatch(127)) << 23));
    }
}

// e^x over the whole float range, as std::exp rounds it to within 2 ulp: +inf
// above ln(FLT_MAX) ≈ 88.72, subnormal results down to e^−103.97, 0 below, NaN
// for NaN. The softmax without max-subtraction (the article's bug) needs it to
// overflow exactly where fp32 does. The same reduction and polynomial as
// exp_nonpositive (exp_reduced); 2^n is applied as 2^⌊n/2⌋ · 2^(n−⌊n/2⌋) so that both factors
// stay normal for n in [−151, 129]. The clamp to [−104, 89] keeps n there and
// is written as compare-and-select, which leaves NaN alone.
template <int U>
inline void exp_full(batch* x) {
    using ibatch = xsimd::batch<std::int32_t>;
    const batch round_magic(exp_round_magic), lo(-104.0f), hi(89.0f), log2e(1.44269504088896341f);
    batch t[U], p[U];
    for (int u = 0; u < U; ++u) {
        x[u] = xsimd::select(x[u] < lo, lo, xsimd::select(x[u] > hi, hi, x[u]));
        t[u] = xsimd::fma(x[u], log2e, round_magic);
    }
    exp_reduced<U>(x, t, p);
    for (int u = 0; u < U; ++u) {
        const ibatch n_int = xsimd::bitwise_cast<std::int32_t>(t[u]) - xsimd::bitwise_cast<std::int32_t>(round_magic);
        const ibatch n1 = n_int >> 1, n2 = n_int - n1;
        x[u] = p[u] * xsimd::bitwise_cast<float>((n1 + ibatch(127)) << 23) * xsimd::bitwise_cast<float>((n2 + ibatch(127)) << 23);
    }
}

// max(m, x) lane-wise where a NaN lane of x leaves m unchanged (std::fmax's rule
// for the running max). x86's max returns its second operand when either is
// NaN, wasm's pmax its first, so the operand order is per target.
inline batch max_keep(const batch& m, const batch& x) {
#if defined(__wasm__)
    return xsimd::max(m, x);
#else
    return xsimd::max(x, m);
#endif
}

// The lane-wise max of x[0, end), end a multiple of W (−inf when empty); NaN
// entries are skipped, as std::fmax skips them. Four independent chains: one
// would wait a max latency per batch.
inline batch max_batches(const float* x, int end) {
    batch m[4] = {batch(neg_inf), batch(neg_inf), batch(neg_inf), batch(neg_inf)};
    int j = 0;
    for (; j + 4 * W <= end; j += 4 * W)
        for (int u = 0; u < 4; ++u)
            m[u] = max_keep(m[u], batch::load_unaligned(x + j + u * W));
    for (; j < end; j += W)
        m[0] = max_keep(m[0], batch::load_unaligned(x + j));
    return xsimd::max(xsimd::max(m[0], m[1]), xsimd::max(m[2], m[3]));
}

// e^(x − shift) over x[0, end) in place (end a multiple of W), U batches whose
// exps run side by side, then batch by batch; each batch is added into sum in
// column order. stable: every x − shift ≤ 0 (or NaN) and the short exp serves;
// otherwise the full-range one. Returns the column it stopped at (end).
template <int U, bool stable>
int exp_shift_add(float* x, int end, const batch& shift, batch& sum) {
    int j = 0;
    for (; j + U * W <= end; j += U * W) {
        batch e[U];
        for (int u = 0; u < U; ++u)
            e[u] = batch::load_unaligned(x + j + u * W) - shift;
        if constexpr (stable)
            exp_nonpositive<U>(e);
        else
            exp_full<U>(e);
        for (int u = 0; u < U; ++u) {
            e[u].store_unaligned(x + j + u * W);
            sum += e[u];
        }
    }
    for (; j < end; j += W) {
        batch e = batch::load_unaligned(x + j) - shift;
        if constexpr (stable)
            exp_nonpositive<1>(&e);
        else
            exp_full<1>(&e);
        e.store_unaligned(x + j);
        sum += e;
    }
    return j;
}

// e^(x − shift) over r[0, mv) in place (mv a multiple of W), four batches at a
// time; returns the sum.
template <bool stable>
batch exp_shifted(float* r, int mv, float shift) {
    batch bsum(0.0f);
    exp_shift_add<4, stable>(r, mv, batch(shift), bsum);
    return bsum;
}

// r[0, m) /= sum, as a multiply by 1/sum; a subnormal sum divides instead (1/sum
// would lose the digits or overflow).
void divide_row(float* r, int m, float sum) {
    if (sum > 0.0f && sum < std::numeric_limits<float>::min()) {
        for (int j = 0; j < m; ++j)
            r[j] /= sum;
        return;
    }
    const int mv = m - m % W;
    const batch inv(1.0f / sum);
    int j = 0;
    for (; j < mv; j += W)
        (batch::load_unaligned(r + j) * inv).store_unaligned(r + j);
    for (; j < m; ++j)
        r[j] *= 1.0f / sum;
}

// One row r[0, m) of kernel_softmax_rows.
void softmax_row(float* r, int m, bool subtract_max) {
    const int mv = m - m % W;
    float mx = xsimd::reduce_max(max_batches(r, mv));
    for (int j = mv; j < m; ++j)
        mx = std::fmax(mx, r[j]);
    if (mx == neg_inf) {  // no entry above −inf: masked (zeros), or NaN if any entry is NaN
        const bool any_nan = std::any_of(r, r + m, [](float v) { return std::isnan(v); });
        std::fill(r, r + m, any_nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
        return;
    }
    const float shift = subtract_max ? mx : 0.0f;
    float sum = xsimd::reduce_add(subtract_max ? exp_shifted<true>(r, mv, shift) : exp_shifted<false>(r, mv, shift));
    int tail = mv;
    if constexpr (W >= 8) {
        // Natively a row's last m − mv < W entries go through the same vector
        // exp as the rest, in one batch padded with −inf (e⁻∞ = 0): with a
        // wide batch that tail is a third of a 24-token row, and std::exp per
        // entry cost the training lesson ~5 % of a step.
        if (subtract_max && mv < m) {
            alignas(64) float t[W];
            for (int q = 0; q < W; ++q)
                t[q] = mv + q < m ? r[mv + q] - shift : neg_inf;
            batch e = batch::load_aligned(t);
            exp_nonpositive<1>(&e);
            e.store_aligned(t);
            for (int j = mv; j < m; ++j) {
                r[j] = t[j - mv];
                sum += r[j];
            }
            tail = m;
        }
    }
    for (int j = tail; j < m; ++j) {
        r[j] = std::exp(r[j] - shift);
        sum += r[j];
    }
    divide_row(r, m, sum);
}

// Rows of at most 4 batches, natively (W ≥ 8): a row's exp is a chain of a
// polynomial's latencies over one or two batches, so rows go in groups whose
// batches share one exp call (2 to 8 batches in flight). Every entry and every
// row's sum is computed as softmax_row computes it (the same exp per lane; the
// full batches summed in order, then the tail entry by entry), so the bits are
// softmax_row's. Rows with no entry above −inf, or NaN in their max, go through
// softmax_row.
[[maybe_unused]] void softmax_narrow_rows(float* x, int n, int m) {
    constexpr int most = 8;  // batches per exp call
    const int mv = m - m % W, full = mv / W, nb = full + (mv < m ? 1 : 0);
    const int group = std::max(1, most / nb);
    alignas(64) float tail[most][W];
    int i = 0;
    for (; i + group <= n; i += group) {
        float mx[most];
        bool plain = true;
        for (int g = 0; g < group; ++g) {
            const float* r = x + (i + g) * m;
            float v = xsimd::reduce_max(max_batches(r, mv));
            for (int j = mv; j < m; ++j)
                v = std::fmax(v, r[j]);
            mx[g] = v;
            plain = plain && v != neg_inf && !std::isnan(v);
        }
        if (!plain) {
            for (int g = 0; g < group; ++g)
                softmax_row(x + (i + g) * m, m, true);
            continue;
        }
        batch e[most];
        for (int g = 0; g < group; ++g) {
            const float* r = x + (i + g) * m;
            const batch shift(mx[g]);
            for (int k = 0; k < full; ++k)
                e[g * nb + k] = batch::load_unaligned(r + k * W) - shift;
            if (mv < m) {
                for (int q = 0; q < W; ++q)
                    tail[g][q] = mv + q < m ? r[mv + q] - mx[g] : neg_inf;
                e[g * nb + full] = batch::load_aligned(tail[g]);
            }
        }
        if (group * nb == 8)  // 1, 2 or 4 batches a row
            exp_nonpositive<8>(e);
        else  // 3
            exp_nonpositive<6>(e);
        for (int g = 0; g < group; ++g) {
            float* r = x + (i + g) * m;
            batch bsum(0.0f);
            for (int k = 0; k < full; ++k) {
                e[g * nb + k].store_unaligned(r + k * W);
                bsum += e[g * nb + k];
            }
            float sum = xsimd::reduce_add(bsum);
            if (mv < m) {
                e[g * nb + full].store_aligned(tail[g]);
                for (int j = mv; j < m; ++j) {
                    r[j] = tail[g][j - mv];
                    sum += r[j];
                }
            }
            divide_row(r, m, sum);
        }
    }
    for (; i < n; ++i)
        softmax_row(x + i * m, m, true);
}

void kernel_softmax_rows(float* x, int n, int m, bool subtract_max) {
    if constexpr (W >= 8) {
        if (subtract_max && m > 0 && m <= 4 * W) {
            softmax_narrow_rows(x, n, m);
            return;
        }
    }
    for (int i = 0; i < n; ++i)
        softmax_row(x + i * m, m, subtract_max);
}

// The online step in three passes over the tile's rows, each row's numbers as if
// it were alone. 1: each row's max of its scaled scores, the new running max,
// and m_old − m_new. 2: the rescale factors exp(m_old − m_new), a batch of rows
// per exp (one exp call per row cost as much as a quarter of the weights').
// 3: the weights and their sums, row by row, eight batches' exps side by side
// natively (two rows of four at a time measured 2 % slower on W1).
// The scaled scores are stored before anything is subtracted from them, as the
// naive twin stores them: with FMA, exp(s·scale − shift) in one expression
// contracts to fma(s, scale, −shift), the exact product minus a rounded max, so
// the row's max entry is off by the product's rounding error (about 10⁶ for a
// score of 10¹³), not 0: a positive exponent the short exp was never meant to
// see (±inf out), or a negative one that drops the max entry's weight to 0.
float online_tile_max(float* sr, int vis, float scale) {
    const int vv = vis - vis % W;
    int j = 0;
    const batch bscale(scale);
    batch bm(neg_inf);
    for (; j < vv; j += W) {
        const batch x = batch::load_unaligned(sr + j) * bscale;
        x.store_unaligned(sr + j);
        bm = max_keep(bm, x);
    }
    float tile_max = xsimd::reduce_max(bm);
    for (; j < vis; ++j) {
        sr[j] *= scale;
        tile_max = std::max(tile_max, sr[j]);
    }
    return tile_max;
}

// Weights exp(s − shift) of a row of scaled scores over its first vv columns (a
// multiple of W), in chunks of U batches whose exps run side by side (a row of
// 128 keys is eight AVX-512 batches: one chunk), then batch by batch. The sum adds
// the batches in column order. U = 4 in wasm and with SSE, where eight would spill.
constexpr int online_chunk = W >= 8 ? 8 : 4;
int online_weights(float* sr, const batch& shift, int vv, batch& sum) {
    return exp_shift_add<online_chunk, true>(sr, vv, shift, sum);
}

// The last vis − j < W weights of a row through one padded batch, the masked rest
// 0; returns the row's sum.
float online_row_end(float* sr, int j, int vis, int cols, const batch& shift, batch sum) {
    if (j < vis) {
        alignas(64) float tail[W];
        for (int q = 0; q < W; ++q)
            tail[q] = j + q < vis ? sr[j + q] : neg_inf;  // → exp(−inf) = 0
        batch e = batch::load_aligned(tail) - shift;
        exp_nonpositive<1>(&e);
        e.store_aligned(tail);
        sum += e;
        for (int q = 0; j < vis; ++j, ++q)
            sr[j] = tail[q];
    }
    for (; j < cols; ++j)
        sr[j] = 0.0f;
    return xsimd::reduce_add(sum);
}

void kernel_softmax_online(float* s, int rows, int cols, const int* visible, float scale, float* row_max, float* row_sum,
                           float* rescale) {
    // Pass 1. While a row has seen no key its max stays −inf and there is nothing
    // to rescale (exp(−inf − (−inf)) would be NaN): exp(0) = 1 exactly.
    for (int r = 0; r < rows; ++r) {
        const float m_old = row_max[r];
        const float m_new = std::max(m_old, online_tile_max(s + r * cols, std::clamp(visible[r], 0, cols), scale));
        row_max[r] = m_new;
        rescale[r] = m_new == neg_inf ? 0.0f : m_old - m_new;
    }
    // Pass 2.
    int r = 0;
    for (; r + W <= rows; r += W) {
        batch x = batch::load_unaligned(rescale + r);
        exp_nonpositive<1>(&x);
        x.store_unaligned(rescale + r);
    }
    if (r < rows) {
        alignas(64) float tail[W] = {};
        std::copy(rescale + r, rescale + rows, tail);
        batch x = batch::load_aligned(tail);
        exp_nonpositive<1>(&x);
        x.store_aligned(tail);
        std::copy(tail, tail + (rows - r), rescale + r);
    }
    // Pass 3. While the max is −inf the −inf scores weigh 0 (masked) and NaN
    // stays NaN: the shift is 0, not −inf.
    for (r = 0; r < rows; ++r) {
        const int vis = std::clamp(visible[r], 0, cols), vv = vis - vis % W;
        float* sr = s + r * cols;
        const batch shift(row_max[r] == neg_inf ? 0.0f : row_max[r]);
        batch sum(0.0f);
        const int j = online_weights(sr, shift, vv, sum);
        const float tile_sum = online_row_end(sr, j, vis, cols, shift, sum);
        row_sum[r] = row_sum[r] * rescale[r] + tile_sum;
    }
}

bool matmul_bt_transposes(int n, int d) {
    if constexpr (W >= 8)
        return transpose_keys(n, d);
    return false;
}

// --- [SECTION] backward: training's kernels ------------------------------------
// Shapes as in train_kernels.hpp.

// c(k, m) += a(n, k)ᵀ · b(n, m). A tile of R rows of c by C batches of B's
// columns stays in registers while r walks down a and b, so c is loaded and
// stored once per tile, not once per row of a (the shapes here are small: n = T,
// k and m = d or d_k; the weight gradients used to spend their time reloading
// c), and R·C independent accumulators hide the multiply-add latency. Each
// element still sums c + a(0, p)·b(0, j) + a(1, p)·b(1, j) + … in order of r;
// with Skip, rows of a whose R values are all zero (masked attention weights)
// are skipped (a template parameter: V8 does not hoist a test out of the loop).
template <class B, int R, int C, bool Skip>
void matmul_at_acc_tile(const float* a, const float* b, float* c, int n, int k, int m, int p, int j) {
    float* cp = c + p * m + j;
    B acc[R][C];
    tile_start(acc, cp, m);
    for (int r = 0; r < n; ++r) {
        const float* ar = a + r * k + p;
        if constexpr (Skip) {
            bool zero = true;
            for (int i = 0; i < R; ++i)
                zero = zero && ar[i] == 0.0f;
            if (zero)
                continue;
        }
        tile_step(
            acc, [ar](int i) { return ar[i]; }, b + r * m + j);
    }
    tile_store(acc, cp, m);
}

// Natively the wide sets finish a row's last columns, fewer than W, with the
// narrower batches of narrow_batch.hpp, then scalars.
template <class B, int R>
void matmul_at_acc_narrow(const float* a, const float* b, float* c, int n, int k, int m, int p, int& j) {
    if constexpr (!std::is_void_v<B>) {
        for (; j + int(B::size) <= m; j += int(B::size))
            matmul_at_acc_tile<B, R, 1, false>(a, b, c, n, k, m, p, j);
    }
}

// The register tile: at_rows rows of c × at_cols batches (in wasm 2 × 4 took
// the same time as 4 × 2 on T2: 60 ms per step).
constexpr int at_rows = 4, at_cols = 2;

// Rows [p, p + R) of c: at_cols batches at a time, then one, then narrower, then scalars.
template <int R, bool Skip>
void matmul_at_acc_rows(const float* a, const float* b, float* c, int n, int k, int m, int p) {
    int j = 0;
    for (; j + at_cols * W <= m; j += at_cols * W)
        matmul_at_acc_tile<batch, R, at_cols, Skip>(a, b, c, n, k, m, p, j);
    for (; j + W <= m; j += W)
        matmul_at_acc_tile<batch, R, 1, Skip>(a, b, c, n, k, m, p, j);
    matmul_at_acc_narrow<half_batch, R>(a, b, c, n, k, m, p, j);
    matmul_at_acc_narrow<quarter_batch, R>(a, b, c, n, k, m, p, j);
    float* cp = c + p * m;
    for (; j < m; ++j) {
        float acc[R];
        for (int i = 0; i < R; ++i)
            acc[i] = cp[i * m + j];
        for (int r = 0; r < n; ++r) {
            const float* ar = a + r * k + p;
            const float bv = b[r * m + j];
            for (int i = 0; i < R; ++i)
                acc[i] += ar[i] * bv;
        }
        for (int i = 0; i < R; ++i)
            cp[i * m + j] = acc[i];
    }
}

template <bool Skip>
void matmul_at_acc_all(const float* a, const float* b, float* c, int n, int k, int m) {
    int p = 0;
    for (; p + at_rows <= k; p += at_rows)
        matmul_at_acc_rows<at_rows, Skip>(a, b, c, n, k, m, p);
    for (; p < k; ++p)
        matmul_at_acc_rows<1, Skip>(a, b, c, n, k, m, p);
}

void matmul_at_acc(const float* a, const float* b, float* c, int n, int k, int m, bool sparse_rows) {
    if (sparse_rows)
        matmul_at_acc_all<true>(a, b, c, n, k, m);
    else
        matmul_at_acc_all<false>(a, b, c, n, k, m);
}

// dx = y ⊙ (dy − y·dy) per row.
void softmax_rows_backward(const float* y, const float* dy, float* dx, int n, int m) {
    const int mv = m - m % W;
    for (int i = 0; i < n; ++i) {
        const float* yr = y + i * m;
        const float* gr = dy + i * m;
        float* xr = dx + i * m;
        batch acc(0.0f);
        int j = 0;
        for (; j < mv; j += W)
            acc = xsimd::fma(batch::load_unaligned(yr + j), batch::load_unaligned(gr + j), acc);
        float dot = xsimd::reduce_add(acc);
        for (; j < m; ++j)
            dot += yr[j] * gr[j];
        const batch bdot(dot);
        for (j = 0; j < mv; j += W) {
            const batch yv = batch::load_unaligned(yr + j);
            (yv * (batch::load_unaligned(gr + j) - bdot)).store_unaligned(xr + j);
        }
        for (; j < m; ++j)
            xr[j] = yr[j] * (gr[j] - dot);
    }
}

void adamw(float* p, const float* g, float* m, float* v, int count, const adamw_scalars& s) {
    const batch decay(s.decay), b1(s.beta1), b2(s.beta2), c1(1.0f - s.beta1), c2(1.0f - s.beta2);
    const batch step(s.step_size), bc2(s.bc2_sqrt), eps(s.eps);
    const int cv = count - count % W;
    int i = 0;
    for (; i < cv; i += W) {
        const batch gv = batch::load_unaligned(g + i);
        const batch mv = b1 * batch::load_unaligned(m + i) + c1 * gv;
        const batch vv = b2 * batch::load_unaligned(v + i) + c2 * (gv * gv);
        const batch pv = batch::load_unaligned(p + i) * decay;
        const batch denom = xsimd::sqrt(vv) / bc2 + eps;
        (pv - step * (mv / denom)).store_unaligned(p + i);
        mv.store_unaligned(m + i);
        vv.store_unaligned(v + i);
    }
    for (; i < count; ++i) {
        m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g[i];
        v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * (g[i] * g[i]);
        const float denom = std::sqrt(v[i]) / s.bc2_sqrt + s.eps;
        p[i] = p[i] * s.decay - s.step_size * (m[i] / denom);
    }
}

// x ≤ 0 (−0 included) → +0; NaN compares false and stays.
void relu(float* x, int count) {
    const int cv = count - count % W;
    const batch zero(0.0f);
    int i = 0;
    for (; i < cv; i += W) {
        const batch v = batch::load_unaligned(x + i);
        xsimd::select(v <= zero, zero, v).store_unaligned(x + i);
    }
    for (; i < count; ++i)
        x[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

// silu(g)·u = g / (1 + e^−g) · u, four batches at a time through exp_full.
void swiglu(const float* gate, const float* up, float* out, int count) {
    constexpr int U = 4;
    const batch one(1.0f);
    int i = 0;
    for (; i + U * W <= count; i += U * W) {
        batch g[U], e[U];
        for (int u = 0; u < U; ++u) {
            g[u] = batch::load_unaligned(gate + i + u * W);
            e[u] = -g[u];
        }
        exp_full<U>(e);
        for (int u = 0; u < U; ++u)
            (g[u] / (one + e[u]) * batch::load_unaligned(up + i + u * W)).store_unaligned(out + i + u * W);
    }
    for (; i + W <= count; i += W) {
        const batch g = batch::load_unaligned(gate + i);
        batch e = -g;
        exp_full<1>(&e);
        (g / (one + e) * batch::load_unaligned(up + i)).store_unaligned(out + i);
    }
    for (; i < count; ++i)
        out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// GPT-2's GELU as x / (1 + e^(−2z)), z = √(2/π)·(x + 0.044715·x³), four batches at a time.
void gelu_tanh(const float* x, float* out, int count) {
    constexpr int U = 4;
    constexpr float k = 0.7978845608028654f, c = 0.044715f;  // √(2/π)
    const batch one(1.0f), m2k(-2.0f * k), cc(c);
    int i = 0;
    for (; i + U * W <= count; i += U * W) {
        batch v[U], e[U];
        for (int u = 0; u < U; ++u) {
            v[u] = batch::load_unaligned(x + i + u * W);
            e[u] = m2k * xsimd::fma(cc * v[u], v[u] * v[u], v[u]);
        }
        exp_full<U>(e);
        for (int u = 0; u < U; ++u)
            (v[u] / (one + e[u])).store_unaligned(out + i + u * W);
    }
    for (; i + W <= count; i += W) {
        const batch v = batch::load_unaligned(x + i);
        batch e = m2k * xsimd::fma(cc * v, v * v, v);
        exp_full<1>(&e);
        (v / (one + e)).store_unaligned(out + i);
    }
    for (; i < count; ++i)
        out[i] = x[i] / (1.0f + std::exp(-2.0f * k * (c * x[i] * (x[i] * x[i]) + x[i])));
}

void relu_backward(const float* x, float* dy, int count) {
    const int cv = count - count % W;
    const batch zero(0.0f);
    int i = 0;
    for (; i < cv; i += W)
        xsimd::select(batch::load_unaligned(x + i) > zero, batch::load_unaligned(dy + i), zero).store_unaligned(dy + i);
    for (; i < count; ++i)
        dy[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

// Lane i takes lane i ^ 1: (x0, x1, x2, x3) → (x1, x0, x3, x2). W is even, so a
// batch never splits a pair.
struct swap_pairs {
    static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

template <bool Backward>
void rope_pairs_simd(const float* x, const float* c, const float* s, float* y, int n) {
    constexpr auto swap = xsimd::make_batch_constant<std::uint32_t, batch::arch_type, swap_pairs>();
    const int nv = n - n % W;
    int q = 0;
    for (; q < nv; q += W) {
        const batch xv = batch::load_unaligned(x + q);
        const batch xc = xv * batch::load_unaligned(c + q);
        const batch ws = xsimd::swizzle(xv, swap) * batch::load_unaligned(s + q);
        if constexpr (Backward)
            (batch::load_unaligned(y + q) + (xc - ws)).store_unaligned(y + q);
        else
            (xc + ws).store_unaligned(y + q);
    }
    for (; q + 1 < n; q += 2) {
        const float a = x[q], b = x[q + 1];
        if constexpr (Backward) {
            y[q] += a * c[q] - b * s[q];
            y[q + 1] += b * c[q + 1] - a * s[q + 1];
        } else {
            const float ya = a * c[q] + b * s[q];
            const float yb = b * c[q + 1] + a * s[q + 1];
            y[q] = ya, y[q + 1] = yb;
        }
    }
}

void rope_pairs(const float* x, const float* c, const float* s, float* y, int n) { rope_pairs_simd<false>(x, c, s, y, n); }
void rope_pairs_backward(const float* x, const float* c, const float* s, float* y, int n) {
    rope_pairs_simd<true>(x, c, s, y, n);
}

}  // namespace

extern const kernel_set ATTN_KERNEL_SET = {
    .name = xsimd::default_arch::name(),
    .matmul = kernel_matmul,
    .matmul_scale_acc = kernel_matmul_scale_acc,
    .matmul_bt = kernel_matmul_bt,
    .matmul_bt_transposes = matmul_bt_transposes,
    .softmax_rows = kernel_softmax_rows,
    .softmax_online = kernel_softmax_online,
    .relu = relu,
    .swiglu = swiglu,
    .gelu_tanh = gelu_tanh,
    .widen_16 = widen_16,
    .matmul_bt_16 = matmul_bt_16,
    .matmul_at_acc = matmul_at_acc,
    .softmax_rows_backward = softmax_rows_backward,
    .adamw = adamw,
    .relu_backward = relu_backward,
    .rope_pairs = rope_pairs,
    .rope_pairs_backward = rope_pairs_backward,
};

}  // namespace attn
