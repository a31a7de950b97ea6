#include "base/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {

namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool have_threads = false;
#else
constexpr bool have_threads = true;
#endif

thread_local bool inside_item = false;

// Workers started on first use and kept for the program's life (never joined:
// the process ends them); each job names how many of them take part (the first
// `helpers`), and the caller waits until every one has left it. A worker that
// has left a job looks for the next one for a moment (`linger`) before it
// sleeps, and so does a caller for its helpers: the jobs of a training step come
// microseconds apart, and a sleeping thread's wake-up costs more than that
// (tens of µs natively, more between wasm workers) — a late helper leaves the
// caller one group more to do. A job wakes only its helpers, each on its own
// condition: once a call on 8 threads has started 7 workers, a job on 2 wakes
// one of them, not all 7 to find they are not wanted (on two cores that took
// ~4 % from every later training step on 2 threads in Node).
struct pool {
    static constexpr std::chrono::microseconds linger{200};
    std::mutex m;
    std::condition_variable wake[threads_max], idle;
    std::vector<std::thread> workers;
    void (*call)(void*, int) = nullptr;
    void* fn = nullptr;
    int n = 0, helpers = 0;
    std::atomic<int> next{0}, busy{0};
    std::atomic<std::uint64_t> job{0};

    void take() {
        inside_item = true;
        for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1))
            call(fn, i);
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
        std::uint64_t seen = 0;
        for (;;) {
            spin([&] { return job.load(std::memory_order_acquire) != seen; });
            std::unique_lock<std::mutex> lock(m);
            wake[index].wait(lock, [&] { return job.load(std::memory_order_relaxed) != seen && index < helpers; });
            seen = job.load(std::memory_order_relaxed);
            lock.unlock();
            take();
            if (busy.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                lock.lock();  // (the caller checks busy under m before it sleeps)
                idle.notify_one();
            }
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
        {
            std::lock_guard<std::mutex> lock(m);
            call = c, fn = f, n = items, helpers = h;
            busy.store(h, std::memory_order_relaxed);
            next.store(0, std::memory_order_relaxed);
            job.fetch_add(1, std::memory_order_release);
        }
        for (int i = 0; i < h; ++i)
            wake[i].notify_one();
        take();
        spin([&] { return busy.load(std::memory_order_acquire) == 0; });
        std::unique_lock<std::mutex> lock(m);
        idle.wait(lock, [&] { return busy.load(std::memory_order_acquire) == 0; });
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
    return std::clamp(int(std::thread::hardware_concurrency()), 1, threads_max);
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
    if (!lock.owns_lock()) {  // another thread's call has it: the items here, in order
        for (int i = 0; i < n; ++i)
            call(fn, i);
        return;
    }
    s.p.run(n, std::min(threads, threads_max), call, fn);
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
    std::thread thread;
};

background_job::background_job() = default;
background_job::background_job(const background_job& o) { o.stop(); }
background_job::background_job(background_job&& o) noexcept { o.stop(); }
background_job& background_job::operator=(const background_job& o) {
    stop();
    o.stop();
    return *this;
}
background_job& background_job::operator=(background_job&& o) noexcept {
    stop();
    o.stop();
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
    s->thread = std::thread([s, fn = std::move(fn)] {
        fn(s->stop);
        s->finished.store(true, std::memory_order_release);
    });
}

void background_job::stop() const {
    if (!state_)
        return;
    state_->stop.store(true, std::memory_order_relaxed);
    if (state_->thread.joinable())
        state_->thread.join();
    state_.reset();
}

bool background_job::finished() const { return state_ && state_->finished.load(std::memory_order_acquire); }

double background_job::seconds() const {
    return state_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - state_->started).count() : 0.0;
}

}  // namespace attn
