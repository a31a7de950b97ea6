#!/usr/bin/python3
"""The training reference check: PyTorch repeats our first steps of a recipe.

usage: /usr/bin/python3 bench/torch_peer.py ATTN_TRAIN_DUMP ['<recipe>'] [--steps N] [--out FILE]
       /usr/bin/python3 bench/torch_peer.py --serve     (the timing peer of bench/run.mjs; see serve())

Runs attn_train_dump (bench/src/train_dump.cpp), which exports the recipe's
initial weights, the mask/RoPE/position tables, every step's batch, our step-0
gradient and our loss curve; builds the same model in PyTorch (float32, one
thread), takes the same AdamW steps (β = 0.9, 0.99, ε = 1e-8, decoupled weight
decay, global-norm clipping, the learning rates we used) and compares:
  - the step-0 gradient: max |ours − torch| / max |torch| over every tensor ≤ 1e-5
  - the loss curve: |ours − torch| / |torch| ≤ 1e-4 at every step
Prints a report and writes it as JSON; exit status 1 when a check fails.
Debian's python3-torch imports only under /usr/bin/python3.
"""
import json
import math
import subprocess
import sys
import time

import torch

# src/core/spec/recipe.hpp's recipe_lesson_induction (its first 50 steps).
LESSON = ("v=1&text=j%20a%20b%20c%20d%20e%20f%20g%20c%20d%20e%20f%20g&d_model=48&heads=4&layers=2&block=attn_res"
          "&pos=rope&train=induction&steps=1500")


def build(dump):
    c = dump["config"]
    params = {t["name"]: torch.tensor(t["data"], dtype=torch.float32).reshape(t["rows"], t["cols"]).requires_grad_(True)
              for t in dump["tensors"]}
    T, d, h, g, V = c["T"], c["d"], c["h"], c["g"], c["V"]
    dk = d // h
    hidden = torch.tensor(dump["mask"], dtype=torch.bool).reshape(T, T)
    half = dk // 2
    cos = torch.tensor(dump["rope_cos"], dtype=torch.float32).reshape(T, -1)[:, :half]
    sin = torch.tensor(dump["rope_sin"], dtype=torch.float32).reshape(T, -1)[:, :half]
    positions = torch.tensor(dump["positions"], dtype=torch.float32).reshape(T, d)

    def rope(x):  # (..., T, dk): pairs (2p, 2p+1) turned by the position's angle
        if not c["rope"] or half == 0:
            return x
        a, b = x[..., 0:2 * half:2], x[..., 1:2 * half:2]
        out = x.clone()
        out[..., 0:2 * half:2] = a * cos - b * sin
        out[..., 1:2 * half:2] = a * sin + b * cos
        return out

    def rmsnorm(x):
        return x / torch.sqrt((x.double() ** 2).mean(-1, keepdim=True) + 1e-6).float()

    def loss_fn(tokens, targets, counted):
        B = tokens.shape[0]
        x = params["w_e"][tokens] + (params["w_p"] if "w_p" in params else positions)
        for l in range(c["L"]):
            p = lambda n: params[f"layer{l}.{n}"]
            xn = rmsnorm(x) if c["full"] else x
            q = (xn @ p("w_q")).reshape(B, T, h, dk).transpose(1, 2)
            k = (xn @ p("w_k")).reshape(B, T, g, dk).transpose(1, 2)
            v = (xn @ p("w_v")).reshape(B, T, g, dk).transpose(1, 2)
            q, k = rope(q), rope(k)
            k = k.repeat_interleave(h // g, dim=1)
            v = v.repeat_interleave(h // g, dim=1)
            s = (q @ k.transpose(-1, -2)) * c["scale"]
            s = s.masked_fill(hidden, float("-inf"))
            if c["temp"] != 1:
                s = s / c["temp"]
            w = torch.softmax(s, dim=-1).nan_to_num(0.0)
            concat = (w @ v).transpose(1, 2).reshape(B, T, d)
            a = concat @ p("w_o") if c["wo"] else concat
            if not c["full"]:
                x = x + a if c.get("res") else a  # block=attn_res: x + attention(x)
                continue
            r = x + a
            x = r + torch.relu(rmsnorm(r) @ p("w_1")) @ p("w_2")
        logits = x @ params["w_u"]
        ce = torch.nn.functional.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction="none")
        m = counted.reshape(-1).float()
        return (ce * m).sum() / m.sum().clamp(min=1)

    return params, loss_fn


def trainer(dump):
    """The model and AdamW of the dump, and its batches as tensors: step(i, lr) → loss."""
    c = dump["config"]
    params, loss_fn = build(dump)
    B, T = c["B"], c["T"]

    def batch(i):
        b = dump["batches"][i]
        as_long = lambda k: torch.tensor(b[k], dtype=torch.long).reshape(B, T)
        return as_long("tokens"), as_long("targets"), torch.tensor(b["counted"]).reshape(B, T)

    batches = [batch(i) for i in range(len(dump["batches"]))]
    opt = torch.optim.AdamW(list(params.values()), lr=c["lr"], betas=(c["beta1"], c["beta2"]), eps=c["eps"],
                            weight_decay=c["wd"], foreach=False)

    def step(i, lr):
        for group in opt.param_groups:
            group["lr"] = lr
        opt.zero_grad()
        loss = loss_fn(*batches[i % len(batches)])
        loss.backward()
        if c["clip"] > 0:
            torch.nn.utils.clip_grad_norm_(list(params.values()), c["clip"])
        opt.step()
        return loss.item()

    return params, loss_fn, batches, step


def check(dump):
    torch.set_num_threads(1)
    params, loss_fn, batches, step = trainer(dump)
    loss = loss_fn(*batches[0])
    loss.backward()
    worst_grad, top = 0.0, 0.0
    for t in dump["tensors"]:
        ours = torch.tensor(t["grad"]).reshape(t["rows"], t["cols"])
        theirs = params[t["name"]].grad
        worst_grad = max(worst_grad, (ours - theirs).abs().max().item())
        top = max(top, theirs.abs().max().item())
    grad_rel = worst_grad / max(top, 1e-30)

    start = time.perf_counter()
    losses = [step(i, lr) for i, lr in enumerate(dump["lrs"])]
    torch_ms = (time.perf_counter() - start) * 1000 / max(1, len(losses))
    rel = [abs(a - b) / abs(b) for a, b in zip(dump["losses"], losses)]
    return {
        "recipe": dump["recipe"], "steps": len(losses), "arch": dump["arch"],
        "grad0_max_rel": grad_rel, "grad0_ok": grad_rel <= 1e-5,
        "loss_max_rel": max(rel), "loss_ok": max(rel) <= 1e-4,
        "loss_first": [dump["losses"][0], losses[0]], "loss_last": [dump["losses"][-1], losses[-1]],
        "ours_ms_per_step": dump["ms_per_step"], "torch_ms_per_step": torch_ms,
    }


def serve(threads=1):
    """The timing peer of bench/run.mjs (on `threads` threads: --serve [N]), one answer line per command line:
    prepare ID DUMP.json -> {"torch":…, "loss_max_rel":…} after repeating the dump's steps
    run ID REPS          -> seconds per step (more steps on the dump's batches, its last learning rate)
    quit"""
    torch.set_num_threads(threads)
    runs = {}
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        if cmd[0] == "prepare":
            with open(cmd[2]) as f:
                dump = json.load(f)
            step = trainer(dump)[3]
            losses = [step(i, lr) for i, lr in enumerate(dump["lrs"])]
            rel = max(abs(a - b) / abs(b) for a, b in zip(dump["losses"], losses))
            runs[cmd[1]] = [step, len(losses), dump["lrs"][-1]]
            print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "loss_max_rel": rel,
                              "losses": losses}), flush=True)
        elif cmd[0] == "run":
            run, reps = runs[cmd[1]], int(cmd[2])
            start = time.perf_counter()
            for _ in range(reps):
                run[0](run[1], run[2])
                run[1] += 1
            print(f"{(time.perf_counter() - start) / reps:.9g}", flush=True)
        else:
            print(f"error: unknown command {cmd[0]}", flush=True)
    return 0


