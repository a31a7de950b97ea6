// The whole UI drawn in a headless ImGui context (no window and no GPU: the
// heatmaps fall back to rectangles). What a browser test can only catch by
// luck is checked here every time: a change a control asks for (frame_out) becomes
// current at the start of the next frame, never while the views of this frame
// still hold references into the trace it would replace.
#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "base/text_util.hpp"
#include "base/threads.hpp"
#include "frame/frame.hpp"
#include "frame/share.hpp"
#include "frame/text_mirror.hpp"
#include "headless_app.hpp"
#include "lessons/lesson_views.hpp"
#include "llama_test_files.hpp"
#include "look/i18n.hpp"
#include "maps/heatmap.hpp"
#include "maps/heatmap_gpu.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"
#include "spec/recipe.hpp"
#include "train/trainer.hpp"
#include "view/app.hpp"
#include "view/stages.hpp"

using namespace attn;

namespace {

using test::frame;
using test::headless_imgui;

const ui::widget_rect* find_widget(const ui::app& a, const std::string& name) {
    const auto it = std::find_if(a.reports.widgets.begin(), a.reports.widgets.end(),
                                 [&](const ui::widget_rect& w) { return w.name == name; });
    return it == a.reports.widgets.end() ? nullptr : &*it;
}

double lesson_number(const ui::app& a, const std::string& name) {
    for (const auto& [key, value] : a.reports.lesson_numbers)
        if (key == name)
            return value;
    FAIL("the lesson view published no " << name);
    return 0;
}

}  // namespace

TEST_CASE("each stage lights the lines of the article's numpy code that compute it") {
    // The lines come from tests/article.py at build time; the stages name them by index.
    const auto& lines = ui::numpy_code_lines();
    const auto lit = [&lines](stage s) {
        const auto [lo, hi] = ui::stage_code_lines(s);
        REQUIRE(lo >= 0);
        REQUIRE(hi < int(lines.size()));
        std::string text;
        for (int i = lo; i <= hi; ++i)
            text += std::string(lines[std::size_t(i)]) + "\n";
        return text;
    };
    CHECK(lit(stage::weights).find("def softmax") != std::string::npos);
    CHECK(lit(stage::projections).find("Q, K, V = X @ W_q") != std::string::npos);
    CHECK(lit(stage::scores).find("scores = Q @ K.T") != std::string::npos);
    CHECK(lit(stage::masked).find("np.where(mask, -np.inf, scores)") != std::string::npos);
    CHECK(lit(stage::weighted_sum).find("softmax(scores) @ V") != std::string::npos);
    CHECK(lit(stage::concat).find("heads = [attention(") != std::string::npos);
    CHECK(lit(stage::output_proj).find("@ W_O") != std::string::npos);
}

TEST_CASE("a control's change waits for the next frame, then recomputes once") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    frame(a);
    const auto version = a.model.version;
    const int offset = a.model.exp.pos_offset;
    experiment next = a.model.exp;
    next.pos = positional::rope;
    next.pos_offset = offset + 7;
    ui::app_request(a, change::set(next));
    CHECK(a.model.version == version);  // the trace the views are drawing from is untouched
    CHECK(a.model.exp.pos_offset == offset);
    frame(a);
    CHECK(a.model.version == version + 1);
    CHECK(a.model.exp.pos_offset == offset + 7);
    CHECK(a.model.exp.pos == positional::rope);
    REQUIRE(a.model.tr.layers.size() >= 1);
    frame(a);
    CHECK(a.model.version == version + 1);  // nothing queued: nothing recomputed
}

TEST_CASE("a host's link (attn:set, link_scope::experiment) that names a model asks for it and its files") {
    ui::app a;
    ui::app_init(a, experiment{});
    const std::string key = "x.bin@0123456789abcdef";
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b&model=" + key + "&model_url=m%2Fx.bin&tokenizer_url=m%2Ft.bin"),
                           ui::link_scope::experiment));
    CHECK(ui::app_wanted_model(a) == key);  // the page's shell fetches it (models.follow)
    CHECK_FALSE(a.options.model_url.empty());
    CHECK_FALSE(a.options.tokenizer_url.empty());
    CHECK(a.view.model.open);
    REQUIRE(ui::app_change(a, change::open("v=1&text=c%20d"), ui::link_scope::experiment));
    CHECK(ui::app_wanted_model(a) == key);  // a link without model= changes the experiment alone
    CHECK(a.model.exp.text == "c d");
}

TEST_CASE("a real model is said to be open only once its first reading came through; one the page cannot hold is refused") {
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b")));
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    // "" tells the page's shell to keep the files in this browser (web/models.js): the reading is made by then.
    REQUIRE(ui::app_open_model(a, x, t).empty());
    CHECK(a.real.read_text == "a b a b");
    CHECK(a.real.reading.ids.size() == 5);  // BOS and the four tokens
    CHECK(a.real.reading.next.size() == 5);
    const std::uint64_t version = a.real.version;
    ui::app_model_update(a, 0);
    CHECK(a.real.version == version);  // not read twice
    // 8 layers of 256 heads: its reading and generation need more than the page holds.
    const llama_config wide = test::llama_test_config(512, 2, 8, 256, 1, 264, 512, true);
    test::llama_bytes big(std::size_t(llama_checkpoint_bytes(wide)), 0);
    std::memcpy(big.data(), ckpt.data(), 256);  // the header's magic and version
    const std::int32_t fields[] = {512, 2, 8, 256, 1, 264, 512};
    std::memcpy(big.data() + 8, fields, sizeof fields);
    const std::string why = ui::app_open_model(a, {big.data(), big.size(), "wide.bin", "fedcba9876543210"}, t);
    CHECK(why.find("wide.bin: reading 256 tokens and generating 256 after them needs ") == 0);
    CHECK(a.real.error == why);
    CHECK(a.real.model->name == "x.bin");  // the model open before stays
}

TEST_CASE("a link holds a real model's selected head and changes; they run once it opens, and only when they fit") {
    ui::app a;
    ui::app_init(a, experiment{});
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    const std::string changes = "&view.model_head=1.2&view.model_ablate=0.1&view.model_edges=1.2.3.0,1.2.3.1";
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b&model=x.bin@0123456789abcdef" + changes)));
    CHECK(a.view.model.layer == 1);
    CHECK(a.view.model.head == 2);
    CHECK(a.view.model.changes.ablate == std::vector<ablated_head>{{0, 1}});
    CHECK(a.view.model.changes.edges.size() == 2);
    CHECK(ui::app_open_model(a, x, t).empty());  // the model the link names: its head and changes stay
    CHECK(a.view.model.changes.edges.size() == 2);
    ui::app_model_update(a, 0);
    CHECK_FALSE(real_session_effect_current(a.real, ui::app_model_wants(a)));  // this frame says it runs
    ui::app_model_update(a, 0);
    REQUIRE(real_session_effect_current(a.real, ui::app_model_wants(a)));
    CHECK(a.real.effect.of == a.view.model.changes);
    CHECK(a.real.effect.layer == 1);
    CHECK(a.real.effect.tr.layers[1].heads[2].weights(3, 0) == 0.0f);  // the masked edges, as the pass ran them
    CHECK(a.real.effect.tr.layers[1].heads[2].weights(3, 1) == 0.0f);
    CHECK(a.real.effect.tr.layers[0].heads[1].ablated);
    const std::uint64_t made = a.real.effect_made;
    a.view.model.head = 0;  // another head of the same layer: no new pass
    ui::app_model_update(a, 0);
    CHECK(real_session_effect_current(a.real, ui::app_model_wants(a)));
    CHECK(a.real.effect_made == made);
    a.view.model.head = 2;
    CHECK(ui::app_link(a).find(changes) != std::string::npos);
    // Changes that do not fit the model are said, and nothing runs.
    a.view.model.changes.ablate = {{7, 0}};
    const auto problems = real_session_problems(a.real, ui::app_model_wants(a));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "zeroed head 7.0: the model has layers 0 to 1");
    ui::app_model_update(a, 0);
    ui::app_model_update(a, 0);
    CHECK_FALSE(a.real.effect_announced);  // nothing announced, nothing run
    CHECK(a.real.effect_made == made);
    // A link's head past the model, applied with the model open: the nearest it has.
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b&model=x.bin@0123456789abcdef&view.model_head=9.9")));
    ui::app_model_update(a, 0);
    CHECK(a.view.model.layer == 1);
    CHECK(a.view.model.head == 3);
    // Another model: the head and the changes were the first one's.
    const real_model_file y{ckpt.data(), ckpt.size(), "y.bin", "fedcba9876543210"};
    CHECK(ui::app_open_model(a, y, t).empty());
    CHECK(a.view.model.changes.empty());
    CHECK(a.view.model.layer == 0);
}

