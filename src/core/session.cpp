#include "session.hpp"

#include <utility>

namespace attn {

namespace {

void accept(session& s, const experiment& next) {
    if (next == s.exp)
        return;
    s.exp = next;
    ++s.version;
}

void record(session& s, double time) {
    const bool merges =
        time >= 0 && s.last_record_time >= 0 && time - s.last_record_time <= session_merge_seconds && !s.undo.empty();
    if (!merges) {
        s.undo.push_back(s.exp);
        if (s.undo.size() > session_history_limit)
            s.undo.erase(s.undo.begin());
    }
    s.last_record_time = time;
    s.redo.clear();
}

change_result set_experiment(session& s, const experiment& next, bool record_it, double time) {
    change_result r;
    r.errors = experiment_validate(next);
    if (!r.errors.empty())
        return r;
    r.accepted = true;
    if (record_it && !(next == s.exp))
        record(s, time);
    accept(s, next);
    return r;
}

change_result step_history(session& s, std::vector<experiment>& from, std::vector<experiment>& to) {
    change_result r;
    if (from.empty())
        return r;
    to.push_back(s.exp);
    const experiment e = std::move(from.back());
    from.pop_back();
    s.last_record_time = -1.0;
    accept(s, e);
    r.accepted = true;
    return r;
}

}  // namespace

change_result session_apply(session& s, const change& c) {
    switch (c.what) {
        case change::kind::set:
            return set_experiment(s, c.next, c.record, c.time);
        case change::kind::link: {
            link_parse_result parsed = link_parse(c.link);
            if (!parsed.value) {
                change_result r;
                r.errors = std::move(parsed.errors);
                return r;
            }
            change_result r = set_experiment(s, *parsed.value, c.record, -1.0);
            if (r.accepted)
                r.view = parsed.view;
            return r;
        }
        case change::kind::undo:
            return step_history(s, s.undo, s.redo);
        case change::kind::redo:
            return step_history(s, s.redo, s.undo);
    }
    return {};
}

experiment experiment_without_interventions(const experiment& e) {
    experiment b = e;
    b.ablate.clear();
    b.edges.clear();
    return b;
}

bool session_update(session& s) {
    if (s.traced_version == s.version)
        return false;
    // One trace at a time, and a lean baseline (its output is all it is read
    // for): the peak forward.hpp's experiment_peak_bytes bounds.
    s.tr = trace{};
    s.baseline = trace{};
    s.tr = forward(s.exp);
    s.has_baseline = !s.exp.ablate.empty() || !s.exp.edges.empty();
    if (s.has_baseline)
        s.baseline = forward_with(experiment_without_interventions(s.exp), s.tr.tokens, s.tr.params, trace_options::lean());
    s.traced_version = s.version;
    return true;
}

}  // namespace attn
