#!/usr/bin/env python3
"""The native app under Xvfb: renders a few frames, exits cleanly, and its last
frame shows the heatmap (not a blank window). Bad options fail with a message.

    python3 tests/native/app_test.py path/to/attn_app screenshot_dir
"""
import json
from xml.etree import ElementTree
import os
import shutil
import struct
import subprocess
import sys
import tempfile
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


def write_gpt2_folder(folder, tokenizer=True):
    """A tiny GPT-2 Hugging Face folder of random F16 weights (struct's half, no numpy):
    config.json, model.safetensors and a byte-level tokenizer.json (the 256 bytes as
    GPT-2's characters, then <|endoftext|>), as tests/core/hf_test_folder.hpp writes it."""
    import random
    os.makedirs(folder, exist_ok=True)
    rnd = random.Random(1)
    d, ff, ctx, vocab = 16, 64, 32, 257
    tensors = [("wte.weight", [vocab, d], 0.5, 0), ("wpe.weight", [ctx, d], 0.3, 0)]
    for layer in range(2):
        p = "h.%d." % layer
        tensors += [(p + "ln_1.weight", [d], 0.2, 1), (p + "ln_1.bias", [d], 0.1, 0),
                    (p + "attn.c_attn.weight", [d, 3 * d], 0.4, 0), (p + "attn.c_attn.bias", [3 * d], 0.1, 0),
                    (p + "attn.c_proj.weight", [d, d], 0.3, 0), (p + "attn.c_proj.bias", [d], 0.1, 0),
                    (p + "ln_2.weight", [d], 0.2, 1), (p + "ln_2.bias", [d], 0.1, 0),
                    (p + "mlp.c_fc.weight", [d, ff], 0.3, 0), (p + "mlp.c_fc.bias", [ff], 0.1, 0),
                    (p + "mlp.c_proj.weight", [ff, d], 0.2, 0), (p + "mlp.c_proj.bias", [d], 0.1, 0)]
    tensors += [("ln_f.weight", [d], 0.2, 1), ("ln_f.bias", [d], 0.1, 0)]
    header, data = {}, b""
    for name, shape, scale, mean in tensors:
        count = 1
        for n in shape:
            count *= n
        b = struct.pack("<%de" % count, *[mean + scale * (2 * rnd.random() - 1) for _ in range(count)])
        header[name] = {"dtype": "F16", "shape": shape, "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": d, "n_layer": 2, "n_head": 2,
                   "n_positions": ctx, "vocab_size": vocab, "n_inner": None, "activation_function": "gelu_new",
                   "layer_norm_epsilon": 1e-5, "eos_token_id": 256}, f)
    if not tokenizer:
        return
    kept = list(range(33, 127)) + list(range(0xa1, 0xad)) + list(range(0xae, 0x100))
    chars, extra = {}, 0
    for b in range(256):
        chars[b] = b if b in kept else 256 + extra
        extra += b not in kept
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump({"model": {"type": "BPE", "vocab": {chr(chars[b]): b for b in range(256)}, "merges": []},
                   "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": True}],
                   "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
                   "decoder": {"type": "ByteLevel"}}, f)


def xvfb(args, env=None):
    return subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24", APP, *args],
                          capture_output=True, text=True, timeout=120, env=env)


