// The Train panel: a recipe's task, its settings, Train / Pause / Step / Reset,
// the loss and accuracy curves, a scrubber over the run, and every head's
// attention on a probe row with its scores. Every number comes from the core's
// trainer (trainer.hpp); the buttons and the scrubber ask for the experiment's
// `trained` step through the one change path.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/text_util.hpp"
#include "imgui.h"
#include "look/i18n.hpp"
#include "look/theme.hpp"
#include "maps/heatmap.hpp"
#include "panels/panels.hpp"
#include "play/edit.hpp"
#include "play/training.hpp"
#include "train/task.hpp"
#include "view/app.hpp"
#include "view/stages.hpp"

namespace attn::ui {

namespace {

// The experiment with the model shown trained to `step` (steps: all of it).
void request_trained(const app& a, frame_out& out, int step) {
    experiment next = a.model.exp;
    next.train.trained = step >= next.train.steps ? train_settings::trained_all : std::max(step, 0);
    if (!(next == a.model.exp))
        request_experiment(out, std::move(next));
}

// The task's label in the Train panel: its choice in the train key's row (spec/keys.hpp).
const char* task_label(const train_settings& s) {
    for (const key_choice& c : key_of("train").choices)
        if (c.value == int(s.task) && c.en)
            return tr(c.en, c.zh);
    return "";
}

void settings_line(const app& a, frame_out& out) {
    const experiment& e = a.model.exp;
    const train_settings& s = e.train;
    textf(out, "%s: %s · %d × %d %s, d_model %d · %s %d, %s %d, %s %d, lr %g · %d %s", tr("task", "任务"), task_label(s),
          e.layers, e.heads, tr("heads", "个头"), e.d_model, tr("batch", "批量"), s.batch, tr("sequence", "序列长"), s.seq,
          tr("vocabulary", "词表"), s.vocab, double(s.lr), s.steps, tr("steps", "步"));
}

// Seconds as the estimate reads best: "0.8 s", "12 min", "31 h".
std::string duration_text(double seconds) {
    char buf[48];
    if (seconds < 90)
        std::snprintf(buf, sizeof buf, "%.2g %s", seconds, tr("s", "秒"));
    else if (seconds < 90 * 60)
        std::snprintf(buf, sizeof buf, "%.0f %s", seconds / 60, tr("min", "分钟"));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", seconds / 3600, tr("h", "小时"));
    return buf;
}

// What the recipe costs from its shape (train_estimate, at the page's usual
// speed): before Train, so that a run of hours is started knowingly. A long
// recipe opens paused (session.cpp) and says so here.
// Then what it runs on: the threads, and whether beside the drawing
// (session_trains_apart) or in the drawing's frames (a page that is not
// cross-origin isolated, a build without threads).
void estimate_line(const app& a, frame_out& out, const trainer& t) {
    const train_cost c = train_estimate(a.model.exp);
    const int n = session_train_threads(a.model);
    const std::string runs_on =
        !session_trains_apart(a.model)
            ? tr("on the drawing's thread", "在绘制所在的线程上")
            : tr("on ", "") + std::to_string(n) +
                  tr(n == 1 ? " thread beside the drawing" : " threads beside the drawing", " 个线程，与绘制并行");
    text_disabled(out, "%s %s · %s %s · %s", tr("estimated: a step", "估计：每步"), duration_text(train_seconds(c.step)).c_str(),
                  tr("the whole run", "整个训练"), duration_text(train_seconds(c.run)).c_str(), runs_on.c_str());
    mark_widget(out, "train_estimate");
    if (train_is_long(a.model.exp) && trainer_step(t) == 0 && t.target == 0)
        text_disabled(out, "%s",
                      tr("a long run: it opened paused; Train starts it, Pause stops it within a frame",
                         "训练耗时较长：打开时已暂停；点“训练”开始，“暂停”在一帧之内生效"));
}

// The recipe's settings, each control a new run through the core's edit_recipe
// (edit.hpp): shown untrained until Train. Folded by default; the line above
// says every setting.
void recipe_editor(const app& a, frame_out& out) {
    const bool open = ImGui::TreeNode(tr("Change the recipe###recipe", "修改配方###recipe"));
    mark_widget(out, "train_recipe");
    if (!open)
        return;
    ImGui::BeginDisabled(a.options.readonly);
    const float label_w = ImGui::GetFontSize() * 8.0f;
    ImGui::PushItemWidth(std::max(visible_width() - label_w, ImGui::GetFontSize() * 6.0f));
    train_settings s = a.model.exp.train;
    bool changed = false;
    if (ImGui::BeginCombo(tr("task", "任务"), task_label(s))) {
        int index = 0;
        for (const key_choice& c : key_of("train").choices) {
            if (!c.en)  // none: not a task to train
                continue;
            if (ImGui::Selectable(tr(c.en, c.zh), c.value == int(s.task))) {
                s.task = train_task(c.value);
                changed = true;
            }
            mark_widget(out, ("recipe_task_" + std::to_string(index++)).c_str());
        }
        ImGui::EndCombo();
    }
    mark_widget(out, "recipe_task");
    key_tooltip(key_of("train"));
    // Each setting over its key's row; where another setting narrows it (seq - 1
    // for offset, steps for warm-up, induction's rows), within that.
    auto slider = [&](const char* name, const char* key, const char* label, auto& v, auto... narrowed) {
        const key_row& k = key_of(key);
        changed |= key_input(k, label, v, narrowed...);
        mark_slider(out, name, label);
        key_tooltip(k);
    };
    const key_control &seq = key_of("seq").control, &vocab = key_of("vocab").control;
    const double min_rows = s.task == train_task::induction ? train_limits::min_induction_rows : 0;
    slider("recipe_steps", "steps", tr("steps", "步数"), s.steps);
    slider("recipe_lr", "lr", tr("learning rate", "学习率"), s.lr);
    slider("recipe_batch", "batch", tr("batch", "批量"), s.batch);
    slider("recipe_seq", "seq", tr("sequence", "序列长"), s.seq, std::max(seq.lo, min_rows), seq.hi);
    slider("recipe_vocab", "vocab", tr("vocabulary", "词表"), s.vocab, std::max(vocab.lo, min_rows), vocab.hi);
    if (s.task == train_task::copy_offset)
        slider("recipe_offset", "offset", tr("offset", "偏移"), s.offset, key_of("offset").control.lo,
               std::min(key_of("offset").control.hi, double(s.seq - 1)));
    if (s.task == train_task::markov)
        slider("recipe_markov_alpha", "markov_alpha", tr("Dirichlet α", "狄利克雷 α"), s.markov_alpha);
    slider("recipe_warmup", "warmup", tr("warm-up steps", "预热步数"), s.warmup, key_of("warmup").control.lo,
           std::min(key_of("warmup").control.hi, double(std::max(s.steps, 1))));
    slider("recipe_wd", "wd", tr("weight decay", "权重衰减"), s.wd);
    slider("recipe_clip", "clip", tr("gradient clip", "梯度裁剪"), s.clip, s.clip == 0.0f ? tr("off", "关") : nullptr);
    bool cosine = s.sched == lr_schedule::cosine;
    if (ImGui::Checkbox(tr("cosine learning-rate decay", "余弦学习率衰减"), &cosine)) {
        s.sched = cosine ? lr_schedule::cosine : lr_schedule::constant;
        changed = true;
    }
    mark_widget(out, "recipe_cosine");
    key_tooltip(key_of("sched"));
    changed |= key_input(key_of("train_seed"), tr("data seed", "数据种子"), s.train_seed);
    mark_widget(out, "recipe_seed");
    key_tooltip(key_of("train_seed"));
    ImGui::PopItemWidth();
    ImGui::EndDisabled();
    text_disabled(out, "%s",
                  tr("a change is a new run from new weights, untrained until Train; the model's shape is in the "
                     "controls",
                     "每次修改都是一次新的训练（从新的权重开始），按“训练”才开始；模型的形状在控制面板里"));
    ImGui::TreePop();
    if (changed)
        request_experiment(out, edit_recipe(a.model.exp, s));
}

// The probe row: its tokens, and under each the token it is trained to predict
// (lit where the loss counts it).
void sample_rows(const trainer& t, frame_out& out) {
    // A column per token, as wide as fits the panel (a symbol is one character).
    const float label = ImGui::CalcTextSize(tr("predicts", "预测")).x + ImGui::CalcTextSize("MM").x;
    const float fit = (visible_width() - label) / float(std::max<std::size_t>(t.probe_tokens.size(), 1));
    const float w = std::clamp(fit, ImGui::CalcTextSize("W").x + 2.0f, ImGui::CalcTextSize("MM").x);
    auto row = [&](const char* title, const std::vector<int>& v, bool lit_counted) {
        text_disabled(out, "%s", title);
        const float x0 = ImGui::GetCursorPosX() + label;
        for (std::size_t i = 0; i < v.size(); ++i) {
            ImGui::SameLine(x0 + w * float(i));
            const std::string sym = task_symbol(v[i]);
            if (lit_counted && t.probe_counted[i])
                text_colored(out, theme_highlight(), "%s", sym.c_str());
            else if (lit_counted)
                text_disabled(out, "%s", sym.c_str());
            else
                text_plain(out, sym.c_str());
        }
    };
    row(tr("input", "输入"), t.probe_tokens, false);
    row(tr("predicts", "预测"), t.probe_targets, true);
    text_disabled(
        out, "%s",
        tr("a row of the task (held out); the loss counts the lit predictions", "任务中的一行（留出集）；损失只计亮色的预测"));
}

void buttons(const app& a, frame_out& out, const trainer& t) {
    const int step = trainer_step(t), steps = a.model.exp.train.steps;
    // Pause while steps remain; the held-out measure that follows the last of them
    // (a few frames on a big model) is not training: Train shows again at once.
    const bool running = trainer_training(t);
    // Train and Pause are one item (one id): the keyboard's focus stays on it when it turns into the other.
    if (running) {
        if (ImGui::Button(tr("Pause###run", "暂停###run"))) {
            request_trained(a, out, step);
            if (out.request)
                out.request = change::paused(std::move(*out.request));  // the steps until it lands are kept
        }
        mark_widget(out, "train_pause");
    } else {
        ImGui::BeginDisabled(step >= steps || !t.error.empty());
        if (ImGui::Button(tr("Train###run", "训练###run")))
            request_trained(a, out, steps);
        ImGui::EndDisabled();
        mark_widget(out, "train_run");
    }
    ImGui::SameLine();
    // A stopped run cannot take the step after: its loss there is not finite.
    ImGui::BeginDisabled(running || step >= steps || trainer_stopped(t));
    if (ImGui::Button(tr("Step", "单步")))
        request_trained(a, out, step + 1);
    ImGui::EndDisabled();
    mark_widget(out, "train_step");
    ImGui::SameLine();
    ImGui::BeginDisabled(step == 0 && t.target == 0);
    if (ImGui::Button(tr("Reset", "重置")))
        request_trained(a, out, 0);
    ImGui::EndDisabled();
    mark_widget(out, "train_reset");
    ImGui::SameLine();
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "%s %d / %d%s", tr("step", "步"), step, steps,
                  a.model.run_elsewhere ? tr("  waiting…", "  等待中…")
                  : running             ? tr("  training…", "  训练中…")
                  : trainer_stopped(t)  ? tr("  stopped", "  已停止")
                  : !trainer_done(t)    ? tr("  measuring…", "  测量中…")
                                        : "");
    ImGui::ProgressBar(float(step) / float(std::max(steps, 1)), ImVec2(visible_width(), 0), overlay);
    mark_widget(out, "train_progress");
    // What trains stays in view: the lesson's card above grows (claims, a map)
    // around the loss's drop; the page scrolls by as much.
    keep_in_place("train_progress", running);
    note_clip(out, overlay);
    if (a.model.run_elsewhere) {  // web/runs.js [Runs]: one page of the site trains a recipe at a time
        ImGui::TextWrapped("%s", tr("Another tab or frame of this site is training this recipe: its run is "
                                    "taken here once it is stored, without training it twice.",
                                    "本站的另一个标签页或框架正在训练这个配方：它存好后这里直接取用，不再重复训练。"));
        mark_widget(out, "train_elsewhere");
    }
}

struct curve_box {
    ImVec2 p0, p1;
    float lo, hi;  // log10 of the loss range
    int steps;
    float x(float step) const { return p0.x + (p1.x - p0.x) * step / float(std::max(steps, 1)); }
    float y_loss(float loss) const {
        const float l = std::log10(std::max(loss, 1e-6f));
        return p1.y - (p1.y - p0.y) * (l - lo) / std::max(hi - lo, 1e-6f);
    }
    float y_acc(float acc) const { return p1.y - (p1.y - p0.y) * acc; }
};

curve_box curve_layout(const trainer& t, int steps, float height) {
    float lo = 1e30f, hi = -1e30f;
    for (const train_point& p : t.curve)
        if (std::isfinite(p.loss) && p.loss > 0) {
            lo = std::min(lo, p.loss);
            hi = std::max(hi, p.loss);
        }
    for (const trainer_mark& m : t.marks)
        if (std::isfinite(m.held_out.loss) && m.held_out.loss > 0) {
            lo = std::min(lo, m.held_out.loss);
            hi = std::max(hi, m.held_out.loss);
        }
    if (lo > hi)
        lo = 0.1f, hi = 10.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float font = ImGui::GetFontSize();
    const float left = ImGui::CalcTextSize("1.8e-06").x + font * 0.5f, right = ImGui::CalcTextSize("100%").x + font * 0.5f;
    const float w = std::max(visible_width(), font * 12.0f);
    return {ImVec2(p.x + left, p.y + font * 0.5f), ImVec2(p.x + w - right, p.y + height - font * 1.5f),
            std::floor(std::log10(lo) * 4.0f) / 4.0f, std::ceil(std::log10(hi) * 4.0f) / 4.0f + 1e-3f, steps};
}

// The curves: train loss (a line, log scale, left axis) and accuracy (right
// axis, 0–1), held-out loss and accuracy at the snapshots (dots), the current
// step and the phase change as vertical lines.
void curve_plot(const app& a, frame_out& out, const trainer& t) {
    const float font = ImGui::GetFontSize();
    const int steps = a.model.exp.train.steps;
    const curve_box b = curve_layout(t, steps, font * 9.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border), label = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 loss_c = IM_COL32(230, 120, 40, 255), acc_c = IM_COL32(60, 160, 230, 255);
    dl->AddRect(b.p0, b.p1, frame);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", double(std::pow(10.0f, b.hi)));
    dl->AddText(ImVec2(b.p0.x - ImGui::CalcTextSize(buf).x - 4, b.p0.y - font * 0.5f), loss_c, buf);
    std::snprintf(buf, sizeof buf, "%.2g", double(std::pow(10.0f, b.lo)));
    dl->AddText(ImVec2(b.p0.x - ImGui::CalcTextSize(buf).x - 4, b.p1.y - font * 0.5f), loss_c, buf);
    dl->AddText(ImVec2(b.p1.x + 4, b.p0.y - font * 0.5f), acc_c, "100%");
    dl->AddText(ImVec2(b.p1.x + 4, b.p1.y - font * 0.5f), acc_c, "0%");
    dl->AddText(ImVec2(b.p0.x, b.p1.y + 2), label, "0");
    std::snprintf(buf, sizeof buf, "%d", steps);
    dl->AddText(ImVec2(b.p1.x - ImGui::CalcTextSize(buf).x, b.p1.y + 2), label, buf);
    // At most one point per pixel column: the mean over the steps it covers.
    const int n = int(t.curve.size());
    const int per = std::max(1, int(float(n) / std::max(b.p1.x - b.p0.x, 1.0f) * float(steps) / float(std::max(n, 1))));
    std::vector<ImVec2> loss_line, smooth_line, acc_line;
    for (int i = 0; i < n; i += per) {
        float l = 0, c = 0;
        const int k = std::min(per, n - i);
        for (int j = i; j < i + k; ++j)
            l += t.curve[std::size_t(j)].loss, c += t.curve[std::size_t(j)].acc;
        const float x = b.x(float(i) + float(k) * 0.5f);
        loss_line.push_back(ImVec2(x, b.y_loss(l / float(k))));
        acc_line.push_back(ImVec2(x, b.y_acc(c / float(k))));
        if (std::size_t(i + k) <= t.smooth.size())  // the smoothed loss where the span ends
            smooth_line.push_back(ImVec2(x, b.y_loss(t.smooth[std::size_t(i + k - 1)])));
    }
    // Every step's loss thin and faint, the smoothed one bold over it: the drop reads as a drop.
    dl->AddPolyline(loss_line.data(), int(loss_line.size()), (loss_c & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 110), 0, 1.0f);
    dl->AddPolyline(smooth_line.data(), int(smooth_line.size()), loss_c, 0, 2.5f);
    dl->AddPolyline(acc_line.data(), int(acc_line.size()), acc_c, 0, 1.5f);
    for (const trainer_mark& m : t.marks) {
        dl->AddCircleFilled(ImVec2(b.x(float(m.step)), b.y_loss(m.held_out.loss)), 3.0f, loss_c);
        dl->AddCircle(ImVec2(b.x(float(m.step)), b.y_acc(m.held_out.acc)), 3.5f, acc_c);
    }
    if (const int phase = trainer_phase_step(t); phase >= 0) {
        const float x = b.x(float(phase));
        for (float y = b.p0.y; y < b.p1.y; y += 6.0f)
            dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 3.0f, b.p1.y)), ImGui::GetColorU32(theme_bad()));
        std::snprintf(buf, sizeof buf, "%s %d", tr("phase change @", "相变 @"), phase);
        // On a patch of the background: the curves pass under the label.
        const ImVec2 size = ImGui::CalcTextSize(buf), at(std::min(x + 3.0f, b.p1.x - size.x), b.p0.y + 2);
        dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                          ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f));
        dl->AddText(at, ImGui::GetColorU32(theme_bad()), buf);
    }
    const float xs = b.x(float(trainer_step(t)));
    dl->AddLine(ImVec2(xs, b.p0.y), ImVec2(xs, b.p1.y), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
    ImGui::Dummy(ImVec2(b.p1.x - ImGui::GetCursorScreenPos().x, font * 9.0f));
    mark_widget(out, "train_curve");
}

