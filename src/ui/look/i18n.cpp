#include "look/i18n.hpp"

namespace attn::ui {

namespace {
language current = language::en;
}

language ui_language() { return current; }
void ui_set_language(language l) { current = l; }

}  // namespace attn::ui
