// Shared by the browser tests: serves the built site with serve.py on a free
// port and drives Debian's Chromium (headless, WebGL2 through SwiftShader)
// with playwright-core. Nothing here downloads a browser.
//
// Run by tests/web/run.mjs (as scripts/test.sh does), every test file uses the
// one server and the one browser it started (ATTN_TEST_URL, ATTN_TEST_BROWSER):
// each file still runs in its own Node process, with its own browser contexts.
// Run alone (node --test tests/web/<file>.test.mjs), a file starts its own.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function startServer(extraArgs = []) {
  const proc = spawn('python3', [path.join(root, 'serve.py'), '--no-build', '--port', '0', '--test-runs', testRuns(), ...extraArgs], {
    cwd: root,
    env: { ...process.env, ATTN_SERVE_QUIET: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve.py did not start: ' + stderr)), 15000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/[^\s]+\//);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    });
    proc.on('exit', (code) => reject(new Error('serve.py exited with ' + code + ': ' + stderr)));
  });
  return { url, stop: () => proc.kill('SIGINT') };
}

// For a test file: serves the site and starts the browser before its tests,
// stops both after them. The returned object's server and browser are set then;
// `setup(suite)`, if given, runs once they are (e.g. to open a shared page).
export function browserSuite(setup) {
  const suite = { server: null, browser: null };
  before(async () => {
    suite.server = process.env.ATTN_TEST_URL ? { url: process.env.ATTN_TEST_URL, stop() {} } : await startServer();
    suite.browser = await launchBrowser();
    if (setup) await setup(suite);
  });
  after(async () => {
    await suite.browser?.close();  // a shared browser: only this file's connection, and its contexts
    suite.server?.stop();
  });
  return suite;
}

// How long a wait may last before it fails (ms): see launchBrowser.
export const PATIENCE = 180000;

export const chromiumOptions = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-gpu-compositing',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
    '--disable-quic', '--disable-default-apps',
  ],
};

// Contexts prefer the dark colour scheme unless a test asks otherwise
// (Playwright's default is light, and the page follows prefers-color-scheme):
// pictures compared across tests stay in one theme. And they are return visits:
// the start card a first visit opens with is already dismissed, unless a test
// asks for a first visit (`firstVisit: true`).
export async function launchBrowser() {
  const browser = process.env.ATTN_TEST_BROWSER
    ? await chromium.connect(process.env.ATTN_TEST_BROWSER)
    : await chromium.launch(chromiumOptions);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async ({ firstVisit = false, ...options } = {}) => {
    // Reduced motion: the loading overlay's 0.2 s fade (shell.css, its only transition) is
    // skipped, which appShown waits for on every open. No service worker unless a test asks
    // (serviceWorkers: 'allow': the offline and threads tests): in a new context each page's
    // sw.js fetched and stored the whole site again, ~0.5 s of a core an open.
    const context = await newContext({ colorScheme: 'dark', reducedMotion: 'reduce', serviceWorkers: 'block', ...options });
    // A wait fails only when what it waits for never comes: a busy machine (CI beside other work,
    // two cores shared with the page's own drawing and training) is slow, not broken. Waits that
    // name no timeout (page.goto, waitForFunction, waitForSelector…) get this one.
    context.setDefaultTimeout(PATIENCE);
    // A WebGL2 bufferData with a view and length 0 uploads the view from its offset to its
    // end: from the wasm heap, tens of MB a frame (main.cpp, release_empty_buffers). Said
    // once as a console error, which every test that collects problems fails on.
    await context.addInitScript(() => {
      if (typeof WebGL2RenderingContext === 'undefined') return;
      const bufferData = WebGL2RenderingContext.prototype.bufferData;
      let said = false;
      WebGL2RenderingContext.prototype.bufferData = function (...a) {
        if (!said && a.length >= 5 && ArrayBuffer.isView(a[1]) && a[4] === 0 && a[1].byteLength - a[3] > 0) {
          said = true;
          console.error(`bufferData of length 0 from offset ${a[3]}: ${a[1].byteLength - a[3]} bytes of the heap uploaded`);
        }
        return bufferData.apply(this, a);
      };
    });
    if (!firstVisit) {
      await context.addInitScript(() => {
        try { window.localStorage.setItem('attn.start', 'seen'); } catch (e) { /* storage disabled */ }
      });
    }
    return context;
  };
  return browser;
}