void curve_legend(frame_out& out, const trainer& t) {
    const int step = trainer_step(t);
    const ImVec4 loss_c(0.90f, 0.47f, 0.16f, 1.0f), acc_c(0.24f, 0.63f, 0.90f, 1.0f);
    if (const std::optional<train_point> last = trainer_last_point(t)) {
        const train_point& p = *last;
        text_colored(out, loss_c, "— %s %s (%s)", tr("train loss", "训练损失"), number_text(p.loss, "%.4f").c_str(),
                     tr("log scale; bold: smoothed", "对数刻度；粗线：平滑后"));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(tr("The faint line is every step's loss on its batch; the bold one smooths it (an exponential "
                                 "moving average of log(loss) over %d steps), so the plateau and the drop stand out.",
                                 "淡线是每一步在其批量上的损失；粗线是平滑后的（对 log(损失) 做 %d 步的指数滑动平均），"
                                 "平台和下降因此一目了然。"),
                              train_loss_ema_span(t.run ? t.run->e.train.steps : 0));
        ImGui::SameLine();
        text_colored(out, acc_c, "— %s %s", tr("train accuracy", "训练准确率"), number_text(p.acc * 100.0f, "%.1f%%").c_str());
    } else if (t.run) {  // step 0 (after Reset too): no batch trained on yet
        text_disabled(out, "— %s",
                      tr("train loss and accuracy: none yet (no step taken)", "训练损失与准确率：还没有（尚未训练一步）"));
    }
    if (!trainer_measured(t)) {  // the first measure not yet done: no number to show
        text_disabled(out, "● ○ %s", tr("held-out loss and accuracy: measuring…", "留出集损失与准确率：测量中…"));
    } else {
        text_colored(out, loss_c, "● %s %s", tr("held-out loss", "留出集损失"), number_text(t.now.held_out.loss, "%.4f").c_str());
        ImGui::SameLine();
        text_colored(out, acc_c, "○ %s %s", tr("held-out accuracy", "留出集准确率"),
                     number_text(t.now.held_out.acc * 100.0f, "%.1f%%").c_str());
        if (t.now.step != step) {  // while training: the latest snapshot's (the dots), not this step's
            ImGui::SameLine();
            text_disabled(out, "(%s %d%s)", tr("at step", "第"), t.now.step, tr("", " 步的"));
        }
    }
    text_disabled(out, "%s %d%s", tr("the solid line: step", "实线：第"), step, tr("", " 步"));
}

