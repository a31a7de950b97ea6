// circuit_study.hpp's measures of the page's model for L11 and L12. Sections:
//   [SECTION] the text's corruption
//   [SECTION] the timeline's cache
//   [SECTION] one cell (the run)
//   [SECTION] the text
//   [SECTION] at the step
//   [SECTION] the update, a piece at a time
//   [SECTION] the cell a click asks for
//
// Shapes: n the text's symbols (n ≤ T), T seq, V vocab, S snapshots, P head pairs.
#include "play/circuit_study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace attn {
namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

std::size_t sz(int n) { return std::size_t(n); }

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point start) { return std::chrono::duration<double>(clock_type::now() - start).count(); }

// --- [SECTION] the text's corruption -------------------------------------------------

// The first pair j, j + 2 of the segment at `first` whose swap changes both
// repeats' answers: the swapped symbols differ, and so do the symbols after them
// (the clean and corrupted answers). −1 when none does.
int swappable_pair(const std::vector<int>& text, int first, int len) {
    for (int j = 0; j + 3 < len; ++j) {
        const int* s = text.data() + first + j;
        if (s[0] != s[2] && s[1] != s[3])
            return j;
    }
    return -1;
}

}  // namespace

circuit_text_corruption circuit_corrupt_text(const std::vector<int>& text) {
    circuit_text_corruption c;
    const int n = int(text.size());
    // lcp[i · (n + 1) + j]: the length of the common run of text from i and from j.
    std::vector<int> lcp(sz(n + 1) * sz(n + 1), 0);
    for (int i = n - 1; i >= 0; --i)
        for (int j = n - 1; j > i; --j)
            if (text[sz(i)] == text[sz(j)])
                lcp[sz(i) * sz(n + 1) + sz(j)] = lcp[sz(i + 1) * sz(n + 1) + sz(j + 1)] + 1;
    bool repeated = false;  // some segment of 4 occurs twice, its swaps aside
    for (int len = n / 2; len >= 4; --len)
        for (int first = 0; first + 2 * len <= n; ++first)
            for (int repeat = first + len; repeat + len <= n; ++repeat) {
                if (lcp[sz(first) * sz(n + 1) + sz(repeat)] < len)
                    continue;
                repeated = true;
                const int j = swappable_pair(text, first, len);
                if (j < 0)
                    continue;
                c.found = true;
                c.first = first, c.repeat = repeat, c.len = len;
                c.k = first + j, c.m = first + j + 2;
                return c;
            }
    c.problem = repeated ? "the repeated segments of the text have no two symbols two apart whose swap changes what "
                           "follows them: the corruption needs a segment like \"c d e f\" seen twice"
                         : "the text has no segment of 4 or more symbols that occurs twice (apart): the corruption swaps "
                           "two symbols of the first occurrence, so nothing can be patched";
    return c;
}

