// Reading a tokenizer.json (hf_tokenizer.hpp). Sections:
//   [byte alphabet]   GPT-2's bytes ↔ printable characters
//   [model]           BPE: vocab, merges, unk, byte fallback
//   [added tokens]
//   [normalizer] [pre-tokenizer] [post-processor] [decoder]
//   [pieces]          each id's text, the encoder's tables
//   [read]
#include "llama/hf_tokenizer.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "llama/checkpoint.hpp"
#include "llama/json_checked.hpp"
#include "llama/unicode_text.hpp"

namespace attn {

namespace {

using json = nlohmann::json;
using tables = hf_tokenizer_tables;
using problem = std::optional<std::string>;

constexpr std::size_t max_token_bytes = 1024;
constexpr const char* metaspace_char = "\xE2\x96\x81";  // ▁

std::string named(std::string_view s) {
    std::string q = utf8_encode(utf8_decode(s.substr(0, 60)));  // cut on a character, not inside one
    return "'" + q + (s.size() > 60 ? "…'" : "'");
}

// What the sections share while reading.
struct reading {
    int vocab_size = 0;
    tables t;
    std::unordered_map<std::string, int> text_id;  // the model's vocabulary as the file writes it
    std::vector<const std::string*> text_of;       // (vocab_size) each id's text there, nullptr for none
    struct added_entry {
        std::string content;
        int id = 0;
        bool lstrip = false, rstrip = false, normalized = false, special = false;
    };
    std::vector<added_entry> added;
    std::vector<int> added_at;  // (vocab_size) an id's index in `added`, −1 for none
    std::string replacement;    // what the decoder turns into a space (SentencePiece kind)
};

// [byte alphabet] GPT-2's bytes_to_unicode: the printable bytes ! to ~, ¡ to ¬ and
// ® to ÿ stand for themselves, the other 68 for U+0100 onwards in byte order.
struct byte_alphabet {
    std::array<char32_t, 256> of_byte{};
    std::unordered_map<char32_t, unsigned char> byte_of;
};

const byte_alphabet& alphabet() {
    static const byte_alphabet a = [] {
        byte_alphabet b;
        char32_t next = 256;
        for (int i = 0; i < 256; ++i) {
            const bool printable = (i >= '!' && i <= '~') || (i >= 0xA1 && i <= 0xAC) || (i >= 0xAE && i <= 0xFF);
            b.of_byte[std::size_t(i)] = printable ? char32_t(i) : next++;
            b.byte_of.emplace(b.of_byte[std::size_t(i)], static_cast<unsigned char>(i));
        }
        return b;
    }();
    return a;
}

// A byte-level token's bytes; false when a character is outside the alphabet.
bool token_bytes(const std::string& text, std::string& out) {
    out.clear();
    for (const char32_t c : utf8_decode(text)) {
        const auto it = alphabet().byte_of.find(c);
        if (it == alphabet().byte_of.end())
            return false;
        out.push_back(char(it->second));
    }
    return true;
}

// [model]
problem read_vocab(const json& model, reading& r) {
    const json* v = json_member(model, "vocab");
    if (!v || !v->is_object())
        return std::string("model.vocab is not an object of {token: id}");
    r.text_of.assign(std::size_t(r.vocab_size), nullptr);
    for (auto it = v->begin(); it != v->end(); ++it) {
        const std::string& text = it.key();
        if (!it.value().is_number_unsigned())
            return "model.vocab's token " + named(text) + " has no whole-number id";
        const std::uint64_t id = it.value().get<std::uint64_t>();
        if (id >= std::uint64_t(r.vocab_size))
            return "model.vocab's token " + named(text) + " has id " + std::to_string(id) + ", outside the model's vocab_size " +
                   std::to_string(r.vocab_size);
        if (text.empty() || text.size() > max_token_bytes)
            return "model.vocab's token " + std::to_string(id) + " is " + std::to_string(text.size()) +
                   " bytes long (1 to 1024 are read)";
        if (r.text_of[id])
            return "model.vocab gives id " + std::to_string(id) + " to both " + named(*r.text_of[id]) + " and " + named(text);
        r.text_of[id] = &r.text_id.emplace(text, int(id)).first->first;
    }
    return std::nullopt;
}

problem merge_parts(const json& m, std::size_t i, std::string& a, std::string& b) {
    const std::string at = "model.merges[" + std::to_string(i) + "]";
    if (m.is_string()) {
        const std::string& s = m.get_ref<const std::string&>();
        const std::size_t space = s.find(' ');
        if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
            return at + " " + named(s) + " is not two tokens with one space between";
        a = s.substr(0, space), b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        a = m[0].get<std::string>(), b = m[1].get<std::string>();
    } else {
        return at + " is neither \"a b\" nor [\"a\", \"b\"]";
    }
    if (a.empty() || b.empty())
        return at + " joins an empty token";
    return std::nullopt;
}

problem read_merges(const json& model, reading& r) {
    const json* m = json_member(model, "merges");
    if (!m || !m->is_array())
        return std::string("model.merges is not an array");
    r.t.merges.reserve(m->size());
    std::string a, b;
    for (std::size_t i = 0; i < m->size(); ++i) {
        if (auto why = merge_parts((*m)[i], i, a, b))
            return why;
        const auto ia = r.text_id.find(a), ib = r.text_id.find(b), ij = r.text_id.find(a + b);
        if (ia == r.text_id.end() || ib == r.text_id.end() || ij == r.text_id.end())
            return "model.merges[" + std::to_string(i) + "] joins " + named(a) + " and " + named(b) +
                   ", and the vocabulary lacks " +
                   named(ia == r.text_id.end()   ? a
                         : ib == r.text_id.end() ? b
                                                 : a + b);
        const std::uint64_t key = std::uint64_t(std::uint32_t(ia->second)) << 32 | std::uint32_t(ib->second);
        r.t.merges.insert_or_assign(key, tables::merge{int(i), ij->second});  // a pair given twice: the last rank, as HF
    }
    return std::nullopt;
}

problem refuse_set(const json& model, const char* name, const char* what) {
    const json* v = json_member(model, name);
    if (!v || v->is_null() || (v->is_string() && v->get_ref<const std::string&>().empty()) ||
        (v->is_number() && v->get<double>() == 0.0))
        return std::nullopt;
    return std::string("model.") + name + " is set: " + what + " is not implemented here";
}

problem read_model(const json& j, reading& r) {
    const json* m = json_member(j, "model");
    if (!m || !m->is_object())
        return std::string("tokenizer.json has no \"model\" object");
    const std::string* type = json_string_at(*m, "type");
    if ((type && *type != "BPE") || (!type && !json_member(*m, "merges")))
        return "the model is " + (type ? named(*type) : std::string("of no type")) +
               ": BPE is implemented here (not WordPiece, Unigram or WordLevel)";
    for (auto why :
         {refuse_set(*m, "dropout", "BPE dropout"), refuse_set(*m, "continuing_subword_prefix", "a continuing-subword prefix"),
          refuse_set(*m, "end_of_word_suffix", "an end-of-word suffix")})
        if (why)
            return why;
    if (auto why = read_vocab(*m, r))
        return why;
    if (auto why = read_merges(*m, r))
        return why;
    if (const std::string* unk = json_string_at(*m, "unk_token")) {
        const auto it = r.text_id.find(*unk);
        if (it == r.text_id.end())
            return "model.unk_token " + named(*unk) + " is not in the vocabulary";
        r.t.unk = it->second;
    }
    r.t.byte_fallback = json_bool_at(*m, "byte_fallback").value_or(false);
    r.t.ignore_merges = json_bool_at(*m, "ignore_merges").value_or(false);
    r.t.fuse_unk = json_bool_at(*m, "fuse_unk").value_or(false);
    return std::nullopt;
}

// [added tokens]
problem read_added_token(const json& a, std::size_t i, reading& r) {
    const std::string at = "added_tokens[" + std::to_string(i) + "]";
    const std::string* content = json_string_at(a, "content");
    const std::optional<std::uint64_t> id = json_unsigned_at(a, "id");
    if (!content || !id)
        return at + " has no content or no id";
    if (content->empty() || content->size() > max_token_bytes)
        return at + " is " + std::to_string(content->size()) + " bytes long (1 to 1024 are read)";
    if (*id >= std::uint64_t(r.vocab_size))
        return at + " " + named(*content) + " has id " + std::to_string(*id) + ", outside the model's vocab_size " +
               std::to_string(r.vocab_size);
    if (json_bool_at(a, "single_word").value_or(false))
        return at + " " + named(*content) + " sets single_word: matching whole words only is not implemented here";
    if (r.added_at[*id] >= 0)
        return "added_tokens gives id " + std::to_string(*id) + " twice";
    if (const std::string* model = r.text_of[*id]; model && *model != *content)
        return at + " " + named(*content) + " has id " + std::to_string(*id) + ", the vocabulary's " + named(*model);
    for (const reading::added_entry& o : r.added)
        if (o.content == *content)
            return "added_tokens holds " + named(*content) + " twice";
    reading::added_entry t;
    t.content = *content;
    t.id = int(*id);
    t.special = json_bool_at(a, "special").value_or(false);
    t.lstrip = json_bool_at(a, "lstrip").value_or(false);
    t.rstrip = json_bool_at(a, "rstrip").value_or(false);
    t.normalized = json_bool_at(a, "normalized").value_or(!t.special);
    r.added_at[*id] = int(r.added.size());
    r.added.push_back(std::move(t));
    return std::nullopt;
}

problem read_added(const json& j, reading& r) {
    r.added_at.assign(std::size_t(r.vocab_size), -1);
    const json* a = json_member(j, "added_tokens");
    if (!a || a->is_null())
        return std::nullopt;
    if (!a->is_array())
        return std::string("added_tokens is not an array");
    for (std::size_t i = 0; i < a->size(); ++i) {
        if (!(*a)[i].is_object())
            return "added_tokens[" + std::to_string(i) + "] is not an object";
        if (auto why = read_added_token((*a)[i], i, r))
            return why;
    }
    return std::nullopt;
}

// The steps of a component, a Sequence's (under `list`) flattened in order.
problem flatten(const json* c, const char* what, const char* list, std::vector<const json*>& out) {
    if (!c || c->is_null())
        return std::nullopt;
    const std::string* type = json_string_at(*c, "type");
    if (!type)
        return std::string("a ") + what + " without a type";
    if (*type != "Sequence") {
        out.push_back(c);
        return std::nullopt;
    }
    const json* steps = json_member(*c, list);
    if (!steps || !steps->is_array())
        return std::string("a Sequence ") + what + " without its " + list;
    for (const json& s : *steps)
        if (auto why = flatten(&s, what, list, out))
            return why;
    return std::nullopt;
}

// A pattern given as {"String": s}; nullptr for a Regex (named in `regex`) or none.
const std::string* string_pattern(const json& step, const std::string** regex = nullptr) {
    const json* p = json_member(step, "pattern");
    if (regex)
        *regex = p ? json_string_at(*p, "Regex") : nullptr;
    return p ? json_string_at(*p, "String") : nullptr;
}

// [normalizer]
problem read_normalizer(const json& j, reading& r) {
    std::vector<const json*> steps;
    if (auto why = flatten(json_member(j, "normalizer"), "normalizer", "normalizers", steps))
        return why;
    for (const json* s : steps) {
        const std::string& type = *json_string_at(*s, "type");
        tables::normalize_step n;
        if (type == "NFC") {
            n.kind = tables::normalize_step::nfc;
        } else if (type == "Prepend" && json_string_at(*s, "prepend")) {
            n.kind = tables::normalize_step::prepend;
            n.text = *json_string_at(*s, "prepend");
        } else if (type == "Replace" && string_pattern(*s) && !string_pattern(*s)->empty() && json_string_at(*s, "content")) {
            n.kind = tables::normalize_step::replace;
            n.text = *string_pattern(*s);
            n.with = *json_string_at(*s, "content");
        } else {
            return "the normalizer " + named(type) + (type == "Replace" ? " of a Regex" : "") +
                   " is not implemented here (NFC, Prepend, Replace of a String and "
                   "Sequence are)";
        }
        r.t.normalizer.push_back(std::move(n));
    }
    return std::nullopt;
}

// [pre-tokenizer]
problem read_split(const json& s, reading& r) {
    const std::string* regex = nullptr;
    string_pattern(s, &regex);
    if (!regex)
        return std::string("the Split pre-tokenizer's pattern is not a Regex");
    const std::optional<hf_split_pattern> p = hf_split_pattern_of(*regex);
    if (!p)
        return "the Split pre-tokenizer's regex " + named(*regex) +
               " is not implemented here (GPT-2's, Llama 3's and Qwen2's are)";
    const std::string* behavior = json_string_at(s, "behavior");
    if (!behavior || *behavior != "Isolated" || json_bool_at(s, "invert").value_or(false))
        return std::string("the Split pre-tokenizer is not behavior Isolated without invert");
    r.t.splits.push_back(*p);
    return std::nullopt;
}

problem read_metaspace(const json& s, reading& r, bool alone) {
    if (!alone)
        return std::string("a Metaspace pre-tokenizer in a Sequence is not implemented here");
    r.t.metaspace = true;
    const std::string* rep = json_string_at(s, "replacement");
    r.t.replacement = rep ? *rep : metaspace_char;
    if (r.t.replacement.empty())
        return std::string("the Metaspace pre-tokenizer's replacement is empty");
    const std::string* scheme = json_string_at(s, "prepend_scheme");
    const bool prefix = json_bool_at(s, "add_prefix_space").value_or(true);
    r.t.prepend = scheme   ? (*scheme == "first"   ? tables::prepend_scheme::first
                              : *scheme == "never" ? tables::prepend_scheme::never
                                                   : tables::prepend_scheme::always)
                  : prefix ? tables::prepend_scheme::always
                           : tables::prepend_scheme::never;
    if (scheme && *scheme != "first" && *scheme != "never" && *scheme != "always")
        return "the Metaspace pre-tokenizer's prepend_scheme " + named(*scheme) + " is not always, first or never";
    r.t.metaspace_split = json_bool_at(s, "split").value_or(true);
    return std::nullopt;
}

problem read_pre_tokenizer(const json& j, reading& r) {
    std::vector<const json*> steps;
    if (auto why = flatten(json_member(j, "pre_tokenizer"), "pre-tokenizer", "pretokenizers", steps))
        return why;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const json& s = *steps[i];
        const std::string& type = *json_string_at(s, "type");
        if (r.t.byte_level)
            return "the pre-tokenizer " + named(type) + " after ByteLevel is not implemented here";
        problem why;
        if (type == "ByteLevel") {
            r.t.byte_level = true;
            r.t.add_prefix_space = json_bool_at(s, "add_prefix_space").value_or(false);
            r.t.byte_level_regex = json_bool_at(s, "use_regex").value_or(true);
        } else if (type == "Split") {
            why = read_split(s, r);
        } else if (type == "Metaspace") {
            why = read_metaspace(s, r, steps.size() == 1);
        } else {
            why = "the pre-tokenizer " + named(type) + " is not implemented here (ByteLevel, Split, Metaspace and Sequence are)";
        }
        if (why)
            return why;
    }
    return std::nullopt;
}

// [post-processor]
problem read_template(const json& p, reading& r) {
    const json* single = json_member(p, "single");
    const json* special = json_member(p, "special_tokens");
    if (!single || !single->is_array() || !special || !special->is_object())
        return std::string("the TemplateProcessing post-processor has no single template or no special_tokens");
    if (!r.t.prefix.empty() || !r.t.suffix.empty())
        return std::string("two TemplateProcessing post-processors");
    bool seen_a = false;
    for (const json& item : *single) {
        const json* seq = json_member(item, "Sequence");
        const json* tok = json_member(item, "SpecialToken");
        if (seq && json_string_at(*seq, "id") && *json_string_at(*seq, "id") == "A" && !seen_a) {
            seen_a = true;
            continue;
        }
        const std::string* name = tok ? json_string_at(*tok, "id") : nullptr;
        const json* entry = name ? json_member(*special, *name) : nullptr;
        const json* ids = entry ? json_member(*entry, "ids") : nullptr;
        if (!ids || !ids->is_array())
            return std::string(
                "the TemplateProcessing single template holds an item other than $A once and special tokens "
                "with their ids");
        for (const json& id : *ids) {
            if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= std::uint64_t(r.vocab_size))
                return "the template's special token " + named(*name) + " has an id outside the model's vocab_size";
            (seen_a ? r.t.suffix : r.t.prefix).push_back(int(id.get<std::uint64_t>()));
        }
    }
    if (!seen_a)
        return std::string("the TemplateProcessing single template has no $A");
    return std::nullopt;
}

