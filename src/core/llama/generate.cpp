#include "llama/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>

#include "base/threads.hpp"
#include "kernels/kernels.hpp"
#include "llama/forward.hpp"
#include "llama/tokenizer.hpp"
#include "model/rope.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

// y(out) = W(out, in)·x(in) for a weight in the model's buffer.
struct product {
    const llama_tensor& w;
    const float* x;
    float* y;
    int out, in;
};

// The products, side by side (a step's q, k and v; its w1 and w3): on several
// threads each takes one block of rows of every product, a multiple of row_align
// rows (stories15M's 288 rows on two threads: 144 each, where blocks of 64 gave one
// thread 192), so a step hands work to the threads once for the lot (in wasm a
// hand-off costs about as much as a small product's rows). A row's sum does not
// depend on the block that holds it (the kernel takes W rows at a time from the
// block's start, and 16 is a multiple of every W), so any thread count gives the
// same bits (tested).
constexpr int row_align = 16;
void matvecs(const llama_decoder& d, std::initializer_list<product> products) {
    const bool small = std::all_of(products.begin(), products.end(), [](const product& p) { return p.out < row_align; });
    if (d.running <= 1 || small) {
        for (const product& p : products)
            llama_matmul_bt(p.x, *d.model, p.w, 0, p.y, 1, p.out, p.in);
        return;
    }
    parallel_for(d.running, d.running, [&d, products](int i) {
        for (const product& p : products) {
            const int per = (p.out + d.running - 1) / d.running, rows = (per + row_align - 1) / row_align * row_align;
            const int r0 = i * rows;
            if (r0 < p.out)
                llama_matmul_bt(p.x, *d.model, p.w, std::size_t(r0), p.y + r0, 1, std::min(rows, p.out - r0), p.in);
        }
    });
}

// One head's attention at position pos of layer l: weights over keys 0..pos
// into att, their sum of V into out (head_size).
void attend(llama_decoder& d, int l, int h, float* out) {
    const llama_config& c = d.model->config;
    const int hs = c.head_size(), kv_dim = c.kv_dim(), g = h / (c.n_heads / c.n_kv_heads);
    const std::size_t layer = std::size_t(l) * std::size_t(d.capacity) * std::size_t(kv_dim);
    const float* q = d.q.data() + std::size_t(h) * std::size_t(hs);
    float* att = d.attention.data() + (std::size_t(l) * std::size_t(c.n_heads) + std::size_t(h)) * std::size_t(d.capacity);
    const float scale = score_scale_default(hs);
    for (int t = 0; t <= d.pos; ++t) {
        const float* k = d.key_cache.data() + layer + std::size_t(t) * std::size_t(kv_dim) + std::size_t(g * hs);
        float s = 0.0f;
        for (int i = 0; i < hs; ++i)
            s += q[i] * k[i];
        att[t] = s * scale;
    }
    kernel_softmax_rows(att, 1, d.pos + 1, true);
    std::fill(out, out + hs, 0.0f);
    for (int t = 0; t <= d.pos; ++t) {
        const float* v = d.value_cache.data() + layer + std::size_t(t) * std::size_t(kv_dim) + std::size_t(g * hs);
        for (int i = 0; i < hs; ++i)
            out[i] += att[t] * v[i];
    }
}

// y += bias, a vector of the model's (nothing when it has none).
void add_bias(const llama_model& m, const llama_tensor& bias, float* y) {
    if (!bias.size)
        return;
    const std::vector<float> b = llama_floats(m, bias);
    for (std::size_t i = 0; i < b.size(); ++i)
        y[i] += b[i];
}

