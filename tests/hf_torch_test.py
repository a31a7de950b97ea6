"""`attn eval --model DIR` on Hugging Face folders against a PyTorch re-implementation
of the Hugging Face modelling code's semantics and of a byte-level BPE tokenizer, both
written here from the formats' descriptions (tests/hf_files.py), not from the core's code.

    /usr/bin/python3 tests/hf_torch_test.py [path/to/attn]

Folders with random weights are written to a temporary folder: LlamaForCausalLM,
Qwen2ForCausalLM (biases on q, k, v) and GPT2LMHeadModel (Conv1D weights, LayerNorm
with biases, learned positions, the tied head, the causal-mask buffers), in F32, F16
and BF16; the head tied and not, MHA, GQA and MQA, rope_theta and rms_norm_eps other
than the defaults, odd intermediate sizes, small heads, one file or 2-3 shards, a
config vocabulary larger than the tokenizer's. The reference computes in float64
from the weights as stored (F16 and BF16 widen exactly):
  Llama, Qwen2  RMSNorm x·rsqrt(mean(x²) + ε)·g; q, k, v = x Wᵀ (+ b); rotate_half
                RoPE, angle pos·θ^(−2i/hd) on the pairs (x[i], x[i + hd/2]); GQA (query
                head h reads K/V head h // (heads / kv_heads)); softmax(q kᵀ/√hd)
                causal; o_proj; SwiGLU down(silu(gate x)·up x); the final norm; lm_head
                or the embedding
  GPT-2         x = wte[id] + wpe[pos]; pre-LN LayerNorm (ε from the config, biased);
                c_attn x W + b (Conv1D: W is (in, out)) split into q, k, v; the causal
                softmax of q kᵀ/√hd; c_proj; the MLP c_proj(gelu_tanh(c_fc x)); ln_f;
                logits against wte
For a pair (architecture, dtype) in SUPPORTED the core must agree: its token ids are this
file's byte-level BPE encoding of the link's text, its decoding gives the text back, every
matrix of its trace (whatever stages it reports, each head's included) is within TOL of
the reference (max |core − torch| / max |torch| over the stage), also with a head ablated
and an edge masked by the link, and greedy generation of GENERATE tokens through its KV
cache is the reference's argmax (where the top two are closer than the tolerance, either
may be taken). Every pair is computed today; a pair taken out of SUPPORTED is checked
for a refusal naming what is missing instead. Refusals of broken folders (a truncated shard,
overlapping offsets, a NaN weight, a shape against the config, rope_scaling, a sliding
window, a missing file, an index naming the wrong shard) are checked too. Exit status 1
when a check fails.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import hf_files  # noqa: E402
from hf_files import spec  # noqa: E402

# The switch: (architecture, dtype) the core computes. The others are checked for their refusal.
SUPPORTED = {(a, t) for a in ("llama", "qwen2", "gpt2") for t in ("F32", "F16", "BF16")}

TOL = 1e-4
GENERATE = 32
TEXTS = ["Once upon a time there was a little girl named Lily.", "naïve 猫 café ☃ — ok! It's 2024,  don't\n stop"]
MODELS = [
    spec("llama F32 tied MHA", "llama", "F32", d=32, ff=80, layers=2, heads=4, tied=True),
    spec("llama F32 GQA 6-2 ff 97 theta 5e5 eps 1e-6 2 shards", "llama", "F32", d=48, ff=97, layers=2, heads=6,
         kv_heads=2, theta=500000.0, eps=1e-6, shards=2, extra_vocab=5),
    spec("llama F32 tied MQA head_dim 4 3 shards", "llama", "F32", d=24, ff=61, layers=1, heads=6, kv_heads=1, tied=True,
         theta=1e6, eps=3e-6, shards=3),
    spec("qwen2 F32 tied GQA 4-2 theta 1e6", "qwen2", "F32", d=32, ff=72, layers=2, heads=4, kv_heads=2, tied=True,
         theta=1e6, eps=1e-6),
    spec("qwen2 F32 MQA head_dim 6 ff 53 2 shards", "qwen2", "F32", d=36, ff=53, layers=2, heads=6, kv_heads=1,
         theta=20000.0, shards=2, extra_vocab=3),
    spec("llama F16 GQA 4-2 2 shards", "llama", "F16", d=32, ff=80, layers=2, heads=4, kv_heads=2, shards=2),
    spec("llama BF16 tied MHA eps 1e-6", "llama", "BF16", d=32, ff=75, layers=2, heads=4, tied=True, eps=1e-6),
    spec("qwen2 F16 tied MQA", "qwen2", "F16", d=24, ff=64, layers=2, heads=4, kv_heads=1, tied=True, theta=1e6),
    spec("qwen2 BF16 GQA 6-3 3 shards", "qwen2", "BF16", d=36, ff=70, layers=2, heads=6, kv_heads=3, shards=3,
         extra_vocab=4),
    spec("gpt2 F32 mask buffers", "gpt2", "F32", d=32, ff=128, layers=2, heads=4, mask_buffers=True),
    spec("gpt2 F16 transformer. prefix head_dim 6 ff 77", "gpt2", "F16", d=30, ff=77, layers=2, heads=5,
         prefix="transformer."),
    spec("gpt2 BF16 odd n_embd 15 2 shards", "gpt2", "BF16", d=15, ff=41, layers=1, heads=3, shards=2, eps=1e-6),
]
FAILS = []
WORST = {}  # (arch, dtype) → the largest relative difference of any stage


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def find_attn(argv):
    for a in argv:
        if os.path.basename(a) == "attn" and os.access(a, os.X_OK):
            return a
    for p in ("build/native-debug/attn", "build/native-release/attn"):
        if os.access(os.path.join(ROOT, p), os.X_OK):
            return os.path.join(ROOT, p)
    sys.exit("hf_torch_test: no attn binary (pass its path)")


def run(attn, argv):
    return subprocess.run([attn] + argv, capture_output=True, text=True, timeout=600)


def link(text):
    return "v=1&text=" + quote(text, safe="")


# --- the forward passes, float64 -------------------------------------------------------
def rmsnorm(x, g, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g


def layernorm(x, g, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def rotate_half_rope(x, heads, hd, theta):
    """HF's apply_rotary_pos_emb: x·cos + rotate_half(x)·sin, cos/sin of pos·inv_freq repeated over both halves."""
    n = x.shape[0]
    inv_freq = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    freqs = torch.arange(n, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], -1)
    cos, sin = torch.cos(emb)[:, None, :], torch.sin(emb)[:, None, :]
    xs = x.reshape(n, heads, hd)
    rot = torch.cat([-xs[..., hd // 2:], xs[..., :hd // 2]], -1)
    return (xs * cos + rot * sin).reshape(n, heads * hd)


def attention(s, q_all, k_all, v_all, heads, kv_heads, hd, layer, changes):
    """Each head's stages as the core names them; fills s["heads"] and s["concat"]. changes: (the (layer, head)s
    ablated, whose output is zero; the edges (layer, head, query, key) masked besides the causal mask)."""
    n = q_all.shape[0]
    group = heads // kv_heads
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    s["heads"], outs = [], []
    for h in range(heads):
        g = h // group
        q, k, v = q_all[:, h * hd:(h + 1) * hd], k_all[:, g * hd:(g + 1) * hd], v_all[:, g * hd:(g + 1) * hd]
        scores = q @ k.T
        scaled = scores / math.sqrt(hd)
        hidden = mask.clone()
        for (el, eh, i, j) in changes[1]:
            if (el, eh) == (layer, h):
                hidden[i, j] = True
        masked = scaled.masked_fill(hidden, float("-inf"))
        weights = torch.softmax(masked, -1)
        logs = torch.where(weights > 0, torch.log(weights), torch.zeros_like(weights))
        out = torch.zeros(n, hd, dtype=torch.float64) if (layer, h) in changes[0] else weights @ v
        s["heads"].append({"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "masked": masked,
                           "weights": weights, "out": out, "row_sums": weights.sum(-1),
                           "row_entropies": -(weights * logs).sum(-1)})
        outs.append(out)
    s["concat"] = torch.cat(outs, -1)


def forward_llama(w, c, ids, changes):
    """LlamaForCausalLM / Qwen2ForCausalLM: the trace's stages by the core's names."""
    t = {k: torch.tensor(v) for k, v in w.items()}
    d, heads, kvh, eps = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["rms_norm_eps"]
    hd, theta = d // heads, c["rope_theta"]
    x = t["model.embed_tokens.weight"][ids]
    out = {"x0": x, "layers": []}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        s = {"input": x, "normed": rmsnorm(x, t[p + "input_layernorm.weight"], eps)}
        for name in ("q", "k", "v"):
            s[name] = s["normed"] @ t[p + f"self_attn.{name}_proj.weight"].T
            if p + f"self_attn.{name}_proj.bias" in t:
                s[name] = s[name] + t[p + f"self_attn.{name}_proj.bias"]
        s["q_rot"] = rotate_half_rope(s["q"], heads, hd, theta)
        s["k_rot"] = rotate_half_rope(s["k"], kvh, hd, theta)
        attention(s, s["q_rot"], s["k_rot"], s["v"], heads, kvh, hd, l, changes)
        s["attn_out"] = s["concat"] @ t[p + "self_attn.o_proj.weight"].T
        s["residual"] = x + s["attn_out"]
        s["ffn_normed"] = rmsnorm(s["residual"], t[p + "post_attention_layernorm.weight"], eps)
        s["ffn_gate"] = s["ffn_normed"] @ t[p + "mlp.gate_proj.weight"].T
        s["ffn_up"] = s["ffn_normed"] @ t[p + "mlp.up_proj.weight"].T
        s["ffn_hidden"] = torch.nn.functional.silu(s["ffn_gate"]) * s["ffn_up"]
        s["ffn_out"] = s["ffn_hidden"] @ t[p + "mlp.down_proj.weight"].T
        s["output"] = x = s["residual"] + s["ffn_out"]
        out["layers"].append(s)
    out["output"] = x
    out["final_normed"] = rmsnorm(x, t["model.norm.weight"], eps)
    out["logits"] = out["final_normed"] @ t.get("lm_head.weight", t["model.embed_tokens.weight"]).T
    return out


def forward_gpt2(w, c, ids, changes):
    """GPT2LMHeadModel, its stages named as the llama block's where they mean the same (ffn_gate: c_fc's output, before GELU; no ffn_up)."""
    t = {k[len("transformer."):] if k.startswith("transformer.") else k: torch.tensor(v) for k, v in w.items()}
    d, heads, eps = c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
    hd = d // heads
    x = t["wte.weight"][ids] + t["wpe.weight"][: len(ids)]
    out = {"x0": x, "layers": []}
    for l in range(c["n_layer"]):
        p = f"h.{l}."
        s = {"input": x, "normed": layernorm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)}
        qkv = s["normed"] @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        s["q"], s["k"], s["v"] = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
        s["q_rot"], s["k_rot"] = s["q"], s["k"]  # no RoPE: the positions came with the embedding
        attention(s, s["q"], s["k"], s["v"], heads, heads, hd, l, changes)
        s["attn_out"] = s["concat"] @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        s["residual"] = x + s["attn_out"]
        s["ffn_normed"] = layernorm(s["residual"], t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        s["ffn_gate"] = s["ffn_normed"] @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]
        s["ffn_hidden"] = gelu_tanh(s["ffn_gate"])
        s["ffn_out"] = s["ffn_hidden"] @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
        s["output"] = x = s["residual"] + s["ffn_out"]
        out["layers"].append(s)
    out["output"] = x
    out["final_normed"] = layernorm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    out["logits"] = out["final_normed"] @ t["wte.weight"].T
    return out


def forward(s, w, c, ids, changes=((), ())):
    return (forward_gpt2 if s["arch"] == "gpt2" else forward_llama)(w, c, ids, changes)


# --- comparing ------------------------------------------------------------------------------
NOT_STAGES = {"experiment", "arch", "tokens", "nan_count", "inf_count", "layer", "head", "kv_group", "ablated"}


def as_array(v):
    if isinstance(v, dict):
        return np.array([float(x) for x in v["data"]], dtype=np.float64).reshape(v["shape"])
    return np.array([float(x) for x in v], dtype=np.float64)


def rel(core, ref):
    """max |core − ref| / max |ref| over the finite entries; ±∞ (the mask) must sit in the same places."""
    ref = ref.numpy()
    if core.shape != ref.shape or not np.array_equal(np.isfinite(core), np.isfinite(ref)):
        return float("inf")
    if not np.isfinite(ref).any():
        return 0.0 if np.array_equal(core, ref) else float("inf")
    fin = np.isfinite(ref)
    if not np.array_equal(core[~fin], ref[~fin]):
        return float("inf")
    return float(np.abs(core[fin] - ref[fin]).max() / max(np.abs(ref[fin]).max(), 1e-30))


def compare_stages(core, ref, where, worst):
    """Every number of the core's trace against the reference's stage of the same name (a stage the reference lacks
    is a failure: the test must be told what it means)."""
    for key, v in core.items():
        if key in NOT_STAGES:
            continue
        name = where + key
        if key in ("layers", "heads"):
            if not isinstance(ref.get(key), list) or len(ref[key]) != len(v):
                worst[name] = float("inf")
                continue
            for cv, rv in zip(v, ref[key]):
                compare_stages(cv, rv, "head " if key == "heads" else "", worst)
        elif key not in ref:
            worst[name + " (not in the reference)"] = float("inf")
        else:
            worst[name] = max(worst.get(name, 0.0), rel(as_array(v), ref[key]))


def compare_trace(name, s, core, ref):
    worst = {}
    compare_stages(core, ref, "", worst)
    key = (s["arch"], s["dtype"])
    WORST[key] = max(WORST.get(key, 0.0), max(worst.values()))
    bad = {k: v for k, v in worst.items() if not v <= TOL}
    top = max(worst, key=worst.get)
    check(not bad and "logits" in worst,
          f"{name}: {len(worst)} stages within {TOL} (worst {worst[top]:.2e} at {top})" + (f"; off: {bad}" if bad else ""))


def terminal_safe(text):
    """What the summary prints of a text (cli_terminal_safe): control characters as \\xNN."""
    return "".join("\\x%02X" % ord(ch) if ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in text)


def summary_line(stdout, prefix):
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return line[len(prefix):]
    return None


def summary_ids(stdout):
    line = summary_line(stdout, "ids:")
    return None if line is None else [int(v) for v in line.split()]


def greedy(s, w, c, prompt, eos, core):
    """The reference's argmax continuation; where its top two are within 2·TOL of the largest logit (what the core
    may differ by), the core's choice of the close ones is followed. Returns the ids and how many steps were close."""
    ids, close = list(prompt), 0
    for _ in range(GENERATE):
        z = forward(s, w, c, ids)["logits"][-1]
        near = [int(v) for v in torch.nonzero(z >= z.max() - 2 * TOL * z.abs().max()).flatten()]
        at = len(ids)
        if len(near) > 1:
            close += 1
        nxt = core[at] if len(near) > 1 and at < len(core) and core[at] in near else int(z.argmax())
        if nxt == eos:  # the end of the text: not printed
            break
        ids.append(nxt)
        if len(ids) >= c.get("max_position_embeddings", c.get("n_positions")):
            break
    return ids, close


def check_changes(attn, path, s, w, c, tok):
    """The link's ablate= and edges= on the model's heads: the last layer's head 1 ablated, layer 0 head 0's edge 5 → 2
    masked (the link names the model's shape, so that its own checks pass)."""
    L, h = s["layers"], s["heads"]
    extra = f"&d_model={s['d']}&heads={h}&kv_heads={s['kv_heads']}&layers={L}&ablate={L - 1}.1&edges=0.0.5.2"
    p = run(attn, ["eval", link(TEXTS[0]) + extra, "--model", path, "--json"])
    if p.returncode != 0:
        check(False, f"{s['name']}: eval with an ablation and a masked edge failed: {p.stderr}")
        return
    compare_trace(f"{s['name']}, head {L - 1}:1 ablated and edge 0:0 5→2 masked", s, json.loads(p.stdout),
                  forward(s, w, c, tok.encode(TEXTS[0]), ({(L - 1, 1)}, [(0, 0, 5, 2)])))


def check_model(attn, path, s, w, c, tok):
    name = s["name"]
    for text in TEXTS:
        ids = tok.encode(text)
        check(tok.decode_bytes(ids) == text.encode(), f"{name}: the Python tokenizer's round trip of {text!r}")
        p = run(attn, ["eval", link(text), "--model", path])
        check(p.returncode == 0 and summary_ids(p.stdout) == ids,
              f"{name}: the core's ids for {text!r} are the Python tokenizer's ({summary_ids(p.stdout)} vs {ids}) {p.stderr}")
        decoded = summary_line(p.stdout, "decoded: ")
        check(decoded is not None and json.loads(decoded) == terminal_safe(text),
              f"{name}: the core decodes {text!r} back ({decoded})")
        p = run(attn, ["eval", link(text), "--model", path, "--json"])
        if p.returncode != 0:
            check(False, f"{name}: attn eval --json failed: {p.stderr}")
            continue
        compare_trace(f"{name} on {text!r}", s, json.loads(p.stdout), forward(s, w, c, ids))
    check_changes(attn, path, s, w, c, tok)
    prompt = tok.encode(TEXTS[0])
    p = run(attn, ["eval", link(TEXTS[0]), "--model", path, "--generate", str(GENERATE), "--temperature", "0"])
    got = summary_ids(p.stdout) if p.returncode == 0 else None
    want, close = greedy(s, w, c, prompt, tok.eos, got or [])
    check(got == want, f"{name}: greedy generation of {GENERATE} tokens through the KV cache is the reference's argmax"
          f" ({len(want) - len(prompt)} tokens, {close} of them between close logits)" + ("" if got == want else
                                                                                         f": {got} vs {want} {p.stderr}"))


def check_refused_today(attn, path, s):
    """A pair not in SUPPORTED: refused with a message naming what is missing, nothing on stdout."""
    needle = "GPT-2" if s["arch"] == "gpt2" else s["dtype"]
    p = run(attn, ["eval", link(TEXTS[0]), "--model", path])
    check(p.returncode == 1 and needle in p.stderr and p.stdout == "",
          f"{s['name']}: refused today, naming {needle} ({p.returncode}: {p.stderr.strip()})")


# --- broken folders ---------------------------------------------------------------------
def read_safetensors(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n]), data[8 + n:]


def write_safetensors_raw(path, header, data):
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + data)


