// The session's JSON for the page's hook (session_json.hpp: window.attn.ui()'s
// "train" and "prediction", attn:train, the model files' limits) read back as
// JSON and checked against the session it reports; a recipe link's weights hash
// (train_link_hash, window.attn.trainHash).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/text_util.hpp"
#include "json_read.hpp"
#include "play/session.hpp"
#include "play/session_json.hpp"
#include "play/training.hpp"
#include "test_util.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/trainer.hpp"

using namespace attn;
using test::json;

namespace {

experiment small_recipe(int steps = 20) {
    return test::tiny_recipe(train_task::induction, block_kind::attention_residual, steps, "a b c d a b c");
}

// A session open at the recipe, trained to its step, its measures done.
void trained(session& s, const experiment& e) {
    REQUIRE(session_apply(s, change::set(e)).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    for (int i = 0; i < 1000 && !trainer_done(s.train); ++i)
        session_train(s, 1.0);
    REQUIRE(trainer_done(s.train));
    session_update(s);
    for (int i = 0; i < 100000 && session_measuring(s); ++i)
        session_measure_trained(s, 1.0);
}

// A JSON number for a float the writer wrote with 9 digits: the same float.
float as_float(const json& v) {
    REQUIRE(v.type == json::kind::number);
    return float(v.number);
}

void check_heads(const json& heads, const trainer_mark& m) {
    REQUIRE(heads.type == json::kind::array);
    REQUIRE(heads.size() == m.heads.size());
    for (std::size_t i = 0; i < m.heads.size(); ++i) {
        INFO("head " << i);
        CHECK(as_float(heads[i]["prev"]) == m.heads[i].prev_mean());
        CHECK(as_float(heads[i]["induction"]) == m.heads[i].induction_mean());
        CHECK(as_float(heads[i]["offset"]) == m.heads[i].offset_mean());
        CHECK(as_float(heads[i]["sink"]) == m.heads[i].sink_mean());
    }
}

}  // namespace

TEST_CASE("the tests' JSON reader reads what JSON.parse reads, and refuses what it refuses") {
    const json v = test::json_read(R"( {"a":[1,-2.5e3,true,null],"s":"q\"\\\u00e9\ud83d\ude00\n","a":0} )");
    CHECK(v["a"].number == 0);  // the last of a repeated key, as JavaScript
    CHECK(v.items.front()[1].number == -2500);
    CHECK(v["s"].string == "q\"\\\xC3\xA9\xF0\x9F\x98\x80\n");
    json out;
    for (const char* bad : {"{\"a\":1,}", "[1 2]", "\"a\nb\"", "01", "1.", "{\"a\"}", "[1]x", "nan", "\"\\ud83d\""})
        CHECK_MESSAGE(!test::json_parse(bad, out), bad);
}

TEST_CASE("a number for JSON: 9 significant digits, null for NaN and the infinities") {
    CHECK(json_number(0.1f) == "0.100000001");
    CHECK(json_number(-3) == "-3");
    CHECK(json_number(std::numeric_limits<double>::quiet_NaN()) == "null");
    CHECK(json_number(-std::numeric_limits<double>::infinity()) == "null");
}

TEST_CASE("the training JSON: null without a recipe; at step 0 no train loss, nor a held-out one before a measure") {
    session s;
    session_update(s);
    CHECK(session_train_json(s, true) == "null");
    CHECK(session_prediction_json(s, 0) == "null");

    REQUIRE(session_apply(s, change::set(small_recipe())).accepted);
    session_update(s);
    REQUIRE(s.train.run);
    const json t = test::json_read(session_train_json(s, false));
    CHECK(t["step"].number == 0);
    CHECK(t["target"].number == 20);
    CHECK(t["steps"].number == 20);
    CHECK(t["loss"].is_null());
    CHECK(t["accuracy"].is_null());
    CHECK(t["heldOutLoss"].is_null() == !trainer_measured(s.train));
    CHECK(t["done"].boolean == false);
    CHECK(t["stopped"].boolean == false);
    CHECK(t["hash"].is_null());
    CHECK(t["error"].string.empty());
    CHECK(t["estimate"]["long"].boolean == train_is_long(s.exp));
    CHECK(as_float(t["estimate"]["runSeconds"]) == float(train_seconds(train_estimate(s.exp).run)));
    CHECK(t["threads"].number == session_train_threads(s));
    CHECK(t["apart"].boolean == session_trains_apart(s));
    CHECK_FALSE(t.has("heads"));  // what an embed's host hears (attn:train): no head scores
    CHECK_FALSE(t.has("kept"));
}

