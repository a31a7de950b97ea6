// Encoding and decoding with a Hugging Face tokenizer's tables (hf_tokenizer.hpp):
// added tokens, normalizing, pre-tokenizing into words, BPE by merge rank.
#include <algorithm>
#include <queue>

#include "llama/hf_tokenizer.hpp"
#include "llama/unicode_text.hpp"

namespace attn {

namespace {

using tables = hf_tokenizer_tables;

// A piece of the text: plain text to encode, or an added token found in it.
struct segment {
    std::string text;
    int id = -1;  // ≥ 0: an added token
    bool lstrip = false, rstrip = false;
};

using added_list = std::vector<tables::added_token>;
using added_starts = std::array<std::uint32_t, 257>;

// The longest of `tokens` found at text[i] (they are sorted by first byte, the longest first), or nullptr.
const tables::added_token* added_at(const added_list& tokens, const added_starts& starts, std::string_view text, std::size_t i) {
    const auto b = static_cast<unsigned char>(text[i]);
    for (std::uint32_t k = starts[b]; k < starts[b + 1u]; ++k)
        if (text.compare(i, tokens[k].content.size(), tokens[k].content) == 0)
            return &tokens[k];
    return nullptr;
}

// The text cut at the added tokens found in it, leftmost first.
std::vector<segment> split_added(std::string_view text, const added_list& tokens, const added_starts& starts) {
    std::vector<segment> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size() && !tokens.empty();) {
        const tables::added_token* a = added_at(tokens, starts, text, i);
        if (!a) {
            ++i;
            continue;
        }
        if (i > start)
            out.push_back({std::string(text.substr(start, i - start))});
        out.push_back({a->content, a->id, a->lstrip, a->rstrip});
        i += a->content.size();
        start = i;
    }
    if (start < text.size())
        out.push_back({std::string(text.substr(start))});
    return out;
}

void trim(std::string& s, bool front) {
    std::u32string c = utf8_decode(s);
    std::size_t a = 0, b = c.size();
    while (front && a < b && unicode_is_space(c[a]))
        ++a;
    while (!front && b > a && unicode_is_space(c[b - 1]))
        --b;
    s = utf8_encode(std::u32string_view(c).substr(a, b - a));
}

// lstrip / rstrip: an added token eats the white space beside it.
void strip_beside(std::vector<segment>& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i].id < 0)
            continue;
        if (s[i].lstrip && i > 0 && s[i - 1].id < 0)
            trim(s[i - 1].text, false);
        if (s[i].rstrip && i + 1 < s.size() && s[i + 1].id < 0)
            trim(s[i + 1].text, true);
    }
}

// Each word cut at the ends of the pattern's matches.
std::vector<std::string> split_words(const std::vector<std::string>& words, hf_split_pattern p) {
    std::vector<std::string> out;
    for (const std::string& w : words) {
        const std::u32string c = utf8_decode(w);
        std::size_t start = 0;
        for (const std::size_t end : hf_split(p, c)) {
            out.push_back(utf8_encode(std::u32string_view(c).substr(start, end - start)));
            start = end;
        }
    }
    return out;
}

std::string replace_all(std::string s, std::string_view what, std::string_view with) {
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
        s.replace(at, what.size(), with);
    return s;
}

// Metaspace: spaces as the replacement, one prepended, words cut before each replacement.
std::vector<std::string> metaspace(const tables& t, std::string w, bool first) {
    w = replace_all(std::move(w), " ", t.replacement);
    const bool prepend = t.prepend == tables::prepend_scheme::always || (t.prepend == tables::prepend_scheme::first && first);
    if (prepend && w.compare(0, t.replacement.size(), t.replacement) != 0)
        w = t.replacement + w;
    if (!t.metaspace_split)
        return {w};
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t at = w.find(t.replacement, 1); at != std::string::npos; at = w.find(t.replacement, at + 1)) {
        if (at > start)
            out.push_back(w.substr(start, at - start));
        start = at;
    }
    out.push_back(w.substr(start));
    return out;
}

std::vector<std::string> pre_tokenize(const tables& t, const std::string& text, bool first_section) {
    std::vector<std::string> words{text};
    for (const hf_split_pattern p : t.splits)
        words = split_words(words, p);
    if (t.metaspace)
        return metaspace(t, text, first_section);
    if (!t.byte_level)
        return words;
    for (std::string& w : words)
        if (t.add_prefix_space && (w.empty() || w[0] != ' '))
            w.insert(w.begin(), ' ');
    return t.byte_level_regex ? split_words(words, hf_split_pattern::gpt2) : words;
}

int vocab_id(const tables& t, const std::string& s) {
    const auto it = t.vocab.find(s);
    return it == t.vocab.end() ? -1 : it->second;
}

