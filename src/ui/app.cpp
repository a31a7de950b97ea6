// [SECTION] state and history
// [SECTION] layout
#include "app.hpp"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "i18n.hpp"
#include "imgui.h"
#include "imgui_internal.h"  // GetFocusID: the widget keyboard navigation is on; a window's visible rectangle
#include "panels.hpp"
#include "play/lesson_preset.hpp"

namespace attn::ui {

// [SECTION] state and history

namespace {

// Whether c still names a cell of the shown stage in the (new) trace.
bool cell_exists(const app& a, const cell_ref& c) {
    if (!c.valid() || c.at != a.current || c.head >= (stage_per_head(c.at) ? a.model.exp.heads : 1))
        return false;
    const auto mats = stage_matrices(c.at, a.model.tr, a.layer, c.head);
    return c.matrix < int(mats.size()) && c.row < mats[std::size_t(c.matrix)].m->rows &&
           c.col < mats[std::size_t(c.matrix)].m->cols;
}

}  // namespace

void app_sync(app& a) {
    if (!session_update(a.model))
        return;
    // The view stays inside the new trace.
    const int n = int(a.model.tr.tokens.size());
    a.sel_row = std::clamp(a.sel_row, 0, n - 1);
    a.layer = std::clamp(a.layer, 0, a.model.exp.layers - 1);
    if (!stage_applies(a.current, a.model.exp))
        a.current = stage::output;
    // The selected cell stays where it still exists: a press on a map (a masked
    // edge, by click or by Enter) leaves the keyboard's cell where it was.
    if (!cell_exists(a, a.selected))
        a.selected = cell_ref{};
    a.hovered = cell_ref{};
}

void app_init(app& a, const experiment& e) {
    change c = change::set(e);
    c.record = false;
    app_change(a, c);  // a rejected e leaves the default experiment, and its errors on the banner
    app_sync(a);
}

namespace {

// What an accepted link asks to show: its lesson (from 1; its stage and last row
// unless the link names them), stage, row and options. `lesson_only`: a lesson
// button, which keeps the options of the link the page opened with.
void show_link_view(app& a, const link_view& v, bool lesson_only) {
    const int lesson = v.lesson > 0 ? v.lesson - 1 : -1;  // links count lessons from 1 (L1), the app from 0
    a.lesson.index = lesson;
    a.lesson.numbers.clear();
    if (lesson >= 0) {
        // The keyboard goes on to the lesson's card: its first control (previous,
        // or next in the first lesson), from which Tab walks the lesson's own.
        a.focus_request = {"lesson_previous", "lesson_next"};
        a.current = lesson_preset_find(v.lesson)->opens_on;
        a.lesson.tile_step = 0;
        a.lesson.decode_t = std::max(1, a.model.exp.decode);
    }
    if (v.stage >= 0)
        a.current = stage(v.stage);
    const int n = int(tokenize(a.model.exp.text).size());
    a.sel_row = std::clamp(v.row >= 0 ? v.row : lesson >= 0 ? n - 1 : a.sel_row, 0, std::max(0, n - 1));
    if (!lesson_only) {
        a.options = v;
        a.options.lesson = a.options.stage = a.options.row = -1;
    }
}

}  // namespace

bool app_change(app& a, const change& c, link_scope scope) {
    a.pending.reset();  // a change made directly (a link, the page's API) supersedes a queued one
    if (a.pending_announced)
        a.notice.clear();
    a.pending_announced = false;
    change scoped = c;
    scoped.keep_pin = scope != link_scope::everything;  // a lesson's or a host's link changes B, not A
    scoped.resume = scope == link_scope::lesson;        // a lesson's recipe opens where its kept run is
    change_result r = session_apply(a.model, scoped);
    if (!r.accepted) {
        if (!r.errors.empty()) {
            a.errors = std::move(r.errors);
            a.errors_from_link = c.what == change::kind::link && scope == link_scope::everything;
        }
        return false;
    }
    a.errors.clear();
    a.errors_from_link = false;
    a.text_edit = a.model.exp.text;
    if (r.view && scope != link_scope::experiment)
        show_link_view(a, *r.view, scope == link_scope::lesson);
    a.experiment_changed = true;
    return true;
}

void app_request(app& a, change c, link_scope scope) {
    if (a.options.readonly)
        return;  // a read-only link: controls are drawn disabled, and this catches the rest
    a.pending = std::move(c);
    a.pending_scope = scope;
}

bool app_set_experiment(app& a, const experiment& e, bool history) {
    change c = change::set(e);
    c.record = history;
    return app_change(a, c);
}

bool app_open_link(app& a, std::string_view link, bool history) {
    return app_change(a, change::open(std::string(link), history));
}

link_view app_view(const app& a) {
    link_view v = a.options;
    const int index = a.lesson.index;
    const bool in_lesson = index >= 0 && index < int(lessons().size());
    v.lesson = in_lesson ? index + 1 : -1;  // L1 is view.lesson=1
    const stage opens_on = in_lesson ? lesson_preset_find(index + 1)->opens_on : stage_default;
    const int default_row = in_lesson ? int(tokenize(a.model.exp.text).size()) - 1 : 0;
    v.stage = a.current != opens_on ? int(a.current) : -1;
    v.row = a.sel_row != default_row ? a.sel_row : -1;
    return v;
}

std::string app_link(const app& a) { return link_encode(a.model.exp, app_view(a), a.model.pin); }

void request_experiment(frame_out& out, experiment next) {
    out.request = change::set(std::move(next), ImGui::GetCurrentContext() ? ImGui::GetTime() : -1.0);
    out.scope = link_scope::everything;
}

namespace {

// A notice is worded when it is posted ("Embed code copied."): after a switch it
// would stay in the other language, so it goes with the switch.
void app_toggle_language(app& a) {
    ui_set_language(ui_language() == language::en ? language::zh : language::en);
    a.notice.clear();
    a.pending_announced = false;
}

}  // namespace

void frame_apply(app& a, frame_out& out) {
    if (out.request)
        app_request(a, std::move(*out.request), out.scope);
    if (out.show)
        a.current = *out.show;
    if (out.layer)
        a.layer = *out.layer;
    if (out.row)
        a.sel_row = *out.row;
    if (out.select)
        a.selected = *out.select;
    if (out.hover)
        a.hovered = *out.hover;
    if (out.typed)
        a.text_edit = std::move(*out.typed);
    if (out.lesson)
        static_cast<lesson_view&>(a.lesson) = *out.lesson;
    if (out.numbers)
        a.lesson.numbers = std::move(*out.numbers);
    if (out.layout_hidden)
        a.layout_hidden = *out.layout_hidden;
    if (out.theme)
        a.theme_choice = *out.theme;
    if (out.per_map_scale)
        a.per_map_scale = *out.per_map_scale;
    if (out.compare_shown)
        a.compare_shown = *out.compare_shown;
    if (out.toggle_help)
        a.show_help = !a.show_help;
    if (out.toggle_language)
        app_toggle_language(a);
    if (out.dismiss_start)
        a.show_start = false;
    if (out.advanced_open)
        a.advanced_open = *out.advanced_open;
    if (out.dismiss_banner) {
        a.errors.clear();
        a.notice.clear();
    }
    a.requests.insert(a.requests.end(), out.share.begin(), out.share.end());
    a.widgets.insert(a.widgets.end(), std::make_move_iterator(out.widgets.begin()), std::make_move_iterator(out.widgets.end()));
    a.maps.insert(a.maps.end(), std::make_move_iterator(out.maps.begin()), std::make_move_iterator(out.maps.end()));
    a.clipped.insert(a.clipped.end(), std::make_move_iterator(out.clipped.begin()), std::make_move_iterator(out.clipped.end()));
    if (!out.keyboard_focus.empty())
        a.keyboard_focus = std::move(out.keyboard_focus);
    if (out.focus_taken)
        a.focus_request.clear();
    out = frame_out{};
}

namespace {

// The change requested in the last frame, before anything reads the trace.
void apply_pending(app& a) {
    if (!a.pending)
        return;
    if (a.pending->what == change::kind::set) {
        const std::size_t cost = experiment_peak_bytes(a.pending->next);
        if (cost >= slow_recompute_bytes && !a.pending_announced) {  // this frame shows the note; the next computes
            a.pending_announced = true;
            a.notice =
                std::string(tr("Computing a large experiment", "正在计算大型实验")) + " (" + std::to_string(cost >> 20) + " MB)…";
            return;
        }
    }
    const change c = std::move(*a.pending);
    a.pending.reset();
    const std::string typed = a.text_edit;
    const bool ok = app_change(a, c, a.pending_scope);
    if (c.what == change::kind::set && (!ok || c.next.text != a.model.exp.text))
        a.text_edit = typed;  // keep what is being typed, valid or not
}

}  // namespace

namespace {

// The keyboard's focus moves to the item just drawn (SetFocusID: without
// pressing it, as Tab does), shown when navigating by keyboard.
void focus_take(frame_out& out, const char* name) {
    if (!out.focus_request || out.focus_taken || ImGui::GetItemID() == 0 || (ImGui::GetItemFlags() & ImGuiItemFlags_Disabled))
        return;
    const auto& names = *out.focus_request;
    if (std::find(names.begin(), names.end(), name) == names.end())
        return;
    ImGui::SetFocusID(ImGui::GetItemID(), ImGui::GetCurrentWindow());
    ImGuiContext& g = *ImGui::GetCurrentContext();
    // A window appearing this frame (the page's first) asked ImGui to put the
    // focus on its first item at the next; that request would undo this one.
    g.NavInitRequest = false;
    g.NavInitResult.ID = 0;
    g.NavDisableHighlight = !(g.IO.ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard);
    g.NavDisableMouseHover = !g.NavDisableHighlight;
    if (!g.NavDisableHighlight)
        ImGui::ScrollToItem(ImGuiScrollFlags_KeepVisibleEdgeY);
    out.focus_taken = true;
}

// The widget the keyboard is on (keyboard navigation, Tab), by the name tests know it by.
void note_keyboard_focus(frame_out& out, const char* name) {
    focus_take(out, name);
    const ImGuiID id = ImGui::GetItemID();
    if ((ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) && id != 0 && id == ImGui::GetFocusID())
        out.keyboard_focus = name;
}

// Whether an item's rectangle r is cut by window w. Sideways: an item partly
// inside and partly outside the window's clip rectangle is cut, scrollbar or
// not (a line of text should not need scrolling to be read to its end); one
// wholly outside is cut only when the window cannot scroll sideways to it. Up
// and down: an item partly or wholly outside what is seen is cut only in a
// window that cannot scroll to it (no vertical scrollbar); one scrolled out of
// view is not. Half a pixel of slack for rounding.
bool item_cut(const ImGuiWindow& w, const ImRect& r) {
    if (r.GetWidth() <= 0 || r.GetHeight() <= 0)
        return false;
    const ImRect& clip = w.ClipRect;
    const float slack = 0.5f;
    const bool sideways = r.Min.x < clip.Min.x - slack || r.Max.x > clip.Max.x + slack;
    const bool vertical = r.Min.y < clip.Min.y - slack || r.Max.y > clip.Max.y + slack;
    const bool inside_x = r.Max.x > clip.Min.x && r.Min.x < clip.Max.x;
    if (sideways && (inside_x || !w.ScrollbarX))  // cut sideways, even while scrolled out of view vertically
        return true;
    return vertical && !w.ScrollbarY;
}

// Records r, an item saying `text`, when the current window cuts it: the text's
// first 40 bytes (whole UTF-8 characters), the window, r and the clip rectangle.
void note_clip_rect(frame_out& out, const char* text, const ImRect& r) {
    const ImGuiWindow& w = *ImGui::GetCurrentWindow();
    if (w.SkipItems || !item_cut(w, r))
        return;
    const std::string_view t(text ? text : "");
    std::size_t n = std::min<std::size_t>(t.size(), 40);
    while (n < t.size() && n > 0 && (static_cast<unsigned char>(t[n]) & 0xC0) == 0x80)
        --n;
    const ImRect& c = w.ClipRect;
    out.clipped.push_back(
        {std::string(t.substr(0, n)), w.Name, r.Min.x, r.Min.y, r.Max.x, r.Max.y, c.Min.x, c.Min.y, c.Max.x, c.Max.y});
}

// Dear ImGui 1.90.1 wraps at spaces and after ASCII punctuation: a number's
// point or comma could end a line ("the loss is 0." / "002"), and a Chinese
// sentence, which has almost neither, ran past the panel's edge (CJK-aware
// wrapping is not in it). Every wrapped text gets its line ends here instead —
// at a space, or between characters where one side is CJK, never before closing
// punctuation ("，。：）" …) — and is drawn as those lines.
bool cjk_char(unsigned c) {
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool no_break_before(unsigned c) {
    static const char32_t closing[] = U"，。、；：！？）》」』】〉”’…·,.;:!?)]}%";
    for (const char32_t* p = closing; *p; ++p)
        if (c == unsigned(*p))
            return true;
    return false;
}

}  // namespace

std::string text_break_lines(const char* s, const char* end, float width) {
    ImFont* font = ImGui::GetFont();
    const float scale = ImGui::GetFontSize() / font->FontSize;
    std::string out;
    const char* line = s;       // where the current line starts
    const char* cut = nullptr;  // the latest place it may end (before a character)
    float w = 0, w_cut = 0;     // the line's width, and its width up to `cut`
    unsigned prev = 0;
    for (const char* p = s; p < end;) {
        unsigned c = 0;
        const int n = std::max(ImTextCharFromUtf8(&c, p, end), 1);
        if (c == '\n') {
            out.append(line, p + n);
            line = p + n, cut = nullptr, w = 0, prev = 0, p += n;
            continue;
        }
        if (p > line && (c == ' ' || ((cjk_char(c) || cjk_char(prev)) && prev != ' ' && !no_break_before(c))))
            cut = p, w_cut = w;
        const float advance = font->GetCharAdvance(ImWchar(c)) * scale;
        if (c != ' ' && w + advance >= width && cut) {
            const char* text_end = cut;
            while (text_end > line && text_end[-1] == ' ')
                --text_end;
            out.append(line, text_end);
            out += '\n';
            line = cut;
            while (line < end && *line == ' ')
                ++line;
            w = w - w_cut;
            for (const char* q = cut; q < line; ++q)  // the spaces the break ate
                w -= font->GetCharAdvance(ImWchar(' ')) * scale;
            cut = nullptr;
        }
        w += advance;
        prev = c;
        p += n;
    }
    out.append(line, end);
    return out;
}

namespace {

// Text wrapped at the visible right edge of the window (or of the table cell).
// ImGui's own wrapping stops at the content's width, which in a window that
// scrolls sideways (a wide map) lies past what is seen: the ends of lines were
// cut off. At least a few words wide.
void text_wrapped(const char* s, const char* end = nullptr) {
    const float cell = ImGui::GetCurrentWindow()->WorkRect.Max.x - ImGui::GetCursorScreenPos().x;
    const float width = std::max(std::min(visible_width(), cell), ImGui::GetFontSize() * 4.0f);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (!end)
        end = s + std::strlen(s);
    const std::string lines = text_break_lines(s, end, width);
    ImGui::TextUnformatted(lines.data(), lines.data() + lines.size());
    ImGui::PopTextWrapPos();  // a word longer than the line is still cut by ImGui
}

void text_styled_v(frame_out& out, const ImVec4* colour, const char* fmt, va_list args) {
    const char *s = nullptr, *end = nullptr;
    ImFormatStringToTempBufferV(&s, &end, fmt, args);
    if (colour)
        ImGui::PushStyleColor(ImGuiCol_Text, *colour);
    text_wrapped(s, end);
    if (colour)
        ImGui::PopStyleColor();
    note_clip(out, s);
}

}  // namespace

void note_clip(frame_out& out, const char* text) {
    note_clip_rect(out, text, ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()));
}

void mark_widget(frame_out& out, const char* name) {
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    out.widgets.push_back({name, p0.x, p0.y, p1.x, p1.y, ImGui::GetCurrentWindow()->Name});
    note_keyboard_focus(out, name);
    note_clip(out, name);
}

void text_plain(frame_out& out, const char* s) {
    text_wrapped(s);
    note_clip(out, s);
}

void textf(frame_out& out, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    text_styled_v(out, nullptr, fmt, args);
    va_end(args);
}

void text_disabled(frame_out& out, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const ImVec4 grey = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
    text_styled_v(out, &grey, fmt, args);
    va_end(args);
}

void text_colored(frame_out& out, const ImVec4& colour, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    text_styled_v(out, &colour, fmt, args);
    va_end(args);
}

void section_text(frame_out& out, const char* title) {
    ImGui::SeparatorText(title);
    // The line runs to the content's edge; only the title must be seen.
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    const float x1 = p0.x + ImGui::GetStyle().SeparatorTextPadding.x + ImGui::CalcTextSize(title, nullptr, true).x;
    note_clip_rect(out, title, ImRect(p0.x, p0.y, x1, p1.y));
}

bool chip_button(const char* label) {
    return (ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_IsTouchScreen) ? ImGui::Button(label) : ImGui::SmallButton(label);
}

float visible_width() {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    return w->InnerRect.Max.x - w->WindowPadding.x - ImGui::GetCursorScreenPos().x;
}

void same_line_if_fits(float next_width) {
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width <=
        ImGui::GetCursorScreenPos().x + visible_width())
        ImGui::SameLine();
}

