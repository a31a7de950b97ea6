// Share and export: what the Share menu produces. The UI builds the links and
// the files' bytes; the platform copies, downloads or writes them (it owns the
// clipboard, the file system and the pixels).
#pragma once

#include <string>

#include "view/app.hpp"

namespace attn::ui {

struct export_file {
    std::string name;   // e.g. "attn-weights.csv"
    std::string mime;   // e.g. "text/csv"
    std::string bytes;  // the file's contents
};

// The current stage's matrices (every head of a per-head stage, the selected
// layer) as ONE CSV file with a section per matrix: each section is a line
// "# <stage> layer <l> head <h>: <matrix label>" followed by the matrix as plain
// CSV (core matrix_to_csv: token labels, nan/inf/-inf), sections separated by
// an empty line. Named "attn-<stage>.csv".
export_file share_export_csv(const app& a);
// The whole trace (trace_to_json), "attn-trace.json".
export_file share_export_json(const app& a);
// The current stage's maps (every head of a per-head stage, the selected layer)
// as one SVG picture: per map a title, the column and row labels (tokens or
// indices), the cells in the app's colour maps with their values written in
// (masked cells hatched; NaN and ±∞ named), and the legend with its range.
// A map over share_svg_cell_limit cells is left out. "attn-<stage>.svg".
inline constexpr long share_svg_cell_limit = 65536;
export_file share_export_svg(const app& a);
// The name the canvas PNG gets.
inline const char* share_png_name() { return "attn-canvas.png"; }

// The link with view.embed=1 (for the iframe snippet), and without it (the
// embed's "Open in the full playground" button). The embed carries only what its
// author sees: the pinned A (pin=) only while the compare view shows it.
// `poster`: with view.poster=1, a click-to-run embed (docs/embedding.md#posters):
// a recipe's model is trained in a reader's page only when that reader presses Run.
std::string share_embed_link(const app& a, bool poster = false);
std::string share_full_link(const app& a);

// "Copy embed code": the <iframe> of `embed_link` at `page` (the page's URL without
// its hash), `height` CSS pixels tall to start with, and the script that gives the
// frame the height the playground asks for (attn:resize, at most
// share_embed_max_height), as the example in docs/embedding.md does.
inline constexpr int share_embed_min_height = 320, share_embed_max_height = 1600;
std::string share_embed_code(const std::string& page, const std::string& embed_link, int height, const std::string& title);
// The snippet's first height: the CSS pixels the author's view of the maps needs
// (app::content_height), within share_embed_min_height … share_embed_max_height.
int share_embed_height(const app& a);
// The frame's title: the playground and the open lesson.
std::string share_embed_title(const app& a);
// What a live embed of a recipe costs each reader, in the interface's language
// (the Share menu says it): "" for an experiment without a recipe. A link at step 0
// opens untrained and trains only when the reader presses Train.
std::string share_embed_cost(const experiment& e);

}  // namespace attn::ui
