"""`attn eval --model --tokenizer` against a PyTorch re-implementation of the llama
block and of llama2.c's tokenizer, both written here from the format's
description (tests/llama_files.py), not from the core's code.

    /usr/bin/python3 tests/llama_torch_test.py [path/to/attn]

Checkpoints with random weights are written to a temporary folder: versions 0 and
1, the classifier shared and not, MHA, GQA and MQA, odd hidden widths and small
head sizes. For each, texts in English and with characters the vocabulary lacks
(byte fallback) are encoded by the Python tokenizer and run in float64 by the
PyTorch forward; the core's token ids must equal the Python ones, its decoding
must give the text back, greedy generation through the KV cache must follow
the PyTorch pass's argmax and a seed must give the same text twice, and every stage of its trace (normed, q, k, v, q_rot,
k_rot, each head's weights and out, concat, attn_out, residual, ffn_normed,
ffn_gate, ffn_up, ffn_hidden, ffn_out, output, final_normed, logits) must agree
within TOL: max |core − torch| / max |torch| over the stage. An ablated head, a
masked edge, a truncated file, a NaN weight and a text past the context are
checked too. Exit status 1 when a check fails.
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import llama_files  # noqa: E402

TOL = 1e-4
TEXTS = ["Once upon a time there was a little girl named Lily.", "naïve 猫 café ☃ — ok!"]
# (name, version, shared classifier, dim, hidden, layers, heads, kv heads, seq_len)
MODELS = [
    ("v0 shared MHA", 0, True, 32, 80, 2, 4, 4, 64),
    ("v1 unshared GQA 6/2, hidden 97", 1, False, 48, 97, 3, 6, 2, 48),
    ("v1 shared MQA, head size 12", 1, True, 24, 61, 1, 2, 1, 40),
    ("v0 unshared GQA 6/3, head size 6", 0, False, 36, 75, 2, 6, 3, 64),
]
FAILS = []


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
    sys.exit("llama_torch_test: no attn binary (pass its path)")


# --- the tokenizer, as run.c encodes and decodes -----------------------------
def encode(pieces, scores, text, bos=True):
    index = {}
    for i, p in enumerate(pieces):
        index.setdefault(p.encode("utf-8"), i)
    ids = [1] if bos else []
    if text:
        ids.append(index[b" "])
    raw = text.encode("utf-8")
    buf = b""
    for i, c in enumerate(raw):
        if c & 0xC0 != 0x80:
            buf = b""
        buf += bytes([c])
        if i + 1 < len(raw) and raw[i + 1] & 0xC0 == 0x80 and len(buf) < 4:
            continue
        if buf in index:
            ids.append(index[buf])
        else:
            ids.extend(b + 3 for b in buf)
        buf = b""
    text_of = [p.encode("utf-8") for p in pieces]
    while True:
        best, best_id, best_i = -1e10, -1, -1
        for i in range(len(ids) - 1):
            j = index.get(text_of[ids[i]] + text_of[ids[i + 1]], -1)
            if j != -1 and scores[j] > best:
                best, best_id, best_i = scores[j], j, i
        if best_i == -1:
            return ids
        ids[best_i:best_i + 2] = [best_id]


def decode(pieces, ids):
    out = b""
    for prev, t in zip(ids, ids[1:]):
        p = pieces[t].encode("utf-8")
        if prev == 1 and p.startswith(b" "):
            p = p[1:]
        if len(p) == 6 and p.startswith(b"<0x") and p.endswith(b">"):
            p = bytes([int(p[3:5], 16)])
        out += p
    return out.decode("utf-8")


# --- the forward pass, float64 ------------------------------------------------
def rmsnorm(x, g):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * g


def rope(x, hs):  # x (n, heads·hs): pairs (2p, 2p+1) of each head turned by pos·10000^(−2p/hs)
    n = x.shape[0]
    xs = x.reshape(n, -1, hs // 2, 2)
    freq = 1.0 / (10000.0 ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
    ang = torch.arange(n, dtype=torch.float64)[:, None] * freq[None, :]
    c, s = torch.cos(ang)[:, None, :], torch.sin(ang)[:, None, :]
    a, b = xs[..., 0], xs[..., 1]
    return torch.stack([a * c - b * s, a * s + b * c], -1).reshape(n, -1)


def forward(w, ids, heads, kvh, ablate=(), hidden_edges=()):
    t = {k: torch.tensor(v, dtype=torch.float64) for k, v in w.items()}
    x = t["token_embedding"][ids]
    n, d = x.shape
    hs, group = d // heads, heads // kvh
    out = {"x0": x, "layers": []}
    for l in range(t["wq"].shape[0]):
        s = {"input": x, "normed": rmsnorm(x, t["rms_att"][l])}
        s["q"], s["k"], s["v"] = (s["normed"] @ t[k][l].T for k in ("wq", "wk", "wv"))
        s["q_rot"], s["k_rot"] = rope(s["q"], hs), rope(s["k"], hs)
        s["heads"] = []
        concat = torch.zeros(n, d, dtype=torch.float64)
        for h in range(heads):
            g = h // group
            q, k, v = s["q_rot"][:, h * hs:(h + 1) * hs], s["k_rot"][:, g * hs:(g + 1) * hs], s["v"][:, g * hs:(g + 1) * hs]
            sc = q @ k.T / math.sqrt(hs)
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
            for (el, eh, i, j) in hidden_edges:
                if el == l and eh == h:
                    mask[i, j] = True
            weights = torch.softmax(sc.masked_fill(mask, float("-inf")), -1)
            o = torch.zeros(n, hs, dtype=torch.float64) if (l, h) in ablate else weights @ v
            s["heads"].append({"weights": weights, "out": o})
            concat[:, h * hs:(h + 1) * hs] = o
        s["concat"] = concat
        s["attn_out"] = concat @ t["wo"][l].T
        s["residual"] = x + s["attn_out"]
        s["ffn_normed"] = rmsnorm(s["residual"], t["rms_ffn"][l])
        s["ffn_gate"] = s["ffn_normed"] @ t["w1"][l].T
        s["ffn_up"] = s["ffn_normed"] @ t["w3"][l].T
        s["ffn_hidden"] = torch.nn.functional.silu(s["ffn_gate"]) * s["ffn_up"]
        s["ffn_out"] = s["ffn_hidden"] @ t["w2"][l].T
        s["output"] = x = s["residual"] + s["ffn_out"]
        out["layers"].append(s)
    out["final_normed"] = rmsnorm(x, t["rms_final"])
    out["logits"] = out["final_normed"] @ t.get("wcls", t["token_embedding"]).T
    return out


# --- comparing ------------------------------------------------------------------
def as_array(m):
    data = [float(v) if not isinstance(v, str) else float(v.replace("inf", "inf")) for v in m["data"]]
    return np.array(data, dtype=np.float64).reshape(m["shape"])


def rel(core, ref):
    ref = ref.numpy()
    if core.shape != ref.shape:
        return float("inf")
    scale = max(np.abs(ref).max(), 1e-30)
    return float(np.abs(core - ref).max() / scale)


def compare_trace(name, core, ref):
    worst = {}

    def note(stage, r):
        worst[stage] = max(worst.get(stage, 0.0), r)

    note("x0", rel(as_array(core["x0"]), ref["x0"]))
    for cl, rl in zip(core["layers"], ref["layers"]):
        for stage in ("input", "normed", "q", "k", "v", "q_rot", "k_rot", "concat", "attn_out", "residual", "ffn_normed",
                      "ffn_gate", "ffn_up", "ffn_hidden", "ffn_out", "output"):
            note(stage, rel(as_array(cl[stage]), rl[stage]))
        for ch, rh in zip(cl["heads"], rl["heads"]):
            note("weights", rel(as_array(ch["weights"]), rh["weights"]))
            note("out", rel(as_array(ch["out"]), rh["out"]))
    note("final_normed", rel(as_array(core["final_normed"]), ref["final_normed"]))
    note("logits", rel(as_array(core["logits"]), ref["logits"]))
    bad = {k: v for k, v in worst.items() if not v <= TOL}
    check(len(core["layers"]) == len(ref["layers"]) and not bad,
          f"{name}: every stage within {TOL} (worst {max(worst.values()):.2e} at {max(worst, key=worst.get)})"
          + (f"; off: {bad}" if bad else ""))


def run(attn, argv):
    return subprocess.run([attn] + argv, capture_output=True, text=True, timeout=600)


def link(text, extra=""):
    from urllib.parse import quote
    return "v=1&text=" + quote(text, safe="") + extra


def summary_ids(stdout):
    for line in stdout.splitlines():
        if line.startswith("ids:"):
            return [int(v) for v in line.split()[1:]]
    return None


def summary_decoded(stdout):
    for line in stdout.splitlines():
        if line.startswith("decoded: "):
            return json.loads(line[len("decoded: "):])
    return None


def parse_lens(stdout):
    """The summary's logit lens rows and direct logit attribution (attn eval, llama/lens.hpp)."""
    lens, dla = [], {"heads": []}
    for line in stdout.splitlines():
        m = re.match(r'^logit lens at the last token, for id (\d+):$', line)
        if m:
            dla["target"] = int(m.group(1))
        m = re.match(r'^\s+(embedding|layer) (\d+): top (\d+) ".*" p (\S+), target p (\S+) rank (\d+)$', line)
        if m:
            lens.append((int(m.group(3)), float(m.group(4)), float(m.group(5)), int(m.group(6))))
        m = re.match(r'^direct logit attribution of id \d+: logit (\S+) = sum (\S+) \(1/rms (\S+)\)$', line)
        if m:
            dla["logit"], dla["sum"], dla["inv_rms"] = (float(v) for v in m.groups())
        m = re.match(r'^\s+embedding (\S+)$', line)
        if m:
            dla["embedding"] = float(m.group(1))
        m = re.match(r'^\s+layer \d+ heads (.*) ffn (\S+)$', line)
        if m:
            dla["heads"].append(([float(v) for v in m.group(1).split()], float(m.group(2))))
    return lens, dla


