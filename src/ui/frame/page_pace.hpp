// When the page is told what changed (src/platform/bridge_web.cpp): the link
// for its URL hash, training's progress for an embed's host, the text view for
// a screen reader; each at most so often, and only when it changed. No JS here:
// each function says whether (or what) to tell, and the bridge tells it.
#pragma once

#include <string>

#include "view/app.hpp"

namespace attn::ui {

// The link (bridge_publish): at most every 250 ms, a dragged slider changing it
// every frame. True when it is told now (then it is its time again 250 ms later).
struct link_pace {
    double at = -1e9;  // when it was told last (ms, the page's clock)
};
bool link_pace_due(link_pace& p, double now_ms);

// Training progress (a recipe's experiment; attn:train {step, target, steps,
// loss, accuracy, done, hash}): whenever the trainer's step, done, stopped or
// its held-out measure under way changed, at most every 100 ms, and always when
// it arrives. The measure lands frames after the step it measures: a host hears
// done or stopped once it is in, so the numbers it hears are that step's.
struct train_report_pace {
    int step = -1;
    bool done = false, stopped = false, measuring = false;
    double at = -1e9;
};
bool train_report_due(train_report_pace& p, const session& s, double now_ms);

// The text view (text_mirror.hpp) when it changed: every 250 ms at most, and
// every second while a model trains (the mirror's tables are laid out anew each
// time, a tenth of the page's time at 4 a second, and a screen reader's reading
// is not pulled away four times a second). The text to hand over, or nullptr.
struct text_view_pace {
    double at = -1e9;
    std::string published;
};
const std::string* text_view_due(text_view_pace& p, app& a, double now_ms);

// An embed's content height for its host (attn:resize, CSS pixels): when it
// moved by a pixel or more since it was told, so a sub-pixel wobble of the
// layout does not resize the host's frame every frame.
struct height_pace {
    float told = -1.0f;
};
bool height_due(height_pace& p, float css_pixels);

// The focused widget's label for the canvas's accessible name: when it changed.
struct focus_label_pace {
    std::string told = "\x01";  // nothing told yet (no label is this)
};
bool focus_label_due(focus_label_pace& p, const std::string& label);

}  // namespace attn::ui
