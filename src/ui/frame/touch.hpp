// Touch input: the page's touches (web/touch.js) turned into what a finger
// means on a phone, for Dear ImGui, which knows only a mouse.
//
//   a tap                    a click where the finger was (the pointer stays there
//                            afterwards, so the control's tooltip shows; a tap
//                            elsewhere moves it away and the tooltip closes)
//   a drag beyond `slop`     scrolls the window under the finger, which follows
//                            the finger; on release it coasts, its speed falling
//                            by e every `decay` seconds, as a native page does.
//                            The press it started with is cancelled (nothing is
//                            clicked). A press on a scrollbar, a slider or a drag
//                            box keeps the pointer instead: the finger drags it.
//   two fingers              a pinch: zooms the map under them (heatmap.hpp)
//
// Two parts. touch_gestures is the arithmetic alone (no ImGui): events in,
// per frame what the pointer does, how far to scroll and how much to zoom;
// tests/ui/test_touch.cpp drives it. touch_input applies that to ImGui each
// frame, before ImGui::NewFrame: pointer events through io.AddMouseSourceEvent
// (ImGuiMouseSource_TouchScreen), AddMousePosEvent and AddMouseButtonEvent, the
// scroll to the window under the finger. Coordinates are ImGui's (display
// pixels); distances in the settings are for a scale of 1 and are multiplied by
// the UI scale.
#pragma once

#include <cstdint>
#include <vector>

namespace attn::ui {

class heatmap_context;

enum class touch_phase { start, move, end, cancel };

struct touch_event {
    touch_phase phase = touch_phase::start;
    int id = 0;          // the finger
    float x = 0, y = 0;  // display pixels
    double time = 0;     // seconds
};

struct touch_settings {
    float slop = 8.0f;             // a finger moving less than this (pixels at scale 1) still taps
    float fling_speed = 50.0f;     // pixels a second (at scale 1): a slower release does not coast
    float stop_speed = 10.0f;      // pixels a second (at scale 1): coasting ends below it
    double decay = 0.325;          // seconds for the coasting speed to fall by e
    double velocity_window = 0.1;  // seconds of the last moves the release speed is measured over
};

// What the pointer does this frame, in order.
struct touch_pointer_event {
    enum class kind { move, down, up, away } what = kind::move;  // away: the pointer leaves (no hover)
    float x = 0, y = 0;
};

struct touch_frame {
    std::vector<touch_pointer_event> pointer;
    bool scroll_begins = false;                    // this frame a drag became a scroll (pick the window now)
    float scroll_start_x = 0, scroll_start_y = 0;  // where that drag started
    float scroll_dx = 0, scroll_dy = 0;            // how far the content moves: finger up = +dy (scroll down)
    bool scrolling = false;                        // a scroll or its coasting is under way
    float pinch = 1.0f;                            // this frame's zoom factor (1: none)
    float pinch_x = 0, pinch_y = 0;                // about this point
};

struct touch_gestures {
    enum class mode { idle, pressed, dragging, scrolling, coasting, pinching, lifting };
    struct finger {
        int id = -1;
        float x = 0, y = 0;
    };
    struct sample {
        double time;
        float x, y;
    };
    touch_settings settings;
    mode now = mode::idle;
    std::vector<finger> fingers;  // down now
    float start_x = 0, start_y = 0;
    float last_x = 0, last_y = 0;  // the scrolling finger at the last frame
    int press_frames = 0;          // frames since the press was handed on
    std::vector<sample> samples;   // the scrolling finger's recent positions
    float vx = 0, vy = 0;          // coasting speed, pixels a second
    float pinch_distance = 0;      // between the two fingers at the last frame
    double last_frame_time = -1;
    float scale = 1.0f;   // the last frame's
    touch_frame pending;  // what the events since the last frame asked for
};

// Takes one touch event (the page calls this between frames).
void touch_gestures_event(touch_gestures& g, const touch_event& e);
// Once a frame: what to do now. `grabbed`: the press landed on something a
// finger drags (a scrollbar, slider or drag box; touch_input tells). `scale`
// multiplies the settings' distances and speeds.
touch_frame touch_gestures_frame(touch_gestures& g, double now, bool grabbed, float scale = 1.0f);

// The gestures applied to the current ImGui context.
struct touch_input {
    touch_gestures gestures;
    std::uint32_t scroll_x_window = 0, scroll_y_window = 0;  // ImGuiIDs of the windows a scroll moves
    bool used = false;                                       // a touch has been seen: the pointer is the finger's
};

void touch_input_event(touch_input& t, const touch_event& e);
// Before ImGui::NewFrame (after the platform backend's NewFrame, so that these
// pointer events come last): the pointer, the scroll, and a pinch handed to the
// maps (heatmaps may be nullptr).
void touch_input_frame(touch_input& t, double now, float scale, heatmap_context* heatmaps);

}  // namespace attn::ui