// Opens the playground and waits for the app's first frame. Collects console
// errors, page errors and any request to another host. `prepare(page)` runs
// before the page loads (to watch or route its requests).
export async function openPage(browser, url,
  { width = 1280, height = 720, deviceScaleFactor = 1, colorScheme = 'dark', prepare, firstVisit = false, serviceWorkers = 'block' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor, colorScheme, firstVisit, serviceWorkers });
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(url).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message + ' ' + e.stack));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) problems.push('foreign request: ' + r.url());
  });
  if (prepare) await prepare(page);
  await page.goto(url);
  await appShown(page);
  return { page, context, problems };
}

// The frame of most browser tests: opens the page (openPage's arguments),
// runs `fn({ page, context, problems })`, then asserts the page had no problem
// (console errors, page errors, foreign requests).
//
// The page is a reused one where nothing of the test needs a context of its own:
// the file's last such page, its storage emptied (localStorage, sessionStorage,
// IndexedDB), resized, and loaded again at `url` (a reload: a new document, a new
// app, ~1.8 s of a core against ~4.5 for a new context, which the tests paid
// ~150 times). A test gets a new context, closed after it as before, when it asks
// (`fresh: true`), gives `prepare` or `firstVisit`, or its source names `context`
// or adds what outlives a load (routes, init scripts, exposed functions, media
// emulation). A test that fails leaves its page closed, so the next one starts anew.
export async function withPage(browser, url, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  const own = options.fresh || options.prepare || options.firstVisit ||
    /\bcontext\b|\.route\(|addInitScript|exposeFunction|emulateMedia/.test(fn.toString());
  const opened = own ? await openPage(browser, url, options) : await reusedPage(browser, url, options);
  let passed = false;
  try {
    await fn(opened);
    assert.deepEqual(opened.problems, []);
    passed = true;
  } finally {
    if (own || !passed) {
      if (!own) reused.delete(browser);
      await opened.context.close().catch(() => {});
    }
  }
}

// withPage's reused page, one per browser connection (a test file's): { page, context, problems, key }.
const reused = new Map();

async function reusedPage(browser, url, options) {
  const { width = 1280, height = 720, deviceScaleFactor = 1, colorScheme = 'dark', serviceWorkers = 'block' } = options;
  const key = JSON.stringify([new URL(url).origin, deviceScaleFactor, colorScheme, serviceWorkers]);
  const kept = reused.get(browser);
  if (kept && (kept.key !== key || kept.page.isClosed())) {
    reused.delete(browser);
    await kept.context.close().catch(() => {});
  } else if (kept) {
    await kept.page.evaluate(async () => {
      try { window.localStorage.clear(); window.sessionStorage.clear(); } catch (e) { /* storage disabled */ }
      const names = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
      // Deleted once the page's own connections close, at the reload below, before the next page opens any.
      for (const name of names) indexedDB.deleteDatabase(name);
    });
    await kept.page.setViewportSize({ width, height });
    await kept.page.evaluate((u) => history.replaceState(null, '', u), url);  // no hashchange: the app opens it at load
    kept.problems.length = 0;
    await kept.page.reload();
    await appShown(kept.page);
    return kept;
  }
  const opened = await openPage(browser, url, { width, height, deviceScaleFactor, colorScheme, serviceWorkers });
  opened.key = key;
  reused.set(browser, opened);
  return opened;
}

// A lesson's recipe link, read from the core's own source (src/core/spec/recipe.hpp:
// recipe_lesson_<name>): 'induction' (L9's), 'copy_offset' (L10's).
export function lessonRecipe(name = 'induction') {
  const src = fs.readFileSync(path.join(root, 'src', 'core', 'spec', 'recipe.hpp'), 'utf8');
  return src.match(new RegExp(`recipe_lesson_${name} =\\s*"([^"]+)"`))[1];
}

// Train once, use many times: a test that needs a trained model and does not test
// training gives its page the recipe's run with keepRun(page, recipe) (a recipe
// link, trained to its end), as the browser's store of runs gives it on a reload
// (web/runs.js [Runs], window.attn.keepRun): the page takes it in place of
// training, at the step its experiment asks for (so an untrained lesson stays
// untrained until Train, which then finds every step kept). The run is the one the
// wasm core tests kept under Node (builtRun: L9's and L10's), or else trained once
// per test command, by the first test that asks, in a page of its own (the page's
// build, its arithmetic: the bits a page would train), and kept as a file
// in the folder every test file shares (testRuns(): run.mjs's, ATTN_TEST_RUNS),
// which serve.py serves under /test-runs/ (--test-runs); the page fetches it from
// there (17 MB crosses Playwright's protocol in ~5 s, HTTP in a fraction of one) and
// checks the bytes as it checks any kept run.
export function testRuns() {
  if (!process.env.ATTN_TEST_RUNS) process.env.ATTN_TEST_RUNS = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-test-runs-'));
  return process.env.ATTN_TEST_RUNS;
}

export async function keepRun(page, recipe) {
  const name = crypto.createHash('sha256').update(recipe).digest('hex').slice(0, 16) + '.run';
  const file = path.join(testRuns(), name);
  if (!fs.existsSync(file)) {
    const built = builtRun(recipe);
    if (built) fs.copyFileSync(built, file);
    else await trainRun(page.context().browser(), new URL(page.url()).origin, recipe, file);
  }
  const why = await page.evaluate((url) => fetch(url).then((r) => {
    if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
    return r.arrayBuffer();
  }).then((b) => window.attn.keepRun(b)), '/test-runs/' + name);
  // (Its own run of the recipe may have gone as far meanwhile: then it needs none.)
  assert.match(why, /^$|went as far/, `the page takes the kept run of ${recipe}`);
}

// A lesson's run the wasm core tests kept under Node (scripts/test.sh runs them before
// the browser: tests/core/test_train_learning.cpp, keep_for_the_page), the same bits a
// page trains: build/web/test-runs/<FNV-1a of the recipe, 16 hex digits>.run, when it
// was written by the core tests built last (they and the site are built from one core:
// an older build's would be refused). Else null.
function builtRun(recipe) {
  let h = 0xcbf29ce484222325n;
  for (const c of Buffer.from(recipe)) h = BigInt.asUintN(64, (h ^ BigInt(c)) * 0x100000001b3n);
  const web = path.join(root, 'build', 'web');
  const file = path.join(web, 'test-runs', h.toString(16).padStart(16, '0') + '.run');
  try {
    return fs.statSync(file).mtimeMs > fs.statSync(path.join(web, 'tests', 'attn_core_tests.wasm')).mtimeMs ? file : null;
  } catch (e) {
    return null;
  }
}

// Trains `recipe` to its end in a page of its own and writes the run the page stored to `file`.
async function trainRun(browser, origin, recipe, file) {
  const context = await browser.newContext({ acceptDownloads: true });
  try {
    const page = await context.newPage();
    await page.goto(origin + '/#' + recipe);
    await appShown(page);
    await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done && t.step === t.steps; }, null, { polling: 250 });
    // The page stores the run the frame after it is done; its bytes leave as a download (~1 s for 17 MB).
    await page.waitForFunction(() => new Promise((resolve) => {
      const r = indexedDB.open('attn-runs', 1);
      r.onupgradeneeded = () => r.result.createObjectStore('runs', { keyPath: 'key' });
      r.onsuccess = () => {
        const all = r.result.transaction('runs').objectStore('runs').getAll();
        all.onsuccess = () => {
          r.result.close();
          const run = all.result.find((x) => x.bytes);
          if (run) window.__run = new Blob([run.bytes]);
          resolve(!!run);
        };
      };
    }), null, { polling: 250 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(window.__run);
      a.download = 'run';
      a.click();
    })]);
    await download.saveAs(file + '.part');
    fs.renameSync(file + '.part', file);
  } finally {
    await context.close();
  }
}