// Under the scrubber: a tick at each stop whose snapshot the run keeps (reached
// at once, back or forward), and how densely they lie.
void kept_marks(frame_out& out, const trainer& t, const std::vector<int>& stops) {
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    const float grab = ImGui::GetStyle().GrabMinSize, pad = ImGui::GetStyle().FramePadding.x;
    const float x0 = p0.x + pad + grab * 0.5f, x1 = std::max(x0, p1.x - pad - grab * 0.5f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 c = ImGui::GetColorU32(theme_highlight());
    for (std::size_t k = 0; k < stops.size(); ++k)
        if (trainer_kept(t, stops[k])) {
            const float x = stops.size() > 1 ? x0 + (x1 - x0) * float(k) / float(stops.size() - 1) : x0;
            dl->AddLine(ImVec2(x, p1.y - 3.0f), ImVec2(x, p1.y), c);
        }
    const trainer_kept_summary k = trainer_kept_spacing(t);
    if (k.every <= 1)
        text_disabled(
            out, tr("Every step up to %d is kept: scrubbing shows each at once.", "到第 %d 步为止每一步都保留着：拖动即刻显示。"),
            k.reach);
    else if (k.dense > 0)
        text_disabled(out,
                      tr("Kept (ticks): every %d steps up to step %d, and %d more where the loss fell fastest (steps "
                         "%d–%d); each shows at once. A step between them trains on from the kept one before.",
                         "保留的步（刻度）：每 %d 步一个，直到第 %d 步，另有 %d 个在损失降得最快处（第 %d–%d 步）；"
                         "拖到它们即刻显示。它们之间的步从前一个保留的步接着训练。"),
                      k.every, k.reach, k.dense, k.dense_first, k.dense_last);
    else
        text_disabled(
            out,
            tr("Kept (ticks): every %d steps up to step %d; each shows at once. A step between them trains on "
               "from the kept one before.",
               "保留的步（刻度）：每 %d 步一个，直到第 %d 步；拖到它们即刻显示。它们之间的步从前一个保留的步接着训练。"),
            k.every, k.reach);
}

// Over the run's snapshots: dragging shows the model at each stop, at once where
// the run keeps it (the Step button reaches the steps between).
void scrubber(const app& a, frame_out& out, const trainer& t) {
    const std::vector<int> kept = trainer_snapshot_steps(t);
    // A stopped run is where it stopped, not at the target it never reached.
    const int at = trainer_done(t) && !trainer_stopped(t) ? t.target : trainer_step(t);
    int k = 0;
    while (k + 1 < int(kept.size()) && kept[std::size_t(k + 1)] <= at)
        ++k;
    const char* label = tr("model at step", "模型所在步");
    char shown[64];
    if (trainer_stopped(t))
        std::snprintf(shown, sizeof shown, tr("%d (stopped)", "%d（已停止）"), at);
    else
        std::snprintf(shown, sizeof shown, "%d", at);
    ImGui::SetNextItemWidth(std::max(visible_width() - ImGui::CalcTextSize(label).x - ImGui::GetFontSize(), 80.0f));
    if (ImGui::SliderInt(label, &k, 0, int(kept.size()) - 1, shown, ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoInput))
        request_trained(a, out, kept[std::size_t(k)]);
    mark_slider(out, "train_scrub", label);
    kept_marks(out, t, kept);
}

// One of a head's scores (train/head_score.hpp), a mean over the held-out rows,
// as a bar with its value; what it measures on hover.
void score_bar(frame_out& out, const head_score_row& kind, float v, float width) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s %.2f", tr(kind.name), double(v));
    ImGui::ProgressBar(std::clamp(v, 0.0f, 1.0f), ImVec2(width, ImGui::GetTextLineHeight()), buf);
    note_clip(out, buf);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", head_score_sentence(kind, tr(", over the held-out rows.", "，在留出集各行上。")).c_str());
}