namespace {

// --- [SECTION] the timeline's cache --------------------------------------------------

// The timeline's entries of one snapshot, each with its width per snapshot: a
// snapshot's row in the cache is these slices one after another. prev_ind_k is
// not one: it follows the pair chosen at the step (read from k). A new per-snapshot
// entry of circuit_timeline goes here too, or scrubbing leaves it NaN.
enum class width { one, pairs, positions };
struct snapshot_field {
    std::vector<float> circuit_timeline::*entry;
    width per;
};
constexpr snapshot_field snapshot_fields[] = {
    {&circuit_timeline::q, width::pairs},
    {&circuit_timeline::k, width::pairs},
    {&circuit_timeline::v, width::pairs},
    {&circuit_timeline::loss, width::one},
    {&circuit_timeline::pos_loss, width::positions},
    {&circuit_timeline::pos_loss_all, width::positions},
    {&circuit_timeline::icl, width::one},
    {&circuit_timeline::first_loss, width::one},
    {&circuit_timeline::kl_uniform, width::one},
    {&circuit_timeline::kl_unigram, width::one},
    {&circuit_timeline::kl_bigram, width::one},
};

std::size_t width_of(const circuit_timeline& tl, width w) {
    return w == width::one ? 1 : w == width::pairs ? tl.pairs.size() : sz(tl.T);
}

// The length of a snapshot's row for these shapes.
std::size_t row_size(const circuit_timeline& tl) {
    std::size_t n = 0;
    for (const snapshot_field& f : snapshot_fields)
        n += width_of(tl, f.per);
    return n;
}

// Snapshot i's entries of the timeline into the cache.
void cache_put(circuit_study& s, int i) {
    const circuit_timeline& tl = s.timeline;
    if (int(s.cache.size()) <= i)
        s.cache.resize(sz(i + 1));
    circuit_study::snapshot_row& r = s.cache[sz(i)];
    r.values.resize(row_size(tl));
    float* dst = r.values.data();
    for (const snapshot_field& f : snapshot_fields) {
        const std::size_t w = width_of(tl, f.per);
        const float* src = (tl.*f.entry).data() + sz(i) * w;
        dst = std::copy(src, src + w, dst);
    }
    r.step = tl.steps[sz(i)];
}

// Snapshot i's entries from the cache, when it holds them for this snapshot's
// step and shapes; the chosen pair's K-composition from its pair's entry (the same
// float circuits_timeline takes).
bool cache_get(circuit_study& s, int i, int pair) {
    circuit_timeline& tl = s.timeline;
    if (i >= int(s.cache.size()) || s.cache[sz(i)].step != tl.steps[sz(i)] || s.cache[sz(i)].values.size() != row_size(tl))
        return false;
    const float* src = s.cache[sz(i)].values.data();
    for (const snapshot_field& f : snapshot_fields) {
        const std::size_t w = width_of(tl, f.per);
        std::copy(src, src + w, (tl.*f.entry).begin() + std::ptrdiff_t(sz(i) * w));
        src += w;
    }
    if (pair >= 0)
        tl.prev_ind_k[sz(i)] = tl.k[sz(i) * tl.pairs.size() + sz(pair)];
    return true;
}

// The index in timeline.pairs of the chosen previous-token → induction pair, or −1.
int chosen_pair(const circuit_timeline& tl) {
    if (tl.prev_layer < 0)
        return -1;
    for (std::size_t p = 0; p < tl.pairs.size(); ++p) {
        const circuit_composition_pair& c = tl.pairs[p];
        if (c.layer_a == tl.prev_layer && c.head_a == tl.prev_head && c.layer_b == tl.ind_layer && c.head_b == tl.ind_head)
            return int(p);
    }
    return -1;
}

// The snapshots the cache holds into the laid-out timeline; snapshots_done the
// first it does not.
void timeline_from_cache(circuit_study& s) {
    const int pair = chosen_pair(s.timeline);
    s.snapshots_done = s.timeline.S;
    for (int i = 0; i < s.timeline.S; ++i)
        if (!cache_get(s, i, pair) && s.snapshots_done == s.timeline.S)
            s.snapshots_done = i;
}

// The first snapshot not yet measured, measured and cached; then the next the
// cache already holds are skipped.
void timeline_piece(train_run& run, circuit_study& s) {
    const auto start = clock_type::now();
    const int i = s.snapshots_done;
    circuits_timeline_snapshot(run, s.timeline, i);
    cache_put(s, i);
    ++s.snapshots_computed;
    const int pair = chosen_pair(s.timeline);
    s.snapshots_done = i + 1;
    while (s.snapshots_done < s.timeline.S && cache_get(s, s.snapshots_done, pair))
        ++s.snapshots_done;
    s.seconds_snapshot = since(start);
}

// --- [SECTION] one cell (the run) ----------------------------------------------------

// One head's output at the cell's position (T: every position) patched from the
// clean run into the corrupted one: its recovery and the softmax at each metric
// position. False, and nothing set, for a head or position the model does not have.
// Whether the model has the cell's head and position (T: every position).
bool cell_in_model(const train_run& run, circuit_cell cell) {
    return cell.layer < run.L && cell.head >= 0 && cell.head < run.h && cell.pos >= 0 && cell.pos <= run.T;
}

bool patch_cell(const train_run& run, circuit_study& s, circuit_cell cell) {
    if (!cell_in_model(run, cell))
        return false;
    circuit_patch p;
    p.kind = circuit_patch::head_out;
    p.layer = cell.layer;
    p.head = cell.head;
    p.pos = cell.pos < run.T ? cell.pos : -1;
    const double ld = circuits_patch_run(run, s.patching, &p, 1);
    if (std::isnan(ld))
        return false;
    s.cell = cell;
    s.cell_recovery = circuits_recovery(s.patching, ld);
    const int V = run.V;
    s.cell_probs.assign(s.patching.positions.size() * sz(V), 0.0f);
    for (std::size_t i = 0; i < s.patching.positions.size(); ++i) {
        const float* z = s.patching.patched_logits.data() + sz(s.patching.positions[i]) * sz(V);
        float* q = s.cell_probs.data() + i * sz(V);
        const float top = *std::max_element(z, z + V);
        double sum = 0;
        for (int v = 0; v < V; ++v)
            sum += std::exp(double(z[v]) - double(top));
        for (int v = 0; v < V; ++v)
            q[v] = float(std::exp(double(z[v]) - double(top)) / sum);
    }
    return true;
}

// The study's cell patched again on a new patching of its text; while that
// patching waits the cell is kept without its numbers, and one the new text's
// patching cannot take is cleared.
void patch_cell_again(const train_run& run, circuit_study& s) {
    const circuit_cell cell = s.cell;
    s.cell_recovery = nan_f;
    s.cell_probs.clear();
    if (!s.patched)
        return;
    s.cell = circuit_cell{};
    if (cell.valid() && s.patch_problem.empty() && s.corruption.found)
        patch_cell(run, s, cell);
}

// --- [SECTION] the text --------------------------------------------------------------

// Why the model or the text cannot be read, else empty.
std::string text_problem(const train_run& run, const std::vector<int>& text) {
    if (run.e.mask != mask_kind::causal)
        return "the text is read by a causal model only: with another mask the padding after the text would change its numbers";
    if (run.e.train.task != train_task::induction || run.L < 2 || run.e.block != block_kind::attention_residual)
        return "the text's circuit is read on a model trained on the induction task with two or more layers of "
               "attention + residual blocks (train=induction, layers ≥ 2, block=attn_res)";
    if (text.empty())
        return "the text is empty: there is nothing to read";
    if (int(text.size()) > run.T)
        return "the text has " + std::to_string(text.size()) + " symbols; the model reads at most " + std::to_string(run.T);
    for (std::size_t t = 0; t < text.size(); ++t)
        if (text[t] < 0 || text[t] >= run.V)
            return "symbol " + std::to_string(t + 1) + " of the text is outside the model's " + std::to_string(run.V) +
                   " symbols";
    return {};
}

// The clean row: the text padded to T with symbol 0, each position's target the
// next symbol, counted before the last symbol (what follows it is not the text's).
void clean_row(const train_run& run, const std::vector<int>& text, circuit_study& s) {
    const int n = int(text.size()), T = run.T;
    s.clean_tokens.assign(sz(T), 0);
    s.clean_targets.assign(sz(T), 0);
    s.clean_counted.assign(sz(T), 0);
    for (int t = 0; t < n; ++t) {
        s.clean_tokens[sz(t)] = text[sz(t)];
        if (t + 1 < n) {
            s.clean_targets[sz(t)] = text[sz(t + 1)];
            s.clean_counted[sz(t)] = 1;
        }
    }
}

// The corrupted row, as circuits_corrupt_row makes a held-out row's: k and m swap
// places; the repeat of each now matches the other's position, whose next token
// is its answer, and only those two repeats count.
void corrupt_row(const circuit_text_corruption& c, circuit_study& s) {
    s.corrupt_tokens = s.clean_tokens;
    std::swap(s.corrupt_tokens[sz(c.k)], s.corrupt_tokens[sz(c.m)]);
    s.corrupt_targets = s.clean_targets;
    s.corrupt_counted.assign(s.clean_counted.size(), 0);
    const int rk = c.repeat + (c.k - c.first), rm = c.repeat + (c.m - c.first);
    s.corrupt_targets[sz(rk)] = s.corrupt_tokens[sz(c.m + 1)];
    s.corrupt_targets[sz(rm)] = s.corrupt_tokens[sz(c.k + 1)];
    s.corrupt_counted[sz(rk)] = s.corrupt_counted[sz(rm)] = 1;
}

// The text read at the run's step, and its corruption found: its patching waits
// for the next piece (text_patch_piece).
void study_text(train_run& run, const std::vector<int>& text, circuit_study& s) {
    s.text = text;
    s.read_problem = text_problem(run, text);
    s.n = 0;
    s.corruption = circuit_text_corruption{};
    s.patch_problem = s.read_problem;
    s.patched = !s.read_problem.empty();  // nothing to patch: done
    if (s.read_problem.empty()) {
        s.n = int(text.size());
        clean_row(run, text, s);
        circuits_read_tokens(run, s.clean_tokens.data(), s.clean_targets.data(), s.clean_counted.data(), s.read);
        s.corruption = circuit_corrupt_text(text);
        if (s.corruption.found)
            corrupt_row(s.corruption, s);
        else {
            s.patch_problem = s.corruption.problem;
            s.patched = true;
        }
    }
    patch_cell_again(run, s);
}

// The text patched against its corruption, and the cell patched again on it.
void text_patch_piece(train_run& run, circuit_study& s) {
    if (circuits_patching(run, s.clean_tokens, s.clean_targets, s.clean_counted, s.corrupt_tokens, s.corrupt_targets,
                          s.corrupt_counted, s.patching, &s.patch_problem))
        s.patching.corruption =
            "swap symbols " + std::to_string(s.corruption.k + 1) + " and " + std::to_string(s.corruption.m + 1) + " of the text";
    s.patched = true;
    patch_cell_again(run, s);
}

// --- [SECTION] at the step -----------------------------------------------------------

// Everything that depends on the weights at the step alone, at once: the heads
// chosen, the composition and its baseline, the timeline laid out and filled
// from the cache, the weights' circuits, and the claims started.
void study_step(train_run& run, circuit_study& s) {
    circuits_timeline_begin(run, s.timeline);
    s.composition = s.timeline.comp;  // circuits_composition of the weights at the step
    timeline_from_cache(s);
    circuits_weights(run, s.weights);
    circuit_claims_begin(run, s.claims);
    s.claim_rows_done = s.claims.applies ? 0 : claim_patch_rows;
}

// One piece of what remains: the text's patching, else the next snapshot, else the
// next claim row (the timeline's claims first, once every snapshot is in). False
// when nothing remains.
bool study_piece(train_run& run, circuit_study& s) {
    if (!s.patched) {
        const auto start = clock_type::now();
        text_patch_piece(run, s);
        s.seconds_patch = since(start);
        return true;
    }
    if (!s.timeline_done()) {
        timeline_piece(run, s);
        return true;
    }
    if (s.claim_rows_done >= claim_patch_rows)
        return false;
    const auto start = clock_type::now();
    if (s.claim_rows_done == 0)
        circuit_claims_over_training(s.timeline, s.claims);
    circuit_claims_patch_row(run, s.claim_rows_done, s.claims);
    ++s.claim_rows_done;
    s.seconds_claim_row = since(start);
    return true;
}

}  // namespace

