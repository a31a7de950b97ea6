// The browser bridge: everything that talks to the page. The functions with
// C linkage are the JS hook the page exposes as window.attn (see web/app.js);
// tests and embedders use them to read and set the experiment.
#include "bridge.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include "imgui.h"
#include "look/i18n.hpp"

#include "base/text_util.hpp"
#include "fonts.hpp"
#include "frame/page_pace.hpp"
#include "frame/page_runs.hpp"
#include "frame/page_state.hpp"
#include "frame/text_mirror.hpp"
#include "llama/hf_download.hpp"
#include "llama/hf_folder.hpp"
#include "model/trace_json.hpp"
#include "play/session_json.hpp"
#include "play/training.hpp"
#include "train/train.hpp"

namespace {
attn::ui::app* g_app = nullptr;
attn::ui::page_runs g_runs;  // the page's store of runs, as this page knows it (bridge_keep_runs)
attn::ui::touch_input* g_touch = nullptr;
std::string g_buffer;        // holds the last string returned to JS
bool g_frame_drawn = false;  // main.cpp drew the frame that ran last
bool g_redraw = false;       // the page asked for a drawn frame
bool g_asleep = false;       // the main loop is paused (bridge_sleep)
bool g_woken = false;        // woken since the last frame took it (bridge_take_wake)

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attn_hook_experiment() {
    g_buffer = g_app ? attn::experiment_to_text(g_app->model.exp) : "";
    return g_buffer.c_str();
}

// Applies the experiment of a link (any form link_parse reads: canonical, z=,
// a whole URL; view.* keys are checked but the view stays as it is); returns ""
// or the problems, one per line.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_set_experiment(const char* text) {
    if (!g_app)
        return "";
    g_buffer = attn::ui::page_set_experiment(*g_app, text, false);
    return g_buffer.c_str();
}

// attn_hook_set_experiment for a host page's attn:set: its changes in a row make
// one undo step (session.hpp, change::from_host), so a host that floods the page
// leaves the reader's own undo steps in the history.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_host_set_experiment(const char* text) {
    if (!g_app)
        return "";
    g_buffer = attn::ui::page_set_experiment(*g_app, text, true);
    return g_buffer.c_str();
}

// Opens a link as the page does (a pasted link, back/forward): the experiment
// and its view, an undo step. Returns "" or the problems, one per line.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_open_link(const char* text) {
    if (!g_app)
        return "";
    g_buffer = attn::ui::page_open_link(*g_app, text);
    return g_buffer.c_str();
}

// The weights hash of the model a recipe's link names, trained to `steps` steps
// of its run (as `trained=steps` would say; the link's own trained= or steps when
// steps < 0), or "error: …". Every wasm engine gives the hash the core tests
// record under Node (tests/web/train.test.mjs checks Chromium's).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_train_hash(const char* recipe, int steps) {
    // as the page trains: the same bits on any count
    const attn::train_link_hash_result r = attn::train_link_hash(recipe, steps, g_app ? g_app->model.threads : 1);
    g_buffer = r.error.empty() ? r.hash : "error: " + r.error;
    return g_buffer.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_trace_json() {
    if (!g_app) {
        g_buffer = "{}";
        return g_buffer.c_str();
    }
    attn::ui::app_sync(*g_app);  // between frames, the trace of the experiment just set
    g_buffer = attn::trace_to_json(g_app->model.exp, g_app->model.tr);
    return g_buffer.c_str();
}

// The view, the widgets and windows drawn, the real model, the training
// (page_state.hpp), so a test can click where a person would and read what the
// app shows.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_ui_state() {
    g_buffer = "{}";
    if (!g_app)
        return g_buffer.c_str();
    attn::ui::app_sync(*g_app);
    g_buffer = attn::ui::page_state_json(*g_app, g_touch);
    return g_buffer.c_str();
}

// The text view as the page shows it (text_mirror.hpp), built now.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_text_view() {
    g_buffer = "{}";
    if (!g_app)
        return g_buffer.c_str();
    attn::ui::app_sync(*g_app);
    g_buffer = attn::ui::text_mirror_json(*g_app);
    return g_buffer.c_str();
}

