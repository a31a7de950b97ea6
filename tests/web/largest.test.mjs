// The largest valid experiments in the real page (docs/numerics.md, "The
// largest experiments"): 1024 tokens, d_model 256, 16 heads, 4 layers, block=full, with
// an ablated head and a masked edge (which add a baseline), and the JSON export
// of a 1024-token, 16-head trace. Each must leave the page running: the wasm
// heap stops at 2 GB, and the core budgets a recompute before it allocates.
// The times printed are for docs/numerics.md; the assertions are about staying alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, browserSuite } from './harness.mjs';
import { click, frames, reveal } from './person.mjs';

const suite = browserSuite();
const TEXT = Array(1024).fill('a').join('%20');
const LARGEST = `v=1&text=${TEXT}&d_model=256&heads=16&layers=4&block=full&ablate=3.15&edges=3.15.1023.0`;
const EXPORT = `v=1&text=${TEXT}&d_model=256&heads=16&layers=1`;

// Applies a link and waits for the recompute it causes (the app's version
// counter); returns the milliseconds it took.
async function applyAndWait(page, link) {
  const before = await page.evaluate(() => window.attn.ui().version);
  const t0 = Date.now();
  assert.equal(await page.evaluate((l) => window.attn.setExperiment(l), link), '');
  await page.waitForFunction((v) => window.attn.ui().version > v, before, { timeout: 600000, polling: 200 });
  return Date.now() - t0;
}

// Milliseconds between two animation frames, after one to settle.
function frameTime(page) {
  return page.evaluate(() => new Promise((done) => {
    requestAnimationFrame(() => {
      const t0 = performance.now();
      requestAnimationFrame(() => done(performance.now() - t0));
    });
  }));
}

async function stillRunning(page, problems) {
  assert.deepEqual(problems, []);
  const text = await page.evaluate(() => document.body.innerText);
  assert.ok(!/stopped|could not load/i.test(text), 'no fatal banner');
  assert.ok((await page.evaluate(() => window.attn.ui().version)) > 0);
}

test('the largest valid experiment with an ablated head and a masked edge leaves the page running', { timeout: 900000 }, async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url);
  try {
    const recompute = await applyAndWait(page, LARGEST);
    const frame = await frameTime(page);
    console.log(`largest experiment: full recompute ${recompute} ms, a frame ${frame.toFixed(0)} ms`);
    await stillRunning(page, problems);
    assert.match(await page.evaluate(() => window.attn.experiment()), /ablate=3\.15/);
    // Pinned against itself its two traces would pass the 2 GB heap: "Pin as A" and a
    // link holding both are refused with the figure, and the page keeps B.
    const version = await page.evaluate(() => window.attn.ui().version);
    await reveal(page, 'pin');
    await click(page, 'pin');
    await page.waitForFunction(() => /pinned A beside it needs \d+ bytes/.test(window.attn.errors()));
    await frames(page, 4);
    assert.equal((await page.evaluate(() => window.attn.ui())).compare.pinned, false);
    const both = await page.evaluate(() => window.attn.ui().link);
    assert.doesNotMatch(both, /pin=/);
    await stillRunning(page, problems);
    assert.equal(await page.evaluate(() => window.attn.ui().version), version, 'B is not recomputed');
  } finally {
    await context.close();
  }
});

test('exporting the trace of 1024 tokens × 16 heads refuses with a message and leaves the page running', { timeout: 900000 }, async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url);
  try {
    await applyAndWait(page, EXPORT);
    const t = await page.evaluate(() => window.attn.trace());
    assert.match(t.error, /too large to export/);
    await stillRunning(page, problems);
    // A small experiment afterwards exports in full.
    await applyAndWait(page, 'v=1&text=the%20cat%20sat&heads=2');
    const small = await page.evaluate(() => window.attn.trace());
    assert.equal(small.tokens.length, 3);
    await stillRunning(page, problems);
  } finally {
    await context.close();
  }
});
