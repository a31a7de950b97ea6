#include "look/i18n.hpp"

namespace attn::ui {

namespace {
language current = language::en;
}

language ui_language() { return current; }
void ui_set_language(language l) { current = l; }

nonfinite_words nonfinite_spelled() { return {"NaN", tr("+infinity", "+无穷"), tr("−infinity", "−无穷")}; }

std::string head_score_sentence(const head_score_row& kind, const char* end) {
    std::string s = std::string(tr(kind.name)) + tr(" score: ", "得分：") + tr(kind.help) + end;
    if (s[0] >= 'a' && s[0] <= 'z')
        s[0] = char(s[0] - 'a' + 'A');
    return s;
}

std::string head_score_legend(std::span<const head_score> kinds) {
    std::string s;
    for (const head_score k : kinds) {
        if (!s.empty())
            s += " · ";
        s += std::string(head_score_of(k).abbr) + tr(": ", "：") + tr(head_score_of(k).help);
    }
    return s;
}

}  // namespace attn::ui
