// What the circuit lessons L11 and L12 share (circuit_parts.cpp): the study when it
// describes the model shown, its maps' labels, small maps, curves over the training
// steps and tabs; and the maps and tables the text view and the SVG export read.
#pragma once

#include <string>
#include <vector>

#include "lessons/lesson_parts.hpp"
#include "maps/heatmap.hpp"
#include "play/circuit_study.hpp"

namespace attn::ui::circuit_parts {

// The study when it describes the model shown (its run, at its step); nullptr
// while the run trains or the study is being brought to it.
const circuit_study* study_of(const app& a);
// While L9's model trains (or is being read), one line saying so; false then.
bool model_ready(const app& a, frame_out& out);
std::string head_name(int layer, int head);
// The maps' labels and matrices of the study, by its version and the language.
const circuit_maps& maps_of(const app& a, const circuit_study& s);
// A small map with every number drawn.
heatmap_options small_map(const app& a, float lo, float hi, colormap map, int chars);
void report_map(frame_out& out, const char* name, const heatmap_result& r, const char* axes);
// One line per series over the training steps: values against the step axis with
// the phase-change line, the model's step, and a band (a baseline ± its spread).
struct series {
    const std::vector<float>* v;
    ImU32 col;
};
struct step_axis {
    const std::vector<int>* steps;
    int total = 1;   // the run's last step
    int phase = -1;  // the drop, −1: none
    int now = 0;     // the model's step
    float lo = 0, hi = 1;
    float band_lo = NAN, band_hi = NAN;
};
void step_plot(frame_out& out, const char* name, const step_axis& ax, const series* s, int count);
// A row of tabs (chips), the chosen one lit; returns the one clicked or −1.
int tabs(frame_out& out, const char* const* labels, const char* const* names, int count, int chosen);

}  // namespace attn::ui::circuit_parts
