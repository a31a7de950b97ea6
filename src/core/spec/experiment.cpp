#include "spec/experiment.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"

namespace attn {

namespace {

// [SECTION] text helpers

bool keeps_literal(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           c == '~' || c == ',' || c == ':';
}

std::string percent_encode(std::string_view s) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (keeps_literal(c)) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size())
            return std::nullopt;
        const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        out += char(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// "" when s is valid UTF-8 without NUL, else what is wrong (for "<key> <problem>").
// Rejects what a lenient decoder would let through into tokens and JSON: stray
// continuation bytes, truncated sequences, overlong forms (C0 80 for NUL), UTF-16
// surrogates (ED A0 80 ..) and code points above U+10FFFF (F4 90 .., F5 ..).
std::string utf8_problem(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == 0)
            return "contains a NUL character (%00) at byte " + std::to_string(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        const int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
        // The second byte's range rules out overlong forms, surrogates and > U+10FFFF.
        const unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        const unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        bool ok = len > 0 && at(1) >= lo && at(1) <= hi;
        for (int k = 2; ok && k < len; ++k)
            ok = at(std::size_t(k)) >= 0x80 && at(std::size_t(k)) <= 0xBF;
        if (!ok) {
            // Named by the lead byte and the second byte's range (a continuation byte
            // either way); anything else is a stray, truncated or impossible sequence.
            const bool cont = at(1) >= 0x80 && at(1) <= 0xBF;
            const char* what = c == 0xC0 || c == 0xC1 || (cont && ((c == 0xE0 && at(1) < 0xA0) || (c == 0xF0 && at(1) < 0x90)))
                                   ? "an overlong encoding"
                               : cont && c == 0xED && at(1) >= 0xA0                               ? "an encoded UTF-16 surrogate"
                               : (c >= 0xF5 && c <= 0xFD) || (cont && c == 0xF4 && at(1) >= 0x90) ? "a code point above U+10FFFF"
                                                                                                  : "a broken byte sequence";
            return "is not valid UTF-8: " + std::string(what) + " at byte " + std::to_string(i);
        }
        i += std::size_t(len);
    }
    return "";
}

// A key as an error message names it: as it is when it reads as a key, else quoted
// (cut to 40 bytes: a pasted link may hold a key of kilobytes).
std::string key_label(std::string_view key) {
    bool plain = !key.empty() && key.size() <= 40;
    for (char c : key)
        plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
    return plain ? std::string(key) : quoted(key);
}

bool parse_int(std::string_view s, long long& out) {
    if (s.empty() || s.size() > 12)
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
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

// What is wrong with a float value, for "<key> <problem>"; "" when it parsed.
std::string float_problem(float_parse p, std::string_view v, const char* expected) {
    if (p == float_parse::ok)
        return "";
    if (p == float_parse::overflow)
        return "is out of range: " + quoted(v) + " overflows a 32-bit float (largest about 3.4e38)";
    return std::string("must be ") + expected + ", not " + quoted(v);
}

// The shortest %g form that reads back to exactly x; whole numbers up to 1e9
// without an exponent ("10000", not "1e+04").
std::string format_float(float x) {
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

// [SECTION] names

template <class E>
struct enum_name {
    E value;
    const char* name;
};

constexpr enum_name<positional> positional_names[] = {
    {positional::none, "none"}, {positional::sinusoidal, "sin"}, {positional::rope, "rope"}, {positional::learned, "learned"}};
constexpr enum_name<mask_kind> mask_names[] = {
    {mask_kind::none, "none"}, {mask_kind::causal, "causal"}, {mask_kind::padding, "padding"}};
constexpr enum_name<softmax_mode> softmax_names[] = {
    {softmax_mode::stable, "stable"}, {softmax_mode::no_max, "no_max"}, {softmax_mode::argmax, "argmax"}};
constexpr enum_name<mask_placement> mask_at_names[] = {{mask_placement::before_softmax, "before"},
                                                       {mask_placement::after_softmax, "after"}};
constexpr enum_name<weight_init> weights_names[] = {{weight_init::random, "random"},
                                                    {weight_init::specialised, "specialised"},
                                                    {weight_init::cancel, "cancel"},
                                                    {weight_init::sink, "sink"}};
constexpr enum_name<block_kind> block_names[] = {
    {block_kind::attention_only, "attn"}, {block_kind::full, "full"}, {block_kind::attention_residual, "attn_res"}};
constexpr enum_name<edit_target> target_names[] = {
    {edit_target::x, "x"},     {edit_target::w_q, "w_q"}, {edit_target::w_k, "w_k"}, {edit_target::w_v, "w_v"},
    {edit_target::w_o, "w_o"}, {edit_target::w_1, "w_1"}, {edit_target::w_2, "w_2"}};

template <class E, std::size_t N>
const char* name_of(const enum_name<E> (&table)[N], E v) {
    for (const auto& entry : table)
        if (entry.value == v)
            return entry.name;
    return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const enum_name<E> (&table)[N], std::string_view s) {
    for (const auto& entry : table)
        if (s == entry.name)
            return entry.value;
    return std::nullopt;
}

template <class E, std::size_t N>
std::string choices(const enum_name<E> (&table)[N]) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i)
        out += (i ? (i + 1 == N ? " or '" : ", '") : "'") + std::string(table[i].name) + "'";
    return out;
}

// [SECTION] lists

std::string format_edges(const std::vector<masked_edge>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(v[i].layer) + "." + std::to_string(v[i].head) + "." + std::to_string(v[i].query) + "." +
               std::to_string(v[i].key);
    }
    return out;
}

