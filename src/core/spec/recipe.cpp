// The recipe keys of the text form (recipe.hpp): format, parse, validate.
#include "spec/recipe.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "base/text_util.hpp"
#include "base/tokenize.hpp"

namespace attn {

namespace {

struct task_name {
    train_task task;
    const char* name;
};
constexpr task_name task_names[] = {
    {train_task::none, "none"},       {train_task::induction, "induction"}, {train_task::copy_offset, "copy_offset"},
    {train_task::reverse, "reverse"}, {train_task::sort, "sort"},           {train_task::previous, "previous"}};

bool read_int(const std::string& s, long long& out) {
    if (s.empty() || s.size() > 12)
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

// Decimal and exponent forms only; "nan" and "inf" are not numbers here.
bool read_float(const std::string& s, float& out) {
    if (s.empty() || s.size() > 32)
        return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
            return false;
    char* end = nullptr;
    out = std::strtof(s.c_str(), &end);
    if (out == 0.0f)
        out = 0.0f;  // "-0" is 0: one canonical text
    return end == s.c_str() + s.size() && std::isfinite(out);
}

// The shortest %g form that reads back to exactly x.
std::string write_float(float x) {
    char buf[48];
    if (x == 0.0f)
        return "0";  // never "-0"
    if (x == std::floor(x) && std::fabs(x) < 1e9f) {
        std::snprintf(buf, sizeof buf, "%.0f", double(x));
        return buf;
    }
    for (int prec = 1; prec <= 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, double(x));
        if (std::strtof(buf, nullptr) == x)
            break;
    }
    return buf;
}

std::string int_problem(const std::string& v, long long& x, long long lo, long long hi) {
    if (!read_int(v, x))
        return "must be a whole number, not " + quoted(v);
    if (x < lo || x > hi)
        return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", not " + v;
    return "";
}

std::string float_problem(const std::string& v, float& x, float lo, float hi) {
    if (!read_float(v, x))
        return "must be a finite number, not " + quoted(v);
    if (!(x >= lo && x <= hi))
        return "must be between " + write_float(lo) + " and " + write_float(hi) + ", not " + v;
    return "";
}

// [SECTION] the recipe's keys: one table drives the parser, the writer and the range checks

// A recipe key: how its text is read into the settings (returns "" or what is
// wrong with it), how it is written, and what is wrong with a value built in
// code rather than parsed ("" when nothing).
struct recipe_field {
    const char* key;
    std::function<std::string(train_settings&, const std::string&)> parse;
    std::function<std::string(const train_settings&)> format;
    std::function<std::string(const train_settings&)> check;
};

template <class Int>
recipe_field int_field(const char* key, Int train_settings::*field, long long lo, long long hi) {
    return {key,
            [field, lo, hi](train_settings& t, const std::string& v) {
                long long x = 0;
                std::string problem = int_problem(v, x, lo, hi);
                if (problem.empty())
                    t.*field = Int(x);
                return problem;
            },
            [field](const train_settings& t) { return std::to_string(t.*field); },
            [field, lo, hi](const train_settings& t) {
                const long long x = t.*field;
                return x >= lo && x <= hi ? std::string()
                                          : "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
            }};
}

recipe_field float_field(const char* key, float train_settings::*field, float lo, float hi) {
    return {key, [field, lo, hi](train_settings& t, const std::string& v) { return float_problem(v, t.*field, lo, hi); },
            [field](const train_settings& t) { return write_float(t.*field); },
            [field, lo, hi](const train_settings& t) {
                const float x = t.*field;
                return std::isfinite(x) && x >= lo && x <= hi
                           ? std::string()
                           : "must be a number between " + write_float(lo) + " and " + write_float(hi);
            }};
}

const std::vector<recipe_field>& recipe_fields() {
    using L = train_limits;
    using t = train_settings;
    static const std::vector<recipe_field> fields = {
        {"train",
         [](train_settings& s, const std::string& v) -> std::string {
             for (const auto& n : task_names)
                 if (v == n.name) {
                     s.task = n.task;  // train=none drops a base's recipe: experiment_parse, after every key
                     return "";
                 }
             return "must be 'none', 'induction', 'copy_offset', 'reverse', 'sort' or 'previous', not " + quoted(v);
         },
         [](const train_settings& s) -> std::string { return train_task_name(s.task); },
         [](const train_settings&) { return std::string(); }},
        int_field("steps", &t::steps, 0, L::max_steps),
        float_field("lr", &t::lr, 0.0f, L::max_lr),
        int_field("batch", &t::batch, 1, L::max_batch),
        int_field("seq", &t::seq, L::min_seq, L::max_seq),
        int_field("vocab", &t::vocab, L::min_vocab, L::max_vocab),
        int_field("train_seed", &t::train_seed, 0, 4294967295ll),
        int_field("warmup", &t::warmup, 0, L::max_steps),
        float_field("wd", &t::wd, 0.0f, 1.0f),
        float_field("clip", &t::clip, 0.0f, 1e6f),  // 0 turns it off
        {"sched",
         [](train_settings& s, const std::string& v) -> std::string {
             if (v != "const" && v != "cosine")
                 return "must be 'const' or 'cosine', not " + quoted(v);
             s.sched = v == "const" ? lr_schedule::constant : lr_schedule::cosine;
             return "";
         },
         [](const train_settings& s) -> std::string { return s.sched == lr_schedule::constant ? "const" : "cosine"; },
         [](const train_settings&) { return std::string(); }},
        // Its relation to seq is checked by recipe_validate.
        int_field("offset", &t::offset, 1, L::max_seq - 1),
        // Written only when it is not trained_all; its relation to steps is checked by recipe_validate.
        {"trained",
         [](train_settings& s, const std::string& v) {
             long long x = 0;
             std::string problem = int_problem(v, x, 0, L::max_steps);
             if (problem.empty())
                 s.trained = int(x);
             return problem;
         },
         [](const train_settings& s) { return std::to_string(s.trained); },
         [](const train_settings& s) {
             return s.trained == train_settings::trained_all || (s.trained >= 0 && s.trained <= L::max_steps)
                        ? std::string()
                        : "must be between 0 and " + std::to_string(L::max_steps);
         }},
    };
    return fields;
}

}  // namespace

const char* train_task_name(train_task t) {
    for (const auto& n : task_names)
        if (n.task == t)
            return n.name;
    return "?";
}

std::string recipe_to_text(const train_settings& t) {
    if (t.task == train_task::none)
        return "";
    std::string s;
    for (const recipe_field& f : recipe_fields())
        if (std::string_view(f.key) != "trained" || (t.trained != train_settings::trained_all && t.trained != t.steps))
            s += std::string("&") + f.key + "=" + f.format(t);
    return s;
}

bool recipe_parse_key(const std::string& key, const std::string& v, train_settings& t, std::string& problem) {
    problem.clear();
    for (const recipe_field& f : recipe_fields())
        if (key == f.key) {
            problem = f.parse(t, v);
            return true;
        }
    return false;
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
    for (const recipe_field& f : recipe_fields())
        if (const std::string problem = f.check(t); !problem.empty())
            err(std::string(f.key) + " " + problem);
    if (t.trained > t.steps)
        err("trained must be at most steps (" + std::to_string(t.steps) + "), not " + std::to_string(t.trained));
    if (t.task == train_task::copy_offset && (t.offset < 1 || t.offset >= t.seq))
        err("offset must be between 1 and seq - 1 (" + std::to_string(t.seq - 1) + ")");
    if (t.task == train_task::induction && (t.vocab < 8 || t.seq < 8))
        err("train=induction needs vocab >= 8 and seq >= 8 (a segment of distinct symbols, a prefix without them, the repeat)");
    return errors;
}

}  // namespace attn
