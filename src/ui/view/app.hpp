// The playground's view and its frame of UI.
//
// `app` is what is shown (stage, selection, language, lesson card, panels) and
// holds the model, `session` (src/core/play/session.hpp): the experiment, its trace
// and the history. Every change of the experiment is a `change` handed to
// app_change (the doors outside the frame: start-up, the page's hook, a pasted
// link) or app_request (the controls, lessons, undo and redo inside the frame,
// applied at the start of the next one); both take session_apply's one path.
// app_sync recomputes the trace once, at the start of each frame.
//
// A real model opened from its files is the core's too (`real_session`,
// src/core/play/real_session.hpp): the app holds it beside the session, the view
// holds only what the Model window and the pipeline show of it (view_state's
// `model_view`), and app_model_update hands the core what that view wants each
// frame (app_model_wants); the core decides what to recompute.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "look/theme.hpp"
#include "model/forward.hpp"
#include "play/compare_patch.hpp"
#include "play/link.hpp"
#include "play/real_model.hpp"
#include "play/real_session.hpp"
#include "play/session.hpp"
#include "play/training.hpp"
#include "spec/experiment.hpp"
#include "view/lessons.hpp"
#include "view/stages.hpp"

namespace attn::ui {

class heatmap_context;  // heatmap.hpp

// A named widget's rectangle in pixels, recorded each frame for tests and help.
struct widget_rect {
    std::string name;
    float x0, y0, x1, y1;
    std::string window;  // the ImGui window it is drawn in (the zoom test scrolls to it there)
};

// A map as drawn this frame: the cells that hold a value and how many of them
// show it (all or none), for tests and for anyone checking the page.
struct map_report {
    std::string name;
    int cells = 0, labelled = 0;
    std::string axes;  // its caption: what its rows and columns are
};

// A text item cut by its window this frame (note_clip, panels.hpp): what it says
// (its first 40 bytes), its window, its rectangle and the window's clip rectangle.
struct clip_report {
    std::string text, window;
    float x0, y0, x1, y1;
    float clip_x0, clip_y0, clip_x1, clip_y1;
};

struct cell_ref {
    stage at = stage::weights;
    int matrix = 0;  // index into stage_matrices()
    int head = 0;
    int row = -1, col = -1;
    bool valid() const { return row >= 0 && col >= 0; }
};

// What the share menu asks for. The platform does it after the frame is drawn
// (it owns the clipboard, the files and the pixels): see share.cpp.
enum class share_action {
    copy_link,
    copy_embed,
    copy_embed_poster,  // the embed code of a poster (view.poster=1): nothing loads or trains until the reader's Run
    export_csv,
    export_json,
    export_png,
    export_svg,
    open_full,
    toggle_text_view,
    open_model_files,   // the page's file chooser for a model and its tokenizer (the Model window)
    open_model_folder,  // the page's folder chooser, for a Hugging Face folder
    stop_model_fetch    // the page stops fetching the link's model_url= / tokenizer_url=
};

// What of an accepted link's view (link_view) app_change shows.
enum class link_scope {
    everything,  // a link opened as a page: lesson, stage, row and the options (hide, read-only, embed)
    lesson,      // a lesson's own link (lesson_link): lesson, stage, row; the page's options stay
    experiment,  // the page's setExperiment / attn:set: only the experiment; the view stays
};

// The Model window (panels/model_window.cpp) is a window over the real-model
// session (app::real, play/real_session.hpp): it holds only what it shows and how.
// Each frame app_model_wants turns this into what the session computes.
struct model_view {
    bool open = false;
    // Its text box while it is being typed (the model reads the experiment's text:
    // Enter or leaving the box makes it the experiment's).
    std::string text_edit;
    int layer = 0, head = 0;  // the head shown large (the link's view.model_head)
    int stage = 3;            // its map: 0 Q·Kᵀ, 1 scaled, 2 masked, 3 softmax weights
    // Heads zeroed and edges masked in the model's pass (view.model_ablate,
    // view.model_edges): their effect on the next token (real_session::effect).
    real_interventions changes;
    // The pipeline shows the open model's reading at `layer` instead of the
    // experiment (view.model_pipeline; app_pipeline in panels.hpp).
    bool pipeline = false;
    // Continue's sampling and length: the link's view.temperature, view.top_p,
    // view.gen_seed and view.gen_tokens (app_view writes them, a link sets them).
    llama_sampling sampling{link_view{}.temperature, link_view{}.top_p, std::uint64_t(link_view{}.gen_seed)};
    int steps = link_view{}.gen_tokens;
};

// What the person looks at, apart from the experiment: the stage, the layer, the
// selection, the lesson's own settings, the folds, panels and theme. A panel
// changes it by handing back a whole new one (frame_out::view, view_edit); a link
// sets it as it opens (app_change).
struct view_state {
    stage current = stage_default;
    int layer = 0;
    int sel_row = 0;        // the query row followed through every stage
    cell_ref selected;      // the clicked cell the inspector explains (hover takes precedence)
    cell_ref hovered;       // the cell under the mouse (the maps ask for "none" first each frame)
    std::string text_edit;  // the sentence box while it is being typed
    lesson_view lesson;     // the lesson and its own view settings
    bool show_help = false;
    bool advanced_open = false;  // the controls' "Advanced" fold, opened by the person
    // The start card a first visit opens with (the platform decides: a plain visit
    // to the page in a browser that has not dismissed it before).
    bool show_start = false;
    // Panels the person closed from the View menu: remembered between visits
    // (app_layout_text), unlike a link's view.hide, which only that link applies.
    std::array<bool, view_panel_count> layout_hidden{};
    view_theme theme_choice = view_theme::automatic;  // the View menu's theme (remembered); theme.hpp
    // Each map scales its colours by itself, instead of one scale per stage (stage_shared_range).
    bool per_map_scale = false;
    bool compare_shown = false;        // while pinned: the stage shows A | B | B − A
    bool compare_patch_shown = false;  // with the compare: the "patch from A" map (compare_patch_view.cpp)
    int compare_head = -1;             // the compare's head at a stage of each head's maps (-1: every head, one below the other)
    bool scroll_to_pipeline = false;   // once: the panel scrolls to the pipeline (it opened under a lesson's card)
    model_view model;                  // the Model window's, over the real-model session (app::real)
};

// The page's side of real models (web/shell.js tells each): the models this
// browser keeps, the fetch of a link's files, and why the open model could not be
// kept. The model itself and all computed from it are the core's (app::real).
struct page_model_files {
    std::string not_kept;  // why the open model could not be kept in this browser (the page says; "" otherwise)
    // The models this browser keeps (the page's IndexedDB, web/models.js), as the
    // page last told them: the Model window lists them to open or remove.
    struct stored {
        std::string key;  // model=<key>: name@hash
        std::string name, tokenizer;
        double bytes = 0;  // both files
    };
    std::vector<stored> kept;
    // The page fetching the link's model_url= and tokenizer_url= (web/models.js
    // tells each step): which file, bytes so far and in all (0: not said).
    struct fetch_state {
        std::string file;  // "" when no fetch runs
        double received = 0, total = 0;
    };
    fetch_state fetch;
};

// What the frame drew, for tests, help and the page: the lists are rebuilt every
// frame (app_draw clears them first).
struct frame_reports {
    std::vector<widget_rect> widgets;
    std::string keyboard_focus;        // the named widget keyboard navigation is on ("" when none)
    std::string focus_label;           // what that widget says (its label, for the canvas's accessible name)
    std::vector<map_report> maps;      // the maps drawn this frame
    std::vector<clip_report> clipped;  // the text items cut by their window this frame
    // The numbers the current lesson's view measured, for the page's JS hook
    // (kept until the view measures again or another lesson opens).
    std::vector<std::pair<std::string, double>> lesson_numbers;
    float content_height = 0;  // device pixels the maps' column needs: an embed's frame is sized to them
    // L11's or L12's reading of the trained model moved on this frame: more of it is
    // coming (a poster waits for it to finish before it takes its picture).
    bool reading = false;
    int lesson_drawn = -1;  // the lesson the last frame drew (-1: none)
};

// What views compute from the session while they draw from a const app, each
// keyed by the versions it reads (version_cache).
struct app_memos {
    version_cache<intervention_effect> effect;                 // app_effect (panels.hpp)
    version_cache<std::optional<heatmap_range>> shared_range;  // app_shared_range (panels.hpp)
    version_cache<compare_result> compare;                     // app_compare (panels.hpp)
    version_cache<compare_patch_result> compare_patch;         // app_compare_patch (panels.hpp), filled in a piece a frame
    version_cache<int> widest_value;                           // stage_widest_value_chars (pipeline.cpp)
    lesson_memos lesson;                                       // what the lessons' views measure (lessons.hpp)
};

// The app, by what changes it: the session (the experiment and everything
// computed from it, in the core: only through app_change), the view (panels and
// links), this frame's reports, the memos, and what the doors and the platform
// hand in and out (a pending change, errors, notices, share requests, pacing).
struct app {
    session model;
    view_state view;
    frame_reports reports;
    mutable app_memos memo;

