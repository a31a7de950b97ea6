// R3: the peak resident memory of opening a llama2.c checkpoint natively.
//
//   attn_llama_memory FILE [--copy]            -> one line of JSON, the phases below
//   attn_llama_memory --hf DIR [--copy]       -> the same for a Hugging Face folder (R6)
//   attn_llama_memory --exec PROGRAM ARGS...   -> {"max_rss_bytes":…,"status":…} of that child
//
// In process: the file read as `attn eval --model` reads it (llama_file_read: one
// allocation of the file's size), then the model made from it as attn eval makes it
// (llama_checkpoint_adopt: the file's bytes are the weights) or, with --copy, by
// llama_checkpoint_read (a buffer of its own, the weights copied in); then the file's
// bytes let go (kept by an adopting model). Each phase's peak (VmHWM, reset between phases through
// /proc/self/clear_refs) and the resident size after it (VmRSS), in bytes.
// --hf: the folder's files each read whole (llama_file_read), then the model made by
// hf_model_read with every shard handed over with its owner (read where they lie: the
// files are the weights) or, with --copy, by hf_folder_read (the bytes borrowed, the
// weights copied, as attn eval --model DIR reads a folder today), then the tokenizer.
// --exec runs a program (e.g. attn eval … --model FILE) and reports its whole
// peak (ru_maxrss from wait4).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <filesystem>

#include "llama/checkpoint.hpp"
#include "llama/hf_config.hpp"
#include "llama/hf_folder.hpp"
#include "llama/hf_model.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/safetensors.hpp"

namespace {

// A field of /proc/self/status in bytes (its value is in kB).
double status_bytes(const char* field) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(field);
    while (std::getline(f, line))
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stod(line.substr(n + 1)) * 1024.0;
    return -1;
}

// Resets VmHWM to the current VmRSS (Linux ≥ 4.0).
void reset_peak() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
}

double highest = 0;  // the largest phase peak (ru_maxrss follows the resets)

std::string phase(const char* name) {
    char buf[160];
    const double peak = status_bytes("VmHWM");
    highest = std::max(highest, peak);
    std::snprintf(buf, sizeof buf, "\"%s\":{\"peak\":%.0f,\"rss\":%.0f}", name, peak, status_bytes("VmRSS"));
    reset_peak();
    return buf;
}

int exec_child(char** argv) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (std::FILE* null = std::fopen("/dev/null", "w"))
            dup2(fileno(null), 1);  // the child's output is not ours
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    std::printf("{\"max_rss_bytes\":%.0f,\"status\":%d}\n", double(ru.ru_maxrss) * 1024.0,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

// The model of a folder's files, each handed over to hf_model_read with its owner.
std::optional<std::string> hf_handed_over(const std::vector<attn::hf_folder_file>& files,
                                          const std::vector<attn::llama_file>& kept, attn::llama_model& m) {
    std::vector<std::string> names;
    const auto find = [&](const std::string& name) -> std::size_t {
        for (std::size_t i = 0; i < files.size(); ++i)
            if (files[i].name == name)
                return i;
        return files.size();
    };
    const std::size_t index = find(attn::hf_index_file);
    if (auto why = attn::hf_folder_files(index < files.size() ? &files[index] : nullptr, names))
        return why;
    attn::hf_config config;
    const attn::hf_folder_file& cfg = files[find(attn::hf_config_file)];
    if (auto why = attn::hf_config_read({reinterpret_cast<const char*>(cfg.bytes), cfg.size}, config))
        return why;
    names.erase(names.begin(), names.begin() + (index < files.size() ? 3 : 2));
    std::vector<attn::safetensors_file> headers(names.size());
    std::vector<attn::hf_shard> shards;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::size_t at = find(names[i]);
        if (at == files.size())
            return "no " + names[i];
        if (auto why = attn::safetensors_read(files[at].bytes, files[at].size, files[at].size, headers[i]))
            return why;
        shards.emplace_back(files[at].bytes, files[at].size, &headers[i], std::const_pointer_cast<unsigned char>(kept[at].bytes));
    }
    if (auto why = attn::hf_model_read(config, shards, m))
        return why;
    attn::llama_tokenizer tok;
    std::string why;
    const attn::hf_folder_file& tj = files[find(attn::hf_tokenizer_file)];
    if (!attn::hf_tokenizer_read(tj.bytes, tj.size, config.vocab, tok, &why))
        return why;
    return std::nullopt;
}

