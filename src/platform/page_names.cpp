// page_names: writes the built site's lesson-names.js (web/posters.js imports it) from the
// app's own tables, so the page's posters (drawn before the app exists) name the
// lessons and stages as the app does, with no copy to keep in step:
//
//   page_names <file>   the stages' names (src/ui/view/stages.cpp), the default
//                       sentence and stage, and each lesson's id, title, sentence
//                       and first stage (src/core/play/lesson_preset.cpp)
//
// The web preset's build runs it under Node after every change
// to those tables; web/posters.js imports the module.
#include <cstdio>
#include <string>

#include "base/text_util.hpp"
#include "look/i18n.hpp"
#include "model/stage.hpp"
#include "play/lesson_preset.hpp"
#include "spec/experiment.hpp"
#include "view/stages.hpp"

namespace {

std::string module_text() {
    using namespace attn;
    ui::ui_set_language(ui::language::en);
    std::string s =
        "// Written by the build (src/platform/page_names.cpp) from the app's tables: the stages' names\n"
        "// (src/ui/view/stages.cpp) and the lessons' (src/core/play/lesson_preset.cpp). The posters\n"
        "// (posters.js) read it before the app exists; the page hands it to tests as attnShell.posterNames.\n"
        "export const lessonNames = {\n  stages: [";
    for (int i = 0; i < stage_count; ++i)
        s += (i ? ", " : "") + json_string(ui::stage_name(stage(i)));
    s += "],\n  defaultStage: " + std::to_string(int(stage_default)) + ",\n";
    s += "  defaultText: " + json_string(experiment{}.text) + ",\n  lessons: [\n";
    for (int l = 1; l <= lesson_count; ++l) {
        const lesson_preset& p = *lesson_preset_find(l);
        s += "    { id: " + json_string(p.id) + ", title: " + json_string(p.title.en) +
             ", text: " + json_string(lesson_experiment(l).text) + ", stage: " + std::to_string(int(p.opens_on)) + " },\n";
    }
    return s + "  ],\n};\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: page_names <file to write>\n");
        return 2;
    }
    const std::string text = module_text();
    std::FILE* f = std::fopen(argv[1], "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "page_names: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
