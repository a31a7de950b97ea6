// Emulated low-precision floats: what a value becomes when stored as fp16 or bf16.
//
// The core computes in fp32; to show fp16/bf16 (lesson L8: exp over about 11
// overflows fp16) a value is rounded to the nearest number the narrow format can
// hold and kept in a float. The conversions are integer bit manipulation with
// round-to-nearest-even, not _Float16 or hardware converts, so native and
// WebAssembly agree bit for bit.
//
//   fp16 (IEEE binary16): 1 sign, 5 exponent, 10 mantissa bits; max 65504,
//        smallest normal 2^-14, subnormals down to 2^-24, ~3.3 significant digits.
//   bf16 (bfloat16): the top 16 bits of an fp32: 8 exponent bits, so fp32's range
//        (max ≈ 3.39e38), but only 7 mantissa bits, ~2.4 significant digits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace attn {

enum class precision { fp32, fp16, bf16 };

// "fp32", "fp16", "bf16"; precision_parse is its inverse (nullopt for anything else).
const char* precision_name(precision p);
std::optional<precision> precision_parse(std::string_view name);

// Bytes one stored value takes: 4, 2, 2.
int precision_bytes(precision p);

// x rounded to the nearest value p can represent (ties to even), returned as a float.
// fp16: finite values that round past 65504 become ±inf; NaN stays NaN (quiet).
// bf16: NaN stays NaN (quiet); finite values round to ±inf only next to FLT_MAX.
// fp32: x unchanged.
float round_to(precision p, float x);

// x[0..n) ← round_to(p, x[i]), in place. The SIMD form and its plain-loop twin
// give the same bits for every input, NaN payloads included.
void round_all(precision p, float* x, std::size_t n);
void round_all_naive(precision p, float* x, std::size_t n);

// x(n, m) ← softmax of each row, in place, each step rounded to p as stored (the
// rule for fp16 and bf16; forward.hpp, "Numerics"): x − max (or x alone without
// subtract_max), each exp(·), each partial sum, each quotient. A row with no entry
// above −inf gets zeros (masked), or NaN when any entry is NaN; a +inf max gives
// inf − inf = NaN. The full pass and decoding both use it.
void softmax_rows_rounded(float* x, int n, int m, bool subtract_max, precision p);

// The raw conversions, for tests and for showing bit patterns.
std::uint16_t fp16_from_float(float x);   // nearest binary16, ties to even
float fp16_to_float(std::uint16_t bits);  // exact: every binary16 is a float
std::uint16_t bf16_from_float(float x);   // nearest bfloat16, ties to even
float bf16_to_float(std::uint16_t bits);  // exact

}  // namespace attn
