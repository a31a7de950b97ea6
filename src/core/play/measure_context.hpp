// What lesson L12 ("learning in context") claims of a run's circuit timeline
// (circuits/timeline.hpp) at the model's step, measured here so the card only
// draws it, each claim shown only when the snapshots up to the step support it.
//
//   the bump     the next-token loss at the row's early positions (its first
//                quarter) and late ones (its last quarter), every row's, at the
//                last snapshot before the drop and at the step: after the drop the
//                late positions — mostly a repeat — are cheap and the early ones,
//                random symbols, are not;
//   the ICL score before the drop and at the step (timeline.hpp's definition);
//   markov       the predictor (uniform, unigram, bigram of the row's own prefix)
//                the model is nearest at each snapshot, by KL(predictor ‖ model),
//                and where each phase starts.
#pragma once

#include <limits>
#include <vector>

#include "circuits/timeline.hpp"

namespace attn {

inline constexpr float context_late_fall = 1.0f;     // "late positions get cheaper": by at least this many nats
inline constexpr float context_early_change = 0.5f;  // "early ones do not": they move by less than this

struct context_claims {
    int step = 0;
    bool induction = false, markov = false;  // which claims apply (the timeline's task)
    int drop_step = -1;                      // the first snapshot whose loss is below half the first's; −1: none yet
    int before_step = -1;                    // the last snapshot before it (the step's own when there is no drop)
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

// The claims over the snapshots of tl up to `step`.
context_claims measure_context(const circuit_timeline& tl, int step);

}  // namespace attn
