// A trained run as bytes, for keeping it beyond the page (the browser's IndexedDB,
// web/runs.js) and opening it again without training it again.
//
//   std::vector<unsigned char> bytes = trainer_save(t);   // empty: t cannot be kept (why: trainer_save_problem)
//   trainer_load_result back = trainer_load(bytes);       // back.run, or back.error
//
// What is written is what training alone cannot give back cheaply: the recipe
// (its canonical text, trainer_store_key), the weights and AdamW moments at the
// run's step, every kept snapshot (grid and dense), the curve of every step
// taken, each snapshot's held-out measures and the current step's. Everything
// else (the batches, the held-out set, the layouts, the probe) follows from the
// recipe and is laid out again by train_init.
//
// The bytes are not trusted. A checksum (FNV-1a, the last 8 bytes) must match;
// every count and step is checked against the run the recipe makes before
// anything is read into it; then the run is checked against this build's own
// arithmetic: the step after its latest kept snapshot is taken again from that
// snapshot (its loss, accuracy, learning rate and gradient norm must be the same
// bits the file says), and the weights at the run's step must be the ones the
// kept snapshot before them trains to (at most a grid interval of steps). A file
// another build wrote (other kernels, other rounding), a truncated or altered
// one, is refused with a message, and the page trains the recipe instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "train/trainer.hpp"

namespace attn {

inline constexpr std::uint32_t trainer_file_version = 1;

// Why t cannot be written ("" when it can): it must be at its target with its
// measures taken (trainer_done), with no job out, and have taken a step.
std::string trainer_save_problem(const trainer& t);

// t's run as bytes; empty when trainer_save_problem(t) is not "".
std::vector<unsigned char> trainer_save(const trainer& t);

struct trainer_load_result {
    std::optional<trainer> run;  // at the step it was saved at, measured; set only when error is ""
    std::string key;             // trainer_store_key of its recipe, once that much was read
    std::string error;
};

// The run in `bytes` (trainer_save's), checked as above.
trainer_load_result trainer_load(const unsigned char* bytes, std::size_t size);
inline trainer_load_result trainer_load(const std::vector<unsigned char>& bytes) {
    return trainer_load(bytes.data(), bytes.size());
}

}  // namespace attn
