// The browser bridge: everything that talks to the page. The functions with
// C linkage are the JS hook the page exposes as window.attn (see web/app.js);
// tests and embedders use them to read and set the experiment.
#include "bridge.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "i18n.hpp"
#include "imgui.h"
#include "imgui_internal.h"  // the windows' scroll state, for windows_json

#include "base/text_util.hpp"
#include "fonts.hpp"
#include "model/trace_json.hpp"
#include "panels.hpp"
#include "play/training.hpp"
#include "text_mirror.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/trainer_file.hpp"

namespace {
attn::ui::app* g_app = nullptr;
// Kept runs (bridge_keep_runs): the furthest step the page's store holds of each
// recipe as far as this page knows (handed over from here, or given from there).
constexpr double run_answer_ms = 3000;  // the longest training waits for the store's answer
std::map<std::string, int> g_run_stored;
attn::ui::touch_input* g_touch = nullptr;
std::string g_buffer;        // holds the last string returned to JS
bool g_frame_drawn = false;  // main.cpp drew the frame that ran last
bool g_redraw = false;       // the page asked for a drawn frame
bool g_asleep = false;       // the main loop is paused (bridge_sleep)
bool g_woken = false;        // woken since the last frame took it (bridge_take_wake)

// Every ImGui window drawn this frame, for the zoom test (nothing a person must
// read is clipped): its name, its parent's, the visible rectangle (CSS pixels),
// the scroll, how far its content reaches past the visible area (ImGui's
// ScrollMax) and whether it has a horizontal / vertical scrollbar.
std::string windows_json(float s) {
    const auto clean = [](const char* name) {  // names are the code's (ASCII, '/', '#'): nothing to escape, but be sure
        std::string out;
        for (const char* c = name; *c && out.size() < 120; ++c)
            if (*c != '"' && *c != '\\' && static_cast<unsigned char>(*c) >= 0x20 && static_cast<unsigned char>(*c) < 0x80)
                out += *c;
        return out;
    };
    std::string out = "[";
    char buf[512];
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        if (!w->WasActive || w->Hidden)
            continue;
        std::snprintf(buf, sizeof buf,
                      "%s{\"name\":\"%s\",\"parent\":\"%s\",\"rect\":[%.1f,%.1f,%.1f,%.1f],\"scroll\":[%.1f,%.1f],"
                      "\"over\":[%.1f,%.1f],\"bars\":[%s,%s]}",
                      out.size() > 1 ? "," : "", clean(w->Name).c_str(),
                      clean(w->ParentWindow ? w->ParentWindow->Name : "").c_str(), double(w->InnerRect.Min.x / s),
                      double(w->InnerRect.Min.y / s), double(w->InnerRect.Max.x / s), double(w->InnerRect.Max.y / s),
                      double(w->Scroll.x / s), double(w->Scroll.y / s), double(w->ScrollMax.x / s), double(w->ScrollMax.y / s),
                      w->ScrollbarX ? "true" : "false", w->ScrollbarY ? "true" : "false");
        out += buf;
    }
    return out + "]";
}

