// What each guided lesson opens: its experiment (the text form; keys it does not
// name take their defaults) and the stage it starts on. A link with
// view.lesson=N starts from lesson N's experiment and its own keys override only
// what they name (link.hpp), so the playground, the native app and the CLI open
// the same experiment for the same link. The lessons' texts and views are the
// UI's (src/ui/view/lessons.cpp).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "model/stage.hpp"
#include "spec/experiment.hpp"

namespace attn {

inline constexpr int lesson_count = 13;  // L1 … L13

struct lesson_preset {
    const char* id;         // "L1" … "L13"
    std::string_view text;  // experiment text
    stage opens_on;
    bool untrained = false;  // a recipe opened at step 0 (trained=0): the person presses Train
};

// Lessons count from 1, as their names L1 … L13 do. nullptr outside 1 … lesson_count.
const lesson_preset* lesson_preset_find(int lesson);

// The experiment lesson `lesson` (1-based) opens on; the default experiment
// outside 1 … lesson_count. Every preset is valid (tests/core/test_session.cpp).
experiment lesson_experiment(int lesson);

// The link that opens lesson `lesson` (1-based) on its own experiment:
// "v=1&view.lesson=N", and "&trained=0" for a training lesson (a link's
// omitted `trained` means all the steps).
std::string lesson_link(int lesson);

// L7's three models, loaded by its buttons: two random layers, two cancelling
// heads, an attention sink.
const std::array<std::string_view, 3>& lesson7_models();

}  // namespace attn
