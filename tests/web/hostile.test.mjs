// Hostile and broken input at the page's edges: a link the app cannot open stays
// in the address bar; a NUL in setExperiment / attn:set is refused, not cut; a
// read-only embed refuses attn:set; a frame sandboxed without allow-same-origin
// says what the host must allow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite } from './harness.mjs';
import { experiment } from './person.mjs';

const suite = browserSuite();

// Lets the page draw for at least `ms` milliseconds of its own clock (frames, not a
// fixed sleep): long enough for the app's throttled publishing (every 250 ms) to act.
const drawFor = (page, ms) => page.evaluate((ms) => new Promise((resolve) => {
  const t0 = performance.now();
  const tick = () => (performance.now() - t0 >= ms ? resolve() : requestAnimationFrame(tick));
  requestAnimationFrame(tick);
}), ms);

test('a link the page cannot open stays in the address bar until the person changes something', async () => {
  const bad = 'v=1&text=the%20cat&heads=3&mask=sideways&view.stage=4';
  await withPage(suite.browser, suite.server.url + '#' + bad, async ({ page }) => {
    const errors = await page.evaluate(() => window.attn.errors());
    assert.match(errors, /mask/);
    assert.match(errors, /heads \(3\)/);
    assert.match(await experiment(page), /heads=2&/, 'the default experiment is shown');
    await drawFor(page, 800);
    assert.equal(await page.evaluate(() => location.hash), '#' + bad, 'the bad link is still there to fix or report');
    // The person's first change replaces it with the link of what is on screen.
    assert.equal(await page.evaluate(() => window.attn.setExperiment('v=1&heads=4')), '');
    await page.waitForFunction(() => /heads=4&/.test(location.hash));
  });
});

test('setExperiment with a NUL is refused as a whole, not cut at the NUL', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=4', async ({ page }) => {
    const before = await experiment(page);
    for (const link of ['v=1&heads=8\0&heads=99&garbage', '\0v=1&heads=8', 'v=1&heads=8&text=a%20b\0']) {
      const answer = await page.evaluate((t) => window.attn.setExperiment(t), link);
      assert.match(answer, /NUL character at position \d+/, JSON.stringify(link));
      assert.equal(await experiment(page), before, 'nothing applied: ' + JSON.stringify(link));
    }
    // A lone surrogate is half a character: refused, not merged with the next one.
    // (Made in the page: the protocol that carries a test's strings would replace them by U+FFFD.)
    for (const [head, unit, tail] of [['v=1&text=a', 0xD800, 'b'], ['v=1&text=', 0xDC00, 'x'], ['v=1&heads=8&text=a', 0xD83D, '']]) {
      const answer = await page.evaluate(([h, u, t]) => window.attn.setExperiment(h + String.fromCharCode(u) + t), [head, unit, tail]);
      assert.match(answer, /lone UTF-16 surrogate at position \d+/, head + unit.toString(16) + tail);
      assert.equal(await experiment(page), before, 'nothing applied: ' + head + unit.toString(16) + tail);
    }
    // A whole pair is a character like any other.
    assert.equal(await page.evaluate(() => window.attn.setExperiment('v=1&heads=4&text=a%20' + String.fromCharCode(0xD83D, 0xDE00))), '');
    assert.match(await experiment(page), /text=a%20%F0%9F%98%80/);
    await page.evaluate((t) => window.attn.setExperiment(t), before);
    // Percent-encoded, the NUL reaches the core, which refuses it too.
    assert.match(await page.evaluate(() => window.attn.setExperiment('v=1&heads=8&text=a%00b')), /NUL character \(%00\)/);
    assert.equal(await experiment(page), before);
  });
});

// A blank page of the site's own origin that hosts frames of the playground.
async function openHost() {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 } });
  const hostUrl = suite.server.url + 'hostile-host.html';
  await context.route(hostUrl, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>host</title><body></body>' }));
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  await page.goto(hostUrl);
  // Every message a frame sends to the host, in arrival order.
  await page.evaluate(() => {
    window.heard = [];
    window.addEventListener('message', (e) => {
      const index = [...document.querySelectorAll('iframe')].findIndex((f) => f.contentWindow === e.source);
      window.heard.push({ index, data: e.data });
    });
  });
  return { page, context, problems };
}

