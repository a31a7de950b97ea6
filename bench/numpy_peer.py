#!/usr/bin/env python3
"""The article's numpy code as a benchmark peer, driven by bench/run.mjs over a line protocol.

    python3 bench/numpy_peer.py DATA_DIR      # reads DATA_DIR/workloads.json and the inputs beside it

    info            -> JSON: numpy version, the BLAS library loaded (threadpoolctl and /proc/self/maps)
    prepare ID      -> ok
    run ID REPS     -> seconds per run
    output ID PATH  -> writes the result as float32 to PATH, then ok
    quit

Which BLAS numpy uses is chosen by the caller (LD_LIBRARY_PATH: Debian's reference
BLAS or OpenBLAS, OPENBLAS_NUM_THREADS=1); `info` reports what was really loaded.
"""
import json
import os
import sys
import time

import numpy as np


# The article's softmax() and attention(), from the project's one copy of them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from article import attention, softmax  # noqa: E402,F401


def attention_qkv(Q, K, V, causal=True):
    """W1: the article's attention from Q, K, V on (its projections are W2's part); one softmax."""
    n = Q.shape[0]
    scores = Q @ K.T / np.sqrt(K.shape[-1])      # (n, n)
    if causal:
        mask = np.triu(np.ones((n, n)), k=1).astype(bool)
        scores = np.where(mask, -np.inf, scores)
    return softmax(scores) @ V


def multi_head(X, W_q, W_k, W_v, W_o, heads, causal=True):
    """W2: the article's attention() per head (as tests/cli_test.py calls it), concatenated, · W_o."""
    dk = X.shape[1] // heads
    outs = []
    for h in range(heads):
        cols = slice(h * dk, (h + 1) * dk)
        out, _ = attention(X, W_q[:, cols], W_k[:, cols], W_v[:, cols], causal=causal)
        outs.append(out)
    return np.concatenate(outs, axis=1) @ W_o


def decode_step(q, k, v, past_k, past_v):
    """W3: append the new token's K/V rows to the cache, then the article's softmax per head."""
    K = np.concatenate([past_k, k[:, None, :]], axis=1)   # (kv, t, d)
    V = np.concatenate([past_v, v[:, None, :]], axis=1)
    kv, d = K.shape[0], K.shape[2]
    group = q.shape[0] // kv
    out = np.empty_like(q)
    for g in range(kv):
        qg = q[g * group:(g + 1) * group]                  # (group, d)
        scores = qg @ K[g].T / np.sqrt(d)                  # (group, t)
        out[g * group:(g + 1) * group] = softmax(scores) @ V[g]
    return out


def blas_info():
    info = {"numpy": np.__version__, "libraries": []}
    try:
        from threadpoolctl import threadpool_info
        info["threadpoolctl"] = threadpool_info()
    except ImportError:
        info["threadpoolctl"] = "python3-threadpoolctl missing"
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line or "lapack" in line}
    info["libraries"] = sorted(os.path.realpath(p) for p in libs if p.startswith("/"))
    return info


def main():
    data = sys.argv[1]
    with open(os.path.join(data, "workloads.json")) as f:
        workloads = {w["id"]: w for w in json.load(f)}
    prepared = {}

    def load(w):
        arrays = []
        for i, inp in enumerate(w["inputs"]):
            a = np.fromfile(os.path.join(data, f"{w['id']}.{i}.f32"), dtype=np.float32)
            arrays.append(a.reshape(inp["shape"]))
        return arrays

    def runner(w):
        a = prepared[w["id"]]
        if w["kind"] == "w1":
            return lambda: attention_qkv(a[0], a[1], a[2], causal=w["causal"])
        if w["kind"] == "w2":
            return lambda: multi_head(a[0], a[1], a[2], a[3], a[4], w["heads"], causal=w["causal"])
        if w["kind"] == "w3":
            return lambda: decode_step(*a)
        raise ValueError("numpy peer has no " + w["kind"])

    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        cmd = parts[0]
        if cmd == "info":
            print(json.dumps(blas_info()), flush=True)
        elif cmd == "prepare":
            w = workloads[int(parts[1])]
            prepared[w["id"]] = load(w)
            print("ok", flush=True)
        elif cmd == "run":
            w, reps = workloads[int(parts[1])], int(parts[2])
            f = runner(w)
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            print(repr((time.perf_counter() - t0) / reps), flush=True)
        elif cmd == "output":
            w = workloads[int(parts[1])]
            np.asarray(runner(w)(), dtype=np.float32).tofile(parts[2])
            print("ok", flush=True)
        elif cmd == "quit":
            break
        else:
            print("error: unknown command " + cmd, flush=True)


if __name__ == "__main__":
    main()
