// [SECTION] shared
// [SECTION] L1 soft lookup
// [SECTION] L2 why √d_k
// [SECTION] L3 heads are subspaces
// [SECTION] L4 order needs positions
// [SECTION] L5 cost and its remedies
// [SECTION] L7 weights are not explanations
// [SECTION] L8 three classic bugs
// [SECTION] A/B compare
#include "play/measure_lessons.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/rules.hpp"

namespace attn {

// [SECTION] shared

double matrix_max_abs_diff(const matrix& a, const matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols)
        return std::numeric_limits<double>::infinity();
    double w = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        w = std::max(w, std::fabs(double(a.data[i]) - double(b.data[i])));
    return w;
}

intervention_effect measure_intervention_effect(const matrix& y, const matrix& y0) { return measure_difference(y, y0); }

intervention_effect measure_difference(const matrix& b, const matrix& a) {
    intervention_effect r;
    if (b.rows != a.rows || b.cols != a.cols) {
        r.max_abs = r.relative = std::numeric_limits<double>::infinity();
        return r;
    }
    r.diff = matrix(b.rows, b.cols);
    bool nan = false;
    for (std::size_t i = 0; i < b.data.size(); ++i) {
        r.diff.data[i] = b.data[i] == a.data[i] ? 0.0f : b.data[i] - a.data[i];
        const double d = r.diff.data[i];
        nan |= std::isnan(d);
        r.diff_sq += d * d;
        if (std::isfinite(a.data[i]))
            r.base_sq += double(a.data[i]) * double(a.data[i]);
        r.max_abs = std::max(r.max_abs, std::fabs(d));
    }
    r.relative = r.base_sq > 0 ? std::sqrt(r.diff_sq / r.base_sq) : 0.0;
    if (nan)
        r.max_abs = r.relative = std::numeric_limits<double>::quiet_NaN();
    return r;
}

double matrix_frobenius(const matrix& m) {
    double s = 0;
    for (float x : m.data)
        s += double(x) * double(x);
    return std::sqrt(s);
}

double matrix_frobenius_diff(const matrix& a, const matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols)
        return std::numeric_limits<double>::infinity();
    double s = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        s += (double(a.data[i]) - double(b.data[i])) * (double(a.data[i]) - double(b.data[i]));
    return std::sqrt(s);
}

// [SECTION] L1 soft lookup

lookup_measure measure_lookup(const trace& t, int row) {
    lookup_measure m;
    const head_trace& h = t.layers[0].heads[0];
    const int n = h.weights.cols;
    const int i = std::clamp(row, 0, std::max(0, h.weights.rows - 1));
    int ones = 0;
    for (int j = 0; j < n; ++j) {
        m.scores.push_back(h.masked(i, j));
        m.weights.push_back(h.weights(i, j));
        m.row_sum += h.weights(i, j);
        m.max_weight = std::max(m.max_weight, double(h.weights(i, j)));
        ones += h.weights(i, j) == 1.0f;
    }
    m.one_hot = ones == 1 && std::fabs(m.row_sum - 1) < 1e-6;
    m.entropy = h.row_entropies[std::size_t(i)];
    return m;
}

experiment lesson_lookup_edit(const experiment& e, bool argmax, float temperature) {
    experiment next = e;
    next.softmax = argmax ? softmax_mode::argmax : softmax_mode::stable;
    if (!argmax)
        next.temperature = temperature;
    return next;
}

// [SECTION] L2 why √d_k

