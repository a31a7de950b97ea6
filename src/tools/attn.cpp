// attn: the core from the command line, for scripts, blog figures and tests.
//
//   attn eval '<link>' [--json]   run it; print the trace (JSON) or a summary
//        [--stages a,b] [--layers 0,1] [--heads 0,3]
//                                            only those parts of the JSON (trace_json.hpp);
//                                            the JSON is streamed, and heads whose (n, n)
//                                            matrices are not printed are not kept
//   attn train '<link>' [--json] [--every N] [--threads N]
//                                 train a recipe; print the curve, head scores, ablation table.
//                                 Training uses every core unless --threads says; the weights
//                                 are the same bits for any count (train.hpp)
//   attn eval '<link>' --model FILE --tokenizer FILE [--json …]
//        [--generate N [--temperature T] [--top-p P] [--seed S]]
//   attn eval '<link>' --model DIR [--json …] [--generate N …]
//                                 the link's text through a llama2.c checkpoint (eval_model.hpp),
//                                 or a Hugging Face folder (its config.json, tokenizer.json and
//                                 safetensors files: llama/hf_folder.hpp),
//                                 or N tokens generated after it through the KV cache (sampled
//                                 as the link's view.temperature, view.top_p, view.gen_seed say
//                                 unless the options say otherwise: the page's Continue)
//   attn check '<link>'           report every problem; exit 1 if any
//   attn circuits '<recipe>' [--json] [--row N] [--corrupt swap|row:N|none] [--weights] [--threads N]
//                                 train the recipe to its named step and read held-out row N
//                                 (default 0) through it: predictions, logit attribution, logit
//                                 lens, path expansion, composition, weight-only circuits,
//                                 activation patching against a corrupted row (default: the
//                                 task's corruption, induction's swap), the run's snapshots over
//                                 training (docs/circuits.md names the JSON's keys); --weights:
//                                 the JSON also holds the trained weights ("model"), for a peer
// A link is anything the page opens: the experiment's text form, its z= form,
// view.* keys, a whole playground URL (src/core/play/link.hpp).
//   attn arch                                the SIMD architecture of the kernels
//
// `attn eval` of a recipe (an experiment with train=<task>) trains it first and
// prints the trace of the trained model on the experiment's text when its tokens
// are the task's symbols, else on the first held-out row.
//
// A recipe's model is the one its link names: trained to `trained=` when the link
// says so (the rest of the run's schedule still follows `steps`), else to `steps`.
//
// Exit codes: 0 ok, 1 invalid experiment (or a training run that stopped on a NaN
// loss, or a trace too large to print), 2 bad usage, 3 the output could not be
// written (a full disk, a closed pipe): nothing printed is trusted then.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "base/text_util.hpp"
#include "base/threads.hpp"
#include "base/tokenize.hpp"
#include "circuits/circuits_json.hpp"
#include "cli_options.hpp"
#include "eval_model.hpp"
#include "kernels/kernels.hpp"
#include "model/forward.hpp"
#include "model/trace_json.hpp"
#include "play/link.hpp"
#include "play/session.hpp"
#include "spec/experiment.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: attn eval '<link>' [--json [--stages a,b] [--layers 0,1] [--heads 0,3]]\n"
                 "       attn eval '<link>' --model FILE.bin --tokenizer tokenizer.bin [--json ...]\n"
                 "       attn eval '<link>' --model DIR [--json ...]   (a Hugging Face folder: config.json, tokenizer.json,\n"
                 "                  model.safetensors or model.safetensors.index.json and its shards)\n"
                 "                  [--generate N [--temperature T] [--top-p P] [--seed S]]\n"
                 "       attn check '<link>'\n"
                 "       attn train '<link>' [--json] [--every N] [--threads N]\n"
                 "       attn circuits '<recipe>' [--json] [--row N] [--corrupt swap|row:N|none] [--weights] [--threads N]\n"
                 "       attn arch\n"
                 "example: attn eval 'v=1&text=the%%20cat%%20sat&heads=2' --json\n");
    return 2;
}

