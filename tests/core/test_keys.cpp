// The key table (spec/keys.hpp): one row per key of a link, read by the parser, the
// writer, the range checks, the editing rules and the controls. These tests walk it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "base/text_util.hpp"
#include "play/edit.hpp"
#include "spec/experiment.hpp"
#include "spec/keys.hpp"
#include "spec/link_codec.hpp"

using namespace attn;

namespace {

std::string whole_text(double v) { return std::to_string(static_cast<long long>(v)); }

// Values across a row's range as the canonical text writes them: its limits (the
// edges), its control's ends, points between; every name of a choice; the example
// and the default of a key of its own form.
std::vector<std::string> values_of(const key_row& k) {
    std::vector<std::string> out;
    if (k.kind == key_kind::whole) {
        std::vector<double> v = {k.lo, k.hi, k.lo + 1, k.hi - 1, std::floor((k.lo + k.hi) / 2)};
        if (k.control.lo != k.control.hi)
            v.insert(v.end(), {k.control.lo, k.control.hi});
        for (double x : v)
            if (x >= k.lo && x <= k.hi && !(std::string_view(k.name) == "view.lesson" && x == 0))  // L0 does not exist
                out.push_back(whole_text(x));
    } else if (k.kind == key_kind::number) {
        std::vector<float> v = {float(k.hi), float(k.hi) * 0.5f, float(k.lo) + 0.25f, 0.003f, 1.5f, 3.0f};
        if (!k.lo_open)
            v.push_back(float(k.lo));
        if (k.control.lo != k.control.hi)
            v.insert(v.end(), {float(k.control.lo), float(k.control.hi)});
        for (float x : v)
            if (x >= k.lo && x <= k.hi && !(k.lo_open && x <= k.lo))
                out.push_back(key_format_float(x));
    } else if (k.kind == key_kind::choice) {
        for (const key_choice& c : k.choices)
            out.push_back(c.name);
    }
    if (k.example)
        out.push_back(k.example);
    return out;
}

struct holder {
    experiment e;
    link_view view;
    key_values values(const key_row& k) { return k.part == key_part::view ? key_values(view) : key_values(e); }
    key_const_values const_values(const key_row& k) const {
        return k.part == key_part::view ? key_const_values(view) : key_const_values(e);
    }
};

}  // namespace

TEST_CASE("keys: one row per key, in the canonical text's order, each with its help in both languages") {
    std::set<std::string> names;
    std::string order;
    for (const key_row& k : key_table()) {
        INFO(std::string(k.name));
        CHECK(names.insert(k.name).second);
        if (k.part == key_part::experiment)
            order += std::string("&") + k.name + "=";
        REQUIRE(k.help.en);
        REQUIRE(k.help.zh);
        CHECK(std::string(k.help.en).size() > 15);
        const std::string zh = k.help.zh;
        CHECK(std::any_of(zh.begin(), zh.end(), [](char c) { return (unsigned char)c >= 0x80; }));
        CHECK(k.example);
        CHECK(key_find(k.name, k.part) == &k);
        CHECK(&key_of(k.name) == &k);
    }
    // The experiment's keys are written in the table's order, every one.
    std::string text = experiment_to_text(experiment{});
    std::string keys;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t amp = text.find('&', i), eq = text.find('=', amp);
        if (amp == std::string::npos)
            break;
        keys += text.substr(amp, eq - amp + 1);
        i = eq;
    }
    CHECK(keys == order);
    CHECK(key_find("steps", key_part::experiment) == nullptr);
    CHECK(key_find("steps", key_part::recipe) == &key_of("steps"));
}

TEST_CASE("keys: every key round-trips across its range, edges included; outside its limits it is refused") {
    int values = 0;
    for (const key_row& k : key_table()) {
        for (const std::string& s : values_of(k)) {
            INFO(std::string(k.name) << "=" << s);
            holder h;
            CHECK(key_read(k, h.values(k), s) == "");
            CHECK(key_write(k, h.const_values(k)) == s);
            CHECK(key_check(k, h.const_values(k)) == "");
            ++values;
        }
        if (k.kind == key_kind::whole && !k.read) {
            for (double x : {k.lo - 1, k.hi + 1}) {
                INFO(std::string(k.name) << "=" << whole_text(x));
                holder h;
                const std::string before = key_write(k, h.const_values(k));
                CHECK(key_read(k, h.values(k), whole_text(x)) != "");
                CHECK(key_write(k, h.const_values(k)) == before);  // left as it was
            }
        }
        if (k.kind == key_kind::choice) {
            holder h;
            CHECK(key_read(k, h.values(k), "nonsense").find("must be") != std::string::npos);
        }
    }
    CHECK(values > 200);
}