TEST_CASE("the training JSON of a trained recipe: its step, hash, curve's last point, stops and every head's scores") {
    session s;
    experiment e = small_recipe();
    e.ablate.push_back({0, 1});
    trained(s, e);
    const trainer& tr = s.train;
    const json t = test::json_read(session_train_json(s, true));
    CHECK(t["step"].number == trainer_step(tr));
    CHECK(t["done"].boolean);
    CHECK(t["hash"].string == train_weights_hash(*tr.run));
    const std::optional<train_point> last = trainer_last_point(tr);
    REQUIRE(last);
    CHECK(as_float(t["loss"]) == last->loss);
    CHECK(as_float(t["accuracy"]) == last->acc);
    CHECK(as_float(t["heldOutLoss"]) == tr.now.held_out.loss);
    CHECK(as_float(t["heldOutAccuracy"]) == tr.now.held_out.acc);
    CHECK(t["phase"].number == trainer_phase_step(tr));
    CHECK(t["marks"].number == double(tr.marks.size()));
    CHECK(t["inStep"].boolean == false);
    CHECK(t["measuring"].boolean == false);
    const std::vector<int> stops = trainer_snapshot_steps(tr);
    REQUIRE(t["stops"].size() == stops.size());
    for (std::size_t i = 0; i < stops.size(); ++i)
        CHECK(t["stops"][i].number == stops[i]);
    CHECK(t["measuredStep"].number == tr.measured_step);
    check_heads(t["heads"], tr.now);
    REQUIRE(t["kept"].size() == tr.marks.size());
    for (std::size_t i = 0; i < tr.marks.size(); ++i) {
        CHECK(t["kept"][i]["step"].number == tr.marks[i].step);
        CHECK(as_float(t["kept"][i]["heldOutLoss"]) == tr.marks[i].held_out.loss);
        check_heads(t["kept"][i]["heads"], tr.marks[i]);
    }
    REQUIRE(s.ablated_task.valid);
    CHECK(as_float(t["ablated"]["loss"]) == s.ablated_task.ablated.loss);
    CHECK(as_float(t["ablated"]["baseAccuracy"]) == s.ablated_task.base.acc);
    CHECK(test::json_read(trainer_heads_json(trainer_mark{})).size() == 0);
}

TEST_CASE("the prediction JSON: the selected token's row, clamped to the text, as circuits_predict has it") {
    session s;
    trained(s, small_recipe());
    const circuit_prediction& p = s.prediction;
    REQUIRE(p.n == 7);
    for (const int row : {-3, 2, 6, 99}) {
        const int r = std::clamp(row, 0, p.n - 1);
        INFO("row " << row);
        const json j = test::json_read(session_prediction_json(s, row));
        CHECK(j["row"].number == r);
        CHECK(j["token"].string == task_symbol(p.tokens[std::size_t(r)]));
        const int target = p.targets[std::size_t(r)];
        CHECK(j["target"].is_null() == (target < 0));
        if (target >= 0) {
            CHECK(j["target"].string == task_symbol(target));
            CHECK(j["targetRank"].number == p.target_rank[std::size_t(r)]);
        }
        REQUIRE(j["top"].size() == std::size_t(p.top_k));
        const int best = p.top[std::size_t(r * p.top_k)];
        CHECK(j["top"][0]["token"].string == task_symbol(best));
        CHECK(as_float(j["top"][0]["p"]) == p.probs[std::size_t(r * p.V + best)]);
        CHECK(j["lens"].size() == std::size_t(p.L));
        CHECK(j["writer"]["layer"].number == p.writer[std::size_t(r)].layer);
    }
}

TEST_CASE("the model files' limits as the page reads them") {
    real_model_limits l;
    l.checkpoint = 5'000'000'000;  // past 32 bits
    l.tokenizer = 12;
    const json ok = test::json_read(real_model_limits_json(l));
    CHECK(ok["checkpoint"].number == 5e9);
    CHECK(ok["tokenizer"].number == 12);
    CHECK_FALSE(ok.has("error"));
    l.error = "x.bin: \"no\" checkpoint";
    const json bad = test::json_read(real_model_limits_json(l));
    CHECK(bad["error"].string == l.error);
    CHECK(bad.size() == 1);
}

TEST_CASE("a recipe link's weights hash: trained to the link's step or the one asked; or why not") {
    const experiment e = small_recipe(12);
    const std::string link = experiment_to_text(e);
    train_init_result straight = train_init(e);
    REQUIRE(straight.run);
    for (int i = 0; i < 5; ++i)
        REQUIRE(train_step(*straight.run));
    const std::string at5 = train_weights_hash(*straight.run);
    while (straight.run->step < 12)
        REQUIRE(train_step(*straight.run));
    const train_link_hash_result whole = train_link_hash(link, -1, 1);
    CHECK(whole.error.empty());
    CHECK(whole.hash == train_weights_hash(*straight.run));
    CHECK(train_link_hash(link, 5, 2).hash == at5);  // any thread count: the same bits
    const train_link_hash_result past = train_link_hash(link, 13, 1);
    CHECK(past.hash.empty());
    CHECK(past.error == "trained must be at most steps (12), not 13");
    const train_link_hash_result none = train_link_hash("v=1&heads=zero", -1, 1);
    CHECK(none.hash.empty());
    CHECK_FALSE(none.error.empty());
}
