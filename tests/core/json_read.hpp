// A JSON reader for the tests of the JSON the page's hook (window.attn) and the
// command line write: strict as JSON.parse (no trailing commas, no control
// characters in strings, nothing after the value), so what it reads the page
// reads too; a repeated key's last value is the one found, as in JavaScript.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace attn::test {

struct json {
    enum class kind { null, boolean, number, string, array, object } type = kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<json> items;        // an array's, or an object's values
    std::vector<std::string> keys;  // an object's, in order (items[i] is keys[i]'s)

    bool is_null() const { return type == kind::null; }
    // An object's member (its last, as JavaScript), or nullptr.
    const json* find(std::string_view key) const {
        for (std::size_t i = keys.size(); i-- > 0;)
            if (keys[i] == key)
                return &items[i];
        return nullptr;
    }
    bool has(std::string_view key) const { return find(key) != nullptr; }
    // A member that must be there (a failed check, and null, when it is not).
    const json& operator[](std::string_view key) const {
        static const json none;
        const json* v = find(key);
        CHECK_MESSAGE(v != nullptr, "no member \"" << std::string(key) << "\"");
        return v ? *v : none;
    }
    const json& operator[](std::size_t i) const {
        static const json none;
        CHECK_MESSAGE(i < items.size(), "no item " << i << " of " << items.size());
        return i < items.size() ? items[i] : none;
    }
    std::size_t size() const { return items.size(); }
};

namespace json_detail {

struct reader {
    std::string_view text;
    std::size_t at = 0;
    std::string error;

    bool fail(const char* what) {
        if (error.empty())
            error = std::string(what) + " at byte " + std::to_string(at);
        return false;
    }
    void space() {
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
            ++at;
    }
    bool literal(std::string_view word) {
        if (text.substr(at, word.size()) != word)
            return fail("an unknown word");
        at += word.size();
        return true;
    }
    static void utf8(std::string& out, unsigned c) {
        if (c < 0x80) {
            out += char(c);
        } else if (c < 0x800) {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += char(0xE0 | (c >> 12));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        } else {
            out += char(0xF0 | (c >> 18));
            out += char(0x80 | ((c >> 12) & 0x3F));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        }
    }
    bool hex4(unsigned& c) {
        if (at + 4 > text.size())
            return fail("a short \\u escape");
        c = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = text[at++];
            const int d = h >= '0' && h <= '9'   ? h - '0'
                          : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                 : -1;
            if (d < 0)
                return fail("a bad \\u escape");
            c = c * 16 + unsigned(d);
        }
        return true;
    }
    bool escape(std::string& out) {
        if (at >= text.size())
            return fail("an unfinished escape");
        const char e = text[at++];
        const std::string_view plain = "\"\\/bfnrt", meant = "\"\\/\b\f\n\r\t";
        if (const std::size_t k = plain.find(e); k != std::string_view::npos) {
            out += meant[k];
            return true;
        }
        unsigned c = 0;
        if (e != 'u' || !hex4(c))
            return fail("a bad escape");
        if (c >= 0xD800 && c < 0xDC00) {  // a surrogate pair
            unsigned low = 0;
            if (text.substr(at, 2) != "\\u" || (at += 2, !hex4(low)) || low < 0xDC00 || low >= 0xE000)
                return fail("a lone surrogate");
            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        }
        utf8(out, c);
        return true;
    }
    bool string(std::string& out) {
        ++at;  // the opening quote
        while (at < text.size() && text[at] != '"') {
            const auto ch = static_cast<unsigned char>(text[at]);
            if (ch < 0x20)
                return fail("a control character in a string");
            if (ch == '\\') {
                ++at;
                if (!escape(out))
                    return false;
            } else {
                out += char(ch);
                ++at;
            }
        }
        if (at >= text.size())
            return fail("an unfinished string");
        ++at;
        return true;
    }
    bool number(double& out) {
        const std::size_t start = at;
        const auto digits = [&] {
            const std::size_t from = at;
            while (at < text.size() && text[at] >= '0' && text[at] <= '9')
                ++at;
            return at > from;
        };
        if (at < text.size() && text[at] == '-')
            ++at;
        if (at < text.size() && text[at] == '0')
            ++at;
        else if (!digits())
            return fail("a bad number");
        if (at < text.size() && text[at] == '.' && (++at, !digits()))
            return fail("a bad fraction");
        if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
            ++at;
            if (at < text.size() && (text[at] == '+' || text[at] == '-'))
                ++at;
            if (!digits())
                return fail("a bad exponent");
        }
        out = std::strtod(std::string(text.substr(start, at - start)).c_str(), nullptr);
        return true;
    }
    bool value(json& out, int depth);
    bool array(json& out, int depth) {
        out.type = json::kind::array;
        ++at;
        space();
        if (at < text.size() && text[at] == ']')
            return ++at, true;
        while (true) {
            out.items.emplace_back();
            if (!value(out.items.back(), depth + 1))
                return false;
            space();
            if (at < text.size() && text[at] == ',') {
                ++at;
                continue;
            }
            if (at < text.size() && text[at] == ']')
                return ++at, true;
            return fail("an array without ',' or ']'");
        }
    }
    bool object(json& out, int depth) {
        out.type = json::kind::object;
        ++at;
        space();
        if (at < text.size() && text[at] == '}')
            return ++at, true;
        while (true) {
            space();
            out.keys.emplace_back();
            if (at >= text.size() || text[at] != '"' || !string(out.keys.back()))
                return fail("an object's key that is no string");
            space();
            if (at >= text.size() || text[at] != ':')
                return fail("a key without ':'");
            ++at;
            out.items.emplace_back();
            if (!value(out.items.back(), depth + 1))
                return false;
            space();
            if (at < text.size() && text[at] == ',') {
                ++at;
                continue;
            }
            if (at < text.size() && text[at] == '}')
                return ++at, true;
            return fail("an object without ',' or '}'");
        }
    }
};

inline bool reader::value(json& out, int depth) {
    space();
    if (depth > 200)
        return fail("nesting too deep");
    if (at >= text.size())
        return fail("the end where a value was due");
    switch (text[at]) {
        case '{':
            return object(out, depth);
        case '[':
            return array(out, depth);
        case '"':
            out.type = json::kind::string;
            return string(out.string);
        case 't':
            out.type = json::kind::boolean, out.boolean = true;
            return literal("true");
        case 'f':
            out.type = json::kind::boolean;
            return literal("false");
        case 'n':
            return literal("null");
        default:
            out.type = json::kind::number;
            return number(out.number);
    }
}

}  // namespace json_detail

// text (the whole of it) as JSON into out; false, and why in `error`, when it is not JSON.
inline bool json_parse(std::string_view text, json& out, std::string* error = nullptr) {
    json_detail::reader r{text, 0, {}};
    out = json{};
    bool ok = r.value(out, 0);
    r.space();
    if (ok && r.at != text.size())
        ok = r.fail("more after the value");
    if (error)
        *error = r.error;
    return ok;
}

// text as JSON; a failed REQUIRE, saying where, when it is not JSON.
inline json json_read(std::string_view text) {
    json out;
    std::string error;
    const bool ok = json_parse(text, out, &error);
    INFO("JSON: " << error << " in " << std::string(text.substr(0, 400)));
    REQUIRE(ok);
    return out;
}

}  // namespace attn::test
