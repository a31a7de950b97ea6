// Training: the model's forward pass with its caches, each kernel beside its
// backward, AdamW, snapshots. Shapes as named in train.hpp.
//
// [SECTION] layout: parameters, activations, scratch (laid out once)
// [SECTION] forward and backward, kernel by kernel
// [SECTION] one row: forward, loss, backward
// [SECTION] steps, AdamW, snapshots, evaluation
// [SECTION] the trained model as an experiment's model_weights
#include "train/train.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/random.hpp"
#include "base/threads.hpp"
#include "kernels/kernels.hpp"
#include "kernels/train_kernels.hpp"
#include "model/rules.hpp"
#include "train/task.hpp"

namespace attn {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// --- [SECTION] layout ---------------------------------------------------------

using layer_slots = train_layer_slots;
using row_slots = train_row_slots;
using scratch_slots = train_scratch_slots;

row_slots row_layout(const train_run& r) {
    const std::size_t T = std::size_t(r.T), d = std::size_t(r.d), kv = std::size_t(r.g * r.dk);
    const bool full = r.e.block == block_kind::full;
    row_slots s;
    std::size_t at = 0;
    auto take = [&at](std::size_t n) {
        const std::size_t o = at;
        at += n;
        return o;
    };
    for (int l = 0; l < r.L; ++l) {
        layer_slots ls{};
        ls.in = take(T * d);
        ls.normed = full ? take(T * d) : ls.in;
        ls.inv1 = take(full ? T : 0);
        ls.qh = take(T * d);
        ls.kh = take(T * kv);
        ls.vh = take(T * kv);
        ls.att = take(std::size_t(r.h) * T * T);
        ls.concat = take(T * d);
        ls.attn_out = take(T * d);
        ls.r = take(full ? T * d : 0);
        ls.fnormed = take(full ? T * d : 0);
        ls.inv2 = take(full ? T : 0);
        ls.hid = take(full ? T * std::size_t(r.f) : 0);
        s.layers.push_back(ls);
    }
    s.out = take(T * d);
    s.logits = take(T * std::size_t(r.V));
    s.total = at;
    return s;
}

scratch_slots scratch_layout(const train_run& r) {
    const std::size_t T = std::size_t(r.T), d = std::size_t(r.d), kv = std::size_t(r.g * r.dk);
    scratch_slots s{};
    std::size_t at = 0;
    auto take = [&at](std::size_t n) {
        const std::size_t o = at;
        at += n;
        return o;
    };
    s.dx = take(T * d);
    s.dnormed = take(T * d);
    s.dtmp = take(T * d);
    s.dconcat = take(T * d);
    s.dhead = take(T * std::size_t(r.dk));
    s.datt = take(T * T);
    s.dscores = take(T * T);
    s.dq = take(T * d);
    s.dk = take(T * kv);
    s.dv = take(T * kv);
    s.dQ = take(T * d);
    s.dK = take(T * kv);
    s.dV = take(T * kv);
    s.dhid = take(T * std::size_t(std::max(r.f, 1)));
    s.dlogits = take(T * std::size_t(r.V));
    s.total = at;
    return s;
}

train_layout param_layout(const experiment& e, int V, int T) {
    const int d = e.d_model, kv = e.kv_heads * experiment_d_k(e), f = experiment_ffn_width(e);
    const bool full = e.block == block_kind::full;
    train_layout p;
    auto take = [&p](int rows, int cols) {
        train_tensor t{p.total, rows, cols};
        p.total += t.size();
        return t;
    };
    p.w_e = take(V, d);
    p.w_p = e.pos == positional::learned ? take(T, d) : train_tensor{};
    for (int l = 0; l < e.layers; ++l) {
        train_layer_tensors lt;
        lt.w_q = take(d, d);
        lt.w_k = take(d, kv);
        lt.w_v = take(d, kv);
        lt.w_o = e.use_wo ? take(d, d) : train_tensor{};
        lt.w_1 = full ? take(d, f) : train_tensor{};
        lt.w_2 = full ? take(f, d) : train_tensor{};
        p.layers.push_back(lt);
    }
    p.w_u = take(d, V);
    return p;
}

// The seeded draws of model_generate (forward.cpp), so that before training the
// model is the experiment's own random model: the same names, the same scales.
void fill_normal(float* x, std::size_t n, std::uint64_t seed, std::string_view name, float scale) {
    rng g(hash_combine(seed, name));
    for (std::size_t i = 0; i < n; ++i)
        x[i] = g.normal() * scale;
}

void init_params(train_run& r) {
    const experiment& e = r.e;
    float* p = r.params.data();
    const train_layout& lo = r.layout;
    for (int v = 0; v < r.V; ++v)
        fill_normal(p + lo.w_e.offset + std::size_t(v * r.d), std::size_t(r.d), e.seed, "embedding:" + task_symbol(v), 1.0f);
    if (lo.w_p.size())
        fill_normal(p + lo.w_p.offset, lo.w_p.size(), e.seed, "train.w_p", 0.1f);
    const float s = weight_init_scale(r.d), sf = weight_init_scale(r.f);
    for (int l = 0; l < r.L; ++l) {
        const std::string pre = "layer" + std::to_string(l) + ".";
        const train_layer_tensors& t = lo.layers[std::size_t(l)];
        fill_normal(p + t.w_q.offset, t.w_q.size(), e.seed, pre + "w_q", s);
        fill_normal(p + t.w_k.offset, t.w_k.size(), e.seed, pre + "w_k", s);
        fill_normal(p + t.w_v.offset, t.w_v.size(), e.seed, pre + "w_v", s);
        if (t.w_o.size())
            fill_normal(p + t.w_o.offset, t.w_o.size(), e.seed, pre + "w_o", s);
        if (t.w_1.size()) {
            fill_normal(p + t.w_1.offset, t.w_1.size(), e.seed, pre + "w_1", s);
            fill_normal(p + t.w_2.offset, t.w_2.size(), e.seed, pre + "w_2", sf);
        }
    }
    fill_normal(p + lo.w_u.offset, lo.w_u.size(), e.seed, "train.w_u", s);
}

// The mask (model/rules.hpp: mask_visible_keys) as a table, RoPE angles (as rope.cpp computes them) and sinusoidal positions,
// once.
void init_tables(train_run& r) {
    const experiment& e = r.e;
    const int T = r.T, half = r.dk / 2;
    r.hidden.assign(std::size_t(T * T), 0);
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
            r.hidden[std::size_t(i * T + j)] = j >= mask_visible_keys(e, T, i) ? 1 : 0;
    // Per lane (rope_cos_row): each head's columns hold cos, cos and −sin, +sin for each pair.
    r.rope_cos.assign(std::size_t(T * r.d), 0.0f);
    r.rope_sin.assign(r.rope_cos.size(), 0.0f);
    for (int t = 0; t < T; ++t)
        for (int p = 0; p < half; ++p) {
            const double theta = std::pow(double(e.rope_base), -2.0 * double(p) / double(r.dk));
            const double angle = double(e.pos_offset + t) * theta;
            const float cs = float(std::cos(angle)), sn = float(std::sin(angle));
            for (int i = 0; i < r.h; ++i) {
                const std::size_t at = std::size_t(t * r.d + i * r.dk + 2 * p);
                r.rope_cos[at] = r.rope_cos[at + 1] = cs;
                r.rope_sin[at] = -sn;
                r.rope_sin[at + 1] = sn;
            }
        }
    r.positions.assign(std::size_t(T * r.d), 0.0f);
    if (e.pos == positional::sinusoidal) {
        const matrix pe = positions_sinusoidal(T, r.d, e.pos_offset);
        std::copy(pe.data.begin(), pe.data.end(), r.positions.begin());
    }
}

// --- [SECTION] forward and backward, kernel by kernel ----------------------------

// The backward of rmsnorm_rows (model/rules.hpp), with its inv(T):
// dx(T, d) += inv·dy − inv³·x·(x·dy)/d
void rmsnorm_backward(const float* x, const float* inv, const float* dy, float* dx, int T, int d) {
    for (int t = 0; t < T; ++t) {
        double dot = 0;
        for (int c = 0; c < d; ++c)
            dot += double(x[t * d + c]) * double(dy[t * d + c]);
        const float k = float(double(inv[t]) * double(inv[t]) * double(inv[t]) * dot / double(d));
        for (int c = 0; c < d; ++c)
            dx[t * d + c] += inv[t] * dy[t * d + c] - k * x[t * d + c];
    }
}

// RoPE's tables per lane (init_tables): row t holds, for each head's columns, cos,
// cos and −sin, +sin for each pair, at the angle of position pos_offset + t (as
// rope.cpp); a row of Q or K (d or g·d_k wide) reads the first columns of its row.
const float* rope_cos_row(const train_run& r, int t) { return r.rope_cos.data() + std::size_t(t * r.d); }
const float* rope_sin_row(const train_run& r, int t) { return r.rope_sin.data() + std::size_t(t * r.d); }

// x(T, width) rotated in place, every head's pairs at once; d_k even (else a pair
// would straddle two heads: split_heads_forward rotates those).
void rope_rows(const train_run& r, float* x, int width) {
    for (int t = 0; t < r.T; ++t)
        kernel_rope_pairs(x + t * width, rope_cos_row(r, t), rope_sin_row(r, t), x + t * width, width);
}

// Columns [i·d_k, (i + 1)·d_k) of x(T, width) → head i's y + i·T·d_k (T, d_k), for
// `heads` heads; rotated here when `rope` (an odd d_k: its last column stays).
void split_heads_forward(const train_run& r, const float* x, int width, int heads, float* y, bool rope) {
    const int T = r.T, dk = r.dk, pairs = 2 * (dk / 2);
    for (int t = 0; t < T; ++t) {
        const float* cs = rope_cos_row(r, t);
        const float* sn = rope_sin_row(r, t);
        for (int i = 0; i < heads; ++i) {
            const float* src = x + t * width + i * dk;
            float* dst = y + std::size_t((i * T + t) * dk);
            int q = 0;
            if (rope)
                for (; q < pairs; ++q)
                    dst[q] = src[q] * cs[i * dk + q] + src[q ^ 1] * sn[i * dk + q];
            for (; q < dk; ++q)
                dst[q] = src[q];
        }
    }
}
// The transpose: each head's dy (T, d_k) turned back (Rᵀ = R(−angle)) when `rope`
// and added into its columns of dx(T, width). With an even d_k the heads are
// gathered into tmp(T, width) first and turned back a whole row at a time.
void split_heads_backward(const train_run& r, const float* dy, float* dx, int width, int heads, bool rope, float* tmp) {
    const int T = r.T, dk = r.dk, pairs = 2 * (dk / 2);
    if (rope && dk % 2 == 0) {
        for (int t = 0; t < T; ++t)
            for (int i = 0; i < heads; ++i)
                std::memcpy(tmp + t * width + i * dk, dy + std::size_t((i * T + t) * dk), sizeof(float) * std::size_t(dk));
        for (int t = 0; t < T; ++t)
            kernel_rope_pairs_backward(tmp + t * width, rope_cos_row(r, t), rope_sin_row(r, t), dx + t * width, width);
        return;
    }
    for (int t = 0; t < T; ++t) {
        const float* cs = rope_cos_row(r, t);
        const float* sn = rope_sin_row(r, t);
        for (int i = 0; i < heads; ++i) {
            const float* src = dy + std::size_t((i * T + t) * dk);
            float* dst = dx + t * width + i * dk;
            int q = 0;
            if (rope)
                for (; q < pairs; ++q)
                    dst[q] += src[q] * cs[i * dk + q] - src[q ^ 1] * sn[i * dk + q];
            for (; q < dk; ++q)
                dst[q] += src[q];
        }
    }
}

// out(T, w.rows) = dy(T, w.cols) · Wᵀ, W the (rows, cols) weight w. Where the
// kernels would transpose W for this shape anyway (for every row of the batch),
// the product reads the copy transposed once for the batch: the same sums.
void weights_bt(const train_run& r, const float* dy, const train_tensor& w, float* out) {
    if (kernel_matmul_bt_transposes(r.T, w.cols))
        kernel_matmul(dy, r.params_t.data() + w.offset, out, r.T, w.cols, w.rows);
    else
        kernel_matmul_bt(dy, r.params.data() + w.offset, out, r.T, w.rows, w.cols);
}

// W(rows, cols) → Wᵀ(cols, rows) at the same offset of params_t, for each weight
// weights_bt reads transposed.
void transpose_weights(train_run& r) {
    auto transpose = [&r](const train_tensor& w) {
        if (!w.size() || !kernel_matmul_bt_transposes(r.T, w.cols))
            return;
        const float* src = r.params.data() + w.offset;
        float* dst = r.params_t.data() + w.offset;
        for (int i = 0; i < w.rows; ++i)
            for (int j = 0; j < w.cols; ++j)
                dst[std::size_t(j) * std::size_t(w.rows) + std::size_t(i)] =
                    src[std::size_t(i) * std::size_t(w.cols) + std::size_t(j)];
    };
    for (const train_layer_tensors& t : r.layout.layers)
        for (const train_tensor* w : {&t.w_q, &t.w_k, &t.w_v, &t.w_o, &t.w_1, &t.w_2})
            transpose(*w);
    transpose(r.layout.w_u);
}

// att(T, T) = softmax(mask(q(T, d_k)·k(T, d_k)ᵀ · scale) / temp), as forward.cpp rounds it.
void attention_weights_forward(const train_run& r, const float* q, const float* k, float* att) {
    const int T = r.T;
    const float scale = experiment_score_scale(r.e), temp = r.e.temperature;
    kernel_matmul_bt(q, k, att, T, T, r.dk);
    // The mask as bits, not a branch: under the causal mask half the entries are
    // hidden, in a pattern no branch predictor follows (it cost ~8 % of a step).
    std::uint32_t hidden_bits;
    std::memcpy(&hidden_bits, &neg_inf, sizeof hidden_bits);
    for (int i = 0; i < T * T; ++i) {
        float v = att[i] * scale;
        if (temp != 1.0f)
            v /= temp;
        const std::uint32_t keep = 0u - std::uint32_t(r.hidden[std::size_t(i)] == 0);  // all ones where seen
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        bits = (bits & keep) | (hidden_bits & ~keep);
        std::memcpy(att + i, &bits, sizeof bits);
    }
    kernel_softmax_rows(att, T, T, true);
}
// datt(T, T) → dq(T, d_k) = ds·k, dk(T, d_k) += dsᵀ·q, with ds = softmax'(datt)·scale/temp.
void attention_weights_backward(const train_run& r, const float* q, const float* k, const float* att, const float* datt,
                                float* ds, float* dq, float* dk) {
    const int T = r.T;
    const float scale = experiment_score_scale(r.e), temp = r.e.temperature;
    kernel_softmax_rows_backward(att, datt, ds, T, T);
    for (int i = 0; i < T * T; ++i)
        ds[i] = temp != 1.0f ? ds[i] / temp * scale : ds[i] * scale;
    kernel_matmul(ds, k, dq, T, T, r.dk);
    kernel_matmul_at_acc(ds, q, dk, T, T, r.dk, true);
}

// --- [SECTION] one row: forward, loss, backward -----------------------------------

struct row_ctx {
    train_run& r;
    const row_slots& rs;
    const scratch_slots& ss;
    float* a;  // this row's activations
    float* s;  // scratch
    const float* p;
    float* gr;
};

// One attention layer on x(T, d) (already normed for block = full) → attn_out(T, d).
void attention_forward(row_ctx& c, int l, const head_override* ov) {
    train_run& r = c.r;
    const layer_slots& ls = c.rs.layers[std::size_t(l)];
    const train_layer_tensors& w = r.layout.layers[std::size_t(l)];
    const int T = r.T, d = r.d, dk = r.dk, kv = r.g * dk, group = r.h / r.g;
    const bool rope = r.e.pos == positional::rope;
    float *Q = c.s + c.ss.dQ, *K = c.s + c.ss.dK, *Vm = c.s + c.ss.dV;  // scratch, free during the forward
    kernel_matmul(c.a + ls.normed, c.p + w.w_q.offset, Q, T, d, d);
    kernel_matmul(c.a + ls.normed, c.p + w.w_k.offset, K, T, d, kv);
    kernel_matmul(c.a + ls.normed, c.p + w.w_v.offset, Vm, T, d, kv);
    const bool whole_rows = rope && dk % 2 == 0;  // rotated a row at a time, before the split
    if (whole_rows) {
        rope_rows(r, Q, d);
        rope_rows(r, K, kv);
    }
    split_heads_forward(r, Q, d, r.h, c.a + ls.qh, rope && !whole_rows);
    split_heads_forward(r, K, kv, r.g, c.a + ls.kh, rope && !whole_rows);
    split_heads_forward(r, Vm, kv, r.g, c.a + ls.vh, false);
    float* concat = c.a + ls.concat;
    float* out = c.s + c.ss.dhead;
    for (int i = 0; i < r.h; ++i) {
        const int j = i / group;
        float* att = c.a + ls.att + std::size_t(i * T * T);
        attention_weights_forward(r, c.a + ls.qh + std::size_t(i * T * dk), c.a + ls.kh + std::size_t(j * T * dk), att);
        kernel_matmul(att, c.a + ls.vh + std::size_t(j * T * dk), out, T, T, dk);
        const head_override* o = ov;
        while (o && !(o->layer == l && o->head == i))
            o = o->next;
        for (int t = 0; t < T; ++t)
            for (int q = 0; q < dk; ++q)
                concat[t * d + i * dk + q] = !o ? out[t * dk + q] : o->value ? o->value[q] : 0.0f;
    }
    if (r.e.use_wo)
        kernel_matmul(concat, c.p + w.w_o.offset, c.a + ls.attn_out, T, d, d);
    else
        std::memcpy(c.a + ls.attn_out, concat, sizeof(float) * std::size_t(T * d));
}

// dattn_out(T, d) (in scratch dtmp) → parameter gradients and dnormed(T, d) (overwritten).
void attention_backward(row_ctx& c, int l) {
    train_run& r = c.r;
    const layer_slots& ls = c.rs.layers[std::size_t(l)];
    const train_layer_tensors& w = r.layout.layers[std::size_t(l)];
    const int T = r.T, d = r.d, dk = r.dk, kv = r.g * dk, group = r.h / r.g;
    const bool rope = r.e.pos == positional::rope;
    const float* dout = c.s + c.ss.dtmp;
    float* dconcat = c.s + c.ss.dconcat;
    if (r.e.use_wo) {
        kernel_matmul_at_acc(c.a + ls.concat, dout, c.gr + w.w_o.offset, T, d, d);
        weights_bt(r, dout, w.w_o, dconcat);
    } else {
        std::memcpy(dconcat, dout, sizeof(float) * std::size_t(T * d));
    }
    float *dq = c.s + c.ss.dq, *dkh = c.s + c.ss.dk, *dvh = c.s + c.ss.dv;
    std::fill(dkh, dkh + T * kv, 0.0f);
    std::fill(dvh, dvh + T * kv, 0.0f);
    float* dhead = c.s + c.ss.dhead;
    for (int i = 0; i < r.h; ++i) {
        const int j = i / group;
        const float* att = c.a + ls.att + std::size_t(i * T * T);
        for (int t = 0; t < T; ++t)
            std::memcpy(dhead + t * dk, dconcat + t * d + i * dk, sizeof(float) * std::size_t(dk));
        float* datt = c.s + c.ss.datt;
        kernel_matmul_bt(dhead, c.a + ls.vh + std::size_t(j * T * dk), datt, T, T, dk);   // dweights = dout·Vᵀ
        kernel_matmul_at_acc(att, dhead, dvh + std::size_t(j * T * dk), T, T, dk, true);  // dV += weightsᵀ·dout
        attention_weights_backward(r, c.a + ls.qh + std::size_t(i * T * dk), c.a + ls.kh + std::size_t(j * T * dk), att, datt,
                                   c.s + c.ss.dscores, dq + std::size_t(i * T * dk), dkh + std::size_t(j * T * dk));
    }
    float *dQ = c.s + c.ss.dQ, *dK = c.s + c.ss.dK, *dV = c.s + c.ss.dV;
    std::fill(dQ, dQ + T * d, 0.0f);
    std::fill(dK, dK + T * kv, 0.0f);
    std::fill(dV, dV + T * kv, 0.0f);
    float* gathered = c.s + c.ss.dtmp;  // dout is read no more
    split_heads_backward(r, dq, dQ, d, r.h, rope, gathered);
    split_heads_backward(r, dkh, dK, kv, r.g, rope, gathered);
    split_heads_backward(r, dvh, dV, kv, r.g, false, gathered);
    const float* x = c.a + ls.normed;
    kernel_matmul_at_acc(x, dQ, c.gr + w.w_q.offset, T, d, d);
    kernel_matmul_at_acc(x, dK, c.gr + w.w_k.offset, T, d, kv);
    kernel_matmul_at_acc(x, dV, c.gr + w.w_v.offset, T, d, kv);
    float *dn = c.s + c.ss.dnormed, *tmp = c.s + c.ss.dtmp;
    weights_bt(r, dQ, w.w_q, dn);
    weights_bt(r, dK, w.w_k, tmp);
    for (int i = 0; i < T * d; ++i)
        dn[i] += tmp[i];
    weights_bt(r, dV, w.w_v, tmp);
    for (int i = 0; i < T * d; ++i)
        dn[i] += tmp[i];
}

// x0(T, d) = W_e[token] + positions.
void row_embed(row_ctx& c, const int* tokens) {
    train_run& r = c.r;
    const int T = r.T, d = r.d;
    float* x0 = c.a + c.rs.layers[0].in;
    for (int t = 0; t < T; ++t)
        for (int q = 0; q < d; ++q) {
            const float pos =
                r.layout.w_p.size() ? c.p[r.layout.w_p.offset + std::size_t(t * d + q)] : r.positions[std::size_t(t * d + q)];
            x0[t * d + q] = c.p[r.layout.w_e.offset + std::size_t(tokens[t] * d + q)] + pos;
        }
}

// Layer l: in(T, d) → the next layer's in (or the output).
void layer_forward(row_ctx& c, int l, const head_override* ov) {
    train_run& r = c.r;
    const int T = r.T, d = r.d;
    const bool full = r.e.block == block_kind::full;
    const layer_slots& ls = c.rs.layers[std::size_t(l)];
    const train_layer_tensors& w = r.layout.layers[std::size_t(l)];
    float* next = l + 1 < r.L ? c.a + c.rs.layers[std::size_t(l + 1)].in : c.a + c.rs.out;
    if (full)
        rmsnorm_rows(c.a + ls.in, c.a + ls.normed, c.a + ls.inv1, T, d);
    attention_forward(c, l, ov);
    if (r.e.block == block_kind::attention_residual) {
        for (int i = 0; i < T * d; ++i)
            next[i] = c.a[ls.in + std::size_t(i)] + c.a[ls.attn_out + std::size_t(i)];
        return;
    }
    if (!full) {
        std::memcpy(next, c.a + ls.attn_out, sizeof(float) * std::size_t(T * d));
        return;
    }
    float* res = c.a + ls.r;
    for (int i = 0; i < T * d; ++i)
        res[i] = c.a[ls.in + std::size_t(i)] + c.a[ls.attn_out + std::size_t(i)];
    rmsnorm_rows(res, c.a + ls.fnormed, c.a + ls.inv2, T, d);
    float* hid = c.a + ls.hid;
    kernel_matmul(c.a + ls.fnormed, c.p + w.w_1.offset, hid, T, d, r.f);
    kernel_relu(hid, T * r.f);
    kernel_matmul(hid, c.p + w.w_2.offset, next, T, r.f, d);
    for (int i = 0; i < T * d; ++i)
        next[i] += res[i];
}

void row_logits(row_ctx& c) {
    train_run& r = c.r;
    kernel_matmul(c.a + c.rs.out, c.p + r.layout.w_u.offset, c.a + c.rs.logits, r.T, r.d, r.V);
}

// x0; the layers; logits(T, V) = output·W_u.
void row_forward(row_ctx& c, const int* tokens, const head_override* ov) {
    row_embed(c, tokens);
    for (int l = 0; l < c.r.L; ++l)
        layer_forward(c, l, ov);
    row_logits(c);
}

// Cross-entropy over the counted positions; dlogits = (softmax − onehot)·weight when
// weight > 0. Adds to loss (sum of −log p) and correct (argmax hits); returns the count.
// `correct` counts the predictions that hit their target; a prediction over logits
// with a NaN has no argmax, so it adds NaN: the accuracy of a NaN model is NaN,
// not the share of targets that happen to be token 0.
int row_loss(row_ctx& c, const int* targets, const unsigned char* counted, float weight, double& loss, double& correct) {
    const int T = c.r.T, V = c.r.V;
    const float* logits = c.a + c.rs.logits;
    float* dl = c.s + c.ss.dlogits;
    int count = 0;
    for (int t = 0; t < T; ++t) {
        const float* z = logits + t * V;
        float* g = dl + t * V;
        if (!counted[t]) {
            std::fill(g, g + V, 0.0f);
            continue;
        }
        ++count;
        int best = 0;
        bool nan = std::isnan(z[0]);
        for (int v = 1; v < V; ++v) {
            best = z[v] > z[best] ? v : best;
            nan = nan || std::isnan(z[v]);
        }
        correct += nan ? std::numeric_limits<double>::quiet_NaN() : best == targets[t] ? 1.0 : 0.0;
        double e[train_limits::max_vocab];  // each exp once (V ≤ max_vocab: recipe_validate)
        double sum = 0;
        for (int v = 0; v < V; ++v) {
            e[v] = std::exp(double(z[v]) - double(z[best]));
            sum += e[v];
        }
        loss += std::log(sum) + double(z[best]) - double(z[targets[t]]);
        for (int v = 0; v < V; ++v)
            g[v] = float(e[v] / sum) * weight;
        g[targets[t]] -= weight;
    }
    return count;
}

// dlogits (in scratch) → W_u's gradient and dx(T, d), d(the output), in scratch.
void row_backward_logits(row_ctx& c) {
    train_run& r = c.r;
    const float* dl = c.s + c.ss.dlogits;
    kernel_matmul_at_acc(c.a + c.rs.out, dl, c.gr + r.layout.w_u.offset, r.T, r.d, r.V);
    weights_bt(r, dl, r.layout.w_u, c.s + c.ss.dx);
}

// dx = d(layer l's output) → layer l's gradients, and dx = d(its input). The
// residual stream's gradient walks down in scratch from layer to layer.
void layer_backward(row_ctx& c, int l) {
    train_run& r = c.r;
    const int T = r.T, d = r.d;
    const bool full = r.e.block == block_kind::full;
    float* dx = c.s + c.ss.dx;
    const layer_slots& ls = c.rs.layers[std::size_t(l)];
    const train_layer_tensors& w = r.layout.layers[std::size_t(l)];
    float* dtmp = c.s + c.ss.dtmp;
    if (full) {  // output = res + relu(rmsnorm(res)·W_1)·W_2, res = in + attn_out
        float* dhid = c.s + c.ss.dhid;
        kernel_matmul_at_acc(c.a + ls.hid, dx, c.gr + w.w_2.offset, T, r.f, d);
        weights_bt(r, dx, w.w_2, dhid);
        kernel_relu_backward(c.a + ls.hid, dhid, T * r.f);
        kernel_matmul_at_acc(c.a + ls.fnormed, dhid, c.gr + w.w_1.offset, T, d, r.f);
        float* dn = c.s + c.ss.dnormed;
        weights_bt(r, dhid, w.w_1, dn);
        rmsnorm_backward(c.a + ls.r, c.a + ls.inv2, dn, dx, T, d);  // dx is now d(res)
    }
    std::memcpy(dtmp, dx, sizeof(float) * std::size_t(T * d));
    attention_backward(c, l);
    const float* dn = c.s + c.ss.dnormed;
    if (full) {
        rmsnorm_backward(c.a + ls.in, c.a + ls.inv1, dn, dx, T, d);  // dx: d(res) + through the norm
    } else if (r.e.block == block_kind::attention_residual) {
        for (int i = 0; i < T * d; ++i)  // out = in + attention(in)
            dx[i] += dn[i];
    } else {
        std::memcpy(dx, dn, sizeof(float) * std::size_t(T * d));
    }
}

// dx = d(x0) → the embedding (and learned position) gradients.
void row_backward_embed(row_ctx& c, const int* tokens) {
    train_run& r = c.r;
    const int T = r.T, d = r.d;
    const float* dx = c.s + c.ss.dx;
    for (int t = 0; t < T; ++t)
        for (int q = 0; q < d; ++q) {
            c.gr[r.layout.w_e.offset + std::size_t(tokens[t] * d + q)] += dx[t * d + q];
            if (r.layout.w_p.size())
                c.gr[r.layout.w_p.offset + std::size_t(t * d + q)] += dx[t * d + q];
        }
}

// --- [SECTION] steps, AdamW, snapshots, evaluation ------------------------------

// Group k's first row; group k holds rows [group_begin(k), group_begin(k + 1)).
int group_begin(const train_run& r, int k) { return k * r.B / r.groups; }

int group_of(const train_run& r, int b) {
    int k = 0;
    while (group_begin(r, k + 1) <= b)
        ++k;
    return k;
}

// Row b's activations; its group's scratch and gradient buffer.
row_ctx context(train_run& r, int b) {
    const int k = group_of(r, b);
    return row_ctx{r,
                   r.slots,
                   r.scratch_slots,
                   r.acts.data() + std::size_t(b) * r.slots.total,
                   r.scratch.data() + std::size_t(k) * r.scratch_slots.total,
                   r.params.data(),
                   k == 0 ? r.grads.data() : r.group_grads.data() + std::size_t(k - 1) * r.layout.total};
}

float learning_rate(const train_settings& t, int step) {
    double f = t.warmup > 0 && step < t.warmup ? double(step + 1) / double(t.warmup) : 1.0;
    if (t.sched == lr_schedule::cosine && step >= t.warmup) {
        const double progress = double(step - t.warmup) / double(std::max(1, t.steps - t.warmup));
        f *= 0.5 * (1.0 + std::cos(3.14159265358979323846 * std::min(1.0, progress)));
    }
    return float(double(t.lr) * f);
}

void copy_into(const train_run& r, train_snapshot& s) {
    s.step = r.step;
    std::copy(r.params.begin(), r.params.end(), s.params.begin());
    std::copy(r.adam_m.begin(), r.adam_m.end(), s.adam_m.begin());
    std::copy(r.adam_v.begin(), r.adam_v.end(), s.adam_v.begin());
}

// The grid's snapshot at r.step, the first time the run reaches it (a kept one
// again would be the same bits).
void take_snapshot(train_run& r) {
    if (r.snapshots_taken >= int(r.snapshots.size()))
        return;
    if (r.snapshots_taken > 0 && r.snapshots[std::size_t(r.snapshots_taken - 1)].step >= r.step)
        return;
    copy_into(r, r.snapshots[std::size_t(r.snapshots_taken++)]);
}

// At a step first reached (r.step == r.reach): the smoothed loss, and a dense
// snapshot there when it moved far enough since the kept one before (train.hpp).
void follow_reach(train_run& r, float loss, bool on_grid) {
    const int span = train_dense_span(r.snapshot_every);
    r.fast_loss = train_loss_ema_next(r.fast_loss, loss, span, r.reach == 1);
    if (r.reach == 1)
        r.fast_loss_kept = r.fast_loss;
    if (on_grid) {
        r.fast_loss_kept = r.fast_loss;
        return;
    }
    if (r.dense_taken >= int(r.dense.size()) || !(std::fabs(std::log(r.fast_loss / r.fast_loss_kept)) >= train_dense_change))
        return;
    copy_into(r, r.dense[std::size_t(r.dense_taken++)]);
    r.fast_loss_kept = r.fast_loss;
}

void fill_batch(train_run& r) {
    rng g = task_batch_stream(r.e.train.train_seed, r.step);
    for (int b = 0; b < r.B; ++b) {
        const std::size_t o = std::size_t(b * r.T);
        task_row(r.e.train, g, r.tokens.data() + o, r.targets.data() + o, r.counted.data() + o);
    }
}

int group_count(const experiment& e) { return std::min(e.train.batch, train_groups); }

std::size_t run_bytes(const experiment& e, std::size_t params, std::size_t row, std::size_t scratch, int snapshots) {
    const std::size_t T = std::size_t(e.train.seq), G = std::size_t(group_count(e));
    return sizeof(float) *
               ((4 + G) * params + std::size_t(e.train.batch) * row + G * scratch + 3 * params * std::size_t(snapshots)) +
           (sizeof(int) * 2 + 1) * T * std::size_t(e.train.batch + train_eval_rows) + T * T;
}

// --- [SECTION] a step in pieces ------------------------------------------------
//
// A step is: begin (the batch, zeroed gradients, transposed weights), then for
// each group's rows b in order: layer 0..L-1 forward, logits + loss + W_u's
// backward, layer L-1..0 backward (the last with the embedding gradients); then
// the groups' gradients and sums are added in group order, then the update.
// Each row's backward adds into its group's gradients, and what one piece leaves
// for the next of its group (the row's activations, dx in the group's scratch,
// the group's sums in r.cursor) is touched by nothing else, so cutting a step
// between pieces, or running the groups on several threads, gives the same bits
// as a step at once on one.

void step_begin(train_run& r) {
    fill_batch(r);
    transpose_weights(r);  // each group zeroes its gradients in its first piece, on its thread
    train_cursor& k = r.cursor;
    k = train_cursor{};
    for (unsigned char c : r.counted)
        k.total += c;
    k.weight = 1.0f / float(std::max(k.total, 1));
    k.phase = train_cursor::rows;
    for (int g = 0; g < r.groups; ++g) {
        k.group[g].row = group_begin(r, g);
        k.group[g].phase = k.group[g].row < group_begin(r, g + 1) ? train_group_cursor::forward : train_group_cursor::done;
    }
}

// One layer (or the logits) of group g's next row, forward or backward.
void step_group_piece(train_run& r, int g) {
    train_group_cursor& k = r.cursor.group[g];
    row_ctx c = context(r, k.row);
    const std::size_t o = std::size_t(k.row * r.T);
    if (k.phase == train_group_cursor::forward) {
        if (k.layer == 0 && k.row == group_begin(r, g))
            std::fill(c.gr, c.gr + r.layout.total, 0.0f);
        if (k.layer == 0)
            row_embed(c, r.tokens.data() + o);
        layer_forward(c, k.layer, nullptr);
        if (++k.layer == r.L)
            k.phase = train_group_cursor::logits;
        return;
    }
    if (k.phase == train_group_cursor::logits) {
        row_logits(c);
        row_loss(c, r.targets.data() + o, r.counted.data() + o, r.cursor.weight, k.loss, k.correct);
        row_backward_logits(c);
        k.phase = train_group_cursor::backward;
        k.layer = r.L - 1;
        return;
    }
    layer_backward(c, k.layer);
    if (k.layer > 0) {
        --k.layer;
        return;
    }
    row_backward_embed(c, r.tokens.data() + o);
    ++k.row;
    k.layer = 0;
    k.phase = k.row < group_begin(r, g + 1) ? train_group_cursor::forward : train_group_cursor::done;
}

// Items of parallel_for over n floats: chunks of this many.
constexpr int chunk_floats = 1 << 16;  // a smaller model is one chunk, on the caller
int chunks(std::size_t n) { return int((n + chunk_floats - 1) / chunk_floats); }

// The groups done: their gradients added into group 0's (r.grads) and their sums
// into the cursor's, in group order; each chunk's sum of squared gradients (in
// order) into r.chunk_squares, for the norm.
void step_reduce(train_run& r) {
    const std::size_t n = r.layout.total;
    parallel_for(chunks(n), r.threads, [&r, n](int c) {
        const std::size_t lo = std::size_t(c) * chunk_floats, hi = std::min(n, lo + chunk_floats);
        for (int g = 1; g < r.groups; ++g) {
            const float* src = r.group_grads.data() + std::size_t(g - 1) * n;
            for (std::size_t i = lo; i < hi; ++i)
                r.grads[i] += src[i];
        }
        double ss = 0;
        for (std::size_t i = lo; i < hi; ++i)
            ss += double(r.grads[i]) * double(r.grads[i]);
        r.chunk_squares[std::size_t(c)] = ss;
    });
    train_cursor& k = r.cursor;
    for (int g = 0; g < r.groups; ++g) {
        k.loss += k.group[g].loss;
        k.correct += k.group[g].correct;
    }
    k.phase = train_cursor::update;
}

bool group_done(const train_run& r, int g) { return r.cursor.group[g].phase == train_group_cursor::done; }

// The first `at_once` unfinished groups side by side across the threads, each
// up to `pieces` pieces; the groups' sums once every group is done.
void step_groups(train_run& r, int at_once, int pieces) {
    int chosen[train_groups], n = 0;
    for (int g = 0; g < r.groups && n < at_once; ++g)
        if (!group_done(r, g))
            chosen[n++] = g;
    parallel_for(n, r.threads, [&r, &chosen, pieces](int i) {
        for (int j = 0; j < pieces && !group_done(r, chosen[i]); ++j)
            step_group_piece(r, chosen[i]);
    });
    for (int g = 0; g < r.groups; ++g)
        if (!group_done(r, g))
            return;
    step_reduce(r);
}

// The rows' next piece: one layer of the first unfinished group's row on one
// thread; on several, `threads` groups side by side, r.threaded_pieces pieces
// each (about a millisecond of work: a frame's share stays fine-grained and the
// threads' hand-offs few).
void step_rows_piece(train_run& r) {
    if (r.threads > 1)
        step_groups(r, r.threads, r.threaded_pieces);
    else
        step_groups(r, 1, 1);
}

// Every group to its end, across the threads: a whole step's rows at once.
void step_rows_all(train_run& r) { step_groups(r, r.groups, std::numeric_limits<int>::max()); }

void stop_not_finite(train_run& r, const train_point& pt) {
    const train_settings& t = r.e.train;
    char buf[240];
    const char* what = std::isnan(pt.loss) ? "NaN" : std::isinf(pt.loss) ? "infinite" : "finite but the gradient is not";
    // Decoupled decay multiplies every weight by 1 - lr·wd each step: from lr·wd ≥ 1 on
    // it flips their sign (or zeroes them), which no clip can help.
    if (double(t.lr) * double(t.wd) >= 1.0)
        std::snprintf(buf, sizeof buf,
                      "loss became %s at step %d: weight decay multiplies the weights by 1 - lr·wd = %g each step "
                      "(lr %g, wd %g): keep lr·wd below 1",
                      what, r.step, 1.0 - double(t.lr) * double(t.wd), double(t.lr), double(t.wd));
    else
        std::snprintf(buf, sizeof buf, "loss became %s at step %d (the gradient norm is %g): lower lr (now %g) or set clip", what,
                      r.step, double(pt.grad_norm), double(t.lr));
    r.error = buf;
}

// The gradient norm, the finite check, the clip, AdamW and the snapshot.
bool step_update(train_run& r) {
    const train_settings& t = r.e.train;
    const train_cursor k = r.cursor;
    r.cursor = train_cursor{};
    train_point pt;
    pt.step = r.step;
    pt.acc = float(k.correct / double(std::max(k.total, 1)));
    pt.loss = float(k.loss / double(std::max(k.total, 1)));
    double ss = 0;
    for (double c : r.chunk_squares)  // chunk by chunk, in order (step_reduce)
        ss += c;
    pt.grad_norm = float(std::sqrt(ss));
    if (!std::isfinite(pt.loss) || !std::isfinite(pt.grad_norm)) {
        stop_not_finite(r, pt);
        return false;
    }
    if (t.clip > 0.0f && pt.grad_norm > t.clip) {
        const float c = t.clip / (pt.grad_norm + 1e-6f);
        for (float& g : r.grads)
            g *= c;
    }
    pt.lr = learning_rate(t, r.step);
    const int next = r.step + 1;
    adamw_scalars s;
    s.decay = 1.0f - pt.lr * t.wd;
    s.beta1 = 0.9f, s.beta2 = 0.99f, s.eps = 1e-8f;
    s.step_size = float(double(pt.lr) / (1.0 - std::pow(double(s.beta1), double(next))));
    s.bc2_sqrt = float(std::sqrt(1.0 - std::pow(double(s.beta2), double(next))));
    const std::size_t n = r.params.size();
    parallel_for(chunks(n), r.threads, [&r, &s, n](int c) {  // element by element: any split gives the same bits
        const std::size_t lo = std::size_t(c) * chunk_floats;
        kernel_adamw(r.params.data() + lo, r.grads.data() + lo, r.adam_m.data() + lo, r.adam_v.data() + lo,
                     int(std::min(n - lo, std::size_t(chunk_floats))), s);
    });
    r.step = next;
    const bool on_grid = r.step % r.snapshot_every == 0 || r.step == t.steps;
    if (r.curve.size() >= std::size_t(r.step)) {  // a step reached before (train_restore): the same bits again
        r.curve[std::size_t(r.step - 1)] = pt;
    } else {
        r.curve.push_back(pt);
        r.reach = r.step;
        follow_reach(r, pt.loss, on_grid);
    }
    if (on_grid)
        take_snapshot(r);
    return true;
}

// The run's shape, layouts and snapshot spacing from e (nothing allocated); the
// number of snapshots in `count`.
train_run plan_run(const experiment& e, int& count) {
    train_run r;
    r.e = e;
    const train_settings& t = e.train;
    r.B = t.batch, r.T = t.seq, r.V = t.vocab, r.d = e.d_model, r.h = e.heads, r.g = e.kv_heads;
    r.dk = experiment_d_k(e), r.f = experiment_ffn_width(e), r.L = e.layers;
    r.layout = param_layout(e, r.V, r.T);
    r.slots = row_layout(r);
    r.scratch_slots = scratch_layout(r);
    r.groups = group_count(e);
    // About 1 ms of work at the page's rate per group and threaded piece.
    r.threaded_pieces =
        int(std::clamp(std::ceil(1e-3 * train_flops_per_second / std::max(1.0, train_estimate(e).piece)), 1.0, 1e4));
    r.snapshot_every = std::max(1, (t.steps + train_limits::max_snapshots - 3) / (train_limits::max_snapshots - 2));
    count = t.steps / r.snapshot_every + 1 + (t.steps % r.snapshot_every ? 1 : 0);
    const std::size_t per_snapshot = 3 * sizeof(float) * r.layout.total;
    while (count > 2 && std::size_t(count) * per_snapshot > train_snapshot_bytes) {
        r.snapshot_every *= 2;
        count = t.steps / r.snapshot_every + 1 + (t.steps % r.snapshot_every ? 1 : 0);
    }
    // The dense ones in what the grid leaves of the snapshots' bytes, none where
    // the grid is already at every step.
    const std::size_t left = train_snapshot_bytes - std::min(train_snapshot_bytes, std::size_t(count) * per_snapshot);
    r.dense.resize(r.snapshot_every > 1 ? std::min(std::size_t(train_limits::max_dense_snapshots), left / per_snapshot) : 0);
    while (!r.dense.empty() &&  // the dense ones never make a run too big
           run_bytes(e, r.layout.total, r.slots.total, r.scratch_slots.total, count + int(r.dense.size())) > train_run_max_bytes)
        r.dense.pop_back();
    return r;
}

}  // namespace

