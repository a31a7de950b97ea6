// The playground's state and its frame of UI.
//
// `app` holds the experiment a person is looking at, the trace the core computed
// for it, and the view (stage, selection, language, history). Every change of
// the experiment goes through app_set_experiment, which keeps the last good
// experiment when the new one is invalid and says why.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "forward.hpp"
#include "lessons.hpp"
#include "link.hpp"
#include "stages.hpp"

namespace attn::ui {

// A named widget's rectangle in pixels, recorded each frame for tests and help.
struct widget_rect {
    std::string name;
    float x0, y0, x1, y1;
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
enum class share_action { copy_link, copy_embed, export_csv, export_json, export_png, open_full };

struct app {
    experiment exp;
    trace tr;
    trace baseline;  // exp without its ablations and masked edges (when it has any)
    bool has_baseline = false;
    std::uint64_t version = 1;        // bumped on every recompute
    std::vector<std::string> errors;  // problems with the last rejected change
    std::string text_edit;            // the sentence box while it is being typed
    // A change a control asked for (apply): made current at the start of the next
    // app_draw, so that nothing drawn in this frame reads a trace that was
    // recomputed under it (views hold references into tr while they draw).
    std::optional<experiment> pending;
    bool pending_announced = false;   // a costly pending change: one frame says "computing" before it runs
    float scale = 1.0f;               // device pixels per UI point
    bool experiment_changed = false;  // set on every accepted change; the platform clears it once published

    stage current = stage::weights;
    int layer = 0;
    int sel_row = 0;    // the query row followed through every stage
    cell_ref selected;  // the clicked cell the inspector explains (hover takes precedence)
    cell_ref hovered;

    std::vector<experiment> undo, redo;
    double last_history_time = -1.0;
    bool show_help = false;
    std::uint32_t shuffle_count = 0;
    std::vector<widget_rect> widgets;
    lesson_state lesson;
    // Panels the person closed from the View menu: remembered between visits
    // (app_layout_text), unlike a link's view.hide, which only that link applies.
    std::array<bool, view_panel_count> layout_hidden{};

    link_view options;                   // view.hide / readonly / embed of the link it opened (lesson, stage, row unused)
    bool errors_from_link = false;       // the errors are the opening link's (the banner says so)
    std::vector<share_action> requests;  // asked this frame; the platform clears them
    std::string notice;                  // one line after an export or copy ("saved attn-weights.csv in …")
};

void app_init(app& a, const experiment& e);

// Validates e; on success recomputes and returns true (recording the previous
// experiment for undo when `history` is set). On failure keeps the previous
// experiment and trace and records the errors.
bool app_set_experiment(app& a, const experiment& e, bool history = true);

// Parses text (the canonical form) and applies it; errors are recorded likewise.
bool app_set_experiment_text(app& a, const std::string& text);

// Opens a link (link.hpp: canonical or z= form, view.* keys, a whole URL): the
// experiment, then the lesson, stage and row, and remembers hide/readonly/embed.
// A bad link changes nothing and records its errors (the banner names them).
// `history`: record the previous experiment for undo (false at start).
bool app_open_link(app& a, std::string_view link, bool history = true);

// The view to publish: the current lesson, stage and row (each only when it
// differs from what the experiment or lesson opens on anyway) and the options.
link_view app_view(const app& a);

// The View menu's closed panels as text ("code,inspector") and back, for storage.
std::string app_layout_text(const app& a);
void app_set_layout_text(app& a, std::string_view text);
// The link reproducing what is on screen: link_encode(a.exp, app_view(a)).
std::string app_link(const app& a);

bool app_undo(app& a);
bool app_redo(app& a);

// Draws one frame of UI into the current ImGui context.
void app_draw(app& a);

}  // namespace attn::ui