def broken(folder, good, name, change):
    """A copy of the folder `good` with `change(copy)` applied."""
    path = os.path.join(folder, "broken " + name)
    shutil.copytree(good, path)
    change(path)
    return path


def edit_config(**fields):
    def change(path):
        c = json.load(open(os.path.join(path, "config.json")))
        c.update(fields)
        json.dump(c, open(os.path.join(path, "config.json"), "w"))
    return change


def truncate(file, cut):
    def change(path):
        data = open(os.path.join(path, file), "rb").read()
        open(os.path.join(path, file), "wb").write(data[:len(data) - cut])
    return change


def overlap(path):
    """model.safetensors with its second tensor's offsets 4 bytes early: it overlaps the first."""
    f = os.path.join(path, "model.safetensors")
    header, data = read_safetensors(f)
    second = sorted((v["data_offsets"][0], k) for k, v in header.items() if k != "__metadata__")[1][1]
    header[second]["data_offsets"] = [o - 4 for o in header[second]["data_offsets"]]
    write_safetensors_raw(f, header, data)


def nan_weight(path):
    f = os.path.join(path, "model.safetensors")
    header, data = read_safetensors(f)
    at = header["model.layers.1.mlp.up_proj.weight"]["data_offsets"][0] + 4 * 7
    write_safetensors_raw(f, header, data[:at] + struct.pack("<f", float("nan")) + data[at + 4:])


