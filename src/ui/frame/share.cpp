// [SECTION] exports
// [SECTION] top bar menu, embed bar, banner
#include "frame/share.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "imgui.h"
#include "imgui_internal.h"
#include "lessons/lesson_parts.hpp"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap_data.hpp"
#include "model/export.hpp"
#include "model/trace_json.hpp"
#include "panels/panels.hpp"
#include "view/lessons.hpp"

namespace attn::ui {

// [SECTION] exports

namespace {

// Stable ASCII names (stage_name is translated).
const char* stage_slug(stage s) {
    static const char* names[stage_count] = {"embeddings",   "projections", "scores",      "scaled", "masked", "weights",
                                             "weighted_sum", "concat",      "output_proj", "block",  "output"};
    return names[int(s)];
}

// [SECTION] SVG: the stage's maps as vector graphics

std::string xml_text(const std::string& s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string svg_color(rgb c) {
    char buf[16];
    auto byte = [](float x) { return int(std::clamp(x, 0.0f, 1.0f) * 255.0f + 0.5f); };
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
    return buf;
}

constexpr float svg_cell = 30.0f, svg_label_w = 70.0f, svg_head_h = 44.0f, svg_legend_h = 34.0f;

// One map at (0, y): its title, column and row labels, cells with their values
// (masked cells hatched, NaN and ±∞ in the map's colours and named), the legend.
// Returns the height used. `fixed`: the colour range the page draws the map with
// (else a signed map's own, symmetric, and 0 … 1 for weights).
float svg_map(std::string& out, const stage_matrix& sm, const std::string& title, const std::vector<std::string>& rows,
              const std::vector<std::string>& cols, float y, const heatmap_range* fixed = nullptr) {
    const matrix& m = *sm.m;
    const colormap map = sm.signed_values ? colormap::diverging : colormap::sequential;
    const heatmap_range range = fixed              ? *fixed
                                : sm.signed_values ? heatmap_range_compute(m, sm.masked_from, map)
                                                   : heatmap_range{0.0f, 1.0f};
    char buf[256];
    std::snprintf(buf, sizeof buf, "<g transform=\"translate(10 %.1f)\">\n<text x=\"0\" y=\"16\" class=\"title\">", y);
    out += buf + xml_text(title) + "</text>\n";
    for (int c = 0; c < m.cols; ++c) {
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"col\">", svg_label_w + (float(c) + 0.5f) * svg_cell,
                      svg_head_h - 6.0f);
        out += buf + xml_text(cols[std::size_t(c)]) + "</text>\n";
    }
    for (int r = 0; r < m.rows; ++r) {
        const float cy = svg_head_h + float(r) * svg_cell;
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"row\">", svg_label_w - 6.0f,
                      cy + svg_cell * 0.5f + 4.0f);
        out += buf + xml_text(rows[std::size_t(r)]) + "</text>\n";
        for (int c = 0; c < m.cols; ++c) {
            const float v = m(r, c), cx = svg_label_w + float(c) * svg_cell;
            const heatmap_cell kind = heatmap_classify(m, sm.masked_from, r, c);
            const rgb fill = heatmap_color_cell(map, range, kind, v);
            std::snprintf(buf, sizeof buf,
                          "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", cx, cy,
                          svg_cell, svg_cell, svg_color(fill).c_str());
            out += buf;
            if (kind == heatmap_cell::masked) {
                std::snprintf(buf, sizeof buf, "<path d=\"M%.1f %.1fl%.1f %.1f\" class=\"hatch\"/>\n", cx, cy + svg_cell,
                              svg_cell, -svg_cell);
                out += buf;
                continue;
            }
            char value[16];
            heatmap_format_value(v, value, sizeof value);
            std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"v\" fill=\"%s\">%s</text>\n",
                          cx + svg_cell * 0.5f, cy + svg_cell * 0.5f + 3.5f, heatmap_luma(fill) > 0.5f ? "#000" : "#fff", value);
            out += buf;
        }
    }
    // The legend: the colour map from lo to hi, its ends written out.
    const float ly = svg_head_h + float(m.rows) * svg_cell + 10.0f, lw = 160.0f;
    for (int i = 0; i < 32; ++i) {
        std::snprintf(buf, sizeof buf, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" fill=\"%s\"/>",
                      svg_label_w + lw * float(i) / 32.0f, ly, lw / 32.0f + 0.3f,
                      svg_color(heatmap_color_map(map, (float(i) + 0.5f) / 32.0f)).c_str());
        out += buf;
    }
    char lo[16], hi[16];
    std::snprintf(buf, sizeof buf,
                  "\n<text x=\"%.1f\" y=\"%.1f\" class=\"row\">%s</text><text x=\"%.1f\" y=\"%.1f\">%s</text>\n</g>\n",
                  svg_label_w - 6.0f, ly + 9.0f, heatmap_format_value(range.lo, lo, sizeof lo), svg_label_w + lw + 6.0f,
                  ly + 9.0f, heatmap_format_value(range.hi, hi, sizeof hi));
    out += buf;
    return svg_head_h + float(m.rows) * svg_cell + svg_legend_h;
}

}  // namespace