std::string format_ablate(const std::vector<ablated_head>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(v[i].layer) + "." + std::to_string(v[i].head);
    }
    return out;
}

std::string format_edits(const std::vector<value_edit>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        if (v[i].target != edit_target::x)
            out += "l" + std::to_string(v[i].layer) + ".";
        out += name_of(target_names, v[i].target);
        out += "." + std::to_string(v[i].row) + "." + std::to_string(v[i].col) + ":" + format_float(v[i].value);
    }
    return out;
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
    const auto target = value_of(target_names, parts[i]);
    if (!target || (*target == edit_target::x) == has_layer)
        return std::nullopt;
    if (!parse_int(parts[i + 1], row) || !parse_int(parts[i + 2], col) || row < 0 || col < 0 || row > 100000 || col > 100000 ||
        layer > 100)
        return std::nullopt;
    e.target = *target;
    e.layer = int(layer);
    e.row = int(row);
    e.col = int(col);
    return e;
}

// [SECTION] fields

// One row per key of the canonical form, in its order: the table both
// experiment_to_text (format) and experiment_parse (parse) walk, so the two
// cannot disagree on a key, its order or its spelling. parse returns "" or
// what is wrong with the value (for "<key> <problem>") and leaves the field as
// it was when the value is refused.
struct experiment_field {
    const char* key;
    std::function<std::string(experiment&, const std::string&)> parse;
    std::function<std::string(const experiment&)> format;
};

experiment_field int_field(const char* key, int experiment::*field, long long lo, long long hi) {
    return {key,
            [field, lo, hi](experiment& e, const std::string& v) -> std::string {
                long long x = 0;
                if (!parse_int(v, x))
                    return "must be a whole number, not " + quoted(v);
                if (x < lo || x > hi)
                    return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", not " + v;
                e.*field = int(x);
                return "";
            },
            [field](const experiment& e) { return std::to_string(e.*field); }};
}

experiment_field float_field(const char* key, float experiment::*field) {
    return {key, [field](experiment& e, const std::string& v) { return float_problem(parse_float(v, e.*field), v, "a number"); },
            [field](const experiment& e) { return format_float(e.*field); }};
}

template <class E, std::size_t N>
experiment_field enum_field(const char* key, E experiment::*field, const enum_name<E> (&table)[N]) {
    return {key,
            [field, &table](experiment& e, const std::string& v) -> std::string {
                const auto x = value_of(table, v);
                if (!x)
                    return "must be " + choices(table) + ", not " + quoted(v);
                e.*field = *x;
                return "";
            },
            [field, &table](const experiment& e) -> std::string { return name_of(table, e.*field); }};
}

