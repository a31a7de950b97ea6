// circuits.hpp's composition scores and their random baseline, in double from
// the fp32 weights, each ratio stored as fp32.
//
// Every head matrix is a product of two factors, X (d × k) Y (k × d) with
// k = d_k: W_OV = W_V^j · W_O^h, W_QK = W_Q^h · (W_K^j)ᵀ, W_QKᵀ = W_K^j · (W_Q^h)ᵀ.
// The Frobenius norms never form a d × d matrix:
//   ‖X Y‖²_F         = tr((XᵀX)(Y Yᵀ))
//   ‖X_a Y_a X_b Y_b‖²_F = tr(Mᵀ (X_aᵀX_a) M (Y_b Y_bᵀ)),  M = Y_a X_b  (k × k)
// (‖L M R‖² = tr(Rᵀ Mᵀ Lᵀ L M R), and the trace turns cyclically), so a pair costs
// O(d k²), not O(d³): the page can recompute every pair and the baseline at
// once.
#include <cmath>
#include <cstddef>

#include "base/random.hpp"
#include "circuits/circuits.hpp"

namespace attn {
namespace {

// A head matrix as its two factors and their Gram matrices.
struct factored {
    int d = 0, k = 0;
    std::vector<double> x, y;    // (d × k), (k × d)
    std::vector<double> gx, gy;  // XᵀX, Y Yᵀ (k × k)
    double norm = 0;             // ‖X Y‖_F
};

void gram(factored& f) {
    const int d = f.d, k = f.k;
    f.gx.assign(std::size_t(k * k), 0.0);
    f.gy.assign(std::size_t(k * k), 0.0);
    for (int p = 0; p < k; ++p)
        for (int q = 0; q < k; ++q) {
            double sx = 0, sy = 0;
            for (int a = 0; a < d; ++a) {
                sx += f.x[std::size_t(a * k + p)] * f.x[std::size_t(a * k + q)];
                sy += f.y[std::size_t(p * d + a)] * f.y[std::size_t(q * d + a)];
            }
            f.gx[std::size_t(p * k + q)] = sx;
            f.gy[std::size_t(p * k + q)] = sy;
        }
    double t = 0;
    for (int i = 0; i < k * k; ++i)
        t += f.gx[std::size_t(i)] * f.gy[std::size_t(i)];  // tr(Gx Gy), both symmetric
    f.norm = std::sqrt(t > 0 ? t : 0.0);
}

// C(A, B) = ‖A B‖_F / (‖A‖_F ‖B‖_F); 0 when either is zero. m, t: scratch (k × k).
float composition(const factored& a, const factored& b, std::vector<double>& m, std::vector<double>& t) {
    if (a.norm == 0 || b.norm == 0)
        return 0.0f;
    const int d = a.d, k = a.k;
    m.assign(std::size_t(k * k), 0.0);
    t.assign(std::size_t(k * k), 0.0);
    for (int p = 0; p < k; ++p)  // M = Y_a X_b
        for (int q = 0; q < k; ++q) {
            double s = 0;
            for (int c = 0; c < d; ++c)
                s += a.y[std::size_t(p * d + c)] * b.x[std::size_t(c * k + q)];
            m[std::size_t(p * k + q)] = s;
        }
    for (int p = 0; p < k; ++p)  // T = (X_aᵀX_a) M
        for (int q = 0; q < k; ++q) {
            double s = 0;
            for (int r = 0; r < k; ++r)
                s += a.gx[std::size_t(p * k + r)] * m[std::size_t(r * k + q)];
            t[std::size_t(p * k + q)] = s;
        }
    double sq = 0;  // tr(Mᵀ T G) = Σ_{p,q} M_pq (T G)_pq, G = Y_b Y_bᵀ
    for (int p = 0; p < k; ++p)
        for (int q = 0; q < k; ++q) {
            double s = 0;
            for (int r = 0; r < k; ++r)
                s += t[std::size_t(p * k + r)] * b.gy[std::size_t(r * k + q)];
            sq += m[std::size_t(p * k + q)] * s;
        }
    return float(std::sqrt(sq > 0 ? sq : 0.0) / (a.norm * b.norm));
}

double weight(const train_run& r, const train_tensor& w, int row, int col) {
    return r.params[w.offset + std::size_t(row * w.cols + col)];
}

enum class head_matrix { ov, qk, qk_t };

// Head h of layer l's W_OV, W_QK or W_QKᵀ as its factors (circuits.hpp's slices;
// W_O off: the placement of the head's d_k columns).
void factor(const train_run& r, int l, int h, head_matrix which, factored& f) {
    const int d = r.d, k = r.dk, j = h / (r.h / r.g);
    const train_layer_tensors& w = r.layout.layers[std::size_t(l)];
    f.d = d;
    f.k = k;
    f.x.assign(std::size_t(d * k), 0.0);
    f.y.assign(std::size_t(k * d), 0.0);
    for (int a = 0; a < d; ++a)
        for (int q = 0; q < k; ++q) {
            const double vq = weight(r, w.w_q, a, h * k + q), vk = weight(r, w.w_k, a, j * k + q);
            if (which == head_matrix::ov) {
                f.x[std::size_t(a * k + q)] = weight(r, w.w_v, a, j * k + q);
                f.y[std::size_t(q * d + a)] = w.w_o.size() ? weight(r, w.w_o, h * k + q, a) : (a == h * k + q ? 1.0 : 0.0);
            } else {
                f.x[std::size_t(a * k + q)] = which == head_matrix::qk ? vq : vk;
                f.y[std::size_t(q * d + a)] = which == head_matrix::qk ? vk : vq;
            }
        }
    gram(f);
}

void random_factors(rng& g, int d, int k, factored& f) {
    f.d = d;
    f.k = k;
    f.x.resize(std::size_t(d * k));
    f.y.resize(std::size_t(k * d));
    for (double& v : f.x)
        v = double(g.normal());
    for (double& v : f.y)
        v = double(g.normal());
    gram(f);
}

// dst = src's transpose: (X Y)ᵀ = Yᵀ Xᵀ, so the factors transposed and swapped,
// and the Gram matrices swapped.
void transpose(const factored& src, factored& dst) {
    const int d = src.d, k = src.k;
    dst.d = d;
    dst.k = k;
    dst.x.resize(src.x.size());
    dst.y.resize(src.y.size());
    for (int a = 0; a < d; ++a)
        for (int q = 0; q < k; ++q) {
            dst.x[std::size_t(a * k + q)] = src.y[std::size_t(q * d + a)];
            dst.y[std::size_t(q * d + a)] = src.x[std::size_t(a * k + q)];
        }
    dst.gx = src.gy;
    dst.gy = src.gx;
    dst.norm = src.norm;
}

struct moments {
    double sum = 0, sq = 0;
    void add(double x) { sum += x, sq += x * x; }
    circuit_baseline get(int n) const {
        if (n <= 0)
            return {};
        const double m = sum / n, var = n > 1 ? (sq - n * m * m) / (n - 1) : 0.0;
        return {float(m), float(std::sqrt(var > 0 ? var : 0.0))};
    }
};

// Random factors of the heads' shapes, (d × d_k)(d_k × d) each: A for the earlier
// head's W_OV, B for the later head's W_QK (whose transpose, the K-composition's B,
// is again such a product) and another for its W_OV.
void baseline(int d, int k, circuit_composition& c, std::vector<factored>& f) {
    rng g(c.seed);
    moments q, kk, v;
    for (int s = 0; s < c.samples; ++s) {
        random_factors(g, d, k, f[0]);
        random_factors(g, d, k, f[1]);
        q.add(composition(f[0], f[1], c.a, c.b));
        transpose(f[1], f[2]);
        kk.add(composition(f[0], f[2], c.a, c.b));
        random_factors(g, d, k, f[1]);
        v.add(composition(f[0], f[1], c.a, c.b));
    }
    c.q = q.get(c.samples);
    c.k = kk.get(c.samples);
    c.v = v.get(c.samples);
}

}  // namespace

void circuits_composition(const train_run& run, circuit_composition& out, int samples, std::uint64_t seed) {
    // The factors' memory, kept between calls: a warm call allocates nothing.
    static thread_local std::vector<factored> f(3);
    out.pairs.clear();
    for (int la = 0; la < run.L; ++la)
        for (int ha = 0; ha < run.h; ++ha) {
            factor(run, la, ha, head_matrix::ov, f[0]);
            for (int lb = la + 1; lb < run.L; ++lb)
                for (int hb = 0; hb < run.h; ++hb) {
                    circuit_composition_pair p{la, ha, lb, hb, 0, 0, 0};
                    factor(run, lb, hb, head_matrix::qk, f[1]);
                    p.q = composition(f[0], f[1], out.a, out.b);
                    factor(run, lb, hb, head_matrix::qk_t, f[1]);
                    p.k = composition(f[0], f[1], out.a, out.b);
                    factor(run, lb, hb, head_matrix::ov, f[1]);
                    p.v = composition(f[0], f[1], out.a, out.b);
                    out.pairs.push_back(p);
                }
        }
    // The baseline depends on the shapes, the count and the seed only: a model
    // scrubbed through its snapshots draws it once.
    if (out.samples == samples && out.seed == seed && out.baseline_d == run.d && out.baseline_k == run.dk)
        return;
    out.samples = samples;
    out.seed = seed;
    out.baseline_d = run.d;
    out.baseline_k = run.dk;
    baseline(run.d, run.dk, out, f);
}

const circuit_composition_pair* circuit_composition_find(const circuit_composition& c, int layer_a, int head_a, int layer_b,
                                                         int head_b) {
    for (const circuit_composition_pair& p : c.pairs)
        if (p.layer_a == layer_a && p.head_a == head_a && p.layer_b == layer_b && p.head_b == head_b)
            return &p;
    return nullptr;
}

}  // namespace attn
