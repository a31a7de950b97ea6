// Everything the circuits room computes for one trained model and one row, as
// one JSON object (`attn circuits --json`). The keys are documented in
// docs/circuits.md ("The JSON of attn circuits"); every map is nested arrays,
// rows first, numbers with 9 significant digits, NaN and ±inf as null.
#pragma once

#include <string>

#include "circuits/circuits.hpp"
#include "circuits/weights.hpp"

namespace attn {

struct circuits_report {
    int row = 0;  // the held-out row read
    circuit_read read;
    circuit_composition composition;
    circuit_weights weights;
};

// Reads held-out row `row` of run's model (at its current step): the row, the
// composition scores and the weight-only circuits. False and a message when the
// row is outside the held-out set.
bool circuits_report_compute(train_run& run, int row, circuits_report& out, std::string* error = nullptr);

// with_model: also "model", the trained weights and everything a peer needs to
// recompute the report (`attn circuits --weights`; docs/circuits.md).
std::string circuits_report_json(const train_run& run, const circuits_report& r, bool with_model = false);

}  // namespace attn
