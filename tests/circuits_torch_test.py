#!/usr/bin/python3
"""An independent re-implementation in PyTorch of `attn circuits` (issue 31 items 1-6).

    /usr/bin/python3 tests/circuits_torch_test.py [path/to/attn] [--report FILE]

Trains nothing: runs the built `attn circuits '<recipe>' --weights` (the report's
JSON plus "model", the trained weights) for two recipes, the L9 lesson's
(recipe_lesson_induction, 2 layers, RoPE) and a three-layer GQA attn_res recipe
(4 heads reading 2 K/V heads), plus two briefly trained variants (learned
positions with W_O off; sinusoidal positions, one K/V head, no scale, temperature
2), and recomputes from those weights alone, in
float64 (the reference) and float32, with the definitions of docs/circuits.md:

  1 predictions       the forward pass, logits, softmax, top tokens, target probability and rank
  2 direct logit attribution   embedding, positions, each head's write, unembedded
  3 logit lens        the residual stream after each layer unembedded
  4 path expansion    direct, single-head and two-head (virtual head) paths (2 layers);
                      for 3 layers the report must say why there is none
  5 weight circuits   full QK circuits at the RoPE offsets, positional QK patterns,
                      full OV circuits, diagonal top-1 rates, copying scores
                      (torch.linalg.eigvals), K-composition maps and their top-1 rates
  6 composition       Q-, K-, V-composition of every pair, and the random baseline,
                      redrawn exactly from the documented seed (SplitMix64, Irwin-Hall)

Relative difference of a quantity: max |core - torch| / max |torch| over all its
numbers (as bench/torch_peer.py); for one scalar (a score, a rate) |core - torch| /
|torch|. Every number must agree within 1e-5 (the copying score 1e-4) with the
float64 reference, and (checked the same way) with the float32 one. Ranks, top
tokens and top-1 rates are integers: they must be equal, except where two
candidates' values lie closer than the tolerance (a tie the rounding may break
either way), which is reported. Prints a table of the largest differences per
quantity; exit status 1 when a check fails. Debian's python3-torch imports only
under /usr/bin/python3.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TEXT = "v=1&text=j%20a%20b%20c%20d%20e%20f%20g%20c%20d%20e%20f%20g"
# src/core/spec/recipe.hpp's recipe_lesson_induction (L9), and a three-layer GQA model.
L9 = TEXT + "&d_model=48&heads=4&layers=2&block=attn_res&pos=rope&train=induction&steps=1500"
GQA3 = TEXT + "&d_model=32&heads=4&kv_heads=2&layers=3&block=attn_res&pos=rope&train=induction&steps=300"
# The other branches of the definitions, briefly trained: learned positions (P W_QK Pᵀ) with
# W_O off (each head placed in its columns); sinusoidal positions shifted by pos_offset,
# one K/V head, no score scale, temperature 2.
LEARNED = TEXT + "&d_model=32&heads=2&layers=2&block=attn_res&pos=learned&wo=off&train=induction&steps=200"
SIN = TEXT + "&d_model=32&heads=4&kv_heads=1&layers=2&block=attn_res&pos=sin&pos_offset=3&scale=none&temp=2&train=induction&steps=200"
RUNS = [("L9 row 0", L9, 0), ("L9 row 5", L9, 5), ("gqa3 row 0", GQA3, 0), ("learned,wo=off row 3", LEARNED, 3),
        ("sin,kv_heads=1 row 3", SIN, 3)]  # (name, recipe, held-out row)
TOL, TOL_COPY = 1e-5, 1e-4


def find_attn(argv):
    for a in argv:
        if os.path.basename(a) == "attn" and os.access(a, os.X_OK):
            return a
    for p in ("build/native-debug/attn", "build/native-release/attn", "build/native-debug/src/tools/attn"):
        if os.access(os.path.join(ROOT, p), os.X_OK):
            return os.path.join(ROOT, p)
    sys.exit("circuits_torch_test: no attn binary (pass its path)")


def core_report(attn, recipe, row=0):
    p = subprocess.run([attn, "circuits", recipe, "--weights", "--row", str(row)], capture_output=True, text=True,
                       timeout=1800)
    if p.returncode != 0:
        sys.exit(f"circuits_torch_test: attn circuits failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


# --- the model, from the dumped weights --------------------------------------------


class Model:
    """The dumped model in one dtype: weights, per-head slices, RoPE from its definition."""

    def __init__(self, m, dtype):
        self.m, self.dt = m, dtype
        self.T, self.V, self.d, self.h, self.g, self.L, self.dk = (m[k] for k in ("T", "V", "d", "h", "g", "L", "dk"))
        self.w = {k: torch.tensor(v, dtype=torch.float64).to(dtype) for k, v in m["tensors"].items()}
        self.pos = torch.tensor(m["positions"], dtype=torch.float64).to(dtype)
        self.mask = torch.tensor(m["mask"], dtype=torch.float64) != 0
        assert m["block"] == "attn_res", "this reference implements block=attn_res"

    def kv(self, h):  # query head h reads K/V head h / (heads / kv_heads)
        return h // (self.h // self.g)

    def wq(self, l, h):
        return self.w[f"layer{l}.w_q"][:, h * self.dk:(h + 1) * self.dk]

    def wk(self, l, h):
        j = self.kv(h)
        return self.w[f"layer{l}.w_k"][:, j * self.dk:(j + 1) * self.dk]

    def wv(self, l, h):
        j = self.kv(h)
        return self.w[f"layer{l}.w_v"][:, j * self.dk:(j + 1) * self.dk]

    def wo(self, l, h):  # the d_k rows of W_O reading head h (the placement when wo=off)
        if self.m["wo"]:
            return self.w[f"layer{l}.w_o"][h * self.dk:(h + 1) * self.dk, :]
        eye = torch.zeros(self.dk, self.d, dtype=self.dt)
        eye[:, h * self.dk:(h + 1) * self.dk] = torch.eye(self.dk, dtype=self.dt)
        return eye

    def rotate(self, x, angle_of_pair):
        """Rows of x (..., d_k) with each pair (2p, 2p+1) turned by angle_of_pair[..., p]
        (RoPE: θ_p = base^(−2p/d_k), position t's angle t·θ_p)."""
        if self.m["pos"] != "rope":
            return x
        half = self.dk // 2
        c, s = torch.cos(angle_of_pair).to(self.dt), torch.sin(angle_of_pair).to(self.dt)
        a, b = x[..., 0:2 * half:2], x[..., 1:2 * half:2]
        out = x.clone()
        out[..., 0:2 * half:2] = a * c - b * s
        out[..., 1:2 * half:2] = a * s + b * c
        return out

    def theta(self):
        half = self.dk // 2
        return torch.tensor([self.m["rope_base"] ** (-2.0 * p / self.dk) for p in range(half)], dtype=torch.float64)

    def forward(self, tokens):
        """x_0 … x_L (T, d), the patterns A[l] (h, T, T) and each head's write (h, T, d) per layer."""
        T = self.T
        xs = [self.w["w_e"][tokens] + self.pos]
        att, writes = [], []
        angles = (torch.arange(T, dtype=torch.float64) + self.m["pos_offset"])[:, None] * self.theta()[None, :]
        for l in range(self.L):
            x = xs[-1]
            A, W = [], []
            for h in range(self.h):
                q = self.rotate(x @ self.wq(l, h), angles)
                k = self.rotate(x @ self.wk(l, h), angles)
                s = (q @ k.T) * self.m["scale"] / self.m["temperature"]
                s = s.masked_fill(self.mask, float("-inf"))
                a = torch.softmax(s, dim=-1).nan_to_num(0.0)
                A.append(a)
                W.append(a @ (x @ self.wv(l, h)) @ self.wo(l, h))
            att.append(torch.stack(A))
            writes.append(torch.stack(W))
            xs.append(x + writes[-1].sum(0))
        return xs, att, writes

    def qk(self, l, h, delta):
        """W_QK(δ) = W_Q^h R(δ) (W_K^j)ᵀ (d × d): the model's q_i·k_j depends on i − j = δ only."""
        ang = torch.full((self.dk // 2,), float(delta), dtype=torch.float64) * self.theta()
        return self.rotate(self.wq(l, h), ang) @ self.wk(l, h).T

    def ov(self, l, h):
        return self.wv(l, h) @ self.wo(l, h)


# --- items 1-6 ---------------------------------------------------------------------


def ranks(z, targets):  # how many tokens have a larger logit than the target
    return (z > z.gather(-1, targets[..., None])).sum(-1)


def top1_rate(m):
    return float((m.argmax(-1) == torch.arange(m.shape[0])).double().mean())


def copying_score(m, dtype=torch.float64):
    """Σ Re λ / Σ |λ| over the eigenvalues of m, solved in `dtype` (double by default, as
    the core solves its fp32 map in double)."""
    lam = torch.linalg.eigvals(m.to(dtype))
    return float(lam.real.sum() / lam.abs().sum())


def fro(x):
    return torch.linalg.norm(x)


def composition(A, B):
    return float(fro(A @ B) / (fro(A) * fro(B)))


def read_row(M, J):
    tokens = torch.tensor(J["tokens"][0], dtype=torch.long)
    targets = torch.tensor(J["targets"][0], dtype=torch.long)
    xs, att, writes = M.forward(tokens)
    U = M.w["w_u"]
    out = {}
    logits = xs[-1] @ U
    probs = torch.softmax(logits, -1)
    out["predictions.logits"] = logits
    out["predictions.probs"] = probs
    out["predictions.target_prob"] = probs.gather(-1, targets[:, None])[:, 0]
    out["_rank"] = (logits, targets)
    # 2: x_L = W_E[tok] + pos + Σ_{l,h} write_{l,h}, each part unembedded.
    parts = {"embed": M.w["w_e"][tokens] @ U, "pos": M.pos @ U}
    for l in range(M.L):
        for h in range(M.h):
            parts[f"L{l}H{h}"] = writes[l][h] @ U
    out["_dla_parts"] = list(parts)
    out["dla.values"] = torch.stack(list(parts.values()))
    out["dla.target"] = out["dla.values"].gather(-1, targets[None, :, None].expand(len(parts), -1, 1))[..., 0]
    out["_dla_sum"] = (out["dla.values"].sum(0) - logits).abs().max() / logits.abs().max()
    # 3: the residual stream after layer l, unembedded.
    lens = torch.stack([xs[l + 1] @ U for l in range(M.L)])
    out["lens.probs"] = torch.softmax(lens, -1)
    out["_lens_rank"] = (lens, targets)
    # 4: two layers: the value paths with the row's patterns held fixed.
    if M.L <= 2:
        x0 = xs[0]
        head = lambda l, h, x: att[l][h] @ (x @ M.wv(l, h)) @ M.wo(l, h)  # noqa: E731
        paths = {"direct": x0 @ U}
        y = [head(0, a, x0) for a in range(M.h)]
        for a in range(M.h):
            paths[f"L0H{a}"] = y[a] @ U
        if M.L == 2:
            for b in range(M.h):
                paths[f"L1H{b}"] = head(1, b, x0) @ U
            for a in range(M.h):
                for b in range(M.h):
                    paths[f"L0H{a}>L1H{b}"] = head(1, b, y[a]) @ U
        out["_path_parts"] = list(paths)
        out["paths.values"] = torch.stack(list(paths.values()))
        out["paths.target"] = out["paths.values"].gather(-1, targets[None, :, None].expand(len(paths), -1, 1))[..., 0]
        out["_path_sum"] = (out["paths.values"].sum(0) - logits).abs().max() / logits.abs().max()
    return out


def weight_circuits(M, J):
    E, U, T = M.w["w_e"], M.w["w_u"], M.T
    out = {"heads": {}, "k_maps": {}}
    offsets = J["weights"]["qk_offsets"][0]
    for l in range(M.L):
        for h in range(M.h):
            ov = E @ M.ov(l, h) @ U
            r = {"qk": torch.stack([E @ M.qk(l, h, o) @ E.T for o in offsets]), "ov": ov,
                 "ov_top1": top1_rate(ov), "copying": copying_score(ov), "copying_own": copying_score(ov, M.dt)}
            if M.m["pos"] == "rope":  # the mean embedding against itself at every offset i − j
                e = E.mean(0)
                r["pos_qk"] = torch.stack([torch.stack([e @ M.qk(l, h, i - j) @ e for j in range(T)]) for i in range(T)])
            elif M.m["pos"] != "none":
                r["pos_qk"] = M.pos @ M.qk(l, h, 0) @ M.pos.T
            else:
                r["pos_qk"] = None
            out["heads"][f"L{l}H{h}"] = r
    ko = J["weights"]["k_offset"]
    for lb in range(1, M.L):
        for a in range(M.h):
            for b in range(M.h):
                m = E @ M.qk(lb, b, ko) @ (E @ M.ov(0, a)).T
                out["k_maps"][(f"L0H{a}", f"L{lb}H{b}")] = {"map": m, "top1": top1_rate(m)}
    return out


def compositions(M):
    out = {}
    for la in range(M.L):
        for ha in range(M.h):
            A = M.ov(la, ha)
            for lb in range(la + 1, M.L):
                for hb in range(M.h):
                    qk = M.qk(lb, hb, 0)
                    out[(f"L{la}H{ha}", f"L{lb}H{hb}")] = {"q": composition(A, qk), "k": composition(A, qk.T),
                                                           "v": composition(A, M.ov(lb, hb))}
    return out


# --- the random baseline: base/random.hpp's SplitMix64 and Irwin-Hall, redrawn -------

MASK64 = (1 << 64) - 1


def normals(seed, n):
    """The first n rng(seed).normal() draws, bit for bit: each the float32 sum, in order,
    of twelve uniforms (the top 24 bits of a SplitMix64 output / 2^24), minus 6."""
    i = np.arange(1, 12 * n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & MASK64) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    u = u.reshape(n, 12)
    s = np.zeros(n, dtype=np.float32)
    for k in range(12):
        s = (s + u[:, k]).astype(np.float32)
    return (s - np.float32(6.0)).astype(np.float64)


def baseline(d, k, samples, seed):
    """Per sample: A = X0 Y0, B = X1 Y1 (Q: C(A, B), K: C(A, Bᵀ)), then a fresh B' (V: C(A, B')),
    each factor drawn X (d × k) then Y (k × d), row-major. Mean and sample standard deviation."""
    z = torch.tensor(normals(seed, samples * 6 * d * k)).reshape(samples, 6, d * k)
    stats = {"q": [], "k": [], "v": []}
    for s in range(samples):
        f = [z[s, 2 * i].reshape(d, k) @ z[s, 2 * i + 1].reshape(k, d) for i in range(3)]
        stats["q"].append(composition(f[0], f[1]))
        stats["k"].append(composition(f[0], f[1].T))
        stats["v"].append(composition(f[0], f[2]))
    return {c: {"mean": float(np.mean(v)), "spread": float(np.std(v, ddof=1))} for c, v in stats.items()}


# --- comparing ----------------------------------------------------------------------


class Checker:
    def __init__(self, name):
        self.name, self.rows, self.fails, self.notes = name, {}, [], []

    def num(self, quantity, core, ours, tol=TOL, asserted=True):
        core = torch.tensor(core, dtype=torch.float64) if not torch.is_tensor(core) else core.double()
        ours = ours.double() if torch.is_tensor(ours) else torch.tensor(ours, dtype=torch.float64)
        assert core.shape == ours.shape, (quantity, core.shape, ours.shape)
        scale = ours.abs().max().item()
        rel = (core - ours).abs().max().item() / scale if scale > 0 else (core - ours).abs().max().item()
        worst = self.rows.get(quantity, (0.0, tol))[0]
        self.rows[quantity] = (max(worst, rel), tol if asserted else "reported")
        if asserted and not rel <= tol:
            self.fails.append(f"{self.name}: {quantity}: relative difference {rel:.3g} > {tol:g}")

    def ints(self, quantity, core, lo, hi):
        """core must equal the count computed, which lies in [lo, hi] with ties inside the tolerance."""
        core, lo, hi = (torch.as_tensor(x) for x in (core, lo, hi))
        if not bool(((core >= lo) & (core <= hi)).all()):
            self.fails.append(f"{self.name}: {quantity}: core {core.tolist()} outside [{lo.tolist()}, {hi.tolist()}]")
        elif not bool((lo == hi).all()):
            self.notes.append(f"{self.name}: {quantity}: a tie within the tolerance decides {int((lo != hi).sum())} value(s)")
        self.rows.setdefault(quantity, ("exact", "equal"))


def rank_bounds(z, targets, tol):
    zt = z.gather(-1, targets.expand(z.shape[:-1])[..., None])
    eps = tol * z.abs().amax(-1, keepdim=True)
    return (z > zt + eps).sum(-1), (z > zt - eps).sum(-1) - 1  # not the target itself


def top1_bounds(m, tol):
    diag = m.diagonal()
    eps = tol * m.abs().max()
    off = m - torch.diag(torch.full_like(diag, float("inf")))
    best_other = off.max(-1).values
    # the core's rule: the first largest entry, so a diagonal tie with a column before it is lost
    return int((diag > best_other + eps).sum()), int((diag >= best_other - eps).sum())


def compare(name, J, dtype, check):
    M = Model(J["model"], dtype)
    R = read_row(M, J)
    targets = torch.tensor(J["targets"][0], dtype=torch.long)
    P = J["predictions"]
    check.num("1 logits", P["logits"], R["predictions.logits"])
    check.num("1 probs", P["probs"], R["predictions.probs"])
    check.num("1 target_prob", P["target_prob"][0], R["predictions.target_prob"])
    lo, hi = rank_bounds(R["_rank"][0], targets, TOL)
    check.ints("1 target_rank", P["target_rank"][0], lo, hi)
    # the top tokens: their probabilities must be the largest ones, in order (ties either way)
    probs, top = R["predictions.probs"], torch.tensor(P["top"], dtype=torch.long)
    check.num("1 top (probabilities)", probs.gather(-1, top), probs.sort(-1, descending=True).values[:, :top.shape[1]])
    assert J["dla"]["parts"] == R["_dla_parts"], (J["dla"]["parts"], R["_dla_parts"])
    check.num("2 dla.values", J["dla"]["values"], R["dla.values"])
    check.num("2 dla.target", J["dla"]["target"], R["dla.target"])
    check.num("2 dla sums to logits (torch)", [float(R["_dla_sum"])], [0.0])
    check.num("3 lens.probs", J["lens"]["probs"], R["lens.probs"])
    lo, hi = rank_bounds(R["_lens_rank"][0], targets, TOL)
    check.ints("3 lens.target_rank", J["lens"]["target_rank"], lo, hi)
    if "paths.values" in R:
        assert J["paths"]["parts"] == R["_path_parts"], (J["paths"]["parts"], R["_path_parts"])
        check.num("4 paths.values", J["paths"]["values"], R["paths.values"])
        check.num("4 paths.target", J["paths"]["target"], R["paths.target"])
        check.num("4 paths sum to logits (torch)", [float(R["_path_sum"])], [0.0])
    elif not J["paths"].get("problem"):
        check.fails.append(f"{name}: {M.L} layers and no paths.problem")
    W = weight_circuits(M, J)
    for h in J["weights"]["heads"]:
        ours = W["heads"][h["head"]]
        check.num("5 full QK circuits", h["qk"], ours["qk"])
        check.num("5 full OV circuits", h["ov"], ours["ov"])
        if ours["pos_qk"] is None:
            assert h["pos_qk"] is None
        else:
            check.num("5 positional QK patterns", h["pos_qk"], ours["pos_qk"])
        lo, hi = top1_bounds(ours["ov"], TOL)
        check.ints("5 OV top-1 rates", round(h["ov_top1"] * M.V), lo, hi)
        check.num("5 copying scores", [h["copying"]], [ours["copying"]], TOL_COPY)
        if M.dt != torch.float64:  # the eigenvalues solved in float32 too: not asserted
            check.num("5 copying scores, eigvals in float32", [h["copying"]], [ours["copying_own"]], TOL_COPY, False)
    for k in J["weights"]["k_maps"]:
        ours = W["k_maps"][(k["a"], k["b"])]
        check.num("5 K-composition maps", k["map"], ours["map"])
        lo, hi = top1_bounds(ours["map"], TOL)
        check.ints("5 K-map top-1 rates", round(k["top1"] * M.V), lo, hi)
    assert len(J["weights"]["k_maps"]) == len(W["k_maps"])
    C = compositions(M)
    assert len(C) == len(J["composition"]["pairs"])
    for p in J["composition"]["pairs"]:
        for c in "qkv":
            check.num(f"6 {c.upper()}-composition", [p[c]], [C[(p["a"], p["b"])][c]])
    return M, R


def rope_offset_check(name, J, check):
    """W_QK(δ) is the model's own score: layer 0's pre-softmax scores on the row (RoPE,
    no additive positions) equal E[tok_i] W_QK(i − j) E[tok_j]ᵀ · scale."""
    M = Model(J["model"], torch.float64)
    if M.m["pos"] != "rope" or float(M.pos.abs().max()) != 0.0:
        return
    tokens = torch.tensor(J["tokens"][0], dtype=torch.long)
    x, T = M.w["w_e"][tokens], M.T
    angles = (torch.arange(T, dtype=torch.float64) + M.m["pos_offset"])[:, None] * M.theta()[None, :]
    q = M.rotate(x @ M.wq(0, 0), angles)
    k = M.rotate(x @ M.wk(0, 0), angles)
    direct = q @ k.T
    via = torch.stack([torch.stack([x[i] @ M.qk(0, 0, i - j) @ x[j] for j in range(T)]) for i in range(T)])
    check.num("5 W_QK(delta) = the forward's scores (torch)", direct, via, 1e-12)


def check_recipe(name, J, report):
    out = {}
    for label, dt in (("float64", torch.float64), ("float32", torch.float32)):
        check = Checker(f"{name} {label}")
        compare(name, J, dt, check)
        if dt == torch.float64:
            rope_offset_check(name, J, check)
            b = J["composition"]["baseline"]
            m = J["model"]
            ours = baseline(m["d"], m["dk"], b["samples"], b["seed"])
            for c in "qkv":
                check.num(f"6 baseline {c.upper()} mean", [b[c]["mean"]], [ours[c]["mean"]])
                check.num(f"6 baseline {c.upper()} spread", [b[c]["spread"]], [ours[c]["spread"]])
        out[label] = check
    report[name] = out
    return out


def main(argv):
    torch.set_num_threads(1)
    attn = find_attn(argv)
    out_file = argv[argv.index("--report") + 1] if "--report" in argv else None
    report, fails, notes = {}, [], []
    for name, recipe, row in RUNS:
        J = core_report(attn, recipe, row)
        print(f"{name}: {J['recipe']} (trained {J['step']} steps, row {J['row']}; "
              f"{J['model']['L']} layers, {J['model']['h']} heads, {J['model']['g']} K/V heads, d {J['model']['d']})")
        checks = check_recipe(name, J, report)
        names = list(dict.fromkeys(q for c in checks.values() for q in c.rows))
        print(f"  {'quantity':48s} {'float64':>10s} {'float32':>10s}  tolerance")
        for q in names:
            cells = []
            for label in ("float64", "float32"):
                v = checks[label].rows.get(q)
                cells.append("-" if v is None else (v[0] if isinstance(v[0], str) else f"{v[0]:.2e}"))
            tol = next(c.rows[q][1] for c in checks.values() if q in c.rows)
            print(f"  {q:48s} {cells[0]:>10s} {cells[1]:>10s}  {tol}")
        for c in checks.values():
            fails += c.fails
            notes += c.notes
    for n in notes:
        print("note:", n)
    for f in fails:
        print("FAIL:", f)
    if out_file:
        with open(out_file, "w") as f:
            json.dump({n: {label: c.rows for label, c in v.items()} for n, v in report.items()}, f, indent=1)
    print("ok" if not fails else f"{len(fails)} check(s) failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