// A touch on the canvas (web/touch.js): phase 0 start, 1 move, 2 end, 3 cancel;
// the finger's id; where, in the canvas's device pixels (ImGui's); when, in seconds.
EMSCRIPTEN_KEEPALIVE void attn_hook_touch(int phase, int id, double x, double y, double seconds) {
    if (!g_touch || phase < 0 || phase > 3 || !std::isfinite(x) || !std::isfinite(y) || !std::isfinite(seconds))
        return;
    attn::ui::touch_input_event(*g_touch, {attn::ui::touch_phase(phase), id, float(x), float(y), seconds});
}

// Whether the app is navigating its controls by keyboard (Tab started it, Escape ends it).
EMSCRIPTEN_KEEPALIVE int attn_hook_keyboard_nav() {
    return g_app && (ImGui::GetIO().ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) ? 1 : 0;
}

// Whether a lesson's reading of the trained model is still under way (L11, L12).
EMSCRIPTEN_KEEPALIVE int attn_hook_reading() { return g_app && g_app->reports.reading ? 1 : 0; }

// Whether the app drew the frame that just ran (bridge_frame_drawn); asks for the next to be drawn.
EMSCRIPTEN_KEEPALIVE int attn_hook_frame_drawn() { return g_frame_drawn ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE void attn_hook_redraw() { g_redraw = true; }

// The main loop asleep (bridge_sleep): a wake runs it again and keeps it awake a while
// (an event, a call that may change the app); a tick runs it for one frame, which may
// sleep again. web/sleep.js calls both.
EMSCRIPTEN_KEEPALIVE void attn_hook_wake() {
    g_woken = true;
    if (std::exchange(g_asleep, false))
        emscripten_resume_main_loop();
}
EMSCRIPTEN_KEEPALIVE void attn_hook_tick() {
    if (std::exchange(g_asleep, false))
        emscripten_resume_main_loop();
}

EMSCRIPTEN_KEEPALIVE const char* attn_hook_errors() {
    g_buffer = g_app ? attn::ui::page_errors(*g_app) : "";
    return g_buffer.c_str();
}

// The files the page read for one model (web/folders.js): llama2.c's checkpoint
// and tokenizer, or a Hugging Face folder's. `n` of them, each in a
// Module._malloc'd buffer handed over here (freed when nobody keeps it);
// `names`: a line per file, its plain name and its SHA-256 (hex, "" when the page
// could not compute it) with a tab between; `table`: n (pointer, size) pairs.
// Returns "" when the model opened, else why not (the Model window shows it too).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_open_model_files(const char* names, const std::uint32_t* table, int n) {
    g_buffer.clear();
    std::vector<attn::real_model_file> files;
    std::string_view lines = names ? names : "";
    for (int i = 0; i < n; ++i) {
        const std::size_t end = std::min(lines.find('\n'), lines.size());
        const std::string_view line = lines.substr(0, end);
        lines.remove_prefix(std::min(end + 1, lines.size()));
        const std::size_t tab = std::min(line.find('\t'), line.size());
        auto* bytes = reinterpret_cast<unsigned char*>(std::uintptr_t(table[2 * i]));
        const std::size_t size = bytes ? table[2 * i + 1] : 0;
        // Handed over: a file's buffer may become the model's weights (no copy).
        std::shared_ptr<unsigned char> own(bytes, [](unsigned char* q) { std::free(q); });
        files.push_back({bytes, size, std::string(line.substr(0, tab)), std::string(line.substr(std::min(tab + 1, line.size()))),
                         bytes ? own : nullptr});
    }
    if (g_app)
        g_buffer = attn::ui::app_open_model_files(*g_app, files);
    return g_buffer.c_str();
}

