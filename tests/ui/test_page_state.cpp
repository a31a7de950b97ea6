// What the page's JS hook tells of the app (page_state.hpp, page_model.hpp:
// window.attn.ui(), which the browser tests read), from frames drawn in a
// headless ImGui context: read back as JSON and checked against the app; and the
// changes the hook makes (window.attn.setExperiment, openLink, errors).
#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "frame/frame.hpp"
#include "frame/page_model.hpp"
#include "frame/page_state.hpp"
#include "frame/touch.hpp"
#include "headless_app.hpp"
#include "json_read.hpp"
#include "llama_test_files.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/measure_lessons.hpp"
#include "play/session_json.hpp"
#include "play/training.hpp"
#include "spec/link_codec.hpp"
#include "train/trainer.hpp"
#include "view/app.hpp"

using namespace attn;
using test::json;

namespace {

using test::frame;
using test::headless_imgui;

json state(const ui::app& a, const ui::touch_input* touch = nullptr) { return test::json_read(ui::page_state_json(a, touch)); }

// A length in CSS pixels as the hook writes it: ImGui's divided by the scale, to a tenth.
bool css(const json& v, float pixels, float scale) { return std::fabs(v.number - double(pixels / scale)) <= 0.051; }

// A rectangle in CSS pixels: [x0, y0, x1, y1].
void check_rect(const json& r, float x0, float y0, float x1, float y1, float scale) {
    REQUIRE(r.size() == 4);
    CHECK(css(r[0], x0, scale));
    CHECK(css(r[1], y0, scale));
    CHECK(css(r[2], x1, scale));
    CHECK(css(r[3], y1, scale));
}

// The app at a plain experiment, drawn until it settles.
void opened(ui::app& a, const char* link) {
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, link));
    for (int i = 0; i < 3; ++i)
        frame(a);
}

void check_view(const json& j, const ui::app& a) {
    CHECK(j["stage"].number == int(a.view.current));
    CHECK(j["layer"].number == a.view.layer);
    CHECK(j["sel_row"].number == a.view.sel_row);
    CHECK(j["language"].string == "en");
    CHECK(j["help"].boolean == a.view.show_help);
    CHECK(j["undo"].number == double(a.model.undo.size()));
    CHECK(j["redo"].number == double(a.model.redo.size()));
    REQUIRE(j["selected"].size() == 4);
    CHECK(j["selected"][0].number == a.view.selected.matrix);
    CHECK(j["selected"][2].number == a.view.selected.row);
    CHECK(j["version"].number == double(a.model.version));
    CHECK(j["threads"].number == a.model.threads);
    CHECK(j["lesson"].number == a.view.lesson.index);
    CHECK(j["link"].string == ui::app_link(a));
    CHECK(j["embed"].boolean == a.options.embed);
    CHECK(j["readonly"].boolean == a.options.readonly);
    const ui::pipeline_shown shown = ui::app_pipeline(a);
    CHECK(j["pipeline"]["real"].boolean == shown.real);
    CHECK(j["pipeline"]["heads"].number == shown.exp->heads);
    CHECK(j["pipeline"]["tokens"].number == double(shown.tr->tokens.size()));
    CHECK(j["focus"].string == a.reports.keyboard_focus);
}

}  // namespace

TEST_CASE("window.attn.ui(): the view, every widget drawn where it is and in its window, the maps, as the app has them") {
    headless_imgui imgui;
    ui::app a;
    opened(a, "v=1&text=the%20cat%20sat&heads=2&view.stage=6&view.row=1");
    const json j = state(a);
    check_view(j, a);
    CHECK(j["sel_row"].number == 1);
    REQUIRE(!a.reports.widgets.empty());
    CHECK(j["widgets"].size() <= a.reports.widgets.size());  // a name drawn twice: its last rectangle, as JSON.parse
    for (const ui::widget_rect& w : a.reports.widgets) {
        INFO("widget " << w.name);
        CHECK(j["widgetWindows"][w.name].string == w.window);
    }
    const ui::widget_rect& last = a.reports.widgets.back();
    check_rect(j["widgets"][last.name], last.x0, last.y0, last.x1, last.y1, 1.0f);
    REQUIRE(j["maps"].size() == a.reports.maps.size());
    for (std::size_t i = 0; i < a.reports.maps.size(); ++i) {
        CHECK(j["maps"][i]["name"].string == a.reports.maps[i].name);
        CHECK(j["maps"][i]["cells"].number == a.reports.maps[i].cells);
        CHECK(j["maps"][i]["axes"].string == a.reports.maps[i].axes);
    }
    CHECK(j["clipped"].number == double(a.reports.clipped.size()));
    CHECK(j["drawn"]["vertices"].number == ImGui::GetDrawData()->TotalVtxCount);
    CHECK(j["drawn"]["windows"].size() <= 5);
    CHECK_FALSE(j.has("touch"));
    CHECK(j["keyboard"].boolean == false);
    CHECK(j["tooltip"].string.empty());
    CHECK(j["prediction"].is_null());  // no recipe: no prediction, no training, no real model
    CHECK(j["train"].is_null());
    CHECK(j["realModel"].is_null());
    CHECK(j["wantedModel"].is_null());
    CHECK(j["modelFetch"]["file"].string.empty());
    CHECK(j["compare"]["pinned"].boolean == false);
    CHECK(j["compare"]["aTrain"].is_null());
    CHECK(j["compare"]["patch"].is_null());
}