std::size_t train_run_bytes(const experiment& e) {
    if (e.train.task == train_task::none || !experiment_validate(e).empty())
        return 0;
    int count = 0;
    const train_run r = plan_run(e, count);
    return run_bytes(e, r.layout.total, r.slots.total, r.scratch_slots.total, count + int(r.dense.size()));
}

int train_batch_max(const experiment& e) {
    experiment b = e;
    int lo = 0, hi = train_limits::max_batch;  // the bytes grow with the batch: the largest that fits
    while (lo < hi) {
        b.train.batch = (lo + hi + 1) / 2;
        if (train_run_bytes(b) <= train_run_max_bytes)
            lo = b.train.batch;
        else
            hi = b.train.batch - 1;
    }
    return lo;
}

std::string train_run_problem(const experiment& e) {
    const std::size_t bytes = train_run_bytes(e);
    if (bytes <= train_run_max_bytes)
        return "";
    const auto mb = [](std::size_t n) { return std::to_string((n + (std::size_t(1) << 20) - 1) >> 20) + " MB"; };
    const std::string need = "this training run needs " + std::to_string(bytes) + " bytes (" + mb(bytes) + "); the limit is " +
                             std::to_string(train_run_max_bytes) + " bytes (" + mb(train_run_max_bytes) + ")";
    if (const int most = train_batch_max(e); most > 0)
        return "batch must be at most " + std::to_string(most) + " for this shape (d_model " + std::to_string(e.d_model) + ", " +
               std::to_string(e.layers) + " layers, seq " + std::to_string(e.train.seq) + "): " + need;
    return need + ": lower seq, d_model or layers";
}