void mark_window(frame_out& out, const char* name) {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    out.widgets.push_back({name, w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y, w->Name});
}

void mark_slider(frame_out& out, const char* name, const char* label) {
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    const float text = ImGui::CalcTextSize(label, nullptr, true).x;
    const float frame_x1 = text > 0 ? p1.x - text - ImGui::GetStyle().ItemInnerSpacing.x : p1.x;
    out.widgets.push_back({name, p0.x, p0.y, frame_x1, p1.y, ImGui::GetCurrentWindow()->Name});
    note_keyboard_focus(out, name);
    note_clip(out, label);
}

// [SECTION] layout

namespace {

void handle_keys(app& a) {
    ImGuiIO& io = ImGui::GetIO();
    // Tab starts keyboard navigation of the controls (a visible focus; Tab and
    // Shift+Tab move it, Space and Enter activate, arrows move within a window,
    // Ctrl+Tab to the next panel). Escape with no menu open ends it, and the
    // arrows step stages and rows again.
    const bool navigating = (io.ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) != 0;
    if (!navigating && ImGui::IsKeyPressed(ImGuiKey_Tab, false)) {
        io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
        // Shown where the focus already is (a lesson just opened put it on its card): Tab goes on from there.
        ImGui::GetCurrentContext()->NavDisableHighlight = false;
    }
    if (navigating && ImGui::IsKeyPressed(ImGuiKey_Escape, false) && !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
        io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
    if (io.WantTextInput || navigating)
        return;
    const bool ctrl = io.KeyCtrl || io.KeySuper;
    auto step = [&a](int dir) {
        int s = int(a.current);
        do {
            s = std::clamp(s + dir, 0, stage_count - 1);
        } while (!stage_applies(stage(s), a.model.exp) && s > 0 && s < stage_count - 1);
        a.current = stage(s);
    };
    if (ImGui::IsKeyPressed(ImGuiKey_RightArrow))
        step(+1);
    if (ImGui::IsKeyPressed(ImGuiKey_LeftArrow))
        step(-1);
    const int n = int(a.model.tr.tokens.size());
    if (ImGui::IsKeyPressed(ImGuiKey_DownArrow))
        a.sel_row = std::min(n - 1, a.sel_row + 1);
    if (ImGui::IsKeyPressed(ImGuiKey_UpArrow))
        a.sel_row = std::max(0, a.sel_row - 1);
    if (ctrl && ImGui::IsKeyPressed(ImGuiKey_Z))
        app_request(a, io.KeyShift ? change::redo() : change::undo());
    if (ctrl && ImGui::IsKeyPressed(ImGuiKey_Y))
        app_request(a, change::redo());
    if (!ctrl && ImGui::IsKeyPressed(ImGuiKey_H))
        a.show_help = !a.show_help;
    if (!ctrl && ImGui::IsKeyPressed(ImGuiKey_L))
        app_toggle_language(a);
    if (ImGui::IsKeyPressed(ImGuiKey_Escape))
        a.show_help = false;
}

// The panels are one keyboard-navigation space with the top bar: Tab walks
// from the top bar through the controls, the lessons, the pipeline and the side.
constexpr ImGuiWindowFlags panel_nav = ImGuiWindowFlags_NavFlattened;

constexpr const char* layout_panel_names[view_panel_count] = {"controls", "code", "inspector", "lessons", "stepper"};

bool panel_hidden(const app& a, view_panel p) { return a.options.hides(p) || a.layout_hidden[std::size_t(p)]; }

// The View menu: which panels to show. The choice is remembered between visits.
void view_menu(const app& a, frame_out& out) {
    if (ImGui::Button(tr("View", "视图")))
        ImGui::OpenPopup("view_menu");
    mark_widget(out, "view_menu");
    if (ImGui::BeginPopup("view_menu")) {
        const std::pair<view_panel, const char*> items[] = {{view_panel::controls, tr("Controls", "控制面板")},
                                                            {view_panel::lessons, tr("Lessons bar", "课程栏")},
                                                            {view_panel::inspector, tr("Inspector", "检查器")},
                                                            {view_panel::code, tr("Code", "代码")}};
        for (const auto& [panel, label] : items) {
            bool shown = !a.layout_hidden[std::size_t(panel)];
            if (ImGui::Checkbox(label, &shown)) {
                out.layout_hidden = a.layout_hidden;
                (*out.layout_hidden)[std::size_t(panel)] = !shown;
            }
            mark_widget(out, (std::string("view_") + layout_panel_names[std::size_t(panel)]).c_str());
        }
        ImGui::Separator();
        text_plain(out, tr("Theme", "主题"));
        const std::pair<view_theme, const char*> themes[] = {{view_theme::automatic, tr("as the system", "跟随系统")},
                                                             {view_theme::light, tr("light", "浅色")},
                                                             {view_theme::dark, tr("dark", "深色")}};
        for (const auto& [choice, label] : themes) {
            if (ImGui::RadioButton(label, a.theme_choice == choice))
                out.theme = choice;
            mark_widget(out, (std::string("theme_") + (choice == view_theme::light  ? "light"
                                                       : choice == view_theme::dark ? "dark"
                                                                                    : "auto"))
                                 .c_str());
        }
        ImGui::Separator();
        // The page's text view: every number of the stage as a table, for screen readers and copying.
        if (ImGui::Selectable(tr("Text view (tables, for screen readers)", "文本视图（表格，供屏幕阅读器）")))
            out.share.push_back(share_action::toggle_text_view);
        mark_widget(out, "view_text");
        ImGui::EndPopup();
    }
}

void top_bar(const app& a, frame_out& out) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const char* lang = ui_language() == language::en ? "中文" : "English";
    const float w_lang = ImGui::CalcTextSize(lang).x + st.FramePadding.x * 2;
    const float w_undo = ImGui::CalcTextSize(tr("Undo", "撤销")).x + ImGui::CalcTextSize(tr("Redo", "重做")).x +
                         ImGui::CalcTextSize("?").x + ImGui::CalcTextSize(tr("View", "视图")).x + st.FramePadding.x * 8 +
                         st.ItemSpacing.x * 4 + share_menu_width();
    text_plain(out, tr("Attention playground", "注意力演练场"));
    // The tagline only where it fits before the buttons (a narrow or zoomed page has no room).
    const char* tagline = tr("— watch attention compute, change any number", "— 看注意力一步步计算，改动任何数字");
    const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetItemRectMax().x + ImGui::GetWindowPos().x;
    if (ImGui::CalcTextSize(tagline).x + st.ItemSpacing.x * 2 + w_lang + w_undo <= room) {
        ImGui::SameLine();
        text_disabled(out, "%s", tagline);
    }
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w_lang - w_undo));
    view_menu(a, out);
    ImGui::SameLine();
    share_menu(a, out);
    ImGui::SameLine();
    ImGui::BeginDisabled(a.model.undo.empty() || a.options.readonly);
    if (ImGui::Button(tr("Undo", "撤销")))
        out.request = change::undo();
    mark_widget(out, "undo");
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(a.model.redo.empty() || a.options.readonly);
    if (ImGui::Button(tr("Redo", "重做")))
        out.request = change::redo();
    note_clip(out, "Redo");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("?"))
        out.toggle_help = true;
    mark_widget(out, "help");
    ImGui::SameLine();
    if (ImGui::Button(lang))
        out.toggle_language = true;
    mark_widget(out, "language");
}

