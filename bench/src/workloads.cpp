// The workloads of workloads.hpp on the attention core, and the peak probes.
#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "base/random.hpp"
#include "base/threads.hpp"
#include "kernels/kernels.hpp"
#include "model/decode.hpp"
#include "model/forward.hpp"
#include "model/tiled.hpp"
#include "spec/experiment.hpp"

// bench/src/peak.cpp, once per instruction set.
#if BENCH_PEAK_X86
double peak_flops_sse2(double seconds);
double peak_flops_avx2(double seconds);
double peak_flops_avx512f(double seconds);
float read_sum_sse2(const float* data, std::size_t count);
float read_sum_avx2(const float* data, std::size_t count);
float read_sum_avx512f(const float* data, std::size_t count);
void matvec_sse2(const float* w, const float* x, float* y, int rows, int cols);
void matvec_avx2(const float* w, const float* x, float* y, int rows, int cols);
void matvec_avx512f(const float* w, const float* x, float* y, int rows, int cols);
#else
double peak_flops_default(double seconds);
float read_sum_default(const float* data, std::size_t count);
void matvec_default(const float* w, const float* x, float* y, int rows, int cols);
#endif

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

struct input {
    std::string name;
    std::vector<int> shape;
    std::vector<float> data;
};

struct workload {
    std::string name, kind;
    int n = 0, d = 64, d_model = 0, heads = 1, kv_heads = 1;
    bool causal = false;
    double flop = 0;       // dense-equivalent: masked entries counted as if computed
    double flop_done = 0;  // what the mask leaves to compute: a causal n×n counts its n(n+1)/2 entries
    double bytes = 0;      // W3: bytes of cached K and V read per step
    std::vector<input> inputs;
    std::vector<int> out_shape;
    std::vector<float> out;
    bool prepared = false;

    // W2 scratch
    std::vector<float> q, k, v, qh, kh, vh, oh, concat;
    // W3 state
    attn::kv_cache cache;
};

std::vector<workload>& workloads() {
    static std::vector<workload> all = [] {
        std::vector<workload> w;
        auto w1 = [&](int n, bool causal) {
            workload x;
            x.name = std::string("W1 ") + (causal ? "causal" : "no mask") + " n=" + std::to_string(n);
            x.kind = "w1";
            x.n = n;
            x.causal = causal;
            x.flop = 4.0 * n * n * x.d;
            x.flop_done = causal ? 2.0 * n * (n + 1.0) * x.d : x.flop;
            x.out_shape = {n, x.d};
            w.push_back(x);
        };
        w1(128, true);
        w1(512, true);
        w1(2048, true);
        w1(2048, false);
        workload w2;
        w2.name = "W2 8 heads d_model=512 n=512 causal +QKVO";
        w2.kind = "w2";
        w2.n = 512;
        w2.d_model = 512;
        w2.heads = 8;
        w2.causal = true;
        const double projections = 4 * 2.0 * 512 * 512 * 512;
        w2.flop = 4.0 * 512 * 512 * 512 + projections;                  // attention (dense-equivalent) + 4 projections
        w2.flop_done = 8 * 2.0 * 512 * (512 + 1.0) * 64 + projections;  // 8 heads of d = 64, causal triangles
        w2.out_shape = {512, 512};
        w.push_back(w2);
        // t = 2048: 8 MB (MHA) and 2 MB (GQA) of K and V, which stay in the cache from
        // step to step; t = 32768: 128 MB, read from memory (≥ 4× the last-level cache).
        for (auto [t, kv] : {std::pair{2048, 8}, std::pair{2048, 2}, std::pair{32768, 8}}) {
            workload w3;
            w3.name = "W3 decode t=" + std::to_string(t) + " h=8 " + (kv == 8 ? "MHA" : "GQA kv=2");
            w3.kind = "w3";
            w3.n = t;
            w3.heads = 8;
            w3.kv_heads = kv;
            w3.flop = 4.0 * t * 8 * 64;
            w3.flop_done = w3.flop;
            w3.bytes = double(t) * kv * 64 * 2 * sizeof(float);
            w3.out_shape = {8, 64};
            w.push_back(w3);
        }
        workload w4;
        w4.name = "W4 default experiment, full trace";
        w4.kind = "w4";
        w.push_back(w4);
        return w;
    }();
    return all;
}

