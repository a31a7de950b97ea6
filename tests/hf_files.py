"""Hugging Face model folders written from the formats' descriptions, with random
weights: what tests/hf_torch_test.py opens in place of real models (which are never
downloaded here). Debian 12 has no usable python3-safetensors, so the files are
written directly.

    python3 tests/hf_files.py DIR [--arch llama|qwen2|gpt2] [--dtype F32|F16|BF16] [--shards N] [--seed N]
    python3 tests/hf_files.py DIR --shape gpt2-small|smollm2-135m [--dtype …]   (a real model's shape: the benchmark's)

writes DIR/config.json, DIR/model.safetensors (or N shards and
DIR/model.safetensors.index.json) and DIR/tokenizer.json.

safetensors: an unsigned 64-bit little-endian length N, N bytes of JSON (padded
with spaces), {"__metadata__": {"format": "pt"}, name: {"dtype", "shape",
"data_offsets": [begin, end]}, …} with offsets counted from the end of the header,
then the tensors' bytes, little-endian, row-major, tiling the data. F16 is
numpy's float16 (round to nearest even); BF16 is a float32 rounded to nearest even
on its top 16 bits. A sharded folder names each tensor's file in
model.safetensors.index.json: {"metadata": {"total_size"}, "weight_map": {name: file}}.

Tensors (nn.Linear weights are (out, in); GPT-2's Conv1D weights are (in, out)):
  Llama, Qwen2  model.embed_tokens.weight (V, d); per layer model.layers.N.
                input_layernorm.weight (d), self_attn.{q,k,v}_proj.weight
                (h·hd | kv·hd, d) [+ .bias for Qwen2], self_attn.o_proj.weight (d, h·hd),
                post_attention_layernorm.weight (d), mlp.{gate,up}_proj.weight (f, d),
                mlp.down_proj.weight (d, f); model.norm.weight (d); lm_head.weight (V, d)
                unless tie_word_embeddings
  GPT-2         wte.weight (V, d), wpe.weight (n_positions, d); per layer h.N.
                ln_1/ln_2 .weight/.bias (d), attn.c_attn (d, 3d) + bias (3d),
                attn.c_proj (d, d) + bias, mlp.c_fc (d, f) + bias, mlp.c_proj (f, d) + bias,
                [attn.bias (1, 1, ctx, ctx): the causal mask buffer older files hold];
                ln_f .weight/.bias; the head is wte (tied)

tokenizer.json: a byte-level BPE as GPT-2's: the 256 bytes as GPT-2's printable
characters (bytes_to_unicode, ids 0…255 in its order), merges learned here from a
generated corpus, then <|endoftext|>; ByteLevel pre-tokenizer (GPT-2's split
pattern, no prefix space) and decoder. The Python encoder below is written from
that description, not from the core.
"""
import argparse
import json
import os
import random
import struct
import unicodedata

import numpy as np

# --- safetensors ---------------------------------------------------------------
DTYPES = ("F32", "F16", "BF16")