// The narrowest a head's column may be: its widest score bar's text fits.
float head_column_min(train_task task) {
    float widest = ImGui::CalcTextSize(tr("layer 0 · head 0", "层 0 · 头 0")).x;
    for (const head_score_row& k : head_score_table)
        if (head_score_shown(k.kind, task))
            widest = std::max(widest, ImGui::CalcTextSize((std::string(tr(k.name)) + " 0.00").c_str()).x);
    return widest + ImGui::GetStyle().FramePadding.x * 2.0f + ImGui::GetFontSize();
}

bool head_zeroed(const experiment& e, int layer, int head) {
    return std::any_of(e.ablate.begin(), e.ablate.end(),
                       [&](const ablated_head& z) { return z.layer == layer && z.head == head; });
}

void head_maps(const app& a, frame_out& out, const trainer& t) {
    const train_run& r = *t.run;
    const train_task task = r.e.train.task;
    const float font = ImGui::GetFontSize(), gap = ImGui::GetStyle().ItemSpacing.x;
    // As many heads per row as fit with their bars' text whole; the rest wrap.
    const float avail = visible_width();
    const int per_row = std::clamp(int((avail + gap) / (head_column_min(task) + gap)), 1, r.h);
    const float width = std::floor((avail - gap * float(per_row - 1)) / float(per_row));
    const float cell = std::max(2.0f, std::floor((width - font * 1.5f) / float(r.T)));
    for (int l = 0; l < r.L; ++l)
        for (int i = 0; i < r.h; ++i) {
            const std::size_t k = std::size_t(l * r.h + i);
            if (i % per_row != 0)
                ImGui::SameLine();
            ImGui::BeginGroup();
            const bool zeroed = head_zeroed(a.model.exp, l, i);
            textf(out, "%s %d · %s %d", tr("layer", "层"), l, tr("head", "头"), i);
            heatmap_options opt;
            opt.source = heatmap_source_of(t);
            opt.fixed_range = true;
            opt.lo = 0, opt.hi = 1;
            opt.show_legend = false;
            opt.show_values = false;  // too small for numbers: a tooltip gives the hovered cell's
            opt.hover_value = true;
            opt.veiled = zeroed;  // as the pipeline marks it: nothing of it reaches the output
            opt.cell = cell;
            opt.max_height = 1e6f;  // drawn whole: the panel scrolls, not the map
            opt.row_labels = opt.col_labels = &t.probe_symbols;
            char name[32];
            std::snprintf(name, sizeof name, "train_map_%d_%d", l, i);
            const heatmap_result res = heatmap_draw(*a.heatmaps, name, t.probe[k], opt);
            out.widgets.push_back({name, res.cells_x0, res.cells_y0, res.cells_x1, res.cells_y1, res.window});
            out.maps.push_back({name, res.cells, res.labelled, axes_queries_by_keys()});
            if (k < t.now.heads.size()) {
                for (const head_score_row& kind : head_score_table)
                    if (head_score_shown(kind.kind, task))
                        score_bar(out, kind, head_score_mean(t.now.heads[k], kind.kind), width);
            }
            ImGui::EndGroup();
        }
}

