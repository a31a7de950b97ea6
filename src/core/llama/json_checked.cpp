#include "llama/json_checked.hpp"

#include <unordered_set>
#include <vector>

namespace attn {

namespace {

using json = nlohmann::json;

// The second pass over text the first could not parse: only the parser's own
// message (with its byte position) is wanted, so every value is dropped.
struct error_only : nlohmann::json_sax<json> {
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        message = e.what();
        return false;
    }
};

// What the first pass sees besides the values: names given twice, depth.
struct guard {
    std::vector<std::unordered_set<std::string>> names;  // of each object open
    std::string twice;
    bool too_deep = false;
};

}  // namespace

std::optional<std::string> json_parse_checked(std::string_view text, json& out, int max_depth) {
    guard g;
    const auto check = [&g, max_depth](int depth, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
                g.names.emplace_back();
                [[fallthrough]];
            case json::parse_event_t::array_start:
                if (depth > max_depth)
                    g.too_deep = true;
                break;
            case json::parse_event_t::object_end:
                if (!g.names.empty())
                    g.names.pop_back();
                break;
            case json::parse_event_t::key:
                if (!g.names.empty() && parsed.is_string() &&
                    !g.names.back().insert(parsed.get_ref<const std::string&>()).second && g.twice.empty())
                    g.twice = parsed.get_ref<const std::string&>();
                break;
            default:
                break;
        }
        return !g.too_deep;  // deeper values are dropped as they close; the depth is refused below
    };
    out = json::parse(text.begin(), text.end(), check, /*allow_exceptions=*/false);
    if (g.too_deep) {
        out = json();
        return "it nests deeper than " + std::to_string(max_depth) + " levels";
    }
    if (out.is_discarded()) {
        error_only e;
        json::sax_parse(text.begin(), text.end(), &e, nlohmann::detail::input_format_t::json, true);
        out = json();
        return "it is not JSON (" + (e.message.empty() ? std::string("the parser stopped") : e.message) + ")";
    }
    if (!g.twice.empty()) {
        out = json();
        std::string name = g.twice.substr(0, 80);
        return "the name '" + name + "' is given twice in one object";
    }
    return std::nullopt;
}

const json* json_member(const json& object, std::string_view name) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(std::string(name));
    return it == object.end() ? nullptr : &*it;
}

const std::string* json_string_at(const json& object, std::string_view name) {
    const json* v = json_member(object, name);
    return v && v->is_string() ? &v->get_ref<const std::string&>() : nullptr;
}

std::optional<std::uint64_t> json_unsigned_at(const json& object, std::string_view name) {
    const json* v = json_member(object, name);
    if (!v || !v->is_number_unsigned())
        return std::nullopt;
    return v->get<std::uint64_t>();
}

std::optional<double> json_number_at(const json& object, std::string_view name) {
    const json* v = json_member(object, name);
    if (!v || !v->is_number())
        return std::nullopt;
    return v->get<double>();
}

std::optional<bool> json_bool_at(const json& object, std::string_view name) {
    const json* v = json_member(object, name);
    if (!v || !v->is_boolean())
        return std::nullopt;
    return v->get<bool>();
}

}  // namespace attn
