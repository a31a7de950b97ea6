// A training run as part of the experiment's text form: the recipe keys.
//
// An experiment with train=none (the default) is an ordinary experiment and its
// text form has none of these keys, so every link written before training
// existed reads and writes byte for byte as it did. With a task, the keys below
// follow `edits` in this order, every one written:
//
//   train=induction&steps=800&lr=0.01&batch=32&seq=24&vocab=16&train_seed=1
//   &warmup=50&wd=0.01&clip=1&sched=const&offset=3&markov_alpha=1
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

#include "spec/values.hpp"

namespace attn {

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
// markov (docs/circuits.md, "The markov task"): two layers of four heads, d_model 32,
// RoPE, rows of 48 tokens over 4 symbols, each row's chain drawn from Dirichlet(0.5),
// batches of 16, 400 steps, asserted in tests/core/test_markov.cpp. Measured (59
// snapshots): nearest the uniform predictor at steps 0-7, the unigram at 14-112, the
// bigram from 119 on; at the end KL(predictor ‖ model) 0.050 to the bigram, 0.206 to
// the unigram, 0.290 to the uniform. Training takes 0.60-0.65 s natively (1.0-1.1 s
// on a loaded machine) and 1.43-1.51 s in wasm under Node: one core, measured by the test.
inline constexpr const char* recipe_markov =
    "v=1&text=a%20b%20a%20c%20a%20b%20d%20a&d_model=32&heads=4&layers=2&block=attn_res&pos=rope&train=markov&steps=400"
    "&batch=16&seq=48&vocab=4&markov_alpha=0.5";
// clang-format on

// The tasks a recipe trains, as a message lists them: "induction, copy_offset, ... or previous"
// (train_task_name: keys.hpp).
std::string train_task_list();

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
