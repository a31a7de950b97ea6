// A training run as part of the experiment's text form: the recipe keys.
//
// An experiment with train=none (the default) is an ordinary experiment and its
// text form has none of these keys, so every link written before training
// existed reads and writes byte for byte as it did. With a task, the keys below
// follow `edits` in this order, every one written:
//
//   train=induction&steps=800&lr=0.01&batch=32&seq=24&vocab=16&train_seed=1
//   &warmup=50&wd=0.01&clip=1&sched=const&offset=3
//
// and `&trained=N` last when the model shown has taken N < steps steps (omitted
// when it has taken them all).
//
// The model is the experiment's (d_model, heads, kv_heads, layers, block, pos,
// rope_base, pos_offset, mask, scale, temp, wo, seed for the initial weights) plus
// a token-embedding table over the task's vocabulary, learned positions when
// pos=learned, and an unembedding to logits. Training computes in fp32 with the
// stable softmax and the mask before it; the keys that only change how a model
// is looked at (ablate, edges, edits, softmax, mask_at, precision, decode) act
// on the trained model when it is traced, never during training.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

enum class train_task { none, induction, copy_offset, reverse, sort, previous };
enum class lr_schedule { constant, cosine };

// Documented limits, checked before any allocation.
struct train_limits {
    static constexpr int max_steps = 20000;  // a run the page can scrub through
    static constexpr int max_batch = 256;
    static constexpr int min_seq = 4, max_seq = 128;
    static constexpr int min_vocab = 4, max_vocab = 62;  // symbols a–z, A–Z, 0–9
    static constexpr int max_snapshots = 64;             // kept weights (see train.hpp)
    static constexpr float max_lr = 10.0f;
};

struct train_settings {
    train_task task = train_task::none;
    int steps = 800;
    float lr = 0.01f;
    int batch = 32;
    int seq = 24;
    int vocab = 16;
    std::uint32_t train_seed = 1;  // batches and the held-out set (the weights come from `seed`)
    int warmup = 50;               // steps of linear learning-rate warm-up
    float wd = 0.01f;              // AdamW's decoupled weight decay
    float clip = 1.0f;             // global gradient-norm clip; 0 turns it off
    lr_schedule sched = lr_schedule::constant;
    int offset = 3;  // copy_offset: the target is the token `offset` back
    // How far the model shown is trained: steps taken, 0 … steps; trained_all (the
    // default, not written) is all of them. Not part of the run: changing it moves
    // along the same run (the Train panel's Pause, Step, Reset and scrubber).
    int trained = trained_all;
    static constexpr int trained_all = -1;

    // The steps the model shown has taken.
    int trained_steps() const { return trained == trained_all ? steps : trained; }
    // These settings with `trained` at its default: what identifies the run.
    train_settings run_identity() const {
        train_settings r = *this;
        r.trained = trained_all;
        return r;
    }

    bool operator==(const train_settings&) const = default;
};

// The recipes the lessons train, asserted in tests/core/test_train_learning.cpp and
// measured in docs/training.md: two attention layers of four heads with a
// residual stream (block=attn_res), RoPE, d_model 48; the text is task symbols, so
// the trained model traces on it.
//   induction    held-out accuracy ≥ 0.9 on the repeats; a layer-1 induction head,
//                a layer-0 previous-token head whose zeroing breaks the task
//   copy_offset  the same model on the positional shortcut: solved, no induction head
// One string each: tests/web/train.test.mjs reads the induction recipe from this file.
// clang-format off
inline constexpr const char* recipe_lesson_induction =
    "v=1&text=j%20a%20b%20c%20d%20e%20f%20g%20c%20d%20e%20f%20g&d_model=48&heads=4&layers=2&block=attn_res&pos=rope&train=induction&steps=1500";
inline constexpr const char* recipe_lesson_copy_offset =
    "v=1&text=j%20a%20b%20c%20d%20e%20f%20g%20c%20d%20e%20f%20g&d_model=48&heads=4&layers=2&block=attn_res&pos=rope&train=copy_offset&steps=300";
// clang-format on

const char* train_task_name(train_task t);

// "&train=…&steps=…" in the canonical order, or "" when t.task is none.
std::string recipe_to_text(const train_settings& t);

// If key is a recipe key: parses value into t, sets problem to "" or what is
// wrong with it (e.g. "must be between 1 and 20000, not 0"), and returns true.
bool recipe_parse_key(const std::string& key, const std::string& value, train_settings& t, std::string& problem);

// The recipe once a link's keys are all read (`given`: its recipe keys and values,
// in order; t: the settings they were parsed into over the base's). Without a task
// (train=none, or none in the base) the base's recipe is dropped and only the
// link's own keys remain (recipe_validate refuses them then), whatever their
// order; trained equal to steps is the whole run (trained_all): one canonical text.
train_settings recipe_after_keys(const train_settings& t, const std::vector<std::pair<std::string, std::string>>& given);

// The problems of a recipe's own numbers (ranges, trained <= steps, the task's
// needs); recipe_validate (experiment.hpp) adds what it asks of the experiment.
std::vector<std::string> recipe_problems(const train_settings& t);

}  // namespace attn
