#include "experiment.hpp"

#include <charconv>
#include <type_traits>

#include "tokenize.hpp"

namespace attn {

namespace {

bool is_unreserved(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           c == '~';
}

std::string percent_encode(std::string_view s) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (is_unreserved(c)) {
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

template <class T>
bool parse_int(std::string_view s, T& out) {
    if (s.empty() || s.size() > 12)
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

std::string quoted(std::string_view s) {
    std::string out = "'";
    out.append(s.substr(0, 40));
    if (s.size() > 40)
        out += "...";
    return out + "'";
}

}  // namespace

const char* mask_kind_name(mask_kind m) { return m == mask_kind::causal ? "causal" : "none"; }

std::string experiment_to_text(const experiment& e) {
    std::string s = "v=" + std::to_string(experiment_format_version);
    s += "&text=" + percent_encode(e.text);
    s += "&seed=" + std::to_string(e.seed);
    s += "&d_model=" + std::to_string(e.d_model);
    s += "&heads=" + std::to_string(e.heads);
    s += "&mask=";
    s += mask_kind_name(e.mask);
    return s;
}

std::vector<std::string> experiment_validate(const experiment& e) {
    using L = experiment_limits;
    std::vector<std::string> errors;
    if (e.text.size() > std::size_t(L::max_text_bytes))
        errors.push_back("text is " + std::to_string(e.text.size()) + " bytes; the limit is " +
                         std::to_string(L::max_text_bytes));
    else {
        const std::size_t n = tokenize(e.text).size();
        if (n == 0)
            errors.push_back("text has no tokens; type at least one word");
        if (n > std::size_t(L::max_tokens))
            errors.push_back("text has " + std::to_string(n) + " tokens; the limit is " + std::to_string(L::max_tokens));
    }
    if (e.d_model < L::min_d_model || e.d_model > L::max_d_model)
        errors.push_back("d_model must be between " + std::to_string(L::min_d_model) + " and " + std::to_string(L::max_d_model) +
                         ", not " + std::to_string(e.d_model));
    if (e.heads < 1 || e.heads > L::max_heads)
        errors.push_back("heads must be between 1 and " + std::to_string(L::max_heads) + ", not " + std::to_string(e.heads));
    else if (e.d_model >= L::min_d_model && e.d_model % e.heads != 0)
        errors.push_back("heads (" + std::to_string(e.heads) + ") must divide d_model (" + std::to_string(e.d_model) + ")");
    return errors;
}

experiment_parse_result experiment_parse(std::string_view text) {
    experiment_parse_result r;
    auto& errors = r.errors;
    if (text.size() > std::size_t(experiment_limits::max_text_bytes) * 3 + 512) {
        errors.push_back("experiment text is " + std::to_string(text.size()) + " bytes, far over the limit");
        return r;
    }
    if (!text.empty() && text.front() == '#')
        text.remove_prefix(1);

    experiment e;
    bool seen_version = false;
    std::vector<std::string> seen;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t amp = text.find('&', pos);
        if (amp == std::string_view::npos)
            amp = text.size();
        const std::string_view pair = text.substr(pos, amp - pos);
        pos = amp + 1;
        if (pair.empty())
            continue;
        const std::size_t eq = pair.find('=');
        if (eq == std::string_view::npos) {
            errors.push_back("expected key=value, got " + quoted(pair));
            continue;
        }
        const std::string key(pair.substr(0, eq));
        const auto decoded = percent_decode(pair.substr(eq + 1));
        if (!decoded) {
            errors.push_back(key + ": malformed percent-encoding in " + quoted(pair.substr(eq + 1)));
            continue;
        }
        const std::string& v = *decoded;
        bool duplicate = false;
        for (const auto& k : seen)
            duplicate |= k == key;
        if (duplicate) {
            errors.push_back(key + " is given twice");
            continue;
        }
        seen.push_back(key);

        auto int_field = [&](auto& field, long long lo, long long hi) {
            long long x = 0;
            if (!parse_int(v, x)) {
                errors.push_back(key + " must be a whole number, not " + quoted(v));
            } else if (x < lo || x > hi) {
                errors.push_back(key + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", not " + v);
            } else {
                field = static_cast<std::remove_reference_t<decltype(field)>>(x);
            }
        };
        if (key == "v") {
            seen_version = true;
            int version = 0;
            if (!parse_int(v, version) || version != experiment_format_version)
                errors.push_back("unsupported format version " + quoted(v) +
                                 " (this build reads v=" + std::to_string(experiment_format_version) + ")");
        } else if (key == "text") {
            if (v.size() > std::size_t(experiment_limits::max_text_bytes))
                errors.push_back("text is " + std::to_string(v.size()) + " bytes; the limit is " +
                                 std::to_string(experiment_limits::max_text_bytes));
            else
                e.text = v;
        } else if (key == "seed") {
            int_field(e.seed, 0, 4294967295ll);
        } else if (key == "d_model") {
            int_field(e.d_model, experiment_limits::min_d_model, experiment_limits::max_d_model);
        } else if (key == "heads") {
            int_field(e.heads, 1, experiment_limits::max_heads);
        } else if (key == "mask") {
            if (v == "causal")
                e.mask = mask_kind::causal;
            else if (v == "none")
                e.mask = mask_kind::none;
            else
                errors.push_back("mask must be 'none' or 'causal', not " + quoted(v));
        } else {
            errors.push_back("unknown key " + quoted(key));
        }
    }
    if (!seen_version)
        errors.push_back("missing format version (v=" + std::to_string(experiment_format_version) + ")");
    // Cross-field checks run even after field errors, so one pass reports everything
    // (a field that failed to parse keeps its default and raises nothing here).
    for (auto& err : experiment_validate(e))
        errors.push_back(std::move(err));
    if (errors.empty())
        r.value = std::move(e);
    return r;
}

}  // namespace attn
