// The Model window: a real model opened from its files (play/real_model.hpp) —
// its shape, the text as its tokenizer cuts it, what it predicts next, text it
// generates through the KV cache, and every head's map on the text with its
// previous-token, first-token (sink) and induction scores, heads zeroed and
// edges masked with their effect on the next token, who writes the predicted token's
// logit (direct logit attribution) and what each layer would predict (the
// logit lens). It draws the core's
// numbers (app.real); what it changes goes through frame_out.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"
#include "spec/keys.hpp"
#include "view/stages.hpp"
#include "view/widgets.hpp"

namespace attn::ui {

namespace {

// Bytes in the valid UTF-8 sequence at s[i] (overlong forms not judged); 0 when
// none starts there (a byte token's lone 0x80–0xFF, a cut sequence).
std::size_t utf8_length(const std::string& s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
            return 0;
    return n;
}

// A token's piece as a label: control characters and bytes that are not UTF-8
// shown, not obeyed or replaced (as \n, \xNN), a leading space as "·"; the
// special tokens' newlines (llama2.c's "\n<s>\n") left out.
std::string piece_label(const std::string& piece, int id = -1) {
    if (id >= 0 && id < 3) {
        const std::size_t a = piece.find_first_not_of('\n'), b = piece.find_last_not_of('\n');
        return a == std::string::npos ? piece : piece.substr(a, b - a + 1);
    }
    std::string out;
    for (std::size_t i = 0; i < piece.size(); ++i) {
        const auto c = static_cast<unsigned char>(piece[i]);
        if (c == '\n')
            out += "\\n";
        else if (c < 0x20 || c == 0x7F || utf8_length(piece, i) == 0)
            out += "\\x" + std::string(1, "0123456789ABCDEF"[c >> 4]) + "0123456789ABCDEF"[c & 15];
        else if (c == ' ' && i == 0)
            out += "\xC2\xB7";  // ·
        else if (c >= 0x80) {   // a whole sequence
            const std::size_t n = utf8_length(piece, i);
            out += piece.substr(i, n);
            i += n - 1;
        } else
            out += char(c);
    }
    return out;
}

// A token's piece after the reading's last token, as a label.
std::string next_piece(const app& a, int id) {
    return piece_label(llama_decode_piece(a.real.model->tok, a.real.reading.ids.back(), id), id);
}

std::string percent(float p) {
    char buf[24];
    std::snprintf(buf, sizeof buf, double(p) * 100.0 < 0.05 ? "< 0.1 %%" : "%.1f %%", double(p) * 100.0);
    return buf;
}

// The models this browser keeps: each with Open and Remove.
void kept_models(const app& a, frame_out& out) {
    if (a.model_files.kept.empty())
        return;
    section_text(out, tr("Kept in this browser", "保存在这个浏览器里"));
    for (const page_model_files::stored& k : a.model_files.kept) {
        ImGui::PushID(k.key.c_str());
        textf(out, "%s + %s · %s", k.name.c_str(), k.tokenizer.c_str(), megabytes(std::size_t(k.bytes)).c_str());
        ImGui::SameLine();
        if (chip_button(tr("Open", "打开")))
            out.model_open_kept = k.key;
        mark_widget(out, ("model_kept_open_" + k.key).c_str());
        ImGui::SameLine();
        if (chip_button(tr("Remove", "删除")))
            out.model_remove_kept = k.key;
        mark_widget(out, ("model_kept_remove_" + k.key).c_str());
        ImGui::PopID();
    }
}

// The link's model_url= being fetched by the page (each file's progress, and a
// Stop); false when no fetch runs.
bool fetch_progress(const app& a, frame_out& out) {
    const page_model_files::fetch_state& f = a.model_files.fetch;
    if (f.file.empty())
        return false;
    if (a.options.model_url.empty())  // the person's own files, read from their computer
        textf(out, tr("Reading %s…", "正在读取 %s…"), f.file.c_str());
    else
        textf(out, tr("Fetching %s from the address the link names…", "正在从链接给出的地址获取 %s…"), f.file.c_str());
    char said[64];
    std::snprintf(said, sizeof said, "%s / %s", megabytes(std::size_t(f.received)).c_str(),
                  f.total > 0 ? megabytes(std::size_t(f.total)).c_str() : "?");
    ImGui::ProgressBar(f.total > 0 ? float(f.received / f.total) : 0.0f, ImVec2(-FLT_MIN, 0), said);
    mark_widget(out, "model_fetch");
    if (ImGui::Button(tr("Stop", "停止")))
        out.share.push_back(share_action::stop_model_fetch);
    mark_widget(out, "model_fetch_stop");
    return true;
}

void no_model(const app& a, frame_out& out) {
    text_plain(out, tr("Open a llama2.c model: its checkpoint (.bin) and its tokenizer (tokenizer.bin, or tok512.bin for "
                       "stories260K), both at once; or a Hugging Face folder (GPT-2, Llama, Qwen2: config.json, "
                       "tokenizer.json and its .safetensors files), chosen or dropped on the page. The files stay on this "
                       "computer: nothing is uploaded or downloaded.",
                       "打开一个 llama2.c 模型：同时选择它的权重文件（.bin）和分词器（tokenizer.bin，stories260K 用 "
                       "tok512.bin）；或一个 Hugging Face 文件夹（GPT-2、Llama、Qwen2：config.json、tokenizer.json 和 "
                       ".safetensors 文件），选择或拖到页面上。文件留在这台电脑上：不上传，也不下载。"));
    if (!fetch_progress(a, out) && !a.options.model.empty()) {  // a link that reads a model this browser does not keep
        const std::size_t at = a.options.model.rfind('@');
        textf(out,
              tr("This link reads %s (SHA-256 %s…): open that file and its tokenizer.",
                 "这个链接读取 %s（SHA-256 %s…）：请打开这个文件和它的分词器。"),
              a.options.model.substr(0, at).c_str(), a.options.model.substr(at + 1).c_str());
        mark_widget(out, "model_wanted");
    }
    if (!a.real.error.empty())
        text_colored(out, ImVec4(0.95f, 0.45f, 0.35f, 1.0f), "%s", a.real.error.c_str());
    if (ImGui::Button(tr("Choose the files…", "选择文件…")))
        out.share.push_back(share_action::open_model_files);
    mark_widget(out, "model_choose");
    ImGui::SameLine();
    if (ImGui::Button(tr("Choose a folder…", "选择文件夹…")))
        out.share.push_back(share_action::open_model_folder);
    mark_widget(out, "model_choose_folder");
    text_disabled(out, "%s",
                  tr("stories260K (1 MB), stories15M (61 MB), stories42M, stories110M: from llama2.c's README "
                     "(Hugging Face, karpathy/tinyllamas). docs/real-models.md says more.",
                     "stories260K（1 MB）、stories15M（61 MB）、stories42M、stories110M：见 llama2.c 的 README"
                     "（Hugging Face 上的 karpathy/tinyllamas）。详见 docs/real-models.md。"));
    kept_models(a, out);
}

void model_card(const app& a, frame_out& out) {
    const real_model& m = *a.real.model;
    const llama_config& c = m.model.config;
    const char* sharing = c.n_kv_heads == c.n_heads ? "MHA" : c.n_kv_heads == 1 ? "MQA" : "GQA";
    textf(out, "%s · %s", m.name.c_str(), megabytes(m.file_bytes).c_str());
    textf(out, "%s", real_model_summary(m).c_str());
    mark_widget(out, "model_architecture");
    textf(out, "%s %d · %s %d · %d %s · %d %s (%d K/V, %s) · %s %d · %s %d · %.2f M %s", tr("dim", "维度"), c.dim,
          tr("hidden", "隐藏层"), c.hidden_dim, c.n_layers, tr("layers", "层"), c.n_heads, tr("heads", "头"), c.n_kv_heads,
          sharing, tr("vocab", "词表"), c.vocab_size, tr("context", "上下文"), c.seq_len, double(m.parameters()) / 1e6,
          tr("parameters", "参数"));
    if (!a.real.error.empty())
        text_colored(out, ImVec4(0.95f, 0.45f, 0.35f, 1.0f), "%s", a.real.error.c_str());
    if (!a.model_files.not_kept.empty()) {
        textf(out,
              tr("Open, but not kept in this browser (%s): a link naming it asks for the files again.",
                 "已打开，但没有保存在这个浏览器里（%s）：引用它的链接会再次要求这两个文件。"),
              a.model_files.not_kept.c_str());
        mark_widget(out, "model_not_kept");
    }
}

void text_row(const app& a, frame_out& out) {
    // The playground's text (the experiment's: the link carries it, undo restores it), typed here.
    std::string typed = a.view.model.text_edit.empty() ? a.model.exp.text : a.view.model.text_edit;
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputTextWithHint("##model_text", tr("the text the model reads", "模型读的文字"), typed.data(),
                                 typed.capacity() + 1, ImGuiInputTextFlags_CallbackResize, text_resize_callback, &typed))
        view_edit(a, out).model.text_edit = typed;
    mark_widget(out, "model_text");
    if (ImGui::IsItemDeactivatedAfterEdit() || (ImGui::IsItemActive() && ImGui::IsKeyPressed(ImGuiKey_Enter))) {
        view_edit(a, out).model.text_edit.clear();
        if (typed != a.model.exp.text)
            request_experiment(out, edit_text(a.model.exp, typed));
    }
    const real_model_reading& r = a.real.reading;
    const llama_tokenizer& tok = a.real.model->tok;
    textf(out, "%zu %s%s:", r.ids.size(), tr("tokens", "个词元"),
          r.cut ? tr(" (cut at the context)", "（超出上下文，已截断）") : "");
    for (std::size_t i = 0; i < r.ids.size(); ++i) {
        const std::string label = piece_label(tok.pieces[std::size_t(r.ids[i])], r.ids[i]);
        ImGui::SameLine(0, i == 0 ? -1.0f : ImGui::GetStyle().ItemSpacing.x * 0.5f);
        if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(label.c_str()).x > ImGui::GetWindowContentRegionMax().x)
            ImGui::NewLine();
        text_disabled(out, "%s", label.c_str());
    }
}