// A word's first symbols: its bytes (byte-level) or characters, each its token,
// else its bytes' <0xNN> tokens (byte fallback), else <unk> (consecutive ones fused
// when fuse_unk), else nothing.
std::vector<int> symbols(const tables& t, const std::string& word) {
    std::vector<int> out;
    const std::u32string cps = t.byte_level ? std::u32string() : utf8_decode(word);
    const std::size_t n = t.byte_level ? word.size() : cps.size();
    std::string ch;
    for (std::size_t i = 0; i < n; ++i) {
        ch = t.byte_level ? std::string(1, word[i]) : utf8_encode(std::u32string_view(cps).substr(i, 1));
        if (const int id = vocab_id(t, ch); id >= 0) {
            out.push_back(id);
            continue;
        }
        const bool bytes = t.byte_fallback && std::all_of(ch.begin(), ch.end(), [&](char b) {
                               return t.byte_tokens[static_cast<unsigned char>(b)] >= 0;
                           });
        if (bytes)
            for (const char b : ch)
                out.push_back(t.byte_tokens[static_cast<unsigned char>(b)]);
        else if (t.unk >= 0 && !(t.fuse_unk && !out.empty() && out.back() == t.unk))
            out.push_back(t.unk);
    }
    return out;
}

// BPE: the pair of adjacent symbols with the lowest merge rank joins (leftmost
// on ties) until no pair has a merge. A heap of candidate pairs, each checked
// still current when it comes up: O(n log n) in the word's length.
void merge_word(const tables& t, std::vector<int>& s) {
    const int n = int(s.size());
    std::vector<int> next(static_cast<std::size_t>(n)), prev(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        next[std::size_t(i)] = i + 1 < n ? i + 1 : -1, prev[std::size_t(i)] = i - 1;
    struct cand {
        int rank, left, a, b, id;
        bool operator>(const cand& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<cand, std::vector<cand>, std::greater<cand>> heap;
    const auto offer = [&](int left) {
        if (left < 0 || next[std::size_t(left)] < 0)
            return;
        const int a = s[std::size_t(left)], b = s[std::size_t(next[std::size_t(left)])];
        const auto it = t.merges.find(std::uint64_t(std::uint32_t(a)) << 32 | std::uint32_t(b));
        if (it != t.merges.end())
            heap.push({it->second.rank, left, a, b, it->second.id});
    };
    for (int i = 0; i + 1 < n; ++i)
        offer(i);
    while (!heap.empty()) {
        const cand c = heap.top();
        heap.pop();
        const int right = next[std::size_t(c.left)];
        if (s[std::size_t(c.left)] != c.a || right < 0 || s[std::size_t(right)] != c.b)
            continue;  // stale: one side merged since
        s[std::size_t(c.left)] = c.id;
        s[std::size_t(right)] = -1;
        next[std::size_t(c.left)] = next[std::size_t(right)];
        if (next[std::size_t(right)] >= 0)
            prev[std::size_t(next[std::size_t(right)])] = c.left;
        offer(prev[std::size_t(c.left)]);
        offer(c.left);
    }
    s.erase(std::remove(s.begin(), s.end(), -1), s.end());
}

void encode_word(const tables& t, const std::string& word, std::vector<int>& out) {
    if (word.empty())
        return;
    if (t.ignore_merges)
        if (const int id = vocab_id(t, word); id >= 0) {
            out.push_back(id);
            return;
        }
    std::vector<int> s = symbols(t, word);
    merge_word(t, s);
    out.insert(out.end(), s.begin(), s.end());
}

// A text between added tokens: normalized, cut at the normalized added tokens, pre-tokenized, encoded.
void encode_section(const tables& t, const std::string& text, bool first_section, std::vector<int>& out) {
    std::vector<segment> parts = split_added(hf_normalize(t, text), t.normalized_added, t.normalized_starts);
    strip_beside(parts);
    for (const segment& p : parts) {
        if (p.id >= 0) {
            out.push_back(p.id);
            continue;
        }
        if (p.text.empty())
            continue;
        for (const std::string& w : pre_tokenize(t, p.text, first_section))
            encode_word(t, w, out);
    }
}

// The byte of a byte token "<0xNN>", else −1.
int byte_of(const std::string& piece) {
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>')
        return -1;
    int v = 0;
    for (const char c : piece.substr(3, 2)) {
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                             : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

}  // namespace

std::vector<int> hf_encode(const llama_tokenizer& tok, std::string_view text, bool bos, bool eos) {
    const tables& t = *tok.hf;
    std::vector<int> out;
    if (bos)
        out = t.prefix;
    std::vector<segment> sections = split_added(text, t.raw_added, t.raw_starts);
    strip_beside(sections);
    for (std::size_t i = 0; i < sections.size(); ++i) {
        if (sections[i].id >= 0)
            out.push_back(sections[i].id);
        else if (!sections[i].text.empty())
            encode_section(t, sections[i].text, i == 0, out);
    }
    if (bos)
        out.insert(out.end(), t.suffix.begin(), t.suffix.end());
    if (eos && tok.eos >= 0)
        out.push_back(tok.eos);
    return out;
}

std::string hf_decode_piece(const llama_tokenizer& tok, int previous, int token) {
    if (token < 0 || token >= int(tok.pieces.size()))
        return "";
    std::string piece = tok.pieces[std::size_t(token)];
    const tables& t = *tok.hf;
    if (tok.kind == llama_tokenizer_kind::hf_byte_level)
        return piece;
    if (const int b = t.decode_bytes ? byte_of(piece) : -1; b >= 0)
        piece = std::string(1, char(b));
    if (t.strip_first_space && (previous < 0 || previous == tok.bos) && !piece.empty() && piece[0] == ' ')
        piece.erase(0, 1);
    return piece;
}

}  // namespace attn
