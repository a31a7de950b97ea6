// circuits/weights.hpp's maps and circuits.hpp's per-head matrices. Sections:
//   [SECTION] one head's factors
//   [SECTION] the maps
// Products in double from the fp32 weights; the maps stored as fp32.
#include "circuits/weights.hpp"

// Eigen's own heap (malloc, not operator new) can be forbidden at run time, so a
// test sees that a kept solver allocates nothing (tests/core/test_circuits.cpp, the
// only other file that includes Eigen, defines the same); allowed unless a test says
// otherwise, and its check is an assertion (none under NDEBUG).
#define EIGEN_RUNTIME_NO_MALLOC
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>

#include "circuits/circuits.hpp"

namespace attn {
namespace {

// --- [SECTION] one head's factors ----------------------------------------------

int kv_head(const train_run& r, int h) { return h / (r.h / r.g); }

// dst(d × d_k) = W_Q^h R(δ): columns [h·d_k, (h+1)·d_k) of W_Q, each row's pairs
// turned by δ·θ_p (θ_p = base^(−2p/d_k), as rope.hpp and the training forward).
void query_block(const train_run& r, int l, int h, int offset, double* dst) {
    const int d = r.d, dk = r.dk;
    const float* wq = r.params.data() + r.layout.layers[std::size_t(l)].w_q.offset + h * dk;
    const bool rope = r.e.pos == positional::rope && offset != 0;
    const int turned = rope ? dk - dk % 2 : 0;  // the columns in pairs; an odd last one stays
    // A pair's angle once for every row (not once per row: the positional pattern
    // asks for 2T − 1 offsets of every head, and pow, cos and sin are most of the work).
    for (int q = 0; q < turned; q += 2) {
        const double theta = std::pow(double(r.e.rope_base), -double(q) / double(dk));
        const double c = std::cos(double(offset) * theta), s = std::sin(double(offset) * theta);
        for (int a = 0; a < d; ++a) {
            const float* row = wq + a * d;
            dst[a * dk + q] = double(row[q]) * c - double(row[q + 1]) * s;
            dst[a * dk + q + 1] = double(row[q]) * s + double(row[q + 1]) * c;
        }
    }
    for (int a = 0; a < d; ++a)
        for (int q = turned; q < dk; ++q)
            dst[a * dk + q] = wq[a * d + q];
}

// W_K^j or W_V^j: columns [j·d_k, (j+1)·d_k) of a (d × g·d_k) matrix.
double kv_entry(const train_run& r, const train_tensor& w, int h, int a, int q) {
    return r.params[w.offset + std::size_t(a * r.g * r.dk + kv_head(r, h) * r.dk + q)];
}

// W_O^h: rows [h·d_k, (h+1)·d_k) of W_O, or the placement into head h's columns when W_O is off.
double o_entry(const train_run& r, int l, int h, int q, int c) {
    const train_tensor& wo = r.layout.layers[std::size_t(l)].w_o;
    if (wo.size())
        return r.params[wo.offset + std::size_t((h * r.dk + q) * r.d + c)];
    return c == h * r.dk + q ? 1.0 : 0.0;
}

// side(n × d_k) = x(n × d) · W(d × d_k), W one of W_K^j, W_V^j.
void times_kv(const train_run& r, const train_tensor& w, int h, const double* x, int n, double* side) {
    for (int i = 0; i < n; ++i)
        for (int q = 0; q < r.dk; ++q) {
            double s = 0;
            for (int a = 0; a < r.d; ++a)
                s += x[i * r.d + a] * kv_entry(r, w, h, a, q);
            side[i * r.dk + q] = s;
        }
}

}  // namespace

void circuits_head_ov(const train_run& r, int l, int h, double* dst) {
    const train_tensor& wv = r.layout.layers[std::size_t(l)].w_v;
    for (int a = 0; a < r.d; ++a)
        for (int c = 0; c < r.d; ++c) {
            double s = 0;
            for (int q = 0; q < r.dk; ++q)
                s += kv_entry(r, wv, h, a, q) * o_entry(r, l, h, q, c);
            dst[a * r.d + c] = s;
        }
}

void circuits_head_qk(const train_run& r, int l, int h, int offset, double* dst) {
    std::vector<double> wq(std::size_t(r.d) * std::size_t(r.dk));
    query_block(r, l, h, offset, wq.data());
    const train_tensor& wk = r.layout.layers[std::size_t(l)].w_k;
    for (int a = 0; a < r.d; ++a)
        for (int c = 0; c < r.d; ++c) {
            double s = 0;
            for (int q = 0; q < r.dk; ++q)
                s += wq[std::size_t(a * r.dk + q)] * kv_entry(r, wk, h, c, q);
            dst[a * r.d + c] = s;
        }
}

float circuit_diagonal_top1(const float* m, int n) {
    int hits = 0;
    for (int i = 0; i < n; ++i) {
        int best = 0;
        for (int j = 1; j < n; ++j)
            if (m[i * n + j] > m[i * n + best])
                best = j;
        hits += best == i ? 1 : 0;
    }
    return n ? float(hits) / float(n) : 0.0f;
}

// Made for one size, in place: EigenSolver(n) leaves its `info` unset until a
// compute(), so a solver is never copied or assigned (UBSan: loading that enum).
struct circuit_eigen_scratch::impl {
    explicit impl(int n) : a(n, n), es(n) {}
    Eigen::MatrixXd a;
    Eigen::EigenSolver<Eigen::MatrixXd> es;
};
circuit_eigen_scratch::circuit_eigen_scratch() = default;
circuit_eigen_scratch::~circuit_eigen_scratch() = default;
circuit_eigen_scratch::circuit_eigen_scratch(const circuit_eigen_scratch&) {}
circuit_eigen_scratch& circuit_eigen_scratch::operator=(const circuit_eigen_scratch&) { return *this; }
circuit_eigen_scratch::impl& circuit_eigen_scratch::get(int n) {
    if (!p_ || p_->a.rows() != n)
        p_ = std::make_unique<impl>(n);
    return *p_;
}

float circuit_copying_score(const float* m, int n) {
    circuit_eigen_scratch scratch;
    return circuit_copying_score(m, n, scratch);
}

// The solver sized for n once (EigenSolver(n) lays out its work space): a later
// compute() of that size allocates nothing, and computes what a fresh solver would.
float circuit_copying_score(const float* m, int n, circuit_eigen_scratch& scratch) {
    circuit_eigen_scratch::impl& s = scratch.get(n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            s.a(i, j) = m[i * n + j];
    const Eigen::EigenSolver<Eigen::MatrixXd>& es = s.es.compute(s.a, false);
    double re = 0, mag = 0;
    for (int i = 0; i < n; ++i) {
        re += es.eigenvalues()[i].real();
        mag += std::abs(es.eigenvalues()[i]);
    }
    return mag > 0 ? float(re / mag) : 0.0f;
}

namespace {

// --- [SECTION] the maps ----------------------------------------------------------

// m(V × V) = left(V × d_k) · right(V × d_k)ᵀ.
void outer(const double* left, const double* right, int V, int dk, float* m) {
    for (int i = 0; i < V; ++i)
        for (int j = 0; j < V; ++j) {
            double s = 0;
            for (int q = 0; q < dk; ++q)
                s += left[i * dk + q] * right[j * dk + q];
            m[i * V + j] = float(s);
        }
}

// The embedding E (V × d) in double, into E.
void embedding(const train_run& r, std::vector<double>& E) {
    const float* e = r.params.data() + r.layout.w_e.offset;
    E.assign(e, e + std::size_t(r.V) * std::size_t(r.d));
}

// x(n × d)·W_Q^h R(δ) (n × d_k) into q_side; wq: scratch (d × d_k).
void query_side_rows(const train_run& r, const double* x, int n, int l, int h, int offset, std::vector<double>& wq,
                     double* q_side) {
    query_block(r, l, h, offset, wq.data());
    for (int i = 0; i < n; ++i)
        for (int q = 0; q < r.dk; ++q) {
            double s = 0;
            for (int a = 0; a < r.d; ++a)
                s += x[i * r.d + a] * wq[std::size_t(a * r.dk + q)];
            q_side[i * r.dk + q] = s;
        }
}

// E·W_Q^h R(δ) (V × d_k) into q_side.
void query_side(const train_run& r, const std::vector<double>& E, int l, int h, int offset, std::vector<double>& wq,
                double* q_side) {
    query_side_rows(r, E.data(), r.V, l, h, offset, wq, q_side);
}

// The positional QK pattern (weights.hpp): additive positions P through the head's
// W_QK, or under RoPE the mean embedding at every offset i − j.
void positional_pattern(const train_run& r, circuit_weights& w, circuit_head_maps& m) {
    const int T = r.T, d = r.d, dk = r.dk;
    m.pos_qk.clear();
    if (r.e.pos == positional::none)
        return;
    m.pos_qk.assign(std::size_t(T * T), 0.0f);
    std::vector<double>&wq = w.wq, &left = w.left, &right = w.right;
    if (r.e.pos != positional::rope) {
        const float* p = r.layout.w_p.size() ? r.params.data() + r.layout.w_p.offset : r.positions.data();
        w.P.assign(p, p + std::size_t(T * d));
        query_side_rows(r, w.P.data(), T, m.layer, m.head, 0, wq, left.data());
        times_kv(r, r.layout.layers[std::size_t(m.layer)].w_k, m.head, w.P.data(), T, right.data());
        outer(left.data(), right.data(), T, dk, m.pos_qk.data());
        return;
    }
    std::vector<double>& mean = w.mean;
    mean.assign(std::size_t(d), 0.0);
    const float* e = r.params.data() + r.layout.w_e.offset;
    for (int v = 0; v < r.V; ++v)
        for (int a = 0; a < d; ++a)
            mean[std::size_t(a)] += double(e[v * d + a]) / double(r.V);
    times_kv(r, r.layout.layers[std::size_t(m.layer)].w_k, m.head, mean.data(), 1, right.data());
    for (int delta = -(T - 1); delta < T; ++delta) {
        query_side_rows(r, mean.data(), 1, m.layer, m.head, delta, wq, left.data());
        double s = 0;
        for (int q = 0; q < dk; ++q)
            s += left[std::size_t(q)] * right[std::size_t(q)];
        for (int i = 0; i < T; ++i)
            if (i - delta >= 0 && i - delta < T)
                m.pos_qk[std::size_t(i * T + (i - delta))] = float(s);
    }
}

void head_maps(const train_run& r, const std::vector<double>& E, circuit_weights& w, circuit_head_maps& m) {
    const int V = r.V, dk = r.dk, d = r.d, l = m.layer, h = m.head;
    std::vector<double>&wq = w.wq, &left = w.left, &right = w.right;
    m.qk.assign(w.offsets.size() * std::size_t(V * V), 0.0f);
    times_kv(r, r.layout.layers[std::size_t(l)].w_k, h, E.data(), V, right.data());
    for (std::size_t o = 0; o < w.offsets.size(); ++o) {
        query_side(r, E, l, h, w.offsets[o], wq, left.data());
        outer(left.data(), right.data(), V, dk, m.qk.data() + o * std::size_t(V * V));
    }
    // E W_OV U = (E W_V^j)(W_O^h W_U): right holds (W_O^h W_U)ᵀ (V × d_k).
    times_kv(r, r.layout.layers[std::size_t(l)].w_v, h, E.data(), V, left.data());
    const float* wu = r.params.data() + r.layout.w_u.offset;
    for (int v = 0; v < V; ++v)
        for (int q = 0; q < dk; ++q) {
            double s = 0;
            for (int c = 0; c < d; ++c)
                s += o_entry(r, l, h, q, c) * double(wu[c * V + v]);
            right[std::size_t(v * dk + q)] = s;
        }
    m.ov.assign(std::size_t(V * V), 0.0f);
    outer(left.data(), right.data(), V, dk, m.ov.data());
    m.ov_top1 = circuit_diagonal_top1(m.ov.data(), V);
    m.copying = circuit_copying_score(m.ov.data(), V, w.eigen);
    positional_pattern(r, w, m);
}

// E W_OV^a (V × d) into w.side_a: the sender's side of its K-composition maps,
// once for all of its receivers.
void sender_side(const train_run& r, const std::vector<double>& E, circuit_weights& w, int layer_a, int head_a) {
    const int V = r.V, d = r.d;
    std::vector<double>& ov = w.ov;
    w.side_a.assign(std::size_t(V) * std::size_t(d), 0.0);
    circuits_head_ov(r, layer_a, head_a, ov.data());
    for (int i = 0; i < V; ++i)
        for (int c = 0; c < d; ++c) {
            double s = 0;
            for (int a = 0; a < d; ++a)
                s += E[std::size_t(i * d + a)] * ov[std::size_t(a * d + c)];
            w.side_a[std::size_t(i * d + c)] = s;
        }
}

// E W_QK^b(δ) (E W_OV^a)ᵀ = (E W_Q^b R)(E W_OV^a W_K^b)ᵀ, with w.side_a head a's (sender_side).
void k_map(const train_run& r, const std::vector<double>& E, circuit_weights& w, circuit_k_map& k) {
    const int V = r.V, dk = r.dk;
    std::vector<double>&wq = w.wq, &left = w.left, &right = w.right;
    times_kv(r, r.layout.layers[std::size_t(k.layer_b)].w_k, k.head_b, w.side_a.data(), V, right.data());
    query_side(r, E, k.layer_b, k.head_b, w.k_offset, wq, left.data());
    k.map.assign(std::size_t(V * V), 0.0f);
    outer(left.data(), right.data(), V, dk, k.map.data());
    k.top1 = circuit_diagonal_top1(k.map.data(), V);
}

}  // namespace

void circuits_weights(const train_run& run, circuit_weights& out) {
    out.V = run.V;
    out.T = run.T;
    embedding(run, out.E);
    const std::vector<double>& E = out.E;
    const std::size_t dk = std::size_t(run.dk), rows = std::size_t(std::max(run.V, run.T));
    out.wq.resize(std::size_t(run.d) * dk);
    out.left.resize(rows * dk);
    out.right.resize(rows * dk);
    out.ov.resize(std::size_t(run.d) * std::size_t(run.d));
    out.heads.resize(std::size_t(run.L * run.h));
    for (int l = 0; l < run.L; ++l)
        for (int h = 0; h < run.h; ++h) {
            circuit_head_maps& m = out.heads[std::size_t(l * run.h + h)];
            m.layer = l;
            m.head = h;
            head_maps(run, E, out, m);
        }
    out.k_maps.resize(std::size_t(std::max(run.L - 1, 0) * run.h * run.h));  // kept with their maps' memory
    std::size_t i = 0;
    for (int lb = 1; lb < run.L; ++lb)
        for (int a = 0; a < run.h; ++a) {
            sender_side(run, E, out, 0, a);
            for (int b = 0; b < run.h; ++b) {
                circuit_k_map& k = out.k_maps[i++];
                k.layer_a = 0;
                k.head_a = a;
                k.layer_b = lb;
                k.head_b = b;
                k_map(run, E, out, k);
            }
        }
}

}  // namespace attn