input make_input(attn::rng& g, const std::string& name, std::vector<int> shape, float scale) {
    input in{name, shape, {}};
    std::size_t count = 1;
    for (int s : shape)
        count *= std::size_t(s);
    in.data.resize(count);
    for (float& x : in.data)
        x = g.normal() * scale;
    return in;
}

void copy_columns(const float* src, int rows, int stride, int c0, int w, float* dst) {
    for (int r = 0; r < rows; ++r)
        std::copy(src + std::size_t(r) * std::size_t(stride) + c0, src + std::size_t(r) * std::size_t(stride) + c0 + w,
                  dst + std::size_t(r) * std::size_t(w));
}

void paste_columns(const float* src, int rows, int stride, int c0, int w, float* dst) {
    for (int r = 0; r < rows; ++r)
        std::copy(src + std::size_t(r) * std::size_t(w), src + std::size_t(r + 1) * std::size_t(w),
                  dst + std::size_t(r) * std::size_t(stride) + c0);
}

void run_once(workload& w) {
    if (w.kind == "w1") {
        attn::attention_options opt;
        opt.causal = w.causal;
        attn::attention_tiled(w.inputs[0].data.data(), w.inputs[1].data.data(), w.inputs[2].data.data(), w.out.data(), w.n, w.n,
                              w.d, w.d, opt);
    } else if (w.kind == "w2") {
        const int n = w.n, dm = w.d_model, h = w.heads, dk = dm / h;
        const float* x = w.inputs[0].data.data();
        attn::kernel_matmul(x, w.inputs[1].data.data(), w.q.data(), n, dm, dm);
        attn::kernel_matmul(x, w.inputs[2].data.data(), w.k.data(), n, dm, dm);
        attn::kernel_matmul(x, w.inputs[3].data.data(), w.v.data(), n, dm, dm);
        attn::attention_options opt;
        opt.causal = w.causal;
        for (int hi = 0; hi < h; ++hi) {
            copy_columns(w.q.data(), n, dm, hi * dk, dk, w.qh.data());
            copy_columns(w.k.data(), n, dm, hi * dk, dk, w.kh.data());
            copy_columns(w.v.data(), n, dm, hi * dk, dk, w.vh.data());
            attn::attention_tiled(w.qh.data(), w.kh.data(), w.vh.data(), w.oh.data(), n, n, dk, dk, opt);
            paste_columns(w.oh.data(), n, dm, hi * dk, dk, w.concat.data());
        }
        attn::kernel_matmul(w.concat.data(), w.inputs[4].data.data(), w.out.data(), n, dm, dm);
    } else if (w.kind == "w3") {
        attn::decode_step(w.cache, w.inputs[0].data.data(), w.inputs[1].data.data(), w.inputs[2].data.data(), w.out.data(),
                          w.heads);
        // Back to t − 1 tokens for the next run (capacity stays: no reallocation).
        for (int g = 0; g < w.kv_heads; ++g) {
            for (attn::matrix* m : {&w.cache.k[std::size_t(g)], &w.cache.v[std::size_t(g)]}) {
                --m->rows;
                m->data.resize(std::size_t(m->rows) * std::size_t(w.d));
            }
        }
    } else {
        const attn::trace t = attn::forward(attn::experiment{});
        w.out_shape = {t.output.rows, t.output.cols};
        w.out = t.output.data;
    }
}

// ---- peak probes -------------------------------------------------------------

// The read kernel of bench/src/peak.cpp built for the kernel set in use.
float read_sum(const float* data, std::size_t count) {
#if BENCH_PEAK_X86
    const std::string arch = attn::kernel_arch_name();
    if (arch == "avx512f")
        return read_sum_avx512f(data, count);
    if (arch == "fma3+avx2")
        return read_sum_avx2(data, count);
    return read_sum_sse2(data, count);
#else
    return read_sum_default(data, count);
#endif
}

volatile float sink;

}  // namespace

