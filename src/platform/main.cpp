// The attention playground's entry point, natively (GLFW + OpenGL 3) and in the
// browser (Emscripten's GLFW + WebGL2). The frame loop reads top to bottom; the
// only Emscripten difference is how the loop is driven (run_main_loop below).
//
// Options (argv natively; the page passes its URL hash as --experiment):
//   --experiment LINK   a link (play/link.hpp): the experiment's text form (v=1&text=...),
//                       its z= form, view.* keys (lesson, stage, row, hide, theme, poster,
//                       readonly, embed), or a whole playground URL; natively one
//                       that does not open exits with status 1
//   --print-link        on exit, print the link of what is on screen (stdout)
//   --export LIST       with --frames: on the last frame do these exports into the
//                       current directory (comma-separated: csv,json,png,svg)
//   --frames N          render N frames, then exit (for tests under Xvfb)
//   --screenshot FILE   with --frames: save the last frame as a PNG
//   --size WxH          window size in pixels (native)
//   --lesson N          open lesson N (1-13): the link's view.lesson=N
//   --stage N           open pipeline stage N (0-10): the link's view.stage=N
//   --lang en|zh        interface language
//   --model FILE --tokenizer FILE  natively: open a llama2.c checkpoint and its
//                       tokenizer in the Model window (a refused file exits with status 1)
//   --model DIR         natively: open a Hugging Face folder (GPT-2, Llama, Qwen2:
//                       config.json, tokenizer.json, model.safetensors or its shards)
//   --threads N         the threads training uses (default: every core; the same
//                       weights for any count)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#define GLFW_INCLUDE_NONE
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#include <emscripten.h>
#else
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#endif
#include <GLFW/glfw3.h>

#include "base/threads.hpp"
#include "bridge.hpp"
#include "fonts.hpp"
#include "frame/frame.hpp"
#include "frame/share.hpp"
#include "frame/touch.hpp"
#include "frame_signature.hpp"
#include "heatmap_gl.hpp"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "llama/hf_folder.hpp"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "maps/heatmap_gpu.hpp"
#include "png_write.hpp"
#include "train/train.hpp"
#include "train/trainer.hpp"
#include "view/app.hpp"
#include "view/lessons.hpp"

namespace {

struct options {
    std::string experiment;
    int frames = 0;  // 0: run until the window closes
    std::string screenshot;
    int width = 1280, height = 720;
    std::string view_keys;  // --lesson and --stage, as the link's view keys ("&view.lesson=2")
    std::string lang;
    bool print_link = false;
    std::vector<attn::ui::share_action> exports;
    std::string model, tokenizer;  // --model, --tokenizer
    int threads = 0;               // --threads; 0: every core
};

// --threads N: 1 … threads_max, else false after a message.
bool threads_parse(const char* text, int& threads) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (const std::string why = attn::threads_problem(*end || end == text ? 0 : int(std::clamp(n, -1L, 1000L))); !why.empty()) {
        std::fprintf(stderr, "attn_app: --threads: %s\n", why.c_str());
        return false;
    }
    threads = int(n);
    return true;
}

// --model FILE --tokenizer FILE (llama2.c's pair), or --model DIR alone (a Hugging Face folder).
bool model_options_valid(const options& o) {
    std::error_code ec;
    const bool folder = !o.model.empty() && std::filesystem::is_directory(o.model, ec);
    if (folder && !o.tokenizer.empty()) {
        std::fprintf(stderr, "attn_app: --model names a folder: its tokenizer.json is in it, so no --tokenizer\n");
        return false;
    }
    if (!folder && o.model.empty() != o.tokenizer.empty()) {
        std::fprintf(stderr,
                     "attn_app: --model and --tokenizer go together (a checkpoint and its tokenizer.bin), or --model "
                     "names a Hugging Face folder\n");
        return false;
    }
    return true;
}

