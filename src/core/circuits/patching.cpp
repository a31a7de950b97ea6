// patching.hpp's runs. Sections:
//   [SECTION] layout
//   [SECTION] one layer, the training forward's arithmetic with patches
//   [SECTION] runs and the metric
//   [SECTION] the sweeps
//   [SECTION] the rows: the task's corruption, checks
#include "circuits/patching.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/random.hpp"
#include "kernels/kernels.hpp"
#include "kernels/train_kernels.hpp"
#include "model/rules.hpp"
#include "spec/keys.hpp"
#include "train/task.hpp"

namespace attn {
namespace {

// --- [SECTION] layout ----------------------------------------------------------

std::size_t sz(int n) { return std::size_t(n); }

void layout(const train_run& r, circuit_patching& p) {
    if (p.laid_T == r.T && p.laid_d == r.d && p.laid_L == r.L && p.laid_h == r.h && p.laid_V == r.V && p.laid_f == r.f &&
        p.laid_g == r.g)
        return;
    p.T = p.laid_T = r.T;
    p.d = p.laid_d = r.d;
    p.L = p.laid_L = r.L;
    p.h = p.laid_h = r.h;
    p.V = p.laid_V = r.V;
    p.laid_f = r.f;
    p.laid_g = r.g;
    const std::size_t T = sz(r.T), td = T * sz(r.d), tv = T * sz(r.V);
    for (std::vector<int>* v : {&p.clean_tokens, &p.corrupt_tokens, &p.clean_answer, &p.corrupt_answer})
        v->assign(T, 0);
    p.positions.reserve(T);
    for (std::vector<float>* v : {&p.clean_logits, &p.corrupt_logits, &p.patched_logits})
        v->assign(tv, 0.0f);
    p.heads.assign(sz(r.L) * sz(r.h) * (T + 1), 0.0f);
    p.resid.assign(sz(r.L + 1) * (T + 1), 0.0f);
    p.paths.reserve(sz(r.L) * sz(r.L) * sz(r.h) * sz(r.h));
    p.all.reserve(p.paths.capacity());
    p.clean_x.assign(sz(r.L + 1) * td, 0.0f);
    p.corrupt_x.assign(sz(r.L + 1) * td, 0.0f);
    p.clean_cat.assign(sz(r.L) * td, 0.0f);
    p.corrupt_cat.assign(sz(r.L) * td, 0.0f);
    p.corrupt_qkv.assign(sz(r.L) * sz(r.h + 2 * r.g) * T * sz(r.dk), 0.0f);
    for (std::vector<float>* v :
         {&p.cur, &p.nxt, &p.normed, &p.mq, &p.mk, &p.mv, &p.qh, &p.kh, &p.vh, &p.cat, &p.attn_out, &p.res, &p.split, &p.delta})
        v->assign(td, 0.0f);
    p.att.assign(T * T, 0.0f);
    p.out.assign(T * sz(r.dk), 0.0f);
    p.own.assign(3 * T * sz(r.dk), 0.0f);
    p.hid.assign(T * sz(std::max(r.f, 1)), 0.0f);
}

// --- [SECTION] one layer ----------------------------------------------------------

const float* param(const train_run& r, const train_tensor& t) { return r.params.data() + t.offset; }

// x(T, width) → heads' columns split into y (heads, T, d_k), rotated by RoPE as the
// training forward rotates them (whole rows when d_k is even, else pair by pair).
void project_heads(const train_run& r, const float* x, const train_tensor& w, int width, int heads, bool rope, float* m,
                   float* y) {
    const int T = r.T, dk = r.dk, pairs = 2 * (dk / 2);
    kernel_matmul(x, param(r, w), m, T, r.d, width);
    const bool whole_rows = rope && dk % 2 == 0;
    if (whole_rows)
        for (int t = 0; t < T; ++t)
            kernel_rope_pairs(m + t * width, r.rope_cos.data() + sz(t * r.d), r.rope_sin.data() + sz(t * r.d), m + t * width,
                              width);
    for (int t = 0; t < T; ++t) {
        const float* cs = r.rope_cos.data() + sz(t * r.d);
        const float* sn = r.rope_sin.data() + sz(t * r.d);
        for (int i = 0; i < heads; ++i) {
            const float* src = m + t * width + i * dk;
            float* dst = y + sz((i * T + t) * dk);
            int q = 0;
            if (rope && !whole_rows)
                for (; q < pairs; ++q)
                    dst[q] = src[q] * cs[i * dk + q] + src[q ^ 1] * sn[i * dk + q];
            for (; q < dk; ++q)
                dst[q] = src[q];
        }
    }
}

// att(T, T) = softmax(mask(q·kᵀ · scale) / temp), as the training forward rounds it.
void attention_weights(const train_run& r, const float* q, const float* k, float* att) {
    const int T = r.T;
    const float scale = experiment_score_scale(r.e), temp = r.e.temperature;
    kernel_matmul_bt(q, k, att, T, T, r.dk);
    for (int i = 0; i < T * T; ++i) {
        float v = att[i] * scale;
        if (temp != 1.0f)
            v /= temp;
        att[i] = r.hidden[sz(i)] ? -std::numeric_limits<float>::infinity() : v;
    }
    kernel_softmax_rows(att, T, T, true);
}

struct patch_list {
    const circuit_patch* p = nullptr;
    int n = 0;
};

// The stream layer l's input reads: its input, normed for block=full.
void layer_input(const train_run& r, const float* in, float* dst) {
    if (r.e.block == block_kind::full)
        rmsnorm_rows(in, dst, nullptr, r.T, r.d);
    else
        std::memcpy(dst, in, sizeof(float) * sz(r.T * r.d));
}

// dst(T, d) = head h's write: its output columns of cat (T, d) through its d_k rows
// of W_O (or placed in its columns when W_O is off).
void head_write(const train_run& r, int l, int h, const float* cat, float* dst) {
    const int T = r.T, d = r.d, dk = r.dk;
    const train_tensor& wo = r.layout.layers[sz(l)].w_o;
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < d; ++c) {
            float s = 0;
            if (wo.size())
                for (int q = 0; q < dk; ++q)
                    s += cat[t * d + h * dk + q] * param(r, wo)[sz((h * dk + q) * d + c)];
            else if (c >= h * dk && c < (h + 1) * dk)
                s = cat[t * d + c];
            dst[t * d + c] = s;
        }
}

// Path patches whose receiver is head i of layer l and reads `input`: the receiver's
// own projection (T, d_k) of in (the layer's input stream in this run: the corrupted
// run's when the layer is the first one patched) + Σ (clean − corrupt) sender writes,
// into dst. False when there is none.
bool receiver_input(const train_run& r, circuit_patching& p, const float* in, int l, int i, char input, const patch_list& pl,
                    float* dst) {
    const std::size_t td = sz(r.T * r.d);
    bool any = false;
    std::copy_n(in, td, p.res.data());
    for (int n = 0; n < pl.n; ++n) {
        const circuit_patch& c = pl.p[n];
        if (c.kind != circuit_patch::path || c.layer != l || c.head != i || c.input != input)
            continue;
        any = true;
        // clean − corrupt first: 0 exactly where the sender's output is the same
        head_write(r, c.sender_layer, c.sender_head, p.clean_cat.data() + sz(c.sender_layer) * td, p.delta.data());
        head_write(r, c.sender_layer, c.sender_head, p.corrupt_cat.data() + sz(c.sender_layer) * td, p.attn_out.data());
        for (std::size_t u = 0; u < td; ++u)
            p.res[u] += p.delta[u] - p.attn_out[u];
    }
    if (!any)
        return false;
    layer_input(r, p.res.data(), p.split.data());
    const train_layer_tensors& w = r.layout.layers[sz(l)];
    const bool q = input == 'q';
    const int width = q ? r.d : r.g * r.dk, heads = q ? r.h : r.g, j = q ? i : i / (r.h / r.g);
    const train_tensor& wt = q ? w.w_q : input == 'k' ? w.w_k : w.w_v;
    // p.mq and p.mk are free once the layer's own projections are split (p.qh, p.kh, p.vh).
    project_heads(r, p.split.data(), wt, width, heads, input != 'v' && r.e.pos == positional::rope, p.mq.data(), p.mk.data());
    std::copy_n(p.mk.data() + sz(j * r.T * r.dk), sz(r.T * r.dk), dst);
    return true;
}

// head_out patches at (l, i): the clean run's output columns of head i into cat.
void patch_head_out(const train_run& r, const circuit_patching& p, int l, int i, const patch_list& pl, float* cat) {
    const int T = r.T, d = r.d, dk = r.dk;
    for (int n = 0; n < pl.n; ++n) {
        const circuit_patch& c = pl.p[n];
        if (c.kind != circuit_patch::head_out || c.layer != l || c.head != i)
            continue;
        const float* src = p.clean_cat.data() + sz(l) * sz(T * d);
        for (int t = c.pos < 0 ? 0 : c.pos; t < (c.pos < 0 ? T : c.pos + 1); ++t)
            std::copy_n(src + t * d + i * dk, dk, cat + t * d + i * dk);
    }
}

// A layer's heads' queries (h, T, d_k), keys and values (g, T, d_k).
struct layer_heads {
    const float *q, *k, *v;
};

// Head i of layer l from hs (its Q, K or V input replaced where a path patch
// receives it) → its columns of p.cat, with head_out patches.
void head(const train_run& r, circuit_patching& p, const float* in, int l, int i, const layer_heads& hs, const patch_list& pl) {
    const int T = r.T, d = r.d, dk = r.dk, j = i / (r.h / r.g);
    const std::size_t tk = sz(T * dk);
    const float* q = hs.q + sz(i) * tk;
    const float* k = hs.k + sz(j) * tk;
    const float* v = hs.v + sz(j) * tk;
    float* own = p.own.data();
    if (receiver_input(r, p, in, l, i, 'q', pl, own))
        q = own;
    if (receiver_input(r, p, in, l, i, 'k', pl, own + tk))
        k = own + tk;
    if (receiver_input(r, p, in, l, i, 'v', pl, own + 2 * tk))
        v = own + 2 * tk;
    attention_weights(r, q, k, p.att.data());
    kernel_matmul(p.att.data(), v, p.out.data(), T, T, dk);
    for (int t = 0; t < T; ++t)
        std::copy_n(p.out.data() + t * dk, dk, p.cat.data() + t * d + i * dk);
    patch_head_out(r, p, l, i, pl, p.cat.data());
}

bool receives(const patch_list& pl, int l, int i) {
    for (int n = 0; n < pl.n; ++n)
        if (pl.p[n].kind == circuit_patch::path && pl.p[n].layer == l && pl.p[n].head == i)
            return true;
    return false;
}

// The heads of layer l on in (T, d) → p.cat (T, d), patched. `cached`: in is the
// corrupted run's stream, so its projections and every head no patch touches are
// the corrupted run's, kept from it (the same numbers the same kernels would give).
void attention_layer(const train_run& r, circuit_patching& p, int l, const float* in, const patch_list& pl, bool cached) {
    const std::size_t tk = sz(r.T * r.dk), td = sz(r.T * r.d), per = sz(r.h + 2 * r.g) * tk;
    if (cached) {
        const float* c = p.corrupt_qkv.data() + sz(l) * per;
        const layer_heads hs{c, c + sz(r.h) * tk, c + sz(r.h + r.g) * tk};
        std::copy_n(p.corrupt_cat.data() + sz(l) * td, td, p.cat.data());
        for (int i = 0; i < r.h; ++i)
            if (receives(pl, l, i))
                head(r, p, in, l, i, hs, pl);
            else
                patch_head_out(r, p, l, i, pl, p.cat.data());
        return;
    }
    const bool rope = r.e.pos == positional::rope;
    const train_layer_tensors& w = r.layout.layers[sz(l)];
    layer_input(r, in, p.normed.data());
    project_heads(r, p.normed.data(), w.w_q, r.d, r.h, rope, p.mq.data(), p.qh.data());
    project_heads(r, p.normed.data(), w.w_k, r.g * r.dk, r.g, rope, p.mk.data(), p.kh.data());
    project_heads(r, p.normed.data(), w.w_v, r.g * r.dk, r.g, false, p.mv.data(), p.vh.data());
    const layer_heads hs{p.qh.data(), p.kh.data(), p.vh.data()};
    for (int i = 0; i < r.h; ++i)
        head(r, p, in, l, i, hs, pl);
}

// Layer l: in (T, d) → next (T, d), as layer_forward in train.cpp.
void layer(const train_run& r, circuit_patching& p, int l, const float* in, float* next, const patch_list& pl,
           bool cached = false) {
    const int T = r.T, d = r.d, n = T * d;
    attention_layer(r, p, l, in, pl, cached);
    if (r.e.use_wo)
        kernel_matmul(p.cat.data(), param(r, r.layout.layers[sz(l)].w_o), p.attn_out.data(), T, d, d);
    else
        std::memcpy(p.attn_out.data(), p.cat.data(), sizeof(float) * sz(n));
    if (r.e.block == block_kind::attention_residual) {
        for (int i = 0; i < n; ++i)
            next[i] = in[i] + p.attn_out[sz(i)];
        return;
    }
    if (r.e.block != block_kind::full) {
        std::memcpy(next, p.attn_out.data(), sizeof(float) * sz(n));
        return;
    }
    float* res = p.res.data();
    for (int i = 0; i < n; ++i)
        res[i] = in[i] + p.attn_out[sz(i)];
    rmsnorm_rows(res, p.normed.data(), nullptr, T, d);
    const train_layer_tensors& w = r.layout.layers[sz(l)];
    kernel_matmul(p.normed.data(), param(r, w.w_1), p.hid.data(), T, d, r.f);
    kernel_relu(p.hid.data(), T * r.f);
    kernel_matmul(p.hid.data(), param(r, w.w_2), next, T, r.f, d);
    for (int i = 0; i < n; ++i)
        next[i] += res[i];
}

// --- [SECTION] runs and the metric -----------------------------------------------

// x0 (T, d) = W_e[token] + positions, as row_embed.
void embed(const train_run& r, const int* tokens, float* x0) {
    const int T = r.T, d = r.d;
    for (int t = 0; t < T; ++t)
        for (int q = 0; q < d; ++q) {
            const float pos = r.layout.w_p.size() ? param(r, r.layout.w_p)[sz(t * d + q)] : r.positions[sz(t * d + q)];
            x0[t * d + q] = param(r, r.layout.w_e)[sz(tokens[t] * d + q)] + pos;
        }
}

// resid patches of stream s into x (T, d).
void patch_stream(const circuit_patching& p, int s, const patch_list& pl, float* x) {
    const std::size_t td = sz(p.T * p.d);
    for (int n = 0; n < pl.n; ++n) {
        const circuit_patch& c = pl.p[n];
        if (c.kind != circuit_patch::resid || c.layer != s)
            continue;
        const float* src = p.clean_x.data() + sz(s) * td;
        for (int t = c.pos < 0 ? 0 : c.pos; t < (c.pos < 0 ? p.T : c.pos + 1); ++t)
            std::copy_n(src + t * p.d, p.d, x + t * p.d);
    }
}

double logit_difference(const circuit_patching& p, const float* logits) {
    if (p.positions.empty())
        return 0;
    double s = 0;
    for (int t : p.positions) {
        const float* z = logits + sz(t * p.V);
        s += double(z[p.clean_answer[sz(t)]]) - double(z[p.corrupt_answer[sz(t)]]);
    }
    return s / double(p.positions.size());
}

// From stream `start` (x = the corrupted run's there) to the logits, patched.
void run_from(const train_run& r, circuit_patching& p, int start, const patch_list& pl, float* logits) {
    const std::size_t td = sz(r.T * r.d);
    std::copy_n(p.corrupt_x.data() + sz(start) * td, td, p.cur.data());
    bool cached = true;  // the first layer reads the corrupted stream unless a stream patch changes it
    for (int n = 0; n < pl.n; ++n)
        cached = cached && !(pl.p[n].kind == circuit_patch::resid && pl.p[n].layer == start);
    for (int l = start; l < r.L; ++l) {
        patch_stream(p, l, pl, p.cur.data());
        layer(r, p, l, p.cur.data(), p.nxt.data(), pl, cached && l == start);
        std::swap(p.cur, p.nxt);
    }
    patch_stream(p, r.L, pl, p.cur.data());
    kernel_matmul(p.cur.data(), param(r, r.layout.w_u), logits, r.T, r.d, r.V);
}

// A whole unpatched run of tokens, keeping its streams and head outputs, and with
// `qkv` each layer's heads' projections (h + 2g, T, d_k).
void base_run(const train_run& r, circuit_patching& p, const int* tokens, float* xs, float* cats, float* logits, float* qkv) {
    const std::size_t td = sz(r.T * r.d), tk = sz(r.T * r.dk), per = sz(r.h + 2 * r.g) * tk;
    embed(r, tokens, xs);
    for (int l = 0; l < r.L; ++l) {
        layer(r, p, l, xs + sz(l) * td, xs + sz(l + 1) * td, patch_list{});
        std::copy_n(p.cat.data(), td, cats + sz(l) * td);
        if (!qkv)
            continue;
        float* c = qkv + sz(l) * per;
        std::copy_n(p.qh.data(), sz(r.h) * tk, c);
        std::copy_n(p.kh.data(), sz(r.g) * tk, c + sz(r.h) * tk);
        std::copy_n(p.vh.data(), sz(r.g) * tk, c + sz(r.h + r.g) * tk);
    }
    kernel_matmul(xs + sz(r.L) * td, param(r, r.layout.w_u), logits, r.T, r.d, r.V);
}

// The first stream a patch changes.
int first_layer(const circuit_patch* patches, int count, int L) {
    int start = L;
    for (int n = 0; n < count; ++n)
        start = std::min(start, patches[n].layer);
    return std::max(start, 0);
}

// A patch naming a layer, head and position of the model (a path's sender earlier
// than its receiver, its input q, k or v).
bool patch_fits(const train_run& r, const circuit_patch& c) {
    const bool pos = c.pos >= -1 && c.pos < r.T, head = c.head >= 0 && c.head < r.h;
    switch (c.kind) {
        case circuit_patch::head_out:
            return pos && head && c.layer >= 0 && c.layer < r.L;
        case circuit_patch::resid:
            return pos && c.layer >= 0 && c.layer <= r.L;
        case circuit_patch::path:
            return head && c.layer < r.L && c.sender_layer >= 0 && c.sender_layer < c.layer && c.sender_head >= 0 &&
                   c.sender_head < r.h && (c.input == 'q' || c.input == 'k' || c.input == 'v');
    }
    return false;
}

}  // namespace