train_init_result train_init(const experiment& e) {
    train_init_result res;
    res.errors = experiment_validate(e);
    if (res.errors.empty() && e.train.task == train_task::none)
        res.errors.push_back("this experiment has no training recipe (train=" + train_task_list() + ")");
    if (!res.errors.empty())
        return res;
    int count = 0;
    train_run r = plan_run(e, count);
    const train_settings& t = e.train;
    if (std::string why = train_run_problem(e); !why.empty()) {
        res.errors.push_back(std::move(why));
        return res;
    }
    r.params.assign(r.layout.total, 0.0f);
    r.grads.assign(r.layout.total, 0.0f);
    r.group_grads.assign(std::size_t(r.groups - 1) * r.layout.total, 0.0f);
    r.chunk_squares.assign(std::size_t(chunks(r.layout.total)), 0.0);
    r.params_t.assign(r.layout.total, 0.0f);
    r.adam_m.assign(r.layout.total, 0.0f);
    r.adam_v.assign(r.layout.total, 0.0f);
    r.acts.assign(std::size_t(r.B) * r.slots.total, 0.0f);
    r.scratch.assign(std::size_t(r.groups) * r.scratch_slots.total, 0.0f);
    r.tokens.assign(std::size_t(r.B * r.T), 0);
    r.targets.assign(r.tokens.size(), 0);
    r.counted.assign(r.tokens.size(), 0);
    r.eval_tokens.assign(std::size_t(train_eval_rows * r.T), 0);
    r.eval_targets.assign(r.eval_tokens.size(), 0);
    r.eval_counted.assign(r.eval_tokens.size(), 0);
    rng g = task_eval_stream(t.train_seed);
    for (int b = 0; b < train_eval_rows; ++b) {
        const std::size_t o = std::size_t(b * r.T);
        task_row(t, g, r.eval_tokens.data() + o, r.eval_targets.data() + o, r.eval_counted.data() + o);
    }
    r.curve.reserve(std::size_t(t.steps));
    r.snapshots.resize(std::size_t(count));
    for (auto& s : r.dense) {
        s.params.assign(r.layout.total, 0.0f);
        s.adam_m.assign(r.layout.total, 0.0f);
        s.adam_v.assign(r.layout.total, 0.0f);
    }
    for (auto& s : r.snapshots) {
        s.params.assign(r.layout.total, 0.0f);
        s.adam_m.assign(r.layout.total, 0.0f);
        s.adam_v.assign(r.layout.total, 0.0f);
    }
    init_tables(r);
    init_params(r);
    take_snapshot(r);
    res.run = std::move(r);
    return res;
}

