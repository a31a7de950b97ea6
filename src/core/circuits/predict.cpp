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
    c.writer.resize(std::size_t(n));
}

// x(d)·u(d), in double.
double dot(const float* x, const float* u, int d) {
    double s = 0;
    for (int c = 0; c < d; ++c)
        s += double(x[c]) * double(u[c]);
    return s;
}

// Keeps w when part is larger than best's.
void consider(circuit_writer& best, const circuit_writer& w) {
    if (best.kind == circuit_writer::none || w.part > best.part)
        best = w;
}

// The largest direct writer of the top token's logit at position t (circuit_writer).
circuit_writer top_writer(const train_run& run, const experiment& e, const trace& tr, circuit_prediction& c, int t) {
    const int d = run.d, V = run.V, dk = run.dk, v = c.top[std::size_t(t * c.top_k)];
    const float* wu = run.params.data() + run.layout.w_u.offset;
    for (int q = 0; q < d; ++q)
        c.wu_col[std::size_t(q)] = wu[std::size_t(q) * std::size_t(V) + std::size_t(v)];
    const float* u = c.wu_col.data();
    circuit_writer best;
    const bool residual = e.block != block_kind::attention_only;
    if (residual)
        consider(best, {circuit_writer::embed, -1, -1, float(dot(tr.x0.row(t), u, d))});
    for (int l = residual ? 0 : run.L - 1; l < run.L; ++l) {
        const layer_trace& lt = tr.layers[std::size_t(l)];
        const matrix& wo = tr.params.layers[std::size_t(l)].w_o;
        for (int h = 0; h < run.h; ++h) {
            const float* head_in = lt.concat.row(t) + std::size_t(h) * std::size_t(dk);
            for (int r = 0; r < dk; ++r)  // W_O's rows of head h times u: the head's direction in logit space
                c.wo_u[std::size_t(r)] = e.use_wo ? float(dot(wo.row(h * dk + r), u, d)) : u[h * dk + r];
            circuit_writer w{circuit_writer::head, l, h, float(dot(head_in, c.wo_u.data(), dk))};
            const matrix& att = lt.heads[std::size_t(h)].weights;
            if (att.rows > t) {
                const float* row = att.row(t);
                w.attends_to = int(std::max_element(row, row + att.cols) - row);
                w.weight = row[w.attends_to];
            }
            consider(best, w);
        }
        if (e.block == block_kind::full)
            consider(best, {circuit_writer::ffn, l, -1, float(dot(lt.ffn_out.row(t), u, d))});
    }
    best.logit = c.logits[std::size_t(t) * std::size_t(V) + std::size_t(v)];
    if (!std::isfinite(best.logit) || !std::isfinite(best.part))
        return circuit_writer{};  // a diverged model's logit has no largest part to name
    return best;
}

}  // namespace

writer_share circuit_writer_share(const circuit_writer& w) {
    if (w.part > 0 && w.part > w.logit)
        return writer_share::exceeds;
    return w.logit > 0 && w.part >= 0.5f * w.logit ? writer_share::most : writer_share::largest;
}

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
    out.wu_col.resize(std::size_t(d));
    out.wo_u.resize(std::size_t(run.dk));
    for (int t = 0; t < n; ++t)
        out.writer[std::size_t(t)] = top_writer(run, run.e, tr, out, t);
    return true;
}

}  // namespace attn
