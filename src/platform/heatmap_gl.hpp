// The heatmap widget's GPU renderer for OpenGL 3.0 (native) and WebGL2 / GL ES 3
// (ATTN_GL_ES): one RG32F texture per heatmap (value, class code), sampled with
// GL_NEAREST and colour-mapped by shaders/heatmap.frag, drawn as one quad from an
// ImDrawList callback followed by ImDrawCallback_ResetRenderState.
//
//   ImGui_ImplOpenGL3_Init(...);
//   static auto gpu = attn::platform::heatmap_gl_create();   // needs the GL context
//   static attn::ui::heatmap_context heatmaps;                // what the app's heatmaps draw with
//   heatmaps.set_gpu(gpu.get());
//   ...
//   heatmaps.set_gpu(nullptr); gpu.reset();                   // before ImGui_ImplOpenGL3_Shutdown
#pragma once

#include <memory>

#include "maps/heatmap_gpu.hpp"

namespace attn::platform {

// The renderer for the current GL context, or nullptr (with the reason on
// stderr) when its shaders do not compile; the widget then draws rectangles.
std::unique_ptr<ui::heatmap_gpu> heatmap_gl_create();

}  // namespace attn::platform
