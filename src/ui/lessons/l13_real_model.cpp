// L13's card: a real model (the Model window's, play/real_model.hpp) read on the
// lesson's text — its shape, the K/V heads its query heads share, and the heads
// that sink into the first token, look at the previous one or find the token
// after an earlier copy, each found by the core (real_model_find) and said only
// when the reading supports it.
#include <cstdio>
#include <string>

#include "lessons/lesson_parts.hpp"
#include "look/i18n.hpp"
#include "panels/panels.hpp"
#include "play/real_model.hpp"
#include "view/stages.hpp"
#include "view/widgets.hpp"

namespace attn::ui {

namespace {

using namespace lesson_parts;

// 48.6 K, 15.2 M: a parameter count.
std::string count_text(std::size_t n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, n < 1000000 ? "%.1f K" : "%.1f M", n < 1000000 ? double(n) / 1e3 : double(n) / 1e6);
    return buf;
}

bool model_read(const app& a) { return a.real.model && !a.real.reading.ids.empty(); }

// "2.3 (0.91)": a head and its score.
std::string head_list(const real_model_reading& r, const std::vector<int>& heads, float real_head_summary::*score) {
    std::string s;
    for (std::size_t i = 0; i < heads.size() && i < 4; ++i) {
        const real_head_summary& h = r.heads[std::size_t(heads[i])];
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s%d.%d (%.2f)", i ? ", " : "", h.layer, h.head, double(h.*score));
        s += buf;
    }
    if (heads.size() > 4)
        s += ", …";
    return s;
}

void shape_claims(const real_model& m, const real_model_findings& k, const real_cache_measure& cache,
                  std::vector<claim_line>& c) {
    const llama_config& cf = m.model.config;
    c.push_back(claim(claim_style::plain,
                      tr("%s (%s): %d layers of %d heads (head size %d), %s — the attention of L1–L12 at %s parameters.",
                         "%s（%s）：%d 层，每层 %d 个头（头维度 %d），%s——就是 L1–L12 的注意力，放大到 %s 个参数。"),
                      m.name.c_str(), m.format.c_str(), cf.n_layers, cf.n_heads, cf.head_size(), real_block_words(cf),
                      count_text(m.parameters()).c_str()));
    if (k.group > 1)
        c.push_back(claim(claim_style::highlight,
                          tr("GQA: every %d query heads share one K/V head, so the KV cache grows by %s a token instead of "
                             "MHA's %s.",
                             "GQA：每 %d 个查询头共用一个 K/V 头，所以 KV 缓存每个词元增长 %s，而不是 MHA 的 %s。"),
                          k.group, byte_size(cache.per_token).c_str(), byte_size(cache.per_token_mha).c_str()));
    else
        c.push_back(claim(claim_style::plain,
                          tr("MHA: each head keeps its own K and V, %s of KV cache a token (GQA would share them).",
                             "MHA：每个头有自己的 K 和 V，KV 缓存每个词元 %s（GQA 会让几个头共用）。"),
                          byte_size(cache.per_token).c_str()));
}

void head_claims(const real_model_reading& r, const real_model_findings& k, std::vector<claim_line>& c) {
    const double uniform = double(k.uniform) * 100.0;
    if (!k.sink.empty())
        c.push_back(claim(claim_style::highlight,
                          tr("Heads that put at least %.2f of their weight on the first token, a sink that carries little "
                             "(L7): %zu of %d — %s; uniform attention over this text would give it %.0f %%.",
                             "把至少 %.2f 的权重放在第一个词元上的头——一个几乎不携带内容的沉淀（L7）：%zu/%d 个——%s；"
                             "在这段文字上均匀的注意力只会给它 %.0f %%。"),
                          double(k.sink_bar), k.sink.size(), k.heads, head_list(r, k.sink, &real_head_summary::sink).c_str(),
                          uniform));
    else
        c.push_back(claim(claim_style::muted,
                          tr("No head puts %.2f of its weight on the first token of this text.",
                             "在这段文字上，没有一个头把 %.2f 的权重放在第一个词元上。"),
                          double(k.sink_bar)));
    if (!k.previous.empty())
        c.push_back(claim(claim_style::highlight,
                          tr("Heads that look at the previous token (mean weight ≥ %.2f): %zu — %s — the first half of "
                             "L9's induction circuit.",
                             "看前一个词元的头（平均权重 ≥ %.2f）：%zu 个——%s——这正是 L9 归纳回路的前一半。"),
                          double(k.previous_bar), k.previous.size(), head_list(r, k.previous, &real_head_summary::prev).c_str()));
    else
        c.push_back(claim(claim_style::muted,
                          tr("No head gives the previous token a mean weight of %.2f on this text.",
                             "在这段文字上，没有一个头给前一个词元 %.2f 的平均权重。"),
                          double(k.previous_bar)));
    if (!k.repeats)
        c.push_back(claim(claim_style::muted, "%s",
                          tr("No token of this text occurs again after a gap, so induction cannot show: type a text "
                             "that repeats.",
                             "这段文字里没有隔开重复出现的词元，归纳无从显现：输入一段会重复的文字。")));
    else if (!k.induction.empty())
        c.push_back(claim(claim_style::highlight,
                          tr("Heads that attend to the token after an earlier copy of the current one (induction ≥ "
                             "%.2f): %zu — %s.",
                             "关注当前词元上一次出现之后那个词元的头（归纳得分 ≥ %.2f）：%zu 个——%s。"),
                          double(k.induction_bar), k.induction.size(),
                          head_list(r, k.induction, &real_head_summary::induction).c_str()));
    else
        c.push_back(claim(claim_style::muted,
                          tr("No head reaches an induction score of %.2f on this text: this model may lack an induction "
                             "head, or need a longer repeat.",
                             "在这段文字上没有一个头的归纳得分达到 %.2f：这个模型也许没有归纳头，或者需要更长的重复。"),
                          double(k.induction_bar)));
}

// Opens the Model window on head index i of the reading (a finding's strongest).
void look_button(const app& a, frame_out& out, const char* label, const char* name, const std::vector<int>& found) {
    if (found.empty())
        return;
    const real_head_summary& h = a.real.reading.heads[std::size_t(found[0])];
    char text[96];
    std::snprintf(text, sizeof text, "%s %d.%d", label, h.layer, h.head);
    same_line_if_fits(text);
    if (chip_button(text)) {
        view_state& v = view_edit(a, out);
        v.model.open = true;
        v.model.layer = h.layer, v.model.head = h.head;
    }
    mark_widget(out, name);
}

// Shows the layer of the strongest finding (induction, else previous-token, else
// sink; else the selected head's) in the pipeline under the card: every head of
// it at the softmax stage, that head among them.
void pipeline_button(const app& a, frame_out& out, const real_model_findings& k) {
    const std::vector<int>& found = !k.induction.empty() ? k.induction : !k.previous.empty() ? k.previous : k.sink;
    const int layer = found.empty() ? a.view.model.layer : a.real.reading.heads[std::size_t(found[0])].layer;
    const int head = found.empty() ? a.view.model.head : a.real.reading.heads[std::size_t(found[0])].head;
    char text[96];
    std::snprintf(text, sizeof text, tr("Layer %d in the pipeline below", "在下方流水线中看第 %d 层"), layer);
    if (ImGui::Button(text)) {
        view_state& v = view_edit(a, out);
        v.model.pipeline = true;
        v.model.open = false;
        v.model.layer = layer, v.model.head = head;
        v.current = stage::weights;
        v.selected = v.hovered = cell_ref{};
        v.scroll_to_pipeline = true;
    }
    mark_widget(out, "l13_pipeline");
}

lesson_claims claims_of(const app& a, const real_model_findings& k) {
    lesson_claims c;
    shape_claims(*a.real.model, k, real_model_cache(*a.real.model, a.real.gen), c.claims);
    head_claims(a.real.reading, k, c.claims);
    return c;
}

}  // namespace

