// Links: the canonical text form or its compressed form, plus view options.
//
// [SECTION] dictionary      the frozen text the method-1 compressor may copy from
// [SECTION] range coder     LZMA-style binary arithmetic coder, 11-bit probabilities
// [SECTION] token model     literals (order-0), match flag, lengths and distances
// [SECTION] compress        LZ77 parse (hash chains, priced against literals) and payload writer
// [SECTION] decompress      bounded payload reader
// [SECTION] base64url
// [SECTION] view options
// [SECTION] link parts     a link cut into its pairs (play/link.cpp opens it from its lesson)
#include "spec/link_codec.hpp"

#include <algorithm>
#include <bit>

#include "base/random.hpp"
#include "base/text_util.hpp"
#include "spec/keys.hpp"

namespace attn {

namespace {

// [SECTION] dictionary

// Method 1 starts every payload as if this text came before it, so the keys and
// common values of the canonical form cost a short copy each. FROZEN: links in the
// wild depend on every byte; a better dictionary needs a new method byte. (It is a
// literal on purpose, not experiment_to_text(experiment{}), whose defaults may change.)
constexpr std::string_view dictionary_v1 =
    "&weights=specialised&weights=cancel&weights=sink&block=full&pos=sin&pos=rope&mask=none&mask=padding"
    "&softmax=no_max&softmax=argmax&scale=none&mask_at=after&wo=off&precision=fp16&precision=bf16&heads=1&heads=4"
    "&edits=l1.w_1.l1.w_2.l0.w_1.l0.w_2.l0.w_o.l0.w_v.l0.w_k.l0.w_q.x.0.1:0.5,%E7%8C%AB%E8%BF%BD%E7%8B%97%20"
    "v=1&text=the%20cat%20chased%20the%20dog&seed=1&d_model=8&heads=2&kv_heads=2&layers=1&block=attn&weights=random"
    "&pos=none&rope_base=10000&pos_offset=0&mask=causal&pad=0&edges=&scale=sqrt&softmax=stable&temp=1&mask_at=before"
    "&wo=on&precision=fp32&ablate=&decode=0&edits=";

constexpr unsigned char method_v1 = 1;
constexpr int min_match = 3;
constexpr int max_match = 4096;
constexpr std::size_t check_bytes = 3;

// [SECTION] range coder

constexpr int prob_bits = 11;
constexpr std::uint16_t prob_one = 1 << prob_bits;
constexpr std::uint16_t prob_half = prob_one / 2;
constexpr int move_bits = 4;  // fast adaptation: payloads are a few hundred bytes
constexpr std::uint32_t range_top = 1u << 24;

class range_encoder {
  public:
    void bit(std::uint16_t& p, int b) {
        const std::uint32_t bound = (range_ >> prob_bits) * p;
        if (b == 0) {
            range_ = bound;
            p = std::uint16_t(p + ((prob_one - p) >> move_bits));
        } else {
            low_ += bound;
            range_ -= bound;
            p = std::uint16_t(p - (p >> move_bits));
        }
        while (range_ < range_top) {
            range_ <<= 8;
            shift_low();
        }
    }
    // The stream without its first byte (always 0) and without trailing zeros,
    // which the decoder reads back as zeros past the end.
    std::string finish() {
        for (int i = 0; i < 5; ++i)
            shift_low();
        std::string s = out_.substr(std::min<std::size_t>(1, out_.size()));
        while (!s.empty() && s.back() == '\0')
            s.pop_back();
        return s;
    }

  private:
    void shift_low() {
        if (std::uint32_t(low_) < 0xFF000000u || (low_ >> 32) != 0) {
            const auto carry = std::uint8_t(low_ >> 32);
            std::uint8_t byte = cache_;
            do {
                out_ += char(std::uint8_t(byte + carry));
                byte = 0xFF;
            } while (--pending_ != 0);
            cache_ = std::uint8_t(low_ >> 24);
        }
        ++pending_;
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    std::uint64_t low_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu;
    std::uint8_t cache_ = 0;
    std::uint64_t pending_ = 1;
    std::string out_;
};

class range_decoder {
  public:
    explicit range_decoder(std::string_view in) : in_(in) {
        for (int i = 0; i < 4; ++i)
            code_ = (code_ << 8) | next();
    }
    int bit(std::uint16_t& p) {
        const std::uint32_t bound = (range_ >> prob_bits) * p;
        int b = 0;
        if (code_ < bound) {
            range_ = bound;
            p = std::uint16_t(p + ((prob_one - p) >> move_bits));
        } else {
            code_ -= bound;
            range_ -= bound;
            p = std::uint16_t(p - (p >> move_bits));
            b = 1;
        }
        while (range_ < range_top) {
            range_ <<= 8;
            code_ = (code_ << 8) | next();
        }
        return b;
    }
    std::size_t unread() const { return in_.size() - pos_; }

