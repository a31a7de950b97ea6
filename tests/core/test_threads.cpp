// The thread pool (base/threads) and what rests on it: training's weights are
// the same bits for every thread count.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "spec/experiment.hpp"
#include "train/train.hpp"

using namespace attn;

TEST_CASE("parallel_for: every item exactly once, for any thread count; a call inside an item runs inline") {
    for (int threads : {1, 2, 3, 8}) {
        for (int n : {0, 1, 7, 1000}) {
            std::vector<std::atomic<int>> seen(std::size_t(n > 0 ? n : 1));
            parallel_for(n, threads, [&seen](int i) { seen[std::size_t(i)].fetch_add(1); });
            for (int i = 0; i < n; ++i)
                CHECK(seen[std::size_t(i)].load() == 1);
        }
        std::atomic<int> inner{0};
        parallel_for(4, threads, [&inner, threads](int) { parallel_for(5, threads, [&inner](int) { inner.fetch_add(1); }); });
        CHECK(inner.load() == 20);
    }
    CHECK(threads_available() >= 1);
    CHECK(threads_problem(1).empty());
    CHECK(threads_problem(threads_max).empty());
    CHECK(threads_problem(0) == "threads must be at least 1, not 0");
    CHECK(threads_problem(threads_max + 1).find("at most") != std::string::npos);
}

namespace {

train_run run_of(const char* link) {
    const experiment_parse_result p = experiment_parse(link);
    REQUIRE(p.errors.empty());
    train_init_result init = train_init(*p.value);
    REQUIRE(init.run);
    return std::move(*init.run);
}

// batch=13: groups of one and two rows; batch=5: fewer rows than groups.
const char* const links[] = {
    "v=1&text=a%20b%20c&d_model=32&heads=4&layers=2&block=full&pos=rope&train=induction&seq=12&vocab=10&batch=13&steps=6",
    "v=1&text=a%20b%20c&d_model=16&heads=2&kv_heads=1&layers=2&block=attn_res&train=induction&seq=10&vocab=8&batch=5&steps=6",
};

}  // namespace

TEST_CASE(
    "training: the same bits with 1, 2, 3 and 8 threads, in whole steps or in pieces, and with the count changed mid-step") {
    for (const char* link : links) {
        INFO(link);
        train_run one = run_of(link);
        std::vector<std::string> hashes;
        while (train_step(one))
            hashes.push_back(train_weights_hash(one));
        REQUIRE(hashes.size() == 6);
        for (int threads : {2, 3, 8}) {
            INFO("threads " << threads);
            train_run r = run_of(link);
            r.threads = threads;
            for (const std::string& h : hashes) {
                REQUIRE(train_step(r));
                CHECK(train_weights_hash(r) == h);
            }
            CHECK(r.curve.back().loss == one.curve.back().loss);
            CHECK(r.curve.back().grad_norm == one.curve.back().grad_norm);
        }
        train_run mixed = run_of(link);  // a step begun a piece at a time on one thread, finished on three
        for (int i = 0; i < 4; ++i)
            REQUIRE(train_step_piece(mixed) == train_piece::partial);
        mixed.threads = 3;
        REQUIRE(train_step(mixed));
        CHECK(train_weights_hash(mixed) == hashes[0]);
    }
}
