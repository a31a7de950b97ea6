// cli_options.hpp: argv to the command and its options, one function per command.
#include "cli_options.hpp"

#include <cstdio>
#include <cstdlib>

#include "base/text_util.hpp"
#include "base/threads.hpp"
#include "spec/experiment.hpp"
#include "train/train.hpp"

namespace attn {
namespace {

struct args {
    int argc;
    const char* const* argv;
    std::string_view at(int i) const { return argv[i] ? std::string_view(argv[i]) : std::string_view(); }
    // ", not '<argv[i]>'" (escaped), or "" past the end.
    std::string not_this(int i) const { return i < argc ? ", not '" + cli_terminal_safe(at(i)) + "'" : std::string(); }
};

cli_parse_result refuse(std::string error, int arg, bool usage) {
    cli_parse_result r;
    r.error = std::move(error);
    r.arg = arg;
    r.usage = usage;
    return r;
}

cli_parse_result unknown_option(const args& a, int i, const char* command) {
    return refuse(std::string(command) + " does not take '" + cli_terminal_safe(a.at(i)) + "'", i, true);
}

// A whole number in [lo, hi] from s, else nothing.
std::optional<int> whole_in(std::string_view s, long long lo, long long hi) {
    long long n = 0;
    if (!parse_whole_number(s, n) || n < lo || n > hi)
        return std::nullopt;
    return int(n);
}

// A number from s within [lo, hi] (finite), else nothing.
std::optional<float> number_in(std::string_view s, float lo, float hi) {
    const std::string t(s);
    char* end = nullptr;
    const float v = t.empty() ? 0.0f : std::strtof(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !(v >= lo && v <= hi))
        return std::nullopt;
    return v;
}

// --generate N, --temperature T, --top-p P or --seed S at argv[i] with its value
// at i + 1: nothing when it is good (o set), else the refusal.
std::optional<cli_parse_result> parse_generation(const args& a, int i, cli_options& o) {
    const std::string_view s = a.at(i), v = i + 1 < a.argc ? a.at(i + 1) : std::string_view();
    const bool has = i + 1 < a.argc;
    if (s == "--generate") {
        const std::optional<int> n = has ? whole_in(v, 1, cli_generate_max) : std::nullopt;
        if (!n)
            return refuse("--generate needs a number of tokens from 1 to " + std::to_string(cli_generate_max) + a.not_this(i + 1),
                          i, false);
        o.generate = *n;
    } else if (s == "--seed") {
        long long n = 0;
        if (!has || !parse_whole_number(v, n) || n < 0)
            return refuse("--seed needs a whole number from 0" + a.not_this(i + 1), i, false);
        o.seed = std::uint64_t(n);
    } else {
        const bool temp = s == "--temperature";
        const std::optional<float> x = has ? number_in(v, 0.0f, temp ? 100.0f : 1.0f) : std::nullopt;
        if (!x)
            return refuse(std::string(s) + (temp ? " needs a number from 0 (greedy) to 100" : " needs a number from 0 to 1") +
                              a.not_this(i + 1),
                          i, false);
        (temp ? o.temperature : o.top_p) = *x;
    }
    return std::nullopt;
}

// argv[3..] of `attn eval`: --json and the selection options (the selection only with --json).
cli_parse_result parse_eval(const args& a, cli_options& o) {
    int first_selection = -1;
    bool generation_given = false;
    for (int i = 3; i < a.argc; ++i) {
        const std::string_view s = a.at(i);
        const bool file = s == "--model" || s == "--tokenizer";
        std::optional<std::string>* opt = s == "--stages"      ? &o.stages
                                          : s == "--layers"    ? &o.layers
                                          : s == "--heads"     ? &o.heads
                                          : s == "--model"     ? &o.model
                                          : s == "--tokenizer" ? &o.tokenizer
                                                               : nullptr;
        if (s == "--json") {
            o.json = true;
        } else if (s == "--generate" || s == "--temperature" || s == "--top-p" || s == "--seed") {
            if (auto bad = parse_generation(a, i, o))
                return *bad;
            generation_given = true;
            ++i;
        } else if (opt && i + 1 < a.argc && !(file && a.at(i + 1).empty())) {
            *opt = std::string(a.at(++i));
            if (!file)
                first_selection = first_selection < 0 ? i - 1 : first_selection;
        } else if (opt) {
            return refuse(std::string(s) + " needs a value", i, true);
        } else {
            return unknown_option(a, i, "eval");
        }
    }
    if (!o.json && first_selection >= 0)
        return refuse(std::string(a.at(first_selection)) + " selects parts of the JSON: it needs --json", first_selection, true);
    if ((generation_given || o.generate > 0) && !o.model)
        return refuse("--generate, --temperature, --top-p and --seed sample from a model: they need --model FILE", -1, true);
    if (o.generate > 0 && o.json)
        return refuse("--generate prints text: it does not take --json", -1, true);
    // --model without --tokenizer names a Hugging Face folder (its tokenizer.json is in it); a
    // llama2.c file without one is refused when the file is opened (eval_model: this stays pure).
    if (o.tokenizer && !o.model)
        return refuse("--tokenizer reads the text for a model: it needs --model FILE", -1, true);
    return {o, "", -1, false};
}

// --threads N at argv[i]: sets o.threads and steps over N, or says why not.
std::optional<cli_parse_result> parse_threads(const args& a, int& i, cli_options& o) {
    const std::optional<int> n = i + 1 < a.argc ? whole_in(a.at(i + 1), 1, threads_max) : std::nullopt;
    if (!n)
        return refuse("--threads needs a whole number from 1 to " + std::to_string(threads_max) + a.not_this(i + 1), i, false);
    o.threads = *n;
    ++i;
    return std::nullopt;
}

// argv[3..] of `attn train`: --json, --every N, --threads N.
cli_parse_result parse_train(const args& a, cli_options& o) {
    for (int i = 3; i < a.argc; ++i) {
        if (a.at(i) == "--threads") {
            if (auto bad = parse_threads(a, i, o))
                return *bad;
        } else if (a.at(i) == "--json") {
            o.json = true;
        } else if (a.at(i) == "--every") {
            const std::optional<int> n = i + 1 < a.argc ? whole_in(a.at(i + 1), 1, cli_every_max) : std::nullopt;
            if (!n)
                return refuse("--every needs a whole number from 1 to " + std::to_string(cli_every_max) + a.not_this(i + 1), i,
                              true);
            o.every = *n;
            ++i;
        } else {
            return unknown_option(a, i, "train");
        }
    }
    return {o, "", -1, false};
}

// The value of --corrupt (argv[i], i possibly past the end): swap, row:N (a held-out row) or none.
std::optional<circuits_corrupt> parse_corrupt(const args& a, int i) {
    circuits_corrupt c;
    const std::string_view v = i < a.argc ? a.at(i) : std::string_view();
    if (i < a.argc && v == "swap")
        c.kind = circuits_corrupt::task;
    else if (i < a.argc && v == "none")
        c.kind = circuits_corrupt::none;
    else if (const auto n = i < a.argc && v.substr(0, 4) == "row:" ? whole_in(v.substr(4), 0, train_eval_rows - 1) : std::nullopt)
        c.kind = circuits_corrupt::other_row, c.row = *n;
    else
        return std::nullopt;
    return c;
}

// argv[3..] of `attn circuits`: --json, --row N, --corrupt …, --weights (implies --json), --threads N.
cli_parse_result parse_circuits(const args& a, cli_options& o) {
    const std::string last = std::to_string(train_eval_rows - 1);
    for (int i = 3; i < a.argc; ++i) {
        const std::string_view s = a.at(i);
        if (s == "--threads") {
            if (auto bad = parse_threads(a, i, o))
                return *bad;
        } else if (s == "--json") {
            o.json = true;
        } else if (s == "--weights") {
            o.json = o.weights = true;
        } else if (s == "--corrupt") {
            const std::optional<circuits_corrupt> c = parse_corrupt(a, i + 1);
            if (!c)
                return refuse("--corrupt needs swap, none or row:N with N a held-out row from 0 to " + last + a.not_this(i + 1),
                              i, false);
            o.corrupt = *c;
            ++i;
        } else if (s == "--row") {
            const std::optional<int> n = i + 1 < a.argc ? whole_in(a.at(i + 1), 0, train_eval_rows - 1) : std::nullopt;
            if (!n)
                return refuse("--row needs a held-out row, a whole number from 0 to " + last + a.not_this(i + 1), i, false);
            o.row = *n;
            ++i;
        } else {
            return unknown_option(a, i, "circuits");
        }
    }
    return {o, "", -1, false};
}

}  // namespace

cli_parse_result cli_parse(int argc, const char* const* argv) {
    const args a{argc, argv};
    const char* commands = " (eval, check, train, circuits or arch)";
    if (argc < 2)
        return refuse(std::string("a command is missing") + commands, -1, true);
    cli_options o;
    const std::string_view cmd = a.at(1);
    if (cmd == "arch") {
        o.command = cli_command::arch;
        return {o, "", -1, false};
    }
    o.command = cmd == "eval"    ? cli_command::eval
                : cmd == "check" ? cli_command::check
                : cmd == "train" ? cli_command::train
                                 : cli_command::circuits;
    if (cmd != "eval" && cmd != "check" && cmd != "train" && cmd != "circuits")
        return refuse("unknown command '" + cli_terminal_safe(cmd) + "'" + commands, 1, true);
    if (argc < 3)
        return refuse(std::string(cmd) + " needs a link", 1, true);
    o.link = std::string(a.at(2));
    switch (o.command) {
        case cli_command::check:
            if (argc > 3)
                return refuse("check takes a link alone, not '" + cli_terminal_safe(a.at(3)) + "'", 3, true);
            return {o, "", -1, false};
        case cli_command::train:
            return parse_train(a, o);
        case cli_command::circuits:
            return parse_circuits(a, o);
        default:
            return parse_eval(a, o);
    }
}

std::string cli_terminal_safe(std::string_view s) {
    std::string out;
    auto escape = [&out](unsigned char c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", c);
        out += buf;
    };
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7F) {
            escape(c);
            ++i;
            continue;
        }
        const std::size_t len = utf8_length(s, i);
        bool ok = len > 0;
        if (ok && len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0)
            ok = false;  // U+0080..U+009F: C1 controls (0x9B is a one-byte CSI)
        if (!ok) {
            escape(c);
            ++i;
            continue;
        }
        out.append(s.substr(i, len));
        i += len;
    }
    return out;
}

}  // namespace attn
