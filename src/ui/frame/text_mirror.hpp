// The text view: what the canvas shows, as a document that a screen reader can
// read and a person can copy numbers from. Built from the app's state without
// ImGui; the platform hands it to the page, which renders it as HTML beside the
// canvas (web/textview.js: real <table>s, an aria-live summary).
//
// The document is JSON:
//   {"lang", "summary",                       one sentence: where you are, what the last change did
//    "stage": {"index","count","name","formula","explain"}, "layer", "layers",
//    "tables": [{"caption","rows":[…],"cols":[…],"cells":[[…]…]} | {"caption","note"}],
//    "inspector": [lines], "effect": "…" | "",
//    "lesson": {"id","title","text",
//               "lines": [the card's sentences, as it words them (lesson_claims_of)],
//               "tables": [a trained model's head scores; its curve at the kept snapshots],
//               "numbers":[[name, value]…]} | null,
//    "errors": [lines]}
// Cells hold the values as the maps show them; masked, NaN and ±∞ cells in words.
// A map over text_mirror_cell_limit cells is named with its shape and a note
// instead (the CSV export has every value).
#pragma once

#include <string>

#include "maps/heatmap.hpp"  // text_mirror_cell, the limits
#include "view/app.hpp"

namespace attn::ui {

std::string text_mirror_json(app& a);

}  // namespace attn::ui