problem read_post_processor(const json& j, reading& r) {
    std::vector<const json*> steps;
    if (auto why = flatten(json_member(j, "post_processor"), "post-processor", "processors", steps))
        return why;
    for (const json* s : steps) {
        const std::string& type = *json_string_at(*s, "type");
        if (type == "ByteLevel")
            continue;  // offsets only
        if (type != "TemplateProcessing")
            return "the post-processor " + named(type) +
                   " is not implemented here (ByteLevel, TemplateProcessing and Sequence are)";
        if (auto why = read_template(*s, r))
            return why;
    }
    return std::nullopt;
}

// [decoder]
problem read_decoder_step(const json& s, reading& r) {
    const std::string& type = *json_string_at(s, "type");
    if (type == "ByteFallback") {
        r.t.decode_bytes = true;
    } else if (type == "Fuse") {
    } else if (type == "Replace" && string_pattern(s) && json_string_at(s, "content") && *json_string_at(s, "content") == " " &&
               !string_pattern(s)->empty()) {
        r.replacement = *string_pattern(s);
    } else if (type == "Strip" && json_string_at(s, "content") && *json_string_at(s, "content") == " " &&
               json_unsigned_at(s, "start").value_or(9) <= 1 && json_unsigned_at(s, "stop").value_or(9) == 0) {
        r.t.strip_first_space = json_unsigned_at(s, "start") == 1u;
    } else {
        return "the decoder " + named(type) +
               " is not implemented here (with ▁ tokens: Replace of a String by a space, ByteFallback, Fuse, Strip of one "
               "leading space, Metaspace)";
    }
    return std::nullopt;
}

