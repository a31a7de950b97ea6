#!/usr/bin/python3
"""An independent re-implementation in PyTorch of `attn circuits` (issue 31 items 1-8).

    /usr/bin/python3 tests/circuits_torch_test.py [path/to/attn] [--report FILE]

Trains nothing: runs the built `attn circuits '<recipe>' --weights` (the report's
JSON plus "model": the trained weights, the held-out rows and every kept snapshot's
weights) for two recipes, the L9 lesson's (recipe_lesson_induction, 2 layers, RoPE)
and a three-layer GQA attn_res recipe (4 heads reading 2 K/V heads), each for one row
against the task's swap corruption and one against another held-out row (--corrupt
row:N), plus two briefly trained variants (learned positions with W_O off;
sinusoidal positions, one K/V head, no scale, temperature 2), and recomputes from
those weights alone, in float64 (the reference) and float32, with the definitions of
docs/circuits.md:

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
  7 over training     per snapshot checked (from its weights: the first, the last, the
                      three around the loss's drop and 8 evenly spaced of the kept
                      ones): every pair's composition scores, the previous-token ->
                      induction K-composition (the pair chosen again from the
                      attention scores on the trained weights), the held-out loss at
                      each position and overall, the ICL score
  8 patching          the clean and corrupted rows, answers and metric positions (the
                      swap's pair redrawn from its seed, or the other held-out row),
                      LD clean and corrupted, and the recovery of every head output and
                      residual stream patch (each position and all), of every path
                      patch into a later head's Q, K or V input, and of all at once

Relative difference of a quantity: max |core - torch| / max |torch| over all its
numbers (as bench/torch_peer.py); for one scalar (a score, a rate) |core - torch| /
|torch|. The timeline's losses and ICL scores are each one quantity over the
snapshots checked (a confident prediction's loss near 0 carries its logits' absolute
rounding: each entry's own relative difference is reported, not asserted); a
recovery map's numbers are fractions of the clean - corrupted logit difference,
largest near 1. Every number must agree within 1e-5 (the copying score 1e-4) with the
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
GQA3 = TEXT + "&d_model=32&heads=4&kv_heads=2&layers=3&block=attn_res&pos=rope&train=induction&steps=1000"
# The other branches of the definitions, briefly trained: learned positions (P W_QK Pᵀ) with
# W_O off (each head placed in its columns); sinusoidal positions shifted by pos_offset,
# one K/V head, no score scale, temperature 2.
LEARNED = TEXT + "&d_model=32&heads=2&layers=2&block=attn_res&pos=learned&wo=off&train=induction&steps=200"
SIN = TEXT + "&d_model=32&heads=4&kv_heads=1&layers=2&block=attn_res&pos=sin&pos_offset=3&scale=none&temp=2&train=induction&steps=200"
# (name, recipe, held-out row, --corrupt or None for the default: the task's swap where the row allows it)
# (rows 0 and 3 have a segment of 3: too short for the swap)
RUNS = [("L9 row 0 vs row 7", L9, 0, "row:7"), ("L9 row 5", L9, 5, None), ("gqa3 row 0 vs row 9", GQA3, 0, "row:9"),
        ("gqa3 row 1", GQA3, 1, None), ("learned,wo=off row 3", LEARNED, 3, None),
        ("sin,kv_heads=1 row 3", SIN, 3, None)]
TOL, TOL_COPY = 1e-5, 1e-4
SPACED = 8  # item 7: the timeline's snapshots recomputed, besides those around the drop (timeline_snapshots)


def find_attn(argv):
    for a in argv:
        if os.path.basename(a) == "attn" and os.access(a, os.X_OK):
            return a
    for p in ("build/native-debug/attn", "build/native-release/attn", "build/native-debug/src/tools/attn"):
        if os.access(os.path.join(ROOT, p), os.X_OK):
            return os.path.join(ROOT, p)
    sys.exit("circuits_torch_test: no attn binary (pass its path)")


def core_report(attn, recipe, row=0, corrupt=None):
    extra = ["--corrupt", corrupt] if corrupt else []
    argv = [attn, "circuits", recipe, "--weights", "--row", str(row)] + extra
    p = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
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

    def angles(self):  # (T, d_k / 2): position t's angle for pair p, t·θ_p (t shifted by pos_offset)
        return (torch.arange(self.T, dtype=torch.float64) + self.m["pos_offset"])[:, None] * self.theta()[None, :]

    def attend(self, l, h, xq, xk, xv):
        """Head h of layer l reading its query, key and value inputs (…, T, d) (the same
        stream unless a path patch feeds one of them): its pattern (…, T, T) and output (…, T, d_k)."""
        ang = self.angles()
        q = self.rotate(xq @ self.wq(l, h), ang)
        k = self.rotate(xk @ self.wk(l, h), ang)
        s = (q @ k.transpose(-1, -2)) * self.m["scale"] / self.m["temperature"]
        s = s.masked_fill(self.mask, float("-inf"))
        a = torch.softmax(s, dim=-1).nan_to_num(0.0)
        return a, a @ (xv @ self.wv(l, h))

    def forward(self, tokens):
        """tokens (…, T): x_0 … x_L (…, T, d), the patterns A[l] (h, …, T, T) and each head's
        write (h, …, T, d) per layer."""
        xs = [self.w["w_e"][tokens] + self.pos]
        att, writes = [], []
        for l in range(self.L):
            x = xs[-1]
            A, W = [], []
            for h in range(self.h):
                a, o = self.attend(l, h, x, x, x)
                A.append(a)
                W.append(o @ self.wo(l, h))
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


# --- item 7: over training -----------------------------------------------------------


def held_out(m):
    H = m["held_out"]
    return tuple(torch.tensor(H[k], dtype=torch.long) for k in ("tokens", "targets", "counted"))


def snapshot_model(m, snap, dtype):
    """The model with a kept snapshot's weights (and its positions: learned ones are weights)."""
    return Model(dict(m, positions=snap["positions"], tensors=snap["tensors"]), dtype)


