#include "play/measure_circuit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

// The snapshots' drop, rise and ICL claims, over the snapshots up to the model's step.
void over_training(circuit_claims& c, const circuit_timeline& tl) {
    int rise = -1, now = -1;
    // The run's drop (train_find_drop, as L9 and the Train panel name it), at or before the step.
    const int drop = tl.drop_step >= 0 && tl.drop_step <= c.step ? circuits_timeline_drop_snapshot(tl) : -1;
    c.icl_before = 0;
    for (int i = 0; i < tl.S && tl.steps[std::size_t(i)] <= c.step; ++i) {
        const float loss = tl.loss[std::size_t(i)], k = tl.prev_ind_k[std::size_t(i)];
        now = i;
        if (rise < 0 && k > c.base + claim_rise_spreads * c.spread)
            rise = i;
        if (loss > 0.75f * tl.loss[0])
            c.icl_before = std::max(c.icl_before, std::abs(tl.icl[std::size_t(i)]));
    }
    c.drop_step = drop >= 0 ? tl.drop_step : -1;
    c.rise_step = rise >= 0 ? tl.steps[std::size_t(rise)] : -1;
    // "With the drop": the rise within claim_rise_snapshots of the snapshots the fall spans, [drop − w, drop + w].
    int first = drop, last = drop;
    for (int i = 0; drop >= 0 && i < tl.S; ++i)
        if (std::abs(tl.steps[std::size_t(i)] - tl.drop_step) <= tl.drop_window)
            first = std::min(first, i), last = std::max(last, i);
    c.rise_shown = drop >= 0 && rise >= 0 && rise >= first - claim_rise_snapshots && rise <= last + claim_rise_snapshots;
    if (now < 0)
        return;
    c.k_comp = tl.prev_ind_k[std::size_t(now)];
    c.icl_now = tl.icl[std::size_t(now)];
    c.k_comp_shown = c.k_comp > c.base + claim_k_spreads * c.spread;
    c.icl_shown = c.icl_before < claim_icl_before && c.icl_now < claim_icl_after;
}

}  // namespace

recovery_word circuit_recovery_word(float recovery) {
    if (!std::isfinite(recovery))
        return recovery_word::none;
    if (recovery < claim_recovery_part)
        return recovery_word::stays;
    if (recovery < claim_recovery_back)
        return recovery_word::part;
    return recovery > 1.0f ? recovery_word::beyond : recovery_word::back;
}

bool circuit_copying_shown(const circuit_head_maps& h) {
    return std::isfinite(h.ov_top1) && std::isfinite(h.copying) && h.ov_top1 >= claim_copy_top1 && h.copying >= claim_copy_score;
}

void circuit_claims_begin(const train_run& run, circuit_claims& out) {
    out.step = run.step;
    out.applies = run.e.train.task == train_task::induction && run.L >= 2;
    out.k_comp_shown = out.rise_shown = out.keys_shown = out.icl_shown = out.over_training_measured = false;
    out.drop_step = out.rise_step = -1;
    out.rows = 0;
    // A second measure of another model starts from nothing, not from the last one's numbers.
    out.previous = out.induction = head_ref{};
    out.k_comp = out.icl_now = std::numeric_limits<float>::quiet_NaN();
    out.base = out.spread = out.icl_before = 0;
    out.span = out.k_all = out.q_all = out.v_all = out.k_pair = 0;
    out.sum_span = out.sum_k = out.sum_q = out.sum_v = out.sum_pair = 0;
    out.pairs = 0;
}

void circuit_claims_over_training(const circuit_timeline& tl, circuit_claims& out) {
    out.previous = {tl.prev_layer, tl.prev_head};
    out.induction = {tl.ind_layer, tl.ind_head};
    out.base = tl.base_k.mean;
    out.spread = tl.base_k.spread;
    over_training(out, tl);
    out.over_training_measured = true;
}

// Path patching of every layer-0 head into layer 1 on one held-out row, if it takes
// the corruption: its sums, then the means so far (the claim once all rows are in).
bool circuit_claims_patch_row(train_run& run, int row, circuit_claims& c) {
    if (!circuits_patching_row(run, row, c.patching))
        return false;
    const circuit_patching& p = c.patching;
    ++c.rows;
    c.sum_span += p.ld_clean - p.ld_corrupt;
    c.sum_k += p.paths_all.k, c.sum_q += p.paths_all.q, c.sum_v += p.paths_all.v;
    for (const circuit_path_recovery& pr : p.paths)
        if (pr.layer_a == c.previous.layer && pr.head_a == c.previous.head && pr.layer_b == c.induction.layer &&
            pr.head_b == c.induction.head) {
            c.sum_pair += pr.k;
            ++c.pairs;
        }
    const double n = double(c.rows);
    c.span = float(c.sum_span / n), c.k_all = float(c.sum_k / n), c.q_all = float(c.sum_q / n), c.v_all = float(c.sum_v / n);
    c.k_pair = c.pairs ? float(c.sum_pair / c.pairs) : 0.0f;
    c.keys_shown = c.span >= claim_patch_span && c.k_all >= claim_keys_recovery && std::abs(c.q_all) <= claim_other_recovery &&
                   std::abs(c.v_all) <= claim_other_recovery;
    return true;
}

void measure_circuit_claims(train_run& run, circuit_claims& out) {
    circuit_claims_begin(run, out);
    if (!out.applies)
        return;
    circuits_timeline(run, out.timeline);
    circuit_claims_over_training(out.timeline, out);
    for (int row = 0; row < claim_patch_rows; ++row)
        circuit_claims_patch_row(run, row, out);
}

}  // namespace attn