bool options_parse(int argc, char** argv, options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--experiment" && has_value) {
            o.experiment = argv[++i];
        } else if (arg == "--print-link") {
            o.print_link = true;
        } else if (arg == "--export" && has_value) {
            const std::string list = std::string(argv[++i]) + ",";
            for (std::size_t p = 0, q; (q = list.find(',', p)) != std::string::npos; p = q + 1) {
                const std::string what = list.substr(p, q - p);
                if (what == "csv")
                    o.exports.push_back(attn::ui::share_action::export_csv);
                else if (what == "json")
                    o.exports.push_back(attn::ui::share_action::export_json);
                else if (what == "png")
                    o.exports.push_back(attn::ui::share_action::export_png);
                else if (what == "svg")
                    o.exports.push_back(attn::ui::share_action::export_svg);
                else {
                    std::fprintf(stderr, "attn_app: --export expects csv, json, png and/or svg, comma-separated\n");
                    return false;
                }
            }
        } else if (arg == "--frames" && has_value) {
            long long frames = 0;
            if (!attn::parse_whole_number(argv[++i], frames) || frames < 0 || frames > 1000000000) {
                std::fprintf(stderr, "attn_app: --frames expects a whole number of frames, not '%s'\n", argv[i]);
                return false;
            }
            o.frames = int(frames);
        } else if (arg == "--screenshot" && has_value) {
            o.screenshot = argv[++i];
        } else if ((arg == "--lesson" || arg == "--stage") && has_value) {
            // The same keys, counted the same way, as a link's view.lesson and view.stage.
            const std::string pair = "view." + arg.substr(2) + "=" + argv[++i];
            attn::link_view checked;
            if (const auto errors = attn::link_view_set(checked, pair); !errors.empty()) {
                std::fprintf(stderr, "attn_app: %s: %s\n", arg.c_str(), errors.front().c_str());
                return false;
            }
            o.view_keys += "&" + pair;
        } else if (arg == "--lang" && has_value) {
            o.lang = argv[++i];
            if (o.lang != "en" && o.lang != "zh") {
                std::fprintf(stderr, "attn_app: --lang expects en or zh\n");
                return false;
            }
        } else if (arg == "--size" && has_value) {
            if (std::sscanf(argv[++i], "%dx%d", &o.width, &o.height) != 2 || o.width < 64 || o.height < 64) {
                std::fprintf(stderr, "attn_app: --size expects WxH, e.g. 1280x720\n");
                return false;
            }
        } else if (arg == "--threads" && has_value) {
            if (!threads_parse(argv[++i], o.threads))
                return false;
        } else if ((arg == "--model" || arg == "--tokenizer") && has_value) {
            (arg == "--model" ? o.model : o.tokenizer) = argv[++i];
        } else if (arg == "--help" || arg == "-h") {
            std::printf(
                "usage: attn_app [--experiment LINK] [--lesson N] [--stage N] [--lang en|zh] [--frames N [--screenshot "
                "FILE.png] [--export csv,json,png,svg]] [--size WxH] [--print-link] [--model FILE.bin --tokenizer "
                "tokenizer.bin | --model DIR] [--threads N]\n");
            std::exit(0);
        } else {
            std::fprintf(stderr, "attn_app: unknown or incomplete option '%s' (try --help)\n", arg.c_str());
            return false;
        }
    }
    return model_options_valid(o);
}

// --model DIR: the folder's files hf_folder_files names, each read whole and
// handed over (the weights stay where they were read); one missing is left out
// for the core to name. False after a message when one cannot be read.
bool read_folder(const std::string& dir, std::vector<attn::real_model_file>& files) {
    std::string why;
    std::filesystem::path named = std::filesystem::path(dir).lexically_normal();
    if (named.filename().empty())  // "gpt2/"
        named = named.parent_path();
    const std::string folder = named.filename().string() + "/";  // the model's name (real_model_open_files)
    std::vector<std::string> names = {attn::hf_index_file};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::filesystem::path path = std::filesystem::path(dir) / names[i];
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) {
            const attn::llama_file f = attn::llama_file_read(path.string(), why);
            if (!f.bytes) {
                std::fprintf(stderr, "attn_app: %s\n", why.c_str());
                return false;
            }
            files.push_back({f.bytes.get(), f.size, folder + names[i], "", f.bytes});
        }
        if (i == 0) {  // the index (or none) says which files the folder's reading needs
            const attn::hf_folder_file index{files.empty() ? "" : names[0], files.empty() ? nullptr : files[0].bytes,
                                             files.empty() ? 0 : files[0].size};
            if (auto problem = attn::hf_folder_files(files.empty() ? nullptr : &index, names)) {
                std::fprintf(stderr, "attn_app: %s: %s\n", dir.c_str(), problem->c_str());
                return false;
            }
            names.erase(std::remove(names.begin(), names.end(), attn::hf_index_file), names.end());
            names.insert(names.begin(), attn::hf_index_file);  // read already: the loop goes on after it
        }
    }
    return true;
}

