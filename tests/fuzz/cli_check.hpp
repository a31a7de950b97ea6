// The property the command-line fuzzer checks (tests/fuzz/fuzz_cli.cpp), shared
// with the corpus replay test (tests/core/test_cli_options.cpp), so every corpus
// file is checked the same way in the normal test suite, under ASan + UBSan and in
// wasm.
//
// The bytes are argv after "attn": split at each NUL byte (cli_fuzz_args). Then:
//   * cli_parse returns options or a message, never both, never neither;
//   * a message is terminal-safe and names what it is about: the argument it
//     points at (cli_parse_result::arg) appears in it, escaped;
//   * accepted options are in range (--row and --corrupt row:N held-out rows,
//     --every 1 … cli_every_max, --weights implies --json, a selection only with
//     --json, check with a link alone, eval's --tokenizer only with --model
//     and not empty) and written back as argv (cli_fuzz_write)
//     parse to the same options;
//   * every whole number given to --row or --corrupt row:N outside the held-out set
//     is refused by cli_parse and by circuits_report_compute, with a reason; inside
//     it, the core reads the row (circuits_read_row, circuits_corrupt_problem);
//   * for accepted circuits options, the core's checks after parsing on a tiny
//     model trained once (induction, or copy_offset when the link is a recipe of
//     another task): circuits_report_compute refuses a corruption that does not
//     apply (circuits_corrupt_problem), a swap the row cannot take
//     (circuits_corrupt_row) and a corrupted row that is the clean one, with that
//     reason; a corrupted row of another shape is refused by circuits_patching.
//     Where the report would compute, its pieces are checked instead (reading the
//     row, making the corrupted row): the whole report takes ~50 ms under the
//     fuzzer's instrumentation, and each input here stays well under 10 ms.
#pragma once

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "circuits/circuits_json.hpp"
#include "cli_options.hpp"
#include "play/link.hpp"
#include "spec/experiment.hpp"
#include "spec/keys.hpp"
#include "train/train.hpp"

namespace attn {

inline constexpr int cli_fuzz_max_args = 32;

// "attn", then input split at each NUL (at most cli_fuzz_max_args in all).
inline std::vector<std::string> cli_fuzz_args(std::string_view input) {
    std::vector<std::string> out{"attn"};
    while (int(out.size()) < cli_fuzz_max_args && !input.empty()) {
        const std::size_t end = input.find('\0');
        out.emplace_back(input.substr(0, end));
        input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
    }
    return out;
}

inline cli_parse_result cli_fuzz_parse(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());
    argv.push_back(nullptr);
    return cli_parse(int(args.size()), argv.data());
}

// o as the argv that says it (canonical: every option once, in one order).
inline std::vector<std::string> cli_fuzz_write(const cli_options& o) {
    static const char* names[] = {"eval", "check", "train", "circuits", "arch"};
    std::vector<std::string> a{"attn", names[int(o.command)]};
    if (o.command == cli_command::arch)
        return a;
    a.push_back(o.link);
    if (o.json && !(o.command == cli_command::circuits && o.weights))
        a.push_back("--json");
    for (const auto& [name, v] : {std::pair{"--stages", &o.stages},
                                  {"--layers", &o.layers},
                                  {"--heads", &o.heads},
                                  {"--model", &o.model},
                                  {"--tokenizer", &o.tokenizer}})
        if (*v)
            a.insert(a.end(), {name, **v});
    if (o.command == cli_command::train)
        a.insert(a.end(), {"--every", std::to_string(o.every)});
    if (o.model) {
        char t[32], p[32];
        if (o.temperature) {
            std::snprintf(t, sizeof t, "%.9g", double(*o.temperature));
            a.insert(a.end(), {"--temperature", t});
        }
        if (o.top_p) {
            std::snprintf(p, sizeof p, "%.9g", double(*o.top_p));
            a.insert(a.end(), {"--top-p", p});
        }
        if (o.seed)
            a.insert(a.end(), {"--seed", std::to_string(*o.seed)});
        if (o.generate > 0)
            a.insert(a.end(), {"--generate", std::to_string(o.generate)});
    }
    if (o.command != cli_command::circuits)
        return a;
    a.insert(a.end(), {"--row", std::to_string(o.row)});
    if (o.weights)
        a.push_back("--weights");
    const circuits_corrupt& c = o.corrupt;
    if (c.kind != circuits_corrupt::automatic)
        a.insert(a.end(), {"--corrupt", c.kind == circuits_corrupt::task   ? std::string("swap")
                                        : c.kind == circuits_corrupt::none ? std::string("none")
                                                                           : "row:" + std::to_string(c.row)});
    return a;
}

inline bool cli_fuzz_same(const cli_options& a, const cli_options& b) {
    return a.command == b.command && a.link == b.link && a.json == b.json && a.stages == b.stages && a.layers == b.layers &&
           a.heads == b.heads && a.every == b.every && a.row == b.row && a.corrupt.kind == b.corrupt.kind &&
           a.corrupt.row == b.corrupt.row && a.weights == b.weights && a.model == b.model && a.tokenizer == b.tokenizer &&
           a.generate == b.generate && a.temperature == b.temperature && a.top_p == b.top_p && a.seed == b.seed;
}