  private:
    // Past the end reads zeros: the encoder leaves trailing zeros out. Bounded:
    // the caller stops after the declared size, a few reads per output byte.
    std::uint32_t next() { return pos_ < in_.size() ? std::uint8_t(in_[pos_++]) : 0u; }

    std::string_view in_;
    std::size_t pos_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu, code_ = 0;
};

// [SECTION] token model

// Elias-gamma with adaptive bits: v >= 1 as k = floor(log2 v) in unary, then the
// k bits below the leading one. k <= gamma_bits, so v < 2^(gamma_bits + 1).
constexpr int gamma_bits = 16;
constexpr std::uint32_t gamma_max = (2u << gamma_bits) - 1;

struct gamma_model {
    std::array<std::uint16_t, gamma_bits> unary;
    std::array<std::array<std::uint16_t, gamma_bits>, gamma_bits + 1> low;
    gamma_model() {
        unary.fill(prob_half);
        for (auto& row : low)
            row.fill(prob_half);
    }
    void encode(range_encoder& rc, std::uint32_t v) {
        const int k = int(std::bit_width(v)) - 1;
        for (int i = 0; i < k; ++i)
            rc.bit(unary[std::size_t(i)], 1);
        if (k < gamma_bits)
            rc.bit(unary[std::size_t(k)], 0);
        for (int j = k - 1; j >= 0; --j)
            rc.bit(low[std::size_t(k)][std::size_t(j)], int((v >> j) & 1));
    }
    std::uint32_t decode(range_decoder& rc) {
        int k = 0;
        while (k < gamma_bits && rc.bit(unary[std::size_t(k)]))
            ++k;
        std::uint32_t v = 1;
        for (int j = k - 1; j >= 0; --j)
            v = (v << 1) | std::uint32_t(rc.bit(low[std::size_t(k)][std::size_t(j)]));
        return v;
    }
};

// What the model conditions on: the previous byte, for the match flag (after
// '=' a default value is likely copied, after a digit another digit follows).
// Literals are order-0: payloads are too short to train more contexts (order-1
// and order-2 variants measured 2-4% longer on the tests' links).
struct text_context {
    unsigned char prev = 0;
    void push(unsigned char c) { prev = c; }
};

// ~2 KB, allocated only after the payload's header has been checked.
struct token_model {
    std::array<std::uint16_t, 256> literal;       // bit-tree nodes 1..255
    std::array<std::uint16_t, 2 * 256> is_match;  // [last token was a match][previous byte]
    gamma_model length, distance;
    token_model() {
        literal.fill(prob_half);
        is_match.fill(prob_half);
    }