// --- [SECTION] the update, a piece at a time -----------------------------------------

bool circuit_study_update(trainer& t, const std::vector<int>& text, circuit_study& study, double seconds) {
    if (!t.run || !trainer_done(t))
        return false;
    train_run& run = *t.run;
    const auto start = clock_type::now();
    bool changed = false;
    if (study.run_key.empty() || study.weights_version != t.weights_version || study.step != run.step) {
        // The version moves with every measure too: the key says whether the run is another.
        std::string key = trainer_store_key(t.key);
        if (key != study.run_key) {
            study.cache.clear();
            study.run_key = std::move(key);
        }
        study.step = run.step;
        study.weights_version = t.weights_version;
        study_step(run, study);
        study_text(run, text, study);
        changed = true;
    } else if (text != study.text) {
        study_text(run, text, study);
        changed = true;
    }
    if (changed)
        study.seconds_at_once = since(start);
    // The at-once work is this call's progress when there was some: the pieces
    // start only if time is left (a scrubbing frame pays the at-once part alone);
    // otherwise at least one piece, so a slice shorter than any piece still moves on.
    const bool whole = seconds <= 0;
    for (int pieces = changed ? 1 : 0; whole || pieces == 0 || since(start) < seconds; ++pieces) {
        if (!study_piece(run, study))
            break;
        changed = true;
    }
    if (changed)
        ++study.version;
    return changed;
}