export_file share_export_svg(const app& a) {
    export_file f{std::string("attn-") + stage_slug(a.view.current) + ".svg", "image/svg+xml", {}};
    const pipeline_shown p = app_pipeline(a);  // what the pipeline shows: the experiment or a real model's layer
    const auto& tokens = p.tr->tokens;
    const int heads = stage_per_head(a.view.current) ? p.exp->heads : 1;
    std::string body;
    float y = 8.0f, width = 320.0f;
    // In L11 and L12, the lesson's maps (as the page draws them) instead of the stage's.
    const std::vector<lesson_map> lesson = circuit_lesson_maps(a);
    if (!lesson.empty())
        f.name = std::string("attn-") + lesson_at(a.view.lesson.index)->id + ".svg";
    for (const lesson_map& lm : lesson) {
        const stage_matrix sm{lm.title.c_str(), lm.m, lm.map == colormap::diverging};
        const heatmap_range range{lm.lo, lm.hi};
        y += svg_map(body, sm, lm.title, *lm.rows, *lm.cols, y, &range) + 16.0f;
        width = std::max(width, svg_label_w + float(lm.m->cols) * svg_cell + 240.0f);
    }
    for (int h = 0; h < heads && lesson.empty(); ++h) {
        for (const stage_matrix& sm : stage_matrices(a.view.current, *p.tr, p.layer, h)) {
            if (!sm.m || long(sm.m->rows) * long(sm.m->cols) > share_svg_cell_limit)
                continue;
            std::string title = std::string(stage_name(a.view.current)) + " — " + sm.label;
            if (stage_per_head(a.view.current))
                title += ", " + std::string(tr("head ", "头 ")) + std::to_string(h);
            title += ", " + std::string(tr("layer ", "层 ")) + std::to_string(p.layer);
            y += svg_map(body, sm, title, stage_matrix_row_labels(sm, tokens), stage_matrix_col_labels(sm, tokens), y) + 16.0f;
            width = std::max(width, svg_label_w + float(sm.m->cols) * svg_cell + 240.0f);
        }
    }
    char head[512];
    std::snprintf(head, sizeof head,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\">\n<style>.title{font-size:13px;font-weight:600}"
                  ".col{text-anchor:middle}.row{text-anchor:end}.v{text-anchor:middle;font-size:10px}"
                  ".hatch{stroke:#808080;stroke-width:2}</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
                  double(width), double(y), double(width), double(y));
    f.bytes = head + body + "</svg>\n";
    return f;
}

export_file share_export_csv(const app& a) {
    export_file f{std::string("attn-") + stage_slug(a.view.current) + ".csv", "text/csv", {}};
    const pipeline_shown p = app_pipeline(a);
    const auto& tokens = p.tr->tokens;
    const int heads = stage_per_head(a.view.current) ? p.exp->heads : 1;
    for (int h = 0; h < heads; ++h) {
        for (const stage_matrix& sm : stage_matrices(a.view.current, *p.tr, p.layer, h)) {
            if (!sm.m)
                continue;
            // The same labels the heatmap draws (pipeline.cpp).
            const bool token_rows = stage_matrix_token_rows(sm, int(tokens.size()));
            if (!f.bytes.empty())
                f.bytes += "\n";
            char title[64];
            std::snprintf(title, sizeof title, "# %s layer %d head %d: ", stage_slug(a.view.current), p.layer, h);
            f.bytes += title + std::string(sm.label) + "\n";
            f.bytes += matrix_to_csv(*sm.m, token_rows ? &tokens : nullptr, sm.token_cols ? &tokens : nullptr);
        }
    }
    return f;
}

export_file share_export_json(const app& a) {
    return {"attn-trace.json", "application/json", trace_to_json(a.model.exp, a.model.tr)};
}

std::string share_embed_link(const app& a, bool poster) {
    link_view v = app_view(a);
    v.embed = true;
    v.poster = poster;
    const bool compare_seen = a.model.pin && a.view.compare_shown;
    return link_encode(a.model.exp, v, compare_seen ? a.model.pin : std::nullopt);
}

