#include "llama/forward.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/kernels.hpp"
#include "model/rope.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

// A piece as a row label: the special tokens' surrounding newlines ("\n<s>\n")
// trimmed, so that labels and the inspector's sentences stay on one line.
std::string token_label(const std::string& piece) {
    const std::size_t a = piece.find_first_not_of('\n'), b = piece.find_last_not_of('\n');
    return a == std::string::npos ? piece : piece.substr(a, b - a + 1);
}

// x(n, in)·wᵀ for w (out, in) in the model's bytes. Many rows: through a
// transposed fp32 copy and kernel_matmul, whose packed tiles run ~4× the products
// of kernel_matmul_bt's wide-row path natively (docs/benchmarks.md, R1); the copy
// costs one pass over w and lives only during the product. Few rows (a short
// text): straight from the bytes, 16-bit weights widened as they are read.
constexpr int rows_for_transpose = 16;
matrix project(const matrix& x, const llama_model& m, const llama_tensor& w, int out, const llama_tensor& bias = {}) {
    matrix y(x.rows, out);
    if (x.rows < rows_for_transpose) {
        llama_matmul_bt(x.data.data(), m, w, 0, y.data.data(), x.rows, out, x.cols);
    } else {
        static thread_local std::vector<float> wt;
        llama_transpose(m, w, out, x.cols, wt);
        kernel_matmul(x.data.data(), wt.data(), y.data.data(), x.rows, x.cols, out);
        if (wt.capacity() > (std::size_t(64) << 20) / sizeof(float))
            std::vector<float>().swap(wt);  // a classifier's copy (32000 × 768: 98 MB) is not kept between passes
    }
    if (bias.size) {  // Qwen2's q, k, v: the same vector added to every row
        const std::vector<float> b = llama_floats(m, bias);
        for (int r = 0; r < y.rows; ++r)
            for (int i = 0; i < out; ++i)
                y(r, i) += b[std::size_t(i)];
    }
    return y;
}

matrix norm(const matrix& x, const llama_model& m, const llama_tensor& gain, const llama_tensor& bias) {
    matrix y(x.rows, x.cols);
    llama_norm_rows(m, gain, bias, x.data.data(), y.data.data(), x.rows);
    return y;
}

matrix add(const matrix& a, const matrix& b) {
    matrix y = a;
    for (std::size_t i = 0; i < y.data.size(); ++i)
        y.data[i] += b.data[i];
    return y;
}

// Each head's columns of every row turned by RoPE for the row's position.
matrix rope(const matrix& x, const llama_config& c) {
    matrix y = x;
    for (int r = 0; r < y.rows; ++r)
        for (int c0 = 0; c0 < y.cols; c0 += c.head_size())
            llama_rope(c, y.row(r) + c0, r);
    return y;
}

void count(const matrix& mm, trace& t) {
    for (const float v : mm.data) {
        t.nan_count += std::isnan(v);
        t.inf_count += std::isinf(v);
    }
}

void count_specials(trace& t) {
    count(t.x0, t);
    for (const layer_trace& lt : t.layers) {
        for (const matrix* mm : {&lt.normed, &lt.q, &lt.k, &lt.v, &lt.q_rot, &lt.k_rot, &lt.concat, &lt.attn_out, &lt.residual,
                                 &lt.ffn_normed, &lt.ffn_gate, &lt.ffn_up, &lt.ffn_hidden, &lt.ffn_out, &lt.output})
            count(*mm, t);
        for (const head_trace& ht : lt.heads) {
            for (const matrix* mm : {&ht.scores, &ht.scaled, &ht.weights, &ht.out})
                count(*mm, t);
            for (const float v : ht.row_sums)
                t.nan_count += std::isnan(v), t.inf_count += std::isinf(v);
            for (const float v : ht.row_entropies)
                t.nan_count += std::isnan(v), t.inf_count += std::isinf(v);
        }
    }
    count(t.final_normed, t);
    count(t.logits, t);
}

