#include "app.hpp"

#include <algorithm>
#include <cstdio>

#include "heatmap.hpp"
#include "imgui.h"

namespace attn::ui {

void app_init(app& a, const experiment& e) {
    if (!app_set_experiment(a, e)) {
        const std::vector<std::string> errors = a.errors;
        app_set_experiment(a, experiment{});
        a.errors = errors;
    }
}

bool app_set_experiment(app& a, const experiment& e) {
    std::vector<std::string> errors = experiment_validate(e);
    if (!errors.empty()) {
        a.errors = std::move(errors);
        return false;
    }
    a.errors.clear();
    a.exp = e;
    a.tr = forward(e);
    a.text_edit = e.text;
    a.experiment_changed = true;
    return true;
}

bool app_set_experiment_text(app& a, const std::string& text) {
    experiment_parse_result r = experiment_parse(text);
    if (!r.value) {
        a.errors = std::move(r.errors);
        return false;
    }
    return app_set_experiment(a, *r.value);
}

namespace {

// Callback that grows std::string while ImGui edits it.
int resize_callback(ImGuiInputTextCallbackData* data) {
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        auto* s = static_cast<std::string*>(data->UserData);
        s->resize(std::size_t(data->BufTextLen));
        data->Buf = s->data();
    }
    return 0;
}

void draw_controls(app& a) {
    experiment next = a.exp;
    bool changed = false;

    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputTextWithHint("##text", "type a sentence", a.text_edit.data(), a.text_edit.capacity() + 1,
                                 ImGuiInputTextFlags_CallbackResize, resize_callback, &a.text_edit)) {
        next.text = a.text_edit.c_str();
        changed = true;
    }

    // Head counts that divide d_model, as radio buttons: only valid choices are offered.
    ImGui::TextUnformatted("heads");
    for (int h = 1; h <= experiment_limits::max_heads; ++h) {
        if (a.exp.d_model % h != 0)
            continue;
        ImGui::SameLine();
        char label[8];
        std::snprintf(label, sizeof label, "%d", h);
        if (ImGui::RadioButton(label, a.exp.heads == h)) {
            next.heads = h;
            next.kv_heads = h;
            next.ablate.clear();
            next.edges.clear();
            changed = true;
        }
    }
    bool causal = a.exp.mask == mask_kind::causal;
    if (ImGui::Checkbox("causal mask", &causal)) {
        next.mask = causal ? mask_kind::causal : mask_kind::none;
        changed = true;
    }
    ImGui::SameLine();
    int seed = int(a.exp.seed);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    if (ImGui::InputInt("seed", &seed)) {
        next.seed = std::uint32_t(seed < 0 ? 0 : seed);
        changed = true;
    }
    if (changed) {
        const std::string typed = a.text_edit;
        app_set_experiment(a, next);
        a.text_edit = typed;  // keep what is being typed, even when it is not valid yet
    }
    for (const auto& err : a.errors)
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", err.c_str());
}

}  // namespace

void app_draw(app& a) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("Attention", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted("Attention weights  softmax(Q K^T / sqrt(d_k))  per head");
    draw_controls(a);
    ImGui::Separator();

    const int n = int(a.tr.tokens.size());
    heatmap_style style;
    const float avail = ImGui::GetContentRegionAvail().x;
    const std::vector<head_trace>& heads = a.tr.layers.front().heads;
    const int h = int(heads.size());
    // Fit all heads side by side when the window allows, but keep cells readable.
    const float per_head = avail / float(h > 0 ? h : 1) - ImGui::GetFontSize() * 6.0f;
    style.cell = std::max(ImGui::GetFontSize() * 1.2f, std::min(ImGui::GetFontSize() * 3.0f, per_head / float(n > 0 ? n : 1)));

    for (int hi = 0; hi < h; ++hi) {
        if (hi > 0)
            ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Text("head %d", hi);
        char id[16];
        std::snprintf(id, sizeof id, "head%d", hi);
        const auto [r, c] = heatmap_draw(id, heads[std::size_t(hi)].weights, a.tr.tokens, a.tr.tokens, style);
        if (r >= 0)
            ImGui::SetTooltip("head %d: \"%s\" attends to \"%s\"\nweight %.4f", hi, a.tr.tokens[std::size_t(r)].c_str(),
                              a.tr.tokens[std::size_t(c)].c_str(), double(heads[std::size_t(hi)].weights(r, c)));
        ImGui::EndGroup();
    }
    ImGui::End();
}

}  // namespace attn::ui
