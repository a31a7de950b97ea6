// GPT-2 from a Hugging Face folder: a GPT2LMHeadModel with random weights written
// here as safetensors (Conv1D weights (in, out), the fused c_attn, the mask
// buffers old checkpoints carry, the "transformer." prefix), read by hf_model_read,
// and its pass held to a reference written in this file from Hugging Face's
// modelling semantics (modeling_gpt2.py: pre-LayerNorm with biases, learned
// positions, GELU's tanh approximation, the tied head), in double. Then the KV
// cache's steps against the trace, the logit lens and the direct logit
// attribution through LayerNorm, and F16 weights against their widened values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/random.hpp"
#include "compare.hpp"
#include "kernels/kernels.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama/hf_config.hpp"
#include "llama/hf_model.hpp"
#include "llama/lens.hpp"
#include "llama/safetensors.hpp"

using namespace attn;

namespace {

constexpr int d = 24, heads = 3, layers = 2, vocab = 50, context = 32, ff = 4 * d;

struct named {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::vector<float> values;
};

// The model's tensors, Hugging Face's names and shapes; biases and gains near
// their usual values so that the pass is not degenerate.
std::vector<named> gpt2_tensors(std::uint64_t seed) {
    rng g(seed);
    const auto random = [&g](std::size_t n, float scale, float mean = 0) {
        std::vector<float> v(n);
        for (float& x : v)
            x = mean + scale * (2.0f * g.uniform() - 1.0f);
        return v;
    };
    using u = std::uint64_t;
    std::vector<named> t = {{"wte.weight", {vocab, d}, random(vocab * d, 0.5f)},
                            {"wpe.weight", {context, d}, random(context * d, 0.3f)}};
    for (int l = 0; l < layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        t.push_back({p + "ln_1.weight", {d}, random(d, 0.2f, 1.0f)});
        t.push_back({p + "ln_1.bias", {d}, random(d, 0.1f)});
        t.push_back({p + "attn.c_attn.weight", {d, 3 * d}, random(d * 3 * d, 0.4f)});
        t.push_back({p + "attn.c_attn.bias", {3 * d}, random(3 * d, 0.1f)});
        t.push_back({p + "attn.c_proj.weight", {d, d}, random(d * d, 0.3f)});
        t.push_back({p + "attn.c_proj.bias", {d}, random(d, 0.1f)});
        t.push_back({p + "ln_2.weight", {d}, random(d, 0.2f, 1.0f)});
        t.push_back({p + "ln_2.bias", {d}, random(d, 0.1f)});
        t.push_back({p + "mlp.c_fc.weight", {d, u(ff)}, random(d * ff, 0.3f)});
        t.push_back({p + "mlp.c_fc.bias", {u(ff)}, random(ff, 0.1f)});
        t.push_back({p + "mlp.c_proj.weight", {u(ff), d}, random(ff * d, 0.2f)});
        t.push_back({p + "mlp.c_proj.bias", {d}, random(d, 0.1f)});
        t.push_back({p + "attn.bias", {1, 1, context, context}, std::vector<float>(context * context, 1.0f)});  // a mask buffer
    }
    t.push_back({"ln_f.weight", {d}, random(d, 0.2f, 1.0f)});
    t.push_back({"ln_f.bias", {d}, random(d, 0.1f)});
    return t;
}

std::uint16_t to_f16_bits(float v) {  // the nearest half, ties to even, among the halves
    std::uint16_t lo = 0, hi = 0x7bff;
    const float a = std::fabs(v);
    while (hi - lo > 1) {
        const std::uint16_t mid = std::uint16_t((lo + hi) / 2);
        (f16_to_float(mid) <= a ? lo : hi) = mid;
    }
    const float dl = a - f16_to_float(lo), dh = f16_to_float(hi) - a;
    return std::uint16_t((dl < dh || (dl == dh && lo % 2 == 0) ? lo : hi) | (std::signbit(v) ? 0x8000 : 0));
}

// The tensors as one safetensors file, F32 or F16, each name with `prefix` before it.
std::vector<unsigned char> file_of(const std::vector<named>& ts, bool f16, const std::string& prefix) {
    std::string header = "{";
    std::size_t at = 0;
    const std::size_t es = f16 ? 2 : 4;
    for (const named& t : ts) {
        std::string dims;
        for (std::size_t i = 0; i < t.shape.size(); ++i)
            dims += (i ? "," : "") + std::to_string(t.shape[i]);
        header += (header.size() > 1 ? "," : "") + std::string("\"") + prefix + t.name + "\":{\"dtype\":\"" +
                  (f16 ? "F16" : "F32") + "\",\"shape\":[" + dims + "],\"data_offsets\":[" + std::to_string(at) + "," +
                  std::to_string(at + t.values.size() * es) + "]}";
        at += t.values.size() * es;
    }
    header += "}";
    header += std::string((8 - header.size() % 8) % 8, ' ');
    std::vector<unsigned char> b(8 + header.size() + at);
    for (int i = 0; i < 8; ++i)
        b[std::size_t(i)] = (unsigned char)(std::uint64_t(header.size()) >> (8 * i));
    std::memcpy(b.data() + 8, header.data(), header.size());
    unsigned char* to = b.data() + 8 + header.size();
    for (const named& t : ts)
        for (const float v : t.values) {
            if (f16) {
                const std::uint16_t h = to_f16_bits(v);
                std::memcpy(to, &h, 2);
            } else {
                std::memcpy(to, &v, 4);
            }
            to += es;
        }
    return b;
}

const char* config_json = R"({"architectures":["GPT2LMHeadModel"],"model_type":"gpt2","n_embd":24,"n_layer":2,
  "n_head":3,"n_positions":32,"n_ctx":32,"vocab_size":50,"n_inner":null,"activation_function":"gelu_new",
  "layer_norm_epsilon":1e-5,"tie_word_embeddings":true})";

