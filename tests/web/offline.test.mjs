// Offline: web/sw.js keeps the site, so after one visit the page opens and
// computes with the network off; a new build (a new build-id.js) replaces the
// cached files. Runs on a copy of the built site, served by its own serve.py,
// so the test can change files as a rebuild would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, launchBrowser } from './harness.mjs';

let browser, site, server, url;
before(async () => {
  site = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-site-'));
  fs.cpSync(path.join(root, 'build', 'web', 'site'), site, { recursive: true });
  server = spawn('python3', [path.join(root, 'serve.py'), '--no-build', '--port', '0', '--site', site],
    { env: { ...process.env, ATTN_SERVE_QUIET: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve.py did not start')), 15000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/[^\s]+\//);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    });
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.kill('SIGINT');
  if (site) fs.rmSync(site, { recursive: true, force: true });
});

// The app files of the build the page runs (web/app.js: attn-mt.* where it is cross-origin isolated).
const appBuild = async (page) => ((await page.evaluate(() => window.attnShell.build)) === 'threads'
  ? ['/attn-mt.js', '/attn-mt.wasm', '/attn-mt.worker.js'] : ['/attn.js', '/attn.wasm']);
// The page's scripts: sandbox.js and the shell's modules, every web/*.js but the worker itself (sw.js's SCRIPTS).
const scripts = fs.readdirSync(path.join(root, 'web')).filter((f) => f.endsWith('.js') && f !== 'sw.js').map((f) => '/' + f);
const up = (page) => page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
const cachedPaths = (page) => page.evaluate(async () => {
  const names = (await caches.keys()).filter((n) => n.startsWith('attn-site-'));
  const out = {};
  for (const n of names) out[n] = (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname);
  return out;
});

test('after one visit the playground opens and computes offline; a new build replaces the cache', async () => {
  const context = await browser.newContext({ serviceWorkers: 'allow' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) problems.push('foreign request: ' + r.url()); });
  try {
    const buildId = fs.readFileSync(path.join(site, 'build-id.js'), 'utf8').match(/'([^']+)'/)[1];
    await page.goto(url + '#v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&heads=2');
    await up(page);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => window.attnShell.fonts['ui-cjk.ttf'] === 'loaded');
    await page.reload();  // now controlled: the font request goes through the worker too
    await up(page);
    await page.waitForFunction(() => !!navigator.serviceWorker.controller && window.attnShell.fonts['ui-cjk.ttf'] === 'loaded');
    const cached = await cachedPaths(page);
    assert.deepEqual(Object.keys(cached), ['attn-site-' + buildId]);
    for (const f of ['/', '/index.html', ...scripts, '/shell.css', ...await appBuild(page), '/attn.data', '/favicon.svg', '/blog.html', '/assets/ui-cjk.ttf'])
      assert.ok(cached['attn-site-' + buildId].includes(f), 'cached: ' + f);

    await context.setOffline(true);
    await page.reload();
    await up(page);
    const t = await page.evaluate(() => window.attn.trace());
    assert.deepEqual(t.tokens, ['猫', '追', '狗']);
    assert.equal(await page.evaluate(() => window.attn.errors()), '');
    await page.goto(url + 'blog.html');
    assert.match(await page.title(), /Attention/);

    // A rebuild: new files and a new build id. Online, one reload gets the new files.
    await context.setOffline(false);
    fs.appendFileSync(path.join(site, 'shell.css'), '\n/* rebuilt */ #canvas { --rebuilt: 1; }\n');
    fs.writeFileSync(path.join(site, 'build-id.js'), "self.ATTN_BUILD_ID = 'rebuilt0000000';\n");
    await page.goto(url);
    await up(page);
    const rebuilt = () => page.evaluate(() => getComputedStyle(document.getElementById('canvas')).getPropertyValue('--rebuilt').trim());
    assert.equal(await rebuilt(), '1', 'the reload after a rebuild uses the new shell.css');
    await page.waitForFunction(async () => (await caches.keys()).filter((n) => n.startsWith('attn-site-')).join() === 'attn-site-rebuilt0000000',
      null);
    // And offline, the new files come from the new cache.
    await context.setOffline(true);
    await page.reload();
    await up(page);
    assert.equal(await rebuilt(), '1', 'offline after a rebuild: the new shell.css');
    assert.ok((await page.evaluate(() => window.attn.trace())).tokens.length > 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('sw.js keeps one entry per path: ?query variants add nothing, a fetch with a query is answered offline from its path, the cache is bounded', async () => {
  for (let i = 0; i < 40; ++i) fs.writeFileSync(path.join(site, `extra-${i}.txt`), `extra file ${i}\n`);
  const context = await browser.newContext({ serviceWorkers: 'allow' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  try {
    await page.goto(url + '#v=1&heads=2');
    await up(page);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    await up(page);
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    const entries = async () => Object.values(await cachedPaths(page))[0];
    const rawKeys = () => page.evaluate(async () => {
      const name = (await caches.keys()).find((n) => n.startsWith('attn-site-'));
      return (await (await caches.open(name)).keys()).map((r) => r.url);
    });
    // Waits until the worker's puts have settled: the same keys twice, frames apart.
    const settled = async () => {
      let last = null;
      for (;;) {
        const now = JSON.stringify(await rawKeys());
        if (now === last) return JSON.parse(now);
        last = now;
        await page.evaluate(() => new Promise((r) => setTimeout(r, 0)).then(() => fetch('favicon.svg')));
      }
    };
    const before = (await settled()).length;
    // Thirty junk queries of one big file (the 27 MB): no new entry.
    await page.evaluate(() => Promise.all(Array.from({ length: 30 }, (_, i) => fetch('attn.data?junk=' + i).then((r) => r.arrayBuffer()))));
    await page.evaluate(() => fetch('shell.js?v=' + Math.random()).then((r) => r.text()));
    const keys = await settled();
    assert.equal(keys.length, before, 'no entry for a ?query variant: ' + keys.filter((k) => k.includes('?')).join(' '));
    assert.deepEqual(keys.filter((k) => k.includes('?')), [], 'keys are paths');
    // Offline, a query variant is answered from its path's entry.
    await context.setOffline(true);
    const offline = await page.evaluate(() => fetch('shell.js?another=1').then((r) => r.status + ' ' + r.headers.get('content-type')));
    assert.match(offline, /^200 /);
    await context.setOffline(false);
    // Many real paths: the cache stays bounded, and the files the first load needs stay in it.
    // One after another: the worker keeps responses in the order they arrive, so only then is extra-39 the newest.
    await page.evaluate(async () => { for (let i = 0; i < 40; ++i) await (await fetch(`extra-${i}.txt`)).text(); });
    // The worker keeps responses one at a time in the order they came, so extra-39 is its last put:
    // once it is there, every put has settled (if it never comes, the test's timeout says so).
    await page.waitForFunction(async () => {
      const name = (await caches.keys()).find((n) => n.startsWith('attn-site-'));
      return (await (await caches.open(name)).keys()).some((r) => r.url.endsWith('/extra-39.txt'));
    }, null, { polling: 100 });
    const paths = await entries();
    assert.ok(paths.length <= 32, `at most 32 entries, found ${paths.length}`);
    for (const f of ['/', '/index.html', ...scripts, '/shell.css', ...await appBuild(page), '/attn.data', '/favicon.svg'])
      assert.ok(paths.includes(f), 'still cached: ' + f);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// issue 49, item 15: a model a link fetches from this origin (model_url=) is kept
// in IndexedDB, not a second time in Cache Storage, and a large file fetched
// some other way is not cached either (the cache is bounded in bytes, not only entries).
test('sw.js keeps no model a link fetches, and no file past its byte bound', async () => {
  const dir = path.join(site, 'models');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('/usr/bin/python3', [path.join(root, 'tests', 'llama_files.py'), dir, '--shape', 'tiny', '--version', '1'], { stdio: 'ignore' });
  fs.writeFileSync(path.join(site, 'large.bin'), Buffer.alloc(20 << 20));
  fs.writeFileSync(path.join(site, 'small.txt'), 'small\n');
  const hash = crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, 'tiny.bin'))).digest('hex').slice(0, 16);
  const context = await browser.newContext({ serviceWorkers: 'allow' });
  const page = await context.newPage();
  try {
    await page.goto(url + '#v=1&heads=2');
    await up(page);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30000 });
    // Another document (a query, not only a hash): loaded through the worker.
    await page.goto(url + `?m=1#v=1&text=Once&model=tiny.bin@${hash}&model_url=models%2Ftiny.bin&tokenizer_url=models%2Ftokenizer.bin`);
    await up(page);
    assert.ok(await page.evaluate(() => !!navigator.serviceWorker.controller), 'the worker answers this page');
    await page.waitForFunction(() => { const m = window.attn.ui().realModel; return m && m.ids && m.ids.length > 0; }, null, { timeout: 30000 });
    await page.evaluate(() => fetch('large.bin').then((r) => r.arrayBuffer()));
    // The worker keeps one response at a time, in order: once small.txt is in, the earlier ones were decided.
    await page.evaluate(() => fetch('small.txt').then((r) => r.text()));
    let paths = [];
    for (let i = 0; i < 200 && !paths.includes('/small.txt'); ++i) paths = Object.values(await cachedPaths(page)).flat();
    assert.ok(paths.includes('/small.txt'), 'a small file is kept');
    assert.ok(!paths.includes('/models/tiny.bin') && !paths.includes('/models/tokenizer.bin'), 'no model file: ' + paths.join(' '));
    assert.ok(!paths.includes('/large.bin'), 'no 20 MB file');
  } finally {
    await context.close();
  }
});
