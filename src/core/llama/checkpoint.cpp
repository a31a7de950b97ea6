#include "llama/checkpoint.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "kernels/kernels.hpp"

namespace attn {

namespace {

constexpr std::uint32_t magic_ak42 = 0x616b3432;
constexpr std::size_t v0_header = 7 * 4, v1_header = 256;

std::int32_t read_i32(const unsigned char* p) {
    std::int32_t v = 0;
    std::memcpy(&v, p, 4);  // little-endian, as llama2.c writes it (x86-64 and wasm read it so)
    return v;
}

bool fail(std::string* error, std::string why) {
    if (error)
        *error = std::move(why);
    return false;
}

// "dim 0 is out of range (1 to 8192)" when v is outside [lo, hi].
bool in_range(const char* name, std::int64_t v, std::int64_t lo, std::int64_t hi, std::string* error) {
    if (v >= lo && v <= hi)
        return true;
    return fail(error, std::string("the header's ") + name + " " + std::to_string(v) + " is out of range (" + std::to_string(lo) +
                           " to " + std::to_string(hi) + ")");
}

bool check_fields(const llama_config& c, std::string* error) {
    using lim = llama_limits;
    if (!in_range("dim", c.dim, 1, lim::max_dim, error) || !in_range("hidden_dim", c.hidden_dim, 1, lim::max_hidden, error) ||
        !in_range("n_layers", c.n_layers, 1, lim::max_layers, error) ||
        !in_range("n_heads", c.n_heads, 1, lim::max_heads, error) || !in_range("n_kv_heads", c.n_kv_heads, 1, c.n_heads, error) ||
        !in_range("vocab_size", c.vocab_size, 1, lim::max_vocab, error) ||
        !in_range("seq_len", c.seq_len, 1, lim::max_seq_len, error))
        return false;
    if (c.dim % c.n_heads != 0)
        return fail(error,
                    "the header's dim " + std::to_string(c.dim) + " is not a multiple of n_heads " + std::to_string(c.n_heads));
    if (c.head_size() % 2 != 0)
        return fail(error, "the head size dim / n_heads = " + std::to_string(c.head_size()) +
                               " is odd: RoPE turns the head's dimensions in pairs");
    if (c.n_heads % c.n_kv_heads != 0)
        return fail(error, "the header's n_heads " + std::to_string(c.n_heads) + " is not a multiple of n_kv_heads " +
                               std::to_string(c.n_kv_heads));
    return true;
}

// The weights' floats (without the header), in 64 bits.
std::int64_t weight_floats(const llama_config& c) {
    const std::int64_t d = c.dim, h = c.hidden_dim, L = c.n_layers, V = c.vocab_size, kv = c.kv_dim();
    std::int64_t n = V * d + L * d * 2 + d;             // embedding, the two norms a layer, the final norm
    n += L * (d * d + 2 * d * kv + d * d + 3 * d * h);  // wq, wk, wv, wo, w1, w2, w3
    if (!c.shared_classifier)
        n += V * d;
    if (c.version == 0)
        n += std::int64_t(c.seq_len) * c.head_size();  // freq_cis_real and _imag, seq_len · head_size / 2 each
    return n;
}

// Each tensor's place, walking the file's order for the version.
void place_tensors(llama_model& m) {
    const llama_config& c = m.config;
    const std::size_t d = std::size_t(c.dim), h = std::size_t(c.hidden_dim), L = std::size_t(c.n_layers),
                      V = std::size_t(c.vocab_size), kv = std::size_t(c.kv_dim());
    std::size_t at = 0;
    const auto take = [&at, &m](std::size_t n) {
        const llama_tensor t{m.weights.bytes + at * sizeof(float), n};
        at += n;
        return t;
    };
    m.layers.assign(L, {});
    // One tensor per layer, the layers one after another.
    const auto each_layer = [&](llama_tensor llama_layer_tensors::*field, std::size_t n) {
        for (llama_layer_tensors& l : m.layers)
            l.*field = take(n);
    };
    using T = llama_layer_tensors;
    if (c.version == 0) {
        m.token_embedding = take(V * d);
        each_layer(&T::rms_att, d);
    } else {
        each_layer(&T::rms_att, d);
        each_layer(&T::rms_ffn, d);
        m.rms_final = take(d);
        m.token_embedding = take(V * d);
    }
    each_layer(&T::wq, d * d);
    each_layer(&T::wk, kv * d);
    each_layer(&T::wv, kv * d);
    each_layer(&T::wo, d * d);
    if (c.version == 0)
        each_layer(&T::rms_ffn, d);
    each_layer(&T::w1, h * d);
    each_layer(&T::w2, d * h);
    each_layer(&T::w3, h * d);
    if (c.version == 0) {
        m.rms_final = take(d);
        take(std::size_t(c.seq_len) * std::size_t(c.head_size()));  // the RoPE tables: recomputed, not read
    }
    m.classifier = c.shared_classifier ? m.token_embedding : take(V * d);
}

// The first non-finite weight, named by its tensor ("layer 2's wq, element 17").
std::string non_finite(const llama_model& m) {
    const auto bad = [&m](const llama_tensor& t) {
        for (std::size_t i = 0; i < t.size; ++i)
            if (!std::isfinite(m.at(t)[i]))
                return std::int64_t(i);
        return std::int64_t(-1);
    };
    const auto said = [](const std::string& name, std::int64_t i, float v) {
        return name + " holds " + (std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf") + " at element " + std::to_string(i);
    };
    const std::pair<const char*, const llama_tensor*> whole[] = {
        {"token_embedding", &m.token_embedding}, {"rms_final", &m.rms_final}, {"classifier", &m.classifier}};
    for (const auto& [name, t] : whole)
        if (const std::int64_t i = bad(*t); i >= 0)
            return said(name, i, m.at(*t)[i]);
    using T = llama_layer_tensors;
    const std::pair<const char*, llama_tensor T::*> fields[] = {
        {"rms_att", &T::rms_att}, {"wq", &T::wq}, {"wk", &T::wk}, {"wv", &T::wv}, {"wo", &T::wo},
        {"rms_ffn", &T::rms_ffn}, {"w1", &T::w1}, {"w2", &T::w2}, {"w3", &T::w3}};
    for (std::size_t l = 0; l < m.layers.size(); ++l)
        for (const auto& [name, field] : fields)
            if (const std::int64_t i = bad(m.layers[l].*field); i >= 0)
                return said("layer " + std::to_string(l) + "'s " + name, i, m.at(m.layers[l].*field)[i]);
    return "";
}

std::size_t header_bytes(const llama_config& c) { return c.version == 0 ? v0_header : v1_header; }

}  // namespace

std::int64_t llama_checkpoint_bytes(const llama_config& c) { return std::int64_t(header_bytes(c)) + weight_floats(c) * 4; }

bool llama_checkpoint_fields(const unsigned char* bytes, std::size_t size, llama_config& out, std::string* error) {
    out = llama_config{};
    if (!bytes || size < v0_header)
        return fail(error, "the file is " + std::to_string(size) + " bytes: too short for a llama2.c checkpoint's header");
    llama_config c;
    const unsigned char* fields = bytes;
    std::uint32_t magic = 0;
    std::memcpy(&magic, bytes, 4);
    if (magic == magic_ak42) {
        if (size < v1_header)
            return fail(error, "the file is " + std::to_string(size) + " bytes: too short for its 256-byte header");
        c.version = read_i32(bytes + 4);
        if (c.version == 2)
            return fail(error,
                        "version 2 (Q8_0, int8 weights) is not read here: export the model with --version 1 "
                        "(fp32) instead");
        if (c.version != 1)
            return fail(error, "unknown checkpoint version " + std::to_string(c.version) + " (0 and 1 are read)");
        fields = bytes + 8;
        const unsigned char shared = bytes[8 + 7 * 4];
        if (shared > 1)
            return fail(error, "the header's shared-classifier flag is " + std::to_string(int(shared)) + ", not 0 or 1");
        c.shared_classifier = shared == 1;
    }
    c.dim = read_i32(fields);
    c.hidden_dim = read_i32(fields + 4);
    c.n_layers = read_i32(fields + 8);
    c.n_heads = read_i32(fields + 12);
    c.n_kv_heads = read_i32(fields + 16);
    const std::int32_t vocab = read_i32(fields + 20);
    c.seq_len = read_i32(fields + 24);
    if (c.version == 0) {  // a negative vocab_size: the classifier is its own tensor
        c.shared_classifier = vocab > 0;
        c.vocab_size = vocab == INT32_MIN ? 0 : vocab < 0 ? -vocab : vocab;
    } else {
        c.vocab_size = vocab;
    }
    if (!check_fields(c, error))
        return false;
    if (weight_floats(c) > llama_limits::max_floats)
        return fail(error, "the model has " + std::to_string(weight_floats(c)) + " weights, more than the " +
                               std::to_string(llama_limits::max_floats) + " the page can hold");
    out = c;
    return true;
}

bool llama_checkpoint_header(const unsigned char* bytes, std::size_t size, llama_config& out, std::string* error) {
    llama_config c;
    if (!llama_checkpoint_fields(bytes, size, c, error))
        return false;
    const std::int64_t want = llama_checkpoint_bytes(c);
    if (std::int64_t(size) != want)
        return fail(error, std::string(std::int64_t(size) < want ? "the file is truncated: " : "the file is too long: ") +
                               std::to_string(size) + " bytes, where its header (dim " + std::to_string(c.dim) + ", " +
                               std::to_string(c.n_layers) + " layers, vocab " + std::to_string(c.vocab_size) + ") describes " +
                               std::to_string(want));
    out = c;
    return true;
}

namespace {

// The header checked, then the weights taken from `bytes` where they lie (keeping
// `owner`) or, without an owner or aligned floats, copied into one buffer
// (allocated once, after every check, not zero-filled first).
bool read_checkpoint(const unsigned char* bytes, std::size_t size, std::shared_ptr<const void> owner, llama_model& out,
                     std::string* error) {
    out = llama_model{};
    llama_config c;
    if (!llama_checkpoint_header(bytes, size, c, error))
        return false;
    llama_model m;
    m.config = c;
    const std::size_t floats = std::size_t(weight_floats(c));
    const unsigned char* first = bytes + header_bytes(c);
    if (owner && reinterpret_cast<std::uintptr_t>(first) % alignof(float) == 0) {
        m.weights = {std::move(owner), first, floats * sizeof(float)};
    } else {
        std::shared_ptr<float[]> own(new float[floats]);
        std::memcpy(own.get(), first, floats * sizeof(float));
        m.weights = {std::shared_ptr<const void>(own, own.get()), reinterpret_cast<const unsigned char*>(own.get()),
                     floats * sizeof(float)};
    }
    place_tensors(m);
    if (const std::string bad = non_finite(m); !bad.empty())
        return fail(error, bad);
    out = std::move(m);
    return true;
}

}  // namespace

bool llama_checkpoint_read(const unsigned char* bytes, std::size_t size, llama_model& out, std::string* error) {
    return read_checkpoint(bytes, size, nullptr, out, error);
}

bool llama_checkpoint_adopt(std::shared_ptr<const unsigned char> file, std::size_t size, llama_model& out, std::string* error) {
    const unsigned char* bytes = file.get();
    return read_checkpoint(bytes, size, std::move(file), out, error);
}

std::size_t llama_parameters(const llama_model& m) {
    std::size_t n = m.token_embedding.size + m.rms_final.size + m.position_embedding.size + m.norm_final_bias.size;
    if (m.classifier.data != m.token_embedding.data || m.classifier.size != m.token_embedding.size)
        n += m.classifier.size;
    for (const llama_layer_tensors& l : m.layers)
        for (const llama_tensor* t : {&l.rms_att, &l.wq, &l.wk, &l.wv, &l.wo, &l.rms_ffn, &l.w1, &l.w2, &l.w3, &l.bq, &l.bk,
                                      &l.bv, &l.norm_att_bias, &l.norm_ffn_bias, &l.bo, &l.b1, &l.b2})
            n += t->size;
    return n;
}

void llama_floats(const llama_model&, const llama_tensor& t, std::size_t first, std::size_t count, float* out) {
    if (t.type == weight_type::f32)
        std::memcpy(out, t.data + first * sizeof(float), count * sizeof(float));
    else
        kernel_widen_16(reinterpret_cast<const std::uint16_t*>(t.data) + first, t.type == weight_type::bf16, out, count);
}

std::vector<float> llama_floats(const llama_model& m, const llama_tensor& t) {
    std::vector<float> out(t.size);
    llama_floats(m, t, 0, t.size, out.data());
    return out;
}

void llama_matmul_bt(const float* x, const llama_model& m, const llama_tensor& w, std::size_t first_row, float* y, int n, int out,
                     int in) {
    const void* rows = m.row(w, first_row, std::size_t(in));
    if (w.type == weight_type::f32)
        kernel_matmul_bt(x, static_cast<const float*>(rows), y, n, out, in);
    else
        kernel_matmul_bt_16(x, static_cast<const std::uint16_t*>(rows), w.type == weight_type::bf16, y, n, out, in);
}

llama_file llama_file_read(const std::string& path, std::string& error) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {  // fopen opens a folder, and its "size" is no file's
        error = path + " is a folder, not a file: name the checkpoint (.bin) or tokenizer in it";
        return {};
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        error = "cannot open " + path;
        return {};
    }
    const std::int64_t cap = llama_limits::max_floats * 4 + (std::int64_t(1) << 20);
    std::int64_t size = -1;
    if (std::fseek(f, 0, SEEK_END) == 0)
        size = std::int64_t(std::ftell(f));
    llama_file out;
    if (size < 0 || size > cap || std::fseek(f, 0, SEEK_SET) != 0) {
        error = path + (size > cap ? ": larger than any model this program opens (1.6 GB)" : ": not a file that can be read");
    } else {
        std::shared_ptr<unsigned char[]> bytes(new unsigned char[std::size_t(size) + 1]);  // + 1: an empty file too
        if (std::fread(bytes.get(), 1, std::size_t(size), f) != std::size_t(size) || std::fgetc(f) != EOF)
            error = path + ": a read error (or the file changed while it was read)";
        else
            out = {std::shared_ptr<unsigned char>(bytes, bytes.get()), std::size_t(size)};
    }
    std::fclose(f);
    return out;
}

}  // namespace attn