void next_tokens(const app& a, frame_out& out) {
    const real_model_reading& r = a.real.reading;
    section_text(out, tr("Next token", "下一个词元"));
    for (const real_next_token& t : r.next) {
        ImGui::ProgressBar(t.probability, ImVec2(ImGui::GetFontSize() * 8.0f, 0), "");
        ImGui::SameLine();
        textf(out, "%7s  \"%s\"  (%s %d)", percent(t.probability).c_str(), next_piece(a, t.id).c_str(), tr("id", "编号"), t.id);
    }
    if (r.embedding_decides) {
        ImGui::PushTextWrapPos(0.0f);
        text_colored(out, theme_bad(), "%s", real_embedding_decides_text());
        ImGui::PopTextWrapPos();
        mark_widget(out, "model_embedding_decides");
    }
}

// The selected head's attention at each sampled step, a row added as each token
// arrives (the core keeps the decoder's weights: real_generation_attention).
void generated_attention(const app& a, frame_out& out) {
    const real_model_generation& g = a.real.gen;
    const matrix w = real_generation_attention(*a.real.model, g, a.view.model.layer, a.view.model.head);
    if (w.rows == 0)
        return;
    textf(out,
          tr("As each token arrived: layer %d head %d, the query that chose it (down) over every token before (across)",
             "每个词元到来时：第 %d 层第 %d 个头，选出它的那个查询（行）对之前每个词元（列）的权重"),
          a.view.model.layer, a.view.model.head);
    const llama_tokenizer& tok = a.real.model->tok;
    std::vector<std::string> cols, rows;
    for (int j = 0; j < w.cols; ++j)
        cols.push_back(piece_label(tok.pieces[std::size_t(g.ids[std::size_t(j)])], g.ids[std::size_t(j)]));
    for (const int p : g.query_pos) {  // "query → the token it chose" (the stop token, which ends the text, is not kept)
        const std::size_t next = std::size_t(p) + 1;
        const int id = next < g.ids.size() ? g.ids[next] : llama_stop_token(tok);
        const bool known = id >= 0 && id < int(tok.pieces.size());
        rows.push_back(cols[std::size_t(p)] + " \xE2\x86\x92 " + (known ? piece_label(tok.pieces[std::size_t(id)], id) : "…"));
    }
    heatmap_options opt;
    opt.fixed_range = true;
    opt.lo = 0, opt.hi = 1;
    opt.show_values = false;
    opt.hover_value = true;
    opt.row_labels = &rows;
    opt.col_labels = &cols;
    const float font = ImGui::GetFontSize();
    // At most 1.5 em a cell, the width over the tokens, and about 12 em tall in all (the text above stays in sight).
    opt.cell =
        std::max(1.0f, std::min({font * 1.5f, (visible_width() - font * 8.0f) / float(w.cols), font * 12.0f / float(w.rows)}));
    opt.max_height = 1e6f;
    const heatmap_result res = heatmap_draw(*a.heatmaps, "model_generated", w, opt);
    out.widgets.push_back({"model_generated", res.cells_x0, res.cells_y0, res.cells_x1, res.cells_y1, res.window});
    out.maps.push_back({"model_generated", res.cells, res.labelled, "↓ step   → key"});
}

