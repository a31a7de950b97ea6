// Trained runs kept beyond the page (web/shell.js "runs", the browser's store;
// train/trainer_file.hpp), as this page knows them: what the bridge
// (src/platform/bridge_web.cpp, bridge_keep_runs) asks the store, tells it and
// hands it, and what it does with a run the store gives back. No JS here: each
// function says what to tell the page, and the bridge tells it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "play/session.hpp"

namespace attn::ui {

struct page_runs {
    static constexpr double answer_ms = 3000;  // the longest training waits for the store's answer
    // The furthest step the page's store holds of each recipe (trainer_store_key)
    // as far as this page knows (handed over from here, or given from there).
    std::map<std::string, int> stored;
    int asks = 0;          // the session's run_asks when the store was last asked
    double asked_at = 0;   // when (ms, the page's clock), or last heard that another page trains it
    std::string told_key;  // the training told last (page_runs_training)
    int told = -1;
    std::uint64_t keyed_version = ~std::uint64_t(0);  // the run whose key is `key` (a new run bumps the version)
    std::string key;
};

// Whether the store is to be asked for s's run now (at `now_ms`): the session
// asked again (session::run_asks). The bridge asks (attnShell.runWanted with
// run_asked and the run's reach); a page that cannot ask answers at once
// (session_run_answered: none).
bool page_runs_ask(page_runs& r, const session& s, double now_ms);

// The store that has not answered within page_runs::answer_ms is taken to have
// no run (session_run_answered), unless another page trains the recipe: that
// wait lasts as long as the other page trains.
void page_runs_wait(page_runs& r, session& s, double now_ms);

// What to tell the page when it changed since last told (else nullopt): bit 1
// this page trains the recipe asked (its measures included), bit 2 it awaits
// the store's answer. The page holds the site's lock of the recipe meanwhile
// (web/shell.js [Runs]); told for r.told_key.
std::optional<int> page_runs_training(page_runs& r, const session& s);

// The run at its step to hand to the store (attnShell.runStore: its key, reach
// and trainer_save's bytes) when it went further than the one the store keeps
// and can be kept; nullopt otherwise. Counted as stored once returned.
struct page_run_handed {
    std::string key;
    int reach = 0;
    std::vector<unsigned char> bytes;
};
std::optional<page_run_handed> page_runs_store(page_runs& r, const trainer& t);

// A run the page kept (trainer_save's bytes, `size` of them, read here and not
// kept), given back to the session `s` (none before the app is up: the bytes are
// only read): its error ("" when the session took it, else why not), and whether
// a run was offered to the session (the app draws a frame for it then).
struct page_run_kept {
    std::string error;
    bool offered = false;
};
page_run_kept page_runs_keep(page_runs& r, session* s, const unsigned char* bytes, std::size_t size);

}  // namespace attn::ui