TEST_CASE("the Model window's changes are said beside the controls' counts, and the text view has what Continue wrote") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b&model=x.bin@0123456789abcdef&view.model_pipeline=1&"
                                           "view.model_ablate=1.2")));
    REQUIRE(ui::app_open_model(a, x, t).empty());
    for (int i = 0; i < 4; ++i)
        frame(a);
    REQUIRE(ui::app_pipeline(a).real);
    // The controls' "zeroed heads: 0" is the experiment's; the model's own changes are said under it.
    CHECK(find_widget(a, "controls_model_changes"));
    CHECK(a.model.exp.ablate.empty());
    // Continue: the text view has the text with what the model wrote.
    ui::frame_out out;
    out.model_generate = true;
    ui::frame_apply(a, out);
    for (int i = 0; i < 200 && !a.real.gen.done; ++i)
        frame(a);
    REQUIRE(a.real.gen.done);
    REQUIRE_FALSE(a.real.gen.text.empty());
    const std::string text = ui::text_mirror_json(a);
    CHECK(text.find("tokens generated") != std::string::npos);
    std::string wrote;
    json_string_append(wrote, a.real.reading.decoded + a.real.gen.text);
    CHECK(text.find(wrote) != std::string::npos);
    // Without changes: nothing said.
    a.view.model.changes = {};
    frame(a);
    frame(a);
    CHECK_FALSE(find_widget(a, "controls_model_changes"));
}

TEST_CASE("the Model window's logit lens: a long piece stays on one line, each column as wide as its widest cell") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    // A llama-3-like special piece, whose embedding leads along dimension 0: the likeliest after every layer.
    const std::string piece = "<|reserved_special_token_88|>";
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b", piece});
    test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 265, 48, true), 3);
    const llama_model places = test::llama_test_places(ckpt);
    for (std::size_t v = 0; v < 265; ++v)
        test::llama_test_put(ckpt, places, places.token_embedding, v * 32, v == 264 ? 20.0f : 10.0f);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b")));
    REQUIRE(ui::app_open_model(a, x, t).empty());
    REQUIRE(a.real.reading.lens.size() == 3);
    CHECK(a.real.reading.lens[1].top == 264);
    for (int i = 0; i < 4; ++i)
        frame(a);
    const float line = ImGui::GetTextLineHeight();
    for (int row = 0; row < 3; ++row) {
        const ui::widget_rect* cell = find_widget(a, "model_lens_top_" + std::to_string(row));
        REQUIRE(cell);
        CHECK(cell->y1 - cell->y0 <= line + 0.5f);  // one line, not the piece wrapped over three
        CHECK(cell->x1 - cell->x0 >= ImGui::CalcTextSize(("\"" + piece + "\"").c_str()).x);
    }
    CHECK(a.reports.clipped.empty());
}

TEST_CASE("the Model window says plainly when a model's embedding alone decides its predictions, in both languages") {
    headless_imgui imgui;
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes working = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    test::llama_bytes idle = working;
    test::llama_test_zero_layers(idle);  // its layers write nothing
    const real_model_file t{tok.data(), tok.size(), "t.bin"};
    for (const ui::language l : {ui::language::en, ui::language::zh}) {
        ui::ui_set_language(l);
        ui::app a;
        ui::app_init(a, experiment{});
        REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b")));
        REQUIRE(ui::app_open_model(a, {working.data(), working.size(), "working.bin", "0123456789abcdef0123"}, t).empty());
        for (int i = 0; i < 3; ++i)
            frame(a);
        CHECK_FALSE(a.real.reading.embedding_decides);
        CHECK_FALSE(find_widget(a, "model_embedding_decides"));
        CHECK(ui::text_mirror_json(a).find(ui::real_embedding_decides_text()) == std::string::npos);
        REQUIRE(ui::app_open_model(a, {idle.data(), idle.size(), "idle.bin", "fedcba9876543210fedc"}, t).empty());
        for (int i = 0; i < 3; ++i)
            frame(a);
        CHECK(a.real.reading.embedding_decides);
        CHECK(find_widget(a, "model_embedding_decides"));
        std::string said;
        json_string_append(said, ui::real_embedding_decides_text());
        CHECK(ui::text_mirror_json(a).find(said.substr(1, said.size() - 2)) != std::string::npos);
        CHECK(std::string(ui::real_embedding_decides_text()).find(l == ui::language::zh ? "嵌入" : "embedding") !=
              std::string::npos);
    }
    ui::ui_set_language(ui::language::en);
}

TEST_CASE(
    "on a phone (844 × 390) the Model window's heads wrap: each map drawn whole, the window scrolls, no map does; the top bar "
    "stays uncovered") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(844, 390);
    ui::app a;
    ui::app_init(a, experiment{});
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(48, 64, 2, 6, 2, 264, 48, true), 3);
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b%20a%20b")));
    REQUIRE(
        ui::app_open_model(a, {ckpt.data(), ckpt.size(), "six.bin", "0123456789abcdef0123"}, {tok.data(), tok.size(), "t.bin"})
            .empty());
    for (int i = 0; i < 4; ++i)
        frame(a);
    ImGuiWindow* model = ImGui::FindWindowByName("Model###model");
    REQUIRE(model);
    const auto below_top_bar = [&a, model] {  // the top bar (View, Share, the language) stays uncovered
        const ui::widget_rect* language = find_widget(a, "language");
        REQUIRE(language);
        CHECK(model->Pos.y >= language->y1);
        CHECK(model->Pos.y + model->Size.y <= ImGui::GetIO().DisplaySize.y);
    };
    below_top_bar();
    CHECK_FALSE(model->ScrollbarX);  // the heads fit across; the window scrolls down to the others
    CHECK(model->ScrollbarY);
    // Scrolled down a little at a time: each head's map, once in view, sits whole in the window and in its own child.
    std::set<std::string> seen;
    for (int step = 0; step < 60 && seen.size() < 12; ++step) {
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 6; ++h) {
                const std::string name = "model_head_" + std::to_string(l) + "_" + std::to_string(h);
                const ui::widget_rect* map = find_widget(a, name);
                REQUIRE(map);
                const ImGuiWindow* own = map->window.empty() ? nullptr : ImGui::FindWindowByName(map->window.c_str());
                if (!own)  // scrolled out of view: not drawn this frame
                    continue;
                CAPTURE(name);
                seen.insert(name);
                CHECK(map->x1 <= model->InnerClipRect.Max.x + 0.5f);  // whole across the window
                CHECK_FALSE(own->ScrollbarX);
                CHECK_FALSE(own->ScrollbarY);
                CHECK(map->x1 <= own->InnerClipRect.Max.x + 0.5f);
            }
        ImGui::SetScrollY(model, model->Scroll.y + 60.0f);
        frame(a);
    }
    CHECK(seen.size() == 12);
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    frame(a);
    frame(a);
    below_top_bar();
}

namespace {

// Every stage of the pipeline draws the real model's numbers, each head's where the stage has them.
void check_every_stage_draws(ui::app& a) {
    for (int s = 0; s < stage_count; ++s) {
        INFO("stage " << s);
        a.view.current = stage(s);
        frame(a);
        CHECK(find_widget(a, "pipeline_model"));
        CHECK(find_widget(a, "controls_model_note"));  // the controls say they are the experiment's
        CHECK_FALSE(a.reports.maps.empty());
        for (const auto& m : a.reports.maps)
            CHECK(m.cells > 0);
        if (ui::stage_per_head(stage(s)))
            CHECK(find_widget(a, "grid_head3"));
    }
}

// A masked edge and a zeroed head: the pipeline draws the changed pass (the edge masked, the head veiled).
void check_changed_pass(ui::app& a) {
    const std::uint64_t before = a.real.pipeline_made;
    a.view.model.changes = {{{1, 2}}, {{1, 0, 3, 0}}};
    frame(a);
    frame(a);
    REQUIRE(real_session_effect_current(a.real, ui::app_model_wants(a)));
    CHECK(ui::app_pipeline(a).tr == &a.real.effect.tr);
    const auto cells = [&](const char* name) {
        for (const auto& m : a.reports.maps)
            if (m.name == name)
                return m.cells;
        return -1;
    };
    CHECK(cells("grid_head0") == 5 * 6 / 2 - 1);  // the causal mask's hidden keys, and the masked edge
    CHECK(cells("grid_head1") == 5 * 6 / 2);
    CHECK(ui::app_pipeline(a).tr->layers[1].heads[2].ablated);
    CHECK(find_widget(a, "pipeline_model_changes"));
    CHECK(a.real.pipeline_made == before);  // the reading's layer is not made again
}

}  // namespace