TEST_CASE("window.attn.ui()'s windows are ImGui's drawn this frame, in CSS pixels at the page's scale") {
    headless_imgui imgui;
    ui::app a;
    opened(a, "v=1&text=a%20b%20c");
    a.scale = 2.0f;
    frame(a);
    const json j = state(a);
    int shown = 0;
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        if (!w->WasActive || w->Hidden)
            continue;
        INFO("window " << w->Name);
        const json& out = j["windows"][std::size_t(shown++)];
        CHECK(out["name"].string == std::string(w->Name).substr(0, 120));
        check_rect(out["rect"], w->InnerRect.Min.x, w->InnerRect.Min.y, w->InnerRect.Max.x, w->InnerRect.Max.y, 2.0f);
        CHECK(out["bars"][1].boolean == w->ScrollbarY);
        CHECK(css(out["over"][1], w->ScrollMax.y, 2.0f));
    }
    CHECK(shown > 1);
    CHECK(j["windows"].size() == std::size_t(shown));
    const ui::widget_rect& w = a.reports.widgets.front();
    check_rect(j["widgets"][w.name], w.x0, w.y0, w.x1, w.y1, 2.0f);
}

TEST_CASE("window.attn.ui(): a lesson's numbers (NaN as -1e300), text cut by its window said safely, the touch gesture") {
    headless_imgui imgui;
    ui::app a;
    opened(a, "v=1&text=a%20b");
    a.reports.lesson_numbers = {{"kl", 0.25}, {"nan", std::numeric_limits<double>::quiet_NaN()}};
    a.reports.clipped.push_back({"say \"hi\" \\ \x01 end", "Controls", 1, 2, 3, 4, 5, 6, 7, 8});
    ui::touch_input touch;
    touch.gestures.vx = 30;
    const json j = state(a, &touch);
    CHECK(j["numbers"]["kl"].number == 0.25);
    CHECK(j["numbers"]["nan"].number == -1e300);
    CHECK(j["clipped"].number == double(a.reports.clipped.size()));
    const json& cut = j["clippedItems"][a.reports.clipped.size() - 1];
    CHECK(cut["text"].string == "say \"hi\" \\   end");  // a control character as a space
    CHECK(cut["window"].string == "Controls");
    check_rect(cut["clip"], 5, 6, 7, 8, 1.0f);
    CHECK(j["touch"]["mode"].number == int(touch.gestures.now));
    CHECK(j["touch"]["speed"][0].number == 30);
}

TEST_CASE("window.attn.ui()'s compare: pinned, max |B − A| or why not, and a pinned recipe's run") {
    headless_imgui imgui;
    ui::app a;
    opened(a, "v=1&text=a%20b%20c");
    ui::frame_out out;
    out.request = change::pin(a.model.exp);
    ui::frame_apply(a, out);
    frame(a);
    REQUIRE(a.model.pin);
    experiment b = a.model.exp;
    b.scale = score_scale::none;
    REQUIRE(ui::app_set_experiment(a, b));
    a.view.compare_shown = true;
    a.view.current = stage::weights;
    frame(a);
    json j = state(a);
    CHECK(j["compare"]["pinned"].boolean);
    CHECK(j["compare"]["shown"].boolean);
    CHECK(j["compare"]["maxAbs"].number == doctest::Approx(ui::app_compare(a).max_abs));
    CHECK(j["compare"]["reason"].string == compare_mismatch_text(ui::app_compare(a).mismatch));
    CHECK(j["compare"]["patch"].is_null());  // not shown
    REQUIRE(ui::app_open_link(a, "v=1&text=a%20b%20c%20d&pin=" + ui::app_link(a).substr(ui::app_link(a).find("&pin=") + 5)));
    frame(a);
    j = state(a);
    CHECK(j["compare"]["maxAbs"].is_null());
    CHECK(j["compare"]["reason"].string == compare_mismatch_text(ui::app_compare(a).mismatch));
    CHECK_FALSE(j["compare"]["reason"].string.empty());
}

