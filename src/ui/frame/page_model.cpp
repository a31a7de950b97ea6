// The real model's state as the page's JS hook tells it (page_model.hpp).
#include "frame/page_model.hpp"

#include <cstdio>
#include <vector>

#include "base/text_util.hpp"
#include "spec/link_codec.hpp"

namespace attn::ui {
namespace {

template <typename T>
std::string json_numbers(const std::vector<T>& v) {
    std::string j = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        j += std::string(i ? "," : "") + json_number(double(v[i]));
    return j + "]";
}

// ,"lens": [{layer (-1: the embedding), top, p, targetP, rank}], ,"attribution":
// {target, logit, invRms, embedding, bias (GPT-2's; 0 else), heads (layer by layer), ffn}, ,"changes":
// {ablate: [[layer, head]], edges: [[layer, head, query, key]], problems}, ,"effect":
// {layer (the one kept whole), next: [{id, p}], readingP, kl, keylessRows} when it is
// of the changes and the selected layer on this reading, else null.
std::string real_readout_json(const attn::ui::app& a) {
    const attn::real_session& r = a.real;
    std::string out = ",\"lens\":[";
    char buf[200];
    for (std::size_t i = 0; i < r.reading.lens.size(); ++i) {
        const attn::llama_lens_row& l = r.reading.lens[i];
        std::snprintf(buf, sizeof buf, "%s{\"layer\":%d,\"top\":%d,\"p\":%.9g,\"targetP\":%.9g,\"rank\":%d}", i ? "," : "",
                      l.layer, l.top, double(l.top_probability), double(l.target_probability), l.target_rank);
        out += buf;
    }
    const attn::llama_attribution& at = r.reading.attribution;
    out += "],\"attribution\":{\"target\":" + std::to_string(at.target) + ",\"logit\":" + json_number(at.logit) +
           ",\"invRms\":" + json_number(at.inv_rms) + ",\"embedding\":" + json_number(at.embedding) +
           ",\"bias\":" + json_number(at.bias) + ",\"heads\":" + json_numbers(at.heads) + ",\"ffn\":" + json_numbers(at.ffn) +
           "}";
    const attn::real_interventions& iv = a.view.model.changes;
    out += ",\"changes\":{\"ablate\":[";
    for (std::size_t i = 0; i < iv.ablate.size(); ++i)
        out +=
            std::string(i ? "," : "") + "[" + std::to_string(iv.ablate[i].layer) + "," + std::to_string(iv.ablate[i].head) + "]";
    out += "],\"edges\":[";
    for (std::size_t i = 0; i < iv.edges.size(); ++i) {
        const attn::masked_edge& e = iv.edges[i];
        std::snprintf(buf, sizeof buf, "%s[%d,%d,%d,%d]", i ? "," : "", e.layer, e.head, e.query, e.key);
        out += buf;
    }
    out += "],\"problems\":[";
    const std::vector<std::string> problems = attn::real_session_problems(r, attn::ui::app_model_wants(a));
    for (std::size_t i = 0; i < problems.size(); ++i)
        out += std::string(i ? "," : "") + attn::json_string(problems[i]);
    out += "]},\"effect\":";
    if (!attn::real_session_changed(r, attn::ui::app_model_wants(a)))
        return out + "null";
    const attn::real_effect& fx = r.effect;
    out += "{\"layer\":" + std::to_string(fx.layer) + ",\"next\":[";
    for (std::size_t i = 0; i < fx.next.size(); ++i)
        out += std::string(i ? "," : "") + "{\"id\":" + std::to_string(fx.next[i].id) +
               ",\"p\":" + json_number(fx.next[i].probability) + "}";
    return out + "],\"readingP\":" + json_numbers(fx.reading_ids_probability) + ",\"kl\":" + json_number(fx.kl) +
           ",\"keylessRows\":" + std::to_string(fx.keyless_rows) + "}";
}

}  // namespace

std::string real_model_json(const attn::ui::app& a) {
    const attn::real_session& r = a.real;
    const attn::ui::page_model_files& files = a.model_files;
    if (!r.model)
        return r.error.empty() && files.kept.empty() && files.fetch.file.empty()
                   ? "null"
                   : "{\"error\":" + attn::json_string(r.error) + ",\"kept\":" + std::to_string(files.kept.size()) + "}";
    const attn::llama_config& c = r.model->model.config;
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "{\"bytes\":%zu,\"params\":%zu,\"config\":{\"dim\":%d,\"hidden\":%d,\"layers\":%d,\"heads\":%d,"
                  "\"kvHeads\":%d,\"vocab\":%d,\"seqLen\":%d,\"version\":%d,\"shared\":%s},\"open\":%s,\"cut\":%s,"
                  "\"layer\":%d,\"head\":%d",
                  r.model->file_bytes, r.model->parameters(), c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                  c.vocab_size, c.seq_len, c.version, c.shared_classifier ? "true" : "false",
                  a.view.model.open ? "true" : "false", r.reading.cut ? "true" : "false", a.view.model.layer, a.view.model.head);
    std::string out = buf;
    out += ",\"key\":" + attn::json_string(attn::link_model_ref(r.model->name, r.model->sha256)) +
           ",\"tokenizerKey\":" + attn::json_string(attn::link_model_ref(r.model->tokenizer_name, r.model->tokenizer_sha256)) +
           ",\"kept\":" + std::to_string(files.kept.size());
    out += ",\"format\":" + attn::json_string(r.model->format) +
           ",\"dtype\":" + attn::json_string(attn::weight_type_name(r.model->dtype));
    out += ",\"name\":" + attn::json_string(r.model->name) + ",\"tokenizer\":" + attn::json_string(r.model->tokenizer_name) +
           ",\"error\":" + attn::json_string(r.error) + ",\"notKept\":" + attn::json_string(files.not_kept) +
           ",\"text\":" + attn::json_string(r.reading.text) + ",\"decoded\":" + attn::json_string(r.reading.decoded) +
           ",\"ids\":[";
    for (std::size_t i = 0; i < r.reading.ids.size(); ++i)
        out += (i ? "," : "") + std::to_string(r.reading.ids[i]);
    out += "],\"next\":[";
    for (std::size_t i = 0; i < r.reading.next.size(); ++i) {
        const attn::real_next_token& t = r.reading.next[i];
        std::snprintf(buf, sizeof buf, "%s{\"id\":%d,\"p\":%.9g,\"logit\":%.9g}", i ? "," : "", t.id, double(t.probability),
                      double(t.logit));
        out += buf;
    }
    out += "],\"heads\":[";
    for (std::size_t i = 0; i < r.reading.heads.size(); ++i) {
        const attn::real_head_summary& h = r.reading.heads[i];
        std::snprintf(buf, sizeof buf, "%s{\"layer\":%d,\"head\":%d,\"kv\":%d,\"prev\":%.9g,\"sink\":%.9g,\"induction\":%.9g}",
                      i ? "," : "", h.layer, h.head, h.kv_head, double(h.prev), double(h.sink), double(h.induction));
        out += buf;
    }
    out += "],\"gen\":{\"ids\":[";
    for (std::size_t i = 0; i < r.gen.ids.size(); ++i)
        out += (i ? "," : "") + std::to_string(r.gen.ids[i]);
    // The KV cache (as the window says it): bytes a token adds, with MHA's, and what the last step read.
    const attn::real_cache_measure cache = attn::real_model_cache(*r.model, r.gen);
    std::snprintf(buf, sizeof buf, "],\"cache\":{\"perToken\":%zu,\"perTokenMha\":%zu,\"context\":%zu,\"lastStepRead\":%zu}",
                  cache.per_token, cache.per_token_mha, cache.context, cache.last_step_read);
    out += buf;
    out += ",\"prompt\":" + std::to_string(r.gen.prompt) + ",\"done\":" + (r.gen.done ? "true" : "false") +
           ",\"stopped\":" + attn::json_string(r.gen.stopped) + ",\"text\":" + attn::json_string(r.gen.text) + "}";
    return out + real_readout_json(a) + "}";
}

std::string wanted_model_json(const attn::ui::app& a) {
    const std::string wanted = attn::ui::app_wanted_model(a);
    std::string out = ",\"wantedModel\":";
    out += wanted.empty() ? std::string("null")
                          : "{\"key\":" + attn::json_string(wanted) + ",\"tokenizer\":" + attn::json_string(a.options.tokenizer) +
                                ",\"url\":" + attn::json_string(a.options.model_url) +
                                ",\"tokenizerUrl\":" + attn::json_string(a.options.tokenizer_url) + "}";
    char fetch[160];
    std::snprintf(fetch, sizeof fetch,
                  ",\"modelFetch\":{\"received\":%.0f,\"total\":%.0f,\"file\":", a.model_files.fetch.received,
                  a.model_files.fetch.total);
    return out + fetch + attn::json_string(a.model_files.fetch.file) + "}";
}

}  // namespace attn::ui
