#include "model/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/measure.hpp"
#include "base/precision.hpp"
#include "base/random.hpp"
#include "base/threads.hpp"
#include "base/tokenize.hpp"
#include "kernels/kernels.hpp"
#include "model/rope.hpp"
#include "model/rules.hpp"

namespace attn {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

matrix random_matrix(std::uint64_t seed, const std::string& name, int rows, int cols, float scale) {
    rng g(hash_combine(seed, name));
    matrix m(rows, cols);
    for (float& x : m.data)
        x = g.normal() * scale;
    return m;
}

// Columns [c0, c0 + w) of m: the per-head view of a (n, d) matrix.
matrix take_columns(const matrix& m, int c0, int w) {
    matrix out(m.rows, w);
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < w; ++c)
            out(r, c) = m(r, c0 + c);
    return out;
}

// Every stored intermediate goes through here: it is rounded to the experiment's
// precision, as a half-precision kernel would store it.
struct stepper {
    precision prec;

    matrix& store(matrix& m) const {
        round_all(prec, m.data.data(), m.data.size());
        return m;
    }
    matrix matmul(const matrix& a, const matrix& b) const {
        matrix c(a.rows, b.cols);
        kernel_matmul(a.data.data(), b.data.data(), c.data.data(), a.rows, a.cols, b.cols);
        return std::move(store(c));
    }
    // RMS normalisation (rules.hpp), stored.
    matrix rmsnorm(const matrix& x) const {
        matrix out(x.rows, x.cols);
        rmsnorm_rows(x.data.data(), out.data.data(), nullptr, x.rows, x.cols);
        return std::move(store(out));
    }
    matrix add(const matrix& a, const matrix& b) const {
        matrix out = a;
        for (std::size_t i = 0; i < out.data.size(); ++i)
            out.data[i] += b.data[i];
        return std::move(store(out));
    }
};

// Whether row r[0, m) has no entry above −inf: a fully masked row. Its
// weights are all 0, or all NaN when any entry is NaN (NaN is never masked).
bool no_key_visible(float* r, int m) {
    float mx = neg_inf;
    for (int j = 0; j < m; ++j)
        mx = std::fmax(mx, r[j]);
    if (mx != neg_inf)
        return false;
    const bool any_nan = std::any_of(r, r + m, [](float v) { return std::isnan(v); });
    std::fill(r, r + m, any_nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
    return true;
}

// softmax (or argmax) of each row of `logits`, in the experiment's precision
// (the rules are stated in forward.hpp, "Numerics"). In fp32 the SIMD kernel
// does it; in fp16/bf16 each step is rounded as stored: x − max, exp(x − max)
// before the sum, every partial sum, and each quotient. So without
// max-subtraction exp(x > ~11.09) becomes inf in fp16, the sum inf, and
// inf/inf NaN — the article's bug.
void softmax_rows(matrix& w, softmax_mode mode, precision prec) {
    const int n = w.rows, m = w.cols;
    if (mode == softmax_mode::argmax) {
        for (int i = 0; i < n; ++i) {
            float* r = w.row(i);
            if (no_key_visible(r, m))
                continue;
            if (std::any_of(r, r + m, [](float v) { return std::isnan(v); })) {
                std::fill(r, r + m, std::numeric_limits<float>::quiet_NaN());
                continue;
            }
            int best = 0;  // the first of equal maxima
            for (int j = 1; j < m; ++j)
                if (r[j] > r[best])
                    best = j;
            for (int j = 0; j < m; ++j)
                r[j] = j == best ? 1.0f : 0.0f;
        }
        return;
    }
    const bool subtract_max = mode == softmax_mode::stable;
    if (prec == precision::fp32)
        kernel_softmax_rows(w.data.data(), n, m, subtract_max);
    else
        softmax_rows_rounded(w.data.data(), n, m, subtract_max, prec);
}

// Calls hide(i, j) for every key j the mask hides from query i in head `head`
// of layer `layer`: the experiment's mask (rules.hpp) cell by cell, then the
// masked edges of this head (one pass over the edge list, not one per cell). A
// cell may be named twice; hide must not mind.
template <class Hide>
void for_each_hidden(const experiment& e, int n, int layer, int head, Hide hide) {
    for (int i = 0; i < n; ++i)
        for (int j = mask_visible_keys(e, n, i); j < n; ++j)
            hide(i, j);
    for (const auto& edge : e.edges)
        if (edge.layer == layer && edge.head == head && edge.query < n && edge.key < n)
            hide(edge.query, edge.key);
}

void count_specials(const float* x, std::size_t n, trace& t) {
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(x[i]))
            ++t.nan_count;
        else if (std::isinf(x[i]))
            ++t.inf_count;
    }
}
void count_specials(const matrix& m, trace& t) { count_specials(m.data.data(), m.data.size(), t); }
void count_specials(const std::vector<float>& v, trace& t) { count_specials(v.data(), v.size(), t); }

