#!/usr/bin/env python3
"""Set up, build and serve the attention playground.

    python3 serve.py                  # set up, build the web preset if stale, serve on 127.0.0.1:8000
    python3 serve.py --port 9000      # another port
    python3 serve.py --host 0.0.0.0   # listen on another address (explicitly)
    python3 serve.py --no-build       # serve build/web/site as it is
    python3 serve.py --no-isolation   # without COOP/COEP: the page runs its single-threaded build

Serves only the files inside the built site folder: no directory listings, no
path that leads outside it (.., encoded or not, or symlinks), the right MIME
type for .wasm, gzip when the browser accepts it. Ctrl-C stops it cleanly.

Bounded like a careful static server: a connection that sends nothing for
IDLE_TIMEOUT seconds, or takes longer than REQUEST_DEADLINE to send its request
line and headers (a client trickling bytes), is dropped; at most MAX_THREADS
connections are served at once (more are answered 503 and closed, without a
thread); a malformed request line gets 400 and HTTP/0.9 requests are refused.

Every response says Cross-Origin-Opener-Policy: same-origin and
Cross-Origin-Embedder-Policy: require-corp, which makes the page cross-origin
isolated: the browser then gives it SharedArrayBuffer, and web/app.js loads
the threaded build (attn-mt.*, training on every core). A host that cannot send
these headers serves the single-threaded build (attn.*), with the same bits.
"""
import argparse
import collections
import gzip
import http.server
import io
import os
import posixpath
import subprocess
import sys
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(ROOT, "build", "web", "site")
SOURCE_DIRS = ("src", "web", "shaders", "assets")
SOURCE_FILES = ("CMakeLists.txt", "CMakePresets.json")

MIME = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".wasm": "application/wasm",
    ".data": "application/octet-stream",
    ".json": "application/json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ttf": "font/ttf",
    ".woff2": "font/woff2",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".glsl": "text/plain; charset=utf-8",
}
IDLE_TIMEOUT = 10.0  # seconds a connection may stay silent
REQUEST_DEADLINE = 20.0  # seconds to send the whole request line and headers
GZIP_CACHE_BYTES = 32 << 20  # compressed bodies kept (the site's are about 0.5 MB)
MAX_THREADS = 64  # connections served at once (a browser opens about six)
COMPRESSIBLE = {".html", ".js", ".mjs", ".css", ".wasm", ".data", ".json", ".svg", ".ttf", ".txt", ".glsl"}


def newest_mtime(paths):
    newest = 0.0
    for p in paths:
        if os.path.isfile(p):
            newest = max(newest, os.path.getmtime(p))
        for dirpath, _, files in os.walk(p):
            for f in files:
                newest = max(newest, os.path.getmtime(os.path.join(dirpath, f)))
    return newest


def site_is_stale():
    outputs = [os.path.join(SITE, f) for f in ("attn.js", "attn.wasm", "attn-mt.js", "attn-mt.wasm", "index.html")]
    if not all(os.path.isfile(o) for o in outputs):
        return True
    sources = [os.path.join(ROOT, d) for d in SOURCE_DIRS + SOURCE_FILES]
    return newest_mtime(sources) > min(os.path.getmtime(o) for o in outputs)


def run(cmd, env=None):
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def build():
    run(["bash", os.path.join("scripts", "setup.sh"), "--web"])
    if not site_is_stale():
        print("site is up to date: " + SITE)
        return
    env = dict(os.environ)
    env["NODE_PATH"] = "/usr/share/nodejs" + (os.pathsep + env["NODE_PATH"] if env.get("NODE_PATH") else "")
    jobs = str(os.cpu_count() or 2)
    # The threaded build first: it writes attn-mt.* into the site, whose build id
    # (the offline cache's name) the web preset's attn_site then computes over both.
    run(["cmake", "--preset", "web-threads"], env)
    run(["cmake", "--build", "--preset", "web-threads", "--target", "attn_app", "-j", jobs], env)
    run(["cmake", "--preset", "web"], env)
    run(["cmake", "--build", "--preset", "web", "--target", "attn_site", "-j", jobs], env)