cell_reading circuit_study_cell_reading(const circuit_study& s) {
    cell_reading r;
    const circuit_patching& p = s.patching;
    if (!s.cell.valid() || !s.patched || s.cell_probs.size() != p.positions.size() * sz(p.V))
        return r;
    r.positions = int(p.positions.size());
    for (std::size_t i = 0; i < p.positions.size(); ++i) {
        const int t = p.positions[i];
        const float* pr = s.cell_probs.data() + i * sz(p.V);
        r.leads += pr[p.clean_answer[sz(t)]] > pr[p.corrupt_answer[sz(t)]];
    }
    r.word = circuit_recovery_word(s.cell_recovery);
    if ((r.word == recovery_word::back || r.word == recovery_word::beyond) && r.leads < r.positions)
        r.word = recovery_word::part;
    return r;
}

bool circuit_study_pending(const circuit_study& s, int snapshot) {
    return snapshot >= s.snapshots_done && snapshot < s.timeline.S;
}

// --- [SECTION] the cell a click asks for ---------------------------------------------

bool circuit_study_patch_cell(trainer& t, circuit_study& study, circuit_cell cell) {
    ++study.version;  // the cell's numbers change, or are cleared
    study.cell = circuit_cell{};
    study.cell_recovery = nan_f;
    study.cell_probs.clear();
    if (!cell.valid())
        return true;
    if (!t.run || !trainer_done(t) || study.step != t.run->step || study.weights_version != t.weights_version ||
        !study.patch_problem.empty() || !study.corruption.found)
        return false;  // (not done: steps may be going on beside the drawing, the run theirs)
    const train_run& run = *t.run;
    if (study.patched)
        return patch_cell(run, study, cell);
    if (!cell_in_model(run, cell))
        return false;
    study.cell = cell;  // its numbers come with the text's patching, the next piece
    return true;
}

}  // namespace attn
