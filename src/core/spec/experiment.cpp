#include "spec/experiment.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "spec/keys.hpp"

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

// A key as an error message names it: as it is when it reads as a key, else quoted
// (cut to 40 bytes: a pasted link may hold a key of kilobytes).
std::string key_label(std::string_view key) {
    bool plain = !key.empty() && key.size() <= 40;
    for (char c : key)
        plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
    return plain ? std::string(key) : quoted(key);
}

// The key table's readers and writers (keys.hpp), under the names this file uses.
bool parse_int(std::string_view s, long long& out) { return key_parse_whole(s, out); }
std::string format_float(float x) { return key_format_float(x); }

}  // namespace

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

}  // namespace

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

std::string utf8_problem(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == 0)
            return "contains a NUL character (%00) at byte " + std::to_string(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        const std::size_t len = utf8_length(s, i);
        const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
        if (len == 0) {
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
        i += len;
    }
    return "";
}

// [SECTION] format

std::string experiment_to_text(const experiment& e) {
    std::string s = "v=" + std::to_string(experiment_format_version);
    auto put = [&s](const char* key, const std::string& value) {
        s += '&';
        s += key;
        s += '=';
        s += percent_encode(value);
    };
    for (const key_row& k : key_table())
        if (k.part == key_part::experiment)
            put(k.name, key_write(k, e));
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
// The whole-number keys' limits, from their rows (spec/keys.hpp), for an
// experiment built in code rather than parsed (the parser checks them as it reads).
void validate_limits(const experiment& e, std::vector<std::string>& errors) {
    for (const key_row& k : key_table())
        if (k.part == key_part::experiment && k.kind == key_kind::whole)
            if (const std::string problem = key_check(k, e); !problem.empty())
                errors.push_back(std::string(k.name) + " " + problem + ", not " + str(std::llround(k.get(e))));
}

void validate_shape(const experiment& e, std::vector<std::string>& errors) {
    const bool heads_ok = e.heads >= 1 && e.heads <= L::max_heads;
    if (heads_ok && e.d_model >= 1 && e.d_model % e.heads != 0)
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
}

// Positions, the mask, the scores' scale and temperature, decoding, for n tokens.
void validate_attention(const experiment& e, int n, std::vector<std::string>& errors) {
    if (!(std::isfinite(e.rope_base) && e.rope_base > 1.0f && e.rope_base <= L::max_rope_base))
        errors.push_back("rope_base must be above 1 and at most 1e9 (10000 is usual), not " + format_float(e.rope_base));
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
    validate_limits(e, errors);
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
    if (const key_row* k = key_find(key, key_part::experiment)) {
        known = true;
        if (std::string problem = key_read(*k, s.e, value); !problem.empty())
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
