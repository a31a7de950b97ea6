// A frame of the app: the pending change, training and the trace first, then
// the layout of the panels, the top bar, the keys, the toasts (frame.hpp).
#include "frame/frame.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "base/threads.hpp"
#include "imgui.h"
#include "imgui_internal.h"  // the focused item's label: the test engine hook's context
#include "lessons/lesson_views.hpp"
#include "look/i18n.hpp"
#include "panels/panels.hpp"
#include "play/lesson_preset.hpp"

namespace attn::ui {

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
        const experiment& shown = *app_pipeline(a).exp;  // the experiment's stages, or the real model's
        int s = int(a.view.current);
        do {
            s = std::clamp(s + dir, 0, stage_count - 1);
        } while (!stage_applies(stage(s), shown) && s > 0 && s < stage_count - 1);
        a.view.current = stage(s);
    };
    if (ImGui::IsKeyPressed(ImGuiKey_RightArrow))
        step(+1);
    if (ImGui::IsKeyPressed(ImGuiKey_LeftArrow))
        step(-1);
    const int n = int(a.model.tr.tokens.size());
    if (ImGui::IsKeyPressed(ImGuiKey_DownArrow))
        a.view.sel_row = std::min(n - 1, a.view.sel_row + 1);
    if (ImGui::IsKeyPressed(ImGuiKey_UpArrow))
        a.view.sel_row = std::max(0, a.view.sel_row - 1);
    if (ctrl && ImGui::IsKeyPressed(ImGuiKey_Z))
        app_request(a, io.KeyShift ? change::redo() : change::undo());
    if (ctrl && ImGui::IsKeyPressed(ImGuiKey_Y))
        app_request(a, change::redo());
    if (!ctrl && ImGui::IsKeyPressed(ImGuiKey_H))
        a.view.show_help = !a.view.show_help;
    if (!ctrl && ImGui::IsKeyPressed(ImGuiKey_L))
        app_toggle_language(a);
    if (ImGui::IsKeyPressed(ImGuiKey_Escape)) {  // the help, else the Model window
        if (a.view.show_help)
            a.view.show_help = false;
        else
            a.view.model.open = false;
    }
}

// The panels are one keyboard-navigation space with the top bar: Tab walks
// from the top bar through the controls, the lessons, the pipeline and the side.
constexpr ImGuiWindowFlags panel_nav = ImGuiWindowFlags_NavFlattened;

bool panel_hidden(const app& a, view_panel p) { return a.options.hides(p) || a.view.layout_hidden[std::size_t(p)]; }

