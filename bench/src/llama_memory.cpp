// R3: the peak resident memory of opening a llama2.c checkpoint natively.
//
//   attn_llama_memory FILE [--copy]            -> one line of JSON, the phases below
//   attn_llama_memory --exec PROGRAM ARGS...   -> {"max_rss_bytes":…,"status":…} of that child
//
// In process: the file read as `attn eval --model` reads it (llama_file_read: one
// allocation of the file's size), then the model made from it as attn eval makes it
// (llama_checkpoint_adopt: the file's bytes are the weights) or, with --copy, by
// llama_checkpoint_read (a buffer of its own, the weights copied in); then the file's
// bytes let go (kept by an adopting model). Each phase's peak (VmHWM, reset between phases through
// /proc/self/clear_refs) and the resident size after it (VmRSS), in bytes.
// --exec runs a program (e.g. attn eval … --model FILE) and reports its whole
// peak (ru_maxrss from wait4).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "llama/checkpoint.hpp"

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

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::strcmp(argv[1], "--exec") == 0)
        return exec_child(argv + 2);
    if (argc < 2) {
        std::fprintf(stderr, "usage: attn_llama_memory FILE [--copy] | --exec PROGRAM ARGS...\n");
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
    std::snprintf(buf, sizeof buf, "\"weight_bytes\":%zu,", m.weights.size() * sizeof(float));
    out += buf + phase("model_made") + ",";
    file = {};
    out += phase("file_let_go");
    std::snprintf(buf, sizeof buf, ",\"max_rss_bytes\":%.0f}", highest);
    std::printf("%s%s\n", out.c_str(), buf);
    return 0;
}