void generation(const app& a, frame_out& out) {
    section_text(out, tr("Continue the text", "续写"));
    const float font = ImGui::GetFontSize();
    llama_sampling s = a.view.model.sampling;
    int steps = a.view.model.steps;
    bool changed = false;
    // The ranges are the link keys' (view.temperature's control: 0 to 2 of the 0 to 100 a link may say).
    const key_row &kt = key_of("view.temperature"), &kp = key_of("view.top_p"), &kn = key_of("view.gen_tokens");
    ImGui::SetNextItemWidth(font * 7.0f);
    changed |= ImGui::SliderFloat(tr("temperature", "温度"), &s.temperature, float(kt.control.lo), float(kt.control.hi), "%.2f",
                                  ImGuiSliderFlags_AlwaysClamp);  // typed in too: the link reads it back
    mark_widget(out, "model_temperature");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(font * 7.0f);
    changed |=
        ImGui::SliderFloat(tr("top-p", "top-p"), &s.top_p, float(kp.lo), float(kp.hi), "%.2f", ImGuiSliderFlags_AlwaysClamp);
    mark_widget(out, "model_top_p");
    ImGui::SetNextItemWidth(font * 7.0f);
    int seed = int(s.seed);
    if (ImGui::InputInt(tr("seed", "种子"), &seed)) {
        const key_row& ks = key_of("view.gen_seed");
        s.seed = std::uint64_t(std::clamp(seed, int(ks.lo), int(ks.hi)));
        changed = true;
    }
    mark_widget(out, "model_seed");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(font * 7.0f);
    changed |= ImGui::SliderInt(tr("tokens", "个词元"), &steps, int(kn.lo), int(kn.hi), "%d", ImGuiSliderFlags_AlwaysClamp);
    mark_widget(out, "model_steps");
    if (changed) {
        view_state& v = view_edit(a, out);
        v.model.sampling = s;
        v.model.steps = steps;
    }
    real_cache_lines(a, out, "model_cache");
    const real_model_generation& g = a.real.gen;
    if (g.done ? ImGui::Button(tr("Continue", "续写")) : ImGui::Button(tr("Stop", "停止")))
        (g.done ? out.model_generate : out.model_stop) = true;
    mark_widget(out, "model_continue");
    if (g.ids.empty())
        return;
    const int made = int(g.ids.size()) - g.prompt;
    ImGui::SameLine();
    textf(out, "%d %s%s", made, tr("tokens generated", "个词元已生成"),
          g.stopped == "bos"       ? tr(" — the model ended the story", "——模型结束了这个故事")
          : g.stopped == "context" ? tr(" — the context is full", "——上下文已满")
                                   : "");
    ImGui::PushTextWrapPos(0.0f);
    textf(out, "%s", (a.real.reading.decoded + g.text).c_str());
    ImGui::PopTextWrapPos();
    generated_attention(a, out);
}

