// The native side of the benchmark: the workloads of workloads.hpp over a line
// protocol on stdin/stdout, driven by bench/run.mjs.
//
//   describe             -> one line of JSON (bench_describe)
//   dump DIR             -> writes DIR/<id>.<input>.f32 and DIR/<id>.out.f32, then "ok"
//   run ID REPS          -> seconds per run
//   peak SECONDS         -> {"arch":…, "flops":…, "bandwidth":…} (bandwidth: read over 256 MB)
//   bandwidth SECONDS BYTES [THREADS] -> {"arch":…, "bytes":…, "threads":…, "bandwidth":…} read bandwidth over
//                        a buffer of BYTES (on THREADS threads, each its slice; 1 unless given)
//   arch NAME            -> "ok" once the core uses that kernel set, else "error: …"
//   train_describe       -> [{"id":…,"name":…,"recipe":…}] the training workloads (T1, T2)
//   train_run ID REPS [THREADS] -> seconds per training step (bench_train_run) on THREADS threads (1)
//   train_losses ID N    -> the losses of the first N steps taken, as a JSON array
//   train_learn          -> {"seconds":…,"step":…} T3: the L9 recipe from scratch until held-out accuracy ≥ 0.9
//   circuits             -> {"read":…,"timeline":…,"timeline32":…,"first":…} C1, C2 (seconds; bench_circuits)
//   llama_load MODEL TOKENIZER N -> the files read (bench_llama_load's JSON: config, ids, or {"error":…})
//   hf_load DIR N        -> a Hugging Face folder's files read and handed over (bench_hf_add), then bench_hf_load's JSON
//   llama_forward LEAN REPS -> seconds per traced pass over the N ids (R1; LEAN 1: trace_options::lean())
//   llama_logits FILE    -> writes the last pass's last row of logits (float32) to FILE, then "ok"
//   llama_generate STEPS -> {"seconds":…,"prompt_seconds":…,"ids":[…]} R2: seconds per greedy token after the prompt
//   llama_cache_bytes STEPS -> mean bytes of cached K and V a generated step reads
//   llama_profile REPS   -> bench_llama_profile's JSON (a decode step and its weight products, R1's products and lean pass)
//   quit
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace {

void write_floats(const std::string& path, const float* data, int count) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(count) * std::streamsize(sizeof(float)));
}

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    std::vector<unsigned char> out(f ? std::size_t(f.tellg()) : 0);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size()));
    return out;
}

// A Hugging Face folder's files handed over to the bench (bench_hf_add: malloc'd, owned by it
// from there), each read whole as attn eval reads a file; false when one cannot be read.
bool hf_add_folder(const std::string& dir) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() ||
            (name.find(".json") == std::string::npos && name.find(".safetensors") == std::string::npos))
            continue;
        std::FILE* f = std::fopen(entry.path().c_str(), "rb");
        const std::size_t size = std::size_t(entry.file_size());
        auto* bytes = static_cast<unsigned char*>(std::malloc(size ? size : 1));
        const bool read = f && bytes && std::fread(bytes, 1, size, f) == size;
        if (f)
            std::fclose(f);
        if (!read) {
            std::free(bytes);
            return false;
        }
        bench_hf_add(name.c_str(), bytes, double(size));
    }
    return !ec;
}

// The attention workloads' and the probes' commands (describe … arch above); false when cmd is none of them.
bool kernel_command(const std::string& cmd, std::istringstream& in) {
    if (cmd == "describe") {
        std::cout << bench_describe() << std::endl;
    } else if (cmd == "dump") {
        std::string dir;
        in >> dir;
        for (int id = 0; id < bench_workload_count(); ++id) {
            for (int i = 0; i < bench_input_count(id); ++i)
                write_floats(dir + "/" + std::to_string(id) + "." + std::to_string(i) + ".f32", bench_input(id, i),
                             bench_input_size(id, i));
            write_floats(dir + "/" + std::to_string(id) + ".out.f32", bench_output(id), bench_output_size(id));
        }
        std::cout << "ok" << std::endl;
    } else if (cmd == "run") {
        int id = 0, reps = 1;
        in >> id >> reps;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", bench_run(id, reps));
        std::cout << buf << std::endl;
    } else if (cmd == "peak") {
        double seconds = 1.0;
        in >> seconds;
        char buf[256];
        std::snprintf(buf, sizeof buf, "{\"arch\":\"%s\",\"flops\":%.6g,\"bandwidth\":%.6g}", bench_arch(),
                      bench_peak_flops(seconds), bench_peak_bandwidth(seconds));
        std::cout << buf << std::endl;
    } else if (cmd == "bandwidth") {
        double seconds = 1.0, bytes = 0;
        int threads = 1;
        in >> seconds >> bytes;
        if (!(in >> threads))
            threads = 1;
        char buf[256];
        std::snprintf(buf, sizeof buf, "{\"arch\":\"%s\",\"bytes\":%.0f,\"threads\":%d,\"bandwidth\":%.6g}", bench_arch(), bytes,
                      threads, bench_read_bandwidth_threads(seconds, bytes, threads));
        std::cout << buf << std::endl;
    } else if (cmd == "arch") {
        std::string name;
        in >> name;
        std::cout << (bench_use_arch(name.c_str()) ? "ok" : "error: no kernel set " + name) << std::endl;
    } else {
        return false;
    }
    return true;
}

