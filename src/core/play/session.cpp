#include "play/session.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/tokenize.hpp"
#include "train/task.hpp"

namespace attn {

namespace {

session_state state_of(const session& s) { return {s.exp, s.pin}; }

void accept(session& s, const session_state& next) {
    if (!(next.exp == s.exp)) {
        s.exp = next.exp;
        ++s.version;
    }
    if (!(next.pin == s.pin)) {
        s.pin = next.pin;
        ++s.pin_version;
    }
}

void record(session& s, double time, bool from_host) {
    const bool merges =
        !s.undo.empty() && ((from_host && s.host_step_open) ||
                            (time >= 0 && s.last_record_time >= 0 && time - s.last_record_time <= session_merge_seconds));
    s.host_step_open = from_host;
    if (!merges) {
        s.undo.push_back(state_of(s));
        if (s.undo.size() > session_history_limit)
            s.undo.erase(s.undo.begin());
    }
    s.last_record_time = time;
    s.redo.clear();
}

// The one way a new state becomes current: both experiments valid, an undo step when asked.
change_result set_state(session& s, const session_state& next, bool record_it, double time, bool from_host = false) {
    change_result r;
    r.errors = session_state_problems(next);
    if (!r.errors.empty())
        return r;
    r.accepted = true;
    if (record_it && !(next == state_of(s)))
        record(s, time, from_host);
    accept(s, next);
    return r;
}

// The furthest step a run of e's recipe reached in this session (-1: none).
int kept_step(const session& s, const experiment& e) {
    const std::string key = trainer_store_key(e);
    int step = -1;
    for (const trainer* t : {&s.train, &s.pin_train, trainer_store_find(s.kept, key)})
        if (t && t->run && t->synced && trainer_store_key(t->key) == key)
            step = std::max(step, trainer_step(*t));
    return step;
}

// e trained to `step` when that is further than e asks (its last step: all of it).
void raise_trained(experiment& e, int step) {
    if (step > e.train.trained_steps())
        e.train.trained = step >= e.train.steps ? train_settings::trained_all : step;
}

// e at the step its kept run reached when that is further than e asks.
void resume_kept(const session& s, experiment& e) {
    if (e.train.task != train_task::none)
        raise_trained(e, kept_step(s, e));
}

// A recipe that would train for long (train_is_long) opens at step 0, its
// estimate shown in the Train panel: training hours on open would take the
// page's time and the machine's before anyone asked. A link naming `trained=`
// keeps its step; Train starts the run as for any recipe.
void pause_long(experiment& e) {
    if (e.train.task != train_task::none && e.train.trained == train_settings::trained_all && train_is_long(e))
        e.train.trained = 0;
}

change_result open_link(session& s, const change& c) {
    link_parse_result parsed = link_parse(c.link);
    if (!parsed.value) {
        change_result r;
        r.errors = std::move(parsed.errors);
        return r;
    }
    pause_long(*parsed.value);
    if (c.resume)
        resume_kept(s, *parsed.value);
    const std::optional<experiment> pin = parsed.pin || !c.keep_pin ? parsed.pin : s.pin;
    change_result r = set_state(s, {*parsed.value, pin}, c.record, -1.0, c.from_host);
    if (r.accepted)
        r.view = parsed.view;
    return r;
}

change_result step_history(session& s, std::vector<session_state>& from, std::vector<session_state>& to) {
    change_result r;
    if (from.empty())
        return r;
    to.push_back(state_of(s));
    const session_state e = std::move(from.back());
    from.pop_back();
    s.last_record_time = -1.0;
    s.host_step_open = false;
    accept(s, e);
    r.accepted = true;
    return r;
}

// A Pause (change::pause): e at the step t's run of e's recipe reached, when
// that is further than the step shown as Pause was pressed and the run did not
// stop there (a loss not finite: the Pause then goes back to the step shown).
experiment paused_at_reached(const trainer& t, experiment e) {
    if (t.run && t.synced && t.run->error.empty() && trainer_store_key(t.key) == trainer_store_key(e))
        raise_trained(e, trainer_step(t));
    return e;
}

}  // namespace

change_result session_apply(session& s, const change& c) {
    // Training apart (training.hpp): its steps so far are taken in, and the runs
    // are the session's until the next launch.
    trainer_collect(s.train);
    trainer_collect(s.pin_train);
    switch (c.what) {
        case change::kind::set:
            return set_state(s, {c.pause ? paused_at_reached(s.train, c.next) : c.next, s.pin}, c.record, c.time);
        case change::kind::link:
            return open_link(s, c);
        case change::kind::undo:
            return step_history(s, s.undo, s.redo);
        case change::kind::redo:
            return step_history(s, s.redo, s.undo);
        case change::kind::pin:
            return set_state(s, {s.exp, c.pause ? paused_at_reached(s.pin_train, c.next) : c.next}, c.record, -1.0);
        case change::kind::unpin:
            return set_state(s, {s.exp, std::nullopt}, c.record, -1.0);
    }
    return {};
}

compare_mismatch session_pin_shape(const session_state& s) {
    if (!s.pin)
        return {};
    return compare_shape_mismatch(int(tokenize(s.pin->text).size()), int(tokenize(s.exp.text).size()), s.pin->layers,
                                  s.exp.layers, s.pin->heads, s.exp.heads);
}

experiment session_pin_training(const session& s) {
    return s.pin && session_pin_shape(state_of(s)).what == compare_mismatch::kind::none ? *s.pin : experiment{};
}

compare_mismatch session_pin_pending(const session& s) {
    compare_mismatch m;
    if (s.pin && s.pin_train.run && !trainer_done(s.pin_train)) {
        m.what = compare_mismatch::kind::training;
        m.a = trainer_step(s.pin_train);
        m.b = s.pin_train.target;
    }
    return m;
}

experiment experiment_without_interventions(const experiment& e) {
    experiment b = e;
    b.ablate.clear();
    b.edges.clear();
    return b;
}

namespace {

std::vector<std::string> experiment_problems(const experiment& e) {
    std::vector<std::string> errors = experiment_validate(e);
    if (errors.empty())  // the page traces a recipe's model on the text
        errors = recipe_text_problems(e);
    if (errors.empty())  // the one batch limit: what train_init refuses, refused here (the page, `attn check`)
        if (std::string why = train_run_problem(e); !why.empty())
            errors.push_back(std::move(why));
    return errors;
}

std::string megabytes(std::size_t bytes) { return std::to_string((bytes + (std::size_t(1) << 20) - 1) >> 20) + " MB"; }

}  // namespace

session_bytes session_peak_bytes(const session_state& s) {
    session_bytes b;
    b.exp = experiment_peak_bytes(s.exp);
    b.runs = train_run_bytes(s.exp);
    if (s.pin && experiment_validate(*s.pin).empty()) {
        b.pin = trace_bytes(*s.pin, int(tokenize(s.pin->text).size()));
        b.runs += train_run_bytes(*s.pin);
    }
    b.kept = trainer_store_budget;
    return b;
}

std::vector<std::string> session_state_problems(const session_state& s) {
    std::vector<std::string> errors = experiment_problems(s.exp);
    if (s.pin)
        for (std::string& e : experiment_problems(*s.pin))
            errors.push_back("pinned A: " + e);
    if (!errors.empty())
        return errors;
    const session_bytes b = session_peak_bytes(s);
    if (b.total() <= page_memory_budget)
        return errors;
    std::string why = (s.pin ? "B with the pinned A beside it needs " : "this experiment needs ") + std::to_string(b.total()) +
                      " bytes (" + megabytes(b.total()) + ": the trace " + megabytes(b.exp);
    if (s.pin)
        why += ", A's trace " + megabytes(b.pin);
    if (b.runs)
        why += ", training runs " + megabytes(b.runs);
    why += ", kept runs up to " + megabytes(b.kept) + "); the page holds at most " + std::to_string(page_memory_budget) +
           " bytes (" + megabytes(page_memory_budget) + ")";
    why += s.pin ? ": pin a smaller experiment, or fewer tokens, heads or layers" : ": use fewer tokens, heads or layers";
    errors.push_back(std::move(why));
    return errors;
}

namespace {

// e's trace: with the trained weights at t's step when e has a recipe
// (recipe_validate made sure its tokens are the task's symbols).
trace trace_model(const experiment& e, const trainer& t, int threads) {
    trace_options opt;
    opt.threads = threads;
    if (!t.run)
        return forward(e, opt);
    const std::vector<std::string> tokens = tokenize(e.text);
    std::optional<model_weights> w = train_weights_for(*t.run, tokens);  // the run's experiment has no edits
    if (!w)
        return forward(e, opt);
    model_apply_edits(*w, e.edits);
    return forward_with(e, tokens, *w, opt);
}

}  // namespace

bool session_update(session& s) {
    bool changed = false;
    trainer_sync(s.pin_train, session_pin_training(s), &s.kept, &s.train);
    // A retrained to its step beside B is traced once it is there: until then the
    // compare says A is still training (session_pin_pending) and reads nothing
    // of A's trace, which each of its steps would otherwise recompute, and with
    // it every map and number keyed by pin_version.
    const bool pin_pending = session_pin_pending(s).what != compare_mismatch::kind::none;
    if (!pin_pending && s.pin_traced_weights != s.pin_train.weights_version) {
        s.pin_traced_weights = s.pin_train.weights_version;
        ++s.pin_version;  // the same A, other weights
    }
    if (s.pin_traced_version != s.pin_version) {
        s.pin_tr = trace{};
        if (s.pin)
            s.pin_tr = trace_model(*s.pin, s.pin_train, s.threads);
        s.pin_traced_version = s.pin_version;
        changed = true;
    }
    trainer_sync(s.train, s.exp, &s.kept, &s.pin_train);
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.traced_at).count();
    if (s.traced_weights != s.train.weights_version &&
        session_trace_due(s.trace_paced && trainer_training(s.train), s.trace_seconds, since)) {
        s.traced_weights = s.train.weights_version;
        ++s.version;  // the same experiment, other weights: what is drawn from the trace changes
    }
    if (s.traced_version == s.version)
        return changed;
    // One trace at a time, and a lean baseline (its output is all it is read
    // for): the peak forward.hpp's experiment_peak_bytes bounds.
    const auto start = std::chrono::steady_clock::now();
    s.tr = trace{};
    s.baseline = trace{};
    s.tr = trace_model(s.exp, s.train, s.threads);
    s.has_baseline = !s.exp.ablate.empty() || !s.exp.edges.empty();
    if (s.has_baseline) {
        trace_options lean = trace_options::lean();
        lean.threads = s.threads;
        s.baseline = forward_with(experiment_without_interventions(s.exp), s.tr.tokens, s.tr.params, lean);
    }
    s.prediction.n = 0;
    if (s.train.run)
        circuits_predict(*s.train.run, s.tr, s.prediction);
    s.traced_version = s.version;
    s.traced_at = std::chrono::steady_clock::now();
    s.trace_seconds = std::chrono::duration<double>(s.traced_at - start).count();
    return true;
}

bool session_trace_due(bool training, double cost, double since) {
    return !training || cost < trace_free || since >= (1.0 / trace_share - 1.0) * cost;
}

void session_trace_drawn(session& s, double excess) { s.trace_seconds += std::max(excess, 0.0); }

}  // namespace attn