// Every head as a small map of its weights on the text, with its scores; a
// click shows it large below.
void heads_overview(const app& a, frame_out& out) {
    const real_model_reading& r = a.real.reading;
    const llama_config& c = a.real.model->model.config;
    section_text(out, tr("Heads on this text", "各个头在这段文字上"));
    const head_score_row &prev = head_score_of(head_score::previous), &sink = head_score_of(head_score::sink),
                         &ind = head_score_of(head_score::induction);
    text_disabled(out, "%s%s", head_score_legend(real_head_scores).c_str(),
                  tr(" (— when no token repeats)", "（没有重复的词元时为 —）"));
    const float font = ImGui::GetFontSize();
    const int n = std::max(1, int(r.ids.size()));
    const float tile =
        std::max(font * 5.0f, ImGui::CalcTextSize((std::string(sink.abbr) + " 0.00  " + ind.abbr + " 0.00").c_str()).x);
    heatmap_options opt;
    opt.source = {&a.real, a.real.version};
    opt.fixed_range = true;
    opt.lo = 0, opt.hi = 1;
    opt.show_values = opt.show_legend = false;
    opt.max_height = 1e6f;
    opt.cell = (tile - font * 0.6f) / float(n);  // the map's child keeps a little padding
    // As many heads a row as the window shows whole, a layer's others on the rows under it: a map is drawn
    // whole and the window scrolls (a phone's 844 px cut the sixth head, with its own scrollbar).
    const float label = ImGui::CalcTextSize(tr("layer 00", "层 00")).x, gap = ImGui::GetStyle().CellPadding.x * 2.0f;
    const int across = std::clamp(int((ImGui::GetContentRegionAvail().x - label - gap) / (tile + gap)), 1, c.n_heads);
    if (ImGui::BeginTable("heads", across + 1, ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("layer", ImGuiTableColumnFlags_WidthFixed, label);
        for (int h = 0; h < across; ++h)
            ImGui::TableSetupColumn("head", ImGuiTableColumnFlags_WidthFixed, tile);
        for (const real_head_summary& h : r.heads) {
            if (h.head % across == 0) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                if (h.head == 0)
                    textf(out, "%s %d", tr("layer", "层"), h.layer);
            }
            ImGui::TableNextColumn();
            ImGui::PushID(h.layer * 1000 + h.head);
            const matrix& w = r.tr.layers[std::size_t(h.layer)].heads[std::size_t(h.head)].weights;
            const std::string name = "model_head_" + std::to_string(h.layer) + "_" + std::to_string(h.head);
            opt.veiled = a.view.model.changes.zeroes(h.layer, h.head);
            const heatmap_result res = heatmap_draw(*a.heatmaps, name.c_str(), w, opt);
            if (res.clicked_row >= 0) {
                view_state& v = view_edit(a, out);
                v.model.layer = h.layer;
                v.model.head = h.head;
            }
            out.widgets.push_back({name, res.cells_x0, res.cells_y0, res.cells_x1, res.cells_y1, res.window});
            char induction[16] = "—";
            if (h.induction >= 0)
                std::snprintf(induction, sizeof induction, "%.2f", double(h.induction));
            textf(out, "%d.%d  %s %.2f", h.layer, h.head, prev.abbr, double(h.prev));
            textf(out, "%s %.2f  %s %s", sink.abbr, double(h.sink), ind.abbr, induction);
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
}

// The next token with the changes, beside the reading's.
void effect_table(const app& a, frame_out& out) {
    const real_effect& fx = a.real.effect;
    const real_model_reading& r = a.real.reading;
    if (ImGui::BeginTable("model_effect", 3, ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn(tr("next token", "下一个词元"));
        ImGui::TableSetupColumn(tr("the model", "原模型"));
        ImGui::TableSetupColumn(tr("with the changes", "改动之后"));
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < r.next.size() && i < fx.reading_ids_probability.size(); ++i) {
            ImGui::TableNextColumn();
            textf(out, "\"%s\"", next_piece(a, r.next[i].id).c_str());
            ImGui::TableNextColumn();
            textf(out, "%s", percent(r.next[i].probability).c_str());
            ImGui::TableNextColumn();
            textf(out, "%s", percent(fx.reading_ids_probability[i]).c_str());
        }
        ImGui::EndTable();
    }
    mark_widget(out, "model_effect");
    ImGui::PushTextWrapPos(0.0f);
    if (!fx.next.empty() && fx.next[0].id != r.next[0].id)
        textf(out,
              tr("With the changes the likeliest next token is \"%s\" (%s).", "改动之后，最可能的下一个词元是 \"%s\"（%s）。"),
              next_piece(a, fx.next[0].id).c_str(), percent(fx.next[0].probability).c_str());
    else
        textf(out, tr("With the changes the likeliest next token stays \"%s\".", "改动之后，最可能的下一个词元仍是 \"%s\"。"),
              next_piece(a, r.next[0].id).c_str());
    text_disabled(out,
                  tr("KL(the model ‖ with the changes) of the next-token predictions: %.3g nats (0: they change nothing "
                     "here)",
                     "原模型与改动之后的预测之间的 KL 散度：%.3g nats（0：在这里它们不起作用）"),
                  double(fx.kl));
    if (fx.keyless_rows > 0)
        text_disabled(out,
                      tr("%d query row(s) have every key masked: their head writes nothing there.",
                         "%d 个查询行的所有键都被屏蔽：它们的头在那里什么都不写。"),
                      fx.keyless_rows);
    ImGui::PopTextWrapPos();
}

// "Zero this head", what is changed (with Clear), and its effect on the next
// token: every later layer run again (real_session::effect), beside the reading's.
void model_changes(const app& a, frame_out& out) {
    const real_interventions& iv = a.view.model.changes;
    const ablated_head selected{a.view.model.layer, a.view.model.head};
    bool zero = iv.zeroes(selected.layer, selected.head);
    ImGui::BeginDisabled(a.options.readonly);
    if (ImGui::Checkbox(tr("Zero this head and run the model again", "把这个头置零，再运行一次模型"), &zero))
        view_edit(a, out).model.changes = real_toggle_head(iv, selected);
    mark_widget(out, "model_zero");
    ImGui::EndDisabled();
    if (iv.empty()) {
        text_disabled(out, "%s",
                      tr("A click on a cell of the softmax map masks that edge (the query no longer reads that key).",
                         "点击 softmax 图中的一个格子即屏蔽那条边（该查询不再读取那个键）。"));
        return;
    }
    textf(out, "%s: %s", tr("Changed", "已改动"), real_changes_text(iv).c_str());
    ImGui::SameLine();
    ImGui::BeginDisabled(a.options.readonly);
    if (chip_button(tr("Clear", "清除")))
        view_edit(a, out).model.changes = {};
    mark_widget(out, "model_changes_clear");
    ImGui::EndDisabled();
    const real_wants w = app_model_wants(a);
    if (const std::vector<std::string> problems = real_session_problems(a.real, w); !problems.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        for (const std::string& p : problems)
            text_colored(out, theme_bad(), "%s", p.c_str());
        text_disabled(out, "%s",
                      tr("These changes do not fit this model or text: nothing is run until they are cleared.",
                         "这些改动与这个模型或这段文字不符：清除之前不会运行。"));
        ImGui::PopTextWrapPos();
        mark_widget(out, "model_changes_problems");
        return;
    }
    if (!real_session_effect_current(a.real, w)) {
        text_disabled(out, "%s", tr("Running the model with the changes…", "正在带着这些改动运行模型…"));
        return;
    }
    effect_table(a, out);
}

// The stage chips over the selected head's map: Q·Kᵀ, scaled, masked, softmax.
void stage_chips(const app& a, frame_out& out) {
    const char* names[4] = {"Q·Kᵀ", tr("scaled /√d_k", "缩放 /√d_k"), tr("masked", "掩码后"), "softmax"};
    for (int s = 0; s < 4; ++s) {
        if (s)
            ImGui::SameLine();
        const bool on = a.view.model.stage == s;
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (chip_button(names[s]))
            view_edit(a, out).model.stage = s;
        if (on)
            ImGui::PopStyleColor();
        mark_widget(out, ("model_stage_" + std::to_string(s)).c_str());
    }
}

void selected_head(const app& a, frame_out& out) {
    const real_model_reading& r = a.real.reading;
    const int l = a.view.model.layer, h = a.view.model.head;
    if (l >= int(r.tr.layers.size()) || h >= int(r.tr.layers[std::size_t(l)].heads.size()))
        return;
    const head_trace& ht = r.tr.layers[std::size_t(l)].heads[std::size_t(h)];
    // With changes, the head as the changed pass ran it (real_session::effect); else the
    // weights are the reading's and an earlier stage is recomputed for it (real_session::stages).
    const real_wants w = app_model_wants(a);
    const bool changed = real_session_changed(a.real, w);
    const int stage = changed || real_session_stages_current(a.real, w) ? a.view.model.stage : 3;
    const head_trace& st = changed      ? a.real.effect.tr.layers[std::size_t(l)].heads[std::size_t(h)]
                           : stage == 3 ? ht
                                        : a.real.stages;
    const matrix* shown[4] = {&st.scores, &st.scaled, &st.masked, &st.weights};
    const char* what[4] = {tr("Q·Kᵀ, queries down, keys across", "Q·Kᵀ：行是查询，列是键"), tr("Q·Kᵀ / √d_k", "Q·Kᵀ / √d_k"),
                           tr("after the causal mask (−∞: a later key)", "因果掩码之后（−∞：后面的键）"),
                           tr("softmax weights, queries down, keys across", "softmax 权重：行是查询，列是键")};
    textf(out, "%s %d · %s %d (%s %d) — %s%s", tr("layer", "层"), l, tr("head", "头"), h, tr("K/V head", "K/V 头"), ht.kv_group,
          what[stage], changed ? tr(", with the changes", "，改动之后") : "");
    stage_chips(a, out);
    ImGui::SameLine();
    if (chip_button(tr("Open this layer in the pipeline", "在流水线中打开这一层"))) {
        view_state& v = view_edit(a, out);  // every stage of it, the inspector on any cell
        v.model.pipeline = true;
        v.model.open = false;
        v.current = stage::weights;
        v.selected = v.hovered = cell_ref{};
        v.scroll_to_pipeline = true;
    }
    mark_widget(out, "model_pipeline_open");
    heatmap_options opt;
    opt.source = changed      ? heatmap_source{&a.real.effect, a.real.effect_made}
                 : stage == 3 ? heatmap_source{&a.real, a.real.version}
                              : heatmap_source{&a.real.stages, a.real.stages_made};
    opt.fixed_range = stage == 3;
    opt.lo = 0, opt.hi = 1;
    opt.map = stage == 3 ? colormap::sequential : colormap::diverging;
    // The hidden keys (and masked edges) drawn as masked, not as −∞ or 0.
    opt.masked_from = stage == 2 || (changed && stage == 3) ? &st.masked : nullptr;
    opt.show_values = r.ids.size() <= 24;
    opt.hover_value = true;
    opt.row_labels = opt.col_labels = &r.tr.tokens;
    // Cells at most 2.5 em (a short text's map stays a map, not a wall), else the
    // width over the tokens; drawn whole: the window scrolls, not the map.
    const float font = ImGui::GetFontSize();
    opt.cell =
        std::max(1.0f, std::min(font * 2.5f, (visible_width() - font * 5.0f) / float(std::max<std::size_t>(1, r.ids.size()))));
    opt.max_height = 1e6f;
    const heatmap_result res = heatmap_draw(*a.heatmaps, "model_selected", *shown[stage], opt);
    out.widgets.push_back({"model_selected", res.cells_x0, res.cells_y0, res.cells_x1, res.cells_y1, res.window});
    out.maps.push_back({"model_selected", res.cells, res.labelled, "↓ query   → key"});
    // A click on a softmax cell masks (or unmasks) that edge (a later key: hidden already, nothing changes).
    if (res.clicked_row >= 0 && stage == 3 && !a.options.readonly)
        view_edit(a, out).model.changes =
            real_toggle_edge(a.view.model.changes, masked_edge{l, h, res.clicked_row, res.clicked_col});
    model_changes(a, out);
}

struct attribution_part {
    float v;
    int layer, head;  // head −1: the layer's FFN; layer −1: the embedding; layer −2: GPT-2's biases
};

// The parts as rows: the name (a head's a button that selects it), a bar of its
// size against the largest, the value.
void attribution_table(const app& a, frame_out& out, const std::vector<attribution_part>& parts) {
    const float widest = std::max(1e-6f, std::isfinite(parts[0].v) ? std::abs(parts[0].v) : 0.0f);
    const float font = ImGui::GetFontSize();
    std::vector<std::string> names;
    float name_width = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const attribution_part& p = parts[i];
        char name[48];
        if (p.layer == -2)
            std::snprintf(name, sizeof name, "%s", tr("biases", "偏置"));
        else if (p.layer < 0)
            std::snprintf(name, sizeof name, "%s", tr("embedding", "嵌入"));
        else if (p.head < 0)
            std::snprintf(name, sizeof name, "%s %d", tr("FFN", "FFN"), p.layer);
        else
            std::snprintf(name, sizeof name, "%s %d.%d", tr("head", "头"), p.layer, p.head);
        names.emplace_back(name);
        name_width = std::max(name_width, ImGui::CalcTextSize(name).x);
    }
    // Fixed widths: a head's name is a button (wider on a touch screen), the bars line up.
    if (!ImGui::BeginTable("model_parts", 3, ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupColumn("part", ImGuiTableColumnFlags_WidthFixed, name_width + ImGui::GetStyle().FramePadding.x * 2.0f);
    ImGui::TableSetupColumn("bar", ImGuiTableColumnFlags_WidthFixed, font * 8.0f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("+000.000").x);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const attribution_part& p = parts[i];
        ImGui::PushID(int(i));
        ImGui::TableNextColumn();
        if (p.head < 0) {
            textf(out, "%s", names[i].c_str());
        } else {
            if (chip_button(names[i].c_str())) {
                view_state& v = view_edit(a, out);
                v.model.layer = p.layer, v.model.head = p.head;
            }
            mark_widget(out, ("model_part_" + std::to_string(p.layer) + "_" + std::to_string(p.head)).c_str());
        }
        ImGui::TableNextColumn();
        ImGui::ProgressBar(std::isfinite(p.v) ? std::abs(p.v) / widest : 1.0f, ImVec2(-FLT_MIN, 0), "");
        ImGui::TableNextColumn();
        textf(out, "%+.3f", double(p.v));
        ImGui::PopID();
    }
    ImGui::EndTable();
}

// Who writes the likeliest next token's logit: the embedding, each head and each
// FFN, through the final norm's scale of this very pass (llama/lens.hpp); the
// largest parts, a click on a head selects it.
void attribution(const app& a, frame_out& out) {
    const real_model_reading& r = a.real.reading;
    const llama_attribution& at = r.attribution;
    const llama_config& c = a.real.model->model.config;
    const bool gpt2 = c.arch == llama_arch::gpt2;
    section_text(out, tr("Who writes the prediction", "是谁写下了这个预测"));
    ImGui::PushTextWrapPos(0.0f);
    text_disabled(out,
                  tr("The logit of \"%s\" (%.3f) is the sum of what the embedding, each head and each FFN%s add to the last "
                     "token's residual stream, each dotted with that token's classifier row after the final %s (its "
                     "scale 1/rms = %.4f from this pass). The largest parts:",
                     "\"%s\" 的 logit（%.3f）是嵌入、每个头和每个 FFN%s 写入最后一个词元残差流的部分之和，"
                     "每一部分经最终 %s（本次计算的缩放 1/rms = %.4f）后与该词元的分类器行做点积。最大的几项："),
                  next_piece(a, at.target).c_str(), double(at.logit), gpt2 ? tr(" (and the biases)", "（以及偏置）") : "",
                  real_norm_name(c), double(at.inv_rms));
    ImGui::PopTextWrapPos();
    const int heads = c.n_heads;
    std::vector<attribution_part> parts{{at.embedding, -1, -1}};
    if (gpt2)  // W_O's biases and the final LayerNorm's: a part of their own, so that the parts sum to the logit
        parts.push_back({at.bias, -2, -1});
    for (std::size_t i = 0; i < at.heads.size(); ++i)
        parts.push_back({at.heads[i], int(i) / heads, int(i) % heads});
    for (std::size_t l = 0; l < at.ffn.size(); ++l)
        parts.push_back({at.ffn[l], int(l), -1});
    // The largest first; a NaN (an overflowed pass) counts as largest, so it shows.
    const auto size = [](const attribution_part& p) { return std::isnan(p.v) ? INFINITY : std::abs(p.v); };
    const std::size_t shown = std::min<std::size_t>(8, parts.size());
    std::partial_sort(parts.begin(), parts.begin() + std::ptrdiff_t(shown), parts.end(),
                      [&](const attribution_part& x, const attribution_part& y) { return size(x) > size(y); });
    parts.resize(shown);
    attribution_table(a, out, parts);
    mark_widget(out, "model_attribution");
}

// The logit lens: what each layer's residual at the last token would predict
// through the final RMSNorm (its own scale) and the classifier.
void lens(const app& a, frame_out& out) {
    const real_model_reading& r = a.real.reading;
    section_text(out, tr("What each layer would predict (logit lens)", "每一层会预测什么（logit lens）"));
    // The cells first: each column as wide as its widest cell or header. A fixed
    // width wraps a long piece ("<pad8882>") into lines however much room the
    // window has; a fitted column would wrap on the first frame and stay narrow.
    const std::string heads[3] = {tr("residual after", "残差流位置"), tr("its likeliest", "它最可能的"),
                                  "\"" + next_piece(a, r.next[0].id) + "\""};
    std::vector<std::string> cells;
    for (const llama_lens_row& row : r.lens) {
        cells.push_back(row.layer < 0 ? tr("the embedding", "嵌入") : tr("layer", "层") + (" " + std::to_string(row.layer)));
        cells.push_back("\"" + next_piece(a, row.top) + "\" " + percent(row.top_probability));
        char rank[64];
        std::snprintf(rank, sizeof rank, "%s  (%s %d)", percent(row.target_probability).c_str(), tr("rank", "排名"),
                      row.target_rank + 1);
        cells.push_back(rank);
    }
    float width[3];
    for (int col = 0; col < 3; ++col) {
        width[col] = ImGui::CalcTextSize(heads[col].c_str()).x;
        for (std::size_t i = std::size_t(col); i < cells.size(); i += 3)
            width[col] = std::max(width[col], ImGui::CalcTextSize(cells[i].c_str()).x);
    }
    if (!ImGui::BeginTable("model_lens", 3, ImGuiTableFlags_SizingFixedFit))
        return;
    const float pad = ImGui::GetFontSize() * 0.5f;
    for (int col = 0; col < 3; ++col)
        ImGui::TableSetupColumn(heads[col].c_str(), ImGuiTableColumnFlags_WidthFixed, width[col] + pad);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < cells.size(); ++i) {
        ImGui::TableNextColumn();
        text_plain(out, cells[i].c_str());
        if (i % 3 == 1)  // where a layer's likeliest piece lies: one line high when it fits
            mark_rect(out, "model_lens_top_" + std::to_string(i / 3));
    }
    ImGui::EndTable();
    mark_widget(out, "model_lens");
}

}  // namespace