TEST_CASE("the pipeline shows a real model's layer: every stage draws its own numbers, the inspector explains them") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"}, t{tok.data(), tok.size(), "t.bin"};
    REQUIRE(ui::app_change(
        a, change::open("v=1&text=a%20b%20a%20b&model=x.bin@0123456789abcdef&view.model_pipeline=1&view.model_head=1.0")));
    CHECK(a.view.model.pipeline);
    frame(a);
    CHECK_FALSE(ui::app_pipeline(a).real);  // no model yet: the experiment
    REQUIRE(ui::app_open_model(a, x, t).empty());
    a.view.model.open = false;  // the pipeline, not the window over it
    frame(a);
    const ui::pipeline_shown p = ui::app_pipeline(a);
    REQUIRE(p.real);
    CHECK(p.layer == 1);
    CHECK(p.exp->heads == 4);
    CHECK(p.exp->kv_heads == 2);
    CHECK(p.tr->tokens.size() == 5);  // BOS and the four tokens
    check_every_stage_draws(a);
    // The block stage is the llama's: SwiGLU's gate and up, beside the residual.
    const auto block = ui::stage_matrices(stage::block, *p.tr, p.layer, 0);
    REQUIRE(block.size() == 6);
    CHECK(std::string(block[2].label) == "W_3");
    // The inspector: a score as q·k over the head's 8 columns, Q as the sum of RMSNorm(x)·W_q, then RoPE.
    const auto score = ui::cell_explanation(a, ui::cell_ref{stage::scores, 0, 2, 3, 1});
    REQUIRE(score.size() >= 3);
    CHECK(score[2].find("q_i·k_j = ") == 0);
    const auto q = ui::cell_explanation(a, ui::cell_ref{stage::projections, 3, 0, 2, 5});
    REQUIRE(q.size() >= 3);
    CHECK(q[0].find("Q(2, 5) = ") == 0);
    CHECK(q[1].find("Σ_k x(i,k)·W(k,c)") != std::string::npos);
    CHECK(q[2].find("RoPE") != std::string::npos);
    CHECK(ui::cell_explanation(a, ui::cell_ref{stage::scores, 0, 9, 3, 1}).empty());  // a head it lacks: nothing
    a.view.current = stage::weights;
    frame(a);
    CHECK(ui::text_mirror_json(a).find("The pipeline shows the model x.bin, layer 1.") != std::string::npos);
    CHECK(ui::app_link(a).find("view.model_pipeline=1") != std::string::npos);
    CHECK(ui::share_export_csv(a).bytes.find("layer 1 head 3: P") != std::string::npos);  // the export is what it shows
    check_changed_pass(a);
    // A text edit while on the model's block stage (the experiment has none): the stage stays.
    a.view.current = stage::block;
    experiment next = a.model.exp;
    next.text = "a b a b a";
    REQUIRE(a.model.exp.block != block_kind::full);
    ui::app_request(a, change::set(next));
    frame(a);
    frame(a);
    frame(a);
    CHECK(a.view.current == stage::block);
    CHECK(ui::app_pipeline(a).tr->tokens.size() == 6);
    a.view.current = stage::weights;
    a.view.model.changes = {};
    a.view.model.pipeline = false;
    frame(a);
    CHECK_FALSE(ui::app_pipeline(a).real);
    CHECK(ui::app_pipeline(a).tr == &a.model.tr);
}

TEST_CASE("every lesson view draws frame after frame while its experiment changes under it") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    for (int lesson = 0; lesson < lesson_count; ++lesson) {
        INFO("lesson L" << lesson + 1);
        ui::lesson_open(a, lesson);
        frame(a);
        for (int k = 0; k < 4; ++k) {
            experiment next = a.model.exp;
            next.pos = k % 2 ? positional::rope : positional::none;
            next.pos_offset = k;
            ui::app_request(a, change::set(next));
            frame(a);
            CHECK(a.model.exp.pos_offset == k);
        }
        CHECK(a.view.lesson.index == lesson);
    }
}

TEST_CASE("L4: dragging the RoPE shift slider like a person, frame by frame") {
    // The view draws from references into the trace while the slider changes the
    // experiment; recomputing there read freed memory (ASan runs this test).
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    ui::lesson_open(a, 3);
    frame(a);  // a lesson opens at the start of the next frame
    CHECK(a.view.lesson.index == 3);
    experiment e = a.model.exp;
    e.pos = positional::rope;
    e.pos_offset = 0;
    REQUIRE(ui::app_set_experiment(a, e));
    frame(a);
    frame(a);
    const ui::widget_rect* w = find_widget(a, "l4_shift");
    REQUIRE(w != nullptr);
    const float y = (w->y0 + w->y1) / 2, x0 = w->x0 + 2, x1 = w->x1 - 2;
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent(x0, y);
    frame(a);
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, true);
    frame(a);
    for (int k = 1; k <= 8; ++k) {
        io.AddMousePosEvent(x0 + (x1 - x0) * float(k) / 8.0f, y);
        frame(a);
    }
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, false);
    frame(a);
    frame(a);
    CHECK(a.model.exp.pos_offset > 25);  // dragged to the right end: 0 … 50
    CHECK(lesson_number(a, "rope_q_moved") > 1e-3);
    CHECK(lesson_number(a, "rope_score_shift_diff") < 1e-4);
}

TEST_CASE("a costly change first draws a frame that says it is computing, then recomputes") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    frame(a);
    const auto version = a.model.version;
    experiment next = a.model.exp;
    next.text = "a";
    for (int i = 1; i < experiment_limits::max_tokens; ++i)
        next.text += " a";
    next.heads = next.kv_heads = 16;
    next.d_model = 16;
    next.layers = 1;
    REQUIRE(experiment_validate(next).empty());
    REQUIRE(experiment_peak_bytes(next) >= slow_recompute_bytes);
    ui::app_request(a, change::set(next));
    frame(a);
    CHECK(a.model.version == version);  // this frame only says so
    CHECK(a.notice.find("MB") != std::string::npos);
    frame(a);
    CHECK(a.model.version == version + 1);
    CHECK(a.model.traced_version == a.model.version);
    CHECK(a.notice.empty());
    CHECK(a.model.tr.tokens.size() == std::size_t(experiment_limits::max_tokens));
}

TEST_CASE("a panel reads the app and asks: its experiment waits for the next frame, its view applies at once") {
    // Every panel has this shape: it cannot change the app while it draws.
    static_assert(std::is_same_v<decltype(&ui::panel_pipeline), void (*)(const ui::app&, ui::frame_out&)>);
    static_assert(std::is_same_v<decltype(&ui::panel_controls), void (*)(const ui::app&, ui::frame_out&)>);
    static_assert(std::is_same_v<decltype(&ui::panel_inspector), void (*)(const ui::app&, ui::frame_out&)>);
    static_assert(std::is_same_v<decltype(&ui::panel_lesson), void (*)(const ui::app&, ui::frame_out&)>);
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    frame(a);
    const auto version = a.model.version;
    ui::frame_out out;
    out.request = change::set(edit_toggle_ablation(a.model.exp, ablated_head{0, 0}));
    ui::view_edit(a, out).current = stage::scores;
    ui::view_edit(a, out).sel_row = 1;
    out.widgets.push_back({"probe", 0, 0, 1, 1, ""});
    ui::frame_apply(a, out);
    CHECK(a.view.current == stage::scores);  // the view: at once
    CHECK(a.view.sel_row == 1);
    CHECK(a.reports.widgets.back().name == "probe");
    CHECK(a.model.version == version);  // the experiment: queued for the one change path
    CHECK(a.pending.has_value());
    frame(a);
    CHECK(a.model.version == version + 1);
    CHECK(a.model.exp.ablate.size() == 1);
    CHECK(a.model.undo.size() == 1);  // one undo step, like any other change

    // A read-only link: the panel's experiment is refused, the view still moves.
    REQUIRE(ui::app_open_link(a, "v=1&view.readonly=1"));
    frame(a);
    const auto ro_version = a.model.version;
    ui::frame_out ro;
    ro.request = change::set(edit_toggle_ablation(a.model.exp, ablated_head{0, 0}));
    ui::view_edit(a, ro).current = stage::masked;
    ui::frame_apply(a, ro);
    frame(a);
    CHECK(a.model.version == ro_version);
    CHECK(a.view.current == stage::masked);
}

TEST_CASE("stage 9 shows the residual alone for block=attn_res, and the FFN's maps for block=full") {
    const auto labels = [](const char* link) {
        const auto parsed = experiment_parse(link);
        REQUIRE(parsed.value);
        const trace t = forward(*parsed.value);
        std::vector<std::string> out;
        for (const auto& sm : ui::stage_matrices(stage::block, t, 0, 0))
            out.emplace_back(sm.label);
        return out;
    };
    CHECK(labels("v=1&d_model=8&heads=2&block=attn_res") == std::vector<std::string>{"r = x + A"});
    CHECK(labels("v=1&d_model=8&heads=2&block=full") ==
          std::vector<std::string>{"r = x + A", "W_1", "relu(norm(r)·W_1)", "W_2", "y"});
}

TEST_CASE("one colour scale for the heads of a stage and for Scores → Scaled → Masked; per-map scales when chosen") {
    const auto parsed = experiment_parse("v=1&d_model=8&heads=2&mask=causal");
    REQUIRE(parsed.value);
    const trace t = forward(*parsed.value);
    const auto scores = ui::stage_shared_range(stage::scores, t, 0);
    REQUIRE(scores);
    float top = 0.0f;
    for (const auto& ht : t.layers[0].heads)
        for (float v : ht.scores.data)
            top = std::max(top, std::fabs(v));
    CHECK(scores->hi == top);  // d_k = 4: the scores are the widest of the three
    CHECK(scores->lo == -top);
    CHECK(ui::stage_shared_range(stage::scaled, t, 0)->hi == top);
    CHECK(ui::stage_shared_range(stage::masked, t, 0)->hi == top);
    CHECK(ui::stage_shared_range(stage::weighted_sum, t, 0));
    CHECK_FALSE(ui::stage_shared_range(stage::weights, t, 0));      // weights span [0, 1] already
    CHECK_FALSE(ui::stage_shared_range(stage::projections, t, 0));  // W_q, Q, … scale themselves

    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, *parsed.value);
    a.view.current = stage::scaled;
    CHECK(ui::app_shared_range(a)->hi == top);
    ui::frame_out out;
    ui::view_edit(a, out).per_map_scale = true;
    ui::frame_apply(a, out);
    CHECK_FALSE(ui::app_shared_range(a));
}