    std::uint16_t* literal_tree(const text_context&) { return literal.data(); }
    const std::uint16_t* literal_tree(const text_context&) const { return literal.data(); }
    std::uint16_t& match_flag(bool last_match, const text_context& c) { return is_match[(last_match ? 256u : 0u) + c.prev]; }
    std::uint16_t match_flag(bool last_match, const text_context& c) const { return is_match[(last_match ? 256u : 0u) + c.prev]; }
};

text_context context_after(std::string_view s) {
    text_context c;
    for (char ch : s)
        c.push(std::uint8_t(ch));
    return c;
}

// [SECTION] compress

// The cost of coding a bit, in 1/16 bit, by LZMA's integer method (no libm, so
// the encoder's choices, and its bytes, are the same natively and in wasm).
struct price_table {
    std::array<std::uint32_t, prob_one / 16> of;
    price_table() {
        for (std::uint32_t i = 8; i < prob_one; i += 16) {
            std::uint32_t w = i, bits = 0;
            for (int j = 0; j < 4; ++j) {
                w *= w;
                bits <<= 1;
                while (w >= (1u << 16)) {
                    w >>= 1;
                    ++bits;
                }
            }
            of[i >> 4] = (std::uint32_t(prob_bits) << 4) - 15 - bits;
        }
    }
    std::uint32_t bit(std::uint16_t p, int b) const { return of[(b ? prob_one - p : p) >> 4]; }
};
const price_table prices;

std::uint32_t gamma_price(const gamma_model& m, std::uint32_t v) {
    const int k = int(std::bit_width(v)) - 1;
    std::uint32_t sum = 0;
    for (int i = 0; i < k; ++i)
        sum += prices.bit(m.unary[std::size_t(i)], 1);
    if (k < gamma_bits)
        sum += prices.bit(m.unary[std::size_t(k)], 0);
    for (int j = k - 1; j >= 0; --j)
        sum += prices.bit(m.low[std::size_t(k)][std::size_t(j)], int((v >> j) & 1));
    return sum;
}

// Writes tokens while following the decoder's window, so both see the same contexts.
class token_writer {
  public:
    token_writer() : window_(dictionary_v1), context_(context_after(dictionary_v1)) {}

    void literal(unsigned char c) {
        rc_.bit(model_.match_flag(last_match_, context_), 0);
        std::uint16_t* tree = model_.literal_tree(context_);
        unsigned node = 1;
        for (int b = 7; b >= 0; --b) {
            const unsigned bit = (c >> b) & 1u;
            rc_.bit(tree[node], int(bit));
            node = (node << 1) | bit;
        }
        window_ += char(c);
        context_.push(c);
        last_match_ = false;
    }
    // A copy before the start (only from hostile test tokens) fills with zeros:
    // nothing decodes past it.
    void match(std::uint32_t length, std::uint32_t distance) {
        rc_.bit(model_.match_flag(last_match_, context_), 1);
        model_.length.encode(rc_, length - std::uint32_t(min_match - 1));
        model_.distance.encode(rc_, distance);
        for (std::uint32_t k = 0; k < length; ++k) {
            window_ += distance <= window_.size() ? window_[window_.size() - distance] : '\0';
            context_.push(std::uint8_t(window_.back()));
        }
        last_match_ = true;
    }
    std::uint32_t match_price(std::uint32_t length, std::uint32_t distance) const {
        return prices.bit(model_.match_flag(last_match_, context_), 1) +
               gamma_price(model_.length, length - std::uint32_t(min_match - 1)) + gamma_price(model_.distance, distance);
    }
    // The price of `bytes` as literals under the current model (not updated as it goes).
    std::uint32_t literals_price(std::string_view bytes) const {
        text_context c = context_;
        bool last_match = last_match_;
        std::uint32_t sum = 0;
        for (const char ch : bytes) {
            const auto byte = std::uint8_t(ch);
            sum += prices.bit(model_.match_flag(last_match, c), 0);
            const std::uint16_t* tree = model_.literal_tree(c);
            unsigned node = 1;
            for (int b = 7; b >= 0; --b) {
                const unsigned bit = (byte >> b) & 1u;
                sum += prices.bit(tree[node], int(bit));
                node = (node << 1) | bit;
            }
            c.push(byte);
            last_match = false;
        }
        return sum;
    }
    std::string finish() { return rc_.finish(); }