void task_effect_line(const app& a, frame_out& out) {
    if (a.model.exp.ablate.empty() || !a.model.ablated_task.valid)
        return;
    const task_effect& e = a.model.ablated_task;
    text_colored(out, theme_bad(), "%s %.1f%% → %.1f%%   %s %.3f → %.3f",
                 tr("zeroed heads on the task: accuracy", "置零这些头后的任务：准确率"), double(e.base.acc) * 100.0,
                 double(e.ablated.acc) * 100.0, tr("loss", "损失"), double(e.base.loss), double(e.ablated.loss));
    mark_widget(out, "train_task_effect");
}

}  // namespace

void train_head_map(const app& a, frame_out& out, int layer, int head, const char* name) {
    const trainer& t = a.model.train;
    if (!t.run || layer < 0 || head < 0 || layer >= t.run->L || head >= t.run->h)
        return;
    const std::size_t k = std::size_t(layer * t.run->h + head);
    if (k >= t.probe.size())
        return;
    const float font = ImGui::GetFontSize();
    const int n = std::max(t.run->T, 1);
    heatmap_options opt;
    opt.source = heatmap_source_of(t);
    opt.fixed_range = true;
    opt.lo = 0, opt.hi = 1;
    opt.show_legend = false;
    opt.show_values = false;  // a symbol's column, not a number's: the tooltip gives the hovered cell's
    opt.hover_value = true;
    opt.veiled = head_zeroed(a.model.exp, layer, head);
    // Cells a line of text tall, so the row's tokens label the rows and columns.
    opt.cell = std::clamp((visible_width() - font * 2.5f) / float(n), font * 0.86f, font * 0.95f);
    opt.row_labels = opt.col_labels = &t.probe_symbols;
    opt.axes = axes_queries_by_keys();
    opt.max_height = 1e6f;  // drawn whole: the panel scrolls, not the map (at most 64 rows)
    textf(out, "%s %d · %s %d %s", tr("layer", "层"), layer, tr("head", "头"), head,
          tr("on the held-out row (the Train panel's):", "在留出的那一行上（训练面板里的那一行）："));
    const heatmap_result res = heatmap_draw(*a.heatmaps, name, t.probe[k], opt);
    out.widgets.push_back({name, res.cells_x0, res.cells_y0, res.cells_x1, res.cells_y1, res.window});
    out.maps.push_back({name, res.cells, res.labelled, opt.axes});
    note_clip(out, name);
}

