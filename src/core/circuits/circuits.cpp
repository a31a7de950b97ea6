// circuits.hpp's reading of one row. Sections:
//   [SECTION] the model's weights and the row's activations
//   [SECTION] layout of a read
//   [SECTION] predictions and the logit lens
//   [SECTION] direct logit attribution
//   [SECTION] path expansion
//   [SECTION] the row
//
// Products here are small (T ≤ a few hundred, d ≤ 256, V ≤ 62) and summed in
// double from the model's fp32 weights and activations, each result stored as
// fp32: the parts of a decomposition then add up to the model's own fp32 logit
// within its rounding.
#include "circuits/circuits.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/kernels.hpp"
#include "train/task.hpp"

namespace attn {
namespace {

// --- [SECTION] the model's weights and the row's activations ---------------------

const float* param(const train_run& r, const train_tensor& t) { return r.params.data() + t.offset; }

// Row 0's activations of the last training forward (train_forward_rows).
const float* act(const train_run& r, std::size_t slot) { return r.acts.data() + slot; }

std::size_t tv(const circuit_read& c) { return std::size_t(c.T) * std::size_t(c.V); }

// dst(n, m) = a(n, k) · b(k, m), each entry summed in double from 0 over k in
// order: a's rows are `lda` floats apart, b's `ldb`, dst's m.
void times(const float* a, int lda, const float* b, int ldb, float* dst, int n, int k, int m) {
    for (int t = 0; t < n; ++t)
        for (int c = 0; c < m; ++c) {
            double s = 0;
            for (int q = 0; q < k; ++q)
                s += double(a[t * lda + q]) * double(b[q * ldb + c]);
            dst[t * m + c] = float(s);
        }
}

// dst(T, V) = x(T, d)·W_u, summed in double.
void unembed(const train_run& r, const float* x, float* dst) { times(x, r.d, param(r, r.layout.w_u), r.V, dst, r.T, r.d, r.V); }

// dst(T, d) = in(T, d_k) · W_O^h (d_k rows of W_O), or placed in head h's columns
// when W_O is off. `in` has row stride `stride`.
void head_out(const train_run& r, int l, int h, const float* in, int stride, float* dst) {
    const int T = r.T, d = r.d, dk = r.dk;
    const train_tensor& wo = r.layout.layers[std::size_t(l)].w_o;
    if (wo.size()) {
        times(in, stride, param(r, wo) + std::size_t(h * dk) * std::size_t(d), d, dst, T, dk, d);
        return;
    }
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < d; ++c)
            dst[t * d + c] = c >= h * dk && c < (h + 1) * dk ? in[t * stride + (c - h * dk)] : 0.0f;
}

// Head h of layer l applied to in(T, d) with the row's attention att(T, T) held
// fixed: dst(T, d) = att · (in · W_V^j) · W_O^h. hv: scratch (2·T·d_k).
void head_write(const train_run& r, int l, int h, const float* in, const float* att, float* dst, float* hv) {
    const int T = r.T, d = r.d, dk = r.dk, kv = r.g * dk, j = h / (r.h / r.g);
    const float* wv = param(r, r.layout.layers[std::size_t(l)].w_v);
    float* vals = hv;
    float* mixed = hv + std::size_t(T * dk);
    times(in, d, wv + j * dk, kv, vals, T, d, dk);
    times(att, T, vals, dk, mixed, T, T, dk);
    head_out(r, l, h, mixed, dk, dst);
}

// --- [SECTION] layout of a read ---------------------------------------------------

circuit_part part(circuit_part::kind_t k, std::string name, int layer = -1, int head = -1) {
    circuit_part p;
    p.kind = k;
    p.name = std::move(name);
    p.layer = layer;
    p.head_index = head;
    return p;
}
std::string head_name(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h); }

void layout_dla_parts(const train_run& r, std::vector<circuit_part>& parts) {
    parts.clear();
    const block_kind b = r.e.block;
    if (b != block_kind::attention_only) {
        parts.push_back(part(circuit_part::embed, "embed"));
        parts.push_back(part(circuit_part::pos, "pos"));
    }
    for (int l = b == block_kind::attention_only ? r.L - 1 : 0; l < r.L; ++l) {
        for (int h = 0; h < r.h; ++h)
            parts.push_back(part(circuit_part::head, head_name(l, h), l, h));
        if (b == block_kind::full)
            parts.push_back(part(circuit_part::ffn, "ffn" + std::to_string(l), l));
    }
}