void layer_step(llama_decoder& d, int l) {
    const llama_model& m = *d.model;
    const llama_config& c = m.config;
    const llama_layer_tensors& w = m.layers[std::size_t(l)];
    const int dim = c.dim, kv_dim = c.kv_dim(), hs = c.head_size();
    const std::size_t row = (std::size_t(l) * std::size_t(d.capacity) + std::size_t(d.pos)) * std::size_t(kv_dim);
    float* k = d.key_cache.data() + row;
    float* v = d.value_cache.data() + row;
    const bool gpt2 = c.arch == llama_arch::gpt2;
    llama_norm_rows(m, w.rms_att, w.norm_att_bias, d.x.data(), d.xb.data(), 1);
    matvecs(
        d, {{w.wq, d.xb.data(), d.q.data(), dim, dim}, {w.wk, d.xb.data(), k, kv_dim, dim}, {w.wv, d.xb.data(), v, kv_dim, dim}});
    add_bias(m, w.bq, d.q.data());  // Qwen2's and GPT-2's (none in llama2.c's files)
    add_bias(m, w.bk, k);
    add_bias(m, w.bv, v);
    for (int c0 = 0; c0 < dim && !gpt2; c0 += hs)
        llama_rope(c, d.q.data() + c0, d.pos);
    for (int c0 = 0; c0 < kv_dim && !gpt2; c0 += hs)
        llama_rope(c, k + c0, d.pos);
    parallel_for(c.n_heads, d.running, [&d, l, hs](int h) { attend(d, l, h, d.xb.data() + std::size_t(h) * std::size_t(hs)); });
    matvecs(d, {{w.wo, d.xb.data(), d.xb2.data(), dim, dim}});
    add_bias(m, w.bo, d.xb2.data());
    for (int i = 0; i < dim; ++i)
        d.x[std::size_t(i)] += d.xb2[std::size_t(i)];
    llama_norm_rows(m, w.rms_ffn, w.norm_ffn_bias, d.x.data(), d.xb.data(), 1);
    if (gpt2) {
        matvecs(d, {{w.w1, d.xb.data(), d.hb.data(), c.hidden_dim, dim}});
        add_bias(m, w.b1, d.hb.data());
        kernel_gelu_tanh(d.hb.data(), d.hb.data(), c.hidden_dim);
    } else {
        matvecs(d, {{w.w1, d.xb.data(), d.hb.data(), c.hidden_dim, dim}, {w.w3, d.xb.data(), d.hb2.data(), c.hidden_dim, dim}});
        kernel_swiglu(d.hb.data(), d.hb2.data(), d.hb.data(), c.hidden_dim);
    }
    matvecs(d, {{w.w2, d.hb.data(), d.xb2.data(), dim, c.hidden_dim}});
    add_bias(m, w.b2, d.xb2.data());
    for (int i = 0; i < dim; ++i)
        d.x[std::size_t(i)] += d.xb2[std::size_t(i)];
}

// The index of the first largest value.
int argmax(const float* v, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (v[i] > v[best])
            best = i;
    return best;
}

// run.c's sample_topp over probabilities p with one coin in [0, 1).
int sample_top_p(const std::vector<double>& p, double top_p, double coin) {
    const int n = int(p.size());
    const double cutoff = (1.0 - top_p) / double(std::max(1, n - 1));
    std::vector<int> idx;
    for (int i = 0; i < n; ++i)
        if (p[std::size_t(i)] >= cutoff)
            idx.push_back(i);
    const auto before = [&p](int a, int b) {
        const double pa = p[std::size_t(a)], pb = p[std::size_t(b)];
        return pa > pb || (pa == pb && a < b);
    };
    std::sort(idx.begin(), idx.end(), before);
    double cumulative = 0.0;
    std::size_t last = idx.empty() ? 0 : idx.size() - 1;
    for (std::size_t i = 0; i < idx.size(); ++i) {
        cumulative += p[std::size_t(idx[i])];
        if (cumulative > top_p) {
            last = i;
            break;
        }
    }
    const double r = coin * cumulative;
    double cdf = 0.0;
    for (std::size_t i = 0; i <= last && i < idx.size(); ++i) {
        cdf += p[std::size_t(idx[i])];
        if (r < cdf)
            return idx[i];
    }
    if (idx.empty())  // top_p below the largest probability's share: run.c reads before its array; we take the largest
        return int(std::max_element(p.begin(), p.end()) - p.begin());
    return idx[last];
}

}  // namespace

llama_decoder::llama_decoder(const llama_model& m, int tokens) : model(&m), capacity(std::clamp(tokens, 1, m.config.seq_len)) {
    const llama_config& c = m.config;
    const std::size_t cache = std::size_t(c.n_layers) * std::size_t(capacity) * std::size_t(c.kv_dim());
    key_cache.assign(cache, 0.0f);
    value_cache.assign(cache, 0.0f);
    attention.assign(std::size_t(c.n_layers) * std::size_t(c.n_heads) * std::size_t(capacity), 0.0f);
    logits.assign(std::size_t(c.vocab_size), 0.0f);
    for (std::vector<float>* v : {&x, &xb, &xb2, &q})
        v->assign(std::size_t(c.dim), 0.0f);
    hb.assign(std::size_t(c.hidden_dim), 0.0f);
    hb2.assign(std::size_t(c.hidden_dim), 0.0f);
}

