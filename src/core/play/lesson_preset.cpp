#include "play/lesson_preset.hpp"

#include "spec/experiment.hpp"
#include "spec/link_codec.hpp"
#include "spec/recipe.hpp"

namespace attn {

static_assert(link_view_limits::max_lesson == lesson_count, "a link opens every lesson, and no other");

namespace {

constexpr lesson_preset presets[lesson_count] = {
    {"L1", "v=1&text=the%20cat%20chased%20the%20dog&d_model=8&heads=1&mask=causal", stage::weights},
    {"L2", "v=1&text=the%20cat%20chased%20the%20dog&d_model=64&heads=1&mask=causal", stage::scaled},
    {"L3", "v=1&text=the%20cat%20sat%20on%20the%20warm%20mat&d_model=16&heads=2&pos=rope&weights=specialised&mask=causal",
     stage::weights},
    {"L4", "v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&d_model=8&heads=1&mask=none", stage::weights},
    {"L5", "v=1&text=one%20two%20three%20four%20five%20six%20seven%20eight&d_model=16&heads=4&kv_heads=2&mask=causal&decode=4",
     stage::weights},
    {"L6", "v=1&text=the%20cat%20chased%20the%20dog&mask=causal", stage::projections},
    {"L7", "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&layers=2&block=full&mask=causal", stage::weights},
    {"L8", "v=1&text=the%20cat%20chased%20the%20dog&d_model=16&heads=2&mask=causal&precision=fp16&scale=4", stage::weights},
    {"L9", recipe_lesson_induction, stage::weights, true},
    {"L10", recipe_lesson_copy_offset, stage::weights, true},
    // L11 and L12 read L9's model trained to the end: opening them trains it when
    // this page has no run of it yet (a kept run at its end is found at once).
    {"L11", recipe_lesson_induction, stage::output},
    {"L12", recipe_lesson_induction, stage::weights},
    // L13 reads a real model (the Model window's) on a text that repeats; the
    // pipeline shows this text in the playground's own small model meanwhile.
    {"L13", "v=1&text=Once%20upon%20a%20time%20there%20was%20a%20cat.%20Once%20upon%20a%20time&mask=causal", stage::weights},
};

}  // namespace

const lesson_preset* lesson_preset_find(int lesson) {
    return lesson >= 1 && lesson <= lesson_count ? &presets[lesson - 1] : nullptr;
}

experiment lesson_experiment(int lesson) {
    const lesson_preset* p = lesson_preset_find(lesson);
    if (!p)
        return experiment{};
    auto parsed = experiment_parse(p->text);
    if (!parsed.value)
        return experiment{};
    if (p->untrained)
        parsed.value->train.trained = 0;
    return *parsed.value;
}

std::string lesson_link(int lesson) {
    const lesson_preset* p = lesson_preset_find(lesson);
    return "v=1&view.lesson=" + std::to_string(lesson) + (p && p->untrained ? "&trained=0" : "");
}

const std::array<std::string_view, 3>& lesson7_models() {
    static constexpr std::array<std::string_view, 3> models = {
        "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&layers=2&block=full&mask=causal",
        "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&weights=cancel&mask=causal",
        "v=1&text=%3Cs%3E%20the%20cat%20chased%20the%20dog&d_model=16&heads=4&weights=sink&mask=causal",
    };
    return models;
}

}  // namespace attn
