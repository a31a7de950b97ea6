#include "train/train_diagnostics.hpp"

#include <algorithm>

#include "base/measure.hpp"

namespace attn {

void head_scores::add(const float* w, const int* tokens, int n, int k) {
    for (int i = 0; i < n; ++i) {
        const float* row = w + std::size_t(i) * std::size_t(n);
        entropy += softmax_row_entropy(row, n);
        ++n_entropy;
        if (i >= 1) {
            prev += row[i - 1];
            sink += row[0];
            ++n_prev;
            ++n_sink;
        }
        if (k >= 1 && i >= k) {
            offset += row[i - k];
            ++n_offset;
        }
        int j = i - 1;
        while (j >= 0 && tokens[j] != tokens[i])
            --j;
        if (j >= 0 && j + 1 < i) {
            induction += row[j + 1];
            ++n_induction;
        }
    }
}

float head_score_mean(const head_scores& s, head_score k) {
    switch (k) {
        case head_score::previous:
            return s.prev_mean();
        case head_score::induction:
            return s.induction_mean();
        case head_score::offset:
            return s.offset_mean();
        case head_score::sink:
            return s.sink_mean();
    }
    return 0.0f;
}

bool head_score_shown(head_score k, train_task task) {
    return k != head_score::offset || task == train_task::copy_offset || task == train_task::previous;
}

namespace {

// Adds the scores (and with `sum`, the outputs) of held-out rows [b0, b0 + rows),
// whose forward the run has just computed.
void add_head_scores(train_run& r, int b0, int rows, std::vector<head_scores>& scores, std::vector<double>* sum, int* count) {
    const int T = r.T, d = r.d, dk = r.dk, k = r.e.train.task == train_task::previous ? 1 : r.e.train.offset;
    for (int b = 0; b < rows; ++b) {
        const int* tokens = r.eval_tokens.data() + std::size_t((b0 + b) * T);
        for (int l = 0; l < r.L; ++l) {
            const float* att = train_attention(r, b, l);
            const float* concat = train_concat(r, b, l);
            for (int i = 0; i < r.h; ++i) {
                scores[std::size_t(l * r.h + i)].add(att + std::size_t(i * T * T), tokens, T, k);
                if (!sum)
                    continue;
                double* s = sum->data() + std::size_t((l * r.h + i) * dk);
                for (int t = 0; t < T; ++t)
                    for (int q = 0; q < dk; ++q)
                        s[q] += concat[t * d + i * dk + q];
            }
        }
        if (count)
            *count += T;
    }
}

}  // namespace

void train_head_scores(train_run& r, int rows_wanted, std::vector<head_scores>& scores, std::vector<double>* sum, int* count) {
    const int total = std::clamp(rows_wanted, 0, train_eval_rows);
    scores.assign(std::size_t(r.L * r.h), head_scores{});
    for (int b0 = 0; b0 < total; b0 += r.B) {
        const int rows = std::min(r.B, total - b0);
        train_forward_rows(r, r.eval_tokens.data() + std::size_t(b0 * r.T), rows);
        add_head_scores(r, b0, rows, scores, sum, count);
    }
}

train_eval_result train_evaluate_scored(train_run& r, std::vector<head_scores>& scores) {
    scores.assign(std::size_t(r.L * r.h), head_scores{});
    return train_evaluate(r, nullptr, [&](int b0, int rows) { add_head_scores(r, b0, rows, scores, nullptr, nullptr); });
}

void train_scored_piece(train_run& r, train_scored_job& job) {
    if (job.eval.done())
        return;
    if (job.heads.empty())
        job.heads.assign(std::size_t(r.L * r.h), head_scores{});
    const int row = job.eval.row;
    train_evaluate_piece(r, job.eval);
    add_head_scores(r, row, 1, job.heads, nullptr, nullptr);
}

train_diagnostics train_diagnose(train_run& r) {
    const int dk = r.dk;
    std::vector<head_scores> scores;
    std::vector<double> sum(std::size_t(r.L * r.h * dk), 0.0);
    int count = 0;
    train_head_scores(r, train_eval_rows, scores, &sum, &count);
    train_diagnostics out;
    out.base = train_evaluate(r);
    std::vector<float> mean(static_cast<std::size_t>(dk), 0.0f);
    for (int l = 0; l < r.L; ++l)
        for (int i = 0; i < r.h; ++i) {
            const head_scores& s = scores[std::size_t(l * r.h + i)];
            head_report h;
            h.layer = l, h.head = i;
            h.prev = s.prev_mean(), h.induction = s.induction_mean(), h.offset = s.offset_mean();
            h.sink = s.sink_mean(), h.entropy = s.entropy_mean();
            head_override zero{l, i, nullptr, nullptr};
            const train_eval_result z = train_evaluate(r, &zero);
            h.ablate_loss = z.loss, h.ablate_acc = z.acc;
            for (int q = 0; q < dk; ++q)
                mean[std::size_t(q)] = float(sum[std::size_t((l * r.h + i) * dk + q)] / double(std::max(count, 1)));
            head_override avg{l, i, mean.data(), nullptr};
            const train_eval_result m = train_evaluate(r, &avg);
            h.mean_loss = m.loss, h.mean_acc = m.acc;
            out.heads.push_back(h);
        }
    return out;
}

}  // namespace attn