float train_loss_and_grad(train_run& r) {
    step_begin(r);
    while (r.cursor.phase != train_cursor::update)
        step_rows_piece(r);
    const float loss = float(r.cursor.loss / double(std::max(r.cursor.total, 1)));
    r.cursor = train_cursor{};
    return loss;
}

train_piece train_step_piece(train_run& r) {
    if (!r.error.empty() || r.step >= r.e.train.steps) {
        r.cursor = train_cursor{};
        return train_piece::none;
    }
    switch (r.cursor.phase) {
        case train_cursor::idle:
            step_begin(r);
            return train_piece::partial;
        case train_cursor::update:
            return step_update(r) ? train_piece::step : train_piece::none;
        default:
            step_rows_piece(r);
            return train_piece::partial;
    }
}

bool train_step(train_run& r) {
    train_piece p = train_step_piece(r);
    while (p == train_piece::partial) {
        if (r.threads > 1 && r.cursor.phase == train_cursor::rows)
            step_rows_all(r);  // the same bits as pieces, with the fewest hand-offs
        p = train_step_piece(r);
    }
    return p == train_piece::step;
}

bool train_step_in_progress(const train_run& r) { return r.cursor.phase != train_cursor::idle; }

void train_step_abandon(train_run& r) { r.cursor = train_cursor{}; }

