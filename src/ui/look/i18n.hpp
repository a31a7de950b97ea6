// The interface language. Every string the UI shows is written once in both
// languages at the place it is used, tr("Heads", "头数"), or in the row of a
// core table that every view reads: tr(key_of("heads").help).
#pragma once

#include <span>
#include <string>

#include "base/text_util.hpp"
#include "look/glyphs.hpp"
#include "train/head_score.hpp"

namespace attn::ui {

// The core's (base/text_util.hpp): its tables hold their words in both.
using language = text_language;

language ui_language();
void ui_set_language(language l);

// The string for the current language, announced to the font loader, which
// adds the glyphs it lacks to the atlas the first time they appear: Chinese
// strings, and English ones that quote Chinese (L4's "猫追狗").
inline const char* tr(const char* en, const char* zh) {
    const char* s = ui_language() == language::zh ? zh : en;
    glyphs_require(s);
    return s;
}
// A row's words of a core table (bilingual: spec/keys' help, the head scores').
inline const char* tr(const bilingual& words) { return tr(words.en, words.zh); }

// NaN and ±∞ spelled out in the current language ("+infinity", "+无穷"), as the
// text view writes them for a screen reader (number_text's words).
nonfinite_words nonfinite_spelled();

// A head score's row (train/head_score.hpp) in the current language: "Induction
// score: the mean weight …" and then `end` (the Train panel's tooltips); and what
// the abbreviations of `kinds` stand for, "prev: the mean weight … · sink: …"
// (the Model window's legend, the text view's caption of its table).
std::string head_score_sentence(const head_score_row& kind, const char* end);
std::string head_score_legend(std::span<const head_score> kinds);

}  // namespace attn::ui