const char* real_embedding_decides_text() {
    return tr(
        "The embedding alone decides this model's predictions on this text: after every layer the likeliest next "
        "token is the embedding's, and at every position the model predicts what that token's embedding row "
        "predicts by itself. No layer changes a prediction here, as in a file of random or broken weights, not a "
        "trained model.",
        "在这段文字上，这个模型的预测只由嵌入决定：每一层之后最可能的下一个词元都和嵌入的一样，"
        "而且在每个位置，模型预测的都正是该词元的嵌入行单独预测的词元。这里没有哪一层改变了预测，"
        "就像随机或损坏的权重文件，而不是训练过的模型。");
}

std::string real_changes_text(const real_interventions& iv) {
    std::string s;
    for (const ablated_head& h : iv.ablate)
        s += (s.empty() ? tr("zeroed ", "置零 ") : ", ") + std::to_string(h.layer) + "." + std::to_string(h.head);
    if (!iv.edges.empty()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, tr("masked %zu edge(s)", "屏蔽 %zu 条边"), iv.edges.size());
        s += (s.empty() ? "" : " \xC2\xB7 ") + std::string(buf);
    }
    return s;
}

void real_cache_lines(const app& a, frame_out& out, const char* name) {
    const llama_config& c = a.real.model->model.config;
    const real_cache_measure m = real_model_cache(*a.real.model, a.real.gen);
    ImGui::PushTextWrapPos(0.0f);  // wrapped: a phone's window is narrow
    textf(out,
          tr("KV cache: 2 (K, V) × %d layers × %d K/V heads × %d dims × 4 B = %s a token",
             "KV 缓存：2（K、V）× %d 层 × %d 个 K/V 头 × %d 维 × 4 B = 每个词元 %s"),
          c.n_layers, c.n_kv_heads, c.head_size(), byte_size(m.per_token).c_str());
    mark_widget(out, name);
    if (m.per_token_mha == m.per_token)
        text_disabled(out, "%s", tr("(MHA: each query head keeps its own K and V)", "（MHA：每个查询头有自己的 K 和 V）"));
    else
        text_disabled(
            out, tr("(MHA would keep %s: %d query heads share each K/V head)", "（MHA 需要 %s：每 %d 个查询头共用一个 K/V 头）"),
            byte_size(m.per_token_mha).c_str(), c.n_heads / c.n_kv_heads);
    text_disabled(out, tr("a whole context of %d tokens: %s (MHA %s)", "整个上下文（%d 个词元）：%s（MHA %s）"), c.seq_len,
                  byte_size(m.context).c_str(), byte_size(m.context_mha).c_str());
    if (m.last_step_tokens > 0)
        text_disabled(out, tr("the last step read %s of it (%d tokens)", "最后一步从中读取了 %s（%d 个词元）"),
                      byte_size(m.last_step_read).c_str(), m.last_step_tokens);
    ImGui::PopTextWrapPos();
}

