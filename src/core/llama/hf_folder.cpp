#include "llama/hf_folder.hpp"

#include <algorithm>
#include <utility>

#include "llama/hf_model.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/safetensors.hpp"

namespace attn {

namespace {

const hf_folder_file* find_file(const std::vector<hf_folder_file>& files, std::string_view name) {
    const auto it = std::find_if(files.begin(), files.end(), [&](const hf_folder_file& f) { return f.name == name; });
    return it == files.end() ? nullptr : &*it;
}

std::string_view text_of(const hf_folder_file& f) { return {reinterpret_cast<const char*>(f.bytes), f.size}; }

// The index's file for each tensor against where the tensors are: each tensor of
// a shard is mapped to that shard, and each mapped tensor is in its shard.
std::optional<std::string> check_index(const safetensors_index& index, const std::vector<std::string>& names,
                                       const std::vector<safetensors_file>& headers) {
    std::size_t in_shards = 0;
    for (std::size_t s = 0; s < names.size(); ++s) {
        in_shards += headers[s].tensors.size();
        for (const safetensors_tensor& t : headers[s].tensors) {
            const auto it = std::lower_bound(index.weight_map.begin(), index.weight_map.end(), t.name,
                                             [](const auto& entry, const std::string& n) { return entry.first < n; });
            if (it == index.weight_map.end() || it->first != t.name)
                return names[s] + " holds the tensor '" + t.name.substr(0, 80) + "', which " + hf_index_file + " does not name";
            if (it->second != names[s])
                return std::string(hf_index_file) + " puts the tensor '" + t.name.substr(0, 80) + "' in " + it->second +
                       ", but it is in " + names[s];
        }
    }
    if (in_shards != index.weight_map.size())
        for (const auto& [tensor, file] : index.weight_map) {
            const std::size_t s = std::size_t(std::find(names.begin(), names.end(), file) - names.begin());
            if (!safetensors_find(headers[s], tensor))
                return std::string(hf_index_file) + " puts the tensor '" + tensor.substr(0, 80) + "' in " + file +
                       ", which does not hold it";
        }
    return std::nullopt;
}

// The safetensors files named, each read and checked; with an index, the
// tensors where it says they are.
std::optional<std::string> read_weights(const std::vector<hf_folder_file>& files, const std::vector<std::string>& names,
                                        std::vector<safetensors_file>& headers, std::vector<hf_shard>& shards) {
    const hf_folder_file* index_file = find_file(files, hf_index_file);
    headers.resize(names.size());
    for (std::size_t s = 0; s < names.size(); ++s) {
        const hf_folder_file* f = find_file(files, names[s]);
        if (!f)
            return "the folder has no " + names[s] + (index_file ? std::string(", which ") + hf_index_file + " names" : "");
        if (auto why = safetensors_read(f->bytes, f->size, f->size, headers[s]))
            return names[s] + ": " + *why;
    }
    for (std::size_t s = 0; s < names.size(); ++s) {  // after the resize: the headers stay where they are
        const hf_folder_file& f = *find_file(files, names[s]);
        shards.push_back({f.bytes, f.size, &headers[s], f.owner && f.owner.get() == f.bytes ? f.owner : nullptr});
    }
    if (!index_file)
        return std::nullopt;
    safetensors_index index;
    if (auto why = safetensors_index_read(text_of(*index_file), index))
        return why;
    return check_index(index, names, headers);
}

}  // namespace

std::optional<std::string> hf_folder_files(const hf_folder_file* index, std::vector<std::string>& out) {
    out = {hf_config_file, hf_tokenizer_file};
    if (!index) {
        out.push_back(hf_weights_file);
        return std::nullopt;
    }
    safetensors_index x;
    if (auto why = safetensors_index_read(text_of(*index), x)) {
        out.clear();
        return why;
    }
    out.push_back(hf_index_file);
    out.insert(out.end(), x.files.begin(), x.files.end());
    return std::nullopt;
}

std::optional<std::string> hf_folder_read(const std::vector<hf_folder_file>& files, hf_folder& out) {
    out = {};
    std::vector<std::string> names;
    if (auto why = hf_folder_files(find_file(files, hf_index_file), names))
        return why;
    for (const char* needed : {hf_config_file, hf_tokenizer_file})
        if (!find_file(files, needed))
            return std::string("the folder has no ") + needed;
    hf_folder f;
    if (auto why = hf_config_read(text_of(*find_file(files, hf_config_file)), f.config))
        return why;
    const std::vector<std::string> weights(names.begin() + (find_file(files, hf_index_file) ? 3 : 2), names.end());
    std::vector<safetensors_file> headers;
    std::vector<hf_shard> shards;
    if (auto why = read_weights(files, weights, headers, shards))
        return why;
    const hf_folder_file& tokenizer = *find_file(files, hf_tokenizer_file);
    std::string why;  // the tokenizer before the weights: they may be turned where they lie
    if (!hf_tokenizer_read(tokenizer.bytes, tokenizer.size, f.config.vocab, f.tokenizer, &why))
        return std::string(hf_tokenizer_file) + ": " + why;
    if (auto problem = hf_model_read(f.config, shards, f.model))
        return (weights.size() == 1 ? weights[0] + ": " : std::string()) + *problem;
    if (f.config.eos >= 0)  // the token that ends a text is the model's to say (tokenizer.json may only guess it)
        f.tokenizer.eos = f.config.eos;
    out = std::move(f);
    return std::nullopt;
}

}  // namespace attn
