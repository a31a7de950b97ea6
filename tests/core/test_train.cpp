// Training: the whole model's gradient against central finite differences of an
// independent double-precision forward pass, the training forward against
// forward_with, determinism, snapshots, no allocation per step, recipe keys.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "base/random.hpp"
#include "compare.hpp"
#include "kernels/kernels.hpp"
#include "model/forward.hpp"
#include "spec/experiment.hpp"
#include "test_util.hpp"
#include "train/task.hpp"
#include "train/train.hpp"

using namespace attn;

namespace {

using dvec = std::vector<double>;

// The model of train.hpp in double, written from the formulas alone (plain
// loops, no kernels, no caches): loss of the batch in r.tokens / targets / counted.
struct twin {
    const train_run& r;
    const dvec& p;

    double at(const train_tensor& t, int i, int j) const { return p[t.offset + std::size_t(i * t.cols + j)]; }
    dvec matmul(const dvec& x, int n, const train_tensor& w) const {
        dvec y(std::size_t(n * w.cols), 0.0);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < w.rows; ++k)
                for (int j = 0; j < w.cols; ++j)
                    y[std::size_t(i * w.cols + j)] += x[std::size_t(i * w.rows + k)] * at(w, k, j);
        return y;
    }
    dvec rmsnorm(const dvec& x, int n, int d) const {
        dvec y(x.size());
        for (int i = 0; i < n; ++i) {
            double ss = 0;
            for (int c = 0; c < d; ++c)
                ss += x[std::size_t(i * d + c)] * x[std::size_t(i * d + c)];
            for (int c = 0; c < d; ++c)
                y[std::size_t(i * d + c)] = x[std::size_t(i * d + c)] / std::sqrt(ss / d + 1e-6);
        }
        return y;
    }
    // Rotates pairs of columns [c0, c0 + dk) of x (n, width) for positions pos_offset + i.
    void rope(dvec& x, int n, int width, int c0) const {
        const int dk = r.dk;
        for (int i = 0; i < n; ++i)
            for (int q = 0; q < dk / 2; ++q) {
                const double angle = double(r.e.pos_offset + i) * std::pow(double(r.e.rope_base), -2.0 * q / dk);
                double& a = x[std::size_t(i * width + c0 + 2 * q)];
                double& b = x[std::size_t(i * width + c0 + 2 * q + 1)];
                const double a0 = a, b0 = b;
                a = a0 * std::cos(angle) - b0 * std::sin(angle);
                b = a0 * std::sin(angle) + b0 * std::cos(angle);
            }
    }
    dvec layer(const dvec& x, int l) const {
        const int T = r.T, d = r.d, dk = r.dk, kv = r.g * dk;
        const auto& w = r.layout.layers[std::size_t(l)];
        const bool full = r.e.block == block_kind::full;
        const dvec xn = full ? rmsnorm(x, T, d) : x;
        dvec q = matmul(xn, T, w.w_q), k = matmul(xn, T, w.w_k), v = matmul(xn, T, w.w_v);
        if (r.e.pos == positional::rope) {
            for (int i = 0; i < r.h; ++i)
                rope(q, T, d, i * dk);
            for (int j = 0; j < r.g; ++j)
                rope(k, T, kv, j * dk);
        }
        const double scale = r.e.scale == score_scale::sqrt_dk ? 1.0 / std::sqrt(double(dk))
                             : r.e.scale == score_scale::none  ? 1.0
                                                               : double(r.e.scale_value);
        dvec concat(std::size_t(T * d), 0.0);
        for (int hi = 0; hi < r.h; ++hi) {
            const int j0 = hi / (r.h / r.g);
            for (int i = 0; i < T; ++i) {
                dvec s(std::size_t(T), 0.0);
                double mx = -1e300;
                for (int j = 0; j < T; ++j) {
                    double dot = 0;
                    for (int c = 0; c < dk; ++c)
                        dot += q[std::size_t(i * d + hi * dk + c)] * k[std::size_t(j * kv + j0 * dk + c)];
                    s[std::size_t(j)] = dot * scale / double(r.e.temperature);
                    if (!r.hidden[std::size_t(i * T + j)])
                        mx = std::max(mx, s[std::size_t(j)]);
                }
                double sum = 0;
                for (int j = 0; j < T; ++j)
                    sum += s[std::size_t(j)] = r.hidden[std::size_t(i * T + j)] ? 0.0 : std::exp(s[std::size_t(j)] - mx);
                for (int j = 0; j < T; ++j)
                    for (int c = 0; c < dk; ++c)
                        concat[std::size_t(i * d + hi * dk + c)] +=
                            s[std::size_t(j)] / sum * v[std::size_t(j * kv + j0 * dk + c)];
            }
        }
        dvec a = r.e.use_wo ? matmul(concat, T, w.w_o) : concat;
        if (r.e.block == block_kind::attention_only)
            return a;
        for (std::size_t i = 0; i < a.size(); ++i)
            a[i] += x[i];
        if (!full)  // attention_residual: x + attention(x)
            return a;
        dvec hid = matmul(rmsnorm(a, T, d), T, w.w_1);
        for (double& z : hid)
            z = std::max(z, 0.0);
        dvec out = matmul(hid, T, w.w_2);
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] += a[i];
        return out;
    }
    double loss() const {
        const int T = r.T, d = r.d, V = r.V;
        double total = 0;
        int count = 0;
        for (int b = 0; b < r.B; ++b) {
            const int* tok = r.tokens.data() + b * T;
            dvec x(std::size_t(T * d));
            for (int t = 0; t < T; ++t)
                for (int c = 0; c < d; ++c)
                    x[std::size_t(t * d + c)] =
                        at(r.layout.w_e, tok[t], c) +
                        (r.layout.w_p.size() ? at(r.layout.w_p, t, c) : double(r.positions[std::size_t(t * d + c)]));
            for (int l = 0; l < r.L; ++l)
                x = layer(x, l);
            const dvec z = matmul(x, T, r.layout.w_u);
            for (int t = 0; t < T; ++t) {
                if (!r.counted[std::size_t(b * T + t)])
                    continue;
                double mx = -1e300, sum = 0;
                for (int v = 0; v < V; ++v)
                    mx = std::max(mx, z[std::size_t(t * V + v)]);
                for (int v = 0; v < V; ++v)
                    sum += std::exp(z[std::size_t(t * V + v)] - mx);
                total += std::log(sum) + mx - z[std::size_t(t * V + r.targets[std::size_t(b * T + t)])];
                ++count;
            }
        }
        return total / std::max(count, 1);
    }
};

