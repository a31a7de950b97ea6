// What the bridge tells the page and when (page_pace.hpp: the link, training's
// progress, the text view), and the page's store of trained runs as this page
// knows it (page_runs.hpp: asked, waited for, told, handed a run, given one back),
// on a clock the tests move by hand.
#include <doctest/doctest.h>

#include <string>

#include "frame/page_pace.hpp"
#include "frame/page_runs.hpp"
#include "frame/text_mirror.hpp"
#include "play/training.hpp"
#include "train/trainer.hpp"
#include "train/trainer_file.hpp"
#include "view/app.hpp"

using namespace attn;

namespace {

const char* const recipe = "v=1&text=a%20b%20c%20a%20b&train=induction&steps=20";

// Trains s's recipe to its step.
void train_to_end(session& s) {
    for (int i = 0; i < 1000 && !trainer_done(s.train); ++i)
        session_train(s, 1.0);
    REQUIRE(trainer_done(s.train));
}

}  // namespace

TEST_CASE("the link is told at most every 250 ms") {
    ui::link_pace p;
    CHECK(ui::link_pace_due(p, 1000));
    CHECK_FALSE(ui::link_pace_due(p, 1100));
    CHECK_FALSE(ui::link_pace_due(p, 1249));
    CHECK(ui::link_pace_due(p, 1250));
}

TEST_CASE("an embed's height is told when it moved by a pixel; the focused label when it changed") {
    ui::height_pace h;
    CHECK(ui::height_due(h, 600.0f));
    CHECK_FALSE(ui::height_due(h, 600.6f));  // a sub-pixel wobble of the layout
    CHECK(ui::height_due(h, 601.0f));
    CHECK(ui::height_due(h, 400.0f));
    ui::focus_label_pace f;
    CHECK(ui::focus_label_due(f, ""));  // the first, even none
    CHECK_FALSE(ui::focus_label_due(f, ""));
    CHECK(ui::focus_label_due(f, "Train"));
    CHECK_FALSE(ui::focus_label_due(f, "Train"));
}

TEST_CASE("training's progress is told when it changed, every 100 ms at most, done at once and once its measure is in") {
    session s;
    ui::train_report_pace p;
    CHECK_FALSE(ui::train_report_due(p, s, 0));  // no recipe: nothing to tell
    REQUIRE(session_apply(s, change::open(recipe)).accepted);
    session_update(s);
    CHECK(ui::train_report_due(p, s, 0));          // step 0: the first word
    CHECK_FALSE(ui::train_report_due(p, s, 500));  // nothing changed
    trainer_advance(s.train, 0.0);
    REQUIRE(trainer_step(s.train) == 1);
    CHECK(ui::train_report_due(p, s, 550));
    CHECK(p.step == 1);
    trainer_advance(s.train, 0.0);
    CHECK_FALSE(ui::train_report_due(p, s, 600));  // 50 ms after the last word
    CHECK(ui::train_report_due(p, s, 650));
    CHECK(p.step == 2);
    train_to_end(s);
    if (s.train.measuring_step >= 0)  // done, its held-out measure not in yet: wait for it
        CHECK_FALSE(ui::train_report_due(p, s, 10000));
    for (int i = 0; i < 1000 && s.train.measuring_step >= 0; ++i)
        session_train(s, 1.0);
    REQUIRE(s.train.measuring_step < 0);
    CHECK(ui::train_report_due(p, s, 651));  // done: told at once, the 100 ms notwithstanding
    CHECK(p.done);
    CHECK_FALSE(ui::train_report_due(p, s, 20000));
}

TEST_CASE("the text view is handed over when it changed, every 250 ms at most, every second while a model trains") {
    ui::app a;
    ui::app_init(a, experiment{});
    ui::app_sync(a);
    ui::text_view_pace p;
    const std::string* first = ui::text_view_due(p, a, 0);
    REQUIRE(first);
    CHECK(*first == ui::text_mirror_json(a));
    CHECK_FALSE(ui::text_view_due(p, a, 300));  // unchanged
    REQUIRE(ui::app_change(a, change::open("v=1&text=x%20y%20z")));
    ui::app_sync(a);
    CHECK_FALSE(ui::text_view_due(p, a, 400));  // 100 ms after the last look
    const std::string* changed = ui::text_view_due(p, a, 550);
    REQUIRE(changed);
    CHECK(changed->find("\"z\"") != std::string::npos);
    REQUIRE(ui::app_change(a, change::open(recipe)));
    ui::app_sync(a);
    REQUIRE_FALSE(trainer_done(a.model.train));
    CHECK_FALSE(ui::text_view_due(p, a, 1300));  // training: a second between looks
    CHECK(ui::text_view_due(p, a, 1550));
}