int share_embed_height(const app& a) {
    const float css = a.reports.content_height / (a.scale > 0 ? a.scale : 1.0f);
    return std::clamp(int(std::ceil(css)), share_embed_min_height, share_embed_max_height);
}

std::string share_embed_title(const app& a) {
    std::string title = tr("Attention playground", "注意力演练场");
    if (const lesson_preset* l = lesson_at(a.view.lesson.index))
        title += std::string(": ") + l->id + " " + tr(l->title);
    return title;
}

std::string share_embed_code(const std::string& page, const std::string& embed_link, int height, const std::string& title) {
    // The playground's origin (scheme://host:port), which the script trusts.
    const std::size_t scheme = page.find("://");
    const std::string origin = page.substr(0, scheme == std::string::npos ? 0 : page.find('/', scheme + 3));
    std::uint32_t h = 2166136261u;  // FNV-1a of the link: one id per embed, so two on one page do not clash
    for (const char c : embed_link)
        h = (h ^ std::uint8_t(c)) * 16777619u;
    char id[24];
    std::snprintf(id, sizeof id, "attn-%08x", unsigned(h));
    const std::string limit = std::to_string(share_embed_max_height);
    return "<iframe id=\"" + std::string(id) + "\" src=\"" + xml_text(page + "#" + embed_link) + "\" width=\"100%\" height=\"" +
           std::to_string(height) + "\" style=\"border:0\" loading=\"lazy\" title=\"" + xml_text(title) +
           "\"></iframe>\n"
           "<script>\n"
           "  (function () {  // the frame takes the height the playground asks for\n"
           "    const frame = document.getElementById('" +
           id +
           "');\n"
           "    window.addEventListener('message', (e) => {\n"
           "      if (e.origin !== '" +
           origin +
           "' || e.source !== frame.contentWindow || !e.data) return;\n"
           "      if (e.data.type === 'attn:resize') frame.style.height = Math.min(e.data.height, " +
           limit +
           ") + 'px';\n"
           "    });\n"
           "  })();\n"
           "</script>\n";
}

std::string share_full_link(const app& a) {
    link_view v = app_view(a);
    v.embed = false;
    return link_encode(a.model.exp, v, a.model.pin);
}

// [SECTION] top bar menu, embed bar, banner

float share_menu_width() {
    return ImGui::CalcTextSize(tr("Share", "分享")).x + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetStyle().ItemSpacing.x;
}

namespace {

// The link's length under "Copy link", and a warning where chats start cutting.
void link_length_note(const app& a, frame_out& out) {
    const std::size_t n = share_full_link(a).size();
    const bool long_link = n > link_limits::compress_above;
    char text[160];
    std::snprintf(text, sizeof text,
                  long_link ? tr("Link: %zu characters, compressed (many chats cut links past %zu)",
                                 "链接：%zu 个字符，已压缩（很多聊天工具会截断超过 %zu 个字符的链接）")
                            : tr("Link: %zu characters, readable (under %zu)", "链接：%zu 个字符，可读（少于 %zu）"),
                  n, link_limits::compress_above);
    if (long_link)
        text_colored(out, theme_bad(), "%s", text);
    else
        text_disabled(out, "%s", text);
    mark_widget(out, "share_link_length");
}

}  // namespace

std::string share_embed_cost(const experiment& e) {
    if (e.train.task == train_task::none)
        return "";
    if (e.train.trained_steps() == 0)
        return tr(
            "A reader sees this model untrained; their browser trains it when they press Train, once, and keeps "
            "the run.",
            "读者看到的是未训练的模型；按下训练后，浏览器才训练一次并保存结果。");
    char text[256];
    std::snprintf(text, sizeof text,
                  tr("Each reader's browser trains this model to step %d once and keeps the run; a poster trains only "
                     "when Run is pressed.",
                     "每位读者的浏览器会把这个模型训练到第 %d 步一次并保存结果；海报要按下运行才训练。"),
                  e.train.trained_steps());
    return text;
}