experiment random_model(rng& g) {
    auto pick = [&g](int n) { return int(g.next_u64() % std::uint64_t(n)); };
    experiment e;
    e.text = "a b";
    e.seed = std::uint32_t(g.next_u64());
    e.heads = 1 << pick(3);
    e.d_model = e.heads * (1 + pick(6));  // d_k 1 to 6: odd ones too (RoPE leaves the last column)
    e.kv_heads = std::max(1, e.heads >> pick(3));
    e.layers = 1 + pick(2);
    const block_kind blocks[] = {block_kind::attention_only, block_kind::full, block_kind::attention_residual};
    e.block = blocks[pick(3)];
    const positional pos[] = {positional::none, positional::sinusoidal, positional::rope, positional::learned};
    e.pos = pos[pick(4)];
    e.pos_offset = pick(3) * 5;
    const mask_kind masks[] = {mask_kind::none, mask_kind::causal, mask_kind::padding};
    e.mask = masks[pick(3)];
    e.text = "a b c d e f g";
    e.pad = e.mask == mask_kind::padding ? 1 + pick(2) : 0;
    e.use_wo = pick(2) == 0;
    e.scale = pick(3) == 0 ? score_scale::none : score_scale::sqrt_dk;
    e.temperature = pick(3) == 0 ? 1.5f : 1.0f;
    e.train.task = pick(2) ? train_task::previous : train_task::copy_offset;
    e.train.offset = 2;
    e.train.batch = 2;
    e.train.seq = 6;
    e.train.vocab = 5;
    e.train.steps = 1;
    e.train.train_seed = std::uint32_t(g.next_u64());
    return e;
}

std::string describe(const experiment& e) { return experiment_to_text(e); }

}  // namespace

// Under ASan + UBSan the twin's two losses a parameter took 55 s for the 24 models (4.5 s natively):
// there every model's whole gradient is computed (the code under test) and every 8th parameter of it
// compared, from a different first one a model; natively and in wasm every parameter.
#if defined(ATTN_SANITIZE)
constexpr std::size_t gradient_stride = 8;
#else
constexpr std::size_t gradient_stride = 1;
#endif