std::string json_number(double v) {
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// Every head's scores at a mark: [{prev, induction, offset, sink}, ...], layer by layer.
std::string heads_json(const attn::trainer_mark& m) {
    std::string j = "[";
    for (std::size_t i = 0; i < m.heads.size(); ++i) {
        const attn::head_scores& h = m.heads[i];
        j += std::string(i ? "," : "") + "{\"prev\":" + json_number(h.prev_mean()) +
             ",\"induction\":" + json_number(h.induction_mean()) + ",\"offset\":" + json_number(h.offset_mean()) +
             ",\"sink\":" + json_number(h.sink_mean()) + "}";
    }
    return j + "]";
}

// The training of a recipe's experiment, null without one: its step, target and
// steps, the last train loss and accuracy, the held-out ones at the step, done,
// stopped (the loss stopped being finite short of the target), the weights hash
// when done, the phase-change step, the error, the estimate from the shape
// (train_estimate: a step's and the run's seconds, and whether it opens
// paused), a step or measure in progress; with `heads`,
// every head's scores and the task with the ablated heads zeroed.
std::string train_json(const attn::ui::app& a, bool heads) {
    const attn::trainer& t = a.model.train;
    if (a.model.exp.train.task == attn::train_task::none)
        return "null";
    const int step = attn::trainer_step(t);
    // done: at the step the link asks for. A run whose loss stopped being finite
    // is not done: it says stopped, and the error says where and why.
    const bool stopped = attn::trainer_stopped(t);
    const bool done = attn::trainer_done(t) && !stopped;
    // null until a measure is done (trainer_measured), as the panel shows none
    const auto held_out = [&](float v) { return attn::trainer_measured(t) ? json_number(v) : std::string("null"); };
    // null at step 0 (after Reset too): no batch trained on, no train loss
    const std::optional<attn::train_point> last = attn::trainer_last_point(t);
    const auto point = [&](float attn::train_point::*v) { return last ? json_number((*last).*v) : std::string("null"); };
    std::string j = "{\"step\":" + std::to_string(step) + ",\"target\":" + std::to_string(t.target) +
                    ",\"steps\":" + std::to_string(a.model.exp.train.steps) + ",\"loss\":" + point(&attn::train_point::loss) +
                    ",\"accuracy\":" + point(&attn::train_point::acc) + ",\"heldOutLoss\":" + held_out(t.now.held_out.loss) +
                    ",\"heldOutAccuracy\":" + held_out(t.now.held_out.acc) + ",\"done\":" + (done ? "true" : "false") +
                    ",\"stopped\":" + (stopped ? "true" : "false") +
                    ",\"hash\":" + (done && t.run ? "\"" + attn::train_weights_hash(*t.run) + "\"" : std::string("null")) +
                    ",\"phase\":" + std::to_string(attn::trainer_phase_step(t)) + ",\"marks\":" + std::to_string(t.marks.size()) +
                    ",\"error\":" + attn::json_string(t.error);
    const attn::train_cost cost = attn::train_estimate(a.model.exp);  // from the shape, before running
    j += ",\"estimate\":{\"stepSeconds\":" + json_number(float(attn::train_seconds(cost.step))) +
         ",\"runSeconds\":" + json_number(float(attn::train_seconds(cost.run))) +
         ",\"long\":" + (attn::train_is_long(a.model.exp) ? "true" : "false") + "}";
    // Between frames: a step begun and not finished (or steps going on beside the drawing: trainer_launch), a
    // held-out measure under way (trainer_advance's pieces).
    const bool in_step = t.run && !t.lost && (t.job.busy() || attn::train_step_in_progress(*t.run));
    j += std::string(",\"inStep\":") + (in_step ? "true" : "false") +
         ",\"measuring\":" + (t.measuring_step >= 0 ? "true" : "false") + ",\"threads\":" +
         std::to_string(attn::session_train_threads(a.model)) +  // what the steps run on (apart: all but the drawing's)
         ",\"apart\":" + (attn::session_trains_apart(a.model) ? "true" : "false");  // beside the drawing (training.hpp)
    j += ",\"stops\":[";  // the scrubber's stops: the grid's steps and the dense snapshots taken (trainer_snapshot_steps)
    const std::vector<int> stops = attn::trainer_snapshot_steps(t);
    for (std::size_t i = 0; i < stops.size(); ++i)
        j += (i ? "," : "") + std::to_string(stops[i]);
    j += "]";
    if (heads) {
        j += ",\"measuredStep\":" + std::to_string(t.measured_step) + ",\"heads\":" + heads_json(t.now);
        j += ",\"kept\":[";  // the measures at each snapshot the run reached
        for (std::size_t i = 0; i < t.marks.size(); ++i)
            j += std::string(i ? "," : "") + "{\"step\":" + std::to_string(t.marks[i].step) +
                 ",\"heldOutLoss\":" + json_number(t.marks[i].held_out.loss) +
                 ",\"heldOutAccuracy\":" + json_number(t.marks[i].held_out.acc) + ",\"heads\":" + heads_json(t.marks[i]) + "}";
        const attn::task_effect& e = a.model.ablated_task;
        j += "],\"ablated\":" +
             (e.valid ? "{\"loss\":" + json_number(e.ablated.loss) + ",\"accuracy\":" + json_number(e.ablated.acc) +
                            ",\"baseLoss\":" + json_number(e.base.loss) + ",\"baseAccuracy\":" + json_number(e.base.acc) + "}"
                      : std::string("null"));
    }
    return j + "}";
}

// "Patch from A" while the compare shows it: {done, total, problem (English, ""
// when none), explained: [per head, layer by layer; null for NaN]}; null when
// not shown. Read from the memo as it is: the frames fill it in.
std::string compare_patch_json(const attn::ui::app& a) {
    if (!a.model.pin || !a.view.compare_shown || !a.view.compare_patch_shown || !a.memo.compare_patch.valid)
        return "null";
    const attn::compare_patch_result& r = a.memo.compare_patch.value;
    std::string j = "{\"done\":" + std::to_string(r.done) + ",\"total\":" + std::to_string(r.total) +
                    ",\"problem\":" + attn::json_string(r.problem) + ",\"explained\":[";
    for (std::size_t k = 0; k < r.explained.size(); ++k)
        j += std::string(k ? "," : "") + json_number(r.explained[k]);
    return j + "]}";
}

template <typename T>
std::string json_numbers(const std::vector<T>& v) {
    std::string j = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        j += std::string(i ? "," : "") + json_number(double(v[i]));
    return j + "]";
}

// ,"lens": [{layer (-1: the embedding), top, p, targetP, rank}], ,"attribution":
// {target, logit, invRms, embedding, heads (layer by layer), ffn}, ,"changes":
// {ablate: [[layer, head]], edges: [[layer, head, query, key]], problems}, ,"effect":
// {layer (the one kept whole), next: [{id, p}], readingP, kl, keylessRows} when it is
// of the changes and the selected layer on this reading, else null.
std::string real_readout_json(const attn::ui::app& a) {
    const attn::ui::model_state& r = a.real;
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
           ",\"heads\":" + json_numbers(at.heads) + ",\"ffn\":" + json_numbers(at.ffn) + "}";
    const attn::real_interventions& iv = a.view.model_changes;
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
    const std::vector<std::string> problems = attn::ui::app_model_changes_problems(a);
    for (std::size_t i = 0; i < problems.size(); ++i)
        out += std::string(i ? "," : "") + attn::json_string(problems[i]);
    out += "]},\"effect\":";
    if (iv.empty() || !attn::ui::app_model_effect_current(a))
        return out + "null";
    const attn::real_effect& fx = r.effect;
    out += "{\"layer\":" + std::to_string(fx.layer) + ",\"next\":[";
    for (std::size_t i = 0; i < fx.next.size(); ++i)
        out += std::string(i ? "," : "") + "{\"id\":" + std::to_string(fx.next[i].id) +
               ",\"p\":" + json_number(fx.next[i].probability) + "}";
    return out + "],\"readingP\":" + json_numbers(fx.reading_ids_probability) + ",\"kl\":" + json_number(fx.kl) +
           ",\"keylessRows\":" + std::to_string(fx.keyless_rows) + "}";
}

// The Model window's real model for tests: null when none is open (or {error,
// kept} when files were refused or the browser keeps models), else {key (the
// link's model= value), kept (models this browser keeps), name,
// tokenizer, bytes, params, config: {dim, hidden, layers, heads, kvHeads, vocab,
// seqLen, version, shared}, error, open, text, ids, decoded, cut, next: [{id, p,
// logit}], heads: [{layer, head, kv, prev, sink, induction}], gen: {ids, prompt,
// done, stopped, text}, layer, head, and real_readout_json's}.
std::string real_model_json(const attn::ui::app& a) {
    const attn::ui::model_state& r = a.real;
    if (!r.model)
        return r.error.empty() && r.kept.empty() && r.fetch.file.empty()
                   ? "null"
                   : "{\"error\":" + attn::json_string(r.error) + ",\"kept\":" + std::to_string(r.kept.size()) + "}";
    const attn::llama_config& c = r.model->model.config;
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "{\"bytes\":%zu,\"params\":%zu,\"config\":{\"dim\":%d,\"hidden\":%d,\"layers\":%d,\"heads\":%d,"
                  "\"kvHeads\":%d,\"vocab\":%d,\"seqLen\":%d,\"version\":%d,\"shared\":%s},\"open\":%s,\"cut\":%s,"
                  "\"layer\":%d,\"head\":%d",
                  r.model->file_bytes, r.model->parameters(), c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                  c.vocab_size, c.seq_len, c.version, c.shared_classifier ? "true" : "false",
                  a.view.model_open ? "true" : "false", r.reading.cut ? "true" : "false", a.view.model_layer, a.view.model_head);
    std::string out = buf;
    out += ",\"key\":" + attn::json_string(attn::link_model_ref(r.model->name, r.model->sha256)) +
           ",\"tokenizerKey\":" + attn::json_string(attn::link_model_ref(r.model->tokenizer_name, r.model->tokenizer_sha256)) +
           ",\"kept\":" + std::to_string(r.kept.size());
    out += ",\"name\":" + attn::json_string(r.model->name) + ",\"tokenizer\":" + attn::json_string(r.model->tokenizer_name) +
           ",\"error\":" + attn::json_string(r.error) + ",\"notKept\":" + attn::json_string(r.not_kept) +
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

// ,"wantedModel": the model the link names and has not opened, with its
// tokenizer= ("" when the link names none) and where a host keeps the files
// (the shell fetches them from there), or null; ,"modelFetch": that fetch
// under way ({received, total, file}, file "" when none runs).
std::string wanted_model_json(const attn::ui::app& a) {
    const std::string wanted = attn::ui::app_wanted_model(a);
    std::string out = ",\"wantedModel\":";
    out += wanted.empty() ? std::string("null")
                          : "{\"key\":" + attn::json_string(wanted) + ",\"tokenizer\":" + attn::json_string(a.options.tokenizer) +
                                ",\"url\":" + attn::json_string(a.options.model_url) +
                                ",\"tokenizerUrl\":" + attn::json_string(a.options.tokenizer_url) + "}";
    char fetch[160];
    std::snprintf(fetch, sizeof fetch, ",\"modelFetch\":{\"received\":%.0f,\"total\":%.0f,\"file\":", a.real.fetch.received,
                  a.real.fetch.total);
    return out + fetch + attn::json_string(a.real.fetch.file) + "}";
}

// `clipped`: how many text items their window cut this frame, and the first
// few of them (`clippedItems`, in CSS pixels) to say which.
// The output stage's prediction after the selected token (circuits_predict, the
// session's): {row, token, target (null after the last token), targetProb,
// targetRank (0: the top), top: [{token, p}], lens: [{layer, top, p, targetRank}],
// writer: {kind (embed, head, ffn), layer, head, part, logit, attendsTo, weight}};
// null unless the experiment is a trained recipe.
std::string prediction_json(const attn::ui::app& a) {
    const attn::circuit_prediction& p = a.model.prediction;
    if (p.n == 0)
        return "null";
    const int t = std::clamp(a.view.sel_row, 0, p.n - 1), target = p.targets[std::size_t(t)];
    auto symbol = [](int v) { return "\"" + attn::task_symbol(v) + "\""; };  // a–z, A–Z, 0–9: nothing to escape
    std::string j = "{\"row\":" + std::to_string(t) + ",\"token\":" + symbol(p.tokens[std::size_t(t)]) +
                    ",\"target\":" + (target < 0 ? "null" : symbol(target)) +
                    ",\"targetProb\":" + json_number(p.target_prob[std::size_t(t)]) +
                    ",\"targetRank\":" + (target < 0 ? "null" : std::to_string(p.target_rank[std::size_t(t)])) + ",\"top\":[";
    for (int i = 0; i < p.top_k; ++i) {
        const int v = p.top[std::size_t(t * p.top_k + i)];
        j += std::string(i ? "," : "") + "{\"token\":" + symbol(v) + ",\"p\":" + json_number(p.probs[std::size_t(t * p.V + v)]) +
             "}";
    }
    j += "],\"lens\":[";
    const std::size_t nv = std::size_t(p.n) * std::size_t(p.V);
    for (int l = 0; l < p.L; ++l) {
        const int top = p.lens_top[std::size_t(l * p.n + t)];
        j += std::string(l ? "," : "") + "{\"layer\":" + std::to_string(l) + ",\"top\":" + symbol(top) +
             ",\"p\":" + json_number(p.lens_probs[std::size_t(l) * nv + std::size_t(t * p.V + top)]) +
             ",\"targetRank\":" + (target < 0 ? "null" : std::to_string(p.lens_target_rank[std::size_t(l * p.n + t)])) + "}";
    }
    const attn::circuit_writer& w = p.writer[std::size_t(t)];
    static const char* const kinds[] = {"none", "embed", "head", "ffn"};
    j += "],\"writer\":{\"kind\":\"" + std::string(kinds[int(w.kind)]) + "\",\"layer\":" + std::to_string(w.layer) +
         ",\"head\":" + std::to_string(w.head_index) + ",\"part\":" + json_number(w.part) + ",\"logit\":" + json_number(w.logit) +
         ",\"attendsTo\":" + std::to_string(w.attends_to) + ",\"weight\":" + json_number(w.weight) + "}";
    return j + "}";
}

std::string clipped_json(const attn::ui::app& a, float s) {
    std::string out = ",\"clipped\":" + std::to_string(a.reports.clipped.size()) + ",\"clippedItems\":[";
    const std::size_t shown = std::min<std::size_t>(a.reports.clipped.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
        const attn::ui::clip_report& c = a.reports.clipped[i];
        std::string text;
        for (const char ch : c.text)
            text += ch == '"' || ch == '\\' ? std::string("\\") + ch
                                            : (static_cast<unsigned char>(ch) < 0x20 ? " " : std::string(1, ch));
        char buf[256];
        std::snprintf(buf, sizeof buf, "\",\"window\":\"%s\",\"rect\":[%.1f,%.1f,%.1f,%.1f],\"clip\":[%.1f,%.1f,%.1f,%.1f]}",
                      c.window.c_str(), double(c.x0 / s), double(c.y0 / s), double(c.x1 / s), double(c.y1 / s),
                      double(c.clip_x0 / s), double(c.clip_y0 / s), double(c.clip_x1 / s), double(c.clip_y1 / s));
        out += std::string(i ? "," : "") + "{\"text\":\"" + text + buf;
    }
    return out + "]";
}

// `drawn`: the last frame's vertices, and the windows that drew the most of
// them (a frame's cost in the browser grows with the vertices it uploads).
std::string drawn_json() {
    const ImDrawData* d = ImGui::GetDrawData();
    if (!d || !d->Valid)
        return ",\"drawn\":null";
    std::vector<std::pair<int, std::string>> lists;
    for (const ImDrawList* l : d->CmdLists)
        lists.emplace_back(l->VtxBuffer.Size, l->_OwnerName ? l->_OwnerName : "");
    std::sort(lists.begin(), lists.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string out = ",\"drawn\":{\"vertices\":" + std::to_string(d->TotalVtxCount) + ",\"windows\":[";
    for (std::size_t i = 0; i < std::min<std::size_t>(lists.size(), 5); ++i)
        out += std::string(i ? "," : "") + "{\"name\":" + attn::json_string(lists[i].second) +
               ",\"vertices\":" + std::to_string(lists[i].first) + "}";
    return out + "]}";
}

// ,"pipeline": what the stages draw — the experiment, or a real model's layer
// (app_pipeline): {real, layer, heads, tokens}.
std::string pipeline_json(const attn::ui::app& a) {
    const attn::ui::pipeline_shown shown = attn::ui::app_pipeline(a);
    return std::string(",\"pipeline\":{\"real\":") + (shown.real ? "true" : "false") +
           ",\"layer\":" + std::to_string(shown.layer) + ",\"heads\":" + std::to_string(shown.exp->heads) +
           ",\"tokens\":" + std::to_string(shown.tr->tokens.size()) + "}";
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attn_hook_experiment() {
    g_buffer = g_app ? attn::experiment_to_text(g_app->model.exp) : "";
    return g_buffer.c_str();
}

// Applies the experiment of a link (any form link_parse reads: canonical, z=,
// a whole URL; view.* keys are checked but the view stays as it is); returns ""
// or the problems, one per line.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_set_experiment(const char* text) {
    g_buffer.clear();
    if (!g_app)
        return "";
    if (!attn::ui::app_change(*g_app, attn::change::open(text), attn::ui::link_scope::experiment))
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

// attn_hook_set_experiment for a host page's attn:set: its changes in a row make
// one undo step (session.hpp, change::from_host), so a host that floods the page
// leaves the reader's own undo steps in the history.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_host_set_experiment(const char* text) {
    g_buffer.clear();
    if (!g_app)
        return "";
    attn::change c = attn::change::open(text);
    c.from_host = true;
    if (!attn::ui::app_change(*g_app, c, attn::ui::link_scope::experiment))
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

// Opens a link as the page does (a pasted link, back/forward): the experiment
// and its view, an undo step. Returns "" or the problems, one per line.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_open_link(const char* text) {
    g_buffer.clear();
    if (!g_app)
        return "";
    if (!attn::ui::app_open_link(*g_app, text))
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

// The weights hash of the model a recipe's link names, trained to `steps` steps
// of its run (as `trained=steps` would say; the link's own trained= or steps when
// steps < 0), or "error: …". Every wasm engine gives the hash the core tests
// record under Node (tests/web/train.test.mjs checks Chromium's).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_train_hash(const char* recipe, int steps) {
    auto parsed = attn::experiment_parse(recipe);
    if (parsed.value && steps >= 0) {
        parsed.value->train.trained = steps;
        parsed.errors = attn::experiment_validate(*parsed.value);
        if (!parsed.errors.empty())
            parsed.value.reset();
    }
    auto init = parsed.value ? attn::train_init(*parsed.value) : attn::train_init_result{std::nullopt, parsed.errors};
    if (!init.run) {
        g_buffer = "error: " + (init.errors.empty() ? std::string("?") : init.errors.front());
        return g_buffer.c_str();
    }
    init.run->threads = g_app ? g_app->model.threads : 1;  // as the page trains: the same bits on any count
    attn::train_run_named(*init.run);
    g_buffer = init.run->error.empty() ? attn::train_weights_hash(*init.run) : "error: " + init.run->error;
    return g_buffer.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_trace_json() {
    if (!g_app) {
        g_buffer = "{}";
        return g_buffer.c_str();
    }
    attn::ui::app_sync(*g_app);  // between frames, the trace of the experiment just set
    g_buffer = attn::trace_to_json(g_app->model.exp, g_app->model.tr);
    return g_buffer.c_str();
}

// The view: stage, layer, selection, language, and the rectangles of named
// widgets in CSS pixels, so a test can click where a person would.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_ui_state() {
    g_buffer = "{}";
    if (!g_app)
        return g_buffer.c_str();
    attn::ui::app_sync(*g_app);
    const attn::ui::app& a = *g_app;
    const float s = a.scale > 0 ? a.scale : 1.0f;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "{\"stage\":%d,\"layer\":%d,\"sel_row\":%d,\"language\":\"%s\",\"help\":%s,\"undo\":%zu,\"redo\":%zu,"
                  "\"selected\":[%d,%d,%d,%d],\"version\":%llu,\"threads\":%d,\"widgets\":{",
                  int(a.view.current), a.view.layer, a.view.sel_row,
                  attn::ui::ui_language() == attn::ui::language::zh ? "zh" : "en", a.view.show_help ? "true" : "false",
                  a.model.undo.size(), a.model.redo.size(), a.view.selected.matrix, a.view.selected.head, a.view.selected.row,
                  a.view.selected.col, static_cast<unsigned long long>(a.model.version), a.model.threads);
    g_buffer = buf;
    bool first = true;
    for (const auto& w : a.reports.widgets) {
        std::snprintf(buf, sizeof buf, "%s\"%s\":[%.1f,%.1f,%.1f,%.1f]", first ? "" : ",", w.name.c_str(), double(w.x0 / s),
                      double(w.y0 / s), double(w.x1 / s), double(w.y1 / s));
        g_buffer += buf;
        first = false;
    }
    g_buffer += "},\"lesson\":" + std::to_string(a.view.lesson.index) + ",\"numbers\":{";
    first = true;
    for (const auto& [name, value] : a.reports.lesson_numbers) {
        std::snprintf(buf, sizeof buf, "%s\"%s\":%.9g", first ? "" : ",", name.c_str(), std::isfinite(value) ? value : -1e300);
        g_buffer += buf;
        first = false;
    }
    g_buffer += "},\"link\":\"" + attn::ui::app_link(a) + "\"";  // a link is URL-safe ASCII: no escaping needed
    g_buffer += std::string(",\"embed\":") + (a.options.embed ? "true" : "false");
    g_buffer += pipeline_json(a);
    g_buffer += std::string(",\"readonly\":") + (a.options.readonly ? "true" : "false");
    g_buffer +=
        std::string(",\"keyboard\":") + ((ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) ? "true" : "false");
    g_buffer += ",\"focus\":\"" + a.reports.keyboard_focus + "\"";  // widget names are plain ASCII
    g_buffer += ",\"focusLabel\":" + attn::json_string(a.reports.focus_label);
    g_buffer += ",\"tooltip\":" + attn::json_string(a.heatmaps ? a.heatmaps->tooltip() : std::string());
    g_buffer += ",\"windows\":" + windows_json(s) + ",\"widgetWindows\":{";
    first = true;
    for (const auto& w : a.reports.widgets) {  // each widget's window (names: ASCII, no quotes)
        g_buffer += std::string(first ? "" : ",") + "\"" + w.name + "\":\"" + w.window + "\"";
        first = false;
    }
    g_buffer += "},\"maps\":[";
    first = true;
    for (const auto& m : a.reports.maps) {  // each map drawn: the cells that hold a value, how many show it, its caption
        std::snprintf(buf, sizeof buf, "%s{\"name\":\"%s\",\"cells\":%d,\"labelled\":%d,\"axes\":\"", first ? "" : ",",
                      m.name.c_str(), m.cells, m.labelled);
        g_buffer += buf + m.axes + "\"}";  // the captions are the code's: no quotes or backslashes
        first = false;
    }
    g_buffer += "]" + clipped_json(a, s) + drawn_json();
    // The A/B compare of the current stage: max |B − A| when A is pinned and has B's shape, else null and why.
    const attn::compare_result& c = attn::ui::app_compare(a);
    const bool comparable = a.model.pin && c.mismatch.what == attn::compare_mismatch::kind::none && std::isfinite(c.max_abs);
    std::snprintf(buf, sizeof buf, "%.9g", c.max_abs);
    g_buffer += std::string(",\"compare\":{\"pinned\":") + (a.model.pin ? "true" : "false") +
                ",\"shown\":" + (a.model.pin && a.view.compare_shown ? "true" : "false") +
                ",\"maxAbs\":" + (comparable ? buf : "null") + ",\"reason\":\"" + attn::compare_mismatch_text(c.mismatch) +
                "\"";  // plain ASCII but for ×: no quotes to escape
    // A pinned recipe's run (none while A's shape is not B's): where it is and where it goes.
    const attn::trainer& pt = a.model.pin_train;
    std::snprintf(buf, sizeof buf, "{\"step\":%d,\"target\":%d,\"done\":%s}", attn::trainer_step(pt), pt.target,
                  attn::trainer_done(pt) ? "true" : "false");
    g_buffer += std::string(",\"aTrain\":") + (pt.run ? buf : "null") + ",\"patch\":" + compare_patch_json(a) + "}";
    if (g_touch) {  // the touch gesture under way: 0 idle, 1 pressed, 2 dragging, 3 scrolling, 4 coasting, 5 pinching
        std::snprintf(buf, sizeof buf, ",\"touch\":{\"mode\":%d,\"speed\":[%.1f,%.1f]}", int(g_touch->gestures.now),
                      double(g_touch->gestures.vx / s), double(g_touch->gestures.vy / s));
        g_buffer += buf;
    }
    g_buffer += ",\"prediction\":" + prediction_json(a);
    g_buffer += ",\"realModel\":" + real_model_json(a);
    g_buffer += wanted_model_json(a);
    g_buffer += ",\"train\":" + train_json(a, true) + "}";
    return g_buffer.c_str();
}

// The text view as the page shows it (text_mirror.hpp), built now.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_text_view() {
    g_buffer = "{}";
    if (!g_app)
        return g_buffer.c_str();
    attn::ui::app_sync(*g_app);
    g_buffer = attn::ui::text_mirror_json(*g_app);
    return g_buffer.c_str();
}