// --hf DIR [--copy]: the phases above for a Hugging Face folder.
int hf_main(const std::string& dir, bool copy) {
    std::string out = "{\"model\":\"" + std::string(copy ? "copied" : "handed_over") + "\",";
    reset_peak();
    out += phase("start") + ",";
    std::string why;
    std::vector<attn::llama_file> kept;
    std::vector<attn::hf_folder_file> files;
    std::size_t folder_bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        attn::llama_file f = attn::llama_file_read(entry.path().string(), why);
        if (!f.bytes) {
            std::fprintf(stderr, "attn_llama_memory: %s\n", why.c_str());
            return 1;
        }
        folder_bytes += f.size;
        files.push_back({entry.path().filename().string(), f.bytes.get(), f.size});
        kept.push_back(std::move(f));
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "\"file_bytes\":%zu,", folder_bytes);
    out += buf + phase("file_read") + ",";
    attn::hf_folder folder;
    std::optional<std::string> problem = copy ? attn::hf_folder_read(files, folder) : hf_handed_over(files, kept, folder.model);
    if (problem) {
        std::fprintf(stderr, "attn_llama_memory: %s\n", problem->c_str());
        return 1;
    }
    std::snprintf(buf, sizeof buf, "\"weight_bytes\":%zu,", folder.model.weights.size);
    out += buf + phase("model_made") + ",";
    files.clear();
    kept.clear();
    out += phase("file_let_go");
    std::snprintf(buf, sizeof buf, ",\"max_rss_bytes\":%.0f}", highest);
    std::printf("%s%s\n", out.c_str(), buf);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::strcmp(argv[1], "--exec") == 0)
        return exec_child(argv + 2);
    if (argc >= 3 && std::strcmp(argv[1], "--hf") == 0)
        return hf_main(argv[2], argc >= 4 && std::strcmp(argv[3], "--copy") == 0);
    if (argc < 2) {
        std::fprintf(stderr, "usage: attn_llama_memory FILE [--copy] | --hf DIR [--copy] | --exec PROGRAM ARGS...\n");
        return 2;
    }
    const char* path = argv[1];
    const bool copy = argc >= 3 && std::strcmp(argv[2], "--copy") == 0;
    std::string out = "{\"model\":\"" + std::string(copy ? "copied" : "adopted") + "\",";
    reset_peak();
    out += phase("start") + ",";
    std::string why;
    attn::llama_file file = attn::llama_file_read(path, why);
    if (!file.bytes) {
        std::fprintf(stderr, "attn_llama_memory: %s\n", why.c_str());
        return 1;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "\"file_bytes\":%zu,", file.size);
    out += buf + phase("file_read") + ",";
    attn::llama_model m;
    const bool ok = copy ? attn::llama_checkpoint_read(file.bytes.get(), file.size, m, &why)
                         : attn::llama_checkpoint_adopt(file.bytes, file.size, m, &why);
    if (!ok) {
        std::fprintf(stderr, "attn_llama_memory: %s\n", why.c_str());
        return 1;
    }
    std::snprintf(buf, sizeof buf, "\"weight_bytes\":%zu,", m.weights.size);
    out += buf + phase("model_made") + ",";
    file = {};
    out += phase("file_let_go");
    std::snprintf(buf, sizeof buf, ",\"max_rss_bytes\":%.0f}", highest);
    std::printf("%s%s\n", out.c_str(), buf);
    return 0;
}
