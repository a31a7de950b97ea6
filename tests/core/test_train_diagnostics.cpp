// Head scores on constructed heads with known behaviour, the task generators,
// and the ablation table's bookkeeping.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "base/tokenize.hpp"
#include "model/forward.hpp"
#include "spec/experiment.hpp"
#include "spec/recipe.hpp"
#include "train/task.hpp"
#include "train/train.hpp"
#include "train/train_diagnostics.hpp"

using namespace attn;

namespace {

std::vector<int> ids_of(const std::vector<std::string>& tokens) {
    std::map<std::string, int> ids;
    std::vector<int> out;
    for (const auto& t : tokens)
        out.push_back(ids.emplace(t, int(ids.size())).first->second);
    return out;
}

head_scores scores_of(const experiment& e, int layer, int head, int k = 2) {
    const trace t = forward(e);
    const auto ids = ids_of(t.tokens);
    const matrix& w = t.layers[std::size_t(layer)].heads[std::size_t(head)].weights;
    head_scores s;
    s.add(w.data.data(), ids.data(), w.rows, k);
    return s;
}

}  // namespace

TEST_CASE("head scores of hand-written patterns are exact") {
    const int n = 6;
    const int tokens[n] = {0, 1, 2, 0, 1, 2};
    std::vector<float> prev(n * n, 0.0f), induction(n * n, 0.0f), first(n * n, 0.0f);
    for (int i = 0; i < n; ++i) {
        prev[std::size_t(i * n + (i > 0 ? i - 1 : 0))] = 1.0f;
        first[std::size_t(i * n)] = 1.0f;
        induction[std::size_t(i * n + (i >= 3 ? i - 2 : 0))] = 1.0f;  // the token after the earlier copy (3 back, +1)
    }
    head_scores p, ind, f;
    p.add(prev.data(), tokens, n, 1);
    ind.add(induction.data(), tokens, n, 2);
    f.add(first.data(), tokens, n, 3);
    CHECK(p.prev_mean() == 1.0f);
    CHECK(p.offset_mean() == 1.0f);
    CHECK(p.entropy_mean() == 0.0f);
    CHECK(ind.induction_mean() == 1.0f);
    CHECK(ind.offset_mean() == 1.0f);                // rows 2..5 all look 2 back
    CHECK(ind.prev_mean() == doctest::Approx(0.2));  // row 1 of 1..5: its key 0 is also the previous token
    CHECK(f.sink_mean() == 1.0f);
    CHECK(f.induction_mean() == 0.0f);
    CHECK(p.n_induction == 3);
    // The same means by kind, as the views read them.
    CHECK(head_score_mean(p, head_score::previous) == p.prev_mean());
    CHECK(head_score_mean(ind, head_score::induction) == ind.induction_mean());
    CHECK(head_score_mean(ind, head_score::offset) == ind.offset_mean());
    CHECK(head_score_mean(f, head_score::sink) == f.sink_mean());
}

// Issue 51, item 4: the Train panel, the Model window, the text view and the page's
// JSON named these four times over; head_score_table is their one home.
TEST_CASE("head score kinds: one row each, in the enum's order, named and explained in both languages") {
    std::vector<std::string> keys, names;
    for (std::size_t i = 0; i < head_score_table.size(); ++i) {
        const head_score_row& k = head_score_table[i];
        CAPTURE(k.key);
        CHECK(int(k.kind) == int(i));
        CHECK(&head_score_of(k.kind) == &k);
        for (const char* s : {k.key, k.abbr, k.name.en, k.name.zh, k.help.en, k.help.zh}) {
            REQUIRE(s != nullptr);
            CHECK(std::string(s).size() > 0);
        }
        CHECK(std::string(k.name.en) != k.name.zh);
        CHECK(std::string(k.help.en) != k.help.zh);
        CHECK(k.help.en[std::string(k.help.en).size() - 1] != '.');  // a clause: the views end it
        CHECK(k.claim >= 0.0f);
        CHECK(k.claim <= 1.0f);
        CHECK(k.real_bar >= 0.0f);
        CHECK(k.real_bar <= 1.0f);
        keys.push_back(k.key);
        names.push_back(k.name.en);
    }
    // The page's JSON keys, as they were before the table.
    CHECK(keys == std::vector<std::string>{"prev", "induction", "offset", "sink"});
    CHECK(names == std::vector<std::string>{"previous-token", "induction", "offset", "sink"});
    // L9's claims and L13's bars read these rows.
    CHECK(head_score_of(head_score::induction).claim == 0.5f);
    CHECK(head_score_of(head_score::previous).claim == 0.5f);
    CHECK(head_score_of(head_score::sink).real_bar == 0.5f);
    CHECK(head_score_of(head_score::previous).real_bar == 0.4f);
    CHECK(head_score_of(head_score::induction).real_bar == 0.3f);
    // The offset score is shown where the task has an offset.
    CHECK(head_score_shown(head_score::offset, train_task::copy_offset));
    CHECK(head_score_shown(head_score::offset, train_task::previous));
    CHECK_FALSE(head_score_shown(head_score::offset, train_task::induction));
    CHECK(head_score_shown(head_score::sink, train_task::induction));
}

