#!/usr/bin/env python3
"""The native app under Xvfb: renders a few frames, exits cleanly, and its last
frame shows the heatmap (not a blank window). Bad options fail with a message.

    python3 tests/native/app_test.py path/to/attn_app screenshot_dir
"""
import os
import struct
import subprocess
import sys
import unittest
import zlib

APP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/native-debug/attn_app"
OUT = sys.argv.pop(1) if len(sys.argv) > 1 else "build/native-debug/screenshots"


def read_png_rgb(path):
    """Decodes the 8-bit RGB, non-interlaced PNGs the app writes."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color == 2
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * 3 + 1
    rows = [raw[y * stride + 1:(y + 1) * stride] for y in range(height)]
    assert all(raw[y * stride] == 0 for y in range(height)), "unexpected PNG filter"
    return width, height, rows


def xvfb(args):
    return subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24", APP, *args],
                          capture_output=True, text=True, timeout=120)


class NativeAppTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUT, exist_ok=True)

    def test_renders_the_heatmap(self):
        shot = os.path.join(OUT, "native.png")
        if os.path.exists(shot):
            os.remove(shot)
        p = xvfb(["--frames", "6", "--screenshot", shot, "--size", "1024x640"])
        self.assertEqual(p.returncode, 0, p.stderr)
        w, h, rows = read_png_rgb(shot)
        self.assertEqual((w, h), (1024, 640))
        pixels = [tuple(r[i:i + 3]) for r in rows[::4] for i in range(0, len(r), 12)]
        mean = sum(sum(p) for p in pixels) / (3 * len(pixels))
        var = sum((sum(p) / 3 - mean) ** 2 for p in pixels) / len(pixels)
        self.assertGreater(var, 100, "the frame is not blank")
        # The sequential colour map's bright end (a weight of 1: the first token
        # attends only to itself under the causal mask) is on screen.
        yellow = sum(1 for p in pixels if p[0] > 200 and p[1] > 180 and p[2] < 90)
        self.assertGreater(yellow, 20, "a full-weight (yellow) cell is drawn")

    def test_experiment_from_the_command_line(self):
        shot = os.path.join(OUT, "native-nomask.png")
        p = xvfb(["--frames", "4", "--screenshot", shot, "--experiment", "v=1&text=a%20b&heads=1&mask=none"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = xvfb(["--frames", "2", "--experiment", "v=1&heads=3"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("heads (3) must divide d_model", p.stderr)

    def test_bad_options(self):
        p = subprocess.run([APP, "--bogus"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown", p.stderr)


if __name__ == "__main__":
    unittest.main()
