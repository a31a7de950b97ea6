// What the page's JS hook tells of the app (page_state.hpp).
#include "frame/page_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "imgui.h"
#include "imgui_internal.h"  // the windows' scroll state, for windows_json

#include "base/text_util.hpp"
#include "frame/page_model.hpp"
#include "look/i18n.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/measure_lessons.hpp"
#include "play/session_json.hpp"

namespace attn::ui {
namespace {

// Every ImGui window drawn this frame, for the zoom test (nothing a person must
// read is clipped): its name, its parent's, the visible rectangle (CSS pixels),
// the scroll, how far its content reaches past the visible area (ImGui's
// ScrollMax) and whether it has a horizontal / vertical scrollbar.
std::string windows_json(float s) {
    const auto clean = [](const char* name) {  // names are the code's (ASCII, '/', '#'): nothing to escape, but be sure
        std::string out;
        for (const char* c = name; *c && out.size() < 120; ++c)
            if (*c != '"' && *c != '\\' && static_cast<unsigned char>(*c) >= 0x20 && static_cast<unsigned char>(*c) < 0x80)
                out += *c;
        return out;
    };
    std::string out = "[";
    char buf[512];
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        if (!w->WasActive || w->Hidden)
            continue;
        std::snprintf(buf, sizeof buf,
                      "%s{\"name\":\"%s\",\"parent\":\"%s\",\"rect\":[%.1f,%.1f,%.1f,%.1f],\"scroll\":[%.1f,%.1f],"
                      "\"over\":[%.1f,%.1f],\"bars\":[%s,%s]}",
                      out.size() > 1 ? "," : "", clean(w->Name).c_str(),
                      clean(w->ParentWindow ? w->ParentWindow->Name : "").c_str(), double(w->InnerRect.Min.x / s),
                      double(w->InnerRect.Min.y / s), double(w->InnerRect.Max.x / s), double(w->InnerRect.Max.y / s),
                      double(w->Scroll.x / s), double(w->Scroll.y / s), double(w->ScrollMax.x / s), double(w->ScrollMax.y / s),
                      w->ScrollbarX ? "true" : "false", w->ScrollbarY ? "true" : "false");
        out += buf;
    }
    return out + "]";
}

// "Patch from A" while the compare shows it: {done, total, problem (English, ""
// when none), explained: [per head, layer by layer; null for NaN]}; null when
// not shown. Read from the memo as it is: the frames fill it in.
std::string compare_patch_json(const attn::ui::app& a) {
    if (!a.model.pin || !a.view.compare_shown || !a.view.compare_patch_shown || !a.memo.compare_patch.valid)
        return "null";
    const attn::compare_patch_result& r = a.memo.compare_patch.value;
    std::string j = "{\"done\":" + std::to_string(r.done) + ",\"total\":" + std::to_string(r.total) +
                    ",\"problem\":" + attn::json_string(r.problem) + ",\"explained\":[";
    for (std::size_t k = 0; k < r.explained.size(); ++k)
        j += std::string(k ? "," : "") + json_number(r.explained[k]);
    return j + "]}";
}

// `clipped`: how many text items their window cut this frame, and the first
// few of them (`clippedItems`, in CSS pixels) to say which.
std::string clipped_json(const attn::ui::app& a, float s) {
    std::string out = ",\"clipped\":" + std::to_string(a.reports.clipped.size()) + ",\"clippedItems\":[";
    const std::size_t shown = std::min<std::size_t>(a.reports.clipped.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
        const attn::ui::clip_report& c = a.reports.clipped[i];
        std::string text;
        for (const char ch : c.text)
            text += ch == '"' || ch == '\\' ? std::string("\\") + ch
                                            : (static_cast<unsigned char>(ch) < 0x20 ? " " : std::string(1, ch));
        char buf[256];
        std::snprintf(buf, sizeof buf, "\",\"window\":\"%s\",\"rect\":[%.1f,%.1f,%.1f,%.1f],\"clip\":[%.1f,%.1f,%.1f,%.1f]}",
                      c.window.c_str(), double(c.x0 / s), double(c.y0 / s), double(c.x1 / s), double(c.y1 / s),
                      double(c.clip_x0 / s), double(c.clip_y0 / s), double(c.clip_x1 / s), double(c.clip_y1 / s));
        out += std::string(i ? "," : "") + "{\"text\":\"" + text + buf;
    }
    return out + "]";
}

// `drawn`: the last frame's vertices, and the windows that drew the most of
// them (a frame's cost in the browser grows with the vertices it uploads).
std::string drawn_json() {
    const ImDrawData* d = ImGui::GetDrawData();
    if (!d || !d->Valid)
        return ",\"drawn\":null";
    std::vector<std::pair<int, std::string>> lists;
    for (const ImDrawList* l : d->CmdLists)
        lists.emplace_back(l->VtxBuffer.Size, l->_OwnerName ? l->_OwnerName : "");
    std::sort(lists.begin(), lists.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string out = ",\"drawn\":{\"vertices\":" + std::to_string(d->TotalVtxCount) + ",\"windows\":[";
    for (std::size_t i = 0; i < std::min<std::size_t>(lists.size(), 5); ++i)
        out += std::string(i ? "," : "") + "{\"name\":" + attn::json_string(lists[i].second) +
               ",\"vertices\":" + std::to_string(lists[i].first) + "}";
    return out + "]}";
}

// ,"pipeline": what the stages draw — the experiment, or a real model's layer
// (app_pipeline): {real, layer, heads, tokens}.
std::string pipeline_json(const attn::ui::app& a) {
    const attn::ui::pipeline_shown shown = attn::ui::app_pipeline(a);
    return std::string(",\"pipeline\":{\"real\":") + (shown.real ? "true" : "false") +
           ",\"layer\":" + std::to_string(shown.layer) + ",\"heads\":" + std::to_string(shown.exp->heads) +
           ",\"tokens\":" + std::to_string(shown.tr->tokens.size()) + "}";
}

// The view: stage, layer, selection, language, help, undo, version, threads, the
// rectangles of named widgets in CSS pixels (so a test can click where a person
// would), the lesson and its numbers, the link, the pipeline, the keyboard's
// focus and the tooltip.
void state_view(std::string& out, const attn::ui::app& a, float s) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "{\"stage\":%d,\"layer\":%d,\"sel_row\":%d,\"language\":\"%s\",\"help\":%s,\"undo\":%zu,\"redo\":%zu,"
                  "\"selected\":[%d,%d,%d,%d],\"version\":%llu,\"threads\":%d,\"widgets\":{",
                  int(a.view.current), a.view.layer, a.view.sel_row,
                  attn::ui::ui_language() == attn::ui::language::zh ? "zh" : "en", a.view.show_help ? "true" : "false",
                  a.model.undo.size(), a.model.redo.size(), a.view.selected.matrix, a.view.selected.head, a.view.selected.row,
                  a.view.selected.col, static_cast<unsigned long long>(a.model.version), a.model.threads);
    out += buf;
    bool first = true;
    for (const auto& w : a.reports.widgets) {
        std::snprintf(buf, sizeof buf, "%s\"%s\":[%.1f,%.1f,%.1f,%.1f]", first ? "" : ",", w.name.c_str(), double(w.x0 / s),
                      double(w.y0 / s), double(w.x1 / s), double(w.y1 / s));
        out += buf;
        first = false;
    }
    out += "},\"lesson\":" + std::to_string(a.view.lesson.index) + ",\"numbers\":{";
    first = true;
    for (const auto& [name, value] : a.reports.lesson_numbers) {
        std::snprintf(buf, sizeof buf, "%s\"%s\":%.9g", first ? "" : ",", name.c_str(), std::isfinite(value) ? value : -1e300);
        out += buf;
        first = false;
    }
    out += "},\"link\":\"" + attn::ui::app_link(a) + "\"";  // a link is URL-safe ASCII: no escaping needed
    out += std::string(",\"embed\":") + (a.options.embed ? "true" : "false");
    out += pipeline_json(a);
    out += std::string(",\"readonly\":") + (a.options.readonly ? "true" : "false");
    out += std::string(",\"keyboard\":") + ((ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) ? "true" : "false");
    out += ",\"focus\":\"" + a.reports.keyboard_focus + "\"";  // widget names are plain ASCII
    out += ",\"focusLabel\":" + attn::json_string(a.reports.focus_label);
    out += ",\"tooltip\":" + attn::json_string(a.heatmaps ? a.heatmaps->tooltip() : std::string());
}

