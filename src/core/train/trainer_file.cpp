#include "train/trainer_file.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace attn {

namespace {

constexpr char magic[8] = {'a', 't', 't', 'n', '-', 'r', 'u', 'n'};

// FNV-1a over the bytes: the file's last 8 bytes are this of all before them.
std::uint64_t fnv(const unsigned char* p, std::size_t n) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

// Little-endian, as both the page's wasm and the native builds store numbers.
struct writer {
    std::vector<unsigned char> out;
    template <class T>
    void raw(const T* p, std::size_t n) {
        const auto* b = reinterpret_cast<const unsigned char*>(p);
        out.insert(out.end(), b, b + n * sizeof(T));
    }
    void u32(std::uint32_t v) { raw(&v, 1); }
    void i32(int v) { raw(&v, 1); }
    void f32(float v) { raw(&v, 1); }
    void u64(std::uint64_t v) { raw(&v, 1); }
    void text(const std::string& s) {
        u64(s.size());
        raw(s.data(), s.size());
    }
};

// Reads what writer wrote; any read past the end or a count beyond `most` sets
// `error` (the first problem only) and gives zeros from then on.
struct reader {
    const unsigned char* p;
    std::size_t left;
    std::string error;
    template <class T>
    bool raw(T* dst, std::size_t n, const char* what) {
        if (!error.empty())
            return false;
        if (n > left / sizeof(T)) {
            error = std::string("the file ends inside ") + what;
            return false;
        }
        std::memcpy(dst, p, n * sizeof(T));
        p += n * sizeof(T), left -= n * sizeof(T);
        return true;
    }
    template <class T>
    T one(const char* what) {
        T v{};
        raw(&v, 1, what);
        return v;
    }
    std::size_t count(std::size_t most, const char* what) {
        const std::uint64_t n = one<std::uint64_t>(what);
        if (error.empty() && n > most)
            error = std::string(what) + ": " + std::to_string(n) + " where at most " + std::to_string(most) + " can be";
        return error.empty() ? std::size_t(n) : 0;
    }
    std::string text(std::size_t most, const char* what) {
        std::string s(count(most, what), '\0');
        raw(s.data(), s.size(), what);
        return s;
    }
};

void write_mark(writer& w, const trainer_mark& m) {
    w.i32(m.step);
    w.f32(m.held_out.loss);
    w.f32(m.held_out.acc);
    w.u64(m.heads.size());
    for (const head_scores& h : m.heads) {
        for (double v : {h.prev, h.induction, h.offset, h.sink, h.entropy})
            w.raw(&v, 1);
        for (int v : {h.n_prev, h.n_induction, h.n_offset, h.n_sink, h.n_entropy})
            w.i32(v);
    }
}

trainer_mark read_mark(reader& in, std::size_t heads) {
    trainer_mark m;
    m.step = in.one<int>("a measure");
    m.held_out.loss = in.one<float>("a measure");
    m.held_out.acc = in.one<float>("a measure");
    const std::size_t n = in.count(heads, "a measure's heads");
    if (in.error.empty() && n != heads)
        in.error = "a measure has " + std::to_string(n) + " heads where the model has " + std::to_string(heads);
    m.heads.resize(in.error.empty() ? n : 0);
    for (head_scores& h : m.heads) {
        for (double* v : {&h.prev, &h.induction, &h.offset, &h.sink, &h.entropy})
            in.raw(v, 1, "a head's scores");
        for (int* v : {&h.n_prev, &h.n_induction, &h.n_offset, &h.n_sink, &h.n_entropy})
            in.raw(v, 1, "a head's scores");
    }
    return m;
}

void write_snapshot(writer& w, const train_snapshot& s) {
    w.i32(s.step);
    w.raw(s.params.data(), s.params.size());
    w.raw(s.adam_m.data(), s.adam_m.size());
    w.raw(s.adam_v.data(), s.adam_v.size());
}

// Into a snapshot train_init sized.
void read_snapshot(reader& in, train_snapshot& s) {
    s.step = in.one<int>("a snapshot");
    in.raw(s.params.data(), s.params.size(), "a snapshot");
    in.raw(s.adam_m.data(), s.adam_m.size(), "a snapshot");
    in.raw(s.adam_v.data(), s.adam_v.size(), "a snapshot");
}

// The grid's steps (train.cpp's take_snapshot): 0, every, 2·every, …, and the last.
int grid_step(const train_run& r, int i) { return std::min(i * r.snapshot_every, r.e.train.steps); }

// Whether the kept steps read are the ones the run would have kept.
std::string kept_problem(const train_run& r) {
    for (int i = 0; i < r.snapshots_taken; ++i) {
        const int s = r.snapshots[std::size_t(i)].step;
        if (s != grid_step(r, i) || s > r.reach)
            return "snapshot " + std::to_string(i) + " is at step " + std::to_string(s) + ", not on the run's grid";
    }
    if (r.reach > 0 && r.snapshots_taken !=
                           std::min(int(r.snapshots.size()), r.reach / r.snapshot_every + 1 +
                                                                 (r.reach == r.e.train.steps && r.reach % r.snapshot_every != 0)))
        return "the run reached step " + std::to_string(r.reach) + " but keeps " + std::to_string(r.snapshots_taken) +
               " grid snapshots";
    int before = 0;
    for (int i = 0; i < r.dense_taken; ++i) {
        const int s = r.dense[std::size_t(i)].step;
        if (s <= before || s > r.reach || s % r.snapshot_every == 0 || s == r.e.train.steps)
            return "dense snapshot " + std::to_string(i) + " is at step " + std::to_string(s) + ", which the run would not keep";
        before = s;
    }
    for (int i = 0; i < int(r.curve.size()); ++i)
        if (r.curve[std::size_t(i)].step != i)
            return "the curve's point " + std::to_string(i) + " says step " + std::to_string(r.curve[std::size_t(i)].step);
    return "";
}

// The recipe, checked and laid out: the run at step 0 (train_init).
std::optional<train_run> recipe_run(const std::string& key, std::string& error) {
    experiment_parse_result parsed = experiment_parse(key);
    if (!parsed.value) {
        error = "its recipe does not parse: " + (parsed.errors.empty() ? std::string() : parsed.errors.front());
        return std::nullopt;
    }
    const experiment e = trainer_key(*parsed.value);
    if (e.train.task == train_task::none || trainer_store_key(e) != key) {
        error = "its recipe is not a run's canonical text";
        return std::nullopt;
    }
    train_init_result init = train_init(e);
    if (!init.run)
        error = "its recipe makes no run: " + (init.errors.empty() ? std::string() : init.errors.front());
    return std::move(init.run);
}

// The run's state after its recipe: step, weights, moments, kept snapshots, curve.
void read_run(reader& in, train_run& r) {
    r.step = in.one<int>("the run's step");
    r.reach = in.one<int>("the run's step");
    r.snapshots_taken = in.one<int>("the run's snapshots");
    r.dense_taken = in.one<int>("the run's snapshots");
    r.fast_loss = in.one<float>("the run's smoothed loss");
    r.fast_loss_kept = in.one<float>("the run's smoothed loss");
    r.error = in.text(4096, "the run's error");
    if (!in.error.empty())
        return;
    const train_settings& t = r.e.train;
    if (r.reach < 1 || r.reach > t.steps || r.step < 0 || r.step > r.reach || r.snapshots_taken < 0 ||
        r.snapshots_taken > int(r.snapshots.size()) || r.dense_taken < 0 || r.dense_taken > int(r.dense.size())) {
        in.error = "its steps (at " + std::to_string(r.step) + ", reached " + std::to_string(r.reach) +
                   ") or snapshot counts are not a run of " + std::to_string(t.steps) + " steps";
        return;
    }
    for (std::vector<float>* v : {&r.params, &r.adam_m, &r.adam_v})
        in.raw(v->data(), v->size(), "the weights");
    for (int i = 0; i < r.snapshots_taken; ++i)
        read_snapshot(in, r.snapshots[std::size_t(i)]);
    for (int i = 0; i < r.dense_taken; ++i)
        read_snapshot(in, r.dense[std::size_t(i)]);
    r.curve.resize(std::size_t(r.reach));
    for (train_point& p : r.curve) {
        p.step = in.one<int>("the curve");
        for (float* v : {&p.loss, &p.acc, &p.lr, &p.grad_norm})
            in.raw(v, 1, "the curve");
    }
    if (in.error.empty())
        in.error = kept_problem(r);
}

// Runs `check(r)` on one thread from a kept snapshot's state, then puts the run
// back as it was (its weights, moments, step, curve, threads and error): both
// checks below train from a snapshot and must leave the run at its step.
template <class F>
auto with_run_restored(train_run& r, F&& check) {
    const std::vector<float> params = r.params, m = r.adam_m, v = r.adam_v;
    const std::vector<train_point> curve = r.curve;
    const int step = r.step, threads = r.threads;
    const std::string error = r.error;
    r.threads = 1;  // the same bits as any count
    const auto result = check(r);
    r.curve = curve;
    r.params = params, r.adam_m = m, r.adam_v = v;
    r.step = step, r.threads = threads, r.error = error;
    train_step_abandon(r);
    return result;
}

// Whether this build's arithmetic gives the run's bits: the step after its
// latest kept snapshot before `reach`, taken again from it, must give the
// curve's point there.
std::string retake_problem(train_run& r) {
    int from = -1;
    for (int s : train_kept_steps(r))
        if (s < r.reach)
            from = s;
    if (from < 0)
        return "it keeps no snapshot to check it from";
    const train_point want = r.curve[std::size_t(from)];
    const auto [stepped, got] = with_run_restored(r, [from](train_run& x) {
        train_restore_step(x, from);
        const bool ok = train_step(x);  // false: the loss was not finite there (the curve's point is)
        return std::pair{ok, x.curve[std::size_t(from)]};
    });
    const auto same = [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    if (stepped && same(got.loss, want.loss) && same(got.acc, want.acc) && same(got.grad_norm, want.grad_norm) &&
        same(got.lr, want.lr))
        return "";
    return "step " + std::to_string(from + 1) + " taken again here gives another loss (" + std::to_string(got.loss) + ", not " +
           std::to_string(want.loss) + "): another build wrote it, or it was altered";
}

// Whether the weights at the run's step are the ones its kept snapshot before
// them gives: restored and stepped on to the run's step (at most a grid
// interval), they must be the same bits.
std::string weights_problem(train_run& r) {
    const int step = r.step;
    const bool same = with_run_restored(r, [step](train_run& x) {
        const std::vector<float> params = x.params, m = x.adam_m, v = x.adam_v;
        train_restore_step(x, train_kept_before(x, step));
        while (x.step < step && train_step(x)) {
        }
        return x.step == step && x.params == params && x.adam_m == m && x.adam_v == v;
    });
    return same ? "" : "its weights at step " + std::to_string(step) + " are not the ones its snapshot before them trains to";
}

// The trainer's own part: its error, each snapshot's measure, the current step's.
void read_trainer(reader& in, trainer& t) {
    const train_run& r = *t.run;
    const std::size_t heads = std::size_t(r.L * r.h);
    t.error = in.text(4096, "the trainer's error");
    const std::size_t marks = in.count(std::size_t(r.snapshots_taken), "the measures");
    for (std::size_t i = 0; i < marks && in.error.empty(); ++i) {
        t.marks.push_back(read_mark(in, heads));
        if (in.error.empty() && t.marks.back().step != r.snapshots[i].step)
            in.error = "measure " + std::to_string(i) + " is not its snapshot's step";
    }
    t.now = read_mark(in, heads);
    t.measured_step = in.one<int>("the current measure");
    if (in.error.empty() && t.measured_step != -1 && (t.measured_step != r.step || t.now.step != r.step))
        in.error = "the current measure is not of the run's step";
    t.curve = r.curve;
    const int span = train_loss_ema_span(r.e.train.steps);
    for (const train_point& p : t.curve)
        t.smooth.push_back(train_loss_ema_next(t.smooth.empty() ? 0.0f : t.smooth.back(), p.loss, span, t.smooth.empty()));
}

}  // namespace

std::string trainer_save_problem(const trainer& t) {
    if (!t.run)
        return "there is no run";
    if (t.lost || t.job.busy())
        return "its steps are under way on another thread";
    if (!trainer_done(t) || t.measuring_step >= 0)
        return "it is not at its step yet";
    if (t.run->reach < 1)
        return "it has not taken a step";
    return "";
}

std::vector<unsigned char> trainer_save(const trainer& t) {
    if (!trainer_save_problem(t).empty())
        return {};
    const train_run& r = *t.run;
    writer w;
    w.raw(magic, sizeof magic);
    w.u32(trainer_file_version);
    w.text(trainer_store_key(t.key));
    for (int v : {r.step, r.reach, r.snapshots_taken, r.dense_taken})
        w.i32(v);
    w.f32(r.fast_loss);
    w.f32(r.fast_loss_kept);
    w.text(r.error);
    for (const std::vector<float>* v : {&r.params, &r.adam_m, &r.adam_v})
        w.raw(v->data(), v->size());
    for (int i = 0; i < r.snapshots_taken; ++i)
        write_snapshot(w, r.snapshots[std::size_t(i)]);
    for (int i = 0; i < r.dense_taken; ++i)
        write_snapshot(w, r.dense[std::size_t(i)]);
    for (const train_point& p : r.curve) {
        w.i32(p.step);
        for (float v : {p.loss, p.acc, p.lr, p.grad_norm})
            w.f32(v);
    }
    w.text(t.error);
    w.u64(t.marks.size());
    for (const trainer_mark& m : t.marks)
        write_mark(w, m);
    write_mark(w, t.now);
    w.i32(t.measured_step);
    w.u64(fnv(w.out.data(), w.out.size()));
    return std::move(w.out);
}

trainer_load_result trainer_load(const unsigned char* bytes, std::size_t size) {
    trainer_load_result out;
    if (!bytes)
        size = 0;
    std::uint64_t sum = 0;
    if (size >= sizeof sum)
        std::memcpy(&sum, bytes + size - sizeof sum, sizeof sum);
    if (size < sizeof sum || sum != fnv(bytes, size - sizeof sum)) {
        out.error = "a kept run cannot be opened: it is truncated or altered (its checksum does not match)";
        return out;
    }
    reader in{bytes, size - sizeof sum, ""};
    char head[sizeof magic] = {};
    in.raw(head, sizeof head, "its header");
    if (in.error.empty() && std::memcmp(head, magic, sizeof magic) != 0)
        in.error = "it is not a kept run (its first bytes are not \"attn-run\")";
    const std::uint32_t version = in.one<std::uint32_t>("its header");
    if (in.error.empty() && version != trainer_file_version)
        in.error = "it is a kept run of format " + std::to_string(version) + "; this build reads format " +
                   std::to_string(trainer_file_version);
    const std::string key = in.text(1 << 20, "its recipe");
    std::optional<train_run> r;
    if (in.error.empty()) {
        out.key = key;
        r = recipe_run(key, in.error);
    }
    trainer t;
    if (r) {
        read_run(in, *r);
        t.run = std::move(r);
        t.key = t.run->e;
        read_trainer(in, t);
    }
    if (in.error.empty() && in.left != 0)
        in.error = std::to_string(in.left) + " bytes follow the run";
    if (in.error.empty())
        in.error = retake_problem(*t.run);
    if (in.error.empty())
        in.error = weights_problem(*t.run);
    if (!in.error.empty()) {
        out.error = "a kept run cannot be opened: " + in.error;
        return out;
    }
    trainer_adopt(t);
    t.weights_version = 1;
    out.run = std::move(t);
    return out;
}

}  // namespace attn