// Which files a Hugging Face folder's reading needs (attn::hf_folder_files), given
// its index's bytes (nullptr when the folder has none): {"files":[names]} or
// {"error":why}. web/folders.js reads config.json, the index, then these.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_model_folder_files(const unsigned char* index, double size) {
    const attn::hf_folder_file file{attn::hf_index_file, index, index ? std::size_t(size) : 0};
    std::vector<std::string> names;
    if (auto why = attn::hf_folder_files(index ? &file : nullptr, names)) {
        g_buffer = "{\"error\":" + attn::json_string(*why) + "}";
        return g_buffer.c_str();
    }
    g_buffer = "{\"files\":[";
    for (std::size_t i = 0; i < names.size(); ++i)
        g_buffer += (i ? "," : "") + attn::json_string(names[i]);
    g_buffer += "]}";
    return g_buffer.c_str();
}

// How far a downloaded folder's file `name` may be read, from its first `size`
// bytes (attn::hf_download_limit_of): {"bytes":most,"need":bytes to read first and ask again}
// or {"error":why}.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_folder_limit(const unsigned char* head, double size, const char* name) {
    const attn::hf_download_limit l = attn::hf_download_limit_of(name ? name : "", head, head ? std::size_t(size) : 0);
    g_buffer = l.error.empty() ? "{\"bytes\":" + std::to_string(l.bytes) + ",\"need\":" + std::to_string(l.need) + "}"
                               : "{\"error\":" + attn::json_string(l.error) + "}";
    return g_buffer.c_str();
}

// The fetch of the link's model_url= / tokenizer_url= (web/models.js): each step, then
// file "" when it ended, with the error when it failed (ui::app_model_fetch).
EMSCRIPTEN_KEEPALIVE void attn_hook_model_fetch(const char* file, double received, double total, const char* error) {
    if (g_app)
        attn::ui::app_model_fetch(*g_app, file ? file : "", received, total, error ? error : "");
}

// How long the link's two files may be, from the checkpoint's first `size` bytes
// (web/models.js reads them first of a model_url= download):
// {"checkpoint":bytes,"tokenizer":bytes} or {"error":why} (attn::real_model_download_limits).
EMSCRIPTEN_KEEPALIVE const char* attn_hook_model_limits(const unsigned char* head, double size, const char* name) {
    g_buffer =
        attn::real_model_limits_json(attn::real_model_download_limits(head, head ? std::size_t(size) : 0, name ? name : ""));
    return g_buffer.c_str();
}

// The open model could not be kept in this browser (IndexedDB full, cleared or
// refused): why, shown in the Model window ("" when it was kept).
EMSCRIPTEN_KEEPALIVE void attn_hook_model_not_kept(const char* why) {
    if (g_app)
        g_app->model_files.not_kept = why ? why : "";
}

// The models the page keeps (IndexedDB), one per line: key, name, tokenizer, bytes (tabs between).
EMSCRIPTEN_KEEPALIVE void attn_hook_kept_models(const char* lines) {
    if (g_app && lines)
        attn::ui::app_set_kept_models(*g_app, lines);
}

// The page's store answered the ask for `key`'s run (after giving it, when it had one).
EMSCRIPTEN_KEEPALIVE void attn_hook_run_answered(const char* key) {
    if (g_app && key)
        attn::session_run_answered(g_app->model, key);
}

// Another page of the site trains `key`: the answer waits for its run.
EMSCRIPTEN_KEEPALIVE void attn_hook_run_elsewhere(const char* key) {
    if (g_app && key)
        attn::session_run_elsewhere(g_app->model, key);
}

// A run the page kept (web/runs.js "runs": trainer_save's bytes, `size` of them,
// read here and not kept): "" when the session took it, else why not.
EMSCRIPTEN_KEEPALIVE const char* attn_hook_keep_run(const unsigned char* bytes, double size) {
    const attn::ui::page_run_kept kept =
        attn::ui::page_runs_keep(g_runs, g_app ? &g_app->model : nullptr, bytes, bytes ? std::size_t(size) : 0);
    g_redraw = g_redraw || kept.offered;
    g_buffer = kept.error;
    return g_buffer.c_str();
}

// The page's answer to bridge_fetch_font: `bytes` (size bytes, from Module._malloc)
// now belongs to the fonts; nullptr if the fetch failed.
EMSCRIPTEN_KEEPALIVE void attn_hook_font_received(const char* file_name, unsigned char* bytes, int size) {
    attn::platform::fonts_receive(file_name, bytes, size > 0 ? std::size_t(size) : 0);
}

}  // extern "C"

