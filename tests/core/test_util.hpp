// Helpers the core tests share.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/random.hpp"
#include "base/tokenize.hpp"
#include "kernels/kernels.hpp"
#include "spec/experiment.hpp"

namespace attn::test {

// Runs body once with each kernel set this CPU can run (kernels.hpp), then
// restores the one in use (also when a REQUIRE in body throws).
template <class Body>
void each_kernel_set(Body body) {
    struct restore {
        std::string initial = kernel_arch_name();
        ~restore() { kernel_use_arch(initial.c_str()); }
    } guard;
    for (int i = 0; i < kernel_arch_count(); ++i) {
        const std::string set = kernel_arch_at(i);
        REQUIRE(kernel_use_arch(set.c_str()));
        INFO("kernel set " << set);
        body();
    }
}

// A tiny recipe the trainer's tests share: two layers of two heads, d_model 16,
// RoPE, batches of 4 rows of 12 symbols out of 10; text is the task's symbols.
inline experiment tiny_recipe(train_task task, block_kind block, int steps, std::string text) {
    experiment e;
    e.text = std::move(text);
    e.d_model = 16;
    e.heads = 2;
    e.kv_heads = 2;
    e.layers = 2;
    e.block = block;
    e.pos = positional::rope;
    e.train.task = task;
    e.train.steps = steps;
    e.train.batch = 4;
    e.train.seq = 12;
    e.train.vocab = 10;
    return e;
}

// n unit-normal floats (times scale) from g.
inline std::vector<float> random_vector(rng& g, std::size_t n, float scale = 1.0f) {
    std::vector<float> v(n);
    for (float& x : v)
        x = g.normal() * scale;
    return v;
}

// A random valid experiment touching every field, with lists of up to `max_items` items.
inline experiment random_experiment(rng& g, int max_items) {
    const char* texts[] = {"猫追狗",
                           "a&b=c%d#e f",
                           "hello, world! how are you",
                           "x y",
                           "tab\tand\nnewline ü",
                           "the quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun",
                           "我们今天学习注意力机制 and the keys meet the queries"};
    auto pick = [&g](int n) { return int(g.next_u64() % std::uint64_t(n)); };
    experiment e;
    e.text = texts[pick(7)];
    const int n = int(tokenize(e.text).size());
    e.seed = std::uint32_t(g.next_u64());
    e.heads = 1 << pick(4);
    e.d_model = e.heads * (1 + pick(16));
    e.kv_heads = std::max(1, e.heads >> pick(3));
    e.layers = 1 + pick(experiment_limits::max_layers);
    e.block = pick(2) ? block_kind::full : block_kind::attention_only;
    e.weights = weight_init(pick(4));
    const bool two_heads = e.heads >= 2 && e.d_model / e.heads >= 2;
    if ((e.weights == weight_init::specialised && !two_heads) || (e.weights == weight_init::cancel && !two_heads) ||
        (e.weights == weight_init::sink && e.d_model < 3))
        e.weights = weight_init::random;
    if (e.weights == weight_init::cancel)
        e.kv_heads = e.heads;
    e.pos = positional(pick(3));
    e.rope_base = pick(2) ? 10000.0f : 2.0f + g.uniform() * 500.0f;
    e.pos_offset = pick(3) ? 0 : pick(5000);
    e.mask = mask_kind(pick(3));
    e.pad = e.mask == mask_kind::padding ? pick(n) : 0;
    for (int i = pick(max_items + 1); i > 0; --i)
        e.edges.push_back({pick(e.layers), pick(e.heads), pick(n), pick(n)});
    e.scale = score_scale(pick(3));
    if (e.scale == score_scale::custom)
        e.scale_value = (g.uniform() - 0.5f) * 8.0f;
    e.softmax = softmax_mode(pick(3));
    e.temperature = pick(2) ? 1.0f : 0.01f + g.uniform() * 10.0f;
    e.mask_at = pick(2) ? mask_placement::after_softmax : mask_placement::before_softmax;
    e.use_wo = pick(2);
    e.prec = precision(pick(3));
    for (int i = pick(std::min(max_items, 8) + 1); i > 0; --i)
        e.ablate.push_back({pick(e.layers), pick(e.heads)});
    e.decode = pick(n + 1);
    for (int i = pick(max_items + 1); i > 0; --i) {
        value_edit x;
        x.target = edit_target(pick(e.block == block_kind::full ? 7 : 5));
        x.layer = x.target == edit_target::x ? 0 : pick(e.layers);
        x.row = pick(x.target == edit_target::x ? n : e.d_model);
        const bool kv = x.target == edit_target::w_k || x.target == edit_target::w_v;
        x.col = pick(kv ? e.kv_heads * (e.d_model / e.heads) : e.d_model);
        x.value = pick(2) ? float(pick(41) - 20) * 0.25f : (g.uniform() - 0.5f) * 1000.0f;
        e.edits.push_back(x);
    }
    return e;
}

// Replays every file of a committed fuzz corpus (tests/fuzz/corpus, cli_corpus):
// the fuzzer's property `check` (its message, "" when it holds) on each file's bytes,
// and how many `valid` accepts (`what`: "valid links"...). The corpus must hold at
// least 10 files, 5 of them valid, so an emptied or misplaced folder fails.
template <class Check, class Valid>
void replay_fuzz_corpus(const char* folder, const std::string& what, Check check, Valid valid) {
    namespace fs = std::filesystem;
    const fs::path dir = folder;
    REQUIRE(fs::is_directory(dir));
    int files = 0, accepted = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file())
            continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        const std::string input = bytes.str();
        INFO(entry.path().filename().string());
        CHECK(check(input) == "");
        accepted += bool(valid(input));
        ++files;
    }
    MESSAGE("replayed " << files << " corpus files, " << accepted << " of them " << what);
    CHECK(files >= 10);
    CHECK(accepted >= 5);
}

}  // namespace attn::test
