"""serve.py: serves the site and nothing outside it, with the right types, and stops cleanly."""
import gzip
import http.client
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import serve  # noqa: E402


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        base = cls.tmp.name
        cls.site = os.path.join(base, "site")
        os.makedirs(os.path.join(cls.site, "sub"))
        os.makedirs(os.path.join(cls.site, "empty"))
        with open(os.path.join(base, "secret.txt"), "w") as f:
            f.write("outside the site")
        with open(os.path.join(cls.site, "index.html"), "w") as f:
            f.write("<!doctype html><title>t</title>" + "x" * 2000)
        with open(os.path.join(cls.site, "attn.wasm"), "wb") as f:
            f.write(b"\0asm\1\0\0\0" + bytes(4000))
        with open(os.path.join(cls.site, "sub", "a.js"), "w") as f:
            f.write("console.log(1);")
        with open(os.path.join(cls.site, ".hidden"), "w") as f:
            f.write("dotfile")
        os.symlink(os.path.join(base, "secret.txt"), os.path.join(cls.site, "link.txt"))
        cls.server = serve.make_server("127.0.0.1", 0, cls.site)
        cls.port = cls.server.server_address[1]
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()
        cls.tmp.cleanup()

    def get(self, path, method="GET", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r, body

    def test_index_and_mime_types(self):
        r, body = self.get("/")
        self.assertEqual(r.status, 200)
        self.assertIn(b"<title>t</title>", body)
        self.assertEqual(r.getheader("Content-Type"), "text/html; charset=utf-8")
        r, body = self.get("/attn.wasm")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.getheader("Content-Type"), "application/wasm")
        self.assertEqual(body[:4], b"\0asm")
        r, _ = self.get("/sub/a.js?v=1#frag")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.getheader("Content-Type").startswith("text/javascript"))

    def test_head(self):
        r, body = self.get("/attn.wasm", method="HEAD")
        self.assertEqual(r.status, 200)
        self.assertEqual(body, b"")
        self.assertEqual(int(r.getheader("Content-Length")), 4008)

    def test_gzip_when_accepted(self):
        r, body = self.get("/attn.wasm", headers={"Accept-Encoding": "gzip, deflate"})
        self.assertEqual(r.getheader("Content-Encoding"), "gzip")
        self.assertLess(len(body), 4008)
        self.assertEqual(gzip.decompress(body)[:4], b"\0asm")

    def test_nothing_outside_the_site(self):
        for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/sub/../../secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt",
                     "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/sub%5c..%5c..%5csecret.txt", "/link.txt", "/.hidden",
                     "//etc/passwd", "/%00index.html", "/%ff%fe", "/etc/passwd"]:
            r, body = self.get(path)
            self.assertEqual(r.status, 404, path)
            self.assertNotIn(b"outside the site", body, path)

    def test_no_directory_listing(self):
        r, body = self.get("/empty/")
        self.assertEqual(r.status, 404)
        r, body = self.get("/sub/")
        self.assertEqual(r.status, 404)
        self.assertNotIn(b"a.js", body)


class ServeProcessTest(unittest.TestCase):
    def test_prints_url_and_stops_cleanly_on_ctrl_c(self):
        with tempfile.TemporaryDirectory() as site:
            with open(os.path.join(site, "index.html"), "w") as f:
                f.write("hi")
            p = subprocess.Popen([sys.executable, serve.__file__, "--no-build", "--port", "0", "--site", site],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = p.stdout.readline()
            self.assertRegex(line, r"http://127\.0\.0\.1:\d+/")
            time.sleep(0.2)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
            self.assertEqual(p.returncode, 0, err)
            self.assertNotIn("Traceback", err)

    def test_missing_site_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as site:
            p = subprocess.run([sys.executable, serve.__file__, "--no-build", "--port", "0", "--site", site],
                               capture_output=True, text=True, timeout=10)
            self.assertEqual(p.returncode, 1)
            self.assertIn("no built site", p.stderr)


if __name__ == "__main__":
    unittest.main()
