// L6, the code.
#include "lessons/lesson_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include "base/measure.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "model/tiled.hpp"
#include "panels/panels.hpp"
#include "play/lesson_preset.hpp"
#include "spec/keys.hpp"
#include "view/app.hpp"

namespace attn::ui {

using namespace lesson_parts;

void view_code(const app& a, frame_out& out) {
    text_plain(out, tr("The code panel on the right follows you: each stage lights the lines that compute it.",
                       "右边的代码面板会跟着你：每个阶段都会点亮计算它的那几行。"));
    number(out, "code_lines", double(numpy_code_lines().size()));
    const auto [lo, hi] = stage_code_lines(a.view.current);
    number(out, "lit_from", lo);
    number(out, "lit_to", hi);
}

// L6's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_06{view_code, nullptr};

}  // namespace attn::ui