// nan_count and inf_count over every matrix the trace stores once (forward.hpp).
void count_trace_specials(const experiment& e, trace& t) {
    count_specials(t.x0, t);
    const bool full = e.block == block_kind::full, rope = e.pos == positional::rope;
    for (const auto& lt : t.layers) {
        for (const matrix* m : {&lt.q, &lt.k, &lt.v, &lt.concat})
            count_specials(*m, t);
        if (rope) {
            count_specials(lt.q_rot, t);
            count_specials(lt.k_rot, t);
        }
        if (e.use_wo)
            count_specials(lt.attn_out, t);
        if (full)
            for (const matrix* m : {&lt.normed, &lt.residual, &lt.ffn_normed, &lt.ffn_hidden, &lt.ffn_out, &lt.output})
                count_specials(*m, t);
        else if (e.block == block_kind::attention_residual)
            count_specials(lt.residual, t);
        for (const auto& ht : lt.heads) {
            for (const matrix* m : {&ht.scores, &ht.scaled, &ht.weights, &ht.out})
                count_specials(*m, t);
            count_specials(ht.row_sums, t);
            count_specials(ht.row_entropies, t);
        }
    }
    count_specials(t.decode.out, t);
}

// Each head's d_k-wide slice of m(n, heads·d_k) rotated by RoPE in place: a
// (n, d_k) copy per head, then back.
void rope_heads(const experiment& e, matrix& m, int heads, int dk) {
    for (int c0 = 0; c0 < heads * dk; c0 += dk) {
        matrix s = take_columns(m, c0, dk);
        rope_rotate(s.data.data(), m.rows, dk, e.pos_offset, e.rope_base);
        for (int r = 0; r < m.rows; ++r)
            std::copy(s.row(r), s.row(r) + dk, m.row(r) + c0);
    }
}

// The weights of one head from its scores: scaled, masked (before softmax, or the
// bug: after it), divided by the temperature, softmax; each step stored.
void head_weights(const experiment& e, int layer, int hi, head_trace& ht, const stepper& st) {
    const int n = ht.scores.rows;
    const float scale = experiment_score_scale(e);
    ht.scaled = ht.scores;
    for (float& s : ht.scaled.data)
        s *= scale;
    st.store(ht.scaled);

    ht.masked = ht.scaled;
    const bool before = e.mask_at == mask_placement::before_softmax;
    if (before)
        for_each_hidden(e, n, layer, hi, [&](int i, int j) { ht.masked(i, j) = neg_inf; });
    ht.weights = ht.masked;
    if (e.temperature != 1.0f) {
        for (float& s : ht.weights.data)
            s /= e.temperature;
        st.store(ht.weights);
    }
    softmax_rows(ht.weights, e.softmax, e.prec);
    if (!before)  // the bug: hard zeros after normalising, rows no longer sum to 1
        for_each_hidden(e, n, layer, hi, [&](int i, int j) { ht.weights(i, j) = 0.0f; });
}

// Each row's sum and entropy of the weights.
void row_statistics(head_trace& ht) {
    const int n = ht.weights.rows;
    ht.row_sums.resize(std::size_t(n));
    ht.row_entropies.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < ht.weights.cols; ++j)
            s += ht.weights(i, j);
        ht.row_sums[std::size_t(i)] = float(s);
        ht.row_entropies[std::size_t(i)] = softmax_row_entropy(ht.weights.row(i), ht.weights.cols);
    }
}