namespace attn::platform {

void bridge_attach(ui::app* a) {
    g_app = a;
    a->model.runs_beyond = true;  // the page's store of runs: asked before a recipe trains (bridge_keep_runs)
}
void bridge_attach_touch(ui::touch_input* t) { g_touch = t; }

bool bridge_publish(const ui::app& a) {
    static ui::link_pace pace;
    if (!ui::link_pace_due(pace, emscripten_get_now()))
        return false;
    const std::string text = ui::app_link(a);
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.publishExperiment)
                window.attnShell.publishExperiment(UTF8ToString($0));
        },
        text.c_str());
    return true;
}

void bridge_report_training(const ui::app& a) {
    static ui::train_report_pace pace;
    if (!ui::train_report_due(pace, a.model, emscripten_get_now()))
        return;
    const std::string json = session_train_json(a.model, false);
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.trainProgress)
                window.attnShell.trainProgress(UTF8ToString($0));
        },
        json.c_str());
}

namespace {

// The page's store asked each time the session asks (page_runs_ask); one that
// has not answered in page_runs::answer_ms: trained here (page_runs_wait).
void ask_for_run(attn::session& s) {
    const double now = emscripten_get_now();
    if (attn::ui::page_runs_ask(g_runs, s, now)) {
        const bool asked = EM_ASM_INT(
            {
                if (!window.attnShell || !window.attnShell.runWanted)
                    return 0;
                window.attnShell.runWanted(UTF8ToString($0), $1);
                return 1;
            },
            s.run_asked.c_str(), s.train.run ? s.train.run->reach : 0);
        if (!asked)
            attn::session_run_answered(s, s.run_asked);
    }
    attn::ui::page_runs_wait(g_runs, s, now);
}

// Whether this page trains the recipe asked or awaits the answer, told when it
// changes (page_runs_training).
void tell_training(const attn::session& s) {
    const std::optional<int> told = attn::ui::page_runs_training(g_runs, s);
    if (!told)
        return;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.runTraining)
                window.attnShell.runTraining(UTF8ToString($0), $1 & 1, $1 & 2);
        },
        g_runs.told_key.c_str(), *told);
}

// The run at its step, handed to the page's store when it went further than the one kept (page_runs_store).
void store_run(const attn::trainer& t) {
    const std::optional<attn::ui::page_run_handed> run = attn::ui::page_runs_store(g_runs, t);
    if (!run)
        return;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.runStore)
                window.attnShell.runStore(UTF8ToString($0), $1, HEAPU8.slice($2, $2 + $3));
        },
        run->key.c_str(), run->reach, run->bytes.data(), run->bytes.size());
}

}  // namespace

void bridge_keep_runs(const ui::app& a) {
    const attn::trainer& t = a.model.train;
    if (t.run && !t.lost) {
        ask_for_run(g_app->model);  // a's, which the answer changes
        store_run(t);
    }
    tell_training(a.model);
}

void bridge_publish_text_view(ui::app& a) {
    static ui::text_view_pace pace;
    const std::string* published = ui::text_view_due(pace, a, emscripten_get_now());
    if (!published)
        return;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.textView)
                window.attnShell.textView(UTF8ToString($0));
        },
        published->c_str());
}

std::string bridge_copy_link(const std::string& link) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.copyText)
                return 0;
            window.attnShell.copyText(location.origin + location.pathname + '#' + UTF8ToString($0));
            return 1;
        },
        link.c_str());
    return ok ? ui::tr("Link copied.", "链接已复制。") : ui::tr("This page cannot copy.", "这个页面无法复制。");
}

std::string bridge_page_url() {
    // Two steps (the length, then the bytes) so C++ owns the buffer, as bridge_storage_get.
    const int length = EM_ASM_INT({
        window.attnPageUrl = location.origin + location.pathname;
        return lengthBytesUTF8(window.attnPageUrl);
    });
    std::string s(std::size_t(length) + 1, '\0');
    EM_ASM(
        {
            stringToUTF8(window.attnPageUrl, $0, $1);
            delete window.attnPageUrl;
        },
        s.data(), length + 1);
    s.resize(std::size_t(length));
    return s;
}

