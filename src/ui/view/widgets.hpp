// What every panel draws text and widgets with (widgets.cpp): each records what
// tests and help need in the frame's frame_out (app.hpp): named rectangles, the
// keyboard's focus, the text items a window cuts.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "imgui.h"
#include "spec/keys.hpp"
#include "view/app.hpp"

namespace attn::ui {

// Records the last ImGui item's rectangle under `name` (tests click through these).
void mark_widget(frame_out& out, const char* name);
// The rectangle alone, for a text already noted (its cell in a table, say): no
// clip or focus noted again under `name`.
void mark_rect(frame_out& out, const std::string& name);
// The same for the whole current window.
void mark_window(frame_out& out, const char* name);

// Keeps the last item where it is on the screen while `active`: when what is
// drawn above it in its window grows or shrinks (content appearing as a model
// trains), the window scrolls by as much from the next frame, provided the item
// was wholly in view before. `key` names it within the window.
void keep_in_place(const char* key, bool active);

// Scrolls the window just enough to show the last item (a group: a result drawn
// below the control that asked for it) once it is `ready` for a `value` (what was
// asked: not 0) other than the one it last showed or first saw; then the person
// scrolls freely. `key` names it within the window.
void reveal_when_new(const char* key, std::uint64_t value, bool ready);

// Records the last ImGui item in out.clipped when its window cuts it (what
// counts as cut: item_cut in app.cpp). ImGui has no hook for text items, so
// everything a person reads is drawn through the helpers below, and mark_widget
// and mark_slider note their item too.
void note_clip(frame_out& out, const char* text);
// ImGui::TextUnformatted, Text, TextDisabled, TextColored and SeparatorText,
// each followed by note_clip. The texts wrap at the current window's (or table
// cell's) visible right edge, not at the content's: in a window that scrolls
// sideways (a wide map) that lies past what is seen.
void text_plain(frame_out& out, const char* s);
void textf(frame_out& out, const char* fmt, ...) IM_FMTARGS(2);
void text_disabled(frame_out& out, const char* fmt, ...) IM_FMTARGS(2);
void text_colored(frame_out& out, const ImVec4& colour, const char* fmt, ...) IM_FMTARGS(3);
void section_text(frame_out& out, const char* title);

// ImGui::SmallButton, or in the touch layout (ImGuiConfigFlags_IsTouchScreen, which
// the platform sets on a phone or a coarse pointer) a full button: a finger needs
// a target at least 32 px tall, and a small button is a line of text high.
bool chip_button(const char* label);

// ImGui's InputText callback that grows a std::string (UserData) as text is
// typed: pass ImGuiInputTextFlags_CallbackResize, it and &the_string.
int text_resize_callback(ImGuiInputTextCallbackData* data);

// From the cursor to the current window's visible right edge. In a window that
// scrolls sideways a negative item width counts from the content's edge instead,
// so items sized that way keep the content wide.
float visible_width();

// A size for people: "%.1f MB" (a file), and B, KB or MB by size (1000s; a KV
// cache's small and large sizes alike).
std::string megabytes(std::size_t bytes);
std::string byte_size(std::size_t bytes);

// s with '\n' where a line of `width` pixels (the current font) must end: at a
// space, or between characters where one side is CJK, never before closing
// punctuation, never inside a number ("0.002", "1,234"). A word longer than the
// line stays whole (ImGui cuts it).
std::string text_break_lines(const char* s, const char* end, float width);

// ImGui::BeginTable with borders and its columns sized to their content, one
// column per header and the header row drawn; ImGui::EndTable after it when true.
bool table_with_headers(const char* id, std::initializer_list<const char*> headers);

// After an item: ImGui::SameLine() when an item `next_width` wide still fits
// before the window's visible right edge, else the next item starts a new line
// (a row of buttons wraps instead of widening the panel).
void same_line_if_fits(float next_width);

// The same for a slider or drag labelled `label`: only its frame, not the label
// beside it (a click on the label does nothing; a click on the frame sets the value).
void mark_slider(frame_out& out, const char* name, const char* label);

// A slider, drag or input box over a key's row (spec/keys.hpp): its range, step,
// scale and format are the row's control, narrowed to lo … hi where the experiment
// narrows it (pad: the sentence's tokens). A value a link set outside the range is
// shown as it is (an ImGui slider clamps only what a drag writes) and stays until
// the control is moved; a typed value (Ctrl+click) is kept within the key's limits
// (key_clamp). format: the row's unless given. True when the value changed.
bool key_input(const key_row& k, const char* label, int& v, double lo, double hi);
bool key_input(const key_row& k, const char* label, int& v);
bool key_input(const key_row& k, const char* label, float& v, const char* format = nullptr);
bool key_input(const key_row& k, const char* label, std::uint32_t& v);
// The row's help on hover of the last item (both languages: tr).
void key_tooltip(const key_row& k);

}  // namespace attn::ui
