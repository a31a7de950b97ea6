#!/usr/bin/python3
"""The PyTorch peer of the real-model rows (R1, R2): a llama2.c checkpoint read
from its file (the format of tests/llama_files.py's docstring, versions 0 and 1)
and run by a small llama written here in PyTorch, eager, float32, one thread.

    /usr/bin/python3 bench/llama_torch_peer.py --serve          (bench/run.mjs's peer; commands below)
    /usr/bin/python3 bench/llama_torch_peer.py MODEL [--tokens N] [--steps N]   (a quick look: times printed)

R1: the whole sequence's pass (the logits of every position): RMSNorm, Q/K/V by
F.linear, RoPE on pairs (2p, 2p+1), all heads at once (GQA by repeat_interleave),
the causal mask, softmax, W_O, SwiGLU, the final norm, the classifier.
R2: one token at a time through a KV cache preallocated as (layers, seq_len,
kv_dim), as run.c decodes: matrix-vector products, RoPE at the position, K and V
written into the cache, the heads' attention over the positions so far (bmm).

Commands (one line each, one line of answer):
  load PATH                 -> {"torch":…, "threads":…, "blas":[…], "config":{…}}
  ids I,J,K,…               -> ok  (R1's tokens)
  forward REPS              -> seconds per pass
  logits FILE               -> writes the last row's logits of a pass (float32) to FILE, then ok
  generate I,J,… STEPS      -> {"seconds_per_token":…, "prompt_seconds":…, "ids":[the generated tokens]}
  quit
Debian's python3-torch imports only under /usr/bin/python3.
"""
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.set_grad_enabled(False)


def read_checkpoint(path):
    """(config, tensors by name as float32 torch tensors) from a version 0 or 1 file."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    magic = struct.unpack_from("<I", raw, 0)[0]
    if magic == 0x616B3432:
        version = struct.unpack_from("<i", raw, 4)[0]
        if version != 1:
            raise ValueError(f"version {version} is not read here")
        d, f, L, h, kvh, V, T = struct.unpack_from("<7i", raw, 8)
        shared = raw[8 + 28] == 1
        offset = 256
        order = ["rms_att", "rms_ffn", "rms_final", "token_embedding", "wq", "wk", "wv", "wo", "w1", "w2", "w3"]
    else:
        version = 0
        d, f, L, h, kvh, V, T = struct.unpack_from("<7i", raw, 0)
        shared = V > 0
        V = abs(V)
        offset = 28
        order = ["token_embedding", "rms_att", "wq", "wk", "wv", "wo", "rms_ffn", "w1", "w2", "w3", "rms_final"]
    hs = d // h
    kv = kvh * hs
    shapes = {"token_embedding": (V, d), "rms_att": (L, d), "wq": (L, d, d), "wk": (L, kv, d), "wv": (L, kv, d),
              "wo": (L, d, d), "rms_ffn": (L, d), "w1": (L, f, d), "w2": (L, d, f), "w3": (L, f, d), "rms_final": (d,)}
    floats = np.frombuffer(raw, dtype="<f4", offset=offset, count=(len(raw) - offset) // 4)
    at = 0
    w = {}

    def take(name, shape):
        nonlocal at
        n = int(np.prod(shape))
        w[name] = torch.from_numpy(np.array(floats[at:at + n]).reshape(shape))  # a copy: the file is closed after
        at += n

    for name in order:
        take(name, shapes[name])
    if version == 0:
        at += T * hs  # the RoPE tables run.c skips
    if not shared:
        take("wcls", (V, d))
    w.setdefault("wcls", w["token_embedding"])
    config = dict(version=version, dim=d, hidden_dim=f, n_layers=L, n_heads=h, n_kv_heads=kvh, vocab_size=V, seq_len=T,
                  shared_classifier=bool(shared))
    return config, w


class Llama:
    def __init__(self, config, w):
        self.c, self.w = config, w
        c = config
        self.hs = c["dim"] // c["n_heads"]
        self.group = c["n_heads"] // c["n_kv_heads"]
        self.kv_dim = c["n_kv_heads"] * self.hs
        # RoPE's angles pos·10000^(−2p/hs), in float64 then rounded, for every position.
        freq = 1.0 / (10000.0 ** (torch.arange(0, self.hs, 2, dtype=torch.float64) / self.hs))
        ang = torch.arange(c["seq_len"], dtype=torch.float64)[:, None] * freq[None, :]
        self.cos, self.sin = torch.cos(ang).float(), torch.sin(ang).float()  # (seq_len, hs/2)
        # Per layer views, so that the loops index nothing but a list.
        self.layers = [{k: w[k][l] for k in ("rms_att", "wq", "wk", "wv", "wo", "rms_ffn", "w1", "w2", "w3")}
                       for l in range(c["n_layers"])]
        self.key_cache = torch.zeros(c["n_layers"], c["seq_len"], self.kv_dim)
        self.value_cache = torch.zeros(c["n_layers"], c["seq_len"], self.kv_dim)
        self.scale = 1.0 / math.sqrt(self.hs)

    @staticmethod
    def rmsnorm(x, g):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * g

    def rope(self, x, cos, sin):
        """x (..., heads·hs) with cos, sin (..., hs/2) broadcast over the heads."""
        xs = x.reshape(*x.shape[:-1], -1, self.hs // 2, 2)
        a, b = xs[..., 0], xs[..., 1]
        cos, sin = cos.unsqueeze(-2), sin.unsqueeze(-2)
        return torch.stack((a * cos - b * sin, a * sin + b * cos), -1).reshape(x.shape)

    def forward(self, ids):
        """The logits (n, vocab) of every position."""
        c = self.c
        n, H, KV, hs = len(ids), c["n_heads"], c["n_kv_heads"], self.hs
        x = self.w["token_embedding"][ids]
        cos, sin = self.cos[:n], self.sin[:n]
        mask = torch.full((n, n), float("-inf")).triu(1)
        for p in self.layers:
            h = self.rmsnorm(x, p["rms_att"])
            q = self.rope(F.linear(h, p["wq"]), cos, sin).view(n, H, hs).transpose(0, 1)
            k = self.rope(F.linear(h, p["wk"]), cos, sin).view(n, KV, hs).transpose(0, 1)
            v = F.linear(h, p["wv"]).view(n, KV, hs).transpose(0, 1)
            if self.group > 1:
                k, v = k.repeat_interleave(self.group, 0), v.repeat_interleave(self.group, 0)
            s = torch.baddbmm(mask, q, k.transpose(1, 2), alpha=self.scale)
            o = torch.bmm(torch.softmax(s, -1), v).transpose(0, 1).reshape(n, -1)
            x = x + F.linear(o, p["wo"])
            h = self.rmsnorm(x, p["rms_ffn"])
            x = x + F.linear(F.silu(F.linear(h, p["w1"])) * F.linear(h, p["w3"]), p["w2"])
        return F.linear(self.rmsnorm(x, self.w["rms_final"]), self.w["wcls"])

    def step(self, token, pos):
        """The logits (vocab) after `token` at `pos`, its K and V written into the cache."""
        c = self.c
        H, KV, hs, t = c["n_heads"], c["n_kv_heads"], self.hs, pos + 1
        x = self.w["token_embedding"][token]
        cos, sin = self.cos[pos], self.sin[pos]
        for l, p in enumerate(self.layers):
            h = self.rmsnorm(x, p["rms_att"])
            q = self.rope(torch.mv(p["wq"], h), cos, sin)
            self.key_cache[l, pos] = self.rope(torch.mv(p["wk"], h), cos, sin)
            self.value_cache[l, pos] = torch.mv(p["wv"], h)
            k = self.key_cache[l, :t].view(t, KV, hs).permute(1, 2, 0)   # (KV, hs, t)
            v = self.value_cache[l, :t].view(t, KV, hs).transpose(0, 1)  # (KV, t, hs)
            if self.group > 1:
                k, v = k.repeat_interleave(self.group, 0), v.repeat_interleave(self.group, 0)
            s = torch.bmm(q.view(H, 1, hs), k) * self.scale              # (H, 1, t)
            o = torch.bmm(torch.softmax(s, -1), v).reshape(-1)
            x = x + torch.mv(p["wo"], o)
            h = self.rmsnorm(x, p["rms_ffn"])
            x = x + torch.mv(p["w2"], F.silu(torch.mv(p["w1"], h)) * torch.mv(p["w3"], h))
        return torch.mv(self.w["wcls"], self.rmsnorm(x, self.w["rms_final"]))

    def generate(self, prompt, steps):
        """(the greedy tokens after prompt, seconds per generated token, the prompt's seconds)."""
        t0 = time.perf_counter()
        for pos, tok in enumerate(prompt):
            logits = self.step(tok, pos)
        t1 = time.perf_counter()
        out = []
        pos = len(prompt)
        steps = min(steps, self.c["seq_len"] - pos)
        for _ in range(steps):
            nxt = int(torch.argmax(logits))
            out.append(nxt)
            logits = self.step(nxt, pos)
            pos += 1
        t2 = time.perf_counter()
        return out, (t2 - t1) / max(steps, 1), t1 - t0


def blas_info():
    try:
        from threadpoolctl import threadpool_info
        return [{k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "filepath")}
                for i in threadpool_info()]
    except Exception as e:  # threadpoolctl missing: say so
        return [{"error": str(e)}]