layer_trace run_layer(const llama_model& m, const experiment& e, int layer, const matrix& x, const trace_options& opt) {
    const llama_config& c = m.config;
    const llama_layer_tensors& w = m.layers[std::size_t(layer)];
    layer_trace lt;
    lt.input = x;
    const bool gpt2 = c.arch == llama_arch::gpt2;
    lt.normed = norm(x, m, w.rms_att, w.norm_att_bias);
    lt.q = project(lt.normed, m, w.wq, c.dim, w.bq);
    lt.k = project(lt.normed, m, w.wk, c.kv_dim(), w.bk);
    lt.v = project(lt.normed, m, w.wv, c.kv_dim(), w.bv);
    lt.q_rot = gpt2 ? lt.q : rope(lt.q, c);  // GPT-2's positions are in the embedding
    lt.k_rot = gpt2 ? lt.k : rope(lt.k, c);
    forward_heads(e, layer, lt, opt);
    lt.attn_out = project(lt.concat, m, w.wo, c.dim, w.bo);
    lt.residual = add(x, lt.attn_out);
    lt.ffn_normed = norm(lt.residual, m, w.rms_ffn, w.norm_ffn_bias);
    lt.ffn_gate = project(lt.ffn_normed, m, w.w1, c.hidden_dim, w.b1);
    lt.ffn_hidden = matrix(x.rows, c.hidden_dim);
    if (gpt2) {  // GELU of the one matrix up: ffn_gate holds its input, ffn_up stays empty
        kernel_gelu_tanh(lt.ffn_gate.data.data(), lt.ffn_hidden.data.data(), int(lt.ffn_hidden.size()));
    } else {
        lt.ffn_up = project(lt.ffn_normed, m, w.w3, c.hidden_dim);
        kernel_swiglu(lt.ffn_gate.data.data(), lt.ffn_up.data.data(), lt.ffn_hidden.data.data(), int(lt.ffn_hidden.size()));
    }
    lt.ffn_out = project(lt.ffn_hidden, m, w.w2, c.dim, w.b2);
    lt.output = add(lt.residual, lt.ffn_out);
    return lt;
}

}  // namespace

void llama_norm_rows(const llama_model& m, const llama_tensor& gain, const llama_tensor& bias, const float* x, float* y,
                     int rows) {
    const llama_config& c = m.config;
    const std::vector<float> g = llama_floats(m, gain);
    if (c.arch == llama_arch::gpt2)
        layernorm_rows(x, g.data(), llama_floats(m, bias).data(), y, rows, c.dim, c.norm_eps);
    else
        rmsnorm_gain_rows(x, g.data(), y, rows, c.dim, c.norm_eps);
}

void llama_embed(const llama_model& m, int token, int pos, float* x) {
    const std::size_t d = std::size_t(m.config.dim);
    llama_floats(m, m.token_embedding, std::size_t(token) * d, d, x);
    if (m.config.arch != llama_arch::gpt2)
        return;
    std::vector<float> p(d);
    llama_floats(m, m.position_embedding, std::size_t(pos) * d, d, p.data());
    for (std::size_t i = 0; i < d; ++i)
        x[i] += p[i];
}

void llama_transpose(const llama_model& m, const llama_tensor& w, int out, int in, std::vector<float>& wt) {
    if (w.type == weight_type::f32)
        return llama_transpose(m.at(w), out, in, wt);
    constexpr int b = 32;  // 32 rows widened at a time, then turned as the fp32 version turns them
    wt.resize(std::size_t(out) * std::size_t(in));
    std::vector<float> rows(std::size_t(b) * std::size_t(in));
    for (int r0 = 0; r0 < out; r0 += b) {
        const int n = std::min(b, out - r0);
        llama_floats(m, w, std::size_t(r0) * std::size_t(in), std::size_t(n) * std::size_t(in), rows.data());
        for (int c0 = 0; c0 < in; c0 += b)
            for (int r = 0; r < n; ++r)
                for (int c = c0; c < std::min(in, c0 + b); ++c)
                    wt[std::size_t(c) * std::size_t(out) + std::size_t(r0 + r)] =
                        rows[std::size_t(r) * std::size_t(in) + std::size_t(c)];
    }
}

void llama_transpose(const float* w, int out, int in, std::vector<float>& wt) {
    constexpr int b = 32;
    wt.resize(std::size_t(out) * std::size_t(in));
    for (int r0 = 0; r0 < out; r0 += b)
        for (int c0 = 0; c0 < in; c0 += b)
            for (int r = r0; r < std::min(out, r0 + b); ++r)
                for (int c = c0; c < std::min(in, c0 + b); ++c)
                    wt[std::size_t(c) * std::size_t(out) + std::size_t(r)] = w[std::size_t(r) * std::size_t(in) + std::size_t(c)];
}