// A touch on the canvas (web/touch.js): phase 0 start, 1 move, 2 end, 3 cancel;
// the finger's id; where, in the canvas's device pixels (ImGui's); when, in seconds.
EMSCRIPTEN_KEEPALIVE void attn_hook_touch(int phase, int id, double x, double y, double seconds) {
    if (!g_touch || phase < 0 || phase > 3 || !std::isfinite(x) || !std::isfinite(y) || !std::isfinite(seconds))
        return;
    attn::ui::touch_input_event(*g_touch, {attn::ui::touch_phase(phase), id, float(x), float(y), seconds});
}

// Whether the app is navigating its controls by keyboard (Tab started it, Escape ends it).
EMSCRIPTEN_KEEPALIVE int attn_hook_keyboard_nav() {
    return g_app && (ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) ? 1 : 0;
}

// Whether a lesson's reading of the trained model is still under way (L11, L12).
EMSCRIPTEN_KEEPALIVE int attn_hook_reading() { return g_app && g_app->reports.reading ? 1 : 0; }

// Whether the app drew the frame that just ran (bridge_frame_drawn); asks for the next to be drawn.
EMSCRIPTEN_KEEPALIVE int attn_hook_frame_drawn() { return g_frame_drawn ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE void attn_hook_redraw() { g_redraw = true; }

// The main loop asleep (bridge_sleep): a wake runs it again and keeps it awake a while
// (an event, a call that may change the app); a tick runs it for one frame, which may
// sleep again. web/sleep.js calls both.
EMSCRIPTEN_KEEPALIVE void attn_hook_wake() {
    g_woken = true;
    if (std::exchange(g_asleep, false))
        emscripten_resume_main_loop();
}
EMSCRIPTEN_KEEPALIVE void attn_hook_tick() {
    if (std::exchange(g_asleep, false))
        emscripten_resume_main_loop();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_errors() {
    g_buffer.clear();
    if (g_app)
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

// The files the page's chooser read (web/models.js): a checkpoint and its
// tokenizer in either order, each in a Module._malloc'd buffer freed here,
// with the SHA-256 (hex) the page computed of each ("" when it could not).
// Returns "" when the model opened, else why not (the Model window shows it too).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_open_model(const char* name_a, unsigned char* a, double size_a, const char* sha_a,
                                                      const char* name_b, unsigned char* b, double size_b, const char* sha_b) {
    g_buffer.clear();
    // Handed over: the checkpoint's buffer becomes the model's weights (no copy);
    // whatever nobody keeps is freed when these go.
    const auto own = [](unsigned char* p) {
        return std::shared_ptr<const unsigned char>(p, [](const unsigned char* q) { std::free(const_cast<unsigned char*>(q)); });
    };
    const std::shared_ptr<const unsigned char> own_a = own(a), own_b = own(b);
    if (g_app)
        g_buffer = attn::ui::app_open_model(
            *g_app, {a, a ? std::size_t(size_a) : 0, name_a ? name_a : "", sha_a ? sha_a : "", a ? own_a : nullptr},
            {b, b ? std::size_t(size_b) : 0, name_b ? name_b : "", sha_b ? sha_b : "", b ? own_b : nullptr});
    return g_buffer.c_str();
}

// The fetch of the link's model_url= / tokenizer_url= (web/models.js): each step, then
// file "" when it ended, with the error when it failed (ui::app_model_fetch).
EMSCRIPTEN_KEEPALIVE void attn_hook_model_fetch(const char* file, double received, double total, const char* error) {
    if (g_app)
        attn::ui::app_model_fetch(*g_app, file ? file : "", received, total, error ? error : "");
}

// How long the link's two files may be, from the checkpoint's first `size` bytes
// (web/models.js reads them first of a model_url= download):
// {"checkpoint":bytes,"tokenizer":bytes} or {"error":why} (attn::real_model_download_limits).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_model_limits(const unsigned char* head, double size, const char* name) {
    const attn::real_model_limits l = attn::real_model_download_limits(head, head ? std::size_t(size) : 0, name ? name : "");
    g_buffer = l.error.empty()
                   ? "{\"checkpoint\":" + std::to_string(l.checkpoint) + ",\"tokenizer\":" + std::to_string(l.tokenizer) + "}"
                   : "{\"error\":" + attn::json_string(l.error) + "}";
    return g_buffer.c_str();
}

// The open model could not be kept in this browser (IndexedDB full, cleared or
// refused): why, shown in the Model window ("" when it was kept).
EMSCRIPTEN_KEEPALIVE void attn_hook_model_not_kept(const char* why) {
    if (g_app)
        g_app->real.not_kept = why ? why : "";
}

// The models the page keeps (IndexedDB), one per line: key, name, tokenizer, bytes (tabs between).
EMSCRIPTEN_KEEPALIVE void attn_hook_kept_models(const char* lines) {
    if (g_app && lines)
        attn::ui::app_set_kept_models(*g_app, lines);
}

// The page's store answered the ask for `key`'s run (after giving it, when it had one).
EMSCRIPTEN_KEEPALIVE void attn_hook_run_answered(const char* key) {
    if (g_app && key)
        attn::session_run_answered(g_app->model, key);
}

// Another page of the site trains `key`: the answer waits for its run.
EMSCRIPTEN_KEEPALIVE void attn_hook_run_elsewhere(const char* key) {
    if (g_app && key)
        attn::session_run_elsewhere(g_app->model, key);
}

// A run the page kept (web/runs.js "runs": trainer_save's bytes, `size` of them,
// read here and not kept): "" when the session took it, else why not.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_keep_run(const unsigned char* bytes, double size) {
    attn::trainer_load_result r = attn::trainer_load(bytes, bytes ? std::size_t(size) : 0);
    g_buffer = r.error;
    if (!r.run || !g_app)
        return g_buffer.c_str();
    int& stored = g_run_stored.try_emplace(r.key, 0).first->second;
    stored = std::max(stored, r.run->run->reach);
    if (!attn::session_keep_run(g_app->model, std::move(*r.run)))
        g_buffer = "this page's run of that recipe went as far";
    g_redraw = true;
    return g_buffer.c_str();
}

