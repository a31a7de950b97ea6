// The service worker: keeps this site's files so the playground opens offline after one visit.
//
// Registered by offline.js; its scope is the site folder.
//
// Network first, cache as the fallback: online, every request goes to the
// server as if the worker were not there (serve.py says no-cache), so a reload
// after a rebuild always gets the new files, and each good response refreshes
// the cache; offline (the fetch fails), the cached copy answers. The cache is
// named after the build (build-id.js, written into the site by CMake from a
// hash of its files): a new build installs a new worker, which fills a new cache
// with the whole site and deletes the old one. Only GET requests to this origin
// are touched; the worker itself never requests another host. It adds COOP and
// COEP where the host does not send them (withIsolation).
//
// One entry per path: a URL's ?query (index.html?host=…, attn.wasm?junk) is not
// another file of the site, so the cache keys every response by its path alone,
// and holds at most MAX_ENTRIES paths (the site has about thirty files): the
// oldest one that the first load does not need is dropped for a new one.
// Besides the first load's files, it keeps at most MAX_OTHER_BYTES in all (by
// their Content-Length; one without it, or larger alone, is not kept), and never
// a request made with cache: 'no-store': the page fetches a link's model files
// so (web/models.js keeps a model in IndexedDB, once), and a model a host serves
// from this origin is not stored a second time here.
'use strict';

let buildId = 'dev';
try {
  importScripts('build-id.js');  // self.ATTN_BUILD_ID; the browser re-checks it on every update check
  buildId = String(self.ATTN_BUILD_ID || buildId);
} catch (e) { /* no build id: one cache for every build, still refreshed online */ }
const CACHE_PREFIX = 'attn-site-';
const CACHE = CACHE_PREFIX + buildId;

// The build this origin's pages load, by web/app.js's rule: the threaded one
// where they are cross-origin isolated, and then so is this worker (the host's
// COOP/COEP headers are on sw.js too), on more than one core.
const cores = Math.max(1, Math.min(8, Number(navigator.hardwareConcurrency) || 1));
const APP = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function' && cores > 1
  ? ['attn-mt.js', 'attn-mt.wasm', 'attn-mt.worker.js'] : ['attn.js', 'attn.wasm'];
// The page's scripts: sandbox.js and the shell's modules (web/shell.js lists them;
// tests/web/offline.test.mjs checks every web/*.js is cached).
const SCRIPTS = ['sandbox.js', 'shell.js', 'lesson-names.js', 'page.js', 'links.js', 'idb.js', 'theme.js', 'embed.js', 'sleep.js',
  'touch.js', 'textview.js', 'services.js', 'offline.js', 'models.js', 'folders.js', 'runs.js', 'posters.js', 'app.js'];
// What the first load needs, plus the blog; assets/ui-cjk.ttf is cached when fetched.
const REQUIRED = ['./', 'index.html', ...SCRIPTS, 'shell.css', ...APP, 'attn.data', 'favicon.svg'];
const OPTIONAL = ['blog.html'];
const MAX_ENTRIES = 32;
const MAX_OTHER_BYTES = 16 << 20;  // the Chinese font (assets/ui-cjk.ttf) and the blog, with room

// The cache's key for a request: its URL without the query or fragment.
function pathKey(url) {
  const u = new URL(url, self.location.href);
  return u.origin + u.pathname;
}
// Never dropped to make room: the first load's files, of either build (a page of
// this origin that is isolated while this worker is not, or the reverse, loads
// the other build, which is then cached as it is fetched and kept).
const BOTH = ['attn.js', 'attn.wasm', 'attn-mt.js', 'attn-mt.wasm', 'attn-mt.worker.js'];
const requiredKeys = () => new Set([...REQUIRED, ...BOTH].map(pathKey));

// One put at a time, so parallel responses cannot together pass the bound.
let keeping = Promise.resolve();
function keep(cache, request, response) {
  keeping = keeping.then(() => keepNow(cache, request, response)).catch(() => {});
  return keeping;
}
// The bytes a response says it has (Content-Length), or null.
function bytesOf(response) {
  const n = Number(response.headers.get('Content-Length'));
  return response.headers.has('Content-Length') && Number.isFinite(n) && n >= 0 ? n : null;
}
async function keepNow(cache, request, response) {
  const key = pathKey(request.url);
  const required = requiredKeys();
  const size = bytesOf(response);
  if (!required.has(key) && (size === null || size > MAX_OTHER_BYTES)) return;
  const keys = (await cache.keys()).map((r) => r.url).filter((k) => k !== key);
  const others = [];  // oldest first: the order entries were added
  for (const k of keys) {
    if (required.has(k)) continue;
    const hit = await cache.match(k);
    others.push({ key: k, size: (hit && bytesOf(hit)) || 0 });
  }
  let count = keys.length + 1, bytes = others.reduce((sum, o) => sum + o.size, 0) + (required.has(key) ? 0 : size);
  for (const old of others) {
    if (count <= MAX_ENTRIES && bytes <= MAX_OTHER_BYTES) break;
    await cache.delete(old.key);
    --count;
    bytes -= old.size;
  }
  if (count > MAX_ENTRIES || bytes > MAX_OTHER_BYTES) return;  // nothing left to drop: the site's own files stay
  await cache.put(key, response);
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(REQUIRED.map((u) => new Request(u, { cache: 'no-cache' })));  // query-free URLs: keyed by path
    await Promise.all(OPTIONAL.map((u) => cache.add(new Request(u, { cache: 'no-cache' })).catch(() => {})));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

function isCacheable(url) {
  const path = url.pathname;
  return !path.endsWith('/sw.js') && !path.endsWith('/build-id.js');
}

// A host that cannot send COOP and COEP (a static host: README, "Hosting it"):
// the worker adds them to this origin's responses it answers, so that from the
// next load on (the first one was not yet the worker's) the page is
// cross-origin isolated and runs the threaded build. A response that has its
// own COEP keeps its headers; one the browser followed a redirect for is left
// as it is (a response made here would lose where it came from).
function withIsolation(response) {
  if (!response || response.status === 0 || response.redirected || response.headers.has('Cross-Origin-Embedder-Policy'))
    return response;
  try {
    const headers = new Headers(response.headers);
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
    headers.set('Cross-Origin-Resource-Policy', 'same-origin');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  } catch (e) {
    return response;
  }
}

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.status === 200 && response.type === 'basic' && request.cache !== 'no-store')
      keep(cache, request, response.clone()).catch(() => {});
    return withIsolation(response);
  } catch (err) {
    const navigate = request.mode === 'navigate';
    const hit = (await cache.match(pathKey(request.url))) ||
      (navigate && new URL(request.url).pathname.endsWith('/') ? await cache.match('index.html') : undefined);
    if (hit) return withIsolation(hit);
    throw err;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !isCacheable(url)) return;
  event.respondWith(networkFirst(request));
});