// The side column's width: a quarter of the page, or, where the centre keeps at
// least 38 em, as wide as the code panel's longest line (so that numpy lines are
// not broken in two at 1440 px; narrower pages wrap them).
float side_width(float width, float left, bool show_code) {
    const float font = ImGui::GetFontSize();
    const float quarter = std::clamp(width * 0.27f, font * 18.0f, font * 28.0f);
    if (!show_code)
        return quarter;
    float code = 0.0f;
    for (const char* line : numpy_code_lines())
        code = std::max(code, ImGui::CalcTextSize(line).x);
    const ImGuiStyle& st = ImGui::GetStyle();
    // The line-number gutter, the window's padding and border, a scrollbar.
    code += ImGui::CalcTextSize("00").x + st.ItemSpacing.x * 3 + st.WindowPadding.x * 2 + st.ScrollbarSize + 2.0f;
    const bool room = width - left - std::min(code, font * 34.0f) >= font * 38.0f;
    return room ? std::max(quarter, std::min(code, font * 34.0f)) : quarter;
}

// A notice is read once: it goes notice_seconds after it was first drawn (a
// new one starts the count again). The "computing" note stays until its change is made.
void expire_notice(app& a) {
    constexpr double notice_seconds = 6.0;
    const double now = ImGui::GetTime();
    if (a.notice != a.notice_shown) {
        a.notice_shown = a.notice;
        a.notice_since = now;
    } else if (!a.notice.empty() && !a.pending_announced && now - a.notice_since > notice_seconds) {
        a.notice.clear();
        a.notice_shown.clear();
    }
}

