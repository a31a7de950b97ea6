// JSON from a file a person hands over (a safetensors header, config.json,
// tokenizer.json), parsed by nlohmann/json without exceptions and checked as a
// hostile file would be: a message with the byte where the text stops being
// JSON, a name given twice in one object (JSON leaves it open; the files these
// come from never do it, and reading one of the two silently would compute
// another model), nesting deeper than `max_depth`.
//
//   nlohmann::json j;
//   if (auto why = json_parse_checked(text, j)) return "config.json: " + *why;
//   if (const std::string* s = json_string_at(j, "model_type")) …
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attn {

std::optional<std::string> json_parse_checked(std::string_view text, nlohmann::json& out, int max_depth = 64);

// A member of an object, when it is there and of that type (nullptr otherwise);
// none of these throws.
const nlohmann::json* json_member(const nlohmann::json& object, std::string_view name);
const std::string* json_string_at(const nlohmann::json& object, std::string_view name);
std::optional<std::uint64_t> json_unsigned_at(const nlohmann::json& object, std::string_view name);
std::optional<double> json_number_at(const nlohmann::json& object, std::string_view name);
std::optional<bool> json_bool_at(const nlohmann::json& object, std::string_view name);

}  // namespace attn
