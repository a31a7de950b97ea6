// The real page in headless Chromium: it loads cleanly, draws, and the numbers
// the wasm core computed agree with an independent computation in JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, openPage, withPage, canvasStats, browserSuite } from './harness.mjs';
import { num, at, frames, ui, click, settle } from './person.mjs';

const suite = browserSuite();


// softmax(mask(X W_q (X W_k)ᵀ / √d_k)) for one head, in float64 from the page's own inputs.
function referenceWeights(t, head, heads, causal) {
  const n = t.x.shape[0], d = t.x.shape[1], dk = d / heads;
  const layer = t.layers[0];
  const proj = (w) => Array.from({ length: n }, (_, i) => Array.from({ length: dk }, (_, c) => {
    let s = 0;
    for (let p = 0; p < d; p++) s += at(t.x, i, p) * at(w, p, head * dk + c);
    return s;
  }));
  const q = proj(layer.w_q), k = proj(layer.w_k);
  return q.map((qi, i) => {
    const s = k.map((kj, j) => (causal && j > i ? -Infinity : qi.reduce((a, x, c) => a + x * kj[c], 0) / Math.sqrt(dk)));
    const mx = Math.max(...s);
    const e = s.map((x) => Math.exp(x - mx));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
}

test('the page loads without errors, draws the heatmap, and its numbers match an independent computation', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const stats = await canvasStats(page);
    assert.ok(stats.width >= 1280 && stats.height >= 720, `canvas fills the window: ${stats.width}x${stats.height}`);
    assert.ok(stats.variance > 100, `canvas is not blank (pixel variance ${stats.variance.toFixed(1)})`);

    const t = await page.evaluate(() => window.attn.trace());
    assert.deepEqual(t.tokens, ['the', 'cat', 'chased', 'the', 'dog']);
    const heads = t.layers[0].heads;
    assert.ok(heads.length >= 2, 'at least two heads');
    const expText = await page.evaluate(() => window.attn.experiment());
    assert.match(expText, /mask=causal/);
    for (let h = 0; h < heads.length; h++) {
      const want = referenceWeights(t, h, heads.length, true);
      for (let i = 0; i < want.length; i++)
        for (let j = 0; j < want.length; j++)
          assert.ok(Math.abs(at(heads[h].weights, i, j) - want[i][j]) < 1e-5, `head ${h} weight (${i},${j})`);
    }
    // The page publishes the experiment into the URL hash.
    assert.equal(decodeURIComponent(new URL(page.url()).hash.slice(1)), decodeURIComponent(expText));
  });
});

test('the wasm core draws the same parameters as the native core, bit for bit', async () => {
  const cli = path.join(root, 'build', 'native-debug', 'attn');
  if (!fs.existsSync(cli)) assert.fail('native attn CLI not built: ' + cli);
  const experiment = 'v=1&text=%E7%8C%AB%E8%BF%BD%E7%8B%97%20the%20dog&seed=77&d_model=12&heads=3&kv_heads=1&layers=2&block=full&pos=rope&mask=causal';
  const native = JSON.parse(execFileSync(cli, ['eval', experiment, '--json'], { encoding: 'utf8' }));
  await withPage(suite.browser, suite.server.url + '#' + experiment, async ({ page }) => {
    const t = await page.evaluate(() => window.attn.trace());
    assert.deepEqual(t.tokens, native.tokens);
    assert.equal(t.arch, 'wasm');
    assert.deepEqual(t.x, native.x, 'embeddings');
    for (const name of ['w_q', 'w_k', 'w_v', 'w_o', 'w_1', 'w_2']) assert.deepEqual(t.layers[0][name], native.layers[0][name], name);
    const heads = native.layers[0].heads;
    for (let h = 0; h < heads.length; h++)
      heads[h].weights.data.forEach((w, i) => assert.ok(Math.abs(num(t.layers[0].heads[h].weights.data[i]) - num(w)) < 1e-5));
    native.output.data.forEach((x, i) => assert.ok(Math.abs(num(t.output.data[i]) - num(x)) < 1e-4, 'output ' + i));
  });
});

test('changing the head count and the mask recomputes at once', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const before = await canvasStats(page);
    const err = await page.evaluate(() => window.attn.setExperiment('v=1&text=the%20cat%20chased%20the%20dog&heads=4&mask=none'));
    assert.equal(err, '');
    const t = await page.evaluate(() => window.attn.trace());
    assert.equal(t.layers[0].heads.length, 4);
    const w = t.layers[0].heads[0].weights;
    assert.ok(at(w, 0, 4) > 0, 'without the causal mask the first token sees the last');
    await frames(page, 4);
    const after = await canvasStats(page);
    assert.notEqual(after.mean.toFixed(3), before.mean.toFixed(3), 'the canvas changed');
    assert.match(new URL(page.url()).hash, /heads=4/);
  });
});