// The path expansion's parts, or why there is none.
std::string layout_path_parts(const train_run& r, std::vector<circuit_part>& parts) {
    parts.clear();
    if (r.e.block != block_kind::attention_residual)
        return "path expansion needs block=attn_res (no norm, no FFN), not this model's block";
    if (r.L > 2)
        return "path expansion is computed for models of one or two layers, not " + std::to_string(r.L);
    parts.push_back(part(circuit_part::direct, "direct"));
    for (int l = 0; l < r.L; ++l)
        for (int h = 0; h < r.h; ++h)
            parts.push_back(part(circuit_part::head, head_name(l, h), l, h));
    if (r.L == 2)
        for (int a = 0; a < r.h; ++a)
            for (int b = 0; b < r.h; ++b) {
                circuit_part p = part(circuit_part::path2, head_name(0, a) + ">" + head_name(1, b), 1, b);
                p.layer0 = 0;
                p.head0 = a;
                parts.push_back(p);
            }
    return {};
}

void layout(const train_run& r, circuit_read& c) {
    if (c.T == r.T && c.V == r.V && c.L == r.L && c.laid_h == r.h && c.laid_d == r.d && c.laid_block == int(r.e.block))
        return;
    c.T = r.T;
    c.V = r.V;
    c.L = r.L;
    c.laid_h = r.h;
    c.laid_d = r.d;
    c.laid_block = int(r.e.block);
    c.top_k = std::min(circuit_top_k, r.V);
    layout_dla_parts(r, c.dla_parts);
    c.paths_problem = layout_path_parts(r, c.path_parts);
    const std::size_t T = std::size_t(r.T), n = tv(c);
    c.tokens.assign(T, 0);
    c.targets.assign(T, 0);
    c.counted.assign(T, 1);
    c.logits.assign(n, 0.0f);
    c.probs.assign(n, 0.0f);
    c.top.assign(T * std::size_t(c.top_k), 0);
    c.target_prob.assign(T, 0.0f);
    c.target_rank.assign(T, 0);
    c.dla.assign(c.dla_parts.size() * n, 0.0f);
    c.lens_logits.assign(std::size_t(r.L) * n, 0.0f);
    c.lens_probs.assign(std::size_t(r.L) * n, 0.0f);
    c.lens_target_rank.assign(std::size_t(r.L) * T, 0);
    c.paths.assign(c.path_parts.size() * n, 0.0f);
    c.x.assign(T * std::size_t(r.d), 0.0f);
    c.y.assign(T * std::size_t(r.d) * std::size_t(std::max(r.h, 1)), 0.0f);
    c.z.assign(T * std::size_t(r.d), 0.0f);
    c.hv.assign(2 * T * std::size_t(r.dk), 0.0f);
}

// --- [SECTION] predictions and the logit lens --------------------------------------

void predictions(const train_run& r, circuit_read& c) {
    const int T = c.T, V = c.V, k = c.top_k;
    std::copy_n(act(r, r.slots.logits), tv(c), c.logits.begin());
    circuits_softmax_rank(c.logits.data(), c.probs.data(), c.target_rank.data(), c.targets.data(), T, V);
    for (int t = 0; t < T; ++t) {
        const float* p = c.probs.data() + t * V;
        c.target_prob[std::size_t(t)] = p[c.targets[std::size_t(t)]];
        circuits_top_tokens(p, V, k, c.top.data() + t * k);
    }
}

// The residual stream after layer l is the next layer's input (the output after
// the last), unembedded with the model's own kernel: at the last layer the lens
// is the model's logits to the bit.
void logit_lens(const train_run& r, circuit_read& c) {
    for (int l = 0; l < r.L; ++l) {
        const std::size_t slot = l + 1 < r.L ? r.slots.layers[std::size_t(l + 1)].in : r.slots.out;
        float* z = c.lens_logits.data() + std::size_t(l) * tv(c);
        kernel_matmul(act(r, slot), param(r, r.layout.w_u), z, r.T, r.d, r.V);
        circuits_softmax_rank(z, c.lens_probs.data() + std::size_t(l) * tv(c), c.lens_target_rank.data() + std::size_t(l * r.T),
                              c.targets.data(), r.T, r.V);
    }
}

// --- [SECTION] direct logit attribution -----------------------------------------

// The FFN's write of layer l (block=full): relu(n(r)·W_1)·W_2, from the row's hidden layer.
void ffn_write(const train_run& r, int l, float* dst) {
    times(act(r, r.slots.layers[std::size_t(l)].hid), r.f, param(r, r.layout.layers[std::size_t(l)].w_2), r.d, dst, r.T, r.f,
          r.d);
}