def check_lens(name, stdout, w, ref, ids, heads):
    """The logit lens (each residual through the final RMSNorm with its own scale) and the direct logit attribution
    (the final residual's parts through the final norm's scale of this pass) of the likeliest next token, against
    the reference pass's float64 numbers."""
    lens, dla = parse_lens(stdout)
    t = {k: torch.tensor(v, dtype=torch.float64) for k, v in w.items()}
    wcls, g = t.get("wcls", t["token_embedding"]), t["rms_final"]
    last = len(ids) - 1
    target = int(torch.argmax(ref["logits"][last]))
    rows = [ref["x0"][last]] + [layer["output"][last] for layer in ref["layers"]]
    want = []
    for x in rows:
        p = torch.softmax(rmsnorm(x, g) @ wcls.T, -1)
        top = int(torch.argmax(p))
        want.append((top, float(p[top]), float(p[target]), int((p > p[target]).sum())))
    ok = len(lens) == len(want) and dla.get("target") == target
    worst = 0.0
    for (ct, cp, cq, cr), (rt, rp, rq, rr) in zip(lens, want):
        ok = ok and ct == rt and cr == rr
        worst = max(worst, abs(cp - rp), abs(cq - rq))
    check(ok and worst <= 1e-4, f"{name}: the logit lens of id {target}: tops and ranks equal, probabilities within 1e-4 "
          f"(worst {worst:.1e})")
    final = ref["layers"][-1]["output"][last]
    inv = float(torch.rsqrt((final * final).mean() + 1e-5))
    u = g * wcls[target]
    d = final.shape[0]
    hs = d // heads
    parts = [inv * float(ref["x0"][last] @ u)]
    for l, layer in enumerate(ref["layers"]):
        wo = t["wo"][l]
        parts += [inv * float((layer["heads"][h]["out"][last] @ wo[:, h * hs:(h + 1) * hs].T) @ u) for h in range(heads)]
        parts.append(inv * float(layer["ffn_out"][last] @ u))
    core = [dla.get("embedding", float("nan"))]
    for hv, fv in dla["heads"]:
        core += hv + [fv]
    scale = max(1.0, max(abs(v) for v in parts))
    err = max((abs(a - b) for a, b in zip(core, parts)), default=float("inf")) / scale if len(core) == len(parts) else float("inf")
    logit = float(ref["logits"][last][target])
    check(err <= 1e-4 and abs(dla.get("inv_rms", 0) - inv) <= 1e-4 * inv and abs(dla.get("sum", 0) - logit) <= 1e-4 * scale,
          f"{name}: the direct logit attribution of id {target} (parts within {err:.1e} of the scale {scale:.3g}, "
          f"summing to the logit {logit:.4g})")


