// libFuzzer target for Hugging Face folders' files: safetensors headers,
// config.json, the sharded index and tokenizer.json, through the property of
// tests/fuzz/hf_check.hpp (ASan aborts on any out-of-bounds read, leak or overflow
// on its own).
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz_hf -max_total_time=60 build/fuzz/hf tests/fuzz/hf_corpus
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "hf_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string problem = attn::hf_fuzz_check(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!problem.empty()) {
        std::fprintf(stderr, "fuzz_hf: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
