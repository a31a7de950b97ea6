// Numbers out of the playground as files: a matrix as CSV (the trace as JSON is
// trace_json.hpp). Shapes: a matrix is (rows, cols); labels, when given, name
// each row (tokens or feature indices) and each column.
#pragma once

#include <string>
#include <vector>

#include "base/matrix.hpp"

namespace attn {

// RFC 4180 CSV of m: a header line (an empty corner cell, then the column labels)
// and one line per row (its label, then its values). Missing labels (nullptr, or
// fewer than the matrix has) are the 0-based index. Values round-trip exactly
// (%.9g); NaN and infinities are written nan, inf and -inf. Labels containing a
// comma, quote, CR or LF are quoted, quotes doubled. Lines end with "\n".
std::string matrix_to_csv(const matrix& m, const std::vector<std::string>* row_labels = nullptr,
                          const std::vector<std::string>* col_labels = nullptr);

// One CSV field: `text` quoted when it has to be.
std::string csv_field(const std::string& text);

// x appended as the files write a number: %.9g (it round-trips exactly), NaN and
// the infinities as nan, inf and -inf (the trace's JSON puts those in quotes).
void export_append_float(std::string& out, float x);

}  // namespace attn
