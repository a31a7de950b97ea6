// What every panel draws text and widgets with: the helpers that record each
// named widget's rectangle, the keyboard's focus and every text item its window
// cuts (widgets.hpp).
#include "view/widgets.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/text_util.hpp"
#include "imgui_internal.h"  // GetFocusID: the widget keyboard navigation is on; a window's visible rectangle
#include "look/i18n.hpp"

namespace attn::ui {

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

// Where the last item starts in its window's content, unscrolled (pixels).
float item_content_y() { return ImGui::GetItemRectMin().y - ImGui::GetCurrentWindow()->DC.CursorStartPos.y; }

// Whether the last item lies wholly within what its window shows, up and down.
bool item_seen() {
    const ImRect& clip = ImGui::GetCurrentWindow()->InnerClipRect;
    return ImGui::GetItemRectMin().y >= clip.Min.y - 0.5f && ImGui::GetItemRectMax().y <= clip.Max.y + 0.5f;
}

// The focused item (the last one) gone out of what is seen while its ring shows,
// with the window not scrolled (what was drawn above it grew — the lesson's card
// as a model trains — or the window got smaller): scrolled back into view, so
// the focus a person follows with the keyboard never goes below the fold. A
// person scrolling away from it keeps their scroll.
void keep_focus_seen(ImGuiID id) {
    ImGuiWindow& w = *ImGui::GetCurrentWindow();
    ImGuiStorage& s = w.StateStorage;
    const ImGuiID id_key = ImHashStr("##focused_item"), seen_key = ImHashStr("##focused_seen"),
                  scroll_key = ImHashStr("##focused_scroll");
    const bool seen = item_seen();
    const bool lost = s.GetInt(id_key) == int(id) && s.GetBool(seen_key) && !seen && s.GetFloat(scroll_key) == w.Scroll.y;
    s.SetInt(id_key, int(id));
    s.SetBool(seen_key, seen || lost);
    s.SetFloat(scroll_key, w.Scroll.y);
    if (lost && !ImGui::GetCurrentContext()->NavDisableHighlight)
        ImGui::ScrollToItem(ImGuiScrollFlags_KeepVisibleEdgeY);
}

// The widget the keyboard is on (keyboard navigation, Tab), by the name tests know it by.
void note_keyboard_focus(frame_out& out, const char* name) {
    focus_take(out, name);
    const ImGuiID id = ImGui::GetItemID();
    if ((ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) && id != 0 && id == ImGui::GetFocusID()) {
        out.keyboard_focus = name;
        keep_focus_seen(id);
    }
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
    const char *raw = nullptr, *raw_end = nullptr;
    ImFormatStringToTempBufferV(&raw, &raw_end, fmt, args);
    std::string text(raw, raw_end);
    if (text.find("nan") != std::string::npos || text.find("inf") != std::string::npos)
        text = text_nonfinite_named(text);  // never printf's "-nan": NaN and ±∞ by name
    drop_negative_zero(text);               // "-0.00" reads as 0.00
    if (colour)
        ImGui::PushStyleColor(ImGuiCol_Text, *colour);
    text_wrapped(text.c_str(), text.c_str() + text.size());
    if (colour)
        ImGui::PopStyleColor();
    note_clip(out, text.c_str());
}

}  // namespace

void note_clip(frame_out& out, const char* text) {
    note_clip_rect(out, text, ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()));
}

void reveal_when_new(const char* key, std::uint64_t value, bool ready) {
    ImGuiWindow& w = *ImGui::GetCurrentWindow();
    ImGuiStorage& s = w.StateStorage;
    const ImGuiID id = ImGui::GetID(key), seen_key = ImHashStr("##seen", 0, id);
    const int folded = int(value ^ (value >> 32));  // the storage keeps ints
    if (!s.GetBool(seen_key)) {                     // what the view opened with (a link's) is not news
        s.SetBool(seen_key, true);
        s.SetInt(id, folded);
        return;
    }
    if (!ready || s.GetInt(id, 0) == folded)
        return;
    s.SetInt(id, folded);
    if (value != 0)
        ImGui::ScrollToItem(ImGuiScrollFlags_KeepVisibleEdgeY);
}