// Rows of `out` (n, d_k; row r of it is row r0 + r of the pass) replaced by the
// patch's rows: all of them, or the patch's position alone; stored.
void patch_rows(matrix& out, const head_patch& p, int r0, const stepper& st) {
    for (int r = 0; r < out.rows; ++r)
        if (p.position < 0 || p.position == r0 + r)
            std::copy(p.rows->row(r0 + r), p.rows->row(r0 + r) + out.cols, out.row(r));
    st.store(out);
}

// Head hi of the layer: its slices of Q, K, V, scores, weights, output; the
// output goes into its columns of lt.concat.
head_trace run_head(const experiment& e, int layer, int hi, layer_trace& lt, const stepper& st, const trace_options& opt) {
    const int n = lt.q.rows, dk = experiment_d_k(e), group = e.heads / e.kv_heads;
    head_trace ht;
    ht.kv_group = hi / group;
    ht.q = take_columns(lt.q_rot, hi * dk, dk);
    ht.k = take_columns(lt.k_rot, ht.kv_group * dk, dk);
    ht.v = take_columns(lt.v, ht.kv_group * dk, dk);
    ht.scores = matrix(n, n);
    kernel_matmul_bt(ht.q.data.data(), ht.k.data.data(), ht.scores.data.data(), n, n, dk);
    st.store(ht.scores);
    head_weights(e, layer, hi, ht, st);
    row_statistics(ht);

    for (const auto& a : e.ablate)
        ht.ablated |= a.layer == layer && a.head == hi;
    ht.out = ht.ablated ? matrix(n, dk) : st.matmul(ht.weights, ht.v);
    if (opt.patch.active() && opt.patch.layer == layer && opt.patch.head == hi)
        patch_rows(ht.out, opt.patch, 0, st);
    if (opt.keep_head_matrices && !opt.keep_head_matrices(layer, hi))
        for (matrix* m : {&ht.scores, &ht.scaled, &ht.masked, &ht.weights})
            if (m != &ht.weights || !opt.keep_weights)
                *m = matrix{};  // moved in: the memory goes (a copy of an empty matrix would keep it)
    for (int r = 0; r < n; ++r)
        std::copy(ht.out.row(r), ht.out.row(r) + dk, lt.concat.row(r) + hi * dk);
    return ht;
}

// What follows attention: the residual, and with block=full the FFN
// relu(rmsnorm(r)·W_1)·W_2 added to it.
void run_block_tail(const experiment& e, const layer_weights& w, const matrix& x, const stepper& st, layer_trace& lt) {
    if (e.block == block_kind::full) {
        lt.residual = st.add(x, lt.attn_out);
        lt.ffn_normed = st.rmsnorm(lt.residual);
        lt.ffn_hidden = st.matmul(lt.ffn_normed, w.w_1);
        kernel_relu(lt.ffn_hidden.data.data(), int(lt.ffn_hidden.data.size()));
        lt.ffn_out = st.matmul(lt.ffn_hidden, w.w_2);
        lt.output = st.add(lt.residual, lt.ffn_out);
    } else if (e.block == block_kind::attention_residual) {
        lt.residual = st.add(x, lt.attn_out);
        lt.output = lt.residual;
    } else {
        lt.output = lt.attn_out;
    }
}

layer_trace run_layer(const experiment& e, int layer, const layer_weights& w, const matrix& x, const stepper& st,
                      const trace_options& opt) {
    const int dk = experiment_d_k(e);
    layer_trace lt;
    lt.input = x;
    lt.normed = e.block == block_kind::full ? st.rmsnorm(x) : x;
    lt.q = st.matmul(lt.normed, w.w_q);
    lt.k = st.matmul(lt.normed, w.w_k);
    lt.v = st.matmul(lt.normed, w.w_v);
    lt.q_rot = lt.q;
    lt.k_rot = lt.k;
    if (e.pos == positional::rope) {
        rope_heads(e, lt.q_rot, e.heads, dk);
        rope_heads(e, lt.k_rot, e.kv_heads, dk);
        st.store(lt.q_rot);
        st.store(lt.k_rot);
    }
    forward_heads(e, layer, lt, opt);
    lt.attn_out = e.use_wo ? st.matmul(lt.concat, w.w_o) : lt.concat;
    run_block_tail(e, w, x, st, lt);
    return lt;
}