// A number for JSON: NaN and ±inf have no JSON form and are written as null.
std::string json_number(double x, const char* format = "%.9g") {
    if (!std::isfinite(x))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

// Reads what the page reads: any link (the text form, its z= form, view.* keys,
// a whole playground URL; a lesson's link starts from the lesson's experiment).
// The view keys are checked and otherwise ignored here.
// The link's experiment into out; false with its problems on stderr. `as_page`:
// also what the page would refuse (session_state_problems: a recipe's text, the
// pinned A, the page's memory for both), so `attn check` says what the page does.
bool parse_link_or_report(const char* link, attn::experiment& out, bool as_page = false, attn::link_view* view = nullptr) {
    auto r = attn::link_parse(link);
    if (r.value && as_page)
        r.errors = attn::session_state_problems({*r.value, r.pin});
    if (!r.value || !r.errors.empty()) {
        for (const auto& e : r.errors)
            std::fprintf(stderr, "attn: %s\n", attn::cli_terminal_safe(e).c_str());
        return false;
    }
    out = *r.value;
    if (view)
        *view = r.view;
    return true;
}

// The selection of `attn eval --json`, checked against e; false after reporting a problem.
bool make_selection(const attn::cli_options& a, const attn::experiment& e, attn::trace_json_select& sel) {
    std::optional<std::string> err;
    if (a.stages)
        err = attn::trace_json_parse_stages(*a.stages, sel.stages);
    if (!err && a.layers)
        err = attn::trace_json_parse_indices(*a.layers, e.layers, sel.layers);
    if (!err && a.heads)
        err = attn::trace_json_parse_indices(*a.heads, e.heads, sel.heads);
    if (err)
        std::fprintf(stderr, "attn: %s\n", err->c_str());
    return !err;
}

// Runs e keeping only what sel prints, and streams the JSON to stdout.
int eval_json(const attn::experiment& e, const attn::trace_json_select& sel) {
    const attn::trace t = attn::forward(e, sel.options());
    attn::trace_write_json(e, t, sel, [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); });
    std::fputc('\n', stdout);
    return 0;
}

// The curve, the held-out result and the head table of a finished run as JSON.
void print_train_json(const attn::train_run& run, const attn::train_diagnostics& diag, int every) {
    std::printf("{\"steps\":[");
    bool first = true;
    for (const auto& p : run.curve)
        if (p.step % every == 0 || p.step + 1 == int(run.curve.size())) {
            std::printf("%s{\"step\":%d,\"loss\":%s,\"acc\":%s}", first ? "" : ",", p.step, json_number(p.loss).c_str(),
                        json_number(p.acc).c_str());
            first = false;
        }
    std::printf("],\"trained\":%d,\"eval\":{\"loss\":%s,\"acc\":%s},\"heads\":[", run.step, json_number(diag.base.loss).c_str(),
                json_number(diag.base.acc).c_str());
    for (std::size_t i = 0; i < diag.heads.size(); ++i) {
        const auto& h = diag.heads[i];
        const auto n = [](float x) { return json_number(x, "%.6g"); };
        std::printf(
            "%s{\"layer\":%d,\"head\":%d,\"prev\":%s,\"induction\":%s,\"offset\":%s,\"sink\":%s,"
            "\"entropy\":%s,\"ablate_loss\":%s,\"ablate_acc\":%s,\"mean_loss\":%s,\"mean_acc\":%s}",
            i ? "," : "", h.layer, h.head, n(h.prev).c_str(), n(h.induction).c_str(), n(h.offset).c_str(), n(h.sink).c_str(),
            n(h.entropy).c_str(), n(h.ablate_loss).c_str(), n(h.ablate_acc).c_str(), n(h.mean_loss).c_str(),
            n(h.mean_acc).c_str());
    }
    std::printf("],\"weights_hash\":\"%s\",\"error\":%s}\n", attn::train_weights_hash(run).c_str(),
                attn::json_string(run.error).c_str());
}

// A number for a table: NaN and ±inf as what they are, never printf's "-nan".
std::string text_number(double x, const char* format) { return attn::number_text(x, format, {"NaN", "+inf", "-inf"}); }