void train_run_all(train_run& r) {
    while (train_step(r)) {
    }
}

void train_run_named(train_run& r) {
    const int target = std::min(r.e.train.trained_steps(), r.e.train.steps);
    while (r.step < target && train_step(r)) {
    }
}

void train_forward_rows(train_run& r, const int* tokens, int rows, const head_override* ov) {
    train_step_abandon(r);  // these rows' activations are the step's: its pieces cannot go on
    for (int b = 0; b < std::min(rows, r.B); ++b) {
        row_ctx c = context(r, b);
        row_forward(c, tokens + std::size_t(b * r.T), ov);
    }
}

namespace {

train_eval_result evaluate_rows(train_run& r, const int* tokens, const int* targets, const unsigned char* counted, int n,
                                const head_override* ov, const std::function<void(int, int)>& visit = {}) {
    double loss = 0, correct = 0;
    int total = 0;
    for (int b0 = 0; b0 < n; b0 += r.B) {
        const int rows = std::min(r.B, n - b0);
        train_forward_rows(r, tokens + std::size_t(b0 * r.T), rows, ov);
        for (int b = 0; b < rows; ++b) {
            row_ctx c = context(r, b);
            const std::size_t o = std::size_t((b0 + b) * r.T);
            total += row_loss(c, targets + o, counted + o, 0.0f, loss, correct);
        }
        if (visit)
            visit(b0, rows);
    }
    return {float(loss / double(std::max(total, 1))), float(correct / double(std::max(total, 1)))};
}

}  // namespace