// A tiny recipe (as tests/core/test_util.hpp's tiny_recipe) trained a few steps,
// once per process, with the report its checks reuse.
struct cli_fuzz_model {
    train_run run;
    circuits_report report;
};
inline cli_fuzz_model& cli_fuzz_model_for(train_task task) {
    auto make = [](train_task t) {
        experiment e;
        e.text = "a b c";
        e.d_model = 16;
        e.heads = e.kv_heads = e.layers = 2;
        e.block = block_kind::attention_residual;
        e.pos = positional::rope;
        e.train.task = t;
        e.train.steps = 1;  // two snapshots: the timeline in the report runs the held-out set twice
        e.train.batch = 4;
        e.train.seq = 12;
        e.train.vocab = 10;
        cli_fuzz_model m{std::move(*train_init(e).run), {}};
        train_run_all(m.run);
        return m;
    };
    static cli_fuzz_model induction = make(train_task::induction), copy = make(train_task::copy_offset);
    return task == train_task::induction ? induction : copy;
}

// "" when every option check holds for accepted options o (argv a), else what broke.
inline std::string cli_fuzz_check_options(const cli_options& o, const std::vector<std::string>& a) {
    const int argc = int(a.size());
    if (o.command == cli_command::arch)
        return a[1] == "arch" ? "" : "arch accepted from another command";
    if (argc < 3 || o.link != a[2])
        return "the link is not argv[2]";
    if (o.row < 0 || o.row >= train_eval_rows)
        return "--row accepted outside the held-out set: " + std::to_string(o.row);
    if (o.corrupt.kind == circuits_corrupt::other_row && (o.corrupt.row < 0 || o.corrupt.row >= train_eval_rows))
        return "--corrupt row:N accepted outside the held-out set: " + std::to_string(o.corrupt.row);
    if (o.every < 1 || o.every > cli_every_max)
        return "--every accepted out of range: " + std::to_string(o.every);
    if (o.weights && !o.json)
        return "--weights without --json";
    if ((o.stages || o.layers || o.heads) && (!o.json || o.command != cli_command::eval))
        return "a selection accepted without eval --json";
    if ((o.model || o.tokenizer) && o.command != cli_command::eval)
        return "--model or --tokenizer accepted outside eval";
    if (o.tokenizer && !o.model)
        return "--tokenizer accepted without --model";
    if ((o.model && o.model->empty()) || (o.tokenizer && o.tokenizer->empty()))
        return "an empty file name accepted";
    if (o.generate < 0 || o.generate > cli_generate_max ||
        (o.temperature && !(*o.temperature >= 0.0f && *o.temperature <= 100.0f)) ||
        (o.top_p && !(*o.top_p >= 0.0f && *o.top_p <= 1.0f)))
        return "a generation setting accepted out of range";
    if (!o.model && (o.generate != 0 || o.temperature || o.top_p || o.seed))
        return "a generation setting accepted without --model";
    if (o.generate > 0 && o.json)
        return "--generate accepted with --json";
    if (o.command == cli_command::check && argc != 3)
        return "check accepted more than a link";
    const cli_parse_result again = cli_fuzz_parse(cli_fuzz_write(o));
    if (!again.value || !cli_fuzz_same(*again.value, o))
        return "the options written back as argv parse differently" + (again.value ? std::string() : ": " + again.error);
    return "";
}

// "" when cli_parse and the core agree on every whole number given as a row, else
// what broke. Out of range, circuits_report_compute itself must refuse it (it does
// before any computing: the input stays fast); in range, the row is read.
inline std::string cli_fuzz_check_rows(const std::vector<std::string>& a, const cli_parse_result& r) {
    cli_fuzz_model& m = cli_fuzz_model_for(train_task::induction);
    for (std::size_t i = 2; i + 1 < a.size(); ++i) {
        const bool row = a[i] == "--row", corrupt = a[i] == "--corrupt" && a[i + 1].rfind("row:", 0) == 0;
        long long n = 0;
        if (!(row || corrupt) || !parse_whole_number(std::string_view(a[i + 1]).substr(row ? 0 : 4), n) ||
            n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max())
            continue;
        const bool inside = n >= 0 && n < train_eval_rows;
        if (!inside && r.value && r.value->command == cli_command::circuits && i >= 3)
            return "cli_parse accepted a row outside the held-out set: " + std::to_string(n);
        std::string why;
        const circuits_corrupt c{circuits_corrupt::other_row, int(n)};
        if (inside &&
            (row ? !circuits_read_row(m.run, int(n), m.report.read, &why) : !circuits_corrupt_problem(m.run.e, c).empty()))
            return "the core refuses held-out row " + std::to_string(n) + ": " + why;
        if (inside)
            continue;
        const bool ok =
            row ? circuits_report_compute(m.run, int(n), m.report, &why) : circuits_report_compute(m.run, 0, m.report, &why, c);
        if (ok || why.empty() || (row && why.find("outside the held-out set") == std::string::npos))
            return "circuits_report_compute does not refuse row " + std::to_string(n) + " with a reason: " + why;
        if (!row && why != circuits_corrupt_problem(m.run.e, c))
            return "circuits_report_compute refuses --corrupt row:" + std::to_string(n) + " with another message: " + why;
    }
    return "";
}