// The same as a table.
void print_train_text(const attn::experiment& e, const attn::train_run& run, const attn::train_diagnostics& diag, int every) {
    std::printf("recipe %s\nstep      loss     acc\n", attn::experiment_to_text(e).c_str());
    for (const auto& p : run.curve)
        if (p.step % every == 0 || p.step + 1 == int(run.curve.size()))
            std::printf("%5d  %8.4f  %6.3f\n", p.step, double(p.loss), double(p.acc));
    std::printf("trained %d of %d steps\n", run.step, e.train.steps);
    std::printf("held-out: loss %s, accuracy %s (%d rows)\n", text_number(diag.base.loss, "%.4f").c_str(),
                text_number(diag.base.acc, "%.3f").c_str(), attn::train_eval_rows);
    std::printf("layer head   prev  induct offset   sink entropy | zeroed: loss   acc | mean: loss   acc\n");
    const auto n = [](float x, const char* format) { return text_number(x, format); };
    for (const auto& h : diag.heads)
        std::printf("%5d %4d  %5s  %5s  %5s  %5s  %6s |   %8s %5s | %9s %5s\n", h.layer, h.head, n(h.prev, "%.3f").c_str(),
                    n(h.induction, "%.3f").c_str(), n(h.offset, "%.3f").c_str(), n(h.sink, "%.3f").c_str(),
                    n(h.entropy, "%.3f").c_str(), n(h.ablate_loss, "%.4f").c_str(), n(h.ablate_acc, "%.3f").c_str(),
                    n(h.mean_loss, "%.4f").c_str(), n(h.mean_acc, "%.3f").c_str());
    std::printf("weights_hash %s\n", attn::train_weights_hash(run).c_str());
}

// The threads training uses: --threads N, else every core.
int train_threads = 1;

// e's recipe set up to train (train_init) on train_threads threads, or nothing after printing why not.
std::optional<attn::train_run> init_or_report(const attn::experiment& e) {
    auto init = attn::train_init(e);
    for (const auto& m : init.errors)
        std::fprintf(stderr, "attn: %s\n", m.c_str());
    if (init.run)
        init.run->threads = train_threads;
    return std::move(init.run);
}

// Trains e's recipe to the step its link names; prints the curve every `every`
// steps, the held-out result, the head scores and the ablation table (as JSON with --json).
int train_command(const attn::experiment& e, bool json, int every) {
    auto trained = init_or_report(e);
    if (!trained)
        return 1;
    attn::train_run& run = *trained;
    attn::train_run_named(run);
    const attn::train_diagnostics diag = attn::train_diagnose(run);
    if (json)
        print_train_json(run, diag, every);
    else
        print_train_text(e, run, diag, every);
    if (!run.error.empty()) {
        std::fprintf(stderr, "attn: %s\n", run.error.c_str());
        return 1;
    }
    return 0;
}

// The trace of a trained recipe at the step its link names: on e's text when it is
// made of task symbols, else on the first held-out row. With --json, only what the
// selection asks for, streamed (as eval_json).
int eval_trained(const attn::experiment& e, const attn::cli_options& args) {
    attn::trace_json_select sel;
    if (args.json && !make_selection(args, e, sel))
        return 1;
    auto run = init_or_report(e);
    if (!run)
        return 1;
    attn::train_run_named(*run);
    if (!run->error.empty()) {
        std::fprintf(stderr, "attn: %s\n", run->error.c_str());
        return 1;
    }
    std::vector<std::string> tokens = attn::tokenize(e.text);
    std::string problem;
    auto w = attn::train_weights_for(*run, tokens, &problem);
    if (!w) {
        tokens.clear();
        for (int t = 0; t < run->T; ++t)
            tokens.push_back(attn::task_symbol(run->eval_tokens[std::size_t(t)]));
        w = attn::train_weights_for(*run, tokens, &problem);
    }
    attn::experiment traced = e;
    traced.text.clear();
    for (const auto& t : tokens)
        traced.text += (traced.text.empty() ? "" : " ") + t;
    if (args.json) {
        const attn::trace t = attn::forward_with(traced, tokens, *w, sel.options());
        attn::trace_write_json(traced, t, sel, [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); });
        std::fputc('\n', stdout);
    } else {
        std::printf("trained %d steps, weights_hash %s; traced on: %s\n", run->step, attn::train_weights_hash(*run).c_str(),
                    traced.text.c_str());
    }
    return 0;
}