decode_trace run_decode(const experiment& e, const layer_trace& lt) {
    const float scale = experiment_score_scale(e);
    decode_trace dt;
    dt.steps = e.decode;
    dt.cache = kv_cache(e.kv_heads, experiment_d_k(e));
    dt.out = matrix(e.decode, e.d_model);
    for (int t = 0; t < e.decode; ++t)
        dt.bytes_read.push_back(
            decode_step(dt.cache, lt.q_rot.row(t), lt.k_rot.row(t), lt.v.row(t), dt.out.row(t), e.heads, scale, e.prec));
    round_all(e.prec, dt.out.data.data(), dt.out.data.size());  // stored like every other intermediate
    return dt;
}

// The hand-made parts of weights = specialised / cancel / sink (see forward.hpp).
void construct(const experiment& e, model_weights& w) {
    if (e.weights == weight_init::random)
        return;
    const int n = w.embeddings.rows, d = e.d_model, dk = experiment_d_k(e);
    for (int i = 0; i < n; ++i)
        w.embeddings(i, 0) = 1.0f;
    for (layer_weights& lw : w.layers) {
        auto clear_rows = [](matrix& m, int r) { std::fill(m.row(r), m.row(r) + m.cols, 0.0f); };
        switch (e.weights) {
            case weight_init::specialised: {
                // Head 0: q = a·e₀ for every token, k = a·(cos 1, sin 1): pair 0 turns 1 rad per position.
                const float a = std::sqrt(12.0f * std::sqrt(float(dk)));
                for (int r = 0; r < d; ++r)
                    for (int c = 0; c < dk; ++c)
                        lw.w_q(r, c) = lw.w_k(r, c) = 0.0f;
                lw.w_q(0, 0) = a;
                lw.w_k(0, 0) = a * std::cos(1.0f);
                lw.w_k(0, 1) = a * std::sin(1.0f);
                // Head 1: W_k = W_q, scaled up, blind to the constant channel.
                for (int r = 0; r < d; ++r)
                    for (int c = dk; c < 2 * dk; ++c) {
                        lw.w_q(r, c) = r == 0 ? 0.0f : lw.w_q(r, c) * 3.0f;
                        if (c < lw.w_k.cols)
                            lw.w_k(r, c) = lw.w_q(r, c);
                    }
                break;
            }
            case weight_init::cancel:
                for (int r = 0; r < d; ++r)
                    for (int c = 0; c < dk; ++c) {
                        lw.w_q(r, c) *= 3.0f;
                        lw.w_q(r, dk + c) = lw.w_q(r, c);
                        lw.w_k(r, dk + c) = lw.w_k(r, c);
                        lw.w_v(r, dk + c) = -lw.w_v(r, c);
                    }
                for (int r = 0; r < dk; ++r)
                    for (int c = 0; c < d; ++c)
                        lw.w_o(dk + r, c) = lw.w_o(r, c);
                break;
            case weight_init::sink: {
                // Every query carries u (from the constant channel); only the first
                // token's key does (from its marker channel 1); its value is zero.
                clear_rows(lw.w_k, 1);
                for (int h = 0; h < e.heads; ++h)
                    for (int r = 0; r < d; ++r)
                        lw.w_q(r, h * dk) = r == 0 ? 1.0f : 0.0f;  // q₀ = 1 exactly
                // The marker (4 in channel 1) times 2.5·√d_k: a scaled score of 10 for the sink.
                for (int g = 0; g < e.kv_heads; ++g)
                    lw.w_k(1, g * dk) = 2.5f * std::sqrt(float(dk));
                clear_rows(lw.w_k, 0);
                clear_rows(lw.w_v, 0);
                clear_rows(lw.w_v, 1);
                break;
            }
            case weight_init::random:
                break;
        }
    }
    if (e.weights == weight_init::sink) {
        for (int c = 0; c < d; ++c)
            w.embeddings(0, c) = c == 0 ? 1.0f : c == 1 ? 4.0f : 0.0f;
        for (int i = 1; i < n; ++i)
            w.embeddings(i, 1) = 0.0f;
    }
}

}  // namespace

