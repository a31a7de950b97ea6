#include "llama/lens.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.hpp"
#include "llama/forward.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

// g_final ⊙ W_cls[target]: what a residual row is dotted with to give target's
// logit, before the norm's scale; for GPT-2's LayerNorm, centred (u − mean(u)):
// the norm subtracts the row's mean, and Σ (x_i − x̄)·u_i = Σ x_i·(u_i − ū), so
// each part of the row is centred by the same vector.
std::vector<double> readout(const llama_model& m, int target) {
    const int d = m.config.dim;
    const std::vector<float> g = llama_floats(m, m.rms_final);
    std::vector<float> w(static_cast<std::size_t>(d));
    llama_floats(m, m.classifier, std::size_t(target) * std::size_t(d), std::size_t(d), w.data());
    std::vector<double> u(static_cast<std::size_t>(d));
    double mean = 0;
    for (int i = 0; i < d; ++i) {
        u[std::size_t(i)] = double(g[std::size_t(i)]) * double(w[std::size_t(i)]);
        mean += u[std::size_t(i)] / d;
    }
    if (m.config.arch == llama_arch::gpt2)
        for (double& v : u)
            v -= mean;
    return u;
}

double dot(const float* x, const std::vector<double>& u) {
    double s = 0;
    for (std::size_t i = 0; i < u.size(); ++i)
        s += double(x[i]) * u[i];
    return s;
}

}  // namespace

double llama_attribution::sum() const {
    double s = embedding + bias;
    for (const float v : heads)
        s += v;
    for (const float v : ffn)
        s += v;
    return s;
}

std::vector<llama_lens_row> llama_logit_lens(const llama_model& m, const trace& t, int pos, int target) {
    const llama_config& c = m.config;
    const int rows = c.n_layers + 1, d = c.dim, V = c.vocab_size;
    matrix resid(rows, d), normed(rows, d), logits(rows, V);
    for (int r = 0; r < rows; ++r) {
        const matrix& from = r == 0 ? t.x0 : t.layers[std::size_t(r - 1)].output;
        std::copy(from.row(pos), from.row(pos) + d, resid.row(r));
    }
    llama_norm_rows(m, m.rms_final, m.norm_final_bias, resid.data.data(), normed.data.data(), rows);
    llama_matmul_bt(normed.data.data(), m, m.classifier, 0, logits.data.data(), rows - 1, V, d);
    std::copy(t.logits.row(pos), t.logits.row(pos) + V, logits.row(rows - 1));  // the model's own: its kernels, its ties
    std::vector<llama_lens_row> out;
    for (int r = 0; r < rows; ++r) {
        const float* z = logits.row(r);
        int top = 0, rank = 0;
        for (int v = 1; v < V; ++v)
            top = z[v] > z[top] ? v : top;
        for (int v = 0; v < V; ++v)
            rank += z[v] > z[target] || (z[v] == z[target] && v < target);
        double sum = 0;
        for (int v = 0; v < V; ++v)
            sum += std::exp(double(z[v]) - double(z[top]));
        out.push_back({r - 1, top, float(1.0 / sum), float(std::exp(double(z[target]) - double(z[top])) / sum), rank});
    }
    return out;
}

namespace {

int argmax(const float* z, int n) {
    int top = 0;
    for (int v = 1; v < n; ++v)
        top = z[v] > z[top] ? v : top;
    return top;
}

}  // namespace