// The windows, each widget's window, the maps drawn, the text cut and the vertices.
void state_drawn(std::string& out, const attn::ui::app& a, float s) {
    out += ",\"windows\":" + windows_json(s) + ",\"widgetWindows\":{";
    bool first = true;
    for (const auto& w : a.reports.widgets) {  // each widget's window (names: ASCII, no quotes)
        out += std::string(first ? "" : ",") + "\"" + w.name + "\":\"" + w.window + "\"";
        first = false;
    }
    out += "},\"maps\":[";
    first = true;
    char buf[256];
    for (const auto& m : a.reports.maps) {  // each map drawn: the cells that hold a value, how many show it, its caption
        std::snprintf(buf, sizeof buf, "%s{\"name\":\"%s\",\"cells\":%d,\"labelled\":%d,\"axes\":\"", first ? "" : ",",
                      m.name.c_str(), m.cells, m.labelled);
        out += buf + m.axes + "\"}";  // the captions are the code's: no quotes or backslashes
        first = false;
    }
    out += "]" + clipped_json(a, s) + drawn_json();
}

// ,"compare": the A/B compare, a pinned recipe's run and "Patch from A".
void state_compare(std::string& out, const attn::ui::app& a) {
    char buf[256];
    // The A/B compare of the current stage: max |B − A| when A is pinned and has B's shape, else null and why.
    const attn::compare_result& c = attn::ui::app_compare(a);
    const bool comparable = a.model.pin && c.mismatch.what == attn::compare_mismatch::kind::none && std::isfinite(c.max_abs);
    std::snprintf(buf, sizeof buf, "%.9g", c.max_abs);
    out += std::string(",\"compare\":{\"pinned\":") + (a.model.pin ? "true" : "false") +
           ",\"shown\":" + (a.model.pin && a.view.compare_shown ? "true" : "false") +
           ",\"maxAbs\":" + (comparable ? buf : "null") + ",\"reason\":\"" + attn::compare_mismatch_text(c.mismatch) +
           "\"";  // plain ASCII but for ×: no quotes to escape
    // A pinned recipe's run (none while A's shape is not B's): where it is and where it goes.
    const attn::trainer& pt = a.model.pin_train;
    std::snprintf(buf, sizeof buf, "{\"step\":%d,\"target\":%d,\"done\":%s}", attn::trainer_step(pt), pt.target,
                  attn::trainer_done(pt) ? "true" : "false");
    out += std::string(",\"aTrain\":") + (pt.run ? buf : "null") + ",\"patch\":" + compare_patch_json(a) + "}";
}