TEST_CASE("keys: whole texts with each value round-trip, format(parse(s)) == s") {
    int links = 0;
    for (const key_row& k : key_table()) {
        if (k.part == key_part::view)
            continue;
        for (const std::string& s : values_of(k)) {
            INFO(std::string(k.name) << "=" << s);
            experiment e;
            if (k.part == key_part::recipe && std::string_view(k.name) != "train")
                e.train.task = train_task::copy_offset;
            REQUIRE(key_read(k, e, s) == "");
            if (!experiment_validate(e).empty())
                continue;  // a value another key's value rules out (heads=16 with d_model=8)
            const std::string text = experiment_to_text(e);
            const auto r = experiment_parse(text);
            REQUIRE(r.value);
            CHECK(experiment_to_text(*r.value) == text);
            ++links;
        }
    }
    CHECK(links > 100);
    for (const key_row& k : key_table()) {
        if (k.part != key_part::view)
            continue;
        for (const std::string& s : values_of(k)) {
            INFO(std::string(k.name) << "=" << s);
            link_view v;
            REQUIRE(link_view_set(v, std::string(k.name) + "=" + s).empty());
            const std::string text = link_view_to_text(v);
            link_view back;
            for (const auto pair : split(text, '&'))
                if (!pair.empty())
                    REQUIRE(link_view_set(back, pair).empty());
            CHECK(back == v);
            CHECK(link_view_to_text(back) == text);
        }
    }
}

TEST_CASE("keys: every control's range lies inside its key's limits") {
    int controls = 0;
    for (const key_row& k : key_table()) {
        if (k.control.lo == k.control.hi)
            continue;
        INFO(std::string(k.name));
        ++controls;
        CHECK((k.get && k.set));  // a control edits the member
        CHECK(k.control.lo < k.control.hi);
        CHECK(k.control.lo >= k.lo);
        CHECK(k.control.hi <= k.hi);
        if (k.lo_open)
            CHECK(k.control.lo > k.lo);
        if (k.control.log)
            CHECK(k.control.lo > 0);
        CHECK(k.control.step >= 0);
        // Both ends are values the key takes: a link written from either reads back.
        for (double x : {k.control.lo, k.control.hi}) {
            holder h;
            const std::string s = k.kind == key_kind::whole ? whole_text(x) : key_format_float(float(x));
            CHECK(key_read(k, h.values(k), s) == "");
        }
    }
    CHECK(controls >= 17);
    // The ranges issue 30 found written three ways: the key's limits, the control's inside them.
    const key_row& steps = key_of("steps");
    CHECK(steps.lo == 0);
    CHECK(steps.hi == train_limits::max_steps);
    CHECK(steps.control.lo == 10);
    CHECK(steps.control.hi == 5000);
}

TEST_CASE("keys: clamps keep a typed value within the key's limits") {
    CHECK(key_clamp(key_of("steps"), 1e9) == train_limits::max_steps);
    CHECK(key_clamp(key_of("steps"), -5) == 0);
    CHECK(key_clamp(key_of("temp"), 0) == double(experiment_limits::min_temperature));
    CHECK(key_clamp(key_of("rope_base"), 1) == key_of("rope_base").control.lo);  // above 1, not at it
    CHECK(key_clamp(key_of("rope_base"), 1.5) == 1.5);

    // edit_recipe (play/edit.hpp) clamps every number to its key's limits, then the rules between keys.
    experiment e;
    e.train.task = train_task::copy_offset;
    train_settings t = e.train;
    t.steps = 50000, t.lr = -1.0f, t.clip = 2e6f, t.wd = 3.0f, t.batch = 0, t.offset = 100, t.seq = 10;
    const experiment next = edit_recipe(e, t);
    CHECK(next.train.steps == train_limits::max_steps);
    CHECK(next.train.lr == 0.0f);
    CHECK(next.train.clip == 1e6f);
    CHECK(next.train.wd == 1.0f);
    CHECK(next.train.batch == 1);
    CHECK(next.train.offset == 9);  // within seq - 1
    CHECK(experiment_validate(next).empty());
    t = e.train;
    t.task = train_task::induction, t.seq = 4, t.vocab = 4;
    const experiment induction = edit_recipe(e, t);
    CHECK(induction.train.seq == train_limits::min_induction_rows);
    CHECK(induction.train.vocab == train_limits::min_induction_rows);
}

