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

ATTN = sys.argv.pop(1) if len(sys.argv) > 1 else "build/native-debug/attn"


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

    def test_accepts_every_link_the_page_accepts(self):
        # The same experiment, written as each kind of link the page opens: the CLI
        # sees the same experiment (and checks, then ignores, the view keys).
        canonical = run("check", "v=1&text=the%20quick%20brown%20fox%20jumps%20over%20the%20lazy%20dog%20and%20keeps%20running%20"
                                 "far%20into%20the%20night&heads=4&d_model=16")
        self.assertEqual(canonical.returncode, 0, canonical.stderr)
        text = canonical.stdout.split("ok: ", 1)[1].strip()
        self.assertGreater(len(text), 300)
        # With view keys, and as a whole URL.
        for link in [text, text + "&view.stage=5&view.row=2&view.embed=1",
                     "http://127.0.0.1:8000/index.html?host=x#" + text + "&view.readonly=1"]:
            p = run("check", link)
            self.assertEqual(p.returncode, 0, link + ": " + p.stderr)
            self.assertEqual(p.stdout.split("ok: ", 1)[1].strip(), text)
        # A lesson's link: the lesson's experiment with the link's keys on top (L4 has mask=none).
        p = run("check", "v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&pos=rope&view.lesson=4&view.embed=1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mask=none", p.stdout)
        self.assertIn("pos=rope", p.stdout)
        self.assertIn("heads=1", p.stdout)
        # A compressed link (z=), as tests/core/test_link.cpp pins it.
        z = "z=AcQCaba_9f8BHE9c-R1L4ci3nFati4U85Ufalgjz-7TJTDBhAAT91szyE--ImdQZcbV7tNiBnvV-GZXsAUVa"
        p = run("eval", z + "&view.stage=3", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["tokens"][:3], ["the", "quick", "brown"])
        # Bad view keys are errors, as on the page.
        for bad, word in [("v=1&view.stage=9", "view.stage"), ("v=1&view.lesson=0", "view.lesson"), ("v=1&view.bogus=1", "view.bogus")]:
            p = run("check", bad)
            self.assertEqual(p.returncode, 1, bad)
            self.assertIn(word, p.stderr)

    def test_usage_errors(self):
        self.assertEqual(run().returncode, 2)
        self.assertEqual(run("frobnicate", "v=1").returncode, 2)
        self.assertEqual(run("eval", "v=1", "--bogus").returncode, 2)

    def test_summary_output(self):
        p = run("eval", "v=1&text=one%20two")
        self.assertEqual(p.returncode, 0)
        self.assertIn("head 0 weights", p.stdout)
        self.assertIn("two", p.stdout)


if __name__ == "__main__":
    unittest.main()
