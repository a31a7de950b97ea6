// attn: the core from the command line, for scripts, blog figures and tests.
//
//   attn eval '<experiment text>' [--json]   run it; print the trace (JSON) or a summary
//   attn train '<recipe>' [--json] [--every N]  train; print the curve, head scores, ablation table
//   attn check '<experiment text>'           report every problem; exit 1 if any
//   attn arch                                the SIMD architecture of the kernels
//
// `attn eval` of a recipe (an experiment with train=<task>) trains it first and
// prints the trace of the trained model on the experiment's text when its tokens
// are the task's symbols, else on the first held-out row.
//
// Exit codes: 0 ok, 1 invalid experiment (or a training run that stopped on a NaN loss), 2 bad usage.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "experiment.hpp"
#include "forward.hpp"
#include "kernels.hpp"
#include "task.hpp"
#include "tokenize.hpp"
#include "trace_json.hpp"
#include "train.hpp"
#include "train_diagnostics.hpp"

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: attn eval '<experiment text>' [--json]\n"
                 "       attn train '<recipe>' [--json] [--every N]\n"
                 "       attn check '<experiment text>'\n"
                 "       attn arch\n"
                 "example: attn eval 'v=1&text=the%%20cat%%20sat&heads=2' --json\n");
    return 2;
}

bool parse_or_report(const char* text, attn::experiment& out) {
    auto r = attn::experiment_parse(text);
    if (!r.value) {
        for (const auto& e : r.errors)
            std::fprintf(stderr, "attn: %s\n", e.c_str());
        return false;
    }
    out = *r.value;
    return true;
}

// Trains e's recipe; prints the curve every `every` steps, the held-out result,
// the head scores and the ablation table (as JSON with --json).
int train_command(const attn::experiment& e, bool json, int every) {
    auto init = attn::train_init(e);
    if (!init.run) {
        for (const auto& m : init.errors)
            std::fprintf(stderr, "attn: %s\n", m.c_str());
        return 1;
    }
    attn::train_run& run = *init.run;
    attn::train_run_all(run);
    const attn::train_diagnostics diag = attn::train_diagnose(run);
    if (json) {
        std::printf("{\"steps\":[");
        bool first = true;
        for (const auto& p : run.curve)
            if (p.step % every == 0 || p.step + 1 == int(run.curve.size())) {
                std::printf("%s{\"step\":%d,\"loss\":%.9g,\"acc\":%.9g}", first ? "" : ",", p.step, double(p.loss),
                            double(p.acc));
                first = false;
            }
        std::printf("],\"eval\":{\"loss\":%.9g,\"acc\":%.9g},\"heads\":[", double(diag.base.loss), double(diag.base.acc));
        for (std::size_t i = 0; i < diag.heads.size(); ++i) {
            const auto& h = diag.heads[i];
            std::printf(
                "%s{\"layer\":%d,\"head\":%d,\"prev\":%.6g,\"induction\":%.6g,\"offset\":%.6g,\"sink\":%.6g,"
                "\"entropy\":%.6g,\"ablate_loss\":%.6g,\"ablate_acc\":%.6g,\"mean_loss\":%.6g,\"mean_acc\":%.6g}",
                i ? "," : "", h.layer, h.head, double(h.prev), double(h.induction), double(h.offset), double(h.sink),
                double(h.entropy), double(h.ablate_loss), double(h.ablate_acc), double(h.mean_loss), double(h.mean_acc));
        }
        std::printf("],\"weights_hash\":\"%s\",\"error\":\"%s\"}\n", attn::train_weights_hash(run).c_str(), run.error.c_str());
    } else {
        std::printf("recipe %s\nstep      loss     acc\n", attn::experiment_to_text(e).c_str());
        for (const auto& p : run.curve)
            if (p.step % every == 0 || p.step + 1 == int(run.curve.size()))
                std::printf("%5d  %8.4f  %6.3f\n", p.step, double(p.loss), double(p.acc));
        std::printf("held-out: loss %.4f, accuracy %.3f (%d rows)\n", double(diag.base.loss), double(diag.base.acc),
                    attn::train_eval_rows);
        std::printf("layer head   prev  induct offset   sink entropy | zeroed: loss   acc | mean: loss   acc\n");
        for (const auto& h : diag.heads)
            std::printf("%5d %4d  %5.3f  %5.3f  %5.3f  %5.3f  %6.3f |   %8.4f %5.3f | %9.4f %5.3f\n", h.layer, h.head,
                        double(h.prev), double(h.induction), double(h.offset), double(h.sink), double(h.entropy),
                        double(h.ablate_loss), double(h.ablate_acc), double(h.mean_loss), double(h.mean_acc));
        std::printf("weights_hash %s\n", attn::train_weights_hash(run).c_str());
    }
    if (!run.error.empty()) {
        std::fprintf(stderr, "attn: %s\n", run.error.c_str());
        return 1;
    }
    return 0;
}

