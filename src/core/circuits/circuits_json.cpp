// circuits_json.hpp: the report, written as JSON. Sections:
//   [SECTION] writing numbers and maps
//   [SECTION] the row
//   [SECTION] the weights
#include "circuits/circuits_json.hpp"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "base/text_util.hpp"
#include "model/rules.hpp"
#include "spec/experiment.hpp"
#include "spec/keys.hpp"
#include "train/task.hpp"

namespace attn {
namespace {

// --- [SECTION] writing numbers and maps --------------------------------------------

void number(std::string& o, double x) {
    if (!std::isfinite(x)) {
        o += "null";
        return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    o += buf;
}

// rows × cols of m as [[...], ...].
template <class T>
void table(std::string& o, const T* m, int rows, int cols) {
    o += '[';
    for (int i = 0; i < rows; ++i) {
        o += i ? ",[" : "[";
        for (int j = 0; j < cols; ++j) {
            if (j)
                o += ',';
            number(o, double(m[i * cols + j]));
        }
        o += ']';
    }
    o += ']';
}

// n maps of rows × cols as [[[...]]].
void tables(std::string& o, const float* m, int n, int rows, int cols) {
    o += '[';
    for (int k = 0; k < n; ++k) {
        if (k)
            o += ',';
        table(o, m + std::size_t(k) * std::size_t(rows * cols), rows, cols);
    }
    o += ']';
}

void key(std::string& o, const char* k) {
    o += '"';
    o += k;
    o += "\":";
}

void names(std::string& o, const std::vector<circuit_part>& parts) {
    o += '[';
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (p)
            o += ',';
        json_string_append(o, parts[p].name);
    }
    o += ']';
}

// Parts (P, T, V) as "parts", "values" and "target": (P, T) each part's share of the target's logit.
void decomposition(std::string& o, const circuit_read& c, const std::vector<circuit_part>& parts,
                   const std::vector<float>& values) {
    const int P = int(parts.size());
    key(o, "parts");
    names(o, parts);
    o += ',';
    key(o, "values");
    tables(o, values.data(), P, c.T, c.V);
    o += ',';
    key(o, "target");
    std::vector<float> target(std::size_t(P * c.T));
    for (int p = 0; p < P; ++p)
        for (int t = 0; t < c.T; ++t)
            target[std::size_t(p * c.T + t)] = values[(std::size_t(p) * std::size_t(c.T) + std::size_t(t)) * std::size_t(c.V) +
                                                      std::size_t(c.targets[std::size_t(t)])];
    table(o, target.data(), P, c.T);
}

// --- [SECTION] the row ---------------------------------------------------------

void row_json(std::string& o, const circuit_read& c) {
    key(o, "tokens");
    table(o, c.tokens.data(), 1, c.T);
    o += ',';
    key(o, "targets");
    table(o, c.targets.data(), 1, c.T);
    o += ',';
    key(o, "counted");
    table(o, c.counted.data(), 1, c.T);
    o += ",\"predictions\":{";
    key(o, "logits");
    table(o, c.logits.data(), c.T, c.V);
    o += ',';
    key(o, "probs");
    table(o, c.probs.data(), c.T, c.V);
    o += ',';
    key(o, "top");
    table(o, c.top.data(), c.T, c.top_k);
    o += ',';
    key(o, "target_prob");
    table(o, c.target_prob.data(), 1, c.T);
    o += ',';
    key(o, "target_rank");
    table(o, c.target_rank.data(), 1, c.T);
    o += "},\"dla\":{";
    decomposition(o, c, c.dla_parts, c.dla);
    o += "},\"lens\":{";
    key(o, "probs");
    tables(o, c.lens_probs.data(), c.L, c.T, c.V);
    o += ',';
    key(o, "target_rank");
    table(o, c.lens_target_rank.data(), c.L, c.T);
    o += "},\"paths\":{";
    if (c.paths_problem.empty()) {
        decomposition(o, c, c.path_parts, c.paths);
    } else {
        key(o, "problem");
        json_string_append(o, c.paths_problem);
    }
    o += '}';
}

// --- [SECTION] the weights ---------------------------------------------------------

std::string head_name(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h); }

void composition_json(std::string& o, const circuit_composition& c) {
    o += "\"composition\":{\"pairs\":[";
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
        const circuit_composition_pair& p = c.pairs[i];
        o += i ? ",{" : "{";
        key(o, "a");
        json_string_append(o, head_name(p.layer_a, p.head_a));
        o += ",\"b\":";
        json_string_append(o, head_name(p.layer_b, p.head_b));
        o += ",\"q\":";
        number(o, p.q);
        o += ",\"k\":";
        number(o, p.k);
        o += ",\"v\":";
        number(o, p.v);
        o += '}';
    }
    o += "],\"baseline\":{";
    const circuit_baseline* b[3] = {&c.q, &c.k, &c.v};
    const char* kinds[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i) {
        o += i ? ",\"" : "\"";
        o += kinds[i];
        o += "\":{\"mean\":";
        number(o, b[i]->mean);
        o += ",\"spread\":";
        number(o, b[i]->spread);
        o += '}';
    }
    o += ",\"samples\":" + std::to_string(c.samples) + ",\"seed\":" + std::to_string(c.seed) + "}}";
}

