// What lesson L12 ("learning in context") claims of a run's circuit timeline
// (circuits/timeline.hpp) at the model's step, measured here so the card only
// draws it, each claim shown only when the snapshots up to the step support it.
//
//   the bump     induction: the held-out loss at the repeat (the counted
//                positions) and at the same transitions' first occurrences, at the
//                last snapshot before the drop and at the step: after the drop the
//                repeat is cheap and the first occurrence, random symbols the task
//                does not train, is not. Every task: the next-token loss at the rows'
//                early positions (their first quarter) and late ones (their last);
//   the ICL score before the drop and at the step (timeline.hpp's definition);
//   markov       the predictor (uniform, unigram, bigram of the row's own prefix)
//                the model is nearest at each snapshot, by KL(predictor ‖ model),
//                and where each phase starts.
#pragma once

#include <limits>
#include <vector>

#include "circuits/timeline.hpp"

namespace attn {

inline constexpr float context_late_fall = 1.0f;     // "the repeat gets cheaper": by at least this many nats
inline constexpr float context_early_change = 0.5f;  // "the first occurrence does not": it falls by less than this
inline constexpr float context_markov_gap = 0.05f;   // markov: late positions cheaper than early ones by this

struct context_claims {
    int step = 0;
    int measured = 0, needed = 0;            // snapshots up to the step measured, and how many there are
    bool complete = false;                   // measured ≥ needed: the claims below are read from all of them
    bool induction = false, markov = false;  // which claims apply (the timeline's task)
    int drop_step = -1;                      // the run's drop (timeline's drop_step) once measured by the step; −1: none yet
    int before_step = -1;                    // the last snapshot before the drop (the step's own when there is no drop)
    float repeat_before = std::numeric_limits<float>::quiet_NaN(), repeat_now = std::numeric_limits<float>::quiet_NaN();
    float first_before = std::numeric_limits<float>::quiet_NaN(), first_now = std::numeric_limits<float>::quiet_NaN();
    float early_before = std::numeric_limits<float>::quiet_NaN(), early_now = std::numeric_limits<float>::quiet_NaN();
    float late_before = std::numeric_limits<float>::quiet_NaN(), late_now = std::numeric_limits<float>::quiet_NaN();
    int early_end = 0, late_begin = 0;  // early: positions [0, early_end); late: [late_begin, T − 1)
    float icl_before = 0;               // the largest |ICL| while the loss is above ¾ of its start
    float icl_now = std::numeric_limits<float>::quiet_NaN();
    bool bump_shown =
        false;  // the drop is at or before the step, late fell ≥ context_late_fall, early moved < context_early_change
    bool icl_shown = false;  // as circuit_claims::icl_shown
    // markov: per snapshot up to the step, 0 uniform, 1 unigram, 2 bigram (the smallest KL).
    std::vector<int> nearest;
    int unigram_from = -1, bigram_from = -1;              // the first step nearest each; −1: never
    float kl_uniform = 0, kl_unigram = 0, kl_bigram = 0;  // at the step's snapshot
    bool phases_shown = false;                            // uniform first, then unigram, then bigram (nearest at the step)
};

// The claims over the snapshots of tl up to `step`, of which the first `measured`
// are in (a study's snapshots_done; the rest are pending: circuit_study_pending).
// Until every snapshot up to the step is in, `complete` is false and no claim is
// shown: a claim is stated once, from all its evidence, and does not flip as it arrives.
context_claims measure_context(const circuit_timeline& tl, int step, int measured);

}  // namespace attn