std::string bridge_copy_embed(const std::string& code) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.copyText)
                return 0;
            window.attnShell.copyText(UTF8ToString($0));
            return 1;
        },
        code.c_str());
    return ok ? ui::tr("Embed code copied.", "嵌入代码已复制。") : ui::tr("This page cannot copy.", "这个页面无法复制。");
}

std::string bridge_save_file(const std::string& name, const std::string& mime, const std::string& bytes) {
    const int ok = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.download)
                return 0;
            window.attnShell.download(UTF8ToString($0), UTF8ToString($1), HEAPU8.slice($2, $2 + $3));
            return 1;
        },
        name.c_str(), mime.c_str(), bytes.data(), int(bytes.size()));
    return (ok ? ui::tr("Downloaded ", "已下载 ") : ui::tr("This page cannot download ", "这个页面无法下载 ")) + name;
}

void bridge_open_full(const std::string& link) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.openUrl)
                window.attnShell.openUrl(location.origin + location.pathname + '#' + UTF8ToString($0));
        },
        link.c_str());
}

bool bridge_embedded() {
    return EM_ASM_INT({ return window.attnShell && window.attnShell.embedded ? 1 : 0; });
}

std::string bridge_storage_get(const char* key) {
    // Two steps (the length, then the bytes) so C++ owns the buffer.
    const int length = EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.storageGet)
                return -1;
            const v = window.attnShell.storageGet(UTF8ToString($0));
            if (v == null)  // null or undefined
                return -1;
            window.attnStorageValue = String(v);
            return lengthBytesUTF8(window.attnStorageValue);
        },
        key);
    if (length < 0)
        return "";
    std::string s(std::size_t(length) + 1, '\0');
    EM_ASM(
        {
            stringToUTF8(window.attnStorageValue, $0, $1);
            delete window.attnStorageValue;
        },
        s.data(), length + 1);
    s.resize(std::size_t(length));
    return s;
}

void bridge_storage_set(const char* key, const std::string& value) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.storageSet)
                window.attnShell.storageSet(UTF8ToString($0), UTF8ToString($1));
        },
        key, value.c_str());
}

void bridge_open_model_files() {
    EM_ASM({
        if (window.attnShell && window.attnShell.openModelFiles)
            window.attnShell.openModelFiles();
    });
}

void bridge_open_model_folder() {
    EM_ASM({
        if (window.attnShell && window.attnShell.openModelFolder)
            window.attnShell.openModelFolder();
    });
}

void bridge_stop_model_fetch() {
    EM_ASM({
        if (window.attnShell && window.attnShell.models)
            window.attnShell.models.stop();
    });
}

void bridge_kept_model(const char* action, const std::string& key) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.keptModel)
                window.attnShell.keptModel(UTF8ToString($0), UTF8ToString($1));
        },
        action, key.c_str());
}

void bridge_toggle_text_view() {
    EM_ASM({
        if (window.attnShell && window.attnShell.toggleTextView)
            window.attnShell.toggleTextView();
    });
}

void bridge_report_height(float css_pixels) {
    static ui::height_pace pace;
    if (!ui::height_due(pace, css_pixels))
        return;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.contentHeight)
                window.attnShell.contentHeight($0);
        },
        double(css_pixels));
}

bool bridge_prefers_light() {
    return EM_ASM_INT({ return window.attnShell && window.attnShell.prefersLight ? 1 : 0; });
}

bool bridge_touch_screen() {
    return EM_ASM_INT({
        const coarse = window.matchMedia && window.matchMedia('(pointer: coarse)').matches;
        return coarse || Math.min(window.screen.width, window.screen.height) <= 500 ? 1 : 0;
    });
}

void bridge_page_theme(bool light) {
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.pageTheme)
                window.attnShell.pageTheme($0 ? 'light' : 'dark');
        },
        light);
}

