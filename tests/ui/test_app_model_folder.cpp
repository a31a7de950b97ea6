// A Hugging Face folder opened in the whole UI, drawn headless (ui::app_open_model_files):
// the Model window says what is open and draws its reading, lens and attribution
// (GPT-2's biases a part of it), the pipeline draws the model's layer at every
// stage, L13 reads it, and a folder refused keeps the last good model.
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frame/page_model.hpp"
#include "frame/text_mirror.hpp"
#include "headless_app.hpp"
#include "hf_test_folder.hpp"
#include "play/session.hpp"
#include "view/app.hpp"
#include "view/stages.hpp"

using namespace attn;

namespace {

using test::frame;
using test::headless_imgui;

bool has_widget(const ui::app& a, const std::string& name) {
    return std::any_of(a.reports.widgets.begin(), a.reports.widgets.end(),
                       [&](const ui::widget_rect& w) { return w.name == name; });
}

// The app with the folder open, the Model window shown, a few frames drawn.
void open_folder(ui::app& a, const std::vector<real_model_file>& files) {
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_change(a, change::open("v=1&text=%20the%20the%20ab%20the%20ab")));
    const std::string why = ui::app_open_model_files(a, files);
    REQUIRE_MESSAGE(why.empty(), why);
    for (int i = 0; i < 4; ++i)
        frame(a);
}

}  // namespace

TEST_CASE("a GPT-2 folder in the Model window: what is open, its reading, lens and attribution with the biases") {
    headless_imgui imgui;
    for (const weight_type type : {weight_type::f16, weight_type::f32}) {
        CAPTURE(weight_type_name(type));
        const test::hf_test_folder f = test::hf_test_gpt2(type, 7);
        ui::app a;
        open_folder(a, f.files_handed_over());
        REQUIRE(a.real.model);
        CHECK(a.view.model.open);
        CHECK(has_widget(a, "model_architecture"));
        CHECK(has_widget(a, "model_lens"));
        CHECK(has_widget(a, "model_attribution"));
        const std::string json = ui::real_model_json(a);
        CHECK(json.find("\"format\":\"GPT-2\"") != std::string::npos);
        CHECK(json.find(std::string("\"dtype\":\"") + weight_type_name(type) + "\"") != std::string::npos);
        CHECK(json.find("\"bias\":") != std::string::npos);
        const std::string text = ui::text_mirror_json(a);
        CHECK(text.find(ui::real_model_summary(*a.real.model)) != std::string::npos);
        CHECK(ui::real_model_summary(*a.real.model).find("GPT-2 · 0.") == 0);
        CHECK(
            ui::real_model_summary(*a.real.model).find(std::string(" parameters · ") + weight_type_name(type) + " · LayerNorm") !=
            std::string::npos);
        CHECK(text.find("biases") != std::string::npos);  // the attribution's bias part, so the parts sum to the logit
        // Continue: tokens through the KV cache, drawn as they come.
        ui::frame_out out;
        out.model_generate = true;
        ui::frame_apply(a, out);
        for (int i = 0; i < 200 && !a.real.gen.done; ++i)
            frame(a);
        CHECK(a.real.gen.done);
        CHECK(int(a.real.gen.ids.size()) > a.real.gen.prompt);
    }
}