def stored(a, dtype):
    """(bytes as the file holds them, the values as float64): F16 and BF16 round to nearest even and widen exactly."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    if dtype == "F32":
        return a.tobytes(), a.astype(np.float64)
    if dtype == "F16":
        h = a.astype(np.float16)
        return h.tobytes(), h.astype(np.float64)
    u = a.view(np.uint32).astype(np.uint64)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return b.tobytes(), (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def safetensors_bytes(tensors, metadata=None):
    """tensors: [(name, dtype, shape, raw bytes)] in the order their bytes are laid out."""
    header, at = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [at, at + len(raw)]}
        at += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(raw for *_, raw in tensors)


def write_safetensors_folder(folder, tensors, shards):
    """The tensors in `shards` files of about equal size (one: model.safetensors); returns the files' names."""
    if shards == 1:
        with open(os.path.join(folder, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(tensors, {"format": "pt"}))
        return ["model.safetensors"]
    total = sum(len(raw) for *_, raw in tensors)
    groups, at = [[] for _ in range(shards)], 0
    for t in tensors:
        groups[min(shards - 1, at * shards // total)].append(t)
        at += len(t[3])
    groups = [g for g in groups if g]
    names = ["model-%05d-of-%05d.safetensors" % (i + 1, len(groups)) for i in range(len(groups))]
    weight_map = {}
    for name, group in zip(names, groups):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(safetensors_bytes(group, {"format": "pt"}))
        weight_map.update({t[0]: name for t in group})
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
    return names


# --- the byte-level BPE tokenizer --------------------------------------------------
def bytes_to_unicode():
    """GPT-2's map of the 256 bytes to printable characters: printable Latin-1 as itself, the rest from U+0100 up."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


BYTE_CHAR = bytes_to_unicode()
CHAR_BYTE = {c: b for b, c in BYTE_CHAR.items()}
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def _letter(c):
    return unicodedata.category(c).startswith("L")


def _number(c):
    return unicodedata.category(c).startswith("N")


def pre_split(text):
    """GPT-2's pattern, 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+, by hand
    (Debian's Python has no `regex` for \\p{…}); \\s is taken as str.isspace, which the test texts keep to."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if c:
            out.append(c)
            i += len(c)
            continue
        j = i + 1 if text[i] == " " and i + 1 < n else i
        for cls in (_letter, _number, lambda ch: not ch.isspace() and not _letter(ch) and not _number(ch)):
            if cls(text[j]):
                e = j
                while e < n and cls(text[e]):
                    e += 1
                break
        else:
            e = None
        if e is not None:
            out.append(text[i:e])
            i = e
            continue
        e = i
        while e < n and text[e].isspace():
            e += 1
        e = e if e == n or e - i == 1 else e - 1  # \s+(?!\S) leaves the last space to the word after it
        out.append(text[i:e])
        i = e
    return out


def byte_chars(piece):
    return "".join(BYTE_CHAR[b] for b in piece.encode("utf-8"))


CORPUS_WORDS = ("Once upon a time there was a little girl named Lily She liked to play with her cat and her dog in "
                "the park One day the sun was big and bright They were happy friends He said hello to everyone "
                "don't it's we'll I'm they've 2024 42 7 cafe naive 猫 狗 追").split()


def corpus(seed=3, words=1500):
    g = random.Random(seed)
    out = []
    for _ in range(words):
        w = g.choice(CORPUS_WORDS)
        out.append(w + g.choice(["", "", "", ",", ".", "!"]))
    return " ".join(out) + "\n\n" + "\n".join(" ".join(out[i:i + 9]) for i in range(0, 200, 9))


def learn_merges(count, seed=3):
    """`count` merges learned from the corpus: the most frequent adjacent pair first (ties: the smaller pair)."""
    freq = {}
    for piece in pre_split(corpus(seed)):
        key = tuple(byte_chars(piece))
        freq[key] = freq.get(key, 0) + 1
    merges = []
    while len(merges) < count:
        pairs = {}
        for word, n in freq.items():
            for a, b in zip(word, word[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        joined = {}
        for word, n in freq.items():
            w, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    w.append(word[i] + word[i + 1])
                    i += 2
                else:
                    w.append(word[i])
                    i += 1
            joined[tuple(w)] = joined.get(tuple(w), 0) + n
        freq = joined
    return merges


class ByteBpe:
    """The vocabulary (id → token text in byte characters), the merges by rank, and <|endoftext|>'s id."""

    def __init__(self, merges_count, seed=3):
        self.merges = learn_merges(merges_count, seed)
        self.vocab = [BYTE_CHAR[b] for b in BYTE_CHAR] + [a + b for a, b in self.merges]
        self.eos = len(self.vocab)
        self.special = "<|endoftext|>"
        self.vocab.append(self.special)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        self.rank = {m: r for r, m in enumerate(self.merges)}

    def __len__(self):
        return len(self.vocab)

    def encode_piece(self, piece):
        parts = list(byte_chars(piece))
        while len(parts) > 1:
            ranked = [(self.rank.get((a, b), len(self.rank)), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            r, i = min(ranked)
            if r == len(self.rank):
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return [self.ids[p] for p in parts]

    def encode(self, text):
        return [t for piece in pre_split(text) for t in self.encode_piece(piece)]

    def decode_bytes(self, ids):
        return b"".join(b"" if i == self.eos else bytes(CHAR_BYTE[c] for c in self.vocab[i]) for i in ids)

    def json(self):
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [{"id": self.eos, "content": self.special, "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": True, "special": True}],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                      "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                      "vocab": {t: i for i, t in enumerate(self.vocab[:-1])},
                      "merges": [a + " " + b for a, b in self.merges]},
        }


def tokenizer_for(vocab_size):
    """A tokenizer of at most vocab_size tokens (the config's vocab may be larger: rows nothing encodes to)."""
    return ByteBpe(max(0, vocab_size - 257))


# --- the models ------------------------------------------------------------------------
def spec(name, arch="llama", dtype="F32", d=32, ff=80, layers=2, heads=4, kv_heads=None, vocab=400, extra_vocab=0,
         tied=False, theta=10000.0, eps=1e-5, shards=1, context=64, mask_buffers=False, prefix="", seed=None):
    """One folder's description; vocab is the tokenizer's size, the config's is vocab + extra_vocab."""
    return dict(name=name, arch=arch, dtype=dtype, d=d, ff=ff, layers=layers, heads=heads,
                kv_heads=heads if kv_heads is None else kv_heads, vocab=vocab, extra_vocab=extra_vocab,
                tied=True if arch == "gpt2" else tied, theta=theta, eps=eps, shards=shards, context=context,
                mask_buffers=mask_buffers, prefix=prefix, seed=len(name) * 7 + 1 if seed is None else seed)


def config_json(s):
    V = s["vocab"] + s["extra_vocab"]
    if s["arch"] == "gpt2":
        return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": s["d"], "n_layer": s["layers"],
                "n_head": s["heads"], "n_inner": s["ff"], "n_positions": s["context"], "n_ctx": s["context"],
                "vocab_size": V, "activation_function": "gelu_new", "layer_norm_epsilon": s["eps"],
                "scale_attn_weights": True, "tie_word_embeddings": True, "bos_token_id": s["vocab"] - 1,
                "eos_token_id": s["vocab"] - 1, "torch_dtype": {"F32": "float32", "F16": "float16",
                                                                "BF16": "bfloat16"}[s["dtype"]]}
    c = {"architectures": ["LlamaForCausalLM" if s["arch"] == "llama" else "Qwen2ForCausalLM"], "model_type": s["arch"],
         "hidden_size": s["d"], "intermediate_size": s["ff"], "num_hidden_layers": s["layers"],
         "num_attention_heads": s["heads"], "num_key_value_heads": s["kv_heads"], "max_position_embeddings": s["context"],
         "vocab_size": V, "hidden_act": "silu", "rms_norm_eps": s["eps"], "rope_theta": s["theta"], "rope_scaling": None,
         "tie_word_embeddings": s["tied"], "bos_token_id": s["vocab"] - 1, "eos_token_id": s["vocab"] - 1,
         "torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[s["dtype"]]}
    if s["arch"] == "llama":
        c.update(attention_bias=False, mlp_bias=False)
    else:
        c.update(use_sliding_window=False, sliding_window=None, max_window_layers=s["layers"])
    return c


def random_tensors(s):
    """[(name, float32 array)] in the order written: the names and shapes config.json's architecture holds."""
    g = np.random.default_rng(s["seed"])
    d, f, L, V = s["d"], s["ff"], s["layers"], s["vocab"] + s["extra_vocab"]

    def normal(*shape, scale):
        return (g.standard_normal(shape) * scale).astype(np.float32)

    def gain(n):
        return (1 + normal(n, scale=0.1)).astype(np.float32)

    if s["arch"] == "gpt2":
        T = s["context"]
        out = [("wte.weight", normal(V, d, scale=0.25)), ("wpe.weight", normal(T, d, scale=0.1))]
        for l in range(L):
            p = f"h.{l}."
            out += [(p + "ln_1.weight", gain(d)), (p + "ln_1.bias", normal(d, scale=0.1)),
                    (p + "attn.c_attn.weight", normal(d, 3 * d, scale=d ** -0.5)),
                    (p + "attn.c_attn.bias", normal(3 * d, scale=0.1)),
                    (p + "attn.c_proj.weight", normal(d, d, scale=d ** -0.5)), (p + "attn.c_proj.bias", normal(d, scale=0.1)),
                    (p + "ln_2.weight", gain(d)), (p + "ln_2.bias", normal(d, scale=0.1)),
                    (p + "mlp.c_fc.weight", normal(d, f, scale=d ** -0.5)), (p + "mlp.c_fc.bias", normal(f, scale=0.1)),
                    (p + "mlp.c_proj.weight", normal(f, d, scale=f ** -0.5)), (p + "mlp.c_proj.bias", normal(d, scale=0.1))]
        return out + [("ln_f.weight", gain(d)), ("ln_f.bias", normal(d, scale=0.1))]
    hd = d // s["heads"]
    q, kv = s["heads"] * hd, s["kv_heads"] * hd
    out = [("model.embed_tokens.weight", normal(V, d, scale=0.25))]  # small beside the layers: a tied head does not just repeat
    for l in range(L):
        p = f"model.layers.{l}."
        out += [(p + "input_layernorm.weight", gain(d)), (p + "self_attn.q_proj.weight", normal(q, d, scale=d ** -0.5)),
                (p + "self_attn.k_proj.weight", normal(kv, d, scale=d ** -0.5)),
                (p + "self_attn.v_proj.weight", normal(kv, d, scale=d ** -0.5))]
        if s["arch"] == "qwen2":
            out += [(p + "self_attn.q_proj.bias", normal(q, scale=0.3)), (p + "self_attn.k_proj.bias", normal(kv, scale=0.3)),
                    (p + "self_attn.v_proj.bias", normal(kv, scale=0.3))]
        out += [(p + "self_attn.o_proj.weight", normal(d, q, scale=q ** -0.5)), (p + "post_attention_layernorm.weight", gain(d)),
                (p + "mlp.gate_proj.weight", normal(f, d, scale=d ** -0.5)),
                (p + "mlp.up_proj.weight", normal(f, d, scale=d ** -0.5)),
                (p + "mlp.down_proj.weight", normal(d, f, scale=f ** -0.5))]
    out.append(("model.norm.weight", gain(d)))
    if not s["tied"]:
        out.append(("lm_head.weight", normal(V, d, scale=d ** -0.5)))
    return out


def write_folder(folder, s):
    """The folder of spec s; returns (the weights as stored, float64, by name; the config; the tokenizer)."""
    os.makedirs(folder, exist_ok=True)
    tok = tokenizer_for(s["vocab"])
    assert len(tok) == s["vocab"], (len(tok), s["vocab"])
    config = config_json(s)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok.json(), f, ensure_ascii=False)
    tensors, weights = [], {}
    for name, a in random_tensors(s):
        raw, wide = stored(a, s["dtype"])
        tensors.append((name, s["dtype"], a.shape, raw))
        weights[name] = wide
    if s["mask_buffers"]:  # the causal mask GPT-2's files keep (a buffer, not a weight), in the weights' dtype
        T = s["context"]
        raw, _ = stored(np.tril(np.ones((T, T), dtype=np.float32)).reshape(1, 1, T, T), s["dtype"])
        tensors += [(f"h.{l}.attn.bias", s["dtype"], (1, 1, T, T), raw) for l in range(s["layers"])]
    if s["prefix"]:  # GPT-2 saved from GPT2Model's parent: every name under "transformer."
        tensors = [(s["prefix"] + name, *rest) for name, *rest in tensors]
    write_safetensors_folder(folder, tensors, s["shards"])
    return weights, config, tok


# Real models' shapes (bench/run.mjs's rows R4-R6): the config's sizes, random weights, the
# small tokenizer above (the config's vocabulary padded with rows nothing encodes to).
SHAPES = {
    # GPT-2 small (openai-community/gpt2): 12 layers, 12 heads, d 768, vocab 50257, context 1024; 124M weights.
    "gpt2-small": dict(arch="gpt2", d=768, ff=3072, layers=12, heads=12, vocab=400, extra_vocab=50257 - 400,
                       context=1024, eps=1e-5),
    # SmolLM2-135M (HuggingFaceTB/SmolLM2-135M, LlamaForCausalLM): hidden 576, intermediate 1536,
    # 30 layers, 9 heads, 3 KV heads, vocab 49152, rope_theta 100000, tied; context 8192.
    "smollm2-135m": dict(arch="llama", d=576, ff=1536, layers=30, heads=9, kv_heads=3, vocab=400,
                         extra_vocab=49152 - 400, tied=True, theta=100000.0, eps=1e-5, context=8192),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--arch", default="llama", choices=("llama", "qwen2", "gpt2"))
    ap.add_argument("--dtype", default="F32", choices=DTYPES)
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shape", choices=sorted(SHAPES), help="a real model's shape (overrides --arch)")
    a = ap.parse_args()
    if a.shape:
        write_folder(a.dir, spec(a.shape, dtype=a.dtype, shards=a.shards, seed=a.seed, **SHAPES[a.shape]))
        print(a.dir)
        return
    write_folder(a.dir, spec(a.arch, a.arch, a.dtype, shards=a.shards, seed=a.seed, kv_heads=2 if a.arch != "gpt2" else None))
    print(a.dir)


if __name__ == "__main__":
    main()