// --model and --tokenizer, or --model DIR: the Model window opens with them; false after a message.
bool open_model_files(attn::ui::app& app, const options& opt) {
    if (opt.model.empty())
        return true;
    std::string why;
    std::error_code ec;
    if (std::filesystem::is_directory(opt.model, ec)) {
        std::vector<attn::real_model_file> files;
        if (!read_folder(opt.model, files))
            return false;
        why = attn::ui::app_open_model_files(app, files);
        if (!why.empty())
            std::fprintf(stderr, "attn_app: %s: %s\n", opt.model.c_str(), why.c_str());
        return why.empty();
    }
    const attn::llama_file model = attn::llama_file_read(opt.model, why), tok = attn::llama_file_read(opt.tokenizer, why);
    if (!model.bytes || !tok.bytes) {
        std::fprintf(stderr, "attn_app: %s\n", why.c_str());
        return false;
    }
    why = attn::ui::app_open_model(app, {model.bytes.get(), model.size, opt.model, "", model.bytes},  // the model keeps its bytes
                                   {tok.bytes.get(), tok.size, opt.tokenizer, ""});
    if (!why.empty())
        std::fprintf(stderr, "attn_app: %s\n", why.c_str());
    return why.empty();
}

void apply_style(float s, attn::ui::theme t, bool touch) {
    ImGuiStyle& style = ImGui::GetStyle();
    style = ImGuiStyle();
    attn::ui::theme_style(style, t);
    style.WindowRounding = 0.0f;
    style.FrameRounding = 3.0f;
    if (touch) {
        // Every button, box and slider at least 32 px each way for a finger: a
        // frame is the 15 px font plus twice the padding (33 px); a one-glyph
        // button ("?", "×") is at least twice 13 px wide; targets further apart.
        style.FramePadding = ImVec2(13.0f, 9.0f);
        style.ItemSpacing = ImVec2(10.0f, 8.0f);
        style.ItemInnerSpacing = ImVec2(8.0f, 6.0f);
        style.ScrollbarSize = 18.0f;
        style.GrabMinSize = 20.0f;
    }
    ImGui::GetIO().ConfigFlags = touch ? ImGui::GetIO().ConfigFlags | ImGuiConfigFlags_IsTouchScreen
                                       : ImGui::GetIO().ConfigFlags & ~ImGuiConfigFlags_IsTouchScreen;
    style.ScaleAllSizes(s);
}

