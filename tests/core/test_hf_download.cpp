// The page's download of a Hugging Face folder (llama/hf_download.hpp): each
// file read no further than its limit, a safetensors file's from its header.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "llama/hf_download.hpp"
#include "llama/hf_tokenizer.hpp"

using namespace attn;

namespace {

std::vector<unsigned char> header_bytes(const std::string& header) {
    std::vector<unsigned char> b(8 + header.size());
    for (int i = 0; i < 8; ++i)
        b[std::size_t(i)] = (unsigned char)(std::uint64_t(header.size()) >> (8 * i));
    std::memcpy(b.data() + 8, header.data(), header.size());
    return b;
}

}  // namespace

TEST_CASE("hf_download: the JSON files' fixed limits, any other name refused") {
    CHECK(hf_download_limit_of("config.json", nullptr, 0).bytes == hf_download_config_bytes);
    CHECK(hf_download_limit_of("model.safetensors.index.json", nullptr, 0).bytes == hf_download_index_bytes);
    CHECK(hf_download_limit_of("tokenizer.json", nullptr, 0).bytes == hf_tokenizer_max_bytes);
    const hf_download_limit other = hf_download_limit_of("pytorch_model.bin", nullptr, 0);
    CHECK(other.bytes == 0);
    CHECK(other.error.find("pytorch_model.bin is no file of a Hugging Face folder") == 0);
}

TEST_CASE("hf_download: a safetensors file's length from its header, read in two steps") {
    const std::string header = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[3],"data_offsets":[24,30]},)"
                               R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
    const auto b = header_bytes(header);
    CHECK(hf_download_limit_of("model.safetensors", b.data(), 3).need == 8);
    const hf_download_limit first = hf_download_limit_of("model.safetensors", b.data(), 8);
    CHECK(first.need == b.size());
    CHECK(first.bytes == 0);
    const hf_download_limit whole = hf_download_limit_of("model-00001-of-00002.safetensors", b.data(), b.size());
    CHECK(whole.error == "");
    CHECK(whole.need == 0);
    CHECK(whole.bytes == b.size() + 30);
}

TEST_CASE("hf_download: a header that is no safetensors header is refused, named, before any tensor's bytes") {
    const auto gap = header_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})");  // bytes 0-4 belong to none
    const hf_download_limit g = hf_download_limit_of("model.safetensors", gap.data(), gap.size());
    CHECK(g.bytes == 0);
    CHECK(g.error.find("model.safetensors: ") == 0);
    const auto not_json = header_bytes("<html>404</html>");
    CHECK(hf_download_limit_of("model.safetensors", not_json.data(), not_json.size()).error ==
          "model.safetensors: its header does not start with '{': it is no safetensors file");
    std::vector<unsigned char> huge(8, 0xff);  // N over the format's 100 MB
    CHECK(hf_download_limit_of("model.safetensors", huge.data(), huge.size()).error.find("it is no safetensors file") !=
          std::string::npos);
}
