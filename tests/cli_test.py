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

    def test_eval_selects_stages_layers_and_heads(self):
        exp = "v=1&text=the%20cat%20sat&heads=4&d_model=8&layers=3&block=full&decode=2"
        full = json.loads(run("eval", exp, "--json").stdout)
        p = run("eval", exp, "--json", "--stages", "weights,row_sums,output", "--layers", "2,0", "--heads", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        sel = json.loads(p.stdout)
        self.assertEqual([layer["layer"] for layer in sel["layers"]], [0, 2])
        for layer in sel["layers"]:
            self.assertEqual(set(layer), {"layer", "output", "heads"})
            [head] = layer["heads"]
            self.assertEqual(set(head), {"head", "kv_group", "ablated", "weights", "row_sums"})
            self.assertEqual(head["weights"], full["layers"][layer["layer"]]["heads"][3]["weights"])
        self.assertNotIn("decode", sel)
        self.assertNotIn("x0", sel)
        self.assertEqual(sel["output"], full["output"])
        for bad in (["--stages", "nope"], ["--layers", "3"], ["--heads", "1,,2"], ["--heads", "-1"]):
            p = run("eval", exp, "--json", *bad)
            self.assertEqual(p.returncode, 1, bad)
            self.assertIn("attn:", p.stderr)
        self.assertEqual(run("eval", exp, "--stages", "weights").returncode, 2)  # selection without --json


if __name__ == "__main__":
    unittest.main()
