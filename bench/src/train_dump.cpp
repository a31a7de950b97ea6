// attn_train_dump '<recipe>' [steps]: everything a peer framework needs to repeat
// the first `steps` training steps of a recipe (bench/torch_peer.py), as JSON:
// the model's shape and options, the mask, RoPE and position tables, the initial
// parameters (in the layout's order), the step-0 loss and gradient, every step's
// batch, and our loss curve and learning rates. Also the native time per step.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "spec/experiment.hpp"
#include "train/train.hpp"

using namespace attn;

namespace {

template <class T>
void print_array(const char* key, const T* x, std::size_t n, bool comma = true) {
    std::printf("\"%s\":[", key);
    for (std::size_t i = 0; i < n; ++i)
        std::printf(i ? ",%.9g" : "%.9g", double(x[i]));
    std::printf("]%s", comma ? "," : "");
}

struct named {
    std::string name;
    train_tensor t;
};

std::vector<named> tensors(const train_run& r) {
    std::vector<named> out = {{"w_e", r.layout.w_e}};
    if (r.layout.w_p.size())
        out.push_back({"w_p", r.layout.w_p});
    for (std::size_t l = 0; l < r.layout.layers.size(); ++l) {
        const auto& t = r.layout.layers[l];
        const std::string p = "layer" + std::to_string(l) + ".";
        for (const auto& [n, x] :
             {std::pair{"w_q", t.w_q}, {"w_k", t.w_k}, {"w_v", t.w_v}, {"w_o", t.w_o}, {"w_1", t.w_1}, {"w_2", t.w_2}})
            if (x.size())
                out.push_back({p + n, x});
    }
    out.push_back({"w_u", r.layout.w_u});
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: attn_train_dump '<recipe>' [steps]\n");
        return 2;
    }
    const auto parsed = experiment_parse(argv[1]);
    if (!parsed.value) {
        for (const auto& m : parsed.errors)
            std::fprintf(stderr, "attn_train_dump: %s\n", m.c_str());
        return 1;
    }
    experiment e = *parsed.value;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
    e.train.steps = std::max(steps, 1);
    auto init = train_init(e);
    if (!init.run) {
        for (const auto& m : init.errors)
            std::fprintf(stderr, "attn_train_dump: %s\n", m.c_str());
        return 1;
    }
    train_run& r = *init.run;
    const auto ts = tensors(r);
    std::printf("{\"recipe\":\"%s\",\"arch\":\"%s\",", experiment_to_text(e).c_str(), kernel_arch_name());
    std::printf(
        "\"config\":{\"B\":%d,\"T\":%d,\"V\":%d,\"d\":%d,\"h\":%d,\"g\":%d,\"L\":%d,\"full\":%d,\"res\":%d,\"rope\":%d,\"wo\":%d,"
        "\"scale\":%.9g,\"temp\":%.9g,\"lr\":%.9g,\"wd\":%.9g,\"clip\":%.9g,\"beta1\":0.9,\"beta2\":0.99,\"eps\":1e-8},",
        r.B, r.T, r.V, r.d, r.h, r.g, r.L, e.block == block_kind::full, e.block == block_kind::attention_residual,
        e.pos == positional::rope, e.use_wo,
        double(e.scale == score_scale::sqrt_dk ? 1.0 / std::sqrt(double(r.dk))
               : e.scale == score_scale::none  ? 1.0
                                               : e.scale_value),
        double(e.temperature), double(e.train.lr), double(e.train.wd), double(e.train.clip));
    print_array("mask", r.hidden.data(), r.hidden.size());
    // The angles per position and pair, (T, max(d_k/2, 1)), from the trainer's
    // per-lane tables (head 0's columns: cos at 2p, +sin at 2p + 1).
    const int half = r.dk / 2, width = std::max(half, 1);
    std::vector<float> rope_cos(std::size_t(r.T * width), 0.0f), rope_sin(rope_cos.size(), 0.0f);
    for (int t = 0; t < r.T; ++t)
        for (int p = 0; p < half; ++p) {
            rope_cos[std::size_t(t * width + p)] = r.rope_cos[std::size_t(t * r.d + 2 * p)];
            rope_sin[std::size_t(t * width + p)] = r.rope_sin[std::size_t(t * r.d + 2 * p + 1)];
        }
    print_array("rope_cos", rope_cos.data(), rope_cos.size());
    print_array("rope_sin", rope_sin.data(), rope_sin.size());
    print_array("positions", r.positions.data(), r.positions.size());
    const std::vector<float> initial = r.params;
    const float loss0 = train_loss_and_grad(r);
    std::printf("\"loss0\":%.9g,\"tensors\":[", double(loss0));
    for (std::size_t i = 0; i < ts.size(); ++i) {
        std::printf("%s{\"name\":\"%s\",\"rows\":%d,\"cols\":%d,", i ? "," : "", ts[i].name.c_str(), ts[i].t.rows, ts[i].t.cols);
        print_array("data", initial.data() + ts[i].t.offset, ts[i].t.size());
        print_array("grad", r.grads.data() + ts[i].t.offset, ts[i].t.size(), false);
        std::printf("}");
    }
    std::printf("],\"batches\":[");
    const auto t0 = std::chrono::steady_clock::now();
    double stepping = 0;
    for (int s = 0; s < steps; ++s) {
        const auto a = std::chrono::steady_clock::now();
        if (!train_step(r))
            break;
        stepping += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
        std::printf("%s{", s ? "," : "");
        print_array("tokens", r.tokens.data(), r.tokens.size());
        print_array("targets", r.targets.data(), r.targets.size());
        print_array("counted", r.counted.data(), r.counted.size(), false);
        std::printf("}");
    }
    (void)t0;
    std::vector<float> losses, lrs;
    for (const auto& p : r.curve) {
        losses.push_back(p.loss);
        lrs.push_back(p.lr);
    }
    std::printf("],");
    print_array("losses", losses.data(), losses.size());
    print_array("lrs", lrs.data(), lrs.size());
    std::printf("\"ms_per_step\":%.6g,\"error\":\"%s\"}\n", stepping / std::max<std::size_t>(1, r.curve.size()), r.error.c_str());
    return 0;
}