  private:
    token_model model_;
    range_encoder rc_;
    std::string window_;
    text_context context_;
    bool last_match_ = false;
};

// LZ77 over (dictionary ‖ text) with hash chains; a copy is taken when it costs
// fewer bits than its bytes as literals under the current model, one byte later
// when that gives a longer copy.
void compress_tokens(std::string_view text, token_writer& out) {
    std::string buf(dictionary_v1);
    buf += text;
    const std::size_t start = dictionary_v1.size(), n = buf.size();
    constexpr int hash_bits = 14, max_chain = 256;
    std::vector<int> head(std::size_t(1) << hash_bits, -1), chain(n, -1);
    auto hash3 = [&buf](std::size_t i) {
        const std::uint32_t x =
            std::uint32_t(std::uint8_t(buf[i])) << 16 | std::uint32_t(std::uint8_t(buf[i + 1])) << 8 | std::uint8_t(buf[i + 2]);
        return (x * 2654435761u) >> (32 - hash_bits);
    };
    auto insert = [&](std::size_t i) {
        if (i + 3 > n)
            return;
        const auto h = hash3(i);
        chain[i] = head[h];
        head[h] = int(i);
    };
    struct match {
        std::uint32_t length = 0, distance = 0;
    };
    auto longest = [&](std::size_t i) {
        match best;
        const auto limit = std::uint32_t(std::min<std::size_t>(n - i, max_match));
        if (limit < min_match)
            return best;
        int depth = max_chain;
        for (int cand = head[hash3(i)]; cand >= 0 && depth-- > 0; cand = chain[std::size_t(cand)]) {
            std::uint32_t l = 0;
            while (l < limit && buf[std::size_t(cand) + l] == buf[i + l])
                ++l;
            if (l > best.length) {
                best = {l, std::uint32_t(i - std::size_t(cand))};
                if (l == limit)
                    break;
            }
        }
        return best;
    };

    for (std::size_t i = 0; i < start; ++i)
        insert(i);
    std::size_t i = start;
    while (i < n) {
        const match m = longest(i);
        insert(i);
        const bool worth = m.length >= min_match &&
                           out.match_price(m.length, m.distance) < out.literals_price(std::string_view(buf).substr(i, m.length));
        if (worth && (i + 1 >= n || longest(i + 1).length <= m.length + 1)) {
            out.match(m.length, m.distance);
            for (std::size_t k = 1; k < m.length; ++k)
                insert(i + k);
            i += m.length;
        } else {
            out.literal(std::uint8_t(buf[i]));
            ++i;
        }
    }
}

void put_varint(std::string& out, std::uint64_t v) {
    do {
        const auto byte = std::uint8_t(v & 0x7F);
        v >>= 7;
        out += char(v ? byte | 0x80 : byte);
    } while (v);
}

// [SECTION] decompress

// The size field after the method byte: a minimal varint of at most 3 bytes (21
// bits, enough for max_payload_bytes) at bytes[pos]. Returns why it is not
// readable, or "" with pos just past it. Capped because a run of 0x80 bytes would
// otherwise keep the value at 0 while the shift grows past 63 (found by
// fuzz_link, tests/fuzz/corpus/crash-varint-shift).
std::string read_size(std::string_view bytes, std::size_t& pos, std::uint64_t& size) {
    constexpr int max_size_bytes = 3;
    for (int shift = 0;; shift += 7) {
        if (shift >= 7 * max_size_bytes)
            return "payload size field is longer than " + std::to_string(max_size_bytes) + " bytes";
        if (pos >= bytes.size())
            return "payload is truncated in its size field";
        const auto byte = std::uint8_t(bytes[pos++]);
        size |= std::uint64_t(byte & 0x7F) << shift;
        if (size > link_limits::max_payload_bytes)
            return "payload claims " + std::to_string(size) + " bytes; the limit is " +
                   std::to_string(link_limits::max_payload_bytes);
        if (!(byte & 0x80))
            return byte == 0 && shift > 0 ? "payload size field is not minimal" : "";
    }
}

// The header of a payload: its length, method byte, size and check. Returns why
// it is not readable, or "" with pos just past it.
std::string read_header(std::string_view bytes, std::size_t& pos, std::uint64_t& size, std::uint32_t& check) {
    if (bytes.size() > link_limits::max_link_bytes)
        return "payload is " + std::to_string(bytes.size()) + " bytes; the limit is " +
               std::to_string(link_limits::max_link_bytes);
    if (bytes.empty())
        return "payload is empty";
    if (std::uint8_t(bytes[0]) != method_v1)
        return "unknown compression method " + std::to_string(std::uint8_t(bytes[0])) + " (this build reads method " +
               std::to_string(method_v1) + ")";
    pos = 1;
    if (std::string problem = read_size(bytes, pos, size); !problem.empty())
        return problem;
    if (bytes.size() - pos < check_bytes)
        return "payload is truncated in its check field";
    for (std::size_t i = 0; i < check_bytes; ++i)
        check |= std::uint32_t(std::uint8_t(bytes[pos++])) << (8 * i);
    return {};
}

// The tokens after the header (matches and literals) decoded onto window, which
// holds the dictionary, until it has `size` bytes more. Returns why they do not
// decode, or "".
std::string decode_tokens(std::string_view body, std::uint64_t size, std::string& window) {
    const std::size_t start = window.size(), end = start + std::size_t(size);
    token_model model;
    range_decoder rc(body);
    bool last_match = false;
    text_context context = context_after(window);
    while (window.size() < end) {
        if (rc.bit(model.match_flag(last_match, context))) {
            const std::uint32_t length = model.length.decode(rc) + std::uint32_t(min_match - 1);
            const std::uint32_t distance = model.distance.decode(rc);
            const std::size_t at = window.size() - start;
            if (distance > window.size())
                return "payload copies from " + std::to_string(distance) + " bytes back at byte " + std::to_string(at) +
                       ", before the start";
            if (length > end - window.size())
                return "payload copies " + std::to_string(length) + " bytes at byte " + std::to_string(at) +
                       ", past its declared size " + std::to_string(size);
            // Byte by byte: a copy may overlap what it writes (a run).
            for (std::size_t from = window.size() - distance, k = 0; k < length; ++k) {
                window += window[from + k];
                context.push(std::uint8_t(window.back()));
            }
            last_match = true;
        } else {
            std::uint16_t* tree = model.literal_tree(context);
            unsigned node = 1;
            while (node < 256)
                node = (node << 1) | unsigned(rc.bit(tree[node]));
            window += char(std::uint8_t(node - 256));
            context.push(std::uint8_t(node - 256));
            last_match = false;
        }
    }
    if (rc.unread() != 0)
        return "payload has " + std::to_string(rc.unread()) + " unused bytes at the end";
    return {};
}

std::optional<std::string> decompress(std::string_view bytes, std::string& error) {
    std::size_t pos = 0;
    std::uint64_t size = 0;
    std::uint32_t check = 0;
    if (std::string problem = read_header(bytes, pos, size, check); !problem.empty()) {
        error = std::move(problem);
        return std::nullopt;
    }
    // Sizes are known good: only now allocate (window + model, both bounded).
    std::string window;
    window.reserve(dictionary_v1.size() + std::size_t(size));
    window = dictionary_v1;
    if (std::string problem = decode_tokens(bytes.substr(pos), size, window); !problem.empty()) {
        error = std::move(problem);
        return std::nullopt;
    }
    window.erase(0, dictionary_v1.size());  // in place: the peak stays one window
    if (link_payload_check(window) != check) {
        error = "payload is damaged or truncated (its check does not match)";
        return std::nullopt;
    }
    return window;
}

// [SECTION] base64url

constexpr char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

// [SECTION] view options

// One "view.key=value" pair into v, read by its row of the key table (keys.hpp);
// problems into errors (a row reports one a line).
void parse_view_pair(std::string_view pair, link_view& v, std::vector<std::string>& seen, std::vector<std::string>& errors) {
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
        errors.push_back("expected view.key=value, got " + quoted(pair));
        return;
    }
    const std::string key(pair.substr(0, eq));
    const std::string_view value = pair.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        errors.push_back(quoted(key) + " is given twice");
        return;
    }
    seen.push_back(key);
    const key_row* k = key_find(key, key_part::view);
    if (!k) {
        std::string names;
        for (const key_row& row : key_table())
            if (row.part == key_part::view)
                names += (names.empty() ? "" : ", ") + std::string(row.name);
        errors.push_back("unknown view option " + quoted(key) + " (" + names + ")");
        return;
    }
    const std::string problems = key_read(*k, v, value);  // split's views point into it
    for (const auto problem : split(problems, '\n'))
        if (!problem.empty())  // ": unknown panel ..." follows the key without a space
            errors.push_back(key + (problem[0] == ':' ? "" : " ") + std::string(problem));
}

// The view keys that differ from link_view{}, in the table's order.
std::string view_to_text(const link_view& v) {
    static const link_view usual{};
    std::string s;
    for (const key_row& k : key_table())
        if (k.part == key_part::view)
            if (std::string value = key_write(k, v); value != key_write(k, usual))
                s += "&" + std::string(k.name) + "=" + value;
    if (!v.model.empty())
        s += "&model=" + v.model;
    if (!v.tokenizer.empty())
        s += "&tokenizer=" + v.tokenizer;
    if (!v.model_url.empty())
        s += "&model_url=" + v.model_url + "&tokenizer_url=" + v.tokenizer_url;
    return s;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

// [SECTION] public codec

std::uint32_t link_payload_check(std::string_view text) { return std::uint32_t(hash_bytes(text) & 0xFFFFFFu); }

namespace {

std::string payload_header(std::uint64_t size, std::uint32_t check) {
    std::string out(1, char(method_v1));
    put_varint(out, size);
    for (std::size_t i = 0; i < check_bytes; ++i)
        out += char(std::uint8_t(check >> (8 * i)));
    return out;
}

}  // namespace

std::string link_payload_from_tokens(const std::vector<link_token>& tokens, std::uint64_t size, std::uint32_t check) {
    token_writer w;
    for (const auto& t : tokens) {
        if (t.length > 0)
            w.match(std::clamp<std::uint32_t>(std::uint32_t(t.length), min_match, gamma_max + min_match - 1),
                    std::clamp<std::uint32_t>(std::uint32_t(std::max(t.distance, 1)), 1, gamma_max));
        else
            w.literal(t.literal);
    }
    return payload_header(size, check) + w.finish();
}

std::string link_compress(std::string_view text) {
    if (text.size() > link_limits::max_payload_bytes)
        return {};
    token_writer w;
    compress_tokens(text, w);
    return payload_header(text.size(), link_payload_check(text)) + w.finish();
}

std::optional<std::string> link_decompress(std::string_view bytes, std::string* error) {
    std::string message;
    auto text = decompress(bytes, message);
    if (!text && error)
        *error = message;
    return text;
}

std::string link_base64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t x = std::uint32_t(std::uint8_t(bytes[i])) << 16 | std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 |
                                std::uint8_t(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6)
            out += base64_alphabet[(x >> s) & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t x = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (rest == 2)
            x |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        for (std::size_t k = 0; k <= rest; ++k)
            out += base64_alphabet[(x >> (18 - 6 * k)) & 63];
    }
    return out;
}

std::optional<std::string> link_base64url_decode(std::string_view text) {
    if (text.size() > link_limits::max_link_bytes || text.size() % 4 == 1)
        return std::nullopt;
    std::string out;
    out.reserve(text.size() / 4 * 3 + 2);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        const int v = base64_value(c);
        if (v < 0)
            return std::nullopt;
        acc = (acc << 6) | std::uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char(std::uint8_t(acc >> bits));
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0)  // stray bits: one string, one byte sequence
        return std::nullopt;
    return out;
}