TEST_CASE("the whole model's gradient equals central differences of a double-precision twin") {
    rng g(2024);
    for (int trial = 0; trial < 24; ++trial) {
        const experiment e = random_model(g);
        INFO("recipe " << describe(e));
        auto init = train_init(e);
        REQUIRE(init.errors.empty());
        train_run& r = *init.run;
        // Larger, less uniform weights than the initial draw, so every path carries gradient.
        rng pg(std::uint64_t(trial) + 7);
        for (float& p : r.params)
            p += 0.3f * pg.normal();
        const float loss = train_loss_and_grad(r);
        dvec p(r.params.begin(), r.params.end());
        const double loss_twin = twin{r, p}.loss();
        CHECK(std::fabs(double(loss) - loss_twin) <= 1e-5 * (1.0 + std::fabs(loss_twin)));
        double err2 = 0, ref2 = 0;
        int shown = 0;
        for (std::size_t i = std::size_t(trial) % gradient_stride; i < p.size(); i += gradient_stride) {
            const double h = 1e-5, keep = p[i];
            p[i] = keep + h;
            const double up = twin{r, p}.loss();
            p[i] = keep - h;
            const double down = twin{r, p}.loss();
            p[i] = keep;
            const double fd = (up - down) / (2 * h);
            err2 += (double(r.grads[i]) - fd) * (double(r.grads[i]) - fd);
            ref2 += fd * fd;
            if (std::fabs(double(r.grads[i]) - fd) > 1e-3 * (1e-2 + std::fabs(fd)) && shown++ < 5)
                MESSAGE("param " << i << ": analytic " << r.grads[i] << " vs finite differences " << fd);
        }
        const double rel = std::sqrt(err2 / std::max(ref2, 1e-300));
        CHECK(rel <= 1e-4);  // measured ~1e-7 … 1e-6: float arithmetic against the double twin
    }
}

namespace {

experiment lesson_like(train_task task) {
    return test::tiny_recipe(task, block_kind::full, 12, "a b c a b c");  // the trained model reads the text
}

train_run make_run(const experiment& e) {
    auto init = train_init(e);
    REQUIRE_MESSAGE(init.errors.empty(), (init.errors.empty() ? "" : init.errors.front()));
    return std::move(*init.run);
}

}  // namespace

TEST_CASE("the training forward gives forward_with's numbers on the trained model's weights") {
    rng g(77);
    for (int trial = 0; trial < 16; ++trial) {
        experiment e = random_model(g);
        e.mask = trial % 2 ? mask_kind::causal : e.mask;
        e.pad = e.mask == mask_kind::padding ? e.pad : 0;
        e.train.steps = 3;
        INFO("recipe " << experiment_to_text(e));
        train_run r = make_run(e);
        train_run_all(r);
        std::vector<int> ids;
        std::vector<std::string> tokens;
        for (int t = 0; t < r.T; ++t) {
            ids.push_back(int(g.next_u64() % std::uint64_t(r.V)));
            tokens.push_back(task_symbol(ids.back()));
        }
        std::vector<float> out;
        train_logits(r, ids, &out);
        std::string problem;
        const auto w = train_weights_for(r, tokens, &problem);
        REQUIRE_MESSAGE(w, problem);
        const trace t = forward_with(e, tokens, *w);
        CHECK(test::mismatches(out, t.output.data, test::relative(1e-5f), "logits", {"train_logits", "forward"}) == 0);
        // Its attention weights are the trace's, head by head.
        for (int l = 0; l < r.L; ++l)
            for (int h = 0; h < r.h; ++h) {
                const float* att = train_attention(r, 0, l) + std::size_t(h * r.T * r.T);
                const auto& tw = t.layers[std::size_t(l)].heads[std::size_t(h)].weights.data;
                for (std::size_t i = 0; i < tw.size(); ++i)
                    REQUIRE(std::fabs(att[i] - tw[i]) <= 1e-5f);
            }
    }
}

