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

#include "base/precision.hpp"
#include "spec/recipe.hpp"

namespace attn {

enum class positional { none, sinusoidal, rope, learned };  // learned: trained absolute positions (recipe.hpp)
enum class mask_kind { none, causal, padding };
enum class score_scale { sqrt_dk, none, custom };
enum class softmax_mode { stable, no_max, argmax };
enum class mask_placement { before_softmax, after_softmax };
// attention_only: y = attention(x); attention_residual: y = x + attention(x) (the
// attention-only transformer in which induction heads form); full: pre-norm
// residual + FFN per layer.
enum class block_kind { attention_only, full, attention_residual };
// How the parameters are made: drawn from the seed, or drawn and then partly
// constructed by hand to show one behaviour (see model_generate in forward.hpp).
enum class weight_init { random, specialised, cancel, sink };

// Documented limits, checked before any allocation.
struct experiment_limits {
    static constexpr int max_text_bytes = 4096;
    static constexpr int max_tokens = 1024;
    static constexpr int max_d_model = 256;
    static constexpr int max_heads = 16;
    static constexpr int max_layers = 4;
    static constexpr int max_pos_offset = 100000;
    static constexpr int max_list_items = 256;    // edges, ablate, edits each
    static constexpr float max_abs_value = 1e6f;  // edits, custom scale, temperature
    // Below this the stable softmax cannot work: an ordinary score divided by a
    // temperature near the smallest float (1e-45) is infinite, and inf - inf is NaN.
    // At 1e-6 the softmax is already an argmax for any score gap above ~1e-4.
    static constexpr float min_temperature = 1e-6f;
    // rope_base: above 1 and at most this (0 or below gives infinite or NaN
    // frequencies; at most 1, the pairs no longer slow down from first to last).
    static constexpr float max_rope_base = 1e9f;
    // Custom scale, edits: any value from -1e6 to 1e6 works, 0 and denormals included
    // (every score 0 gives uniform weights); what overflows beyond that is shown as inf/NaN.
};

struct masked_edge {
    int layer = 0, head = 0, query = 0, key = 0;
    bool operator==(const masked_edge&) const = default;
};

struct ablated_head {
    int layer = 0, head = 0;
    bool operator==(const ablated_head&) const = default;
};

// Which generated matrix an edit overrides.
enum class edit_target { x, w_q, w_k, w_v, w_o, w_1, w_2 };

struct value_edit {
    edit_target target = edit_target::x;
    int layer = 0;  // ignored for x
    int row = 0, col = 0;
    float value = 0.0f;
    bool operator==(const value_edit&) const = default;
};

struct experiment {
    std::string text = "the cat chased the dog";
    std::uint32_t seed = 1;
    int d_model = 8;
    int heads = 2;
    int kv_heads = 2;  // = heads: MHA; 1: MQA; a divisor of heads: GQA
    int layers = 1;
    block_kind block = block_kind::attention_only;
    weight_init weights = weight_init::random;
    positional pos = positional::none;
    float rope_base = 10000.0f;
    int pos_offset = 0;  // position of the first token (shift every position)
    mask_kind mask = mask_kind::causal;
    int pad = 0;  // with mask=padding: how many trailing tokens are padding
    std::vector<masked_edge> edges;
    score_scale scale = score_scale::sqrt_dk;
    float scale_value = 1.0f;  // used when scale == custom
    softmax_mode softmax = softmax_mode::stable;
    float temperature = 1.0f;
    mask_placement mask_at = mask_placement::before_softmax;
    bool use_wo = true;
    precision prec{};  // fp32
    std::vector<ablated_head> ablate;
    int decode = 0;  // 0: off; t: KV-cache decoding has consumed the first t tokens
    std::vector<value_edit> edits;
    train_settings train;  // train=none: no training (recipe.hpp)

    bool operator==(const experiment&) const = default;
};

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

// d_k of e (d_model / heads).
inline int experiment_d_k(const experiment& e) { return e.heads > 0 ? e.d_model / e.heads : 0; }
// The FFN's hidden width with block=full: 4·d_model (W_1 is (d_model, that)).
inline int experiment_ffn_width(const experiment& e) { return 4 * e.d_model; }

const char* mask_kind_name(mask_kind m);
const char* positional_name(positional p);
const char* softmax_mode_name(softmax_mode s);
const char* edit_target_name(edit_target t);
const char* weight_init_name(weight_init w);

}  // namespace attn