double circuits_patch_run(const train_run& run, circuit_patching& out, const circuit_patch* patches, int count) {
    for (int n = 0; n < count; ++n)
        if (!patch_fits(run, patches[n]))
            return std::numeric_limits<double>::quiet_NaN();
    const patch_list pl{patches, count};
    run_from(run, out, first_layer(patches, count, run.L), pl, out.patched_logits.data());
    return logit_difference(out, out.patched_logits.data());
}

float circuits_recovery(const circuit_patching& out, double ld) {
    const double span = out.ld_clean - out.ld_corrupt;
    if (span == 0)
        return std::numeric_limits<float>::quiet_NaN();
    return float((ld - out.ld_corrupt) / span);
}

// --- [SECTION] the sweeps ---------------------------------------------------------

namespace {

float recovery_of(const train_run& r, circuit_patching& p, const circuit_patch& c) {
    return circuits_recovery(p, circuits_patch_run(r, p, &c, 1));
}

void sweep_heads_and_streams(const train_run& r, circuit_patching& p) {
    for (int l = 0; l < r.L; ++l)
        for (int i = 0; i < r.h; ++i)
            for (int t = 0; t <= r.T; ++t) {
                circuit_patch c;
                c.kind = circuit_patch::head_out;
                c.layer = l;
                c.head = i;
                c.pos = t < r.T ? t : -1;
                p.heads[circuit_patch_head_index(p, l, i, t)] = recovery_of(r, p, c);
            }
    for (int s = 0; s <= r.L; ++s)
        for (int t = 0; t <= r.T; ++t) {
            circuit_patch c;
            c.kind = circuit_patch::resid;
            c.layer = s;
            c.pos = t < r.T ? t : -1;
            p.resid[sz(s) * sz(r.T + 1) + sz(t)] = recovery_of(r, p, c);
        }
}

// Every (sender, receiver) pair whose sender's write reaches the receiver's input
// stream: every earlier layer with a residual, the layer just before without one.
void sweep_paths(const train_run& r, circuit_patching& p) {
    p.paths.clear();
    const bool residual = r.e.block != block_kind::attention_only;
    for (int la = 0; la < r.L; ++la)
        for (int a = 0; a < r.h; ++a)
            for (int lb = la + 1; lb < r.L; ++lb) {
                if (!residual && lb != la + 1)
                    continue;
                for (int b = 0; b < r.h; ++b) {
                    circuit_path_recovery pr{la, a, lb, b, 0, 0, 0};
                    circuit_patch c;
                    c.kind = circuit_patch::path;
                    c.layer = lb;
                    c.head = b;
                    c.sender_layer = la;
                    c.sender_head = a;
                    for (char input : {'q', 'k', 'v'}) {
                        c.input = input;
                        (input == 'q' ? pr.q : input == 'k' ? pr.k : pr.v) = recovery_of(r, p, c);
                    }
                    p.paths.push_back(pr);
                }
            }
    // Every pair at once, one input at a time.
    p.paths_all = circuit_path_recovery{-1, -1, -1, -1, 0, 0, 0};
    for (char input : {'q', 'k', 'v'}) {
        p.all.clear();
        for (const circuit_path_recovery& pr : p.paths) {
            circuit_patch c;
            c.kind = circuit_patch::path;
            c.layer = pr.layer_b;
            c.head = pr.head_b;
            c.sender_layer = pr.layer_a;
            c.sender_head = pr.head_a;
            c.input = input;
            p.all.push_back(c);
        }
        const float x = p.all.empty() ? 0.0f : circuits_recovery(p, circuits_patch_run(r, p, p.all.data(), int(p.all.size())));
        (input == 'q' ? p.paths_all.q : input == 'k' ? p.paths_all.k : p.paths_all.v) = x;
    }
}

// --- [SECTION] the rows ----------------------------------------------------------

std::string check_row(const train_run& r, const char* which, const std::vector<int>& tokens, const std::vector<int>& targets,
                      const std::vector<unsigned char>& counted) {
    const std::string w = which;
    if (int(tokens.size()) != r.T)
        return "the " + w + " row has " + std::to_string(tokens.size()) + " tokens; the model reads rows of " +
               std::to_string(r.T);
    if (targets.size() != tokens.size() || counted.size() != tokens.size())
        return "the " + w + " row's targets or counted flags are not one per token";
    for (std::size_t t = 0; t < tokens.size(); ++t)
        if (tokens[t] < 0 || tokens[t] >= r.V || targets[t] < 0 || targets[t] >= r.V)
            return "the " + w + " row has a token outside the vocabulary of " + std::to_string(r.V) + " at position " +
                   std::to_string(t);
    return {};
}

std::string check_rows(const train_run& r, const std::vector<int>& a_tok, const std::vector<int>& a_tgt,
                       const std::vector<unsigned char>& a_cnt, const std::vector<int>& b_tok, const std::vector<int>& b_tgt,
                       const std::vector<unsigned char>& b_cnt) {
    if (a_tok.size() != b_tok.size())
        return "the clean row has " + std::to_string(a_tok.size()) + " tokens and the corrupted row " +
               std::to_string(b_tok.size()) + ": patching needs two rows of one shape";
    std::string e = check_row(r, "clean", a_tok, a_tgt, a_cnt);
    return e.empty() ? check_row(r, "corrupted", b_tok, b_tgt, b_cnt) : e;
}

}  // namespace