def choose_heads(M, tokens):
    """The layer-0 head with the largest mean previous-token attention and the later head
    with the largest mean induction attention (train_diagnostics.hpp's scores) over `tokens`
    (rows, T): the first largest, and the runner-up's margin for a tie check."""
    _, att, _ = M.forward(tokens)
    R, T = tokens.shape
    i = torch.arange(1, T)
    prev = [float(att[0][h][:, i, i - 1].double().mean()) for h in range(M.h)]
    # induction: query i, j the latest earlier position holding token i's token, j + 1 < i: w(i, j + 1)
    rows, qs, ks = [], [], []
    for r in range(R):
        last = {}
        for q in range(T):
            t = int(tokens[r, q])
            if t in last and last[t] + 1 < q:
                rows.append(r), qs.append(q), ks.append(last[t] + 1)
            last[t] = q
    rows, qs, ks = (torch.tensor(v) for v in (rows, qs, ks))
    ind = {(l, h): float(att[l][h][rows, qs, ks].double().mean()) for l in range(1, M.L) for h in range(M.h)}
    prev = {(0, h): v for h, v in enumerate(prev)}
    best_prev, best_ind = (max(v, key=lambda lh: (v[lh], -lh[0], -lh[1])) for v in (prev, ind))  # the first largest

    def margin(v, best):
        return min([abs(v[best] - x) / max(abs(v[best]), 1e-30) for lh, x in v.items() if lh != best] or [1.0])

    return "L{}H{}".format(*best_prev), "L{}H{}".format(*best_ind), min(margin(prev, best_prev), margin(ind, best_ind))


def held_out_losses(M, tokens, targets, counted, icl):
    """The held-out loss at each position (T; NaN where no row counts it), over all counted
    positions, and the ICL score (the mean over counted t of loss_t − loss_{t − len}, len = T −
    the row's first counted position): cross-entropies in float64 from the model's logits."""
    xs, _, _ = M.forward(tokens)
    z = (xs[-1] @ M.w["w_u"]).double()
    ce = torch.logsumexp(z, -1) - z.gather(-1, targets[..., None])[..., 0]  # (rows, T)
    c = counted.bool()
    n = c.sum(0)
    pos = torch.where(n > 0, (ce * c).sum(0) / n.clamp(min=1), torch.full_like(ce[0], float("nan")))
    total = float((ce * c).sum() / c.sum())
    if not icl:
        return pos, total, float("nan")
    ln = M.T - c.int().argmax(-1, keepdim=True)  # (rows, 1) each row's segment length
    before = torch.arange(M.T)[None, :] - ln
    earlier = ce.gather(-1, before.clamp(min=0))
    return pos, total, float(((ce - earlier) * (c & (before >= 0))).sum() / c.sum())