void weights_json(std::string& o, const circuit_weights& w) {
    o += "\"weights\":{\"qk_offsets\":";
    table(o, w.offsets.data(), 1, int(w.offsets.size()));
    o += ",\"heads\":[";
    for (std::size_t i = 0; i < w.heads.size(); ++i) {
        const circuit_head_maps& h = w.heads[i];
        o += i ? ",{" : "{";
        key(o, "head");
        json_string_append(o, head_name(h.layer, h.head));
        o += ",\"qk\":";
        tables(o, h.qk.data(), int(w.offsets.size()), w.V, w.V);
        o += ",\"ov\":";
        table(o, h.ov.data(), w.V, w.V);
        o += ",\"ov_top1\":";
        number(o, h.ov_top1);
        o += ",\"copying\":";
        number(o, h.copying);
        o += ",\"pos_qk\":";
        if (h.pos_qk.empty())
            o += "null";
        else
            table(o, h.pos_qk.data(), w.T, w.T);
        o += '}';
    }
    o += "],\"k_offset\":" + std::to_string(w.k_offset) + ",\"k_maps\":[";
    for (std::size_t i = 0; i < w.k_maps.size(); ++i) {
        const circuit_k_map& k = w.k_maps[i];
        o += i ? ",{" : "{";
        key(o, "a");
        json_string_append(o, head_name(k.layer_a, k.head_a));
        o += ",\"b\":";
        json_string_append(o, head_name(k.layer_b, k.head_b));
        o += ",\"map\":";
        table(o, k.map.data(), w.V, w.V);
        o += ",\"top1\":";
        number(o, k.top1);
        o += '}';
    }
    o += "]}";
}

// The positions added to the embedding (sinusoidal, learned or zeros) and every
// parameter matrix of `params` (rows × cols, row-major, as train/train.hpp lays them
// out): "positions" and "tensors", for the run's weights or a snapshot's.
void params_json(std::string& o, const train_run& r, const float* params) {
    o += "\"positions\":";
    table(o, r.layout.w_p.size() ? params + r.layout.w_p.offset : r.positions.data(), r.T, r.d);
    o += ",\"tensors\":{";
    auto tensor = [&](const std::string& name, const train_tensor& t) {
        if (!t.size())
            return;
        o += o.back() == '{' ? "\"" : ",\"";
        o += name + "\":";
        table(o, params + t.offset, t.rows, t.cols);
    };
    tensor("w_e", r.layout.w_e);
    for (std::size_t l = 0; l < r.layout.layers.size(); ++l) {
        const train_layer_tensors& t = r.layout.layers[l];
        const std::string p = "layer" + std::to_string(l) + ".";
        for (const auto& [n, x] :
             {std::pair{"w_q", t.w_q}, {"w_k", t.w_k}, {"w_v", t.w_v}, {"w_o", t.w_o}, {"w_1", t.w_1}, {"w_2", t.w_2}})
            tensor(p + n, x);
    }
    tensor("w_u", r.layout.w_u);
    o += '}';
}

