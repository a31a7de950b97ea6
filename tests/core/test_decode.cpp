// KV-cache decoding for MHA, GQA and MQA: token by token it reproduces the full
// causal pass, GQA is MHA with shared K/V heads, and the K/V bytes a step reads
// grow with t and shrink with the number of KV heads.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/precision.hpp"
#include "base/random.hpp"
#include "compare.hpp"
#include "kernels/kernels.hpp"
#include "model/decode.hpp"
#include "model/forward.hpp"
#include "spec/experiment.hpp"
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

// --- decode.out against the stable softmax, recomputed in double (issue 29, item 9)

namespace {

// What decode.out must hold: the causal stable softmax over the engine's own
// layer-0 q_rot, k_rot and v, in double. Each score is rounded once to the
// stored precision (fp32, or fp16 / bf16 as the full pass stores its scores and
// scaled scores): an fp16 score past 65504 is +inf, and inf − inf makes its row
// NaN. A row of −inf scores is 0; any NaN score makes the row NaN.
struct decode_expected {
    std::vector<double> out;  // (decode, d)
    std::vector<double> tol;  // per cell
    int nan_rows = 0;         // rows NaN because of a +inf or NaN score
};

decode_expected decode_in_double(const experiment& e, const trace& tr) {
    const layer_trace& lt = tr.layers.front();
    const int d = e.d_model, h = e.heads, dk = d / h, group = h / e.kv_heads, n = e.decode;
    const float scale = e.scale == score_scale::sqrt_dk ? 1.0f / std::sqrt(float(dk))
                        : e.scale == score_scale::none  ? 1.0f
                                                        : e.scale_value;
    const auto stored = [&](double x) { return double(round_to(e.prec, float(x))); };
    decode_expected x;
    x.out.assign(std::size_t(n * d), 0.0);
    x.tol.assign(std::size_t(n * d), 0.0);
    std::vector<double> sc;
    for (int t = 0; t < n; ++t)
        for (int i = 0; i < h; ++i) {
            const int kv = i / group;
            sc.assign(std::size_t(t + 1), 0.0);
            double mx = -std::numeric_limits<double>::infinity();
            bool nan = false;
            for (int j = 0; j <= t; ++j) {
                double s = 0;
                for (int c = 0; c < dk; ++c)
                    s += double(lt.q_rot(t, i * dk + c)) * double(lt.k_rot(j, kv * dk + c));
                s = stored(stored(s) * double(scale));
                sc[std::size_t(j)] = s;
                nan = nan || std::isnan(s);
                if (!std::isnan(s))
                    mx = std::max(mx, s);
            }
            double* o = x.out.data() + std::size_t(t * d + i * dk);
            double* tol = x.tol.data() + std::size_t(t * d + i * dk);
            if (nan || mx == std::numeric_limits<double>::infinity()) {
                std::fill(o, o + dk, std::numeric_limits<double>::quiet_NaN());
                ++x.nan_rows;
                continue;
            }
            if (mx == -std::numeric_limits<double>::infinity())
                continue;  // every score −inf: a masked row, 0
            double sum = 0;
            std::vector<double> w(std::size_t(t + 1));
            for (int j = 0; j <= t; ++j)
                sum += w[std::size_t(j)] = std::exp(sc[std::size_t(j)] - mx);
            for (int c = 0; c < dk; ++c) {
                double acc = 0, mag = 0;
                for (int j = 0; j <= t; ++j) {
                    const double vj = double(lt.v(j, kv * dk + c));
                    acc += w[std::size_t(j)] * vj;
                    mag += w[std::size_t(j)] * std::abs(vj);
                }
                o[c] = acc / sum;
                // fp32's scores carry a few ulps of the engine's summation order, which the
                // scale multiplies inside the exponent; fp16 / bf16 round every step.
                const double rel = e.prec == precision::fp32 ? 0.02 : 0.05;
                tol[c] = rel * mag / sum + 1e-6;
            }
        }
    return x;
}

// Cells where decode.out and the double re-computation disagree (NaN must meet NaN,
// a finite reference a finite value within its tolerance), with the first few described.
int decode_mismatches(const experiment& e, const trace& tr, std::string& report) {
    const decode_expected want = decode_in_double(e, tr);
    const matrix& got = tr.decode.out;
    int bad = 0;
    for (std::size_t i = 0; i < want.out.size(); ++i) {
        const double w = want.out[i], g = double(got.data[i]);
        const bool ok = std::isnan(w) ? std::isnan(g) : std::isfinite(g) && std::abs(g - w) <= want.tol[i];
        if (!ok && ++bad <= 5)
            report += "row " + std::to_string(int(i) / e.d_model) + " col " + std::to_string(int(i) % e.d_model) + ": decode " +
                      std::to_string(g) + ", stable softmax " + std::to_string(w) + "\n";
    }
    return bad;
}

}  // namespace

