// One experiment, one value.
//
// `experiment` holds everything a person sets up; its canonical text form is what
// the URL hash, the native command line, presets and tests exchange:
//
//     v=1&text=the%20cat%20sat&seed=1&d_model=8&heads=2&mask=causal
//
// Keys appear in a fixed order, every key is written, values are percent-encoded
// (UTF-8 bytes and reserved characters), so format(parse(s)) == s for canonical s
// and parse(format(e)) == e for every valid e. Parsing collects every problem as
// a readable message and returns no experiment unless there are none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class mask_kind { none, causal };

// Documented limits, checked by experiment_validate before any allocation.
struct experiment_limits {
    static constexpr int max_text_bytes = 4096;
    static constexpr int max_tokens = 1024;
    static constexpr int min_d_model = 1;
    static constexpr int max_d_model = 256;
    static constexpr int max_heads = 16;
};

struct experiment {
    std::string text = "the cat chased the dog";
    std::uint32_t seed = 1;
    int d_model = 8;
    int heads = 2;
    mask_kind mask = mask_kind::causal;

    bool operator==(const experiment&) const = default;
};

inline constexpr int experiment_format_version = 1;

std::string experiment_to_text(const experiment& e);

struct experiment_parse_result {
    std::optional<experiment> value;  // set only when errors is empty
    std::vector<std::string> errors;
};
experiment_parse_result experiment_parse(std::string_view text);

// Every problem with e (sizes out of range, heads not dividing d_model, no tokens).
std::vector<std::string> experiment_validate(const experiment& e);

const char* mask_kind_name(mask_kind m);

}  // namespace attn