const float* llama_decoder::step(int token) {
    const llama_model& m = *model;
    const llama_config& c = m.config;
    running = thread_choice_next(choice, threads);
    const auto start = std::chrono::steady_clock::now();
    llama_embed(m, token, pos, x.data());
    for (int l = 0; l < c.n_layers; ++l)
        layer_step(*this, l);
    llama_norm_rows(m, m.rms_final, m.norm_final_bias, x.data(), x.data(), 1);
    matvecs(*this, {{m.classifier, x.data(), logits.data(), c.vocab_size, c.dim}});
    ++pos;
    thread_choice_took(choice, threads, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return logits.data();
}

std::size_t llama_decoder_bytes(const llama_config& c, int tokens) {
    const std::size_t n = std::size_t(std::clamp(tokens, 1, c.seq_len)), L = std::size_t(c.n_layers);
    const std::size_t floats = 2 * L * n * std::size_t(c.kv_dim()) + L * std::size_t(c.n_heads) * n + std::size_t(c.vocab_size) +
                               4 * std::size_t(c.dim) + 2 * std::size_t(c.hidden_dim);
    return floats * sizeof(float) + sizeof(llama_decoder);
}

std::size_t llama_cache_bytes_per_token(const llama_config& c) {
    return std::size_t(c.n_layers) * 2 * std::size_t(c.kv_dim()) * sizeof(float);
}

std::size_t llama_cache_bytes_per_token_mha(const llama_config& c) {
    llama_config mha = c;
    mha.n_kv_heads = c.n_heads;
    return llama_cache_bytes_per_token(mha);
}

std::size_t llama_decoder::cache_bytes_read(int p) const {
    return std::size_t(p + 1) * llama_cache_bytes_per_token(model->config);
}

int llama_sample(const float* logits, int vocab, const llama_sampling& s, rng& g) {
    if (s.temperature <= 0.0f)
        return argmax(logits, vocab);
    std::vector<double> p(static_cast<std::size_t>(vocab));
    double mx = -HUGE_VAL;
    for (int i = 0; i < vocab; ++i)
        mx = std::max(mx, double(logits[i]) / double(s.temperature));
    double sum = 0.0;
    for (int i = 0; i < vocab; ++i)
        sum += p[std::size_t(i)] = random_exp(double(logits[i]) / double(s.temperature) - mx);
    for (double& v : p)
        v /= sum;
    const double coin = g.uniform_open();
    if (s.top_p > 0.0f && s.top_p < 1.0f)
        return sample_top_p(p, double(s.top_p), coin);
    double cdf = 0.0;
    for (int i = 0; i < vocab; ++i) {
        cdf += p[std::size_t(i)];
        if (coin < cdf)
            return i;
    }
    return vocab - 1;  // rounding
}

int llama_generate_capacity(const llama_config& c, int prompt, int steps) {
    const std::int64_t fed = std::int64_t(prompt) + std::max(steps, 1) - 1;  // the last token sampled is never fed
    return int(std::clamp<std::int64_t>(fed, 1, c.seq_len));
}

std::vector<int> llama_generate(const llama_model& m, const std::vector<int>& prompt, int steps, const llama_sampling& s,
                                int threads) {
    llama_decoder d(m, llama_generate_capacity(m.config, int(prompt.size()), steps));
    d.threads = threads;
    rng g(s.seed);
    std::vector<int> out = prompt;
    const float* logits = nullptr;
    for (const int t : prompt)
        logits = d.step(t);
    const int context = m.config.seq_len;
    for (int i = 0; i < steps && int(out.size()) < context && logits; ++i) {
        const int next = llama_sample(logits, m.config.vocab_size, s, g);
        if (next == s.stop)
            break;
        out.push_back(next);
        if (i + 1 < steps && int(out.size()) < context)  // another to sample: feed this one
            logits = d.step(next);
    }
    return out;
}

}  // namespace attn
