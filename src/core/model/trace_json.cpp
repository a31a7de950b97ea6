#include "model/trace_json.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "base/text_util.hpp"
#include "kernels/kernels.hpp"
#include "model/export.hpp"

namespace attn {

namespace {

// The JSON being written: appended to `buf`, handed to `write` every 64 KB.
struct sink {
    std::string buf;
    const std::function<void(std::string_view)>& write;
    sink& operator+=(std::string_view s) {
        buf += s;
        return *this;
    }
    sink& operator+=(char c) {
        buf += c;
        return *this;
    }
    void flush_if_full() {
        if (buf.size() >= (std::size_t(64) << 10)) {
            write(buf);
            buf.clear();
        }
    }
};

// base/text_util's JSON string: valid UTF-8 whatever the bytes (a real model's
// tokenizer may hold pieces that are not).
void append_string(sink& out, std::string_view s) { json_string_append(out.buf, s); }

// A number as the CSV writes it; NaN and the infinities, which JSON lacks, as strings.
void append_float(sink& out, float x) {
    const bool text = !std::isfinite(x);
    if (text)
        out += '"';
    export_append_float(out.buf, x);
    if (text)
        out += '"';
}

void append_matrix(sink& out, const matrix& m) {
    out += "{\"shape\":[" + std::to_string(m.rows) + "," + std::to_string(m.cols) + "],\"data\":[";
    for (std::size_t i = 0; i < m.data.size(); ++i) {
        if (i)
            out += ',';
        append_float(out, m.data[i]);
        if (i % 1024 == 1023)
            out.flush_if_full();
    }
    out += "]}";
    out.flush_if_full();
}

void append_key(sink& out, const char* key) {
    out += '"';
    out += key;
    out += "\":";
}

// [item,item,…]: write(i) for each i below count that keep(i) selects.
template <class Keep, class Write>
void append_array(sink& out, std::size_t count, Keep keep, Write write) {
    out += '[';
    bool first = true;
    for (std::size_t i = 0; i < count; ++i) {
        if (!keep(i))
            continue;
        if (!first)
            out += ',';
        first = false;
        write(i);
    }
    out += ']';
}

template <class Write>
void append_array(sink& out, std::size_t count, Write write) {
    append_array(
        out, count, [](std::size_t) { return true; }, write);
}

void append_floats(sink& out, const std::vector<float>& v) {
    append_array(out, v.size(), [&](std::size_t i) { append_float(out, v[i]); });
}

// Writes "name":<matrix> for each non-empty selected matrix, each followed by a comma.
void append_matrices(sink& out, const trace_json_select& sel,
                     std::initializer_list<std::pair<const char*, const matrix*>> items) {
    for (const auto& [name, m] : items) {
        if (m->empty() || !sel.stage(name))
            continue;
        append_key(out, name);
        append_matrix(out, *m);
        out += ',';
    }
}

void write_head(sink& out, const trace_json_select& sel, const head_trace& ht, int index) {
    out += "{\"head\":" + std::to_string(index) + ",\"kv_group\":" + std::to_string(ht.kv_group) +
           ",\"ablated\":" + (ht.ablated ? "true" : "false") + ",";
    append_matrices(out, sel,
                    {{"q", &ht.q},
                     {"k", &ht.k},
                     {"v", &ht.v},
                     {"scores", &ht.scores},
                     {"scaled", &ht.scaled},
                     {"masked", &ht.masked},
                     {"weights", &ht.weights},
                     {"out", &ht.out}});
    for (const auto& [name, v] : {std::pair{"row_sums", &ht.row_sums}, std::pair{"row_entropies", &ht.row_entropies}})
        if (sel.stage(name)) {
            append_key(out, name);
            append_floats(out, *v);
            out += ',';
        }
    out.buf.pop_back();  // the last comma (there is always one: after "ablated")
    out += '}';
}

void write_layer(sink& out, const trace_json_select& sel, const layer_trace& lt, const layer_weights& w, int index) {
    out += "{\"layer\":" + std::to_string(index) + ",";
    append_matrices(out, sel,
                    {{"w_q", &w.w_q},
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
                     {"ffn_gate", &lt.ffn_gate},
                     {"ffn_up", &lt.ffn_up},
                     {"ffn_hidden", &lt.ffn_hidden},
                     {"ffn_out", &lt.ffn_out},
                     {"output", &lt.output}});
    append_key(out, "heads");
    append_array(
        out, lt.heads.size(), [&](std::size_t h) { return sel.head(int(h)); },
        [&](std::size_t h) { write_head(out, sel, lt.heads[h], int(h)); });
    out += '}';
}

void write_decode(sink& out, const decode_trace& dt) {
    out += ",\"decode\":{\"steps\":" + std::to_string(dt.steps) + ",\"bytes_read\":";
    append_array(out, dt.bytes_read.size(), [&](std::size_t i) { out += std::to_string(dt.bytes_read[i]); });
    out += ',';
    append_key(out, "out");
    append_matrix(out, dt.out);
    for (const auto& [name, list] : {std::pair{"cache_k", &dt.cache.k}, std::pair{"cache_v", &dt.cache.v}}) {
        out += ',';
        append_key(out, name);
        append_array(out, list->size(), [&, list = list](std::size_t g) { append_matrix(out, (*list)[g]); });
    }
    out += '}';
}

const char* const stage_names[] = {"x",        "positions",  "x0",       "output", "final_normed", "logits",        "w_q",
                                   "w_k",      "w_v",        "w_o",      "w_1",    "w_2",          "input",         "normed",
                                   "q",        "k",          "v",        "q_rot",  "k_rot",        "concat",        "attn_out",
                                   "residual", "ffn_normed", "ffn_gate", "ffn_up", "ffn_hidden",   "ffn_out",       "scores",
                                   "scaled",   "masked",     "weights",  "out",    "row_sums",     "row_entropies", "decode"};

template <class T>
bool listed(const std::vector<T>& list, const T& x) {
    return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
}

// "a,b,c" → its items; an empty item is an error.
std::optional<std::string> split(std::string_view list, std::vector<std::string>& out) {
    out.clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        const std::string_view item = list.substr(start, comma == std::string_view::npos ? list.npos : comma - start);
        if (item.empty())
            return std::string("empty item in the list '") + std::string(list.substr(0, 200)) + "'";
        out.emplace_back(item);
        if (comma == std::string_view::npos)
            return std::nullopt;
        start = comma + 1;
    }
}

}  // namespace

