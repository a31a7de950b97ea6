// Small text helpers shared by the parsers of the experiment and of links.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attn {

// s in single quotes for an error message, cut to 40 bytes ("'abc...'").
inline std::string quoted(std::string_view s) {
    std::string out = "'";
    out.append(s.substr(0, 40));
    if (s.size() > 40)
        out += "...";
    return out + "'";
}

// The pieces of s between separators; an empty s has none ("a,,b" has three).
inline std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    if (s.empty())
        return out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t next = s.find(sep, pos);
        out.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (next == std::string_view::npos)
            return out;
        pos = next + 1;
    }
}

}  // namespace attn