test('a bad experiment is refused with a message and the last good one stays', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=3&mask=sideways', async ({ page }) => {
    const errors = await page.evaluate(() => window.attn.errors());
    assert.match(errors, /mask/);
    assert.match(await page.evaluate(() => window.attn.experiment()), /heads=2/);  // the default stands
    const err = await page.evaluate(() => window.attn.setExperiment('v=1&d_model=99999'));
    assert.match(err, /d_model/);
    assert.match(await page.evaluate(() => window.attn.experiment()), /heads=2/);
  });
});

for (const [what, hide] of [['WebGL 2', "const g = HTMLCanvasElement.prototype.getContext; HTMLCanvasElement.prototype.getContext = function (t, ...a) { return t === 'webgl2' ? null : g.call(this, t, ...a); };"],
  ['WebAssembly SIMD', 'WebAssembly.validate = () => false;']]) {
  test(`without ${what} the page says so in plain language instead of going blank`, async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    try {
      await page.addInitScript(hide);
      await page.goto(suite.server.url);
      await page.waitForSelector('#fatal:not([hidden])');
      const text = await page.textContent('#fatal');
      assert.match(text, /cannot run the playground/);
      assert.ok(text.includes(what), text);
    } finally {
      await context.close();
    }
  });
}

// What made the first frame slow and every frame wait (web/app.js,
// src/platform/gl_state_shadow.js): a second WebGL context beside the browser
// check's, a drawing buffer made at one size and then another, and seven GL state
// reads each frame that Chromium answers by a synchronous round trip to the GPU.
test('one WebGL context at the canvas size, and frames that do not ask the GPU for state the page set itself', async () => {
  const prepare = (page) => page.addInitScript(() => {
    const w = (window.glWatch = { contexts: [], sizes: [], reads: 0 });
    const getContext = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
      const ctx = getContext.call(this, type, ...rest);
      if (/webgl/.test(type) && ctx && !w.contexts.includes(ctx)) {
        w.contexts.push(ctx);
        w.sizes.push([this.width, this.height]);
      }
      return ctx;
    };
    // GL_SCISSOR_BOX and the six blend factors and equations.
    const synchronous = new Set([0x0C10, 0x80C8, 0x80C9, 0x80CA, 0x80CB, 0x8009, 0x883D]);
    const getParameter = WebGL2RenderingContext.prototype.getParameter;
    WebGL2RenderingContext.prototype.getParameter = function (name) {
      if (synchronous.has(name)) ++w.reads;
      return getParameter.call(this, name);
    };
  });
  await withPage(suite.browser, suite.server.url, { width: 1000, height: 600, prepare }, async ({ page, context }) => {
    const start = await page.evaluate(() => ({ contexts: window.glWatch.contexts.length, sizes: window.glWatch.sizes,
      canvas: [document.getElementById('canvas').width, document.getElementById('canvas').height] }));
    assert.equal(start.contexts, 1, 'the browser check and the app share one context');
    assert.deepEqual(start.sizes, [[1000, 600]], 'the context is made at the canvas size in device pixels');
    assert.deepEqual(start.canvas, [1000, 600]);
    const before = await page.evaluate(() => window.glWatch.reads);
    assert.ok(before <= 7, `each of the seven values is read from the GPU at most once (${before} reads)`);
    await frames(page, 10);
    // Frames are drawn all along (a heatmap redrawn after a change included).
    await page.evaluate(() => window.attn.setExperiment('v=1&heads=4'));
    await frames(page, 10);
    assert.equal(await page.evaluate(() => window.glWatch.reads), before, 'no more reads over twenty frames');
    const stats = await canvasStats(page);
    assert.ok(stats.variance > 100, `canvas is not blank (pixel variance ${stats.variance.toFixed(1)})`);
  });
});