def timeline_snapshots(tl):
    """The kept snapshots item 7 recomputes: the first and the last, the three around
    the loss's drop (the first below half its start: where the scores move fastest)
    and SPACED evenly spaced ones, in order. The rest carry the same definitions on
    other weights; recomputing all 61 of L9 took most of the test's time."""
    S, loss = len(tl["steps"]), tl["loss"]
    picked = {round(i * (S - 1) / (SPACED - 1)) for i in range(SPACED)}
    drop = next((i for i, v in enumerate(loss) if v < 0.5 * loss[0]), None)
    if drop is not None:
        picked |= {i for i in (drop - 1, drop, drop + 1) if 0 <= i < S}
    return sorted(picked)


def check_timeline(J, dtype, check):
    m, tl = J["model"], J["timeline"]
    tokens, targets, counted = held_out(m)
    assert tl["steps"] == [sn["step"] for sn in m["snapshots"]], (tl["steps"], [sn["step"] for sn in m["snapshots"]])
    picked = timeline_snapshots(tl)
    pairs = {(p["a"], p["b"]): p for p in tl["pairs"]}
    if m["L"] >= 2:  # the pair, chosen on the trained weights over the first 32 held-out rows
        prev, ind, margin = choose_heads(Model(m, dtype), tokens[:32])
        if (prev, ind) != (tl["prev"], tl["induction"]):
            if margin > TOL:
                check.fails.append(
                    f"{check.name}: 7 heads chosen: core {tl['prev']}, {tl['induction']}; torch {prev}, {ind}")
            else:
                check.notes.append(f"{check.name}: 7 heads chosen: a tie within the tolerance")
        check.rows.setdefault("7 prev/induction heads chosen", ("exact", "equal"))
    else:
        assert tl["prev"] is None
    pos_all, loss_all, icl_all, kprev = [], [], [], []
    for i in picked:
        M = snapshot_model(m, m["snapshots"][i], dtype)
        C = compositions(M)
        assert len(C) == len(pairs)
        for key, ours in C.items():
            for c in "qkv":
                check.num(f"7 {c.upper()}-composition", [pairs[key][c][i]], [ours[c]])
        if tl["prev"] is not None:
            kprev.append(C[(tl["prev"], tl["induction"])]["k"])
        pos, total, icl = held_out_losses(M, tokens, targets, counted, tl["icl_problem"] is None)
        pos_all.append(pos)
        loss_all.append(total)
        icl_all.append(icl)
    # Over the snapshots checked (the first among them): the losses near 0 late in training
    # are held to the scale of the early ones (a confident prediction's loss has the
    # absolute, not the relative, rounding of its logits); each entry's own relative
    # difference is reported.
    def core(key):
        return [tl[key][i] for i in picked]

    check.num("7 held-out loss at each position", core("pos_loss"), torch.stack(pos_all), nan_equal=True)
    check.num("7 held-out loss", core("loss"), loss_all)
    check.num("7 held-out loss at each position, per entry", core("pos_loss"), torch.stack(pos_all), asserted=False,
              nan_equal=True, per_entry=True)
    if tl["icl_problem"] is None:
        check.num("7 ICL score", core("icl"), icl_all)
        check.num("7 ICL score, per snapshot", core("icl"), icl_all, asserted=False, per_entry=True)
    if tl["prev"] is not None:
        for k_core, k in zip(core("prev_ind_k"), kprev):
            check.num("7 prev -> induction K-composition", [k_core], [k])


# --- item 8: activation patching ------------------------------------------------------


def train_seed(recipe):
    for kv in recipe.split("&"):
        if kv.startswith("train_seed="):
            return int(kv.split("=")[1])
    return 1  # spec/values.hpp's default


def fnv1a(data, h):
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & MASK64
    return h


def swap_pair(seed, row, length):
    """circuits_corrupt_row's draw: the pair k < m ≤ len − 2, m − k ≥ 2, from rng(hash_combine(
    train_seed, "circuits.corrupt") ^ (row + 1)·golden), one next_u64 modulo the pair count."""
    golden = 0x9E3779B97F4A7C15
    state = fnv1a(b"circuits.corrupt", (seed * golden + 0xCBF29CE484222325) & MASK64) ^ (((row + 1) * golden) & MASK64)
    z = (state + golden) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    n = length - 2
    pairs = [(k, m) for k in range(n + 1) for m in range(k + 2, n + 1)]
    return pairs[z % len(pairs)]


