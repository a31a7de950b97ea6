// The command line's options (src/tools/cli_options.hpp): what attn accepts and the
// messages it refuses with, and the replay of the CLI fuzzer's corpus
// (tests/fuzz/cli_corpus) through the fuzzer's own property (tests/fuzz/cli_check.hpp).
#include <doctest/doctest.h>

#include "cli_check.hpp"
#include "test_util.hpp"

using namespace attn;

namespace {

cli_parse_result parse(std::vector<std::string> args) {
    args.insert(args.begin(), "attn");
    return cli_fuzz_parse(args);
}

}  // namespace

TEST_CASE("cli options: each command's options, and a refusal naming the option") {
    auto r = parse({"circuits", "v=1", "--row", "7", "--corrupt", "row:9", "--weights"});
    REQUIRE(r.value);
    CHECK(r.value->command == cli_command::circuits);
    CHECK((r.value->row == 7 && r.value->corrupt.kind == circuits_corrupt::other_row && r.value->corrupt.row == 9));
    CHECK((r.value->json && r.value->weights));
    r = parse({"train", "v=1", "--every", "10", "--json"});
    REQUIRE(r.value);
    CHECK((r.value->every == 10 && r.value->json));
    CHECK(r.value->threads == 0);  // every core
    r = parse({"circuits", "v=1", "--threads", "3"});
    REQUIRE(r.value);
    CHECK(r.value->threads == 3);
    r = parse({"eval", "v=1", "--json", "--heads", "0,3"});
    REQUIRE(r.value);
    CHECK(r.value->heads == std::optional<std::string>("0,3"));
    CHECK(parse({"arch"}).value);
    struct refusal {
        std::vector<std::string> args;
        std::string word;  // in the message
        bool usage;        // attn shows its usage text
    };
    for (const refusal& x : std::vector<refusal>{
             {{"circuits", "v=1", "--row", "128"}, "--row needs a held-out row, a whole number from 0 to 127, not '128'", false},
             {{"circuits", "v=1", "--row"}, "--row needs", false},
             {{"circuits", "v=1", "--corrupt", "row:-1"}, "--corrupt needs swap, none or row:N", false},
             {{"circuits", "v=1", "--corrupt", "\x1b[2J"}, "not '\\x1B[2J'", false},
             {{"circuits", "v=1", "--bogus"}, "circuits does not take '--bogus'", true},
             {{"train", "v=1", "--every", "0"}, "--every needs a whole number from 1 to 1000000, not '0'", true},
             {{"train", "v=1", "--threads", "0"}, "--threads needs a whole number from 1 to 64, not '0'", false},
             {{"train", "v=1", "--threads"}, "--threads needs", false},
             {{"eval", "v=1", "--threads", "2"}, "eval does not take '--threads'", true},
             {{"eval", "v=1", "--stages", "weights"}, "--stages selects parts of the JSON: it needs --json", true},
             {{"check", "v=1", "--json"}, "check takes a link alone", true},
             {{"frobnicate", "v=1"}, "unknown command 'frobnicate'", true},
             {{"eval"}, "eval needs a link", true},
             {{}, "a command is missing", true}}) {
        INFO(x.word);
        r = parse(x.args);
        REQUIRE_FALSE(r.value);
        CHECK(r.error.find(x.word) != std::string::npos);
        CHECK(r.usage == x.usage);
    }
}

#ifdef ATTN_CLI_CORPUS_DIR
TEST_CASE("cli options: the fuzz corpus (tests/fuzz/cli_corpus) replays cleanly") {
    test::replay_fuzz_corpus(ATTN_CLI_CORPUS_DIR, "accepted", cli_fuzz_check,
                             [](const std::string& input) { return cli_fuzz_parse(cli_fuzz_args(input)).value.has_value(); });
}
#endif
