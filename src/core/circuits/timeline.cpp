// timeline.hpp's pass over a run's snapshots. Sections:
//   [SECTION] the heads and the layout
//   [SECTION] one snapshot
//   [SECTION] the pass
#include "circuits/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "spec/keys.hpp"
#include "train/trainer.hpp"

namespace attn {
namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

std::size_t sz(int n) { return std::size_t(n); }

// --- [SECTION] the heads and the layout -------------------------------------------

// The previous-token head of layer 0 and the induction head of the later layers, on
// the run's weights as they are.
void choose_heads(train_run& run, circuit_timeline& out) {
    out.prev_layer = out.prev_head = out.ind_layer = out.ind_head = -1;
    if (run.L < 2)
        return;
    train_head_scores(run, 32, out.scores);
    out.prev_layer = 0;
    out.prev_head = 0;
    out.ind_layer = 1;
    out.ind_head = 0;
    auto at = [&](int l, int h) -> const head_scores& { return out.scores[sz(l * run.h + h)]; };
    for (int h = 0; h < run.h; ++h)
        if (at(0, h).prev_mean() > at(0, out.prev_head).prev_mean())
            out.prev_head = h;
    for (int l = 1; l < run.L; ++l)
        for (int h = 0; h < run.h; ++h)
            if (at(l, h).induction_mean() > at(out.ind_layer, out.ind_head).induction_mean()) {
                out.ind_layer = l;
                out.ind_head = h;
            }
}

void layout(const train_run& run, circuit_timeline& out) {
    out.S = run.snapshots_taken;
    out.T = run.T;
    const std::size_t S = sz(out.S), T = sz(run.T), P = out.pairs.size();
    out.steps.assign(S, 0);
    for (std::vector<float>* v : {&out.q, &out.k, &out.v})
        v->assign(S * P, nan_f);
    out.prev_ind_k.assign(S, nan_f);
    out.loss.assign(S, nan_f);
    out.pos_loss.assign(S * T, nan_f);
    out.pos_loss_all.assign(S * T, nan_f);
    out.sum_all.assign(T, 0.0);
    out.icl.assign(S, nan_f);
    out.first_loss.assign(S, nan_f);
    out.sum.assign(T, 0.0);
    out.count.assign(T, 0);
    out.sum_icl.assign(2, 0.0);
    out.icl_problem.clear();  // both problems built in place: a second pass allocates nothing
    if (run.e.train.task != train_task::induction) {
        out.icl_problem += "the in-context-learning score is defined for the induction task, not ";
        out.icl_problem += train_task_name(run.e.train.task);
    }
    for (std::vector<float>* v : {&out.kl_uniform, &out.kl_unigram, &out.kl_bigram})
        v->assign(S, nan_f);
    out.sum_kl.assign(3, 0.0);
    out.predicted.assign(3 * sz(run.V), 0.0);
    out.markov_problem.clear();
    if (run.e.train.task != train_task::markov) {
        out.markov_problem += "the KL divergences to the in-context predictors are defined for the markov task, not ";
        out.markov_problem += train_task_name(run.e.train.task);
    }
}

// --- [SECTION] one snapshot --------------------------------------------------------

// −log softmax(z)[target], in double.
double cross_entropy(const float* z, int V, int target) {
    const float m = *std::max_element(z, z + V);
    double s = 0;
    for (int v = 0; v < V; ++v)
        s += std::exp(double(z[v]) - double(m));
    return std::log(s) + double(m) - double(z[target]);
}

// One markov row's KL(predictor ‖ model) at each counted position into the sums:
// the predictors from the row's prefix, x_t included (markov_counts).
void add_markov_row(const train_run& run, circuit_timeline& out, const int* tokens, const unsigned char* cnt,
                    const float* logits) {
    const int T = run.T, V = run.V;
    double* p = out.predicted.data();
    out.counts.reset(V, double(run.e.train.markov_alpha));
    for (int t = 0; t < T; ++t) {
        out.counts.add(tokens[t]);
        if (!cnt[t])
            continue;
        out.counts.predict(p, p + V, p + 2 * V);
        for (int k = 0; k < 3; ++k)
            out.sum_kl[sz(k)] += circuits_kl(p + k * V, logits + t * V, V);
    }
}

// One held-out row's logits (T, V) into the sums: each counted position's loss, and
// for the ICL score (induction) the loss there and at the same transition's first
// occurrence, len positions before (len = T − the first counted position).
void add_row(const train_run& run, circuit_timeline& out, int row, const float* logits) {
    const int T = run.T, V = run.V;
    const unsigned char* cnt = run.eval_counted.data() + sz(row * T);
    const int* tgt = run.eval_targets.data() + sz(row * T);
    const int* in = run.eval_tokens.data() + sz(row * T);
    const int first = int(std::find(cnt, cnt + T, 1) - cnt), len = T - first;
    for (int t = 0; t + 1 < T; ++t)
        out.sum_all[sz(t)] += cross_entropy(logits + t * V, V, in[t + 1]);
    for (int t = 0; t < T; ++t) {
        if (!cnt[t])
            continue;
        const double l = cross_entropy(logits + t * V, V, tgt[t]);
        out.sum[sz(t)] += l;
        ++out.count[sz(t)];
        if (out.icl_problem.empty() && t - len >= 0) {
            out.sum_icl[0] += l;
            out.sum_icl[1] += cross_entropy(logits + (t - len) * V, V, tgt[t - len]);
        }
    }
    if (out.markov_problem.empty())
        add_markov_row(run, out, run.eval_tokens.data() + sz(row * T), cnt, logits);
}

// Snapshot i's held-out losses (the run's weights are the snapshot's).
void held_out(train_run& run, circuit_timeline& out, int i) {
    std::fill(out.sum.begin(), out.sum.end(), 0.0);
    std::fill(out.sum_all.begin(), out.sum_all.end(), 0.0);
    std::fill(out.count.begin(), out.count.end(), 0);
    std::fill(out.sum_icl.begin(), out.sum_icl.end(), 0.0);
    std::fill(out.sum_kl.begin(), out.sum_kl.end(), 0.0);
    for (int first = 0; first < out.rows; first += run.B) {
        const int rows = std::min(run.B, out.rows - first);
        train_forward_rows(run, run.eval_tokens.data() + sz(first * run.T), rows);
        for (int b = 0; b < rows; ++b)
            add_row(run, out, first + b, train_row_logits(run, b));
    }
    double total = 0;
    int n = 0;
    for (int t = 0; t < run.T; ++t) {
        const int c = out.count[sz(t)];
        if (c)
            out.pos_loss[sz(i) * sz(run.T) + sz(t)] = float(out.sum[sz(t)] / c);
        total += out.sum[sz(t)];
        if (t + 1 < run.T)
            out.pos_loss_all[sz(i) * sz(run.T) + sz(t)] = float(out.sum_all[sz(t)] / out.rows);
        n += c;
    }
    out.loss[sz(i)] = n ? float(total / n) : nan_f;
    if (out.icl_problem.empty() && n) {
        out.icl[sz(i)] = float((out.sum_icl[0] - out.sum_icl[1]) / n);
        out.first_loss[sz(i)] = float(out.sum_icl[1] / n);
    }
    if (out.markov_problem.empty() && n) {
        out.kl_uniform[sz(i)] = float(out.sum_kl[0] / n);
        out.kl_unigram[sz(i)] = float(out.sum_kl[1] / n);
        out.kl_bigram[sz(i)] = float(out.sum_kl[2] / n);
    }
}

// Snapshot i's composition scores and the chosen pair's K-composition.
void composition(const train_run& run, circuit_timeline& out, int i) {
    circuits_composition(run, out.comp);
    const std::size_t P = out.pairs.size();
    for (std::size_t p = 0; p < P && p < out.comp.pairs.size(); ++p) {
        out.q[sz(i) * P + p] = out.comp.pairs[p].q;
        out.k[sz(i) * P + p] = out.comp.pairs[p].k;
        out.v[sz(i) * P + p] = out.comp.pairs[p].v;
    }
    if (out.prev_layer < 0)
        return;
    const circuit_composition_pair* c =
        circuit_composition_find(out.comp, out.prev_layer, out.prev_head, out.ind_layer, out.ind_head);
    out.prev_ind_k[sz(i)] = c ? c->k : nan_f;
}

}  // namespace

