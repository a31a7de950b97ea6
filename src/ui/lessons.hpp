// The guided lessons L1–L10: each a preset experiment, the stage it opens on, a
// short "what to try" in both languages, and a view of its own that shows the
// article's claim happen on live numbers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "play/measure_lessons.hpp"
#include "play/measure_training.hpp"
#include "stages.hpp"

namespace attn::ui {

struct lesson {
    const char* id;  // "L1" … "L10"
    const char* title_en;
    const char* title_zh;
    const char* chip_en;  // a word or two for the lessons bar's chip ("L1 lookup")
    const char* chip_zh;
    const char* try_en;  // what to try
    const char* try_zh;
    // Its experiment and first stage are the core's: lesson_preset.hpp.
};

const std::vector<lesson>& lessons();

// A sentence of a lesson's card, worded from the state it describes. The card
// draws these and the text view lists them: one wording for both.
enum class claim_style { plain, highlight, muted, bad };
struct claim_line {
    claim_style style = claim_style::plain;
    std::string text;
};
struct lesson_claims {
    std::vector<claim_line> claims;  // above the lesson's buttons
    std::vector<claim_line> after;   // below them: what the zeroed heads did
};

// What a lesson shows, apart from the experiment: a panel asks for a new one
// through frame_out::lesson.
struct lesson_view {
    int index = -1;     // -1: no lesson
    int dk = 64;        // L2: d_k of the dot-product experiment
    int tile = 2;       // L5: tile edge of the online-softmax stepper
    int tile_step = 0;  // L5: how many tile steps are done
    int decode_t = 4;   // L5: tokens decoded so far
    bool operator==(const lesson_view&) const = default;
};

// What the lessons' views measure (measure_lessons.hpp), by the experiment's
// version: memos, filled while a view draws from a const app (app_memos).
struct lesson_memos {
    version_cache<lookup_measure> lookup;
    version_cache<sqrt_dk_measure> sqrt_dk;
    version_cache<subspace_measure> subspaces;
    version_cache<order_measure> order;
    version_cache<rope_shift_measure> rope;
    version_cache<cost_measure> cost;
    version_cache<tiled_measure> tiled;
    version_cache<decode_measure> decode;
    version_cache<bright_cell_measure> bright;
    version_cache<cancel_measure> cancel;
    version_cache<bugs_measure> bugs;
    version_cache<formation_measure> formation;
    version_cache<task_reading> reading;
};

}  // namespace attn::ui
