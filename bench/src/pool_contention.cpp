// The pool alone on short jobs: `attn_pool_contention THREADS WORK` times 3000
// jobs of two items (each WORK iterations of float arithmetic: 10000 is ~30 µs
// here, a generation step's product block) on THREADS threads and prints the
// microseconds a job. bench/contention.mjs's rows time the real paths; this one
// shows the hand-off itself, beside a busy loop on every core or not.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/threads.hpp"

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 1, work = argc > 2 ? std::atoi(argv[2]) : 10000, items = 2;
    std::vector<float> out(items);
    const auto job = [&] {
        attn::parallel_for(items, threads, [&](int i) {
            float s = 0;
            for (int k = 0; k < work; ++k)
                s += float(k % 7) * 0.5f;
            out[std::size_t(i)] = s;
        });
    };
    for (int j = 0; j < 200; ++j)  // the workers started and awake
        job();
    const int jobs = 3000;
    const auto t0 = std::chrono::steady_clock::now();
    for (int j = 0; j < jobs; ++j)
        job();
    std::printf("%.1f\n", std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / jobs);
    return out[0] == out[1] ? 0 : 1;
}
