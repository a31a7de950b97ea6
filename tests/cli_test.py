#!/usr/bin/env python3
"""The `attn` command line, and a cross-check of its numbers with the article's numpy code.

    python3 tests/cli_test.py path/to/attn
"""
import json
import os
import subprocess
import sys
import unittest

import numpy as np

ATTN = sys.argv.pop(1) if len(sys.argv) > 1 else "build/native-debug/tests/attn"


# The article's softmax() and attention(), exactly as written there.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from article import attention  # noqa: E402


def run(*args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=60)


def mat(m):
    return np.array([float(x) for x in m["data"]], dtype=np.float64).reshape(m["shape"])


class CliTest(unittest.TestCase):
    def test_eval_matches_the_article_numpy_code(self):
        for exp in ["v=1&text=the%20cat%20chased%20the%20dog&seed=3&d_model=16&heads=4&mask=causal",
                    "v=1&text=%E7%8C%AB%E8%BF%BD%E7%8B%97&seed=9&d_model=8&heads=1&mask=none",
                    "v=1&text=a%20b%20c%20d%20e%20f%20g&seed=5&d_model=12&heads=3&mask=causal"]:
            p = run("eval", exp, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            t = json.loads(p.stdout)
            X = mat(t["x"])
            Wq, Wk, Wv, Wo = (mat(t["layers"][0][k]) for k in ("w_q", "w_k", "w_v", "w_o"))
            layer = t["layers"][0]
            heads = len(layer["heads"])
            dk = X.shape[1] // heads
            causal = "mask=causal" in exp
            outs = []
            for h in range(heads):
                cols = slice(h * dk, (h + 1) * dk)
                out, weights = attention(X, Wq[:, cols], Wk[:, cols], Wv[:, cols], causal=causal)
                np.testing.assert_allclose(mat(layer["heads"][h]["weights"]), weights, atol=2e-6, err_msg=exp)
                np.testing.assert_allclose(mat(layer["heads"][h]["out"]), out, atol=1e-5, err_msg=exp)
                outs.append(out)
            np.testing.assert_allclose(mat(t["output"]), np.concatenate(outs, axis=1) @ Wo, atol=1e-5, err_msg=exp)

    def test_check_reports_problems_and_exits_nonzero(self):
        p = run("check", "v=1&heads=3&mask=sideways")
        self.assertEqual(p.returncode, 1)
        self.assertIn("mask", p.stderr)
        self.assertIn("heads", p.stderr)
        p = run("check", "v=1&heads=4")
        self.assertEqual(p.returncode, 0)
        self.assertIn("heads=4", p.stdout)

    def test_usage_errors(self):
        self.assertEqual(run().returncode, 2)
        self.assertEqual(run("frobnicate", "v=1").returncode, 2)
        self.assertEqual(run("eval", "v=1", "--bogus").returncode, 2)

    def test_summary_output(self):
        p = run("eval", "v=1&text=one%20two")
        self.assertEqual(p.returncode, 0)
        self.assertIn("head 0 weights", p.stdout)
        self.assertIn("two", p.stdout)

    def test_train_prints_the_curve_heads_and_hash_as_json(self):
        recipe = "v=1&d_model=16&heads=2&layers=2&pos=rope&train=copy_offset&steps=40&batch=8&seq=12&vocab=8"
        p = run("train", recipe, "--json", "--every", "10")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = json.loads(p.stdout)
        self.assertEqual([s["step"] for s in t["steps"]], [0, 10, 20, 30, 39])
        self.assertLess(t["steps"][-1]["loss"], t["steps"][0]["loss"])
        self.assertEqual([(h["layer"], h["head"]) for h in t["heads"]], [(0, 0), (0, 1), (1, 0), (1, 1)])
        for key in ("prev", "induction", "sink", "entropy", "ablate_loss", "ablate_acc"):
            self.assertIn(key, t["heads"][0])
        self.assertRegex(t["weights_hash"], "^[0-9a-f]{16}$")
        self.assertEqual(json.loads(run("train", recipe, "--json").stdout)["weights_hash"], t["weights_hash"])
        text = run("train", recipe, "--every", "20")
        self.assertEqual(text.returncode, 0)
        self.assertIn("held-out", text.stdout)
        self.assertIn("zeroed", text.stdout)

    def test_train_rejects_bad_recipes(self):
        for bad, words in [("v=1&train=juggle", "train must be"), ("v=1&train=induction&lr=nan", "lr must be a finite number"),
                           ("v=1&train=induction&steps=999999", "steps must be between 0 and 20000"),
                           ("v=1&heads=2", "no training recipe")]:
            p = run("train", bad)
            self.assertEqual(p.returncode, 1, bad)
            self.assertIn(words, p.stderr)

    def test_eval_of_a_recipe_traces_the_trained_model(self):
        p = run("eval", "v=1&text=a%20b%20a&d_model=8&heads=2&train=previous&steps=5&batch=2&seq=6&vocab=4", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["tokens"], ["a", "b", "a"])
        p = run("eval", "v=1&text=the%20cat&d_model=8&heads=2&train=previous&steps=5&batch=2&seq=6&vocab=4")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("traced on:", p.stdout)


if __name__ == "__main__":
    unittest.main()
