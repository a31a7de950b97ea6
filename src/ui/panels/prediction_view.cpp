// The output stage of a trained recipe: what the model predicts after the
// selected token, and the logit lens (what it would predict if it stopped after
// each layer). Every number is the session's (circuits/predict.hpp); this file
// only lays them out.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "panels/panels.hpp"
#include "train/task.hpp"

namespace attn::ui {

namespace {

std::string quoted(const std::string& s) { return std::string(tr("“", "“")) + s + tr("”", "”"); }

// "94.1 %", or what a non-finite probability is.
std::string percent(float p) { return number_text(double(p) * 100.0, "%.1f %%", {"NaN", "∞", "∞"}); }

// One bar per top token: its symbol, a bar as long as its probability, the
// percentage, and "next in the text" beside the text's own next token.
void top_bars(frame_out& out, const circuit_prediction& p, int t) {
    const float font = ImGui::GetFontSize();
    const float width = std::clamp(ImGui::GetContentRegionAvail().x - font * 16.0f, font * 4.0f, font * 14.0f);
    const float h = ImGui::GetTextLineHeight();
    const int target = p.targets[std::size_t(t)];
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 bar = ImGui::GetColorU32(ImGuiCol_PlotHistogram), track = ImGui::GetColorU32(ImGuiCol_FrameBg);
    for (int i = 0; i < p.top_k; ++i) {
        const int v = p.top[std::size_t(t * p.top_k + i)];
        const float prob = p.probs[std::size_t(t * p.V + v)];
        textf(out, "%s", quoted(task_symbol(v)).c_str());
        ImGui::SameLine(font * 3.0f);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + width, at.y + h - 2), track);
        const float len = std::isfinite(prob) ? std::clamp(prob, 0.0f, 1.0f) * width : 0.0f;
        dl->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + len, at.y + h - 2), bar);
        ImGui::Dummy(ImVec2(width, h));
        ImGui::SameLine();
        textf(out, "%s", percent(prob).c_str());
        if (v == target) {
            ImGui::SameLine();
            text_colored(out, theme_good(), "%s", tr("← next in the text", "← 文本中的下一个"));
        }
    }
}

// Where the text's next token stands, in words.
void target_line(frame_out& out, const circuit_prediction& p, int t) {
    const int target = p.targets[std::size_t(t)];
    if (target < 0) {
        text_plain(out, tr("This is the last token: the text has no next token to compare with.",
                           "这是最后一个词元：文本中没有下一个词元可比较。"));
        return;
    }
    const int rank = p.target_rank[std::size_t(t)];
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  tr("The text's next token %s: %s, ranked %d of %d.", "文本中的下一个词元 %s：%s，排第 %d（共 %d 个）。"),
                  quoted(task_symbol(target)).c_str(), percent(p.target_prob[std::size_t(t)]).c_str(), rank + 1, p.V);
    text_colored(out, rank == 0 ? theme_good() : theme_bad(), "%s", buf);
}

}  // namespace

std::string prediction_writer_text(const circuit_prediction& p, int t) {
    const circuit_writer& w = p.writer[std::size_t(t)];
    if (w.kind == circuit_writer::none)
        return "";
    const std::string top = quoted(task_symbol(p.top[std::size_t(t * p.top_k)]));
    char who[96], buf[400];
    if (w.kind == circuit_writer::embed)
        std::snprintf(who, sizeof who, "%s", tr("the token's own embedding", "该词元自己的嵌入"));
    else if (w.kind == circuit_writer::ffn)
        std::snprintf(who, sizeof who, tr("layer %d's FFN", "第 %d 层的 FFN"), w.layer);
    else
        std::snprintf(who, sizeof who, tr("layer %d · head %d", "第 %d 层 · 头 %d"), w.layer, w.head_index);
    // Worded by the part's share of the whole (circuit_writer_share): a part larger than
    // its logit is never "most of" it; the other parts' net is named.
    switch (circuit_writer_share(w)) {
        case writer_share::most:
            std::snprintf(
                buf, sizeof buf,
                tr("Most of %s's logit (%.3g of %.3g) is written directly by %s", "%s 的 logit 大部分（%.3g / %.3g）直接来自%s"),
                top.c_str(), double(w.part), double(w.logit), who);
            break;
        case writer_share::largest:
            std::snprintf(buf, sizeof buf,
                          tr("The largest direct part of %s's logit (%.3g of %.3g) is written by %s",
                             "%s 的 logit 中最大的直接部分（%.3g / %.3g）来自%s"),
                          top.c_str(), double(w.part), double(w.logit), who);
            break;
        case writer_share::exceeds:
            std::snprintf(buf, sizeof buf,
                          tr("%s's logit is %.3g: %s writes %.3g of it directly, more than the whole, because the other parts "
                             "add up to %.3g",
                             "%s 的 logit 是 %.3g：%s 直接写入 %.3g，超过了整体，因为其余部分合计 %.3g"),
                          top.c_str(), double(w.logit), who, double(w.part), double(w.logit - w.part));
            break;
    }
    std::string line = buf;
    if (w.kind == circuit_writer::head && w.attends_to >= 0) {
        std::snprintf(buf, sizeof buf,
                      tr(", which looks from here to position %d (%s, weight %.2f).", "，它从这里看向位置 %d（%s，权重 %.2f）。"),
                      w.attends_to, quoted(task_symbol(p.tokens[std::size_t(w.attends_to)])).c_str(), double(w.weight));
        line += buf;
    } else {
        line += tr(".", "。");
    }
    return line;
}