TEST_CASE("before training, the model is the experiment's own random model") {
    experiment e = lesson_like(train_task::induction);
    e.pos = positional::sinusoidal;
    const train_run r = make_run(e);
    const std::vector<std::string> tokens = {"c", "a", "b", "c"};
    const auto w = train_weights_for(r, tokens);
    REQUIRE(w);
    const model_weights ref = model_generate(e, tokens);
    CHECK(w->embeddings.data == ref.embeddings.data);
    for (int l = 0; l < e.layers; ++l) {
        CHECK(w->layers[std::size_t(l)].w_q.data == ref.layers[std::size_t(l)].w_q.data);
        CHECK(w->layers[std::size_t(l)].w_v.data == ref.layers[std::size_t(l)].w_v.data);
        CHECK(w->layers[std::size_t(l)].w_2.data == ref.layers[std::size_t(l)].w_2.data);
    }
    std::string problem;
    CHECK_FALSE(train_weights_for(r, {"a", "z"}, &problem));
    CHECK(problem.find("'z'") != std::string::npos);
}

TEST_CASE("same recipe, same build: bit-identical weights at every step; a snapshot resumes bit for bit") {
    for (train_task task : {train_task::induction, train_task::copy_offset, train_task::reverse, train_task::sort}) {
        experiment e = lesson_like(task);
        e.pos = task == train_task::sort ? positional::learned : positional::rope;
        INFO("task " << train_task_name(task));
        train_run a = make_run(e), b = make_run(e);
        std::vector<std::string> hashes;
        while (train_step(a)) {
            REQUIRE(train_step(b));
            CHECK(train_weights_hash(a) == train_weights_hash(b));
            hashes.push_back(train_weights_hash(a));
        }
        REQUIRE(a.step == e.train.steps);
        CHECK(a.curve.back().loss < a.curve.front().loss);
        // Snapshots at 0, every, 2·every, … and the end; resuming from one repeats the run.
        REQUIRE(a.snapshots_taken >= 3);
        CHECK(a.snapshots[0].step == 0);
        CHECK(a.snapshots[std::size_t(a.snapshots_taken - 1)].step == e.train.steps);
        const int mid = 1, from = a.snapshots[mid].step;
        train_restore(a, mid);
        CHECK(a.step == from);
        CHECK(int(a.curve.size()) == e.train.steps);  // the steps reached stay (scrubbing forward again)
        CHECK(a.snapshots_taken >= 3);
        for (int s = from; s < e.train.steps; ++s) {
            REQUIRE(train_step(a));
            CHECK(train_weights_hash(a) == hashes[std::size_t(s)]);
        }
    }
}

TEST_CASE("a warm training step allocates nothing") {
    train_run r = make_run(lesson_like(train_task::induction));
    REQUIRE(train_step(r));
    alloc_counter_start();
    const bool stepped = train_step(r) && train_step(r);
    const std::size_t bytes = alloc_counter_stop();
    CHECK(stepped);
    CHECK(bytes == 0);
}

TEST_CASE("a loss that is not finite stops the run and says at which step") {
    train_run r = make_run(lesson_like(train_task::induction));
    REQUIRE(train_step(r));
    REQUIRE(train_step(r));
    const std::string before = train_weights_hash(r);
    r.params[r.layout.w_u.offset] = std::numeric_limits<float>::quiet_NaN();
    const std::string poisoned = train_weights_hash(r);
    CHECK_FALSE(train_step(r));
    CHECK(r.error.find("NaN at step 2") != std::string::npos);
    CHECK(train_weights_hash(r) == poisoned);  // no update applied
    CHECK(r.step == 2);
    CHECK(before != poisoned);
}

TEST_CASE("a run that diverges through weight decay says so, not lr or clip") {
    experiment e = lesson_like(train_task::induction);
    e.train.steps = 300, e.train.lr = 10.0f, e.train.wd = 1.0f, e.train.clip = 0.0f;
    train_run r = make_run(e);
    train_run_all(r);
    REQUIRE_FALSE(r.error.empty());
    CHECK(r.step < 300);
    CHECK(r.error.find("1 - lr·wd = -9") != std::string::npos);
    CHECK(r.error.find("keep lr·wd below 1") != std::string::npos);
    CHECK(r.error.find("set clip") == std::string::npos);
}

