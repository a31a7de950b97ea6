// Trained runs kept beyond the page, as this page knows them (page_runs.hpp).
#include "frame/page_runs.hpp"

#include <algorithm>
#include <utility>

#include "play/training.hpp"
#include "train/trainer_file.hpp"

namespace attn::ui {

bool page_runs_ask(page_runs& r, const session& s, double now_ms) {
    if (s.run_asks == r.asks)
        return false;
    r.asks = s.run_asks;
    r.asked_at = now_ms;
    return true;
}

void page_runs_wait(page_runs& r, session& s, double now_ms) {
    if (s.run_elsewhere)  // waited for as long as the other page trains
        r.asked_at = now_ms;
    else if (s.run_awaited && now_ms - r.asked_at > page_runs::answer_ms)
        session_run_answered(s, s.run_asked);
}

std::optional<int> page_runs_training(page_runs& r, const session& s) {
    const bool training = s.train.run && !s.train.lost && !trainer_done(s.train) && !s.run_awaited;
    const int now = (training ? 1 : 0) | (s.run_awaited ? 2 : 0);
    if (r.told_key == s.run_asked && r.told == now)
        return std::nullopt;
    r.told_key = s.run_asked, r.told = now;
    return now;
}

std::optional<page_run_handed> page_runs_store(page_runs& r, const trainer& t) {
    if (t.weights_version != r.keyed_version) {
        r.keyed_version = t.weights_version;
        r.key = trainer_store_key(t.key);
    }
    const auto stored = r.stored.find(r.key);
    if ((stored != r.stored.end() && stored->second >= t.run->reach) || !trainer_save_problem(t).empty())
        return std::nullopt;
    r.stored[r.key] = t.run->reach;
    return page_run_handed{r.key, t.run->reach, trainer_save(t)};
}

page_run_kept page_runs_keep(page_runs& r, session* s, const unsigned char* bytes, std::size_t size) {
    trainer_load_result loaded = trainer_load(bytes, size);
    if (!loaded.run || !s)
        return {loaded.error, false};
    int& stored = r.stored.try_emplace(loaded.key, 0).first->second;
    stored = std::max(stored, loaded.run->run->reach);
    if (!session_keep_run(*s, std::move(*loaded.run)))
        return {"this page's run of that recipe went as far", true};
    return {loaded.error, true};
}

}  // namespace attn::ui