def patching_rows(J):
    """The clean and corrupted rows, their answers and the metric positions, derived from the
    held-out set and the documented corruption (not read from the report)."""
    m, P, row = J["model"], J["patching"], J["row"]
    tokens, targets, counted = (x.tolist() for x in held_out(m))
    a_tok, a_tgt, a_cnt = tokens[row], targets[row], counted[row]
    if P["corruption"].startswith("held-out row "):
        other = int(P["corruption"].split()[-1])
        b_tok, b_tgt, b_cnt = tokens[other], targets[other], counted[other]
    else:
        T = m["T"]
        first = a_cnt.index(1)
        ln = T - first
        prefix = first - ln
        k, mm = swap_pair(train_seed(J["recipe"]), row, ln)
        b_tok = list(a_tok)
        b_tok[prefix + k], b_tok[prefix + mm] = b_tok[prefix + mm], b_tok[prefix + k]
        b_tgt, b_cnt = list(a_tgt), [0] * T
        b_tgt[first + k], b_tgt[first + mm] = b_tok[prefix + mm + 1], b_tok[prefix + k + 1]
        b_cnt[first + k] = b_cnt[first + mm] = 1
        want = f"swap segment symbols {k} and {mm} (positions {prefix + k}, {prefix + mm}) of the first occurrence"
        assert P["corruption"] == want, (P["corruption"], want)
    positions = [t for t in range(len(a_tok)) if a_cnt[t] and b_cnt[t] and a_tgt[t] != b_tgt[t]]
    return a_tok, b_tok, a_tgt, b_tgt, positions


def patched_run(M, tokens, clean=None, corrupt=None, patches=()):
    """One run of `tokens` (T) with patches, each alone or together:
      ("head", l, h, t)          head h of layer l's output (T, d_k) at t (None: every position) ← clean's
      ("resid", s, t)            the stream x_s at t ← clean's (x_L: what W_U reads)
      ("path", la, a, lb, b, c)  receiver (lb, b)'s input c ∈ q, k, v reads x + w_a(clean) − w_a(corrupt),
                                 x this run's stream at lb; every other reader sees x
    The streams xs, head outputs outs[l] (h, T, d_k), writes[l] (h, T, d) and logits (T, V)."""
    def resid(x, s):
        for p in patches:
            if p[0] == "resid" and p[1] == s:
                x = x.clone()
                x[slice(None) if p[2] is None else p[2]] = clean["xs"][s][slice(None) if p[2] is None else p[2]]
        return x

    x = M.w["w_e"][tokens] + M.pos
    xs, outs, writes = [], [], []
    for l in range(M.L):
        x = resid(x, l)
        xs.append(x)
        O, W = [], []
        for h in range(M.h):
            inp = {}
            for c in "qkv":
                inp[c] = x
                for p in patches:
                    if p[0] == "path" and p[3:] == (l, h, c):
                        inp[c] = inp[c] + (clean["writes"][p[1]][p[2]] - corrupt["writes"][p[1]][p[2]])
            _, o = M.attend(l, h, inp["q"], inp["k"], inp["v"])
            for p in patches:
                if p[0] == "head" and p[1:3] == (l, h):
                    o = o.clone()
                    t = slice(None) if p[3] is None else p[3]
                    o[t] = clean["outs"][l][h][t]
            O.append(o)
            W.append(o @ M.wo(l, h))
        outs.append(torch.stack(O))
        writes.append(torch.stack(W))
        x = x + writes[-1].sum(0)
    x = resid(x, M.L)
    xs.append(x)
    return {"xs": xs, "outs": outs, "writes": writes, "logits": x @ M.w["w_u"]}