std::size_t llama_forward_bytes(const llama_config& c, int n, const trace_options& opt) {
    const std::size_t nn = std::size_t(std::max(n, 0)), d = std::size_t(c.dim), kv = std::size_t(c.kv_dim()),
                      f = std::size_t(c.hidden_dim), hs = std::size_t(c.head_size()), V = std::size_t(c.vocab_size),
                      L = std::size_t(c.n_layers), H = std::size_t(c.n_heads);
    std::size_t whole = 0, weights = 0;  // heads keeping their four (n, n) matrices, their weights alone
    for (int l = 0; l < c.n_layers; ++l)
        for (int h = 0; h < c.n_heads; ++h) {
            if (!opt.keep_head_matrices || opt.keep_head_matrices(l, h))
                ++whole;
            else
                weights += opt.keep_weights;
        }
    std::size_t floats = 3 * nn * d + nn * V;                // x0, output, final_normed; logits
    floats += L * (10 * nn * d + 3 * nn * kv + 3 * nn * f);  // each layer's stages (run_layer)
    floats += L * H * (4 * nn * hs + 2 * nn);                // each head's q, k, v and out; row sums, entropies
    floats += (4 * whole + weights) * nn * nn;
    const bool side_by_side = !opt.keep_head_matrices || n <= heads_side_by_side_tokens;
    if (whole < L * H)  // the heads that drop their matrices, in flight
        floats += std::min(H, std::size_t(side_by_side ? std::max(opt.threads, 1) : 1)) * 4 * nn * nn;
    if (n >= rows_for_transpose)  // project's transposed copy of the largest weight, and a smaller one's as it grows
        floats += 2 * std::max({V * d, f * d, d * d});
    const std::size_t labels = nn * (sizeof(std::string) + 16), bookkeeping = 4096;  // the vectors' own small parts
    return floats * sizeof(float) + L * (sizeof(layer_trace) + H * sizeof(head_trace)) + labels + bookkeeping;
}

experiment llama_experiment(const llama_config& c) {
    experiment e;
    e.text.clear();
    e.d_model = c.dim;
    e.heads = c.n_heads;
    e.kv_heads = c.n_kv_heads;
    e.layers = c.n_layers;
    e.block = block_kind::full;
    e.pos = c.arch == llama_arch::gpt2 ? positional::learned : positional::rope;
    e.rope_base = c.rope_theta;
    e.mask = mask_kind::causal;
    e.scale = score_scale::sqrt_dk;
    e.softmax = softmax_mode::stable;
    e.use_wo = true;
    return e;
}

std::optional<std::string> llama_tokens_problem(const llama_config& c, const std::vector<int>& ids) {
    if (ids.empty())
        return std::string("there are no tokens to run");
    if (ids.size() > std::size_t(c.seq_len))
        return std::to_string(ids.size()) + " tokens are more than this model's context of " + std::to_string(c.seq_len);
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= c.vocab_size)
            return "token " + std::to_string(i) + " is id " + std::to_string(ids[i]) + ", outside the vocabulary of " +
                   std::to_string(c.vocab_size);
    return std::nullopt;
}

trace llama_forward(const llama_model& m, const std::vector<int>& ids, const experiment& e, const trace_options& opt,
                    const llama_tokenizer* tok) {
    const llama_config& c = m.config;
    const int n = int(ids.size());
    trace t;
    for (const int id : ids)
        t.tokens.push_back(tok ? token_label(tok->pieces[std::size_t(id)]) : "#" + std::to_string(id));
    t.x0 = matrix(n, c.dim);
    for (int i = 0; i < n; ++i)
        llama_embed(m, ids[std::size_t(i)], i, t.x0.row(i));
    const matrix* x = &t.x0;
    t.layers.reserve(std::size_t(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l) {
        t.layers.push_back(run_layer(m, e, l, *x, opt));
        x = &t.layers.back().output;
    }
    t.output = *x;
    t.final_normed = norm(t.output, m, m.rms_final, m.norm_final_bias);
    t.logits = project(t.final_normed, m, m.classifier, c.vocab_size);
    count_specials(t);
    return t;
}

}  // namespace attn