// [SECTION] link parts

std::string link_view_to_text(const link_view& v) { return view_to_text(v); }

std::string link_model_ref(std::string_view file_name, std::string_view sha256) {
    if (sha256.size() < 16)
        return "";
    const std::size_t slash = file_name.find_last_of("/\\");
    if (slash != std::string_view::npos)
        file_name.remove_prefix(slash + 1);
    std::string out;
    for (const char c : file_name.substr(0, link_limits::max_model_name)) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        out += ok ? c : '_';
    }
    if (out.empty())
        out = "model";
    out += '@';
    for (const char c : sha256.substr(0, 16))
        out += char(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    return link_model_problem(out) ? "" : out;
}

std::optional<std::string> link_model_problem(std::string_view value, std::string_view key) {
    const std::size_t at = value.rfind('@');
    const std::string_view name = at == std::string_view::npos ? value : value.substr(0, at);
    const std::string_view hash = at == std::string_view::npos ? std::string_view() : value.substr(at + 1);
    const auto name_char = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    };
    const auto hex_char = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
    if (at == std::string_view::npos || name.empty() || name.size() > link_limits::max_model_name ||
        !std::all_of(name.begin(), name.end(), name_char) || hash.size() != 16 ||
        !std::all_of(hash.begin(), hash.end(), hex_char))
        return std::string(key) + "=" + quoted(value) +
               " is not <file name>@<16 hex digits> (the name: letters, digits, . _ -, at most " +
               std::to_string(link_limits::max_model_name) + " of them; the digits: the start of the file's SHA-256)";
    return std::nullopt;
}

