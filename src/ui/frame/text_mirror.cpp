#include "frame/text_mirror.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/text_util.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/lesson_views.hpp"
#include "look/i18n.hpp"
#include "maps/heatmap_data.hpp"
#include "panels/panels.hpp"
#include "play/measure_training.hpp"
#include "train/task.hpp"

namespace attn::ui {

namespace {

void put_string(std::string& out, const std::string& s) { json_string_append(out, s); }

// A number of the text view's: NaN and ±∞ spelled out (a screen reader reads them).
std::string spelled_number(double v, const char* format) { return number_text(v, format, nonfinite_spelled()); }

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
    const auto& tokens = app_pipeline(a).tr->tokens;
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

void put_prediction_tables(std::string& out, const app& a);
void put_compare_patch_table(std::string& out, const app& a, bool first);

// While the compare shows A | B | B − A: its summary, then A's map and B − A of
// each map the stage shows (B's are the stage's tables above), the head picked
// or every head's, within the stage's cell allowance.
void put_compare_tables(std::string& out, const app& a, int& budget, bool& first) {
    if (!a.model.pin || !a.view.compare_shown || app_pipeline(a).real)
        return;
    const compare_result& c = app_compare(a);
    out += first ? "{\"caption\":" : ",{\"caption\":";
    first = false;
    put_string(out, std::string(tr("Compare A | B | B − A: ", "对比 A | B | B − A：")) + compare_summary_text(c));
    out += ",\"note\":";
    put_string(out, tr("B's maps are the tables above; A's and B − A follow.", "B 的矩阵是上面的表格；下面是 A 的和 B − A。"));
    out += '}';
    if (c.mismatch.what != compare_mismatch::kind::none)
        return;
    const int heads = stage_per_head(a.view.current) ? a.model.exp.heads : 1;
    const int picked = a.view.compare_head < heads ? a.view.compare_head : -1;
    std::size_t index = 0;
    for (int h = 0; h < heads; ++h) {
        const auto ma = stage_matrices(a.view.current, a.model.pin_tr, a.view.layer, h);
        for (std::size_t k = 0; k < ma.size() && index < c.maps.size(); ++k, ++index) {
            if (picked >= 0 && h != picked)
                continue;
            std::string label = ma[k].label;
            if (stage_per_head(a.view.current))
                label += std::string(", ") + tr("head ", "头 ") + std::to_string(h);
            out += ',';
            put_table(out, a, ma[k], "A: " + label, budget);
            stage_matrix diff = ma[k];
            diff.m = &c.maps[index].diff;
            diff.masked_from = nullptr;  // a cell masked in both differs by 0
            out += ',';
            put_table(out, a, diff, "B − A: " + label, budget);
        }
    }
}

void put_plain_table(std::string& out, const std::string& caption, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::vector<std::vector<std::string>>& cells);

// The Model window's direct logit attribution (every part) and logit lens.
void put_real_readout_tables(std::string& out, const app& a) {
    const real_session& r = a.real;
    const llama_attribution& at = r.reading.attribution;
    const int heads = r.model->model.config.n_heads;
    const std::string target = "\"" + llama_decode_piece(r.model->tok, r.reading.ids.back(), at.target) + "\"";
    std::vector<std::string> rows{tr("embedding", "嵌入")}, cols{tr("part of the logit", "logit 的部分")};
    std::vector<std::vector<std::string>> cells{{spelled_number(double(at.embedding), "%.4f")}};
    for (std::size_t i = 0; i < at.heads.size(); ++i) {
        rows.push_back(std::string(tr("head ", "头 ")) + std::to_string(int(i) / heads) + "." + std::to_string(int(i) % heads));
        cells.push_back({spelled_number(double(at.heads[i]), "%.4f")});
    }
    for (std::size_t l = 0; l < at.ffn.size(); ++l) {
        rows.push_back("FFN " + std::to_string(l));
        cells.push_back({spelled_number(double(at.ffn[l]), "%.4f")});
    }
    if (r.model->model.config.arch == llama_arch::gpt2) {  // W_O's and the final LayerNorm's biases
        rows.push_back(tr("biases", "偏置"));
        cells.push_back({spelled_number(double(at.bias), "%.4f")});
    }
    out += ',';
    put_plain_table(out,
                    std::string(tr("Model: who writes the logit of ", "模型：是谁写下了 ")) + target +
                        tr(" (the parts sum to it)", " 的 logit（各部分之和）"),
                    rows, cols, cells);
    rows.clear();
    cells.clear();
    cols = {tr("likeliest", "最可能的"), tr("its probability", "它的概率"), target};
    for (const llama_lens_row& l : r.reading.lens) {
        rows.push_back(l.layer < 0 ? std::string(tr("the embedding", "嵌入"))
                                   : std::string(tr("layer ", "层 ")) + std::to_string(l.layer));
        cells.push_back({"\"" + llama_decode_piece(r.model->tok, r.reading.ids.back(), l.top) + "\"",
                         spelled_number(double(l.top_probability), "%.4f"),
                         spelled_number(double(l.target_probability), "%.4f")});
    }
    out += ',';
    put_plain_table(out, tr("Model: what each layer would predict (logit lens)", "模型：每一层会预测什么（logit lens）"), rows,
                    cols, cells);
    if (!real_session_changed(r, app_model_wants(a)))
        return;
    rows.clear();
    cells.clear();
    cols = {tr("the model", "原模型"), tr("with the changes", "改动之后")};
    for (std::size_t i = 0; i < r.reading.next.size() && i < r.effect.reading_ids_probability.size(); ++i) {
        rows.push_back("\"" + llama_decode_piece(r.model->tok, r.reading.ids.back(), r.reading.next[i].id) + "\"");
        cells.push_back({spelled_number(double(r.reading.next[i].probability), "%.4f"),
                         spelled_number(double(r.effect.reading_ids_probability[i]), "%.4f")});
    }
    out += ',';
    put_plain_table(out,
                    std::string(tr("Model: the next token with the changes (", "模型：改动之后的下一个词元（")) +
                        real_changes_text(a.view.model.changes) + tr("; KL ", "；KL ") +
                        spelled_number(double(r.effect.kl), "%.3g") + ")",
                    rows, cols, cells);
}

// The Model window's numbers, while it is open on a model: the next token, and
// every head's scores on the text, the attribution and the lens.
void put_real_model_tables(std::string& out, const app& a, bool first) {
    const real_session& r = a.real;
    if (!a.view.model.open || !r.model || r.reading.ids.empty())
        return;
    std::vector<std::string> rows, cols{tr("probability", "概率")};
    std::vector<std::vector<std::string>> cells;
    for (const real_next_token& t : r.reading.next) {
        rows.push_back("\"" + llama_decode_piece(r.model->tok, r.reading.ids.back(), t.id) + "\"");
        cells.push_back({spelled_number(double(t.probability), "%.4f")});
    }
    out += first ? "" : ",";
    put_plain_table(out, std::string(tr("Model ", "模型 ")) + r.model->name + tr(": the next token", "：下一个词元"), rows, cols,
                    cells);
    out += ",{\"caption\":";  // what is open: GPT-2, Llama, Qwen2 or llama2.c, its size and type
    put_string(out, std::string(tr("Model ", "模型 ")) + r.model->name);
    out += ",\"note\":";
    put_string(out, real_model_summary(*r.model));
    out += '}';
    if (r.reading.embedding_decides) {
        out += ",{\"caption\":";
        put_string(out, std::string(tr("Model ", "模型 ")) + r.model->name + tr(": its embedding decides", "：由嵌入决定"));
        out += ",\"note\":";
        put_string(out, real_embedding_decides_text());
        out += '}';
    }
    if (const real_model_generation& g = r.gen; !g.ids.empty()) {  // "Continue": the text with what it wrote
        char made[96];
        std::snprintf(made, sizeof made, tr(": %d tokens generated", "：已生成 %d 个词元"), int(g.ids.size()) - g.prompt);
        out += ",{\"caption\":";
        put_string(
            out, std::string(tr("Model ", "模型 ")) + r.model->name + made + (g.done ? "" : tr(" (generating…)", "（生成中…）")));
        out += ",\"note\":";
        put_string(out, r.reading.decoded + g.text);
        out += '}';
    }
    rows.clear();
    cells.clear();
    cols.clear();
    for (const head_score k : real_head_scores)
        cols.push_back(head_score_of(k).abbr);
    for (const real_head_summary& h : r.reading.heads) {
        rows.push_back(std::to_string(h.layer) + "." + std::to_string(h.head));
        std::vector<std::string> row;
        for (const head_score k : real_head_scores)  // −1: no token repeats, no induction score
            row.push_back(real_head_score(h, k) < 0 ? std::string("—") : spelled_number(double(real_head_score(h, k)), "%.3f"));
        cells.push_back(std::move(row));
    }
    out += ',';
    put_plain_table(out,
                    std::string(tr("Model: each head (layer.head) on the text — ", "模型：每个头（层.头）在这段文字上——")) +
                        head_score_legend(real_head_scores),
                    rows, cols, cells);
    put_real_readout_tables(out, a);
}

void put_tables(std::string& out, const app& a) {
    out += "\"tables\":[";
    int budget = text_mirror_total_limit;
    bool first = true;
    const pipeline_shown p = app_pipeline(a);
    const int heads = stage_per_head(a.view.current) ? p.exp->heads : 1;
    for (int h = 0; h < heads; ++h) {
        const auto mats = stage_matrices(a.view.current, *p.tr, p.layer, h);
        for (const stage_matrix& sm : mats) {
            if (!first)
                out += ',';
            first = false;
            std::string caption = sm.label;
            if (stage_per_head(a.view.current)) {
                caption += std::string(", ") + tr("head ", "头 ") + std::to_string(h);
                if (p.tr->layers[std::size_t(p.layer)].heads[std::size_t(h)].ablated)
                    caption += tr(" (zeroed)", "（已置零）");
            }
            put_table(out, a, sm, caption, budget);
        }
    }
    if (a.view.current == stage::output && a.model.prediction.n > 0 && !p.real) {
        out += ',';
        put_prediction_tables(out, a);
    }
    put_compare_tables(out, a, budget, first);
    put_compare_patch_table(out, a, first);
    put_real_model_tables(out, a, first);
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

// A table of the lesson's own (a caption, row and column headers, cells as text).
void put_plain_table(std::string& out, const std::string& caption, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::vector<std::vector<std::string>>& cells) {
    out += "{\"caption\":";
    put_string(out, caption);
    out += ",\"rows\":";
    put_strings(out, rows);
    out += ",\"cols\":";
    put_strings(out, cols);
    out += ",\"cells\":[";
    for (std::size_t r = 0; r < cells.size(); ++r) {
        if (r)
            out += ',';
        put_strings(out, cells[r]);
    }
    out += "]}";
}

// "Patch from A" as a table, after the stage's while the compare shows it.
void put_compare_patch_table(std::string& out, const app& a, bool first) {
    text_table t;
    if (!compare_patch_table(a, t))
        return;
    if (!first)
        out += ',';
    put_plain_table(out, t.caption, t.rows, t.cols, t.cells);
}

// The output stage's prediction after the selected token and the logit lens, as
// prediction_view draws them: two tables.
void put_prediction_tables(std::string& out, const app& a) {
    const circuit_prediction& p = a.model.prediction;
    const int t = std::clamp(a.view.sel_row, 0, p.n - 1), target = p.targets[std::size_t(t)];
    auto percent = [](float v) { return spelled_number(double(v) * 100.0, "%.1f %%"); };
    std::vector<std::string> rows, cols = {tr("probability", "概率"), tr("the text's next token", "文本中的下一个词元")};
    std::vector<std::vector<std::string>> cells;
    for (int i = 0; i < p.top_k; ++i) {
        const int v = p.top[std::size_t(t * p.top_k + i)];
        rows.push_back(task_symbol(v));
        cells.push_back({percent(p.probs[std::size_t(t * p.V + v)]), v == target ? tr("yes", "是") : ""});
    }
    char caption[200];
    std::snprintf(caption, sizeof caption,
                  tr("What the trained model predicts after “%s” (position %d)", "训练好的模型在“%s”（位置 %d）之后的预测"),
                  task_symbol(p.tokens[std::size_t(t)]).c_str(), t);
    std::string full = caption;
    if (target >= 0) {
        std::snprintf(
            caption, sizeof caption,
            tr("; the text's next token “%s”: %s, ranked %d of %d", "；文本中的下一个词元“%s”：%s，排第 %d（共 %d 个）"),
            task_symbol(target).c_str(), percent(p.target_prob[std::size_t(t)]).c_str(), p.target_rank[std::size_t(t)] + 1, p.V);
        full += caption;
    }
    const std::string writer = prediction_writer_text(p, t);
    if (!writer.empty())
        full += std::string(tr(". ", "。")) + writer;
    put_plain_table(out, full, rows, cols, cells);
    rows.clear(), cells.clear();
    cols = {tr("top token", "最可能的词元"), tr("probability", "概率")};
    if (target >= 0)
        cols.push_back(std::string(tr("rank of “", "“")) + task_symbol(target) + tr("”", "”的排名"));
    const std::size_t nv = std::size_t(p.n) * std::size_t(p.V);
    for (int l = 0; l < p.L; ++l) {
        const int top = p.lens_top[std::size_t(l * p.n + t)];
        rows.push_back(std::string(tr("after layer ", "第 ")) + std::to_string(l) + tr("", " 层之后"));
        std::vector<std::string> row = {task_symbol(top),
                                        percent(p.lens_probs[std::size_t(l) * nv + std::size_t(t * p.V + top)])};
        if (target >= 0)
            row.push_back(std::to_string(p.lens_target_rank[std::size_t(l * p.n + t)] + 1));
        cells.push_back(std::move(row));
    }
    out += ',';
    put_plain_table(
        out, tr("Logit lens: the prediction if the model stopped after each layer", "Logit lens：模型在每一层之后就停下时的预测"),
        rows, cols, cells);
}

// A trained model's heads (their scores at the model's step) and its curve at
// the kept snapshots, as the Train panel draws them.
void put_training_tables(std::string& out, const app& a) {
    const trainer& t = a.model.train;
    if (!t.run || t.now.heads.empty())
        return;
    const int h = t.run->h;
    std::vector<std::string> rows, cols;
    std::vector<head_score> shown;  // as the Train panel's bars
    for (const head_score_row& k : head_score_table)
        if (head_score_shown(k.kind, t.run->e.train.task))
            shown.push_back(k.kind), cols.push_back(tr(k.name));
    std::vector<std::vector<std::string>> cells;
    for (std::size_t k = 0; k < t.now.heads.size(); ++k) {
        rows.push_back(std::string(tr("layer ", "第 ")) + std::to_string(int(k) / h) + tr(" · head ", " 层 · 头 ") +
                       std::to_string(int(k) % h));
        std::vector<std::string> row;
        for (const head_score kind : shown)
            row.push_back(spelled_number(head_score_mean(t.now.heads[k], kind), "%.2f"));
        cells.push_back(std::move(row));
    }
    char caption[160];
    std::snprintf(caption, sizeof caption,
                  tr("Each head's scores on the held-out rows at step %d", "第 %d 步时每个头在留出集上的得分"), trainer_step(t));
    out += ',';
    put_plain_table(out, caption, rows, cols, cells);
    rows.clear(), cells.clear();
    cols = {tr("train loss", "训练损失"), tr("held-out loss", "留出集损失"), tr("held-out accuracy", "留出集准确率")};
    for (const trainer_mark& m : t.marks) {
        rows.push_back(std::string(tr("step ", "第 ")) + std::to_string(m.step) + tr("", " 步"));
        const bool taken = m.step > 0 && std::size_t(m.step) <= t.curve.size();
        cells.push_back({taken ? spelled_number(t.curve[std::size_t(m.step - 1)].loss, "%.4g") : "—",
                         spelled_number(m.held_out.loss, "%.4g"), spelled_number(double(m.held_out.acc) * 100.0, "%.1f%%")});
    }
    out += ',';
    put_plain_table(out, tr("The curve at the kept snapshots", "保留快照处的曲线"), rows, cols, cells);
    // Each head zeroed alone: which heads the task needs (as far as measured yet).
    const head_ablations& each = a.model.each_head;
    if (each.heads == 0 || each.step != trainer_step(t))
        return;
    rows.clear(), cells.clear();
    cols = {tr("held-out accuracy", "留出集准确率"), tr("held-out loss", "留出集损失")};
    rows.push_back(tr("none zeroed", "不置零"));
    cells.push_back({spelled_number(double(each.intact.acc) * 100.0, "%.1f%%"), spelled_number(each.intact.loss, "%.4g")});
    for (const auto& [head, r] : each.rows) {
        char name[48];
        std::snprintf(name, sizeof name, tr("layer %d head %d zeroed", "第 %d 层第 %d 个头置零"), head.layer, head.head);
        rows.push_back(name);
        cells.push_back({spelled_number(double(r.acc) * 100.0, "%.1f%%"), spelled_number(r.loss, "%.4g")});
    }
    std::snprintf(caption, sizeof caption,
                  each.complete() ? tr("Each head zeroed alone, at step %d", "第 %d 步时逐个将头置零")
                                  : tr("Each head zeroed alone, at step %d (measuring…)", "第 %d 步时逐个将头置零（测量中…）"),
                  each.step);
    out += ',';
    put_plain_table(out, caption, rows, cols, cells);
}

void put_lesson(std::string& out, const app& a) {
    const lesson_preset* shown = lesson_at(a.view.lesson.index);
    if (!shown) {
        out += "null";
        return;
    }
    const lesson_preset& l = *shown;
    out += "{\"id\":";
    put_string(out, l.id);
    out += ",\"title\":";
    put_string(out, tr(l.title));
    out += ",\"text\":";
    put_string(out, tr(l.try_text));
    out += ",\"lines\":[";
    const lesson_claims claims = lesson_claims_of(a);
    bool first = true;
    for (const auto* group : {&claims.claims, &claims.after})
        for (const claim_line& line : *group) {
            if (!first)
                out += ',';
            first = false;
            put_string(out, line.text);
        }
    out += "],\"tables\":[";
    bool any = false;
    if (!claims.claims.empty()) {
        std::string tables;
        put_training_tables(tables, a);
        if (!tables.empty())
            out.append(tables, 1);  // without the leading comma
        any = !tables.empty();
    }
    for (const lesson_table& t : circuit_lesson_tables(a)) {
        if (any)
            out += ',';
        any = true;
        put_plain_table(out, t.caption, t.rows, t.cols, t.cells);
    }
    out += "],\"numbers\":[";
    for (std::size_t i = 0; i < a.reports.lesson_numbers.size(); ++i) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.6g", a.reports.lesson_numbers[i].second);
        out += i ? ",[" : "[";
        put_string(out, a.reports.lesson_numbers[i].first);
        out += ',';
        put_string(out, buf);
        out += ']';
    }
    out += "]}";
}

// Where the reader is and what the last change did, in one sentence.
std::string summary(app& a) {
    const int index = int(a.view.current);
    std::string s = std::string(tr("Stage ", "阶段 ")) + std::to_string(index + 1) + tr(" of ", " / ") +
                    std::to_string(stage_count) + ": " + stage_name(a.view.current) + ".";
    if (const pipeline_shown p = app_pipeline(a); p.real)
        s += std::string(" ") + tr("The pipeline shows the model ", "流水线显示模型 ") + a.real.model->name +
             tr(", layer ", "，层 ") + std::to_string(p.layer) + ".";
    else if (a.model.exp.layers > 1)
        s += std::string(" ") + tr("Layer ", "层 ") + std::to_string(a.view.layer) + ".";
    if (const lesson_preset* l = lesson_at(a.view.lesson.index))
        s += std::string(" ") + l->id + " " + tr(l->title) + ".";
    const auto& e = a.model.exp;
    if (const trainer& t = a.model.train; t.run) {  // while it trains, one word: the live region is not flooded
        char buf[400];
        if (trainer_stopped(t))  // where and why, never as if it had finished
            std::snprintf(buf, sizeof buf,
                          tr(" Training stopped at step %d of %d: %s. Held-out accuracy %s.",
                             " 训练在第 %d 步停止（共 %d 步）：%s。留出集准确率 %s。"),
                          trainer_step(t), e.train.steps, t.error.c_str(),
                          spelled_number(double(t.now.held_out.acc) * 100.0, "%.0f%%").c_str());
        else if (trainer_done(t))
            std::snprintf(
                buf, sizeof buf,
                tr(" Trained to step %d of %d; held-out accuracy %s.", " 已训练到第 %d 步（共 %d 步）；留出集准确率 %s。"),
                trainer_step(t), e.train.steps, spelled_number(double(t.now.held_out.acc) * 100.0, "%.0f%%").c_str());
        else
            std::snprintf(buf, sizeof buf, "%s", tr(" Training…", " 训练中…"));
        s += buf;
        if (trainer_done(t)) {  // what the run did, once: the drop, when the model shown is past it
            const formation_measure f = measure_formation(t);
            if (f.plateau_shown) {
                std::snprintf(buf, sizeof buf,
                              tr(" The train loss fell at step %d, from a plateau at %.2f to %.2g.",
                                 " 训练损失在第 %d 步下降：从 %.2f 的平台降到 %.2g。"),
                              f.phase, double(f.plateau_loss), double(f.loss_now));
                s += buf;
            } else if (f.drop_shown) {
                std::snprintf(buf, sizeof buf,
                              tr(" The train loss fell fastest at step %d, with no plateau before it; now %.2g.",
                                 " 训练损失在第 %d 步下降最快，之前没有平台；现在为 %.2g。"),
                              f.phase, double(f.loss_now));
                s += buf;
            }
        }
    }
    if (!e.ablate.empty())
        s += " " + std::to_string(e.ablate.size()) + tr(" head(s) zeroed.", " 个头已置零。");
    if (!e.edges.empty())
        s += " " + std::to_string(e.edges.size()) + tr(" edge(s) masked.", " 条边已屏蔽。");
    const pipeline_shown p = app_pipeline(a);
    const std::string effect = p.real ? std::string() : effect_line(a);  // the experiment's Δy: not what is shown
    if (!effect.empty())
        s += " " + effect + ".";
    if (p.real && !a.view.model.changes.empty()) {  // the model's changes, what they do, or why they do not run
        const real_wants w = app_model_wants(a);
        const std::vector<std::string> problems = real_session_problems(a.real, w);
        s += " " + std::string(tr("The model's changes: ", "模型的改动：")) + real_changes_text(a.view.model.changes) + ".";
        if (!problems.empty())
            s += " " + std::string(tr("They do not run: ", "它们不会运行：")) + problems.front() + ".";
        else if (real_session_effect_current(a.real, w))
            s += " KL " + spelled_number(double(a.real.effect.kl), "%.3g") + " nats.";
    }
    if (a.model.tr.nan_count || a.model.tr.inf_count)
        s += " " + std::to_string(a.model.tr.nan_count) + " NaN, " + std::to_string(a.model.tr.inf_count) +
             tr(" infinite values.", " 个无穷值。");
    if (!a.errors.empty())
        s += std::string(" ") + tr("Problem: ", "问题：") + a.errors.front();
    return s;
}

}  // namespace

std::string text_mirror_json(app& a) {
    std::string out = "{\"lang\":";
    put_string(out, ui_language() == language::zh ? "zh" : "en");
    out += ",\"summary\":";
    put_string(out, summary(a));
    out += ",\"stage\":{\"index\":" + std::to_string(int(a.view.current)) + ",\"count\":" + std::to_string(stage_count) +
           ",\"name\":";
    put_string(out, stage_name(a.view.current));
    out += ",\"formula\":";
    put_string(out, app_pipeline(a).real && a.real.model ? stage_formula_real(a.view.current, a.real.model->model.config)
                                                         : stage_formula(a.view.current));
    out += ",\"explain\":";
    put_string(out, stage_explain(a.view.current));
    const pipeline_shown p = app_pipeline(a);
    out += "},\"layer\":" + std::to_string(p.layer) + ",\"layers\":" + std::to_string(p.exp->layers) + ",";
    put_tables(out, a);
    out += ",\"inspector\":";
    const bool cell = a.view.selected.valid() && a.view.selected.at == a.view.current;
    std::vector<std::string> inspector;  // as the panel: the selected cell, else the output stage's prediction
    if (cell)
        inspector = cell_explanation(a, a.view.selected);
    else if (a.view.current == stage::output && !p.real)
        if (std::string story = prediction_story(a.model.prediction, a.view.layer, a.view.sel_row); !story.empty())
            inspector.push_back(std::move(story));
    put_strings(out, inspector);
    out += ",\"effect\":";
    put_string(out, p.real ? std::string() : effect_line(a));
    out += ",\"lesson\":";
    put_lesson(out, a);
    out += ",\"errors\":";
    put_strings(out, a.errors);
    out += '}';
    return out;
}

}  // namespace attn::ui
