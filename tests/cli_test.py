#!/usr/bin/env python3
"""The `attn` command line, and a cross-check of its numbers with the article's numpy code.

    python3 tests/cli_test.py path/to/attn
"""
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.parse

import numpy as np

ATTN = sys.argv.pop(1) if len(sys.argv) > 1 else "build/native-debug/attn"


# The article's softmax() and attention(), exactly as written there.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from article import attention  # noqa: E402
import llama_files  # noqa: E402


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

    def test_check_refuses_a_pin_the_page_cannot_hold(self):
        # The largest experiment (1024 tokens, every size at its maximum) alone fits the
        # page; pinned against itself its two traces pass the page's memory.
        big = "Ae0hd3ZE7_wQYbuV8B_RrgZAN43Q-UTJ0O1oKsXLznRGF6nY9IfuDj38t-b_UczF17gwhsjVBok7X3qCh0WzOqpbHjt_iNBI2YgN6SYgb_ji5nHFqIfj"
        self.assertEqual(run("check", "z=" + big).returncode, 0)
        p = run("check", "z=%s&pin=%s" % (big, big))
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r"pinned A beside it needs \d+ bytes .*the page holds at most 1610612736 bytes")
        self.assertEqual(p.stdout, "")

    def run_bytes(self, *args):
        return subprocess.run([ATTN.encode(), *args], capture_output=True, timeout=60)

    def test_control_characters_from_a_pasted_link_are_escaped(self):
        # A terminal title change, a colour, a cursor move and a C1 CSI, in an error and in a token.
        p = self.run_bytes(b"check", b"v=1&mask=\x1b]0;owned\x07\x1b[31mred\xc2\x9b2J&heads=3")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"\\x1B]0;owned\\x07\\x1B[31mred\\xC2\\x9B2J", p.stderr)
        self.assertNotIn(b"\xc2\x9b", p.stderr)
        for byte in range(0x20):
            self.assertNotIn(bytes([byte]), p.stderr.replace(b"\n", b""), byte)
        self.assertNotIn(b"\x7f", p.stderr)
        p = self.run_bytes(b"eval", b"v=1&text=a%1B%5B2J%20b%C2%9Bc%20%E7%8C%AB%7F")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"\\x1B", p.stdout)
        self.assertIn(b"b\\xC2\\x9Bc", p.stdout)
        self.assertIn("   猫\n".encode(), p.stdout)  # printable UTF-8 stays as it is
        self.assertIn(b"   \\x7F\n", p.stdout)
        self.assertNotIn(b"\x1b", p.stdout)
        self.assertNotIn(b"\xc2\x9b", p.stdout)

    def test_invalid_utf8_is_rejected_and_json_is_always_utf8(self):
        for text, what in [(b"%C0%80", b"overlong"), (b"%E0%80%AF", b"overlong"), (b"%ED%A0%80", b"surrogate"),
                           (b"%F4%90%80%80", b"above U+10FFFF"), (b"%F8%88%80%80%80", b"above U+10FFFF"),
                           (b"\xed\xa0\x80", b"surrogate"), (b"\xc0\xaf", b"overlong"), (b"a%E2%82", b"broken"),
                           (b"a%80", b"broken"), (b"a%00b", b"NUL")]:
            p = self.run_bytes(b"eval", b"v=1&text=" + text, b"--json")
            self.assertEqual(p.returncode, 1, text)
            self.assertIn(what, p.stderr, text)
            self.assertEqual(p.stdout, b"", text)
            p.stderr.decode("utf-8")  # the message itself is valid UTF-8 (escaped)
        # Every control character and the edges of UTF-8 that are valid: JSON that parses as UTF-8.
        text = "".join("%%%02X" % c for c in range(1, 0x20)) + "%7F%20%C2%80%20%EF%BF%BF%20%F4%8F%BF%BF%20猫"
        p = self.run_bytes(b"eval", ("v=1&text=x" + text).encode(), b"--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = json.loads(p.stdout.decode("utf-8", errors="strict"))
        self.assertIn("\U0010FFFF", "".join(t["tokens"]))

    def test_one_message_per_problem(self):
        for exp, want in [("v=1&temp=1e39", "temp is out of range: '1e39' overflows"),
                          ("v=1&scale=-1e39", "scale is out of range"),
                          ("v=1&edits=x.0.0:1e39", "out of range"),
                          ("v=1&temp=1e-45", "temp must be from 1e-6 to 1e6, not 1e-45"),
                          ("v=1&temp=0", "temp must be from 1e-6 to 1e6, not 0"),
                          ("v=1&temp=1e7", "temp must be from 1e-6 to 1e6, not 10000000")]:
            p = run("check", exp)
            self.assertEqual(p.returncode, 1, exp)
            lines = p.stderr.strip().split("\n")
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn(want, lines[0])
            self.assertNotIn("not of the form", lines[0])

    def test_messages_are_capped_and_deduplicated(self):
        p = run("check", "v=1" + "&x" * 9555)
        self.assertEqual(p.stderr, "attn: expected key=value, got 'x'\n")
        p = run("check", "v=1" + "".join("&k%d=1" % i for i in range(500)))
        lines = p.stderr.strip().split("\n")
        self.assertEqual(len(lines), 21)
        self.assertEqual(lines[-1], "attn: ... and 480 more problems")
        key = "k" * 14000
        p = run("check", "v=1&%s=1&%s=2" % (key, key))
        self.assertEqual(p.returncode, 1)
        self.assertLess(max(len(line) for line in p.stderr.split("\n")), 200, "echoed keys are cut")
        self.assertIn("is given twice", p.stderr)

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
        p = run("eval", "v=1", "--bogus")
        self.assertEqual(p.returncode, 2)
        self.assertIn("attn: eval does not take '--bogus'", p.stderr)  # what is wrong, then the usage
        self.assertIn("usage: attn eval", p.stderr)
        self.assertIn("unknown command 'frobnicate'", run("frobnicate", "v=1").stderr)

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
        for n in ("1", "2", "3"):  # the same bits on any number of threads (every core by default)
            p = run("train", recipe, "--json", "--threads", n)
            self.assertEqual(json.loads(p.stdout)["weights_hash"], t["weights_hash"], n)
        for bad in ("0", "65", "x"):
            p = run("train", recipe, "--threads", bad)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--threads needs a whole number from 1 to 64", p.stderr)
        text = run("train", recipe, "--every", "20")
        self.assertEqual(text.returncode, 0)
        self.assertIn("held-out", text.stdout)
        self.assertIn("zeroed", text.stdout)

    def test_threads_follow_the_cpu_affinity(self):
        # Under `taskset -c 0` the process may run on one CPU whatever the machine has
        # (a container's cpuset): the cores it counts are the ones it may use.
        recipe = "v=1&d_model=16&heads=2&layers=2&pos=rope&train=copy_offset&steps=4&batch=8&seq=12&vocab=8"
        p = subprocess.run(["taskset", "-c", "0", ATTN, "train", recipe, "--json", "--threads", "2"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("attn: 2 threads on 1 core: the same weights, more slowly than 1", p.stderr)
        self.assertEqual(json.loads(p.stdout)["weights_hash"], json.loads(run("train", recipe, "--json").stdout)["weights_hash"])

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

    def test_trained_names_the_model_printed(self):
        recipe = "v=1&d_model=16&heads=2&layers=2&pos=rope&train=copy_offset&steps=40&batch=8&seq=12&vocab=8"
        full = json.loads(run("train", recipe, "--json").stdout)
        half = run("train", recipe + "&trained=20", "--json", "--every", "10")
        self.assertEqual(half.returncode, 0, half.stderr)
        t = json.loads(half.stdout)
        self.assertEqual(t["trained"], 20)
        self.assertEqual([s["step"] for s in t["steps"]], [0, 10, 19])
        self.assertNotEqual(t["weights_hash"], full["weights_hash"])
        self.assertEqual(full["trained"], 40)
        # eval traces the same model: the hash it names is train's at step 20
        e = run("eval", recipe + "&trained=20")
        self.assertEqual(e.returncode, 0, e.stderr)
        self.assertIn("trained 20 steps, weights_hash " + t["weights_hash"], e.stdout)
        # and the full run's hash without trained=
        self.assertIn("trained 40 steps, weights_hash " + full["weights_hash"], run("eval", recipe).stdout)

    def test_a_diverged_run_is_valid_json_and_names_the_decay(self):
        recipe = "v=1&d_model=16&heads=2&layers=2&train=induction&steps=300&batch=8&seq=12&vocab=8&lr=10&wd=1&clip=0"
        p = run("train", recipe, "--json")
        self.assertEqual(p.returncode, 1)
        self.assertNotIn("nan", p.stdout.lower())
        t = json.loads(p.stdout)  # NaN is written as null, never as a bare -nan token
        self.assertIn("lr·wd", t["error"])
        self.assertIn("keep lr·wd below 1", p.stderr)
        self.assertNotIn("set clip", p.stderr)

    # Issue 49, item 16: `attn circuits --json` of a diverged recipe printed nothing on
    # stdout, and the text of `attn train` printed -nan.
    def test_a_diverged_run_gives_circuits_its_json_error_and_never_prints_nan(self):
        recipe = "v=1&d_model=16&heads=2&layers=2&train=induction&steps=300&batch=8&seq=12&vocab=8&lr=10&wd=1&clip=0"
        p = run("circuits", recipe, "--json")
        self.assertEqual(p.returncode, 1)
        t = json.loads(p.stdout)
        self.assertIn("lr·wd", t["error"])
        self.assertEqual(t["error"], json.loads(run("train", recipe, "--json").stdout)["error"])
        self.assertGreater(t["trained"], 0)
        for args in (("train", recipe), ("circuits", recipe)):
            out = run(*args)
            self.assertIsNone(re.search(r"(?<![A-Za-z])-?nan(?![A-Za-z])", out.stdout + out.stderr), out.stdout)

    # Issue 49, item 16: check accepted batch 41-102 at d_model 256 that train refused from 50.
    def test_check_and_train_refuse_the_same_batch_with_the_same_words(self):
        shape = "v=1&text=a%20b%20c&d_model=256&heads=16&layers=4&block=full&train=induction&seq=128&vocab=62&steps=2000"
        p = run("check", shape + "&batch=102")
        self.assertEqual(p.returncode, 1)
        most = int(re.search(r"batch must be at most (\d+)", p.stderr).group(1))
        self.assertGreaterEqual(most, 31)
        self.assertEqual(run("check", shape + "&batch=%d" % most).returncode, 0)
        over = shape + "&batch=%d" % (most + 1)
        c, t = run("check", over), run("train", over, "--json")
        self.assertEqual((c.returncode, t.returncode), (1, 1))
        self.assertEqual(c.stderr, t.stderr)
        self.assertIn("batch must be at most %d" % most, t.stderr)

    def test_eval_of_a_recipe_keeps_the_selection(self):
        recipe = "v=1&text=a%20b%20a&d_model=8&heads=2&layers=2&train=previous&steps=5&batch=2&seq=6&vocab=4"
        p = run("eval", recipe, "--json", "--stages", "weights", "--layers", "1", "--heads", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = json.loads(p.stdout)
        self.assertEqual(len(t["layers"]), 1)
        self.assertEqual(len(t["layers"][0]["heads"]), 1)
        self.assertIn("weights", t["layers"][0]["heads"][0])
        self.assertNotIn("scores", t["layers"][0]["heads"][0])
        self.assertEqual(run("eval", recipe, "--json", "--heads", "7").returncode, 1)

    def test_circuits_patches_a_corrupted_row_and_follows_the_snapshots(self):
        recipe = "v=1&d_model=16&heads=2&layers=2&pos=rope&train=induction&steps=20&batch=4&seq=12&vocab=8"
        p = run("circuits", recipe, "--json", "--row", "2", "--corrupt", "row:7")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = json.loads(p.stdout)
        patching = t["patching"]
        self.assertEqual(patching["corruption"], "held-out row 7")
        self.assertEqual(len(patching["heads"]), 2)           # layers
        self.assertEqual(len(patching["heads"][0][0]), 13)    # seq positions and "every position"
        self.assertEqual(len(patching["resid"]), 3)           # the embedding and after each layer
        self.assertEqual({(x["a"], x["b"]) for x in patching["paths"]},
                         {("L0H0", "L1H0"), ("L0H0", "L1H1"), ("L0H1", "L1H0"), ("L0H1", "L1H1")})
        self.assertEqual(t["timeline"]["steps"][0], 0)
        self.assertEqual(t["timeline"]["steps"][-1], 20)
        # docs/circuits.md describes both (issue 49): each snapshot's row of them
        self.assertEqual(len(t["timeline"]["pos_loss_all"]), len(t["timeline"]["steps"]))
        self.assertEqual(len(t["timeline"]["pos_loss_all"][0]), 12)
        self.assertEqual(len(t["timeline"]["first_loss"]), len(t["timeline"]["steps"]))
        self.assertIn("patching (held-out row 7)", run("circuits", recipe, "--row", "2", "--corrupt", "row:7").stdout)
        self.assertIn("no corruption asked for", json.loads(run("circuits", recipe, "--json", "--corrupt", "none").stdout)
                      ["patching"]["problem"])
        copy = recipe.replace("induction", "copy_offset")
        p = run("circuits", copy, "--corrupt", "swap")
        self.assertEqual(p.returncode, 1)
        self.assertIn("does not apply to copy_offset", p.stderr)
        for bad in ("juggle", "row:128", "row:-1", "row:"):
            p = run("circuits", recipe, "--corrupt", bad)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--corrupt needs swap, none or row:N", p.stderr)
        self.assertEqual(run("circuits", recipe, "--corrupt").returncode, 2)

    def test_circuits_of_a_markov_recipe_prints_the_kl_phases(self):
        recipe = ("v=1&text=a%20b%20a%20c%20a%20b%20d%20a&d_model=32&heads=4&layers=2&block=attn_res&pos=rope"
                  "&train=markov&steps=400&batch=16&seq=48&vocab=4&markov_alpha=0.5")  # spec/recipe.hpp's recipe_markov
        out = run("circuits", recipe).stdout
        self.assertNotIn("ICL score", out)  # an induction measure: not shown as NaN for another task
        m = re.search(r"uniform ([\d.]+) -> ([\d.]+), unigram ([\d.]+) -> ([\d.]+), bigram ([\d.]+) -> ([\d.]+)", out)
        self.assertTrue(m, out)
        uniform0, uniform1, unigram0, unigram1, bigram0, bigram1 = map(float, m.groups())
        self.assertLess(uniform0, min(unigram0, bigram0))  # untrained: nearest the uniform predictor
        self.assertLess(bigram1, 0.5 * min(uniform1, unigram1))  # trained: nearest the bigram predictor

    def test_a_write_error_fails_the_command(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        recipe = "v=1&d_model=8&heads=2&train=previous&steps=5&batch=2&seq=6&vocab=4"
        for args in (("check", "v=1"), ("eval", "v=1", "--json"), ("eval", "v=1"), ("train", recipe, "--json")):
            with open("/dev/full", "w") as full:
                p = subprocess.run([ATTN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
            self.assertEqual(p.returncode, 3, args)
            self.assertIn("could not be written", p.stderr)


class CliModelTest(unittest.TestCase):
    """`attn eval --model`: llama2.c files (tests/llama_files.py) the command must refuse with a
    message, never an abort, and output that stays valid UTF-8."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="attn_cli_model_")
        self.vocab = len(llama_files.test_vocabulary()[0])
        self.tok = os.path.join(self.dir, "tokenizer.bin")
        llama_files.write_tokenizer(self.tok, self.vocab)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def model(self, name, dim, hidden, layers, heads, kv_heads, seq_len):
        path = os.path.join(self.dir, name)
        llama_files.write_checkpoint(path, (dim, hidden, layers, heads, kv_heads, self.vocab, seq_len), 1, True, 3)
        return path

    def eval(self, text, model, *more):
        """(exit code, stdout bytes, stderr, the child's peak resident bytes)."""
        link = "v=1&text=" + urllib.parse.quote(text)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            child = subprocess.Popen([ATTN, "eval", link, "--model", model, "--tokenizer", self.tok, *more], stdout=out,
                                     stderr=err)
            timer = threading.Timer(120, child.kill)
            timer.start()
            _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage
            timer.cancel()
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            return child.returncode, out.read(), err.read().decode("utf-8", errors="strict"), usage.ru_maxrss * 1024

    def test_a_folder_is_named_a_folder(self):
        code, out, err, _ = self.eval("Once", self.dir)
        self.assertEqual(code, 1, err)
        self.assertIn("is a folder", err)
        self.assertNotIn("larger than any model", err)
        self.assertEqual(out, b"")

    def test_generation_takes_the_memory_of_its_tokens_not_of_the_context(self):
        # 128 layers, a context of 32768 and 64 K/V dimensions: a cache sized by the context is
        # 2.1 GB (and 0.5 GB of attention) for three tokens.
        model = self.model("deep.bin", 64, 2, 128, 32, 32, 32768)
        code, out, err, peak = self.eval("Once upon a time", model, "--generate", "3", "--temperature", "0")
        self.assertEqual(code, 0, err)
        self.assertIn(b"tokens generated", out)
        self.assertLess(peak, 300 << 20, f"peak resident memory {peak >> 20} MB")
        # Asked for more than the page holds: refused with the figure, before anything is allocated.
        code, out, err, _ = self.eval("Once upon a time", model, "--generate", "32000")
        self.assertEqual(code, 1, err)
        self.assertRegex(err, r"generating 32000 tokens \(a cache of \d+\) needs \d+ bytes")
        self.assertIn("at most 1610612736 bytes", err)
        self.assertEqual(out, b"")

    def test_a_pass_the_page_cannot_hold_is_refused_with_its_figure(self):
        # 8 layers of 256 heads over ~300 tokens: every head's four (n, n) matrices are ~3 GB.
        model = self.model("wide.bin", 512, 2, 8, 256, 1, 512)
        text = "Once upon a time there was a little girl named Lily. " * 30
        code, out, err, _ = self.eval(text, model, "--json")
        self.assertEqual(code, 1, err)
        self.assertRegex(err, r"the pass over \d+ tokens needs \d+ bytes")
        self.assertIn("--heads", err)
        self.assertEqual(out, b"")
        code, out, err, _ = self.eval(text, model, "--json", "--stages", "row_sums", "--layers", "0", "--heads", "0")
        self.assertEqual(code, 0, err)  # one head's matrices kept: it fits
        json.loads(out.decode("utf-8", errors="strict"))

    def test_json_is_utf8_whatever_the_tokenizer_holds(self):
        # A tokenizer whose byte tokens are the raw bytes (not "<0xC3>"): "ü" falls back to two
        # of them, each alone invalid UTF-8.
        pieces, scores = llama_files.test_vocabulary()
        pieces = [bytes([i - 3]) if 0x80 + 3 <= i < 259 else p.encode("utf-8") for i, p in enumerate(pieces)]
        with open(self.tok, "wb") as f:
            f.write(struct.pack("<i", max(len(b) for b in pieces)))
            for b, sc in zip(pieces, scores):
                f.write(struct.pack("<fi", sc, len(b)))
                f.write(b)
        model = self.model("tiny.bin", 32, 80, 2, 4, 2, 64)
        code, out, err, _ = self.eval("Once ü", model, "--json")
        self.assertEqual(code, 0, err)
        tokens = json.loads(out.decode("utf-8", errors="strict"))["tokens"]
        self.assertEqual(tokens[-2:], ["\ufffd", "\ufffd"])


if __name__ == "__main__":
    unittest.main()