// The patching lines of the summary: the logit differences and each path's recovery.
void print_patching_text(const attn::circuits_report& r) {
    const attn::circuit_patching& p = r.patching;
    if (!r.patching_problem.empty()) {
        std::printf("  patching: %s\n", r.patching_problem.c_str());
        return;
    }
    std::printf("  patching (%s): logit difference clean %.3f, corrupted %.3f over %zu positions\n", p.corruption.c_str(),
                p.ld_clean, p.ld_corrupt, p.positions.size());
    for (const auto& x : p.paths)
        std::printf("  path L%dH%d -> L%dH%d recovers: Q %.3f K %.3f V %.3f\n", x.layer_a, x.head_a, x.layer_b, x.head_b,
                    double(x.q), double(x.k), double(x.v));
    std::printf("  every path at once recovers: Q %.3f K %.3f V %.3f\n", double(p.paths_all.q), double(p.paths_all.k),
                double(p.paths_all.v));
}

// The summary of `attn circuits` without --json.
void print_circuits_text(const attn::train_run& run, const attn::circuits_report& r) {
    const attn::circuit_read& c = r.read;
    std::printf("trained %d steps; held-out row %d\n", run.step, r.row);
    for (int t = 0; t < c.T; ++t) {
        if (!c.counted[std::size_t(t)])
            continue;
        std::printf("  pos %2d: %s -> target %s, p %.3f, rank %d, top %s\n", t,
                    attn::task_symbol(c.tokens[std::size_t(t)]).c_str(), attn::task_symbol(c.targets[std::size_t(t)]).c_str(),
                    double(c.target_prob[std::size_t(t)]), c.target_rank[std::size_t(t)],
                    attn::task_symbol(c.top[std::size_t(t * c.top_k)]).c_str());
    }
    for (const auto& p : r.composition.pairs)
        std::printf("  L%dH%d -> L%dH%d: Q %.3f K %.3f V %.3f\n", p.layer_a, p.head_a, p.layer_b, p.head_b, double(p.q),
                    double(p.k), double(p.v));
    std::printf("  random baseline (%d samples): Q %.3f ± %.3f, K %.3f ± %.3f, V %.3f ± %.3f\n", r.composition.samples,
                double(r.composition.q.mean), double(r.composition.q.spread), double(r.composition.k.mean),
                double(r.composition.k.spread), double(r.composition.v.mean), double(r.composition.v.spread));
    for (const auto& h : r.weights.heads)
        std::printf("  L%dH%d: OV top-1 %.3f, copying %.3f\n", h.layer, h.head, double(h.ov_top1), double(h.copying));
    print_patching_text(r);
    const attn::circuit_timeline& t = r.timeline;
    if (t.S == 0)
        return;
    std::printf("  over %d snapshots: held-out loss %.3f -> %.3f", t.S, double(t.loss.front()), double(t.loss.back()));
    if (t.icl_problem.empty())
        std::printf(", ICL score %.3f -> %.3f", double(t.icl.front()), double(t.icl.back()));
    if (t.prev_layer >= 0)
        std::printf(", K-composition %.3f -> %.3f", double(t.prev_ind_k.front()), double(t.prev_ind_k.back()));
    std::printf("\n");
    if (t.markov_problem.empty())
        std::printf(
            "  KL to the in-context predictors, first -> last snapshot: uniform %.3f -> %.3f, unigram %.3f -> %.3f, "
            "bigram %.3f -> %.3f\n",
            double(t.kl_uniform.front()), double(t.kl_uniform.back()), double(t.kl_unigram.front()), double(t.kl_unigram.back()),
            double(t.kl_bigram.front()), double(t.kl_bigram.back()));
}

