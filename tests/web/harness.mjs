// Shared by the browser tests: serves the built site with serve.py on a free
// port and drives Debian's Chromium (headless, WebGL2 through SwiftShader)
// with playwright-core. Nothing here downloads a browser.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function startServer() {
  const proc = spawn('python3', [path.join(root, 'serve.py'), '--no-build', '--port', '0'], {
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
    suite.server = await startServer();
    suite.browser = await launchBrowser();
    if (setup) await setup(suite);
  });
  after(async () => {
    await suite.browser?.close();
    suite.server?.stop();
  });
  return suite;
}

// Contexts prefer the dark colour scheme unless a test asks otherwise
// (Playwright's default is light, and the page follows prefers-color-scheme):
// pictures compared across tests stay in one theme. And they are return visits:
// the start card a first visit opens with is already dismissed, unless a test
// asks for a first visit (`firstVisit: true`).
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-quic', '--disable-default-apps',
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async ({ firstVisit = false, ...options } = {}) => {
    const context = await newContext({ colorScheme: 'dark', ...options });
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
  { width = 1280, height = 720, deviceScaleFactor = 1, colorScheme = 'dark', prepare, firstVisit = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor, colorScheme, firstVisit });
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

// Waits for the app's first frame and for the loading overlay to have faded out
// (a 0.2 s transition over the canvas): until then a screenshot's colours are
// the canvas's blended with the overlay's.
export async function appShown(page) {
  await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn, null, { timeout: 60000 });
  await page.waitForFunction(() => {
    const l = document.getElementById('loading');
    return !l || getComputedStyle(l).opacity === '0';
  }, null, { timeout: 10000 });
}

// Mean and variance of what the person sees (a real screenshot, decoded in the
// page), plus the canvas's backing-store size.
export async function canvasStats(page) {
  const png = await page.screenshot({ type: 'png' });
  return page.evaluate(async (b64) => {
    const c = document.getElementById('canvas');
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const off = new OffscreenCanvas(img.width, img.height);
    const ctx = off.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, img.width, img.height).data;
    let s = 0, s2 = 0, n = 0;
    for (let i = 0; i < d.length; i += 16) {
      const v = (d[i] + d[i + 1] + d[i + 2]) / 3;
      s += v; s2 += v * v; n++;
    }
    const mean = s / n;
    return { width: c.width, height: c.height, mean, variance: s2 / n - mean * mean };
  }, png.toString('base64'));
}