problem read_decoder(const json& j, reading& r) {
    std::vector<const json*> steps;
    if (auto why = flatten(json_member(j, "decoder"), "decoder", "decoders", steps))
        return why;
    if (steps.empty())
        return std::string("tokenizer.json has no decoder: its tokens could not be read as text");
    const std::string& first = *json_string_at(*steps[0], "type");
    if (r.t.byte_level != (first == "ByteLevel") || (r.t.byte_level && steps.size() != 1))
        return r.t.byte_level ? "the decoder " + named(first) + " with a ByteLevel pre-tokenizer: ByteLevel alone is implemented"
                              : std::string("a ByteLevel decoder without the ByteLevel pre-tokenizer");
    if (r.t.byte_level)
        return std::nullopt;
    if (first == "Metaspace" && steps.size() == 1) {
        const std::string* rep = json_string_at(*steps[0], "replacement");
        r.replacement = rep ? *rep : metaspace_char;
        const std::string* scheme = json_string_at(*steps[0], "prepend_scheme");
        r.t.strip_first_space = scheme ? *scheme != "never" : json_bool_at(*steps[0], "add_prefix_space").value_or(true);
        return std::nullopt;
    }
    for (const json* s : steps)
        if (auto why = read_decoder_step(*s, r))
            return why;
    return std::nullopt;
}

