#include "trace_json.hpp"

#include <cmath>
#include <cstdio>

namespace attn {

namespace {

void append_string(std::string& out, std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    out += '"';
}

void append_float(std::string& out, float x) {
    if (std::isnan(x)) {
        out += "\"nan\"";
    } else if (std::isinf(x)) {
        out += x > 0 ? "\"inf\"" : "\"-inf\"";
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", double(x));
        out += buf;
    }
}

void append_matrix(std::string& out, const matrix& m) {
    out += "{\"shape\":[" + std::to_string(m.rows) + "," + std::to_string(m.cols) + "],\"data\":[";
    for (std::size_t i = 0; i < m.data.size(); ++i) {
        if (i)
            out += ',';
        append_float(out, m.data[i]);
    }
    out += "]}";
}

void append_key(std::string& out, const char* key) {
    out += '"';
    out += key;
    out += "\":";
}

}  // namespace

std::string trace_to_json(const experiment& e, const trace& t) {
    std::string out = "{";
    append_key(out, "experiment");
    append_string(out, experiment_to_text(e));
    out += ',';
    append_key(out, "tokens");
    out += '[';
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        if (i)
            out += ',';
        append_string(out, t.tokens[i]);
    }
    out += "],";
    const std::pair<const char*, const matrix*> top[] = {
        {"x", &t.params.embeddings},
        {"w_q", &t.params.w_q},
        {"w_k", &t.params.w_k},
        {"w_v", &t.params.w_v},
        {"w_o", &t.params.w_o},
        {"q", &t.q},
        {"k", &t.k},
        {"v", &t.v},
        {"concat", &t.concat},
        {"output", &t.output},
    };
    for (const auto& [name, m] : top) {
        append_key(out, name);
        append_matrix(out, *m);
        out += ',';
    }
    append_key(out, "heads");
    out += '[';
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const head_trace& ht = t.heads[h];
        if (h)
            out += ',';
        const std::pair<const char*, const matrix*> per_head[] = {
            {"q", &ht.q},
            {"k", &ht.k},
            {"v", &ht.v},
            {"scores", &ht.scores},
            {"scaled", &ht.scaled},
            {"masked", &ht.masked},
            {"weights", &ht.weights},
            {"out", &ht.out},
        };
        out += '{';
        bool first = true;
        for (const auto& [name, m] : per_head) {
            if (!first)
                out += ',';
            first = false;
            append_key(out, name);
            append_matrix(out, *m);
        }
        out += '}';
    }
    out += "]}";
    return out;
}

}  // namespace attn