train_eval_result train_evaluate(train_run& r, const head_override* ov, const std::function<void(int, int)>& visit) {
    return evaluate_rows(r, r.eval_tokens.data(), r.eval_targets.data(), r.eval_counted.data(), train_eval_rows, ov, visit);
}

train_eval_job train_evaluate_task_job(const train_run& r, train_settings task) {
    task.seq = r.T;
    task.vocab = r.V;
    const std::size_t n = std::size_t(train_eval_rows * r.T);
    train_eval_job job;
    job.tokens.resize(n), job.targets.resize(n), job.counted.resize(n);
    rng g = task_eval_stream(task.train_seed);
    for (int b = 0; b < train_eval_rows; ++b) {
        const std::size_t o = std::size_t(b * r.T);
        task_row(task, g, job.tokens.data() + o, job.targets.data() + o, job.counted.data() + o);
    }
    return job;
}

train_eval_result train_evaluate_task(train_run& r, train_settings task) {
    train_eval_job job = train_evaluate_task_job(r, task);
    return evaluate_rows(r, job.tokens.data(), job.targets.data(), job.counted.data(), train_eval_rows, nullptr);
}

train_eval_result train_eval_job::result() const {
    return {float(loss / double(std::max(total, 1))), float(correct / double(std::max(total, 1)))};
}