// Every string the interface shows in 中文 is Chinese: the text of one frame, as
// ImGui renders it (its log), holds no English words but the notation and the
// sentence's own tokens.
std::string frame_text(ui::app& a) {
    // ImGui logs what it renders until the first top-level window ends (the
    // app's root window, which holds every panel), then hands it to the clipboard.
    static std::string logged;
    static ui::heatmap_context heatmaps;  // no renderer: the heatmaps draw rectangles
    logged.clear();
    a.heatmaps = &heatmaps;
    ImGuiIO& io = ImGui::GetIO();
    io.SetClipboardTextFn = [](void*, const char* text) { logged += text; };
    io.DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ImGui::LogToClipboard();
    ui::app_draw(a);
    ImGui::LogFinish();
    ImGui::Render();
    io.SetClipboardTextFn = nullptr;
    return logged;
}

// The English words in `text` that are not notation, not the sentence's tokens
// and not in the numpy code panel (its lines start with their number; a line
// too long for the panel goes on, wrapped, on the next).
bool in_code(const std::string& word) {
    for (const char* line : ui::numpy_code_lines()) {
        const std::string l = line;
        for (std::size_t at = l.find(word); at != std::string::npos; at = l.find(word, at + 1)) {
            const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(l[at - 1]));
            const std::size_t end = at + word.size();
            if (starts && (end == l.size() || !std::isalnum(static_cast<unsigned char>(l[end]))))
                return true;
        }
    }
    return false;
}

std::vector<std::string> english_words(const std::string& text, const std::vector<std::string>& tokens) {
    static const std::vector<std::string> notation = {
        "softmax", "Softmax", "argmax", "MHA",    "MQA",   "GQA",    "RoPE",           "FFN",     "NaN",
        "inf",     "relu",    "exp",    "max",    "norm",  "std",    "numpy",          "FLOPs",   "GFLOPs",
        "fp16",    "fp32",    "bf16",   "tokens", "logit", "kernel", "FlashAttention", "RMSNorm", "SwiGLU",
        "English",  // the button that switches to English
    };
    std::vector<std::string> seen, found;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && std::isdigit(static_cast<unsigned char>(line[first])) &&
            line.find(' ', first) == line.find_first_not_of("0123456789", first))
            continue;  // a numbered line of the numpy code
        std::string word;
        const auto flush = [&] {
            const bool notation_like = word.find_first_of("_0123456789") != std::string::npos;
            if (word.size() >= 3 && !notation_like && std::find(notation.begin(), notation.end(), word) == notation.end() &&
                !in_code(word) && std::find(tokens.begin(), tokens.end(), word) == tokens.end() &&
                std::find(seen.begin(), seen.end(), word) == seen.end()) {
                seen.push_back(word);
                found.push_back(word + " (in \"" + line.substr(0, 80) + "\")");
            }
            word.clear();
        };
        for (const char c : line) {
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
                word += c;
            else
                flush();
        }
        flush();
    }
    return found;
}

TEST_CASE("in 中文 every stage, lesson and panel shows no English but notation and the sentence's tokens") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(2400, 3000);  // everything in view: text outside a window is not rendered
    ui::ui_set_language(ui::language::zh);
    ui::app a;
    experiment e;  // every stage: two layers, the full block, four heads
    e.layers = 2;
    e.block = block_kind::full;
    e.heads = 4;
    e.d_model = 16;
    ui::app_init(a, e);
    std::vector<std::string> english;
    const auto look = [&](const char* where) {
        frame_text(a);  // a window's first frame only measures
        for (const std::string& w : english_words(frame_text(a), a.model.tr.tokens))
            english.push_back(std::string(where) + ": " + w);
    };
    for (int s = 0; s < stage_count; ++s) {
        a.view.current = stage(s);
        look(ui::stage_name(stage(s)));
    }
    REQUIRE(ui::app_change(a, change::pin(a.model.exp)));  // the compare view, A | B | B − A
    a.view.compare_shown = true;
    a.view.compare_patch_shown = true;  // and "patch from A" under it
    a.view.current = stage::weights;
    look("compare");
    for (int lesson = 0; lesson < lesson_count; ++lesson) {
        ui::lesson_open(a, lesson);
        look(("L" + std::to_string(lesson + 1)).c_str());
    }
    ui::ui_set_language(ui::language::en);
    std::string list;
    for (const std::string& w : english)
        list += w + "\n";
    INFO("English words in the 中文 interface:\n" << list);
    CHECK(english.empty());
}

TEST_CASE("every map of every stage says what its rows and columns are") {
    headless_imgui imgui;
    ui::app a;
    experiment e;
    e.layers = 2;
    e.block = block_kind::full;
    ui::app_init(a, e);
    for (int s = 0; s < stage_count; ++s) {
        a.view.current = stage(s);
        frame(a);
        INFO(ui::stage_name(stage(s)));
        REQUIRE(!a.reports.maps.empty());
        for (const ui::map_report& m : a.reports.maps)
            CHECK(!m.axes.empty());
        if (stage(s) == stage::scores || stage(s) == stage::weights)
            CHECK(a.reports.maps.front().axes == ui::axes_queries_by_keys());
        if (stage(s) == stage::output)
            CHECK(a.reports.maps.front().axes == ui::axes_tokens_by_dimensions());
    }
}

TEST_CASE("every control of the controls panel has a line of help in both languages") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1400, 2400);  // the whole column in view
    ui::app a;
    experiment e;  // every control drawn: padding, RoPE (offset, base), a custom scale, the Advanced fold open
    e.mask = mask_kind::padding;
    e.pos = positional::rope;
    e.scale = score_scale::custom;
    e.prec = precision::fp16;
    ui::app_init(a, e);
    frame(a);
    frame(a);
    int controls = 0;
    for (const ui::widget_rect& w : a.reports.widgets) {
        if (w.window.find("controls") == std::string::npos)
            continue;
        ++controls;
        INFO(w.name);
        const ui::control_help* h = ui::control_help_of(w.name);
        REQUIRE(h);
        CHECK(std::string(h->en).size() > 20);
        CHECK(std::any_of(h->zh, h->zh + std::string(h->zh).size(), [](char c) { return (unsigned char)c >= 0x80; }));
    }
    CHECK(controls >= 20);
    for (const char* name :
         {"layers", "pad", "pos_offset", "rope_base", "scale_factor", "clear_interventions", "kv_1", "precision_fp16"})
        CHECK_MESSAGE(find_widget(a, name), name);
    CHECK(ui::control_help_of("heads_4") == ui::control_help_of("heads"));
    CHECK(ui::control_help_of("grid_head0") == nullptr);
}

TEST_CASE("the controls read the key table: help from the keys' rows, values a link sets outside a slider shown as they are") {
    // The help of a control that edits a key is its row's (spec/keys.hpp), whatever the widget's name.
    for (const auto& pair : {std::pair<const char*, const char*>{"temperature", "temp"},
                             {"positions", "pos"},
                             {"kv_2", "kv_heads"},
                             {"mask_after", "mask_at"},
                             {"d_model", "d_model"}}) {
        const std::string widget = pair.first, key = pair.second;
        INFO(widget);
        const ui::control_help* h = ui::control_help_of(widget);
        REQUIRE(h);
        CHECK(std::string(h->en) == key_of(key).help.en);
        CHECK(std::string(h->zh) == key_of(key).help.zh);
    }
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1400, 2400);  // the whole column in view
    // Past the controls' ranges (pos_offset 0…100, temp 0.05…10, the RoPE base's 2…1e6, a
    // factor's ±100) and a seed above 2^31, all within the keys' limits: drawn,
    // never written back clamped.
    const auto r =
        experiment_parse("v=1&pos=rope&pos_offset=5000&temp=50&rope_base=1e8&scale=300&seed=4000000000&d_model=128&heads=16");
    REQUIRE(r.value);
    ui::app a;
    ui::app_init(a, *r.value);
    for (int i = 0; i < 4; ++i)
        frame(a);
    for (const char* name : {"pos_offset", "temperature", "rope_base", "scale_factor", "seed", "d_model"})
        CHECK_MESSAGE(find_widget(a, name), name);
    CHECK(a.model.exp == *r.value);
    CHECK(experiment_to_text(a.model.exp) == experiment_to_text(*r.value));
}

