// Real models (llama2.c shapes) on the core's llama room: the traced forward (R1)
// and generation through the KV cache (R2), on a checkpoint the benchmark wrote
// with random weights (tests/llama_files.py), or a Hugging Face folder (tests/hf_files.py,
// R4-R6: its files handed over, bench_hf_add, then bench_hf_load). See llama_workloads in
// workloads.hpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernels.hpp"
#include "llama/checkpoint.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama/hf_config.hpp"
#include "llama/hf_folder.hpp"
#include "llama/hf_model.hpp"
#include "llama/hf_tokenizer.hpp"
#include "llama/safetensors.hpp"
#include "llama/tokenizer.hpp"
#include "workloads.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// The story R1 runs (repeated up to its length) and R2's prompt start from.
constexpr const char* story =
    "Once upon a time there was a little girl named Lily. She liked to play with her cat and her dog in the park. "
    "One day the sun was big and bright. They were happy friends. He said hello to everyone. ";
constexpr const char* prompt_text = "Once upon a time";

struct llama_state {
    attn::llama_model model;
    attn::llama_tokenizer tokenizer;
    std::vector<int> forward_ids, prompt_ids, generated;
    std::vector<float> last_logits;  // the last row of the last forward's logits
    std::unique_ptr<attn::llama_decoder> decoder;
    double prompt_seconds = 0;
    std::string json;
};

