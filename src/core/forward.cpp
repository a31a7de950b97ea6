#include "forward.hpp"

#include <cmath>
#include <limits>

#include "kernels.hpp"
#include "random.hpp"
#include "tokenize.hpp"

namespace attn {

namespace {

matrix random_matrix(std::uint64_t seed, std::string_view name, int rows, int cols, float scale) {
    rng g(hash_combine(seed, name));
    matrix m(rows, cols);
    for (float& x : m.data)
        x = g.normal() * scale;
    return m;
}

// Columns [c0, c0 + w) of m: the per-head view of a (n, d_model) matrix.
matrix take_columns(const matrix& m, int c0, int w) {
    matrix out(m.rows, w);
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < w; ++c)
            out(r, c) = m(r, c0 + c);
    return out;
}

matrix matmul(const matrix& a, const matrix& b) {
    matrix c(a.rows, b.cols);
    kernel_matmul(a.data.data(), b.data.data(), c.data.data(), a.rows, a.cols, b.cols);
    return c;
}

}  // namespace

model_weights model_generate(const experiment& e, const std::vector<std::string>& tokens) {
    const int n = int(tokens.size()), d = e.d_model;
    model_weights w;
    // Unit-variance embeddings; the same token text always gets the same row.
    w.embeddings = matrix(n, d);
    for (int i = 0; i < n; ++i) {
        rng g(hash_combine(e.seed, "embedding:" + tokens[std::size_t(i)]));
        for (int c = 0; c < d; ++c)
            w.embeddings(i, c) = g.normal();
    }
    // Projections scaled by 1/√d_model keep Q, K, V components near unit variance.
    const float s = 1.0f / std::sqrt(float(d));
    w.w_q = random_matrix(e.seed, "layer0.w_q", d, d, s);
    w.w_k = random_matrix(e.seed, "layer0.w_k", d, d, s);
    w.w_v = random_matrix(e.seed, "layer0.w_v", d, d, s);
    w.w_o = random_matrix(e.seed, "layer0.w_o", d, d, s);
    return w;
}

trace forward(const experiment& e) {
    trace t;
    t.tokens = tokenize(e.text);
    t.params = model_generate(e, t.tokens);
    const int n = int(t.tokens.size()), d = e.d_model, h = e.heads, dk = d / h;
    const matrix& x = t.params.embeddings;

    t.q = matmul(x, t.params.w_q);
    t.k = matmul(x, t.params.w_k);
    t.v = matmul(x, t.params.w_v);
    t.concat = matrix(n, d);
    const float inv_sqrt_dk = 1.0f / std::sqrt(float(dk));
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();

    t.heads.resize(std::size_t(h));
    for (int hi = 0; hi < h; ++hi) {
        head_trace& ht = t.heads[std::size_t(hi)];
        ht.q = take_columns(t.q, hi * dk, dk);
        ht.k = take_columns(t.k, hi * dk, dk);
        ht.v = take_columns(t.v, hi * dk, dk);
        ht.scores = matrix(n, n);
        kernel_matmul_bt(ht.q.data.data(), ht.k.data.data(), ht.scores.data.data(), n, n, dk);
        ht.scaled = ht.scores;
        for (float& s : ht.scaled.data)
            s *= inv_sqrt_dk;
        ht.masked = ht.scaled;
        if (e.mask == mask_kind::causal)
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j)
                    ht.masked(i, j) = neg_inf;
        ht.weights = ht.masked;
        kernel_softmax_rows(ht.weights.data.data(), n, n, true);
        ht.out = matmul(ht.weights, ht.v);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < dk; ++c)
                t.concat(r, hi * dk + c) = ht.out(r, c);
    }
    t.output = matmul(t.concat, t.params.w_o);
    return t;
}

}  // namespace attn