// The page's answer to bridge_fetch_font: `bytes` (size bytes, from Module._malloc)
// now belongs to the fonts; nullptr if the fetch failed.
EMSCRIPTEN_KEEPALIVE void attn_hook_font_received(const char* file_name, unsigned char* bytes, int size) {
    attn::platform::fonts_receive(file_name, bytes, size > 0 ? std::size_t(size) : 0);
}

}  // extern "C"

namespace attn::platform {

void bridge_attach(ui::app* a) {
    g_app = a;
    a->model.runs_beyond = true;  // the page's store of runs: asked before a recipe trains (bridge_keep_runs)
}
void bridge_attach_touch(ui::touch_input* t) { g_touch = t; }

bool bridge_publish(const ui::app& a) {
    static double last = -1e9;
    const double now = emscripten_get_now();
    if (now - last < 250.0)
        return false;
    last = now;
    const std::string text = ui::app_link(a);
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.publishExperiment)
                window.attnShell.publishExperiment(UTF8ToString($0));
        },
        text.c_str());
    return true;
}

void bridge_report_training(const ui::app& a) {
    static int last_step = -1;
    static bool last_done = false, last_stopped = false, last_measuring = false;
    static double last = -1e9;
    if (a.model.exp.train.task == train_task::none)
        return;
    const int step = trainer_step(a.model.train);
    const bool done = trainer_done(a.model.train);
    const bool stopped = trainer_stopped(a.model.train);  // always told: no later change would tell it
    // The held-out measure lands frames after the step it measures: a host hears
    // done or stopped once it is in, so the numbers it hears are that step's.
    const bool measuring = a.model.train.measuring_step >= 0;
    if ((done || stopped) && measuring)
        return;
    const double now = emscripten_get_now();
    if ((step == last_step && done == last_done && stopped == last_stopped && measuring == last_measuring) ||
        (!done && now - last < 100.0))
        return;
    last_step = step, last_done = done, last_stopped = stopped, last_measuring = measuring, last = now;
    const std::string json = train_json(a, false);
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.trainProgress)
                window.attnShell.trainProgress(UTF8ToString($0));
        },
        json.c_str());
}

