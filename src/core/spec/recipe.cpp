// The recipe keys of the text form (recipe.hpp): format, parse, validate, each
// walking the recipe's rows of the key table (keys.hpp).
#include "spec/recipe.hpp"

#include "spec/keys.hpp"

namespace attn {

namespace {

bool is_recipe(const key_row& k) { return k.part == key_part::recipe; }

}  // namespace

std::string train_task_list() { return key_choice_list(key_of("train"), "none", false); }

std::string recipe_to_text(const train_settings& t) {
    if (t.task == train_task::none)
        return "";
    std::string s;
    for (const key_row& k : key_table())
        if (is_recipe(k) &&
            (std::string_view(k.name) != "trained" || (t.trained != train_settings::trained_all && t.trained != t.steps)))
            s += std::string("&") + k.name + "=" + key_write(k, t);
    return s;
}

bool recipe_parse_key(const std::string& key, const std::string& v, train_settings& t, std::string& problem) {
    problem.clear();
    const key_row* k = key_find(key, key_part::recipe);
    if (!k)
        return false;
    problem = key_read(*k, t, v);
    return true;
}

train_settings recipe_after_keys(const train_settings& t, const std::vector<std::pair<std::string, std::string>>& given) {
    train_settings out = t;
    if (t.task == train_task::none) {
        out = train_settings{};
        std::string problem;  // reported when the key was first read
        for (const auto& [key, value] : given)
            recipe_parse_key(key, value, out, problem);
    }
    if (out.trained == out.steps)
        out.trained = train_settings::trained_all;
    return out;
}

std::vector<std::string> recipe_problems(const train_settings& t) {
    std::vector<std::string> errors;
    auto err = [&errors](std::string m) { errors.push_back(std::move(m)); };
    // Ranges again, for an experiment built in code rather than parsed.
    for (const key_row& k : key_table())
        if (const std::string problem = is_recipe(k) ? key_check(k, t) : ""; !problem.empty())
            err(std::string(k.name) + " " + problem);
    if (t.trained > t.steps)
        err("trained must be at most steps (" + std::to_string(t.steps) + "), not " + std::to_string(t.trained));
    if (t.task == train_task::copy_offset && (t.offset < 1 || t.offset >= t.seq))
        err("offset must be between 1 and seq - 1 (" + std::to_string(t.seq - 1) + ")");
    if (constexpr int n = train_limits::min_induction_rows; t.task == train_task::induction && (t.vocab < n || t.seq < n))
        err("train=induction needs vocab >= " + std::to_string(n) + " and seq >= " + std::to_string(n) +
            " (a segment of distinct symbols, a prefix without them, the repeat)");
    return errors;
}

}  // namespace attn