// A comma-separated list of at most max_list_items items.
template <class T, class ParseItem, class FormatList>
experiment_field list_field(const char* key, std::vector<T> experiment::*field, ParseItem parse_item, FormatList format_list,
                            const char* form) {
    return {key,
            [field, parse_item, form](experiment& e, const std::string& v) -> std::string {
                auto& list = e.*field;
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
            },
            [field, format_list](const experiment& e) { return format_list(e.*field); }};
}

std::string parse_text(experiment& e, const std::string& v) {
    if (v.size() > std::size_t(experiment_limits::max_text_bytes))
        return "is " + std::to_string(v.size()) + " bytes; the limit is " + std::to_string(experiment_limits::max_text_bytes);
    e.text = v;
    return "";
}

std::string parse_seed(experiment& e, const std::string& v) {
    long long x = 0;
    if (!parse_int(v, x) || x < 0 || x > 4294967295ll)
        return "must be a whole number from 0 to 4294967295";
    e.seed = std::uint32_t(x);
    return "";
}

std::string parse_scale(experiment& e, const std::string& v) {
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

std::string format_scale(const experiment& e) {
    return e.scale == score_scale::sqrt_dk ? "sqrt" : e.scale == score_scale::none ? "none" : format_float(e.scale_value);
}

std::string parse_wo(experiment& e, const std::string& v) {
    if (v != "on" && v != "off")
        return "must be 'on' or 'off', not " + quoted(v);
    e.use_wo = v == "on";
    return "";
}

std::string parse_precision(experiment& e, const std::string& v) {
    const auto p = precision_parse(v);
    if (!p)
        return "must be 'fp32', 'fp16' or 'bf16', not " + quoted(v);
    e.prec = *p;
    return "";
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

const std::vector<experiment_field>& experiment_fields() {
    using L = experiment_limits;
    using e = experiment;
    static const std::vector<experiment_field> fields = {
        {"text", parse_text, [](const e& x) { return x.text; }},
        {"seed", parse_seed, [](const e& x) { return std::to_string(x.seed); }},
        int_field("d_model", &e::d_model, 1, L::max_d_model),
        int_field("heads", &e::heads, 1, L::max_heads),
        int_field("kv_heads", &e::kv_heads, 1, L::max_heads),
        int_field("layers", &e::layers, 1, L::max_layers),
        enum_field("block", &e::block, block_names),
        enum_field("weights", &e::weights, weights_names),
        enum_field("pos", &e::pos, positional_names),
        float_field("rope_base", &e::rope_base),
        int_field("pos_offset", &e::pos_offset, 0, L::max_pos_offset),
        enum_field("mask", &e::mask, mask_names),
        int_field("pad", &e::pad, 0, L::max_tokens),
        list_field("edges", &e::edges, parse_edge, format_edges, "layer.head.query.key"),
        {"scale", parse_scale, format_scale},
        enum_field("softmax", &e::softmax, softmax_names),
        float_field("temp", &e::temperature),
        enum_field("mask_at", &e::mask_at, mask_at_names),
        {"wo", parse_wo, [](const e& x) -> std::string { return x.use_wo ? "on" : "off"; }},
        {"precision", parse_precision, [](const e& x) -> std::string { return precision_name(x.prec); }},
        list_field("ablate", &e::ablate, parse_ablated, format_ablate, "layer.head"),
        int_field("decode", &e::decode, 0, L::max_tokens),
        list_field("edits", &e::edits, parse_edit, format_edits, "x.row.col:value or lL.w_q.row.col:value"),
    };
    return fields;
}

}  // namespace

const char* mask_kind_name(mask_kind m) { return name_of(mask_names, m); }
const char* positional_name(positional p) { return name_of(positional_names, p); }
const char* softmax_mode_name(softmax_mode s) { return name_of(softmax_names, s); }
const char* edit_target_name(edit_target t) { return name_of(target_names, t); }
const char* weight_init_name(weight_init w) { return name_of(weights_names, w); }

// [SECTION] format

std::string experiment_to_text(const experiment& e) {
    std::string s = "v=" + std::to_string(experiment_format_version);
    auto put = [&s](const char* key, const std::string& value) {
        s += '&';
        s += key;
        s += '=';
        s += percent_encode(value);
    };
    for (const auto& f : experiment_fields())
        put(f.key, f.format(e));
    s += recipe_to_text(e.train);  // "" without training: older links stay byte-identical
    return s;
}

// [SECTION] validate

namespace {

using L = experiment_limits;

template <class T>
std::string str(T v) {
    return std::to_string(v);
}

// The text's problems; returns its tokens counted (0 when it is too long to tokenize).
int validate_text(const experiment& e, std::vector<std::string>& errors) {
    if (e.text.size() > std::size_t(L::max_text_bytes)) {
        errors.push_back("text is " + str(e.text.size()) + " bytes; the limit is " + str(L::max_text_bytes));
        return 0;
    }
    const int n = int(tokenize(e.text).size());
    if (n == 0)
        errors.push_back("text has no tokens; type at least one word");
    if (n > L::max_tokens)
        errors.push_back("text has " + str(n) + " tokens; the limit is " + str(L::max_tokens));
    return n;
}

// The model's shape: d_model, heads and kv_heads, what the hand-made weights need, layers.
void validate_shape(const experiment& e, std::vector<std::string>& errors) {
    if (e.d_model < 1 || e.d_model > L::max_d_model)
        errors.push_back("d_model must be between 1 and " + str(L::max_d_model) + ", not " + str(e.d_model));
    const bool heads_ok = e.heads >= 1 && e.heads <= L::max_heads;
    if (!heads_ok)
        errors.push_back("heads must be between 1 and " + str(L::max_heads) + ", not " + str(e.heads));
    else if (e.d_model >= 1 && e.d_model % e.heads != 0)
        errors.push_back("heads (" + str(e.heads) + ") must divide d_model (" + str(e.d_model) + ")");
    if (heads_ok && (e.kv_heads < 1 || e.kv_heads > e.heads || e.heads % e.kv_heads != 0))
        errors.push_back("kv_heads (" + str(e.kv_heads) + ") must divide heads (" + str(e.heads) + "): " + str(e.heads) +
                         " is MHA, 1 is MQA");
    if ((e.weights == weight_init::specialised || e.weights == weight_init::cancel) && heads_ok &&
        (e.heads < 2 || experiment_d_k(e) < 2))
        errors.push_back(std::string("weights=") + weight_init_name(e.weights) + " needs at least 2 heads of d_k >= 2");
    if (e.weights == weight_init::cancel && e.kv_heads != e.heads)
        errors.push_back("weights=cancel needs kv_heads = heads (MHA)");
    if (e.weights == weight_init::sink && e.d_model < 3)
        errors.push_back("weights=sink needs d_model >= 3");
    if (e.layers < 1 || e.layers > L::max_layers)
        errors.push_back("layers must be between 1 and " + str(L::max_layers) + ", not " + str(e.layers));
}

// Positions, the mask, the scores' scale and temperature, decoding, for n tokens.
void validate_attention(const experiment& e, int n, std::vector<std::string>& errors) {
    if (!(std::isfinite(e.rope_base) && e.rope_base > 1.0f && e.rope_base <= L::max_rope_base))
        errors.push_back("rope_base must be above 1 and at most 1e9 (10000 is usual), not " + format_float(e.rope_base));
    if (e.pos_offset < 0 || e.pos_offset > L::max_pos_offset)
        errors.push_back("pos_offset must be between 0 and " + str(L::max_pos_offset) + ", not " + str(e.pos_offset));
    if (e.pad < 0 || (n > 0 && e.pad >= n))
        errors.push_back("pad must leave at least one real token (0 <= pad < " + str(n) + ")");
    if (e.pad > 0 && e.mask != mask_kind::padding)
        errors.push_back("pad is only used with mask=padding");
    if (e.scale == score_scale::custom && !(std::isfinite(e.scale_value) && std::fabs(e.scale_value) <= L::max_abs_value))
        errors.push_back("scale must be 'sqrt', 'none' or a number from -1e6 to 1e6, not " + format_float(e.scale_value));
    if (!(std::isfinite(e.temperature) && e.temperature >= L::min_temperature && e.temperature <= L::max_abs_value))
        errors.push_back(
            "temp must be from 1e-6 to 1e6, not " + format_float(e.temperature) +
            (e.temperature < L::min_temperature ? " (a smaller one makes ordinary scores infinite and the softmax NaN)" : ""));
    if (e.decode < 0 || (n > 0 && e.decode > n))
        errors.push_back("decode must be between 0 and the number of tokens (" + str(n) + ")");
}

// The (rows, cols) of the matrix an edit targets, for n tokens.
std::pair<int, int> edit_target_size(const experiment& e, edit_target target, int n) {
    const int d = e.d_model, kv_width = e.kv_heads * experiment_d_k(e), ffn = experiment_ffn_width(e);
    switch (target) {
        case edit_target::x:
            return {n, d};
        case edit_target::w_q:
        case edit_target::w_o:
            return {d, d};
        case edit_target::w_k:
        case edit_target::w_v:
            return {d, kv_width};
        case edit_target::w_1:
            return {d, ffn};
        case edit_target::w_2:
            return {ffn, d};
    }
    return {0, 0};
}

// Masked edges, ablated heads and edits inside the model (whose sizes are valid).
void validate_places(const experiment& e, int n, std::vector<std::string>& errors) {
    for (const auto& m : e.edges)
        if (m.layer >= e.layers || m.head >= e.heads || m.query >= n || m.key >= n)
            errors.push_back("edge " + str(m.layer) + "." + str(m.head) + "." + str(m.query) + "." + str(m.key) +
                             " is outside the model (layer.head.query.key)");
    for (const auto& a : e.ablate)
        if (a.layer >= e.layers || a.head >= e.heads)
            errors.push_back("ablated head " + str(a.layer) + "." + str(a.head) + " is outside the model (layer.head)");
    for (const auto& x : e.edits) {
        const auto [rows, cols] = edit_target_size(e, x.target, n);
        const bool ffn_target = x.target == edit_target::w_1 || x.target == edit_target::w_2;
        if (x.layer >= e.layers || x.row >= rows || x.col >= cols || (ffn_target && e.block != block_kind::full))
            errors.push_back("edit of " + std::string(edit_target_name(x.target)) + " at layer " + str(x.layer) + ", (" +
                             str(x.row) + ", " + str(x.col) + ") is outside the model");
        if (!(std::isfinite(x.value) && std::fabs(x.value) <= L::max_abs_value))
            errors.push_back("edit of " + std::string(edit_target_name(x.target)) + " at (" + str(x.row) + ", " + str(x.col) +
                             ") is out of range: edited values are from -1e6 to 1e6");
    }
}

}  // namespace

std::vector<std::string> experiment_validate(const experiment& e) {
    std::vector<std::string> errors;
    const int n = validate_text(e, errors);
    validate_shape(e, errors);
    validate_attention(e, n, errors);
    for (auto& m : recipe_validate(e))
        errors.push_back(std::move(m));
    const bool sizes_ok = errors.empty();  // the places below index into the model's sizes
    if (int(e.edges.size()) > L::max_list_items || int(e.ablate.size()) > L::max_list_items ||
        int(e.edits.size()) > L::max_list_items)
        errors.push_back("at most " + str(L::max_list_items) + " items in each of edges, ablate and edits");
    if (sizes_ok)
        validate_places(e, n, errors);
    errors_tidy(errors);
    return errors;
}

std::vector<std::string> recipe_validate(const experiment& e) {
    const train_settings& t = e.train;
    std::vector<std::string> errors;
    if (t.task == train_task::none) {
        if (e.pos == positional::learned)
            errors.push_back("pos=learned needs a training recipe (train=induction, ...): learned positions come from training");
        if (!(t == train_settings{}))
            errors.push_back("training keys (steps, lr, ...) need train=<task>");
        return errors;
    }
    errors = recipe_problems(t);
    if (e.weights != weight_init::random)
        errors.push_back("training starts from weights=random");
    return errors;
}

// [SECTION] parse

experiment_parse_result experiment_parse(std::string_view text) { return experiment_parse(text, experiment{}); }

namespace {

// What a parse has read so far.
struct parse_state {
    experiment e;
    std::vector<std::string>& errors;
    bool seen_version = false;
    std::vector<std::string> seen;                                  // the keys, in order
    std::vector<std::pair<std::string, std::string>> recipe_given;  // this text's recipe keys and values

    bool seen_key(std::string_view key) const {
        for (const auto& k : seen)
            if (k == key)
                return true;
        return false;
    }
};

// Why the whole text cannot be read (too long, a NUL byte), or "".
std::string text_problem(std::string_view text) {
    constexpr std::size_t max_input = std::size_t(experiment_limits::max_text_bytes) * 3 + 16384;
    if (text.size() > max_input)
        return "experiment text is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(max_input);
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return nul_message(nul);
    return {};
}

// One key and its decoded value: the version, a field of the experiment or a recipe key.
void read_key(parse_state& s, const std::string& key, const std::string& value) {
    if (key == "v") {
        s.seen_version = true;
        long long version = 0;
        if (!parse_int(value, version) || version != experiment_format_version)
            s.errors.push_back("unsupported format version " + quoted(value) +
                               " (this build reads v=" + std::to_string(experiment_format_version) + ")");
        return;
    }
    bool known = false;
    for (const auto& f : experiment_fields()) {
        if (key != f.key)
            continue;
        known = true;
        if (std::string problem = f.parse(s.e, value); !problem.empty())
            s.errors.push_back(key + " " + problem);
    }
    std::string problem;
    if (!known && recipe_parse_key(key, value, s.e.train, problem)) {
        s.recipe_given.emplace_back(key, value);
        if (!problem.empty())
            s.errors.push_back(key + " " + problem);
    } else if (!known) {
        s.errors.push_back("unknown key " + quoted(key));
    }
}

// One key=value pair of the text, checked (its form, percent-encoding, UTF-8, given once), then read.
void read_pair(parse_state& s, std::string_view pair) {
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
        s.errors.push_back("expected key=value, got " + quoted(pair));
        return;
    }
    const std::string key(pair.substr(0, eq));
    const auto decoded = percent_decode(pair.substr(eq + 1));
    if (!decoded) {
        s.errors.push_back(key_label(key) + ": malformed percent-encoding in " + quoted(pair.substr(eq + 1)));
        return;
    }
    if (const std::string problem = utf8_problem(*decoded); !problem.empty()) {
        s.errors.push_back(key_label(key) + " " + problem);
        return;
    }
    if (s.seen_key(key)) {
        s.errors.push_back(key_label(key) + " is given twice");
        return;
    }
    s.seen.push_back(key);
    read_key(s, key, *decoded);
}

}  // namespace