TEST_CASE("decode.out is the causal stable softmax over layer 0's own q_rot, k_rot, v (the issue's link, fp32)") {
    // Scale 10⁵ and an embedding of −70000: scores near 10¹³, where a fused
    // multiply-subtract of the scaled score left the max entry's exponent at ±10⁶.
    const auto parsed = experiment_parse(
        "v=1&text=%E4%B8%8B%20%E6%98%AF%E8%BF%99%E4%BA%86%20%25%20%20,%20small%20%E8%BF%99%E5%9B%BD%20GPT%20%E5%BE%97%20big%20%"
        "E5%88%B6"
        "%20ran%20chased%20%E6%9C%BA%20big%20%E4%BB%AC%E8%87%AA%20%25%20%E6%9C%89%20on%20%E6%84%8F%2042%20it%20away%20chased%"
        "20was"
        "%20big%20%E6%98%AF%20blue%20on%20%3D%20%25%20%E7%9A%84%20o%27clock%20%20need%20on&seed=2697588393&d_model=40&heads=5&kv_"
        "heads=5"
        "&layers=2&block=attn&weights=random&pos=rope&rope_base=10000&pos_offset=0&mask=padding&pad=26&edges=1.0.30.19,0.4.1.12"
        "&scale=100000&softmax=argmax&temp=1&mask_at=before&wo=on&precision=fp32&ablate=&decode=24&edits=x.6.11:-70000");
    REQUIRE(parsed.value);
    const experiment& e = *parsed.value;
    for (int a = 0; a < kernel_arch_count(); ++a) {
        const std::string arch = kernel_arch_at(a);
        REQUIRE(kernel_use_arch(arch.c_str()));
        CAPTURE(arch);
        const trace tr = forward(e);
        std::string report;
        CHECK_MESSAGE(decode_mismatches(e, tr, report) == 0, report);
        for (const float v : tr.decode.out.data)
            REQUIRE(std::isfinite(v));  // no ±inf or NaN where every reference value is finite
    }
    kernel_use_arch(kernel_arch_at(0));
}

TEST_CASE("decode follows the precision: an fp16 score past 65504 is +inf and its row NaN, as the stable softmax's") {
    int nan_rows = 0;
    for (const char* prec : {"fp16", "bf16", "fp32"})
        for (const int value : {300, 1000, -700, 60000})
            for (const char* scale : {"", "&scale=none", "&scale=1000"}) {
                const std::string link = std::string(
                                             "v=1&text=the%20cat%20sat%20on%20the%20mat%20and%20slept&d_model=16&heads=2"
                                             "&kv_heads=1&decode=8&precision=") +
                                         prec + scale + "&edits=x.2.3:" + std::to_string(value);
                CAPTURE(link);
                const auto parsed = experiment_parse(link);
                REQUIRE(parsed.value);
                for (int a = 0; a < kernel_arch_count(); ++a) {
                    const std::string arch = kernel_arch_at(a);
                    REQUIRE(kernel_use_arch(arch.c_str()));
                    CAPTURE(arch);
                    const trace tr = forward(*parsed.value);
                    std::string report;
                    CHECK_MESSAGE(decode_mismatches(*parsed.value, tr, report) == 0, report);
                    if (a == 0)
                        nan_rows += decode_in_double(*parsed.value, tr).nan_rows;
                }
            }
    kernel_use_arch(kernel_arch_at(0));
    CHECK(nan_rows > 0);  // some fp16 score did overflow: the NaN rule was exercised
}