lesson_claims model_lesson_claims(const app& a) {
    return model_read(a) ? claims_of(a, real_model_find(*a.real.model, a.real.reading)) : lesson_claims{};
}

void view_real_model(const app& a, frame_out& out) {
    if (!model_read(a)) {
        text_plain(out, tr("This lesson reads a real model: open a llama2.c checkpoint and its tokenizer (stories15M.bin "
                           "and tokenizer.bin, say; the Model window says where to get them). Nothing is uploaded.",
                           "这一课读一个真实的模型：同时打开一个 llama2.c 权重文件和它的分词器（比如 stories15M；"
                           "模型窗口里写了去哪里下载）。不会上传任何东西。"));
        if (ImGui::Button(tr("Open a model…", "打开模型…"))) {
            view_edit(a, out).model.open = true;
            if (!a.real.model)
                out.share.push_back(share_action::open_model_files);
        }
        mark_widget(out, "l13_open");
        number(out, "model_open", 0);
        return;
    }
    const real_model_findings k = real_model_find(*a.real.model, a.real.reading);
    draw_claims(out, claims_of(a, k).claims);
    if (ImGui::Button(tr("Model window", "模型窗口")))
        view_edit(a, out).model.open = true;
    mark_widget(out, "l13_window");
    look_button(a, out, tr("the sink", "沉淀"), "l13_sink", k.sink);
    look_button(a, out, tr("previous token", "前一个词元"), "l13_previous", k.previous);
    look_button(a, out, tr("induction", "归纳"), "l13_induction", k.induction);
    pipeline_button(a, out, k);
    number(out, "model_open", 1);
    number(out, "heads", k.heads);
    number(out, "sink_heads", double(k.sink.size()));
    number(out, "previous_heads", double(k.previous.size()));
    number(out, "induction_heads", double(k.induction.size()));
    number(out, "repeats", k.repeats);
    number(out, "group", k.group);
    number(out, "uniform", k.uniform);
    number(out, "sink_bar", k.sink_bar);
    number(out, "previous_bar", k.previous_bar);
    number(out, "induction_bar", k.induction_bar);
}

// L13's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_13{view_real_model, model_lesson_claims};

}  // namespace attn::ui
