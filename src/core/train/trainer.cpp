#include "train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "train/task.hpp"

namespace attn {

namespace {

// The probe row's attention (L, h, T, T) at the run's current step.
// Every head's attention on the probe row at the run's step (between steps: the
// pass uses the rows' buffers a step in progress holds).
void take_probe(train_run& r, const std::vector<int>& tokens, std::vector<matrix>& probe) {
    train_forward_rows(r, tokens.data(), 1);
    const std::size_t per_head = std::size_t(r.T * r.T);
    probe.resize(std::size_t(r.L * r.h));
    for (int l = 0; l < r.L; ++l)
        for (int i = 0; i < r.h; ++i) {
            const float* att = train_attention(r, 0, l) + per_head * std::size_t(i);
            matrix& m = probe[std::size_t(l * r.h + i)];
            if (m.rows != r.T || m.cols != r.T)
                m = matrix(r.T, r.T);
            std::copy(att, att + per_head, m.data.begin());
        }
}

void measure_probe(trainer& t) {
    take_probe(*t.run, t.probe_tokens, t.probe);
    t.probe_step = t.run->step;
}

void start_measure(trainer& t, int mark) {
    t.measuring = train_scored_job{};
    t.measuring_step = t.run->step;
    t.measuring_mark = mark;
}

// The mark of the snapshot just taken, the first time the run reaches it: measured
// in pieces from here (trainer_advance), before the next step.
// (A snapshot kept again after going back has its mark: marks[i] is snapshot i's.)
void mark_snapshot(trainer& t) {
    train_run& r = *t.run;
    const int i = train_snapshot_index(r, r.step);
    if (i >= 0 && int(t.marks.size()) == i &&
        !(t.measuring_step == r.step && t.measuring_mark == i))  // (begun by a job: it goes on)
        start_measure(t, i);
}

// The mark of the grid snapshot at `step`, or nullptr.
const trainer_mark* mark_at(const trainer& t, int step) {
    for (const trainer_mark& m : t.marks)
        if (m.step == step)
            return &m;
    return nullptr;
}

template <class T>
std::size_t vector_bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

std::size_t run_bytes(const train_run& r) {
    std::size_t n = vector_bytes(r.params) + vector_bytes(r.grads) + vector_bytes(r.adam_m) + vector_bytes(r.adam_v) +
                    vector_bytes(r.params_t) + vector_bytes(r.curve) + vector_bytes(r.snapshots) + vector_bytes(r.tokens) +
                    vector_bytes(r.targets) + vector_bytes(r.counted) + vector_bytes(r.hidden) + vector_bytes(r.rope_cos) +
                    vector_bytes(r.rope_sin) + vector_bytes(r.positions) + vector_bytes(r.eval_tokens) +
                    vector_bytes(r.eval_targets) + vector_bytes(r.eval_counted) + vector_bytes(r.acts) + vector_bytes(r.scratch) +
                    vector_bytes(r.group_grads) + vector_bytes(r.chunk_squares);
    for (const std::vector<train_snapshot>* kept : {&r.snapshots, &r.dense})
        for (const train_snapshot& s : *kept)
            n += vector_bytes(s.params) + vector_bytes(s.adam_m) + vector_bytes(s.adam_v);
    return n + vector_bytes(r.dense);
}

// A run kept for this key, ready to go on from its step (a copy of twin's, or the store's).
std::optional<trainer> kept_run(const std::string& key, trainer_store* kept, trainer* twin) {
    if (twin && twin->run && trainer_store_key(twin->key) == key) {
        trainer_collect(*twin);  // its job's steps in its curve before the copy
        return *twin;
    }
    return kept ? trainer_store_take(*kept, key) : std::nullopt;
}

// The probe row: held-out row 0 of the run's task.
void set_probe_row(trainer& t) {
    const train_run& r = *t.run;
    t.probe_tokens.assign(r.eval_tokens.begin(), r.eval_tokens.begin() + r.T);
    t.probe_targets.assign(r.eval_targets.begin(), r.eval_targets.begin() + r.T);
    t.probe_counted.assign(r.eval_counted.begin(), r.eval_counted.begin() + r.T);
    t.probe_symbols.clear();
    for (int v : t.probe_tokens)
        t.probe_symbols.push_back(task_symbol(v));
}

void start_run(trainer& t, const experiment& key, trainer_store* kept, trainer* twin) {
    const std::uint64_t version = t.weights_version;
    const bool had_run = t.run.has_value();
    if (kept && had_run)
        trainer_store_put(*kept, std::move(t));
    if (key.train.task != train_task::none && (kept || twin))
        if (std::optional<trainer> back = kept_run(trainer_store_key(key), kept, twin)) {
            t = std::move(*back);
            t.key = key;  // the same text; fields the text does not carry follow the experiment
            t.weights_version = version + 1;
            return;
        }
    t = trainer{};
    t.key = key;
    t.synced = true;
    t.weights_version = version;
    if (key.train.task == train_task::none) {
        t.weights_version += had_run ? 1 : 0;  // no weights before or after: nothing to redraw
        return;
    }
    ++t.weights_version;
    train_init_result init = train_init(key);
    if (!init.run) {
        for (const std::string& m : init.errors)
            t.error += (t.error.empty() ? "" : "; ") + m;
        return;
    }
    t.run = std::move(init.run);
    train_run& r = *t.run;
    t.curve.reserve(std::size_t(key.train.steps));
    t.smooth.reserve(std::size_t(key.train.steps));
    t.marks.reserve(r.snapshots.size());
    set_probe_row(t);
    mark_snapshot(t);
}

// The kept snapshot the run restores to reach the target: the latest at or
// before it, back or forward; -1 when stepping on from where it is is nearer.
// Not past a grid snapshot whose measure never finished (a run taken back while
// measuring it): training on over it measures it then, so marks[i] stays snapshot i's.
int snapshot_for_target(const trainer& t) {
    const train_run& r = *t.run;
    int limit = t.target;
    if (int(t.marks.size()) < r.snapshots_taken)
        limit = std::min(limit, r.snapshots[t.marks.size()].step);
    const int kept = train_kept_before(r, limit);
    return r.step > t.target || kept > r.step ? kept : -1;
}

// `now` and the probe at the run's step. While training, the latest mark stands
// for the current step; at the target, the step's own: a measure started here
// (finish_measure comes back when it is done).
void measure_now(trainer& t) {
    train_run& r = *t.run;
    if (const trainer_mark* m = mark_at(t, r.step)) {
        t.now = *m;
        measure_probe(t);
        t.measured_step = r.step;
        return;
    }
    if (r.step == t.target || !r.error.empty()) {
        if (t.measured_step != r.step && t.measuring_step != r.step)
            start_measure(t, -1);
        measure_probe(t);  // one row: drawn at once, while the held-out rows take their frames
        return;
    }
    if (const trainer_mark* m = trainer_mark_before(t, r.step))
        t.now = *m;
    measure_probe(t);
    t.measured_step = -1;
}

void finish_measure(trainer& t) {
    train_run& r = *t.run;
    trainer_mark m{t.measuring_step, t.measuring.eval.result(), std::move(t.measuring.heads)};
    const int mark = t.measuring_mark;
    t.measuring = train_scored_job{};
    t.measuring_step = t.measuring_mark = -1;
    // What is drawn and claimed from the run changed (its measures, not its
    // weights): everything keyed by the version follows, as after a step.
    ++t.weights_version;
    if (mark < 0) {
        t.now = std::move(m);
        t.measured_step = r.step;
        return;
    }
    if (int(t.marks.size()) == mark)
        t.marks.push_back(std::move(m));
    measure_now(t);
}

// One row of the measure in progress.
void measure_piece(trainer& t) {
    train_scored_piece(*t.run, t.measuring);
    if (t.measuring.eval.done())
        finish_measure(t);
}

// After a step (or a job's steps): the curve, and the snapshot's mark to measure.
void record_step(trainer& t) {
    train_run& r = *t.run;
    const int span = train_loss_ema_span(r.e.train.steps);
    while (std::size_t(r.step) > t.curve.size() && t.curve.size() < r.curve.size()) {  // every step a job took
        t.curve.push_back(r.curve[t.curve.size()]);
        t.smooth.push_back(
            train_loss_ema_next(t.smooth.empty() ? 0.0f : t.smooth.back(), t.curve.back().loss, span, t.smooth.empty()));
    }
    mark_snapshot(t);
}

}  // namespace

experiment trainer_key(const experiment& e) {
    experiment k = e;
    const experiment plain;
    k.text = untexted_text(e.train.seq);  // training reads no text
    k.edges.clear();
    k.ablate.clear();
    k.edits.clear();
    k.softmax = plain.softmax;
    k.mask_at = plain.mask_at;
    k.prec = plain.prec;
    k.decode = 0;
    k.train = e.train.run_identity();
    return k;
}

void trainer_adopt(trainer& t) {
    set_probe_row(t);
    t.synced = true;
    t.target = t.run->step;
    measure_now(t);
}

std::size_t trainer_bytes(const trainer& t) {
    std::size_t n = sizeof(trainer) + vector_bytes(t.curve) + vector_bytes(t.marks) + vector_bytes(t.probe_tokens) +
                    vector_bytes(t.probe_targets) + vector_bytes(t.probe_counted) + vector_bytes(t.probe_symbols) +
                    vector_bytes(t.probe) + vector_bytes(t.now.heads);
    for (const trainer_mark& m : t.marks)
        n += vector_bytes(m.heads);
    for (const matrix& m : t.probe)
        n += vector_bytes(m.data);
    // the job's probe buffers, kept for the next job's probes (collect swaps them in)
    n += vector_bytes(t.job_out.probe) + vector_bytes(t.job_out.marks);
    for (const matrix& m : t.job_out.probe)
        n += vector_bytes(m.data);
    return n + (t.run ? run_bytes(*t.run) : 0);
}

std::string trainer_store_key(const experiment& e) { return experiment_to_text(trainer_key(e)); }

void trainer_store_put(trainer_store& s, trainer t) {
    if (!t.run || t.curve.empty())  // never stepped; one scrubbed back to 0 keeps its steps
        return;
    std::string key = trainer_store_key(t.key);
    trainer_store_take(s, key);  // the older copy of the same run goes
    const std::size_t bytes = trainer_bytes(t);
    if (bytes > s.budget)
        return;
    while (s.bytes + bytes > s.budget) {  // the run left longest ago goes first
        const auto oldest =
            std::min_element(s.entries.begin(), s.entries.end(), [](const auto& x, const auto& y) { return x.left < y.left; });
        s.bytes -= oldest->bytes;
        s.entries.erase(oldest);
    }
    s.entries.push_back({std::move(key), std::move(t), bytes, ++s.clock});
    s.bytes += bytes;
}

std::optional<trainer> trainer_store_take(trainer_store& s, const std::string& key) {
    const auto it = std::find_if(s.entries.begin(), s.entries.end(), [&key](const auto& x) { return x.key == key; });
    if (it == s.entries.end())
        return std::nullopt;
    std::optional<trainer> t = std::move(it->kept);
    s.bytes -= it->bytes;
    s.entries.erase(it);
    return t;
}

const trainer* trainer_store_find(const trainer_store& s, const std::string& key) {
    for (const auto& x : s.entries)
        if (x.key == key)
            return &x.kept;
    return nullptr;
}

namespace {

// Whether t's job was given up (its thread stopped answering), saying so once.
bool given_up(trainer& t) {
    if (t.lost || !t.job.lost())
        return t.lost;
    t.lost = true;
    t.error = "training stopped at step " + std::to_string(t.job_step) +
              ": a worker thread stopped answering (a browser may end one). Reload the page to train again.";
    ++t.weights_version;
    return true;
}

}  // namespace

bool trainer_sync(trainer& t, const experiment& e, trainer_store* kept, trainer* twin) {
    if (given_up(t))
        return false;
    bool changed = false;
    experiment k = trainer_key(e);
    const bool moved = !(k == t.key) || !t.synced;
    if (t.job.busy() && (moved || std::min(e.train.trained_steps(), e.train.steps) != t.target))
        changed = trainer_collect(t);  // the job stepped toward the target it had
    if (moved) {
        const std::uint64_t before = t.weights_version;
        start_run(t, k, kept, twin);
        changed = changed || t.weights_version != before;
    }
    t.target = t.run ? std::min(e.train.trained_steps(), e.train.steps) : 0;
    if (changed && t.run)
        measure_now(t);
    return changed;
}

bool trainer_advance(trainer& t, double seconds, int threads, bool steps_here) {
    bool changed = trainer_collect(t);
    if (!t.run || t.lost)
        return changed;
    train_run& r = *t.run;
    r.threads = threads;
    // Going back works on a stopped run too: every kept snapshot was taken before
    // the loss stopped being finite, and training on from one repeats the run.
    // Going forward to a kept snapshot is as quick: nothing retrains.
    if (const int kept = snapshot_for_target(t); kept >= 0) {
        train_restore_step(r, kept);  // abandons the step in progress
        mark_snapshot(t);             // a grid snapshot whose measure a going back cut short
        t.error.clear();
        t.measured_step = -1;
        changed = true;
    }
    if (r.step >= t.target)
        train_step_abandon(r);  // Pause, Step back: the partial step goes, the weights never had it
    if (t.measuring_step >= 0 && (t.measuring_step != r.step || train_step_in_progress(r)))
        t.measuring_step = t.measuring_mark = -1;  // a measure of weights no longer there (or of a job stopped uncollected)
    const bool whole = seconds <= 0.0;
    const auto start = std::chrono::steady_clock::now();
    int pieces = 0;  // at least one per call
    const auto time_up = [&] {
        return !whole && pieces > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds;
    };
    bool resumed = train_step_in_progress(r);  // a step begun by an earlier call
    int steps = 0;
    while (true) {
        if (t.measuring_step >= 0) {
            measure_piece(t);
            ++pieces;
            if (time_up())
                break;
            continue;
        }
        const bool between = !train_step_in_progress(r);
        if (between && (r.step >= t.target || !r.error.empty())) {
            if (changed || t.measured_step != r.step) {
                measure_now(t);
                if (t.measuring_step >= 0 && !time_up())
                    continue;
            }
            break;
        }
        if ((between && (whole ? steps > 0 : time_up())) || !steps_here)
            break;
        const train_piece p = train_step_piece(r);
        ++pieces;
        if (p == train_piece::none) {
            t.error = r.error;
            continue;  // at the stop: measured as at a target
        }
        if (p == train_piece::step) {
            changed = true;
            ++steps;
            record_step(t);
            // A step longer than a call: end the call here, so the probe shows it.
            if (resumed && !whole && t.measuring_step < 0)
                break;
            resumed = false;
        }
        if (time_up())
            break;
    }
    if (changed)
        ++t.weights_version;
    if ((changed || t.measured_step != r.step) && !train_step_in_progress(r) && t.measuring_step < 0 &&
        !(r.step == t.target || !r.error.empty()))
        measure_now(t);
    return changed;
}

namespace {

// The job of trainer_launch: the snapshot's measure left unfinished (out.measuring
// is its step, m the measure), then steps to the target, each snapshot's measure
// the first time the run reaches it (as trainer_advance would do before the next
// step), into out.marks. At the first step's end and then every probe_every, the
// probe (out.probe): the frames cannot take one while a step is in progress, and
// a post mostly finds one.
constexpr auto probe_every = std::chrono::milliseconds(20);
void step_apart(train_run& r, int target, int marked, train_scored_job& m, const std::vector<int>& probe_tokens,
                trainer_job_out& out, const std::atomic<bool>& stop) {
    auto probed = std::chrono::steady_clock::time_point{};
    for (;;) {
        if (out.measuring >= 0) {
            while (!m.eval.done()) {
                if (stop.load(std::memory_order_relaxed))
                    return;
                train_scored_piece(r, m);
            }
            out.marks.push_back(trainer_mark{r.step, m.eval.result(), std::move(m.heads)});
            m = train_scored_job{};
            out.measuring = -1;
            ++marked;
        }
        if (r.step >= target || stop.load(std::memory_order_relaxed))
            return;
        const train_piece p = train_step_piece(r);
        if (p == train_piece::none)
            return;
        if (p != train_piece::step)
            continue;
        const auto now = std::chrono::steady_clock::now();
        if (out.probe_step < 0 || now - probed >= probe_every) {
            take_probe(r, probe_tokens, out.probe);
            out.probe_step = r.step;
            probed = now;
        }
        if (train_snapshot_index(r, r.step) == marked) {
            m = train_scored_job{};
            out.measuring = r.step;
        }
    }
}

}  // namespace

bool trainer_launch(trainer& t, int threads) {
    if (!threads_background() || given_up(t) || t.job.busy() || !t.run)
        return false;
    train_run& r = *t.run;
    if (!r.error.empty() || r.step >= t.target || snapshot_for_target(t) >= 0)
        return false;  // (a kept snapshot to restore first: trainer_advance's)
    if (t.measuring_step >= 0 &&
        (t.measuring_mark != int(t.marks.size()) || t.measuring_step != r.step || train_step_in_progress(r)))
        return false;  // (not a measure the job takes over: the frames finish it)
    r.threads = threads;
    // The pool's workers are started from here, not from the job: in wasm only
    // the page's thread starts them (a job waiting for a worker that thread has
    // yet to start would wait on a page waiting for the job).
    threads_start(threads);
    t.job_step = r.step;
    t.job_out.marks.clear();
    t.job_out.measuring = t.measuring_step;
    t.job_out.probe_step = -1;
    const int target = t.target, marked = int(t.marks.size());  // the snapshot measured next
    t.job.start([&r, &m = t.measuring, &tokens = t.probe_tokens, &out = t.job_out, target,
                 marked](const std::atomic<bool>& stop) { step_apart(r, target, marked, m, tokens, out, stop); });
    return true;
}

bool trainer_collect(trainer& t) {
    if (given_up(t) || !t.job.busy())
        return false;
    t.job.stop();
    if (given_up(t))
        return true;
    train_run& r = *t.run;
    const bool changed = r.step != t.job_step || !r.error.empty(), measured = !t.job_out.marks.empty();
    if (!r.error.empty())
        t.error = r.error;
    for (trainer_mark& m : t.job_out.marks)
        t.marks.push_back(std::move(m));
    t.job_out.marks.clear();
    // A measure the job was stopped in goes on where it was (the next launch, or trainer_advance).
    t.measuring_step = t.job_out.measuring;
    t.measuring_mark = t.job_out.measuring >= 0 ? int(t.marks.size()) : -1;
    if (t.job_out.probe_step >= 0) {
        std::swap(t.probe, t.job_out.probe);
        t.probe_step = t.job_out.probe_step;
    }
    record_step(t);  // the curve
    if (!changed && !measured)
        return false;
    ++t.weights_version;  // the weights, or only the measures (as finish_measure)
    // As trainer_advance leaves it: the probe at a step between the snapshots
    // (or the snapshot's mark as `now`); at the target, a stop or a measure to
    // finish, trainer_advance's measures next. Otherwise (inside a step, where a
    // post mostly lands, or a measure) the latest mark stands for `now` until the
    // step's own, and the probe is the job's.
    if (!train_step_in_progress(r) && t.measuring_step < 0 && r.step != t.target && r.error.empty()) {
        measure_now(t);
    } else if (t.measured_step != r.step) {
        if (const trainer_mark* m = trainer_mark_before(t, r.step))
            t.now = *m;
    }
    return changed;
}

void trainer_finish(trainer& t) {
    while (!trainer_done(t))
        if (!trainer_advance(t, 1e9))
            break;
}

// While a job is out, the run is its: these answer from the launch (trainer_launch).
bool trainer_done(const trainer& t) {
    return !t.run || t.lost || (!t.job.busy() && (!t.run->error.empty() || t.run->step == t.target) && t.measuring_step < 0);
}

bool trainer_training(const trainer& t) {
    return t.run && !t.lost && (t.job.busy() || (t.run->error.empty() && t.run->step != t.target));
}

bool trainer_stopped(const trainer& t) { return t.lost || (t.run && !t.job.busy() && !t.run->error.empty()); }

int trainer_step(const trainer& t) { return !t.run ? 0 : t.job.busy() || t.lost ? t.job_step : t.run->step; }

const trainer_mark* trainer_mark_before(const trainer& t, int step) {
    const trainer_mark* best = nullptr;
    for (const trainer_mark& m : t.marks)
        if (m.step <= step)
            best = &m;
    return best;
}

std::optional<train_point> trainer_last_point(const trainer& t) {
    const int step = trainer_step(t);
    if (step <= 0 || std::size_t(step) > t.curve.size())
        return std::nullopt;
    return t.curve[std::size_t(step - 1)];
}

bool trainer_measured(const trainer& t) { return t.run && (!t.marks.empty() || t.measured_step == t.run->step); }

std::vector<int> trainer_snapshot_steps(const trainer& t) {
    std::vector<int> steps;
    if (!t.run)
        return steps;
    const int every = t.run->snapshot_every, total = t.run->e.train.steps;
    for (int s = 0; s < total; s += every)
        steps.push_back(s);
    steps.push_back(total);
    for (int i = 0; i < t.run->dense_taken; ++i)
        steps.push_back(t.run->dense[std::size_t(i)].step);
    std::sort(steps.begin(), steps.end());
    return steps;
}

bool trainer_kept(const trainer& t, int step) {
    if (!t.run)
        return false;
    const std::vector<int> kept = train_kept_steps(*t.run);
    return std::binary_search(kept.begin(), kept.end(), step);
}

trainer_kept_summary trainer_kept_spacing(const trainer& t) {
    trainer_kept_summary k;
    if (!t.run)
        return k;
    const train_run& r = *t.run;
    k.every = r.snapshot_every;
    k.dense = r.dense_taken;
    k.reach = r.reach;
    for (int i = 0; i < r.dense_taken; ++i) {
        const int s = r.dense[std::size_t(i)].step;
        k.dense_first = k.dense_first < 0 ? s : std::min(k.dense_first, s);
        k.dense_last = std::max(k.dense_last, s);
    }
    return k;
}

std::vector<float> train_loss_ema(const std::vector<train_point>& curve, int span) {
    std::vector<float> out;
    out.reserve(curve.size());
    for (const train_point& p : curve)
        out.push_back(train_loss_ema_next(out.empty() ? 0.0f : out.back(), p.loss, span, out.empty()));
    return out;
}

train_drop train_find_drop(const std::vector<train_point>& curve, int upto, int steps) {
    train_drop d;
    const int n = std::clamp(upto, 0, int(curve.size()));
    const int w = std::clamp((steps > 0 ? steps : int(curve.size())) / 20, 5, 50);
    d.window = w;
    if (n < 2 * w + 1)
        return d;
    // The window means, each summed in order in double (no memory: the circuits' timeline calls this on every pass).
    const auto mean = [&](int from) {
        double s = 0;
        for (int i = from; i < from + w; ++i)
            s += double(curve[std::size_t(i)].loss);
        return s / w;
    };
    int best = -1;
    double best_drop = 0.0;
    for (int s = w; s + w <= n; ++s)
        if (const double fall = mean(s - w) - mean(s); fall > best_drop) {
            best_drop = fall;
            best = s;
        }
    // A drop worth the name (a tenth of the loss where it started), and settled.
    if (best < 0 || best_drop <= 0.1 * double(curve.front().loss) || best + 2 * w > n)
        return d;
    d.step = best;
    d.before = float(mean(best - w));
    d.after = float(mean(best));
    d.plateau = best >= 3 * w && std::fabs(mean(best - 3 * w) - mean(best - 2 * w)) <= train_plateau_flatness * best_drop;
    return d;
}

int trainer_phase_step(const trainer& t) {
    return train_find_drop(t.curve, int(t.curve.size()), t.run ? t.run->e.train.steps : 0).step;
}

train_eval_result trainer_task_with_ablated(trainer& t, const std::vector<ablated_head>& heads) {
    trainer_collect(t);
    if (!t.run)
        return {};
    std::vector<head_override> chain(heads.size());
    for (std::size_t i = 0; i < heads.size(); ++i)
        chain[i] = head_override{heads[i].layer, heads[i].head, nullptr, i + 1 < heads.size() ? &chain[i + 1] : nullptr};
    return train_evaluate(*t.run, chain.empty() ? nullptr : chain.data());
}

}  // namespace attn