sqrt_dk_measure measure_sqrt_dk(int dk, int samples, std::uint64_t seed) {
    sqrt_dk_measure m;
    m.dk = std::max(1, dk);
    m.stats = measure_dot_stats(m.dk, samples, seed);
    const float root = std::sqrt(float(m.dk));
    m.raw = histogram_build(m.stats.raw.data(), m.stats.raw.size(), -4.0f * root, 4.0f * root, 41);
    // On the raw one's axis, so the scaling shows as the spread shrinking √d_k-fold.
    m.scaled = histogram_build(m.stats.raw.data(), m.stats.raw.size(), -4.0f * root, 4.0f * root, 41, score_scale_default(m.dk));
    // Rows of 8 logits taken from the measured dot products, softmaxed with and
    // without the scaling: average entropy and Jacobian size.
    constexpr int width = 8;
    const int rows = int(m.stats.raw.size()) / width;
    for (int r = 0; r < rows; ++r) {
        float p[2][width];
        for (int pass = 0; pass < 2; ++pass) {
            const float k = pass ? 1.0f / root : 1.0f;
            const float* x = m.stats.raw.data() + std::size_t(r) * width;
            float mx = -std::numeric_limits<float>::infinity(), sum = 0;
            for (int j = 0; j < width; ++j)
                mx = std::max(mx, x[j] * k);
            for (int j = 0; j < width; ++j)
                sum += (p[pass][j] = std::exp(x[j] * k - mx));
            for (int j = 0; j < width; ++j)
                p[pass][j] /= sum;
        }
        m.entropy_raw += softmax_row_entropy(p[0], width) / rows;
        m.entropy_scaled += softmax_row_entropy(p[1], width) / rows;
        m.jacobian_raw += softmax_jacobian_norm(p[0], width) / rows;
        m.jacobian_scaled += softmax_jacobian_norm(p[1], width) / rows;
    }
    return m;
}

// [SECTION] L3 heads are subspaces

subspace_measure measure_subspaces(const experiment& e, const trace& t) {
    subspace_measure m;
    const int n = int(t.tokens.size()), d = e.d_model;
    for (int h = 1; h <= experiment_limits::max_heads; ++h) {
        if (d % h)
            continue;
        const auto c = measure_attention_cost(n, d, h, h);
        if (!c)
            continue;
        const heads_cost row{h, c->d_k, c->params_total, c->flops_matmul};
        m.by_heads.push_back(row);
        if (h == 1)
            m.one_head = row;
        if (h == e.heads)
            m.this_many = row;
    }
    m.specialised = e.weights == weight_init::specialised && t.layers[0].heads.size() >= 2 && n >= 2;
    if (m.specialised) {
        const layer_trace& lt = t.layers[0];
        for (int i = 1; i < n; ++i) {
            m.prev_token_weight += lt.heads[0].weights(i, i - 1) / double(n - 1);
            m.self_weight += lt.heads[1].weights(i, i) / double(n - 1);
        }
    }
    return m;
}

// [SECTION] L4 order needs positions

order_measure measure_order(const experiment& e, const trace& t) {
    order_measure m;
    m.reversed = e;
    m.reversed.text.clear();
    for (auto it = t.tokens.rbegin(); it != t.tokens.rend(); ++it)
        m.reversed.text += (m.reversed.text.empty() ? "" : " ") + *it;
    m.reversed.edits.clear();
    m.reversed.edges.clear();
    m.reversed_trace = forward(m.reversed);
    const trace& tb = m.reversed_trace;
    const int n = int(t.tokens.size());
    if (int(tb.tokens.size()) != n)
        return m;
    for (int i = 0; i < n; ++i) {
        const int pi = n - 1 - i;  // token i of the sentence is token n-1-i of the reversed one
        for (int c = 0; c < t.output.cols; ++c)
            m.output_diff = std::max(m.output_diff, std::fabs(double(t.output(i, c)) - double(tb.output(pi, c))));
        for (int j = 0; j < n; ++j)
            m.weight_diff = std::max(m.weight_diff, std::fabs(double(t.layers[0].heads[0].weights(i, j)) -
                                                              double(tb.layers[0].heads[0].weights(pi, n - 1 - j))));
    }
    return m;
}

rope_shift_measure measure_rope_shift(const experiment& e, const trace& t, int row) {
    rope_shift_measure m;
    const int n = int(t.tokens.size());
    experiment base = e;
    base.pos_offset = 0;
    const trace t0 = forward_with(base, t.tokens, t.params);
    m.row = std::clamp(row, 0, n - 1);
    m.key = std::max(0, m.row - 1);
    m.score = t.layers[0].heads[0].scores(m.row, m.key);
    m.score_unshifted = t0.layers[0].heads[0].scores(m.row, m.key);
    m.score_diff = std::fabs(double(m.score) - double(m.score_unshifted));
    m.q_moved = matrix_max_abs_diff(t.layers[0].q_rot, t0.layers[0].q_rot);
    return m;
}

experiment lesson_order_edit(const experiment& e, positional pos) {
    experiment next = e;
    next.pos = pos;
    return next;
}

