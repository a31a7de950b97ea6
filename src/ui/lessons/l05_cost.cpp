// L5, the cost of attention and its remedies (tiles, the KV cache).
#include "lessons/lesson_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include "base/measure.hpp"
#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "model/tiled.hpp"
#include "panels/panels.hpp"
#include "play/lesson_preset.hpp"
#include "spec/keys.hpp"
#include "view/app.hpp"

namespace attn::ui {

namespace {

using namespace lesson_parts;

// (a) The quadratic curve.
void cost_curve(const app& a, frame_out& out) {
    const cost_measure& m = a.memo.lesson.cost.get(a.model.version, 0, [&] { return measure_cost(a.model.exp); });
    ImGui::PlotLines("##cost", m.gflops.data(), int(m.gflops.size()), 0,
                     tr("score + weighted-sum GFLOPs, n = 256 … 8192", "打分 + 加权和 GFLOPs，n = 256 … 8192"), 0.0f, FLT_MAX,
                     ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4.5f));
    if (m.ratio_32x > 0) {
        textf(out, "4k → 128k tokens: 32× %s, %.0f× %s; %s %.1f GB %s", tr("length", "长度"), m.ratio_32x,
              tr("score FLOPs", "打分 FLOPs"), tr("the n×n scores of one head:", "一个头的 n×n 分数："), m.gb_scores_128k,
              "(fp32)");
        number(out, "cost_ratio_32x", m.ratio_32x);
    }
}

// (b) Tiled online softmax on head 0 of layer 0.
void tile_stepper(const app& a, frame_out& out) {
    section_text(out, tr("Tiled online softmax, tile by tile", "分块在线 softmax，一块一块来"));
    const int n = int(a.model.tr.tokens.size());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    // The tile and the step this frame shows; a change is asked for at the end.
    int tile = a.view.lesson.tile, step = a.view.lesson.tile_step;
    if (ImGui::SliderInt(tr("tile", "块大小"), &tile, 1, std::max(1, n)))
        step = 0;
    note_clip(out, "tile");
    const tiled_measure& m = a.memo.lesson.tiled.get(a.model.version, std::uint64_t(tile),
                                                     [&] { return measure_tiled(a.model.exp, a.model.tr, tile); });
    const std::vector<tiled_step>& steps = m.steps;
    const int total = int(steps.size());
    step = std::clamp(step, 0, total);
    ImGui::SameLine();
    if (ImGui::Button(tr("◀ step", "◀ 上一块")) && step > 0)
        --step;
    note_clip(out, "step back");
    ImGui::SameLine();
    if (ImGui::Button(tr("step ▶", "下一块 ▶")) && step < total)
        ++step;
    mark_widget(out, "l5_step");
    ImGui::SameLine();
    textf(out, "%d / %d", step, total);
    // The score matrix as a grid of tiles: done, current, skipped (masked), to do.
    const float cell = std::clamp(ImGui::GetFontSize() * 8.0f / float(std::max(n, 1)), 4.0f, ImGui::GetFontSize() * 1.4f);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int s = 0; s < total; ++s) {
        const tiled_step& ts = steps[std::size_t(s)];
        const ImVec2 a0(p.x + float(ts.k0) * cell, p.y + float(ts.q0) * cell);
        const ImVec2 a1(a0.x + float(ts.k_rows) * cell - 1, a0.y + float(ts.q_rows) * cell - 1);
        const ImU32 col = ts.skipped      ? IM_COL32(60, 60, 60, 255)
                          : s + 1 == step ? IM_COL32(250, 200, 60, 255)
                          : s < step      ? IM_COL32(60, 150, 120, 255)
                                          : IM_COL32(45, 60, 80, 255);
        dl->AddRectFilled(a0, a1, col);
    }
    ImGui::Dummy(ImVec2(float(n) * cell, float(n) * cell));
    ImGui::SameLine();
    ImGui::BeginGroup();
    if (step > 0) {
        const tiled_step& ts = steps[std::size_t(step - 1)];
        textf(out, "%s %d–%d × %s %d–%d%s", tr("queries", "查询"), ts.q0, ts.q0 + ts.q_rows - 1, tr("keys", "键"), ts.k0,
              ts.k0 + ts.k_rows - 1, ts.skipped ? tr("  (fully masked: skipped)", "（完全被掩码：跳过）") : "");
        if (table_with_headers("tile", {tr("row", "行"), "max m", tr("sum l", "和 l"), tr("rescale", "重缩放")})) {
            for (int r = 0; r < ts.q_rows; ++r) {
                ImGui::TableNextColumn();
                textf(out, "%d", ts.q0 + r);
                ImGui::TableNextColumn();
                textf(out, "%s → %s", number_text(ts.max_before[std::size_t(r)]).c_str(),
                      number_text(ts.max_after[std::size_t(r)]).c_str());
                ImGui::TableNextColumn();
                textf(out, "%s → %s", number_text(ts.sum_before[std::size_t(r)]).c_str(),
                      number_text(ts.sum_after[std::size_t(r)]).c_str());
                ImGui::TableNextColumn();
                textf(out, "×%s", number_text(ts.rescale[std::size_t(r)]).c_str());
            }
            ImGui::EndTable();
        }
    } else {
        text_disabled(out, "%s", tr("Press step ▶ to run the first tile.", "按\"下一块 ▶\"运行第一块。"));
    }
    textf(out, "%s %s", tr("max |tiled − plain| =", "最大 |分块 − 普通| ="), number_text(m.max_diff).c_str());
    textf(out, "%s %zu B   %s %zu B", tr("working memory: tiled", "工作内存：分块"), m.tiled_bytes,
          tr("plain (n²)", "普通（n²）"), m.plain_bytes);
    ImGui::EndGroup();
    number(out, "tiled_max_diff", m.max_diff);
    number(out, "tiled_steps", total);
    number(out, "tile_step", step);
    if (tile != a.view.lesson.tile || step != a.view.lesson.tile_step) {
        lesson_wants(a, out).tile = tile;
        lesson_wants(a, out).tile_step = step;
    }
    number(out, "tiled_memory", double(m.tiled_bytes));
    number(out, "plain_memory", double(m.plain_bytes));
}

