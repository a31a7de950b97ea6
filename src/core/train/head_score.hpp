// The kinds of a head's score, one row each: what every view that names a score
// reads (the Train panel's bars, the Model window's tiles, the text view's
// tables, the page's JSON) and the bar the claims hold a head to.
//
// The scores are means over a head's attention weights w (n, n), computed once:
// on a toy model's held-out rows by train_diagnostics.hpp (head_scores), on a
// real model's text by play/real_model.hpp (real_head_summary, the same sums).
//
//   for (const head_score_row& r : head_score_table)
//       show(tr(r.name), head_score_mean(scores, r.kind), tr(r.help));
#pragma once

#include <array>
#include <cstddef>

#include "base/text_util.hpp"

namespace attn {

enum class head_score { previous, induction, offset, sink };

struct head_score_row {
    head_score kind;
    const char* key;   // its name in the page's JSON: "prev", "induction", "offset", "sink"
    const char* abbr;  // where room is short (the Model window's tiles, the text view's columns of a real model): "ind"
    bilingual name;    // a bar's or a column's: "previous-token", "induction", "offset", "sink"
    bilingual help;    // what it measures, a clause without a stop: "the mean weight a query puts on …"
    // The bar a head of this kind reaches (0: no claim reads this score): a toy
    // model's claims (L9's induction and previous-token heads, L10's positional
    // heads; play/measure_training.hpp), and a real model's on its text (L13;
    // twice what uniform attention gives where that is more: real_model_find).
    float claim = 0;
    float real_bar = 0;
};

// In the enum's order: the order the Train panel's bars, the text view's columns
// and the page's JSON list them.
// clang-format off
inline constexpr std::array<head_score_row, 4> head_score_table = {{
    {head_score::previous, "prev", "prev", {"previous-token", "前一词元"},
     {"the mean weight a query puts on the token just before it", "查询放在它前一个词元上的平均权重"},
     0.5f, 0.4f},
    {head_score::induction, "induction", "ind", {"induction", "归纳"},
     {"the mean weight a query puts on the token right after the last earlier copy of its own token (over the queries "
      "whose token occurred before)",
      "查询放在“它自己的词元上一次出现之处的下一个词元”上的平均权重（只算词元之前出现过的查询）"},
     0.5f, 0.3f},
    {head_score::offset, "offset", "offset", {"offset", "偏移"},
     {"the mean weight a query puts on the token the recipe's offset back", "查询放在按配方偏移量往回数的那个词元上的平均权重"},
     0.5f, 0.0f},
    {head_score::sink, "sink", "sink", {"sink", "沉淀"},
     {"the mean weight a query after the first puts on the first token", "第一个之后的查询放在第一个词元上的平均权重"},
     0.0f, 0.5f},
}};
// clang-format on

constexpr bool head_score_table_in_order() {
    for (std::size_t i = 0; i < head_score_table.size(); ++i)
        if (head_score_table[i].kind != head_score(i))
            return false;
    return true;
}
static_assert(head_score_table_in_order(), "head_score_of(k) is row k");

constexpr const head_score_row& head_score_of(head_score k) { return head_score_table[std::size_t(k)]; }

}  // namespace attn
