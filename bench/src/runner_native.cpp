// The native side of the benchmark: the workloads of workloads.hpp over a line
// protocol on stdin/stdout, driven by bench/run.mjs.
//
//   describe             -> one line of JSON (bench_describe)
//   dump DIR             -> writes DIR/<id>.<input>.f32 and DIR/<id>.out.f32, then "ok"
//   run ID REPS          -> seconds per run
//   peak SECONDS         -> {"arch":…, "flops":…, "bandwidth":…} (bandwidth: read over 256 MB)
//   bandwidth SECONDS BYTES -> {"arch":…, "bytes":…, "bandwidth":…} read bandwidth over a buffer of BYTES
//   arch NAME            -> "ok" once the core uses that kernel set, else "error: …"
//   train_describe       -> [{"id":…,"name":…,"recipe":…}] the training workloads (T1, T2)
//   train_run ID REPS    -> seconds per training step (bench_train_run)
//   train_losses ID N    -> the losses of the first N steps taken, as a JSON array
//   train_learn          -> {"seconds":…,"step":…} T3: the L9 recipe from scratch until held-out accuracy ≥ 0.9
//   circuits             -> {"read":…,"timeline":…,"timeline32":…,"first":…} C1, C2 (seconds; bench_circuits)
//   quit
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "workloads.hpp"

namespace {

void write_floats(const std::string& path, const float* data, int count) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(count) * std::streamsize(sizeof(float)));
}

}  // namespace

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
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
            in >> seconds >> bytes;
            char buf[256];
            std::snprintf(buf, sizeof buf, "{\"arch\":\"%s\",\"bytes\":%.0f,\"bandwidth\":%.6g}", bench_arch(), bytes,
                          bench_read_bandwidth(seconds, bytes));
            std::cout << buf << std::endl;
        } else if (cmd == "arch") {
            std::string name;
            in >> name;
            std::cout << (bench_use_arch(name.c_str()) ? "ok" : "error: no kernel set " + name) << std::endl;
        } else if (cmd == "train_describe") {
            std::string out = "[";
            for (int id = 0; id < bench_train_count(); ++id)
                out += std::string(id ? "," : "") + "{\"id\":" + std::to_string(id) + ",\"name\":\"" + bench_train_name(id) +
                       "\",\"recipe\":\"" + bench_train_recipe(id) + "\"}";
            std::cout << out << "]" << std::endl;
        } else if (cmd == "train_run") {
            int id = 0, reps = 1;
            in >> id >> reps;
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.9g", bench_train_run(id, reps));
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
            std::snprintf(buf, sizeof buf, "{\"read\":%.6g,\"timeline\":%.6g,\"timeline32\":%.6g,\"first\":%.6g}", c[0], c[1],
                          c[2], c[3]);
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
        } else if (cmd == "quit") {
            break;
        } else {
            std::cout << "error: unknown command " << cmd << std::endl;
        }
    }
}