TEST_CASE("compare: Pin as A, then Compare draws A | B | B − A of every map of the stage, each stage in turn") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    frame(a);
    REQUIRE(find_widget(a, "pin"));
    CHECK_FALSE(find_widget(a, "compare"));
    ui::frame_out out;
    out.request = change::pin(a.model.exp);
    ui::frame_apply(a, out);
    frame(a);
    REQUIRE(a.model.pin);
    CHECK(a.model.undo.size() == 1);
    REQUIRE(find_widget(a, "unpin"));
    REQUIRE(find_widget(a, "compare"));
    CHECK(ui::app_compare(a).max_abs == 0.0);
    CHECK(ui::compare_summary_text(ui::app_compare(a)).find("max |B − A| 0") == 0);
    experiment b = a.model.exp;
    b.scale = score_scale::none;
    REQUIRE(ui::app_set_experiment(a, b));
    a.view.compare_shown = true;
    for (int s = 0; s < stage_count; ++s) {
        if (!stage_applies(stage(s), a.model.exp))
            continue;
        INFO("stage " << s);
        a.view.current = stage(s);
        frame(a);
        const compare_result& c = ui::app_compare(a);
        CHECK(c.mismatch.what == compare_mismatch::kind::none);
        CHECK(find_widget(a, "cmp_a0"));
        CHECK(find_widget(a, "cmp_b0"));
        CHECK(find_widget(a, "cmp_d0"));
        CHECK(find_widget(a, "cmp_d" + std::to_string(c.maps.size() - 1)));
        const bool moved = s >= int(stage::scaled);  // the scale acts from Scale /√d_k on
        CHECK((c.max_abs > 0) == moved);
    }
    // A different sentence: the reason in words, no maps.
    REQUIRE(ui::app_open_link(a, "v=1&text=a%20b%20c&pin=" + ui::app_link(a).substr(ui::app_link(a).find("&pin=") + 5)));
    frame(a);
    CHECK(ui::compare_summary_text(ui::app_compare(a)).find("tokens, B has 3") != std::string::npos);
    CHECK_FALSE(find_widget(a, "cmp_a0"));
}

TEST_CASE("patch from A: the switch beside the compare, the map of every head at all positions and each, its table") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_change(a, change::pin(a.model.exp)));
    frame(a);
    CHECK_FALSE(find_widget(a, "compare_patch"));  // only with the compare shown
    experiment b = a.model.exp;
    b.ablate = {{0, 1}};
    REQUIRE(ui::app_set_experiment(a, b));
    a.view.compare_shown = true;
    frame(a);
    REQUIRE(find_widget(a, "compare_patch"));
    CHECK_FALSE(find_widget(a, "compare_patch_map"));
    CHECK_FALSE(a.memo.compare_patch.valid);  // nothing computed until it is asked for
    ui::text_table t;
    CHECK_FALSE(ui::compare_patch_table(a, t));
    a.view.compare_patch_shown = true;
    frame(a);
    REQUIRE(find_widget(a, "compare_patch_map"));
    const compare_patch_result& r = ui::app_compare_patch(a);
    REQUIRE(r.complete());
    CHECK_FALSE(r.other_weights);  // one model, a head zeroed in B: its own activations
    CHECK_FALSE(find_widget(a, "compare_patch_other_weights"));
    CHECK(r.explained[1] == doctest::Approx(1.0));
    const auto map = std::find_if(a.reports.maps.begin(), a.reports.maps.end(),
                                  [](const ui::map_report& m) { return m.name == "compare_patch_map"; });
    REQUIRE(map != a.reports.maps.end());
    CHECK(map->cells == 2 * (1 + 5));
    CHECK(!map->axes.empty());
    REQUIRE(ui::compare_patch_table(a, t));
    CHECK(t.rows == std::vector<std::string>{"L0H0", "L0H1"});
    CHECK(t.cols.front() == "all");
    CHECK(t.cols.size() == 6);
    CHECK(t.cells[1][0] == "1.00");
    // Another shape: the reason in words, no map.
    REQUIRE(ui::app_set_experiment(a, *experiment_parse("v=1&text=a%20b%20c").value));
    frame(a);
    CHECK_FALSE(find_widget(a, "compare_patch_map"));
    REQUIRE(find_widget(a, "compare_patch_problem"));
    CHECK(ui::app_compare_patch(a).problem == "A has 5 tokens, B has 3: patching needs the same shape");
}

TEST_CASE("compare while A's model is not at its step: the summary says A is still training, with no figures") {
    compare_result c;
    c.max_abs = 0.5;
    c.mismatch.what = compare_mismatch::kind::training;
    c.mismatch.a = 3;
    c.mismatch.b = 30;
    CHECK(ui::compare_summary_text(c) == "A is still training (step 3 of 30).");
}

TEST_CASE("Share says what a live embed of a recipe costs a reader: training to its step, or none until Train at step 0") {
    CHECK(ui::share_embed_cost(experiment{}).empty());  // no recipe: nothing trains
    experiment e = *experiment_parse(recipe_lesson_induction).value;
    CHECK(ui::share_embed_cost(e).find("to step 1500 once") != std::string::npos);
    e.train.trained = 400;
    CHECK(ui::share_embed_cost(e).find("to step 400 once") != std::string::npos);
    e.train.trained = 0;  // the link opens untrained: not "trains this model to step 0"
    const std::string untrained = ui::share_embed_cost(e);
    CHECK(untrained.find("step") == std::string::npos);
    CHECK(untrained.find("untrained") != std::string::npos);
    ui::ui_set_language(ui::language::zh);
    CHECK(ui::share_embed_cost(e).find("未训练") != std::string::npos);
    ui::ui_set_language(ui::language::en);
}

TEST_CASE("the embed code: the frame, a first height the view needs, the resize script; pin= only while compare shows A") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    frame(a);
    ui::frame_out out;
    out.request = change::pin(a.model.exp);
    ui::frame_apply(a, out);
    frame(a);
    REQUIRE(a.model.pin);
    CHECK(ui::share_full_link(a).find("&pin=") != std::string::npos);
    CHECK(ui::share_embed_link(a).find("pin=") == std::string::npos);  // the author does not see A
    a.view.compare_shown = true;
    CHECK(ui::share_embed_link(a).find("&pin=") != std::string::npos);
    CHECK(a.reports.content_height > 200.0f);
    const int first = ui::share_embed_height(a);
    CHECK(first >= ui::share_embed_min_height);
    CHECK(first <= ui::share_embed_max_height);
    const std::string code =
        ui::share_embed_code("http://127.0.0.1:8000/attn/index.html", "v=1&heads=4&view.embed=1", 700, "L2 \"√d_k\"");
    const auto has = [&code](const std::string& part) { return code.find(part) != std::string::npos; };
    CHECK(has("src=\"http://127.0.0.1:8000/attn/index.html#v=1&amp;heads=4&amp;view.embed=1\" width=\"100%\" height=\"700\""));
    CHECK(has("title=\"L2 &quot;√d_k&quot;\""));
    CHECK(has("e.origin !== 'http://127.0.0.1:8000' || e.source !== frame.contentWindow"));
    CHECK(has("if (e.data.type === 'attn:resize') frame.style.height = Math.min(e.data.height, 1600) + 'px';"));
    const std::string other = ui::share_embed_code("http://x/", "v=1&view.embed=1", 320, "t");
    REQUIRE(code.rfind("<iframe id=\"attn-", 0) == 0);
    CHECK(code.substr(12, 13) != other.substr(12, 13));  // one id per embed: two on a page do not clash
    CHECK(has("document.getElementById('" + code.substr(12, 13) + "')"));
}

namespace {

// The texts and buttons `draw` puts in a 200 × 100 window with `flags` that its
// window cuts (ui::note_clip), on the second frame (a scrollbar appears a frame
// after the content that needs it).
template <class Draw>
std::vector<ui::clip_report> clipped_in_window(ImGuiWindowFlags flags, Draw draw) {
    ui::frame_out out;
    for (int f = 0; f < 2; ++f) {
        out = ui::frame_out{};
        ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(200, 100));
        ImGui::Begin("clip", nullptr, flags | ImGuiWindowFlags_NoSavedSettings);
        draw(out);
        ImGui::End();
        ImGui::Render();
    }
    return out.clipped;
}

}  // namespace

TEST_CASE("a text or button its window cuts is counted once, with its text; one that fits or wraps is not") {
    headless_imgui imgui;
    const auto button = [](ui::frame_out& out, const char* label) {
        ImGui::Button(label);
        ui::note_clip(out, label);
    };
    const char* wide = "a button label far too wide for a window two hundred pixels wide";
    CHECK(clipped_in_window(0, [](ui::frame_out& out) { ui::text_plain(out, "fits"); }).empty());
    const auto cut = clipped_in_window(0, [&](ui::frame_out& out) { button(out, wide); });
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].text == std::string(wide).substr(0, 40));
    CHECK(cut[0].x1 > cut[0].clip_x1);
    // Sideways, a line cut part way is cut even where the window could scroll to its end.
    CHECK(clipped_in_window(ImGuiWindowFlags_HorizontalScrollbar, [&](ui::frame_out& out) { button(out, wide); }).size() == 1);
    // A sentence wraps at the visible edge instead.
    CHECK(clipped_in_window(0, [&](ui::frame_out& out) { ui::text_plain(out, wide); }).empty());
    // Lines below the window: cut when it cannot scroll to them, not when it can.
    const auto lines = [](ui::frame_out& out) {
        for (int i = 0; i < 12; ++i)
            ui::textf(out, "line %d", i);
    };
    CHECK(clipped_in_window(ImGuiWindowFlags_NoScrollbar, lines).size() >= 6);
    CHECK(clipped_in_window(0, lines).empty());
}