TEST_CASE("the kernel sets' loss curves agree within 1e-3 relative") {
    std::vector<std::vector<float>> curves;
    struct restore {
        std::string initial = kernel_arch_name();
        ~restore() { kernel_use_arch(initial.c_str()); }
    } guard;
    for (int i = 0; i < kernel_arch_count(); ++i) {
        REQUIRE(kernel_use_arch(kernel_arch_at(i)));
        experiment e = lesson_like(train_task::induction);
        e.train.steps = 30;
        train_run r = make_run(e);
        train_run_all(r);
        std::vector<float> c;
        for (const auto& p : r.curve)
            c.push_back(p.loss);
        curves.push_back(c);
    }
    for (std::size_t s = 1; s < curves.size(); ++s)
        for (std::size_t i = 0; i < curves[0].size(); ++i) {
            INFO("kernel set " << kernel_arch_at(int(s)) << " step " << i);
            CHECK(std::fabs(curves[s][i] - curves[0][i]) <= 1e-3f * std::fabs(curves[0][i]));
        }
}

TEST_CASE("recipe keys: written only with a task, round trips, plain rejections") {
    experiment plain;
    CHECK(experiment_to_text(plain).find("train") == std::string::npos);
    experiment e = lesson_like(train_task::copy_offset);
    e.train.lr = 0.0125f;
    e.train.sched = lr_schedule::cosine;
    e.train.offset = 5;
    const std::string text = experiment_to_text(e);
    CHECK(text.find("&edits=&train=copy_offset&steps=12&lr=0.0125&batch=4&seq=12&vocab=10&train_seed=1&warmup=50&wd=0.01&clip=1"
                    "&sched=cosine&offset=5") != std::string::npos);
    const auto back = experiment_parse(text);
    REQUIRE(back.value);
    CHECK(*back.value == e);
    CHECK(experiment_to_text(*back.value) == text);

    auto errors_of = [](const std::string& s) {
        const auto r = experiment_parse(s);
        std::string all;
        for (const auto& m : r.errors)
            all += m + "\n";
        return all;
    };
    CHECK(errors_of("v=1&train=juggle").find("train must be 'none', 'induction'") != std::string::npos);
    CHECK(errors_of("v=1&train=induction&steps=20001").find("steps must be between 0 and 20000, not 20001") != std::string::npos);
    CHECK(errors_of("v=1&train=induction&lr=nan").find("lr must be a finite number, not 'nan'") != std::string::npos);
    CHECK(errors_of("v=1&train=induction&batch=0").find("batch must be between 1 and 256") != std::string::npos);
    CHECK(errors_of("v=1&train=induction&vocab=99").find("vocab must be between 4 and 62") != std::string::npos);
    CHECK(errors_of("v=1&train=copy_offset&seq=8&offset=8").find("offset must be between 1 and seq - 1") != std::string::npos);
    CHECK(errors_of("v=1&steps=5").find("training keys (steps, lr, ...) need train=<task>") != std::string::npos);
    CHECK(errors_of("v=1&pos=learned").find("pos=learned needs a training recipe") != std::string::npos);
    {
        // A recipe built in code is checked against the same table's ranges.
        experiment coded = lesson_like(train_task::induction);
        coded.train.steps = -1;
        coded.train.clip = std::numeric_limits<float>::quiet_NaN();
        coded.train.train_seed = 7;  // any 32-bit seed is fine
        std::string all;
        for (const auto& m : experiment_validate(coded))
            all += m + "\n";
        CHECK(all.find("steps must be between 0 and 20000") != std::string::npos);
        CHECK(all.find("clip must be a number between 0 and 1000000") != std::string::npos);
        CHECK(all.find("train_seed") == std::string::npos);
    }
    CHECK(errors_of("v=1&train=induction&d_model=256&layers=4&block=full&batch=256&seq=128").find("the limit is") ==
          std::string::npos);  // parsing passes; train_init refuses before allocating:
    experiment big = lesson_like(train_task::induction);
    big.d_model = 256, big.heads = 16, big.kv_heads = 16, big.layers = 4, big.train.batch = 256, big.train.seq = 128;
    const auto init = train_init(big);
    REQUIRE(init.errors.size() == 1);
    // The exact bytes, so that "needs 512 MB; the limit is 512 MB" can never be read.
    CHECK(init.errors[0].find("the limit is 671088640 bytes (640 MB)") != std::string::npos);
    CHECK(init.errors[0].find("needs 671088640 bytes") == std::string::npos);
}