// Adds <iframe sandbox=… src=index.html?host=…#hash>; returns its index.
const addFrame = (page, hash, sandbox) => page.evaluate(({ hash, sandbox }) => {
  const f = document.createElement('iframe');
  if (sandbox !== null) f.setAttribute('sandbox', sandbox);
  f.width = '640';
  f.height = '400';
  f.src = 'index.html?host=' + encodeURIComponent(location.origin) + '#' + hash;
  document.body.appendChild(f);
  return document.querySelectorAll('iframe').length - 1;
}, { hash, sandbox });

// Posts message to frame `index` and waits for its first answer of one of `types`.
async function ask(page, index, message, types) {
  const seen = await page.evaluate(() => window.heard.length);
  await page.evaluate(({ index, message }) => {
    document.querySelectorAll('iframe')[index].contentWindow.postMessage(message, location.origin);
  }, { index, message });
  const handle = await page.waitForFunction(({ index, seen, types }) =>
    window.heard.slice(seen).find((m) => m.index === index && types.includes(m.data.type)), { index, seen, types });
  return handle.jsonValue();
}

test('attn:set: a NUL is answered attn:error; a read-only embed refuses every change', async () => {
  const { page, context, problems } = await openHost();
  try {
    // Sandboxed with exactly what the message below asks hosts to allow.
    const open = await addFrame(page, 'v=1&heads=4&view.embed=1', 'allow-scripts allow-same-origin');
    const locked = await addFrame(page, 'v=1&heads=4&mask=none&view.embed=1&view.readonly=1', 'allow-scripts allow-same-origin');
    await page.waitForFunction(() => [0, 1].every((i) => window.heard.some((m) => m.index === i && m.data.type === 'attn:ready')),
      null);
    const linkOf = async (i) => (await ask(page, i, { type: 'attn:get' }, ['attn:state'])).data.link;
    const openBefore = await linkOf(open);

    const nul = await ask(page, open, { type: 'attn:set', link: 'v=1&heads=8\0&heads=99&garbage' }, ['attn:error', 'attn:changed']);
    assert.equal(nul.data.type, 'attn:error');
    assert.match(nul.data.errors.join(' '), /NUL character/);
    assert.equal(await linkOf(open), openBefore, 'the open frame did not change');

    const lockedBefore = await linkOf(locked);
    const refused = await ask(page, locked, { type: 'attn:set', link: 'v=1&heads=1&mask=causal' }, ['attn:error', 'attn:changed']);
    assert.equal(refused.data.type, 'attn:error');
    assert.match(refused.data.errors.join(' '), /read-only \(view\.readonly=1\)/);
    assert.equal(await linkOf(locked), lockedBefore, 'the read-only frame did not change');

    // The same message changes the frame that is not read-only.
    const changed = await ask(page, open, { type: 'attn:set', link: 'v=1&heads=1&mask=causal' }, ['attn:error', 'attn:changed']);
    assert.equal(changed.data.type, 'attn:changed');
    assert.match(changed.data.link, /heads=1&/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a frame sandboxed without allow-same-origin says what the host must allow', async () => {
  const { page, context, problems } = await openHost();
  try {
    const index = await addFrame(page, 'v=1&heads=4', 'allow-scripts');
    const handle = await page.waitForSelector(`iframe >> nth=${index}`);
    const frame = await handle.contentFrame();
    await frame.waitForFunction(() => !document.getElementById('fatal').hidden);
    const text = await frame.evaluate(() => document.getElementById('fatal').textContent);
    assert.match(text, /allow-same-origin/);
    assert.match(text, /sandbox="allow-scripts allow-same-origin"/);
    assert.doesNotMatch(text, /Reload/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
