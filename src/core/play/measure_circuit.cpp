#include "play/measure_circuit.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

// The snapshots' drop, rise and ICL claims, over the snapshots up to the model's step.
void over_training(circuit_claims& c) {
    const circuit_timeline& tl = c.timeline;
    int drop = -1, rise = -1, now = -1;
    c.icl_before = 0;
    for (int i = 0; i < tl.S && tl.steps[std::size_t(i)] <= c.step; ++i) {
        const float loss = tl.loss[std::size_t(i)], k = tl.prev_ind_k[std::size_t(i)];
        now = i;
        if (drop < 0 && loss < 0.5f * tl.loss[0])
            drop = i;
        if (rise < 0 && k > c.base + claim_rise_spreads * c.spread)
            rise = i;
        if (loss > 0.75f * tl.loss[0])
            c.icl_before = std::max(c.icl_before, std::abs(tl.icl[std::size_t(i)]));
    }
    c.drop_step = drop >= 0 ? tl.steps[std::size_t(drop)] : -1;
    c.rise_step = rise >= 0 ? tl.steps[std::size_t(rise)] : -1;
    c.rise_shown = drop >= 0 && rise >= 0 && std::abs(rise - drop) <= claim_rise_snapshots;
    if (now < 0)
        return;
    c.k_comp = tl.prev_ind_k[std::size_t(now)];
    c.icl_now = tl.icl[std::size_t(now)];
    c.k_comp_shown = c.k_comp > c.base + claim_k_spreads * c.spread;
    c.icl_shown = c.icl_before < claim_icl_before && c.icl_now < claim_icl_after;
}

// Path patching of every layer-0 head into layer 1, over the first rows that take the corruption.
void patching(train_run& run, circuit_claims& c) {
    double span = 0, k = 0, q = 0, v = 0, pair = 0;
    int pairs = 0;
    c.rows = 0;
    for (int row = 0; row < claim_patch_rows; ++row) {
        if (!circuits_patching_row(run, row, c.patching))
            continue;
        const circuit_patching& p = c.patching;
        ++c.rows;
        span += p.ld_clean - p.ld_corrupt;
        k += p.paths_all.k, q += p.paths_all.q, v += p.paths_all.v;
        for (const circuit_path_recovery& pr : p.paths)
            if (pr.layer_a == c.previous.layer && pr.head_a == c.previous.head && pr.layer_b == c.induction.layer &&
                pr.head_b == c.induction.head) {
                pair += pr.k;
                ++pairs;
            }
    }
    if (c.rows == 0)
        return;
    const double n = double(c.rows);
    c.span = float(span / n), c.k_all = float(k / n), c.q_all = float(q / n), c.v_all = float(v / n);
    c.k_pair = pairs ? float(pair / pairs) : 0.0f;
    c.keys_shown = c.span >= claim_patch_span && c.k_all >= claim_keys_recovery && std::abs(c.q_all) <= claim_other_recovery &&
                   std::abs(c.v_all) <= claim_other_recovery;
}

}  // namespace

void measure_circuit_claims(train_run& run, circuit_claims& out) {
    out.step = run.step;
    out.applies = run.e.train.task == train_task::induction && run.L >= 2;
    out.k_comp_shown = out.rise_shown = out.keys_shown = out.icl_shown = false;
    out.drop_step = out.rise_step = -1;
    out.rows = 0;
    if (!out.applies)
        return;
    circuits_timeline(run, out.timeline);
    const circuit_timeline& tl = out.timeline;
    out.previous = {tl.prev_layer, tl.prev_head};
    out.induction = {tl.ind_layer, tl.ind_head};
    out.base = tl.base_k.mean;
    out.spread = tl.base_k.spread;
    over_training(out);
    patching(run, out);
}

}  // namespace attn
