#!/usr/bin/env python3
"""GPU heatmaps in the native app under Xvfb: the colours on screen come from
the shader's maps and class codes. The sequential map's bright end where a weight
is 1, grey hatching for masked cells, magenta for NaN weights, and the diverging
map (blue - white - red) for a signed matrix (the interventions' effect Δy).

    python3 tests/native/heatmap_test.py path/to/attn_app screenshot_dir
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import app_test as base  # noqa: E402  (takes the app and screenshot paths from argv)


def shot(name, experiment=None, frames=5):
    path = os.path.join(base.OUT, name)
    if os.path.exists(path):
        os.remove(path)
    # The softmax weights' stage (the page itself opens on the first stage).
    args = ["--frames", str(frames), "--screenshot", path, "--size", "1280x720", "--stage", "5"]
    if experiment:
        args += ["--experiment", experiment]
    p = base.xvfb(args)
    assert p.returncode == 0, p.stderr
    assert "shader" not in p.stderr, "the heatmap shaders compile: " + p.stderr
    w, h, rows = base.read_png_rgb(path)
    return [tuple(r[i:i + 3]) for r in rows for i in range(0, len(r), 3)]


def count(pixels, pred):
    return sum(1 for p in pixels if pred(p))


def near(p, q, tol=6):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def is_yellow(p):  # viridis at 1
    return p[0] > 200 and p[1] > 180 and p[2] < 90


def is_magenta(p):  # NaN
    return near(p, (255, 0, 255))


def is_red(p):  # the diverging map's positive half (RdBu): pinks to reds; not orange or viridis' yellow
    return p[0] > 170 and p[0] - p[2] >= 40 and p[2] >= 30 and p[2] >= 0.55 * p[1]


def is_blue(p):  # the diverging map's negative half: saturated but not UI-button blue
    return 25 <= p[0] <= 160 and 90 <= p[1] <= 210 and 160 <= p[2] <= 235 and p[2] - p[0] > 50


class HeatmapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(base.OUT, exist_ok=True)
        cls.default = shot("heatmap-default.png")

    def test_sequential_weights_and_masked_cells(self):
        # Under the causal mask the first token attends only to itself: weight 1.
        self.assertGreater(count(self.default, is_yellow), 400, "a full-weight cell in viridis' bright end")
        # Masked cells: the shader's two greys, in stripes (not one flat colour).
        light = count(self.default, lambda p: near(p, (128, 128, 128), 3))
        dark = count(self.default, lambda p: near(p, (82, 82, 82), 3))
        self.assertGreater(light, 2000, "masked hatching, light stripes")
        self.assertGreater(dark, 2000, "masked hatching, dark stripes")
        self.assertEqual(count(self.default, is_magenta), 0, "no NaN colour without NaN")
        # A weight map drawn with the diverging colours would put thousands of red pixels on screen.
        self.assertLess(count(self.default, is_red), 400, "the weights are not drawn with the diverging map")

    def test_nan_weights_are_magenta(self):
        pixels = shot("heatmap-nan.png", "v=1&precision=fp16&softmax=no_max&scale=6")
        self.assertGreater(count(pixels, is_magenta), 1000, "NaN cells in magenta")

    def test_signed_values_use_the_diverging_map(self):
        # Zeroing head 1 shows the effect on the output, Δy, a signed matrix.
        pixels = shot("heatmap-diverging.png", "v=1&ablate=0.1")
        self.assertGreater(count(pixels, is_red), 300, "positive Δy in red")
        self.assertGreater(count(pixels, is_blue), 300, "negative Δy in blue")

    def test_a_1024_token_matrix_renders(self):
        text = "%20".join("t%d" % (i % 100) for i in range(1024))
        pixels = shot("heatmap-1024.png", "v=1&text=" + text + "&heads=1&mask=none", frames=4)
        seq = count(pixels, lambda p: p[2] > 60 and p[0] < 90 and p[1] < 60)  # viridis' dark purple/blue end
        self.assertGreater(seq, 2000, "the 1024×1024 weights are on screen")


if __name__ == "__main__":
    unittest.main()