// The model the report read (`attn circuits --weights`), for a peer to recompute
// every number from: its shape and options, the mask (1 hides key j from query i),
// its weights, the held-out rows (the timeline's losses read them) and every kept
// snapshot's weights (the timeline reads each).
void model_json(std::string& o, const train_run& r) {
    const experiment& e = r.e;
    const char* block = e.block == block_kind::full ? "full" : e.block == block_kind::attention_residual ? "attn_res" : "attn";
    const char* pos[] = {"none", "sin", "rope", "learned"};  // the link's spelling
    o += ",\"model\":{\"T\":" + std::to_string(r.T) + ",\"V\":" + std::to_string(r.V) + ",\"d\":" + std::to_string(r.d) +
         ",\"h\":" + std::to_string(r.h) + ",\"g\":" + std::to_string(r.g) + ",\"L\":" + std::to_string(r.L) +
         ",\"dk\":" + std::to_string(r.dk) + ",\"block\":\"" + block + "\",\"pos\":\"" + pos[int(e.pos)] +
         "\",\"wo\":" + (e.use_wo ? "true" : "false") + ",\"pos_offset\":" + std::to_string(e.pos_offset) + ",\"rope_base\":";
    number(o, e.rope_base);
    o += ",\"scale\":";
    number(o, experiment_score_scale(e));  // the float the passes multiply by
    o += ",\"temperature\":";
    number(o, e.temperature);
    o += ",\"mask\":";
    table(o, r.hidden.data(), r.T, r.T);
    o += ',';
    params_json(o, r, r.params.data());
    o += ",\"held_out\":{\"tokens\":";
    table(o, r.eval_tokens.data(), train_eval_rows, r.T);
    o += ",\"targets\":";
    table(o, r.eval_targets.data(), train_eval_rows, r.T);
    o += ",\"counted\":";
    table(o, r.eval_counted.data(), train_eval_rows, r.T);
    o += "},\"snapshots\":[";
    for (int i = 0; i < r.snapshots_taken; ++i) {
        const train_snapshot& s = r.snapshots[std::size_t(i)];
        o += i ? ",{\"step\":" : "{\"step\":";
        o += std::to_string(s.step) + ',';
        params_json(o, r, s.params.data());
        o += '}';
    }
    o += "]}";
}

// --- [SECTION] patching and the timeline -------------------------------------------

template <class T>
void list(std::string& o, const T* v, std::size_t n) {
    o += '[';
    for (std::size_t i = 0; i < n; ++i) {
        if (i)
            o += ',';
        number(o, double(v[i]));
    }
    o += ']';
}