TEST_CASE("keys: the task list is written once, in the train key's row") {
    CHECK(train_task_list() == "induction, copy_offset, reverse, sort, previous or markov");
    const key_row& train = key_of("train");
    CHECK(key_choice_list(train) == "'none', 'induction', 'copy_offset', 'reverse', 'sort', 'previous' or 'markov'");
    for (const key_choice& c : train.choices) {
        CHECK(std::string(train_task_name(train_task(c.value))) == c.name);
        CHECK((c.en != nullptr) == (train_task(c.value) != train_task::none));  // every task has its Train panel label
    }
    CHECK(std::string(view_panel_name(view_panel::stepper)) == "stepper");
    CHECK(key_choice_list(key_of("view.hide")) == "controls, code, inspector, lessons, stepper");
    CHECK(key_choice_list(key_of("view.theme")) == "light or dark");
}

TEST_CASE("keys: a view key's problems keep their wording, one message each") {
    link_view v;
    CHECK(link_view_set(v, "view.lesson=99") ==
          std::vector<std::string>{"view.lesson must be a whole number from -1 to 13, not '99'"});
    CHECK(link_view_set(v, "view.lesson=0") == std::vector<std::string>{"view.lesson counts from 1 (L1), not 0"});
    CHECK(link_view_set(v, "view.theme=blue") == std::vector<std::string>{"view.theme must be light or dark, not 'blue'"});
    CHECK(link_view_set(v, "view.embed=2") == std::vector<std::string>{"view.embed must be 0 or 1, not '2'"});
    CHECK(link_view_set(v, "view.hide=sidebar,code,code") ==
          std::vector<std::string>{"view.hide: unknown panel 'sidebar' (panels: controls, code, inspector, lessons, stepper)",
                                   "view.hide names 'code' twice"});
    CHECK(link_view_set(v, "view.bogus=1") ==
          std::vector<std::string>{"unknown view option 'view.bogus' (view.lesson, view.stage, view.row, view.hide, "
                                   "view.readonly, view.embed, view.theme, view.poster, view.temperature, view.top_p, "
                                   "view.gen_seed, view.gen_tokens, view.model_head, view.model_pipeline, view.model_ablate, "
                                   "view.model_edges)"});
    CHECK(link_view_set(v, "view.top_p=1.5") == std::vector<std::string>{"view.top_p must be between 0 and 1, not 1.5"});
    CHECK(link_view_set(v, "view.gen_tokens=0") ==
          std::vector<std::string>{"view.gen_tokens must be a whole number from 1 to 256, not '0'"});
    CHECK(link_view_set(v, "view.model_head=2") ==
          std::vector<std::string>{"view.model_head must be layer.head (two whole numbers), not '2'"});
    CHECK(link_view_set(v, "view.model_edges=1.2.3") ==
          std::vector<std::string>{"view.model_edges item '1.2.3' is not of the form layer.head.query.key"});
}

TEST_CASE("keys: a real model's selected head, zeroed heads and masked edges travel in the link") {
    link_view v;
    CHECK(link_view_set(v, "view.model_head=3.5").empty());
    CHECK(link_view_set(v, "view.model_ablate=0.1,2.3").empty());
    CHECK(link_view_set(v, "view.model_edges=1.2.7.3,1.2.7.4").empty());
    CHECK(v.model_layer == 3);
    CHECK(v.model_head == 5);
    CHECK(v.model_ablate == std::vector<ablated_head>{{0, 1}, {2, 3}});
    CHECK(v.model_edges == std::vector<masked_edge>{{1, 2, 7, 3}, {1, 2, 7, 4}});
    const std::string text = link_view_to_text(v);
    CHECK(text == "&view.model_head=3.5&view.model_ablate=0.1,2.3&view.model_edges=1.2.7.3,1.2.7.4");
    CHECK(link_view_to_text(link_view{}).empty());  // the defaults are not written
    link_view w;
    CHECK(link_view_set(w, "view.model_pipeline=1").empty());
    CHECK(w.model_pipeline);
    CHECK(link_view_to_text(w) == "&view.model_pipeline=1");
}