// (c) Decoding with a KV cache.
void decode_panel(const app& a, frame_out& out) {
    const int n = int(a.model.tr.tokens.size()), h = a.model.exp.heads;
    section_text(out, tr("Decoding with a KV cache", "用 KV 缓存解码"));
    int t = a.model.exp.decode;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    {
        const experiment_controls controls(a);
        if (ImGui::SliderInt(tr("tokens decoded", "已解码词元"), &t, 1, n))
            request_experiment(out, lesson_decode_edit(a.model.exp, t));
        mark_slider(out, "l5_decode", tr("tokens decoded", "已解码词元"));
    }
    const decode_measure& m =
        a.memo.lesson.decode.get(a.model.version, 0, [&] { return measure_decode(a.model.exp, a.model.tr); });
    if (!m.active)
        return;
    textf(out, "%s %d %s × %d KV %s; %s 1, %s %d", tr("cache:", "缓存："), m.cache_rows, tr("rows", "行"), a.model.exp.kv_heads,
          tr("heads", "头"), tr("computed this step:", "本步新算："), tr("reused:", "复用："), m.cache_rows - 1);
    textf(out, "%s %s", tr("max |decoded − full causal pass| =", "最大 |解码 − 完整因果计算| ="),
          number_text(m.max_diff).c_str());
    number(out, "decode_max_diff", m.max_diff);
    for (int kv : {h, std::max(1, a.model.exp.kv_heads), 1}) {
        const double bytes = kv == h ? m.bytes_mha : kv == 1 ? m.bytes_mqa : m.bytes_gqa;
        textf(out, "%s (kv_heads %d): %.0f B %s",
              kv == h   ? "MHA"
              : kv == 1 ? "MQA"
                        : "GQA",
              kv, bytes, tr("of K and V read this step", "本步读取的 K、V 字节"));
    }
    number(out, "bytes_mha", m.bytes_mha);
    number(out, "bytes_gqa", m.bytes_gqa);
    number(out, "bytes_mqa", m.bytes_mqa);
    number(out, "bytes_read_step", m.bytes_read_step);
    if (!a.real.model)
        return;
    // The same arithmetic on the real model the Model window has open: its own K/V heads, its context.
    textf(out,
          tr("On %s (the Model window's model; Continue there decodes through this cache):",
             "在 %s 上（模型窗口里的模型；在那里“续写”就是通过这个缓存解码）："),
          a.real.model->name.c_str());
    real_cache_lines(a, out, "l5_real_cache");
    const real_cache_measure r = real_model_cache(*a.real.model, a.real.gen);
    number(out, "real_per_token", double(r.per_token));
    number(out, "real_per_token_mha", double(r.per_token_mha));
    number(out, "real_last_step_read", double(r.last_step_read));
}

}  // namespace

void view_cost(const app& a, frame_out& out) {
    cost_curve(a, out);
    tile_stepper(a, out);
    decode_panel(a, out);
}

// L5's page under its card (card.cpp lists the lessons' pages).
extern const lesson_page lesson_page_05{view_cost, nullptr};

}  // namespace attn::ui
