#include "stages.hpp"

#include "i18n.hpp"

namespace attn::ui {

const char* stage_name(stage s) {
    switch (s) {
        case stage::embeddings:
            return tr("Tokens → X", "词元 → X");
        case stage::projections:
            return tr("Q, K, V", "Q、K、V");
        case stage::scores:
            return tr("Scores Q·Kᵀ", "打分 Q·Kᵀ");
        case stage::scaled:
            return tr("Scale /√d_k", "缩放 /√d_k");
        case stage::masked:
            return tr("Mask", "掩码");
        case stage::weights:
            return tr("Softmax", "Softmax");
        case stage::weighted_sum:
            return tr("Weights·V", "权重·V");
        case stage::concat:
            return tr("Concat heads", "拼接各头");
        case stage::output_proj:
            return tr("·W_O", "·W_O");
        case stage::block:
            return tr("Residual + FFN", "残差 + FFN");
        case stage::output:
            return tr("Output", "输出");
        case stage::count:
            break;
    }
    return "?";
}

const char* stage_formula(stage s) {
    switch (s) {
        case stage::embeddings:
            return "X = E[tokens] + PE";
        case stage::projections:
            return "Q = X·W_q   K = X·W_k   V = X·W_v";
        case stage::scores:
            return "S_h = Q_h · K_hᵀ";
        case stage::scaled:
            return "S'_h = S_h / √d_k";
        case stage::masked:
            return "M_h(i,j) = S'_h(i,j), or −∞ where j is hidden from i";
        case stage::weights:
            return "P_h(i,j) = exp(M(i,j) − max_j M(i,j)) / Σ_j exp(M(i,j) − max_j M(i,j))";
        case stage::weighted_sum:
            return "O_h = P_h · V_h";
        case stage::concat:
            return "O = [O_1 | O_2 | … | O_h]";
        case stage::output_proj:
            return "A = O · W_O";
        case stage::block:
            return "r = x + A;   y = r + relu(norm(r)·W_1)·W_2";
        case stage::output:
            return "y";
        case stage::count:
            break;
    }
    return "";
}

const char* stage_explain(stage s) {
    switch (s) {
        case stage::embeddings:
            return tr(
                "Each token becomes a vector (a row of X). The same word always gets the same row; positions are added "
                "here when sinusoidal encoding is on.",
                "每个词元变成一个向量（X 的一行）。同一个词总是同一行；开启正弦位置编码时，位置在这里加上。");
        case stage::projections:
            return tr(
                "Three views of each token: the query Q is what it looks for, the key K is what it can be found by, "
                "the value V is the content it hands over. With RoPE, Q and K are rotated by position.",
                "每个词元的三种视角：查询 Q 是\"我在找什么\"，键 K 是\"我能被什么找到\"，值 V 是被取走的内容。开启 "
                "RoPE 时，Q 和 K 按位置旋转。");
        case stage::scores:
            return tr("q_i·k_j: how much token i wants to take from token j. One n×n matrix per head.",
                      "q_i·k_j：第 i 个词元想从第 j 个词元取多少。每个头一张 n×n 的矩阵。");
        case stage::scaled:
            return tr("Dividing by √d_k brings the dot products back to unit variance, so softmax does not saturate.",
                      "除以 √d_k 把点积的方差拉回 1，softmax 就不会饱和。");
        case stage::masked:
            return tr("Hidden pairs get −∞ so that softmax gives them exactly zero weight (causal: no looking ahead).",
                      "被屏蔽的位置设为 −∞，softmax 后权重恰好为 0（因果掩码：不能看未来）。");
        case stage::weights:
            return tr("Softmax turns each row into non-negative weights that sum to 1: a soft, differentiable lookup.",
                      "softmax 把每一行变成非负、和为 1 的权重：一次软的、可微的查表。");
        case stage::weighted_sum:
            return tr("Each output row is the weighted mix of the value rows: high weight means V_j is mixed in.",
                      "每个输出行是各个值向量的加权混合：权重高只说明 V_j 被大量混入。");
        case stage::concat:
            return tr("The heads' outputs side by side: each head worked in its own d_k-wide subspace.",
                      "各头的输出并排拼接：每个头都在自己 d_k 维的子空间里工作。");
        case stage::output_proj:
            return tr("W_O mixes the heads' subspaces. Without it (turn W_O off) the heads never mix.",
                      "W_O 把各头的子空间混合起来。去掉它（关闭 W_O），各头永远不会混合。");
        case stage::block:
            return tr("Residual connection and feed-forward network: later computation can rewrite what attention mixed in.",
                      "残差连接和前馈网络：后面的计算可以改写注意力混入的信息。");
        case stage::output:
            return tr("What the model hands on. Ablate a head or mask an edge and watch how much this changes.",
                      "模型最终交出的结果。屏蔽一个头或一条边，看它变化多少。");
        case stage::count:
            break;
    }
    return "";
}

bool stage_per_head(stage s) {
    return s == stage::scores || s == stage::scaled || s == stage::masked || s == stage::weights || s == stage::weighted_sum;
}

std::vector<stage_matrix> stage_matrices(stage s, const trace& t, int layer, int head) {
    const layer_trace& lt = t.layers[std::size_t(layer)];
    const layer_weights& w = t.params.layers[std::size_t(layer)];
    const head_trace& ht = lt.heads[std::size_t(head)];
    std::vector<stage_matrix> out;
    auto add = [&out](stage_matrix m) { out.push_back(m); };
    switch (s) {
        case stage::embeddings:
            if (layer == 0) {
                add({"X", &t.x0});
                add({"E", &t.params.embeddings, true, nullptr, false, false, edit_target::x, true});
                if (t.positions.size() && t.positions.data != std::vector<float>(t.positions.size(), 0.0f))
                    add({"PE", &t.positions});
            } else {
                add({"x", &lt.input});
            }
            break;
        case stage::projections:
            add({"W_q", &w.w_q, true, nullptr, false, false, edit_target::w_q, true});
            add({"W_k", &w.w_k, true, nullptr, false, false, edit_target::w_k, true});
            add({"W_v", &w.w_v, true, nullptr, false, false, edit_target::w_v, true});
            add({"Q", &lt.q_rot});
            add({"K", &lt.k_rot});
            add({"V", &lt.v});
            break;
        case stage::scores:
            add({"S", &ht.scores, true, nullptr, false, true});
            break;
        case stage::scaled:
            add({"S'", &ht.scaled, true, nullptr, false, true});
            break;
        case stage::masked:
            add({"M", &ht.masked, true, &ht.masked, false, true});
            break;
        case stage::weights:
            add({"P", &ht.weights, false, &ht.masked, true, true});
            break;
        case stage::weighted_sum:
            add({"O_h", &ht.out});
            break;
        case stage::concat:
            add({"O", &lt.concat});
            break;
        case stage::output_proj:
            add({"W_O", &w.w_o, true, nullptr, false, false, edit_target::w_o, true});
            add({"A", &lt.attn_out});
            break;
        case stage::block:
            add({"r = x + A", &lt.residual});
            add({"W_1", &w.w_1, true, nullptr, false, false, edit_target::w_1, true});
            add({"relu(norm(r)·W_1)", &lt.ffn_hidden});
            add({"W_2", &w.w_2, true, nullptr, false, false, edit_target::w_2, true});
            add({"y", &lt.output});
            break;
        case stage::output:
            add({"y", &t.output});
            break;
        case stage::count:
            break;
    }
    return out;
}

// numpy_code_lines() is generated from tests/article.py (cmake/embed_article.py).

std::pair<int, int> stage_code_lines(stage s) {
    switch (s) {
        case stage::embeddings:
            return {6, 7};
        case stage::projections:
            return {8, 8};
        case stage::scores:
            return {9, 9};
        case stage::scaled:
            return {9, 9};
        case stage::masked:
            return {10, 12};
        case stage::weights:
            return {0, 3};
        case stage::weighted_sum:
            return {13, 13};
        case stage::concat:
            return {15, 16};
        case stage::output_proj:
            return {17, 17};
        case stage::block:
        case stage::output:
            return {-1, -1};
        case stage::count:
            break;
    }
    return {-1, -1};
}

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

}  // namespace attn::ui
