#include "look/i18n.hpp"

namespace attn::ui {

namespace {
language current = language::en;
}

language ui_language() { return current; }
void ui_set_language(language l) { current = l; }

nonfinite_words nonfinite_spelled() { return {"NaN", tr("+infinity", "+无穷"), tr("−infinity", "−无穷")}; }

}  // namespace attn::ui