bool circuits_patching(const train_run& run, const std::vector<int>& clean_tokens, const std::vector<int>& clean_targets,
                       const std::vector<unsigned char>& clean_counted, const std::vector<int>& corrupt_tokens,
                       const std::vector<int>& corrupt_targets, const std::vector<unsigned char>& corrupt_counted,
                       circuit_patching& out, std::string* error) {
    std::string e = check_rows(run, clean_tokens, clean_targets, clean_counted, corrupt_tokens, corrupt_targets, corrupt_counted);
    layout(run, out);
    out.corruption.clear();
    out.positions.clear();
    for (int t = 0; e.empty() && t < run.T; ++t)
        if (clean_counted[sz(t)] && corrupt_counted[sz(t)] && clean_targets[sz(t)] != corrupt_targets[sz(t)])
            out.positions.push_back(t);
    if (e.empty() && out.positions.empty())
        e = "no position is counted in both rows with different targets: there is no logit difference to recover";
    if (!e.empty()) {
        if (error)
            *error = e;
        return false;
    }
    std::copy(clean_tokens.begin(), clean_tokens.end(), out.clean_tokens.begin());
    std::copy(corrupt_tokens.begin(), corrupt_tokens.end(), out.corrupt_tokens.begin());
    std::copy(clean_targets.begin(), clean_targets.end(), out.clean_answer.begin());
    std::copy(corrupt_targets.begin(), corrupt_targets.end(), out.corrupt_answer.begin());
    base_run(run, out, out.clean_tokens.data(), out.clean_x.data(), out.clean_cat.data(), out.clean_logits.data(), nullptr);
    base_run(run, out, out.corrupt_tokens.data(), out.corrupt_x.data(), out.corrupt_cat.data(), out.corrupt_logits.data(),
             out.corrupt_qkv.data());
    out.ld_clean = logit_difference(out, out.clean_logits.data());
    out.ld_corrupt = logit_difference(out, out.corrupt_logits.data());
    sweep_heads_and_streams(run, out);
    sweep_paths(run, out);
    return true;
}