experiment lesson_shift_edit(const experiment& e, int pos_offset) {
    experiment next = e;
    next.pos_offset = std::clamp(pos_offset, 0, experiment_limits::max_pos_offset);
    return next;
}

// [SECTION] L5 cost and its remedies

cost_measure measure_cost(const experiment& e) {
    cost_measure m;
    for (int n = 256; n <= 8192; n += 256) {
        const auto c = measure_attention_cost(n, e.d_model, e.heads, e.kv_heads);
        m.gflops.push_back(c ? float(c->flops_scores + c->flops_weighted_sum) / 1e9f : 0.0f);
    }
    const auto c4 = measure_attention_cost(4096, e.d_model, e.heads, e.kv_heads);
    const auto c128 = measure_attention_cost(131072, e.d_model, e.heads, e.kv_heads);
    if (c4 && c128) {
        m.ratio_32x = double(c128->flops_scores) / double(c4->flops_scores);
        m.gb_scores_128k = double(c128->bytes_scores_per_head) / 1e9;
    }
    return m;
}

tiled_measure measure_tiled(const experiment& e, const trace& t, int tile) {
    tiled_measure m;
    const head_trace& ht = t.layers[0].heads[0];
    const int n = ht.q.rows, dk = ht.q.cols;
    attention_options opt;
    opt.scale = experiment_score_scale(e);
    opt.causal = e.mask == mask_kind::causal;
    opt.tile_q = opt.tile_k = std::max(1, tile);
    matrix tiled(n, dk), plain(n, dk);
    attention_stats st_tiled, st_plain;
    attention_tiled(ht.q.data.data(), ht.k.data.data(), ht.v.data.data(), tiled.data.data(), n, n, dk, dk, opt, &st_tiled,
                    &m.steps);
    attention_naive(ht.q.data.data(), ht.k.data.data(), ht.v.data.data(), plain.data.data(), n, n, dk, dk, opt, &st_plain);
    m.max_diff = matrix_max_abs_diff(tiled, plain);
    m.tiled_bytes = st_tiled.peak_bytes();
    m.plain_bytes = st_plain.peak_bytes();
    return m;
}

decode_measure measure_decode(const experiment& e, const trace& t) {
    decode_measure m;
    const decode_trace& dt = t.decode;
    m.active = dt.steps > 0;
    if (!m.active)
        return m;
    m.cache_rows = dt.cache.tokens();
    for (int r = 0; r < dt.out.rows; ++r)
        for (int c = 0; c < dt.out.cols; ++c)
            m.max_diff = std::max(m.max_diff, std::fabs(double(dt.out(r, c)) - double(t.layers[0].concat(r, c))));
    const int h = e.heads;
    for (int kv : {h, std::max(1, e.kv_heads), 1}) {
        const auto c = measure_attention_cost(dt.steps, e.d_model, h, kv);
        if (!c)
            continue;
        const double bytes = double(c->bytes_kv_cache_per_token) * dt.steps;
        (kv == h ? m.bytes_mha : kv == 1 ? m.bytes_mqa : m.bytes_gqa) = bytes;
    }
    if (e.kv_heads == h)
        m.bytes_gqa = m.bytes_mha;
    else if (e.kv_heads == 1)
        m.bytes_gqa = m.bytes_mqa;
    m.bytes_read_step = double(dt.bytes_read.back());
    return m;
}

experiment lesson_decode_edit(const experiment& e, int tokens) {
    experiment next = e;
    next.decode = std::clamp(tokens, 0, experiment_limits::max_tokens);
    return next;
}

// [SECTION] L7 weights are not explanations

bright_cell_measure measure_bright_cell(const experiment& e, const trace& t) {
    bright_cell_measure m;
    const head_trace& h0 = t.layers[0].heads[0];
    const int n = h0.weights.rows;
    if (n < 2)
        return m;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i != j && h0.weights(i, j) > h0.weights(m.row, m.col))
                m.row = i, m.col = j;
    m.weight = h0.weights(m.row, m.col);
    experiment cut = e;
    cut.edges.push_back({0, 0, m.row, m.col});
    const trace tc = forward_with(cut, t.tokens, t.params);
    m.effect = matrix_frobenius_diff(tc.output, t.output) / std::max(1e-12, matrix_frobenius(t.output));
    return m;
}