def serve():
    model, ids = None, None
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        if cmd == "load":
            config, w = read_checkpoint(rest)
            model = Llama(config, w)
            model.forward([1, 2])  # the first call's one-time costs
            print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas_info(),
                              "config": config}), flush=True)
        elif cmd == "ids":
            ids = torch.tensor([int(v) for v in rest.split(",")])
            print("ok", flush=True)
        elif cmd == "forward":
            reps = max(1, int(rest))
            t0 = time.perf_counter()
            for _ in range(reps):
                model.forward(ids)
            print(repr((time.perf_counter() - t0) / reps), flush=True)
        elif cmd == "logits":
            model.forward(ids)[-1].numpy().astype("<f4").tofile(rest)
            print("ok", flush=True)
        elif cmd == "generate":
            prompt, steps = rest.split(" ")
            out, per_token, prompt_s = model.generate([int(v) for v in prompt.split(",")], int(steps))
            print(json.dumps({"seconds_per_token": per_token, "prompt_seconds": prompt_s, "ids": out}), flush=True)
        elif cmd == "quit":
            break
        else:
            print("error: unknown command " + cmd, flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve()
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--steps", type=int, default=128)
    a = ap.parse_args()
    config, w = read_checkpoint(a.model)
    m = Llama(config, w)
    ids = torch.tensor([1] + [3 + (i * 7919) % (config["vocab_size"] - 3) for i in range(a.tokens - 1)])
    m.forward(ids)
    t0 = time.perf_counter()
    m.forward(ids)
    print(f"forward {len(ids)} tokens: {time.perf_counter() - t0:.3f} s (torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread, {blas_info()})")
    out, per_token, _ = m.generate([1, 400, 500, 600], a.steps)
    print(f"generate {len(out)} tokens: {per_token * 1e3:.2f} ms/token, {1 / per_token:.1f} tokens/s")


if __name__ == "__main__":
    main()
