#include "play/real_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/threads.hpp"
#include "llama/forward.hpp"
#include "llama/hf_folder.hpp"
#include "llama/hf_model.hpp"
#include "play/edit.hpp"
#include "spec/keys.hpp"
#include "train/train_diagnostics.hpp"

namespace attn {

namespace {

std::optional<std::string> read_tokenizer(const real_model_file& f, int vocab, llama_tokenizer& tok) {
    std::string why;
    if (!llama_tokenizer_read(f.bytes, f.size, vocab, tok, &why))
        return f.name + ": " + why;
    return std::nullopt;
}

void summarise_heads(real_model_reading& r) {
    const int n = int(r.ids.size());
    r.heads.clear();
    for (std::size_t l = 0; l < r.tr.layers.size(); ++l)
        for (std::size_t h = 0; h < r.tr.layers[l].heads.size(); ++h) {
            head_trace& ht = r.tr.layers[l].heads[h];
            head_scores s;
            s.add(ht.weights.data.data(), r.ids.data(), n, 0);
            real_head_summary out;
            out.layer = int(l), out.head = int(h), out.kv_head = ht.kv_group;
            out.prev = s.prev_mean(), out.sink = s.sink_mean(), out.entropy = s.entropy_mean();
            out.induction = s.n_induction ? s.induction_mean() : -1.0f;
            r.heads.push_back(out);
        }
}

// The five likeliest of a logits row, as probabilities.
std::vector<real_next_token> top_five(const float* z, int V) {
    std::vector<int> order(std::size_t(V), 0);
    std::iota(order.begin(), order.end(), 0);
    const int top = std::min(5, V);
    std::partial_sort(order.begin(), order.begin() + top, order.end(),
                      [z](int a, int b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
    const double mx = double(z[order[0]]);
    double sum = 0;
    for (int v = 0; v < V; ++v)
        sum += std::exp(double(z[v]) - mx);
    std::vector<real_next_token> out;
    for (int i = 0; i < top; ++i) {
        const int v = order[std::size_t(i)];
        out.push_back({v, float(std::exp(double(z[v]) - mx) / sum), z[v]});
    }
    return out;
}

// log softmax of a logits row, in doubles.
std::vector<double> log_softmax(const float* z, int V) {
    double mx = z[0];
    for (int v = 1; v < V; ++v)
        mx = std::max(mx, double(z[v]));
    double sum = 0;
    for (int v = 0; v < V; ++v)
        sum += std::exp(double(z[v]) - mx);
    const double lse = mx + std::log(sum);
    std::vector<double> out(static_cast<std::size_t>(V));
    for (int v = 0; v < V; ++v)
        out[std::size_t(v)] = double(z[v]) - lse;
    return out;
}

// The step just taken: its query's weights, every head, kept for the page.
void record_attention(const real_model& m, real_model_generation& g) {
    const llama_config& c = m.model.config;
    const int p = g.decoder->pos - 1;
    g.query_pos.push_back(p);
    g.at.push_back(g.attention.size());
    for (int lh = 0; lh < c.n_layers * c.n_heads; ++lh) {
        const float* w = g.decoder->attention.data() + std::size_t(lh) * std::size_t(g.decoder->capacity);
        g.attention.insert(g.attention.end(), w, w + p + 1);
    }
}

// The reading's pass: each head keeps its weights alone (the overview reads them).
trace_options reading_options(int threads) {
    trace_options o = trace_options::lean();
    o.keep_weights = true;
    o.threads = threads;
    return o;
}

// The sampled steps of a generation of `steps` after `prompt` tokens (each
// records the attention of its query), and the floats they record: the query at
// position p reads p + 1 keys in every head.
struct recorded {
    std::size_t steps = 0, floats = 0;
};
recorded generation_record(const llama_config& c, int prompt, int steps) {
    recorded r;
    r.steps = std::size_t(std::max(0, std::min(steps, c.seq_len - prompt)));
    const std::size_t n = std::size_t(prompt), k = r.steps;
    r.floats = std::size_t(c.n_layers) * std::size_t(c.n_heads) * (k * n + (k > 0 ? k * (k - 1) / 2 : 0));
    return r;
}

std::string megabytes(std::size_t bytes) { return std::to_string((bytes + (std::size_t(1) << 20) - 1) >> 20) + " MB"; }

}  // namespace

real_model_bytes real_model_peak_bytes(const llama_config& c, std::size_t weight_bytes, int threads) {
    real_model_bytes b;
    b.tokens = std::min(real_model_max_tokens, c.seq_len);
    b.steps = int(key_of("view.gen_tokens").hi);
    b.weights = weight_bytes;
    const std::size_t n = std::size_t(b.tokens), d = std::size_t(c.dim), kv = std::size_t(c.kv_dim()),
                      f = std::size_t(c.hidden_dim), hs = std::size_t(c.head_size()), H = std::size_t(c.n_heads),
                      L = std::size_t(c.n_layers), V = std::size_t(c.vocab_size);
    const std::size_t layer_weights = (2 * d * d + 2 * d * kv + 3 * d * f + n * d) * sizeof(float);  // and E's rows
    const std::size_t lens = (L + 1) * (2 * d + V) * sizeof(float) + 3 * V * sizeof(double);         // and top_five's, the KL's
    const std::size_t whole_layer = 3 * H * n * n * sizeof(float) + layer_weights;                   // real_model_open_layer
    // The selected head's stages: the layer's q, q_rot, k_rot, v and concat, each head's slices, and four (n, n)
    // matrices for it and for each head in flight.
    const std::size_t stages =
        (3 * n * d + 2 * n * kv + H * (4 * n * hs + 2 * n) + (1 + std::size_t(std::max(threads, 1))) * 4 * n * n) * sizeof(float);
    trace_options changed = trace_options::lean();  // real_model_intervene: one layer whole
    changed.keep_head_matrices = [](int l, int) { return l == 0; };
    changed.threads = threads;
    b.reading = llama_forward_bytes(c, b.tokens, reading_options(threads)) + lens + whole_layer + stages +
                llama_forward_bytes(c, b.tokens, changed) + layer_weights;
    const recorded r = generation_record(c, b.tokens, b.steps);
    b.generation = llama_decoder_bytes(c, llama_generate_capacity(c, b.tokens, b.steps)) + r.floats * sizeof(float) +
                   r.steps * (sizeof(int) + sizeof(std::size_t)) + (n + std::size_t(b.steps)) * sizeof(int);
    return b;
}

std::optional<std::string> real_model_memory_problem(const llama_config& c, std::size_t weight_bytes, int threads) {
    const real_model_bytes b = real_model_peak_bytes(c, weight_bytes, threads);
    if (b.total() <= page_memory_budget)
        return std::nullopt;
    return "reading " + std::to_string(b.tokens) + " tokens and generating " + std::to_string(b.steps) + " after them needs " +
           std::to_string(b.total()) + " bytes (" + megabytes(b.total()) + ": the weights " + megabytes(b.weights) +
           ", the reading " + megabytes(b.reading) + ", the generation " + megabytes(b.generation) +
           "); the page holds at most " + std::to_string(page_memory_budget) + " bytes (" + megabytes(page_memory_budget) +
           "): a model with fewer layers, heads or weights opens";
}

std::size_t real_model::parameters() const { return llama_parameters(model); }

real_model_limits real_model_download_limits(const unsigned char* head, std::size_t size, const std::string& name) {
    llama_config c;
    real_model_limits out;
    if (!llama_checkpoint_fields(head, size, c, &out.error)) {
        out.error = name + ": " + out.error;
        return out;
    }
    out.checkpoint = llama_checkpoint_bytes(c);
    out.tokenizer = llama_tokenizer_max_bytes(c.vocab_size);
    return out;
}

std::optional<std::string> real_model_open(const real_model_file& a, const real_model_file& b, real_model& out) {
    const char* two = "choose two files at once: the checkpoint (.bin) and its tokenizer (tokenizer.bin)";
    if (a.name.empty() || b.name.empty())  // the page's chooser gave one file, or none, or more than two
        return a.name.empty() && b.name.empty() ? std::string(two) : "only " + (a.name.empty() ? b.name : a.name) + ": " + two;
    llama_config probe;
    const bool b_first = !llama_checkpoint_header(a.bytes, a.size, probe) && llama_checkpoint_header(b.bytes, b.size, probe);
    const real_model_file& ckpt = b_first ? b : a;
    const real_model_file& tokf = b_first ? a : b;
    if (llama_checkpoint_header(ckpt.bytes, ckpt.size, probe))
        if (auto too_big = real_model_memory_problem(probe, ckpt.size, threads_available()))
            return ckpt.name + ": " + *too_big;
    real_model m;
    std::string why;
    const bool read = ckpt.owner && ckpt.owner.get() == ckpt.bytes ? llama_checkpoint_adopt(ckpt.owner, ckpt.size, m.model, &why)
                                                                   : llama_checkpoint_read(ckpt.bytes, ckpt.size, m.model, &why);
    if (!read)
        return ckpt.name + ": " + why;
    if (auto bad = read_tokenizer(tokf, m.model.config.vocab_size, m.tok))
        return bad;
    m.name = ckpt.name;
    m.tokenizer_name = tokf.name;
    m.file_bytes = ckpt.size;
    m.sha256 = ckpt.sha256;
    m.tokenizer_sha256 = tokf.sha256;
    out = std::move(m);
    return std::nullopt;
}

namespace {

// A picked file's name without its folder ("gpt2/config.json": "config.json"), and the folder ("gpt2").
std::string base_name(const std::string& name) {
    const std::size_t slash = name.find_last_of("/\\");
    return slash == std::string::npos ? name : name.substr(slash + 1);
}
std::string folder_name(const std::string& name) {
    const std::size_t slash = name.find_last_of("/\\");
    return slash == std::string::npos ? "" : base_name(name.substr(0, slash));
}

// Whether a file belongs to a Hugging Face folder rather than to llama2.c's pair.
bool folder_file(const real_model_file& f) {
    const std::string n = base_name(f.name);
    const std::string ext = ".safetensors";
    return n == hf_config_file || n == hf_tokenizer_file || n == hf_index_file ||
           (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0);
}

const char* format_name(hf_arch a) {
    switch (a) {
        case hf_arch::gpt2:
            return "GPT-2";
        case hf_arch::llama:
            return "Llama";
        case hf_arch::qwen2:
            return "Qwen2";
        case hf_arch::qwen3:
            break;
    }
    return "Qwen3";
}

const real_model_file* find_named(const std::vector<real_model_file>& files, const std::string& name) {
    for (const real_model_file& f : files)
        if (base_name(f.name) == name)
            return &f;
    return nullptr;
}

// The page's memory for the folder, from config.json and the safetensors files'
// bytes, before any weight is read: nullopt when it fits, or when config.json
// or the index cannot be read (hf_folder_read then says why).
std::optional<std::string> folder_memory_problem(const std::vector<hf_folder_file>& files, const std::string& label,
                                                 std::size_t& weight_bytes) {
    const auto find = [&](const std::string& n) -> const hf_folder_file* {
        for (const hf_folder_file& f : files)
            if (f.name == n)
                return &f;
        return nullptr;
    };
    std::vector<std::string> names;
    const hf_folder_file* config = find(hf_config_file);
    hf_config c;
    if (hf_folder_files(find(hf_index_file), names) || !config ||
        hf_config_read({reinterpret_cast<const char*>(config->bytes), config->size}, c))
        return std::nullopt;
    for (const std::string& n : names)
        if (const hf_folder_file* f = find(n); f && n != hf_config_file && n != hf_tokenizer_file && n != hf_index_file)
            weight_bytes += f->size;
    if (auto too_big = real_model_memory_problem(hf_llama_config(c), weight_bytes, threads_available()))
        return label + ": " + *too_big;
    return std::nullopt;
}

std::optional<std::string> open_folder(const std::vector<real_model_file>& files, real_model& out) {
    std::vector<hf_folder_file> hf;
    std::string folder;
    for (const real_model_file& f : files) {
        hf.push_back({base_name(f.name), f.bytes, f.size, f.owner && f.owner.get() == f.bytes ? f.owner : nullptr});
        if (folder.empty())
            folder = folder_name(f.name);
    }
    const real_model_file* index = find_named(files, hf_index_file);
    const real_model_file* weights = index ? index : find_named(files, hf_weights_file);
    std::size_t weight_bytes = 0;
    if (auto too_big = folder_memory_problem(hf, folder.empty() ? std::string(weights ? weights->name : hf_weights_file) : folder,
                                             weight_bytes))
        return too_big;
    hf_folder f;
    if (auto why = hf_folder_read(hf, f))
        return why;
    real_model m;
    m.name = folder.empty() ? f.config.architecture : folder;
    m.tokenizer_name = hf_tokenizer_file;
    m.file_bytes = weight_bytes;
    m.sha256 = weights ? weights->sha256 : "";
    m.tokenizer_sha256 = find_named(files, hf_tokenizer_file)->sha256;
    m.format = format_name(f.config.arch);
    m.model = std::move(f.model);
    m.tok = std::move(f.tokenizer);
    m.dtype = m.model.layers.empty() ? m.model.token_embedding.type : m.model.layers[0].wq.type;
    out = std::move(m);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> real_model_open_files(const std::vector<real_model_file>& files, real_model& out) {
    if (std::any_of(files.begin(), files.end(), folder_file))
        return open_folder(files, out);
    if (files.size() > 2)
        return "choose llama2.c's two files (the checkpoint .bin and its tokenizer.bin) or a Hugging Face folder's "
               "(config.json, tokenizer.json and model.safetensors, or the index and its shards)";
    return real_model_open(files.size() > 0 ? files[0] : real_model_file{}, files.size() > 1 ? files[1] : real_model_file{}, out);
}

void real_model_read(const real_model& m, const std::string& text, real_model_reading& out) {
    out = real_model_reading{};
    out.text = text;
    out.ids = llama_encode(m.tok, text, true);
    // No BOS (GPT-2, Qwen2) and no text: the token that ends a text begins one, as GPT-2 was trained.
    if (out.ids.empty() && llama_stop_token(m.tok) >= 0 && llama_stop_token(m.tok) < m.model.config.vocab_size)
        out.ids.push_back(llama_stop_token(m.tok));
    if (out.ids.empty())
        return;
    const std::size_t cap = std::size_t(std::min(real_model_max_tokens, m.model.config.seq_len));
    if (out.ids.size() > cap) {
        out.ids.resize(cap);
        out.cut = true;
    }
    // The text the tokens spell, after the BOS encoding added (none for GPT-2 or Qwen2).
    const std::size_t first = !out.ids.empty() && out.ids[0] == m.tok.bos ? 1 : 0;
    for (std::size_t i = first; i < out.ids.size(); ++i)
        out.decoded += llama_decode_piece(m.tok, i ? out.ids[i - 1] : -1, out.ids[i]);
    out.tr = llama_forward(m.model, out.ids, llama_experiment(m.model.config), reading_options(m.threads), &m.tok);
    summarise_heads(out);
    const int last = int(out.ids.size()) - 1;
    out.next = top_five(out.tr.logits.row(last), m.model.config.vocab_size);
    out.lens = llama_logit_lens(m.model, out.tr, last, out.next[0].id);
    out.attribution = llama_direct_logit_attribution(m.model, out.tr, last, out.next[0].id);
    out.embedding_decides = llama_embedding_decides(m.model, out.tr, out.ids, out.lens);
}

namespace {

template <class T>
bool twice(const std::vector<T>& list, std::size_t i) {
    return std::find(list.begin(), list.begin() + std::ptrdiff_t(i), list[i]) != list.begin() + std::ptrdiff_t(i);
}

// Query rows of a head whose every key (0 … query) is masked.
int keyless_rows(const std::vector<masked_edge>& edges) {
    std::vector<masked_edge> rows;  // key unused
    int out = 0;
    for (const masked_edge& e : edges) {
        const masked_edge row{e.layer, e.head, e.query, 0};
        if (std::find(rows.begin(), rows.end(), row) != rows.end())
            continue;
        rows.push_back(row);
        const auto hidden = std::count_if(edges.begin(), edges.end(), [&](const masked_edge& x) {
            return x.layer == e.layer && x.head == e.head && x.query == e.query;
        });
        out += hidden == e.query + 1;
    }
    return out;
}

}  // namespace

real_interventions real_toggle_head(const real_interventions& iv, const ablated_head& h) {
    real_interventions out = iv;
    edit_toggle_item(out.ablate, h);
    return out;
}

real_interventions real_toggle_edge(const real_interventions& iv, const masked_edge& e) {
    real_interventions out = iv;
    if (e.key <= e.query)
        edit_toggle_item(out.edges, e);
    return out;
}

bool real_interventions::zeroes(int layer, int head) const {
    return std::find(ablate.begin(), ablate.end(), ablated_head{layer, head}) != ablate.end();
}

std::vector<std::string> real_interventions_problems(const real_model& m, const real_model_reading& r,
                                                     const real_interventions& iv) {
    const llama_config& c = m.model.config;
    const int n = int(r.ids.size());
    std::vector<std::string> out;
    const auto head_problem = [&](int layer, int head) -> std::string {
        if (layer < 0 || layer >= c.n_layers)
            return "the model has layers 0 to " + std::to_string(c.n_layers - 1);
        if (head < 0 || head >= c.n_heads)
            return "its layers have heads 0 to " + std::to_string(c.n_heads - 1);
        return "";
    };
    for (std::size_t i = 0; i < iv.ablate.size(); ++i) {
        const ablated_head& h = iv.ablate[i];
        std::string why = head_problem(h.layer, h.head);
        if (why.empty() && twice(iv.ablate, i))
            why = "it is named twice";
        if (!why.empty())
            out.push_back("zeroed head " + ablated_head_text(h) + ": " + why);
    }
    for (std::size_t i = 0; i < iv.edges.size(); ++i) {
        const masked_edge& e = iv.edges[i];
        std::string why = head_problem(e.layer, e.head);
        if (why.empty() && (e.query < 0 || e.query >= n || e.key < 0 || e.key >= n))
            why = "the text has tokens 0 to " + std::to_string(n - 1);
        else if (why.empty() && e.key > e.query)
            why = "the key comes after the query, which the causal mask hides already";
        else if (why.empty() && twice(iv.edges, i))
            why = "it is named twice";
        if (!why.empty())
            out.push_back("masked edge " + masked_edge_text(e) + ": " + why);
    }
    return out;
}

namespace {

// A checkpoint's (out, in) projection as the pipeline's (in, out) matrix.
matrix transposed(const real_model& m, const llama_tensor& t, int out_dim, int in_dim) {
    matrix w(in_dim, out_dim);
    llama_transpose(m.model, t, out_dim, in_dim, w.data);
    return w;
}

// Layer `layer`'s weights as the pipeline reads a toy's, into tr.params (the other
// layers' left empty), and E as the tokens' embedding rows.
void put_layer_weights(const real_model& m, trace& tr, int layer) {
    const llama_config& c = m.model.config;
    tr.params.layers.assign(std::size_t(c.n_layers), layer_weights{});
    const llama_layer_tensors& t = m.model.layers[std::size_t(layer)];
    layer_weights& w = tr.params.layers[std::size_t(layer)];
    w.w_q = transposed(m, t.wq, c.dim, c.dim);
    w.w_k = transposed(m, t.wk, c.kv_dim(), c.dim);
    w.w_v = transposed(m, t.wv, c.kv_dim(), c.dim);
    w.w_o = transposed(m, t.wo, c.dim, c.dim);
    w.w_1 = transposed(m, t.w1, c.hidden_dim, c.dim);
    if (t.w3.size)  // SwiGLU's up; GPT-2's GELU FFN has none
        w.w_3 = transposed(m, t.w3, c.hidden_dim, c.dim);
    w.w_2 = transposed(m, t.w2, c.dim, c.hidden_dim);
    tr.params.embeddings = tr.x0;
}

}  // namespace

void real_model_intervene(const real_model& m, const real_model_reading& r, const real_interventions& iv, int layer,
                          real_effect& out) {
    const llama_config& c = m.model.config;
    out = real_effect{};
    if (r.ids.empty() || !real_interventions_problems(m, r, iv).empty())
        return;
    experiment e = llama_experiment(c);
    e.ablate = iv.ablate;
    e.edges = iv.edges;
    trace_options opt = trace_options::lean();
    opt.keep_head_matrices = [layer](int l, int) { return l == layer; };
    opt.threads = m.threads;
    out.tr = llama_forward(m.model, r.ids, e, opt, &m.tok);
    const int last = int(r.ids.size()) - 1, V = c.vocab_size;
    out.made = true;
    out.of = iv;
    if (layer >= 0 && layer < c.n_layers) {
        out.layer = layer;
        put_layer_weights(m, out.tr, layer);
    }
    out.keyless_rows = keyless_rows(iv.edges);
    out.next = top_five(out.tr.logits.row(last), V);
    const std::vector<double> with = log_softmax(r.tr.logits.row(last), V), without = log_softmax(out.tr.logits.row(last), V);
    double kl = 0;
    for (int v = 0; v < V; ++v)
        kl += std::exp(with[std::size_t(v)]) * (with[std::size_t(v)] - without[std::size_t(v)]);
    out.kl = std::isnan(kl) ? float(kl) : float(std::max(0.0, kl));  // NaN (an overflowed pass) shown as such
    for (const real_next_token& n : r.next)
        out.reading_ids_probability.push_back(float(std::exp(without[std::size_t(n.id)])));
}

namespace {

// The heads whose score reaches the bar, strongest first (ties by index).
std::vector<int> heads_over(const std::vector<real_head_summary>& heads, float real_head_summary::*score, float bar) {
    std::vector<int> out;
    for (std::size_t i = 0; i < heads.size(); ++i)
        if (heads[i].*score >= bar)
            out.push_back(int(i));
    std::stable_sort(out.begin(), out.end(),
                     [&](int a, int b) { return heads[std::size_t(a)].*score > heads[std::size_t(b)].*score; });
    return out;
}

}  // namespace

float real_head_score(const real_head_summary& h, head_score k) {
    switch (k) {
        case head_score::previous:
            return h.prev;
        case head_score::induction:
            return h.induction;
        case head_score::sink:
            return h.sink;
        case head_score::offset:
            break;
    }
    return -1.0f;
}

real_model_findings real_model_find(const real_model& m, const real_model_reading& r) {
    const llama_config& c = m.model.config;
    real_model_findings f;
    f.heads = int(r.heads.size());
    f.group = c.n_heads / std::max(1, c.n_kv_heads);
    const int n = int(r.ids.size());
    double u = 0, ui = 0;
    int rows_induction = 0;
    for (int i = 1; i < n; ++i) {
        u += 1.0 / double(i + 1);
        int j = i - 1;  // head_scores::add's rule: the last earlier copy, not the token just before
        while (j >= 0 && r.ids[std::size_t(j)] != r.ids[std::size_t(i)])
            --j;
        if (j >= 0 && j + 1 < i) {
            ui += 1.0 / double(i + 1);
            ++rows_induction;
        }
    }
    f.uniform = n > 1 ? float(u / double(n - 1)) : 1.0f;
    f.uniform_induction = rows_induction ? float(ui / rows_induction) : 0.0f;
    f.repeats = rows_induction > 0;
    f.sink_bar = std::max(head_score_of(head_score::sink).real_bar, 2.0f * f.uniform);
    f.previous_bar = std::max(head_score_of(head_score::previous).real_bar, 2.0f * f.uniform);
    f.induction_bar = std::max(head_score_of(head_score::induction).real_bar, 2.0f * f.uniform_induction);
    f.sink = heads_over(r.heads, &real_head_summary::sink, f.sink_bar);
    f.previous = heads_over(r.heads, &real_head_summary::prev, f.previous_bar);
    if (f.repeats)
        f.induction = heads_over(r.heads, &real_head_summary::induction, f.induction_bar);
    return f;
}

void real_model_generate_start(const real_model& m, const std::vector<int>& prompt, const llama_sampling& s, int steps,
                               real_model_generation& g, int threads) {
    g = real_model_generation{};
    const int prompt_tokens = int(prompt.size());
    g.decoder = std::make_unique<llama_decoder>(m.model, llama_generate_capacity(m.model.config, prompt_tokens, steps));
    const recorded r = generation_record(m.model.config, prompt_tokens, steps);
    g.attention.reserve(r.floats);  // grown step by step it would take up to twice as much
    g.query_pos.reserve(r.steps);
    g.at.reserve(r.steps);
    g.decoder->threads = threads;
    g.g = rng(s.seed);
    g.sampling = s;
    g.ids = prompt;
    g.prompt = int(prompt.size());
    g.target = steps;
    g.done = prompt.empty() || steps <= 0;
}

bool real_model_generate_step(const real_model& m, real_model_generation& g) {
    if (g.done)
        return false;
    const int seq = m.model.config.seq_len;
    const float* z = g.decoder->step(g.ids[std::size_t(g.fed)]);
    ++g.fed;
    if (g.fed < int(g.ids.size()))
        return true;  // still the prompt
    if (g.decoder->pos >= seq) {
        g.done = true;
        g.stopped = "context";
        return false;
    }
    record_attention(m, g);
    const int next = llama_sample(z, m.model.config.vocab_size, g.sampling, g.g);
    if (next == llama_stop_token(m.tok)) {
        g.done = true;
        g.stopped = "bos";
        return false;
    }
    g.text += llama_decode_piece(m.tok, g.ids.back(), next);
    g.ids.push_back(next);
    g.done = int(g.ids.size()) - g.prompt >= g.target;
    return !g.done;
}

head_trace real_head_stages(const real_model& m, const real_model_reading& r, int layer, int head) {
    const llama_config& c = m.model.config;
    if (layer < 0 || layer >= int(r.tr.layers.size()) || head < 0 || head >= c.n_heads)
        return {};
    const layer_trace& kept = r.tr.layers[std::size_t(layer)];
    layer_trace lt;
    lt.q = kept.q, lt.q_rot = kept.q_rot, lt.k_rot = kept.k_rot, lt.v = kept.v;
    trace_options opt;
    opt.keep_head_matrices = [layer, head](int l, int h) { return l == layer && h == head; };
    opt.threads = m.threads;
    forward_heads(llama_experiment(c), layer, lt, opt);
    return std::move(lt.heads[std::size_t(head)]);
}

void real_model_open_layer(const real_model& m, real_model_reading& r, int layer) {
    const llama_config& c = m.model.config;
    if (layer < 0 || layer >= int(r.tr.layers.size()) || layer >= c.n_layers || layer == r.whole_layer)
        return;
    if (r.whole_layer >= 0)  // back to the weights alone
        for (head_trace& ht : r.tr.layers[std::size_t(r.whole_layer)].heads)
            for (matrix* mm : {&ht.scores, &ht.scaled, &ht.masked})
                *mm = matrix{};
    forward_heads(llama_experiment(c), layer, r.tr.layers[std::size_t(layer)], {});
    put_layer_weights(m, r.tr, layer);
    r.whole_layer = layer;
}

real_cache_measure real_model_cache(const real_model& m, const real_model_generation& g) {
    const llama_config& c = m.model.config;
    real_cache_measure r;
    r.per_token = llama_cache_bytes_per_token(c);
    r.per_token_mha = llama_cache_bytes_per_token_mha(c);
    r.context = r.per_token * std::size_t(c.seq_len);
    r.context_mha = r.per_token_mha * std::size_t(c.seq_len);
    if (g.decoder && g.decoder->pos > 0) {
        r.last_step_tokens = g.decoder->pos;
        r.last_step_read = g.decoder->cache_bytes_read(g.decoder->pos - 1);
    }
    return r;
}

matrix real_generation_attention(const real_model& m, const real_model_generation& g, int layer, int head) {
    const llama_config& c = m.model.config;
    if (g.query_pos.empty() || layer < 0 || layer >= c.n_layers || head < 0 || head >= c.n_heads)
        return {};
    matrix out(int(g.query_pos.size()), g.query_pos.back() + 1);
    for (std::size_t s = 0; s < g.query_pos.size(); ++s) {
        const std::size_t n = std::size_t(g.query_pos[s]) + 1;
        const float* w = g.attention.data() + g.at[s] + (std::size_t(layer) * std::size_t(c.n_heads) + std::size_t(head)) * n;
        std::copy(w, w + n, out.row(int(s)));
    }
    return out;
}

}  // namespace attn