void train_evaluate_piece(train_run& r, train_eval_job& job) {
    if (job.done())
        return;
    for (std::size_t i = 0; i < job.heads.size(); ++i)  // the job may have moved since the last piece
        job.heads[i].next = i + 1 < job.heads.size() ? &job.heads[i + 1] : nullptr;
    const bool own = !job.tokens.empty();
    const std::size_t o = std::size_t(job.row * r.T);
    train_forward_rows(r, (own ? job.tokens.data() : r.eval_tokens.data()) + o, 1,
                       job.heads.empty() ? nullptr : job.heads.data());
    row_ctx c = context(r, 0);
    job.total += row_loss(c, (own ? job.targets.data() : r.eval_targets.data()) + o,
                          (own ? job.counted.data() : r.eval_counted.data()) + o, 0.0f, job.loss, job.correct);
    ++job.row;
}

const float* train_attention(const train_run& r, int b, int layer) {
    return r.acts.data() + std::size_t(b) * r.slots.total + r.slots.layers[std::size_t(layer)].att;
}
const float* train_concat(const train_run& r, int b, int layer) {
    return r.acts.data() + std::size_t(b) * r.slots.total + r.slots.layers[std::size_t(layer)].concat;
}
const float* train_row_logits(const train_run& r, int b) {
    return r.acts.data() + std::size_t(b) * r.slots.total + r.slots.logits;
}

