"""llama2.c files written from the format's description, with random weights: what
the tests and the benchmark open in place of the real checkpoints (which are
never downloaded here).

    python3 tests/llama_files.py DIR [--shape tiny|stories15M|stories110M] [--version 0|1] [--seed N]

writes DIR/<shape>.bin and DIR/tokenizer.bin (the test vocabulary below, padded
to the model's vocab_size with pieces nothing encodes to).

Checkpoints (run.c / export.py):
  version 0  seven int32: dim, hidden_dim, n_layers, n_heads, n_kv_heads,
             vocab_size (negative: the classifier is not the embedding), seq_len;
             then fp32: token_embedding (V, d), rms_att (L, d), wq (L, d, d),
             wk (L, kv, d), wv (L, kv, d), wo (L, d, d), rms_ffn (L, d),
             w1 (L, f, d), w2 (L, d, f), w3 (L, f, d), rms_final (d),
             freq_cis_real and _imag (seq_len, hs/2 each), [wcls (V, d)]
  version 1  uint32 0x616b3432 ("ak42"), int32 1, the seven fields (vocab_size
             positive), a byte: 1 when the classifier is shared; zeros to 256
             bytes; then fp32: rms_att, rms_ffn, rms_final, token_embedding, wq,
             wk, wv, wo, w1, w2, w3, [wcls]
tokenizer.bin: int32 max_token_length, then per token float score, int32
length, the bytes.
"""
import argparse
import os
import struct

import numpy as np

SHAPES = {
    # name: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
    "tiny": (32, 80, 2, 4, 2, 0, 64),
    "stories15M": (288, 768, 6, 6, 6, 32000, 256),
    "stories110M": (768, 2048, 12, 12, 12, 32000, 1024),
}

WORDS = ("Once upon a time there was a little girl named Lily She liked to play with her cat and her dog in the "
         "park One day the sun was big and bright They were happy friends He said hello to everyone").split()


def test_vocabulary():
    """(pieces, scores): <unk>, <s>, </s>, the 256 byte tokens, printable ASCII,
    "é", then merges of the words above (with and without their leading space),
    scored so that longer pieces and earlier words merge first, with some ties."""
    pieces = ["<unk>", "\n<s>\n", "\n</s>\n"] + ["<0x%02X>" % b for b in range(256)]
    scores = [0.0, 0.0, 0.0] + [0.0] * 256
    seen = set(pieces)

    def add(p, s):
        if p not in seen:
            seen.add(p)
            pieces.append(p)
            scores.append(float(s))

    for c in " abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,!?'-0123456789":
        add(c, -100.0)
    add("é", -100.0)
    for w_i, w in enumerate(WORDS):
        for word in (w, " " + w):
            for a in range(len(word)):
                for b in range(a + 2, len(word) + 1):
                    add(word[a:b], -float(w_i % 7) + (b - a) * 0.5)  # ties between words of equal rank
    return pieces, scores


def write_tokenizer(path, vocab_size):
    pieces, scores = test_vocabulary()
    if vocab_size < len(pieces):
        raise ValueError(f"the test vocabulary has {len(pieces)} pieces, more than {vocab_size}")
    while len(pieces) < vocab_size:  # never produced by encoding: unreachable from the merges above
        pieces.append("<pad%d>" % len(pieces))
        scores.append(-1e6)
    data = [p.encode("utf-8") for p in pieces]
    with open(path, "wb") as f:
        f.write(struct.pack("<i", max(len(b) for b in data)))
        for b, s in zip(data, scores):
            f.write(struct.pack("<fi", s, len(b)))
            f.write(b)
    return pieces, scores


def random_weights(shape, seed, shared):
    """The tensors by name, (out, in) row-major, float32."""
    d, f, L, h, kvh, V, T = shape
    hs = d // h
    kv = kvh * hs
    g = np.random.default_rng(seed)

    def normal(*s, scale):
        return (g.standard_normal(s) * scale).astype(np.float32)

    w = {
        "token_embedding": normal(V, d, scale=1.0),
        "rms_att": (1 + normal(L, d, scale=0.1)).astype(np.float32),
        "wq": normal(L, d, d, scale=d ** -0.5),
        "wk": normal(L, kv, d, scale=d ** -0.5),
        "wv": normal(L, kv, d, scale=d ** -0.5),
        "wo": normal(L, d, d, scale=d ** -0.5),
        "rms_ffn": (1 + normal(L, d, scale=0.1)).astype(np.float32),
        "w1": normal(L, f, d, scale=d ** -0.5),
        "w2": normal(L, d, f, scale=f ** -0.5),
        "w3": normal(L, f, d, scale=d ** -0.5),
        "rms_final": (1 + normal(d, scale=0.1)).astype(np.float32),
    }
    if not shared:
        w["wcls"] = normal(V, d, scale=d ** -0.5)
    return w


def write_checkpoint(path, shape, version, shared, seed):
    d, f, L, h, kvh, V, T = shape
    w = random_weights(shape, seed, shared)
    with open(path, "wb") as out:
        if version == 0:
            out.write(struct.pack("<7i", d, f, L, h, kvh, V if shared else -V, T))
            order = ["token_embedding", "rms_att", "wq", "wk", "wv", "wo", "rms_ffn", "w1", "w2", "w3", "rms_final"]
        else:
            out.write(struct.pack("<Ii7iB", 0x616B3432, 1, d, f, L, h, kvh, V, T, 1 if shared else 0))
            out.write(b"\0" * (256 - out.tell()))
            order = ["rms_att", "rms_ffn", "rms_final", "token_embedding", "wq", "wk", "wv", "wo", "w1", "w2", "w3"]
        for name in order:
            out.write(w[name].tobytes())
        if version == 0:  # the RoPE tables run.c skips: written as export.py's legacy writer does
            hs = d // h
            freqs = 1.0 / (10000.0 ** (np.arange(0, hs, 2)[: hs // 2] / hs))
            angles = np.outer(np.arange(T), freqs)
            out.write(np.cos(angles).astype(np.float32).tobytes())
            out.write(np.sin(angles).astype(np.float32).tobytes())
        if not shared:
            out.write(w["wcls"].tobytes())
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--shape", default="tiny", choices=sorted(SHAPES))
    ap.add_argument("--version", type=int, default=1, choices=(0, 1))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    shape = list(SHAPES[a.shape])
    if shape[5] == 0:
        shape[5] = len(test_vocabulary()[0])
    write_checkpoint(os.path.join(a.dir, a.shape + ".bin"), tuple(shape), a.version, True, a.seed)
    write_tokenizer(os.path.join(a.dir, "tokenizer.bin"), shape[5])
    print(os.path.join(a.dir, a.shape + ".bin"), os.path.join(a.dir, "tokenizer.bin"))


if __name__ == "__main__":
    main()
