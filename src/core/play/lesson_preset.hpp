// The guided lessons L1–L13, one row each: what every view that names a lesson
// reads (the lesson card and list, the text view, the share menu's files, the
// page's posters through the site's lesson-names.js, which the build writes from
// this table: src/platform/page_names.cpp), and what each opens: its experiment (the text
// form; keys it does not name take their defaults) and the stage it starts on.
// A link with view.lesson=N starts from lesson N's experiment and its own keys
// override only what they name (link.hpp), so the playground, the native app and
// the CLI open the same experiment for the same link. A lesson's view and the
// sentences it words from the model are the UI's: a file of its own in src/ui/lessons/.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "base/text_util.hpp"
#include "model/stage.hpp"
#include "spec/experiment.hpp"
#include "spec/values.hpp"

namespace attn {

inline constexpr int lesson_count = link_view_limits::max_lesson;  // L1 … L13: the link format counts them

struct lesson_preset {
    const char* id;         // "L1" … "L13"
    bilingual title;        // "Attention is a soft dictionary lookup"
    bilingual chip;         // a word or two for the lessons bar's chip ("L1 lookup")
    bilingual try_text;     // what to try, under the title
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