// The frame just drawn (before the swap: WebGL keeps no drawing buffer after it)
// as RGB rows, top row first.
std::vector<unsigned char> read_frame_rgb(int w, int h) {
    std::vector<unsigned char> rgba(std::size_t(w) * std::size_t(h) * 4), rgb(std::size_t(w) * std::size_t(h) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    for (int y = 0; y < h; ++y)  // OpenGL's first row is the bottom one
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                rgb[(std::size_t(y) * std::size_t(w) + std::size_t(x)) * 3 + std::size_t(c)] =
                    rgba[(std::size_t(h - 1 - y) * std::size_t(w) + std::size_t(x)) * 4 + std::size_t(c)];
    return rgb;
}

bool save_screenshot(const std::string& path, int w, int h) {
    return attn::platform::png_write_rgb(path, w, h, read_frame_rgb(w, h));
}

// Does what the Share menu asked this frame; right after rendering, so a PNG
// export reads the frame that is on screen.
void share_service(attn::ui::app& a, int fb_w, int fb_h) {
    namespace ui = attn::ui;
    namespace platform = attn::platform;
    for (const ui::share_action action : a.requests) {
        switch (action) {
            case ui::share_action::copy_link:
                a.notice = platform::bridge_copy_link(ui::app_link(a));
                break;
            case ui::share_action::copy_embed:
            case ui::share_action::copy_embed_poster:
                a.notice = platform::bridge_copy_embed(ui::share_embed_code(
                    platform::bridge_page_url(), ui::share_embed_link(a, action == ui::share_action::copy_embed_poster),
                    ui::share_embed_height(a), ui::share_embed_title(a)));
                break;
            case ui::share_action::export_csv:
            case ui::share_action::export_json:
            case ui::share_action::export_svg: {
                const ui::export_file f = action == ui::share_action::export_csv    ? ui::share_export_csv(a)
                                          : action == ui::share_action::export_json ? ui::share_export_json(a)
                                                                                    : ui::share_export_svg(a);
                a.notice = platform::bridge_save_file(f.name, f.mime, f.bytes);
                break;
            }
            case ui::share_action::export_png: {
                const std::vector<unsigned char> png = attn::platform::png_encode_rgb(fb_w, fb_h, read_frame_rgb(fb_w, fb_h));
                a.notice = platform::bridge_save_file(ui::share_png_name(), "image/png", std::string(png.begin(), png.end()));
                break;
            }
            case ui::share_action::open_full:
                platform::bridge_open_full(ui::share_full_link(a));
                break;
            case ui::share_action::toggle_text_view:
                platform::bridge_toggle_text_view();
                break;
            case ui::share_action::open_model_files:
                platform::bridge_open_model_files();
                break;
            case ui::share_action::open_model_folder:
                platform::bridge_open_model_folder();
                break;
            case ui::share_action::stop_model_fetch:
                platform::bridge_stop_model_fetch();
                break;
        }
    }
    a.requests.clear();
    if (!a.kept_open.empty())
        platform::bridge_kept_model("open", a.kept_open);
    if (!a.kept_remove.empty())
        platform::bridge_kept_model("remove", a.kept_remove);
    a.kept_open.clear();
    a.kept_remove.clear();
}

attn::ui::touch_input g_touch;  // the page's touches (web/touch.js), as ImGui input

// What the platform last published or stored, to tell what changed since.
struct remembered {
    attn::link_view published_view;
    std::string layout;
    attn::ui::language lang = attn::ui::language::en;
    attn::view_theme theme_choice = attn::view_theme::automatic;
    bool start_open = false;  // the start card, until it is dismissed (then remembered)
};

// The app as the page or command line opens it: the link (with --lesson and
// --stage as its view keys), embedding, the remembered language and panels.
// The link the app starts with: --experiment, with the view keys that --lesson and
// --stage stand for.
std::string start_link(const options& opt) {
    if (opt.view_keys.empty())
        return opt.experiment;
    return (opt.experiment.empty() ? std::string("v=1") : opt.experiment) + opt.view_keys;
}

remembered app_start(attn::ui::app& app, const options& opt) {
    remembered kept;
    attn::ui::app_init(app, attn::experiment{});
    // Every core, at most train_groups (a step has no more parts); 1 in a build without threads.
    app.model.threads = opt.threads > 0 ? opt.threads : std::min(attn::threads_available(), attn::train_groups);
    app.model.trace_paced = true;  // this loop draws the maps: their trace a share of the time while training
    const std::string link = start_link(opt);
    if (!link.empty() && !attn::ui::app_open_link(app, link, false)) {
        for (const auto& e : app.errors)
            std::fprintf(stderr, "attn_app: experiment: %s\n", e.c_str());
        // The address bar keeps the link that did not open, so the person can fix or
        // report it; their first change replaces it. Not one past the size limit: it
        // cannot be opened anyway, and a megabyte-long address slows the browser down.
        if (link.size() <= attn::link_limits::max_link_bytes)
            app.experiment_changed = false;
    }
    attn::platform::bridge_attach(&app);
    attn::platform::bridge_attach_touch(&g_touch);
    if (attn::platform::bridge_embedded())
        app.options.embed = true;
    // The interface language is remembered between visits; --lang wins.
    const std::string remembered_lang = attn::platform::bridge_storage_get("attn.lang");
    if (opt.lang == "zh" || (opt.lang.empty() && remembered_lang == "zh"))
        attn::ui::ui_set_language(attn::ui::language::zh);
    kept.lang = remembered_lang == "zh" ? attn::ui::language::zh : attn::ui::language::en;
    // So is the theme chosen in the View menu.
    const std::string remembered_theme = attn::platform::bridge_storage_get("attn.theme");
    app.view.theme_choice = remembered_theme == "light"  ? attn::view_theme::light
                            : remembered_theme == "dark" ? attn::view_theme::dark
                                                         : attn::view_theme::automatic;
    kept.theme_choice = app.view.theme_choice;
    // So are the panels closed from the View menu.
    kept.layout = attn::platform::bridge_storage_get("attn.layout");
    attn::ui::app_set_layout_text(app, kept.layout);
#ifdef __EMSCRIPTEN__
    // A first visit to the page itself (no link, not an embed) opens on the start card.
    app.view.show_start = link.empty() && !app.options.embed && attn::platform::bridge_storage_get("attn.start").empty();
#endif
    kept.start_open = app.view.show_start;
    // experiment_changed stays set: the first frame publishes the link in full (canonical form).
    kept.published_view = attn::ui::app_view(app);
    return kept;
}

// On the web the page sized the canvas in device pixels before the app started
// (web/app.js): the window takes that size, so its drawing buffer is not
// allocated again at another (a wait for the GPU process).
void keep_canvas_size(options& opt) {
    int width = 0, height = 0;
    float pixel_ratio = 1.0f;
    if (attn::platform::bridge_canvas_size(width, height, pixel_ratio)) {
        opt.width = width;
        opt.height = height;
    }
}

// Device pixels per UI point: the page's devicePixelRatio on the web (the canvas
// is sized in device pixels for sharp text, resized here), the monitor's content
// scale natively.
float frame_scale(GLFWwindow* window) {
    float scale = 1.0f;
    int want_w = 0, want_h = 0;
    if (attn::platform::bridge_canvas_size(want_w, want_h, scale)) {
        int cur_w = 0, cur_h = 0;
        glfwGetWindowSize(window, &cur_w, &cur_h);
        if (cur_w != want_w || cur_h != want_h)
            attn::platform::bridge_resize_canvas(want_w, want_h);
    } else {
#ifndef __EMSCRIPTEN__
        float sx = 1.0f, sy = 1.0f;
        glfwGetWindowContentScale(window, &sx, &sy);
        scale = sx;
#endif
    }
    return scale;
}

// The scale, theme and layout the ImGui style was last made for.
struct style_state {
    float scale = 0.0f;  // 0 forces the first style
    attn::ui::theme theme = attn::ui::theme::dark;
    bool touch = false;
};

// Remakes the style when the scale, the theme (the system's preference, the
// View menu or a link) or the touch layout changed, and tells the page the theme.
void style_update(attn::ui::app& app, float scale, bool touch, style_state& shown) {
    app.system_light = attn::platform::bridge_prefers_light();
    const attn::ui::theme theme = attn::ui::app_theme(app);
    if (scale == shown.scale && theme == shown.theme && touch == shown.touch)
        return;
    shown = {scale, theme, touch};
    app.scale = scale;
    apply_style(scale, theme, touch);
    attn::platform::bridge_page_theme(theme == attn::ui::theme::light);
}

// After the frame: the link into the URL (when the experiment or the view
// changed), the closed panels and the language into storage.
void publish_and_remember(attn::ui::app& app, remembered& kept) {
    const attn::link_view view = attn::ui::app_view(app);
    if ((app.experiment_changed || !(view == kept.published_view)) && attn::platform::bridge_publish(app)) {
        app.experiment_changed = false;
        kept.published_view = view;
    }
    attn::platform::bridge_publish_text_view(app);
    attn::platform::bridge_report_training(app);
    attn::platform::bridge_keep_runs(app);
    attn::platform::bridge_focus_label(app.reports.focus_label);
    if (app.options.embed && app.reports.content_height > 0)
        attn::platform::bridge_report_height(app.reports.content_height / (app.scale > 0 ? app.scale : 1.0f));
    if (const std::string layout = attn::ui::app_layout_text(app); layout != kept.layout) {
        kept.layout = layout;
        attn::platform::bridge_storage_set("attn.layout", layout);
    }
    if (app.view.theme_choice != kept.theme_choice) {
        kept.theme_choice = app.view.theme_choice;
        attn::platform::bridge_storage_set("attn.theme", app.view.theme_choice == attn::view_theme::light  ? "light"
                                                         : app.view.theme_choice == attn::view_theme::dark ? "dark"
                                                                                                           : "");
    }
    if (kept.start_open && !app.view.show_start) {
        kept.start_open = false;
        attn::platform::bridge_storage_set("attn.start", "seen");
    }
    if (attn::ui::ui_language() != kept.lang) {
        kept.lang = attn::ui::ui_language();
        attn::platform::bridge_storage_set("attn.lang", kept.lang == attn::ui::language::zh ? "zh" : "en");
    }
}

// The touches since the last frame, after the backend's own mouse position, so
// that the finger's pointer events come last. A touch screen sends no mouse
// enter: until then the backend sets the pointer from the mouse every frame;
// entered, it stops (and keeps the pointer where the finger left it).
void touch_update(GLFWwindow* window, double now, float scale, attn::ui::heatmap_context& heatmaps) {
    attn::ui::touch_input& touch = g_touch;
    const auto& pending = touch.gestures.pending.pointer;
    if (!pending.empty() && pending.front().what == attn::ui::touch_pointer_event::kind::move)
        ImGui_ImplGlfw_CursorEnterCallback(window, GLFW_TRUE);
    attn::ui::touch_input_frame(touch, now, scale, &heatmaps);
}

#ifdef __EMSCRIPTEN__
constexpr const char* glsl_version = "#version 300 es";
#else
constexpr const char* glsl_version = "#version 130";
#endif

// Natively a link that does not open is an error of the command (exit 1, before
// any window), as in `attn check`; the page instead shows the default experiment
// under a banner that names the problems. False, said on stderr, when it does not open.
bool start_link_opens(const options& opt) {
#ifndef __EMSCRIPTEN__
    if (const std::string link = start_link(opt); !link.empty())
        if (const auto r = attn::link_parse(link); !r.value) {
            for (const auto& e : r.errors)
                std::fprintf(stderr, "attn_app: experiment: %s\n", e.c_str());
            return false;
        }
#else
    (void)opt;
#endif
    return true;
}

// GLFW and a window with an OpenGL 3 context (OpenGL ES 3 on the web), made
// current; nullptr, said on stderr, when there is none.
GLFWwindow* window_open(options& opt) {
    glfwSetErrorCallback([](int code, const char* what) { std::fprintf(stderr, "GLFW error %d: %s\n", code, what); });
    if (!glfwInit()) {
        std::fprintf(stderr, "attn_app: cannot initialise GLFW (is there a display?)\n");
        return nullptr;
    }
#ifdef __EMSCRIPTEN__
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
#endif
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    keep_canvas_size(opt);
    GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "Attention playground", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "attn_app: cannot create an OpenGL 3 window\n");
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    return window;
}

