#include "view/stages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

#include "look/i18n.hpp"

namespace attn::ui {

// [SECTION] the stage table: one row per stage, in the pipeline's order

namespace {

// What a stage's maps are drawn from: the trace at one layer and head.
struct stage_source {
    const trace& t;
    const layer_trace& lt;
    const layer_weights& w;
    const head_trace& ht;
    int layer;
};

using matrix_list = std::vector<stage_matrix>;

// A weight a person can edit by dragging its cells.
stage_matrix weight(const char* label, const matrix& m, edit_target target) {
    return {label, &m, true, nullptr, false, false, target, true};
}

// An n×n map over the tokens (a head's scores or weights).
stage_matrix token_map(const char* label, const matrix& m, bool signed_values = true, const matrix* masked_from = nullptr,
                       bool row_sums = false) {
    return {label, &m, signed_values, masked_from, row_sums, true};
}

void embeddings_maps(const stage_source& s, matrix_list& out) {
    if (s.layer > 0) {
        out.push_back({"x", &s.lt.input});
        return;
    }
    out.push_back({"X", &s.t.x0});
    out.push_back(weight("E", s.t.params.embeddings, edit_target::x));
    if (s.t.positions.size() && s.t.positions.data != std::vector<float>(s.t.positions.size(), 0.0f))
        out.push_back({"PE", &s.t.positions});
}

struct stage_row {
    stage s;
    const char* name_en;
    const char* name_zh;
    const char* formula;
    const char* explain_en;
    const char* explain_zh;
    bool per_head;             // drawn once per head
    std::pair<int, int> code;  // the lines of numpy_code_lines() it lights (0-based, inclusive); {-1, -1}: none
    void (*maps)(const stage_source&, matrix_list&);
};

// The page's posters read the English names from lesson-names.js, which the build writes (src/platform/page_names.cpp).
// The formulas are notation only, the same in both languages (a test reads the 中文 interface for English words).
// clang-format off
constexpr stage_row stage_table[] = {
    {stage::embeddings, "Tokens → X", "词元 → X", "X = E[tokens] + PE",
     "Each token becomes a vector (a row of X). The same word always gets the same row; positions are added "
     "here when sinusoidal encoding is on.",
     "每个词元变成一个向量（X 的一行）。同一个词总是同一行；开启正弦位置编码时，位置在这里加上。",
     false, {6, 7}, embeddings_maps},
    {stage::projections, "Q, K, V", "Q、K、V", "Q = X·W_q   K = X·W_k   V = X·W_v",
     "Three views of each token: the query Q is what it looks for, the key K is what it can be found by, "
     "the value V is the content it hands over. With RoPE, Q and K are rotated by position.",
     "每个词元的三种视角：查询 Q 是\"我在找什么\"，键 K 是\"我能被什么找到\"，值 V 是被取走的内容。开启 "
     "RoPE 时，Q 和 K 按位置旋转。",
     false, {8, 8},
     [](const stage_source& s, matrix_list& out) {
         out.push_back(weight("W_q", s.w.w_q, edit_target::w_q));
         out.push_back(weight("W_k", s.w.w_k, edit_target::w_k));
         out.push_back(weight("W_v", s.w.w_v, edit_target::w_v));
         out.push_back({"Q", &s.lt.q_rot});
         out.push_back({"K", &s.lt.k_rot});
         out.push_back({"V", &s.lt.v});
     }},
    {stage::scores, "Scores Q·Kᵀ", "打分 Q·Kᵀ", "S_h = Q_h · K_hᵀ",
     "q_i·k_j: how much token i wants to take from token j. One n×n matrix per head.",
     "q_i·k_j：第 i 个词元想从第 j 个词元取多少。每个头一张 n×n 的矩阵。",
     true, {9, 9}, [](const stage_source& s, matrix_list& out) { out.push_back(token_map("S", s.ht.scores)); }},
    {stage::scaled, "Scale /√d_k", "缩放 /√d_k", "S'_h = S_h / √d_k",
     "Dividing by √d_k brings the dot products back to unit variance, so softmax does not saturate.",
     "除以 √d_k 把点积的方差拉回 1，softmax 就不会饱和。",
     true, {9, 9}, [](const stage_source& s, matrix_list& out) { out.push_back(token_map("S'", s.ht.scaled)); }},
    {stage::masked, "Mask", "掩码", "M_h(i,j) = S'_h(i,j) + B(i,j),   B(i,j) ∈ {0, −∞}",
     "Hidden pairs get −∞ so that softmax gives them exactly zero weight (causal: no looking ahead).",
     "被屏蔽的位置设为 −∞，softmax 后权重恰好为 0（因果掩码：不能看未来）。",
     true, {10, 12},
     [](const stage_source& s, matrix_list& out) { out.push_back(token_map("M", s.ht.masked, true, &s.ht.masked)); }},
    {stage::weights, "Softmax", "Softmax",
     "P_h(i,j) = exp(M(i,j) − max_j M(i,j)) / Σ_j exp(M(i,j) − max_j M(i,j))",
     "Softmax turns each row into non-negative weights that sum to 1: a soft, differentiable lookup.",
     "softmax 把每一行变成非负、和为 1 的权重：一次软的、可微的查表。",
     true, {0, 3},
     [](const stage_source& s, matrix_list& out) {
         out.push_back(token_map("P", s.ht.weights, false, &s.ht.masked, true));
     }},
    {stage::weighted_sum, "Weights·V", "权重·V", "O_h = P_h · V_h",
     "Each output row is the weighted mix of the value rows: high weight means V_j is mixed in.",
     "每个输出行是各个值向量的加权混合：权重高只说明 V_j 被大量混入。",
     true, {13, 13}, [](const stage_source& s, matrix_list& out) { out.push_back({"O_h", &s.ht.out}); }},
    {stage::concat, "Concat heads", "拼接各头", "O = [O_1 | O_2 | … | O_h]",
     "The heads' outputs side by side: each head worked in its own d_k-wide subspace.",
     "各头的输出并排拼接：每个头都在自己 d_k 维的子空间里工作。",
     false, {15, 16}, [](const stage_source& s, matrix_list& out) { out.push_back({"O", &s.lt.concat}); }},
    {stage::output_proj, "·W_O", "·W_O", "A = O · W_O",
     "W_O mixes the heads' subspaces. Without it (turn W_O off) the heads never mix.",
     "W_O 把各头的子空间混合起来。去掉它（关闭 W_O），各头永远不会混合。",
     false, {17, 17},
     [](const stage_source& s, matrix_list& out) {
         out.push_back(weight("W_O", s.w.w_o, edit_target::w_o));
         out.push_back({"A", &s.lt.attn_out});
     }},
    {stage::block, "Residual (+ FFN)", "残差（+ FFN）", "r = x + A;   y = r   |   y = r + relu(norm(r)·W_1)·W_2 (FFN)",
     "The residual connection adds attention's result to its input, so each layer edits the stream instead of replacing it; the full block then adds a feed-forward network that can rewrite what attention mixed in.",
     "残差连接把注意力的结果加到它的输入上，每一层是在修改信息流而不是替换它；完整的块还会加上前馈网络，可以改写注意力混入的信息。",
     false, {-1, -1},
     [](const stage_source& s, matrix_list& out) {
         out.push_back({"r = x + A", &s.lt.residual});
         if (s.lt.ffn_gate.size() && !s.lt.ffn_up.size()) {  // GPT-2's block: GELU of the pre-activation
             out.push_back(weight("W_1", s.w.w_1, edit_target::w_1));
             out.push_back({"gelu(LN(r)·W_1 + b_1)", &s.lt.ffn_hidden});
             out.push_back(weight("W_2", s.w.w_2, edit_target::w_2));
             out.push_back({"y", &s.lt.output});
             return;
         }
         if (s.lt.ffn_gate.size()) {  // a llama block: SwiGLU
             out.push_back(weight("W_1", s.w.w_1, edit_target::w_1));
             out.push_back(weight("W_3", s.w.w_3, edit_target::w_1));
             out.push_back({"silu(norm(r)·W_1) ⊙ norm(r)·W_3", &s.lt.ffn_hidden});
             out.push_back(weight("W_2", s.w.w_2, edit_target::w_2));
             out.push_back({"y", &s.lt.output});
             return;
         }
         if (s.w.w_1.size() == 0)  // block=attn_res: y = r
             return;
         out.push_back(weight("W_1", s.w.w_1, edit_target::w_1));
         out.push_back({"relu(norm(r)·W_1)", &s.lt.ffn_hidden});
         out.push_back(weight("W_2", s.w.w_2, edit_target::w_2));
         out.push_back({"y", &s.lt.output});
     }},
    {stage::output, "Output", "输出", "y",
     "What the model hands on. Ablate a head or mask an edge and watch how much this changes.",
     "模型最终交出的结果。屏蔽一个头或一条边，看它变化多少。",
     false, {-1, -1}, [](const stage_source& s, matrix_list& out) { out.push_back({"y", &s.t.output}); }},
};
// clang-format on

static_assert(std::size(stage_table) == std::size_t(stage_count), "one row per stage");

constexpr bool table_in_stage_order() {
    for (int i = 0; i < stage_count; ++i)
        if (int(stage_table[i].s) != i)
            return false;
    return true;
}
static_assert(table_in_stage_order(), "row i is stage i");

const stage_row& row_of(stage s) {
    static const stage_row none{stage::count, "?", "?", "", "", "", false, {-1, -1}, nullptr};
    const int i = int(s);
    return i >= 0 && i < stage_count ? stage_table[i] : none;
}

}  // namespace

const char* stage_name(stage s) { return tr(row_of(s).name_en, row_of(s).name_zh); }
const char* stage_formula(stage s) { return row_of(s).formula; }
const char* stage_formula_llama(stage s) {
    switch (s) {
        case stage::embeddings:
            return "X = E[tokens]   (no positions here: RoPE turns Q and K)";
        case stage::projections:
            return "Q = RMSNorm(x)·W_q   K = RMSNorm(x)·W_k   V = RMSNorm(x)·W_v   (+ RoPE on Q, K)";
        case stage::block:
            return "r = x + A;   y = r + (silu(RMSNorm(r)·W_1) ⊙ RMSNorm(r)·W_3)·W_2";
        default:
            return stage_formula(s);
    }
}
const char* stage_formula_gpt2(stage s) {
    switch (s) {
        case stage::embeddings:
            return "X = E[tokens] + P[positions]   (learned positions; no RoPE)";
        case stage::projections:
            return "Q = LN(x)·W_q + b_q   K = LN(x)·W_k + b_k   V = LN(x)·W_v + b_v";
        case stage::output_proj:
            return "A = O · W_O + b_O";
        case stage::block:
            return "r = x + A;   y = r + gelu(LN(r)·W_1 + b_1)·W_2 + b_2";
        default:
            return stage_formula(s);
    }
}
const char* stage_formula_real(stage s, const llama_config& c) {
    return c.arch == llama_arch::gpt2 ? stage_formula_gpt2(s) : stage_formula_llama(s);
}
const char* real_block_words(const llama_config& c) {
    return c.arch == llama_arch::gpt2
               ? tr("LayerNorm, learned positions and a GELU FFN", "LayerNorm、学习得到的位置向量和 GELU FFN")
               : tr("RMSNorm, RoPE and a SwiGLU FFN", "RMSNorm、RoPE 和 SwiGLU FFN");
}
std::string real_model_summary(const real_model& m) {
    char line[256];
    std::snprintf(line, sizeof line, "%s · %.2f M %s · %s · %s", m.format.c_str(), double(m.parameters()) / 1e6,
                  tr("parameters", "参数"), weight_type_name(m.dtype), real_block_words(m.model.config));
    return line;
}
const char* real_norm_name(const llama_config& c) { return c.arch == llama_arch::gpt2 ? "LayerNorm" : "RMSNorm"; }
const char* stage_explain(stage s) { return tr(row_of(s).explain_en, row_of(s).explain_zh); }
bool stage_per_head(stage s) { return row_of(s).per_head; }
std::pair<int, int> stage_code_lines(stage s) { return row_of(s).code; }

std::vector<stage_matrix> stage_matrices(stage s, const trace& t, int layer, int head) {
    const layer_trace& lt = t.layers[std::size_t(layer)];
    matrix_list out;
    static const layer_weights none;  // a real model's layers other than the one made whole (play/real_model.hpp)
    const layer_weights& w = std::size_t(layer) < t.params.layers.size() ? t.params.layers[std::size_t(layer)] : none;
    if (const auto maps = row_of(s).maps)
        maps({t, lt, w, lt.heads[std::size_t(head)], layer}, out);
    std::erase_if(out, [](const stage_matrix& sm) { return sm.m->size() == 0; });  // a weight such a layer lacks
    return out;
}

int stage_widest_value_chars(stage s, const trace& t, int layer) {
    if (layer < 0 || layer >= int(t.layers.size()))
        return 0;
    int widest = 0;
    const int heads = stage_per_head(s) ? int(t.layers[std::size_t(layer)].heads.size()) : 1;
    for (int h = 0; h < heads; ++h)
        for (const stage_matrix& sm : stage_matrices(s, t, layer, h))
            widest = std::max(widest, heatmap_value_extent_of(*sm.m, sm.masked_from).widest_chars);
    return widest;
}

bool stage_shares_scale(stage s) {
    return s == stage::scores || s == stage::scaled || s == stage::masked || s == stage::weighted_sum;
}

std::optional<heatmap_range> stage_shared_range(stage s, const trace& t, int layer) {
    if (!stage_shares_scale(s) || layer < 0 || layer >= int(t.layers.size()))
        return std::nullopt;
    const layer_trace& lt = t.layers[std::size_t(layer)];
    float top = 0.0f;  // the largest finite |value| (masked cells are −∞: not finite)
    const auto widen = [&top](const matrix& m) {
        for (float v : m.data)  // a lean trace keeps no n×n matrices for some heads: empty
            if (std::isfinite(v))
                top = std::max(top, std::fabs(v));
    };
    for (const head_trace& ht : lt.heads) {
        if (s == stage::scores || s == stage::scaled || s == stage::masked) {
            widen(ht.scores);
            widen(ht.scaled);
            widen(ht.masked);
        } else {
            widen(ht.out);
        }
    }
    if (top == 0.0f)
        return std::nullopt;
    return heatmap_range{-top, top};
}

compare_result stage_compare(stage s, const experiment& ea, const trace& a, const trace& b, int layer) {
    compare_result r;
    if (!stage_applies(s, ea)) {
        r.mismatch.what = compare_mismatch::kind::stage;
        r.mismatch.label = stage_missing_reason(s, ea);
        return r;
    }
    r.mismatch = compare_trace_mismatch(a, b, layer);
    if (r.mismatch.what != compare_mismatch::kind::none || layer < 0 || layer >= int(b.layers.size()))
        return r;
    const int heads = stage_per_head(s) ? int(b.layers[std::size_t(layer)].heads.size()) : 1;
    for (int h = 0; h < heads; ++h) {
        const auto ma = stage_matrices(s, a, layer, h), mb = stage_matrices(s, b, layer, h);
        if (ma.size() != mb.size()) {
            r.mismatch.what = compare_mismatch::kind::maps;
            r.mismatch.a = int(ma.size());
            r.mismatch.b = int(mb.size());
        }
        for (std::size_t k = 0; k < mb.size() && r.mismatch.what == compare_mismatch::kind::none; ++k)
            r.mismatch = compare_map_mismatch(mb[k].label, *ma[k].m, *mb[k].m);
        if (r.mismatch.what != compare_mismatch::kind::none) {
            r.maps.clear();
            return r;
        }
        for (std::size_t k = 0; k < mb.size(); ++k)
            compare_add_map(r, *ma[k].m, *mb[k].m);
    }
    compare_summarise(r);
    return r;
}

// numpy_code_lines() is generated from tests/article.py (cmake/embed_article.py).

// [SECTION] labels
bool stage_matrix_token_rows(const stage_matrix& sm, int tokens) {
    return sm.m->rows == tokens && sm.target == edit_target::x && sm.label[0] != 'W';
}

namespace {

std::vector<std::string> index_strings(int n) {
    std::vector<std::string> v;
    v.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i)
        v.push_back(std::to_string(i));
    return v;
}

}  // namespace

std::vector<std::string> stage_matrix_row_labels(const stage_matrix& sm, const std::vector<std::string>& tokens) {
    return stage_matrix_token_rows(sm, int(tokens.size())) ? tokens : index_strings(sm.m->rows);
}

std::vector<std::string> stage_matrix_col_labels(const stage_matrix& sm, const std::vector<std::string>& tokens) {
    return sm.token_cols ? tokens : index_strings(sm.m->cols);
}

const char* axes_queries_by_keys() { return tr("↓ query token i   → key token j", "↓ 查询词元 i   → 键词元 j"); }
const char* axes_tokens_by_dimensions() { return tr("↓ token   → dimension", "↓ 词元   → 维度"); }

const char* stage_matrix_axes(const stage_matrix& sm, int tokens) {
    if (!stage_matrix_token_rows(sm, tokens))
        return tr("↓ input dimension   → output dimension", "↓ 输入维度   → 输出维度");
    return sm.token_cols ? axes_queries_by_keys() : axes_tokens_by_dimensions();
}

}  // namespace attn::ui
