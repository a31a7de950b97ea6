#!/usr/bin/env python3
"""Writes tests/fuzz/llama_corpus/: small llama2.c checkpoints and tokenizers, valid
and broken, each prefixed with the fuzz target's mode byte ('C' checkpoint, 'T' +
two bytes of vocab_size + tokenizer; tests/fuzz/llama_check.hpp). Deterministic:
run it again and nothing changes.   usage: python3 tests/fuzz/llama_corpus.py"""
import math
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'llama_corpus')


def checkpoint(version, dim, hidden, layers, heads, kv, vocab, seq, shared=True, value=lambda i: ((i * 37) % 101 - 50) / 50):
    hs = dim // heads
    n = vocab * dim + layers * dim * 2 + dim + layers * (2 * dim * dim + 2 * dim * kv * hs + 3 * dim * hidden)
    n += 0 if shared else vocab * dim
    n += seq * hs if version == 0 else 0
    fields = [dim, hidden, layers, heads, kv, vocab if (shared or version) else -vocab, seq]
    if version == 0:
        head = struct.pack('<7i', *fields)
    else:
        head = struct.pack('<Ii7iB', 0x616B3432, version, *fields, 1 if shared else 0)
        head += b'\0' * (256 - len(head))
    return head + struct.pack(f'<{n}f', *(value(i) for i in range(n)))


def tokenizer(pieces, max_len=None, score=lambda i: -float(i)):
    out = struct.pack('<i', max_len if max_len is not None else max(len(p) for p in pieces))
    for i, p in enumerate(pieces):
        out += struct.pack('<fi', score(i), len(p)) + p
    return out


def vocab():
    pieces = [b'<unk>', b'<s>', b'</s>'] + [b'<0x%02X>' % i for i in range(256)]
    return pieces + [b' ', b'e', b'o', b'n', b' o', b'on', b' on', b'ce', b' once', b'<0x4', b'1>']


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}
    for v in (0, 1):
        for shared in (True, False):
            files[f'ckpt_v{v}_{"shared" if shared else "own"}'] = b'C' + checkpoint(v, 4, 6, 1, 2, 1, 5, 3, shared)
        files[f'ckpt_v{v}_gqa'] = b'C' + checkpoint(v, 8, 10, 2, 4, 2, 7, 4)
    good = checkpoint(1, 4, 6, 1, 2, 1, 5, 3)
    files['ckpt_truncated'] = b'C' + good[:-3]
    files['ckpt_long'] = b'C' + good + b'\0\0\0\0'
    files['ckpt_nan'] = b'C' + checkpoint(1, 4, 6, 1, 2, 1, 5, 3, value=lambda i: math.nan if i == 11 else 0.5)
    files['ckpt_v2'] = b'C' + good[:4] + struct.pack('<i', 2) + good[8:]
    files['ckpt_odd_head'] = b'C' + checkpoint(0, 6, 6, 1, 2, 1, 5, 3)
    files['ckpt_huge_header'] = b'C' + struct.pack('<7i', 8192, 32768, 128, 64, 64, 262144, 32768)
    files['ckpt_negative'] = b'C' + struct.pack('<7i', 4, 6, 1, 2, 1, -(2 ** 31), 3)
    p = vocab()
    t = tokenizer(p)
    files['tok_valid'] = b'T' + struct.pack('<H', len(p)) + t
    files['tok_short_vocab'] = b'T' + struct.pack('<H', len(p) + 3) + t
    files['tok_long_vocab'] = b'T' + struct.pack('<H', len(p) - 2) + t
    files['tok_lying_length'] = b'T' + struct.pack('<H', len(p)) + t[:8] + struct.pack('<i', 9999) + t[12:]
    files['tok_nan_score'] = b'T' + struct.pack('<H', len(p)) + tokenizer(p, score=lambda i: math.inf if i == 7 else 0.0)
    files['tok_small'] = b'T' + struct.pack('<H', 6) + tokenizer([b'<unk>', b'<s>', b'</s>', b' ', b'a', b' a'])
    for name, data in sorted(files.items()):
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)
    print(f'wrote {len(files)} files to {OUT}')


if __name__ == '__main__':
    main()