void imgui_init(GLFWwindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init(glsl_version);
}

// What one frame hands the next.
struct frame_loop {
    GLFWwindow* window;
    const options& opt;
    attn::ui::app& app;
    attn::ui::heatmap_context& heatmaps;
    remembered kept;
    style_state shown;
    int frame_index = 0;
    double frame_start = -1.0;
    bool fonts_rebuilt = false;         // this frame's atlas is new (its texture too)
    std::uint64_t drawn_signature = 0;  // the last drawn frame's (frame_signature.hpp)
    double awake_until = 0;             // glfwGetTime(): the web page sleeps after this (frame_rest)
};

// The events, training's pace, the style and fonts for this frame's scale, and a
// new ImGui frame; false when the window is closing.
bool frame_begin(frame_loop& f) {
    glfwPollEvents();
    if (glfwWindowShouldClose(f.window))
        return false;
    const double now = glfwGetTime();  // training's slice follows the frame interval (train_pace_update)
    if (f.frame_start >= 0) {
        const double interval = now - f.frame_start;
        if (f.app.traced)  // what drawing a new trace cost beyond the page's other frames
            attn::session_trace_drawn(f.app.model, interval - f.app.train_spent - f.app.pace.drawing);
        attn::train_pace_update(f.app.pace, interval, f.app.train_spent);
    }
    f.app.traced = false;
    f.frame_start = now;

    const float scale = frame_scale(f.window);
    style_update(f.app, scale, attn::platform::bridge_touch_screen(), f.shown);
    // The font atlas holds the glyphs of the text on screen: a new scale, or a
    // new character (Chinese, from the font loaded when first needed), rebuilds
    // it here, before NewFrame. The UI adds its own strings via ui::glyphs_require.
    attn::platform::fonts_require_text(f.app.model.exp.text);
    f.fonts_rebuilt = attn::platform::fonts_update_before_frame(scale);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    touch_update(f.window, now, scale, f.heatmaps);
    ImGui::NewFrame();
    return true;
}