std::optional<std::string> link_url_problem(std::string_view key, std::string_view value) {
    const auto url_char = [](char c) {
        return c > ' ' && c < 127 && c != '&' && c != '#' && c != '"' && c != '\'' && c != '<' && c != '>' && c != '\\' &&
               c != '`';
    };
    const std::string head = std::string(key) + "=";
    if (value.empty() || value.size() > link_limits::max_url)
        return head + " must be an address of 1 to " + std::to_string(link_limits::max_url) + " characters";
    if (!std::all_of(value.begin(), value.end(), url_char))
        return head + quoted(value.substr(0, 80)) +
               " holds a character an address in a link cannot (percent-encode spaces, '&', '#' and quotes)";
    // A scheme is what precedes the first ':' when no '/', '?' comes before it.
    const std::size_t colon = value.find(':'), cut = value.find_first_of("/?");
    if (colon != std::string_view::npos && (cut == std::string_view::npos || colon < cut)) {
        std::string scheme(value.substr(0, colon));
        for (char& c : scheme)
            c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        if (scheme != "http" && scheme != "https")
            return head + quoted(value.substr(0, 80)) + " is not an http:// or https:// address or a path on this site";
    }
    const auto decoded = percent_decode(value);
    if (!decoded || !utf8_problem(*decoded).empty())
        return head + quoted(value.substr(0, 80)) +
               " is not a percent-encoded address: each % must start two hex digits, and the bytes they make must be "
               "UTF-8 text";
    return std::nullopt;
}

