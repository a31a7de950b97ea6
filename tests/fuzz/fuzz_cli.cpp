// libFuzzer target for the `attn` command line: splits the bytes into argv at each
// NUL, parses them (src/tools/cli_options.hpp) and, for accepted circuits options,
// runs the core's checks that follow on a tiny model trained once; aborts when a
// property of tests/fuzz/cli_check.hpp breaks (ASan aborts on any out-of-bounds
// read, leak or overflow on its own).
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz_cli -dict=tests/fuzz/cli.dict -max_total_time=60 build/fuzz/cli_corpus tests/fuzz/cli_corpus
//
// (tests/fuzz/README.md: merging new inputs into the committed corpus.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cli_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string problem = attn::cli_fuzz_check(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!problem.empty()) {
        std::fprintf(stderr, "fuzz_cli: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
