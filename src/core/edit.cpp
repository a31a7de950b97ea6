#include "edit.hpp"

#include <algorithm>

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
    if (layers > 1)
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

}  // namespace attn