// Emscripten 3.1.6's glBufferData passes WebGL2 a size of 0 with a pointer as
// "from there to the end of the heap": a draw list that has no vertices now but
// kept its allocation (a child window holding only a heatmap's callback, as in
// Compare) sent ~30 MB a frame to the GPU process, and Compare at 1440×900 drew
// 3 frames/s. Such a list gives its memory back, so the backend passes a null pointer.
void release_empty_buffers(ImDrawData* dd) {
    for (int i = 0; i < dd->CmdListsCount; ++i) {
        ImDrawList* list = dd->CmdLists[i];
        if (list->VtxBuffer.Size == 0)
            list->VtxBuffer.clear();
        if (list->IdxBuffer.Size == 0)
            list->IdxBuffer.clear();
    }
}

// Whether this frame is drawn. Natively always (the loop's pace is the swap's). On the web
// only when it would draw other pixels than the last drawn frame (its signature differs),
// its font atlas is new, or a request reads the pixels (share_service's PNG): the canvas
// keeps showing the last drawn frame, and an idle page costs its ImGui frame alone.
bool frame_draws(frame_loop& f, int fb_w, int fb_h) {
#ifdef __EMSCRIPTEN__
    namespace p = attn::platform;
    const ImVec4 clear = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    std::uint64_t h = p::draw_data_signature(ImGui::GetDrawData());
    h = p::hash_mix(h, f.heatmaps.gpu() ? f.heatmaps.gpu()->frame_signature() : 0);
    for (float v : {float(fb_w), float(fb_h), clear.x, clear.y, clear.z})
        h = p::hash_mix(h, p::float_bits(v));
    const bool asked = p::bridge_take_redraw();  // taken every frame, so a request is not left for a later one
    const bool draw = asked || h != f.drawn_signature || f.fonts_rebuilt || !f.app.requests.empty() || f.frame_index < 3;
    if (draw)
        f.drawn_signature = h;
    return draw;
#else
    (void)f, (void)fb_w, (void)fb_h;
    return true;
#endif
}