namespace {

// The page's store asked each time the session asks (session::run_asks); a
// store that has not answered in run_answer_ms, unless another page trains the recipe: trained here.
void ask_for_run(const attn::session& s) {
    static double asked_at = 0;
    static int asks = 0;
    if (s.run_asks != asks) {
        asks = s.run_asks;
        asked_at = emscripten_get_now();
        const bool asked = EM_ASM_INT(
            {
                if (!window.attnShell || !window.attnShell.runWanted)
                    return 0;
                window.attnShell.runWanted(UTF8ToString($0), $1);
                return 1;
            },
            s.run_asked.c_str(), s.train.run ? s.train.run->reach : 0);
        if (!asked)
            attn::session_run_answered(g_app->model, s.run_asked);
    }
    if (s.run_elsewhere)  // waited for as long as the other page trains
        asked_at = emscripten_get_now();
    else if (s.run_awaited && emscripten_get_now() - asked_at > run_answer_ms)
        attn::session_run_answered(g_app->model, s.run_asked);
}

// Whether this page trains the recipe asked (its measures included) or awaits the
// answer, told when it changes: the page holds the site's lock of the recipe
// meanwhile (web/runs.js [Runs]), after the run's store this frame may start.
void tell_training(const attn::session& s) {
    static std::string told_key;
    static int told = -1;
    const bool training = s.train.run && !s.train.lost && !attn::trainer_done(s.train) && !s.run_awaited;
    const int now = (training ? 1 : 0) | (s.run_awaited ? 2 : 0);
    if (told_key == s.run_asked && told == now)
        return;
    told_key = s.run_asked, told = now;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.runTraining)
                window.attnShell.runTraining(UTF8ToString($0), $1 & 1, $1 & 2);
        },
        told_key.c_str(), told);
}

