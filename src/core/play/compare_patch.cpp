#include "play/compare_patch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "play/measure_lessons.hpp"
#include "spec/experiment.hpp"
#include "train/trainer.hpp"

namespace attn {

namespace {

constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();

// The first of the shapes patching needs that differs between A and B.
compare_patch_result::problem_kind shape_problem(const experiment& ea, const trace& a, const experiment& eb, const trace& b,
                                                 int& va, int& vb) {
    using k = compare_patch_result::problem_kind;
    const std::pair<k, std::pair<int, int>> checks[] = {
        {k::tokens, {int(a.tokens.size()), int(b.tokens.size())}},
        {k::layers, {ea.layers, eb.layers}},
        {k::heads, {ea.heads, eb.heads}},
        {k::kv_heads, {ea.kv_heads, eb.kv_heads}},
        {k::d_model, {ea.d_model, eb.d_model}},
    };
    for (const auto& [what, counts] : checks)
        if (counts.first != counts.second) {
            va = counts.first;
            vb = counts.second;
            return what;
        }
    return k::none;
}

// Whether t is a whole trace of e (every layer, every head's output): what the
// patches read.
bool traced_whole(const experiment& e, const trace& t) {
    const int n = int(t.tokens.size()), dk = experiment_d_k(e);
    if (n == 0 || int(t.layers.size()) != e.layers || t.output.rows != n || t.output.cols != e.d_model)
        return false;
    for (const layer_trace& lt : t.layers) {
        if (int(lt.heads.size()) != e.heads || lt.concat.rows != n || lt.output.rows != n)
            return false;
        for (const head_trace& ht : lt.heads)
            if (ht.out.rows != n || ht.out.cols != dk)
                return false;
    }
    return true;
}

// Multiply-adds of one layer of e over n tokens: the projections, each head's
// scores and weights·V, the FFN.
double layer_multiply_adds(const experiment& e, int n) {
    const double nn = n, d = e.d_model, dk = experiment_d_k(e), kvw = e.kv_heads * dk, f = experiment_ffn_width(e);
    double m = nn * d * (2 * d + 2 * kvw) + e.heads * 2 * nn * nn * dk;
    if (e.block == block_kind::full)
        m += 2 * nn * d * f;
    return m;
}

// 1 − ‖y_patched − y_A‖ / ‖y_B − y_A‖, NaN when B does not differ from A.
float explained_fraction(double patched_distance, double distance) {
    if (!(distance > 0))
        return nan_value;
    return float(1.0 - patched_distance / distance);
}

// Σ over row r's columns of (x − y)², in double.
double row_distance_squared(const matrix& x, const matrix& y, int r) {
    double s = 0;
    for (int c = 0; c < x.cols; ++c) {
        const double v = double(x(r, c)) - double(y(r, c));
        s += v * v;
    }
    return s;
}

void set_cell(compare_patch_result& r, int head, int col, float value) {
    r.map(head, col) = value;
    r.pending(head, col) = 0.0f;
    if (col == 0)
        r.explained[std::size_t(head)] = value;
    else
        r.per_position[std::size_t(head) * std::size_t(r.n) + std::size_t(col - 1)] = value;
}

// Piece `head` (l·h + i), a layer at a time: B with head i of layer l patched
// from A everywhere; true once its pass reached the output. In the last layer
// each row depends on that row's patch alone, so the per-position numbers
// follow from the rows of the same pass.
bool patch_head_layer(compare_patch_result& r, const trace& a, const experiment& eb, const trace& b, int head) {
    const int l = head / r.h, i = head % r.h;
    if (r.next_layer < 0) {
        head_patch p;
        p.layer = l;
        p.head = i;
        p.rows = &a.layers[std::size_t(l)].heads[std::size_t(i)].out;
        r.partial = forward_patched_layer(eb, b, p);
        r.next_layer = l + 1;
    } else {
        r.partial = forward_layers(eb, b.params, r.next_layer, r.next_layer + 1, std::move(r.partial));
        ++r.next_layer;
    }
    if (r.next_layer < r.L)
        return false;
    const matrix y = std::move(r.partial);
    r.partial = matrix{};
    r.next_layer = -1;
    set_cell(r, head, 0, explained_fraction(matrix_frobenius_diff(y, a.output), r.distance));
    if (l != r.L - 1)
        return true;
    const double whole = r.distance * r.distance;
    for (int q = 0; q < r.n; ++q) {
        double s = whole - row_distance_squared(b.output, a.output, q) + row_distance_squared(y, a.output, q);
        if (s < 0)  // rounding; NaN stays NaN
            s = 0;
        set_cell(r, head, 1 + q, explained_fraction(std::sqrt(s), r.distance));
    }
    return true;
}

// Piece of a layer before the last: head `head` patched at position q alone.
void patch_position(compare_patch_result& r, const trace& a, const experiment& eb, const trace& b, int head, int q) {
    head_patch p;
    p.layer = head / r.h;
    p.head = head % r.h;
    p.position = q;
    p.rows = &a.layers[std::size_t(p.layer)].heads[std::size_t(p.head)].out;
    set_cell(r, head, 1 + q, explained_fraction(matrix_frobenius_diff(forward_patched_output(eb, b, p), a.output), r.distance));
}

}  // namespace

// Those of layer l cost h·n passes of the L − 1 − l layers after it.
int compare_patch_position_from(const experiment& e, int n) {
    const double per_layer = layer_multiply_adds(e, n);
    double cost = 0;
    for (int l = e.layers - 2; l >= 0; --l) {
        cost += double(e.heads) * n * (e.layers - 1 - l) * per_layer;
        if (cost > compare_patch_position_budget)
            return l + 1;
    }
    return 0;
}

compare_patch_result compare_patch_begin(const experiment& ea, const trace& a, const experiment& eb, const trace& b) {
    compare_patch_result r;
    if (!traced_whole(ea, a) || !traced_whole(eb, b))
        r.what = compare_patch_result::problem_kind::no_trace;
    else
        r.what = shape_problem(ea, a, eb, b, r.a, r.b);
    r.problem = compare_problem_text(compare_counts_mismatch(r.what, r.a, r.b), compare_use::patching);
    if (r.what != compare_patch_result::problem_kind::none)
        return r;
    r.L = eb.layers;
    r.h = eb.heads;
    r.n = int(b.tokens.size());
    const std::size_t heads = std::size_t(r.L) * std::size_t(r.h);
    r.explained.assign(heads, nan_value);
    r.per_position.assign(heads * std::size_t(r.n), nan_value);
    r.map = matrix(r.L * r.h, 1 + r.n);
    std::fill(r.map.data.begin(), r.map.data.end(), nan_value);
    r.pending = matrix(r.L * r.h, 1 + r.n);
    std::fill(r.pending.data.begin(), r.pending.data.end(), -std::numeric_limits<float>::infinity());
    r.position_from = compare_patch_position_from(eb, r.n);
    r.distance = matrix_frobenius_diff(b.output, a.output);
    r.total = r.L * r.h + std::max(0, r.L - 1 - r.position_from) * r.h * r.n;
    return r;
}

bool compare_patch_step(compare_patch_result& r, const trace& a, const experiment& eb, const trace& b, double seconds) {
    using clock = std::chrono::steady_clock;
    const clock::time_point start = clock::now();
    const int heads = r.L * r.h;
    while (!r.complete()) {
        if (r.done < heads) {
            r.done += patch_head_layer(r, a, eb, b, r.done) ? 1 : 0;
        } else {
            const int piece = r.done - heads;  // over the heads of layers position_from … L − 2, then positions
            patch_position(r, a, eb, b, r.position_from * r.h + piece / r.n, piece % r.n);
            ++r.done;
        }
        if (std::chrono::duration<double>(clock::now() - start).count() >= seconds)
            break;
    }
    return r.complete();
}

compare_patch_result compare_patch(const experiment& ea, const trace& a, const experiment& eb, const trace& b) {
    compare_patch_result r = compare_patch_begin(ea, a, eb, b);
    while (!compare_patch_step(r, a, eb, b, 1e9)) {
    }
    return r;
}

bool compare_patch_other_weights(const experiment& ea, const experiment& eb) {
    const auto trained = [](const experiment& e) {
        return e.train.task == train_task::none ? 0 : std::min(e.train.trained_steps(), e.train.steps);
    };
    return !(trainer_key(ea) == trainer_key(eb)) || trained(ea) != trained(eb) || !(ea.edits == eb.edits);
}

compare_patch_result session_compare_patch_begin(const session& s) {
    compare_patch_result r;
    if (!s.pin) {
        r.what = compare_problem::no_trace;
        r.problem = compare_problem_text(compare_counts_mismatch(r.what), compare_use::patching);
        return r;
    }
    if (const compare_mismatch pending = session_pin_pending(s); pending.what == compare_problem::training) {
        r.what = pending.what;
        r.a = pending.a;
        r.b = pending.b;
        r.problem = compare_problem_text(pending, compare_use::patching);
        return r;
    }
    r = compare_patch_begin(*s.pin, s.pin_tr, s.exp, s.tr);
    r.other_weights = compare_patch_other_weights(*s.pin, s.exp);
    return r;
}

}  // namespace attn