void patching_json(std::string& o, const circuit_patching& p, const std::string& problem) {
    o += "\"patching\":{";
    if (!problem.empty()) {
        key(o, "problem");
        json_string_append(o, problem);
        o += '}';
        return;
    }
    key(o, "corruption");
    json_string_append(o, p.corruption);
    const std::size_t T = std::size_t(p.T);
    const std::pair<const char*, const std::vector<int>*> rows[] = {{"clean_tokens", &p.clean_tokens},
                                                                    {"corrupt_tokens", &p.corrupt_tokens},
                                                                    {"clean_answer", &p.clean_answer},
                                                                    {"corrupt_answer", &p.corrupt_answer}};
    for (const auto& [name, v] : rows) {
        o += ',';
        key(o, name);
        list(o, v->data(), T);
    }
    o += ",\"positions\":";
    list(o, p.positions.data(), p.positions.size());
    o += ",\"ld_clean\":";
    number(o, p.ld_clean);
    o += ",\"ld_corrupt\":";
    number(o, p.ld_corrupt);
    o += ",\"heads\":";
    tables(o, p.heads.data(), p.L, p.h, p.T + 1);
    o += ",\"resid\":";
    table(o, p.resid.data(), p.L + 1, p.T + 1);
    o += ",\"paths\":[";
    for (std::size_t i = 0; i < p.paths.size(); ++i) {
        const circuit_path_recovery& r = p.paths[i];
        o += i ? ",{\"a\":" : "{\"a\":";
        json_string_append(o, head_name(r.layer_a, r.head_a));
        o += ",\"b\":";
        json_string_append(o, head_name(r.layer_b, r.head_b));
        const std::pair<const char*, float> kinds[] = {{",\"q\":", r.q}, {",\"k\":", r.k}, {",\"v\":", r.v}};
        for (const auto& [name, x] : kinds) {
            o += name;
            number(o, x);
        }
        o += '}';
    }
    o += "],\"paths_all\":{\"q\":";
    number(o, p.paths_all.q);
    o += ",\"k\":";
    number(o, p.paths_all.k);
    o += ",\"v\":";
    number(o, p.paths_all.v);
    o += "}}";
}

// The timeline's per-pair scores: {a, b, q: [S], k: [S], v: [S]}.
void timeline_pairs_json(std::string& o, const circuit_timeline& t) {
    const std::size_t P = t.pairs.size(), S = std::size_t(t.S);
    o += "\"pairs\":[";
    for (std::size_t p = 0; p < P; ++p) {
        const circuit_composition_pair& c = t.pairs[p];
        o += p ? ",{\"a\":" : "{\"a\":";
        json_string_append(o, head_name(c.layer_a, c.head_a));
        o += ",\"b\":";
        json_string_append(o, head_name(c.layer_b, c.head_b));
        const std::pair<const char*, const std::vector<float>*> kinds[] = {{"q", &t.q}, {"k", &t.k}, {"v", &t.v}};
        for (const auto& [name, v] : kinds) {
            o += ",\"";
            o += name;
            o += "\":[";
            for (std::size_t i = 0; i < S; ++i) {
                if (i)
                    o += ',';
                number(o, double((*v)[i * P + p]));
            }
            o += ']';
        }
        o += '}';
    }
    o += "],\"baseline\":{";
    const circuit_baseline* b[3] = {&t.base_q, &t.base_k, &t.base_v};
    for (int i = 0; i < 3; ++i) {
        o += i ? ",\"" : "\"";
        o += "qkv"[i];
        o += "\":{\"mean\":";
        number(o, b[i]->mean);
        o += ",\"spread\":";
        number(o, b[i]->spread);
        o += '}';
    }
    o += '}';
}

void timeline_json(std::string& o, const circuit_timeline& t) {
    const std::size_t S = std::size_t(t.S);
    o += "\"timeline\":{\"steps\":";
    list(o, t.steps.data(), S);
    o += ",\"loss\":";
    list(o, t.loss.data(), S);
    o += ",\"pos_loss\":";
    table(o, t.pos_loss.data(), t.S, t.T);
    o += ",\"pos_loss_all\":";
    table(o, t.pos_loss_all.data(), t.S, t.T);
    o += ",\"first_loss\":";
    list(o, t.first_loss.data(), S);
    o += ",\"icl\":";
    list(o, t.icl.data(), S);
    o += ",\"icl_problem\":";
    if (t.icl_problem.empty())
        o += "null";
    else
        json_string_append(o, t.icl_problem);
    const std::pair<const char*, const std::vector<float>*> kls[] = {
        {"kl_uniform", &t.kl_uniform}, {"kl_unigram", &t.kl_unigram}, {"kl_bigram", &t.kl_bigram}};
    for (const auto& [name, v] : kls) {
        o += ",\"";
        o += name;
        o += "\":";
        list(o, v->data(), S);
    }
    o += ",\"markov_problem\":";
    if (t.markov_problem.empty())
        o += "null";
    else
        json_string_append(o, t.markov_problem);
    o += ",\"prev\":";
    if (t.prev_layer < 0) {
        o += "null,\"induction\":null";
    } else {
        json_string_append(o, head_name(t.prev_layer, t.prev_head));
        o += ",\"induction\":";
        json_string_append(o, head_name(t.ind_layer, t.ind_head));
    }
    o += ",\"prev_ind_k\":";
    list(o, t.prev_ind_k.data(), S);
    o += ',';
    timeline_pairs_json(o, t);
    o += '}';
}

}  // namespace