namespace {

// Map `m` drawn by heatmap_draw as `id` in a window `width` pixels wide, twice (the
// second frame knows the first's sizes): what the second frame drew.
ui::heatmap_result map_in_window(ui::heatmap_context& heatmaps, const char* id, const matrix& m, const ui::heatmap_options& opt,
                                 float width) {
    ui::heatmap_result r;
    for (int f = 0; f < 2; ++f) {
        ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(width, 900));
        ImGui::Begin("maps", nullptr, ImGuiWindowFlags_NoSavedSettings);
        r = ui::heatmap_draw(heatmaps, id, m, opt);
        ImGui::End();
        ImGui::Render();
    }
    return r;
}

// The maps heatmap_draw reports cut for `opt` over a 16-column map in a window 300 pixels wide.
std::vector<ui::heatmap_cut> cut_maps(const ui::heatmap_options& opt, int rows = 16) {
    ui::heatmap_context heatmaps;
    matrix m(rows, 16);
    for (std::size_t i = 0; i < m.data.size(); ++i)
        m.data[i] = float(i % 7) - 3.0f;
    map_in_window(heatmaps, "map", m, opt, 300.0f);
    return heatmaps.cut();
}

}  // namespace

TEST_CASE("a map with a scrollbar of its own is counted as cut (ui().clipped); one fitted, zoomed or over two screens is not") {
    headless_imgui imgui;
    ui::heatmap_options fit;
    CHECK(cut_maps(fit).empty());  // cells sized to the width: whole
    ui::heatmap_options wide;
    wide.cell = 40.0f;  // 640 pixels of cells asked for in a 300-pixel window: the cells shrink to fit
    CHECK(cut_maps(wide).empty());
    ui::heatmap_options zoomed = wide;
    zoomed.zoom = 1.5f;  // the person asked for it: scrolls sideways, not counted
    CHECK(cut_maps(zoomed).empty());
    ui::heatmap_options tall;
    tall.max_height = 200.0f;
    const auto cut = cut_maps(tall);  // 16 rows in 200 pixels
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].id == "map");
    CHECK(cut[0].y1 > cut[0].box_y1);
    CHECK(cut_maps(tall, 2000).empty());  // 2000 rows: over two screens, scrolls in place
}

TEST_CASE("a map whose cells are too small for a label each shows ticks with sparse labels: the highlighted one among them") {
    headless_imgui imgui;
    ui::heatmap_context heatmaps;
    matrix m(22, 61, 1.0f);  // L12's position × snapshot map
    std::vector<std::string> rows, cols;
    for (int r = 0; r < m.rows; ++r)
        rows.push_back(std::to_string(r));
    for (int c = 0; c < m.cols; ++c)
        cols.push_back(std::to_string(c * 25));
    const auto draw = [&](bool sparse) {
        ui::heatmap_options opt;
        opt.cell = 6.0f;
        opt.row_labels = &rows;
        opt.col_labels = &cols;
        opt.highlight_col = 13;
        opt.sparse_labels = sparse;
        return map_in_window(heatmaps, sparse ? "sparse" : "plain", m, opt, 600.0f);
    };
    const ui::heatmap_result plain = draw(false), sparse = draw(true);
    CHECK(plain.highlight_col_label.x1 <= plain.highlight_col_label.x0);     // no labels at all
    CHECK(sparse.highlight_col_label.x1 > sparse.highlight_col_label.x0);    // the drop's step is labelled
    CHECK(sparse.cells_x0 > plain.cells_x0);                                 // a band of row labels left of the cells
    CHECK(sparse.cells_x1 - sparse.cells_x0 == doctest::Approx(61 * 6.0f));  // the cells as asked: the ticks fit beside them
    CHECK(heatmaps.cut().empty());
}

namespace {

// A renderer that keeps what each texture holds and which it drew this frame.
struct recording_gpu : ui::heatmap_gpu {
    std::map<std::uint64_t, std::vector<float>> values;  // each texture's cell values (the texels' first of two)
    std::set<std::uint64_t> drawn;
    int uploads = 0;
    void upload(std::uint64_t key, int rows, int cols, const float* texels) override {
        ++uploads;
        std::vector<float>& v = values[key];
        v.resize(std::size_t(rows) * std::size_t(cols));
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = texels[2 * i];
    }
    bool draw(ImDrawList*, std::uint64_t key, ImVec2, ImVec2, const ui::heatmap_gpu_style&) override {
        drawn.insert(key);
        return values.count(key) > 0;
    }
    void draw_legend(ImDrawList*, ImVec2, ImVec2, const ui::heatmap_gpu_style&) override {}
    void forget(std::uint64_t key) override { values.erase(key); }
    std::uint64_t frame_signature() const override { return 0; }

    // Whether some texture drawn this frame holds exactly m's values.
    bool shows(const matrix& m) const {
        return std::any_of(drawn.begin(), drawn.end(), [&](std::uint64_t k) { return values.at(k) == m.data; });
    }
};

void gpu_frame(ui::app& a, ui::heatmap_context& heatmaps, recording_gpu& gpu) {
    a.heatmaps = &heatmaps;
    gpu.drawn.clear();
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ui::app_draw(a);
    ImGui::Render();
}

}  // namespace

TEST_CASE("every picture drawn is of the data it is drawn from: the layer, the head, the pinned A") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(2400, 3000);  // every map in view
    recording_gpu gpu;
    ui::heatmap_context heatmaps;
    heatmaps.set_gpu(&gpu);
    ui::app a;
    experiment e;
    e.layers = 2;
    e.heads = 2;
    ui::app_init(a, e);
    a.view.current = stage::weights;
    const auto heads_of = [&](const trace& t, int layer) {
        std::vector<const matrix*> m;
        for (const head_trace& h : t.layers[std::size_t(layer)].heads)
            m.push_back(&h.weights);
        return m;
    };
    for (int layer : {0, 1, 0}) {
        a.view.layer = layer;
        gpu_frame(a, heatmaps, gpu);
        gpu_frame(a, heatmaps, gpu);  // (a layer's first frame may still be laying out)
        for (const matrix* m : heads_of(a.model.tr, layer))
            CHECK_MESSAGE(gpu.shows(*m), "a head's weights at layer " << layer << " are drawn");
        for (const matrix* m : heads_of(a.model.tr, 1 - layer))
            CHECK_MESSAGE(!gpu.shows(*m), "no map at layer " << layer << " shows layer " << 1 - layer << "'s weights");
    }
    // A | B | B − A: A another model of the same shape; each at the layer shown.
    experiment other = e;
    other.seed = 7;
    REQUIRE(ui::app_change(a, change::pin(other)));
    a.view.compare_shown = true;
    for (int layer : {0, 1}) {
        a.view.layer = layer;
        gpu_frame(a, heatmaps, gpu);
        gpu_frame(a, heatmaps, gpu);
        const compare_result& c = ui::app_compare(a);
        REQUIRE(c.maps.size() == 2);
        for (std::size_t h = 0; h < 2; ++h) {
            CHECK_MESSAGE(gpu.shows(*heads_of(a.model.pin_tr, layer)[h]), "A's head " << h << " at layer " << layer);
            CHECK_MESSAGE(gpu.shows(*heads_of(a.model.tr, layer)[h]), "B's head " << h << " at layer " << layer);
            CHECK_MESSAGE(gpu.shows(c.maps[h].diff), "B − A of head " << h << " at layer " << layer);
            CHECK(!gpu.shows(*heads_of(a.model.pin_tr, 1 - layer)[h]));
        }
    }
    heatmaps.set_gpu(nullptr);
}

TEST_CASE(
    "compare costs what its maps cost: A traced once its run is done, nothing recomputed or uploaded while nothing changes") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1440, 900);
    recording_gpu gpu;
    ui::heatmap_context heatmaps;
    heatmaps.set_gpu(&gpu);
    ui::app a;
    ui::app_init(a, experiment{});
    // B: L9 trained a few steps; A: L10's recipe, pinned, retrained to its step beside B.
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=8"));
    for (int i = 0; i < 2000 && !(trainer_done(a.model.train) && trainer_step(a.model.train) == 8); ++i)
        gpu_frame(a, heatmaps, gpu);
    REQUIRE(trainer_step(a.model.train) == 8);
    experiment l10 = *experiment_parse(recipe_lesson_copy_offset).value;
    l10.train.trained = 12;
    REQUIRE(ui::app_change(a, change::pin(l10)));
    a.view.compare_shown = true;
    a.view.compare_patch_shown = true;
    const std::uint64_t pinned = a.model.pin_version;
    int frames = 0;
    const auto settled = [&a] {
        const trainer& t = a.model.pin_train;  // at its step, and its held-out measure there taken
        return t.run && trainer_done(t) && trainer_step(t) == 12 && t.measured_step == 12 && ui::app_compare_patch(a).complete();
    };
    for (; frames < 2000 && !settled(); ++frames)
        gpu_frame(a, heatmaps, gpu);
    REQUIRE(trainer_step(a.model.pin_train) == 12);
    CHECK(frames > 3);  // A's run took frames
    // A's trace is of no use until A is at its step (the compare says it is
    // still training): traced once then, not at each of its steps.
    CHECK(a.model.pin_version - pinned <= 3);
    const auto counters = [&a, &gpu] {
        return std::vector<std::uint64_t>{a.model.version,           a.model.pin_version,        a.memo.compare.made,
                                          a.memo.compare_patch.made, std::uint64_t(gpu.uploads), a.memo.effect.made};
    };
    const auto still = [&](const char* what) {
        for (int i = 0; i < 3; ++i)  // the view's first frames lay out
            gpu_frame(a, heatmaps, gpu);
        const std::vector<std::uint64_t> before = counters();
        for (int i = 0; i < 30; ++i)
            gpu_frame(a, heatmaps, gpu);
        const std::vector<std::uint64_t> after = counters();
        INFO(std::string(what) << ": the trace, A's trace, the compare, the patch map, uploads, the effect");
        for (std::size_t k = 0; k < before.size(); ++k)
            CHECK_MESSAGE(after[k] == before[k], "counter " << k << " recomputed or uploaded with nothing changed");
    };
    REQUIRE(find_widget(a, "cmp_d0"));
    REQUIRE(find_widget(a, "compare_patch_map"));
    CHECK(find_widget(a, "compare_patch_other_weights"));  // two models: what a patch between them can mean
    CHECK(ui::app_compare_patch(a).other_weights);
    // The text view has the compare's tables: its summary, A's map and B − A of each.
    const std::string text = ui::text_mirror_json(a);
    CHECK(text.find("Compare A | B | B − A: max |B − A|") != std::string::npos);
    CHECK(text.find("\"caption\":\"A: ") != std::string::npos);
    CHECK(text.find("\"caption\":\"B − A: ") != std::string::npos);
    CHECK(text.find("A and B are different models") != std::string::npos);
    still("compare and patch from A");
    a.view.compare_patch_shown = false;
    still("compare");
    a.view.compare_head = 2;  // one head's A | B | B − A
    still("compare, head 2");
    CHECK(find_widget(a, "cmp_a2"));
    CHECK_FALSE(find_widget(a, "cmp_a0"));
    a.view.compare_shown = false;
    still("compare off");
    REQUIRE(ui::app_change(a, change::unpin()));
    still("unpinned");
    heatmaps.set_gpu(nullptr);
}