TEST_CASE("the constructed models score as built: previous-token head, attention sink") {
    experiment e;
    e.text = "a b c d e f g h i j k l";
    e.d_model = 16;
    e.heads = 2;
    e.kv_heads = 2;
    e.pos = positional::rope;
    e.weights = weight_init::specialised;
    const head_scores prev_head = scores_of(e, 0, 0);
    MESSAGE("specialised head 0: prev " << prev_head.prev_mean() << ", sink " << prev_head.sink_mean());
    CHECK(prev_head.prev_mean() >= 0.8f);   // measured 0.814
    CHECK(prev_head.sink_mean() <= 0.15f);  // 0.128, most of it row 1, whose previous token is the first
    e.weights = weight_init::sink;
    e.pos = positional::none;
    for (int h = 0; h < e.heads; ++h) {
        const head_scores sink = scores_of(e, 0, h);
        MESSAGE("sink head " << h << ": sink " << sink.sink_mean() << ", prev " << sink.prev_mean());
        CHECK(sink.sink_mean() >= 0.9f);
    }
    e.weights = weight_init::random;
    const head_scores random_head = scores_of(e, 0, 0);
    CHECK(random_head.sink_mean() < 0.5f);
}

TEST_CASE("tasks: induction repeats a segment of distinct symbols; the held-out stream differs from the batches") {
    train_settings t;
    t.task = train_task::induction;
    t.seq = 24;
    t.vocab = 16;
    rng g = task_batch_stream(1, 0);
    std::vector<int> lengths;
    for (int row = 0; row < 200; ++row) {
        int in[24], tgt[24];
        unsigned char cnt[24];
        task_row(t, g, in, tgt, cnt);
        int first = 0;
        while (!cnt[first])
            ++first;
        // Counted from the repeat's first token (at prefix + L) to the second-last token.
        int len = 0;
        for (int l = 3; l <= 11; ++l)
            if (first == 24 - l)
                len = l;
        REQUIRE(len > 0);
        lengths.push_back(len);
        const int prefix = 24 - 2 * len;
        for (int i = 0; i < len; ++i) {
            CHECK(in[prefix + i] == in[prefix + len + i]);
            for (int j = 0; j < prefix; ++j)
                CHECK(in[j] != in[prefix + i]);
            for (int j = 0; j < i; ++j)
                CHECK(in[prefix + j] != in[prefix + i]);
        }
        for (int i = 0; i + 1 < 24; ++i)
            CHECK(tgt[i] == in[i + 1]);
        CHECK(cnt[23] == 0);
    }
    CHECK(*std::min_element(lengths.begin(), lengths.end()) == 3);
    CHECK(*std::max_element(lengths.begin(), lengths.end()) == 11);
    rng a = task_batch_stream(1, 0), b = task_eval_stream(1), c = task_batch_stream(1, 1);
    const auto x = a.next_u64();
    CHECK(x != b.next_u64());
    CHECK(x != c.next_u64());
}

TEST_CASE("tasks: copy_offset, previous, reverse and sort targets") {
    train_settings t;
    t.seq = 9;
    t.vocab = 6;
    rng g(5);
    int in[9], tgt[9];
    unsigned char cnt[9];
    t.task = train_task::copy_offset;
    t.offset = 3;
    task_row(t, g, in, tgt, cnt);
    for (int i = 0; i < 9; ++i) {
        CHECK(cnt[i] == (i >= 3 ? 1 : 0));
        if (i >= 3)
            CHECK(tgt[i] == in[i - 3]);
    }
    t.task = train_task::reverse;
    task_row(t, g, in, tgt, cnt);
    CHECK(in[4] == 5);  // the separator, m = 4
    for (int i = 0; i < 4; ++i)
        CHECK(in[5 + i] == in[3 - i]);
    for (int i = 0; i < 9; ++i)
        CHECK(cnt[i] == (i >= 4 && i < 8 ? 1 : 0));
    t.task = train_task::sort;
    task_row(t, g, in, tgt, cnt);
    for (int i = 6; i < 9; ++i)
        CHECK(in[i - 1] <= in[i]);
}

TEST_CASE("the held-out result and the head scores from one forward pass are those of the two passes") {
    const auto parsed = experiment_parse(recipe_lesson_induction);
    REQUIRE(parsed.value);
    experiment e = *parsed.value;
    e.train.steps = 30;
    auto init = train_init(e);
    REQUIRE(init.run);
    train_run& r = *init.run;
    train_run_all(r);  // a model with some structure, not the initial one
    std::vector<head_scores> apart, together;
    const train_eval_result alone = train_evaluate(r);
    train_head_scores(r, train_eval_rows, apart);
    const train_eval_result scored = train_evaluate_scored(r, together);
    CHECK(scored.loss == alone.loss);
    CHECK(scored.acc == alone.acc);
    REQUIRE(together.size() == apart.size());
    REQUIRE(together.size() == std::size_t(r.L * r.h));
    for (std::size_t i = 0; i < apart.size(); ++i) {
        INFO("head " << i);
        CHECK(together[i].prev == apart[i].prev);
        CHECK(together[i].induction == apart[i].induction);
        CHECK(together[i].offset == apart[i].offset);
        CHECK(together[i].sink == apart[i].sink);
        CHECK(together[i].entropy == apart[i].entropy);
        CHECK(together[i].n_prev == apart[i].n_prev);
        CHECK(together[i].n_induction == apart[i].n_induction);
        CHECK(together[i].n_entropy == apart[i].n_entropy);
    }
    CHECK(apart[0].n_entropy == train_eval_rows * r.T);  // every held-out row was scored
}