train_cost train_estimate(const experiment& e) {
    const double T = e.train.seq, d = e.d_model, kv = double(e.kv_heads) * double(experiment_d_k(e));
    const double V = e.train.vocab, f = experiment_ffn_width(e), B = e.train.batch, L = e.layers;
    const bool full = e.block == block_kind::full;
    const train_layout layout = param_layout(e, e.train.vocab, e.train.seq);
    train_cost c;
    c.layer_forward = 2 * T * d * (d + 2 * kv) + 4 * T * T * d + (e.use_wo ? 2 * T * d * d : 0) + (full ? 4 * T * d * f : 0);
    c.layer_backward = 2 * c.layer_forward;
    c.logits = 6 * T * d * V;
    c.update = 12 * double(layout.total);
    c.piece = std::max({c.layer_forward, c.layer_backward, c.logits, c.update});
    c.step = B * (L * (c.layer_forward + c.layer_backward) + c.logits) + 2 * c.update;
    c.measure = train_eval_rows * (L * c.layer_forward + 2 * T * d * V);
    const int measures = std::min(e.train.steps + 1, train_limits::max_snapshots);
    c.run = e.train.steps * c.step + measures * c.measure;
    return c;
}

namespace {

void restore_from(train_run& r, const train_snapshot& s) {
    train_step_abandon(r);
    std::copy(s.params.begin(), s.params.end(), r.params.begin());
    std::copy(s.adam_m.begin(), s.adam_m.end(), r.adam_m.begin());
    std::copy(s.adam_v.begin(), s.adam_v.end(), r.adam_v.begin());
    r.step = s.step;
    r.error.clear();
}

}  // namespace

void train_restore(train_run& r, int i) {
    if (i >= 0 && i < r.snapshots_taken)
        restore_from(r, r.snapshots[std::size_t(i)]);
}

std::vector<int> train_kept_steps(const train_run& r) {
    std::vector<int> steps;
    for (int i = 0; i < r.snapshots_taken; ++i)
        steps.push_back(r.snapshots[std::size_t(i)].step);
    for (int i = 0; i < r.dense_taken; ++i)
        steps.push_back(r.dense[std::size_t(i)].step);
    std::sort(steps.begin(), steps.end());
    return steps;
}

int train_kept_before(const train_run& r, int step) {
    int best = 0;
    for (int s : train_kept_steps(r))
        if (s <= step)
            best = s;
    return best;
}

int train_snapshot_index(const train_run& r, int step) {
    for (int i = 0; i < r.snapshots_taken; ++i)
        if (r.snapshots[std::size_t(i)].step == step)
            return i;
    return -1;
}

bool train_restore_step(train_run& r, int step) {
    if (const int i = train_snapshot_index(r, step); i >= 0) {
        train_restore(r, i);
        return true;
    }
    for (int i = 0; i < r.dense_taken; ++i)
        if (r.dense[std::size_t(i)].step == step) {
            restore_from(r, r.dense[std::size_t(i)]);
            return true;
        }
    return false;
}

int train_dense_span(int snapshot_every) { return std::max(snapshot_every / 4, 1); }

int train_loss_ema_span(int steps) { return std::max(steps / 50, 1); }

float train_loss_ema_next(float previous, float loss, int span, bool first) {
    const float log_loss = std::log(std::max(loss, 1e-6f));
    if (first)
        return std::exp(log_loss);
    const float w = 2.0f / float(std::max(span, 1) + 1);
    return std::exp(std::log(previous) + w * (log_loss - std::log(previous)));
}

std::string train_weights_hash(const train_run& r) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(r.params.data());
    for (std::size_t i = 0; i < r.params.size() * sizeof(float); ++i)
        h = (h ^ bytes[i]) * 0x100000001B3ull;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

train_link_hash_result train_link_hash(std::string_view recipe, int steps, int threads) {
    auto parsed = experiment_parse(recipe);
    if (parsed.value && steps >= 0) {
        parsed.value->train.trained = steps;
        parsed.errors = experiment_validate(*parsed.value);
        if (!parsed.errors.empty())
            parsed.value.reset();
    }
    auto init = parsed.value ? train_init(*parsed.value) : train_init_result{std::nullopt, parsed.errors};
    if (!init.run)
        return {"", init.errors.empty() ? std::string("?") : init.errors.front()};
    init.run->threads = threads;
    train_run_named(*init.run);
    return init.run->error.empty() ? train_link_hash_result{train_weights_hash(*init.run), ""}
                                   : train_link_hash_result{"", init.run->error};
}

// --- [SECTION] the trained model as an experiment's model_weights ---------------

std::vector<float> train_logits(train_run& r, const std::vector<int>& tokens, std::vector<float>* output) {
    if (int(tokens.size()) != r.T)
        return {};
    train_forward_rows(r, tokens.data(), 1);
    const float* a = r.acts.data();
    if (output)
        output->assign(a + r.slots.out, a + r.slots.out + std::size_t(r.T * r.d));
    return std::vector<float>(a + r.slots.logits, a + r.slots.logits + std::size_t(r.T * r.V));
}

std::optional<model_weights> train_weights_for(const train_run& r, const std::vector<std::string>& tokens, std::string* error) {
    const int n = int(tokens.size()), d = r.d;
    auto fail = [error](std::string m) -> std::optional<model_weights> {
        if (error)
            *error = std::move(m);
        return std::nullopt;
    };
    if (r.layout.w_p.size() && n > r.T)
        return fail("with learned positions the trained model reads at most seq = " + std::to_string(r.T) + " tokens, not " +
                    std::to_string(n));
    auto copy = [&r](const train_tensor& t) {
        matrix m(t.rows, t.cols);
        std::copy(r.params.begin() + std::ptrdiff_t(t.offset), r.params.begin() + std::ptrdiff_t(t.offset + t.size()),
                  m.data.begin());
        return m;
    };
    model_weights w;
    w.embeddings = matrix(n, d);
    for (int i = 0; i < n; ++i) {
        const int v = task_symbol_index(tokens[std::size_t(i)]);
        if (v < 0 || v >= r.V)
            return fail("token '" + tokens[std::size_t(i)] + "' is not a symbol of the task's vocabulary (" + task_symbol(0) +
                        " … " + task_symbol(r.V - 1) + ")");
        for (int c = 0; c < d; ++c)
            w.embeddings(i, c) = r.params[r.layout.w_e.offset + std::size_t(v * d + c)] +
                                 (r.layout.w_p.size() ? r.params[r.layout.w_p.offset + std::size_t(i * d + c)] : 0.0f);
    }
    for (const train_layer_tensors& t : r.layout.layers) {
        layer_weights lw;
        lw.w_q = copy(t.w_q);
        lw.w_k = copy(t.w_k);
        lw.w_v = copy(t.w_v);
        lw.w_o = t.w_o.size() ? copy(t.w_o) : matrix(d, d);
        if (t.w_1.size()) {
            lw.w_1 = copy(t.w_1);
            lw.w_2 = copy(t.w_2);
        }
        w.layers.push_back(std::move(lw));
    }
    model_apply_edits(w, r.e.edits);
    return w;
}

}  // namespace attn
