#include "circuits/predict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernels.hpp"
#include "train/task.hpp"

namespace attn {

void circuits_softmax_rank(const float* logits, float* probs, int* rank, const int* targets, int T, int V) {
    for (int t = 0; t < T; ++t) {
        const float* z = logits + std::size_t(t) * std::size_t(V);
        const float m = *std::max_element(z, z + V);
        double s = 0;
        for (int v = 0; v < V; ++v)
            s += std::exp(double(z[v]) - double(m));
        for (int v = 0; v < V; ++v)
            probs[std::size_t(t) * std::size_t(V) + std::size_t(v)] = float(std::exp(double(z[v]) - double(m)) / s);
        if (targets[t] < 0) {
            rank[t] = -1;
            continue;
        }
        int above = 0;
        for (int v = 0; v < V; ++v)
            above += z[v] > z[targets[t]] ? 1 : 0;
        rank[t] = above;
    }
}

void circuits_top_tokens(const float* p, int V, int k, int* top) {
    for (int i = 0; i < k; ++i) {  // selection by descending probability, the lower token first on ties
        int best = -1;
        for (int v = 0; v < V; ++v) {
            if (std::find(top, top + i, v) != top + i)
                continue;
            if (best < 0 || p[v] > p[best])
                best = v;
        }
        top[i] = best;
    }
}

namespace {

// The problem that keeps tr from being read through run, or empty.
std::string predict_problem(const train_run& run, const trace& tr) {
    if (int(tr.layers.size()) != run.L || tr.output.cols != run.d)
        return "the trace is not of the trained model's shape";
    if (tr.tokens.empty() || int(tr.tokens.size()) != tr.output.rows)
        return "the trace has no tokens";
    for (const std::string& tok : tr.tokens)
        if (const int v = task_symbol_index(tok); v < 0 || v >= run.V)
            return "'" + tok + "' is not one of the model's " + std::to_string(run.V) + " symbols";
    return {};
}

void lay_out(circuit_prediction& c, int n, int V, int L, int k) {
    const std::size_t nv = std::size_t(n) * std::size_t(V);
    c.n = n, c.V = V, c.L = L, c.top_k = k;
    c.tokens.resize(std::size_t(n));
    c.targets.resize(std::size_t(n));
    c.logits.resize(nv);
    c.probs.resize(nv);
    c.top.resize(std::size_t(n) * std::size_t(k));
    c.target_prob.resize(std::size_t(n));
    c.target_rank.resize(std::size_t(n));
    c.lens_probs.resize(std::size_t(L) * nv);
    c.lens_top.resize(std::size_t(L) * std::size_t(n));
    c.lens_target_rank.resize(std::size_t(L) * std::size_t(n));
    c.lens_logits.resize(nv);
}

}  // namespace

bool circuits_predict(const train_run& run, const trace& tr, circuit_prediction& out, std::string* error) {
    if (const std::string why = predict_problem(run, tr); !why.empty()) {
        if (error)
            *error = why;
        out.n = 0;
        return false;
    }
    const int n = int(tr.tokens.size()), V = run.V, L = run.L, d = run.d;
    lay_out(out, n, V, L, std::min(circuit_top_k, V));
    for (int t = 0; t < n; ++t) {
        out.tokens[std::size_t(t)] = task_symbol_index(tr.tokens[std::size_t(t)]);
        out.targets[std::size_t(t)] = t + 1 < n ? task_symbol_index(tr.tokens[std::size_t(t + 1)]) : -1;
    }
    const float* wu = run.params.data() + run.layout.w_u.offset;
    const std::size_t nv = std::size_t(n) * std::size_t(V);
    for (int l = 0; l < L; ++l) {
        float* z = l + 1 == L ? out.logits.data() : out.lens_logits.data();
        kernel_matmul(tr.layers[std::size_t(l)].output.data.data(), wu, z, n, d, V);
        float* p = out.lens_probs.data() + std::size_t(l) * nv;
        circuits_softmax_rank(z, p, out.lens_target_rank.data() + std::size_t(l) * std::size_t(n), out.targets.data(), n, V);
        for (int t = 0; t < n; ++t)
            out.lens_top[std::size_t(l) * std::size_t(n) + std::size_t(t)] =
                int(std::max_element(p + std::size_t(t) * std::size_t(V), p + std::size_t(t + 1) * std::size_t(V)) -
                    (p + std::size_t(t) * std::size_t(V)));
    }
    std::copy_n(out.lens_probs.data() + std::size_t(L - 1) * nv, nv, out.probs.data());
    std::copy_n(out.lens_target_rank.data() + std::size_t(L - 1) * std::size_t(n), n, out.target_rank.data());
    for (int t = 0; t < n; ++t) {
        const int tgt = out.targets[std::size_t(t)];
        out.target_prob[std::size_t(t)] =
            tgt < 0 ? std::numeric_limits<float>::quiet_NaN() : out.probs[std::size_t(t) * std::size_t(V) + std::size_t(tgt)];
        circuits_top_tokens(out.probs.data() + std::size_t(t) * std::size_t(V), V, out.top_k,
                            out.top.data() + std::size_t(t) * std::size_t(out.top_k));
    }
    return true;
}

}  // namespace attn
