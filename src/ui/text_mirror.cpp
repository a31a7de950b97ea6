#include "text_mirror.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "heatmap_data.hpp"
#include "i18n.hpp"
#include "lessons.hpp"
#include "panels.hpp"
#include "text_util.hpp"

namespace attn::ui {

namespace {

void put_string(std::string& out, const std::string& s) { json_string_append(out, s); }

void put_strings(std::string& out, const std::vector<std::string>& list) {
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i)
            out += ',';
        put_string(out, list[i]);
    }
    out += ']';
}

// One map as a table (or, past the limits, its shape and a note). `budget` is
// what is left of the stage's cell allowance.
void put_table(std::string& out, const app& a, const stage_matrix& sm, const std::string& caption, int& budget) {
    const matrix& m = *sm.m;
    const auto& tokens = a.model.tr.tokens;
    char shape[64];
    std::snprintf(shape, sizeof shape, " (%d × %d)", m.rows, m.cols);
    out += "{\"caption\":";
    put_string(out, caption + shape);
    const long cells = long(m.rows) * long(m.cols);
    if (cells > text_mirror_cell_limit || cells > budget) {
        out += ",\"note\":";
        put_string(out, tr("Too many values to list here; Share → Export CSV has every one.",
                           "数值太多，这里不列出；“分享 → 导出 CSV”包含全部数值。"));
        out += '}';
        return;
    }
    budget -= int(cells);
    out += ",\"rows\":";
    put_strings(out, stage_matrix_row_labels(sm, tokens));
    out += ",\"cols\":";
    put_strings(out, stage_matrix_col_labels(sm, tokens));
    out += ",\"cells\":[";
    for (int r = 0; r < m.rows; ++r) {
        out += r ? ",[" : "[";
        for (int c = 0; c < m.cols; ++c) {
            if (c)
                out += ',';
            put_string(out, text_mirror_cell(m(r, c), heatmap_classify(m, sm.masked_from, r, c) == heatmap_cell::masked));
        }
        out += ']';
    }
    out += "]}";
}

void put_tables(std::string& out, const app& a) {
    out += "\"tables\":[";
    int budget = text_mirror_total_limit;
    bool first = true;
    const int heads = stage_per_head(a.current) ? a.model.exp.heads : 1;
    for (int h = 0; h < heads; ++h) {
        const auto mats = stage_matrices(a.current, a.model.tr, a.layer, h);
        for (const stage_matrix& sm : mats) {
            if (!first)
                out += ',';
            first = false;
            std::string caption = sm.label;
            if (stage_per_head(a.current)) {
                caption += std::string(", ") + tr("head ", "头 ") + std::to_string(h);
                if (a.model.tr.layers[std::size_t(a.layer)].heads[std::size_t(h)].ablated)
                    caption += tr(" (zeroed)", "（已置零）");
            }
            put_table(out, a, sm, caption, budget);
        }
    }
    out += ']';
}

std::string effect_line(app& a) {
    if (!a.model.has_baseline)
        return "";
    const intervention_effect& e = app_effect(a);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %.4g, ‖Δy‖/‖y‖ %.1f%%",
                  tr("Effect of the interventions on the output: max |Δy|", "干预对输出的效果：最大 |Δy|"), e.max_abs,
                  e.relative * 100.0);
    return buf;
}

void put_lesson(std::string& out, const app& a) {
    if (a.lesson.index < 0 || a.lesson.index >= int(lessons().size())) {
        out += "null";
        return;
    }
    const lesson& l = lessons()[std::size_t(a.lesson.index)];
    out += "{\"id\":";
    put_string(out, l.id);
    out += ",\"title\":";
    put_string(out, tr(l.title_en, l.title_zh));
    out += ",\"text\":";
    put_string(out, tr(l.try_en, l.try_zh));
    out += ",\"numbers\":[";
    for (std::size_t i = 0; i < a.lesson.numbers.size(); ++i) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.6g", a.lesson.numbers[i].second);
        out += i ? ",[" : "[";
        put_string(out, a.lesson.numbers[i].first);
        out += ',';
        put_string(out, buf);
        out += ']';
    }
    out += "]}";
}

