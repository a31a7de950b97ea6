// The app's state: the one change path into the session, the view a link
// opens, what a panel asks for applied (frame_apply), the remembered layout.
#include "view/app.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "play/lesson_preset.hpp"
#include "spec/link_codec.hpp"

namespace attn::ui {

namespace {

// Whether c still names a cell of the shown stage in the (new) trace the pipeline shows.
bool cell_exists(const app& a, const cell_ref& c) {
    const pipeline_shown p = app_pipeline(a);
    if (!c.valid() || c.at != a.view.current || c.head >= (stage_per_head(c.at) ? p.exp->heads : 1))
        return false;
    const auto mats = stage_matrices(c.at, *p.tr, p.layer, c.head);
    return c.matrix < int(mats.size()) && c.row < mats[std::size_t(c.matrix)].m->rows &&
           c.col < mats[std::size_t(c.matrix)].m->cols;
}

}  // namespace

void app_sync(app& a) {
    if (!session_update(a.model))
        return;
    a.traced = true;
    // The view stays inside the new trace.
    const int n = int(a.model.tr.tokens.size());
    a.view.sel_row = std::clamp(a.view.sel_row, 0, n - 1);
    a.view.layer = std::clamp(a.view.layer, 0, a.model.exp.layers - 1);
    // The stage stays one the pipeline has: the experiment's, or the real model's it shows (every stage).
    const bool model_shown = a.view.model.pipeline && a.real.model;
    if (!stage_applies(a.view.current, model_shown ? a.real.exp : a.model.exp))
        a.view.current = stage::output;
    // The selected cell stays where it still exists: a press on a map (a masked
    // edge, by click or by Enter) leaves the keyboard's cell where it was.
    if (!cell_exists(a, a.view.selected))
        a.view.selected = cell_ref{};
    a.view.hovered = cell_ref{};
}

void app_init(app& a, const experiment& e) {
    change c = change::set(e);
    c.record = false;
    app_change(a, c);  // a rejected e leaves the default experiment, and its errors on the banner
    app_sync(a);
}

namespace {

// The real model a link names and where a host keeps it (model=, model_url=,
// tokenizer_url=): the Model window opens on it (the page fetches or finds it).
void adopt_model(app& a, const link_view& v) {
    a.options.model = v.model;
    a.options.tokenizer = v.tokenizer;
    a.options.model_url = v.model_url;
    a.options.tokenizer_url = v.tokenizer_url;
    a.view.model.open = true;
}

// What an accepted link asks to show: its lesson (from 1; its stage and last row
// unless the link names them), stage, row and options. `lesson_only`: a lesson
// button, which keeps the options of the link the page opened with.
void show_link_view(app& a, const link_view& v, bool lesson_only) {
    const int lesson = v.lesson > 0 ? v.lesson - 1 : -1;  // links count lessons from 1 (L1), the app from 0
    a.view.lesson.index = lesson;
    a.reports.lesson_numbers.clear();
    if (lesson >= 0) {
        // The keyboard goes on to the lesson's card: its first control (previous,
        // or next in the first lesson), from which Tab walks the lesson's own.
        a.focus_request = {"lesson_previous", "lesson_next"};
        a.view.current = lesson_preset_find(v.lesson)->opens_on;
        a.view.lesson.tile_step = 0;
        a.view.lesson.decode_t = std::max(1, a.model.exp.decode);
    }
    if (v.stage >= 0)
        a.view.current = stage(v.stage);
    const int n = int(tokenize(a.model.exp.text).size());
    a.view.sel_row = std::clamp(v.row >= 0 ? v.row : lesson >= 0 ? n - 1 : a.view.sel_row, 0, std::max(0, n - 1));
    if (!lesson_only) {
        a.options = v;
        a.options.lesson = a.options.stage = a.options.row = -1;
        a.view.model.sampling = {v.temperature, v.top_p, std::uint64_t(v.gen_seed)};
        a.view.model.steps = v.gen_tokens;
        a.view.model.layer = v.model_layer, a.view.model.head = v.model_head;
        a.view.model.changes = {v.model_ablate, v.model_edges};
        a.view.model.pipeline = v.model_pipeline;
        if (!v.model.empty())  // a link that reads a real model: its window
            a.view.model.open = true;
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
    a.view.text_edit = a.model.exp.text;
    if (r.view && scope != link_scope::experiment)
        show_link_view(a, *r.view, scope == link_scope::lesson);
    else if (r.view && !r.view->model.empty())  // a host's link (attn:set) that names a model: its files too
        adopt_model(a, *r.view);
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
    const int index = a.view.lesson.index;
    const bool in_lesson = lesson_at(index) != nullptr;
    v.lesson = in_lesson ? index + 1 : -1;  // L1 is view.lesson=1
    const stage opens_on = in_lesson ? lesson_preset_find(index + 1)->opens_on : stage_default;
    const int default_row = in_lesson ? int(tokenize(a.model.exp.text).size()) - 1 : 0;
    v.stage = a.view.current != opens_on ? int(a.view.current) : -1;
    v.row = a.view.sel_row != default_row ? a.view.sel_row : -1;
    v.temperature = a.view.model.sampling.temperature, v.top_p = a.view.model.sampling.top_p;
    v.gen_seed = int(a.view.model.sampling.seed), v.gen_tokens = a.view.model.steps;
    v.model_layer = a.view.model.layer, v.model_head = a.view.model.head;
    v.model_ablate = a.view.model.changes.ablate, v.model_edges = a.view.model.changes.edges;
    v.model_pipeline = a.view.model.pipeline;
    return v;
}

std::string app_link(const app& a) { return link_encode(a.model.exp, app_view(a), a.model.pin); }

void request_experiment(frame_out& out, experiment next) {
    out.request = change::set(std::move(next), ImGui::GetCurrentContext() ? ImGui::GetTime() : -1.0);
    out.scope = link_scope::everything;
}

void app_toggle_language(app& a) {
    ui_set_language(ui_language() == language::en ? language::zh : language::en);
    a.notice.clear();
    a.pending_announced = false;
}

view_state& view_edit(const app& a, frame_out& out) {
    if (!out.view)
        out.view = a.view;
    return *out.view;
}

namespace {

// After real_session_open(_files) came through (why empty): the link names the model.
std::string model_opened(app& a, const std::optional<std::string>& why) {
    if (why)
        return *why;
    a.model_files.not_kept.clear();  // of the model before; the browser's store does not change with it
    a.model_files.fetch = {};
    const std::string key = link_model_ref(a.real.model->name, a.real.model->sha256);
    const std::string tokenizer = link_model_ref(a.real.model->tokenizer_name, a.real.model->tokenizer_sha256);  // "": not hashed
    if (key != a.options.model || (!a.options.tokenizer.empty() && tokenizer != a.options.tokenizer))
        a.options.model_url.clear(), a.options.tokenizer_url.clear();  // the addresses a link named were other files
    if (!a.options.model.empty() && key != a.options.model) {  // so were its head and changes (a link naming none keeps them)
        a.view.model.layer = a.view.model.head = 0;
        a.view.model.changes = {};
        a.view.model.pipeline = false;
    }
    a.options.model = key;  // the link names it (never its weights)
    a.options.tokenizer = tokenizer;
    return "";
}

}  // namespace

std::string app_open_model(app& a, const real_model_file& x, const real_model_file& y) {
    a.view.model.open = true;
    // The first reading now, before the page is told the model opened: it keeps
    // the files in the browser only once this has come through.
    return model_opened(a, real_session_open(a.real, x, y, a.model.exp.text, a.model.threads));
}

std::string app_open_model_files(app& a, const std::vector<real_model_file>& files) {
    a.view.model.open = true;
    return model_opened(a, real_session_open_files(a.real, files, a.model.exp.text, a.model.threads));
}

void app_model_fetch(app& a, std::string_view file, double received, double total, std::string_view error) {
    a.model_files.fetch = {std::string(file), received, total};
    if (!error.empty())
        a.real.error = std::string(error);
    else if (!file.empty())
        a.real.error.clear();
    a.view.model.open = true;
}

std::string app_wanted_model(const app& a) {
    const real_model* m = a.real.model.get();
    // A link naming the tokenizer wants that one: the same checkpoint read with another is not what it shows.
    const bool open =
        m && link_model_ref(m->name, m->sha256) == a.options.model &&
        (a.options.tokenizer.empty() || link_model_ref(m->tokenizer_name, m->tokenizer_sha256) == a.options.tokenizer);
    return open ? "" : a.options.model;
}

void app_set_kept_models(app& a, std::string_view lines) {
    a.model_files.kept.clear();
    for (const std::string_view line : split(lines, '\n')) {
        const std::vector<std::string_view> f = split(line, '\t');
        if (f.size() != 4 || link_model_problem(f[0]))
            continue;
        a.model_files.kept.push_back(
            {std::string(f[0]), std::string(f[1]), std::string(f[2]), std::atof(std::string(f[3]).c_str())});
    }
}

real_wants app_model_wants(const app& a) {
    real_wants w;
    w.text = a.model.exp.text;
    w.changes = a.view.model.changes;
    w.layer = a.view.model.layer, w.head = a.view.model.head;
    w.stage = a.view.model.stage;
    w.pipeline = a.view.model.pipeline;
    w.shown = a.view.model.open || a.view.model.pipeline;  // the changes run while the window or the pipeline shows the model
    return w;
}

void app_model_update(app& a, double seconds) {
    if (!a.real.model)
        return;
    const real_wants w = real_session_fit(a.real, app_model_wants(a));
    a.view.model.layer = w.layer, a.view.model.head = w.head;  // a link's head may be past this model's: the nearest it has
    real_session_update(a.real, w, seconds);
}

void frame_apply(app& a, frame_out& out) {
    if (out.request)
        app_request(a, std::move(*out.request), out.scope);
    if (out.view)
        a.view = std::move(*out.view);
    if (out.model_generate)  // from the prompt the window shows, with the settings just set
        real_session_generate(a.real, a.view.model.sampling, a.view.model.steps);
    if (out.model_stop)
        real_session_stop(a.real);
    if (!out.model_open_kept.empty())
        a.kept_open = std::move(out.model_open_kept);
    if (!out.model_remove_kept.empty())
        a.kept_remove = std::move(out.model_remove_kept);
    if (out.numbers)
        a.reports.lesson_numbers = std::move(*out.numbers);
    if (out.toggle_language)
        app_toggle_language(a);
    if (out.dismiss_banner) {
        a.errors.clear();
        a.notice.clear();
    }
    a.requests.insert(a.requests.end(), out.share.begin(), out.share.end());
    a.reports.widgets.insert(a.reports.widgets.end(), std::make_move_iterator(out.widgets.begin()),
                             std::make_move_iterator(out.widgets.end()));
    a.reports.maps.insert(a.reports.maps.end(), std::make_move_iterator(out.maps.begin()),
                          std::make_move_iterator(out.maps.end()));
    a.reports.clipped.insert(a.reports.clipped.end(), std::make_move_iterator(out.clipped.begin()),
                             std::make_move_iterator(out.clipped.end()));
    if (!out.keyboard_focus.empty())
        a.reports.keyboard_focus = std::move(out.keyboard_focus);
    if (out.focus_taken)
        a.focus_request.clear();
    out = frame_out{};
}

void app_apply_pending(app& a) {
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
    const std::string typed = a.view.text_edit;
    const bool ok = app_change(a, c, a.pending_scope);
    if (c.what == change::kind::set && (!ok || c.next.text != a.model.exp.text))
        a.view.text_edit = typed;  // keep what is being typed, valid or not
}

theme app_theme(const app& a) {
    if (a.options.theme != view_theme::automatic)
        return a.options.theme == view_theme::light ? theme::light : theme::dark;
    if (a.view.theme_choice != view_theme::automatic)
        return a.view.theme_choice == view_theme::light ? theme::light : theme::dark;
    return a.system_light ? theme::light : theme::dark;
}

std::string app_layout_text(const app& a) {
    std::string out;
    for (std::size_t p = 0; p < view_panel_count; ++p)
        if (a.view.layout_hidden[p])
            out += (out.empty() ? "" : ",") + std::string(view_panel_name(view_panel(p)));
    return out;
}

void app_set_layout_text(app& a, std::string_view text) {
    a.view.layout_hidden = {};
    for (std::size_t p = 0; p < view_panel_count; ++p)
        for (const auto name : split(text, ','))
            if (name == view_panel_name(view_panel(p)))
                a.view.layout_hidden[p] = true;
}

void app_train(app& a) { a.train_spent = session_train(a.model, a.pace.slice); }

bool app_working(const app& a) {
    const session& m = a.model;
    return a.pending || a.pending_announced || !trainer_done(m.train) || !trainer_done(m.pin_train) || a.reports.reading ||
           session_measuring(m) || real_session_working(a.real);
}

// Lesson i through the one change path, as lesson_link(i + 1) would.
void lesson_open(const app& a, frame_out& out, int i) {
    if (!lesson_at(i)) {
        view_edit(a, out).lesson.index = -1;  // free exploring: the experiment stays
        out.numbers.emplace();
        return;
    }
    // The lesson's own link: its experiment (lesson_preset.hpp) and stage, through the one change path.
    out.request = change::open(lesson_link(i + 1));
    out.scope = link_scope::lesson;
}

void lesson_open(app& a, int i) {
    frame_out out;
    lesson_open(a, out, i);
    frame_apply(a, out);
}

}  // namespace attn::ui