void keep_in_place(const char* key, bool active) {
    ImGuiWindow& w = *ImGui::GetCurrentWindow();
    ImGuiStorage& s = w.StateStorage;
    const ImGuiID y_key = ImGui::GetID(key), seen_key = ImHashStr("##seen", 0, y_key);
    const float y = item_content_y(), before = s.GetFloat(y_key, y);
    if (active && s.GetBool(seen_key) && std::fabs(y - before) > 0.5f)
        ImGui::SetScrollY(&w, w.Scroll.y + (y - before));  // from the next frame: where it was on the screen
    s.SetFloat(y_key, y);
    s.SetBool(seen_key, item_seen());
}

void mark_widget(frame_out& out, const char* name) {
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    out.widgets.push_back({name, p0.x, p0.y, p1.x, p1.y, ImGui::GetCurrentWindow()->Name});
    note_keyboard_focus(out, name);
    note_clip(out, name);
}

void mark_rect(frame_out& out, const std::string& name) {
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    out.widgets.push_back({name, p0.x, p0.y, p1.x, p1.y, ImGui::GetCurrentWindow()->Name});
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

std::string megabytes(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
    return buf;
}

std::string byte_size(std::size_t bytes) {
    char buf[32];
    if (bytes < 10000)
        std::snprintf(buf, sizeof buf, "%zu B", bytes);
    else if (bytes < 10000000)
        std::snprintf(buf, sizeof buf, "%.1f KB", double(bytes) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
    return buf;
}

float visible_width() {
    const ImGuiWindow* w = ImGui::GetCurrentWindow();
    return w->InnerRect.Max.x - w->WindowPadding.x - ImGui::GetCursorScreenPos().x;
}

bool table_with_headers(const char* id, std::initializer_list<const char*> headers) {
    if (!ImGui::BeginTable(id, int(headers.size()), ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
        return false;
    for (const char* h : headers)
        ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    return true;
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

// [SECTION] controls over the key table's rows

namespace {

ImGuiSliderFlags key_flags(const key_row& k) { return k.control.log ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None; }

}  // namespace

bool key_input(const key_row& k, const char* label, int& v, double lo, double hi) {
    const char* format = k.control.format ? k.control.format : "%d";
    int x = v;
    if (!ImGui::SliderInt(label, &x, int(lo), int(hi), format, key_flags(k)))
        return false;
    v = int(key_clamp(k, x));
    return true;
}

bool key_input(const key_row& k, const char* label, int& v) { return key_input(k, label, v, k.control.lo, k.control.hi); }

bool key_input(const key_row& k, const char* label, float& v, const char* format) {
    format = format ? format : k.control.format ? k.control.format : "%.3f";
    float x = v;
    const float lo = float(k.control.lo), hi = float(k.control.hi);
    const bool changed = k.control.step > 0 ? ImGui::DragFloat(label, &x, float(k.control.step), lo, hi, format, key_flags(k))
                                            : ImGui::SliderFloat(label, &x, lo, hi, format, key_flags(k));
    if (!changed)
        return false;
    v = float(key_clamp(k, x));
    return true;
}

bool key_input(const key_row& k, const char* label, std::uint32_t& v) {
    const std::uint32_t step = std::uint32_t(k.control.step > 0 ? k.control.step : 1);
    std::uint32_t x = v;
    if (!ImGui::InputScalar(label, ImGuiDataType_U32, &x, &step))
        return false;
    v = x;  // every U32 is within a seed's limits
    return true;
}

void key_tooltip(const key_row& k) {
    if (k.help.en && ImGui::IsItemHovered(ImGuiHoveredFlags_ForTooltip | ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", tr(k.help));
}

int text_resize_callback(ImGuiInputTextCallbackData* data) {
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        auto* s = static_cast<std::string*>(data->UserData);
        s->resize(std::size_t(data->BufTextLen));
        data->Buf = s->data();
    }
    return 0;
}

}  // namespace attn::ui
