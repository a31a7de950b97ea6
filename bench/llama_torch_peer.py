#!/usr/bin/python3
"""The PyTorch peer of the real-model rows (R1, R2): a llama2.c checkpoint read
from its file (the format of tests/llama_files.py's docstring, versions 0 and 1)
and run by a small llama written here in PyTorch, eager, float32, one thread.
R4, R5: a Hugging Face folder (tests/hf_files.py: config.json and safetensors,
F32, F16 or BF16, widened to float32 here) run by the same llama (rotate_half
RoPE with the config's rope_theta and RMSNorm ε) or by a small GPT-2 (LayerNorm,
learned positions, GELU tanh, Conv1D weights turned to (out, in) once).

    /usr/bin/python3 bench/llama_torch_peer.py --serve          (bench/run.mjs's peer; commands below)
    /usr/bin/python3 bench/llama_torch_peer.py MODEL|DIR [--tokens N] [--steps N]   (a quick look: times printed)

R1: the whole sequence's pass (the logits of every position): RMSNorm, Q/K/V by
F.linear, RoPE on pairs (2p, 2p+1), all heads at once (GQA by repeat_interleave),
the causal mask, softmax, W_O, SwiGLU, the final norm, the classifier.
R2: one token at a time through a KV cache preallocated as (layers, seq_len,
kv_dim), as run.c decodes: matrix-vector products, RoPE at the position, K and V
written into the cache, the heads' attention over the positions so far (bmm).

Commands (one line each, one line of answer):
  load PATH                 -> {"torch":…, "threads":…, "blas":[…], "config":{…}}
  load_hf DIR               -> the same for a Hugging Face folder
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


class Greedy:
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


class Llama(Greedy):
    def __init__(self, config, w):
        self.c, self.w = config, w
        c = config
        self.hs = c["dim"] // c["n_heads"]
        self.group = c["n_heads"] // c["n_kv_heads"]
        self.kv_dim = c["n_kv_heads"] * self.hs
        # RoPE's angles pos·θ^(−2p/hs), in float64 then rounded, for every position.
        self.eps, self.rope_half = c.get("norm_eps", 1e-5), c.get("rope_half", False)
        theta = c.get("rope_theta", 10000.0)
        freq = 1.0 / (theta ** (torch.arange(0, self.hs, 2, dtype=torch.float64) / self.hs))
        ang = torch.arange(c["seq_len"], dtype=torch.float64)[:, None] * freq[None, :]
        self.cos, self.sin = torch.cos(ang).float(), torch.sin(ang).float()  # (seq_len, hs/2)
        # Per layer views, so that the loops index nothing but a list.
        self.layers = [{k: w[k][l] for k in ("rms_att", "wq", "wk", "wv", "wo", "rms_ffn", "w1", "w2", "w3")}
                       for l in range(c["n_layers"])]
        self.key_cache = torch.zeros(c["n_layers"], c["seq_len"], self.kv_dim)
        self.value_cache = torch.zeros(c["n_layers"], c["seq_len"], self.kv_dim)
        self.scale = 1.0 / math.sqrt(self.hs)

    def rmsnorm(self, x, g):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * g

    def rope(self, x, cos, sin):
        """x (..., heads·hs) with cos, sin (..., hs/2) broadcast over the heads: pairs (2p, 2p+1),
        or (p, p + hs/2) for Hugging Face's rotate_half."""
        if self.rope_half:
            xs = x.reshape(*x.shape[:-1], -1, 2, self.hs // 2)
            a, b = xs[..., 0, :], xs[..., 1, :]
            cos, sin = cos.unsqueeze(-2), sin.unsqueeze(-2)
            return torch.cat((a * cos - b * sin, a * sin + b * cos), -1).reshape(x.shape)
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


HF_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2")}


def read_safetensors(path):
    """{name: float32 torch tensor}: the header parsed here (Debian has no python3-safetensors), F16 and BF16 widened."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    n = struct.unpack_from("<Q", raw, 0)[0]
    header = json.loads(bytes(raw[8:8 + n]))
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        a = np.frombuffer(raw, dtype=HF_DTYPES[t["dtype"]], offset=8 + n + begin, count=(end - begin) // 2 if t["dtype"] != "F32" else (end - begin) // 4)
        a = (a.astype(np.uint32) << 16).view(np.float32) if t["dtype"] == "BF16" else a.astype(np.float32)
        out[name] = torch.from_numpy(np.ascontiguousarray(a).reshape(t["shape"]))
    return out


def read_hf(folder):
    """(config, model) of a tests/hf_files.py folder: Llama (LlamaForCausalLM, Qwen2 without its biases) or GPT-2."""
    with open(os.path.join(folder, "config.json")) as f:
        hc = json.load(f)
    index = os.path.join(folder, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else ["model.safetensors"]
    w = {}
    for name in files:
        w.update(read_safetensors(os.path.join(folder, name)))
    w = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in w.items()}
    if hc["model_type"] == "gpt2":
        d, L, h = hc["n_embd"], hc["n_layer"], hc["n_head"]
        config = dict(arch="gpt2", dim=d, hidden_dim=hc.get("n_inner") or 4 * d, n_layers=L, n_heads=h, n_kv_heads=h,
                      vocab_size=hc["vocab_size"], seq_len=hc["n_positions"], norm_eps=hc.get("layer_norm_epsilon", 1e-5))
        return config, Gpt2(config, w)
    d, L = hc["hidden_size"], hc["num_hidden_layers"]
    config = dict(arch=hc["model_type"], dim=d, hidden_dim=hc["intermediate_size"], n_layers=L,
                  n_heads=hc["num_attention_heads"], n_kv_heads=hc.get("num_key_value_heads", hc["num_attention_heads"]),
                  vocab_size=hc["vocab_size"], seq_len=min(hc["max_position_embeddings"], 2048),
                  norm_eps=hc.get("rms_norm_eps", 1e-6), rope_theta=hc.get("rope_theta", 10000.0), rope_half=True)
    names = {"rms_att": "input_layernorm", "wq": "self_attn.q_proj", "wk": "self_attn.k_proj", "wv": "self_attn.v_proj",
             "wo": "self_attn.o_proj", "rms_ffn": "post_attention_layernorm", "w1": "mlp.gate_proj", "w3": "mlp.up_proj",
             "w2": "mlp.down_proj"}
    lw = {k: torch.stack([w[f"model.layers.{l}.{v}.weight"] for l in range(L)]) for k, v in names.items()}
    lw.update(token_embedding=w["model.embed_tokens.weight"], rms_final=w["model.norm.weight"],
              wcls=w.get("lm_head.weight", w["model.embed_tokens.weight"]))
    return config, Llama(config, lw)


class Gpt2(Greedy):
    """GPT-2 as modeling_gpt2.py computes it: x = wte[t] + wpe[pos]; per block x += attn(ln_1(x)), x += mlp(ln_2(x));
    logits = ln_f(x)·wteᵀ. Conv1D's (in, out) weights are kept as (out, in) for F.linear and torch.mv."""

    def __init__(self, config, w):
        self.c, c = config, config
        self.hs = c["dim"] // c["n_heads"]
        self.eps, self.scale = c["norm_eps"], 1.0 / math.sqrt(self.hs)
        self.wte, self.wpe = w["wte.weight"], w["wpe.weight"]
        self.ln_f = (w["ln_f.weight"], w["ln_f.bias"])
        t = lambda name: w[name].t().contiguous()  # noqa: E731
        self.layers = [{"ln_1": (w[f"h.{l}.ln_1.weight"], w[f"h.{l}.ln_1.bias"]), "ln_2": (w[f"h.{l}.ln_2.weight"], w[f"h.{l}.ln_2.bias"]),
                        "qkv": (t(f"h.{l}.attn.c_attn.weight"), w[f"h.{l}.attn.c_attn.bias"]),
                        "o": (t(f"h.{l}.attn.c_proj.weight"), w[f"h.{l}.attn.c_proj.bias"]),
                        "up": (t(f"h.{l}.mlp.c_fc.weight"), w[f"h.{l}.mlp.c_fc.bias"]),
                        "down": (t(f"h.{l}.mlp.c_proj.weight"), w[f"h.{l}.mlp.c_proj.bias"])} for l in range(c["n_layers"])]
        self.key_cache = torch.zeros(c["n_layers"], c["seq_len"], c["dim"])
        self.value_cache = torch.zeros(c["n_layers"], c["seq_len"], c["dim"])

    def norm(self, x, p):
        return F.layer_norm(x, (x.shape[-1],), p[0], p[1], self.eps)

    def mlp(self, x, p):
        return F.linear(F.gelu(F.linear(x, *p["up"]), approximate="tanh"), *p["down"])

    def forward(self, ids):
        n, H, hs = len(ids), self.c["n_heads"], self.hs
        x = self.wte[ids] + self.wpe[:n]
        mask = torch.full((n, n), float("-inf")).triu(1)
        for p in self.layers:
            q, k, v = F.linear(self.norm(x, p["ln_1"]), *p["qkv"]).view(n, 3, H, hs).permute(1, 2, 0, 3)
            s = torch.baddbmm(mask, q, k.transpose(1, 2), alpha=self.scale)
            x = x + F.linear(torch.bmm(torch.softmax(s, -1), v).transpose(0, 1).reshape(n, -1), *p["o"])
            x = x + self.mlp(self.norm(x, p["ln_2"]), p)
        return F.linear(self.norm(x, self.ln_f), self.wte)

    def step(self, token, pos):
        H, hs, d, t = self.c["n_heads"], self.hs, self.c["dim"], pos + 1
        x = self.wte[token] + self.wpe[pos]
        for l, p in enumerate(self.layers):
            qkv = torch.addmv(p["qkv"][1], p["qkv"][0], self.norm(x, p["ln_1"]))
            self.key_cache[l, pos], self.value_cache[l, pos] = qkv[d:2 * d], qkv[2 * d:]
            k = self.key_cache[l, :t].view(t, H, hs).permute(1, 2, 0)
            v = self.value_cache[l, :t].view(t, H, hs).transpose(0, 1)
            s = torch.bmm(qkv[:d].view(H, 1, hs), k) * self.scale
            x = x + torch.addmv(p["o"][1], p["o"][0], torch.bmm(torch.softmax(s, -1), v).reshape(-1))
            h = self.norm(x, p["ln_2"])
            x = x + torch.addmv(p["down"][1], p["down"][0], F.gelu(torch.addmv(p["up"][1], p["up"][0], h), approximate="tanh"))
        return torch.mv(self.wte, self.norm(x, self.ln_f))


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
        elif cmd == "load_hf":
            config, model = read_hf(rest)
            model.forward([1, 2])
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
    if os.path.isdir(a.model):
        config, m = read_hf(a.model)
    else:
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