llama_model open_gpt2(const std::vector<unsigned char>& file) {
    hf_config c;
    const auto config = hf_config_read(config_json, c);
    REQUIRE_MESSAGE(!config, config.value_or(""));
    safetensors_file header;
    const auto read = safetensors_read(file.data(), file.size(), file.size(), header);
    REQUIRE_MESSAGE(!read, read.value_or(""));
    llama_model m;
    const auto opened = hf_model_read(c, {{file.data(), file.size(), &header}}, m);
    REQUIRE_MESSAGE(!opened, opened.value_or(""));
    return m;
}

// --- the reference, from modeling_gpt2.py, in double -----------------------------

using vec = std::vector<double>;

const named& tensor(const std::vector<named>& ts, const std::string& name) {
    return *std::find_if(ts.begin(), ts.end(), [&name](const named& t) { return t.name == name; });
}

vec layer_norm(const vec& x, const named& g, const named& b) {
    double mean = 0, var = 0;
    for (const double v : x)
        mean += v / double(x.size());
    for (const double v : x)
        var += (v - mean) * (v - mean) / double(x.size());
    vec y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = (x[i] - mean) / std::sqrt(var + 1e-5) * g.values[i] + b.values[i];
    return y;
}

// x (in) · W (in, out) + b: Conv1D.
vec conv1d(const vec& x, const named& w, const named& b) {
    const std::size_t out = std::size_t(w.shape[1]);
    vec y(b.values.begin(), b.values.end());
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t o = 0; o < out; ++o)
            y[o] += x[i] * w.values[i * out + o];
    return y;
}

std::vector<vec> reference_logits(const std::vector<named>& ts, const std::vector<int>& ids) {
    const std::size_t n = ids.size(), hd = d / heads;
    std::vector<vec> x(n, vec(d));
    for (std::size_t p = 0; p < n; ++p)
        for (int i = 0; i < d; ++i)
            x[p][std::size_t(i)] = double(tensor(ts, "wte.weight").values[std::size_t(ids[p] * d + i)]) +
                                   tensor(ts, "wpe.weight").values[p * d + std::size_t(i)];
    for (int l = 0; l < layers; ++l) {
        const std::string pre = "h." + std::to_string(l) + ".";
        std::vector<vec> qkv(n);
        for (std::size_t p = 0; p < n; ++p)
            qkv[p] = conv1d(layer_norm(x[p], tensor(ts, pre + "ln_1.weight"), tensor(ts, pre + "ln_1.bias")),
                            tensor(ts, pre + "attn.c_attn.weight"), tensor(ts, pre + "attn.c_attn.bias"));
        for (std::size_t p = 0; p < n; ++p) {
            vec concat(d, 0.0);
            for (std::size_t h = 0; h < std::size_t(heads); ++h) {
                vec w(p + 1);
                double top = -1e300, sum = 0;
                for (std::size_t k = 0; k <= p; ++k) {
                    double s = 0;
                    for (std::size_t i = 0; i < hd; ++i)
                        s += qkv[p][h * hd + i] * qkv[k][d + h * hd + i];
                    w[k] = s / std::sqrt(double(hd));
                    top = std::max(top, w[k]);
                }
                for (double& v : w)
                    sum += (v = std::exp(v - top));
                for (std::size_t k = 0; k <= p; ++k)
                    for (std::size_t i = 0; i < hd; ++i)
                        concat[h * hd + i] += w[k] / sum * qkv[k][2 * d + h * hd + i];
            }
            const vec a = conv1d(concat, tensor(ts, pre + "attn.c_proj.weight"), tensor(ts, pre + "attn.c_proj.bias"));
            for (int i = 0; i < d; ++i)
                x[p][std::size_t(i)] += a[std::size_t(i)];
        }
        for (std::size_t p = 0; p < n; ++p) {
            vec h = conv1d(layer_norm(x[p], tensor(ts, pre + "ln_2.weight"), tensor(ts, pre + "ln_2.bias")),
                           tensor(ts, pre + "mlp.c_fc.weight"), tensor(ts, pre + "mlp.c_fc.bias"));
            for (double& v : h)
                v = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
            const vec f = conv1d(h, tensor(ts, pre + "mlp.c_proj.weight"), tensor(ts, pre + "mlp.c_proj.bias"));
            for (int i = 0; i < d; ++i)
                x[p][std::size_t(i)] += f[std::size_t(i)];
        }
    }
    std::vector<vec> logits(n, vec(vocab, 0.0));
    for (std::size_t p = 0; p < n; ++p) {
        const vec y = layer_norm(x[p], tensor(ts, "ln_f.weight"), tensor(ts, "ln_f.bias"));
        for (int v = 0; v < vocab; ++v)
            for (int i = 0; i < d; ++i)
                logits[p][std::size_t(v)] += y[std::size_t(i)] * tensor(ts, "wte.weight").values[std::size_t(v * d + i)];
    }
    return logits;
}

}  // namespace

