// The guided lessons L1–L8: each a preset experiment, the stage it opens on, a
// short "what to try" in both languages, and a view of its own that shows the
// article's claim happen on live numbers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stages.hpp"

namespace attn::ui {

struct app;

struct lesson {
    const char* id;  // "L1" … "L8"
    const char* title_en;
    const char* title_zh;
    const char* try_en;  // what to try
    const char* try_zh;
    // Its experiment and first stage are the core's: lesson_preset.hpp.
};

const std::vector<lesson>& lessons();

// Opens lesson i (0-based: L1 is 0) at the start of the next frame, as the link
// lesson_link(i + 1) would (its experiment and stage, an undo step); -1 leaves
// the lessons (free exploring) at once, keeping the experiment.
void lesson_open(app& a, int i);

// The current lesson's card and view, drawn at the top of the centre panel.
void panel_lesson(app& a);

// Lesson-local state, kept in the app.
struct lesson_state {
    int index = -1;      // -1: no lesson
    int dk = 64;         // L2: d_k of the dot-product experiment
    int tile = 2;        // L5: tile edge of the online-softmax stepper
    int tile_step = 0;   // L5: how many tile steps are done
    int decode_t = 4;    // L5: tokens decoded so far
    int rope_shift = 0;  // L4: extra shift of both positions
    // The numbers the current view measured this frame, for the page's JS hook.
    std::vector<std::pair<std::string, double>> numbers;
};

}  // namespace attn::ui