std::string prediction_story(const circuit_prediction& p, int layer, int t) {
    if (t < 0 || t >= p.n || layer < 0 || layer >= p.L)
        return "";
    const std::size_t nv = std::size_t(p.n) * std::size_t(p.V);
    const int top = p.lens_top[std::size_t(layer * p.n + t)];
    const float prob = p.lens_probs[std::size_t(layer) * nv + std::size_t(t * p.V + top)];
    char buf[400];
    if (layer + 1 < p.L) {  // an earlier layer: the lens, and where the output ends up
        const int out_top = p.top[std::size_t(t * p.top_k)];
        std::snprintf(buf, sizeof buf,
                      tr("After layer %d, %s is %s (the stream so far times W_u: what the model would say if it "
                         "stopped here). Its output says %s (%s).",
                         "第 %d 层之后，%s 是 %s（到这里为止的残差流乘以 W_u：模型若在这里停下会给出的预测）。它的输出给出 "
                         "%s（%s）。"),
                      layer, quoted(task_symbol(top)).c_str(), percent(prob).c_str(), quoted(task_symbol(out_top)).c_str(),
                      percent(p.probs[std::size_t(t * p.V + out_top)]).c_str());
        return buf;
    }
    const circuit_writer& w = p.writer[std::size_t(t)];
    std::snprintf(buf, sizeof buf, tr("After layer %d (the output), %s is %s", "第 %d 层（输出）之后，%s 是 %s"), layer,
                  quoted(task_symbol(top)).c_str(), percent(prob).c_str());
    std::string line = buf;
    if (w.kind == circuit_writer::head && w.attends_to >= 0) {
        const int there = p.tokens[std::size_t(w.attends_to)];
        std::snprintf(buf, sizeof buf,
                      there == top ? tr(": layer %d · head %d copied it from position %d (%s), where it looks with weight "
                                        "%.2f, writing %.3g of its logit %.3g.",
                                        "：第 %d 层 · 头 %d 从位置 %d（%s）把它复制过来，它以权重 %.2f 看向那里，写入了 "
                                        "%.3g（logit 共 %.3g）。")
                                   : tr(": layer %d · head %d wrote most of its logit, looking from here to position %d (%s) "
                                        "with weight %.2f; it wrote %.3g of %.3g.",
                                        "：第 %d 层 · 头 %d 写入了它的 logit 的大部分，它从这里看向位置 %d（%s），权重 "
                                        "%.2f；写入 %.3g / %.3g。"),
                      w.layer, w.head_index, w.attends_to, quoted(task_symbol(there)).c_str(), double(w.weight), double(w.part),
                      double(w.logit));
        line += buf;
    } else if (const std::string writer = prediction_writer_text(p, t); !writer.empty()) {
        line += std::string(tr(". ", "。")) + writer;
    } else {
        line += tr(".", "。");
    }
    return line;
}

namespace {

// The logit lens: one line per layer.
void lens_lines(frame_out& out, const circuit_prediction& p, int t) {
    const int target = p.targets[std::size_t(t)];
    const std::size_t nv = std::size_t(p.n) * std::size_t(p.V);
    for (int l = 0; l < p.L; ++l) {
        const int top = p.lens_top[std::size_t(l * p.n + t)];
        const float prob = p.lens_probs[std::size_t(l) * nv + std::size_t(t * p.V + top)];
        char buf[200];
        std::snprintf(buf, sizeof buf, tr("after layer %d%s: %s %s", "第 %d 层之后%s：%s %s"), l,
                      l + 1 == p.L ? tr(" (the output)", "（输出）") : "", quoted(task_symbol(top)).c_str(),
                      percent(prob).c_str());
        std::string line = buf;
        if (target >= 0) {
            std::snprintf(buf, sizeof buf, tr("  ·  %s ranked %d", "  ·  %s 排第 %d"), quoted(task_symbol(target)).c_str(),
                          p.lens_target_rank[std::size_t(l * p.n + t)] + 1);
            line += buf;
        }
        text_plain(out, line.c_str());
    }
}

}  // namespace

void prediction_view(const app& a, frame_out& out) {
    const circuit_prediction& p = a.model.prediction;
    if (p.n == 0)
        return;
    const int t = std::clamp(a.view.sel_row, 0, p.n - 1);
    char title[200];
    std::snprintf(title, sizeof title,
                  tr("What the trained model predicts after %s (position %d)", "训练好的模型在 %s（位置 %d）之后的预测"),
                  quoted(task_symbol(p.tokens[std::size_t(t)])).c_str(), t);
    ImGui::BeginGroup();
    section_text(out, title);
    text_disabled(out, "%s",
                  tr("Its output times the unembedding W_u, through softmax. Pick another row of a map to follow another token.",
                     "输出乘以反嵌入矩阵 W_u，再经 softmax。点击图中的另一行以查看另一个词元。"));
    top_bars(out, p, t);
    target_line(out, p, t);
    const std::string writer = prediction_writer_text(p, t);
    if (!writer.empty())
        text_plain(out, writer.c_str());
    section_text(out, tr("Logit lens: the prediction if the model stopped after each layer",
                         "Logit lens：模型在每一层之后就停下时的预测"));
    lens_lines(out, p, t);
    ImGui::EndGroup();
    mark_widget(out, "prediction");
}

}  // namespace attn::ui