// The plain matrix-vector product of peak.cpp built for the kernel set in use.
void bench_matvec_probe(const float* w, const float* x, float* y, int rows, int cols) {
#if BENCH_PEAK_X86
    const std::string arch = attn::kernel_arch_name();
    if (arch == "avx512f")
        return matvec_avx512f(w, x, y, rows, cols);
    if (arch == "fma3+avx2")
        return matvec_avx2(w, x, y, rows, cols);
    return matvec_sse2(w, x, y, rows, cols);
#else
    return matvec_default(w, x, y, rows, cols);
#endif
}

extern "C" {

const char* bench_describe() {
    static std::string json;
    if (!json.empty())
        return json.c_str();
    json = "[";
    const auto& all = workloads();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const workload& w = all[i];
        auto shape = [](const std::vector<int>& s) {
            std::string o = "[";
            for (std::size_t j = 0; j < s.size(); ++j) {
                if (j)
                    o += ',';
                o += std::to_string(s[j]);
            }
            o += ']';
            return o;
        };
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "{\"id\":%zu,\"name\":\"%s\",\"kind\":\"%s\",\"n\":%d,\"d\":%d,\"d_model\":%d,\"heads\":%d,\"kv_heads\":%d,"
                      "\"causal\":%s,\"flop\":%.0f,\"flop_done\":%.0f,\"bytes\":%.0f,\"inputs\":[",
                      i, w.name.c_str(), w.kind.c_str(), w.n, w.d, w.d_model, w.heads, w.kv_heads, w.causal ? "true" : "false",
                      w.flop, w.flop_done, w.bytes);
        if (i)
            json += ',';
        json += buf;
        workload& wm = workloads()[i];
        bench_prepare(int(i));
        for (std::size_t j = 0; j < wm.inputs.size(); ++j) {
            if (j)
                json += ',';
            json += "{\"name\":\"";
            json += wm.inputs[j].name;
            json += "\",\"shape\":";
            json += shape(wm.inputs[j].shape);
            json += '}';
        }
        json += "],\"output\":";
        json += shape(wm.out_shape);
        json += '}';
    }
    json += "]";
    return json.c_str();
}

void bench_prepare(int id) {
    workload& w = workloads()[std::size_t(id)];
    if (w.prepared)
        return;
    w.prepared = true;
    attn::rng g(attn::hash_combine(2024, w.name));
    if (w.kind == "w1") {
        for (const char* nm : {"q", "k", "v"})
            w.inputs.push_back(make_input(g, nm, {w.n, w.d}, 1.0f));
    } else if (w.kind == "w2") {
        const int n = w.n, dm = w.d_model, dk = dm / w.heads;
        const float s = 1.0f / std::sqrt(float(dm));
        w.inputs.push_back(make_input(g, "x", {n, dm}, 1.0f));
        for (const char* nm : {"w_q", "w_k", "w_v", "w_o"})
            w.inputs.push_back(make_input(g, nm, {dm, dm}, s));
        for (auto* b : {&w.q, &w.k, &w.v, &w.concat})
            b->assign(std::size_t(n) * std::size_t(dm), 0.0f);
        for (auto* b : {&w.qh, &w.kh, &w.vh, &w.oh})
            b->assign(std::size_t(n) * std::size_t(dk), 0.0f);
    } else if (w.kind == "w3") {
        const int t = w.n, kv = w.kv_heads, d = w.d;
        w.inputs.push_back(make_input(g, "q", {w.heads, d}, 1.0f));
        w.inputs.push_back(make_input(g, "k", {kv, d}, 1.0f));
        w.inputs.push_back(make_input(g, "v", {kv, d}, 1.0f));
        w.inputs.push_back(make_input(g, "past_k", {kv, t - 1, d}, 1.0f));
        w.inputs.push_back(make_input(g, "past_v", {kv, t - 1, d}, 1.0f));
        w.cache = attn::kv_cache(kv, d);
        for (int g2 = 0; g2 < kv; ++g2) {
            w.cache.k[std::size_t(g2)].data.reserve(std::size_t(t) * std::size_t(d));
            w.cache.v[std::size_t(g2)].data.reserve(std::size_t(t) * std::size_t(d));
        }
        std::vector<float> kr(std::size_t(kv * d)), vr(std::size_t(kv * d));
        const std::size_t head = std::size_t(t - 1) * std::size_t(d);
        for (int j = 0; j < t - 1; ++j) {
            for (int g2 = 0; g2 < kv; ++g2)
                for (int c = 0; c < d; ++c) {
                    const std::size_t at = std::size_t(g2) * head + std::size_t(j) * std::size_t(d) + std::size_t(c);
                    kr[std::size_t(g2 * d + c)] = w.inputs[3].data[at];
                    vr[std::size_t(g2 * d + c)] = w.inputs[4].data[at];
                }
            attn::kv_cache_append(w.cache, kr.data(), vr.data());
        }
    }
    if (w.kind != "w4") {
        std::size_t count = 1;
        for (int s : w.out_shape)
            count *= std::size_t(s);
        w.out.assign(count, 0.0f);
    }
    run_once(w);  // fills the output (and W4's shape)
}