TEST_CASE("the page's store is asked once an ask, and an answer it does not give in 3 s is none, unless another page trains") {
    session s;
    s.runs_beyond = true;
    ui::page_runs r;
    REQUIRE(session_apply(s, change::open(recipe)).accepted);
    session_update(s);
    session_train(s, 1.0);
    REQUIRE(s.run_awaited);
    CHECK(ui::page_runs_ask(r, s, 1000));
    CHECK_FALSE(ui::page_runs_ask(r, s, 1016));  // asked already
    ui::page_runs_wait(r, s, 3999);
    CHECK(s.run_awaited);
    session_run_elsewhere(s, s.run_asked);  // another page trains it: the wait starts again while it does
    ui::page_runs_wait(r, s, 5000);
    CHECK(s.run_awaited);
    s.run_elsewhere = false;  // that page stopped training without storing a run
    ui::page_runs_wait(r, s, 7999);
    CHECK(s.run_awaited);
    ui::page_runs_wait(r, s, 8001);
    CHECK_FALSE(s.run_awaited);  // none: trained here
}

TEST_CASE("the page is told when this page trains the recipe asked or awaits its answer, each change once") {
    session s;
    s.runs_beyond = true;
    ui::page_runs r;
    REQUIRE(session_apply(s, change::open(recipe)).accepted);
    session_update(s);
    session_train(s, 1.0);
    REQUIRE(s.run_awaited);
    CHECK(ui::page_runs_training(r, s) == 2);  // awaiting, not training
    CHECK(r.told_key == s.run_asked);
    CHECK_FALSE(ui::page_runs_training(r, s));
    session_run_answered(s, s.run_asked);
    CHECK(ui::page_runs_training(r, s) == 1);  // training
    train_to_end(s);
    CHECK(ui::page_runs_training(r, s) == 0);
    CHECK_FALSE(ui::page_runs_training(r, s));
}

TEST_CASE("a run is handed to the store when it went further than the one kept; one given back is taken, or why not") {
    session s;
    ui::page_runs r;
    REQUIRE(session_apply(s, change::open(recipe)).accepted);
    session_update(s);
    train_to_end(s);
    const std::optional<ui::page_run_handed> handed = ui::page_runs_store(r, s.train);
    REQUIRE(handed);
    CHECK(handed->key == trainer_store_key(s.train.key));
    CHECK(handed->reach == 20);
    CHECK(handed->bytes == trainer_save(s.train));
    CHECK(r.stored[handed->key] == 20);
    CHECK_FALSE(ui::page_runs_store(r, s.train));  // the store has it

    // Given back: to a page without its app the bytes are read alone; a session
    // that trained as far does not take it; one that has not, does.
    ui::page_runs fresh;
    const ui::page_run_kept unread = ui::page_runs_keep(fresh, nullptr, handed->bytes.data(), handed->bytes.size());
    CHECK(unread.error.empty());
    CHECK_FALSE(unread.offered);
    const ui::page_run_kept same = ui::page_runs_keep(fresh, &s, handed->bytes.data(), handed->bytes.size());
    CHECK(same.offered);
    CHECK(same.error == "this page's run of that recipe went as far");
    CHECK(fresh.stored[handed->key] == 20);
    session other;
    REQUIRE(session_apply(other, change::open(recipe)).accepted);
    session_update(other);
    const ui::page_run_kept taken = ui::page_runs_keep(fresh, &other, handed->bytes.data(), handed->bytes.size());
    CHECK(taken.offered);
    CHECK(taken.error.empty());
    CHECK(other.train.run->reach == 20);
    const unsigned char junk[] = {1, 2, 3};
    const ui::page_run_kept bad = ui::page_runs_keep(fresh, &other, junk, sizeof junk);
    CHECK_FALSE(bad.offered);
    CHECK_FALSE(bad.error.empty());
}
