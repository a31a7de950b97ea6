#include "trace_json.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>

#include "kernels.hpp"

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

void append_floats(std::string& out, const std::vector<float>& v) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        append_float(out, v[i]);
    }
    out += ']';
}

// Writes "name":<matrix> for each non-empty matrix, each followed by a comma.
void append_matrices(std::string& out, std::initializer_list<std::pair<const char*, const matrix*>> items) {
    for (const auto& [name, m] : items) {
        if (m->empty())
            continue;
        append_key(out, name);
        append_matrix(out, *m);
        out += ',';
    }
}

}  // namespace

std::string trace_to_json(const experiment& e, const trace& t) {
    std::string out = "{";
    append_key(out, "experiment");
    append_string(out, experiment_to_text(e));
    out += ',';
    append_key(out, "arch");
    append_string(out, kernel_arch_name());
    out += ',';
    append_key(out, "tokens");
    out += '[';
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        if (i)
            out += ',';
        append_string(out, t.tokens[i]);
    }
    out += "],";
    append_matrices(out, {{"x", &t.params.embeddings}, {"positions", &t.positions}, {"x0", &t.x0}, {"output", &t.output}});
    out += "\"nan_count\":" + std::to_string(t.nan_count) + ",\"inf_count\":" + std::to_string(t.inf_count) + ",";
    append_key(out, "layers");
    out += '[';
    for (std::size_t l = 0; l < t.layers.size(); ++l) {
        const layer_trace& lt = t.layers[l];
        const layer_weights& w = t.params.layers[l];
        if (l)
            out += ',';
        out += '{';
        append_matrices(out, {{"w_q", &w.w_q},
                              {"w_k", &w.w_k},
                              {"w_v", &w.w_v},
                              {"w_o", &w.w_o},
                              {"w_1", &w.w_1},
                              {"w_2", &w.w_2},
                              {"input", &lt.input},
                              {"normed", &lt.normed},
                              {"q", &lt.q},
                              {"k", &lt.k},
                              {"v", &lt.v},
                              {"q_rot", &lt.q_rot},
                              {"k_rot", &lt.k_rot},
                              {"concat", &lt.concat},
                              {"attn_out", &lt.attn_out},
                              {"residual", &lt.residual},
                              {"ffn_normed", &lt.ffn_normed},
                              {"ffn_hidden", &lt.ffn_hidden},
                              {"ffn_out", &lt.ffn_out},
                              {"output", &lt.output}});
        append_key(out, "heads");
        out += '[';
        for (std::size_t h = 0; h < lt.heads.size(); ++h) {
            const head_trace& ht = lt.heads[h];
            if (h)
                out += ',';
            out += "{\"kv_group\":" + std::to_string(ht.kv_group) + ",\"ablated\":" + (ht.ablated ? "true" : "false") + ",";
            append_matrices(out, {{"q", &ht.q},
                                  {"k", &ht.k},
                                  {"v", &ht.v},
                                  {"scores", &ht.scores},
                                  {"scaled", &ht.scaled},
                                  {"masked", &ht.masked},
                                  {"weights", &ht.weights},
                                  {"out", &ht.out}});
            append_key(out, "row_sums");
            append_floats(out, ht.row_sums);
            out += ',';
            append_key(out, "row_entropies");
            append_floats(out, ht.row_entropies);
            out += '}';
        }
        out += "]}";
    }
    out += "]";
    if (t.decode.steps > 0) {
        out += ",\"decode\":{\"steps\":" + std::to_string(t.decode.steps) + ",\"bytes_read\":[";
        for (std::size_t i = 0; i < t.decode.bytes_read.size(); ++i)
            out += (i ? "," : "") + std::to_string(t.decode.bytes_read[i]);
        out += "],";
        append_key(out, "out");
        append_matrix(out, t.decode.out);
        for (const auto& [name, list] : {std::pair{"cache_k", &t.decode.cache.k}, std::pair{"cache_v", &t.decode.cache.v}}) {
            out += ',';
            append_key(out, name);
            out += '[';
            for (std::size_t g = 0; g < list->size(); ++g) {
                if (g)
                    out += ',';
                append_matrix(out, (*list)[g]);
            }
            out += ']';
        }
        out += '}';
    }
    out += '}';
    return out;
}

}  // namespace attn
