#include "play/measure_context.hpp"

#include <algorithm>
#include <cmath>

#include "play/measure_circuit.hpp"

namespace attn {

namespace {

// Mean of pos_loss_all at snapshot i over positions [a, b).
float mean_loss(const circuit_timeline& tl, int i, int a, int b) {
    double s = 0;
    int n = 0;
    for (int t = a; t < b; ++t) {
        const float l = tl.pos_loss_all[std::size_t(i) * std::size_t(tl.T) + std::size_t(t)];
        if (std::isfinite(l))
            s += l, ++n;
    }
    return n ? float(s / n) : std::numeric_limits<float>::quiet_NaN();
}

void markov_phases(const circuit_timeline& tl, int now, context_claims& c) {
    for (int i = 0; i <= now; ++i) {
        const float kl[3] = {tl.kl_uniform[std::size_t(i)], tl.kl_unigram[std::size_t(i)], tl.kl_bigram[std::size_t(i)]};
        const int k = int(std::min_element(kl, kl + 3) - kl);
        c.nearest.push_back(k);
        if (k == 1 && c.unigram_from < 0)
            c.unigram_from = tl.steps[std::size_t(i)];
        if (k == 2 && c.bigram_from < 0)
            c.bigram_from = tl.steps[std::size_t(i)];
    }
    c.kl_uniform = tl.kl_uniform[std::size_t(now)];
    c.kl_unigram = tl.kl_unigram[std::size_t(now)];
    c.kl_bigram = tl.kl_bigram[std::size_t(now)];
    c.phases_shown = c.nearest.front() == 0 && c.unigram_from >= 0 && c.bigram_from > c.unigram_from && c.nearest.back() == 2;
}

}  // namespace

context_claims measure_context(const circuit_timeline& tl, int step, int measured) {
    context_claims c;
    c.step = step;
    for (int i = 0; i < tl.S && tl.steps[std::size_t(i)] <= step; ++i)
        ++c.needed;
    c.measured = std::clamp(measured, 0, c.needed);
    c.complete = c.needed > 0 && c.measured == c.needed;
    c.induction = tl.S > 0 && tl.icl_problem.empty();  // which claims apply: known before any snapshot is in
    c.markov = tl.S > 0 && tl.markov_problem.empty();
    if (!c.complete)  // pending snapshots: nothing is claimed from a part of the evidence
        return c;
    int now = -1;
    for (int i = 0; i < c.needed && std::isfinite(tl.loss[std::size_t(i)]); ++i) {
        now = i;
        if (tl.loss[std::size_t(i)] > 0.75f * tl.loss[0] && std::isfinite(tl.icl[std::size_t(i)]))
            c.icl_before = std::max(c.icl_before, std::abs(tl.icl[std::size_t(i)]));
    }
    if (now < 0)
        return c;
    // The run's drop (train_find_drop, as L9 and the Train panel name it), measured by the step.
    int drop = tl.drop_step >= 0 && tl.drop_step <= step ? circuits_timeline_drop_snapshot(tl) : -1;
    if (drop > now)
        drop = -1;
    c.drop_step = drop >= 0 ? tl.drop_step : -1;
    const int before = drop > 0 ? drop - 1 : now;
    c.before_step = tl.steps[std::size_t(before)];
    c.early_end = std::max(1, (tl.T - 1) / 4);
    c.late_begin = tl.T - 1 - std::max(1, (tl.T - 1) / 4);
    c.early_before = mean_loss(tl, before, 0, c.early_end);
    c.early_now = mean_loss(tl, now, 0, c.early_end);
    c.late_before = mean_loss(tl, before, c.late_begin, tl.T - 1);
    c.late_now = mean_loss(tl, now, c.late_begin, tl.T - 1);
    if (c.markov) {
        markov_phases(tl, now, c);
        c.bump_shown = c.early_now - c.late_now >= context_markov_gap;
    }
    if (!c.induction)
        return c;
    c.repeat_before = tl.loss[std::size_t(before)], c.repeat_now = tl.loss[std::size_t(now)];
    c.first_before = tl.first_loss[std::size_t(before)], c.first_now = tl.first_loss[std::size_t(now)];
    c.bump_shown =
        drop >= 0 && c.repeat_before - c.repeat_now >= context_late_fall && c.first_before - c.first_now < context_early_change;
    c.icl_now = tl.icl[std::size_t(now)];
    c.icl_shown = c.icl_before < claim_icl_before && c.icl_now < claim_icl_after;
    return c;
}

}  // namespace attn
