// When the page is told what changed (page_pace.hpp).
#include "frame/page_pace.hpp"

#include <cmath>
#include <utility>

#include "frame/text_mirror.hpp"
#include "train/trainer.hpp"

namespace attn::ui {

bool link_pace_due(link_pace& p, double now_ms) {
    if (now_ms - p.at < 250.0)
        return false;
    p.at = now_ms;
    return true;
}

bool train_report_due(train_report_pace& p, const session& s, double now_ms) {
    if (s.exp.train.task == train_task::none)
        return false;
    const int step = trainer_step(s.train);
    const bool done = trainer_done(s.train);
    const bool stopped = trainer_stopped(s.train);  // always told: no later change would tell it
    const bool measuring = s.train.measuring_step >= 0;
    if ((done || stopped) && measuring)
        return false;
    if ((step == p.step && done == p.done && stopped == p.stopped && measuring == p.measuring) ||
        (!done && now_ms - p.at < 100.0))
        return false;
    p.step = step, p.done = done, p.stopped = stopped, p.measuring = measuring, p.at = now_ms;
    return true;
}

const std::string* text_view_due(text_view_pace& p, app& a, double now_ms) {
    const bool training = a.model.exp.train.task != train_task::none && !trainer_done(a.model.train);
    if (now_ms - p.at < (training ? 1000.0 : 250.0))
        return nullptr;
    p.at = now_ms;
    std::string text = text_mirror_json(a);
    if (text == p.published)
        return nullptr;
    p.published = std::move(text);
    return &p.published;
}

bool height_due(height_pace& p, float css_pixels) {
    if (std::fabs(css_pixels - p.told) < 1.0f)
        return false;
    p.told = css_pixels;
    return true;
}

bool focus_label_due(focus_label_pace& p, const std::string& label) {
    if (label == p.told)
        return false;
    p.told = label;
    return true;
}

}  // namespace attn::ui
