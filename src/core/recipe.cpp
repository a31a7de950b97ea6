// The recipe keys of the text form (recipe.hpp): format, parse, validate.
#include "recipe.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "experiment.hpp"
#include "text_util.hpp"

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
    return end == s.c_str() + s.size() && std::isfinite(out);
}

// The shortest %g form that reads back to exactly x.
std::string write_float(float x) {
    char buf[48];
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
    auto put = [&s](const char* key, const std::string& value) { s += std::string("&") + key + "=" + value; };
    put("train", train_task_name(t.task));
    put("steps", std::to_string(t.steps));
    put("lr", write_float(t.lr));
    put("batch", std::to_string(t.batch));
    put("seq", std::to_string(t.seq));
    put("vocab", std::to_string(t.vocab));
    put("train_seed", std::to_string(t.train_seed));
    put("warmup", std::to_string(t.warmup));
    put("wd", write_float(t.wd));
    put("clip", write_float(t.clip));
    put("sched", t.sched == lr_schedule::constant ? "const" : "cosine");
    put("offset", std::to_string(t.offset));
    return s;
}

bool recipe_parse_key(const std::string& key, const std::string& v, train_settings& t, std::string& problem) {
    using L = train_limits;
    long long x = 0;
    problem.clear();
    auto as_int = [&](int& field, long long lo, long long hi) {
        problem = int_problem(v, x, lo, hi);
        if (problem.empty())
            field = int(x);
    };
    if (key == "train") {
        bool found = false;
        for (const auto& n : task_names)
            if (v == n.name) {
                t.task = n.task;
                found = true;
            }
        if (!found)
            problem = "must be 'none', 'induction', 'copy_offset', 'reverse', 'sort' or 'previous', not " + quoted(v);
    } else if (key == "steps") {
        as_int(t.steps, 0, L::max_steps);
    } else if (key == "lr") {
        problem = float_problem(v, t.lr, 0.0f, L::max_lr);
    } else if (key == "batch") {
        as_int(t.batch, 1, L::max_batch);
    } else if (key == "seq") {
        as_int(t.seq, L::min_seq, L::max_seq);
    } else if (key == "vocab") {
        as_int(t.vocab, L::min_vocab, L::max_vocab);
    } else if (key == "train_seed") {
        problem = int_problem(v, x, 0, 4294967295ll);
        if (problem.empty())
            t.train_seed = std::uint32_t(x);
    } else if (key == "warmup") {
        as_int(t.warmup, 0, L::max_steps);
    } else if (key == "wd") {
        problem = float_problem(v, t.wd, 0.0f, 1.0f);
    } else if (key == "clip") {
        problem = float_problem(v, t.clip, 0.0f, 1e6f);
    } else if (key == "sched") {
        if (v == "const" || v == "cosine")
            t.sched = v == "const" ? lr_schedule::constant : lr_schedule::cosine;
        else
            problem = "must be 'const' or 'cosine', not " + quoted(v);
    } else if (key == "offset") {
        as_int(t.offset, 1, L::max_seq - 1);
    } else {
        return false;
    }
    return true;
}

std::vector<std::string> recipe_validate(const experiment& e) {
    std::vector<std::string> errors;
    const train_settings& t = e.train;
    if (t.task == train_task::none) {
        if (e.pos == positional::learned)
            errors.push_back("pos=learned needs a training recipe (train=induction, ...): learned positions come from training");
        if (!(t == train_settings{}))
            errors.push_back("training keys (steps, lr, ...) need train=<task>");
        return errors;
    }
    auto err = [&errors](std::string m) { errors.push_back(std::move(m)); };
    using L = train_limits;
    // Ranges again, for an experiment built in code rather than parsed.
    if (t.steps < 0 || t.steps > L::max_steps)
        err("steps must be between 0 and " + std::to_string(L::max_steps));
    if (!(std::isfinite(t.lr) && t.lr >= 0.0f && t.lr <= L::max_lr))
        err("lr must be a number between 0 and " + write_float(L::max_lr));
    if (t.batch < 1 || t.batch > L::max_batch)
        err("batch must be between 1 and " + std::to_string(L::max_batch));
    if (t.seq < L::min_seq || t.seq > L::max_seq)
        err("seq must be between " + std::to_string(L::min_seq) + " and " + std::to_string(L::max_seq));
    if (t.vocab < L::min_vocab || t.vocab > L::max_vocab)
        err("vocab must be between " + std::to_string(L::min_vocab) + " and " + std::to_string(L::max_vocab));
    if (t.warmup < 0 || t.warmup > L::max_steps)
        err("warmup must be between 0 and " + std::to_string(L::max_steps));
    if (!(std::isfinite(t.wd) && t.wd >= 0.0f && t.wd <= 1.0f))
        err("wd must be between 0 and 1");
    if (!(std::isfinite(t.clip) && t.clip >= 0.0f))
        err("clip must be 0 (off) or a positive number");
    if (t.task == train_task::copy_offset && (t.offset < 1 || t.offset >= t.seq))
        err("offset must be between 1 and seq - 1 (" + std::to_string(t.seq - 1) + ")");
    if (t.task == train_task::induction && (t.vocab < 8 || t.seq < 8))
        err("train=induction needs vocab >= 8 and seq >= 8 (a segment of distinct symbols, a prefix without them, the repeat)");
    if (e.weights != weight_init::random)
        err("training starts from weights=random");
    return errors;
}

}  // namespace attn
