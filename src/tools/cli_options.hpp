// The options of the `attn` command line (src/tools/attn.cpp), parsed without
// printing anything: one pure function from argv to the command and its options,
// or to a message naming what is wrong. attn.cpp prints and dispatches;
// tests/fuzz/fuzz_cli.cpp feeds it arbitrary argv (tests/fuzz/cli_check.hpp says
// what must hold).
//
// What is checked here is what needs no link or file: the command, the options each
// command takes and their values' ranges (--row and --corrupt row:N within the
// held-out set, --every within 1 … cli_every_max). The link itself, eval's
// selection against the experiment and whether a corruption applies to the
// recipe's task are checked after parsing (link_parse, trace_json_parse_*,
// circuits_corrupt_problem).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "circuits/circuits_json.hpp"

namespace attn {

enum class cli_command { eval, check, train, circuits, arch };

struct cli_options {
    cli_command command = cli_command::eval;
    std::string link;   // argv[2]; empty for arch
    bool json = false;  // --json (eval, train, circuits; circuits --weights sets it too)
    // eval --json's selection as given, checked against the experiment later (trace_json.hpp).
    std::optional<std::string> stages, layers, heads;
    int every = 50;            // train --every N: print every N-th step of the curve
    int threads = 0;           // train, circuits --threads N (1 … threads_max); 0: every core (threads_available)
    int row = 0;               // circuits --row N: the held-out row read
    circuits_corrupt corrupt;  // circuits --corrupt swap | none | row:N
    bool weights = false;      // circuits --weights: the trained weights in the JSON
    // eval --model FILE --tokenizer FILE: a llama2.c checkpoint and its
    // tokenizer.bin, the link's text run through them; eval --model DIR: a Hugging
    // Face folder, its tokenizer.json in it. The files are read (and checked) after
    // parsing, which also tells a file from a folder.
    std::optional<std::string> model, tokenizer;
    // eval --model … --generate N [--temperature T] [--top-p P] [--seed S]: N tokens
    // after the text through the KV cache (llama/generate.hpp), printed as text.
    // Not given: the link's view.temperature, view.top_p, view.gen_seed (as the
    // page's Continue reads them).
    int generate = 0;
    std::optional<float> temperature, top_p;
    std::optional<std::uint64_t> seed;
};

inline constexpr int cli_generate_max = 32768;

inline constexpr int cli_every_max = 1000000;

struct cli_parse_result {
    std::optional<cli_options> value;
    // Without a value: what is wrong, naming the option or command (terminal-safe:
    // what the person typed is escaped by cli_terminal_safe), and the argv index it
    // is about (−1 when an argument is missing: no command, no link).
    std::string error;
    int arg = -1;
    // attn prints its usage text for these (an unknown command or option, a missing
    // argument) and `error` itself for a bad value (--row, --corrupt).
    bool usage = false;
};

// argv[0] is the program; argv[1] the command, argv[2] the link, then the options.
cli_parse_result cli_parse(int argc, const char* const* argv);

// s made safe to print on a terminal: control characters (C0, DEL, C1) and bytes
// that are not valid UTF-8 (base/text_util.hpp's utf8_length) become \xNN, so a
// pasted link cannot move the cursor, change colours or retitle the window.
// Printable UTF-8 (猫, é) passes unchanged.
std::string cli_terminal_safe(std::string_view s);

}  // namespace attn