    std::vector<std::string> errors;  // problems with the last rejected change
    bool errors_from_link = false;    // the errors are the opening link's (the banner says so)
    // A change asked for during a frame (app_request): applied at the start of
    // the next app_draw, so that nothing drawn in this frame reads a trace that
    // was recomputed under it (views hold references into model.tr while they draw).
    std::optional<change> pending;
    link_scope pending_scope = link_scope::everything;
    bool threads_lost_said = false;       // the notice that a worker stopped answering (threads_lost) was posted
    bool pending_announced = false;       // a costly pending change: one frame says "computing" before it runs
    bool experiment_changed = false;      // set on every accepted change; the platform clears it once published
    link_view options;                    // view.hide / readonly / embed of the link it opened (lesson, stage, row unused)
    float scale = 1.0f;                   // device pixels per UI point
    heatmap_context* heatmaps = nullptr;  // the platform's (not owned): the heatmaps' state and renderer; set before app_draw
    bool system_light = false;            // the system prefers a light theme (the platform says)
    // Where the keyboard's focus goes next: the first of these widgets drawn
    // enabled takes it (a lesson just opened: its first control). Cleared then.
    std::vector<std::string> focus_request;
    std::vector<share_action> requests;  // asked this frame; the platform clears them
    std::string notice;                  // one line after an export or copy ("saved attn-weights.csv in …")
    // The notice as it was first drawn, and when (ImGui's clock): a toast goes
    // after notice_seconds unless another notice replaces it.
    std::string notice_shown;
    double notice_since = 0;
    // Training (a recipe's experiment): seconds of training steps per frame, so
    // the page keeps drawing (the platform may lower it): play/training.hpp.
    train_pace pace;
    double train_spent = 0;    // seconds the last app_train took (train_pace_update)
    bool traced = false;       // app_sync traced since the platform last timed a frame (session_trace_drawn)
    float top_bar_bottom = 0;  // this frame's: where the top bar ends (the Model window stays below it)
    // A real model opened from its files and all the page computes from it (the
    // Model window and the pipeline show it; app_model_update keeps it current).
    real_session real;
    page_model_files model_files;  // the page's kept models and fetch
    // A kept model to open or remove (the Model window asked): the platform does
    // it after the frame (the page's store) and clears them.
    std::string kept_open, kept_remove;
};

// What a panel asks for while it draws. A panel reads the app (it gets a
// `const app&`) and writes only here; app_draw applies what it asks when the
// panel returns (frame_apply): the experiment through the one change path
// (current from the next frame), the view at once, so that the panels drawn
// after it show the new view. Each field is set only when asked for.
struct frame_out {
    std::optional<change> request;  // the experiment: a set (an undo step), a lesson's link, undo or redo
    link_scope scope = link_scope::everything;
    std::optional<view_state> view;                                      // the whole view, changed (view_edit)
    std::optional<std::vector<std::pair<std::string, double>>> numbers;  // the lesson's numbers this frame
    bool toggle_language = false;
    bool dismiss_banner = false;
    std::vector<share_action> share;   // for the platform, after the frame
    std::vector<widget_rect> widgets;  // named rectangles, for tests and help
    std::vector<map_report> maps;      // the maps drawn, with their labelled cells
    std::vector<clip_report> clipped;  // the text items cut by their window
    std::string keyboard_focus;        // the named widget keyboard navigation is on
    // In: the app's focus_request (draw_panel hands it in). Out: it was met.
    const std::vector<std::string>* focus_request = nullptr;
    bool focus_taken = false;
    // The Model window: "Continue" (generate view.model.steps tokens after the
    // text), "Stop".
    bool model_generate = false, model_stop = false;
    // A kept model (page_model_files::kept) to open or to remove from the browser: its key.
    std::string model_open_kept, model_remove_kept;
};

// The view a panel changes: the one it already asked for in `out`, else a copy
// of a's to change (frame_apply makes it a's when the panel returns).
view_state& view_edit(const app& a, frame_out& out);

// Asks for the experiment `next` (an undo step; a drag's steps merge into one).
// The next app_draw makes it current (recompute, history, URL) before anything
// is drawn, so a view may keep references into a.model.tr for the whole frame.
void request_experiment(frame_out& out, experiment next);

// Hands what a panel asked for on (above).
void frame_apply(app& a, frame_out& out);

// Opens lesson i (0-based: L1 is 0) at the start of the next frame, as the link
// lesson_link(i + 1) would (its experiment and stage, an undo step); -1 leaves
// the lessons (free exploring) at once, keeping the experiment. The first form
// is a panel's request; the second a door outside the frame (tests, hooks).
void lesson_open(const app& a, frame_out& out, int i);
void lesson_open(app& a, int i);

void app_init(app& a, const experiment& e);
// The change a panel asked for in the last frame (app_request), made current
// before anything reads the trace: app_draw's first step.
void app_apply_pending(app& a);
// English <-> 中文. A notice is worded when it is posted ("Embed code copied."):
// after a switch it would stay in the other language, so it goes with the switch.
void app_toggle_language(app& a);

// The one door into the model: applies c (session_apply) and then what it asks
// to show (a link's lesson, stage, row and options). A rejected change keeps the
// last good experiment and records its errors for the banner. Drops a queued
// request. Returns whether it was accepted. `scope`: what of a link's view
// applies (below).
bool app_change(app& a, const change& c, link_scope scope = link_scope::everything);

// Queues c for the start of the next frame (a later request replaces it); does
// nothing in a read-only link.
void app_request(app& a, change c, link_scope scope = link_scope::everything);

// Recomputes the trace if the experiment changed (session_update) and keeps
// the view inside it (row, layer, stage). app_draw calls it first; hooks that
// read the trace between frames call it too.
void app_sync(app& a);

// Shorthands for app_change: the experiment itself (history: an undo step), a
// link (link.hpp: canonical or z= form, view.* keys, a whole URL; `history`
// false for the link a page opens with).
bool app_set_experiment(app& a, const experiment& e, bool history = true);
bool app_open_link(app& a, std::string_view link, bool history = true);

// The view to publish: the current lesson, stage and row (each only when it
// differs from what the experiment or lesson opens on anyway) and the options.
link_view app_view(const app& a);

// The View menu's closed panels as text ("code,inspector") and back, for storage.
std::string app_layout_text(const app& a);
void app_set_layout_text(app& a, std::string_view text);
// The link reproducing what is on screen: link_encode(a.exp, app_view(a), the pin).
std::string app_link(const app& a);

// Training's share of a frame (app_draw calls it before app_sync): the trainer
// follows the experiment and takes a.pace.slice seconds of steps.
void app_train(app& a);

// Whether the app has work under way that the next frames do (a change waiting, a
// run training, a measure or a reading of the trained model, a real model
// generating): the web page does not sleep meanwhile (main.cpp, frame_rest).
bool app_working(const app& a);

// Opens a real model from its two files (either order: play/real_model.hpp),
// reads the experiment's text with it (real_session_open) and shows the Model
// window. "" when it opened and read; else why not, kept in a.real.error (the
// model opened before, if any, stays). The page keeps the files in the browser
// only after "" (web/models.js).
std::string app_open_model(app& a, const real_model_file& x, const real_model_file& y);
// The same from the files a person picked or dropped, any order: llama2.c's
// pair, or a Hugging Face folder's files (real_model_open_files).
std::string app_open_model_files(app& a, const std::vector<real_model_file>& files);

// The page's list of kept models, one per line: key, name, tokenizer name and
// bytes, separated by tabs (web/models.js). Lines that do not parse are skipped.
void app_set_kept_models(app& a, std::string_view lines);

// The page's fetch of the link's model_url= / tokenizer_url=: `file` being
// fetched, `received` of `total` bytes (0: unknown); `file` "" when it ended,
// `error` (shown, kept in a.real.error) when it failed.
void app_model_fetch(app& a, std::string_view file, double received, double total, std::string_view error);

// The model the link names but the page has not opened (its key, "" when
// none): the page fetches it from the link's addresses or asks for the file.
std::string app_wanted_model(const app& a);

// What the view wants to see of the real model (play/real_session.hpp): the
// experiment's text, the view's changes, selected head and stage, the pipeline,
// and whether the window or the pipeline shows it. The views ask the core's
// rules with it (real_session_effect_current, real_session_problems, …).
real_wants app_model_wants(const app& a);

// The real model's share of a frame (app_draw, before anything draws): the
// view's head kept to one the model has, then real_session_update with what the
// view wants, generating for up to `seconds`.
void app_model_update(app& a, double seconds);

// What the pipeline, the inspector and the text view show: the experiment's trace
// at view.layer, or — while view.model.pipeline is on and the open real model's
// reading has view.model.layer made whole (app_model_update) — that reading at
// that layer under the model's experiment (llama_experiment), or with changes,
// once they ran, the changed pass (real_session_pipeline). `version` keys
// what is computed from it; `real` says which (a real model's weights are not
// edited, its changes are view.model.changes). Its maps' source: heatmap_source_of(a, *tr).
struct pipeline_shown {
    const trace* tr = nullptr;
    const experiment* exp = nullptr;
    int layer = 0;
    bool real = false;
    std::uint64_t version = 0;
};
pipeline_shown app_pipeline(const app& a);  // pipeline.cpp

// The theme that shows: a link's view.theme (an embed's host matching its page),
// else the reader's choice in the View menu, else the system's (theme.hpp).
theme app_theme(const app& a);

}  // namespace attn::ui
