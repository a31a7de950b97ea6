// The browser bridge: everything that talks to the page. The functions with
// C linkage are the JS hook the page exposes as window.attn (see web/shell.js);
// tests and embedders use them to read and set the experiment.
#include "bridge.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cmath>

#include "trace_json.hpp"

namespace {
attn::ui::app* g_app = nullptr;
std::string g_buffer;  // holds the last string returned to JS
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attn_hook_experiment() {
    g_buffer = g_app ? attn::experiment_to_text(g_app->exp) : "";
    return g_buffer.c_str();
}

// Applies an experiment text; returns "" or the problems, one per line.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_set_experiment(const char* text) {
    g_buffer.clear();
    if (!g_app)
        return "";
    if (!attn::ui::app_set_experiment_text(*g_app, text))
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_trace_json() {
    g_buffer = g_app ? attn::trace_to_json(g_app->exp, g_app->tr) : "{}";
    return g_buffer.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_errors() {
    g_buffer.clear();
    if (g_app)
        for (const auto& e : g_app->errors)
            g_buffer += e + "\n";
    return g_buffer.c_str();
}

}  // extern "C"

namespace attn::platform {

void bridge_attach(ui::app* a) { g_app = a; }

void bridge_publish(const ui::app& a) {
    const std::string text = experiment_to_text(a.exp);
    EM_ASM(
        {
            if (window.attnShell)
                window.attnShell.publishExperiment(UTF8ToString($0));
        },
        text.c_str());
}

void bridge_first_frame() {
    EM_ASM({
        if (window.attnShell)
            window.attnShell.firstFrame();
    });
}

bool bridge_canvas_size(int& width, int& height, float& pixel_ratio) {
    double css_w = 0, css_h = 0;
    emscripten_get_element_css_size("#canvas", &css_w, &css_h);
    pixel_ratio = float(emscripten_get_device_pixel_ratio());
    width = int(std::lround(css_w * pixel_ratio));
    height = int(std::lround(css_h * pixel_ratio));
    return width > 0 && height > 0;
}

}  // namespace attn::platform

#else

namespace attn::platform {
void bridge_attach(ui::app*) {}
void bridge_publish(const ui::app&) {}
void bridge_first_frame() {}
bool bridge_canvas_size(int&, int&, float&) { return false; }
}  // namespace attn::platform

#endif