// `attn circuits`: the recipe trained to its named step, held-out row `row` read
// through it. Without --json a summary: the row's predictions, the largest
// parts of the answer's logit, the composition above its baseline.
int circuits_command(const attn::experiment& e, bool json, int row, attn::circuits_corrupt corrupt, bool weights) {
    if (e.train.task == attn::train_task::none) {
        std::fprintf(stderr, "attn: circuits reads a trained model: the link needs a recipe (train=<task>)\n");
        return 1;
    }
    if (const std::string why = attn::circuits_corrupt_problem(e, corrupt); !why.empty()) {  // before training
        std::fprintf(stderr, "attn: %s\n", why.c_str());
        return 1;
    }
    auto trained = init_or_report(e);  // --row was checked with the options, before this
    if (!trained)
        return 1;
    attn::train_run& run = *trained;
    attn::train_run_named(run);
    if (!run.error.empty()) {  // a diverged run has no circuit: with --json, the error as train --json gives it
        if (json)
            std::printf("{\"trained\":%d,\"error\":%s}\n", run.step, attn::json_string(run.error).c_str());
        std::fprintf(stderr, "attn: %s\n", run.error.c_str());
        return 1;
    }
    attn::circuits_report r;
    std::string error;
    if (!attn::circuits_report_compute(run, row, r, &error, corrupt)) {
        std::fprintf(stderr, "attn: %s\n", error.c_str());
        return 1;
    }
    if (json) {
        const std::string s = attn::circuits_report_json(run, r, weights);
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fputc('\n', stdout);
        return 0;
    }
    print_circuits_text(run, r);
    return 0;
}

// A plain experiment's first layer's weights, head by head, as a table.
int eval_summary(const attn::experiment& e) {
    const attn::trace t = attn::forward(e);
    std::printf("experiment %s\n%zu tokens, d_model %d, %d heads\n", attn::experiment_to_text(e).c_str(), t.tokens.size(),
                e.d_model, e.heads);
    const auto& heads = t.layers.front().heads;
    for (std::size_t h = 0; h < heads.size(); ++h) {
        std::printf("layer 0 head %zu weights:\n", h);
        for (int i = 0; i < heads[h].weights.rows; ++i) {
            for (int j = 0; j < heads[h].weights.cols; ++j)
                std::printf(" %6.3f", double(heads[h].weights(i, j)));
            std::printf("   %s\n", attn::cli_terminal_safe(t.tokens[std::size_t(i)]).c_str());
        }
    }
    return 0;
}

// The command line parsed (cli_options.hpp), then the link, then the command.
int run_command(int argc, char** argv) {
    const attn::cli_parse_result parsed = attn::cli_parse(argc, argv);
    if (!parsed.value) {  // what is wrong, then (for an unknown command or option, a missing argument) the usage
        std::fprintf(stderr, "attn: %s\n", parsed.error.c_str());
        return parsed.usage ? usage() : 2;
    }
    const attn::cli_options& o = *parsed.value;
    if (o.command == attn::cli_command::arch) {
        std::printf("%s\n", attn::kernel_arch_name());
        return 0;
    }
    train_threads = o.threads > 0 ? o.threads : attn::threads_available();
    if (o.threads > attn::threads_available())
        std::fprintf(stderr, "attn: %d threads on %d %s: the same weights, more slowly than %d\n", o.threads,
                     attn::threads_available(), attn::threads_available() == 1 ? "core" : "cores", attn::threads_available());
    attn::experiment e;
    attn::link_view view;
    if (!parse_link_or_report(o.link.c_str(), e, o.command == attn::cli_command::check, &view))
        return 1;
    switch (o.command) {
        case attn::cli_command::check:
            std::printf("ok: %s\n", attn::experiment_to_text(e).c_str());
            return 0;
        case attn::cli_command::train:
            return train_command(e, o.json, o.every);
        case attn::cli_command::circuits:
            return circuits_command(e, o.json, o.row, o.corrupt, o.weights);
        default:
            break;
    }
    if (o.model && e.train.task != attn::train_task::none) {
        std::fprintf(stderr, "attn: a recipe trains its own model: --model runs a link's text, not a recipe\n");
        return 2;
    }
    if (o.model)
        return attn::eval_model(e, view, o);
    if (e.train.task != attn::train_task::none)
        return eval_trained(e, o);
    if (o.json) {
        attn::trace_json_select sel;
        return make_selection(o, e, sel) ? eval_json(e, sel) : 1;
    }
    return eval_summary(e);
}

}  // namespace

// The command's own exit code, unless its output could not all be written: then 3.
int main(int argc, char** argv) {
    int code = 1;
    try {
        code = run_command(argc, argv);
    } catch (const std::bad_alloc&) {  // what the checks before each allocation did not foresee: said, never an abort
        std::fprintf(stderr, "attn: out of memory: this machine could not give what the command needs\n");
        return 1;
    }
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "attn: the output could not be written: %s\n", errno ? std::strerror(errno) : "write error");
        return 3;
    }
    return code;
}