TEST_CASE("GPT-2 from a Hugging Face folder: the pass gives modeling_gpt2.py's logits (a reference in double)") {
    const std::vector<named> ts = gpt2_tensors(5);
    for (const char* prefix : {"", "transformer."}) {
        CAPTURE(prefix);
        const std::vector<unsigned char> file = file_of(ts, false, prefix);
        const llama_model m = open_gpt2(file);
        CHECK(m.config.arch == llama_arch::gpt2);
        CHECK(m.config.seq_len == context);
        for (const std::size_t n :
             {std::size_t(9), std::size_t(context)}) {  // straight from the bytes, and through the transposed copy
            std::vector<int> ids;
            for (std::size_t i = 0; i < n; ++i)
                ids.push_back(int((i * 13 + 7) % vocab));
            const trace t = llama_forward(m, ids, llama_experiment(m.config));
            const std::vector<vec> want = reference_logits(ts, ids);
            double worst = 0, scale = 0;
            for (std::size_t p = 0; p < n; ++p)
                for (int v = 0; v < vocab; ++v) {
                    worst = std::max(worst, std::fabs(double(t.logits(int(p), v)) - want[p][std::size_t(v)]));
                    scale = std::max(scale, std::fabs(want[p][std::size_t(v)]));
                }
            INFO("tokens " << n << ": max |core − reference| " << worst << " of " << scale);
            CHECK(scale > 1.0);
            CHECK(worst <= 1e-5 * scale);
            CHECK(t.layers[0].ffn_up.size() == 0);                // GELU's one matrix up: no SwiGLU "up"
            CHECK(t.layers[1].q_rot.data == t.layers[1].q.data);  // no RoPE: the positions came with the embedding
        }
    }
}

TEST_CASE("GPT-2: the KV cache's steps give the trace's logits; the lens ends on them; the attribution sums to the logit") {
    const std::vector<named> ts = gpt2_tensors(6);
    const std::vector<unsigned char> file = file_of(ts, false, "");
    const llama_model m = open_gpt2(file);
    const std::vector<int> ids = {3, 17, 42, 8, 3, 17, 42, 8, 11, 0, 49, 25};
    const trace t = llama_forward(m, ids, llama_experiment(m.config));
    llama_decoder dec(m, m.config.seq_len);
    for (std::size_t p = 0; p < ids.size(); ++p) {
        const float* z = dec.step(ids[p]);
        const std::vector<float> step(z, z + vocab), row(t.logits.row(int(p)), t.logits.row(int(p)) + vocab);
        CHECK(test::mismatches(step, row, test::relative(2e-5f), "logits of row " + std::to_string(p), {"cache", "trace"}) == 0);
    }
    const int pos = 10, target = 25;
    const std::vector<llama_lens_row> lens = llama_logit_lens(m, t, pos, target);
    REQUIRE(lens.size() == std::size_t(layers + 1));
    int top = 0;
    for (int v = 1; v < vocab; ++v)
        top = t.logits(pos, v) > t.logits(pos, top) ? v : top;
    CHECK(lens.back().top == top);
    const llama_attribution a = llama_direct_logit_attribution(m, t, pos, target);
    CHECK(a.bias != 0.0f);
    CHECK(a.sum() == doctest::Approx(double(a.logit)).epsilon(1e-4));
    // The lens's first row is the embedding's alone: through ln_f by hand.
    matrix row(1, d), normed(1, d);
    std::copy(t.x0.row(pos), t.x0.row(pos) + d, row.row(0));
    llama_norm_rows(m, m.rms_final, m.norm_final_bias, row.data.data(), normed.data.data(), 1);
    std::vector<float> z(vocab);
    llama_matmul_bt(normed.data.data(), m, m.classifier, 0, z.data(), 1, vocab, d);
    CHECK(lens.front().top == int(std::max_element(z.begin(), z.end()) - z.begin()));
}