cancel_measure measure_cancel(const experiment& e, const trace& t) {
    cancel_measure m;
    if (e.heads < 2)
        return m;
    experiment one = e, both = e;
    one.ablate = {{0, 0}};
    both.ablate = {{0, 0}, {0, 1}};
    m.delta_one = matrix_frobenius_diff(forward_with(one, t.tokens, t.params).output, t.output);
    m.delta_both = matrix_frobenius_diff(forward_with(both, t.tokens, t.params).output, t.output);
    return m;
}

sink_measure measure_sink(const experiment& e, const trace& t) {
    sink_measure m;
    const head_trace& h0 = t.layers[0].heads[0];
    const int n = h0.weights.rows;
    for (int i = 1; i < n; ++i)
        m.weight += h0.weights(i, 0) / double(n - 1);
    for (int c = 0; c < h0.v.cols; ++c)
        m.value_norm += std::fabs(h0.v(0, c));
    m.masked = !e.edges.empty();
    return m;
}

experiment lesson_sink_edit(const experiment& e, int n) {
    experiment next = e;
    next.edges.clear();
    if (e.edges.empty())
        for (int l = 0; l < e.layers; ++l)
            for (int h = 0; h < e.heads; ++h)
                for (int i = 1; i < n; ++i)
                    next.edges.push_back({l, h, i, 0});
    return next;
}

// [SECTION] L8 three classic bugs

bugs_measure measure_bugs(const experiment& e, const trace& t) {
    bugs_measure m;
    experiment right = e;
    right.mask_at = mask_placement::before_softmax;
    right.softmax = softmax_mode::stable;
    right.use_wo = true;
    m.correct = forward_with(right, t.tokens, t.params);
    const head_trace& h = t.layers[0].heads[0];
    m.min_row_sum = std::numeric_limits<double>::infinity();
    for (float s : h.row_sums)
        m.min_row_sum = std::min(m.min_row_sum, double(s));
    // The first cell whose exponent overflows fp16 (e^x > 65504 once x > ~11.09).
    for (int i = 0; i < h.masked.rows && m.overflow_row < 0; ++i)
        for (int j = 0; j < h.masked.cols; ++j)
            if (h.masked(i, j) / e.temperature > 11.09f) {
                m.overflow_row = i, m.overflow_col = j;
                m.overflow_logit = h.masked(i, j);
                break;
            }
    m.nan_count = t.nan_count;
    m.correct_nan_count = m.correct.nan_count;
    m.diff = matrix(t.output.rows, t.output.cols);
    for (std::size_t i = 0; i < m.diff.data.size(); ++i)
        m.diff.data[i] = t.output.data[i] - m.correct.output.data[i];
    m.output_norm = matrix_frobenius(t.output);
    m.correct_output_norm = matrix_frobenius(m.correct.output);
    m.output_diff = matrix_max_abs_diff(t.output, m.correct.output);
    return m;
}

experiment lesson_bugs_edit(const experiment& e, bool mask_after, bool no_max, bool no_wo) {
    experiment next = e;
    next.mask_at = mask_after ? mask_placement::after_softmax : mask_placement::before_softmax;
    next.softmax = no_max ? softmax_mode::no_max : softmax_mode::stable;
    next.use_wo = !no_wo;
    if (no_max && next.prec == precision::fp32)
        next.prec = precision::fp16;
    return next;
}

// [SECTION] A/B compare

compare_mismatch compare_shape_mismatch(int a_tokens, int b_tokens, int a_layers, int b_layers, int a_heads, int b_heads) {
    compare_mismatch m;
    const auto differ = [&m](compare_mismatch::kind k, int x, int y) {
        if (m.what != compare_mismatch::kind::none || x == y)
            return;
        m.what = k;
        m.a = x;
        m.b = y;
    };
    differ(compare_mismatch::kind::tokens, a_tokens, b_tokens);
    differ(compare_mismatch::kind::layers, a_layers, b_layers);
    differ(compare_mismatch::kind::heads, a_heads, b_heads);
    return m;
}

compare_mismatch compare_trace_mismatch(const trace& a, const trace& b, int layer) {
    // The heads of `layer` are compared only once the tokens and the layers agree.
    const bool same =
        a.tokens.size() == b.tokens.size() && a.layers.size() == b.layers.size() && layer >= 0 && layer < int(a.layers.size());
    const int a_heads = same ? int(a.layers[std::size_t(layer)].heads.size()) : 0;
    const int b_heads = same ? int(b.layers[std::size_t(layer)].heads.size()) : 0;
    return compare_shape_mismatch(int(a.tokens.size()), int(b.tokens.size()), int(a.layers.size()), int(b.layers.size()), a_heads,
                                  b_heads);
}