def check_model(attn, folder, spec, tokenizer_of):
    name, version, shared, d, f, L, h, kvh, T = spec
    V = len(llama_files.test_vocabulary()[0]) + 7  # a few pads past the test vocabulary
    path = os.path.join(folder, name.replace(" ", "_").replace(",", "").replace("/", "-") + ".bin")
    w = llama_files.write_checkpoint(path, (d, f, L, h, kvh, V, T), version, shared, seed=len(name))
    tok = tokenizer_of(V)
    pieces, scores = llama_files.test_vocabulary()
    pieces = pieces + ["<pad%d>" % i for i in range(len(pieces), V)]
    scores = scores + [-1e6] * (V - len(scores))
    for text in TEXTS:
        ids = encode(pieces, scores, text)
        check(decode(pieces, ids) == text, f"{name}: the Python tokenizer's round trip of {text!r}")
        p = run(attn, ["eval", link(text), "--model", path, "--tokenizer", tok])
        check(p.returncode == 0 and summary_ids(p.stdout) == ids,
              f"{name}: the core's ids for {text!r} are the Python tokenizer's ({summary_ids(p.stdout)} vs {ids}) {p.stderr}")
        check(summary_decoded(p.stdout) == text, f"{name}: the core decodes {text!r} back ({summary_decoded(p.stdout)!r})")
        check_lens(f"{name} on {text!r}", p.stdout, w, forward(w, ids, h, kvh), ids, h)
        p = run(attn, ["eval", link(text), "--model", path, "--tokenizer", tok, "--json"])
        if p.returncode != 0:
            check(False, f"{name}: attn eval --json failed: {p.stderr}")
            continue
        core = json.loads(p.stdout)
        # the labels: each piece, the special tokens' surrounding newlines ("\n<s>\n") trimmed
        check(core["tokens"] == [pieces[i].strip("\n") or pieces[i] for i in ids],
              f"{name}: the trace's tokens are the pieces of the ids")
        compare_trace(f"{name} on {text!r}", core, forward(w, ids, h, kvh))
    # Interventions of the link apply to the model's heads: head 1 of the last layer ablated, an edge masked
    # (the link names the model's shape so that its checks, made on the link's own words, pass).
    ids = encode(pieces, scores, TEXTS[0])
    extra = f"&d_model={d}&heads={h}&kv_heads={kvh}&layers={L}&ablate={L - 1}.1&edges=0.0.5.2"
    p = run(attn, ["eval", link(TEXTS[0], extra), "--model", path, "--tokenizer", tok, "--json"])
    if p.returncode != 0:
        check(False, f"{name}: eval with an ablation and a masked edge failed: {p.stderr}")
    else:
        compare_trace(f"{name}, head {L - 1}:1 ablated and edge 0:0 5→2 masked", json.loads(p.stdout),
                      forward(w, ids, h, kvh, ablate={(L - 1, 1)}, hidden_edges=[(0, 0, 5, 2)]))
    return path


