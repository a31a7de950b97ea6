// A dense row-major float matrix: the one container the core computes with.
// Shapes are written (rows, cols) throughout the core.
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

struct matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data;

    matrix() = default;
    matrix(int r, int c, float fill = 0.0f) : rows(r), cols(c), data(std::size_t(r) * std::size_t(c), fill) {}

    float& operator()(int r, int c) { return data[std::size_t(r) * std::size_t(cols) + std::size_t(c)]; }
    float operator()(int r, int c) const { return data[std::size_t(r) * std::size_t(cols) + std::size_t(c)]; }
    float* row(int r) { return data.data() + std::size_t(r) * std::size_t(cols); }
    const float* row(int r) const { return data.data() + std::size_t(r) * std::size_t(cols); }
    std::size_t size() const { return data.size(); }
    bool empty() const { return data.empty(); }
};

}  // namespace attn
