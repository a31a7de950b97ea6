#include "eval_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "base/threads.hpp"
#include "llama/forward.hpp"
#include "llama/generate.hpp"
#include "llama/hf_folder.hpp"
#include "llama/lens.hpp"
#include "model/trace_json.hpp"

namespace attn {
namespace {

// s as a JSON string, terminal-safe: control characters and bytes that are not
// UTF-8 as the text \xNN (cli_terminal_safe), quotes and backslashes escaped.
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char ch : cli_terminal_safe(s)) {
        if (ch == '"' || ch == '\\')
            out += '\\';
        out += ch;
    }
    return out + "\"";
}

bool report(const std::string& what) {
    std::fprintf(stderr, "attn: %s\n", what.c_str());
    return false;
}

std::string megabytes(std::size_t bytes) { return std::to_string((bytes + (std::size_t(1) << 20) - 1) >> 20) + " MB"; }

// Whether `work` (bytes, counted before anything is allocated) fits beside the
// model's weights in what the page holds (page_memory_budget): else a message
// with the figures, and false — never an allocation that fails half-way.
bool fits(const llama_model& m, const std::string& work, std::size_t bytes, const char* advice) {
    const std::size_t weights = m.weights.size, total = weights + bytes;
    if (total <= page_memory_budget)
        return true;
    return report(work + " needs " + std::to_string(total) + " bytes (" + megabytes(total) + ": the weights " +
                  megabytes(weights) + ", the rest " + megabytes(bytes) + "); attn eval holds what the page holds, at most " +
                  std::to_string(page_memory_budget) + " bytes (" + megabytes(page_memory_budget) + "): " + advice);
}

// A Hugging Face folder: the files hf_folder_files names read from disk, the
// model and its tokenizer made of them by the core (llama/hf_folder.hpp).
bool load_folder(const std::string& dir, llama_model& m, llama_tokenizer& tok) {
    std::string why;
    std::vector<llama_file> kept;  // the bytes `files` points into, until the model has copied its weights
    std::vector<hf_folder_file> files;
    const auto read = [&](const std::string& name) {
        llama_file f = llama_file_read((std::filesystem::path(dir) / name).string(), why);
        if (!f.bytes)
            return false;
        files.push_back({name, f.bytes.get(), f.size});
        kept.push_back(std::move(f));
        return true;
    };
    std::error_code ec;
    const bool sharded = std::filesystem::exists(std::filesystem::path(dir) / hf_index_file, ec);
    if (sharded && !read(hf_index_file))
        return report(cli_terminal_safe(why));
    std::vector<std::string> names;
    if (auto problem = hf_folder_files(sharded ? &files[0] : nullptr, names))
        return report(cli_terminal_safe(dir + ": " + *problem));
    for (const std::string& name : names)
        if (name != hf_index_file && !read(name))
            return report(cli_terminal_safe(why));
    hf_folder f;
    if (auto problem = hf_folder_read(files, f))
        return report(cli_terminal_safe(dir + ": " + *problem));
    m = std::move(f.model);
    tok = std::move(f.tokenizer);
    return true;
}

bool load_checkpoint(const cli_options& o, llama_model& m, llama_tokenizer& tok) {
    std::string why;
    llama_file file = llama_file_read(*o.model, why);  // the model keeps these bytes: no copy
    if (!file.bytes)
        return report(cli_terminal_safe(why));
    if (!llama_checkpoint_adopt(std::move(file.bytes), file.size, m, &why))
        return report(cli_terminal_safe(*o.model) + ": " + why);
    file = llama_file_read(*o.tokenizer, why);
    if (!file.bytes)
        return report(cli_terminal_safe(why));
    if (!llama_tokenizer_read(file.bytes.get(), file.size, m.config.vocab_size, tok, &why))
        return report(cli_terminal_safe(*o.tokenizer) + ": " + why);
    return true;
}

// 0, or attn's exit code after a message: 1 a file refused, 2 a checkpoint without --tokenizer or a
// Hugging Face folder with one.
int load(const cli_options& o, llama_model& m, llama_tokenizer& tok) {
    std::error_code ec;
    if (std::filesystem::is_directory(*o.model, ec)) {
        if (!std::filesystem::exists(std::filesystem::path(*o.model) / hf_config_file, ec)) {
            report(cli_terminal_safe(*o.model) +
                   " is a folder without config.json: name the llama2.c checkpoint (.bin) "
                   "in it, or a Hugging Face model's folder");
            return 1;
        }
        if (o.tokenizer) {
            report(cli_terminal_safe(*o.model) +
                   " is a Hugging Face folder: its tokenizer is its tokenizer.json, so "
                   "--tokenizer is not taken with it");
            return 2;
        }
        return load_folder(*o.model, m, tok) ? 0 : 1;
    }
    if (!o.tokenizer) {
        report(
            "--model FILE needs --tokenizer FILE (the model's tokenizer.bin) to read the link's text; --model DIR "
            "alone opens a Hugging Face folder");
        return 2;
    }
    return load_checkpoint(o, m, tok) ? 0 : 1;
}