// The frame ImGui rendered, onto the framebuffer (fb_w × fb_h) cleared to the window colour.
void frame_render(int fb_w, int fb_h) {
    glViewport(0, 0, fb_w, fb_h);
    const ImVec4 clear = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(clear.x, clear.y, clear.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    release_empty_buffers(ImGui::GetDrawData());
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// On the web a page that shows the same picture with nothing under way sleeps: its
// main loop pauses (no animation frame, no ImGui frame: an idle page took ~15 % of a
// core in frames that drew nothing) until web/sleep.js wakes it (an input event, a
// hook's call, a resize), and runs a frame every tick meanwhile (a notice's clock,
// work that shows nothing yet). It stays awake a second after anything drew, woke it
// or is under way (ui::app_working): a tooltip's delay, a typed field's caret.
void frame_rest(frame_loop& f, bool drawn) {
#ifdef __EMSCRIPTEN__
    constexpr double awake_seconds = 1.0;
    constexpr int tick_ms = 200;
    const double now = glfwGetTime();
    if (attn::platform::bridge_take_wake() || drawn || attn::ui::app_working(f.app) || ImGui::GetIO().WantTextInput)
        f.awake_until = now + awake_seconds;
    else if (now >= f.awake_until)
        attn::platform::bridge_sleep(tick_ms);
#else
    (void)f, (void)drawn;
#endif
}

// One frame: drawn, shown, its requests served and the link published; false
// to stop (the window closed, or the last of --frames, screenshot taken).
bool frame_run(frame_loop& f) {
    if (!frame_begin(f))
        return false;
    if (f.opt.frames > 0 && f.frame_index + 1 == f.opt.frames)
        f.app.requests.insert(f.app.requests.end(), f.opt.exports.begin(), f.opt.exports.end());
    attn::ui::app_draw(f.app);
    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(f.window, &fb_w, &fb_h);
    const bool drawn = frame_draws(f, fb_w, fb_h);
    if (drawn)
        frame_render(fb_w, fb_h);
    attn::platform::bridge_frame_drawn(drawn);

    if (!f.app.requests.empty() || !f.app.kept_open.empty() || !f.app.kept_remove.empty())
        share_service(f.app, fb_w, fb_h);
    publish_and_remember(f.app, f.kept);
    if (++f.frame_index == 2)
        attn::platform::bridge_first_frame();
    if (f.opt.frames > 0 && f.frame_index >= f.opt.frames) {
        if (!f.opt.screenshot.empty() && !save_screenshot(f.opt.screenshot, fb_w, fb_h)) {
            std::fprintf(stderr, "attn_app: cannot write screenshot '%s'\n", f.opt.screenshot.c_str());
            std::exit(1);
        }
        return false;
    }
    if (drawn)
        glfwSwapBuffers(f.window);
    frame_rest(f, drawn);
    return true;
}

std::function<bool()> g_frame;  // returns false to stop

void run_main_loop() {
#ifdef __EMSCRIPTEN__
    emscripten_set_main_loop([] { g_frame(); }, 0, true);
#else
    while (g_frame()) {
    }
#endif
}

void shutdown(GLFWwindow* window) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

}  // namespace

int main(int argc, char** argv) {
    options opt;
    if (!options_parse(argc, argv, opt))
        return 2;
    if (!start_link_opens(opt))
        return 1;
    GLFWwindow* window = window_open(opt);
    if (!window)
        return 1;
    imgui_init(window);
    // Heatmaps as float textures colour-mapped by a shader (rectangles if it fails).
    static std::unique_ptr<attn::ui::heatmap_gpu> heatmap_gpu = attn::platform::heatmap_gl_create();
    static attn::ui::heatmap_context heatmaps;
    heatmaps.set_gpu(heatmap_gpu.get());
    attn::platform::fonts_init();

    static attn::ui::app app;
    app.heatmaps = &heatmaps;
    // Static, as the app: on the web the main loop goes on after main has handed over.
    static frame_loop loop{window, opt, app, heatmaps, app_start(app, opt), {}};
    if (!open_model_files(app, opt)) {
        shutdown(window);
        return 1;
    }
    g_frame = [] { return frame_run(loop); };
    run_main_loop();
    // Training beside the drawing stops here, while everything it uses is alive
    // (the statics go in reverse order of their making after main returns).
    attn::trainer_collect(app.model.train);
    attn::trainer_collect(app.model.pin_train);
    if (opt.print_link)
        std::printf("%s\n", attn::ui::app_link(app).c_str());

    heatmaps.set_gpu(nullptr);
    heatmap_gpu.reset();
    shutdown(window);
    return 0;
}
