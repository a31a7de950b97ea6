// Heatmap quad (one per heatmap or legend). The platform prepends the #version
// line ("#version 130" natively, "#version 300 es" + precision on the web).
//
// in   a_corner   (0,0) (1,0) (0,1) (1,1): which corner of the quad
// out  v_uv       the same corner, interpolated: (0,0) = top-left = cell (0, 0)
//
// The quad is placed in ImGui's display coordinates (pixels, y down), like
// ImGui's own vertices, and projected with the draw data's display rectangle.
in vec2 a_corner;
out vec2 v_uv;

uniform vec4 u_rect;     // x0, y0, x1, y1 of the quad in display coordinates
uniform vec4 u_display;  // ImDrawData DisplayPos.xy, DisplaySize.xy

void main() {
    vec2 p = mix(u_rect.xy, u_rect.zw, a_corner);
    vec2 ndc = (p - u_display.xy) / u_display.zw * 2.0 - 1.0;
    v_uv = a_corner;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
