// What the lessons' views share: their sentences (claims), their own view
// settings and their memos. Each lesson's row (title, what to try, experiment) is
// the core's (play/lesson_preset.hpp); its view, a file of its own in src/ui/lessons/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/matrix.hpp"
#include "play/circuit_study.hpp"
#include "play/lesson_preset.hpp"
#include "play/measure_context.hpp"
#include "play/measure_lessons.hpp"
#include "play/measure_training.hpp"
#include "view/stages.hpp"

namespace attn::ui {

// Lesson `index` (the view's, 0-based: L1 is 0): its row of the lessons' table
// (play/lesson_preset.hpp: id, titles, chip, what to try, experiment); nullptr
// for -1 (free exploring) or out of range.
inline const lesson_preset* lesson_at(int index) { return lesson_preset_find(index + 1); }

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
    int comp = 1;       // L11: the composition map shown (0 Q, 1 K, 2 V)
    circuit_cell cell;  // L11: the patching map's clicked cell (none: nothing patched)
    bool operator==(const lesson_view&) const = default;
};

// L11's and L12's maps, laid out from the circuit study (its version is the key).
struct circuit_maps {
    matrix comp[3];            // (h, h) Q-, K-, V-composition: layer-0 heads × layer-1 heads
    matrix base;               // (1, 3) the random baseline of each
    matrix k_map, ov;          // (V, V) the pair's K-composition full circuit, the induction head's OV circuit
    matrix patch;              // (L·h, n + 1) recovery of each head's output at each position, and at all
    matrix pos_loss;           // L12: (T − 1, S) the next token's held-out loss by position and snapshot (0 where pending)
    matrix pos_pending;        // (T − 1, S) −inf in the columns of pending snapshots (circuit_study_pending), else 0
    bool any_pending = false;  // some snapshot is still to be measured
    std::vector<std::string> l0, l1, symbols, heads, patch_rows, positions, snap_steps, base_rows, base_cols;
    float comp_hi = 1;  // the shared colour scale's top
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
    version_cache<circuit_maps> circuit;    // L11, L12: by the circuit study's version
    version_cache<context_claims> context;  // L12: by the circuit study's version
};

}  // namespace attn::ui
