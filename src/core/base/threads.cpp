#include "base/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sched.h>
#endif

namespace attn {

namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool have_threads = false;
#else
constexpr bool have_threads = true;
#endif

thread_local bool inside_item = false;

// How long a caller waits for a thread that does not answer (threads_set_patience).
std::atomic<double> job_patience{5.0};
double job_patience_seconds() { return job_patience.load(std::memory_order_relaxed); }

// The test hook's gate (threads_hold_helpers): workers wait here before they
// take part in a job.
struct helper_gate {
    std::atomic<bool> held{false};
    std::mutex m;
    std::condition_variable open;
    void pass() {
        if (!held.load(std::memory_order_acquire))
            return;
        std::unique_lock<std::mutex> lock(m);
        open.wait(lock, [this] { return !held.load(std::memory_order_acquire); });
    }
};
helper_gate& the_gate() {
    static helper_gate& g = *new helper_gate;
    return g;
}

// The job word: the job's number (its top 24 bits), its next unclaimed item and
// its item count (20 bits each). A thread takes an item by moving `next` on with
// one compare-and-swap, only while the number is still the job it came for and
// items are left, so an item is taken once, by whoever comes first.
constexpr int item_bits = 20;
constexpr std::uint64_t item_mask = (std::uint64_t(1) << item_bits) - 1;
constexpr int items_max = int(item_mask);  // a call with more runs them in jobs of this many
constexpr int job_shift = 2 * item_bits;
constexpr std::uint32_t job_mask = (std::uint32_t(1) << (64 - job_shift)) - 1;
std::uint32_t job_of(std::uint64_t w) { return std::uint32_t(w >> job_shift); }

// Workers started on first use and kept for the program's life (never joined:
// the process ends them); each job names how many of them may take part (the
// first `helpers`). The caller takes items like any helper and then waits only
// for the items a helper has taken and not finished: a helper the system has
// not run yet (both cores busy with another program), or one that never comes,
// costs the caller its share of the items, never a wait for it to wake — on a
// busy machine the threaded paths were otherwise far slower than one thread
// (waiting on every job for a descheduled helper to wake and find nothing to do).
// A worker that has left a job looks for the next one for a moment (`linger`)
// before it sleeps, and so does a caller for the items in flight: the jobs of a
// training step come microseconds apart, and a sleeping thread's wake-up costs
// more than that (tens of µs natively, more between wasm workers). A job wakes
// only its helpers, each on its own condition: once a call on 8 threads has
// started 7 workers, a job on 2 wakes one of them, not all 7 to find they are not
// wanted (on two cores that took ~4 % from every later training step on 2
// threads in Node).
struct pool {
    static constexpr std::chrono::microseconds linger{200};
    std::mutex m;
    std::condition_variable wake[threads_max], idle;
    std::vector<std::thread> workers;
    // The job's: written before `word` names it, and read only by a thread that
    // holds one of its items, while the caller waits for that item.
    void (*call)(void*, int) = nullptr;
    void* fn = nullptr;
    int helpers = 0;  // under m
    std::atomic<std::uint64_t> word{0};
    std::atomic<int> done{0};  // the job's items finished
    // The item each worker is running (-1: none). A caller that waited past its
    // patience for an item (a worker a browser ended mid-item) takes it over
    // (exchange to -1) and runs it itself; the pool is lost from then on.
    std::atomic<int> running[threads_max];
    std::atomic<bool> lost{false};
    pool() {
        for (std::atomic<int>& r : running)
            r.store(-1, std::memory_order_relaxed);
    }

    // An unclaimed item of job `id` (and the job's item count in n), else -1.
    int claim(std::uint32_t id, int& n) {
        std::uint64_t w = word.load(std::memory_order_acquire);
        for (;;) {
            const int next = int((w >> item_bits) & item_mask);
            n = int(w & item_mask);
            if (job_of(w) != id || next >= n)
                return -1;
            if (word.compare_exchange_weak(w, w + (std::uint64_t(1) << item_bits), std::memory_order_acq_rel,
                                           std::memory_order_acquire))
                return next;
        }
    }