// The training and circuits commands (train_describe … circuits above); false when cmd is none of them.
bool train_command(const std::string& cmd, std::istringstream& in) {
    if (cmd == "train_describe") {
        std::string out = "[";
        for (int id = 0; id < bench_train_count(); ++id)
            out += std::string(id ? "," : "") + "{\"id\":" + std::to_string(id) + ",\"name\":\"" + bench_train_name(id) +
                   "\",\"recipe\":\"" + bench_train_recipe(id) + "\"}";
        std::cout << out << "]" << std::endl;
    } else if (cmd == "train_run") {
        int id = 0, reps = 1, threads = 1;
        in >> id >> reps;
        if (!(in >> threads))
            threads = 1;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", bench_train_run(id, reps, threads));
        std::cout << buf << std::endl;
    } else if (cmd == "train_learn") {
        int step = -1;
        const double seconds = bench_train_learn(&step);
        char buf[96];
        std::snprintf(buf, sizeof buf, "{\"seconds\":%.6g,\"step\":%d}", seconds, step);
        std::cout << buf << std::endl;
    } else if (cmd == "circuits") {
        double c[4] = {};
        bench_circuits(c, 20);
        char buf[160];
        std::snprintf(buf, sizeof buf, "{\"read\":%.6g,\"timeline\":%.6g,\"timeline32\":%.6g,\"first\":%.6g}", c[0], c[1], c[2],
                      c[3]);
        std::cout << buf << std::endl;
    } else if (cmd == "train_losses") {
        int id = 0, n = 0;
        in >> id >> n;
        std::string out = "[";
        for (int s = 0; s < n; ++s) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%s%.9g", s ? "," : "", double(bench_train_loss(id, s)));
            out += buf;
        }
        std::cout << out << "]" << std::endl;
    } else {
        return false;
    }
    return true;
}

// The real models' commands (llama_load … llama_profile above); false when cmd is none of them.
bool llama_command(const std::string& cmd, std::istringstream& in) {
    if (cmd == "llama_load") {
        std::string model, tokenizer;
        int n = 256;
        in >> model >> tokenizer >> n;
        const std::vector<unsigned char> m = read_bytes(model), t = read_bytes(tokenizer);
        std::cout << bench_llama_load(m.data(), double(m.size()), t.data(), double(t.size()), n) << std::endl;
    } else if (cmd == "hf_load") {
        std::string dir;
        int n = 256;
        in >> dir >> n;
        if (!hf_add_folder(dir))
            std::cout << "{\"error\":\"cannot read the folder\"}" << std::endl;
        else
            std::cout << bench_hf_load(n) << std::endl;
    } else if (cmd == "llama_forward") {
        int lean = 1, reps = 1;
        in >> lean >> reps;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", bench_llama_forward(lean, reps));
        std::cout << buf << std::endl;
    } else if (cmd == "llama_logits") {
        std::string file;
        in >> file;
        write_floats(file, bench_llama_logits(), bench_llama_logits_size());
        std::cout << "ok" << std::endl;
    } else if (cmd == "llama_generate") {
        int steps = 128, threads = 1;
        in >> steps;
        if (!(in >> threads))
            threads = 1;
        const double seconds = bench_llama_generate(steps, threads);  // before bench_llama_prompt_seconds
        char buf[128];
        std::snprintf(buf, sizeof buf, "{\"seconds\":%.9g,\"prompt_seconds\":%.9g,\"ids\":[", seconds,
                      bench_llama_prompt_seconds());
        std::string out = buf;
        for (int i = 0; i < bench_llama_generated_count(); ++i)
            out += (i ? "," : "") + std::to_string(bench_llama_generated()[i]);
        std::cout << out << "]}" << std::endl;
    } else if (cmd == "llama_cache_bytes") {
        int steps = 128;
        in >> steps;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", bench_llama_cache_bytes(steps));
        std::cout << buf << std::endl;
    } else if (cmd == "llama_profile") {
        int reps = 20;
        in >> reps;
        std::cout << bench_llama_profile(reps) << std::endl;
    } else {
        return false;
    }
    return true;
}

}  // namespace

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
        if (cmd == "quit")
            break;
        if (!kernel_command(cmd, in) && !train_command(cmd, in) && !llama_command(cmd, in))
            std::cout << "error: unknown command " << cmd << std::endl;
    }
}
