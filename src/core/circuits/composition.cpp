// circuits.hpp's composition scores and their random baseline. Every d × d
// product here is formed in double from the fp32 weights (d ≤ 256, a few
// products per pair), then the ratio stored as fp32.
#include <cmath>
#include <cstddef>

#include "base/random.hpp"
#include "circuits/circuits.hpp"

namespace attn {
namespace {

double frobenius(const double* m, int d) {
    double s = 0;
    for (int i = 0; i < d * d; ++i)
        s += m[i] * m[i];
    return std::sqrt(s);
}

// ‖A·B‖_F (or ‖A·Bᵀ‖_F when transpose_b) over d × d matrices; ab: scratch.
double product_norm(const double* a, const double* b, bool transpose_b, double* ab, int d) {
    for (int i = 0; i < d; ++i)
        for (int c = 0; c < d; ++c) {
            double s = 0;
            for (int q = 0; q < d; ++q)
                s += a[i * d + q] * (transpose_b ? b[c * d + q] : b[q * d + c]);
            ab[i * d + c] = s;
        }
    return frobenius(ab, d);
}

// C(A, B) = ‖A B‖_F / (‖A‖_F ‖B‖_F); 0 when either is zero.
float composition(const double* a, double na, const double* b, bool transpose_b, double* ab, int d) {
    const double nb = frobenius(b, d);
    if (na == 0 || nb == 0)
        return 0.0f;
    return float(product_norm(a, b, transpose_b, ab, d) / (na * nb));
}

// out(d × d) = f1(d × k)·f2(k × d) of random normal factors (k = d_k).
void random_product(rng& g, int d, int k, double* f1, double* f2, double* out) {
    for (int i = 0; i < d * k; ++i)
        f1[i] = double(g.normal());
    for (int i = 0; i < k * d; ++i)
        f2[i] = double(g.normal());
    for (int i = 0; i < d; ++i)
        for (int c = 0; c < d; ++c) {
            double s = 0;
            for (int q = 0; q < k; ++q)
                s += f1[i * k + q] * f2[q * d + c];
            out[i * d + c] = s;
        }
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

// Random W_OV of the earlier head, W_QK and W_OV of the later one, each a product of
// two random (d × d_k)(d_k × d) factors as the heads' own are (W_QK's second
// factor transposed is again random). With W_O off the real heads' W_OV are W_V
// placed in d_k columns: still rank d_k, and the statistic is about the same.
void baseline(const train_run& r, circuit_composition& c) {
    const int d = r.d, dk = r.dk;
    rng g(c.seed);
    moments q, k, v;
    double* a = c.a.data();
    double* ab = c.ab.data();
    for (int s = 0; s < c.samples; ++s) {
        random_product(g, d, dk, c.f1.data(), c.f2.data(), a);
        const double na = frobenius(a, d);
        random_product(g, d, dk, c.f1.data(), c.f2.data(), c.b.data());
        q.add(composition(a, na, c.b.data(), false, ab, d));
        k.add(composition(a, na, c.b.data(), true, ab, d));
        random_product(g, d, dk, c.f1.data(), c.f2.data(), c.b.data());
        v.add(composition(a, na, c.b.data(), false, ab, d));
    }
    c.q = q.get(c.samples);
    c.k = k.get(c.samples);
    c.v = v.get(c.samples);
}

}  // namespace

void circuits_composition(const train_run& run, circuit_composition& out, int samples, std::uint64_t seed) {
    const int d = run.d;
    const std::size_t dd = std::size_t(d) * std::size_t(d);
    out.a.resize(dd);
    out.b.resize(dd);
    out.ab.resize(dd);
    out.f1.resize(dd);  // d × d_k ≤ d × d
    out.f2.resize(dd);
    out.pairs.clear();
    for (int la = 0; la < run.L; ++la)
        for (int ha = 0; ha < run.h; ++ha) {
            circuits_head_ov(run, la, ha, out.a.data());
            const double na = frobenius(out.a.data(), d);
            for (int lb = la + 1; lb < run.L; ++lb)
                for (int hb = 0; hb < run.h; ++hb) {
                    circuit_composition_pair p{la, ha, lb, hb, 0, 0, 0};
                    circuits_head_qk(run, lb, hb, 0, out.b.data());
                    p.q = composition(out.a.data(), na, out.b.data(), false, out.ab.data(), d);
                    p.k = composition(out.a.data(), na, out.b.data(), true, out.ab.data(), d);
                    circuits_head_ov(run, lb, hb, out.b.data());
                    p.v = composition(out.a.data(), na, out.b.data(), false, out.ab.data(), d);
                    out.pairs.push_back(p);
                }
        }
    out.samples = samples;
    out.seed = seed;
    baseline(run, out);
}

const circuit_composition_pair* circuit_composition_find(const circuit_composition& c, int layer_a, int head_a, int layer_b,
                                                         int head_b) {
    for (const circuit_composition_pair& p : c.pairs)
        if (p.layer_a == layer_a && p.head_a == head_a && p.layer_b == layer_b && p.head_b == head_b)
            return &p;
    return nullptr;
}

}  // namespace attn