void bridge_focus_label(const std::string& label) {
    static ui::focus_label_pace pace;
    if (!ui::focus_label_due(pace, label))
        return;
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.focusLabel)
                window.attnShell.focusLabel(UTF8ToString($0));
        },
        label.c_str());
}

void bridge_frame_drawn(bool drawn) { g_frame_drawn = drawn; }

bool bridge_take_redraw() { return std::exchange(g_redraw, false); }

void bridge_sleep(int tick_ms) {
    if (g_asleep)
        return;
    g_asleep = true;
    emscripten_pause_main_loop();
    EM_ASM(
        {
            if (window.attnShell && window.attnShell.sleep)
                window.attnShell.sleep($0);
            else
                setTimeout(
                    function() { Module._attn_hook_tick(); }, $0);
        },
        tick_ms);
}

bool bridge_take_wake() { return std::exchange(g_woken, false); }

void bridge_first_frame() {
    EM_ASM({
        if (window.attnShell)
            window.attnShell.firstFrame();
    });
}

void bridge_resize_canvas(int width, int height) {
    // Browser.setCanvasSize notifies its resize listeners, GLFW's among them.
    EM_ASM({ Browser.setCanvasSize($0, $1); }, width, height);
}

bool bridge_canvas_size(int& width, int& height, float& pixel_ratio) {
    double css_w = 0, css_h = 0;
    emscripten_get_element_css_size("#canvas", &css_w, &css_h);
    pixel_ratio = float(emscripten_get_device_pixel_ratio());
    width = int(std::lround(css_w * pixel_ratio));
    height = int(std::lround(css_h * pixel_ratio));
    return width > 0 && height > 0;
}

bool bridge_fetch_font(const char* file_name) {
    return EM_ASM_INT(
        {
            if (!window.attnShell || !window.attnShell.fetchFont)
                return 0;
            window.attnShell.fetchFont(UTF8ToString($0));
            return 1;
        },
        file_name);
}

}  // namespace attn::platform

#else

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace attn::platform {
std::string bridge_copy_link(const std::string& link) {
    std::printf("link: %s\n", link.c_str());
    std::fflush(stdout);
    return "No clipboard here: the link is printed in the terminal.";
}
std::string bridge_page_url() { return "index.html"; }
std::string bridge_copy_embed(const std::string& code) {
    std::printf("embed code:\n%s", code.c_str());
    std::fflush(stdout);
    return "No clipboard here: the embed code is printed in the terminal.";
}
std::string bridge_save_file(const std::string& name, const std::string&, const std::string& bytes) {
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(name, ec);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (ec || !out) {
        std::fprintf(stderr, "attn_app: cannot write %s\n", path.string().c_str());
        return "Could not save " + path.string();
    }
    std::printf("saved %s\n", path.string().c_str());
    std::fflush(stdout);
    return "Saved " + path.string();
}
void bridge_open_full(const std::string&) {}
bool bridge_embedded() { return false; }
std::string bridge_storage_get(const char*) { return ""; }
void bridge_storage_set(const char*, const std::string&) {}
void bridge_attach(ui::app*) {}
void bridge_attach_touch(ui::touch_input*) {}
bool bridge_publish(const ui::app&) { return true; }
void bridge_publish_text_view(ui::app&) {}
void bridge_report_training(const ui::app&) {}
void bridge_keep_runs(const ui::app&) {}
void bridge_toggle_text_view() {}
void bridge_open_model_files() {}
void bridge_open_model_folder() {}
void bridge_stop_model_fetch() {}
void bridge_kept_model(const char*, const std::string&) {}
bool bridge_prefers_light() { return false; }
bool bridge_touch_screen() { return false; }
void bridge_report_height(float) {}
void bridge_page_theme(bool) {}
void bridge_focus_label(const std::string&) {}
void bridge_first_frame() {}
void bridge_frame_drawn(bool) {}
bool bridge_take_redraw() { return false; }
void bridge_sleep(int) {}
bool bridge_take_wake() { return false; }
bool bridge_canvas_size(int&, int&, float&) { return false; }
void bridge_resize_canvas(int, int) {}
bool bridge_fetch_font(const char*) { return false; }
}  // namespace attn::platform

#endif
