#include "play/real_session.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "llama/forward.hpp"

namespace attn {

namespace {

// The reading of the text, made again when the text changed.
void read(real_session& s, const std::string& text) {
    if (s.read_text == text && !s.reading.ids.empty())
        return;
    real_model_read(*s.model, text, s.reading);
    s.read_text = text;
    ++s.version;
}

// The pipeline's layer, every stage.
void make_layer_whole(real_session& s, const real_wants& w) {
    if (!w.pipeline || s.reading.whole_layer == w.layer)
        return;
    real_model_open_layer(*s.model, s.reading, w.layer);
    ++s.pipeline_made;
}

// The selected head's stages before its weights: one layer's attention, at once.
void make_stages(real_session& s, const real_wants& w) {
    if (w.stage == 3 || real_session_stages_current(s, w))
        return;
    s.stages = real_head_stages(*s.model, s.reading, w.layer, w.head);
    s.stages_of = s.version, s.stages_layer = w.layer, s.stages_head = w.head;
    ++s.stages_made;
}

// The changes' effect: a pass over every token, so the frame before says it runs.
void make_effect(real_session& s, const real_wants& w) {
    if (w.changes.empty() || !w.shown || !real_session_problems(s, w).empty()) {
        s.effect_announced = false;  // the next change says it runs again
        return;
    }
    if (real_session_effect_current(s, w))
        return;
    if (s.effect_announced) {  // the frame before said it runs
        real_model_intervene(*s.model, s.reading, w.changes, w.layer, s.effect);
        s.effect_of = s.version;
        ++s.effect_made;
    }
    s.effect_announced = !s.effect_announced;
}

// Generation's tokens for up to `seconds` (a token at least once it starts).
void generate_for(real_session& s, double seconds) {
    const auto start = std::chrono::steady_clock::now();
    while (seconds > 0 && !s.gen.done && real_model_generate_step(*s.model, s.gen))
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds)
            break;
}

// The session over model m (opened, or refused with `why`: the session keeps what it had).
std::optional<std::string> session_over(real_session& s, std::unique_ptr<real_model> m, const std::optional<std::string>& why,
                                        const std::string& text, int threads) {
    if (why) {
        s.error = *why;
        return why;
    }
    m->threads = threads;
    real_session next;
    next.version = s.version + 1, next.pipeline_made = s.pipeline_made + 1;
    next.stages_made = s.stages_made + 1, next.effect_made = s.effect_made + 1;
    next.exp = llama_experiment(m->model.config);
    next.model = std::move(m);
    s = std::move(next);
    read(s, text);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> real_session_open(real_session& s, const real_model_file& a, const real_model_file& b,
                                             const std::string& text, int threads) {
    auto m = std::make_unique<real_model>();
    const auto why = real_model_open(a, b, *m);
    return session_over(s, std::move(m), why, text, threads);
}

std::optional<std::string> real_session_open_files(real_session& s, const std::vector<real_model_file>& files,
                                                   const std::string& text, int threads) {
    auto m = std::make_unique<real_model>();
    const auto why = real_model_open_files(files, *m);
    return session_over(s, std::move(m), why, text, threads);
}

real_wants real_session_fit(const real_session& s, real_wants w) {
    if (!s.model)
        return w;
    const llama_config& c = s.model->model.config;
    w.layer = std::clamp(w.layer, 0, c.n_layers - 1);
    w.head = std::clamp(w.head, 0, c.n_heads - 1);
    return w;
}

void real_session_update(real_session& s, const real_wants& wanted, double seconds) {
    if (!s.model)
        return;
    const real_wants w = real_session_fit(s, wanted);
    read(s, w.text);
    make_layer_whole(s, w);
    make_stages(s, w);
    make_effect(s, w);
    generate_for(s, seconds);
}

void real_session_generate(real_session& s, const llama_sampling& sampling, int steps) {
    if (s.model)
        real_model_generate_start(*s.model, s.reading.ids, sampling, steps, s.gen, s.model->threads);
}

void real_session_stop(real_session& s) { s.gen.done = true; }

bool real_session_working(const real_session& s) { return s.model && (!s.gen.done || s.effect_announced); }

std::vector<std::string> real_session_problems(const real_session& s, const real_wants& w) {
    if (!s.model || s.reading.ids.empty())
        return {};
    return real_interventions_problems(*s.model, s.reading, w.changes);
}

bool real_session_effect_current(const real_session& s, const real_wants& w) {
    return s.effect_of == s.version && s.effect.made && s.effect.of == w.changes && s.effect.layer == w.layer;
}

bool real_session_changed(const real_session& s, const real_wants& w) {
    return !w.changes.empty() && real_session_effect_current(s, w);
}

bool real_session_stages_current(const real_session& s, const real_wants& w) {
    return s.stages_of == s.version && s.stages_layer == w.layer && s.stages_head == w.head;
}

const trace* real_session_pipeline(const real_session& s, const real_wants& w) {
    if (!w.pipeline || !s.model || s.reading.ids.empty())
        return nullptr;
    if (real_session_changed(s, w))
        return &s.effect.tr;
    return s.reading.whole_layer == w.layer ? &s.reading.tr : nullptr;
}

}  // namespace attn
