// Work split across the cores: one pool of worker threads for the whole program.
//
// parallel_for(n, threads, fn) calls fn(0) … fn(n−1), each exactly once, on up to
// `threads` threads (the caller is one of them) and returns when all are done.
// Items run in any order on any thread, so an item must not depend on another
// and must write only its own memory: whoever calls decides the work of each item
// and reduces the items' results in a fixed order afterwards, which is what makes
// the bits the same for every thread count (train.cpp's row groups).
//
// On a busy machine (another program on every core) a helper may not run for
// milliseconds: the caller takes every item no helper has taken yet and waits
// only for those a helper is running, so a job costs at worst about what it
// costs on one thread, never a wait for a sleeping helper, and the items and
// their reduction stay the same whoever runs them.
//
// Where the build has no threads (wasm without pthreads) every call runs its items
// in order on the caller. A call from inside an item also runs inline, and so
// does a call made while another thread's call has the pool (a frame's traced
// pass while a background_job trains): it never waits behind that call (the
// other thread's next calls then run inline until this one is done).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

namespace attn {

// The threads this process may run on: on Linux the CPUs of its affinity mask
// (sched_getaffinity: taskset, a container's cpuset), elsewhere
// std::thread::hardware_concurrency; at least 1, and 1 where the build has no threads.
int threads_available();

// The largest thread count a caller may ask for (more is clamped).
inline constexpr int threads_max = 64;

// "" when n threads may be asked for here, else why not (0 or fewer, more than
// threads_max). Natively, more than threads_available() is allowed
// (oversubscribed) and says nothing: the bits do not depend on it. In the
// threaded wasm build a thread past the workers started with the page
// (PTHREAD_POOL_SIZE) cannot be made and aborts: the page starts one per core
// (at most 8), for the pool's n − 1 and a background_job (src/platform/main.cpp,
// web/app.js).
std::string threads_problem(int n);

// fn(item) for item in [0, n). fn is called through a pointer: nothing is
// allocated (a warm training step allocates nothing, tested).
void parallel_for_call(int n, int threads, void (*call)(void* fn, int item), void* fn);
template <class F>
void parallel_for(int n, int threads, F&& fn) {
    using f = std::remove_reference_t<F>;
    parallel_for_call(
        n, threads, [](void* p, int item) { (*static_cast<f*>(p))(item); }, const_cast<void*>(static_cast<const void*>(&fn)));
}

// For tests: while held, the pool's workers stop before they take part in a job
// (a helper the system has not run yet, or one that never comes); the callers
// then run every item themselves. Released, they go on.
void threads_hold_helpers(bool held);

// For tests: how long background_job::stop waits for fn and a caller for a
// helper's item (seconds; 5 unless set),
// and, while held, a background_job's thread stops before it runs fn (a worker
// that never starts, or one a browser ended).
void threads_set_patience(double seconds);
void threads_hold_jobs(bool held);

// Whether a worker of the pool stopped answering in the middle of an item (a
// browser may end one): a caller waits for a helper's item at most the
// patience (or 20 times its own longest item), then runs the items the helpers
// still hold itself, and every later call runs on its caller alone. A helper
// that was only slow (descheduled for longer than that) would write its item a
// second time, the same bits. The page says so (the app's notice).
bool threads_lost();
// For tests: after threads_lost, waits for the pool's workers to end (one stopped
// in an item, once that item returns) and makes the pool whole again.
void threads_mend();

// Whether work can run on a thread of its own beside the caller (background_job):
// false where the build has no threads.
bool threads_background();

// Starts the pool's workers a call on `threads` threads would use, now, on the
// caller's thread (nothing where they run or the build has none). In wasm only
// the page's thread may start them without waiting on itself: call this there
// before a background_job uses the pool.
void threads_start(int threads);

// Threads for a piece of work done again and again (a generated token's pass):
// the count asked, or one while one is faster. On a busy machine (another
// program on every core) a job's helpers wait for a core often enough that one
// thread beats two (bench/contention.mjs); on a quiet one the cores help. Every
// `cycle` pieces the first `probe` run on the count asked and the next `probe` on
// one thread, and the cycle's rest takes whichever had the lower median time.
// The bits are the same for any count, so the choice changes only the time.
//
//   const int n = thread_choice_next(c, threads);
//   work(n);
//   thread_choice_took(c, threads, seconds);
struct thread_choice {
    static constexpr int probe = 4, cycle = 64;
    int piece = 0;            // of the cycle
    bool one_faster = false;  // the last probes' verdict
    double many[probe] = {};  // the probes' seconds on the count asked
    double one[probe] = {};   // and on one thread
};
int thread_choice_next(const thread_choice& c, int threads);
void thread_choice_took(thread_choice& c, int threads, double seconds);

// One piece of work on a thread of its own, beside the caller (the page's
// training beside its drawing, trainer.hpp): start(fn) runs fn(stop) there, fn
// returning soon after `stop` turns true; stop() asks for that and waits. It may
// use the pool (parallel_for) like any caller. busy() from start until stop():
// what fn writes belongs to it until then. Copying gives an idle job; copying,
// moving, assigning or destroying a busy one stops it first, so an owner whose
// members fn writes declares its job before them (and stops it in its own
// destructor). Where the build has no threads start runs fn on the caller.
//
// stop() waits at most 5 seconds (threads_set_patience) for fn to return: a thread
// that does not answer by then is taken as gone (a browser may end a page's
// worker, and the page's thread must never wait on one for good). The job is
// then given up: lost() turns true and stays so, the thread keeps the job's
// state, and whatever fn writes stays its own for good (its owner must never
// touch it again: trainer::lost).
class background_job {
  public:
    background_job();
    background_job(const background_job& o);
    background_job(background_job&& o) noexcept;
    background_job& operator=(const background_job& o);
    background_job& operator=(background_job&& o) noexcept;
    ~background_job();

    void start(std::function<void(const std::atomic<bool>& stop)> fn);
    void stop() const;
    bool busy() const { return state_ != nullptr; }
    bool finished() const;   // busy, and fn has returned
    double seconds() const;  // since start (0 when idle)
    bool lost() const { return lost_; }

  private:
    struct state;
    mutable std::unique_ptr<state> state_;
    mutable bool lost_ = false;
};

}  // namespace attn