double bench_run(int id, int reps) {
    workload& w = workloads()[std::size_t(id)];
    bench_prepare(id);
    const auto t0 = clock_type::now();
    for (int r = 0; r < reps; ++r)
        run_once(w);
    return seconds_since(t0) / std::max(reps, 1);
}

int bench_workload_count() { return int(workloads().size()); }
int bench_input_count(int id) {
    bench_prepare(id);
    return int(workloads()[std::size_t(id)].inputs.size());
}
const float* bench_input(int id, int index) { return workloads()[std::size_t(id)].inputs[std::size_t(index)].data.data(); }
int bench_input_size(int id, int index) { return int(workloads()[std::size_t(id)].inputs[std::size_t(index)].data.size()); }
const float* bench_output(int id) { return workloads()[std::size_t(id)].out.data(); }
int bench_output_size(int id) { return int(workloads()[std::size_t(id)].out.size()); }

double bench_peak_flops(double seconds) {
    const std::string arch = attn::kernel_arch_name();
#if BENCH_PEAK_X86
    if (arch == "avx512f")
        return peak_flops_avx512f(seconds);
    if (arch == "fma3+avx2")
        return peak_flops_avx2(seconds);
    return peak_flops_sse2(seconds);
#else
    return peak_flops_default(seconds);
#endif
}

double bench_read_bandwidth(double seconds, double bytes) { return bench_read_bandwidth_threads(seconds, bytes, 1); }

double bench_read_bandwidth_threads(double seconds, double bytes, int threads) {
    // Whole 64-float blocks (one avx512f pass of read_sum's eight accumulators);
    // on several threads each reads its own slice of whole blocks.
    const std::size_t block = 64, count = std::max<std::size_t>(1, std::size_t(bytes / sizeof(float) / block)) * block;
    threads = std::clamp(threads, 1, int(count / block));
    std::vector<float, xsimd::aligned_allocator<float>> buf(count);
    for (std::size_t i = 0; i < count; ++i)
        buf[i] = float(i & 1023) * 1e-3f;
    // A trial reads the buffer `passes` times, at least ~16 MB, so a small one
    // lasts long enough for the clock; the first read (filling the caches and
    // starting the threads) is not timed.
    const std::size_t passes = std::max<std::size_t>(1, (std::size_t(16) << 20) / (count * sizeof(float)));
    const std::size_t slice = count / block / std::size_t(threads) * block;
    std::vector<float> sums(static_cast<std::size_t>(threads));
    const auto read_all = [&] {
        attn::parallel_for(threads, threads, [&](int t) {
            const std::size_t lo = std::size_t(t) * slice, n = t + 1 < threads ? slice : count - lo;
            float s = 0;
            for (std::size_t p = 0; p < passes; ++p)
                s += read_sum(buf.data() + lo, n);
            sums[std::size_t(t)] = s;
        });
        for (const float s : sums)
            sink = s;
    };
    read_all();
    double best = 0;
    const auto start = clock_type::now();
    int trials = 0;
    while (trials < 3 || seconds_since(start) < seconds) {
        ++trials;
        const auto t0 = clock_type::now();
        read_all();
        best = std::max(best, double(passes * count * sizeof(float)) / seconds_since(t0));
    }
    return best;
}

// 256 MB: eight times the 32 MB last-level cache a core of the machines here reads from.
double bench_peak_bandwidth(double seconds) { return bench_read_bandwidth(seconds, double(std::size_t(256) << 20)); }

const char* bench_arch() { return attn::kernel_arch_name(); }
int bench_use_arch(const char* name) { return attn::kernel_use_arch(name) ? 1 : 0; }
}