// The heads' experiment with the link's interventions; false when one names a
// layer or head the model lacks.
bool interventions(const experiment& e, const llama_config& c, experiment& out) {
    out = llama_experiment(c);
    out.text = e.text;
    for (const ablated_head& a : e.ablate)
        if (a.layer >= c.n_layers || a.head >= c.n_heads)
            return report("ablate=" + std::to_string(a.layer) + ":" + std::to_string(a.head) +
                          " names a head this model lacks (" + std::to_string(c.n_layers) + " layers of " +
                          std::to_string(c.n_heads) + " heads)");
    for (const masked_edge& m : e.edges)
        if (m.layer >= c.n_layers || m.head >= c.n_heads)
            return report("a masked edge names layer " + std::to_string(m.layer) + " head " + std::to_string(m.head) +
                          ", which this model lacks");
    out.ablate = e.ablate;
    out.edges = e.edges;
    return true;
}

bool selection(const cli_options& o, const experiment& e, trace_json_select& sel) {
    std::optional<std::string> err;
    if (o.stages)
        err = trace_json_parse_stages(*o.stages, sel.stages);
    if (!err && o.layers)
        err = trace_json_parse_indices(*o.layers, e.layers, sel.layers);
    if (!err && o.heads)
        err = trace_json_parse_indices(*o.heads, e.heads, sel.heads);
    return err ? report(*err) : true;
}

// The logit lens and the direct logit attribution of the likeliest token at the
// last position (llama/lens.hpp), a line each, in words a script can read.
void print_lens(const llama_model& m, const llama_tokenizer& tok, const std::vector<int>& ids, const trace& t, int target) {
    const int last = int(ids.size()) - 1;
    std::printf("logit lens at the last token, for id %d:\n", target);
    for (const llama_lens_row& r : llama_logit_lens(m, t, last, target))
        std::printf("  %s %d: top %d %s p %.6g, target p %.6g rank %d\n", r.layer < 0 ? "embedding" : "layer",
                    r.layer < 0 ? 0 : r.layer, r.top, json_string(llama_decode_piece(tok, ids.back(), r.top)).c_str(),
                    double(r.top_probability), double(r.target_probability), r.target_rank);
    const llama_attribution a = llama_direct_logit_attribution(m, t, last, target);
    std::printf("direct logit attribution of id %d: logit %.6g = sum %.6g (1/rms %.6g)\n  embedding %.6g\n", target,
                double(a.logit), a.sum(), double(a.inv_rms), double(a.embedding));
    for (int l = 0; l < m.config.n_layers; ++l) {
        std::printf("  layer %d heads", l);
        for (int h = 0; h < m.config.n_heads; ++h)
            std::printf(" %.6g", double(a.heads[std::size_t(l * m.config.n_heads + h)]));
        std::printf(" ffn %.6g\n", double(a.ffn[std::size_t(l)]));
    }
}

// The text the tokens spell, after the BOS encoding added (none for GPT-2 or Qwen2).
std::string decode(const llama_tokenizer& tok, const std::vector<int>& ids) {
    std::string text;
    for (std::size_t i = !ids.empty() && ids[0] == tok.bos ? 1 : 0; i < ids.size(); ++i)
        text += llama_decode_piece(tok, i ? ids[i - 1] : -1, ids[i]);
    return text;
}

