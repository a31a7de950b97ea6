// Everything the circuits room computes for one trained model and one row, as
// one JSON object (`attn circuits --json`). The keys are documented in
// docs/circuits.md ("The JSON of attn circuits"); every map is nested arrays,
// rows first, numbers with 9 significant digits, NaN and ±inf as null.
#pragma once

#include <string>

#include "circuits/circuits.hpp"
#include "circuits/patching.hpp"
#include "circuits/timeline.hpp"
#include "circuits/weights.hpp"

namespace attn {

// How the report's corrupted row is made (`attn circuits --corrupt`).
struct circuits_corrupt {
    enum kind_t {
        automatic,  // the task's corruption where it has one (induction), else no patching (a problem noted)
        task,       // the task's corruption, or a refusal naming why it does not apply
        other_row,  // held-out row `row` as the corrupted row
        none,       // no patching
    } kind = automatic;
    int row = 0;
};

struct circuits_report {
    int row = 0;  // the held-out row read
    circuit_read read;
    circuit_composition composition;
    circuit_weights weights;
    circuit_patching patching;
    std::string patching_problem;  // why there is no patching, else empty
    circuit_timeline timeline;
};

// Reads held-out row `row` of run's model (at its current step): the row, the
// composition scores, the weight-only circuits, the patching of the row against its
// corruption and the timeline of the run's snapshots. False and a message when the
// row is outside the held-out set or an asked-for corruption does not apply.
bool circuits_report_compute(train_run& run, int row, circuits_report& out, std::string* error = nullptr,
                             circuits_corrupt corrupt = {});

// Why `corrupt` cannot apply to run's task, before anything is trained; empty when it can.
std::string circuits_corrupt_problem(const experiment& e, circuits_corrupt corrupt);

// with_model: also "model", the trained weights and everything a peer needs to
// recompute the report (`attn circuits --weights`; docs/circuits.md).
std::string circuits_report_json(const train_run& run, const circuits_report& r, bool with_model = false);

}  // namespace attn
