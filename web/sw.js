// The service worker: keeps this site's files so the playground opens offline
// after one visit. Registered by shell.js; its scope is the site folder.
//
// Network first, cache as the fallback: online, every request goes to the
// server as if the worker were not there (serve.py says no-cache), so a reload
// after a rebuild always gets the new files, and each good response refreshes
// the cache; offline (the fetch fails), the cached copy answers. The cache is
// named after the build (build-id.js, written into the site by CMake from a
// hash of its files): a new build installs a new worker, which fills a new cache
// with the whole site and deletes the old one. Only GET requests to this origin
// are touched; the worker itself never requests another host.
'use strict';

let buildId = 'dev';
try {
  importScripts('build-id.js');  // self.ATTN_BUILD_ID; the browser re-checks it on every update check
  buildId = String(self.ATTN_BUILD_ID || buildId);
} catch (e) { /* no build id: one cache for every build, still refreshed online */ }
const CACHE_PREFIX = 'attn-site-';
const CACHE = CACHE_PREFIX + buildId;

// What the first load needs, plus the blog; assets/ui-cjk.ttf is cached when fetched.
const REQUIRED = ['./', 'index.html', 'shell.js', 'shell.css', 'attn.js', 'attn.wasm', 'attn.data', 'favicon.svg'];
const OPTIONAL = ['blog.html'];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(REQUIRED.map((u) => new Request(u, { cache: 'no-cache' })));
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

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.status === 200 && response.type === 'basic')
      cache.put(request, response.clone()).catch(() => {});
    return response;
  } catch (err) {
    const navigate = request.mode === 'navigate';
    const hit = (await cache.match(request, { ignoreSearch: navigate })) ||
      (navigate && new URL(request.url).pathname.endsWith('/') ? await cache.match('index.html') : undefined);
    if (hit) return hit;
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