void print_summary(const cli_options& o, const llama_model& m, const llama_tokenizer& tok, const std::vector<int>& ids,
                   const trace& t) {
    const llama_config& c = m.config;
    std::printf("model %s: version %d, dim %d, hidden %d, %d layers, %d heads (%d K/V heads), vocab %d, context %d, %s\n",
                cli_terminal_safe(*o.model).c_str(), c.version, c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                c.vocab_size, c.seq_len, c.shared_classifier ? "classifier shared with the embedding" : "own classifier");
    std::printf("ids:");
    for (const int id : ids)
        std::printf(" %d", id);
    std::printf("\ntokens (%zu):", ids.size());
    for (const int id : ids)
        std::printf(" %s", json_string(tok.pieces[std::size_t(id)]).c_str());
    const std::string decoded = decode(tok, ids);
    std::printf("\ndecoded: %s\nnan %d, inf %d\nnext token after the last:\n", json_string(decoded).c_str(), t.nan_count,
                t.inf_count);
    const float* z = t.logits.row(t.logits.rows - 1);
    std::vector<int> order(std::size_t(c.vocab_size));
    std::iota(order.begin(), order.end(), 0);
    const int top = std::min(5, c.vocab_size);
    std::partial_sort(order.begin(), order.begin() + top, order.end(), [z](int a, int b) { return z[a] > z[b]; });
    const float mx = z[order[0]];
    double sum = 0;
    for (int v = 0; v < c.vocab_size; ++v)
        sum += std::exp(double(z[v]) - double(mx));
    for (int r = 0; r < top; ++r) {
        const int v = order[std::size_t(r)];
        std::printf("  %6.2f%%  %d \"%s\"  (logit %.4g)\n", 100.0 * std::exp(double(z[v]) - double(mx)) / sum, v,
                    cli_terminal_safe(llama_decode_piece(tok, ids.back(), v)).c_str(), double(z[v]));
    }
    print_lens(m, tok, ids, t, order[0]);
}

// The text and each generated token's text as run.c prints it (terminal-safe),
// the ids, then a line saying how many and why it stopped.
int generate(const cli_options& o, const link_view& v, const llama_model& m, const llama_tokenizer& tok,
             const std::vector<int>& prompt) {
    const llama_sampling s{o.temperature.value_or(v.temperature), o.top_p.value_or(v.top_p),
                           o.seed.value_or(std::uint64_t(v.gen_seed)), llama_stop_token(tok)};
    const int cache = llama_generate_capacity(m.config, int(prompt.size()), o.generate);
    if (!fits(m, "generating " + std::to_string(o.generate) + " tokens (a cache of " + std::to_string(cache) + ")",
              llama_decoder_bytes(m.config, cache), "generate fewer tokens"))
        return 1;
    const std::vector<int> all = llama_generate(m, prompt, o.generate, s, threads_available());  // the same tokens on any count
    std::printf("%s\nids:", cli_terminal_safe(decode(tok, all)).c_str());
    for (const int id : all)
        std::printf(" %d", id);
    std::printf("\n");
    const int made = int(all.size() - prompt.size());
    std::printf("(%d tokens generated, temperature %g, top-p %g, seed %llu%s)\n", made, double(s.temperature), double(s.top_p),
                static_cast<unsigned long long>(s.seed),
                made == o.generate                    ? ""
                : int(all.size()) >= m.config.seq_len ? "; the context is full"
                                                      : "; the model ended the text (BOS)");
    return 0;
}

}  // namespace

int eval_model(const experiment& e, const link_view& v, const cli_options& o) {
    llama_model m;
    llama_tokenizer tok;
    experiment le;
    if (const int code = load(o, m, tok))
        return code;
    if (!interventions(e, m.config, le))
        return 1;
    const std::vector<int> ids = llama_encode(tok, e.text, true);
    if (const auto problem = llama_tokens_problem(m.config, ids)) {
        report("the link's text: " + *problem);
        return 1;
    }
    for (const masked_edge& edge : le.edges)
        if (edge.query >= int(ids.size()) || edge.key >= int(ids.size())) {
            report("the masked edge " + std::to_string(edge.query) + " → " + std::to_string(edge.key) + " is past the " +
                   std::to_string(ids.size()) + " tokens the model's tokenizer makes of the text");
            return 1;
        }
    if (o.generate > 0)
        return generate(o, v, m, tok, ids);
    trace_json_select sel;
    if (o.json && !selection(o, le, sel))
        return 1;
    trace_options opt = o.json ? sel.options() : trace_options::lean();
    opt.threads = threads_available();  // the heads side by side: the same bits
    const llama_config& c = m.config;
    const std::size_t lens = std::size_t(c.n_layers + 1) * std::size_t(2 * c.dim + c.vocab_size) * sizeof(float);
    if (!fits(m, "the pass over " + std::to_string(ids.size()) + " tokens", llama_forward_bytes(c, int(ids.size()), opt) + lens,
              o.json ? "print fewer heads' (n, n) matrices (--stages, --layers, --heads) or a shorter text" : "a shorter text"))
        return 1;
    const trace t = llama_forward(m, ids, le, opt, &tok);
    if (!o.json) {
        print_summary(o, m, tok, ids, t);
        return 0;
    }
    trace_write_json(le, t, sel, [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); });
    std::fputc('\n', stdout);
    return 0;
}

}  // namespace attn
