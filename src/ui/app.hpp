// The playground's state and its one frame of UI.
//
// `app` holds the experiment a person is looking at and the trace the core
// computed for it. Every change goes through app_set_experiment, which keeps the
// last good experiment when the new one is invalid and says why.
#pragma once

#include <string>
#include <vector>

#include "experiment.hpp"
#include "forward.hpp"

namespace attn::ui {

struct app {
    experiment exp;
    trace tr;
    std::vector<std::string> errors;  // problems with the last rejected change
    std::string text_edit;            // the sentence box while it is being typed
    float scale = 1.0f;               // device pixels per UI point
    bool experiment_changed = false;  // set on every accepted change; the platform clears it
};

void app_init(app& a, const experiment& e);

// Validates e; on success recomputes the trace and returns true. On failure keeps
// the previous experiment and trace and records the errors.
bool app_set_experiment(app& a, const experiment& e);

// Parses text (the canonical form) and applies it; errors are recorded likewise.
bool app_set_experiment_text(app& a, const std::string& text);

// Draws one frame of UI into the current ImGui context.
void app_draw(app& a);

}  // namespace attn::ui
