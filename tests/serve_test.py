"""serve.py: serves the site and nothing outside it, with the right types, and stops cleanly."""
import gzip
import http.client
import os
import signal
import socket
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

    def test_cross_origin_isolation_headers(self):
        # The page is cross-origin isolated (the threaded build runs) unless --no-isolation.
        for path in ("/", "/attn.wasm", "/sub/a.js"):
            r, _ = self.get(path)
            self.assertEqual(r.getheader("Cross-Origin-Opener-Policy"), "same-origin")
            self.assertEqual(r.getheader("Cross-Origin-Embedder-Policy"), "require-corp")
            self.assertEqual(r.getheader("Cross-Origin-Resource-Policy"), "cross-origin")
        plain = serve.make_server("127.0.0.1", 0, self.site, isolate=False)
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", plain.server_address[1], timeout=5)
            conn.request("GET", "/")
            r = conn.getresponse()
            r.read()
            conn.close()
            self.assertEqual(r.status, 200)
            self.assertIsNone(r.getheader("Cross-Origin-Opener-Policy"))
            self.assertIsNone(r.getheader("Cross-Origin-Embedder-Policy"))
        finally:
            plain.shutdown()
            plain.server_close()

    def test_test_runs_folder(self):
        # --test-runs: the browser tests' trained runs under /test-runs/, read-only, nothing
        # above that folder; without it /test-runs/ is the site's (none here: 404).
        runs = os.path.join(os.path.dirname(self.site), "runs")
        os.makedirs(runs, exist_ok=True)
        with open(os.path.join(runs, "a.run"), "wb") as f:
            f.write(b"attn-run" + bytes(100))
        self.assertEqual(self.get("/test-runs/a.run")[0].status, 404)
        server = serve.make_server("127.0.0.1", 0, self.site, runs=runs)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            def get(path):
                conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
                conn.request("GET", path)
                r = conn.getresponse()
                body = r.read()
                conn.close()
                return r.status, body
            self.assertEqual(get("/test-runs/a.run"), (200, b"attn-run" + bytes(100)))
            self.assertEqual(get("/")[0], 200)
            for bad in ("/test-runs/../secret.txt", "/test-runs/%2e%2e/secret.txt", "/test-runs/", "/test-runs/b.run"):
                self.assertEqual(get(bad)[0], 404, bad)
        finally:
            server.shutdown()
            server.server_close()

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

    def test_gzip_cache_is_bounded(self):
        # A rebuilt file replaces its entry; past the byte bound the least recently served go.
        path = os.path.join(self.site, "sub", "grow.js")
        for i in range(5):
            with open(path, "w") as f:
                f.write("var x = %d;" % i + " " * 3000)
            os.utime(path, (1000 + i, 1000 + i))
            r, body = self.get("/sub/grow.js", headers={"Accept-Encoding": "gzip"})
            self.assertTrue(gzip.decompress(body).decode().startswith("var x = %d;" % i))
        with serve.SiteHandler._gzip_lock:
            keys = list(serve.SiteHandler._gzip_cache)
        self.assertEqual(keys.count(path), 1)
        old = serve.GZIP_CACHE_BYTES
        serve.GZIP_CACHE_BYTES = 1
        try:
            self.get("/index.html", headers={"Accept-Encoding": "gzip"})
            self.get("/attn.wasm", headers={"Accept-Encoding": "gzip"})
            with serve.SiteHandler._gzip_lock:
                self.assertEqual(list(serve.SiteHandler._gzip_cache), [os.path.join(self.site, "attn.wasm")])
        finally:
            serve.GZIP_CACHE_BYTES = old

    def test_no_gzip_when_refused(self):
        for value in ["gzip;q=0", "gzip; q=0.000, deflate", "*;q=0", "br", "identity", "*, gzip;q=0", "gzip;q=nan"]:
            r, body = self.get("/attn.wasm", headers={"Accept-Encoding": value})
            self.assertIsNone(r.getheader("Content-Encoding"), value)
            self.assertEqual(body[:4], b"\0asm", value)
        for value in ["gzip;q=0.5", "x-gzip", "*", "deflate, GZIP ; q=1"]:
            r, _ = self.get("/attn.wasm", headers={"Accept-Encoding": value})
            self.assertEqual(r.getheader("Content-Encoding"), "gzip", value)

    def raw(self, data, timeout=5):
        """Sends raw bytes on a fresh connection; returns everything the server sends back before closing."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            chunks = []
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)

    def test_malformed_request_lines_get_400(self):
        for line in [b"GET http://[x/ HTTP/1.1", b"GET http://[::1/index.html HTTP/1.0", b"GET / HTTP/1.1 extra",
                     b"GET / HTTP/x.y", b"GET / FTP/1.0"]:
            answer = self.raw(line + b"\r\nHost: a\r\n\r\n")
            self.assertRegex(answer, rb"^HTTP/1\.[01] 400 ", line)
        r, _ = self.get("/")  # and the server is still up
        self.assertEqual(r.status, 200)

    def test_http_0_9_is_refused(self):
        for line in [b"GET /\r\n", b"GET /index.html\r\n", b"HEAD /\r\n"]:
            answer = self.raw(line)
            self.assertRegex(answer, rb"^HTTP/1\.0 400 ", line)
            self.assertNotIn(b"<title>t</title>", answer, line)

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


class ServeLimitsTest(unittest.TestCase):
    """Timeouts and the thread bound, on a server with short timeouts so the test stays quick."""

    IDLE, DEADLINE, THREADS = 0.4, 1.0, 4

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(self.tmp.name, "index.html"), "w") as f:
            f.write("hello")
        self.server = None
        self.start(self.IDLE)

    def start(self, idle):
        if self.server:
            self.stop()
        self.server = serve.make_server("127.0.0.1", 0, self.tmp.name, idle_timeout=idle,
                                        request_deadline=self.DEADLINE, max_threads=self.THREADS)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def tearDown(self):
        self.stop()
        self.tmp.cleanup()

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def closed_within(self, s, seconds):
        """Reads until the server closes s; the seconds that took (fails past `seconds`)."""
        start = time.monotonic()
        s.settimeout(seconds)
        try:
            while s.recv(4096):
                pass
        except socket.timeout:
            self.fail("the server kept the connection open for %.1f s" % seconds)
        return time.monotonic() - start

    def test_an_idle_client_is_dropped(self):
        with self.connect() as s:
            self.assertLess(self.closed_within(s, 5.0), 5.0)

    def test_a_slow_client_is_dropped_at_the_deadline(self):
        with self.connect() as s:
            s.sendall(b"GET / HTTP/1.1\r\n")
            start = time.monotonic()
            # One header line every IDLE/4 seconds: never idle, never finished.
            dropped = False
            while time.monotonic() - start < 5.0 and not dropped:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    dropped = True
                    break
                s.settimeout(self.IDLE / 4)
                try:
                    dropped = s.recv(4096) == b""
                except socket.timeout:
                    pass
            elapsed = time.monotonic() - start
            self.assertTrue(dropped, "still connected after %.1f s" % elapsed)
            self.assertLess(elapsed, 5.0)
            self.assertGreater(elapsed, self.DEADLINE * 0.5)

    def test_idle_connections_hold_a_bounded_number_of_threads(self):
        self.start(idle=3.0)  # long enough for all 40 to connect while the first ones still wait
        before = threading.active_count()
        idle = [self.connect() for _ in range(40)]
        try:
            # Those past the bound are answered 503 and closed at once, without a thread.
            refused = 0
            for s in idle[self.THREADS:]:
                s.settimeout(5)
                answer = s.recv(4096)
                refused += answer.startswith(b"HTTP/1.0 503")
            self.assertEqual(refused, len(idle) - self.THREADS)
            self.assertLessEqual(threading.active_count() - before, self.THREADS)
            # The idle ones are dropped after the idle timeout, and the server serves again.
            for s in idle[:self.THREADS]:
                self.closed_within(s, 5.0)
        finally:
            for s in idle:
                s.close()
        deadline = time.monotonic() + 5
        while True:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            conn.request("GET", "/")
            r = conn.getresponse()
            body = r.read()
            conn.close()
            if r.status == 200 or time.monotonic() > deadline:
                break
        self.assertEqual((r.status, body), (200, b"hello"))


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