bool trace_json_select::stage(std::string_view name) const { return listed(stages, std::string(name)); }
bool trace_json_select::layer(int l) const { return listed(layers, l); }
bool trace_json_select::head(int h) const { return listed(heads, h); }

trace_options trace_json_select::options() const {
    const bool any_nn = stage("scores") || stage("scaled") || stage("masked") || stage("weights");
    if (!any_nn)
        return trace_options::lean();
    if (layers.empty() && heads.empty())
        return {};
    trace_options o;
    o.keep_head_matrices = [l = layers, h = heads](int layer, int head) { return listed(l, layer) && listed(h, head); };
    return o;
}

std::optional<std::string> trace_json_parse_stages(std::string_view list, std::vector<std::string>& out) {
    if (auto err = split(list, out))
        return err;
    for (const std::string& name : out)
        if (std::find_if(std::begin(stage_names), std::end(stage_names), [&](const char* s) { return name == s; }) ==
            std::end(stage_names)) {
            std::string known;
            for (const char* s : stage_names)
                known += std::string(known.empty() ? "" : " ") + s;
            return "unknown stage '" + name.substr(0, 40) + "' (stages: " + known + ")";
        }
    return std::nullopt;
}

std::optional<std::string> trace_json_parse_indices(std::string_view list, int limit, std::vector<int>& out) {
    std::vector<std::string> items;
    if (auto err = split(list, items))
        return err;
    out.clear();
    for (const std::string& item : items) {
        const bool digits =
            item.size() <= 4 && std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int v = digits ? std::stoi(item) : -1;
        if (v < 0 || v >= limit)
            return "'" + item.substr(0, 40) + "' is not an index in [0, " + std::to_string(limit) + ")";
        out.push_back(v);
    }
    return std::nullopt;
}

void trace_write_json(const experiment& e, const trace& t, const trace_json_select& sel,
                      const std::function<void(std::string_view)>& write) {
    sink out{"{", write};
    append_key(out, "experiment");
    append_string(out, experiment_to_text(e));
    out += ',';
    append_key(out, "arch");
    append_string(out, kernel_arch_name());
    out += ',';
    append_key(out, "tokens");
    append_array(out, t.tokens.size(), [&](std::size_t i) { append_string(out, t.tokens[i]); });
    out += ',';
    append_matrices(out, sel,
                    {{"x", &t.params.embeddings},
                     {"positions", &t.positions},
                     {"x0", &t.x0},
                     {"output", &t.output},
                     {"final_normed", &t.final_normed},
                     {"logits", &t.logits}});
    out += "\"nan_count\":" + std::to_string(t.nan_count) + ",\"inf_count\":" + std::to_string(t.inf_count) + ",";
    append_key(out, "layers");
    append_array(
        out, t.layers.size(), [&](std::size_t l) { return sel.layer(int(l)); },
        [&](std::size_t l) {
            static const layer_weights none;  // a model whose weights the trace does not hold (llama)
            write_layer(out, sel, t.layers[l], l < t.params.layers.size() ? t.params.layers[l] : none, int(l));
        });
    if (t.decode.steps > 0 && sel.stage("decode"))
        write_decode(out, t.decode);
    out += '}';
    write(out.buf);
}

std::size_t trace_json_estimate_bytes(const trace& t) {
    std::size_t floats = t.params.embeddings.data.size() + t.positions.data.size() + t.x0.data.size() + t.output.data.size() +
                         t.final_normed.data.size() + t.logits.data.size();
    for (const layer_weights& w : t.params.layers)
        for (const matrix* m : {&w.w_q, &w.w_k, &w.w_v, &w.w_o, &w.w_1, &w.w_2})
            floats += m->data.size();
    for (const layer_trace& lt : t.layers) {
        floats += lt.input.data.size() * 20 + lt.ffn_gate.data.size() * 3;  // every (n, ·) matrix, generously
        for (const head_trace& ht : lt.heads)
            floats += ht.scores.data.size() + ht.scaled.data.size() + ht.masked.data.size() + ht.weights.data.size() +
                      4 * ht.out.data.size() + 2 * ht.row_sums.size();
    }
    floats += t.decode.out.data.size() * 3;
    return floats * 16;
}

std::string trace_to_json(const experiment& e, const trace& t) {
    const std::size_t estimate = trace_json_estimate_bytes(t);
    if (estimate > trace_json_max_bytes)
        return "{\"error\":\"this trace is too large to export as JSON here (about " + std::to_string(estimate >> 20) +
               " MB): use fewer tokens, heads or layers, or `attn eval --json --stages ... --layers ... --heads ...`, "
               "which streams it\"}";
    std::string out;
    trace_write_json(e, t, {}, [&out](std::string_view s) { out += s; });
    return out;
}

}  // namespace attn
