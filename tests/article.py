"""The article's numpy implementation of attention, exactly as written there.

The one copy the project keeps: tests/cli_test.py checks the core against it and
bench/numpy_peer.py times it as a peer.
"""
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(X, W_q, W_k, W_v, causal=True):
    # X: (n, d_model)
    n = X.shape[0]
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(K.shape[-1])      # (n, n)
    if causal:
        mask = np.triu(np.ones((n, n)), k=1).astype(bool)
        scores = np.where(mask, -np.inf, scores)
    return softmax(scores) @ V, softmax(scores)
