// Training's share of the frames and the measures of the trained model (training.hpp).
#include "play/training.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "base/threads.hpp"
#include "play/measure_training.hpp"

namespace attn {

namespace {

// Steps here, or (apart) only what the job leaves: its steps taken in when a
// post is due, then the measures (the one at the target; a snapshot's goes on
// in the next job).
void advance(trainer& t, double slice, int threads, bool apart) {
    if (!apart) {
        trainer_advance(t, slice, threads);
        return;
    }
    if (t.job.busy() && (t.job.finished() || t.job.seconds() >= train_pace::post))
        trainer_collect(t);
    if (!t.job.busy())  // while steps remain a snapshot's measure is the next job's: a piece of it here
        trainer_advance(t, trainer_training(t) ? 1e-6 : slice, threads, false);
}

}  // namespace

double session_train(session& s, double slice) {
    trainer& t = s.train;
    const bool apart = session_trains_apart(s);
    trainer_sync(t, s.exp, &s.kept, &s.pin_train);
    if (s.runs_beyond && t.run) {
        std::string key = trainer_store_key(t.key);
        const bool training = trainer_training(t) && t.target > t.run->reach;  // steps no run here has taken
        if (key != s.run_asked || (training && !s.run_was_training)) {
            s.run_asked = std::move(key);
            ++s.run_asks;
            s.run_awaited = true;
            s.run_elsewhere = false;
        }
        s.run_was_training = training;
        if (s.run_awaited)
            return 0;
    }
    const auto start = std::chrono::steady_clock::now();
    advance(t, slice, s.threads, apart);
    if (trainer_done(t) && s.pin) {  // then a pinned recipe of B's shape, retrained to its step beside it
        trainer_sync(s.pin_train, session_pin_training(s), &s.kept, &s.train);
        advance(s.pin_train, slice, s.threads, apart);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool session_keep_run(session& s, trainer t) {
    if (!t.run)
        return false;
    const std::string key = trainer_store_key(t.key);
    const int reach = t.run->reach;
    const auto further = [&](trainer& here) {  // here is of the same recipe: whether t goes further
        trainer_collect(here);                 // its job's steps counted
        return !here.run || here.run->reach < reach;
    };
    if (s.train.synced && trainer_store_key(s.train.key) == key) {
        if (!further(s.train))
            return false;
        t.weights_version = s.train.weights_version + 1;  // everything traced from the old run follows
        s.train = std::move(t);
        trainer_sync(s.train, s.exp);  // exp's step: restored from a kept snapshot by the frames' training
        return true;
    }
    if (s.pin_train.synced && trainer_store_key(s.pin_train.key) == key && !further(s.pin_train))
        return false;
    if (const trainer* kept = trainer_store_find(s.kept, key); kept && kept->run && kept->run->reach >= reach)
        return false;
    trainer_store_put(s.kept, std::move(t));
    return true;
}

void session_run_answered(session& s, const std::string& key) {
    if (key == s.run_asked)
        s.run_awaited = s.run_elsewhere = false;
}

void session_run_elsewhere(session& s, const std::string& key) {
    if (key == s.run_asked && s.run_awaited)
        s.run_elsewhere = true;
}

bool session_trains_apart(const session& s) { return s.threads > 1 && threads_background(); }

int session_train_threads(const session& s) {
    if (threads_lost())  // a worker stopped answering: every call of the pool runs on its caller
        return 1;
    return session_trains_apart(s) ? s.threads - 1 : s.threads;
}

void session_train_launch(session& s) {
    if (!session_trains_apart(s) || s.run_awaited)
        return;
    const int threads = session_train_threads(s);
    if (!trainer_launch(s.train, threads) && trainer_done(s.train) && s.pin)
        trainer_launch(s.pin_train, threads);
}

void train_pace_update(train_pace& p, double frame_interval, double trained_seconds, double target) {
    // A frame without training says nothing of the slice; a hidden tab's pause is not a slow frame.
    if (trained_seconds <= 0.0)
        return;
    const double interval = std::min(frame_interval, 0.25);
    p.interval = p.interval > 0.0 ? 0.75 * p.interval + 0.25 * interval : interval;
    // Drawing that alone takes longer than the frame aimed at is not made faster by
    // training less: training keeps a quarter of the time (a third of the drawing's).
    const double drawing = std::max(interval - trained_seconds, 0.0);
    p.drawing = p.drawing > 0.0 ? 0.75 * p.drawing + 0.25 * drawing : drawing;
    const double floor = std::clamp(p.drawing / 3.0, train_pace::least, train_pace::most);
    p.slice = std::clamp(p.slice + 0.5 * (target - p.interval), floor, train_pace::most);
}

namespace {

// Pieces of the job until it is done or `seconds` passed (at least one piece):
// the measures below take a big model's held-out rows a few a frame.
bool evaluate_for(train_run& r, train_eval_job& job, double seconds) {
    const auto start = std::chrono::steady_clock::now();
    while (!job.done()) {
        train_evaluate_piece(r, job);
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds)
            break;
    }
    return job.done();
}

std::vector<head_override> zeroed(const std::vector<ablated_head>& heads) {
    std::vector<head_override> out;
    for (const ablated_head& h : heads)
        out.push_back(head_override{h.layer, h.head, nullptr, nullptr});
    return out;
}

// The life of a measure kept by the session's version (task_effect,
// shortcut_result): valid at `version` once done, `measuring` the version its
// jobs in progress are for (0: none).
template <class M>
bool measured_at(const M& r, std::uint64_t version) {
    return r.valid && r.version == version;
}
template <class M>
void measure_drop(M& r) {
    r.valid = false;
    r.measuring = 0;
}
// True when the measure for `version` starts now: its jobs are to be set afresh.
template <class M>
bool measure_starts(M& r, std::uint64_t version) {
    if (r.measuring == version)
        return false;
    r.valid = false;
    r.measuring = version;
    return true;
}
template <class M>
void measure_done(M& r, std::uint64_t version) {
    r.version = version;
    r.valid = true;
    r.measuring = 0;
}

// L10's shortcut measures of a model trained on another task than induction.
void update_shortcut(session& m, double slice) {
    trainer& t = m.train;
    shortcut_result& s = m.shortcut;
    if (!t.run || m.exp.train.task == train_task::induction || !trainer_done(t)) {
        measure_drop(s);
        return;
    }
    if (measured_at(s, m.version))
        return;
    if (t.now.heads.empty()) {  // nothing measured: nothing to say (measure_shortcut's empty measure)
        s = shortcut_result{};
        measure_done(s, m.version);
        return;
    }
    if (measure_starts(s, m.version))
        s.job = shortcut_induction_job(t);
    if (!evaluate_for(*t.run, s.job, slice))
        return;
    s.measure = measure_shortcut(t, s.job.result());
    measure_done(s, m.version);
}

// The task effect of the ablated heads, once the trainer is at its step.
void update_task_effect(session& m, double slice) {
    trainer& t = m.train;
    task_effect& e = m.ablated_task;
    if (!t.run || m.exp.ablate.empty() || !trainer_done(t)) {
        measure_drop(e);
        return;
    }
    if (measured_at(e, m.version))
        return;
    if (measure_starts(e, m.version)) {
        e.base_job = train_eval_job{};
        e.ablated_job = train_eval_job{};
        e.ablated_job.heads = zeroed(m.exp.ablate);
    }
    if (!evaluate_for(*t.run, e.base_job, slice) || !evaluate_for(*t.run, e.ablated_job, slice))
        return;
    e.base = e.base_job.result();
    e.ablated = e.ablated_job.result();
    measure_done(e, m.version);
}

// The every-head ablation table, once the trainer is at its step: the model
// intact, then one head zeroed after another, a few held-out rows a frame; a new
// model (another step, snapshot or run) starts it again.
void update_head_ablations(session& m, double slice) {
    trainer& t = m.train;
    head_ablations& h = m.each_head;
    if (!t.run || !trainer_done(t) || !t.error.empty()) {
        h = head_ablations{};
        return;
    }
    if (h.weights_version != t.weights_version || h.step != trainer_step(t)) {
        h = head_ablations{};
        h.weights_version = t.weights_version;
        h.step = trainer_step(t);
    }
    if (h.complete() || !evaluate_for(*t.run, h.job, slice))
        return;
    if (h.heads == 0) {
        h.intact = h.job.result();
        h.heads = t.key.layers * t.key.heads;
    } else {
        const int i = int(h.rows.size());
        h.rows.emplace_back(ablated_head{i / t.key.heads, i % t.key.heads}, h.job.result());
    }
    h.job = train_eval_job{};
    const int next = int(h.rows.size());
    if (!h.complete())
        h.job.heads = zeroed({ablated_head{next / t.key.heads, next % t.key.heads}});
}

}  // namespace

void session_measure_trained(session& s, double slice) {
    update_task_effect(s, slice);
    update_head_ablations(s, slice);
    update_shortcut(s, slice);
}

bool session_measuring(const session& s) {
    const trainer& t = s.train;
    const bool at_step = t.run && trainer_done(t);
    return (at_step && !s.exp.ablate.empty() && !measured_at(s.ablated_task, s.version)) ||
           (at_step && t.error.empty() && !s.each_head.complete()) ||
           (at_step && s.exp.train.task != train_task::induction && !t.now.heads.empty() && !measured_at(s.shortcut, s.version));
}

bool session_measure_circuit(session& s, double slice) {
    // prediction.tokens are the text's n symbols for a trained recipe (predict.hpp).
    return circuit_study_update(s.train, s.prediction.tokens, s.circuit, slice);
}

}  // namespace attn