TEST_CASE("GPT-2 in F16: 16-bit in memory, the pass near the F32 one and the cache equal to the trace") {
    const std::vector<named> ts = gpt2_tensors(7);
    const std::vector<unsigned char> half = file_of(ts, true, ""), full = file_of(ts, false, "");
    const llama_model h = open_gpt2(half), f = open_gpt2(full);
    CHECK(h.layers[0].wq.type == weight_type::f16);
    CHECK(h.weights.size * 2 <= f.weights.size + 64);
    const std::vector<int> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const trace a = llama_forward(h, ids, llama_experiment(h.config)), b = llama_forward(f, ids, llama_experiment(f.config));
    CHECK(test::mismatches(a.logits.data, b.logits.data, test::relative(2e-2f), "logits", {"f16", "f32"}) == 0);
    llama_decoder dec(h, 16);
    for (std::size_t p = 0; p < ids.size(); ++p) {
        const float* z = dec.step(ids[p]);
        const std::vector<float> step(z, z + vocab), row(a.logits.row(int(p)), a.logits.row(int(p)) + vocab);
        CHECK(test::mismatches(step, row, test::relative(2e-5f), "logits of row " + std::to_string(p), {"cache", "trace"}) == 0);
    }
}

TEST_CASE("a folder handed over is read where it lies: the files' bytes are the weights, the pass the copy's bit for bit") {
    const std::vector<named> ts = gpt2_tensors(8);
    for (const bool f16 : {false, true}) {
        CAPTURE(f16);
        const std::vector<unsigned char> file = file_of(ts, f16, "transformer.");
        const llama_model copied = open_gpt2(file);
        hf_config c;
        REQUIRE_FALSE(hf_config_read(config_json, c));
        std::shared_ptr<unsigned char> own(new unsigned char[file.size()], std::default_delete<unsigned char[]>());
        std::memcpy(own.get(), file.data(), file.size());
        safetensors_file header;
        REQUIRE_FALSE(safetensors_read(own.get(), file.size(), file.size(), header));
        llama_model adopted;
        const auto opened = hf_model_read(c, {hf_shard(own.get(), file.size(), &header, own)}, adopted);
        REQUIRE_MESSAGE(!opened, opened.value_or(""));
        CHECK(adopted.weights.size == file.size());
        for (const llama_tensor* t :
             {&adopted.token_embedding, &adopted.layers[1].wv, &adopted.layers[0].w2, &adopted.layers[1].bk})
            CHECK((t->data >= own.get() && t->data + t->bytes() <= own.get() + file.size()));
        own.reset();  // the model keeps the bytes alive
        const std::vector<int> ids = {4, 8, 15, 16, 23, 42, 4, 8, 15, 16, 23, 42, 1, 2, 3, 4, 5, 6};
        const trace a = llama_forward(adopted, ids, llama_experiment(adopted.config));
        const trace b = llama_forward(copied, ids, llama_experiment(copied.config));
        CHECK(a.logits.data == b.logits.data);
        // Misaligned bytes (a float one byte off) are copied instead: the same model.
        std::shared_ptr<unsigned char> odd(new unsigned char[file.size() + 1], std::default_delete<unsigned char[]>());
        std::memcpy(odd.get() + 1, file.data(), file.size());
        std::shared_ptr<unsigned char> shifted(odd, odd.get() + 1);
        safetensors_file h2;
        REQUIRE_FALSE(safetensors_read(shifted.get(), file.size(), file.size(), h2));
        llama_model moved;
        REQUIRE_FALSE(hf_model_read(c, {hf_shard(shifted.get(), file.size(), &h2, shifted)}, moved));
        CHECK(moved.weights.size != file.size());
        CHECK(llama_forward(moved, ids, llama_experiment(moved.config)).logits.data == b.logits.data);
    }
}
