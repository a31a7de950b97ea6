// The pipeline a person steps through, from tokens to the output, and what each
// stage shows: its name, formula, explanation, the matrices it draws and the
// lines of the article's numpy code it corresponds to.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llama/checkpoint.hpp"
#include "maps/heatmap_data.hpp"
#include "model/forward.hpp"
#include "model/stage.hpp"
#include "play/measure_lessons.hpp"
#include "play/real_model.hpp"

namespace attn::ui {

// The stages themselves are the core's (stage.hpp): links and flags count them.
using attn::stage;
using attn::stage_applies;
using attn::stage_count;

const char* stage_name(stage s);     // in the current language
const char* stage_formula(stage s);  // plain-text formula
// The same for a llama block (a real model in the pipeline): RMSNorm before the
// projections, RoPE on Q and K, the SwiGLU FFN.
const char* stage_formula_llama(stage s);
// And for GPT-2's block: learned positions in X, LayerNorm, biases, the GELU FFN.
const char* stage_formula_gpt2(stage s);
// The formula for the real model of config c: GPT-2's or llama's.
const char* stage_formula_real(stage s, const llama_config& c);
// A real model's block in words (L13, the pipeline's banner), in the current
// language: "RMSNorm, RoPE and a SwiGLU FFN", or GPT-2's.
const char* real_block_words(const llama_config& c);
// What is open, in a line (the Model window, the text view): its format, its
// parameters, its weights' type and its block — "GPT-2 · 124.44 M parameters ·
// F16 · LayerNorm, learned positions and a GELU FFN".
std::string real_model_summary(const real_model& m);
// Its final norm's name: "RMSNorm", or GPT-2's "LayerNorm".
const char* real_norm_name(const llama_config& c);
const char* stage_explain(stage s);  // one or two sentences, current language
bool stage_per_head(stage s);        // drawn once per head

// The matrices a stage shows. `editable` names the weight an edit would change.
struct stage_matrix {
    const char* label;
    const matrix* m = nullptr;
    bool signed_values = true;            // diverging colour map; else sequential
    const matrix* masked_from = nullptr;  // draw -inf cells of this as masked
    bool row_sums = false;
    bool token_cols = false;  // columns are tokens (n, n) rather than features
    edit_target target = edit_target::x;
    bool editable = false;
};
std::vector<stage_matrix> stage_matrices(stage s, const trace& t, int layer, int head);

// The colour range a stage's maps share, so that colours compare: one range over
// every head of the layer, and one for Scores → Scaled → Masked together (so the
// scaling visibly fades the colours). None for stages whose maps scale themselves.
std::optional<heatmap_range> stage_shared_range(stage s, const trace& t, int layer);
bool stage_shares_scale(stage s);  // whether stage_shared_range can give one

// The A/B compare of a stage at a layer: every map it draws (each head's), A's
// (experiment ea, trace a) against B's (trace b), B − A and the summary
// (measure_lessons.hpp); a mismatch instead when their shapes differ.
compare_result stage_compare(stage s, const experiment& ea, const trace& a, const trace& b, int layer);

// The longest value text (heatmap_format_value) over every map the stage draws at
// this layer (every head's): the maps are sized so that it fits when there is room.
int stage_widest_value_chars(stage s, const trace& t, int layer);

// Whether a map's rows are the tokens (else feature indices): the one rule the
// maps, the CSV and SVG exports and the text view label rows by.
bool stage_matrix_token_rows(const stage_matrix& sm, int tokens);
// A map's row and column labels: the tokens, or "0", "1", … .
std::vector<std::string> stage_matrix_row_labels(const stage_matrix& sm, const std::vector<std::string>& tokens);
std::vector<std::string> stage_matrix_col_labels(const stage_matrix& sm, const std::vector<std::string>& tokens);
// What a map's rows and columns are, in words: the caption over it. The two
// kinds of token map have theirs for the lessons' and panels' maps too.
const char* stage_matrix_axes(const stage_matrix& sm, int tokens);
const char* axes_queries_by_keys();       // "↓ query token i   → key token j"
const char* axes_tokens_by_dimensions();  // "↓ token   → dimension"

// The article's numpy implementation, one string per line, and the lines
// (0-based, inclusive range) a stage highlights.
const std::vector<const char*>& numpy_code_lines();
std::pair<int, int> stage_code_lines(stage s);

}  // namespace attn::ui