// Draws one panel and applies what it asked for.
template <class Panel>
void draw_panel(app& a, Panel panel) {
    frame_out out;
    if (!a.focus_request.empty())
        out.focus_request = &a.focus_request;
    panel(std::as_const(a), out);
    frame_apply(a, out);
}

}  // namespace

void app_train(app& a) { a.train_spent = session_train(a.model, a.pace.slice); }

// The focused item's label (end of this file).
void focus_label_begin();
std::string focus_label_end(const app& a);

namespace {

// The frame's state work before anything draws: the pending change, training,
// the trace, the measures that read the trained model, this frame's reports.
void app_update(app& a) {
    apply_pending(a);
    app_train(a);
    app_sync(a);  // the one point where the trace is recomputed, before anything draws
    session_measure_trained(a.model, a.pace.slice);
    a.widgets.clear();
    a.maps.clear();
    a.clipped.clear();
    a.keyboard_focus.clear();
    expire_notice(a);
}

}  // namespace

void app_draw(app& a) {
    IM_ASSERT(a.heatmaps && "the platform hands the app its heatmap_context before the first frame");
    app_update(a);
    focus_label_begin();
    glyphs_require(a.text_edit);  // what is being typed, accepted or not
    handle_keys(a);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("##root", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground);
    if (a.options.embed) {
        draw_panel(a, embed_bar);
        draw_panel(a, banner);
        // Only the centre panel, at whatever size the iframe has.
        ImGui::BeginChild("center", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar | panel_nav);
        if (a.lesson.index >= 0 && !a.options.hides(view_panel::lessons))
            draw_panel(a, panel_lesson);
        draw_panel(a, panel_train);
        draw_panel(a, panel_pipeline);
        // The bottom of the content as if unscrolled, plus the root window's padding.
        a.content_height =
            ImGui::GetCursorScreenPos().y + ImGui::GetScrollY() + ImGui::GetStyle().WindowPadding.y - vp->WorkPos.y;
        ImGui::EndChild();
        ImGui::End();
        draw_panel(a, toast);
        a.focus_label = focus_label_end(a);
        return;
    }
    draw_panel(a, top_bar);
    draw_panel(a, banner);

    // Three columns on a wide screen; on a narrow one (a phone in landscape) the
    // inspector and the code move under the matrices. A link's view.hide drops panels.
    const bool show_controls = !panel_hidden(a, view_panel::controls);
    const bool show_inspector = !panel_hidden(a, view_panel::inspector);
    const bool show_code = !panel_hidden(a, view_panel::code);
    const bool show_side = show_inspector || show_code;
    auto side_panels = [&] {
        if (show_inspector) {
            draw_panel(a, panel_inspector);
            draw_panel(a, panel_impact);
        }
        if (show_code)
            draw_panel(a, panel_code);
    };
    const float font = ImGui::GetFontSize();
    const float width = ImGui::GetContentRegionAvail().x;
    const bool wide = width > font * 62.0f;
    const float left = show_controls ? std::clamp(width * 0.24f, font * 15.0f, font * 22.0f) : 0.0f;
    const float right = wide && show_side ? side_width(width, left, show_code) : 0.0f;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;

    if (show_controls) {
        // Scrolls sideways when its widest control does not fit (a zoomed or narrow page).
        ImGui::BeginChild("controls", ImVec2(left, 0), true, ImGuiWindowFlags_HorizontalScrollbar | panel_nav);
        draw_panel(a, panel_controls);
        ImGui::EndChild();
        ImGui::SameLine();
    }
    const float gaps = (show_controls ? spacing : 0.0f) + (right > 0 ? spacing : 0.0f);
    ImGui::BeginChild("center", ImVec2(wide && right > 0 ? width - left - right - gaps : 0, 0), true,
                      ImGuiWindowFlags_HorizontalScrollbar | panel_nav);
    if (!panel_hidden(a, view_panel::lessons))
        draw_panel(a, panel_lesson);
    draw_panel(a, panel_train);
    draw_panel(a, panel_pipeline);
    // What an embed of this view would need (the embed code's first height): the
    // content as if unscrolled, with the embed's bar above it.
    a.content_height = ImGui::GetCursorPosY() + ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().WindowPadding.y;
    if (!wide && show_side) {
        ImGui::Separator();
        side_panels();
    }
    ImGui::EndChild();
    if (wide && show_side) {
        ImGui::SameLine();
        ImGui::BeginChild("side", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar | panel_nav);
        side_panels();
        ImGui::EndChild();
    }
    ImGui::End();
    if (a.show_help)
        draw_panel(a, panel_help);
    else if (a.show_start)
        draw_panel(a, panel_start);
    draw_panel(a, toast);
    a.focus_label = focus_label_end(a);
}