// ,"touch": the gesture under way, when the page has touch input.
void state_touch(std::string& out, const attn::ui::touch_input* touch, float s) {
    if (touch) {  // the touch gesture under way: 0 idle, 1 pressed, 2 dragging, 3 scrolling, 4 coasting, 5 pinching
        char buf[256];
        std::snprintf(buf, sizeof buf, ",\"touch\":{\"mode\":%d,\"speed\":[%.1f,%.1f]}", int(touch->gestures.now),
                      double(touch->gestures.vx / s), double(touch->gestures.vy / s));
        out += buf;
    }
}

}  // namespace

std::string page_state_json(const app& a, const touch_input* touch) {
    const float s = a.scale > 0 ? a.scale : 1.0f;
    std::string out;
    state_view(out, a, s);
    state_drawn(out, a, s);
    state_compare(out, a);
    state_touch(out, touch, s);
    out += ",\"prediction\":" + attn::session_prediction_json(a.model, a.view.sel_row);
    out += ",\"realModel\":" + real_model_json(a);
    out += wanted_model_json(a);
    out += ",\"train\":" + attn::session_train_json(a.model, true) + "}";
    return out;
}

std::string page_errors(const app& a) {
    std::string out;
    for (const auto& e : a.errors)
        out += e + "\n";
    return out;
}

std::string page_set_experiment(app& a, const char* text, bool from_host) {
    attn::change c = attn::change::open(text);
    c.from_host = from_host;
    return attn::ui::app_change(a, c, attn::ui::link_scope::experiment) ? "" : page_errors(a);
}

std::string page_open_link(app& a, const char* text) { return attn::ui::app_open_link(a, text) ? "" : page_errors(a); }

}  // namespace attn::ui
