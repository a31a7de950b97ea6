// KV-cache decoding for MHA, GQA and MQA: token by token it reproduces the full
// causal pass, GQA is MHA with shared K/V heads, and the K/V bytes a step reads
// grow with t and shrink with the number of KV heads.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "compare.hpp"
#include "decode.hpp"
#include "random.hpp"
#include "test_util.hpp"

using namespace attn;
using attn::test::random_vector;

namespace {

// A sequence of n tokens: q (n, h·d_k), k and v (n, kv_heads·d_k).
struct sequence {
    int n, h, kv_heads, d_k;
    std::vector<float> q, k, v;
};

sequence random_sequence(rng& g, int n, int h, int kv_heads, int d_k) {
    sequence s{n, h, kv_heads, d_k, {}, {}, {}};
    s.q = random_vector(g, std::size_t(n * h * d_k));
    s.k = random_vector(g, std::size_t(n * kv_heads * d_k));
    s.v = random_vector(g, std::size_t(n * kv_heads * d_k));
    return s;
}

// Decodes every token in turn; returns the outputs (n, h·d_k) and the bytes each step read.
std::vector<float> decode_all(const sequence& s, kv_cache& cache, std::vector<std::size_t>* bytes = nullptr) {
    const std::size_t q_row = std::size_t(s.h * s.d_k), kv_row = std::size_t(s.kv_heads * s.d_k);
    std::vector<float> out(std::size_t(s.n) * q_row, -7.0f);
    for (std::size_t i = 0; i < std::size_t(s.n); ++i) {
        const std::size_t b = decode_step(cache, s.q.data() + i * q_row, s.k.data() + i * kv_row, s.v.data() + i * kv_row,
                                          out.data() + i * q_row, s.h);
        if (bytes)
            bytes->push_back(b);
    }
    return out;
}

std::vector<float> full_pass(const sequence& s) {
    std::vector<float> out(std::size_t(s.n * s.h * s.d_k), -7.0f);
    attention_grouped_causal_naive(s.q.data(), s.k.data(), s.v.data(), out.data(), s.n, s.h, s.kv_heads, s.d_k);
    return out;
}

// The MHA sequence with every KV head of s repeated for each query head of its group.
sequence repeat_kv_heads(const sequence& s) {
    sequence r{s.n, s.h, s.h, s.d_k, s.q, {}, {}};
    const int group = s.h / s.kv_heads;
    for (int i = 0; i < s.n; ++i)
        for (int head = 0; head < s.h; ++head)
            for (int c = 0; c < s.d_k; ++c) {
                const std::size_t from = std::size_t((i * s.kv_heads + head / group) * s.d_k + c);
                r.k.push_back(s.k[from]);
                r.v.push_back(s.v[from]);
            }
    return r;
}

struct heads {
    int h, kv_heads;
};
const heads head_configs[] = {{4, 4}, {8, 8}, {8, 2}, {6, 3}, {8, 4}, {8, 1}, {3, 1}, {1, 1}};

}  // namespace

TEST_CASE("decode_step token by token equals the full causal pass, for MHA, GQA and MQA") {
    rng g(31);
    for (const heads hc : head_configs) {
        for (const int d_k : {1, 7, 16, 33}) {
            const sequence s = random_sequence(g, 24, hc.h, hc.kv_heads, d_k);
            kv_cache cache(hc.kv_heads, d_k);
            INFO("h=" << hc.h << " kv_heads=" << hc.kv_heads << " d_k=" << d_k);
            CHECK(test::mismatches(decode_all(s, cache), full_pass(s), test::absolute(1e-5f)) == 0);
        }
    }
}

TEST_CASE("kv_cache holds each token's K and V rows, per KV head, in order") {
    rng g(32);
    const sequence s = random_sequence(g, 9, 8, 2, 5);
    kv_cache cache(2, 5);
    CHECK(cache.tokens() == 0);
    decode_all(s, cache);
    REQUIRE(cache.k.size() == 2);
    REQUIRE(cache.v.size() == 2);
    CHECK(cache.tokens() == 9);
    for (int kv = 0; kv < 2; ++kv) {
        const matrix& kg = cache.k[std::size_t(kv)];
        const matrix& vg = cache.v[std::size_t(kv)];
        CHECK(kg.rows == 9);
        CHECK(kg.cols == 5);
        CHECK(kg.size() == 45);
        for (int j = 0; j < 9; ++j)
            for (int c = 0; c < 5; ++c) {
                const std::size_t from = std::size_t((j * 2 + kv) * 5 + c);
                CHECK(kg(j, c) == s.k[from]);
                CHECK(vg(j, c) == s.v[from]);
            }
    }
}

TEST_CASE("GQA equals MHA with each K/V head repeated for its group") {
    rng g(33);
    for (const heads hc : head_configs) {
        if (hc.kv_heads == hc.h)
            continue;
        const sequence s = random_sequence(g, 20, hc.h, hc.kv_heads, 12);
        const sequence mha = repeat_kv_heads(s);
        kv_cache gqa_cache(hc.kv_heads, 12), mha_cache(hc.h, 12);
        INFO("h=" << hc.h << " kv_heads=" << hc.kv_heads);
        CHECK(test::mismatches(decode_all(s, gqa_cache), decode_all(mha, mha_cache), test::absolute(1e-6f)) == 0);
        CHECK(test::mismatches(full_pass(s), full_pass(mha), test::absolute(1e-6f)) == 0);
    }
}

TEST_CASE("decode_step: K/V bytes read grow linearly with t and shrink by h / kv_heads against MHA") {
    rng g(34);
    const int n = 32, h = 8, d_k = 16;
    std::vector<std::size_t> mha_bytes;
    {
        const sequence s = random_sequence(g, n, h, h, d_k);
        kv_cache cache(h, d_k);
        decode_all(s, cache, &mha_bytes);
    }
    for (const int kv_heads : {8, 4, 2, 1}) {
        const sequence s = random_sequence(g, n, h, kv_heads, d_k);
        kv_cache cache(kv_heads, d_k);
        std::vector<std::size_t> bytes;
        decode_all(s, cache, &bytes);
        INFO("kv_heads=" << kv_heads);
        REQUIRE(bytes.size() == std::size_t(n));
        for (int i = 0; i < n; ++i) {
            const std::size_t t = std::size_t(i + 1);
            CHECK(bytes[std::size_t(i)] == t * std::size_t(kv_heads * d_k) * 2 * sizeof(float));
            CHECK(bytes[std::size_t(i)] == t * bytes[0]);
            CHECK(mha_bytes[std::size_t(i)] == bytes[std::size_t(i)] * std::size_t(h / kv_heads));
        }
    }
}