// [pieces]
std::string replaced(std::string s, std::string_view what, std::string_view with) {
    if (what.empty())
        return s;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
        s.replace(at, what.size(), with);
    return s;
}

// Each id's piece; the model's vocabulary keyed as encoding looks it up; byte fallback's tokens.
void make_pieces(reading& r, llama_tokenizer& out) {
    out.pieces.assign(std::size_t(r.vocab_size), std::string());
    std::string bytes;
    for (int id = 0; id < r.vocab_size; ++id) {
        std::string& piece = out.pieces[std::size_t(id)];
        const std::string* text = r.text_of[std::size_t(id)];
        if (r.added_at[std::size_t(id)] >= 0)
            piece = r.added[std::size_t(r.added_at[std::size_t(id)])].content;
        else if (text && r.t.byte_level)
            piece = token_bytes(*text, bytes) ? bytes : *text;  // a character outside the alphabet: as HF, the text
        else if (text)
            piece = replaced(*text, r.replacement, " ");
        if (text && r.t.byte_level && token_bytes(*text, bytes))
            r.t.vocab.emplace(bytes, id);
        out.max_token_length = std::max(out.max_token_length, int(piece.size()));
    }
    if (!r.t.byte_level)
        r.t.vocab = std::move(r.text_id);
    r.t.byte_tokens.assign(256, -1);
    for (int b = 0; b < 256 && !r.t.byte_level; ++b) {
        static const char hex[] = "0123456789ABCDEF";
        const auto it = r.t.vocab.find(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
        r.t.byte_tokens[std::size_t(b)] = it == r.t.vocab.end() ? -1 : it->second;
    }
    out.index.reserve(out.pieces.size());
    for (int id = 0; id < r.vocab_size; ++id)
        if (!out.pieces[std::size_t(id)].empty())
            out.index.emplace(out.pieces[std::size_t(id)], id);  // the lowest id
}

// Tokens sorted by first byte, the longest first, and where each first byte's start.
void index_added(std::vector<tables::added_token>& tokens, std::array<std::uint32_t, 257>& starts) {
    const auto first = [](const tables::added_token& a) { return static_cast<unsigned char>(a.content[0]); };
    std::stable_sort(tokens.begin(), tokens.end(), [&](const tables::added_token& a, const tables::added_token& b) {
        return first(a) != first(b) ? first(a) < first(b) : a.content.size() > b.content.size();
    });
    std::size_t at = 0;
    for (int b = 0; b <= 256; ++b) {
        while (at < tokens.size() && first(tokens[at]) < b)
            ++at;
        starts[std::size_t(b)] = std::uint32_t(at);
    }
}

// The added tokens as encoding matches them; BOS and EOS.
void make_added(reading& r, llama_tokenizer& out) {
    for (const reading::added_entry& a : r.added) {
        tables::added_token t{a.content, a.id, a.lstrip, a.rstrip, a.normalized && !r.t.normalizer.empty()};
        if (t.normalized)
            t.content = hf_normalize(r.t, t.content);
        if (!t.content.empty())
            (t.normalized ? r.t.normalized_added : r.t.raw_added).push_back(std::move(t));
    }
    index_added(r.t.raw_added, r.t.raw_starts);
    index_added(r.t.normalized_added, r.t.normalized_starts);
    out.bos = r.t.prefix.empty() ? -1 : r.t.prefix.back();
    out.eos = r.t.suffix.empty() ? -1 : r.t.suffix.front();
    for (const char* name : {"</s>", "<|endoftext|>", "<|end_of_text|>", "<|im_end|>", "<|eot_id|>", "<eos>"})
        for (const reading::added_entry& a : r.added)
            if (out.eos < 0 && a.special && a.content == name)
                out.eos = a.id;
}

}  // namespace

