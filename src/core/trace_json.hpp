// The trace as JSON: what `attn eval --json` prints and what the page's JS hook
// returns. Matrices are {"shape":[rows,cols],"data":[...]} with floats written to
// round-trip exactly (%.9g); NaN and infinities, which JSON lacks, are the strings
// "nan", "inf" and "-inf".
#pragma once

#include <string>

#include "forward.hpp"

namespace attn {

std::string trace_to_json(const experiment& e, const trace& t);

}  // namespace attn