std::string circuits_corrupt_problem(const experiment& e, circuits_corrupt corrupt) {
    if (corrupt.kind == circuits_corrupt::task && e.train.task != train_task::induction)
        return std::string("--corrupt swap changes the repeated segment of the induction task: it does not apply to ") +
               train_task_name(e.train.task) + " (use --corrupt row:N to patch between two held-out rows)";
    if (corrupt.kind == circuits_corrupt::other_row && (corrupt.row < 0 || corrupt.row >= train_eval_rows))
        return "--corrupt row:" + std::to_string(corrupt.row) + " is outside the held-out set (rows 0 to " +
               std::to_string(train_eval_rows - 1) + ")";
    return {};
}

namespace {

// The report's patching: false with the message when an asked-for corruption fails;
// true with patching_problem set when the automatic one does not apply.
bool report_patching(const train_run& run, int row, circuits_report& out, std::string* error, circuits_corrupt corrupt) {
    // The message is written into the report's own string, keeping its memory: copied,
    // not moved in (libc++'s move assignment gives the old buffer up).
    std::string& why = out.patching_problem;
    const std::string problem = circuits_corrupt_problem(run.e, corrupt);
    why = problem;
    bool ok = why.empty();
    if (ok && corrupt.kind == circuits_corrupt::none) {
        why = "no corruption asked for (--corrupt none)";
        return true;
    }
    if (ok && corrupt.kind == circuits_corrupt::other_row)
        ok = circuits_patching_rows(run, row, corrupt.row, out.patching, &why);
    else if (ok)
        ok = circuits_patching_row(run, row, out.patching, &why);
    if (ok || corrupt.kind == circuits_corrupt::automatic)
        return true;
    if (error)
        *error = why;
    why.clear();
    return false;
}

}  // namespace

bool circuits_report_compute(train_run& run, int row, circuits_report& out, std::string* error, circuits_corrupt corrupt) {
    if (!circuits_read_row(run, row, out.read, error))
        return false;
    out.row = row;
    if (!report_patching(run, row, out, error, corrupt))
        return false;
    circuits_composition(run, out.composition);
    circuits_weights(run, out.weights);
    circuits_timeline(run, out.timeline);
    return true;
}

std::string circuits_report_json(const train_run& run, const circuits_report& r, bool with_model) {
    std::string o = "{\"recipe\":";
    json_string_append(o, experiment_to_text(run.e));
    o += ",\"step\":" + std::to_string(run.step) + ",\"row\":" + std::to_string(r.row) + ",\"vocab\":[";
    for (int v = 0; v < run.V; ++v) {
        if (v)
            o += ',';
        json_string_append(o, task_symbol(v));
    }
    o += "],";
    row_json(o, r.read);
    o += ',';
    composition_json(o, r.composition);
    o += ',';
    weights_json(o, r.weights);
    o += ',';
    patching_json(o, r.patching, r.patching_problem);
    o += ',';
    timeline_json(o, r.timeline);
    if (with_model)
        model_json(o, run);
    o += "}";
    return o;
}

}  // namespace attn
