#include "measure_training.hpp"

#include <algorithm>

namespace attn {

namespace {

// The mean train loss over [from, to) of the curve.
float mean_loss(const trainer& t, int from, int to) {
    from = std::max(from, 0);
    to = std::min(to, int(t.curve.size()));
    double s = 0;
    for (int i = from; i < to; ++i)
        s += double(t.curve[std::size_t(i)].loss);
    return to > from ? float(s / double(to - from)) : 0.0f;
}

const trainer_mark* mark_at_or_before(const trainer& t, int step) {
    const trainer_mark* best = nullptr;
    for (const trainer_mark& m : t.marks)
        if (m.step <= step)
            best = &m;
    return best;
}

const trainer_mark* mark_at_or_after(const trainer& t, int step) {
    for (const trainer_mark& m : t.marks)
        if (m.step >= step)
            return &m;
    return nullptr;
}

}  // namespace

formation_measure measure_formation(const trainer& t) {
    formation_measure f;
    if (!t.run || t.now.heads.empty())
        return f;
    const int h = t.run->h, L = t.run->L;
    const auto score = [&](const trainer_mark& m, head_ref r) { return m.heads[std::size_t(r.layer * h + r.head)]; };
    for (int l = 0; l < L; ++l)
        for (int i = 0; i < h; ++i) {
            const head_scores& s = t.now.heads[std::size_t(l * h + i)];
            if (l == 0 && (!f.previous.valid() || s.prev_mean() > f.previous_score))
                f.previous = {l, i}, f.previous_score = s.prev_mean();
            if (l >= 1 && (!f.induction.valid() || s.induction_mean() > f.induction_score))
                f.induction = {l, i}, f.induction_score = s.induction_mean();
        }
    if (f.induction.valid()) {
        float lowest = 2.0f;
        for (int i = 0; i < h; ++i)
            if (const float v = score(t.now, {f.induction.layer, i}).induction_mean(); i != f.induction.head && v < lowest)
                f.other = {f.induction.layer, i}, lowest = v;
    }
    f.phase = trainer_phase_step(t);
    if (f.phase < 0)
        return f;
    const int w = std::clamp(int(t.curve.size()) / 20, 5, 50);  // trainer_phase_step's window
    f.loss_before = mean_loss(t, f.phase - w, f.phase);
    f.loss_after = mean_loss(t, f.phase, f.phase + w);
    const trainer_mark* before = mark_at_or_before(t, f.phase - w);
    const trainer_mark* after = mark_at_or_after(t, f.phase + w);
    if (before && after && f.induction.valid()) {
        f.before_step = before->step, f.after_step = after->step;
        f.induction_before = score(*before, f.induction).induction_mean();
        f.induction_after = score(*after, f.induction).induction_mean();
    }
    return f;
}

shortcut_measure measure_shortcut(trainer& t) {
    shortcut_measure m;
    if (!t.run || t.now.heads.empty())
        return m;
    const int h = t.run->h;
    for (std::size_t k = 0; k < t.now.heads.size(); ++k) {
        const head_scores& s = t.now.heads[k];
        if (s.offset_mean() > m.max_offset || !m.best.valid())
            m.best = {int(k) / h, int(k) % h};
        m.max_offset = std::max(m.max_offset, s.offset_mean());
        m.max_induction = std::max(m.max_induction, s.induction_mean());
        if (s.offset_mean() >= shortcut_offset_score)
            m.positional.push_back({int(k) / h, int(k) % h});
    }
    train_settings induction = t.run->e.train;
    induction.task = train_task::induction;
    m.on_induction = train_evaluate_task(*t.run, induction);
    return m;
}

}  // namespace attn
