#include "llama/safetensors.hpp"

#include <algorithm>
#include <array>

#include "llama/json_checked.hpp"

namespace attn {

namespace {

using json = nlohmann::json;

struct dtype_row {
    const char* name;
    tensor_dtype dtype;
    std::size_t bytes;
};
// The types the format names (safetensors' Dtype), with their sizes.
constexpr std::array<dtype_row, 16> dtypes = {{
    {"F32", tensor_dtype::f32, 4},
    {"F16", tensor_dtype::f16, 2},
    {"BF16", tensor_dtype::bf16, 2},
    {"F64", tensor_dtype::other, 8},
    {"I64", tensor_dtype::other, 8},
    {"U64", tensor_dtype::other, 8},
    {"I32", tensor_dtype::other, 4},
    {"U32", tensor_dtype::other, 4},
    {"I16", tensor_dtype::other, 2},
    {"U16", tensor_dtype::other, 2},
    {"I8", tensor_dtype::other, 1},
    {"U8", tensor_dtype::other, 1},
    {"BOOL", tensor_dtype::other, 1},
    {"F8_E4M3", tensor_dtype::other, 1},
    {"F8_E5M2", tensor_dtype::other, 1},
    {"F8_E8M0", tensor_dtype::other, 1},
}};

std::string name_text(std::string_view name) {
    std::string s = "'" + std::string(name.substr(0, 80)) + (name.size() > 80 ? "…'" : "'");
    return s;
}

// A tensor's entry: {"dtype": …, "shape": […], "data_offsets": [begin, end]}.
std::optional<std::string> read_tensor(const std::string& name, const json& v, std::uint64_t data_bytes, safetensors_tensor& t) {
    const std::string who = "tensor " + name_text(name);
    if (name.empty() || name.size() > safetensors_limits::max_name)
        return "a tensor's name is empty or longer than " + std::to_string(safetensors_limits::max_name) + " bytes";
    if (!v.is_object())
        return who + " is not an object with dtype, shape and data_offsets";
    const std::string* dtype = json_string_at(v, "dtype");
    const json* shape = json_member(v, "shape");
    const json* offsets = json_member(v, "data_offsets");
    if (!dtype || !shape || !offsets)
        return who + " lacks " + (!dtype ? "its dtype (a string)" : !shape ? "its shape" : "its data_offsets");
    const auto row = std::find_if(dtypes.begin(), dtypes.end(), [&](const dtype_row& r) { return *dtype == r.name; });
    if (row == dtypes.end())
        return who + " has the dtype " + name_text(*dtype) + ", which the safetensors format does not name";
    t.name = name;
    t.dtype = row->dtype;
    t.dtype_name = row->name;
    t.element_bytes = row->bytes;
    if (!shape->is_array() || shape->size() > safetensors_limits::max_rank)
        return who + "'s shape is not a list of at most " + std::to_string(safetensors_limits::max_rank) + " sizes";
    std::uint64_t bytes = row->bytes;  // the product, checked against the file's bytes as it grows
    for (const json& d : *shape) {
        if (!d.is_number_unsigned())
            return who + "'s shape holds something other than whole sizes ≥ 0";
        const std::uint64_t n = d.get<std::uint64_t>();
        t.shape.push_back(n);
        if (n != 0 && bytes > data_bytes / n)
            bytes = data_bytes + 1;  // more than the file holds (and no overflow)
        else
            bytes *= n;
    }
    if (!offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned())
        return who + "'s data_offsets are not two whole numbers [begin, end]";
    const std::uint64_t begin = (*offsets)[0].get<std::uint64_t>(), end = (*offsets)[1].get<std::uint64_t>();
    if (begin > end || end > data_bytes)
        return who + "'s bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ") are not inside the file's " +
               std::to_string(data_bytes) + " bytes of tensors";
    if (end - begin != bytes)
        return who + " is " + row->name + " of shape " +
               [&] {
                   std::string s = "[";
                   for (std::size_t i = 0; i < t.shape.size(); ++i)
                       s += (i ? ", " : "") + std::to_string(t.shape[i]);
                   return s + "]";
               }() +
               " but spans " + std::to_string(end - begin) + " bytes";
    t.begin = begin;
    t.end = end;
    return std::nullopt;
}

// The tensors tile the data: sorted by their first byte, each starts where the
// one before ends, the first at 0 and the last at the end of the file.
std::optional<std::string> check_tiling(std::vector<safetensors_tensor> by_place, std::uint64_t data_bytes) {
    std::sort(by_place.begin(), by_place.end(), [](const safetensors_tensor& a, const safetensors_tensor& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::uint64_t at = 0;
    std::string before = "the header";
    for (const safetensors_tensor& t : by_place) {
        if (t.begin < at)
            return "tensors " + name_text(before) + " and " + name_text(t.name) + " overlap";
        if (t.begin > at)
            return "the bytes [" + std::to_string(at) + ", " + std::to_string(t.begin) + ") after " +
                   (before == "the header" ? before : name_text(before)) + " belong to no tensor";
        at = t.end;
        before = t.name;
    }
    if (at != data_bytes)
        return "the file's last " + std::to_string(data_bytes - at) + " bytes belong to no tensor";
    return std::nullopt;
}

}  // namespace

std::uint64_t safetensors_tensor::elements() const {
    std::uint64_t n = 1;
    for (const std::uint64_t d : shape)
        n *= d;
    return n;
}

std::uint64_t safetensors_header_bytes(const unsigned char* bytes, std::size_t have) {
    if (have < 8)
        return 0;
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | bytes[i];
    return n > safetensors_limits::max_header ? 0 : 8 + n;
}

std::optional<std::string> safetensors_read(const unsigned char* bytes, std::size_t have, std::uint64_t file_size,
                                            safetensors_file& out) {
    out = {};
    if (file_size < 8 || have < 8)
        return std::string("it is shorter than the 8 bytes of a safetensors header's length");
    const std::uint64_t header = safetensors_header_bytes(bytes, have);
    if (header == 0)
        return "its header would be over " + std::to_string(safetensors_limits::max_header >> 20) +
               " MB: it is no safetensors file";
    if (header > file_size)
        return "its header needs " + std::to_string(header) + " bytes, more than the file's " + std::to_string(file_size);
    if (header > have)
        return "its header needs its first " + std::to_string(header) + " bytes, and only " + std::to_string(have) + " were read";
    const std::string_view text(reinterpret_cast<const char*>(bytes) + 8, std::size_t(header - 8));
    if (text.empty() || text.front() != '{')
        return std::string("its header does not start with '{': it is no safetensors file");
    json j;
    if (auto why = json_parse_checked(text, j, 8))
        return "its header: " + *why;
    if (!j.is_object())
        return std::string("its header is not one JSON object");
    const std::uint64_t data_bytes = file_size - header;
    safetensors_file f;
    f.data_begin = header;
    for (const auto& [name, v] : j.items()) {
        if (name == "__metadata__") {
            if (!v.is_object())
                return std::string("its __metadata__ is not an object of strings");
            for (const auto& [k, s] : v.items()) {
                if (!s.is_string())
                    return "its __metadata__ " + name_text(k) + " is not a string";
                f.metadata.emplace_back(k, s.get<std::string>());
            }
            continue;
        }
        safetensors_tensor t;
        if (auto why = read_tensor(name, v, data_bytes, t))
            return *why;
        f.tensors.push_back(std::move(t));
    }
    if (auto why = check_tiling(f.tensors, data_bytes))
        return why;
    for (safetensors_tensor& t : f.tensors)
        t.begin += header, t.end += header;
    std::sort(f.tensors.begin(), f.tensors.end(),
              [](const safetensors_tensor& a, const safetensors_tensor& b) { return a.name < b.name; });
    out = std::move(f);
    return std::nullopt;
}

const safetensors_tensor* safetensors_find(const safetensors_file& f, std::string_view name) {
    const auto it = std::lower_bound(f.tensors.begin(), f.tensors.end(), name,
                                     [](const safetensors_tensor& t, std::string_view n) { return t.name < n; });
    return it != f.tensors.end() && it->name == name ? &*it : nullptr;
}

std::optional<std::string> safetensors_index_read(std::string_view text, safetensors_index& out) {
    out = {};
    json j;
    if (auto why = json_parse_checked(text, j, 8))
        return "model.safetensors.index.json: " + *why;
    const json* map = json_member(j, "weight_map");
    if (!map || !map->is_object())
        return std::string("model.safetensors.index.json has no weight_map object");
    safetensors_index x;
    for (const auto& [name, file] : map->items()) {
        if (!file.is_string())
            return "model.safetensors.index.json: the file of " + name_text(name) + " is not a string";
        const std::string& f = file.get_ref<const std::string&>();
        if (f.empty() || f.size() > 255 || f == "." || f == ".." || f.find_first_of("/\\") != std::string::npos)
            return "model.safetensors.index.json names " + name_text(f) + ", which is not a file's name in the folder";
        x.weight_map.emplace_back(name, f);
        if (std::find(x.files.begin(), x.files.end(), f) == x.files.end())
            x.files.push_back(f);
    }
    if (x.weight_map.empty())
        return std::string("model.safetensors.index.json's weight_map names no tensor");
    out = std::move(x);  // nlohmann's objects iterate sorted by name: weight_map is sorted
    return std::nullopt;
}

}  // namespace attn