TEST_CASE("from a lesson's link the keyboard starts on the lesson's card: Tab walks previous, next, the recipe, Train") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=0"));
    // The page's first frames: the root window appears (ImGui then asks to focus
    // its first item, the menu), which must not take the focus the lesson asked for.
    for (int i = 0; i < 3; ++i)
        frame(a);
    std::vector<std::string> stops;
    for (int t = 0; t < 4; ++t) {
        ImGui::GetIO().AddKeyEvent(ImGuiKey_Tab, true);
        frame(a);
        ImGui::GetIO().AddKeyEvent(ImGuiKey_Tab, false);
        frame(a);
        stops.push_back(a.reports.keyboard_focus);
    }
    CHECK(stops == std::vector<std::string>{"lesson_previous", "lesson_next", "train_recipe", "train_run"});
}

namespace {

void press_key(ui::app& a, ImGuiKey key, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    if (shift)
        io.AddKeyEvent(ImGuiMod_Shift, true);
    io.AddKeyEvent(key, true);
    frame(a);
    io.AddKeyEvent(key, false);
    if (shift)
        io.AddKeyEvent(ImGuiMod_Shift, false);
    frame(a);
}

// Whether the named widget lies wholly inside the part of its window that is seen.
bool widget_seen(const ui::app& a, const std::string& name) {
    const ui::widget_rect* w = find_widget(a, name);
    const ImGuiWindow* win = w ? ImGui::FindWindowByName(w->window.c_str()) : nullptr;
    return win && w->y0 >= win->InnerClipRect.Min.y - 0.5f && w->y1 <= win->InnerClipRect.Max.y + 0.5f;
}

}  // namespace

TEST_CASE("Tab goes on from Train once its run is done, and the focused button stays in view") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=0"));
    for (int i = 0; i < 3; ++i)
        frame(a);
    for (int t = 0; t < 4; ++t)
        press_key(a, ImGuiKey_Tab);
    REQUIRE(a.reports.keyboard_focus == "train_run");
    // A run of a few steps (the lesson's recipe, shortened): Enter trains it to the end.
    experiment e = a.model.exp;
    e.train.steps = 6;
    REQUIRE(ui::app_change(a, change::set(e), ui::link_scope::experiment));
    frame(a);
    press_key(a, ImGuiKey_Enter);
    for (int i = 0; i < 2000 && !(trainer_done(a.model.train) && trainer_step(a.model.train) == 6); ++i)
        frame(a);
    REQUIRE(trainer_step(a.model.train) == 6);
    for (int i = 0; i < 10; ++i)  // what the card says of the trained model appears above
        frame(a);
    CHECK(a.reports.keyboard_focus == "train_run");  // disabled now: nothing more to train
    CHECK(widget_seen(a, "train_run"));
    press_key(a, ImGuiKey_Tab);
    CHECK(a.reports.keyboard_focus == "train_reset");  // Step is disabled too
    // The window gets shorter than where the focused button is (as when the card
    // above grows): the page scrolls it back into view.
    const float bottom = find_widget(a, "train_reset")->y1;
    ImGui::GetIO().DisplaySize.y = bottom - 40.0f;
    for (int i = 0; i < 3; ++i)
        frame(a);
    CHECK(a.reports.keyboard_focus == "train_reset");
    CHECK(widget_seen(a, "train_reset"));
    ImGui::GetIO().DisplaySize.y = 720;
    press_key(a, ImGuiKey_Tab, true);  // and back, past the disabled Step and Train
    CHECK(a.reports.keyboard_focus == "train_recipe");
    ImGui::GetIO().ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
}

// At a desktop's, a laptop's and a phone's size.
void train_panel_stays(ImVec2 size) {
    CAPTURE(size.x);
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = size;
    ui::app a;
    ui::app_init(a, experiment{});
    ui::ui_set_language(ui::language::zh);  // English takes more lines above the bar than 中文
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=0"));
    for (int i = 0; i < 3; ++i)
        frame(a);
    REQUIRE(widget_seen(a, "train_progress"));
    const auto bar_y = [&a] { return find_widget(a, "train_progress")->y0; };
    const float still = bar_y();
    // Not training: what is above grows, and the bar moves down with it.
    ui::app_toggle_language(a);
    frame(a);
    frame(a);
    REQUIRE(bar_y() > still + 20.0f);
    ui::app_toggle_language(a);
    frame(a);
    frame(a);
    REQUIRE(bar_y() == doctest::Approx(still));
    // Training: the same growth, and the page scrolls by as much.
    experiment e = a.model.exp;
    e.train.trained = train_settings::trained_all;
    REQUIRE(ui::app_change(a, change::set(e), ui::link_scope::experiment));
    for (int i = 0; i < 200 && !trainer_training(a.model.train); ++i)
        frame(a);
    REQUIRE(trainer_training(a.model.train));
    // Until the bar stands still: a scroll asked for as training began (the card's lines changed)
    // lands a frame later, and on a busy machine the first step, which changes them, can come late.
    const auto settled = [&] {
        float y = bar_y();
        for (int i = 0; i < 30; ++i) {
            frame(a);
            if (bar_y() == y)
                break;
            y = bar_y();
        }
        return y;
    };
    const float before = settled();
    ui::app_toggle_language(a);
    frame(a);
    CHECK(trainer_training(a.model.train));
    CHECK(settled() == doctest::Approx(before).epsilon(0.002));
    CHECK(widget_seen(a, "train_progress"));
    ui::ui_set_language(ui::language::en);
}

TEST_CASE("while a run trains, what grows above the Train panel does not push its progress bar off the screen") {
    for (const ImVec2 size : {ImVec2(1440, 900), ImVec2(1280, 720), ImVec2(844, 390)})
        train_panel_stays(size);
}

TEST_CASE("a notice is a toast over the page: nothing under it moves, × closes it, it goes by itself after a few seconds") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=0"));
    for (int i = 0; i < 2; ++i)
        frame(a);
    auto where = [&](const char* name) {
        const ui::widget_rect* w = find_widget(a, name);
        REQUIRE(w);
        return std::pair(w->x0, w->y0);
    };
    const auto previous = where("lesson_previous"), run = where("train_run");
    a.notice = "Embed code copied.";
    frame(a);
    CHECK(find_widget(a, "toast"));
    CHECK(where("lesson_previous") == previous);
    CHECK(where("train_run") == run);
    for (int i = 0; i < 60 * 5; ++i)
        frame(a);
    CHECK(a.notice == "Embed code copied.");  // still there at 5 s
    for (int i = 0; i < 60 * 2; ++i)
        frame(a);
    CHECK(a.notice.empty());
    frame(a);
    CHECK_FALSE(find_widget(a, "toast"));
    a.notice = "Link copied.";
    frame(a);
    frame(a);  // an auto-sized window takes its size in its first frame, and is drawn from the second
    const ui::widget_rect* close = find_widget(a, "toast_close");
    REQUIRE(close);
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent((close->x0 + close->x1) / 2, (close->y0 + close->y1) / 2);
    frame(a);
    io.AddMouseButtonEvent(0, true);
    frame(a);
    io.AddMouseButtonEvent(0, false);
    frame(a);
    CHECK(a.notice.empty());
}