// An idle page draws nothing (src/platform/main.cpp, frame_draws): its frames run (the UI
// is live) but a frame that would draw the same pixels as the last drawn one is left
// undrawn, and the canvas keeps showing that one. Without a GPU (software WebGL) an idle
// 1280×720 page drew ~1.6 cores' worth; a change draws in its own frame.
test('an idle page draws nothing and keeps its picture, then sleeps until an event or a change wakes it; a change draws at once', async () => {
  const prepare = (page) => page.addInitScript(() => {
    window.glDraws = 0;
    for (const name of ['drawElements', 'drawArrays', 'clear']) {
      const f = WebGL2RenderingContext.prototype[name];
      WebGL2RenderingContext.prototype[name] = function (...a) { ++window.glDraws; return f.apply(this, a); };
    }
  });
  await withPage(suite.browser, suite.server.url, { width: 1000, height: 600, prepare }, async ({ page }) => {
    const idleDraws = async () => {
      await settle(page);
      await frames(page, 3);  // the settled frame drawn
      const before = await page.evaluate(() => window.glDraws);
      await frames(page, 20);
      return (await page.evaluate(() => window.glDraws)) - before;
    };
    assert.equal(await idleDraws(), 0, 'twenty idle frames drew nothing');
    const stats = await canvasStats(page);
    assert.ok(stats.variance > 100, `the canvas still shows the page (pixel variance ${stats.variance.toFixed(1)})`);
    const before = await page.evaluate(() => window.glDraws);
    await page.evaluate(() => window.attn.setExperiment('v=1&heads=4'));
    await frames(page, 2);
    assert.ok((await page.evaluate(() => window.glDraws)) > before, 'the change was drawn');
    assert.equal(await idleDraws(), 0, 'idle again: nothing drawn');

    // A second idle (main.cpp, frame_rest): the app sleeps, its loop paused; only the
    // shell's ticks run a frame, until an event or a hook's call wakes it.
    const state = () => page.evaluate(() => ({ frames: window.attnShell.framesRun, ticks: window.attnShell.ticks, asleep: window.attnShell.asleep }));
    const asleep = async () => {
      await page.waitForFunction(() => window.attnShell.asleep, null, { polling: 50 });
      const a = await state();
      await frames(page, 30);  // thirty of the browser's animation frames
      const b = await state();
      assert.ok(b.frames - a.frames <= b.ticks - a.ticks + 1, `asleep, the ticks' frames alone: ${JSON.stringify([a, b])}`);
      return b;
    };
    let b = await asleep();
    await page.mouse.move(300, 200);
    await frames(page, 4);
    let c = await state();
    assert.ok(c.frames - b.frames >= 2 + (c.ticks - b.ticks), `a mouse move wakes it: ${JSON.stringify([b, c])}`);
    b = await asleep();
    const drawsAsleep = await page.evaluate(() => window.glDraws);
    await page.evaluate(() => window.attn.setExperiment('v=1&heads=2'));
    await frames(page, 2);
    assert.ok((await page.evaluate(() => window.glDraws)) > drawsAsleep, 'a hook\'s change wakes it and is drawn at once');
    c = await state();
    assert.ok(!c.asleep && c.frames - b.frames >= 2, `awake after the change: ${JSON.stringify([b, c])}`);
  });
});

// The text mirror's first DOM (a hidden table the page lays out) waits for the
// first frame instead of delaying it; it is there right after.
test('the text view is built after the first frame, not before it', async () => {
  const prepare = (page) => page.addInitScript(() => {
    window.tvBody = 0;  // changes of #tv-body (there once the document is parsed) before the first frame
    document.addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        if (!(window.attnShell && window.attnShell.firstFrameSeen)) ++window.tvBody;
      }).observe(document.getElementById('tv-body'), { subtree: true, childList: true });
    });
  });
  await withPage(suite.browser, suite.server.url, { prepare }, async ({ page }) => {
    await page.waitForFunction(() => document.getElementById('tv-body').querySelectorAll('table').length > 0);
    assert.equal(await page.evaluate(() => window.tvBody), 0, 'no text view DOM before the first frame');
  });
});

test('HiDPI: the canvas backing store follows devicePixelRatio', async () => {
  const { page, context } = await openPage(suite.browser, suite.server.url, { width: 800, height: 600, deviceScaleFactor: 2 });
  try {
    await page.waitForFunction(() => document.getElementById('canvas').width === 1600);
    await page.setViewportSize({ width: 640, height: 480 });
    await page.waitForFunction(() => document.getElementById('canvas').width === 1280);
    const stats = await canvasStats(page);
    assert.ok(stats.variance > 100);
  } finally {
    await context.close();
  }
});

test('a first visit opens on the start card; its guided path opens L1; it is not shown again, nor for a link', async () => {
  await withPage(suite.browser, suite.server.url, { firstVisit: true }, async ({ page, context }) => {
    await frames(page, 2);
    assert.ok((await ui(page)).widgets.start_card, 'the start card is on screen');
    await click(page, 'start_lessons');
    await page.waitForFunction(() => window.attn.ui().lesson === 0 && !window.attn.ui().widgets.start_card);
    const again = await context.newPage();  // the same browser, the page itself again (no link)
    await again.goto(suite.server.url);
    await again.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
    await frames(again, 2);
    assert.equal((await ui(again)).widgets.start_card, undefined, 'dismissed once, remembered');
  });
  const linked = await openPage(suite.browser, suite.server.url + '#v=1&heads=4', { firstVisit: true });
  try {
    await frames(linked.page, 2);
    assert.equal((await ui(linked.page)).widgets.start_card, undefined, 'a link opens straight on its experiment');
  } finally {
    await linked.context.close();
  }
});
