// [SECTION] gestures   the arithmetic: taps, drags, scrolls, coasting, pinches
// [SECTION] imgui      applied to ImGui: pointer events, the scrolled window, the pinch
#include "frame/touch.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "imgui.h"
#include "imgui_internal.h"  // the windows under a point, their scroll; the active item
#include "maps/heatmap.hpp"

namespace attn::ui {

// [SECTION] gestures

namespace {

using mode = touch_gestures::mode;

float distance(float x0, float y0, float x1, float y1) { return std::hypot(x1 - x0, y1 - y0); }

touch_gestures::finger* finger_find(touch_gestures& g, int id) {
    for (auto& f : g.fingers)
        if (f.id == id)
            return &f;
    return nullptr;
}

// The press already handed on is taken back: the pointer leaves first, so the
// release lands on nothing and clicks nothing.
void press_cancel(touch_frame& f) {
    f.pointer.push_back({touch_pointer_event::kind::away});
    f.pointer.push_back({touch_pointer_event::kind::up});
}

void sample_add(touch_gestures& g, double time, float x, float y) {
    g.samples.push_back({time, x, y});
    const double keep = g.settings.velocity_window * 3.0;
    while (g.samples.size() > 2 && time - g.samples.front().time > keep)
        g.samples.erase(g.samples.begin());
}

// The content's speed at a release (pixels a second; the finger's, reversed):
// over the moves of the last velocity_window before the finger's last move, or
// its last step when the moves came further apart (slow frames); 0 when the
// finger had stopped that long before it lifted.
void release_velocity(touch_gestures& g, double time) {
    g.vx = g.vy = 0.0f;
    if (g.samples.size() < 2)
        return;
    const touch_gestures::sample& last = g.samples.back();
    if (time - last.time > g.settings.velocity_window)
        return;
    std::size_t first = g.samples.size() - 2;
    while (first > 0 && last.time - g.samples[first - 1].time <= g.settings.velocity_window)
        --first;
    const double span = last.time - g.samples[first].time;
    if (span < 0.001)
        return;
    g.vx = float((g.samples[first].x - last.x) / span);
    g.vy = float((g.samples[first].y - last.y) / span);
}

// The scrolling finger is lifted: it coasts if it was moving fast enough.
void scroll_release(touch_gestures& g, const touch_event& e) {
    g.pending.scroll_dx += g.last_x - e.x;
    g.pending.scroll_dy += g.last_y - e.y;
    g.last_x = e.x, g.last_y = e.y;
    if (g.samples.empty() || g.samples.back().x != e.x || g.samples.back().y != e.y)
        sample_add(g, e.time, e.x, e.y);
    release_velocity(g, e.time);
    const bool fling = std::hypot(g.vx, g.vy) >= g.settings.fling_speed * g.scale;
    g.now = fling ? mode::coasting : mode::idle;
    if (!fling)
        g.vx = g.vy = 0.0f;
}

void finger_down(touch_gestures& g, const touch_event& e) {
    touch_frame& f = g.pending;
    if (finger_find(g, e.id))
        return;
    g.fingers.push_back({e.id, e.x, e.y});
    if (g.fingers.size() == 1) {
        g.start_x = g.last_x = e.x;
        g.start_y = g.last_y = e.y;
        g.samples.clear();
        sample_add(g, e.time, e.x, e.y);
        if (g.now == mode::coasting) {  // a finger on a coasting page stops it and presses nothing
            g.now = mode::scrolling;
            g.vx = g.vy = 0.0f;
            return;
        }
        g.now = mode::pressed;
        g.press_frames = 0;
        f.pointer.push_back({touch_pointer_event::kind::move, e.x, e.y});
        f.pointer.push_back({touch_pointer_event::kind::down, e.x, e.y});
        return;
    }
    if (g.fingers.size() == 2) {
        if (g.now == mode::pressed)
            press_cancel(f);
        else if (g.now == mode::dragging)
            f.pointer.push_back({touch_pointer_event::kind::up});
        g.now = mode::pinching;
        g.pinch_distance = distance(g.fingers[0].x, g.fingers[0].y, g.fingers[1].x, g.fingers[1].y);
    }
}

void finger_move(touch_gestures& g, const touch_event& e) {
    touch_gestures::finger* finger = finger_find(g, e.id);
    if (!finger)
        return;
    finger->x = e.x, finger->y = e.y;
    touch_frame& f = g.pending;
    switch (g.now) {
        case mode::dragging:
            f.pointer.push_back({touch_pointer_event::kind::move, e.x, e.y});
            break;
        case mode::pressed:
        case mode::scrolling:
            sample_add(g, e.time, e.x, e.y);
            break;
        case mode::pinching:
            if (g.fingers.size() >= 2) {
                const auto &a = g.fingers[0], &b = g.fingers[1];
                const float d = distance(a.x, a.y, b.x, b.y);
                if (g.pinch_distance > 0.0f && d > 0.0f)
                    f.pinch *= d / g.pinch_distance;
                g.pinch_distance = d;
                f.pinch_x = (a.x + b.x) * 0.5f;
                f.pinch_y = (a.y + b.y) * 0.5f;
            }
            break;
        default:
            break;
    }
}

void finger_up(touch_gestures& g, const touch_event& e, bool cancelled) {
    const auto it = std::find_if(g.fingers.begin(), g.fingers.end(), [&](const auto& f) { return f.id == e.id; });
    if (it == g.fingers.end())
        return;
    g.fingers.erase(it);
    touch_frame& f = g.pending;
    const float slop = g.settings.slop * g.scale;
    switch (g.now) {
        case mode::pressed:
            if (cancelled) {
                press_cancel(f);
                g.now = mode::idle;
            } else if (distance(g.start_x, g.start_y, e.x, e.y) > slop) {  // a flick faster than the frames
                press_cancel(f);
                f.scroll_begins = true;
                f.scroll_start_x = g.start_x, f.scroll_start_y = g.start_y;
                scroll_release(g, e);
            } else {
                f.pointer.push_back({touch_pointer_event::kind::up, e.x, e.y});  // a tap: the pointer stays
                g.now = mode::idle;
            }
            break;
        case mode::dragging:
            f.pointer.push_back({touch_pointer_event::kind::move, e.x, e.y});
            f.pointer.push_back({touch_pointer_event::kind::up, e.x, e.y});
            g.now = mode::idle;
            break;
        case mode::scrolling:
            if (cancelled)
                g.now = mode::idle;
            else
                scroll_release(g, e);
            break;
        case mode::pinching:
        case mode::lifting:
            g.now = g.fingers.empty() ? mode::idle : mode::lifting;
            break;
        default:
            break;
    }
}

}  // namespace

void touch_gestures_event(touch_gestures& g, const touch_event& e) {
    switch (e.phase) {
        case touch_phase::start:
            finger_down(g, e);
            break;
        case touch_phase::move:
            finger_move(g, e);
            break;
        case touch_phase::end:
            finger_up(g, e, false);
            break;
        case touch_phase::cancel:
            finger_up(g, e, true);
            break;
    }
}

touch_frame touch_gestures_frame(touch_gestures& g, double now, bool grabbed, float scale) {
    touch_frame f = std::move(g.pending);
    g.pending = touch_frame{};
    const double dt = g.last_frame_time < 0 ? 0.0 : std::clamp(now - g.last_frame_time, 0.0, 0.1);
    g.last_frame_time = now;
    g.scale = scale;
    const touch_settings& s = g.settings;
    if (g.now == mode::pressed && g.fingers.size() == 1) {
        const auto& p = g.fingers[0];
        // The press reaches ImGui one frame after the pointer (a touch has no hover
        // before it) and the pressed item is known the frame after: decide then.
        if (++g.press_frames >= 3 && distance(g.start_x, g.start_y, p.x, p.y) > s.slop * scale) {
            if (grabbed) {
                g.now = mode::dragging;
                f.pointer.push_back({touch_pointer_event::kind::move, p.x, p.y});
            } else {
                g.now = mode::scrolling;
                press_cancel(f);
                f.scroll_begins = true;
                f.scroll_start_x = g.start_x, f.scroll_start_y = g.start_y;
                f.scroll_dx += g.start_x - p.x;  // the content catches up with the finger
                f.scroll_dy += g.start_y - p.y;
                g.last_x = p.x, g.last_y = p.y;
            }
        }
    } else if (g.now == mode::scrolling && g.fingers.size() == 1) {
        const auto& p = g.fingers[0];
        f.scroll_dx += g.last_x - p.x;
        f.scroll_dy += g.last_y - p.y;
        g.last_x = p.x, g.last_y = p.y;
    } else if (g.now == mode::coasting) {
        f.scroll_dx += float(g.vx * dt);
        f.scroll_dy += float(g.vy * dt);
        const float k = float(std::exp(-dt / s.decay));
        g.vx *= k, g.vy *= k;
        if (std::hypot(g.vx, g.vy) < s.stop_speed * scale)
            g.now = mode::idle, g.vx = g.vy = 0.0f;
    }
    f.scrolling = g.now == mode::scrolling || g.now == mode::coasting || f.scroll_dx != 0.0f || f.scroll_dy != 0.0f;
    return f;
}

// [SECTION] imgui

namespace {

// The topmost window drawn at p that takes the mouse (tooltips do not).
ImGuiWindow* window_at(ImVec2 p) {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    for (int i = g.Windows.Size - 1; i >= 0; --i) {
        ImGuiWindow* w = g.Windows[i];
        if (!w->WasActive || w->Hidden || (w->Flags & ImGuiWindowFlags_NoMouseInputs))
            continue;
        if (w->OuterRectClipped.Contains(p))
            return w;
    }
    return nullptr;
}

// w or the nearest window around it that scrolls along the axis: a swipe on a
// map that fits moves the panel it is in.
ImGuiID scroller_id(ImGuiWindow* w, ImGuiAxis axis) {
    for (; w; w = (w->Flags & ImGuiWindowFlags_ChildWindow) ? w->ParentWindow : nullptr)
        if (w->ScrollMax[axis] > 0.0f && !(w->Flags & ImGuiWindowFlags_NoScrollWithMouse))
            return w->ID;
    return 0;
}

// Whether the pressed item is one a finger drags: a scrollbar, or a slider or
// drag box (they claim the arrow keys while held). A text box is not: a swipe
// starting on it scrolls.
bool press_grabbed() {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    const ImGuiID active = g.ActiveId;
    // A press on a window's empty space holds the window (its MoveId), which claims every key.
    if (active == 0 || active == g.InputTextState.ID || (g.ActiveIdWindow && active == g.ActiveIdWindow->MoveId))
        return false;
    if (g.ActiveIdUsingNavDirMask & ((1 << ImGuiDir_Left) | (1 << ImGuiDir_Right) | (1 << ImGuiDir_Up) | (1 << ImGuiDir_Down)))
        return true;
    for (ImGuiWindow* w : g.Windows)
        if (w->WasActive &&
            (ImGui::GetWindowScrollbarID(w, ImGuiAxis_X) == active || ImGui::GetWindowScrollbarID(w, ImGuiAxis_Y) == active))
            return true;
    return false;
}

void scroll_by(ImGuiID id, ImGuiAxis axis, float d) {
    ImGuiWindow* w = id && d != 0.0f ? ImGui::FindWindowByID(id) : nullptr;
    if (!w)
        return;
    const float target = std::clamp(w->Scroll[axis] + d, 0.0f, w->ScrollMax[axis]);
    if (axis == ImGuiAxis_X)
        ImGui::SetScrollX(w, target);
    else
        ImGui::SetScrollY(w, target);
}

}  // namespace

void touch_input_event(touch_input& t, const touch_event& e) {
    t.used = true;
    touch_gestures_event(t.gestures, e);
}

void touch_input_frame(touch_input& t, double now, float scale, heatmap_context* heatmaps) {
    if (!t.used)
        return;
    const touch_frame f = touch_gestures_frame(t.gestures, now, press_grabbed(), scale);
    ImGuiIO& io = ImGui::GetIO();
    if (!f.pointer.empty()) {
        io.AddMouseSourceEvent(ImGuiMouseSource_TouchScreen);
        for (const touch_pointer_event& e : f.pointer) {
            switch (e.what) {
                case touch_pointer_event::kind::move:
                    io.AddMousePosEvent(e.x, e.y);
                    break;
                case touch_pointer_event::kind::down:
                    io.AddMousePosEvent(e.x, e.y);
                    io.AddMouseButtonEvent(ImGuiMouseButton_Left, true);
                    break;
                case touch_pointer_event::kind::up:
                    io.AddMouseButtonEvent(ImGuiMouseButton_Left, false);
                    break;
                case touch_pointer_event::kind::away:
                    io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);
                    break;
            }
        }
        io.AddMouseSourceEvent(ImGuiMouseSource_Mouse);  // what the mouse's own events are
    }
    if (f.scroll_begins) {
        ImGuiWindow* w = window_at(ImVec2(f.scroll_start_x, f.scroll_start_y));
        t.scroll_x_window = scroller_id(w, ImGuiAxis_X);
        t.scroll_y_window = scroller_id(w, ImGuiAxis_Y);
    }
    scroll_by(t.scroll_x_window, ImGuiAxis_X, f.scroll_dx);
    scroll_by(t.scroll_y_window, ImGuiAxis_Y, f.scroll_dy);
    if (heatmaps)
        heatmaps->set_pinch(f.pinch, f.pinch_x, f.pinch_y);
}

}  // namespace attn::ui
