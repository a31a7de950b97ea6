// The UI's font atlas: the Latin UI font (always loaded), merged with a Chinese
// font that is loaded only once some text needs it, and rasterised only for the
// characters in use. The frame loop calls, in this order:
//
//   fonts_init();                                  // once, after ImGui_ImplOpenGL3_Init
//   fonts_require_text(app.exp.text);              // each frame, any text to be drawn
//   fonts_update_before_frame(pixel_ratio);        // each frame, before ImGui::NewFrame
//
// The UI reaches fonts_require_text through ui::glyphs_require (src/ui/look/glyphs.hpp),
// which fonts_init connects. Natively the Chinese font is read from the asset
// folder; on the web the page fetches it (bridge_fetch_font) and hands the bytes
// to fonts_receive. When it is missing, a message goes to stderr (the console on
// the web) and those characters draw as '?'.
#pragma once

#include <cstddef>
#include <string_view>

namespace attn::platform {

// Reads the Latin UI font and connects ui::glyphs_require. Builds nothing yet:
// the first fonts_update_before_frame builds the atlas at the display's scale.
void fonts_init();

// Notes every character of utf8 the Latin font lacks. Cheap when nothing is new;
// the first such character starts loading the Chinese font.
void fonts_require_text(std::string_view utf8);

// Builds the atlas (and the GL font texture) when the pixel ratio changed or new
// characters can be drawn; call before ImGui::NewFrame. Returns true if it rebuilt.
bool fonts_update_before_frame(float pixel_ratio);

// Takes a font file's bytes: `bytes` was allocated with malloc and is owned by the
// fonts from now on. nullptr (or bytes that are not a TrueType font) means the
// file could not be loaded. Called by the bridge when the page's fetch ends.
void fonts_receive(std::string_view file_name, unsigned char* bytes, std::size_t size);

}  // namespace attn::platform