// The run at its step, handed to the page's store when it went further than the one kept.
void store_run(const attn::trainer& t) {
    static std::uint64_t keyed_version = ~std::uint64_t(0);  // a new run bumps the version (trainer_sync)
    static std::string key;
    if (t.weights_version != keyed_version) {
        keyed_version = t.weights_version;
        key = attn::trainer_store_key(t.key);
    }
    const auto stored = g_run_stored.find(key);
    if ((stored != g_run_stored.end() && stored->second >= t.run->reach) || !attn::trainer_save_problem(t).empty())
        return;
    const std::vector<unsigned char> bytes = attn::trainer_save(t);
    g_run_stored[key] = t.run->reach;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.runStore)
                window.attnShell.runStore(UTF8ToString($0), $1, HEAPU8.slice($2, $2 + $3));
        },
        key.c_str(), t.run->reach, bytes.data(), bytes.size());
}

}  // namespace

void bridge_keep_runs(const ui::app& a) {
    const attn::trainer& t = a.model.train;
    if (t.run && !t.lost) {
        ask_for_run(a.model);
        store_run(t);
    }
    tell_training(a.model);
}

void bridge_publish_text_view(ui::app& a) {
    static double last = -1e9;
    static std::string published;
    const double now = emscripten_get_now();
    // Every 250 ms; while a model trains, every second: the mirror's tables are
    // laid out anew each time (a tenth of the page's time at 4 a second), and a
    // screen reader's reading is not pulled away four times a second.
    const bool training = a.model.exp.train.task != train_task::none && !trainer_done(a.model.train);
    if (now - last < (training ? 1000.0 : 250.0))
        return;
    last = now;
    std::string text = ui::text_mirror_json(a);
    if (text == published)
        return;
    published = std::move(text);
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.textView)
                window.attnShell.textView(UTF8ToString($0));
        },
        published.c_str());
}

