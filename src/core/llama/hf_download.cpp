// How far the page reads each file of a folder it downloads (hf_download.hpp).
#include "llama/hf_download.hpp"

#include <algorithm>
#include <string_view>

#include "llama/hf_folder.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/json_checked.hpp"
#include "llama/safetensors.hpp"

namespace attn {

namespace {

bool ends_with(std::string_view s, std::string_view end) {
    return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// A safetensors file's length as its header says: 8 + N + the largest end of a
// tensor's data_offsets (the tensors tile the data, which safetensors_read checks).
hf_download_limit safetensors_limit(const std::string& name, const unsigned char* head, std::size_t have) {
    hf_download_limit out;
    if (have < 8) {
        out.need = 8;
        return out;
    }
    const std::uint64_t header = safetensors_header_bytes(head, have);
    if (header == 0) {
        out.error = name + ": its header would be over " + std::to_string(safetensors_limits::max_header >> 20) +
                    " MB: it is no safetensors file";
        return out;
    }
    if (have < header) {
        out.need = header;
        return out;
    }
    nlohmann::json j;
    const std::string_view text(reinterpret_cast<const char*>(head) + 8, std::size_t(header - 8));
    std::uint64_t end = 0;
    if (!json_parse_checked(text, j, 8) && j.is_object())
        for (const auto& [key, v] : j.items()) {
            const nlohmann::json* offsets = v.is_object() ? json_member(v, "data_offsets") : nullptr;
            if (key != "__metadata__" && offsets && offsets->is_array() && offsets->size() == 2 &&
                (*offsets)[1].is_number_unsigned())
                end = std::max(end, (*offsets)[1].get<std::uint64_t>());
        }
    safetensors_file f;  // the whole header checked as the reading will check it, with that length
    if (auto why = safetensors_read(head, have, header + end, f)) {
        out.error = name + ": " + *why;
        return out;
    }
    out.bytes = header + end;
    return out;
}

}  // namespace

hf_download_limit hf_download_limit_of(const std::string& name, const unsigned char* head, std::size_t have) {
    hf_download_limit out;
    if (name == hf_config_file)
        out.bytes = hf_download_config_bytes;
    else if (name == hf_index_file)
        out.bytes = hf_download_index_bytes;
    else if (name == hf_tokenizer_file)
        out.bytes = hf_tokenizer_max_bytes;
    else if (ends_with(name, ".safetensors"))
        return safetensors_limit(name, head, have);
    else
        out.error = name +
                    " is no file of a Hugging Face folder (config.json, tokenizer.json, *.safetensors, "
                    "model.safetensors.index.json)";
    return out;
}

}  // namespace attn