bool circuits_corrupt_row(const train_run& run, int row, std::vector<int>& tokens, std::vector<int>& targets,
                          std::vector<unsigned char>& counted, std::string* error, std::string* how) {
    // The message written in place into *error (no string made on the way): a report
    // of a row without this corruption, computed again, allocates nothing.
    char text[192];
    auto fail = [error, &text]() {
        if (error)
            error->assign(text);
        return false;
    };
    if (run.e.train.task != train_task::induction) {
        std::snprintf(text, sizeof text,
                      "the corruption swaps two symbols of the repeated segment: it applies to the induction task only, not %s",
                      train_task_name(run.e.train.task));
        return fail();
    }
    if (row < 0 || row >= train_eval_rows) {
        std::snprintf(text, sizeof text, "row %d is outside the held-out set (rows 0 to %d)", row, train_eval_rows - 1);
        return fail();
    }
    const int T = run.T;
    const std::size_t at = sz(row) * sz(T);
    const unsigned char* cnt = run.eval_counted.data() + at;
    const int first = int(std::find(cnt, cnt + T, 1) - cnt), len = T - first, prefix = first - len;
    if (len < 4) {
        std::snprintf(text, sizeof text, "row %d's segment has %d symbols: the swap needs 4 or more", row, len);
        return fail();
    }
    // The pairs k < m ≤ n = len − 2 with m − k ≥ 2, counted and drawn without a list.
    const int n = len - 2, count = (n - 1) * n / 2;
    rng g(hash_combine(run.e.train.train_seed, "circuits.corrupt") ^ (std::uint64_t(row) + 1) * 0x9E3779B97F4A7C15ull);
    int pick = int(g.next_u64() % std::uint64_t(count)), k = 0;
    while (pick >= n - 1 - k) {  // k has the n − 1 − k partners m = k + 2 … n
        pick -= n - 1 - k;
        ++k;
    }
    const int m = k + 2 + pick;
    tokens.assign(run.eval_tokens.begin() + std::ptrdiff_t(at), run.eval_tokens.begin() + std::ptrdiff_t(at) + T);
    std::swap(tokens[sz(prefix + k)], tokens[sz(prefix + m)]);
    targets.assign(run.eval_targets.begin() + std::ptrdiff_t(at), run.eval_targets.begin() + std::ptrdiff_t(at) + T);
    counted.assign(sz(T), 0);
    targets[sz(first + k)] = tokens[sz(prefix + m + 1)];  // the repeat of S[k] now matches position prefix + m
    targets[sz(first + m)] = tokens[sz(prefix + k + 1)];
    counted[sz(first + k)] = counted[sz(first + m)] = 1;
    if (how) {
        std::snprintf(text, sizeof text, "swap segment symbols %d and %d (positions %d, %d) of the first occurrence", k, m,
                      prefix + k, prefix + m);
        *how = text;
    }
    return true;
}