// Where the reader is and what the last change did, in one sentence.
std::string summary(app& a) {
    const int index = int(a.current);
    std::string s = std::string(tr("Stage ", "阶段 ")) + std::to_string(index + 1) + tr(" of ", " / ") +
                    std::to_string(stage_count) + ": " + stage_name(a.current) + ".";
    if (a.model.exp.layers > 1)
        s += std::string(" ") + tr("Layer ", "层 ") + std::to_string(a.layer) + ".";
    if (a.lesson.index >= 0 && a.lesson.index < int(lessons().size())) {
        const lesson& l = lessons()[std::size_t(a.lesson.index)];
        s += std::string(" ") + l.id + " " + tr(l.title_en, l.title_zh) + ".";
    }
    const auto& e = a.model.exp;
    if (const trainer& t = a.model.train; t.run) {  // while it trains, one word: the live region is not flooded
        char buf[160];
        if (trainer_done(t))
            std::snprintf(buf, sizeof buf,
                          tr(" Trained to step %d of %d; held-out accuracy %.0f%%.",
                             " 已训练到第 %d 步（共 %d 步）；留出集准确率 %.0f%%。"),
                          trainer_step(t), e.train.steps, double(t.now.held_out.acc) * 100.0);
        else
            std::snprintf(buf, sizeof buf, "%s", tr(" Training…", " 训练中…"));
        s += buf;
    }
    if (!e.ablate.empty())
        s += " " + std::to_string(e.ablate.size()) + tr(" head(s) zeroed.", " 个头已置零。");
    if (!e.edges.empty())
        s += " " + std::to_string(e.edges.size()) + tr(" edge(s) masked.", " 条边已屏蔽。");
    const std::string effect = effect_line(a);
    if (!effect.empty())
        s += " " + effect + ".";
    if (a.model.tr.nan_count || a.model.tr.inf_count)
        s += " " + std::to_string(a.model.tr.nan_count) + " NaN, " + std::to_string(a.model.tr.inf_count) +
             tr(" infinite values.", " 个无穷值。");
    if (!a.errors.empty())
        s += std::string(" ") + tr("Problem: ", "问题：") + a.errors.front();
    return s;
}

}  // namespace

std::string text_mirror_cell(float value, bool masked) {
    if (std::isnan(value))
        return "NaN";
    if (masked)
        return tr("masked", "已屏蔽");
    if (std::isinf(value))
        return value > 0 ? tr("+infinity", "+无穷") : tr("−infinity", "−无穷");
    char buf[16];
    return heatmap_format_value(value, buf, sizeof buf);
}

std::string text_mirror_json(app& a) {
    std::string out = "{\"lang\":";
    put_string(out, ui_language() == language::zh ? "zh" : "en");
    out += ",\"summary\":";
    put_string(out, summary(a));
    out += ",\"stage\":{\"index\":" + std::to_string(int(a.current)) + ",\"count\":" + std::to_string(stage_count) + ",\"name\":";
    put_string(out, stage_name(a.current));
    out += ",\"formula\":";
    put_string(out, stage_formula(a.current));
    out += ",\"explain\":";
    put_string(out, stage_explain(a.current));
    out += "},\"layer\":" + std::to_string(a.layer) + ",\"layers\":" + std::to_string(a.model.exp.layers) + ",";
    put_tables(out, a);
    out += ",\"inspector\":";
    const bool cell = a.selected.valid() && a.selected.at == a.current;
    put_strings(out, cell ? cell_explanation(a, a.selected) : std::vector<std::string>{});
    out += ",\"effect\":";
    put_string(out, effect_line(a));
    out += ",\"lesson\":";
    put_lesson(out, a);
    out += ",\"errors\":";
    put_strings(out, a.errors);
    out += '}';
    return out;
}

}  // namespace attn::ui