void panel_model(const app& a, frame_out& out) {
    // Over the page but below its top bar, which stays reachable (View, Share, the language): on a phone
    // the bar is a tenth of the height.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float top = std::max(vp->WorkPos.y + vp->WorkSize.y * 0.04f, a.top_bar_bottom);
    const float bottom = vp->WorkPos.y + vp->WorkSize.y * 0.96f;
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.03f, top), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x * 0.94f, std::max(bottom - top, vp->WorkSize.y * 0.5f)), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(1.0f);  // over the pipeline: its maps must not show through
    bool open = true;
    ImGui::Begin(tr("Model###model", "模型###model"), &open,
                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_HorizontalScrollbar);
    mark_window(out, "model_window");
    if (!open)
        view_edit(a, out).model.open = false;
    if (!a.real.model) {
        no_model(a, out);
        ImGui::End();
        return;
    }
    model_card(a, out);
    fetch_progress(a, out);  // a link that names another model, arriving now
    if (ImGui::Button(tr("Open other files…", "打开其他文件…")))
        out.share.push_back(share_action::open_model_files);
    mark_widget(out, "model_choose");
    ImGui::SameLine();
    if (ImGui::Button(tr("Open a folder…", "打开文件夹…")))
        out.share.push_back(share_action::open_model_folder);
    mark_widget(out, "model_choose_folder");
    text_row(a, out);
    if (!a.real.reading.ids.empty()) {
        next_tokens(a, out);
        generation(a, out);
        heads_overview(a, out);
        selected_head(a, out);
        attribution(a, out);
        lens(a, out);
    }
    kept_models(a, out);
    ImGui::End();
}

}  // namespace attn::ui