// "" when the core's checks after parsing hold for accepted circuits options o, on
// the tiny model of the link's task. circuits_report_compute is called where it
// must refuse (it does so before the sweeps and the timeline: each input stays well
// under 10 ms); where it would compute, its setup is checked piece by piece.
inline std::string cli_fuzz_check_circuits(const cli_options& o) {
    const link_parse_result l = link_parse(o.link);
    const train_task task = l.value && l.value->train.task != train_task::none ? l.value->train.task : train_task::induction;
    if (l.value) {
        const std::string why = circuits_corrupt_problem(*l.value, o.corrupt);
        if (!why.empty() && why.find("--corrupt") == std::string::npos)
            return "circuits_corrupt_problem does not name --corrupt: " + why;
    }
    cli_fuzz_model& m = cli_fuzz_model_for(task == train_task::induction ? task : train_task::copy_offset);
    circuit_patching& p = m.report.patching;
    std::string error, setup;
    if (!circuits_read_row(m.run, o.row, m.report.read, &error))
        return "circuits_read_row refuses an accepted row: " + error;
    // Why the report would refuse: the corruption does not apply, the task's swap
    // cannot be made on this row, or the corrupted row is the clean one.
    std::string why = circuits_corrupt_problem(m.run.e, o.corrupt);
    const bool swap = o.corrupt.kind == circuits_corrupt::task || o.corrupt.kind == circuits_corrupt::automatic;
    const bool swapped = swap && circuits_corrupt_row(m.run, o.row, p.b_tokens, p.b_targets, p.b_counted, &setup);
    if (swap && !swapped && setup.empty())
        return "circuits_corrupt_row refused without saying why";
    if (swap && !swapped && task != train_task::induction && setup.find(train_task_name(m.run.e.train.task)) == std::string::npos)
        return "circuits_corrupt_row does not name the task it does not apply to: " + setup;
    if (why.empty() && o.corrupt.kind == circuits_corrupt::task && !swapped)
        why = setup;
    const bool same_row = o.corrupt.kind == circuits_corrupt::other_row && o.corrupt.row == o.row;
    if (!why.empty() || same_row) {
        const bool ok = circuits_report_compute(m.run, o.row, m.report, &error, o.corrupt);
        if (ok || error.empty() || (!why.empty() && error != why))
            return "circuits_report_compute does not refuse with the reason: " + (why.empty() ? "the same row" : why) +
                   " (it said: " + error + ")";
    }
    if (o.corrupt.kind != circuits_corrupt::other_row)
        return "";
    // The corrupted row one token short: rows of different shapes are refused (before any run).
    const std::size_t T = std::size_t(m.run.T), at = std::size_t(o.corrupt.row) * T;
    const auto span = [&](const auto& v, std::size_t n) { return std::vector(v.begin() + long(at), v.begin() + long(at + n)); };
    error.clear();
    if (circuits_patching(m.run, span(m.run.eval_tokens, T), span(m.run.eval_targets, T), span(m.run.eval_counted, T),
                          span(m.run.eval_tokens, T - 1), span(m.run.eval_targets, T - 1), span(m.run.eval_counted, T - 1), p,
                          &error) ||
        error.empty())
        return "circuits_patching accepted rows of different shapes";
    return "";
}

// "" when every property holds for these bytes, else what broke.
inline std::string cli_fuzz_check(std::string_view input) {
    const std::vector<std::string> a = cli_fuzz_args(input);
    const cli_parse_result r = cli_fuzz_parse(a);
    if (r.value.has_value() == !r.error.empty())
        return "cli_parse returned options and a message, or neither";
    if (!r.value) {
        if (cli_terminal_safe(r.error) != r.error)
            return "the message is not terminal-safe: " + cli_terminal_safe(r.error);
        if (r.arg >= int(a.size()) || (r.arg >= 0 && r.error.find(cli_terminal_safe(a[std::size_t(r.arg)])) == std::string::npos))
            return "the message does not name argument " + std::to_string(r.arg) + ": " + r.error;
    }
    if (r.value)
        if (std::string p = cli_fuzz_check_options(*r.value, a); !p.empty())
            return p;
    if (std::string p = cli_fuzz_check_rows(a, r); !p.empty())
        return p;
    if (r.value && r.value->command == cli_command::circuits)
        return cli_fuzz_check_circuits(*r.value);
    return "";
}

}  // namespace attn