std::string link_shorten(std::string text) {
    if (text.size() > link_limits::compress_above && text.size() <= link_limits::max_payload_bytes) {
        std::string z = "z=" + link_base64url_encode(link_compress(text));
        if (z.size() < text.size())
            return z;
    }
    return text;
}

namespace {

// The text of a compressed value (z= or pin=), or nullopt with the problem in errors.
std::optional<std::string> decode_compressed(std::string_view value, const std::string& key, std::vector<std::string>& errors) {
    const auto bytes = link_base64url_decode(value);
    std::string problem;
    std::optional<std::string> text;
    if (!bytes)
        errors.push_back(key + " is not valid base64url (A-Z a-z 0-9 - _, no padding): is the link complete?");
    else if (!(text = link_decompress(*bytes, &problem)))
        errors.push_back(key + ": " + problem);
    return text;
}

}  // namespace

experiment_parse_result link_parse_from(std::string_view text, const experiment& from) {
    experiment base = from;
    base.train.trained = train_settings::trained_all;
    auto parsed = experiment_parse(text, base);
    if (parsed.value && parsed.value->scale != score_scale::custom)
        parsed.value->scale_value = experiment{}.scale_value;
    return parsed;
}

std::optional<experiment> link_parse_pin(std::string_view value, std::vector<std::string>& errors) {
    const auto text = decode_compressed(value, "pin", errors);
    if (!text)
        return std::nullopt;
    auto parsed = link_parse_from(*text, experiment{});
    for (auto& m : parsed.errors)
        errors.push_back("pin: " + m);
    return parsed.value;
}

