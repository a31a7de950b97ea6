// The session's state as JSON (session_json.hpp).
#include "play/session_json.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "base/text_util.hpp"
#include "play/training.hpp"
#include "train/task.hpp"
#include "train/train.hpp"

namespace attn {

std::string trainer_heads_json(const trainer_mark& m) {
    std::string j = "[";
    for (std::size_t i = 0; i < m.heads.size(); ++i) {
        const attn::head_scores& h = m.heads[i];
        j += std::string(i ? "," : "") + "{\"prev\":" + json_number(h.prev_mean()) +
             ",\"induction\":" + json_number(h.induction_mean()) + ",\"offset\":" + json_number(h.offset_mean()) +
             ",\"sink\":" + json_number(h.sink_mean()) + "}";
    }
    return j + "]";
}

std::string session_train_json(const session& s, bool heads) {
    const attn::trainer& t = s.train;
    if (s.exp.train.task == attn::train_task::none)
        return "null";
    const int step = attn::trainer_step(t);
    // done: at the step the link asks for. A run whose loss stopped being finite
    // is not done: it says stopped, and the error says where and why.
    const bool stopped = attn::trainer_stopped(t);
    const bool done = attn::trainer_done(t) && !stopped;
    // null until a measure is done (trainer_measured), as the panel shows none
    const auto held_out = [&](float v) { return attn::trainer_measured(t) ? json_number(v) : std::string("null"); };
    // null at step 0 (after Reset too): no batch trained on, no train loss
    const std::optional<attn::train_point> last = attn::trainer_last_point(t);
    const auto point = [&](float attn::train_point::*v) { return last ? json_number((*last).*v) : std::string("null"); };
    std::string j = "{\"step\":" + std::to_string(step) + ",\"target\":" + std::to_string(t.target) +
                    ",\"steps\":" + std::to_string(s.exp.train.steps) + ",\"loss\":" + point(&attn::train_point::loss) +
                    ",\"accuracy\":" + point(&attn::train_point::acc) + ",\"heldOutLoss\":" + held_out(t.now.held_out.loss) +
                    ",\"heldOutAccuracy\":" + held_out(t.now.held_out.acc) + ",\"done\":" + (done ? "true" : "false") +
                    ",\"stopped\":" + (stopped ? "true" : "false") +
                    ",\"hash\":" + (done && t.run ? "\"" + attn::train_weights_hash(*t.run) + "\"" : std::string("null")) +
                    ",\"phase\":" + std::to_string(attn::trainer_phase_step(t)) + ",\"marks\":" + std::to_string(t.marks.size()) +
                    ",\"error\":" + attn::json_string(t.error);
    const attn::train_cost cost = attn::train_estimate(s.exp);  // from the shape, before running
    j += ",\"estimate\":{\"stepSeconds\":" + json_number(float(attn::train_seconds(cost.step))) +
         ",\"runSeconds\":" + json_number(float(attn::train_seconds(cost.run))) +
         ",\"long\":" + (attn::train_is_long(s.exp) ? "true" : "false") + "}";
    // Between frames: a step begun and not finished (or steps going on beside the drawing: trainer_launch), a
    // held-out measure under way (trainer_advance's pieces).
    const bool in_step = t.run && !t.lost && (t.job.busy() || attn::train_step_in_progress(*t.run));
    j += std::string(",\"inStep\":") + (in_step ? "true" : "false") +
         ",\"measuring\":" + (t.measuring_step >= 0 ? "true" : "false") + ",\"threads\":" +
         std::to_string(attn::session_train_threads(s)) +  // what the steps run on (apart: all but the drawing's)
         ",\"apart\":" + (attn::session_trains_apart(s) ? "true" : "false");  // beside the drawing (training.hpp)
    j += ",\"stops\":[";  // the scrubber's stops: the grid's steps and the dense snapshots taken (trainer_snapshot_steps)
    const std::vector<int> stops = attn::trainer_snapshot_steps(t);
    for (std::size_t i = 0; i < stops.size(); ++i)
        j += (i ? "," : "") + std::to_string(stops[i]);
    j += "]";
    if (heads) {
        j += ",\"measuredStep\":" + std::to_string(t.measured_step) + ",\"heads\":" + trainer_heads_json(t.now);
        j += ",\"kept\":[";  // the measures at each snapshot the run reached
        for (std::size_t i = 0; i < t.marks.size(); ++i)
            j += std::string(i ? "," : "") + "{\"step\":" + std::to_string(t.marks[i].step) +
                 ",\"heldOutLoss\":" + json_number(t.marks[i].held_out.loss) +
                 ",\"heldOutAccuracy\":" + json_number(t.marks[i].held_out.acc) + ",\"heads\":" + trainer_heads_json(t.marks[i]) +
                 "}";
        const attn::task_effect& e = s.ablated_task;
        j += "],\"ablated\":" +
             (e.valid ? "{\"loss\":" + json_number(e.ablated.loss) + ",\"accuracy\":" + json_number(e.ablated.acc) +
                            ",\"baseLoss\":" + json_number(e.base.loss) + ",\"baseAccuracy\":" + json_number(e.base.acc) + "}"
                      : std::string("null"));
    }
    return j + "}";
}

std::string session_prediction_json(const session& s, int row) {
    const attn::circuit_prediction& p = s.prediction;
    if (p.n == 0)
        return "null";
    const int t = std::clamp(row, 0, p.n - 1), target = p.targets[std::size_t(t)];
    auto symbol = [](int v) { return "\"" + attn::task_symbol(v) + "\""; };  // a–z, A–Z, 0–9: nothing to escape
    std::string j = "{\"row\":" + std::to_string(t) + ",\"token\":" + symbol(p.tokens[std::size_t(t)]) +
                    ",\"target\":" + (target < 0 ? "null" : symbol(target)) +
                    ",\"targetProb\":" + json_number(p.target_prob[std::size_t(t)]) +
                    ",\"targetRank\":" + (target < 0 ? "null" : std::to_string(p.target_rank[std::size_t(t)])) + ",\"top\":[";
    for (int i = 0; i < p.top_k; ++i) {
        const int v = p.top[std::size_t(t * p.top_k + i)];
        j += std::string(i ? "," : "") + "{\"token\":" + symbol(v) + ",\"p\":" + json_number(p.probs[std::size_t(t * p.V + v)]) +
             "}";
    }
    j += "],\"lens\":[";
    const std::size_t nv = std::size_t(p.n) * std::size_t(p.V);
    for (int l = 0; l < p.L; ++l) {
        const int top = p.lens_top[std::size_t(l * p.n + t)];
        j += std::string(l ? "," : "") + "{\"layer\":" + std::to_string(l) + ",\"top\":" + symbol(top) +
             ",\"p\":" + json_number(p.lens_probs[std::size_t(l) * nv + std::size_t(t * p.V + top)]) +
             ",\"targetRank\":" + (target < 0 ? "null" : std::to_string(p.lens_target_rank[std::size_t(l * p.n + t)])) + "}";
    }
    const attn::circuit_writer& w = p.writer[std::size_t(t)];
    static const char* const kinds[] = {"none", "embed", "head", "ffn"};
    j += "],\"writer\":{\"kind\":\"" + std::string(kinds[int(w.kind)]) + "\",\"layer\":" + std::to_string(w.layer) +
         ",\"head\":" + std::to_string(w.head_index) + ",\"part\":" + json_number(w.part) + ",\"logit\":" + json_number(w.logit) +
         ",\"attendsTo\":" + std::to_string(w.attends_to) + ",\"weight\":" + json_number(w.weight) + "}";
    return j + "}";
}

std::string real_model_limits_json(const real_model_limits& l) {
    return l.error.empty()
               ? "{\"checkpoint\":" + std::to_string(l.checkpoint) + ",\"tokenizer\":" + std::to_string(l.tokenizer) + "}"
               : "{\"error\":" + attn::json_string(l.error) + "}";
}

}  // namespace attn