llama_state& state() {
    static llama_state s;
    return s;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string ids_json(const std::vector<int>& ids) {
    std::string o = "[";
    for (std::size_t i = 0; i < ids.size(); ++i)
        o += (i ? "," : "") + std::to_string(ids[i]);
    return o + "]";
}

// Bytes of the weights one decode step reads: every layer's tensors, the final
// norm and the classifier (the embedding's one row is left out).
// In each tensor's own type (a Hugging Face file's F16 or BF16: 2 bytes a weight), with
// the biases and GPT-2's LayerNorm biases (size 0 where a model has none).
double step_weight_bytes(const attn::llama_model& m) {
    double bytes = double(m.rms_final.bytes() + m.norm_final_bias.bytes() + m.classifier.bytes());
    for (const auto& l : m.layers)
        for (const auto* t : {&l.rms_att, &l.wq, &l.wk, &l.wv, &l.wo, &l.rms_ffn, &l.w1, &l.w2, &l.w3, &l.bq, &l.bk, &l.bv,
                              &l.norm_att_bias, &l.norm_ffn_bias, &l.bo, &l.b1, &l.b2})
            bytes += double(t->bytes());
    return bytes;
}

// One weight product of bench_llama_profile: a layer's tensor (or the classifier) and its times.
struct profile_part {
    const char* name;
    attn::llama_tensor attn::llama_layer_tensors::*field;  // null: the classifier
    int out, in;
    double step = 1e30, probe = 1e30, hot = 1e30, bt = 0, transposed = 0;
};

std::vector<profile_part> profile_parts(const attn::llama_config& c) {
    const int dim = c.dim, kv = c.kv_dim(), f = c.hidden_dim, V = c.vocab_size;
    using T = attn::llama_layer_tensors;
    return {{"wq", &T::wq, dim, dim}, {"wk", &T::wk, kv, dim}, {"wv", &T::wv, kv, dim}, {"wo", &T::wo, dim, dim},
            {"w1", &T::w1, f, dim},   {"w3", &T::w3, f, dim},  {"w2", &T::w2, dim, f},  {"classifier", nullptr, V, dim}};
}

const float* profile_weight(const attn::llama_model& m, const profile_part& p, std::size_t layer) {
    return p.field ? m.at(m.layers[layer].*p.field) : m.at(m.classifier);
}

// The least seconds of `trials` calls, after one call to warm up.
template <class F>
double best_of(int trials, F&& call) {
    double best = 1e30;
    call();
    for (int r = 0; r < trials; ++r) {
        const auto t0 = clock_type::now();
        call();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

// Decode: a step's products (kernel_matmul_bt with one row, as generate.cpp's
// matvec calls it) in the step's order, layer by layer then the classifier, each
// timed, so that the weights stream from wherever a step finds them (the trial
// of the least total is kept, into each part's `into`).
template <class F>
void time_step_products(const attn::llama_model& m, std::vector<profile_part>& parts, int reps, F&& product,
                        double profile_part::*into) {
    double best_total = 1e30;
    std::vector<double> times(parts.size());
    for (int r = 0; r <= reps; ++r) {
        std::fill(times.begin(), times.end(), 0.0);
        for (std::size_t l = 0; l < m.layers.size(); ++l)
            for (std::size_t i = 0; i < parts.size(); ++i) {
                if (!parts[i].field && l + 1 < m.layers.size())
                    continue;  // the classifier after the last layer
                const auto t0 = clock_type::now();
                product(profile_weight(m, parts[i], l), parts[i].out, parts[i].in);
                times[i] += seconds_since(t0);
            }
        double total = 0;
        for (const double t : times)
            total += t;
        if (r > 0 && total < best_total) {
            best_total = total;
            for (std::size_t i = 0; i < parts.size(); ++i)
                parts[i].*into = times[i];
        }
    }
}

// R1: each product as forward.cpp's project calls it, kernel_matmul_bt(x, W) for
// n rows, and kernel_matmul(x, Wᵀ) on a transposed copy made beforehand; returns the
// seconds of a pass's products from those times.
double time_forward_products(const attn::llama_model& m, std::vector<profile_part>& parts, int n, const float* x, float* y) {
    double products = 0;
    std::vector<float> wt;
    for (profile_part& p : parts) {
        const float* w = profile_weight(m, p, 0);
        wt.resize(std::size_t(p.out) * std::size_t(p.in));
        for (int i = 0; i < p.out; ++i)
            for (int j = 0; j < p.in; ++j)
                wt[std::size_t(j) * std::size_t(p.out) + std::size_t(i)] = w[std::size_t(i) * std::size_t(p.in) + std::size_t(j)];
        p.bt = best_of(3, [&] { attn::kernel_matmul_bt(x, w, y, n, p.out, p.in); });
        p.transposed = best_of(3, [&] { attn::kernel_matmul(x, wt.data(), y, n, p.in, p.out); });
        products += p.bt * (p.field ? m.config.n_layers : 1);
    }
    return products;
}

// bench_llama_profile's JSON: the decode step, the lean pass and its products, then each part.
std::string profile_json(const attn::llama_config& c, const std::vector<profile_part>& parts, int n, double step, double pass,
                         double products) {
    std::string o = "{\"step_seconds\":" + num(step) + ",\"forward_rows\":" + std::to_string(n) +
                    ",\"forward_seconds\":" + num(pass) + ",\"forward_products_seconds\":" + num(products) + ",\"parts\":[";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const profile_part& p = parts[i];
        const double bytes = double(p.out) * p.in * sizeof(float), flop = 2.0 * n * p.out * p.in;
        o += std::string(i ? "," : "") + "{\"name\":\"" + p.name + "\",\"out\":" + std::to_string(p.out) +
             ",\"in\":" + std::to_string(p.in) + ",\"layers\":" + std::to_string(p.field ? c.n_layers : 1) +
             ",\"step_seconds\":" + num(p.step) +
             ",\"step_gbytes_per_s\":" + num(bytes * (p.field ? c.n_layers : 1) / p.step / 1e9) +
             ",\"probe_step_seconds\":" + num(p.probe) + ",\"hot_gbytes_per_s\":" + num(bytes / p.hot / 1e9) +
             ",\"matmul_bt_gflops\":" + num(flop / p.bt / 1e9) +
             ",\"matmul_transposed_gflops\":" + num(flop / p.transposed / 1e9) + "}";
    }
    return o + "]}";
}

std::string json_safe(std::string why) {
    for (char& c : why)
        if (c == '"' || c == '\\' || c < ' ')
            c = ' ';
    return why;
}

const char* error_json(llama_state& s, const std::string& why) {
    s = llama_state{};
    s.json = "{\"error\":\"" + json_safe(why) + "\"}";
    return s.json.c_str();
}

// After the files are read: R1's ids (BOS, then the story repeated), R2's prompt, a decoder of
// `capacity` positions, and the JSON bench_llama_load returns.
const char* loaded_json(llama_state& s, int forward_tokens, int capacity, double load_seconds) {
    const attn::llama_config& c = s.model.config;
    const int n = std::min(forward_tokens, c.seq_len);
    const std::vector<int> text = attn::llama_encode(s.tokenizer, story, false);
    const int bos = s.tokenizer.bos >= 0 ? s.tokenizer.bos : s.tokenizer.eos >= 0 ? s.tokenizer.eos : attn::llama_bos;
    s.forward_ids = {bos};
    while (int(s.forward_ids.size()) < n)
        s.forward_ids.push_back(text[(s.forward_ids.size() - 1) % text.size()]);
    s.prompt_ids = attn::llama_encode(s.tokenizer, prompt_text, true);
    if (s.prompt_ids.empty() || s.prompt_ids[0] != bos)  // a tokenizer without a BOS template: BOS first all the same
        s.prompt_ids.insert(s.prompt_ids.begin(), bos);
    s.decoder = std::make_unique<attn::llama_decoder>(s.model, capacity);
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "{\"arch\":\"%s\",\"model_arch\":\"%s\",\"version\":%d,\"dim\":%d,\"hidden_dim\":%d,\"n_layers\":%d,"
                  "\"n_heads\":%d,\"n_kv_heads\":%d,\"vocab_size\":%d,\"seq_len\":%d,\"shared_classifier\":%s,"
                  "\"weight_bytes\":%.0f,\"step_weight_bytes\":%.0f,\"load_seconds\":%.6g,",
                  attn::kernel_arch_name(), c.arch == attn::llama_arch::gpt2 ? "gpt2" : "llama", c.version, c.dim, c.hidden_dim,
                  c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len, c.shared_classifier ? "true" : "false",
                  double(s.model.weights.size), step_weight_bytes(s.model), load_seconds);
    s.json = std::string(buf) + "\"forward_ids\":" + ids_json(s.forward_ids) + ",\"prompt_ids\":" + ids_json(s.prompt_ids) + "}";
    return s.json.c_str();
}

// A Hugging Face folder's files, handed over one by one (bench_hf_add) before bench_hf_load.
struct hf_file {
    std::string name;
    std::shared_ptr<unsigned char> bytes;
    std::size_t size = 0;
};

std::vector<hf_file>& hf_pending() {
    static std::vector<hf_file> files;
    return files;
}

const hf_file* hf_find(const std::vector<hf_file>& files, const std::string& name) {
    for (const hf_file& f : files)
        if (f.name == name)
            return &f;
    return nullptr;
}

// config.json, the safetensors files (each handed over with its owner: hf_model_read keeps
// them as the weights, no copy) and tokenizer.json, as attn::hf_folder_read reads a folder.
std::optional<std::string> hf_read(const std::vector<hf_file>& files, attn::hf_config& config, attn::llama_model& model,
                                   attn::llama_tokenizer& tok) {
    const hf_file *cfg = hf_find(files, attn::hf_config_file), *tj = hf_find(files, attn::hf_tokenizer_file),
                  *index = hf_find(files, attn::hf_index_file);
    if (!cfg || !tj)
        return std::string("no config.json or tokenizer.json");
    if (auto why = attn::hf_config_read({reinterpret_cast<const char*>(cfg->bytes.get()), cfg->size}, config))
        return why;
    const attn::hf_folder_file index_file{attn::hf_index_file, index ? index->bytes.get() : nullptr, index ? index->size : 0};
    std::vector<std::string> names;
    if (auto why = attn::hf_folder_files(index ? &index_file : nullptr, names))
        return why;
    names.erase(names.begin(), names.begin() + (index ? 3 : 2));  // config, tokenizer (and the index): the shards remain
    std::vector<attn::safetensors_file> headers(names.size());
    std::vector<attn::hf_shard> shards;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const hf_file* f = hf_find(files, names[i]);
        if (!f)
            return "no " + names[i];
        if (auto why = attn::safetensors_read(f->bytes.get(), f->size, f->size, headers[i]))
            return names[i] + ": " + *why;
        shards.emplace_back(f->bytes.get(), f->size, &headers[i], f->bytes);
    }
    if (auto why = attn::hf_model_read(config, shards, model))
        return why;
    std::string why;
    if (!attn::hf_tokenizer_read(tj->bytes.get(), tj->size, config.vocab, tok, &why))
        return "tokenizer.json: " + why;
    if (config.eos >= 0)
        tok.eos = config.eos;
    return std::nullopt;
}

}  // namespace

