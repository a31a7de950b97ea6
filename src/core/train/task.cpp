#include "train/task.hpp"

#include <algorithm>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"

namespace attn {

namespace {

int below(rng& g, int n) { return int(g.next_u64() % std::uint64_t(n)); }

void induction_row(const train_settings& t, rng& g, int* in, int* tgt, unsigned char* cnt) {
    const int T = t.seq, V = t.vocab;
    const int lmax = std::max(1, std::min((T - 2) / 2, V - 2)), lmin = std::min(3, lmax);
    const int len = lmin + below(g, lmax - lmin + 1), prefix = T - 2 * len;
    int perm[train_limits::max_vocab];
    for (int v = 0; v < V; ++v)
        perm[v] = v;
    for (int i = 0; i < len; ++i)  // a partial Fisher–Yates shuffle: the segment's distinct symbols
        std::swap(perm[i], perm[i + below(g, V - i)]);
    for (int i = 0; i < prefix; ++i)
        in[i] = perm[len + below(g, V - len)];
    for (int i = 0; i < len; ++i)
        in[prefix + i] = in[prefix + len + i] = perm[i];
    for (int i = 0; i < T; ++i) {
        tgt[i] = i + 1 < T ? in[i + 1] : 0;
        cnt[i] = i >= prefix + len && i + 1 < T ? 1 : 0;
    }
}

void offset_row(int k, const train_settings& t, rng& g, int* in, int* tgt, unsigned char* cnt) {
    for (int i = 0; i < t.seq; ++i)
        in[i] = below(g, t.vocab);
    for (int i = 0; i < t.seq; ++i) {
        tgt[i] = i >= k ? in[i - k] : 0;
        cnt[i] = i >= k ? 1 : 0;
    }
}

void reorder_row(bool sorted, const train_settings& t, rng& g, int* in, int* tgt, unsigned char* cnt) {
    const int T = t.seq, sep = t.vocab - 1, m = (T - 1) / 2;
    for (int i = 0; i < m; ++i)
        in[i] = below(g, sep);
    in[m] = sep;
    for (int i = 0; i < m; ++i)
        in[m + 1 + i] = in[m - 1 - i];
    if (sorted)
        std::sort(in + m + 1, in + 2 * m + 1);
    for (int i = 2 * m + 1; i < T; ++i)
        in[i] = sep;
    for (int i = 0; i < T; ++i) {
        tgt[i] = i + 1 < T ? in[i + 1] : 0;
        cnt[i] = i >= m && i < 2 * m ? 1 : 0;
    }
}

// One token's next-token distribution in a markov row: a Dirichlet(α) draw, Gamma(α) deviates normalised.
void markov_draw(const train_settings& t, rng& g, float* row) {
    double draws[train_limits::max_vocab], sum = 0.0;
    for (int v = 0; v < t.vocab; ++v)
        sum += draws[v] = g.gamma(double(t.markov_alpha));
    for (int v = 0; v < t.vocab; ++v)
        row[v] = float(draws[v] / sum);
}

// The next token after a row of transitions: the first whose cumulative probability passes u.
int markov_next(const float* row, int V, double u) {
    double c = 0.0;
    for (int v = 0; v < V - 1; ++v)
        if ((c += row[v]) > u)
            return v;
    return V - 1;
}

}  // namespace

void task_markov_row(const train_settings& t, rng& g, int* in, int* tgt, unsigned char* cnt, float* transitions) {
    const int T = t.seq, V = t.vocab;
    bool drawn[train_limits::max_vocab] = {};
    std::fill(transitions, transitions + V * V, 0.0f);
    in[0] = below(g, V);
    for (int i = 0; i + 1 < T; ++i) {
        float* row = transitions + in[i] * V;
        if (!drawn[in[i]]) {  // drawn when first left: a short row over a large vocabulary draws few
            markov_draw(t, g, row);
            drawn[in[i]] = true;
        }
        in[i + 1] = markov_next(row, V, g.uniform_open());
    }
    for (int i = 0; i < T; ++i) {
        tgt[i] = i + 1 < T ? in[i + 1] : 0;
        cnt[i] = i + 1 < T ? 1 : 0;
    }
}

std::string task_symbol(int v) {
    static const char names[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    return v >= 0 && v < 62 ? std::string(1, names[v]) : "?";
}

std::string untexted_text(int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s += i ? " a" : "a";
    return s;
}

int task_symbol_index(const std::string& s) {
    if (s.size() != 1)
        return -1;
    const char c = s[0];
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= 'A' && c <= 'Z')
        return 26 + c - 'A';
    if (c >= '0' && c <= '9')
        return 52 + c - '0';
    return -1;
}

void task_row(const train_settings& t, rng& g, int* input, int* target, unsigned char* counted) {
    switch (t.task) {
        case train_task::induction:
            induction_row(t, g, input, target, counted);
            return;
        case train_task::copy_offset:
            offset_row(t.offset, t, g, input, target, counted);
            return;
        case train_task::previous:
        case train_task::none:
            offset_row(1, t, g, input, target, counted);
            return;
        case train_task::reverse:
        case train_task::sort:
            reorder_row(t.task == train_task::sort, t, g, input, target, counted);
            return;
        case train_task::markov: {
            float transitions[train_limits::max_vocab * train_limits::max_vocab];  // 15 KB of stack, no allocation
            task_markov_row(t, g, input, target, counted, transitions);
            return;
        }
    }
}

rng task_batch_stream(std::uint32_t train_seed, int step) {
    // Arithmetic, not a formatted name: nothing is allocated per step.
    rng mix(hash_combine(train_seed, "task.train") ^ (std::uint64_t(step) + 1) * 0xD1B54A32D192ED03ull);
    return rng(mix.next_u64());
}

void markov_counts::reset(int vocab, double a) {
    V = vocab, n = 0, last = -1, alpha = a;
    std::fill(unigram, unigram + V, 0);
    std::fill(from, from + V, 0);
    std::fill(bigram, bigram + V * V, 0);
}

void markov_counts::add(int token) {
    ++unigram[token];
    ++n;
    if (last >= 0) {
        ++bigram[last * V + token];
        ++from[last];
    }
    last = token;
}

void markov_counts::predict(double* uniform, double* unigram_p, double* bigram_p) const {
    const double a = alpha, uni = 1.0 / (n + V * a), bi = 1.0 / (from[last] + V * a);
    for (int j = 0; j < V; ++j) {
        uniform[j] = 1.0 / V;
        unigram_p[j] = (unigram[j] + a) * uni;
        bigram_p[j] = (bigram[last * V + j] + a) * bi;
    }
}

rng task_eval_stream(std::uint32_t train_seed) { return rng(hash_combine(train_seed, "task.eval")); }

std::vector<std::string> recipe_text_problems(const experiment& e) {
    std::vector<std::string> errors;
    const train_settings& t = e.train;
    if (t.task == train_task::none)
        return errors;
    const std::vector<std::string> tokens = tokenize(e.text);
    for (const std::string& tok : tokens)
        if (const int v = task_symbol_index(tok); v < 0 || v >= t.vocab) {
            errors.push_back("the text's token " + quoted(tok) + " is not a symbol of the task's vocabulary (" + task_symbol(0) +
                             " … " + task_symbol(t.vocab - 1) + "): write the text as symbols separated by spaces");
            break;
        }
    if (e.pos == positional::learned && int(tokens.size()) > t.seq)
        errors.push_back("with pos=learned the text has at most seq = " + std::to_string(t.seq) + " tokens, not " +
                         std::to_string(tokens.size()));
    return errors;
}

}  // namespace attn