def accepts_gzip(header):
    """Whether an Accept-Encoding value allows gzip: a 'gzip' (or 'x-gzip') entry,
    else '*', with a q-value above 0 ('gzip;q=0' refuses it)."""
    named, wildcard = None, None
    for entry in (header or "").split(","):
        parts = [p.strip() for p in entry.split(";")]
        coding = parts[0].lower()
        q = 1.0
        for param in parts[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
                if not 0.0 <= q <= 1.0:  # also NaN
                    q = 0.0
        if coding in ("gzip", "x-gzip"):
            named = q if named is None else max(named, q)
        elif coding == "*":
            wildcard = q
    chosen = named if named is not None else wildcard
    return chosen is not None and chosen > 0.0


class DeadlineReader(io.RawIOBase):
    """The connection's reads, each allowed at most `idle` seconds and, while a
    deadline is set, no later than the deadline (a time.monotonic() value).
    A read past either raises TimeoutError, which drops the connection."""

    def __init__(self, sock, idle, deadline):
        super().__init__()
        self.sock, self.idle, self.deadline = sock, idle, deadline

    def readable(self):
        return True

    def readinto(self, buffer):
        wait = self.idle
        if self.deadline is not None:
            wait = min(wait, self.deadline - time.monotonic())
            if wait <= 0:
                raise TimeoutError("the request took too long to arrive")
        self.sock.settimeout(wait)
        return self.sock.recv_into(buffer)


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """Serves files from `site` (a class attribute set before serving) and nothing else."""

    site = SITE
    # --test-runs: a folder served read-only under /test-runs/ beside the site (the
    # browser tests' trained runs, tests/web/harness.mjs keepRun); None: not served.
    runs = None
    server_version = "attn-serve"
    sys_version = ""
    timeout = IDLE_TIMEOUT  # also the socket timeout of every write
    default_request_version = "HTTP/1.0"  # errors before the version is read still get a status line
    request_deadline = REQUEST_DEADLINE
    isolate = True  # COOP + COEP on every response (the module docstring)
    # The compressed bodies, one per file (a rebuilt file replaces its entry), the
    # least recently served dropped first beyond GZIP_CACHE_BYTES.
    _gzip_cache = collections.OrderedDict()  # path -> (mtime, size, gzip bytes)
    _gzip_lock = threading.Lock()

    def setup(self):
        super().setup()
        self.rfile.close()
        self.reader = DeadlineReader(self.connection, self.timeout, time.monotonic() + self.request_deadline)
        self.rfile = io.BufferedReader(self.reader)

    def parse_request(self):
        words = str(self.raw_requestline, "iso-8859-1").split()
        if len(words) == 2:  # "GET /": HTTP/0.9, which has no status line or headers
            self.command, self.requestline = words[0], " ".join(words)
            self.request_version = "HTTP/1.0"  # so the refusal has a status line
            self.close_connection = True
            self.send_error(400, "HTTP/0.9 is not supported")
            return False
        if not super().parse_request():
            return False
        self.reader.deadline = None  # the head has arrived; nothing else is read
        self.connection.settimeout(self.timeout)
        return True

    def resolve(self):
        """Maps the request path to a file inside the site, or None."""
        raw = urllib.parse.urlsplit(self.path).path
        path = urllib.parse.unquote(raw, errors="strict") if "%" in raw else raw
        if "\x00" in path or "\\" in path:
            return None
        path = posixpath.normpath("/" + path.lstrip("/"))
        parts = [p for p in path.split("/") if p]
        if any(p in ("..", ".") or p.startswith(".") for p in parts):
            return None
        root = self.site
        if self.runs and parts[:1] == ["test-runs"]:
            root, parts = self.runs, parts[1:]
        root = os.path.realpath(root)
        full = os.path.realpath(os.path.join(root, *parts))
        if os.path.commonpath([root, full]) != root:
            return None
        if os.path.isdir(full):
            full = os.path.join(full, "index.html")
        return full if os.path.isfile(full) else None

    def do_HEAD(self):
        self.respond(head_only=True)

    def do_GET(self):
        self.respond(head_only=False)

    @classmethod
    def gzipped(cls, full, body):
        """body (the file at full, as read now) gzip-compressed, from the bounded cache."""
        stamp = (os.path.getmtime(full), len(body))
        with cls._gzip_lock:
            entry = cls._gzip_cache.get(full)
            if entry is not None and entry[0] == stamp:
                cls._gzip_cache.move_to_end(full)
                return entry[1]
        packed = gzip.compress(body, compresslevel=6, mtime=0)
        with cls._gzip_lock:
            cls._gzip_cache[full] = (stamp, packed)
            cls._gzip_cache.move_to_end(full)
            total = sum(len(p) for _, p in cls._gzip_cache.values())
            while total > GZIP_CACHE_BYTES and len(cls._gzip_cache) > 1:
                _, (_, dropped) = cls._gzip_cache.popitem(last=False)
                total -= len(dropped)
        return packed

    def respond(self, head_only):
        try:
            full = self.resolve()
        except UnicodeDecodeError:
            full = None
        except ValueError:  # a request target urlsplit cannot read, e.g. "http://[x/"
            self.send_error(400, "Malformed request target")
            return
        if full is None:
            self.send_error(404, "Not found")
            return
        ext = os.path.splitext(full)[1].lower()
        with open(full, "rb") as f:
            body = f.read()
        encoding = None
        if ext in COMPRESSIBLE and accepts_gzip(self.headers.get("Accept-Encoding")):
            body, encoding = self.gzipped(full, body), "gzip"
        self.send_response(200)
        self.send_header("Content-Type", MIME.get(ext, "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            # Its files may be loaded from another origin: an embed in a sandboxed
            # frame (an opaque origin) still loads its shell and says what is wrong.
            self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def log_message(self, fmt, *args):
        if os.environ.get("ATTN_SERVE_QUIET") != "1":
            sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))


class BoundedServer(http.server.ThreadingHTTPServer):
    """One thread per connection, at most `max_threads` at once."""

    daemon_threads = True
    max_threads = MAX_THREADS
    request_queue_size = 128  # the listen backlog: connections wait there, not in threads

    def server_activate(self):
        super().server_activate()
        self.slots = threading.BoundedSemaphore(self.max_threads)

    def process_request(self, request, client_address):
        if not self.slots.acquire(blocking=False):
            # Full: answer without a thread (the kernel buffers these few bytes) and close.
            try:
                request.setblocking(False)
                request.send(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


def make_server(host, port, site, idle_timeout=IDLE_TIMEOUT, request_deadline=REQUEST_DEADLINE, max_threads=MAX_THREADS,
                isolate=True, runs=None):
    handler = type("BoundSiteHandler", (SiteHandler,),
                   {"site": site, "timeout": idle_timeout, "request_deadline": request_deadline, "isolate": isolate,
                    "runs": runs})
    server_class = type("BoundServer", (BoundedServer,), {"max_threads": max_threads})
    return server_class((host, port), handler)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Set up, build and serve the attention playground.")
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    ap.add_argument("--no-build", action="store_true", help="serve build/web/site as it is")
    ap.add_argument("--no-isolation", action="store_true",
                    help="leave out COOP/COEP: the page is not cross-origin isolated and runs its single-threaded build")
    ap.add_argument("--site", default=SITE, help=argparse.SUPPRESS)
    ap.add_argument("--test-runs", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if not args.no_build:
        try:
            build()
        except subprocess.CalledProcessError as e:
            print("serve.py: the build failed (exit %d); see the output above." % e.returncode, file=sys.stderr)
            return 1
    if not os.path.isfile(os.path.join(args.site, "index.html")):
        print("serve.py: no built site in %s; run without --no-build first." % args.site, file=sys.stderr)
        return 1
    try:
        server = make_server(args.host, args.port, args.site, isolate=not args.no_isolation, runs=args.test_runs)
    except OSError as e:
        print("serve.py: cannot listen on %s:%d: %s" % (args.host, args.port, e.strerror), file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    shown = "[%s]" % host if ":" in host else host
    print("Serving the attention playground at http://%s:%d/  (Ctrl-C stops)" % (shown, port), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped.")
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
