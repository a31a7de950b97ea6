// R3: the peak resident memory of opening a llama2.c checkpoint natively.
//
//   attn_llama_memory FILE [--read cli|exact]   -> one line of JSON, the phases below
//   attn_llama_memory --exec PROGRAM ARGS...     -> {"max_rss_bytes":…,"status":…} of that child
//
// In process: the file read as `attn eval --model` reads it (src/tools/eval_model.cpp's
// read_file: 64 KB freads appended to a std::vector, which grows by doubling) or, with
// --read exact, into one vector of the file's size; then llama_checkpoint_read (which
// allocates the model's buffer and copies the weights into it); then the file's bytes
// released. Each phase's peak (VmHWM, reset between phases through
// /proc/self/clear_refs) and the resident size after it (VmRSS), in bytes.
// --exec runs a program (e.g. attn eval … --model FILE) and reports its whole
// peak (ru_maxrss from wait4).
#include <sys/resource.h>
#include <sys/stat.h>
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

// As eval_model.cpp's read_file: the file in 64 KB pieces appended to a vector.
bool read_like_cli(const char* path, std::vector<unsigned char>& out) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f)
        return false;
    unsigned char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
        out.insert(out.end(), buf, buf + got);
    std::fclose(f);
    return true;
}

bool read_exact(const char* path, std::vector<unsigned char>& out) {
    struct stat st {};
    if (stat(path, &st) != 0)
        return false;
    std::FILE* f = std::fopen(path, "rb");
    if (!f)
        return false;
    out.resize(std::size_t(st.st_size));
    const bool ok = std::fread(out.data(), 1, out.size(), f) == out.size();
    std::fclose(f);
    return ok;
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
        std::fprintf(stderr, "usage: attn_llama_memory FILE [--read cli|exact] | --exec PROGRAM ARGS...\n");
        return 2;
    }
    const char* path = argv[1];
    const bool exact = argc >= 4 && std::strcmp(argv[2], "--read") == 0 && std::strcmp(argv[3], "exact") == 0;
    std::string out = "{\"read\":\"" + std::string(exact ? "exact" : "cli") + "\",";
    reset_peak();
    out += phase("start") + ",";
    std::vector<unsigned char> bytes;
    if (!(exact ? read_exact(path, bytes) : read_like_cli(path, bytes))) {
        std::fprintf(stderr, "attn_llama_memory: cannot read %s\n", path);
        return 1;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "\"file_bytes\":%zu,\"vector_capacity\":%zu,", bytes.size(), bytes.capacity());
    out += buf + phase("file_read") + ",";
    attn::llama_model m;
    std::string why;
    if (!attn::llama_checkpoint_read(bytes.data(), bytes.size(), m, &why)) {
        std::fprintf(stderr, "attn_llama_memory: %s\n", why.c_str());
        return 1;
    }
    std::snprintf(buf, sizeof buf, "\"weight_bytes\":%zu,", m.weights.size() * sizeof(float));
    out += buf + phase("checkpoint_read") + ",";
    std::vector<unsigned char>().swap(bytes);  // (bytes = {} would keep the capacity: the initializer_list assignment)
    out += phase("file_released");
    std::snprintf(buf, sizeof buf, ",\"max_rss_bytes\":%.0f}", highest);
    std::printf("%s%s\n", out.c_str(), buf);
    return 0;
}