namespace {

// Held-out row `row` into tokens, targets and counted (their memory reused).
void held_out_row(const train_run& run, int row, std::vector<int>& tokens, std::vector<int>& targets,
                  std::vector<unsigned char>& counted) {
    const std::size_t at = sz(row) * sz(run.T), end = at + sz(run.T);
    const auto span = [at, end](const auto& v, auto& dst) {
        dst.assign(v.begin() + std::ptrdiff_t(at), v.begin() + std::ptrdiff_t(end));
    };
    span(run.eval_tokens, tokens);
    span(run.eval_targets, targets);
    span(run.eval_counted, counted);
}

}  // namespace

bool circuits_patching_rows(const train_run& run, int row, int other, circuit_patching& out, std::string* error) {
    for (const int r : {row, other})
        if (r < 0 || r >= train_eval_rows) {
            if (error)
                *error = "row " + std::to_string(r) + " is outside the held-out set (rows 0 to " +
                         std::to_string(train_eval_rows - 1) + ")";
            return false;
        }
    held_out_row(run, row, out.a_tokens, out.a_targets, out.a_counted);
    held_out_row(run, other, out.b_tokens, out.b_targets, out.b_counted);
    if (!circuits_patching(run, out.a_tokens, out.a_targets, out.a_counted, out.b_tokens, out.b_targets, out.b_counted, out,
                           error))
        return false;
    char how[48];  // "held-out row N", written in place: no string is made per call
    std::snprintf(how, sizeof how, "held-out row %d", other);
    out.corruption.assign(how);
    return true;
}

bool circuits_patching_row(const train_run& run, int row, circuit_patching& out, std::string* error) {
    if (!circuits_corrupt_row(run, row, out.b_tokens, out.b_targets, out.b_counted, error, &out.b_how))
        return false;
    held_out_row(run, row, out.a_tokens, out.a_targets, out.a_counted);
    if (!circuits_patching(run, out.a_tokens, out.a_targets, out.a_counted, out.b_tokens, out.b_targets, out.b_counted, out,
                           error))
        return false;
    out.corruption = out.b_how;
    return true;
}

}  // namespace attn