compare_mismatch compare_map_mismatch(const std::string& label, const matrix& a, const matrix& b) {
    compare_mismatch m;
    if (a.rows == b.rows && a.cols == b.cols)
        return m;
    m.what = compare_mismatch::kind::shape;
    m.label = label;
    m.a_rows = a.rows;
    m.a_cols = a.cols;
    m.b_rows = b.rows;
    m.b_cols = b.cols;
    return m;
}

namespace {

// printf's text of format with args, however long.
template <class... Args>
std::string format_text(const char* format, Args... args) {
    std::string s(std::size_t(std::max(0, std::snprintf(nullptr, 0, format, args...))) + 1, '\0');
    std::snprintf(s.data(), s.size(), format, args...);
    s.pop_back();
    return s;
}

// What a problem that counts something counts: "A has 6 tokens, B has 8".
bilingual compare_counted(compare_problem k) {
    switch (k) {
        case compare_problem::tokens:
            return {"tokens", "词元"};
        case compare_problem::layers:
            return {"layers", "层"};
        case compare_problem::heads:
            return {"heads", "头"};
        case compare_problem::kv_heads:
            return {"K/V heads", "K/V 头"};
        case compare_problem::maps:
            return {"maps at this stage", "矩阵（本阶段）"};
        default:
            return {"", ""};
    }
}

}  // namespace

std::string compare_problem_text(const compare_mismatch& m, compare_use use, text_language lang) {
    using k = compare_problem;
    const char* who = (use == compare_use::compare ? bilingual{"compare", "对比"} : bilingual{"patching", "修补"}).in(lang);
    const auto say = [lang](bilingual format, auto... args) { return format_text(format.in(lang), args...); };
    switch (m.what) {
        case k::none:
            return "";
        case k::tokens:
        case k::layers:
        case k::heads:
        case k::kv_heads:
        case k::maps:
            return say({"A has %d %s, B has %d: %s needs the same shape", "A 有 %d 个%s，B 有 %d 个：%s需要相同的形状"}, m.a,
                       compare_counted(m.what).in(lang), m.b, who);
        case k::d_model:
            return say(
                {"A's d_model is %d, B's is %d: %s needs the same shape", "A 的 d_model 是 %d，B 的是 %d：%s需要相同的形状"}, m.a,
                m.b, who);
        case k::shape:
            return say({"A's %s is %d × %d, B's is %d × %d: %s needs the same shape",
                        "A 的 %s 是 %d × %d，B 的是 %d × %d：%s需要相同的形状"},
                       m.label.c_str(), m.a_rows, m.a_cols, m.b_rows, m.b_cols, who);
        case k::stage:
            return say({"A has no such stage: %s", "A 没有这个阶段：%s"}, m.label.c_str());
        case k::training:
            return say({"A is still training (step %d of %d)", "A 仍在训练中（第 %d 步，共 %d 步）"}, m.a, m.b);
        case k::no_trace:
            return bilingual{"A or B has no trace yet", "A 或 B 还没有计算结果"}.in(lang);
    }
    return "";
}

void compare_add_map(compare_result& r, const matrix& a, const matrix& b) {
    r.maps.push_back(measure_difference(b, a));
    for (const matrix* m : {&a, &b})
        for (float v : m->data)
            if (std::isfinite(v))
                r.top = std::max(r.top, double(std::fabs(v)));
}

void compare_summarise(compare_result& r) {
    r.max_abs = r.relative = 0;
    double diff_sq = 0, base_sq = 0;
    bool nan = false;
    for (const intervention_effect& d : r.maps) {
        nan |= std::isnan(d.max_abs);
        r.max_abs = std::max(r.max_abs, d.max_abs);
        diff_sq += d.diff_sq;
        base_sq += d.base_sq;
    }
    r.relative = base_sq > 0 ? std::sqrt(diff_sq / base_sq) : 0.0;
    if (nan)
        r.max_abs = r.relative = std::numeric_limits<double>::quiet_NaN();
}

}  // namespace attn
