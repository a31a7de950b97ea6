// The thread pool (base/threads) and what rests on it: training's weights are
// the same bits for every thread count.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "llama/checkpoint.hpp"
#include "llama/generate.hpp"
#include "llama_test_files.hpp"
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
        for (int threads : {2, 3}) {  // in pieces (the page's trainer): a few groups side by side, a few pieces each
            train_run r = run_of(link);
            r.threads = threads;
            r.threaded_pieces = 3;
            for (const std::string& h : hashes) {
                int pieces = 0;
                train_piece p = train_piece::partial;
                while (p == train_piece::partial) {
                    p = train_step_piece(r);
                    ++pieces;
                }
                REQUIRE(p == train_piece::step);
                CHECK(pieces > 3);
                CHECK(train_weights_hash(r) == h);
            }
        }
        train_run mixed = run_of(link);  // a step begun a piece at a time on one thread, finished on three
        for (int i = 0; i < 4; ++i)
            REQUIRE(train_step_piece(mixed) == train_piece::partial);
        mixed.threads = 3;
        REQUIRE(train_step(mixed));
        CHECK(train_weights_hash(mixed) == hashes[0]);
    }
}

TEST_CASE("generation through the KV cache: the same logits, bits and tokens on 1, 2 and 3 threads") {
    // Rows past one block of 64 and not a multiple of any SIMD width (hidden 200,
    // vocab 301), GQA: every product split, every head in parallel.
    const test::llama_bytes b = test::llama_test_checkpoint(test::llama_test_config(96, 200, 2, 6, 2, 301, 32, false), 5);
    llama_model m;
    std::string why;
    REQUIRE_MESSAGE(llama_checkpoint_read(b.data(), b.size(), m, &why), why);
    llama_decoder one(m), two(m), three(m);
    two.threads = 2;
    three.threads = 3;
    for (int token : {1, 17, 250, 3, 300, 42}) {
        const float* a = one.step(token);
        const std::vector<float> want(a, a + 301);
        for (llama_decoder* d : {&two, &three}) {
            const float* z = d->step(token);
            CHECK(std::vector<float>(z, z + 301) == want);
            CHECK(d->attention == one.attention);
        }
    }
    const llama_sampling s{0.9f, 0.9f, 7};
    const std::vector<int> tokens = llama_generate(m, {1, 5, 9}, 20, s);
    CHECK(llama_generate(m, {1, 5, 9}, 20, s, 3) == tokens);
}