namespace {

struct model_keys_seen {
    bool model = false, tokenizer = false, model_url = false, tokenizer_url = false;
};

// The keys naming a real model: where each goes in the link's view, whether it
// was seen, and what is wrong with its value (nullopt: nothing).
struct model_key {
    std::string_view key;
    std::string link_view::*into;
    bool model_keys_seen::*given;
    std::optional<std::string> (*problem)(std::string_view key, std::string_view value);
};
constexpr model_key model_keys[] = {
    {"model", &link_view::model, &model_keys_seen::model,
     [](std::string_view key, std::string_view value) { return link_model_problem(value, key); }},
    {"tokenizer", &link_view::tokenizer, &model_keys_seen::tokenizer,
     [](std::string_view key, std::string_view value) { return link_model_problem(value, key); }},
    {"model_url", &link_view::model_url, &model_keys_seen::model_url, link_url_problem},
    {"tokenizer_url", &link_view::tokenizer_url, &model_keys_seen::tokenizer_url, link_url_problem},
};

// model=, tokenizer=, model_url=, tokenizer_url= into v (false: pair is none of them).
bool model_pair(std::string_view pair, link_view& v, model_keys_seen& seen, std::vector<std::string>& errors) {
    for (const model_key& k : model_keys) {
        if (pair.substr(0, k.key.size()) != k.key || pair.substr(k.key.size(), 1) != "=")
            continue;
        const std::string_view value = pair.substr(k.key.size() + 1);
        bool& given = seen.*k.given;
        if (given)
            errors.push_back(std::string(k.key) + " is given twice");
        else if (auto problem = k.problem(k.key, value))
            errors.push_back(*problem);
        else
            v.*k.into = std::string(value);
        given = true;
        return true;
    }
    return false;
}

void model_pairs_check(const link_view& v, const model_keys_seen& seen, std::vector<std::string>& errors) {
    // A folder's address (ending in '/', or its percent-encoded %2F) holds its tokenizer.json: it takes no tokenizer_url.
    const std::string_view url = v.model_url;
    const bool folder = seen.model_url && (url.ends_with("/") || url.ends_with("%2F") || url.ends_with("%2f"));
    if (folder && seen.tokenizer_url)
        errors.push_back("model_url names a folder (it ends in '/'), which holds its tokenizer.json: no tokenizer_url");
    else if (!folder && seen.model_url != seen.tokenizer_url)
        errors.push_back("model_url and tokenizer_url go together: the checkpoint's address and its tokenizer's");
    else if (!v.model_url.empty() && v.model.empty())
        errors.push_back(
            "model_url needs model=<file name>@<16 hex digits>: the page checks the fetched file's SHA-256 "
            "against it");
    if (!v.tokenizer.empty() && v.model.empty())
        errors.push_back("tokenizer needs model=<file name>@<16 hex digits>: it names that model's tokenizer");
}

}  // namespace

link_parts link_split(std::string_view link) {
    link_parts r;
    auto& errors = r.errors;
    if (link.size() > link_limits::max_link_bytes) {
        errors.push_back("link is " + std::to_string(link.size()) + " bytes; the limit is " +
                         std::to_string(link_limits::max_link_bytes));
        return r;
    }
    if (const std::size_t nul = link.find('\0'); nul != std::string_view::npos) {
        errors.push_back(nul_message(nul));
        return r;
    }
    while (!link.empty() && is_space(link.front()))
        link.remove_prefix(1);
    while (!link.empty() && is_space(link.back()))
        link.remove_suffix(1);
    if (const std::size_t hash = link.find('#'); hash != std::string_view::npos) {
        link.remove_prefix(hash + 1);
    } else if (link.find("://") < link.find_first_of("=&")) {  // a whole address (not one a key holds: model_url=)
        errors.push_back("this address has no '#' part: copy the whole link, including what follows '#'");
        return r;
    }

    std::vector<std::string> view_seen;
    std::vector<std::string_view> experiment_pairs;
    std::optional<std::string_view> compressed;
    bool compressed_twice = false;
    model_keys_seen model_seen;
    for (const auto pair : split(link, '&')) {
        if (pair.empty())
            continue;
        if (pair.substr(0, 5) == "view.") {
            parse_view_pair(pair, r.view, view_seen, errors);
        } else if (model_pair(pair, r.view, model_seen, errors)) {
        } else if (pair.substr(0, 4) == "pin=") {
            r.pin_twice |= r.pin.has_value();
            r.pin = pair.substr(4);
        } else if (pair.substr(0, 2) == "z=") {
            compressed_twice |= compressed.has_value();
            compressed = pair.substr(2);
        } else {
            experiment_pairs.push_back(pair);
        }
    }

    model_pairs_check(r.view, model_seen, errors);
    if (compressed_twice) {
        errors.push_back("z is given twice");
    } else if (compressed && !experiment_pairs.empty()) {
        errors.push_back("a compressed link (z=...) cannot also set experiment keys, but it has " +
                         quoted(experiment_pairs.front()));
    } else if (compressed) {
        r.text = decode_compressed(*compressed, "z", errors);
    } else {
        r.text.emplace();
        for (const auto pair : experiment_pairs) {
            if (!r.text->empty())
                *r.text += '&';
            r.text->append(pair);
        }
    }
    return r;
}

std::vector<std::string> link_view_set(link_view& v, std::string_view pair) {
    std::vector<std::string> seen, errors;
    if (pair.substr(0, 5) != "view.")
        errors.push_back("expected view.key=value, got " + quoted(pair));
    else
        parse_view_pair(pair, v, seen, errors);
    return errors;
}

}  // namespace attn