// Each part's write into the last residual stream, unembedded. The embedding and
// positions as row_embed adds them; a head's write from the row's own head output
// (concat, before W_O).
void direct_attribution(const train_run& r, circuit_read& c) {
    const int T = r.T, d = r.d;
    float* x = c.x.data();
    for (std::size_t p = 0; p < c.dla_parts.size(); ++p) {
        const circuit_part& part = c.dla_parts[p];
        if (part.kind == circuit_part::embed) {
            for (int t = 0; t < T; ++t)
                std::copy_n(param(r, r.layout.w_e) + std::size_t(c.tokens[std::size_t(t)] * d), d, x + t * d);
        } else if (part.kind == circuit_part::pos) {
            const float* pos = r.layout.w_p.size() ? param(r, r.layout.w_p) : r.positions.data();
            std::copy_n(pos, std::size_t(T * d), x);
        } else if (part.kind == circuit_part::head) {
            const float* concat = act(r, r.slots.layers[std::size_t(part.layer)].concat);
            head_out(r, part.layer, part.head_index, concat + part.head_index * r.dk, d, x);
        } else {
            ffn_write(r, part.layer, x);
        }
        unembed(r, x, c.dla.data() + p * tv(c));
    }
}

// --- [SECTION] path expansion ----------------------------------------------------

// attn_res, L ≤ 2, the row's patterns A held fixed (x0 the embedding and positions):
//   direct   x0 W_u
//   L0Hh     y_h W_u,                         y_h = A⁰_h (x0 W_V⁰) W_O⁰_h
//   L1Hb     A¹_b (x0 W_V¹) W_O¹_b W_u        (layer-1 head reading the embedding)
//   L0Ha>L1Hb A¹_b (y_a W_V¹) W_O¹_b W_u      (the virtual head: a read by b's values)
// Their sum is x0 + Σ y_h + Σ_b A¹_b((x0 + Σ_a y_a) W_V¹) W_O¹_b = the model's x_2,
// because each head's write is linear in its input once A is fixed.
void path_expansion(const train_run& r, circuit_read& c) {
    if (!c.paths_problem.empty())
        return;
    const int T = r.T, d = r.d;
    const float* x0 = act(r, r.slots.layers[0].in);
    const std::size_t td = std::size_t(T * d);
    float* y = c.y.data();  // (h, T, d) the layer-0 heads' writes
    float* z = c.z.data();
    std::size_t p = 0;
    unembed(r, x0, c.paths.data() + p++ * tv(c));
    for (int h = 0; h < r.h; ++h) {
        head_write(r, 0, h, x0, act(r, r.slots.layers[0].att) + std::size_t(h * T * T), y + std::size_t(h) * td, c.hv.data());
        unembed(r, y + std::size_t(h) * td, c.paths.data() + p++ * tv(c));
    }
    if (r.L < 2)
        return;
    const float* att1 = act(r, r.slots.layers[1].att);
    for (int b = 0; b < r.h; ++b) {
        head_write(r, 1, b, x0, att1 + std::size_t(b * T * T), z, c.hv.data());
        unembed(r, z, c.paths.data() + p++ * tv(c));
    }
    for (int a = 0; a < r.h; ++a)
        for (int b = 0; b < r.h; ++b) {
            head_write(r, 1, b, y + std::size_t(a) * td, att1 + std::size_t(b * T * T), z, c.hv.data());
            unembed(r, z, c.paths.data() + p++ * tv(c));
        }
}

}  // namespace

// --- [SECTION] the row -----------------------------------------------------------

void circuits_read_tokens(train_run& run, const int* tokens, const int* targets, const unsigned char* counted,
                          circuit_read& out) {
    layout(run, out);
    for (int t = 0; t < run.T; ++t) {
        out.tokens[std::size_t(t)] = tokens[t];
        out.targets[std::size_t(t)] = targets[t];
        out.counted[std::size_t(t)] = counted ? counted[t] : 1;
    }
    train_forward_rows(run, tokens, 1);
    predictions(run, out);
    logit_lens(run, out);
    direct_attribution(run, out);
    path_expansion(run, out);
}

bool circuits_read_row(train_run& run, int row, circuit_read& out, std::string* error) {
    if (row < 0 || row >= train_eval_rows) {
        if (error)
            *error = "row " + std::to_string(row) + " is outside the held-out set (rows 0 to " +
                     std::to_string(train_eval_rows - 1) + ")";
        return false;
    }
    const std::size_t at = std::size_t(row) * std::size_t(run.T);
    circuits_read_tokens(run, run.eval_tokens.data() + at, run.eval_targets.data() + at, run.eval_counted.data() + at, out);
    return true;
}

}  // namespace attn
