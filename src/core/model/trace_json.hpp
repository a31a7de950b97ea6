// The trace as JSON: what `attn eval --json` prints and what the page's JS hook
// returns. Matrices are {"shape":[rows,cols],"data":[...]} with floats written to
// round-trip exactly (%.9g); NaN and infinities, which JSON lacks, are the strings
// "nan", "inf" and "-inf".
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/forward.hpp"

namespace attn {

// Which parts of a trace to write. Empty lists select everything.
//   stages  names of matrices and vectors, at every level where the name exists:
//           x positions x0 output final_normed logits | w_q w_k w_v w_o w_1
//           w_2 input normed q k v q_rot k_rot concat attn_out residual
//           ffn_normed ffn_gate ffn_up ffn_hidden ffn_out output | q k v scores
//           scaled masked weights out row_sums row_entropies | decode. Empty
//           matrices (a stage the block lacks) are left out. Layers and heads are always listed (with
//           their indices), even when none of their matrices is selected.
//   layers  layer indices written; heads: head indices written (in each layer).
struct trace_json_select {
    std::vector<std::string> stages;
    std::vector<int> layers, heads;

    bool stage(std::string_view name) const;
    bool layer(int l) const;
    bool head(int h) const;
    // Whether a head needs its (n, n) matrices: a trace_options that keeps only those.
    trace_options options() const;
};

// Parses "a,b,c" into names (stages) or indices; an error message when a name is
// unknown or an index is not a number in [0, limit).
std::optional<std::string> trace_json_parse_stages(std::string_view list, std::vector<std::string>& out);
std::optional<std::string> trace_json_parse_indices(std::string_view list, int limit, std::vector<int>& out);

// Writes the trace's JSON in pieces of about 64 KB through `write`: memory stays
// bounded by the trace whatever its size.
void trace_write_json(const experiment& e, const trace& t, const trace_json_select& sel,
                      const std::function<void(std::string_view)>& write);

// Largest JSON trace_to_json builds in memory; above it (estimated before
// writing, 16 bytes per stored float) it returns {"error": "..."} instead.
constexpr std::size_t trace_json_max_bytes = std::size_t(256) << 20;
std::size_t trace_json_estimate_bytes(const trace& t);

// The whole trace as one string, or {"error": "..."} past trace_json_max_bytes.
std::string trace_to_json(const experiment& e, const trace& t);

}  // namespace attn