def check_generation(attn, path, tok, spec):
    """Greedy generation through the core's KV cache = the PyTorch pass's argmax, step by step; a seed gives its text."""
    name, version, shared, d, f, L, h, kvh, T = spec
    pieces, scores = llama_files.test_vocabulary()
    V = len(pieces) + 7
    pieces = pieces + ["<pad%d>" % i for i in range(len(pieces), V)]
    scores = scores + [-1e6] * (V - len(scores))
    w = llama_files.random_weights((d, f, L, h, kvh, V, T), len(name), shared)
    ids = encode(pieces, scores, "Once upon a")
    for _ in range(12):
        nxt = int(forward(w, ids, h, kvh)["logits"][-1].argmax())
        if nxt == 1 or len(ids) >= T:
            break
        ids.append(nxt)
    p = run(attn, ["eval", link("Once upon a"), "--model", path, "--tokenizer", tok, "--generate", "12", "--temperature", "0"])
    core = summary_ids(p.stdout) if p.returncode == 0 else p.stderr
    check(core == ids, f"{name}: greedy generation through the KV cache is PyTorch's argmax ({core} vs {ids})")
    runs = [run(attn, ["eval", link("Once upon a"), "--model", path, "--tokenizer", tok, "--generate", "16", "--seed", seed,
                       "--temperature", "3", "--top-p", "0.99"]) for seed in ("7", "7", "8")]
    got = [summary_ids(r.stdout) for r in runs]
    check(got[0] and got[0] == got[1] and (got[0] != got[2] or not shared),
          f"{name}: the same seed generates the same tokens, another seed others ({got})")
    # The link's view.temperature, view.top_p, view.gen_seed sample as the options do (the page's Continue on that link).
    linked = run(attn, ["eval", link("Once upon a") + "&view.temperature=3&view.top_p=0.99&view.gen_seed=7", "--model", path,
                        "--tokenizer", tok, "--generate", "16"])
    check(summary_ids(linked.stdout) == got[0], f"{name}: the link's sampling keys generate as the options ({linked.stdout!r})")


