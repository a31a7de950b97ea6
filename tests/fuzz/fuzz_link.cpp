// libFuzzer target for links: feeds bytes to link_parse / link_decompress and
// aborts when a property of tests/fuzz/link_check.hpp breaks (ASan aborts on
// any out-of-bounds read, leak or overflow on its own).
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz_link -dict=tests/fuzz/link.dict -max_total_time=60 build/fuzz/corpus tests/fuzz/corpus
//
// (new inputs go to the first folder, build/fuzz/corpus; merge the interesting
// ones into tests/fuzz/corpus with -merge=1: tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "link_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string problem = attn::link_fuzz_check(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!problem.empty()) {
        std::fprintf(stderr, "fuzz_link: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