// The trace of a trained recipe: on e's text when it is made of task symbols, else on the first held-out row.
int eval_trained(const attn::experiment& e, bool json) {
    auto init = attn::train_init(e);
    if (!init.run) {
        for (const auto& m : init.errors)
            std::fprintf(stderr, "attn: %s\n", m.c_str());
        return 1;
    }
    attn::train_run_all(*init.run);
    if (!init.run->error.empty()) {
        std::fprintf(stderr, "attn: %s\n", init.run->error.c_str());
        return 1;
    }
    std::vector<std::string> tokens = attn::tokenize(e.text);
    std::string problem;
    auto w = attn::train_weights_for(*init.run, tokens, &problem);
    if (!w) {
        tokens.clear();
        for (int t = 0; t < init.run->T; ++t)
            tokens.push_back(attn::task_symbol(init.run->eval_tokens[std::size_t(t)]));
        w = attn::train_weights_for(*init.run, tokens, &problem);
    }
    attn::experiment traced = e;
    traced.text.clear();
    for (const auto& t : tokens)
        traced.text += (traced.text.empty() ? "" : " ") + t;
    const attn::trace t = attn::forward_with(traced, tokens, *w);
    if (json)
        std::printf("%s\n", attn::trace_to_json(traced, t).c_str());
    else
        std::printf("trained %d steps, weights_hash %s; traced on: %s\n", init.run->step,
                    attn::train_weights_hash(*init.run).c_str(), traced.text.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        return usage();
    const std::string cmd = argv[1];
    if (cmd == "arch") {
        std::printf("%s\n", attn::kernel_arch_name());
        return 0;
    }
    if ((cmd != "eval" && cmd != "check" && cmd != "train") || argc < 3)
        return usage();
    bool json = false;
    int every = 50;
    for (int i = 3; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0 && cmd != "check") {
            json = true;
        } else if (std::strcmp(argv[i], "--every") == 0 && cmd == "train" && i + 1 < argc) {
            every = std::atoi(argv[++i]);
            if (every < 1)
                return usage();
        } else {
            return usage();
        }
    }
    attn::experiment e;
    if (!parse_or_report(argv[2], e))
        return 1;
    if (cmd == "check") {
        std::printf("ok: %s\n", attn::experiment_to_text(e).c_str());
        return 0;
    }
    if (cmd == "train")
        return train_command(e, json, every);
    if (e.train.task != attn::train_task::none)
        return eval_trained(e, json);
    const attn::trace t = attn::forward(e);
    if (json) {
        std::printf("%s\n", attn::trace_to_json(e, t).c_str());
        return 0;
    }
    std::printf("experiment %s\n%zu tokens, d_model %d, %d heads\n", attn::experiment_to_text(e).c_str(), t.tokens.size(),
                e.d_model, e.heads);
    const auto& heads = t.layers.front().heads;
    for (std::size_t h = 0; h < heads.size(); ++h) {
        std::printf("layer 0 head %zu weights:\n", h);
        for (int i = 0; i < heads[h].weights.rows; ++i) {
            for (int j = 0; j < heads[h].weights.cols; ++j)
                std::printf(" %6.3f", double(heads[h].weights(i, j)));
            std::printf("   %s\n", t.tokens[std::size_t(i)].c_str());
        }
    }
    return 0;
}
