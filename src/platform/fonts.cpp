// The UI's font atlas (see fonts.hpp). Two font files, both subset at build
// time with fontTools (CMakeLists.txt):
//   ui-latin.ttf  DejaVu Sans: Latin, Greek, arrows, maths; ~66 KB, always loaded
//                 (preloaded into attn.data on the web) and fully rasterised.
//   ui-cjk.ttf    WenQuanYi Micro Hei: GB2312 symbols + level-1 hanzi, CJK
//                 punctuation, fullwidth forms; ~760 KB, loaded only once a
//                 character outside the Latin font is required, and merged into
//                 the UI font for exactly the characters in use, so the atlas
//                 stays small and a rebuild happens only when a new one appears.
#include "fonts.hpp"

#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bridge.hpp"
#include "imgui.h"
#include "imgui_impl_opengl3.h"
#include "imgui_internal.h"  // ImTextCharFromUtf8: decode exactly as ImGui will draw
#include "look/glyphs.hpp"

#ifndef ATTN_ASSET_DIR
#define ATTN_ASSET_DIR "assets"
#endif

namespace attn::platform {
namespace {

constexpr float ui_font_points = 15.0f;  // pixels = points × device pixel ratio
constexpr float builtin_font_points = 13.0f;
constexpr const char* latin_file = "ui-latin.ttf";
// The two characters of the language switch, "中文", from the Chinese font:
// ~2 KB, always loaded, so an English page never needs the whole Chinese font.
constexpr const char* label_file = "ui-label.ttf";
constexpr ImWchar label_ranges[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};
constexpr const char* cjk_file = "ui-cjk.ttf";

// What the Latin subset holds (keep in step with its --unicodes in CMakeLists.txt).
constexpr ImWchar latin_ranges[] = {0x0020, 0x00FF, 0x0391, 0x03C9, 0x1D00, 0x1DBF, 0x2000, 0x206F, 0x2070, 0x209F,
                                    0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0x270E, 0x270E, 0};

bool latin_covers(unsigned c) {
    for (const ImWchar* r = latin_ranges; r[0]; r += 2)
        if (c >= r[0] && c <= r[1])
            return true;
    return false;
}

enum class cjk_status { unused, loading, ready, missing };

struct fonts_state {
    std::vector<unsigned char> latin;  // empty: ImGui's built-in font stands in
    std::vector<unsigned char> label;  // "中文" for the language switch (may be empty)
    std::unique_ptr<unsigned char, void (*)(void*)> cjk{nullptr, std::free};
    std::size_t cjk_size = 0;
    cjk_status cjk_state = cjk_status::unused;
    std::bitset<0x10000> wanted;   // code points outside the Latin font some text needs (ImWchar is 16-bit)
    std::size_t wanted_count = 0;  // wanted.count(), kept up to date
    std::size_t built_count = 0;   // how many of them the atlas holds (0 without the Chinese font)
    float built_ratio = 0.0f;      // 0: no atlas built yet
    ImVector<ImWchar> cjk_ranges;  // the atlas's Chinese config points here until the next rebuild
};

fonts_state& state() {
    static fonts_state s;  // outlives the ImGui context; frees its bytes at exit
    return s;
}

std::string asset_path(const char* file) {
#ifndef __EMSCRIPTEN__
    // Lets tests (and packagers) point the native app at another asset folder.
    if (const char* dir = std::getenv("ATTN_ASSET_DIR"); dir && *dir)
        return std::string(dir) + "/" + file;
#endif
    return std::string(ATTN_ASSET_DIR) + "/" + file;
}

// Reads a whole file into a malloc'd buffer (nullptr if it cannot).
unsigned char* file_read(const std::string& path, std::size_t& size) {
    size = 0;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return nullptr;
    unsigned char* bytes = nullptr;
    if (std::fseek(f, 0, SEEK_END) == 0) {
        const long n = std::ftell(f);
        if (n > 0 && std::fseek(f, 0, SEEK_SET) == 0) {
            bytes = static_cast<unsigned char*>(std::malloc(std::size_t(n)));
            if (bytes && std::fread(bytes, 1, std::size_t(n), f) == std::size_t(n)) {
                size = std::size_t(n);
            } else {
                std::free(bytes);
                bytes = nullptr;
            }
        }
    }
    std::fclose(f);
    return bytes;
}

// stb_truetype trusts its input (a bad file is an assertion or a crash), so
// check what it will read: an sfnt header whose table records stay inside the
// file and name the tables it needs.
bool sfnt_is_usable(const unsigned char* b, std::size_t size) {
    auto u16 = [b](std::size_t at) { return unsigned(b[at]) << 8 | unsigned(b[at + 1]); };
    auto u32 = [b](std::size_t at) {
        return unsigned(b[at]) << 24 | unsigned(b[at + 1]) << 16 | unsigned(b[at + 2]) << 8 | b[at + 3];
    };
    if (!b || size < 12)
        return false;
    const unsigned version = u32(0);
    if (version != 0x00010000u && version != 0x74727565u /* 'true' */)
        return false;
    const std::size_t tables = u16(4);
    if (size < 12 + 16 * tables)
        return false;
    int found = 0;
    for (std::size_t i = 0; i < tables; ++i) {
        const std::size_t rec = 12 + 16 * i;
        const std::size_t offset = u32(rec + 8), length = u32(rec + 12);
        if (offset > size || length > size - offset)
            return false;
        for (const char* tag : {"cmap", "head", "hhea", "hmtx", "loca", "glyf", "maxp"})
            if (std::memcmp(b + rec, tag, 4) == 0)
                ++found;
    }
    return found == 7;
}

void cjk_start_loading() {
    fonts_state& s = state();
    s.cjk_state = cjk_status::loading;
    if (bridge_fetch_font(cjk_file))
        return;  // the page answers later through fonts_receive
    std::size_t size = 0;
    unsigned char* bytes = file_read(asset_path(cjk_file), size);
    fonts_receive(cjk_file, bytes, size);
}

void atlas_build(float pixel_ratio) {
    fonts_state& s = state();
    ImGuiIO& io = ImGui::GetIO();
    // Before the first frame the backend has no texture yet and makes one itself.
    const bool had_texture = io.Fonts->TexID != ImTextureID();
    io.Fonts->Clear();

    // FontDataOwnedByAtlas = false: the atlas never frees our bytes (ImGui 1.90.1
    // copies them and frees its copy on the next Clear()); ours live until exit.
    ImFontConfig latin_cfg;
    latin_cfg.OversampleH = 2;
    latin_cfg.FontDataOwnedByAtlas = false;
    if (!s.latin.empty()) {
        io.Fonts->AddFontFromMemoryTTF(s.latin.data(), int(s.latin.size()), ui_font_points * pixel_ratio, &latin_cfg,
                                       latin_ranges);
    } else {
        ImFontConfig builtin;
        builtin.SizePixels = builtin_font_points * pixel_ratio;
        io.Fonts->AddFontDefault(&builtin);
    }
    if (!s.label.empty()) {
        ImFontConfig label_cfg;
        label_cfg.MergeMode = true;
        label_cfg.FontDataOwnedByAtlas = false;
        io.Fonts->AddFontFromMemoryTTF(s.label.data(), int(s.label.size()), ui_font_points * pixel_ratio, &label_cfg,
                                       label_ranges);
    }

    s.built_count = 0;
    if (s.cjk_state == cjk_status::ready && s.wanted_count > 0) {
        ImFontGlyphRangesBuilder wanted;
        for (std::size_t c = 0; c < s.wanted.size(); ++c)
            if (s.wanted[c])
                wanted.AddChar(ImWchar(c));
        s.cjk_ranges.clear();
        wanted.BuildRanges(&s.cjk_ranges);
        ImFontConfig cjk_cfg;
        cjk_cfg.MergeMode = true;  // one UI font: Latin first, Chinese for what it lacks
        cjk_cfg.OversampleH = 1;   // dense glyphs gain little from it and would double the atlas
        cjk_cfg.FontDataOwnedByAtlas = false;
        io.Fonts->AddFontFromMemoryTTF(s.cjk.get(), int(s.cjk_size), ui_font_points * pixel_ratio, &cjk_cfg, s.cjk_ranges.Data);
        s.built_count = s.wanted_count;
    }
    io.Fonts->Build();
    if (had_texture) {
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    s.built_ratio = pixel_ratio;
}

}  // namespace

void fonts_init() {
    fonts_state& s = state();
    const std::string path = asset_path(latin_file);
    std::size_t size = 0;
    unsigned char* bytes = file_read(path, size);
    if (sfnt_is_usable(bytes, size)) {
        s.latin.assign(bytes, bytes + size);
    } else {
        std::fprintf(stderr, "attn_app: font '%s' not found; using the built-in font\n", path.c_str());
    }
    std::free(bytes);
    bytes = file_read(asset_path(label_file), size);
    if (sfnt_is_usable(bytes, size))
        s.label.assign(bytes, bytes + size);
    std::free(bytes);
    ui::glyphs_set_provider(&fonts_require_text);
}

void fonts_require_text(std::string_view utf8) {
    fonts_state& s = state();
    const char* p = utf8.data();
    const char* end = p + utf8.size();
    while (p < end) {
        if (static_cast<unsigned char>(*p) < 0x80) {  // ASCII: the Latin font has it (or it is not drawn)
            ++p;
            continue;
        }
        unsigned c = 0;
        const int n = ImTextCharFromUtf8(&c, p, end);
        p += n > 0 ? n : 1;
        // U+FFFD: bad UTF-8 or beyond ImGui's 16-bit ImWchar; no font here has it.
        // "中文" comes with the language switch's own small font: no reason to fetch the Chinese one.
        const bool label_covers = !s.label.empty() && (c == label_ranges[0] || c == label_ranges[2]);
        if (c == IM_UNICODE_CODEPOINT_INVALID || c >= s.wanted.size() || latin_covers(c) || label_covers || s.wanted[c])
            continue;
        s.wanted[c] = true;
        ++s.wanted_count;
    }
}

bool fonts_update_before_frame(float pixel_ratio) {
    fonts_state& s = state();
    if (s.wanted_count > 0 && s.cjk_state == cjk_status::unused)
        cjk_start_loading();
    const bool new_glyphs = s.cjk_state == cjk_status::ready && s.built_count != s.wanted_count;
    if (pixel_ratio == s.built_ratio && !new_glyphs)
        return false;
    atlas_build(pixel_ratio);
    return true;
}

void fonts_receive(std::string_view file_name, unsigned char* bytes, std::size_t size) {
    fonts_state& s = state();
    if (file_name != cjk_file || s.cjk_state == cjk_status::ready) {
        std::free(bytes);
        return;
    }
    if (!sfnt_is_usable(bytes, size)) {
        std::fprintf(stderr, "attn_app: font '%s' %s; characters the Latin UI font lacks (Chinese) show as '?'\n",
                     asset_path(cjk_file).c_str(), bytes ? "is not a usable TrueType font" : "could not be loaded");
        std::free(bytes);
        s.cjk_state = cjk_status::missing;
        return;
    }
    s.cjk.reset(bytes);
    s.cjk_size = size;
    s.cjk_state = cjk_status::ready;  // the next fonts_update_before_frame merges it in
}

}  // namespace attn::platform
