// The experiment's editing rules: what a control may change, and what else has
// to change with it so the experiment stays valid and means what it says. The
// controls call these and hand the result to the one change path (session.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/experiment.hpp"

namespace attn {

// Adds x to v, or removes it if v has it: an intervention list's click (the
// experiment's here, a real model's in real_model.cpp).
template <class T>
void edit_toggle_item(std::vector<T>& v, const T& x) {
    const auto it = std::find(v.begin(), v.end(), x);
    if (it != v.end())
        v.erase(it);
    else
        v.push_back(x);
}

// The largest divisor of n that is at most cap (1 at least).
int divisor_at_most(int n, int cap);

// d_model: heads and kv_heads shrink to divisors; edits, ablations and masked
// edges (which point into the old shapes) are dropped.
experiment edit_d_model(const experiment& e, int d_model);
// heads (a divisor of d_model): back to plain multi-head attention (kv_heads =
// heads); interventions dropped.
experiment edit_heads(const experiment& e, int heads);
// kv_heads (a divisor of heads): edits dropped (W_k, W_v change shape).
experiment edit_kv_heads(const experiment& e, int kv_heads);
// layers: more than one turns the residual + FFN block on (attention layers
// stacked alone say little); interventions dropped.
experiment edit_layers(const experiment& e, int layers);
// block and seed: the weights change, so edits of them are dropped.
experiment edit_block(const experiment& e, block_kind block);
experiment edit_seed(const experiment& e, std::uint32_t seed);
// mask: padding starts with one padding token, other masks with none.
experiment edit_mask(const experiment& e, mask_kind mask);
// No ablations, masked edges or edited numbers.
experiment edit_clear_interventions(const experiment& e);

// A new sentence: masked edges, edited numbers, decoding and padding point at
// token positions and are dropped (ablated heads stay).
experiment edit_text(const experiment& e, std::string text);
// The tokens in a new order, unlike the old one when they can be (draw picks
// which: the same draw, the same order); masked edges and edited numbers are dropped.
experiment edit_shuffle_tokens(const experiment& e, const std::vector<std::string>& tokens, std::uint64_t draw);
// A click on a softmax cell: masks that edge, or unmasks it if it was masked.
experiment edit_toggle_edge(const experiment& e, const masked_edge& edge);
// A head's "zero" box: ablates it, or restores it if it was ablated.
experiment edit_toggle_ablation(const experiment& e, const ablated_head& head);
// A typed or dragged number: replaces any earlier edit of the same cell.
experiment edit_value(const experiment& e, const value_edit& v);
// A recipe's settings (the Train panel), each within its key's limits (keys.hpp): a new run,
// shown untrained (trained=0) until Train is pressed; the trained weights
// change, so edits of them are dropped. A new task, vocabulary or sequence
// length (or a text the recipe cannot read) makes the text the task's first
// held-out row, the one the Train panel probes. Settings that change nothing of
// the run change nothing.
experiment edit_recipe(const experiment& e, const train_settings& settings);
// The task's first held-out row as a text: its symbols separated by spaces.
std::string recipe_probe_text(const train_settings& t);

}  // namespace attn
