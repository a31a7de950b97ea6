// 8-bit RGB pixels as a PNG file or bytes (stored, uncompressed deflate: no zlib).
#pragma once

#include <string>
#include <vector>

namespace attn::platform {

// rgb holds height rows of width * 3 bytes, top row first. Returns false and
// leaves no partial file behind if the file cannot be written.
// The PNG file's bytes, or an empty vector when the sizes do not match.
std::vector<unsigned char> png_encode_rgb(int width, int height, const std::vector<unsigned char>& rgb);

bool png_write_rgb(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb);

}  // namespace attn::platform
