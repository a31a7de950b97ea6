// How the heatmap widget gets a matrix drawn by the GPU without naming GL: the
// platform implements heatmap_gpu (src/platform/heatmap_gl.cpp) and installs it
// in its heatmap_context (heatmap.hpp) with set_gpu; the widget uploads a matrix when its data changes and
// queues one textured quad per frame into an ImDrawList. Without a gpu (unit
// tests, or before the platform set one up) the widget draws rectangles.
#pragma once

#include <cstdint>

#include "imgui.h"
#include "maps/heatmap_data.hpp"

namespace attn::ui {

// Everything the shader needs besides the texture.
struct heatmap_gpu_style {
    colormap map = colormap::sequential;
    heatmap_range range;     // values at the ends of the colour map
    float cell_px = 0.0f;    // cell edge in ImGui display units (the renderer scales to framebuffer pixels)
    ImVec4 gap{0, 0, 0, 1};  // colour of the 1-pixel line between large cells
    bool markers = true;     // dots in ±inf cells (off when numbers are printed over them)
};

class heatmap_gpu {
  public:
    virtual ~heatmap_gpu() = default;

    // Makes texture `key` hold rows·cols (value, class) pairs (heatmap_texels_fill),
    // replacing what it held. Called only when the data changed.
    virtual void upload(std::uint64_t key, int rows, int cols, const float* texels) = 0;

    // Queues the matrix of texture `key` into the rectangle [p0, p1] (display
    // coordinates, cell (0, 0) at p0), clipped to dl's current clip rectangle.
    // Returns false when there is no such texture (nothing queued).
    virtual bool draw(ImDrawList* dl, std::uint64_t key, ImVec2 p0, ImVec2 p1, const heatmap_gpu_style& style) = 0;

    // Queues the legend's gradient bar: the colour map from left (range.lo) to right (range.hi).
    virtual void draw_legend(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const heatmap_gpu_style& style) = 0;

    // Frees texture `key` (a no-op when there is none).
    virtual void forget(std::uint64_t key) = 0;

    // What this frame's queued quads draw, with every texture as uploaded: a frame
    // whose ImGui draw data and signature equal the last drawn one's draws the same
    // pixels, and the web page leaves it undrawn (src/platform/main.cpp).
    virtual std::uint64_t frame_signature() const = 0;
};

}  // namespace attn::ui