void share_menu(const app& a, frame_out& out) {
    if (ImGui::Button(tr("Share", "分享")))
        ImGui::OpenPopup("share_popup");
    mark_widget(out, "share");
    // At most ~32 lines of text wide, and never wider than the screen: its sentences wrap
    // (in 中文 the longest ran past the right edge at 1280 and 1440 px).
    const float font = ImGui::GetFontSize();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::min(font * 32.0f, vp->WorkSize.x - font), FLT_MAX));
    if (!ImGui::BeginPopup("share_popup"))
        return;
    // A popup is placed once, as it appears; its sentences can widen it after (in 中文 the
    // glyphs arrive with their font): kept inside the screen every frame.
    const ImGuiWindow& popup = *ImGui::GetCurrentWindow();
    const float right = vp->WorkPos.x + vp->WorkSize.x;
    if (popup.Pos.x + popup.Size.x > right + 0.5f)
        ImGui::SetWindowPos(ImVec2(std::max(vp->WorkPos.x, right - popup.Size.x), popup.Pos.y));
    // SpanAllColumns (outside a table: the window's width) and no box over the spacing beside it:
    // in the touch layout (ItemSpacing 10 px > WindowPadding 8) that box ran a pixel past the popup.
    auto item = [&out](const char* label, const char* name, share_action action) {
        if (ImGui::Selectable(label, false, ImGuiSelectableFlags_SpanAllColumns))
            out.share.push_back(action);
        mark_widget(out, name);
    };
    item(tr("Copy link", "复制链接"), "share_copy_link", share_action::copy_link);
    link_length_note(a, out);
    item(tr("Copy embed code", "复制嵌入代码"), "share_copy_embed", share_action::copy_embed);
    item(tr("Copy embed code: a poster (runs when clicked)", "复制嵌入代码：海报（点击后才运行）"), "share_copy_embed_poster",
         share_action::copy_embed_poster);
    if (const std::string cost = share_embed_cost(a.model.exp); !cost.empty()) {
        text_disabled(out, "%s", cost.c_str());
        mark_widget(out, "share_embed_cost");
    }
    section_text(out, tr("Export", "导出"));
    item(tr("This stage's matrices (CSV)", "这一步的矩阵（CSV）"), "share_export_csv", share_action::export_csv);
    // The experiment's trace: while the pipeline shows a real model, say whose it is (`attn eval --model … --json` is the
    // model's).
    item(app_pipeline(a).real
             ? tr("The experiment's whole trace (JSON; not the model's)", "实验的完整计算过程（JSON；不是模型的）")
             : tr("The whole trace (JSON)", "完整的计算过程（JSON）"),
         "share_export_json", share_action::export_json);
    item(tr("The picture (PNG)", "图片（PNG）"), "share_export_png", share_action::export_png);
    item(tr("This stage's maps (SVG, vector)", "这一步的热力图（SVG 矢量图）"), "share_export_svg", share_action::export_svg);
    ImGui::EndPopup();
}

void embed_bar(const app&, frame_out& out) {
    const char* label = tr("Open in the full playground ↗", "在完整的演练场中打开 ↗");
    const float w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    if (chip_button(label))
        out.share.push_back(share_action::open_full);
    mark_widget(out, "open_full");
}

void banner(const app& a, frame_out& out) {
    if (a.errors.empty())
        return;
    const float font = ImGui::GetFontSize();
    const int lines = int(a.errors.size()) + 1;
    const float h = ImGui::GetTextLineHeightWithSpacing() * float(lines) + ImGui::GetStyle().WindowPadding.y * 2;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.45f, 0.12f, 0.10f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.95f, 0.95f, 1.0f));  // the banner is dark in either theme
    ImGui::BeginChild("banner", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding);
    text_plain(out,
               a.errors_from_link
                   ? tr("This link could not be opened; showing the default experiment:", "无法打开这个链接，显示的是默认实验：")
                   : tr("Change refused; the last good experiment stays:", "改动被拒绝，保留上一个有效的实验："));
    for (const auto& err : a.errors)
        text_colored(out, ImVec4(1.0f, 0.80f, 0.72f, 1.0f), "  %s", err.c_str());
    ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - font * 1.6f, ImGui::GetStyle().WindowPadding.y));
    if (chip_button("×"))
        out.dismiss_banner = true;
    mark_widget(out, "banner_close");
    ImGui::EndChild();
    mark_widget(out, "banner");
    ImGui::PopStyleColor(2);
}

void toast(const app& a, frame_out& out) {
    if (a.notice.empty() || !a.errors.empty())
        return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float font = ImGui::GetFontSize();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y - font),
                            ImGuiCond_Always, ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::max(font * 10.0f, vp->WorkSize.x - font * 2.0f), FLT_MAX));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.12f, 0.30f, 0.20f, 0.96f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.95f, 0.95f, 1.0f));  // dark in either theme
    ImGui::Begin("##toast", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    ImGui::TextUnformatted(a.notice.c_str());
    note_clip(out, a.notice.c_str());
    ImGui::SameLine();
    if (chip_button("×"))
        out.dismiss_banner = true;
    mark_widget(out, "toast_close");
    const ImVec2 p0 = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    out.widgets.push_back({"toast", p0.x, p0.y, p0.x + size.x, p0.y + size.y, "##toast"});
    ImGui::End();
    ImGui::PopStyleColor(2);
}

}  // namespace attn::ui