std::string bridge_copy_link(const std::string& link) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.copyText)
                return 0;
            window.attnShell.copyText(location.origin + location.pathname + '#' + UTF8ToString($0));
            return 1;
        },
        link.c_str());
    return ok ? ui::tr("Link copied.", "链接已复制。") : ui::tr("This page cannot copy.", "这个页面无法复制。");
}

std::string bridge_page_url() {
    // Two steps (the length, then the bytes) so C++ owns the buffer, as bridge_storage_get.
    const int length = EM_ASM_INT({
        window.attnPageUrl = location.origin + location.pathname;
        return lengthBytesUTF8(window.attnPageUrl);
    });
    std::string s(std::size_t(length) + 1, '\0');
    EM_ASM(
        {
            stringToUTF8(window.attnPageUrl, $0, $1);
            delete window.attnPageUrl;
        },
        s.data(), length + 1);
    s.resize(std::size_t(length));
    return s;
}

std::string bridge_copy_embed(const std::string& code) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.copyText)
                return 0;
            window.attnShell.copyText(UTF8ToString($0));
            return 1;
        },
        code.c_str());
    return ok ? ui::tr("Embed code copied.", "嵌入代码已复制。") : ui::tr("This page cannot copy.", "这个页面无法复制。");
}

std::string bridge_save_file(const std::string& name, const std::string& mime, const std::string& bytes) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.download)
                return 0;
            window.attnShell.download(UTF8ToString($0), UTF8ToString($1), HEAPU8.slice($2, $2 + $3));
            return 1;
        },
        name.c_str(), mime.c_str(), bytes.data(), int(bytes.size()));
    return (ok ? ui::tr("Downloaded ", "已下载 ") : ui::tr("This page cannot download ", "这个页面无法下载 ")) + name;
}

void bridge_open_full(const std::string& link) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.openUrl)
                window.attnShell.openUrl(location.origin + location.pathname + '#' + UTF8ToString($0));
        },
        link.c_str());
}

bool bridge_embedded() {
    return EM_ASM_INT({ return window.attnShell && window.attnShell.embedded ? 1 : 0; });
}