TEST_CASE("window.attn.ui() of a trained recipe: its train and prediction are the session's, at the selected row") {
    headless_imgui imgui;
    ui::app a;
    opened(a, "v=1&text=a%20b%20c%20a%20b&train=induction&steps=20&view.row=2");
    for (int i = 0; i < 1000 && !trainer_done(a.model.train); ++i)
        session_train(a.model, 1.0);
    REQUIRE(trainer_done(a.model.train));
    frame(a);
    const std::string text = ui::page_state_json(a, nullptr);
    const std::string train = session_train_json(a.model, true);
    CHECK(text.size() > train.size());
    CHECK(text.compare(text.size() - train.size() - 1, std::string::npos, train + "}") == 0);  // "train" is last
    CHECK(text.find(",\"prediction\":" + session_prediction_json(a.model, 2) + ",") != std::string::npos);
    const json j = test::json_read(text);
    CHECK(j["train"]["hash"].string == train_weights_hash(*a.model.train.run));
    CHECK(j["prediction"]["row"].number == 2);
}

TEST_CASE("window.attn.ui()'s real model: the open model's files, shape, reading and changes; the model a link wants") {
    headless_imgui imgui;
    ui::app a;
    opened(
        a,
        "v=1&text=a%20b%20a%20b&model=x.bin@0123456789abcdef&model_url=m%2Fx.bin&tokenizer_url=m%2Ft.bin&view.model_ablate=0.1");
    json j = state(a);
    CHECK(j["realModel"].is_null());
    CHECK(j["wantedModel"]["key"].string == "x.bin@0123456789abcdef");
    CHECK(j["wantedModel"]["url"].string == a.options.model_url);  // as the link has it (the shell reads it)
    CHECK(j["wantedModel"]["tokenizerUrl"].string == a.options.tokenizer_url);
    CHECK_FALSE(a.options.tokenizer_url.empty());
    ui::app_model_fetch(a, "x.bin", 10, 100, "");
    CHECK(state(a)["modelFetch"]["received"].number == 10);
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    REQUIRE(ui::app_open_model(a, x, t).empty());
    for (int i = 0; i < 3; ++i)
        frame(a);
    j = state(a);
    CHECK(j["wantedModel"].is_null());
    const json& m = j["realModel"];
    const llama_config& c = a.real.model->model.config;
    CHECK(m["name"].string == "x.bin");
    CHECK(m["tokenizer"].string == "t.bin");
    CHECK(m["key"].string == link_model_ref("x.bin", "0123456789abcdef0123"));
    CHECK(m["config"]["layers"].number == c.n_layers);
    CHECK(m["config"]["kvHeads"].number == c.n_kv_heads);
    CHECK(m["params"].number == double(a.real.model->parameters()));
    CHECK(m["text"].string == a.real.reading.text);
    CHECK(m["decoded"].string == a.real.reading.decoded);
    CHECK(m["ids"].size() == a.real.reading.ids.size());
    CHECK(m["next"].size() == a.real.reading.next.size());
    CHECK(m["heads"].size() == a.real.reading.heads.size());
    CHECK(m["lens"].size() == a.real.reading.lens.size());
    CHECK(m["attribution"]["heads"].size() == a.real.reading.attribution.heads.size());
    REQUIRE(m["changes"]["ablate"].size() == 1);
    CHECK(m["changes"]["ablate"][0][1].number == 1);
    CHECK(m["changes"]["problems"].size() == 0);
    CHECK(m["effect"].is_null() == !real_session_changed(a.real, ui::app_model_wants(a)));
    CHECK(m["gen"]["done"].boolean == a.real.gen.done);
}

TEST_CASE(
    "window.attn.setExperiment and openLink: \"\" when taken, else the problems, one a line; a host's changes one undo step") {
    ui::app a;
    ui::app_init(a, experiment{});
    CHECK(ui::page_set_experiment(a, "v=1&text=a%20b&heads=2", false).empty());
    CHECK(a.model.exp.heads == 2);
    const std::string why = ui::page_set_experiment(a, "v=1&heads=zero&d_model=-1", false);
    REQUIRE(a.errors.size() >= 1);
    std::string lines;
    for (const std::string& e : a.errors)
        lines += e + "\n";
    CHECK(why == lines);
    CHECK(ui::page_errors(a) == lines);
    CHECK(a.model.exp.heads == 2);  // refused: nothing changed
    const std::size_t undo = a.model.undo.size();
    CHECK(ui::page_set_experiment(a, "v=1&text=a%20b&heads=4", true).empty());
    CHECK(ui::page_set_experiment(a, "v=1&text=a%20b&heads=1", true).empty());
    CHECK(a.model.undo.size() == undo + 1);
    CHECK(ui::page_open_link(a, "v=1&text=c%20d&view.stage=3").empty());
    CHECK(a.view.current == stage(3));
    CHECK(ui::page_open_link(a, "v=1&mask=nope") == ui::page_errors(a));
    CHECK_FALSE(ui::page_errors(a).empty());
}
