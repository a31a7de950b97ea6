// The experiment's settings: the sentence and its tokens, sizes, mask,
// positions, scaling, softmax, precision, seed. Every control edits a copy of
// the experiment; the panel returns that copy when a control changed it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/tokenize.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"

namespace attn::ui {

// [SECTION] help: one line per control, in both languages, shown on hover

namespace {

// The help of the widgets that are not a key's; a key's is its row's (spec/keys.hpp).
// clang-format off
constexpr control_help widget_helps[] = {
    {"shuffle", "Reorder the tokens at random: with positions off, each token's output moves with it unchanged.",
     "随机打乱词元顺序：不加位置编码时，每个词元的输出跟着它移动、数值不变。"},
    {"scale_factor", "The factor the scores are multiplied by instead of 1/√d_k.",
     "代替 1/√d_k 与打分相乘的系数。"},
    {"advanced", "Show or hide the settings a first look does not need.",
     "显示或隐藏初次使用时用不到的设置。"},
    {"clear", "Undo every zeroed head, masked edge and edited number at once.",
     "一次撤销所有置零的头、屏蔽的边和改过的数值。"},
};
// clang-format on

// The widgets named otherwise than the key they edit.
constexpr std::pair<const char*, const char*> widget_keys[] = {
    {"positions", "pos"}, {"temperature", "temp"}, {"kv", "kv_heads"}, {"mask_after", "mask_at"}};

const std::vector<control_help>& control_helps() {
    static const std::vector<control_help> helps = [] {
        std::vector<control_help> h(std::begin(widget_helps), std::end(widget_helps));
        for (const key_row& k : key_table())
            if (k.part == key_part::experiment)
                h.push_back({k.name, k.help.en, k.help.zh});
        for (const auto& [widget, key] : widget_keys)
            h.push_back({widget, key_of(key).help.en, key_of(key).help.zh});
        return h;
    }();
    return helps;
}

}  // namespace

const control_help* control_help_of(std::string_view name) {
    for (int pass = 0; pass < 2; ++pass) {  // "heads_4" (a radio button, a combo's item) has its row's help: "heads"
        for (const control_help& h : control_helps())
            if (name == h.name)
                return &h;
        const std::size_t cut = name.rfind('_');
        if (cut == std::string_view::npos)
            return nullptr;
        name = name.substr(0, cut);
    }
    return nullptr;
}

namespace {

// The control just drawn, recorded as widget `name`, with its help on hover.
void mark_control(frame_out& out, const char* name, const char* slider_label = nullptr) {
    if (slider_label)
        mark_slider(out, name, slider_label);
    else
        mark_widget(out, name);
    const control_help* h = control_help_of(name);
    if (h && ImGui::IsItemHovered(ImGuiHoveredFlags_ForTooltip | ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", tr(h->en, h->zh));
}

// The input of the key named `key` over a copy of `field`, recorded as control
// `name`: the field takes the value when it moves, and `changed` is set.
template <class T>
void key_field(frame_out& out, const char* key, const char* name, const char* label, T& field, bool& changed) {
    T v = field;
    if (key_input(key_of(key), label, v)) {
        field = v;
        changed = true;
    }
    mark_control(out, name, label);
}

}  // namespace

namespace {

void section(frame_out& out, const char* title) {
    ImGui::Spacing();
    section_text(out, title);
}

// A row of radio buttons over the values for which `valid` holds.
// Each button is recorded as widget "<id>_<value>".
float radio_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

// A checkbox recorded as widget `name` with its label beside it, wrapped at the
// visible edge (a long label cut a narrow column); a click on the label toggles it too.
bool checkbox(frame_out& out, const char* name, const char* label, bool& value) {
    ImGui::PushID(name);
    bool changed = ImGui::Checkbox("##box", &value);
    mark_control(out, name);
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
    text_plain(out, label);
    if (ImGui::IsItemClicked()) {
        value = !value;
        changed = true;
    }
    ImGui::PopID();
    return changed;
}

template <class Valid, class Label>
bool radio_row(frame_out& out, const char* id, int& value, int lo, int hi, Valid valid, Label label) {
    bool changed = false;
    ImGui::PushID(id);
    bool first = true;
    for (int v = lo; v <= hi; ++v) {
        if (!valid(v))
            continue;
        if (!first)
            same_line_if_fits(radio_width(label(v).c_str()));
        first = false;
        ImGui::PushID(v);
        if (ImGui::RadioButton(label(v).c_str(), value == v)) {
            value = v;
            changed = true;
        }
        mark_control(out, (std::string(id) + "_" + std::to_string(v)).c_str());
        ImGui::PopID();
    }
    ImGui::PopID();
    return changed;
}

// The combo is recorded as widget `id`, its open items as "<id>_<index>".
template <class E>
bool combo(frame_out& out, const char* id, const char* label, E& value, std::initializer_list<std::pair<E, const char*>> items) {
    const char* preview = "?";
    for (const auto& [v, name] : items)
        if (v == value)
            preview = name;
    bool changed = false;
    const bool open = ImGui::BeginCombo(label, preview);
    mark_control(out, id);
    if (open) {
        int index = 0;
        for (const auto& [v, name] : items) {
            if (ImGui::Selectable(name, v == value)) {
                value = v;
                changed = true;
            }
            mark_control(out, (std::string(id) + "_" + std::to_string(index++)).c_str());
        }
        ImGui::EndCombo();
    }
    return changed;
}

// A combo over a choice key's row: the choices a control offers (those with a
// label), in the row's order; a value no control offers shows its name.
template <class E>
bool key_combo(frame_out& out, const char* id, const char* label, const key_row& k, E& value) {
    const char* preview = key_choice_name(k, int(value));
    for (const key_choice& c : k.choices)
        if (c.en && c.value == int(value))
            preview = tr(c.en, c.zh);
    bool changed = false;
    const bool open = ImGui::BeginCombo(label, preview);
    mark_control(out, id);
    if (open) {
        int index = 0;
        for (const key_choice& c : k.choices) {
            if (!c.en)
                continue;
            if (ImGui::Selectable(tr(c.en, c.zh), c.value == int(value))) {
                value = E(c.value);
                changed = true;
            }
            mark_control(out, (std::string(id) + "_" + std::to_string(index++)).c_str());
        }
        ImGui::EndCombo();
    }
    return changed;
}

void tokens_row(const app& a, frame_out& out, experiment& next, bool& changed) {
    ImGui::SetNextItemWidth(-FLT_MIN);
    std::string typed = a.view.text_edit;  // ImGui keeps its own copy while the box is active
    if (ImGui::InputTextWithHint("##text", tr("type a sentence (English or 中文)", "输入一句话（中文或 English）"), typed.data(),
                                 typed.capacity() + 1, ImGuiInputTextFlags_CallbackResize, text_resize_callback, &typed)) {
        next = edit_text(next, typed);
        view_edit(a, out).text_edit = std::move(typed);
        changed = true;
    }
    mark_control(out, "text");
    // Token chips: click one to follow it through every stage.
    const auto& tokens = a.model.tr.tokens;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        ImGui::PushID(int(i));
        // Chips flow like words: on the same line while the next one fits.
        const float w = ImGui::CalcTextSize(tokens[i].c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
        const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
        if (i > 0 && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right)
            ImGui::SameLine();
        const bool selected = int(i) == a.view.sel_row;
        if (selected)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (chip_button(tokens[i].c_str()))
            view_edit(a, out).sel_row = int(i);
        note_clip(out, tokens[i].c_str());
        if (selected)
            ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s %zu", tr("token", "词元"), i);
        ImGui::PopID();
    }
    if (ImGui::Button(tr("Shuffle tokens", "打乱词元"))) {
        // Each press a new order: the draw counts the experiment's changes.
        next = edit_shuffle_tokens(next, tokens, a.model.version);
        changed = true;
    }
    mark_control(out, "shuffle");
    ImGui::SameLine();
    text_disabled(out, "%zu %s", tokens.size(), tr("tokens", "个词元"));
}

// The model's shape. Each control's editing rule is the core's (edit.hpp).
void model_section(frame_out& out, experiment& next, bool& changed, float label_w) {
    section(out, tr("Model", "模型"));
    int d_model = next.d_model;
    if (key_input(key_of("d_model"), "d_model", d_model)) {
        next = edit_d_model(next, d_model);
        changed = true;
    }
    mark_control(out, "d_model", "d_model");
    text_plain(out, tr("heads", "头数"));
    ImGui::SameLine(label_w * 0.9f);
    int heads = next.heads;
    const key_control& heads_range = key_of("heads").control;
    if (radio_row(
            out, "heads", heads, int(heads_range.lo), int(heads_range.hi), [&](int h) { return next.d_model % h == 0; },
            [](int h) { return std::to_string(h); })) {
        next = edit_heads(next, heads);
        changed = true;
    }
    int layers = next.layers;
    if (key_input(key_of("layers"), tr("layers", "层数"), layers)) {
        next = edit_layers(next, layers);
        changed = true;
    }
    mark_control(out, "layers", tr("layers", "层数"));
    std::uint32_t seed = next.seed;  // all of its 32 bits (an int showed a seed above 2^31 negative)
    if (key_input(key_of("seed"), tr("seed", "随机种子"), seed)) {
        next = edit_seed(next, seed);
        changed = true;
    }
    mark_control(out, "seed");
}

// The mask and where it goes; positions.
void mask_and_positions(const app& a, frame_out& out, experiment& next, bool& changed) {
    mask_kind mask = next.mask;
    if (key_combo(out, "mask", tr("mask", "掩码"), key_of("mask"), mask)) {
        next = edit_mask(next, mask);
        changed = true;
    }
    if (next.mask == mask_kind::padding) {
        int pad = next.pad;
        const key_row& k = key_of("pad");
        const double tokens_hi = std::max(0, int(a.model.tr.tokens.size()) - 1);
        if (key_input(k, tr("padding tokens", "填充词元"), pad, k.control.lo, std::min(k.control.hi, tokens_hi))) {
            next.pad = pad;
            changed = true;
        }
        mark_control(out, "pad", tr("padding tokens", "填充词元"));
    }
    changed |= key_combo(out, "positions", tr("positions", "位置编码"), key_of("pos"), next.pos);
    if (next.pos != positional::none)
        key_field(out, "pos_offset", "pos_offset", tr("first position", "起始位置"), next.pos_offset, changed);
    if (next.pos == positional::rope)
        key_field(out, "rope_base", "rope_base", tr("RoPE base", "RoPE 底数"), next.rope_base, changed);
}

// Scale, softmax and its temperature.
void scores_and_softmax(frame_out& out, experiment& next, bool& changed) {
    changed |= combo(out, "scale", tr("scale", "缩放"), next.scale,
                     {{score_scale::sqrt_dk, "1/√d_k"},
                      {score_scale::none, tr("none", "不缩放")},
                      {score_scale::custom, tr("custom", "自定义")}});
    if (next.scale == score_scale::custom)
        key_field(out, "scale", "scale_factor", tr("factor", "系数"), next.scale_value, changed);
    changed |= key_combo(out, "softmax", tr("softmax", "softmax"), key_of("softmax"), next.softmax);
    if (next.softmax != softmax_mode::argmax)
        key_field(out, "temp", "temperature", tr("temperature", "温度"), next.temperature, changed);
}

// The settings a newcomer need not meet first: the KV heads, the block, W_O, the
// precision and the bug toggles. Folded under a heading until opened, or while
// one of them is not at its default, or while a lesson about them (L5, L8) is open.
bool advanced_in_use(const app& a) {
    const experiment& e = a.model.exp;
    return e.kv_heads != e.heads || e.block != block_kind::attention_only || !e.use_wo || e.prec != precision::fp32 ||
           e.mask_at != mask_placement::before_softmax || a.view.lesson.index == 4 || a.view.lesson.index == 7;
}

void advanced_controls(frame_out& out, experiment& next, bool& changed, float label_w) {
    text_plain(out, "kv_heads");
    ImGui::SameLine(label_w * 0.9f);
    int kv = next.kv_heads;
    if (radio_row(
            out, "kv", kv, int(key_of("kv_heads").control.lo), next.heads, [&](int g) { return next.heads % g == 0; },
            [&](int g) {
                return std::to_string(g) + (g == next.heads ? " MHA" : g == 1 ? " MQA" : " GQA");
            })) {
        next = edit_kv_heads(next, kv);
        changed = true;
    }
    block_kind block = next.block;
    if (key_combo(out, "block", tr("block", "结构"), key_of("block"), block)) {
        next = edit_block(next, block);
        changed = true;
    }
    bool wo = next.use_wo;
    if (checkbox(out, "wo", tr("W_O (mix the heads)", "W_O（混合各头）"), wo)) {
        next.use_wo = wo;
        changed = true;
    }
    bool after = next.mask_at == mask_placement::after_softmax;
    if (checkbox(out, "mask_after", tr("mask after softmax (bug)", "softmax 之后再掩码（错误）"), after)) {
        next.mask_at = after ? mask_placement::after_softmax : mask_placement::before_softmax;
        changed = true;
    }
    text_plain(out, tr("precision", "精度"));
    ImGui::SameLine(label_w * 0.9f);
    bool first = true;
    for (const key_choice& c : key_of("precision").choices) {
        if (!first)
            same_line_if_fits(radio_width(c.name));
        first = false;
        if (ImGui::RadioButton(c.name, int(next.prec) == c.value)) {
            next.prec = precision(c.value);
            changed = true;
        }
        mark_control(out, (std::string("precision_") + c.name).c_str());
    }
}

void advanced_section(const app& a, frame_out& out, experiment& next, bool& changed, float label_w) {
    const bool forced = advanced_in_use(a);
    const bool open = forced || a.view.advanced_open;
    section(out, tr("Advanced", "进阶"));
    ImGui::BeginDisabled(forced);  // a setting in use stays in sight
    // A short button and what it folds beside it, wrapped: a column as narrow as a phone's cut the long button.
    if (chip_button(open ? tr("▾ hide", "▾ 收起") : tr("▸ show", "▸ 展开")))
        view_edit(a, out).advanced_open = !a.view.advanced_open;
    ImGui::EndDisabled();
    mark_control(out, "advanced");
    ImGui::SameLine();
    text_disabled(out, "%s", tr("kv_heads, block, W_O, precision, bugs", "kv_heads、结构、W_O、精度、错误"));
    if (open)
        advanced_controls(out, next, changed, label_w);
}

void interventions_section(frame_out& out, experiment& next, bool& changed) {
    section(out, tr("Interventions", "干预"));
    text_plain(out, tr("Click a head's \"zero\" box to ablate it; click a cell of a softmax map to mask that edge.",
                       "勾选某个头的\"置零\"来消融它；在 softmax 热力图上点击一个格子来屏蔽那条边。"));
    textf(out, "%s: %zu   %s: %zu", tr("zeroed heads (the experiment's)", "置零的头（实验的）"), next.ablate.size(),
          tr("masked edges", "屏蔽的边"), next.edges.size());
    textf(out, "%s: %zu", tr("edited numbers", "改过的数值"), next.edits.size());
    ImGui::BeginDisabled(next.ablate.empty() && next.edges.empty() && next.edits.empty());
    if (ImGui::Button(tr("Clear interventions", "清除全部干预"))) {
        next = edit_clear_interventions(next);
        changed = true;
    }
    mark_control(out, "clear_interventions");
    ImGui::EndDisabled();
}

}  // namespace

void panel_controls(const app& a, frame_out& out) {
    experiment next = a.model.exp;
    bool changed = false;
    const float label_w = ImGui::GetFontSize() * 6.5f;
    ImGui::BeginDisabled(a.options.readonly);
    // Items end a label's width before the visible edge (not the content's: the column scrolls sideways).
    ImGui::PushItemWidth(std::max(visible_width() - label_w, ImGui::GetFontSize() * 4.0f));
    section(out, tr("Input", "输入"));
    tokens_row(a, out, next, changed);
    if (app_pipeline(a).real) {  // the text is shared; the rest below is the experiment's, not the model's
        ImGui::PushTextWrapPos(0.0f);
        text_disabled(out,
                      tr("The pipeline shows the model %s on this text; the settings below are the experiment's.",
                         "流水线显示模型 %s 在这段文字上；下面的设置属于实验。"),
                      a.real.model->name.c_str());
        ImGui::PopTextWrapPos();
        mark_widget(out, "controls_model_note");
    }
    model_section(out, next, changed, label_w);
    section(out, tr("Attention", "注意力"));
    mask_and_positions(a, out, next, changed);
    scores_and_softmax(out, next, changed);
    advanced_section(a, out, next, changed, label_w);
    interventions_section(out, next, changed);
    if (app_pipeline(a).real && !a.view.model.changes.empty()) {  // the counts above are the experiment's
        ImGui::PushTextWrapPos(0.0f);
        textf(out, tr("The model in the pipeline: %s (Model window).", "流水线中的模型：%s（见模型窗口）。"),
              real_changes_text(a.view.model.changes).c_str());
        ImGui::PopTextWrapPos();
        mark_widget(out, "controls_model_changes");
    }
    ImGui::PopItemWidth();
    ImGui::EndDisabled();
    if (changed)
        request_experiment(out, std::move(next));
}

}  // namespace attn::ui