extern "C" {

const char* bench_llama_load(const unsigned char* model, double model_size, const unsigned char* tokenizer, double tokenizer_size,
                             int forward_tokens) {
    llama_state& s = state();
    s = llama_state{};
    std::string why;
    const auto t0 = clock_type::now();
    if (!attn::llama_checkpoint_read(model, std::size_t(model_size), s.model, &why) ||
        !attn::llama_tokenizer_read(tokenizer, std::size_t(tokenizer_size), s.model.config.vocab_size, s.tokenizer, &why))
        return error_json(s, why);
    return loaded_json(s, forward_tokens, s.model.config.seq_len, seconds_since(t0));
}

void bench_hf_add(const char* name, unsigned char* bytes, double size) {
    hf_pending().push_back(
        {name, std::shared_ptr<unsigned char>(bytes, [](unsigned char* p) { std::free(p); }), std::size_t(size)});
}

const char* bench_hf_load(int forward_tokens) {
    llama_state& s = state();
    s = llama_state{};
    std::vector<hf_file> files = std::move(hf_pending());
    hf_pending().clear();
    std::string why;
    const auto t0 = clock_type::now();
    attn::hf_config config;
    if (auto problem = hf_read(files, config, s.model, s.tokenizer))
        return error_json(s, *problem);
    files.clear();  // the model keeps the shards it reads in place
    // The generation's cache for the prompt and the tokens asked (R5 asks 128), not the whole
    // context (SmolLM2's 8192 positions would be 380 MB of cache for nothing).
    return loaded_json(s, forward_tokens, std::min(s.model.config.seq_len, 1024), seconds_since(t0));
}

double bench_llama_forward(int lean, int reps) {
    llama_state& s = state();
    const attn::experiment e = attn::llama_experiment(s.model.config);
    const attn::trace_options opt = lean ? attn::trace_options::lean() : attn::trace_options{};
    double spent = 0;
    for (int r = 0; r < std::max(reps, 1); ++r) {
        const auto t0 = clock_type::now();
        attn::trace t = attn::llama_forward(s.model, s.forward_ids, e, opt);
        spent += seconds_since(t0);  // the trace's release is left out (not part of the pass)
        if (r == 0) {
            const float* last = t.logits.row(t.logits.rows - 1);
            s.last_logits.assign(last, last + t.logits.cols);
        }
    }
    return spent / std::max(reps, 1);
}

const float* bench_llama_logits() { return state().last_logits.data(); }
int bench_llama_logits_size() { return int(state().last_logits.size()); }

double bench_llama_generate(int steps, int threads) {
    llama_state& s = state();
    attn::llama_decoder& d = *s.decoder;
    d.threads = std::max(1, threads);
    const attn::llama_config& c = s.model.config;
    const attn::llama_sampling greedy{0.0f, 0.0f, 1};
    attn::rng g(greedy.seed);
    d.reset();
    s.generated.clear();
    auto t0 = clock_type::now();
    const float* logits = nullptr;
    for (const int t : s.prompt_ids)
        logits = d.step(t);
    s.prompt_seconds = seconds_since(t0);
    steps = std::min(steps, c.seq_len - d.pos);
    t0 = clock_type::now();
    for (int i = 0; i < steps; ++i) {
        const int next = attn::llama_sample(logits, c.vocab_size, greedy, g);
        s.generated.push_back(next);
        logits = d.step(next);  // BOS is not a stop here: every run takes `steps` steps
    }
    return seconds_since(t0) / std::max(steps, 1);
}

int bench_llama_generated_count() { return int(state().generated.size()); }
const int* bench_llama_generated() { return state().generated.data(); }
double bench_llama_prompt_seconds() { return state().prompt_seconds; }

double bench_llama_cache_bytes(int steps) {
    // The mean over the generated steps of the cached K and V each reads.
    const llama_state& s = state();
    const int p0 = int(s.prompt_ids.size());
    double sum = 0;
    for (int i = 0; i < steps; ++i)
        sum += double(s.decoder->cache_bytes_read(p0 + i));
    return steps > 0 ? sum / steps : 0;
}

// Where the time goes (see workloads.hpp). Each figure is the best of its trials
// (the machines here are shared: a preempted trial only ever lasts longer).
const char* bench_llama_profile(int reps) {
    llama_state& s = state();
    const attn::llama_model& m = s.model;
    const attn::llama_config& c = m.config;
    const int dim = c.dim, f = c.hidden_dim, V = c.vocab_size, n = int(s.forward_ids.size());
    std::vector<float> x(std::size_t(n) * std::size_t(std::max(dim, f)), 0.01f),
        y(std::size_t(n) * std::size_t(std::max({dim, f, V})));
    std::vector<profile_part> parts = profile_parts(c);
    time_step_products(
        m, parts, reps, [&](const float* w, int out, int in) { attn::kernel_matmul_bt(x.data(), w, y.data(), 1, out, in); },
        &profile_part::step);
    // The same products by peak.cpp's plain matrix-vector product (eight rows at a time).
    time_step_products(
        m, parts, reps, [&](const float* w, int out, int in) { bench_matvec_probe(w, x.data(), y.data(), out, in); },
        &profile_part::probe);
    // Layer 0's alone, again and again (in the cache).
    for (profile_part& p : parts)
        p.hot = best_of(std::max(reps, 50),
                        [&] { attn::kernel_matmul_bt(x.data(), profile_weight(m, p, 0), y.data(), 1, p.out, p.in); });
    attn::llama_decoder& d = *s.decoder;
    d.reset();
    for (const int t : s.prompt_ids)
        d.step(t);
    const int p0 = d.pos;
    const double step = best_of(reps, [&] {
        d.pos = p0;
        d.step(3);
    });
    const double products = time_forward_products(m, parts, n, x.data(), y.data());
    const attn::experiment e = attn::llama_experiment(c);
    const double pass = best_of(3, [&] { attn::llama_forward(m, s.forward_ids, e, attn::trace_options::lean()); });
    s.json = profile_json(c, parts, n, step, pass, products);
    return s.json.c_str();
}
}