// The models this browser keeps (the page's IndexedDB): each with its size, a
// click opens it, Remove forgets it (as the Model window's list).
void kept_models_menu(const app& a, frame_out& out) {
    if (a.model_files.kept.empty())
        return;
    ImGui::TextDisabled("%s", tr("Kept in this browser", "保存在这个浏览器里"));
    for (const page_model_files::stored& k : a.model_files.kept) {
        ImGui::PushID(k.key.c_str());
        const std::string label = k.name + " · " + megabytes(std::size_t(k.bytes));
        if (ImGui::Selectable(label.c_str(), false, 0, ImVec2(ImGui::CalcTextSize(label.c_str()).x, 0))) {
            out.model_open_kept = k.key;
            view_edit(a, out).model.open = true;
        }
        mark_widget(out, ("view_kept_open_" + k.key).c_str());
        ImGui::SameLine();
        if (chip_button(tr("Remove", "删除")))
            out.model_remove_kept = k.key;
        mark_widget(out, ("view_kept_remove_" + k.key).c_str());
        ImGui::PopID();
    }
}

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
            bool shown = !a.view.layout_hidden[std::size_t(panel)];
            if (ImGui::Checkbox(label, &shown)) {
                view_edit(a, out).layout_hidden[std::size_t(panel)] = !shown;
            }
            mark_widget(out, (std::string("view_") + view_panel_name(panel)).c_str());
        }
        ImGui::Separator();
        text_plain(out, tr("Theme", "主题"));
        const std::pair<view_theme, const char*> themes[] = {{view_theme::automatic, tr("as the system", "跟随系统")},
                                                             {view_theme::light, tr("light", "浅色")},
                                                             {view_theme::dark, tr("dark", "深色")}};
        for (const auto& [choice, label] : themes) {
            if (ImGui::RadioButton(label, a.view.theme_choice == choice))
                view_edit(a, out).theme_choice = choice;
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
        ImGui::Separator();
        // A real model: llama2.c's checkpoint and tokenizer, opened from the person's files (model_window.cpp).
        if (ImGui::Selectable(a.real.model ? tr("Model window", "模型窗口")
                                           : tr("Open a model (llama2.c .bin files)…", "打开模型（llama2.c 的 .bin 文件）…"))) {
            view_edit(a, out).model.open = true;
            if (!a.real.model)
                out.share.push_back(share_action::open_model_files);
        }
        mark_widget(out, "view_model");
        kept_models_menu(a, out);
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
        view_edit(a, out).show_help = !a.view.show_help;
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

// The focused item's label (end of this file).
void focus_label_begin();
std::string focus_label_end(const app& a);

namespace {

// The frame's state work before anything draws: the pending change, training,
// the trace, the measures that read the trained model, this frame's reports.
void app_update(app& a) {
    app_apply_pending(a);
    app_train(a);
    app_sync(a);  // the one point where the trace is recomputed, before anything draws
    // One slice a frame for the measures of the trained model: L11's and L12's
    // circuit first while it is being read, then the task's (ablation tables). A
    // lesson's first frame is drawn before its reading starts: the page answers
    // the click at once ("Reading the circuit…"), the numbers a frame later.
    const double slice = trainer_training(a.model.train) ? a.pace.slice : std::min(a.pace.slice, train_pace::measuring);
    const bool first_frame = a.reports.lesson_drawn != a.view.lesson.index;
    a.reports.lesson_drawn = a.view.lesson.index;
    a.reports.reading = false;
    if (a.view.lesson.index == 10 || a.view.lesson.index == 11) {  // L11, L12: the circuit, a slice a frame
        a.reports.reading = first_frame || session_measure_circuit(a.model, slice);
        if (a.view.lesson.cell != a.model.circuit.cell)
            circuit_study_patch_cell(a.model.train, a.model.circuit, a.view.lesson.cell);
    }
    if (!a.reports.reading)
        session_measure_trained(a.model, slice);
    app_model_update(a, a.view.model.open ? train_pace::measuring * 2 : 0.0);
    // Nothing reads the run past here but its shape: its steps go on beside the
    // drawing until the next frame takes them in (training.hpp).
    session_train_launch(a.model);
    a.reports.widgets.clear();
    a.reports.maps.clear();
    a.reports.clipped.clear();
    a.reports.keyboard_focus.clear();
    if (threads_lost() && !a.threads_lost_said) {  // base/threads.hpp: said once, the page goes on
        a.threads_lost_said = true;
        a.notice =
            tr("A worker thread stopped answering (a browser may end one): the page goes on on one thread. "
               "Reload it to use every core.",
               "一个工作线程停止响应（浏览器可能会结束它）：页面改用单线程继续运行。重新加载页面即可再用所有核心。");
    }
    expire_notice(a);
}

}  // namespace

namespace {

// An embed: its bar, the banner, and only the centre panel at the iframe's size.
void draw_embed(app& a, const ImGuiViewport* vp) {
    draw_panel(a, embed_bar);
    draw_panel(a, banner);
    // Only the centre panel, at whatever size the iframe has.
    ImGui::BeginChild("center", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar | panel_nav);
    if (a.view.lesson.index >= 0 && !a.options.hides(view_panel::lessons))
        draw_panel(a, panel_lesson);
    draw_panel(a, panel_train);
    draw_panel(a, panel_pipeline);
    // The bottom of the content as if unscrolled, plus the root window's padding.
    a.reports.content_height =
        ImGui::GetCursorScreenPos().y + ImGui::GetScrollY() + ImGui::GetStyle().WindowPadding.y - vp->WorkPos.y;
    ImGui::EndChild();
    ImGui::End();
}

// The page: controls, the centre (lesson, training, pipeline) and the side.
void draw_columns(app& a) {
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
    a.reports.content_height = ImGui::GetCursorPosY() + ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().WindowPadding.y;
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
}

}  // namespace

namespace {

// Each map cut by a box of its own, beside the text items cut by their windows.
void report_cut_maps(app& a) {
    for (const heatmap_cut& c : a.heatmaps->cut())
        a.reports.clipped.push_back({"map " + c.id, c.window, c.x0, c.y0, c.x1, c.y1, c.box_x0, c.box_y0, c.box_x1, c.box_y1});
}

}  // namespace

void app_draw(app& a) {
    IM_ASSERT(a.heatmaps && "the platform hands the app its heatmap_context before the first frame");
    app_update(a);
    focus_label_begin();
    glyphs_require(a.view.text_edit);  // what is being typed, accepted or not
    handle_keys(a);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("##root", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground);
    if (a.options.embed) {
        draw_embed(a, vp);
        draw_panel(a, toast);
        a.reports.focus_label = focus_label_end(a);
        report_cut_maps(a);
        return;
    }
    draw_panel(a, top_bar);
    a.top_bar_bottom = ImGui::GetCursorScreenPos().y;
    draw_panel(a, banner);

    draw_columns(a);
    ImGui::End();
    if (a.view.model.open)
        draw_panel(a, panel_model);
    if (a.view.show_help)
        draw_panel(a, panel_help);
    else if (a.view.show_start)
        draw_panel(a, panel_start);
    draw_panel(a, toast);
    a.reports.focus_label = focus_label_end(a);
    report_cut_maps(a);
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

// Tab from a widget that became disabled under the keyboard's focus (Train once
// its run reached the last step): ImGui skips a disabled item while it looks for
// the next tab stop, so it never finds where the focus is and Tab does nothing.
// Here the focused item counts as the place to go on from, as if enabled: Tab
// reaches the next stop, Shift+Tab the one before. The same conditions as
// ImGui's NavProcessItemForTabbingRequest.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, ImGuiID id, const ImRect&, const ImGuiLastItemData* item) {
    ImGuiContext& g = *ctx;
    if (!item || id == 0 || id != g.NavId || !(item->InFlags & ImGuiItemFlags_Disabled) || !g.NavMoveScoringItems ||
        !(g.NavMoveFlags & ImGuiNavMoveFlags_IsTabbing) || !g.NavWindow || !g.CurrentWindow)
        return;
    ImGuiWindow& w = *g.CurrentWindow;
    if (g.NavWindow->RootWindowForNav != w.RootWindowForNav || g.NavLayer != w.DC.NavLayerCurrent ||
        g.NavFocusScopeId != g.CurrentFocusScopeId)
        return;
    if (g.NavTabbingDir == +1 && g.NavTabbingCounter <= 0)  // -1 until ImGui meets the focused item
        g.NavTabbingCounter = 1;                            // the next stop drawn takes the focus (or the first, wrapping)
    else if (g.NavTabbingDir == -1 && g.NavMoveResultLocal.ID != 0) {
        g.NavMoveScoringItems = false;  // the stop before it is the result
        g.NavAnyRequest = g.NavInitRequest;
    }
}
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
    return a.reports.keyboard_focus.rfind("grid_", 0) == 0 || g_nav_label_seen
               ? tr("map: the arrow keys move the selected cell", "矩阵图：方向键移动选中的格子")
               : "";
}

}  // namespace attn::ui
