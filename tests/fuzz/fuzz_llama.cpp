// libFuzzer target for llama2.c's files: checkpoints and tokenizer.bin, through
// the property of tests/fuzz/llama_check.hpp (ASan aborts on any out-of-bounds
// read, leak or overflow on its own).
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz_llama -max_total_time=60 build/fuzz/llama tests/fuzz/llama_corpus
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "llama_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string problem = attn::llama_fuzz_check(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!problem.empty()) {
        std::fprintf(stderr, "fuzz_llama: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
