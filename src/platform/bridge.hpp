// What the platform needs from its host: the browser page on the web, the
// process natively. The page passes its URL hash to main() as
// `--experiment <hash>`, so argv feeds the same options in both. Only bridge_web.cpp names Emscripten.
#pragma once

#include <string>

#include "app.hpp"

namespace attn::platform {

// Lets the page's JS hook (window.attn) reach the app. No-op natively.
void bridge_attach(ui::app* a);

// Publishes an accepted change: rewrites the URL hash on the web. No-op natively.
void bridge_publish(const ui::app& a);

// Tells the page the first frame is drawn (hides the loading indicator).
void bridge_first_frame();

// Size the canvas must have in device pixels, and the device pixel ratio.
// Returns false natively (the window decides).
bool bridge_canvas_size(int& width, int& height, float& pixel_ratio);

}  // namespace attn::platform
