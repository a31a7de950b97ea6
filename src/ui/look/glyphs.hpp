// How the UI tells the platform which text it is about to draw, so that the
// font atlas holds those glyphs. The Latin UI font is always there; Chinese
// glyphs come from a font the platform loads only when some text needs it.
//
//   glyphs_require(a.exp.text);           // any string the frame will show
//   glyphs_require(tr("Heads", "头数"));   // or each translated UI string
//
// Call it every frame or on change: it is cheap when nothing is new (a bitset
// lookup per non-ASCII character). New characters appear on screen from the
// next frame on; until the font is there they draw as '?'. The platform
// installs the provider at start-up (src/platform/fonts.cpp); without one
// (tests, tools) the call does nothing, so this layer needs no GL or browser.
#pragma once

#include <string_view>

namespace attn::ui {

using glyphs_provider = void (*)(std::string_view utf8);

inline glyphs_provider g_glyphs_provider = nullptr;

inline void glyphs_set_provider(glyphs_provider p) { g_glyphs_provider = p; }

inline void glyphs_require(std::string_view utf8) {
    if (g_glyphs_provider)
        g_glyphs_provider(utf8);
}

}  // namespace attn::ui