TEST_CASE("wrapped text ends its lines at spaces, never inside a number") {
    headless_imgui imgui;
    ImGui::NewFrame();  // GetFont needs a frame
    const std::string text =
        "1. A plateau at train loss 2.53, then a drop at step 331; by step 1500 the loss is 0.002 "
        "over 1,234 rows (0.17 → 0.89).";
    int breaks = 0;
    for (float width = 40.0f; width <= 700.0f; width += 3.0f) {
        std::string lines = ui::text_break_lines(text.data(), text.data() + text.size(), width);
        breaks += int(std::count(lines.begin(), lines.end(), '\n'));
        std::replace(lines.begin(), lines.end(), '\n', ' ');
        CHECK_MESSAGE(lines == text, "width " << width << ": a line ended inside a word or number");
    }
    CHECK(breaks > 0);
    // Chinese breaks between characters, never before closing punctuation.
    const std::string zh = "第一层的归纳头在损失下降时形成，损失从 2.53 降到 0.002。";
    const std::string lines = ui::text_break_lines(zh.data(), zh.data() + zh.size(), 60.0f);
    CHECK(lines.find('\n') != std::string::npos);
    CHECK(lines.find("\n，") == std::string::npos);
    CHECK(lines.find("\n。") == std::string::npos);
    CHECK(lines.find("0.\n") == std::string::npos);
    ImGui::EndFrame();
}

TEST_CASE(
    "training apart: the frames draw the lesson while the steps run beside them; the run ends with the bits of training here") {
    headless_imgui imgui;
    const experiment_parse_result p = experiment_parse(recipe_lesson_induction);
    REQUIRE(p.value);
    experiment e = *p.value;
    e.train.steps = 60;
    e.train.trained = train_settings::trained_all;
    ui::app a;
    ui::app_init(a, e);
    a.model.threads = 2;
    a.view.lesson.index = 8;  // L9, drawn from the run as it trains
    int frames = 0, apart = 0;
    while (!trainer_done(a.model.train) && frames < 100000) {
        frame(a);
        apart += a.model.train.job.busy() ? 1 : 0;  // steps going on while the next frame is drawn
        ++frames;
    }
    CHECK((apart > 0) == threads_background());
    REQUIRE(trainer_step(a.model.train) == 60);
    train_init_result straight = train_init(e);
    REQUIRE(straight.run);
    train_run_all(*straight.run);
    CHECK(train_weights_hash(*a.model.train.run) == train_weights_hash(*straight.run));
    frame(a);
    CHECK(a.model.tr.output.data.size() > 0);
}

// A link's tokenizer= is part of what it reads: the same checkpoint read with
// another tokenizer is still wanted (the page then looks for the named one), and
// opening files makes the link name both (tokenizer= from the tokenizer's hash).
TEST_CASE("a link naming the tokenizer wants that tokenizer; an opened model's link names both files") {
    ui::app a;
    ui::app_init(a, experiment{});
    const test::llama_bytes tok = test::llama_test_tokenizer({" ", "a", "b", " a", " b"});
    const test::llama_bytes ckpt = test::llama_test_checkpoint(test::llama_test_config(32, 64, 2, 4, 2, 264, 48, true), 3);
    const real_model_file x{ckpt.data(), ckpt.size(), "x.bin", "0123456789abcdef0123"};
    const real_model_file t1{tok.data(), tok.size(), "t.bin", "1111111111111111aaaa"};
    const real_model_file t2{tok.data(), tok.size(), "t.bin", "2222222222222222bbbb"};
    const std::string urls = "&model_url=m%2Fx.bin&tokenizer_url=m%2Ft.bin";
    REQUIRE(
        ui::app_change(a, change::open("v=1&text=a%20b&model=x.bin@0123456789abcdef&tokenizer=t.bin@1111111111111111" + urls)));
    CHECK(ui::app_wanted_model(a) == "x.bin@0123456789abcdef");
    CHECK(ui::app_open_model(a, x, t2).empty());  // other files opened (chosen): the link names what is open
    CHECK(ui::app_wanted_model(a).empty());
    CHECK(a.options.tokenizer == "t.bin@2222222222222222");
    CHECK(a.options.model_url.empty());  // the addresses were the other tokenizer's
    // The link naming t1 again: the checkpoint open with another tokenizer is not what it reads.
    REQUIRE(
        ui::app_change(a, change::open("v=1&text=a%20b&model=x.bin@0123456789abcdef&tokenizer=t.bin@1111111111111111" + urls)));
    CHECK(ui::app_wanted_model(a) == "x.bin@0123456789abcdef");
    CHECK(ui::app_open_model(a, x, t1).empty());
    CHECK(ui::app_wanted_model(a).empty());
    CHECK(ui::app_link(a).find("&model=x.bin@0123456789abcdef&tokenizer=t.bin@1111111111111111&model_url=") != std::string::npos);
    // A link without tokenizer= (written before it existed) is satisfied by the checkpoint; once open, it names both.
    REQUIRE(ui::app_change(a, change::open("v=1&text=a%20b&model=x.bin@0123456789abcdef")));
    CHECK(ui::app_wanted_model(a).empty());
    CHECK(ui::app_open_model(a, x, t2).empty());
    CHECK(ui::app_link(a).find("&model=x.bin@0123456789abcdef&tokenizer=t.bin@2222222222222222") != std::string::npos);
}

// issue 49, item 10: Share's poster form of the embed (nothing loads or trains until Run).
TEST_CASE("the embed link of a poster is the embed link with view.poster=1; the live one has none") {
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=0", false));
    const std::string live = ui::share_embed_link(a), poster = ui::share_embed_link(a, true);
    CHECK(live.find("view.poster") == std::string::npos);
    CHECK(poster == live + "&view.poster=1");
    CHECK(link_parse(poster).view.poster);
    CHECK(link_parse(poster).errors.empty());
}

TEST_CASE("a recipe another page of the site trains: the Train panel says its run is awaited, and no step is taken") {
    headless_imgui imgui;
    ui::app a;
    ui::app_init(a, experiment{});
    a.model.runs_beyond = true;  // the page's store of runs (web/runs.js [Runs])
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=9&trained=1500"));
    for (int i = 0; i < 3; ++i)
        frame(a);
    REQUIRE(a.model.run_awaited);
    CHECK_FALSE(find_widget(a, "train_elsewhere"));  // asked, no word yet: the store answers in a moment
    session_run_elsewhere(a.model, a.model.run_asked);
    for (int i = 0; i < 3; ++i)
        frame(a);
    CHECK(widget_seen(a, "train_elsewhere"));
    CHECK(trainer_step(a.model.train) == 0);
    session_run_answered(a.model, a.model.run_asked);  // that page closed: trained here
    for (int i = 0; i < 50 && trainer_step(a.model.train) == 0; ++i)
        frame(a);
    CHECK(trainer_step(a.model.train) > 0);
    CHECK_FALSE(find_widget(a, "train_elsewhere"));
}

TEST_CASE(
    "the scrubber says where the kept snapshots lie (every k steps up to the run's reach, and the dense ones); after Reset the "
    "train loss is none yet") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1440, 900);
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&text=a%20b%20c&train=induction&steps=300"));
    frame(a);  // the run is made
    REQUIRE(a.model.train.run);
    for (int i = 0; i < 5000 && !trainer_done(a.model.train); ++i)
        frame(a);
    REQUIRE(trainer_done(a.model.train));
    frame(a);
    const trainer_kept_summary k = trainer_kept_spacing(a.model.train);
    REQUIRE(k.every > 1);
    CHECK(k.reach == 300);
    const std::string text = frame_text(a);
    const std::string said = "Kept (ticks): every " + std::to_string(k.every) + " steps up to step 300";
    CHECK_MESSAGE(text.find(said) != std::string::npos, text);
    if (k.dense > 0)
        CHECK(text.find("and " + std::to_string(k.dense) + " more where the loss fell fastest") != std::string::npos);
    // Reset: back at step 0 no batch has been trained on, so there is no train loss (not a loss of 0).
    experiment e = a.model.exp;
    e.train.trained = 0;
    REQUIRE(ui::app_change(a, change::set(e), ui::link_scope::experiment));
    for (int i = 0; i < 50 && trainer_step(a.model.train) != 0; ++i)
        frame(a);
    REQUIRE(trainer_step(a.model.train) == 0);
    CHECK_FALSE(trainer_last_point(a.model.train));
    CHECK(frame_text(a).find("train loss and accuracy: none yet (no step taken)") != std::string::npos);
}

TEST_CASE("L10 untrained claims nothing of its model: no shortcut read, no head map of a claim, the pin's condition unmet") {
    headless_imgui imgui;
    ImGui::GetIO().DisplaySize = ImVec2(1440, 900);
    ui::app a;
    ui::app_init(a, experiment{});
    REQUIRE(ui::app_open_link(a, "v=1&view.lesson=10&trained=0"));
    for (int i = 0; i < 3000 && !a.model.shortcut.valid; ++i)
        frame(a);
    REQUIRE(a.model.shortcut.valid);  // measured at step 0
    frame(a);
    CHECK_FALSE(a.model.shortcut.measure.solved);  // the pin is enabled only for a model that solves its task
    CHECK_FALSE(a.model.shortcut.measure.shortcut_shown);
    CHECK_FALSE(a.model.shortcut.measure.fails_induction_shown);
    REQUIRE(find_widget(a, "l10_pin"));
    CHECK_FALSE(find_widget(a, "l10_head_map"));  // the claim's head map, drawn only where the claim is read
}
