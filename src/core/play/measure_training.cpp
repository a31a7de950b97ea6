#include "play/measure_training.hpp"

#include <algorithm>
#include <cmath>

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

const trainer_mark* mark_at_or_after(const trainer& t, int step) {
    for (const trainer_mark& m : t.marks)
        if (m.step >= step)
            return &m;
    return nullptr;
}

// The median train loss over [from, to) of the curve (0 when empty).
float median_loss(const trainer& t, int from, int to) {
    from = std::max(from, 0);
    to = std::min(to, int(t.curve.size()));
    if (to <= from)
        return 0.0f;
    std::vector<float> v;
    for (int i = from; i < to; ++i)
        v.push_back(t.curve[std::size_t(i)].loss);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// Which of L9's claims the model at f.step supports.
void formation_support(const trainer& t, formation_measure& f) {
    f.induction_task = t.run->e.train.task == train_task::induction;
    // The drop as the curve up to the model's step has it (train_find_drop: settled, so the same step the whole curve names).
    const train_drop now = train_find_drop(t.curve, f.step, t.run->e.train.steps);
    f.drop_shown = now.step >= 0 && now.step == f.phase;
    f.plateau_shown = f.drop_shown && now.plateau;
    f.induction_shown = f.induction_task && f.induction.valid() && f.induction_score >= claim_induction_score;
    f.jump_shown = f.induction_shown && f.drop_shown && f.before_step >= 0 && f.after_step <= f.step &&
                   f.induction_before < claim_induction_score && f.induction_after >= claim_induction_score;
    f.previous_shown = f.induction_shown && f.previous.valid() && f.previous_score >= claim_previous_score;
}

}  // namespace

formation_measure measure_formation(const trainer& t) {
    formation_measure f;
    if (!t.run)
        return f;
    f.induction_task = t.run->e.train.task == train_task::induction;  // known before any measure
    if (t.now.heads.empty())
        return f;
    const int h = t.run->h, L = t.run->L;
    f.scores_step = t.now.step;
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
    f.step = trainer_step(t);
    const train_drop drop = train_find_drop(t.curve, int(t.curve.size()), t.run->e.train.steps);  // trainer_phase_step's
    f.phase = drop.step;
    const int w = drop.window;
    f.window = w;
    f.loss_now = median_loss(t, f.step - w, f.step);  // the median: a trained model's rare spikes do not lift it
    if (f.phase < 0) {
        formation_support(t, f);
        return f;
    }
    f.loss_before = mean_loss(t, f.phase - w, f.phase);
    f.loss_after = mean_loss(t, f.phase, f.phase + w);
    f.plateau_loss = f.phase - w > w ? median_loss(t, w, f.phase - w) : f.loss_before;
    const trainer_mark* before = trainer_mark_before(t, f.phase - w);
    const trainer_mark* after = mark_at_or_after(t, f.phase + w);
    if (before && after && f.induction.valid()) {
        f.before_step = before->step, f.after_step = after->step;
        f.induction_before = score(*before, f.induction).induction_mean();
        f.induction_after = score(*after, f.induction).induction_mean();
    }
    formation_support(t, f);
    return f;
}

bool task_solved(const train_eval_result& r, float chance) { return r.acc - chance >= claim_task_solved; }

bool task_broken(const train_eval_result& intact, const train_eval_result& zeroed, float chance) {
    return task_solved(intact, chance) && intact.acc - zeroed.acc >= 0.5f * (intact.acc - chance);
}

task_reading measure_task_reading(const trainer& t) {
    task_reading r;
    if (!t.run || t.now.heads.empty())
        return r;
    const train_run& run = *t.run;
    r.task = run.e.train.task;
    const int h = run.h;
    if (r.task == train_task::copy_offset || r.task == train_task::previous) {
        r.kind = head_reading::offset;
        r.offset = r.task == train_task::previous ? 1 : run.e.train.offset;
        for (std::size_t k = 0; k < t.now.heads.size(); ++k)
            if (const float s = t.now.heads[k].offset_mean(); !r.head.valid() || s > r.score)
                r.head = {int(k) / h, int(k) % h}, r.score = s;
    } else if (r.task == train_task::reverse) {
        r.kind = head_reading::anti_diagonal;
        const int T = int(t.probe_counted.size());
        int m = -1;
        for (int i = 0; i < T && m < 0; ++i)
            if (t.probe_counted[std::size_t(i)])
                m = i;
        for (std::size_t k = 0; m > 0 && k < t.probe.size(); ++k) {
            const matrix& w = t.probe[k];
            double s = 0;
            int n = 0;
            for (int i = m; i < T && i <= 2 * m - 1; ++i)
                if (t.probe_counted[std::size_t(i)] && 2 * m - 1 - i >= 0 && i < w.rows && 2 * m - 1 - i < w.cols)
                    s += double(w(i, 2 * m - 1 - i)), ++n;
            const float score = n ? float(s / n) : 0.0f;
            if (!r.head.valid() || score > r.score)
                r.head = {int(k) / h, int(k) % h}, r.score = score;
        }
    }
    r.shown = r.kind != head_reading::none && r.head.valid() && std::isfinite(r.score) && r.score >= claim_reading_score;
    return r;
}

train_eval_job shortcut_induction_job(const trainer& t) {
    train_settings induction = t.run->e.train;
    induction.task = train_task::induction;
    return train_evaluate_task_job(*t.run, induction);
}

shortcut_measure measure_shortcut(trainer& t) {
    if (!t.run || t.now.heads.empty())
        return {};
    train_eval_job job = shortcut_induction_job(t);
    while (!job.done())
        train_evaluate_piece(*t.run, job);
    return measure_shortcut(t, job.result());
}

shortcut_measure measure_shortcut(const trainer& t, const train_eval_result& on_induction) {
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
    m.on_induction = on_induction;
    m.step = trainer_step(t);
    m.chance = 1.0f / float(std::max(t.run->e.train.vocab, 1));
    m.own = t.now.held_out;
    m.solved = task_solved(m.own, m.chance);
    m.shortcut_shown = m.solved && !m.positional.empty() && m.max_induction < claim_induction_score;
    m.fails_induction_shown = m.solved && task_broken(m.own, m.on_induction, m.chance);
    return m;
}

}  // namespace attn