def ink_bands(a, b):
    """Where two frames of the same view differ, in horizontal bands (rows with
    differences, split at gaps): per band, the text ink (bright on the dark
    theme) of each frame, as [first_row, last_row, ink_a, ink_b]."""
    (wa, ha, rows_a), (wb, hb, rows_b) = a, b
    assert (wa, ha) == (wb, hb)
    bands, band, gap = [], None, 0
    for y in range(ha):
        ra, rb = rows_a[y], rows_b[y]
        if ra == rb:
            if band and gap >= 2:
                band = None
            gap += 1
            continue
        ink_a = ink_b = differ = 0
        for i in range(0, len(ra), 3):
            la = 0.299 * ra[i] + 0.587 * ra[i + 1] + 0.114 * ra[i + 2]
            lb = 0.299 * rb[i] + 0.587 * rb[i + 1] + 0.114 * rb[i + 2]
            if abs(la - lb) < 24:
                continue
            differ += 1
            ink_a += la > 110
            ink_b += lb > 110
        if not differ:
            if band and gap >= 2:
                band = None
            gap += 1
            continue
        if band is None:
            band = [y, y, 0, 0]
            bands.append(band)
        band[1], band[2], band[3], gap = y, band[2] + ink_a, band[3] + ink_b, 0
    return bands


class NativeAppTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUT, exist_ok=True)

    def test_renders_the_heatmap(self):
        shot = os.path.join(OUT, "native.png")
        if os.path.exists(shot):
            os.remove(shot)
        # The softmax weights' stage (the app opens on the first stage).
        p = xvfb(["--frames", "6", "--screenshot", shot, "--size", "1024x640", "--stage", "5"])
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
        # A link that does not open is an error of the command: its problems on
        # stderr, exit 1, no frame drawn (nothing written where a screenshot would go).
        bad = os.path.join(OUT, "native-bad-link.png")
        if os.path.exists(bad):
            os.remove(bad)
        p = xvfb(["--frames", "2", "--screenshot", bad, "--experiment", "v=1&heads=3"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("attn_app: experiment: heads (3) must divide d_model", p.stderr)
        self.assertFalse(os.path.exists(bad))

    def test_chinese_text_draws_with_the_chinese_font(self):
        # 猫追狗: the Chinese font is read from the asset folder when needed.
        experiment = "v=1&text=%E7%8C%AB%E8%BF%BD%E7%8B%97"
        shot = os.path.join(OUT, "native-chinese.png")
        p = xvfb(["--frames", "4", "--screenshot", shot, "--size", "1024x640", "--experiment", experiment])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("font", p.stderr.lower())
        # The same without it (an asset folder with only the Latin font): a clear
        # message, the app still runs, and those characters draw as '?'.
        fallback = os.path.join(OUT, "native-chinese-fallback.png")
        with tempfile.TemporaryDirectory() as assets:
            shutil.copy(os.path.join(os.path.dirname(APP), "assets", "ui-latin.ttf"), assets)
            p = xvfb(["--frames", "4", "--screenshot", fallback, "--size", "1024x640", "--experiment", experiment],
                     env={**os.environ, "ATTN_ASSET_DIR": assets})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("font '%s/ui-cjk.ttf' could not be loaded" % assets, p.stderr)
        # Same view, so only glyphs differ: some line of text has far more ink
        # with the font (strokes of 猫追狗) than with three '?'.
        bands = ink_bands(read_png_rgb(shot), read_png_rgb(fallback))
        self.assertTrue(bands, "the Chinese glyphs change the frame")
        self.assertTrue(any(a > 60 and a > 2 * b for _, _, a, b in bands), "glyphs, not '?': %s" % bands)
        self.assertGreater(sum(b[2] for b in bands), sum(b[3] for b in bands))

    def test_every_stage_and_lesson_renders(self):
        # Each pipeline stage (with the residual + FFN block on) and each lesson.
        runs = [["--stage", str(s), "--experiment", "v=1&layers=2&block=full&heads=4&d_model=16"] for s in range(11)]
        runs += [["--lesson", str(l)] for l in range(1, 14)]
        for args in runs:
            shot = os.path.join(OUT, "native-%s.png" % "-".join(a for a in args[:2]).strip("-"))
            p = xvfb(["--frames", "3", "--screenshot", shot, *args])
            self.assertEqual(p.returncode, 0, "%s: %s" % (args, p.stderr))
            w, h, rows = read_png_rgb(shot)
            pixels = [tuple(r[i:i + 3]) for r in rows[::8] for i in range(0, len(r), 24)]
            mean = sum(sum(p) for p in pixels) / (3 * len(pixels))
            var = sum((sum(p) / 3 - mean) ** 2 for p in pixels) / len(pixels)
            self.assertGreater(var, 100, "%s draws something" % args)

    def test_a_whole_link_opens_its_lesson_stage_and_row(self):
        # A playground URL, as copied from the address bar: the experiment, lesson L2,
        # stage 2 and row 1 come back in the link of what is on screen.
        url = "http://127.0.0.1:8000/#v=1&heads=4&view.lesson=2&view.stage=2&view.row=1&view.hide=code"
        p = xvfb(["--frames", "3", "--print-link", "--experiment", url])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.strip(), "")
        link = p.stdout.strip().splitlines()[-1]
        self.assertIn("heads=4&kv_heads=4", link)
        self.assertTrue(link.endswith("&view.lesson=2&view.stage=2&view.row=1&view.hide=code"), link)
        # The printed link opens the same view again.
        p = xvfb(["--frames", "2", "--print-link", "--experiment", link.replace("&view.hide=code", "")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.strip().endswith("&view.lesson=2&view.stage=2&view.row=1"), p.stdout)
        # A bad link: every problem on stderr, exit 1, nothing printed as the link.
        p = xvfb(["--frames", "2", "--print-link", "--experiment", "v=1&heads=2&view.lesson=99&view.bogus=1"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("view.lesson", p.stderr)
        self.assertIn("view.bogus", p.stderr)
        self.assertEqual(p.stdout, "")

    def test_export_writes_csv_json_png_and_svg_into_the_current_directory(self):
        with tempfile.TemporaryDirectory() as cwd:
            p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x720x24", os.path.abspath(APP), "--frames", "3",
                                "--size", "800x500", "--stage", "5", "--export", "csv,json,png,svg"],
                               capture_output=True, text=True, timeout=120, cwd=cwd)
            self.assertEqual(p.returncode, 0, p.stderr)
            for name in ("attn-weights.csv", "attn-trace.json", "attn-canvas.png", "attn-weights.svg"):
                self.assertIn("saved " + os.path.join(os.path.realpath(cwd), name), p.stdout)
            with open(os.path.join(cwd, "attn-trace.json")) as f:
                trace = json.load(f)
            with open(os.path.join(cwd, "attn-weights.csv")) as f:
                csv = f.read()
            sections = csv.strip("\n").split("\n\n")
            self.assertEqual(len(sections), len(trace["layers"][0]["heads"]))
            lines = sections[0].splitlines()
            self.assertTrue(lines[0].startswith("# weights layer 0 head 0"), lines[0])
            self.assertEqual(lines[1].split(",")[1:], trace["tokens"])
            w = trace["layers"][0]["heads"][0]["weights"]
            for r, line in enumerate(lines[2:]):
                cells = line.split(",")
                self.assertEqual(cells[0], trace["tokens"][r])
                for c, x in enumerate(cells[1:]):
                    self.assertAlmostEqual(float(x), float(w["data"][r * w["shape"][1] + c]), places=6)
            self.assertEqual(read_png_rgb(os.path.join(cwd, "attn-canvas.png"))[:2], (800, 500))
            # The SVG: well-formed, a cell per weight of every head, the tokens as labels, the values written in.
            svg = ElementTree.parse(os.path.join(cwd, "attn-weights.svg")).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            self.assertEqual(svg.tag, ns + "svg")
            n = len(trace["tokens"])
            cells = [e for e in svg.iter(ns + "rect") if e.get("class") == "cell"]
            self.assertEqual(len(cells), len(trace["layers"][0]["heads"]) * n * n)
            texts = [e.text for e in svg.iter(ns + "text")]
            for token in trace["tokens"]:
                self.assertIn(token, texts)
            self.assertIn("%.2f" % float(w["data"][0]), texts)
        p = subprocess.run([APP, "--export", "gif"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)

    def test_a_recipe_link_trains_and_a_screenshot_catches_it_mid_run(self):
        # The induction lesson's recipe: untrained at trained=0, training from the first frame without it.
        recipe = "v=1&view.lesson=9"
        shots = []
        for name, link in (("untrained", recipe + "&trained=0"), ("training", recipe)):
            shot = os.path.join(OUT, "native-recipe-%s.png" % name)
            p = xvfb(["--frames", "40", "--screenshot", shot, "--experiment", link])
            self.assertEqual(p.returncode, 0, p.stderr)
            shots.append(read_png_rgb(shot))
        # The progress bar, the curves and the maps moved: the model trained during the 40 frames.
        (w, h, a), (_, _, b) = shots
        changed = sum(1 for y in range(h) if a[y] != b[y])
        self.assertGreater(changed, h // 10, "the training run changed the picture")

    def test_a_hugging_face_folder_opens_with_model_dir(self):
        with tempfile.TemporaryDirectory() as tmp:
            good, bad = os.path.join(tmp, "tiny-gpt2"), os.path.join(tmp, "no-tokenizer")
            write_gpt2_folder(good)
            write_gpt2_folder(bad, tokenizer=False)
            p = xvfb(["--frames", "3", "--model", good, "--experiment", "v=1&text=ab%20ab&view.model_pipeline=1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            p = xvfb(["--frames", "2", "--model", bad])
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("the folder has no tokenizer.json", p.stderr)
            # A folder holds its tokenizer: --tokenizer beside it is refused before any window.
            p = subprocess.run([APP, "--model", good, "--tokenizer", "tokenizer.bin"], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--model names a folder", p.stderr)

    def test_bad_options(self):
        p = subprocess.run([APP, "--bogus"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown", p.stderr)
        for bad in (["--lesson", "14"], ["--stage", "11"], ["--lang", "fr"]):
            p = subprocess.run([APP, *bad], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, bad)
        # Malformed numbers are not read as 0: each is named, with what was wrong,
        # in the words a link's view key gets (the flags are those keys).
        for bad, key in ((["--stage", "x"], "view.stage"), (["--stage", "5x"], "view.stage"), (["--lesson", "two"], "view.lesson"),
                         (["--lesson", "0"], "view.lesson"), (["--frames", "ten"], "--frames")):
            p = subprocess.run([APP, *bad], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn(key, p.stderr, bad)
            self.assertIn(bad[0], p.stderr, bad)

    def test_view_keys_out_of_range_are_reported_not_replaced(self):
        # view.stage=9 (the residual + FFN block) on an attention-only experiment used
        # to open the output stage silently; now the link is refused (natively an error of
        # the command: exit 1 before any window), and says why.
        p = xvfb(["--frames", "2", "--print-link", "--experiment", "v=1&heads=2&view.stage=9"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("view.stage 9", p.stderr)
        self.assertIn("block=full", p.stderr)
        self.assertEqual(p.stdout, "")
        # --stage counts as view.stage does, and goes through the same check.
        p = xvfb(["--frames", "2", "--print-link", "--stage", "9"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("view.stage 9", p.stderr)
        p = xvfb(["--frames", "2", "--print-link", "--stage", "9", "--experiment", "v=1&block=full"])
        self.assertEqual(p.stderr.strip(), "")
        self.assertTrue(p.stdout.strip().endswith("&view.stage=9"), p.stdout)
        # --lesson N is view.lesson=N: the lesson's experiment, the link's keys on top.
        p = xvfb(["--frames", "2", "--print-link", "--lesson", "4", "--experiment", "v=1&pos=rope"])
        self.assertEqual(p.stderr.strip(), "")
        link = p.stdout.strip().splitlines()[-1]
        self.assertIn("mask=none", link)
        self.assertIn("pos=rope", link)
        self.assertIn("view.lesson=4", link)


if __name__ == "__main__":
    unittest.main()