// --- [SECTION] the pass -------------------------------------------------------------

double circuits_kl(const double* p, const float* logits, int V) {
    const float m = *std::max_element(logits, logits + V);
    double s = 0;
    for (int v = 0; v < V; ++v)
        s += std::exp(double(logits[v]) - double(m));
    const double log_z = std::log(s) + double(m);
    double kl = 0;
    for (int v = 0; v < V; ++v)
        if (p[v] > 0)
            kl += p[v] * (std::log(p[v]) - (double(logits[v]) - log_z));
    return kl;
}

void circuits_timeline_begin(train_run& run, circuit_timeline& out, int rows) {
    train_step_abandon(run);
    out.rows = std::clamp(rows, 1, train_eval_rows);
    choose_heads(run, out);
    circuits_composition(run, out.comp);  // the pairs and the baseline
    out.pairs = out.comp.pairs;
    out.base_q = out.comp.q;
    out.base_k = out.comp.k;
    out.base_v = out.comp.v;
    layout(run, out);
    for (int i = 0; i < out.S; ++i)  // known before any is measured: a view's axis
        out.steps[sz(i)] = run.snapshots[sz(i)].step;
    const train_drop drop = train_find_drop(run.curve, run.step, run.e.train.steps);
    out.drop_step = drop.step;
    out.drop_window = drop.window;
}

int circuits_timeline_drop_snapshot(const circuit_timeline& tl) {
    int best = -1;
    for (int i = 0; tl.drop_step >= 0 && i < tl.S; ++i)
        if (best < 0 || std::abs(tl.steps[sz(i)] - tl.drop_step) < std::abs(tl.steps[sz(best)] - tl.drop_step))
            best = i;
    return best;
}

void circuits_timeline_snapshot(train_run& run, circuit_timeline& out, int i) {
    if (i < 0 || i >= out.S || i >= run.snapshots_taken)
        return;
    train_step_abandon(run);
    train_snapshot& s = run.snapshots[sz(i)];
    std::swap(run.params, s.params);
    composition(run, out, i);
    held_out(run, out, i);
    std::swap(run.params, s.params);
}

void circuits_timeline(train_run& run, circuit_timeline& out, int rows) {
    circuits_timeline_begin(run, out, rows);
    for (int i = 0; i < out.S; ++i)
        circuits_timeline_snapshot(run, out, i);
}

}  // namespace attn
