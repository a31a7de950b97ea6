// What the lessons' views share (lesson_parts.cpp defines these): drawing helpers,
// a lesson's page, and the circuit lessons' maps and tables (circuit_parts.cpp).
#pragma once

#include <string>
#include <vector>

#include "imgui.h"
#include "maps/heatmap_data.hpp"
#include "view/app.hpp"
#include "view/lessons.hpp"

namespace attn::ui {

namespace lesson_parts {

// A number the view measured, for the page's hook and the text view.
void number(frame_out& out, const char* name, double v);

// The lesson's view as this frame asks for it so far.
lesson_view& lesson_wants(const app& a, frame_out& out);

// Horizontal bars for one value per label, centred on zero when signed.
void bars(frame_out& out, const char* id, const std::vector<std::string>& labels, const std::vector<float>& v, bool signed_values,
          ImU32 col);

// On the line of the item before when a button labelled `label` fits there, else on the next.
void same_line_if_fits(const char* label);

// A sentence from a format in the current language.
claim_line claim(claim_style style, const char* format, ...) IM_FMTARGS(2);

// The card's sentences in their styles.
void draw_claims(frame_out& out, const std::vector<claim_line>& lines);

// A button asking for the experiment with only head h zeroed (none: nothing zeroed), lit while it is so.
void zero_button(const app& a, frame_out& out, const char* label, const char* name, head_ref h);
// The held-out accuracy with the zeroed heads, once the trainer is at its step.
void zeroed_task_line(const app& a, frame_out& out);
// Controls that change the experiment, drawn disabled in a read-only link
// (apply() refuses them anyway). The lesson's own view controls (L2's d_k, L5's
// tile stepper) stay live: they change what is shown, not what is shared.
class experiment_controls {
  public:
    explicit experiment_controls(const app& a) { ImGui::BeginDisabled(a.options.readonly); }
    ~experiment_controls() { ImGui::EndDisabled(); }
    experiment_controls(const experiment_controls&) = delete;
    experiment_controls& operator=(const experiment_controls&) = delete;
};

}  // namespace lesson_parts

// A lesson's page under its card: its view, and the sentences it words from the
// model it describes (nullptr where the view words its own; the text view lists
// them too). Each lesson's own file, lessons/lNN_*.cpp, defines its page as
// lesson_page_NN; card.cpp lists them in lesson order from the files' names
// (lesson_pages.inc, which the build writes: cmake/lesson_pages.cmake).
struct lesson_page {
    void (*view)(const app&, frame_out&);
    lesson_claims (*claims)(const app&);
};

// A lesson's map or curve as a table for the text view: a caption, row and column
// headers, the cells as text.
struct lesson_table {
    std::string caption;
    std::vector<std::string> rows, cols;
    std::vector<std::vector<std::string>> cells;
};

// L11's and L12's maps as the page draws them (their colour range), for the SVG
// export; pointers into the maps' memo, valid until the next frame.
struct lesson_map {
    std::string title;
    const matrix* m = nullptr;
    const std::vector<std::string>*rows = nullptr, *cols = nullptr;
    colormap map = colormap::sequential;
    float lo = 0, hi = 1;
};
std::vector<lesson_map> circuit_lesson_maps(const app& a);

// L11's and L12's maps and curves as tables (empty for another lesson, or until
// the circuit is read).
std::vector<lesson_table> circuit_lesson_tables(const app& a);

}  // namespace attn::ui
