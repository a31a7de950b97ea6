// A real model's session: the model opened from its files and everything the
// page computes from it — its reading of the text, the selected head's stages, a
// layer made whole for the pipeline, the effect of heads zeroed and edges
// masked, and a generation a token at a time — kept current by one call a frame,
// as session_train keeps the toy's run (play/session.hpp, play/training.hpp).
//
// The page says what it wants to see (real_wants: the text, the changes, the
// selected head and its stage, the pipeline); real_session_update decides what
// is stale, recomputes it, and generates for the rest of the time slice. The
// "is it current?" rules are here too (real_session_effect_current, …): a view
// asks them before it draws what they guard, and nothing outside decides what
// is recomputed.
//
//   real_session s;
//   if (auto why = real_session_open(s, ckpt, tok, "Once upon a time", 1)) report(*why);  // read at once
//   real_wants w;
//   w.text = "Once upon a time", w.layer = 1, w.head = 2, w.shown = true;
//   w.changes = real_toggle_head({}, {0, 3});
//   real_session_update(s, w, 0.016);    // says the changes run (real_session_working)
//   real_session_update(s, w, 0.016);    // runs them: real_session_effect_current(s, w)
//   real_session_generate(s, {0.8f, 0.9f, 42}, 50);
//   while (!s.gen.done) real_session_update(s, w, 0.016);  // tokens within each slice
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llama/generate.hpp"
#include "model/forward.hpp"
#include "play/real_model.hpp"
#include "spec/experiment.hpp"

namespace attn {

// What the page wants to see of the model this frame (the Model window's and the
// pipeline's view, the link's view.model_* keys): a value handed in, never kept.
struct real_wants {
    std::string text;            // what the model reads (the experiment's text)
    real_interventions changes;  // heads zeroed, edges masked: their effect runs while `shown`
    int layer = 0, head = 0;     // the selected head (real_session_fit: the nearest the model has)
    int stage = 3;               // its map: 0 Q·Kᵀ, 1 scaled, 2 masked (recomputed: `stages`), 3 the reading's weights
    bool pipeline = false;       // the pipeline shows `layer`, every stage: made whole
    bool shown = false;          // a window or the pipeline shows the model: the changes run only then
};

struct real_session {
    std::unique_ptr<real_model> model;  // none until files are opened
    std::string error;                  // why the last files were refused ("" when they were not)
    // The model's experiment (llama_experiment): the pipeline's stages read its
    // shape when they show the model.
    experiment exp;
    real_model_reading reading;  // of `read_text`
    std::string read_text;
    std::uint64_t version = 0;  // bumped when the model or the reading change (the maps' source)
    // The reading's layer made whole for the pipeline (reading.whole_layer):
    // bumped each time (the maps' source).
    std::uint64_t pipeline_made = 0;
    // The selected head's stages under an earlier stage than the weights, of the
    // reading of `stages_of` (a version) and that head; stages_made: bumped with each.
    head_trace stages;
    std::uint64_t stages_of = 0, stages_made = 0;
    int stages_layer = -1, stages_head = -1;
    // The changes' effect on the next token, of the reading of `effect_of` (a
    // version); a frame says it runs first (effect_announced), the next runs it.
    // effect_made: bumped with each (the maps' source).
    real_effect effect;
    std::uint64_t effect_of = 0, effect_made = 0;
    bool effect_announced = false;
    real_model_generation gen;  // "Continue": tokens through the KV cache, a time slice at a time
};

// Opens a model from its two files (either order: real_model_open) on `threads`
// threads and reads `text` with it at once: the page keeps the files only once
// this came through. On a problem the session keeps the model it had and
// `error` says why (also returned). The versions count on across models: a new
// model's first maps are never keyed as the last one's.
std::optional<std::string> real_session_open(real_session& s, const real_model_file& a, const real_model_file& b,
                                             const std::string& text, int threads);

// The same from the files a person picked or dropped (real_model_open_files:
// llama2.c's pair, or a Hugging Face folder's files).
std::optional<std::string> real_session_open_files(real_session& s, const std::vector<real_model_file>& files,
                                                   const std::string& text, int threads);

// w with the selected head the nearest the open model has (a link's head may be
// past it); w itself when no model is open.
real_wants real_session_fit(const real_session& s, real_wants w);

// One frame's share, lowest first: the text read again when it changed, the
// pipeline's layer made whole, the selected head's stages, the changes' effect
// (announced a frame, run the next; not while they have problems or nothing shows
// the model), then generation for up to `seconds` (at least a token when it runs
// and seconds > 0). Nothing without a model.
void real_session_update(real_session& s, const real_wants& w, double seconds);

// Continue: a generation of `steps` tokens after the reading, sampled by `sampling`
// (real_model_generate_start; the old one ends); real_session_update advances it.
void real_session_generate(real_session& s, const llama_sampling& sampling, int steps);
// Stop: the generation ends where it is.
void real_session_stop(real_session& s);

// Whether the session has work the next frames do: a generation under way, or
// changes announced and not yet run (the page does not sleep meanwhile).
bool real_session_working(const real_session& s);

// Why w's changes cannot run on the reading (real_interventions_problems); none
// without a reading.
std::vector<std::string> real_session_problems(const real_session& s, const real_wants& w);
// Whether `effect` is of w's changes with w's layer kept whole, on the current reading.
bool real_session_effect_current(const real_session& s, const real_wants& w);
// Whether what shows is the changed pass: w has changes and their effect is current.
bool real_session_changed(const real_session& s, const real_wants& w);
// Whether `stages` are w's selected head's on the current reading.
bool real_session_stages_current(const real_session& s, const real_wants& w);
// What the pipeline draws for w (w.pipeline on): the changed pass (its layer
// whole) once it ran, else the reading once w.layer is made whole; null before,
// or when w.pipeline is off.
const trace* real_session_pipeline(const real_session& s, const real_wants& w);

}  // namespace attn
