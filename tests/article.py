"""The article's numpy implementation of attention, exactly as written there.

The one copy the project keeps: tests/cli_test.py checks the core against it,
bench/numpy_peer.py times it as a peer, and the page's code panel shows it:
cmake/embed_article.py copies the lines between the two "shown on the page"
markers into the build (runs of blank lines become one; a line starting with
"#| " is shown without that prefix: the multi-head sketch, which is not run).
"""
import numpy as np

# --- shown on the page: begin


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


# multi-head: one attention() per head on its columns,
#| heads = [attention(X, W_q[:, h], W_k[:, h], W_v[:, h])[0] for h in ...]
#| A = np.concatenate(heads, axis=-1) @ W_O
# --- shown on the page: end
