// A frame of the app (frame.cpp): the pending change, training and the trace
// first, then the panels laid out, each applying what it asks for as it returns.
#pragma once

#include "view/app.hpp"

namespace attn::ui {

// Draws one frame of UI into the current ImGui context (a.heatmaps must be set).
void app_draw(app& a);

}  // namespace attn::ui
