// The GLSL sources in shaders/, embedded at build time (cmake/embed_shaders.cmake
// writes their definitions). They have no #version line: the renderer prepends
// the dialect's ("#version 130" for OpenGL 3.0, "#version 300 es" for WebGL2).
#pragma once

namespace attn::platform {

extern const char* const shader_heatmap_vert;
extern const char* const shader_heatmap_frag;

}  // namespace attn::platform