def check_patching(J, dtype, check):
    P, m = J["patching"], J["model"]
    a_tok, b_tok, a_ans, b_ans, positions = patching_rows(J)
    for key, ours in (("clean_tokens", a_tok), ("corrupt_tokens", b_tok), ("clean_answer", a_ans),
                      ("corrupt_answer", b_ans), ("positions", positions)):
        if P[key] != ours:
            check.fails.append(f"{check.name}: 8 patching.{key}: core {P[key]}, torch {ours}")
    check.rows.setdefault("8 rows, answers, metric positions", ("exact", "equal"))
    M = Model(m, dtype)
    pos, ia, ib = torch.tensor(positions), torch.tensor(a_ans)[positions], torch.tensor(b_ans)[positions]

    def ld(run):  # the logit difference, summed in float64 from the run's logits
        z = run["logits"].double()
        return float((z[pos, ia] - z[pos, ib]).mean())

    clean = patched_run(M, torch.tensor(a_tok))
    corrupt = patched_run(M, torch.tensor(b_tok))
    ld_clean, ld_corrupt = ld(clean), ld(corrupt)
    check.num("8 LD clean, corrupted", [P["ld_clean"], P["ld_corrupt"]], [ld_clean, ld_corrupt])
    def recovery(*patches):  # (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)
        return (ld(patched_run(M, torch.tensor(b_tok), clean, corrupt, patches)) - ld_corrupt) / (ld_clean - ld_corrupt)

    T, every = M.T, lambda t: None if t == M.T else t  # noqa: E731
    heads = [[[recovery(("head", l, h, every(t))) for t in range(T + 1)] for h in range(M.h)] for l in range(M.L)]
    check.num("8 head outputs", P["heads"], heads)
    streams = [[recovery(("resid", s, every(t))) for t in range(T + 1)] for s in range(M.L + 1)]
    check.num("8 residual streams", P["resid"], streams)
    name = lambda l, h: f"L{l}H{h}"  # noqa: E731
    want = [(la, a, lb, b) for la in range(M.L) for a in range(M.h) for lb in range(la + 1, M.L) for b in range(M.h)]
    assert [(p["a"], p["b"]) for p in P["paths"]] == [(name(la, a), name(lb, b)) for la, a, lb, b in want]
    core = [[p[c] for c in "qkv"] for p in P["paths"]]
    ours = [[recovery(("path", la, a, lb, b, c)) for c in "qkv"] for la, a, lb, b in want]
    check.num("8 path patching (Q, K, V)", core, ours)
    every_pair = [recovery(*[("path", la, a, lb, b, c) for la, a, lb, b in want]) for c in "qkv"]
    check.num("8 every path at once (Q, K, V)", [P["paths_all"][c] for c in "qkv"], every_pair)


# --- comparing ----------------------------------------------------------------------


class Checker:
    def __init__(self, name):
        self.name, self.rows, self.fails, self.notes = name, {}, [], []

    def num(self, quantity, core, ours, tol=TOL, asserted=True, nan_equal=False, per_entry=False):
        """nan_equal: NaN (JSON null) must stand at the same places in both; the rest is compared.
        per_entry: the largest of |core − torch| / |torch| entry by entry (non-zero torch entries)."""
        core = torch.tensor(np.array(core, dtype=np.float64)) if not torch.is_tensor(core) else core.double()
        ours = ours.double() if torch.is_tensor(ours) else torch.tensor(ours, dtype=torch.float64)
        assert core.shape == ours.shape, (quantity, core.shape, ours.shape)
        if nan_equal:
            if asserted and not bool((core.isnan() == ours.isnan()).all()):
                self.fails.append(f"{self.name}: {quantity}: NaN at other places than torch's")
            core, ours = core[~ours.isnan()], ours[~ours.isnan()]
        scale = ours.abs().max().item()
        rel = (core - ours).abs().max().item() / scale if scale > 0 else (core - ours).abs().max().item()
        if per_entry:
            nz = ours != 0
            rel = ((core - ours)[nz].abs() / ours[nz].abs()).max().item()
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


def check_recipe(name, J, report, timelines):
    """timelines: the timelines checked so far, by recipe: a second report of the same run
    must carry the same timeline (checked once)."""
    out = {}
    seen = timelines.get(J["recipe"])
    for label, dt in (("float64", torch.float64), ("float32", torch.float32)):
        check = Checker(f"{name} {label}")
        compare(name, J, dt, check)
        if seen is None:
            check_timeline(J, dt, check)
        elif seen != J["timeline"]:
            check.fails.append(f"{name}: the timeline differs from the first report of the same recipe")
        if "problem" not in J["patching"]:
            check_patching(J, dt, check)
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
    report, fails, notes, timelines = {}, [], [], {}
    for name, recipe, row, corrupt in RUNS:
        J = core_report(attn, recipe, row, corrupt)
        print(f"{name}: {J['recipe']} (trained {J['step']} steps, row {J['row']}; "
              f"{J['model']['L']} layers, {J['model']['h']} heads, {J['model']['g']} K/V heads, d {J['model']['d']})")
        print(f"  patching: {J['patching'].get('corruption') or J['patching'].get('problem')}; timeline: "
              f"{len(J['timeline']['steps'])} snapshots (recomputed: {', '.join(str(J['timeline']['steps'][i]) for i in timeline_snapshots(J['timeline']))}), "
              f"{len(J['model']['held_out']['tokens'])} held-out rows")
        checks = check_recipe(name, J, report, timelines)
        timelines.setdefault(J["recipe"], J["timeline"])
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