TEST_CASE("a GPT-2 folder in the pipeline and L13: every stage draws the model's layer, the block without W_3") {
    headless_imgui imgui;
    const test::hf_test_folder f = test::hf_test_gpt2(weight_type::f16, 7);
    ui::app a;
    open_folder(a, f.files());
    REQUIRE(ui::app_change(a, change::open("v=1&text=%20the%20the%20ab%20the%20ab&view.model_pipeline=1&view.model_head=1.1")));
    a.view.model.open = false;
    frame(a);
    frame(a);
    const ui::pipeline_shown p = ui::app_pipeline(a);
    REQUIRE(p.real);
    CHECK(p.layer == 1);
    for (int s = 0; s < stage_count; ++s) {
        INFO("stage " << s);
        a.view.current = stage(s);
        frame(a);
        CHECK(has_widget(a, "pipeline_model"));
        CHECK_FALSE(a.reports.maps.empty());
        for (const auto& m : a.reports.maps)
            CHECK(m.cells > 0);
    }
    // GPT-2's block: W_1, GELU of its pre-activation, W_2 — no SwiGLU up projection.
    const auto block = ui::stage_matrices(stage::block, *ui::app_pipeline(a).tr, 1, 0);
    std::vector<std::string> labels;
    for (const auto& m : block)
        labels.push_back(m.label);
    CHECK(std::find(labels.begin(), labels.end(), "W_3") == labels.end());
    CHECK(std::find(labels.begin(), labels.end(), "gelu(LN(r)·W_1 + b_1)") != labels.end());
    CHECK(std::string(ui::stage_formula_real(stage::block, a.real.model->model.config)).find("gelu") != std::string::npos);
    // A zeroed head: the changed pass is drawn.
    a.view.model.changes = {{{1, 0}}, {}};
    frame(a);
    frame(a);
    CHECK(real_session_effect_current(a.real, ui::app_model_wants(a)));
    CHECK(ui::app_pipeline(a).tr == &a.real.effect.tr);
    // L13 reads it.
    REQUIRE(ui::app_change(a, change::open("v=1&text=%20the%20the%20ab%20the%20ab&view.lesson=13")));
    for (int i = 0; i < 3; ++i)
        frame(a);
    CHECK(ui::text_mirror_json(a).find("GPT-2") != std::string::npos);
}

TEST_CASE("a Qwen2 folder draws in the Model window and the pipeline") {
    headless_imgui imgui;
    const test::hf_test_folder f = test::hf_test_qwen2(weight_type::f16, 5);
    ui::app a;
    open_folder(a, f.files_handed_over());
    CHECK(ui::real_model_json(a).find("\"format\":\"Qwen2\"") != std::string::npos);
    a.view.model.pipeline = true;
    for (int s = 0; s < stage_count; ++s) {
        a.view.current = stage(s);
        frame(a);
    }
    CHECK(ui::app_pipeline(a).real);
}

TEST_CASE("a folder refused (no tokenizer.json, a shard missing) says why and keeps the last good model") {
    headless_imgui imgui;
    const test::hf_test_folder f = test::hf_test_gpt2(weight_type::f16, 7);
    ui::app a;
    open_folder(a, f.files());
    const std::string name = a.real.model->name;
    const std::string link = ui::app_link(a);
    std::vector<real_model_file> no_tokenizer = f.files();
    no_tokenizer.erase(no_tokenizer.begin() + 1);
    CHECK(ui::app_open_model_files(a, no_tokenizer) == "the folder has no tokenizer.json");
    CHECK(a.real.error == "the folder has no tokenizer.json");
    const std::string index = R"({"metadata":{},"weight_map":{"wte.weight":"model-00001-of-00002.safetensors",)"
                              R"("ln_f.weight":"model-00002-of-00002.safetensors"}})";
    std::vector<real_model_file> sharded = f.files();
    sharded[2].name = "model-00001-of-00002.safetensors";
    sharded.push_back({reinterpret_cast<const unsigned char*>(index.data()), index.size(), "model.safetensors.index.json"});
    const std::string why = ui::app_open_model_files(a, sharded);
    CHECK(why == "the folder has no model-00002-of-00002.safetensors, which model.safetensors.index.json names");
    frame(a);
    frame(a);
    REQUIRE(a.real.model);
    CHECK(a.real.model->name == name);
    CHECK(a.real.model->format == "GPT-2");
    CHECK(ui::app_link(a) == link);
    CHECK(ui::real_model_json(a).find("model-00002-of-00002.safetensors") != std::string::npos);  // the window says why
    CHECK(has_widget(a, "model_attribution"));
}
