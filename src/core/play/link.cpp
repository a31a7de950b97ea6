// A whole link, opened from the experiment of the lesson it names (link.hpp).
#include "play/link.hpp"

#include "base/text_util.hpp"
#include "base/tokenize.hpp"
#include "model/stage.hpp"
#include "play/lesson_preset.hpp"

namespace attn {

std::string link_encode(const experiment& e) { return link_encode(e, link_view{}); }

std::string link_encode(const experiment& e, const link_view& v) { return link_encode(e, v, std::nullopt); }

std::string link_encode(const experiment& e, const link_view& v, const std::optional<experiment>& pin) {
    std::string s = experiment_to_text(e);
    // The text form writes no recipe keys without a task; a lesson with a recipe would lend its own (link_parse_from).
    if (v.lesson >= 1 && e.train.task == train_task::none && lesson_experiment(v.lesson).train.task != train_task::none)
        s += "&train=none";
    s = link_shorten(std::move(s));
    if (pin)
        s += "&pin=" + link_base64url_encode(link_compress(experiment_to_text(*pin)));
    return s + link_view_to_text(v);
}

link_parse_result link_parse(std::string_view link) {
    link_parts parts = link_split(link);
    link_parse_result r;
    auto& errors = parts.errors;
    const link_view& view = parts.view;
    if (parts.text) {
        // A lesson's link starts from the lesson's experiment: its keys override only what they name.
        const experiment base = view.lesson >= 1 ? lesson_experiment(view.lesson) : experiment{};
        auto parsed = link_parse_from(*parts.text, base);
        for (auto& m : parsed.errors)
            errors.push_back(std::move(m));
        if (parsed.value && view.row >= 0) {
            const int n = int(tokenize(parsed.value->text).size());
            if (view.row >= n)
                errors.push_back("view.row " + std::to_string(view.row) + " is past the last token (the text has " +
                                 std::to_string(n) + ")");
        }
        // A real model's pipeline (view.model_pipeline) has every stage: the model's block is a full one.
        if (parsed.value && view.stage >= 0 && !view.model_pipeline && !stage_applies(stage(view.stage), *parsed.value))
            errors.push_back("view.stage " + std::to_string(view.stage) + ": " +
                             stage_missing_reason(stage(view.stage), *parsed.value));
        if (parts.pin_twice)
            errors.push_back("pin is given twice");
        else if (parts.pin)
            r.pin = link_parse_pin(*parts.pin, errors);
        if (errors.empty()) {
            r.value = std::move(parsed.value);
            r.view = view;
        } else {
            r.pin.reset();
        }
    }
    errors_tidy(errors);
    r.errors = std::move(errors);
    return r;
}

experiment_parse_result link_decode(std::string_view link) {
    auto parsed = link_parse(link);
    return {std::move(parsed.value), std::move(parsed.errors)};
}

}  // namespace attn
