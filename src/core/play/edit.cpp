#include "play/edit.hpp"

#include <algorithm>
#include <utility>

#include "base/random.hpp"
#include "train/task.hpp"

namespace attn {

int divisor_at_most(int n, int cap) {
    for (int d = std::min(n, cap); d > 1; --d)
        if (n % d == 0)
            return d;
    return 1;
}

experiment edit_clear_interventions(const experiment& e) {
    experiment next = e;
    next.edits.clear();
    next.ablate.clear();
    next.edges.clear();
    return next;
}

experiment edit_d_model(const experiment& e, int d_model) {
    experiment next = edit_clear_interventions(e);
    next.d_model = d_model;
    next.heads = divisor_at_most(d_model, next.heads);
    next.kv_heads = divisor_at_most(next.heads, next.kv_heads);
    return next;
}

experiment edit_heads(const experiment& e, int heads) {
    experiment next = edit_clear_interventions(e);
    next.heads = heads;
    next.kv_heads = heads;
    return next;
}

experiment edit_kv_heads(const experiment& e, int kv_heads) {
    experiment next = e;
    next.kv_heads = kv_heads;
    next.edits.clear();
    return next;
}

experiment edit_layers(const experiment& e, int layers) {
    experiment next = edit_clear_interventions(e);
    next.layers = layers;
    if (layers > 1 && next.block == block_kind::attention_only)  // stacked layers keep a residual stream
        next.block = block_kind::full;
    return next;
}

experiment edit_block(const experiment& e, block_kind block) {
    experiment next = e;
    if (block != e.block)
        next.edits.clear();
    next.block = block;
    return next;
}

experiment edit_seed(const experiment& e, std::uint32_t seed) {
    experiment next = e;
    next.seed = seed;
    next.edits.clear();
    return next;
}

experiment edit_mask(const experiment& e, mask_kind mask) {
    experiment next = e;
    next.mask = mask;
    next.pad = mask == mask_kind::padding ? 1 : 0;
    return next;
}

experiment edit_text(const experiment& e, std::string text) {
    experiment next = e;
    next.text = std::move(text);
    next.edges.clear();
    next.edits.clear();
    next.decode = 0;
    next.pad = 0;
    return next;
}

experiment edit_shuffle_tokens(const experiment& e, const std::vector<std::string>& tokens, std::uint64_t draw) {
    std::vector<std::string> t = tokens;
    rng g(hash_combine(draw, e.text));
    // A shuffle that leaves the order as it was shows nothing: draw again (a
    // few times at most; a sentence of one repeated word has no other order).
    for (int attempt = 0; attempt < 8 && t == tokens; ++attempt)
        for (std::size_t i = t.size(); i > 1; --i)
            std::swap(t[i - 1], t[g.next_u64() % i]);
    std::string joined;
    for (const auto& s : t)
        joined += (joined.empty() ? "" : " ") + s;
    experiment next = e;
    next.text = joined;
    next.edges.clear();
    next.edits.clear();
    return next;
}

experiment edit_toggle_edge(const experiment& e, const masked_edge& edge) {
    experiment next = e;
    edit_toggle_item(next.edges, edge);
    return next;
}

experiment edit_toggle_ablation(const experiment& e, const ablated_head& head) {
    experiment next = e;
    edit_toggle_item(next.ablate, head);
    return next;
}

experiment edit_value(const experiment& e, const value_edit& v) {
    experiment next = e;
    auto same_cell = [&v](const value_edit& o) {
        return o.target == v.target && o.layer == v.layer && o.row == v.row && o.col == v.col;
    };
    next.edits.erase(std::remove_if(next.edits.begin(), next.edits.end(), same_cell), next.edits.end());
    next.edits.push_back(v);
    return next;
}

std::string recipe_probe_text(const train_settings& t) {
    std::vector<int> input(std::size_t(t.seq)), target(input.size());
    std::vector<unsigned char> counted(input.size());
    rng g = task_eval_stream(t.train_seed);
    task_row(t, g, input.data(), target.data(), counted.data());
    std::string text;
    for (int v : input)
        text += (text.empty() ? "" : " ") + task_symbol(v);
    return text;
}

experiment edit_recipe(const experiment& e, const train_settings& settings) {
    train_settings t = settings;
    // Every number within its key's limits (spec/keys.hpp; trained is set below),
    // then the rules between the keys.
    for (const key_row& k : key_table())
        if (k.part == key_part::recipe && (k.kind == key_kind::whole || k.kind == key_kind::number) && !k.check)
            k.set(t, key_clamp(k, k.get(t)));
    t.warmup = std::min(t.warmup, t.steps);
    if (t.task == train_task::induction) {  // a segment, a prefix without its symbols, the repeat
        t.seq = std::max(t.seq, train_limits::min_induction_rows);
        t.vocab = std::max(t.vocab, train_limits::min_induction_rows);
    }
    t.offset = std::min(t.offset, t.seq - 1);
    if (t.task == train_task::none || t.run_identity() == e.train.run_identity())
        return e;
    experiment next = e;
    const bool rows_change = t.task != e.train.task || t.vocab != e.train.vocab || t.seq != e.train.seq;
    t.trained = 0;
    next.train = t;
    next.edits.clear();
    if (rows_change || !recipe_text_problems(next).empty())
        next = edit_text(next, recipe_probe_text(t));
    return next;
}

}  // namespace attn
