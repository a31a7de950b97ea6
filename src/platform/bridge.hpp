// What the platform needs from its host: the browser page on the web, the
// process natively. The page passes its URL hash to main() as
// `--experiment <hash>`, so argv feeds the same options in both. Only bridge_web.cpp names Emscripten.
#pragma once

#include <string>

#include "app.hpp"

namespace attn::platform {

// Lets the page's JS hook (window.attn) reach the app. No-op natively.
void bridge_attach(ui::app* a);

// Publishes an accepted change: rewrites the URL hash on the web, at most every
// 250 ms (a dragged slider changes it every frame). Returns false when it held
// back, so the caller tries again next frame. Always true natively.
bool bridge_publish(const ui::app& a);

// Tells the page the first frame is drawn (hides the loading indicator).
void bridge_first_frame();

// Size the canvas must have in device pixels, and the device pixel ratio.
// Returns false natively (the window decides).
bool bridge_canvas_size(int& width, int& height, float& pixel_ratio);

// Gives the canvas that many device pixels and tells GLFW. (Not glfwSetWindowSize:
// Emscripten's GLFW turns a size equal to the screen's into a fullscreen request.)
void bridge_resize_canvas(int width, int height);

// Asks the page to fetch a font file from the site's assets/ folder (same origin);
// its bytes, or the failure, arrive later through fonts_receive. Returns false
// natively (and on a page without the shell): read it from the asset folder.
bool bridge_fetch_font(const char* file_name);

}  // namespace attn::platform
