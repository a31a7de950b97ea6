// attn: the core from the command line, for scripts, blog figures and tests.
//
//   attn eval '<link>' [--json]   run it; print the trace (JSON) or a summary
//   attn check '<link>'           report every problem; exit 1 if any
// A link is anything the page opens: the experiment's text form, its z= form,
// view.* keys, a whole playground URL (src/core/link.hpp).
//   attn arch                                the SIMD architecture of the kernels
//
// Exit codes: 0 ok, 1 invalid experiment, 2 bad usage.
#include <cstdio>
#include <cstring>
#include <string>

#include "experiment.hpp"
#include "forward.hpp"
#include "kernels.hpp"
#include "link.hpp"
#include "trace_json.hpp"

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: attn eval '<link>' [--json]\n"
                 "       attn check '<link>'\n"
                 "       attn arch\n"
                 "example: attn eval 'v=1&text=the%%20cat%%20sat&heads=2' --json\n");
    return 2;
}

// Reads what the page reads: any link (the text form, its z= form, view.* keys,
// a whole playground URL; a lesson's link starts from the lesson's experiment).
// The view keys are checked and otherwise ignored here.
bool parse_link_or_report(const char* link, attn::experiment& out) {
    auto r = attn::link_parse(link);
    if (!r.value) {
        for (const auto& e : r.errors)
            std::fprintf(stderr, "attn: %s\n", e.c_str());
        return false;
    }
    out = *r.value;
    return true;
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
    if ((cmd != "eval" && cmd != "check") || argc < 3)
        return usage();
    bool json = false;
    for (int i = 3; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0 && cmd == "eval")
            json = true;
        else
            return usage();
    }
    attn::experiment e;
    if (!parse_link_or_report(argv[2], e))
        return 1;
    if (cmd == "check") {
        std::printf("ok: %s\n", attn::experiment_to_text(e).c_str());
        return 0;
    }
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
