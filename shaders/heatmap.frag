// Colour-maps a matrix held in an RG32F texture (R = value, G = class code),
// or draws the legend's gradient bar. The CPU classifies every cell at upload
// (GLSL isnan/isinf may be optimised away), so this shader never tests for NaN.
//
// Class codes (heatmap_data.hpp, heatmap_cell): 0 finite, 1 NaN, 2 +inf,
// 3 -inf, 4 masked. Keep the colours in step with heatmap_data.cpp, the CPU twin
// the fallback renderer and the cell text use.
in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_tex;
uniform int u_mode;        // 0: matrix, 1: legend (gradient over v_uv.x, no texture)
uniform int u_map;         // 0: sequential (viridis), 1: diverging (blue - white - red)
uniform vec2 u_range;      // lo, hi: the values mapped to the ends of the colour map
uniform vec2 u_cells;      // cols, rows
uniform float u_cell_px;   // framebuffer pixels per cell
uniform vec3 u_gap;        // colour of the 1-pixel gap between cells of 12 pixels or more
uniform int u_markers;     // 1: dots in ±inf cells (0 when numbers are printed over the cells)

// Viridis, as the degree-6 polynomial fit by Matt Zucker (max error < 1/255).
vec3 map_sequential(float t) {
    const vec3 c0 = vec3(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
    const vec3 c1 = vec3(0.1050930431085774, 1.404613529898575, 1.384590162594685);
    const vec3 c2 = vec3(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
    const vec3 c3 = vec3(-4.634230498983486, -5.799100973351585, -19.33244095627987);
    const vec3 c4 = vec3(6.228269936347081, 14.17993336680509, 56.69055260068105);
    const vec3 c5 = vec3(4.776384997670288, -13.74514537774601, -65.35303263337234);
    const vec3 c6 = vec3(-5.435455855934631, 4.645852612178535, 26.3124352495832);
    return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

// ColorBrewer RdBu (reversed): dark blue for the most negative, near-white at
// zero, dark red for the most positive; piecewise linear over 9 stops, written
// as a sum of clamped ramps (no arrays, no branches: software rasterisers such
// as SwiftShader and llvmpipe run it several times faster than an indexed table).
vec3 map_diverging(float t) {
    float x = clamp(t, 0.0, 1.0) * 8.0;
    vec3 c = vec3(0.129, 0.400, 0.675);
    c += (vec3(0.263, 0.576, 0.765) - vec3(0.129, 0.400, 0.675)) * clamp(x, 0.0, 1.0);
    c += (vec3(0.573, 0.773, 0.871) - vec3(0.263, 0.576, 0.765)) * clamp(x - 1.0, 0.0, 1.0);
    c += (vec3(0.820, 0.898, 0.941) - vec3(0.573, 0.773, 0.871)) * clamp(x - 2.0, 0.0, 1.0);
    c += (vec3(0.969, 0.969, 0.969) - vec3(0.820, 0.898, 0.941)) * clamp(x - 3.0, 0.0, 1.0);
    c += (vec3(0.992, 0.859, 0.780) - vec3(0.969, 0.969, 0.969)) * clamp(x - 4.0, 0.0, 1.0);
    c += (vec3(0.957, 0.647, 0.510) - vec3(0.992, 0.859, 0.780)) * clamp(x - 5.0, 0.0, 1.0);
    c += (vec3(0.839, 0.376, 0.302) - vec3(0.957, 0.647, 0.510)) * clamp(x - 6.0, 0.0, 1.0);
    c += (vec3(0.698, 0.094, 0.169) - vec3(0.839, 0.376, 0.302)) * clamp(x - 7.0, 0.0, 1.0);
    return c;
}

vec3 map_value(float v) {
    float span = u_range.y - u_range.x;
    float t = span > 0.0 ? (v - u_range.x) / span : 0.5;
    t = clamp(t, 0.0, 1.0);
    return u_map == 1 ? map_diverging(t) : map_sequential(t);
}

void main() {
    if (u_mode == 1) {
        float t = clamp(v_uv.x, 0.0, 1.0);
        frag_color = vec4(u_map == 1 ? map_diverging(t) : map_sequential(t), 1.0);
        return;
    }
    vec4 texel = texture(u_tex, v_uv);
    int cls = int(texel.g + 0.5);
    vec2 cell = v_uv * u_cells;                    // continuous cell coordinates
    vec2 in_cell = (cell - floor(cell)) * u_cell_px;  // pixels from the cell's top-left corner
    float marker = length(in_cell - vec2(0.5 * u_cell_px)) / u_cell_px;  // distance to the centre, in cells
    bool big = u_cell_px >= 7.0;
    bool dot = big && u_markers == 1 && marker < 0.2;

    vec3 c;
    if (cls == 0) {
        c = map_value(texel.r);
    } else if (cls == 1) {  // NaN: magenta
        c = vec3(1.0, 0.0, 1.0);
    } else if (cls == 2) {  // +inf: white-hot with an orange dot
        c = dot ? vec3(1.0, 0.45, 0.0) : vec3(1.0, 0.98, 0.82);
    } else if (cls == 3) {  // -inf: black with a white dot
        c = dot ? vec3(0.85) : vec3(0.0);
    } else {  // masked: grey diagonal hatching in screen space
        float stripe = mod(gl_FragCoord.x + gl_FragCoord.y, 8.0);
        c = stripe < 3.0 ? vec3(0.50) : vec3(0.32);
    }
    if (u_cell_px >= 12.0 && (in_cell.x >= u_cell_px - 1.0 || in_cell.y >= u_cell_px - 1.0))
        c = u_gap;
    frag_color = vec4(c, 1.0);
}
