// What the platform needs from its host: the browser page on the web, the
// process natively. The page passes its URL hash to main() as
// `--experiment <hash>`, so argv feeds the same options in both. Emscripten is named only
// in the platform layer: bridge_web.cpp, main.cpp (the loop) and fonts.cpp (the lazy font).
#pragma once

#include <string>

#include "frame/touch.hpp"
#include "view/app.hpp"

namespace attn::platform {

// Lets the page's JS hook (window.attn) reach the app. No-op natively.
void bridge_attach(ui::app* a);
// Where the page's touches go (web/touch.js calls attn_hook_touch). No-op natively.
void bridge_attach_touch(ui::touch_input* t);

// Publishes an accepted change of the experiment or the view: rewrites the URL
// hash with app_link (experiment + view.* keys) on the web, at most every 250 ms
// (a dragged slider changes it every frame). Returns false when it held back, so
// the caller tries again next frame. Always true natively.
bool bridge_publish(const ui::app& a);

// Hands the page the text view (text_mirror.hpp) when it changed, at most
// every 250 ms: web/textview.js renders it beside the canvas and announces its
// summary. No-op natively.
void bridge_publish_text_view(ui::app& a);

// Training progress (a recipe's experiment): told to the page, which tells an
// embed's host (attn:train {step, target, steps, loss, accuracy, done, hash}),
// whenever the trainer's step changed, at most every 100 ms, and always when it
// arrives. No-op natively.
void bridge_report_training(const ui::app& a);

// Trained runs kept in the browser (web/runs.js "runs", train/trainer_file.hpp):
// when the recipe trained changes, the page is asked for its kept run
// (attnShell.runWanted), which comes back through attn_hook_keep_run and then
// attn_hook_run_answered (session_run_answered: the run takes no step before
// that, or for at most 3 s); a run at its step that went further than the one
// the page keeps is handed over (attnShell.runStore). No-op natively.
void bridge_keep_runs(const ui::app& a);

// An embed's content height in CSS pixels, told to the host (attn:resize) when
// it changes by a pixel or more. No-op natively.
void bridge_report_height(float css_pixels);

// Shows or hides the page's text view (web/textview.js). No-op natively.
void bridge_toggle_text_view();

// Opens the page's file chooser for a model's files (llama2.c's checkpoint and
// tokenizer, or a Hugging Face folder's files), or its folder chooser
// (web/folders.js); the files arrive through attn_hook_open_model_files.
// Natively: none (attn_app --model FILE --tokenizer FILE opens them).
void bridge_open_model_files();
void bridge_open_model_folder();
// Stops the page's fetch of the link's model_url= and tokenizer_url= (web/models.js
// models.stop); the page tells the app it stopped. Natively: none.
void bridge_stop_model_fetch();
// Opens ("open") or removes ("remove") the model the page keeps under `key`
// (name@hash, IndexedDB); the page then tells the app its list again. Natively: none.
void bridge_kept_model(const char* action, const std::string& key);

// Whether the system prefers a light colour scheme (prefers-color-scheme), and
// the theme the app shows, for the page's own elements. Natively: false, no-op.
bool bridge_prefers_light();
// The page wants the touch layout (larger targets): its primary pointer is
// coarse (a finger), or its screen is a phone's (shorter side at most 500 CSS
// px, e.g. 844 × 390 in landscape). The screen, not the page: an embed's frame
// is small on any screen, and its height follows its content. Natively: false.
bool bridge_touch_screen();
void bridge_page_theme(bool light);

// The label of the control the keyboard is on ("" when not navigating by
// keyboard), when it changes: the canvas's accessible name follows it, so a
// screen reader says where Tab went. No-op natively.
void bridge_focus_label(const std::string& label);

// Tells the page the first frame is drawn (hides the loading indicator).
void bridge_first_frame();

// The web page draws a frame only when it changed (main.cpp, frame_draws): the page's
// JS reads the canvas (the poster's picture, web/posters.js) only right after a drawn
// frame. main.cpp tells whether this frame was drawn; bridge_take_redraw is true once
// after the page asked for a drawn frame. Natively every frame is drawn (false).
void bridge_frame_drawn(bool drawn);
bool bridge_take_redraw();

// An idle page sleeps (main.cpp, frame_rest): bridge_sleep pauses the main loop (no
// animation frame, no ImGui frame) until web/sleep.js wakes it (attn_hook_wake: an
// input event, a hook's call that may change the app, a resize) or a tick `tick_ms`
// later (attn_hook_tick: one frame, for what runs on a clock). bridge_take_wake is
// true once after a wake. Natively: no sleep, never woken.
void bridge_sleep(int tick_ms);
bool bridge_take_wake();

// Size the canvas must have in device pixels, and the device pixel ratio.
// Returns false natively (the window decides).
bool bridge_canvas_size(int& width, int& height, float& pixel_ratio);

// Gives the canvas that many device pixels and tells GLFW. (Not glfwSetWindowSize:
// Emscripten's GLFW turns a size equal to the screen's into a fullscreen request.)
void bridge_resize_canvas(int width, int height);

// Asks the page to fetch a font file from the site's assets/ folder (same origin);
// its bytes, or the failure, arrive later through fonts_receive. Returns false
// natively (and on a page without the shell): read it from the asset folder.
bool bridge_fetch_font(const char* file_name);

// [SECTION] share, export, memory (web: window.attnShell; each call is skipped
// when the page lacks that function)

// Copies the page's URL with `link` as its hash (built in JS from
// location.origin + location.pathname + '#' + link). Natively there is no
// clipboard: prints the link to stdout. Returns what the person is told.
std::string bridge_copy_link(const std::string& link);
// The page's URL without its hash (location.origin + location.pathname); natively
// "index.html", the built site's page.
std::string bridge_page_url();
// Copies the embed code (share.hpp's share_embed_code); natively prints it.
std::string bridge_copy_embed(const std::string& code);
// Saves a file: a download on the web, a file in the current directory natively.
// Returns what the person is told ("saved /path/attn-weights.csv"), or a failure.
std::string bridge_save_file(const std::string& name, const std::string& mime, const std::string& bytes);
// Opens the full playground at `link` in a new tab (web only).
void bridge_open_full(const std::string& link);
// True inside an iframe or the page's embed mode. False natively.
bool bridge_embedded();
// Remembered between visits (localStorage, keys prefixed "attn."); "" when
// absent, and natively (nothing is remembered there).
std::string bridge_storage_get(const char* key);
void bridge_storage_set(const char* key, const std::string& value);

}  // namespace attn::platform
