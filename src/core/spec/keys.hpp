// One table per vocabulary: every key of a link is one row of key_table().
//
// A row is the key's name, which part of a link it belongs to (the experiment, its
// training recipe, the view), the member it reads and writes, its limits, the range,
// step and scale of the control that edits it, and its help in English and Chinese.
// The canonical writer and the parser (experiment_to_text and experiment_parse,
// recipe.hpp's keys, link_codec's view keys), the recipe's range checks, the editing
// rules' clamps (play/edit.hpp) and the controls (src/ui/panels/controls.cpp, the Train
// panel) all read these rows; none of them restates a key's number or name.
//
// The rows are in the canonical order: the experiment's keys, then the recipe's,
// then the view's. A control's range lies inside its key's limits and may be
// narrower (the steps slider covers 10…5000 of 0…20000): a value a link sets
// outside it is shown as it is and stays until the control is moved; a typed
// value is clamped to the key's limits (key_clamp), not to the control's range.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/text_util.hpp"
#include "spec/values.hpp"

namespace attn {

enum class key_part { experiment, recipe, view };

enum class key_kind {
    whole,   // a whole number from lo to hi
    number,  // a finite float; a recipe key must be from lo to hi as it is read, an
             // experiment key is checked by experiment_validate (rope_base, temp)
    choice,  // one of the row's choice names
    other,   // read and written by the row's own functions: text, scale, lists, view.hide
};

// A name a choice key takes and the value it stands for (the enum's, or a bool's
// 0 / 1), with the label a control shows for it; en null: no control offers it
// (pos=learned: only a recipe sets it).
struct key_choice {
    int value;
    const char* name;
    const char* en = nullptr;
    const char* zh = nullptr;
};

// The range a control offers, inside the key's limits; lo == hi: no control edits
// the key. step: a drag's speed per pixel or an input box's step (0: a slider).
struct key_control {
    double lo = 0, hi = 0;
    double step = 0;
    bool log = false;
    const char* format = nullptr;  // the value as the control writes it (printf), null: its default
};

using key_help = bilingual;

// What a row reads and writes: an experiment (its own keys and its recipe's), a
// recipe alone, or a link's view. Only the one the row's part names need be set.
struct key_values {
    experiment* e = nullptr;
    train_settings* train = nullptr;
    link_view* view = nullptr;
    key_values(experiment& x) : e(&x), train(&x.train) {}
    key_values(train_settings& x) : train(&x) {}
    key_values(link_view& x) : view(&x) {}
};
struct key_const_values {
    const experiment* e = nullptr;
    const train_settings* train = nullptr;
    const link_view* view = nullptr;
    key_const_values(const experiment& x) : e(&x), train(&x.train) {}
    key_const_values(const train_settings& x) : train(&x) {}
    key_const_values(const link_view& x) : view(&x) {}
};

struct key_row {
    const char* name;
    key_part part;
    key_kind kind;
    double lo = 0, hi = 0;  // limits of a whole or number key (of scale's number; of a list's items)
    bool lo_open = false;   // above lo, not at it (rope_base)
    key_control control{};
    std::span<const key_choice> choices{};  // a choice key's names; view.hide's panels
    key_help help{};
    const char* example = nullptr;  // a canonical value other than the default (the docs, the tests)
    // The member, as a number (a choice as its value); null for text and lists.
    double (*get)(key_const_values) = nullptr;
    void (*set)(key_values, double) = nullptr;
    // A key of its own form (kind other) or message (seed, trained): how it is read
    // ("" or what is wrong), written, and checked when built in code ("" when fine).
    std::string (*read)(key_values, std::string_view) = nullptr;
    std::string (*write)(key_const_values) = nullptr;
    std::string (*check)(key_const_values) = nullptr;
};

// Every key, in the canonical order.
std::span<const key_row> key_table();
// The row of a key ("steps", "view.stage"), or null.
const key_row* key_find(std::string_view name, key_part part);
// The row of a key the code names; it must exist (a misspelt name is a bug: it aborts).
const key_row& key_of(std::string_view name);

// Reads a value into x: "" or what is wrong with it, without the key's name
// ("must be between 1 and 256, not 0"); x is left as it was when refused.
std::string key_read(const key_row& k, key_values x, std::string_view value);
// The value of k in x as the canonical text writes it (not percent-encoded).
std::string key_write(const key_row& k, key_const_values x);
// What is wrong with k's value in x when it was built in code rather than read
// ("" when nothing): a whole or number key outside its limits, the row's own check.
std::string key_check(const key_row& k, key_const_values x);
// v within k's limits (an open lower limit: the control's lower end).
double key_clamp(const key_row& k, double v);
// The names of a choice key as a message lists them: "'a', 'b' or 'c'" (a view
// key's, or any with quote false, without quotes); skip: a name to leave out ("none").
std::string key_choice_list(const key_row& k, const char* skip = nullptr, bool quote = true);
// The name of a choice key's value ("?" when it has none).
const char* key_choice_name(const key_row& k, int value);

// The text forms every key reads and writes: a whole number in decimal and nothing
// else; a float's shortest text that reads back to it (whole numbers below 1e9
// without an exponent, never "-0").
bool key_parse_whole(std::string_view s, long long& out);
std::string key_format_float(float x);

// Names of the values, from the rows' choices.
const char* mask_kind_name(mask_kind m);
const char* positional_name(positional p);
const char* softmax_mode_name(softmax_mode s);
const char* edit_target_name(edit_target t);
const char* weight_init_name(weight_init w);
const char* train_task_name(train_task t);
const char* view_panel_name(view_panel p);
// A list item as a link writes it: "layer.head.query.key", "layer.head".
std::string masked_edge_text(const masked_edge& m);
std::string ablated_head_text(const ablated_head& a);

}  // namespace attn
