// A whole link: the experiment (from the lesson it names), the view and the pinned
// A. The pairs and their codec are spec/link_codec.hpp (its top comment is the
// format); here a link with view.lesson=N starts from lesson N's experiment
// (lesson_preset.hpp) and its keys override only what they name, so the page, the
// native app and the CLI open the same experiment for the same link.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/experiment.hpp"
#include "spec/link_codec.hpp"

namespace attn {

// The link for e (and v): see spec/link_codec.hpp. e should be valid
// (experiment_validate); an invalid one is written but will not decode.
std::string link_encode(const experiment& e);
std::string link_encode(const experiment& e, const link_view& v);
// The same with a pinned A (none: no pin= pair).
std::string link_encode(const experiment& e, const link_view& v, const std::optional<experiment>& pin);

struct link_parse_result {
    std::optional<experiment> value;  // set only when errors is empty
    link_view view;                   // meaningful only when value is set
    std::optional<experiment> pin;    // pin=: the pinned A (meaningful only when value is set)
    std::vector<std::string> errors;
};
// Everything in a link: the experiment and the view options.
link_parse_result link_parse(std::string_view link);
// The experiment of a link (view options are still checked: a bad one is an error).
experiment_parse_result link_decode(std::string_view link);

}  // namespace attn
