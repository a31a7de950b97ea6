// A frame's signature: a 64-bit hash of what it draws. The web page draws a frame
// only when its signature differs from the last drawn one's (main.cpp): an idle
// page (nothing moving, nothing arriving) then costs its ImGui frame and no
// drawing, which in a browser without a GPU (software WebGL) was ~1.6 cores for a
// 1280×720 canvas at 60 frames a second. What it covers: the ImGui draw data
// (vertices, indices, each command's clip rectangle, texture, range and callback,
// the display's position, size and scale), and what the heatmaps' callbacks draw
// (heatmap_gpu::frame_signature); main.cpp adds the framebuffer's size and clear colour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "imgui.h"

namespace attn::platform {

inline std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
    h ^= v * 0x9E3779B97F4A7C15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xBF58476D1CE4E5B9ull;
}

inline std::uint64_t float_bits(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// `bytes` bytes from `p`, eight at a time, then the rest, then their count.
inline std::uint64_t hash_words(std::uint64_t h, const void* p, std::size_t bytes) {
    const auto* c = static_cast<const unsigned char*>(p);
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, c + i, 8);
        h = hash_mix(h, w);
    }
    std::uint64_t rest = 0;
    if (bytes > i)  // an empty list's buffer may be null: no memcpy from it
        std::memcpy(&rest, c + i, bytes - i);
    return hash_mix(hash_mix(h, rest), bytes);
}

// The draw data's signature; a callback command counts by its function, not its
// data (heatmap_gl's point into a per-frame list: their content is its signature's).
inline std::uint64_t draw_data_signature(const ImDrawData* dd) {
    std::uint64_t h = 0;
    for (float v : {dd->DisplayPos.x, dd->DisplayPos.y, dd->DisplaySize.x, dd->DisplaySize.y, dd->FramebufferScale.x,
                    dd->FramebufferScale.y})
        h = hash_mix(h, float_bits(v));
    for (int i = 0; i < dd->CmdListsCount; ++i) {
        const ImDrawList* list = dd->CmdLists[i];
        h = hash_words(h, list->VtxBuffer.Data, std::size_t(list->VtxBuffer.Size) * sizeof(ImDrawVert));
        h = hash_words(h, list->IdxBuffer.Data, std::size_t(list->IdxBuffer.Size) * sizeof(ImDrawIdx));
        for (const ImDrawCmd& cmd : list->CmdBuffer) {
            for (float v : {cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w})
                h = hash_mix(h, float_bits(v));
            h = hash_mix(h, std::uint64_t(reinterpret_cast<std::uintptr_t>(cmd.TextureId)));
            h = hash_mix(h, std::uint64_t(reinterpret_cast<std::uintptr_t>(cmd.UserCallback)));
            h = hash_mix(hash_mix(hash_mix(h, cmd.VtxOffset), cmd.IdxOffset), cmd.ElemCount);
        }
    }
    return h;
}

}  // namespace attn::platform