def wrong_shard_in_index(path):
    f = os.path.join(path, "model.safetensors.index.json")
    index = json.load(open(f))
    wm = index["weight_map"]
    files = sorted(set(wm.values()))
    name = next(k for k, v in wm.items() if v == files[0])
    wm[name] = files[1]
    json.dump(index, open(f, "w"))


def check_refusals(attn, folder, one_file, sharded, qwen2):
    shard = sorted(f for f in os.listdir(sharded) if f.startswith("model-"))[1]
    cases = [
        ("a truncated shard", broken(folder, sharded, "truncated", truncate(shard, 10)), shard),
        ("overlapping offsets", broken(folder, one_file, "overlap", overlap), "overlap"),
        ("a NaN weight", broken(folder, one_file, "nan", nan_weight), "model.layers.1.mlp.up_proj.weight' holds a NaN"),
        ("a shape against config.json", broken(folder, one_file, "shape", edit_config(intermediate_size=81)),
         "config.json makes it"),
        ("rope_scaling", broken(folder, one_file, "rope_scaling", edit_config(rope_scaling={"type": "linear", "factor": 2.0})),
         "rope_scaling"),
        ("a sliding window", broken(folder, qwen2, "sliding", edit_config(use_sliding_window=True, sliding_window=16)),
         "sliding"),
        ("a missing shard", broken(folder, sharded, "missing shard", lambda p: os.remove(os.path.join(p, shard))), shard),
        ("no tokenizer.json", broken(folder, one_file, "no tokenizer", lambda p: os.remove(os.path.join(p, "tokenizer.json"))),
         "tokenizer.json"),
        ("an index naming the wrong shard", broken(folder, sharded, "wrong shard", wrong_shard_in_index),
         "model.safetensors.index.json puts"),
    ]
    for what, path, needle in cases:
        p = run(attn, ["eval", link("Once"), "--model", path])
        check(p.returncode == 1 and needle in p.stderr and p.stdout == "",
              f"{what} is refused with a message naming it ({p.returncode}: {p.stderr.strip()})")
    p = run(attn, ["eval", link("Once"), "--model", one_file, "--tokenizer", os.path.join(one_file, "tokenizer.json")])
    check(p.returncode == 2 and "tokenizer.json" in p.stderr, f"a folder with --tokenizer is a usage error ({p.stderr.strip()})")


def main():
    attn = find_attn(sys.argv[1:])
    start = time.time()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for s in MODELS:
            path = os.path.join(folder, s["name"])
            w, c, tok = hf_files.write_folder(path, s)
            paths[s["name"]] = path
            if (s["arch"], s["dtype"]) in SUPPORTED:
                check_model(attn, path, s, w, c, tok)
            else:
                check_refused_today(attn, path, s)
        single = next(s for s in MODELS if s["arch"] == "llama" and s["dtype"] == "F32" and s["shards"] == 1)
        shards = next(s for s in MODELS if s["arch"] == "llama" and s["dtype"] == "F32" and s["shards"] > 1)
        qwen2 = next(s for s in MODELS if s["arch"] == "qwen2" and s["dtype"] == "F32" and s["shards"] == 1)
        check_refusals(attn, folder, paths[single["name"]], paths[shards["name"]], paths[qwen2["name"]])
    for (arch, dtype), v in sorted(WORST.items()):
        print(f"worst relative difference, {arch} {dtype}: {v:.2e}")
    print(f"{time.time() - start:.1f} s")
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
