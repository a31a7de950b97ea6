#!/usr/bin/env python3
"""cmake/embed_article.py: the page's numpy lines come from tests/article.py, and
the build stops when the markers that delimit them are missing.

    python3 tests/article_embed_test.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "cmake", "embed_article.py")
ARTICLE = os.path.join(ROOT, "tests", "article.py")


def embed(source_text):
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "article.py"), os.path.join(d, "out.cpp")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source_text)
        p = subprocess.run([sys.executable, SCRIPT, src, out], capture_output=True, text=True, timeout=60)
        cpp = open(out, encoding="utf-8").read() if os.path.exists(out) else None
        return p, cpp


class EmbedArticleTest(unittest.TestCase):
    def test_the_shown_lines_are_the_tested_functions(self):
        text = open(ARTICLE, encoding="utf-8").read()
        p, cpp = embed(text)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Every line of the two functions the tests call is on the page, in order.
        for line in ["def softmax(x, axis=-1):", "    e = np.exp(x)", "def attention(X, W_q, W_k, W_v, causal=True):",
                     "    scores = Q @ K.T / np.sqrt(K.shape[-1])      # (n, n)",
                     "    return softmax(scores) @ V, softmax(scores)"]:
            self.assertIn(f'"{line}",', cpp)
            self.assertIn(line, text)
        self.assertLess(cpp.index("def softmax"), cpp.index("def attention"))
        # The sketch lines lose their "#| " prefix; the markers and the module docstring stay out.
        self.assertIn('"A = np.concatenate(heads, axis=-1) @ W_O",', cpp)
        self.assertNotIn("#|", cpp)
        self.assertNotIn("shown on the page", cpp)
        self.assertNotIn("import numpy", cpp)
        # One blank line between the functions, as the page always showed.
        self.assertNotIn('"",\n        "",', cpp)

    def test_a_missing_marker_fails(self):
        text = open(ARTICLE, encoding="utf-8").read()
        for marker in ["# --- shown on the page: begin", "# --- shown on the page: end"]:
            p, cpp = embed(text.replace(marker, ""))
            self.assertEqual(p.returncode, 1, marker)
            self.assertIn("expected one", p.stderr)
            self.assertIsNone(cpp)

    def test_markers_out_of_order_or_around_nothing_fail(self):
        p, _ = embed("# --- shown on the page: end\nx = 1\n# --- shown on the page: begin\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("comes before", p.stderr)
        p, _ = embed("# --- shown on the page: begin\n\n# --- shown on the page: end\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("no code", p.stderr)

    def test_quotes_and_backslashes_are_escaped(self):
        p, cpp = embed('# --- shown on the page: begin\ns = "a\\\\b"\n# --- shown on the page: end\n')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(r'"s = \"a\\\\b\"",', cpp)


if __name__ == "__main__":
    unittest.main(verbosity=2)