void panel_train(const app& a, frame_out& out) {
    if (a.model.exp.train.task == train_task::none)
        return;
    const trainer& t = a.model.train;
    section_text(out, tr("Train", "训练"));
    mark_widget(out, "train_title");
    if (t.lost)  // (t.error says the same in English, for the text view and tests)
        text_colored(out, theme_bad(),
                     tr("Training stopped at step %d: a worker thread stopped answering (a browser may end one). Reload "
                        "the page to train again.",
                        "训练在第 %d 步停止：一个工作线程不再响应（浏览器可能会结束它）。重新加载页面即可再次训练。"),
                     t.job_step);
    else if (!t.error.empty())
        text_colored(out, theme_bad(), "%s", t.error.c_str());
    if (!t.run)
        return;
    ImGui::PushID("train");
    settings_line(a, out);
    estimate_line(a, out, t);
    recipe_editor(a, out);
    sample_rows(t, out);
    buttons(a, out, t);
    curve_legend(out, t);
    curve_plot(a, out, t);
    scrubber(a, out, t);
    task_effect_line(a, out);
    text_disabled(out, "%s",
                  tr("each head's attention on the row above (hover a cell for its weight), and its scores on the held-out "
                     "rows (1 = all its weight there)",
                     "每个头在上面那一行上的注意力（悬停查看权重），以及它在留出集上的得分（1 = 全部权重都在那里）"));
    head_maps(a, out, t);
    ImGui::PopID();
    ImGui::Separator();
}

}  // namespace attn::ui
