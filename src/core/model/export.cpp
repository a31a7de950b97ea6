#include "model/export.hpp"

#include <cmath>
#include <cstdio>

namespace attn {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

namespace {

std::string label(const std::vector<std::string>* labels, int i) {
    if (labels && std::size_t(i) < labels->size())
        return csv_field((*labels)[std::size_t(i)]);
    return std::to_string(i);
}

}  // namespace

void export_append_float(std::string& out, float x) {
    if (std::isnan(x)) {
        out += "nan";
    } else if (std::isinf(x)) {
        out += x > 0 ? "inf" : "-inf";
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", double(x));
        out += buf;
    }
}

std::string matrix_to_csv(const matrix& m, const std::vector<std::string>* row_labels,
                          const std::vector<std::string>* col_labels) {
    std::string out;
    for (int c = 0; c < m.cols; ++c)
        out += "," + label(col_labels, c);
    out += "\n";
    for (int r = 0; r < m.rows; ++r) {
        out += label(row_labels, r);
        for (int c = 0; c < m.cols; ++c) {
            out += ',';
            export_append_float(out, m(r, c));
        }
        out += "\n";
    }
    return out;
}

}  // namespace attn
