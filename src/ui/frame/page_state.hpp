// What the page's JS hook (window.attn, src/platform/bridge_web.cpp) tells of the
// app: the view, the widgets and windows drawn, the compare, the prediction, the
// real model and the training, as one JSON object (window.attn.ui(), which the
// browser tests in tests/web read); the changes the page makes through it.
#pragma once

#include <string>

#include "frame/touch.hpp"
#include "view/app.hpp"

namespace attn::ui {

// window.attn.ui(): the app as it is (app_sync it first, between frames), read
// with ImGui's context of the last frame drawn. Rectangles and speeds are in CSS
// pixels (ImGui's divided by a.scale). `touch`: the page's touch input, or
// nullptr (no "touch" then). Its members, in order:
//   stage, layer, sel_row, language, help, undo, redo (the steps each way),
//   selected [matrix, head, row, col], version, threads,
//   widgets {name: [x0, y0, x1, y1]}, so a test can click where a person would,
//   lesson, numbers {name: value} (a lesson's numbers; -1e300 for NaN or ±inf),
//   link, embed, pipeline {real, layer, heads, tokens}, readonly, keyboard,
//   focus (the keyboard's widget), focusLabel, tooltip,
//   windows [{name, parent, rect, scroll, over, bars}], widgetWindows {name: window},
//   maps [{name, cells, labelled, axes}], clipped, clippedItems [{text, window, rect, clip}],
//   drawn {vertices, windows [{name, vertices}]} or null,
//   compare {pinned, shown, maxAbs, reason, aTrain {step, target, done} or null,
//            patch {done, total, problem, explained} or null},
//   touch {mode, speed} (with `touch`), prediction (session_prediction_json),
//   realModel and wantedModel, modelFetch (page_model.hpp), train (session_train_json).
std::string page_state_json(const app& a, const touch_input* touch);

// The problems of the last change, one a line ("" when none).
std::string page_errors(const app& a);

// window.attn.setExperiment: applies the experiment of a link (any form
// link_parse reads: canonical, z=, a whole URL; view.* keys are checked but the
// view stays as it is); "" or the problems, one a line. `from_host`: a host
// page's attn:set, whose changes in a row make one undo step (session.hpp,
// change::from_host), so a host that floods the page leaves the reader's own
// undo steps in the history.
std::string page_set_experiment(app& a, const char* text, bool from_host);
// window.attn.openLink: opens a link as the page does (a pasted link,
// back/forward): the experiment and its view, an undo step. "" or the problems.
std::string page_open_link(app& a, const char* text);

}  // namespace attn::ui