def main(argv):
    if argv[:1] == ["--serve"]:
        return serve(int(argv[1]) if len(argv) > 1 else 1)
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    exe, recipe, steps, out = argv[0], LESSON, 50, None
    rest = argv[1:]
    while rest:
        a = rest.pop(0)
        if a == "--steps":
            steps = int(rest.pop(0))
        elif a == "--out":
            out = rest.pop(0)
        else:
            recipe = a
    dump = json.loads(subprocess.run([exe, recipe, str(steps)], check=True, capture_output=True, text=True).stdout)
    report = check(dump)
    print(f"training reference (PyTorch {torch.__version__}, one thread) on {report['recipe']}")
    print(f"  step-0 gradient: max |ours - torch| / max |torch| = {report['grad0_max_rel']:.2e} (<= 1e-5: "
          f"{'ok' if report['grad0_ok'] else 'FAIL'})")
    print(f"  loss curve, {report['steps']} steps: max relative difference {report['loss_max_rel']:.2e} (<= 1e-4: "
          f"{'ok' if report['loss_ok'] else 'FAIL'}); step 0 {report['loss_first'][0]:.6f} vs {report['loss_first'][1]:.6f}, "
          f"last {report['loss_last'][0]:.6f} vs {report['loss_last'][1]:.6f}")
    print(f"  time per step: ours native ({report['arch']}) {report['ours_ms_per_step']:.2f} ms, "
          f"PyTorch eager {report['torch_ms_per_step']:.2f} ms")
    if out:
        with open(out, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if report["grad0_ok"] and report["loss_ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