// Opens a poster (view.poster=1: a click-to-run embed, web/posters.js "Poster")
// and waits until the page has loaded everything it will load by itself, so
// that what it requested (`requests`) is all it would before Run. In a new
// context, or in `context`. Collects console errors and page errors.
export async function openPoster(browser, url, { colorScheme = 'dark', context = null } = {}) {
  context = context || await browser.newContext({ viewport: { width: 800, height: 500 }, colorScheme });
  const page = await context.newPage();
  const requests = [];
  const problems = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  await page.goto(url);
  await page.waitForSelector('#poster-run');
  await page.waitForLoadState('networkidle');
  return { page, context, requests, problems };
}

// Waits for the app's first frame and for the loading overlay to have faded out
// (a 0.2 s transition over the canvas): until then a screenshot's colours are
// the canvas's blended with the overlay's.
export async function appShown(page) {
  await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
  await page.waitForFunction(() => {
    const l = document.getElementById('loading');
    return !l || getComputedStyle(l).opacity === '0';
  });
}

// The one PNG decoder of the browser tests: a screenshot (page.screenshot's
// PNG: 8 bits a channel, grey, RGB or RGBA, optionally with alpha, not
// interlaced) as RGBA pixels, decoded here in Node. The pixels are the PNG's own
// bytes: screenshots carry no colour profile, so nothing is converted.
export function decodePng(png) {
  const u32 = (o) => png.readUInt32BE(o);
  if (png.toString('latin1', 1, 4) !== 'PNG') throw new Error('not a PNG');
  let width = 0, height = 0, channels = 0;
  const idat = [];
  for (let o = 8; o < png.length;) {
    const len = u32(o), type = png.toString('latin1', o + 4, o + 8), body = png.subarray(o + 8, o + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0); height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colour];
      if (depth !== 8 || !channels || interlace) throw new Error(`PNG kind not decoded here: depth ${depth}, colour ${colour}, interlace ${interlace}`);
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
    o += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)], src = y * (stride + 1) + 1, out = y * stride, prev = out - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? rows[out + x - channels] : 0, b = y ? rows[prev + x] : 0;
      const c = x >= channels && y ? rows[prev + x - channels] : 0;
      let v = raw[src + x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      rows[out + x] = v;
    }
  }
  if (channels === 4) return { width, height, data: rows };
  const data = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += channels) {
    const grey = channels <= 2;
    data[4 * i] = rows[j];
    data[4 * i + 1] = grey ? rows[j] : rows[j + 1];
    data[4 * i + 2] = grey ? rows[j] : rows[j + 2];
    data[4 * i + 3] = channels === 2 ? rows[j + 1] : channels === 4 ? rows[j + 3] : 255;
  }
  return { width, height, data };
}

// What the person sees: a real screenshot of the page (or of `clip`, CSS pixels),
// as RGBA pixels ({ width, height, data }).
export async function screenshotPixels(page, clip) {
  return decodePng(await page.screenshot({ type: 'png', ...(clip ? { clip } : {}) }));
}

// Mean and variance of what the person sees, plus the canvas's backing-store size.
export async function canvasStats(page) {
  const { data: d } = await screenshotPixels(page);
  let s = 0, s2 = 0, n = 0;
  for (let i = 0; i < d.length; i += 16) {
    const v = (d[i] + d[i + 1] + d[i + 2]) / 3;
    s += v; s2 += v * v; n++;
  }
  const mean = s / n;
  const [width, height] = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    return [c.width, c.height];
  });
  return { width, height, mean, variance: s2 / n - mean * mean };
}
