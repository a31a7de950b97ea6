// Deterministic numbers from a seed, bit-identical natively and in WebAssembly.
//
// The generator is SplitMix64. Normal deviates use the Irwin-Hall sum of twelve
// uniforms minus six (mean 0, variance 1, bounded to [-6, 6]) instead of
// Box-Muller: it needs no log/sin/cos, whose last bits differ between C
// libraries, so every platform draws exactly the same floats.
#pragma once

#include <cstdint>
#include <string_view>

namespace attn {

struct rng {
    std::uint64_t state;

    explicit rng(std::uint64_t seed) : state(seed) {}

    std::uint64_t next_u64() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 24 random bits: exactly representable as float.
    float uniform() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }
    // Approximately standard normal (Irwin-Hall, n = 12), summed in a fixed order.
    float normal() {
        float s = 0.0f;
        for (int i = 0; i < 12; ++i)
            s += uniform();
        return s - 6.0f;
    }
};

// FNV-1a over bytes: stable seeds derived from names (a token, "layer0.W_q").
inline std::uint64_t hash_bytes(std::string_view s, std::uint64_t h = 0xCBF29CE484222325ull) {
    for (unsigned char c : s)
        h = (h ^ c) * 0x100000001B3ull;
    return h;
}

inline std::uint64_t hash_combine(std::uint64_t seed, std::string_view name) {
    return hash_bytes(name, seed * 0x9E3779B97F4A7C15ull + 0xCBF29CE484222325ull);
}

}  // namespace attn