std::string bridge_storage_get(const char* key) {
    // Two steps (the length, then the bytes) so C++ owns the buffer.
    const int length = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.storageGet)
                return -1;
            const v = window.attnShell.storageGet(UTF8ToString($0));
            if (v == null)  // null or undefined
                return -1;
            window.attnStorageValue = String(v);
            return lengthBytesUTF8(window.attnStorageValue);
        },
        key);
    if (length < 0)
        return "";
    std::string s(std::size_t(length) + 1, '\0');
    EM_ASM(
        {
            stringToUTF8(window.attnStorageValue, $0, $1);
            delete window.attnStorageValue;
        },
        s.data(), length + 1);
    s.resize(std::size_t(length));
    return s;
}

void bridge_storage_set(const char* key, const std::string& value) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.storageSet)
                window.attnShell.storageSet(UTF8ToString($0), UTF8ToString($1));
        },
        key, value.c_str());
}

void bridge_open_model_files() {
    EM_ASM({
        if (window.attnShell && window.attnShell.openModelFiles)
            window.attnShell.openModelFiles();
    });
}

void bridge_stop_model_fetch() {
    EM_ASM({
        if (window.attnShell && window.attnShell.models)
            window.attnShell.models.stop();
    });
}

void bridge_kept_model(const char* action, const std::string& key) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.keptModel)
                window.attnShell.keptModel(UTF8ToString($0), UTF8ToString($1));
        },
        action, key.c_str());
}

void bridge_toggle_text_view() {
    EM_ASM({
        if (window.attnShell && window.attnShell.toggleTextView)
            window.attnShell.toggleTextView();
    });
}

void bridge_report_height(float css_pixels) {
    static float reported = -1.0f;
    if (std::fabs(css_pixels - reported) < 1.0f)
        return;
    reported = css_pixels;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.contentHeight)
                window.attnShell.contentHeight($0);
        },
        double(css_pixels));
}

bool bridge_prefers_light() {
    return EM_ASM_INT({ return window.attnShell && window.attnShell.prefersLight ? 1 : 0; });
}

bool bridge_touch_screen() {
    return EM_ASM_INT({
        const coarse = window.matchMedia && window.matchMedia('(pointer: coarse)').matches;
        return coarse || Math.min(window.screen.width, window.screen.height) <= 500 ? 1 : 0;
    });
}

void bridge_page_theme(bool light) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.pageTheme)
                window.attnShell.pageTheme($0 ? 'light' : 'dark');
        },
        light);
}

void bridge_focus_label(const std::string& label) {
    static std::string told = "\x01";  // nothing told yet
    if (label == told)
        return;
    told = label;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.focusLabel)
                window.attnShell.focusLabel(UTF8ToString($0));
        },
        label.c_str());
}

void bridge_frame_drawn(bool drawn) { g_frame_drawn = drawn; }

bool bridge_take_redraw() { return std::exchange(g_redraw, false); }

void bridge_sleep(int tick_ms) {
    if (g_asleep)
        return;
    g_asleep = true;
    emscripten_pause_main_loop();
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.sleep)
                window.attnShell.sleep($0);
            else
                setTimeout(
                    function() { Module._attn_hook_tick(); }, $0);
        },
        tick_ms);
}

bool bridge_take_wake() { return std::exchange(g_woken, false); }

void bridge_first_frame() {
    EM_ASM({
        if (window.attnShell)
            window.attnShell.firstFrame();
    });
}

void bridge_resize_canvas(int width, int height) {
    // Browser.setCanvasSize notifies its resize listeners, GLFW's among them.
    EM_ASM({ Browser.setCanvasSize($0, $1); }, width, height);
}

bool bridge_canvas_size(int& width, int& height, float& pixel_ratio) {
    double css_w = 0, css_h = 0;
    emscripten_get_element_css_size("#canvas", &css_w, &css_h);
    pixel_ratio = float(emscripten_get_device_pixel_ratio());
    width = int(std::lround(css_w * pixel_ratio));
    height = int(std::lround(css_h * pixel_ratio));
    return width > 0 && height > 0;
}

bool bridge_fetch_font(const char* file_name) {
    return EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.fetchFont)
                return 0;
            window.attnShell.fetchFont(UTF8ToString($0));
            return 1;
        },
        file_name);
}

}  // namespace attn::platform

#else

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace attn::platform {
std::string bridge_copy_link(const std::string& link) {
    std::printf("link: %s\n", link.c_str());
    std::fflush(stdout);
    return "No clipboard here: the link is printed in the terminal.";
}
std::string bridge_page_url() { return "index.html"; }
std::string bridge_copy_embed(const std::string& code) {
    std::printf("embed code:\n%s", code.c_str());
    std::fflush(stdout);
    return "No clipboard here: the embed code is printed in the terminal.";
}
std::string bridge_save_file(const std::string& name, const std::string&, const std::string& bytes) {
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(name, ec);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (ec || !out) {
        std::fprintf(stderr, "attn_app: cannot write %s\n", path.string().c_str());
        return "Could not save " + path.string();
    }
    std::printf("saved %s\n", path.string().c_str());
    std::fflush(stdout);
    return "Saved " + path.string();
}
void bridge_open_full(const std::string&) {}
bool bridge_embedded() { return false; }
std::string bridge_storage_get(const char*) { return ""; }
void bridge_storage_set(const char*, const std::string&) {}
void bridge_attach(ui::app*) {}
void bridge_attach_touch(ui::touch_input*) {}
bool bridge_publish(const ui::app&) { return true; }
void bridge_publish_text_view(ui::app&) {}
void bridge_report_training(const ui::app&) {}
void bridge_keep_runs(const ui::app&) {}
void bridge_toggle_text_view() {}
void bridge_open_model_files() {}
void bridge_stop_model_fetch() {}
void bridge_kept_model(const char*, const std::string&) {}
bool bridge_prefers_light() { return false; }
bool bridge_touch_screen() { return false; }
void bridge_report_height(float) {}
void bridge_page_theme(bool) {}
void bridge_focus_label(const std::string&) {}
void bridge_first_frame() {}
void bridge_frame_drawn(bool) {}
bool bridge_take_redraw() { return false; }
void bridge_sleep(int) {}
bool bridge_take_wake() { return false; }
bool bridge_canvas_size(int&, int&, float&) { return false; }
void bridge_resize_canvas(int, int) {}
bool bridge_fetch_font(const char*) { return false; }
}  // namespace attn::platform

#endif