bool llama_embedding_decides(const llama_model& m, const trace& t, const std::vector<int>& ids,
                             const std::vector<llama_lens_row>& lens) {
    if (lens.empty() || ids.empty() || std::size_t(t.logits.rows) != ids.size())
        return false;
    for (const llama_lens_row& row : lens)
        if (row.top != lens[0].top)
            return false;
    const int d = m.config.dim, V = m.config.vocab_size, n = int(ids.size());
    // Each distinct token once (its first position): its embedding row predicts the same wherever it stands.
    std::vector<int> first, which(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) {
        const auto it =
            std::find_if(first.begin(), first.end(), [&](int q) { return ids[std::size_t(q)] == ids[std::size_t(p)]; });
        which[std::size_t(p)] = int(it - first.begin());
        if (it == first.end())
            first.push_back(p);
    }
    constexpr int chunk = 16;
    matrix resid(chunk, d), normed(chunk, d), logits(chunk, V);
    for (int at = 0; at < int(first.size()); at += chunk) {
        const int rows = std::min(chunk, int(first.size()) - at);
        for (int r = 0; r < rows; ++r)
            std::copy(t.x0.row(first[std::size_t(at + r)]), t.x0.row(first[std::size_t(at + r)]) + d, resid.row(r));
        llama_norm_rows(m, m.rms_final, m.norm_final_bias, resid.data.data(), normed.data.data(), rows);
        llama_matmul_bt(normed.data.data(), m, m.classifier, 0, logits.data.data(), rows, V, d);
        for (int p = 0; p < n; ++p) {  // the positions of this chunk's tokens
            const int r = which[std::size_t(p)] - at;
            if (r >= 0 && r < rows && argmax(logits.row(r), V) != argmax(t.logits.row(p), V))
                return false;
        }
    }
    return true;
}

llama_attribution llama_direct_logit_attribution(const llama_model& m, const trace& t, int pos, int target) {
    const llama_config& c = m.config;
    const int d = c.dim, hs = c.head_size();
    llama_attribution a;
    a.pos = pos, a.target = target;
    a.logit = t.logits(pos, target);
    const float* last = t.output.row(pos);
    const bool gpt2 = c.arch == llama_arch::gpt2;
    double mean = 0, ms = 0;
    for (int i = 0; i < d && gpt2; ++i)
        mean += double(last[i]) / d;
    for (int i = 0; i < d; ++i)
        ms += (double(last[i]) - mean) * (double(last[i]) - mean);
    const double inv = 1.0 / std::sqrt(ms / d + double(m.config.norm_eps));
    a.inv_rms = float(inv);
    const std::vector<double> u = readout(m, target);
    a.embedding = float(inv * dot(t.x0.row(pos), u));
    if (gpt2) {  // the final norm's bias through the classifier, and each layer's W_O bias through the norm
        const std::vector<float> b = llama_floats(m, m.norm_final_bias);
        std::vector<float> w(static_cast<std::size_t>(d));
        llama_floats(m, m.classifier, std::size_t(target) * std::size_t(d), std::size_t(d), w.data());
        double s = 0;
        for (int i = 0; i < d; ++i)
            s += double(b[std::size_t(i)]) * double(w[std::size_t(i)]);
        for (const llama_layer_tensors& l : m.layers)
            s += inv * dot(llama_floats(m, l.bo).data(), u);
        a.bias = float(s);
    }
    std::vector<double> through_wo(static_cast<std::size_t>(d));  // W_Oᵀ u: what each column of concat adds
    std::vector<float> row(static_cast<std::size_t>(d));
    for (int l = 0; l < c.n_layers; ++l) {
        const layer_trace& lt = t.layers[std::size_t(l)];
        const llama_tensor& wo = m.layers[std::size_t(l)].wo;  // (d out, d in)
        std::fill(through_wo.begin(), through_wo.end(), 0.0);
        for (int i = 0; i < d; ++i) {
            llama_floats(m, wo, std::size_t(i) * std::size_t(d), std::size_t(d), row.data());
            for (int j = 0; j < d; ++j)
                through_wo[std::size_t(j)] += double(row[std::size_t(j)]) * u[std::size_t(i)];
        }
        for (int h = 0; h < c.n_heads; ++h) {
            const float* o = lt.heads[std::size_t(h)].out.row(pos);
            double s = 0;
            for (int j = 0; j < hs; ++j)
                s += double(o[j]) * through_wo[std::size_t(h * hs + j)];
            a.heads.push_back(float(inv * s));
        }
        a.ffn.push_back(float(inv * dot(lt.ffn_out.row(pos), u)));
    }
    return a;
}

}  // namespace attn
