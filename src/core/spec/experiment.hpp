// One experiment, one value.
//
// `experiment` holds everything a person sets up; its canonical text form is what
// the URL hash, the native command line, presets and tests exchange, e.g.
//
//     v=1&text=the%20cat%20sat&seed=1&d_model=8&heads=2&kv_heads=2&layers=1&block=attn&weights=random
//     &pos=none&rope_base=10000&pos_offset=0&mask=causal&pad=0&edges=&scale=sqrt
//     &softmax=stable&temp=1&mask_at=before&wo=on&precision=fp32&ablate=&decode=0&edits=
//
// (one line in practice). Keys appear in this fixed order and every key is
// written; values are percent-encoded UTF-8 except for unreserved characters and
// ',' ':' (safe in a URL fragment), so format(parse(s)) == s for canonical s and
// parse(format(e)) == e for every valid e. Floats are written in the shortest form
// that reads back to the same float. Parsing accepts keys in any order, missing
// keys (their defaults), a leading '#', and raw UTF-8; it collects every problem
// as a readable message and returns an experiment only when there are none.
// Every value, raw or percent-decoded, must be valid UTF-8 without NUL (no
// overlong forms, encoded surrogates or code points above U+10FFFF), and a raw
// NUL anywhere rejects the whole text. Messages: one per problem, identical ones
// once, at most max_error_messages (text_util.hpp) then "... and N more
// problems"; quoted input is cut to 40 bytes.
//
// Lists:
//   edges   masked attention edges  layer.head.query.key, comma-separated ("0.1.3.2,0.0.4.1")
//   ablate  zeroed heads            layer.head, comma-separated            ("0.1,1.0")
//   edits   overridden numbers      target.row.col:value, comma-separated   ("x.2.3:0.5,l0.w_q.1.2:-1.25")
//           target is x (token embeddings, row = token position) or lL.w_q / w_k / w_v / w_o / w_1 / w_2
//
// A training recipe (train=<task> and its keys, recipe.hpp) follows `edits`; its
// keys are written only when train is not none, so links without training keep
// exactly the text they had.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/keys.hpp"
#include "spec/recipe.hpp"
#include "spec/values.hpp"

namespace attn {

inline constexpr int experiment_format_version = 1;

std::string experiment_to_text(const experiment& e);

struct experiment_parse_result {
    std::optional<experiment> value;  // set only when errors is empty
    std::vector<std::string> errors;
};
experiment_parse_result experiment_parse(std::string_view text);
// The same, with the keys text does not name taken from `base` instead of the
// defaults (a lesson's link: the lesson's preset, overridden key by key).
experiment_parse_result experiment_parse(std::string_view text, const experiment& base);

// Every problem with e: sizes out of range, heads not dividing d_model, lists
// pointing outside the model, non-finite numbers.
std::vector<std::string> experiment_validate(const experiment& e);
// Every problem with e's recipe (none when e.train.task is none and no recipe key is set).
std::vector<std::string> recipe_validate(const experiment& e);

// A whole number in decimal, nothing else (no spaces, no "+", no fraction), as
// every integer key is read; the native app's flags use it too.
bool parse_whole_number(std::string_view s, long long& out);

// s with each %XX replaced by its byte; nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view s);
// "" when s is valid UTF-8 without NUL, else what is wrong (for "<key> <problem>").
// Rejects what a lenient decoder would let through into tokens and JSON: stray
// continuation bytes, truncated sequences, overlong forms (C0 80 for NUL), UTF-16
// surrogates (ED A0 80 ..) and code points above U+10FFFF (F4 90 .., F5 ..).
std::string utf8_problem(std::string_view s);

// d_k of e (d_model / heads).
inline int experiment_d_k(const experiment& e) { return e.heads > 0 ? e.d_model / e.heads : 0; }
// The FFN's hidden width with block=full: 4·d_model (W_1 is (d_model, that)).
inline int experiment_ffn_width(const experiment& e) { return 4 * e.d_model; }

// The values' names (mask_kind_name, positional_name, ...): keys.hpp.

}  // namespace attn
