// The interface language. Every string the UI shows is written once in both
// languages at the place it is used: tr("Heads", "头数").
#pragma once

#include "glyphs.hpp"

namespace attn::ui {

enum class language { en, zh };

language ui_language();
void ui_set_language(language l);

// The string for the current language. Chinese strings are announced to the
// font loader, which adds their glyphs to the atlas the first time they appear.
inline const char* tr(const char* en, const char* zh) {
    if (ui_language() != language::zh)
        return en;
    glyphs_require(zh);
    return zh;
}

}  // namespace attn::ui