    // Items of job `id` until none is left to claim; a helper finishing the job's
    // last item wakes its caller.
    // `index`: the worker's, or -1 for the caller. Returns the seconds of its longest item.
    double take(std::uint32_t id, int index) {
        inside_item = true;
        int n = 0;
        double longest = 0;
        for (int i = claim(id, n); i >= 0; i = claim(id, n)) {
            if (index >= 0)
                running[index].store(i, std::memory_order_release);
            if (index >= 0) {
                call(fn, i);
            } else {  // the caller times its items: a helper's is expected to take about as long
                const auto start = std::chrono::steady_clock::now();
                call(fn, i);
                longest = std::max(longest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
            if (index >= 0 && running[index].exchange(-1, std::memory_order_acq_rel) < 0)
                break;  // the caller took this item over: this worker is done with the pool
            if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == n && index >= 0) {
                std::lock_guard<std::mutex> lock(m);  // (the caller checks done under m before it sleeps)
                idle.notify_one();
            }
        }
        inside_item = false;
        return longest;
    }

    // The caller waited past its patience: every item a helper still holds is run here.
    void take_over(int h) {
        {
            std::lock_guard<std::mutex> lock(m);
            lost.store(true, std::memory_order_release);
        }
        for (std::condition_variable& w : wake)
            w.notify_one();  // the sleeping workers end
        inside_item = true;
        for (int w = 0; w < h; ++w)
            if (const int i = running[w].exchange(-1, std::memory_order_acq_rel); i >= 0) {
                call(fn, i);
                done.fetch_add(1, std::memory_order_acq_rel);
            }
        inside_item = false;
    }

    template <class Ready>
    static void spin(Ready ready) {
        const auto until = std::chrono::steady_clock::now() + linger;
        for (int i = 0; !ready(); ++i)
            if (i % 64 == 63 && std::chrono::steady_clock::now() >= until)
                return;
    }

    // Only a worker that took part in a job lingers after it, and only until the
    // next job appears: one not among that job's helpers sleeps until one it is.
    void work(int index) {
        std::uint32_t seen = 0;
        for (;;) {
            spin([&] { return job_of(word.load(std::memory_order_acquire)) != seen; });
            std::unique_lock<std::mutex> lock(m);
            wake[index].wait(lock, [&] {
                return lost.load(std::memory_order_relaxed) ||
                       (job_of(word.load(std::memory_order_relaxed)) != seen && index < helpers);
            });
            if (lost.load(std::memory_order_relaxed))
                return;  // a caller took an item over: the pool runs no job again
            seen = job_of(word.load(std::memory_order_relaxed));
            lock.unlock();
            the_gate().pass();
            take(seen, index);
            if (lost.load(std::memory_order_acquire))
                return;  // a caller took an item over: the pool runs no job again
        }
    }

    void grow(int h) {
        while (int(workers.size()) < h) {
            const int index = int(workers.size());
            workers.emplace_back([this, index] { work(index); });
        }
    }

    void run(int items, int threads, void (*c)(void*, int), void* f) {
        const int h = std::min(threads, items) - 1;
        grow(h);
        std::uint32_t id = 0;
        {
            std::lock_guard<std::mutex> lock(m);
            call = c, fn = f, helpers = h;
            done.store(0, std::memory_order_relaxed);
            id = (job_of(word.load(std::memory_order_relaxed)) + 1) & job_mask;
            word.store(std::uint64_t(id) << job_shift | std::uint64_t(items), std::memory_order_release);
        }
        for (int i = 0; i < h; ++i)
            wake[i].notify_one();
        const double own = take(id, -1);
        spin([&] { return done.load(std::memory_order_acquire) == items; });
        std::unique_lock<std::mutex> lock(m);
        // A helper's item takes about what the caller's took: one that takes far longer
        // (and past the patience) belongs to a worker that is gone.
        const auto patience = std::chrono::duration<double>(std::max(job_patience_seconds(), 20 * own));
        if (idle.wait_for(lock, patience, [&] { return done.load(std::memory_order_acquire) == items; }))
            return;
        lock.unlock();
        take_over(h);
        lock.lock();
        // Every item is run now, unless a worker ended between taking an item and naming it.
        if (!idle.wait_for(lock, patience, [&] { return done.load(std::memory_order_acquire) == items; })) {
            std::fputs("attn: a worker thread ended in the middle of an item it had not named; stopping\n", stderr);
            std::abort();
        }
    }
};

// Made once and never destroyed: a caller on another thread (a background_job)
// may still use them while the statics go at exit.
struct shared_pool {
    std::mutex one_job;  // one caller at a time has the pool
    pool p;
};
shared_pool& the_pool() {
    static shared_pool& s = *new shared_pool;
    return s;
}

}  // namespace

int threads_available() {
    if (!have_threads)
        return 1;
    int n = int(std::thread::hardware_concurrency());
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
    // The CPUs this process may run on (taskset, a container's cpuset), which
    // hardware_concurrency ignores: 64 threads on two allowed CPUs of a 64-core
    // host would take turns on them.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        n = CPU_COUNT(&allowed);
#endif
    return std::clamp(n, 1, threads_max);
}

int thread_choice_next(const thread_choice& c, int threads) {
    if (threads <= 1 || c.piece < thread_choice::probe)
        return std::max(threads, 1);
    if (c.piece < 2 * thread_choice::probe)
        return 1;
    return c.one_faster ? 1 : threads;
}

void thread_choice_took(thread_choice& c, int threads, double seconds) {
    if (threads <= 1)
        return;
    constexpr int probe = thread_choice::probe;
    if (c.piece < probe)
        c.many[c.piece] = seconds;
    else if (c.piece < 2 * probe)
        c.one[c.piece - probe] = seconds;
    if (++c.piece == 2 * probe) {
        const auto median = [](const double* t) {
            double s[probe];
            std::copy(t, t + probe, s);
            std::sort(s, s + probe);
            return (s[(probe - 1) / 2] + s[probe / 2]) / 2;
        };
        c.one_faster = median(c.one) < median(c.many);
    }
    if (c.piece >= thread_choice::cycle)
        c.piece = 0;
}

std::string threads_problem(int n) {
    if (n < 1)
        return "threads must be at least 1, not " + std::to_string(n);
    if (n > threads_max)
        return "threads must be at most " + std::to_string(threads_max) + ", not " + std::to_string(n);
    return "";
}

void parallel_for_call(int n, int threads, void (*call)(void*, int), void* fn) {
    if (!have_threads || threads <= 1 || n <= 1 || inside_item) {
        for (int i = 0; i < n; ++i)
            call(fn, i);
        return;
    }
    shared_pool& s = the_pool();
    std::unique_lock<std::mutex> lock(s.one_job, std::try_to_lock);
    if (!lock.owns_lock() || s.p.lost.load(std::memory_order_acquire)) {  // another thread's call has it, or lost: here
        for (int i = 0; i < n; ++i)
            call(fn, i);
        return;
    }
    struct part {  // items first … first + items_max − 1 (a job holds at most items_max)
        void (*call)(void*, int);
        void* fn;
        int first;
    };
    for (int first = 0; first < n; first += items_max) {
        part o{call, fn, first};
        s.p.run(
            std::min(n - first, items_max), std::min(threads, threads_max),
            [](void* p, int i) {
                const part& o = *static_cast<const part*>(p);
                o.call(o.fn, o.first + i);
            },
            &o);
    }
}

void threads_hold_helpers(bool held) {
    helper_gate& g = the_gate();
    {
        std::lock_guard<std::mutex> lock(g.m);
        g.held.store(held, std::memory_order_release);
    }
    g.open.notify_all();
}

void threads_start(int threads) {
    if (!have_threads || threads <= 1)
        return;
    shared_pool& s = the_pool();
    std::lock_guard<std::mutex> lock(s.one_job);
    s.p.grow(std::min(threads, threads_max) - 1);
}

bool threads_background() { return have_threads; }

struct background_job::state {
    std::atomic<bool> stop{false}, finished{false};
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::mutex m;  // finished is set under it, for stop's bounded wait
    std::condition_variable done;
    std::thread thread;
};

namespace {

helper_gate& job_gate() {  // threads_hold_jobs
    static helper_gate& g = *new helper_gate;
    return g;
}

}  // namespace

void threads_set_patience(double seconds) { job_patience.store(seconds); }

bool threads_lost() { return have_threads && the_pool().p.lost.load(std::memory_order_acquire); }

void threads_mend() {
    shared_pool& s = the_pool();
    std::lock_guard<std::mutex> one(s.one_job);
    if (!s.p.lost.load(std::memory_order_acquire))
        return;
    for (std::thread& w : s.p.workers)  // each ends once its item, if it had one, returns
        w.join();
    s.p.workers.clear();
    for (std::atomic<int>& r : s.p.running)
        r.store(-1, std::memory_order_relaxed);
    s.p.lost.store(false, std::memory_order_release);
}

void threads_hold_jobs(bool held) {
    helper_gate& g = job_gate();
    {
        std::lock_guard<std::mutex> lock(g.m);
        g.held.store(held, std::memory_order_release);
    }
    g.open.notify_all();
}

background_job::background_job() = default;
// (A copy of a job given up is given up too: what its owner holds may be half written.)
background_job::background_job(const background_job& o) {
    o.stop();
    lost_ = o.lost_;
}
background_job::background_job(background_job&& o) noexcept {
    o.stop();
    lost_ = o.lost_;
}
background_job& background_job::operator=(const background_job& o) {
    stop();
    o.stop();
    lost_ = lost_ || o.lost_;
    return *this;
}
background_job& background_job::operator=(background_job&& o) noexcept {
    stop();
    o.stop();
    lost_ = lost_ || o.lost_;
    return *this;
}
background_job::~background_job() { stop(); }

void background_job::start(std::function<void(const std::atomic<bool>& stop)> fn) {
    stop();
    state_ = std::make_unique<state>();
    state* s = state_.get();
    if (!have_threads) {
        fn(s->stop);
        s->finished = true;
        return;
    }
    // s outlives the thread: a job given up (stop) leaves it to the thread for good.
    s->thread = std::thread([s, fn = std::move(fn)] {
        job_gate().pass();
        fn(s->stop);
        {
            std::lock_guard<std::mutex> lock(s->m);
            s->finished.store(true, std::memory_order_release);
        }
        s->done.notify_all();
    });
}

namespace {

// The states of the jobs stop() gave up: their threads may yet run, so they are
// never freed, and listed here they stay reachable (kept, not leaked).
void background_job_keep_lost(void* s) {
    static std::mutex m;
    static std::vector<void*>& lost = *new std::vector<void*>;
    std::lock_guard<std::mutex> lock(m);
    lost.push_back(s);
}

}  // namespace

void background_job::stop() const {
    if (!state_)
        return;
    state* s = state_.get();
    s->stop.store(true, std::memory_order_relaxed);
    if (s->thread.joinable()) {
        std::unique_lock<std::mutex> lock(s->m);
        const auto patience = std::chrono::duration<double>(job_patience.load());
        if (!s->done.wait_for(lock, patience, [s] { return s->finished.load(std::memory_order_acquire); })) {
            lock.unlock();
            s->thread.detach();
            background_job_keep_lost(state_.release());  // the thread's, never freed: it may yet run
            lost_ = true;
            return;
        }
        lock.unlock();
        s->thread.join();
    }
    state_.reset();
}

bool background_job::finished() const { return state_ && state_->finished.load(std::memory_order_acquire); }

double background_job::seconds() const {
    return state_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - state_->started).count() : 0.0;
}

}  // namespace attn