experiment_parse_result experiment_parse(std::string_view text, const experiment& base) {
    experiment_parse_result r;
    if (std::string problem = text_problem(text); !problem.empty()) {
        r.errors.push_back(std::move(problem));
        return r;
    }
    if (!text.empty() && text.front() == '#')
        text.remove_prefix(1);
    parse_state s{base, r.errors, false, {}, {}};
    for (const auto pair : split(text, '&'))
        if (!pair.empty())
            read_pair(s, pair);
    // A link that sets heads but not kv_heads means plain multi-head attention
    // (one that sets neither keeps the base's pair).
    if (!s.seen_key("kv_heads") && s.seen_key("heads"))
        s.e.kv_heads = s.e.heads;
    s.e.train = recipe_after_keys(s.e.train, s.recipe_given);
    if (!s.seen_version)
        r.errors.push_back("missing format version (v=" + std::to_string(experiment_format_version) + ")");
    // Cross-field checks run even after field errors, so one pass reports everything
    // (a field that failed to parse keeps its default and raises nothing here).
    for (auto& err : experiment_validate(s.e))
        r.errors.push_back(std::move(err));
    errors_tidy(r.errors);
    if (r.errors.empty())
        r.value = std::move(s.e);
    return r;
}

// The same strict whole-number reader the keys use, for command-line flags.
bool parse_whole_number(std::string_view s, long long& out) { return parse_int(s, out); }

}  // namespace attn
