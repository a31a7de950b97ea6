// The key table (keys.hpp): every key of a link, one row each, and the one engine
// that reads, writes and checks a key from its row.
#include "spec/keys.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <vector>

#include "base/text_util.hpp"

namespace attn {

namespace {

// [SECTION] numbers as text

bool parse_int(std::string_view s, long long& out) {
    if (s.empty() || s.size() > 12)
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

// A view key's whole number: at most six characters, from lo to hi.
bool parse_small_int(std::string_view s, int lo, int hi, int& out) {
    if (s.empty() || s.size() > 6)
        return false;
    const bool negative = s[0] == '-';
    if (negative)
        s.remove_prefix(1);
    if (s.empty())
        return false;
    int v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    v = negative ? -v : v;
    if (v < lo || v > hi)
        return false;
    out = v;
    return true;
}

enum class float_parse { ok, malformed, overflow };

// Accepts decimal and exponent forms only (no hex, inf or nan); sets out only when
// ok. A number beyond the largest float (about 3.4e38) is an overflow, not a
// malformed one; one too small for a float rounds to the nearest (possibly 0).
float_parse parse_float(std::string_view s, float& out) {
    if (s.empty() || s.size() > 32)
        return float_parse::malformed;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
            return float_parse::malformed;
    const std::string buf(s);
    char* end = nullptr;
    const float x = std::strtof(buf.c_str(), &end);
    if (end != buf.c_str() + buf.size())
        return float_parse::malformed;
    if (!std::isfinite(x))
        return float_parse::overflow;
    out = x == 0.0f ? 0.0f : x;  // "-0" and a negative that underflows are 0: one canonical text
    return float_parse::ok;
}

// What is wrong with an experiment's float value, for "<key> <problem>"; "" when it parsed.
std::string float_problem(float_parse p, std::string_view v, const char* expected) {
    if (p == float_parse::ok)
        return "";
    if (p == float_parse::overflow)
        return "is out of range: " + quoted(v) + " overflows a 32-bit float (largest about 3.4e38)";
    return std::string("must be ") + expected + ", not " + quoted(v);
}

std::string whole_text(double x) { return std::to_string(static_cast<long long>(x)); }

// Parses "a.b.c..." into exactly `count` non-negative integers.
bool parse_dotted(std::string_view s, int* out, int count) {
    const auto parts = split(s, '.');
    if (int(parts.size()) != count)
        return false;
    for (int i = 0; i < count; ++i) {
        long long v = 0;
        if (!parse_int(parts[std::size_t(i)], v) || v < 0 || v > 100000)
            return false;
        out[i] = int(v);
    }
    return true;
}

// [SECTION] members

template <class M>
struct member_of;
template <class C, class V>
struct member_of<V C::*> {
    using owner = C;
    using value = V;
};

template <auto M>
constexpr key_part part_of() {
    using C = typename member_of<decltype(M)>::owner;
    if constexpr (std::is_same_v<C, experiment>)
        return key_part::experiment;
    else if constexpr (std::is_same_v<C, train_settings>)
        return key_part::recipe;
    else
        return key_part::view;
}

template <auto M, class X>
auto& member(X x) {
    using C = typename member_of<decltype(M)>::owner;
    if constexpr (std::is_same_v<C, experiment>)
        return (*x.e).*M;
    else if constexpr (std::is_same_v<C, train_settings>)
        return (*x.train).*M;
    else
        return (*x.view).*M;
}

template <auto M>
double get(key_const_values x) {
    const auto v = member<M>(x);
    if constexpr (std::is_enum_v<decltype(v)>)
        return double(static_cast<int>(v));
    else
        return double(v);
}

template <auto M>
void set(key_values x, double v) {
    using V = typename member_of<decltype(M)>::value;
    if constexpr (std::is_same_v<V, bool>)
        member<M>(x) = v != 0.0;
    else if constexpr (std::is_enum_v<V>)
        member<M>(x) = static_cast<V>(static_cast<int>(v));
    else
        member<M>(x) = static_cast<V>(v);
}

template <auto M>
key_row whole(const char* name, double lo, double hi, key_control control, key_help help, const char* example) {
    key_row r{name, part_of<M>(), key_kind::whole};
    r.lo = lo, r.hi = hi, r.control = control, r.help = help, r.example = example;
    r.get = get<M>, r.set = set<M>;
    return r;
}

template <auto M>
key_row number(const char* name, double lo, double hi, key_control control, key_help help, const char* example) {
    key_row r = whole<M>(name, lo, hi, control, help, example);
    r.kind = key_kind::number;
    return r;
}

template <auto M>
key_row choice(const char* name, std::span<const key_choice> choices, key_help help, const char* example) {
    key_row r{name, part_of<M>(), key_kind::choice};
    r.choices = choices, r.help = help, r.example = example;
    r.get = get<M>, r.set = set<M>;
    return r;
}

key_row other(const char* name, key_part part, key_help help, const char* example,
              std::string (*read)(key_values, std::string_view), std::string (*write)(key_const_values)) {
    key_row r{name, part, key_kind::other};
    r.help = help, r.example = example, r.read = read, r.write = write;
    return r;
}

// [SECTION] names

// clang-format off
constexpr key_choice positional_choices[] = {
    {int(positional::none), "none", "none", "无"}, {int(positional::sinusoidal), "sin", "sinusoidal", "正弦"},
    {int(positional::rope), "rope", "RoPE", "RoPE"}, {int(positional::learned), "learned"}};
constexpr key_choice mask_choices[] = {
    {int(mask_kind::none), "none", "none", "无"}, {int(mask_kind::causal), "causal", "causal", "因果"},
    {int(mask_kind::padding), "padding", "padding", "填充"}};
constexpr key_choice softmax_choices[] = {
    {int(softmax_mode::stable), "stable", "stable (x − max)", "稳定（x − max）"},
    {int(softmax_mode::no_max), "no_max", "no max-subtraction (bug)", "不减最大值（错误）"},
    {int(softmax_mode::argmax), "argmax", "argmax (hard lookup)", "argmax（硬查表）"}};
constexpr key_choice mask_at_choices[] = {{int(mask_placement::before_softmax), "before"},
                                          {int(mask_placement::after_softmax), "after"}};
constexpr key_choice weights_choices[] = {{int(weight_init::random), "random"}, {int(weight_init::specialised), "specialised"},
                                          {int(weight_init::cancel), "cancel"}, {int(weight_init::sink), "sink"}};
constexpr key_choice block_choices[] = {
    {int(block_kind::attention_only), "attn", "attention only", "仅注意力"},
    {int(block_kind::full), "full", "+ residual + FFN", "+ 残差 + FFN"},
    {int(block_kind::attention_residual), "attn_res", "attention + residual", "注意力 + 残差"}};
constexpr key_choice wo_choices[] = {{1, "on"}, {0, "off"}};
constexpr key_choice precision_choices[] = {
    {int(precision::fp32), "fp32"}, {int(precision::fp16), "fp16"}, {int(precision::bf16), "bf16"}};
constexpr key_choice target_choices[] = {
    {int(edit_target::x), "x"},     {int(edit_target::w_q), "w_q"}, {int(edit_target::w_k), "w_k"}, {int(edit_target::w_v), "w_v"},
    {int(edit_target::w_o), "w_o"}, {int(edit_target::w_1), "w_1"}, {int(edit_target::w_2), "w_2"}};
// The task list, written once: the link's names, the Train panel's labels (in this order).
constexpr key_choice task_choices[] = {
    {int(train_task::none), "none"},
    {int(train_task::induction), "induction", "induction (continue a repeated sequence)", "归纳（续写重复的序列）"},
    {int(train_task::copy_offset), "copy_offset", "copy the token a fixed offset back", "复制固定偏移之前的词元"},
    {int(train_task::reverse), "reverse", "reverse", "反转"},
    {int(train_task::sort), "sort", "sort", "排序"},
    {int(train_task::previous), "previous", "copy the previous token", "复制前一个词元"},
    {int(train_task::markov), "markov", "markov (a chain drawn per row: learn it in context)",
     "马尔可夫（每行抽一条链：在上下文中学会它）"}};
constexpr key_choice sched_choices[] = {{int(lr_schedule::constant), "const"}, {int(lr_schedule::cosine), "cosine"}};
constexpr key_choice flag_choices[] = {{0, "0"}, {1, "1"}};
constexpr key_choice theme_choices[] = {{int(view_theme::light), "light"}, {int(view_theme::dark), "dark"}};
constexpr key_choice panel_choices[] = {
    {int(view_panel::controls), "controls"}, {int(view_panel::code), "code"}, {int(view_panel::inspector), "inspector"},
    {int(view_panel::lessons), "lessons"}, {int(view_panel::stepper), "stepper"}};
static_assert(std::size(panel_choices) == view_panel_count);
// clang-format on

const char* name_in(std::span<const key_choice> choices, int value) {
    for (const key_choice& c : choices)
        if (c.value == value)
            return c.name;
    return "?";
}

std::optional<int> value_in(std::span<const key_choice> choices, std::string_view name) {
    for (const key_choice& c : choices)
        if (name == c.name)
            return c.value;
    return std::nullopt;
}

// [SECTION] keys of their own form

std::string read_text(key_values x, std::string_view v) {
    if (v.size() > std::size_t(experiment_limits::max_text_bytes))
        return "is " + std::to_string(v.size()) + " bytes; the limit is " + std::to_string(experiment_limits::max_text_bytes);
    x.e->text = std::string(v);
    return "";
}

std::string write_text(key_const_values x) { return x.e->text; }

std::string read_seed(key_values x, std::string_view v) {
    long long n = 0;
    if (!parse_int(v, n) || n < 0 || n > 4294967295ll)
        return "must be a whole number from 0 to 4294967295";
    x.e->seed = std::uint32_t(n);
    return "";
}

std::string read_scale(key_values x, std::string_view v) {
    experiment& e = *x.e;
    if (v == "sqrt") {
        e.scale = score_scale::sqrt_dk;
    } else if (v == "none") {
        e.scale = score_scale::none;
    } else if (const auto p = parse_float(v, e.scale_value); p == float_parse::ok) {
        e.scale = score_scale::custom;
    } else {
        return float_problem(p, v, "'sqrt', 'none' or a number");
    }
    return "";
}

std::string write_scale(key_const_values x) {
    const experiment& e = *x.e;
    return e.scale == score_scale::sqrt_dk ? "sqrt" : e.scale == score_scale::none ? "none" : key_format_float(e.scale_value);
}

std::optional<masked_edge> parse_edge(std::string_view s) {
    int v[4];
    if (!parse_dotted(s, v, 4))
        return std::nullopt;
    return masked_edge{v[0], v[1], v[2], v[3]};
}

std::optional<ablated_head> parse_ablated(std::string_view s) {
    int v[2];
    if (!parse_dotted(s, v, 2))
        return std::nullopt;
    return ablated_head{v[0], v[1]};
}

// "x.row.col:value" or "lL.target.row.col:value".
std::optional<value_edit> parse_edit(std::string_view s) {
    value_edit e;
    const std::size_t colon = s.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    // An overflowing value is kept as infinity so experiment_validate reports it
    // as out of range, once, instead of "not of the form".
    if (const auto p = parse_float(s.substr(colon + 1), e.value); p == float_parse::overflow)
        e.value = s[colon + 1] == '-' ? -INFINITY : INFINITY;
    else if (p != float_parse::ok)
        return std::nullopt;
    const auto parts = split(s.substr(0, colon), '.');
    const bool has_layer = parts.size() == 4;
    if (!has_layer && parts.size() != 3)
        return std::nullopt;
    long long layer = 0, row = 0, col = 0;
    if (has_layer && (parts[0].size() < 2 || parts[0][0] != 'l' || !parse_int(parts[0].substr(1), layer) || layer < 0))
        return std::nullopt;
    const std::size_t i = has_layer ? 1 : 0;
    const auto target = value_in(target_choices, parts[i]);
    if (!target || (edit_target(*target) == edit_target::x) == has_layer)
        return std::nullopt;
    if (!parse_int(parts[i + 1], row) || !parse_int(parts[i + 2], col) || row < 0 || col < 0 || row > 100000 || col > 100000 ||
        layer > 100)
        return std::nullopt;
    e.target = edit_target(*target);
    e.layer = int(layer);
    e.row = int(row);
    e.col = int(col);
    return e;
}

std::string edge_text(const masked_edge& m) {
    return std::to_string(m.layer) + "." + std::to_string(m.head) + "." + std::to_string(m.query) + "." + std::to_string(m.key);
}

std::string ablated_text(const ablated_head& a) { return std::to_string(a.layer) + "." + std::to_string(a.head); }

std::string edit_text(const value_edit& v) {
    std::string out;
    if (v.target != edit_target::x)
        out += "l" + std::to_string(v.layer) + ".";
    out += name_in(target_choices, int(v.target));
    return out + "." + std::to_string(v.row) + "." + std::to_string(v.col) + ":" + key_format_float(v.value);
}

// A comma-separated list of at most max_list_items items.
template <class T>
std::string read_list(std::vector<T>& list, std::string_view v, std::optional<T> (*parse_item)(std::string_view),
                      const char* form) {
    list.clear();
    const auto items = split(v, ',');
    if (int(items.size()) > experiment_limits::max_list_items)
        return "has " + std::to_string(items.size()) + " items; the limit is " +
               std::to_string(experiment_limits::max_list_items);
    for (const auto item : items) {
        const auto x = parse_item(item);
        if (!x)
            return "item " + quoted(item) + " is not of the form " + form;
        list.push_back(*x);
    }
    return "";
}

template <class T>
std::string write_list(const std::vector<T>& list, std::string (*item_text)(const T&)) {
    std::string out;
    for (std::size_t i = 0; i < list.size(); ++i)
        out += (i ? "," : "") + item_text(list[i]);
    return out;
}

std::string read_edges(key_values x, std::string_view v) { return read_list(x.e->edges, v, parse_edge, "layer.head.query.key"); }
std::string write_edges(key_const_values x) { return write_list(x.e->edges, edge_text); }
std::string read_ablate(key_values x, std::string_view v) { return read_list(x.e->ablate, v, parse_ablated, "layer.head"); }
std::string write_ablate(key_const_values x) { return write_list(x.e->ablate, ablated_text); }
std::string read_edits(key_values x, std::string_view v) {
    return read_list(x.e->edits, v, parse_edit, "x.row.col:value or lL.w_q.row.col:value");
}
std::string write_edits(key_const_values x) { return write_list(x.e->edits, edit_text); }

std::string read_model_edges(key_values x, std::string_view v) {
    return read_list(x.view->model_edges, v, parse_edge, "layer.head.query.key");
}
std::string write_model_edges(key_const_values x) { return write_list(x.view->model_edges, edge_text); }
std::string read_model_ablate(key_values x, std::string_view v) {
    return read_list(x.view->model_ablate, v, parse_ablated, "layer.head");
}
std::string write_model_ablate(key_const_values x) { return write_list(x.view->model_ablate, ablated_text); }
std::string read_model_head(key_values x, std::string_view v) {
    const auto h = parse_ablated(v);
    if (!h)
        return "must be layer.head (two whole numbers), not " + quoted(v);
    x.view->model_layer = h->layer, x.view->model_head = h->head;
    return "";
}
std::string write_model_head(key_const_values x) { return ablated_text({x.view->model_layer, x.view->model_head}); }

std::string check_trained(key_const_values x) {
    const int n = x.train->trained;
    return n == train_settings::trained_all || (n >= 0 && n <= train_limits::max_steps)
               ? std::string()
               : "must be between 0 and " + std::to_string(train_limits::max_steps);
}

std::string read_whole(const key_row& k, key_values x, std::string_view v);

std::string read_lesson(key_values x, std::string_view v) {
    std::string problem = read_whole(key_of("view.lesson"), x, v);
    if (problem.empty() && x.view->lesson == 0)
        problem = "counts from 1 (L1), not 0";
    return problem;
}

// Panels, each at most once; one problem a line.
std::string read_hide(key_values x, std::string_view v) {
    x.view->hide = {};
    std::string problems;
    if (v.empty())
        return problems;
    for (const auto name : split(v, ',')) {
        const auto p = value_in(panel_choices, name);
        const std::string problem =
            !p ? ": unknown panel " + quoted(name) + " (panels: " + key_choice_list(key_of("view.hide")) + ")"
            : x.view->hide[std::size_t(*p)] ? "names " + quoted(name) + " twice"
                                            : "";
        if (p && problem.empty())
            x.view->hide[std::size_t(*p)] = true;
        if (!problem.empty())
            problems += (problems.empty() ? "" : "\n") + problem;
    }
    return problems;
}

std::string write_hide(key_const_values x) {
    std::string out;
    for (const key_choice& c : panel_choices)
        if (x.view->hide[std::size_t(c.value)])
            out += (out.empty() ? "" : ",") + std::string(c.name);
    return out;
}

// [SECTION] the table

// The experiment's text, seed and the model's shape.
std::vector<key_row> shape_rows() {
    using L = experiment_limits;
    using e = experiment;
    key_row text = other("text", key_part::experiment,
                         {"The sentence: each word (or Chinese character) becomes a token, a row of every map.",
                          "句子：每个词（或汉字）成为一个词元，也就是每张图的一行。"},
                         "the dog sat", read_text, write_text);
    text.hi = L::max_text_bytes;
    key_row seed = whole<&e::seed>("seed", 0, 4294967295.0, {0, 4294967295.0, 1},
                                   {"Seed of the random weights and embeddings: the same seed gives the same numbers everywhere.",
                                    "随机权重和嵌入的种子：同一个种子在任何地方都给出同样的数字。"},
                                   "7");
    seed.read = read_seed;
    return {
        text,
        seed,
        whole<&e::d_model>("d_model", 1, L::max_d_model, {2, 64},
                           {"Width of each token's vector, split evenly among the heads: d_k = d_model / heads.",
                            "每个词元向量的宽度，平均分给各头：d_k = d_model / 头数。"},
                           "16"),
        whole<&e::heads>("heads", 1, L::max_heads, {1, L::max_heads},
                         {"Attention heads: each gets its own d_k-wide slice of Q, K and V.",
                          "注意力头数：每个头分到 Q、K、V 中各自 d_k 宽的一段。"},
                         "4"),
        whole<&e::kv_heads>(
            "kv_heads", 1, L::max_heads, {1, L::max_heads},
            {"How many K/V heads the query heads share: one each (MHA), one per group (GQA) or one for all (MQA).",
             "查询头共享几个 K/V 头：每头一个（MHA）、每组一个（GQA）或全部共用一个（MQA）。"},
            "1"),
        whole<&e::layers>("layers", 1, L::max_layers, {1, L::max_layers},
                          {"Attention layers stacked: each layer's output is the next one's input.",
                           "堆叠的注意力层数：每一层的输出是下一层的输入。"},
                          "2"),
        choice<&e::block>(
            "block", block_choices,
            {"What a layer is: attention alone, attention added to its input (residual), or that and a feed-forward network.",
             "一层由什么组成：只有注意力、注意力加上它的输入（残差），或再加一个前馈网络。"},
            "full"),
        choice<&e::weights>("weights", weights_choices,
                            {"How the weights are made: drawn from the seed, or built by hand to show one behaviour "
                             "(previous-token and same-token heads, two heads that cancel, an attention sink).",
                             "权重如何得到：由种子随机生成，或手工构造以展示一种行为（前一词元头和同词元头、相互抵消的两个头、"
                             "注意力汇点）。"},
                            "sink"),
        choice<&e::pos>("pos", positional_choices,
                        {"How order enters: not at all (a bag of tokens), sinusoids added to X, or RoPE rotating Q and K.",
                         "词序如何进入：不进入（一袋词元）、加到 X 上的正弦编码，或旋转 Q 和 K 的 RoPE。"},
                        "rope"),
    };
}

// How attention is computed and what is changed in it, in the link's order.
std::vector<key_row> attention_rows() {
    using L = experiment_limits;
    using e = experiment;
    key_row rope_base =
        number<&e::rope_base>("rope_base", 1, L::max_rope_base, {2, 1e6, 50, true, "%.0f"},
                              {"RoPE's base: the larger it is, the more slowly the slow pairs of dimensions rotate.",
                               "RoPE 的底数：越大，慢速的那些维度对旋转得越慢。"},
                              "500");
    rope_base.lo_open = true;
    key_row scale = other("scale", key_part::experiment,
                          {"What the scores are multiplied by before softmax: 1/√d_k keeps their variance at 1.",
                           "softmax 之前打分乘以什么：1/√d_k 让它们的方差保持为 1。"},
                          "0.25", read_scale, write_scale);
    scale.lo = -L::max_abs_value, scale.hi = L::max_abs_value, scale.control = {-100, 100, 0.01, false, "%.3f"};
    scale.get = get<&e::scale_value>, scale.set = set<&e::scale_value>;
    auto list = [](const char* name, key_help help, const char* example, auto read, auto write) {
        key_row r = other(name, key_part::experiment, help, example, read, write);
        r.hi = L::max_list_items;
        return r;
    };
    return {
        rope_base,
        whole<&e::pos_offset>("pos_offset", 0, L::max_pos_offset, {0, 100},
                              {"The first token's position: with RoPE the scores depend only on the offset between positions.",
                               "第一个词元的位置：用 RoPE 时，打分只取决于两个位置之差。"},
                              "5"),
        choice<&e::mask>("mask", mask_choices,
                         {"Which tokens each query may see: all, causal (no looking ahead) or all but the padding.",
                          "每个查询能看到哪些词元：全部、因果（不能看未来）或除填充外的全部。"},
                         "padding"),
        whole<&e::pad>("pad", 0, L::max_tokens, {0, L::max_tokens - 1},
                       {"How many tokens at the end are padding, which no query may attend to.",
                        "末尾有几个词元是填充：任何查询都不能关注它们。"},
                       "1"),
        list("edges",
             {"Masked attention edges, layer.head.query.key: a click on a cell of a softmax map masks it.",
              "被屏蔽的注意力边（层.头.查询.键）：在 softmax 热力图上点击一个格子即可屏蔽它。"},
             "0.1.3.2,0.0.4.1", read_edges, write_edges),
        scale,
        choice<&e::softmax>(
            "softmax", softmax_choices,
            {"How scores become weights: softmax of x − max, softmax without it (a bug), or argmax (a hard lookup).",
             "打分如何变成权重：减去最大值的 softmax、不减最大值的 softmax（错误）或 argmax（硬查表）。"},
            "argmax"),
        number<&e::temperature>(
            "temp", L::min_temperature, L::max_abs_value, {0.05, 10, 0, true, "%.2f"},
            {"The scores are divided by it before softmax: below 1 sharpens the weights, above 1 flattens them.",
             "softmax 之前打分除以它：小于 1 让权重更尖锐，大于 1 让权重更平坦。"},
            "0.5"),
        choice<&e::mask_at>("mask_at", mask_at_choices,
                            {"A classic bug: masking after softmax, so the rows no longer sum to 1.",
                             "一个经典错误：在 softmax 之后才掩码，于是每行的和不再是 1。"},
                            "after"),
        choice<&e::use_wo>("wo", wo_choices,
                           {"The output projection W_O that mixes the heads; without it each head stays in its own columns.",
                            "混合各头的输出投影 W_O；没有它，每个头只停留在自己的那几列。"},
                           "off"),
        choice<&e::prec>("precision", precision_choices,
                         {"The number format: fp16 and bf16 round every result, and fp16 overflows past 65504.",
                          "数值格式：fp16 和 bf16 会舍入每个结果，fp16 超过 65504 就溢出。"},
                         "bf16"),
        list("ablate",
             {"Zeroed heads, layer.head: a head's \"zero\" box ablates it, and what reads it downstream changes.",
              "置零的头（层.头）：勾选某个头的\"置零\"即可消融它，下游读取它的部分随之改变。"},
             "0.1,1.0", read_ablate, write_ablate),
        whole<&e::decode>("decode", 0, L::max_tokens, {},
                          {"How many tokens KV-cache decoding has consumed, one at a time (0: off); the output is the full "
                           "pass's.",
                           "KV 缓存逐个解码已处理的词元数（0：关闭）；输出与完整计算相同。"},
                          "3"),
        list("edits",
             {"Edited numbers, x.row.col:value or lL.w_q.row.col:value: a typed or dragged value replaces the generated one.",
              "改过的数值（x.行.列:值 或 lL.w_q.行.列:值）：输入或拖动的值替换生成的值。"},
             "x.2.3:0.5,l0.w_q.1.2:-1.25", read_edits, write_edits),
    };
}

// The help of the keys a control edits is shown on hover (src/ui/panels/controls.cpp).
std::vector<key_row> experiment_rows() {
    std::vector<key_row> rows = shape_rows();
    for (key_row& r : attention_rows())
        rows.push_back(std::move(r));
    return rows;
}

std::vector<key_row> recipe_rows() {
    using L = train_limits;
    using t = train_settings;
    key_row trained = whole<&t::trained>("trained", 0, L::max_steps, {},
                                         {"How many of the run's steps the model shown has taken (not written: all of them).",
                                          "所显示的模型已训练了多少步（不写：全部）。"},
                                         "100");
    trained.check = check_trained;
    return {
        choice<&t::task>("train", task_choices,
                         {"The task the model is trained on; none: no training.", "模型要训练的任务；none：不训练。"},
                         "induction"),
        whole<&t::steps>("steps", 0, L::max_steps, {10, 5000, 0, true},
                         {"Training steps of the run: each one batch and one AdamW update.",
                          "这次训练的步数：每步一个批量、一次 AdamW 更新。"},
                         "1500"),
        number<&t::lr>("lr", 0, L::max_lr, {1e-4, 0.3, 0, true, "%.4g"},
                       {"Learning rate: how far each AdamW update moves the weights.", "学习率：每次 AdamW 更新让权重移动多远。"},
                       "0.003"),
        whole<&t::batch>("batch", 1, L::max_batch, {1, 128, 0, true},
                         {"Rows of the task per step: the loss is their mean.", "每步用任务的多少行：损失是它们的平均。"}, "8"),
        whole<&t::seq>("seq", L::min_seq, L::max_seq, {L::min_seq, 64},
                       {"Tokens in each row of the task.", "任务每一行的词元数。"}, "12"),
        whole<&t::vocab>("vocab", L::min_vocab, L::max_vocab, {L::min_vocab, L::max_vocab},
                         {"How many symbols the task's rows use: a–z, then A–Z, then 0–9.",
                          "任务各行使用多少个符号：先 a–z，再 A–Z，再 0–9。"},
                         "8"),
        whole<&t::train_seed>("train_seed", 0, 4294967295.0, {0, 4294967295.0, 1},
                              {"Seed of the batches and the held-out rows (the weights come from seed).",
                               "批量和留出集各行的种子（权重来自 seed）。"},
                              "2"),
        whole<&t::warmup>("warmup", 0, L::max_steps, {0, L::max_steps},
                          {"Steps over which the learning rate rises linearly from 0.", "学习率从 0 线性升高所用的步数。"}, "5"),
        number<&t::wd>("wd", 0, 1, {0, 0.5, 0, false, "%.3f"},
                       {"AdamW's decoupled weight decay: each step shrinks the weights a little.",
                        "AdamW 的解耦权重衰减：每一步把权重缩小一点。"},
                       "0.1"),
        number<&t::clip>("clip", 0, 1e6, {0, 5, 0, false, "%.2f"},
                         {"The gradient's global norm is cut to this (0: off).", "梯度的全局范数被裁剪到这个值（0：关闭）。"},
                         "0.5"),
        choice<&t::sched>("sched", sched_choices,
                          {"After the warm-up the learning rate stays (const) or falls along a cosine.",
                           "预热之后学习率保持不变（const）或沿余弦下降。"},
                          "cosine"),
        // Its relation to seq is checked by recipe_problems.
        whole<&t::offset>(
            "offset", 1, L::max_seq - 1, {1, L::max_seq - 1},
            {"copy_offset: the target is the token this many places back.", "copy_offset：目标是往回数这么多个位置的词元。"},
            "2"),
        number<&t::markov_alpha>(
            "markov_alpha", L::min_markov_alpha, L::max_markov_alpha, {L::min_markov_alpha, 10, 0, true, "%.2f"},
            {"markov: each row draws every token's next-token distribution from a symmetric Dirichlet(α); small α, "
             "sharp transitions.",
             "markov：每一行为每个词元从对称狄利克雷分布 Dirichlet(α) 抽取下一个词元的分布；α 越小，转移越集中。"},
            "0.5"),
        trained,
    };
}

std::vector<key_row> view_rows() {
    using v = link_view;
    key_row lesson =
        whole<&v::lesson>("view.lesson", -1, link_view_limits::max_lesson, {},
                          {"Open lesson L1…L10: the link's experiment keys then change only what they name in its experiment.",
                           "打开第 L1…L10 课：链接中的实验键只改动该课实验中它们指明的部分。"},
                          "3");
    lesson.read = read_lesson;
    key_row hide = other("view.hide", key_part::view,
                         {"Panels to hide: controls, code, inspector, lessons, stepper.",
                          "要隐藏的面板：controls、code、inspector、lessons、stepper。"},
                         "controls,code", read_hide, write_hide);
    hide.choices = panel_choices;
    return {
        lesson,
        whole<&v::stage>(
            "view.stage", -1, link_view_limits::max_stage, {},
            {"The pipeline's stage shown: 0 = embeddings … 10 = output.", "显示的流水线阶段：0 = 嵌入 … 10 = 输出。"}, "5"),
        whole<&v::row>("view.row", -1, experiment_limits::max_tokens - 1, {}, {"The selected query token.", "选中的查询词元。"},
                       "2"),
        hide,
        choice<&v::readonly>("view.readonly", flag_choices,
                             {"1: the experiment cannot be changed, by the page's controls or by a host.",
                              "1：实验不能被更改，页面的控件和宿主页面都不能。"},
                             "1"),
        choice<&v::embed>("view.embed", flag_choices, {"1: minimal chrome, for an iframe.", "1：最少的界面，用于 iframe。"}, "1"),
        choice<&v::theme>("view.theme", theme_choices,
                          {"The colours, light or dark, for an embed's host.", "配色：浅色或深色，供嵌入的宿主页面使用。"},
                          "dark"),
        choice<&v::poster>("view.poster", flag_choices,
                           {"1: click to run; nothing loads until Run.", "1：点击运行；点“运行”之前什么都不加载。"}, "1"),
        number<&v::temperature>("view.temperature", 0, 100, {0, 2, 0, false, "%.2f"},
                                {"A real model's Continue: the softmax's temperature (0: the likeliest token each time).",
                                 "真实模型的“续写”：softmax 的温度（0：每次取最可能的词元）。"},
                                "1"),
        number<&v::top_p>("view.top_p", 0, 1, {0, 1, 0, false, "%.2f"},
                          {"A real model's Continue: sample among the likeliest tokens whose probabilities sum to this "
                           "(0 or 1: all of them).",
                           "真实模型的“续写”：只在概率之和达到该值的最可能词元中抽样（0 或 1：全部）。"},
                          "0.95"),
        whole<&v::gen_seed>("view.gen_seed", 0, 999999, {0, 999999, 1},
                            {"A real model's Continue: the sampling's seed (the same seed, the same text).",
                             "真实模型的“续写”：抽样的种子（种子相同，文本相同）。"},
                            "42"),
        whole<&v::gen_tokens>("view.gen_tokens", 1, 256, {1, 256},
                              {"A real model's Continue: how many tokens it generates.", "真实模型的“续写”：生成多少个词元。"},
                              "100"),
        other("view.model_head", key_part::view,
              {"A real model's selected head, layer.head: the Model window shows it large.",
               "真实模型中选中的头，layer.head：模型窗口把它放大显示。"},
              "2.1", read_model_head, write_model_head),
        choice<&v::model_pipeline>("view.model_pipeline", flag_choices,
                                   {"1: the pipeline shows the real model's selected layer, every stage and head.",
                                    "1：流水线显示真实模型选中的那一层，每个阶段、每个头。"},
                                   "1"),
        other("view.model_ablate", key_part::view,
              {"A real model's zeroed heads, layer.head: the model runs again without them.",
               "真实模型中置零的头，layer.head：模型去掉它们再运行一次。"},
              "0.3,2.1", read_model_ablate, write_model_ablate),
        other("view.model_edges", key_part::view,
              {"A real model's masked attention edges, layer.head.query.key: a click on a cell of the selected head's "
               "softmax map masks it.",
               "真实模型中被屏蔽的注意力边，layer.head.query.key：点击选中头的 softmax 图中的格子即可屏蔽它。"},
              "2.1.7.3", read_model_edges, write_model_edges),
    };
}

const std::vector<key_row>& table() {
    static const std::vector<key_row> rows = [] {
        std::vector<key_row> all = experiment_rows();
        for (auto part : {recipe_rows(), view_rows()})
            all.insert(all.end(), part.begin(), part.end());
        return all;
    }();
    return rows;
}

// [SECTION] reading a key from its row

// A value of k as the link writes it: a whole number's digits, a number's
// shortest exact form, a choice's name ("" for a key of its own form).
std::string value_text(const key_row& k, double v) {
    switch (k.kind) {
        case key_kind::whole:
            return whole_text(v);
        case key_kind::number:
            return key_format_float(float(v));
        case key_kind::choice:
            return name_in(k.choices, int(v));
        case key_kind::other:
            break;
    }
    return "";
}

// "<lo> and <hi>": k's limits, as its values are written.
std::string limits_text(const key_row& k) { return value_text(k, k.lo) + " and " + value_text(k, k.hi); }

std::string read_whole(const key_row& k, key_values x, std::string_view v) {
    if (k.part == key_part::view) {
        int n = 0;
        if (!parse_small_int(v, int(k.lo), int(k.hi), n))
            return "must be a whole number from " + whole_text(k.lo) + " to " + whole_text(k.hi) + ", not " + quoted(v);
        k.set(x, n);
        return "";
    }
    long long n = 0;
    if (!parse_int(v, n))
        return "must be a whole number, not " + quoted(v);
    if (double(n) < k.lo || double(n) > k.hi)
        return "must be between " + limits_text(k) + ", not " + std::string(v);
    k.set(x, double(n));
    return "";
}

// An experiment's float is only read here (experiment_validate checks its range,
// with what it means); a recipe's must be within its limits.
std::string read_number(const key_row& k, key_values x, std::string_view v) {
    float f = 0.0f;
    const float_parse p = parse_float(v, f);
    if (k.part == key_part::experiment) {
        if (p == float_parse::ok)
            k.set(x, f);
        return float_problem(p, v, "a number");
    }
    if (p != float_parse::ok)
        return "must be a finite number, not " + quoted(v);
    k.set(x, f);
    if (!(f >= float(k.lo) && f <= float(k.hi)))
        return "must be between " + limits_text(k) + ", not " + std::string(v);
    return "";
}

std::string read_choice(const key_row& k, key_values x, std::string_view v) {
    const auto value = value_in(k.choices, v);
    if (!value)
        return "must be " + key_choice_list(k) + ", not " + quoted(v);
    k.set(x, *value);
    return "";
}

}  // namespace

// [SECTION] the engine

std::span<const key_row> key_table() { return table(); }

const key_row* key_find(std::string_view name, key_part part) {
    for (const key_row& k : table())
        if (k.part == part && name == k.name)
            return &k;
    return nullptr;
}

const key_row& key_of(std::string_view name) {
    for (const key_row& k : table())
        if (name == k.name)
            return k;
    std::fprintf(stderr, "key_of: no key %.*s\n", int(name.size()), name.data());
    std::abort();
}

std::string key_read(const key_row& k, key_values x, std::string_view value) {
    if (k.read)
        return k.read(x, value);
    switch (k.kind) {
        case key_kind::whole:
            return read_whole(k, x, value);
        case key_kind::number:
            return read_number(k, x, value);
        case key_kind::choice:
            return read_choice(k, x, value);
        case key_kind::other:
            break;
    }
    return "cannot be read";
}

std::string key_write(const key_row& k, key_const_values x) {
    if (k.write)
        return k.write(x);
    return k.kind == key_kind::other ? "" : value_text(k, k.get(x));
}

std::string key_check(const key_row& k, key_const_values x) {
    if (k.check)
        return k.check(x);
    if (k.kind == key_kind::whole) {
        const double v = k.get(x);
        return v >= k.lo && v <= k.hi ? std::string() : "must be between " + limits_text(k);
    }
    if (k.kind == key_kind::number) {
        const double v = k.get(x);
        return std::isfinite(v) && v >= k.lo && v <= k.hi && !(k.lo_open && v == k.lo)
                   ? std::string()
                   : "must be a number between " + limits_text(k);
    }
    return "";
}

double key_clamp(const key_row& k, double v) {
    if (!(v > k.lo) && k.lo_open)
        return k.control.lo;
    return std::clamp(v, k.lo, k.hi);
}

std::string key_choice_list(const key_row& k, const char* skip, bool quote) {
    const bool bare = !quote || k.part == key_part::view;           // view keys name their values bare
    const char* last = k.kind == key_kind::choice ? " or " : ", ";  // view.hide lists its panels
    std::vector<std::string> names;
    for (const key_choice& c : k.choices)
        if (!skip || std::string_view(c.name) != skip)
            names.push_back(bare ? std::string(c.name) : "'" + std::string(c.name) + "'");
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i ? (i + 1 == names.size() ? last : ", ") : "") + names[i];
    return out;
}

const char* key_choice_name(const key_row& k, int value) { return name_in(k.choices, value); }

bool key_parse_whole(std::string_view s, long long& out) { return parse_int(s, out); }

std::string key_format_float(float x) {
    char buf[48];
    if (x == 0.0f)
        return "0";  // never "-0"
    if (x == std::floor(x) && std::fabs(x) < 1e9f) {
        std::snprintf(buf, sizeof buf, "%.0f", double(x));
        return buf;
    }
    for (int prec = 1; prec <= 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, double(x));
        if (std::strtof(buf, nullptr) == x)
            break;
    }
    return buf;
}

const char* mask_kind_name(mask_kind m) { return name_in(mask_choices, int(m)); }
const char* positional_name(positional p) { return name_in(positional_choices, int(p)); }
const char* softmax_mode_name(softmax_mode s) { return name_in(softmax_choices, int(s)); }
const char* edit_target_name(edit_target t) { return name_in(target_choices, int(t)); }
const char* weight_init_name(weight_init w) { return name_in(weights_choices, int(w)); }
const char* train_task_name(train_task t) { return name_in(task_choices, int(t)); }
const char* view_panel_name(view_panel p) { return name_in(panel_choices, int(p)); }
std::string masked_edge_text(const masked_edge& m) { return edge_text(m); }
std::string ablated_head_text(const ablated_head& a) { return ablated_text(a); }

}  // namespace attn