def check_refusals(attn, folder, good, tok):
    data = open(good, "rb").read()
    cases = []
    cut = os.path.join(folder, "truncated.bin")
    open(cut, "wb").write(data[: len(data) - 10])
    cases.append(("a truncated checkpoint", cut, tok, "truncated.bin"))
    nan = os.path.join(folder, "nan.bin")
    bad = bytearray(data)
    bad[256 + 4 * 5:256 + 4 * 6] = struct.pack("<f", float("nan"))  # version 1: rms_att of layer 0, element 5
    open(nan, "wb").write(bytes(bad))
    cases.append(("a NaN weight", nan, tok, "NaN"))
    cases.append(("a missing file", os.path.join(folder, "absent.bin"), tok, "cannot open"))
    cases.append(("a tokenizer of another vocabulary", good, os.path.join(folder, "tok_small.bin"), "tok_small.bin"))
    llama_files.write_tokenizer(os.path.join(folder, "tok_small.bin"), len(llama_files.test_vocabulary()[0]))
    for what, model, tokenizer, needle in cases:
        p = run(attn, ["eval", link("Once"), "--model", model, "--tokenizer", tokenizer])
        check(p.returncode == 1 and needle in p.stderr and p.stdout == "",
              f"{what} is refused with a message naming it ({p.returncode}: {p.stderr.strip()})")
    p = run(attn, ["eval", link("Once upon a time " * 40), "--model", good, "--tokenizer", tok])
    check(p.returncode == 1 and "context" in p.stderr, f"a text past the context is refused ({p.stderr.strip()})")
    p = run(attn, ["eval", link("Once"), "--model", good])
    check(p.returncode == 2 and "--tokenizer" in p.stderr, f"--model without --tokenizer is a usage error ({p.stderr.strip()})")


def main():
    attn = find_attn(sys.argv[1:])
    with tempfile.TemporaryDirectory() as folder:
        tokenizers = {}

        def tokenizer_of(V):
            if V not in tokenizers:
                tokenizers[V] = os.path.join(folder, f"tokenizer_{V}.bin")
                llama_files.write_tokenizer(tokenizers[V], V)
            return tokenizers[V]

        paths = [check_model(attn, folder, spec, tokenizer_of) for spec in MODELS]
        V = len(llama_files.test_vocabulary()[0]) + 7
        for path, spec in zip(paths, MODELS):
            check_generation(attn, path, tokenizer_of(V), spec)
        v1 = paths[1]
        check_refusals(attn, folder, v1, tokenizer_of(len(llama_files.test_vocabulary()[0]) + 7))
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