std::string hf_normalize(const hf_tokenizer_tables& t, std::string s) {
    for (const tables::normalize_step& n : t.normalizer) {
        if (n.kind == tables::normalize_step::nfc)
            s = utf8_encode(unicode_nfc(utf8_decode(s)));
        else if (n.kind == tables::normalize_step::prepend && !s.empty())
            s = n.text + s;
        else if (n.kind == tables::normalize_step::replace)
            s = replaced(std::move(s), n.text, n.with);
    }
    return s;
}

// [read]
bool hf_tokenizer_read(const unsigned char* bytes, std::size_t size, int vocab_size, llama_tokenizer& out, std::string* error) {
    out = llama_tokenizer{};
    const auto fail = [error](std::string why) {
        if (error)
            *error = std::move(why);
        return false;
    };
    if (vocab_size < 1 || vocab_size > llama_limits::max_vocab)
        return fail("the model's vocab_size " + std::to_string(vocab_size) + " is out of range (1 to " +
                    std::to_string(llama_limits::max_vocab) + ")");
    if (!bytes || size > hf_tokenizer_max_bytes)
        return fail("tokenizer.json is " + std::to_string(size) + " bytes: more than the 64 MiB read");
    json j;
    if (auto why = json_parse_checked(std::string_view(reinterpret_cast<const char*>(bytes), size), j, 32))
        return fail("tokenizer.json: " + *why);
    if (!j.is_object())
        return fail("tokenizer.json is not one JSON object");
    reading r;
    r.vocab_size = vocab_size;
    for (problem (*part)(const json&, reading&) :
         {read_model, read_added, read_normalizer, read_pre_tokenizer, read_post_processor, read_decoder})
        if (auto why = part(j, r))
            return fail(*why);
    llama_tokenizer t;
    t.kind = r.t.byte_level ? llama_tokenizer_kind::hf_byte_level : llama_tokenizer_kind::hf_sentencepiece;
    make_pieces(r, t);
    make_added(r, t);
    t.hf = std::make_shared<const tables>(std::move(r.t));
    out = std::move(t);
    return true;
}

}  // namespace attn