std::string app_layout_text(const app& a) {
    std::string out;
    for (std::size_t p = 0; p < view_panel_count; ++p)
        if (a.layout_hidden[p])
            out += (out.empty() ? "" : ",") + std::string(layout_panel_names[p]);
    return out;
}

void app_set_layout_text(app& a, std::string_view text) {
    a.layout_hidden = {};
    for (std::size_t p = 0; p < view_panel_count; ++p)
        for (const auto name : split(text, ','))
            if (name == layout_panel_names[p])
                a.layout_hidden[p] = true;
}

}  // namespace attn::ui

// [SECTION] the focused item's label
// Dear ImGui tells its test engine each item's label as it is drawn
// (IMGUI_ENABLE_TEST_ENGINE, set for the imgui library in CMakeLists.txt): the
// one keyboard navigation is on names the canvas for screen readers
// (app::focus_label). Nothing else of a test engine is used.
namespace {
std::string g_nav_label;  // this frame's label of the item with the keyboard's focus
bool g_nav_label_seen = false;
}  // namespace

void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, ImGuiID, const ImRect&, const ImGuiLastItemData*) {}
void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
    if (id == 0 || id != ctx->NavId || !label)
        return;
    g_nav_label.assign(label, ImGui::FindRenderedTextEnd(label));
    g_nav_label_seen = true;
}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

namespace attn::ui {

void focus_label_begin() {
    ImGui::GetCurrentContext()->TestEngineHookItems = true;
    g_nav_label.clear();
    g_nav_label_seen = false;
}

std::string focus_label_end(const app& a) {
    if (!(ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard))
        return "";
    if (g_nav_label_seen && !g_nav_label.empty())
        return g_nav_label;
    // An item without a label of its own: a map's cells.
    return a.keyboard_focus.rfind("grid_", 0) == 0 || g_nav_label_seen
               ? tr("map: the arrow keys move the selected cell", "矩阵图：方向键移动选中的格子")
               : "";
}

}  // namespace attn::ui