matrix positions_sinusoidal(int n, int d, int pos0) {
    matrix pe(n, d);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < d; ++c) {
            const double angle = double(pos0 + r) / std::pow(10000.0, double(c - c % 2) / double(d));
            pe(r, c) = float(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

model_weights model_generate(const experiment& e, const std::vector<std::string>& tokens) {
    const int n = int(tokens.size()), d = e.d_model, dk = experiment_d_k(e), kvw = e.kv_heads * dk, f = experiment_ffn_width(e);
    model_weights w;
    // Unit-variance embeddings; the same token text always gets the same row.
    w.embeddings = matrix(n, d);
    for (int i = 0; i < n; ++i) {
        rng g(hash_combine(e.seed, "embedding:" + tokens[std::size_t(i)]));
        for (int c = 0; c < d; ++c)
            w.embeddings(i, c) = g.normal();
    }
    // Projections scaled by 1/√fan_in keep every component near unit variance.
    const float s = weight_init_scale(d), sf = weight_init_scale(f);
    for (int l = 0; l < e.layers; ++l) {
        const std::string p = "layer" + std::to_string(l) + ".";
        layer_weights lw;
        lw.w_q = random_matrix(e.seed, p + "w_q", d, d, s);
        lw.w_k = random_matrix(e.seed, p + "w_k", d, kvw, s);
        lw.w_v = random_matrix(e.seed, p + "w_v", d, kvw, s);
        lw.w_o = random_matrix(e.seed, p + "w_o", d, d, s);
        if (e.block == block_kind::full) {
            lw.w_1 = random_matrix(e.seed, p + "w_1", d, f, s);
            lw.w_2 = random_matrix(e.seed, p + "w_2", f, d, sf);
        }
        w.layers.push_back(std::move(lw));
    }
    construct(e, w);
    model_apply_edits(w, e.edits);
    return w;
}

void model_apply_edits(model_weights& w, const std::vector<value_edit>& edits) {
    const int n = w.embeddings.rows;
    for (const auto& x : edits) {
        if (x.target == edit_target::x) {
            if (x.row < n)
                w.embeddings(x.row, x.col) = x.value;
            continue;
        }
        layer_weights& lw = w.layers[std::size_t(x.layer)];
        matrix* m = x.target == edit_target::w_q   ? &lw.w_q
                    : x.target == edit_target::w_k ? &lw.w_k
                    : x.target == edit_target::w_v ? &lw.w_v
                    : x.target == edit_target::w_o ? &lw.w_o
                    : x.target == edit_target::w_1 ? &lw.w_1
                                                   : &lw.w_2;
        (*m)(x.row, x.col) = x.value;
    }
}

trace forward_with(const experiment& e, const std::vector<std::string>& tokens, const model_weights& params,
                   const trace_options& opt) {
    trace t;
    t.tokens = tokens;
    t.params = params;
    const int n = int(tokens.size()), d = e.d_model;
    const stepper st{e.prec};
    t.positions = e.pos == positional::sinusoidal ? positions_sinusoidal(n, d, e.pos_offset) : matrix(n, d);
    t.x0 = st.add(t.params.embeddings, t.positions);
    const matrix* x = &t.x0;
    for (int l = 0; l < e.layers; ++l) {
        t.layers.push_back(run_layer(e, l, t.params.layers[std::size_t(l)], *x, st, opt));
        x = &t.layers.back().output;
    }
    t.output = *x;
    if (e.decode > 0)
        t.decode = run_decode(e, t.layers.front());

    count_trace_specials(e, t);
    return t;
}

matrix forward_patched_output(const experiment& e, const trace& t, const head_patch& p) {
    return forward_layers(e, t.params, p.layer + 1, e.layers, forward_patched_layer(e, t, p));
}

matrix forward_layers(const experiment& e, const model_weights& params, int first, int last, matrix x) {
    const stepper st{e.prec};
    const trace_options lean = trace_options::lean();
    for (int l = first; l < last; ++l)
        x = run_layer(e, l, params.layers[std::size_t(l)], x, st, lean).output;
    return x;
}

matrix forward_patched_layer(const experiment& e, const trace& t, const head_patch& p) {
    const stepper st{e.prec};
    const int dk = experiment_d_k(e), n = int(t.tokens.size());
    const layer_trace& at = t.layers[std::size_t(p.layer)];
    const layer_weights& w = t.params.layers[std::size_t(p.layer)];
    // The rows the patch reaches: all, or its position alone. Every step after
    // the heads (W_O, the residual, RMSNorm, the FFN) works row by row.
    const int r0 = p.position < 0 ? 0 : p.position, rows = p.position < 0 ? n : 1;
    layer_trace lt;
    lt.concat = matrix(rows, e.d_model);
    matrix input(rows, e.d_model);
    std::copy(at.concat.row(r0), at.concat.row(r0) + std::size_t(rows) * std::size_t(e.d_model), lt.concat.data.begin());
    std::copy(at.input.row(r0), at.input.row(r0) + std::size_t(rows) * std::size_t(e.d_model), input.data.begin());
    matrix out = take_columns(lt.concat, p.head * dk, dk);
    patch_rows(out, p, r0, st);
    for (int r = 0; r < rows; ++r)
        std::copy(out.row(r), out.row(r) + dk, lt.concat.row(r) + p.head * dk);
    lt.attn_out = e.use_wo ? st.matmul(lt.concat, w.w_o) : lt.concat;
    run_block_tail(e, w, input, st, lt);
    matrix x;
    if (p.position < 0) {
        x = std::move(lt.output);
    } else {  // the layer's output as t has it, but for the patched row
        x = at.output;
        std::copy(lt.output.data.begin(), lt.output.data.end(), x.row(p.position));
    }
    return x;
}

void forward_heads(const experiment& e, int layer, layer_trace& lt, const trace_options& opt) {
    const stepper st{e.prec};
    lt.concat = matrix(lt.q_rot.rows, e.d_model);
    lt.heads.assign(std::size_t(e.heads), head_trace{});
    const bool side_by_side = !opt.keep_head_matrices || lt.q_rot.rows <= heads_side_by_side_tokens;
    parallel_for(e.heads, side_by_side ? opt.threads : 1,
                 [&](int hi) { lt.heads[std::size_t(hi)] = run_head(e, layer, hi, lt, st, opt); });
}

trace forward(const experiment& e, const trace_options& opt) {
    const std::vector<std::string> tokens = tokenize(e.text);
    return forward_with(e, tokens, model_generate(e, tokens), opt);
}

std::size_t trace_bytes(const experiment& e, int n, bool lean) {
    const std::size_t nn = std::size_t(n), d = std::size_t(e.d_model), h = std::size_t(e.heads);
    const std::size_t dk = std::size_t(experiment_d_k(e)), kvw = std::size_t(e.kv_heads) * dk,
                      f = std::size_t(experiment_ffn_width(e)), L = std::size_t(e.layers);
    const bool full = e.block == block_kind::full;
    std::size_t floats = 4 * nn * d;                                           // embeddings, positions, x0, output
    std::size_t per_layer = 2 * d * d + 2 * d * kvw + (full ? 2 * d * f : 0);  // params
    per_layer += nn * d * 5 + nn * kvw * 3 + nn * d + nn * d;  // input, normed, q, q_rot, concat, attn_out, output; k, k_rot, v
    if (full)
        per_layer += nn * d * 3 + nn * f;  // residual, ffn_normed, ffn_out; ffn_hidden
    else if (e.block == block_kind::attention_residual)
        per_layer += nn * d;  // residual
    const std::size_t per_head = 4 * nn * dk + 2 * nn + (lean ? 0 : 4 * nn * nn);
    floats += L * (per_layer + h * per_head);
    const std::size_t dec = std::size_t(e.decode);
    floats += dec * d + 2 * dec * kvw;  // decode.out, the cache
    return floats * sizeof(float);
}

std::size_t experiment_peak_bytes(const experiment& e) {
    return experiment_validate(e).empty() ? experiment_peak_bytes(e, int(tokenize(e.text).size())) : 0;
}

std::size_t experiment_peak_bytes(const experiment& e, int n) {
    const bool baseline = !e.ablate.empty() || !e.edges.empty();
    return trace_bytes(e, n) + (baseline ? trace_bytes(e, n, true) : 0) + 4 * std::size_t(n) * std::size_t(n) * sizeof(float);
}

}  // namespace attn
