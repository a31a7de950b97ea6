// Big recipes keep the page drawing (issue 29, item 2). Training runs in pieces
// of about one layer of one row (train_step_piece), the held-out measure a row
// at a time, so a frame never waits for a whole step or measure: a moderate
// recipe keeps the page drawing at its own paused pace or near it, Pause on the largest recipe acts in the
// next frame (the step in progress is dropped), and a recipe estimated to take
// long (train_estimate) opens paused with its estimate shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite } from './harness.mjs';
import { frames, ui, click, reveal } from './person.mjs';

const suite = browserSuite();
const MODERATE = 'v=1&text=a%20b%20c&d_model=128&heads=8&layers=2&block=full&seq=64&vocab=32&batch=32&steps=2000&train=induction';
const LARGEST = 'v=1&text=a%20b%20c&d_model=256&heads=16&layers=4&block=full&train=induction&seq=128&vocab=62&batch=31&steps=20000';

const train = async (page) => (await ui(page)).train;

// Animation frames the page draws in `ms` milliseconds, counted in the page, and the longest gap
// between two. The app leaves a frame that changed nothing undrawn (main.cpp, frame_draws): a
// paused page would be measured at an idle page's pace, not at its drawing's, so each frame
// measured is asked to draw (attn_hook_redraw), as a training page's frames all do.
function frameRate(page, ms) {
  return page.evaluate((ms) => new Promise((done) => {
    let count = 0, longest = 0, last = 0;
    const t0 = performance.now();
    const tick = (now) => {
      if (last) longest = Math.max(longest, now - last);
      last = now;
      if (now - t0 >= ms) return done({ perSecond: (count * 1000) / (now - t0), longest });
      ++count;
      window.Module._attn_hook_redraw();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }), ms);
}

// Training keeps the page drawing: while it trains, the page draws at least a quarter of the frames
// the same page draws paused, measured beside it (28 against 48 frames/s on a quiet two-core
// machine for the moderate recipe; a frame that waited for a step would give 1 or 2 a second). The
// bound is the page's own pace on this machine at this moment, never a quiet machine's clock: a busy
// machine slows both alike.
function keepsDrawing(training, idle) {
  return training.perSecond >= 0.25 * idle.perSecond;
}

// Frame by frame until `ok(train)` holds; how many frames that took.
async function framesUntil(page, ok, limit = 3000) {
  for (let i = 0; i < limit; i++) {
    if (ok(await train(page))) return i;
    await frames(page, 1);
  }
  throw new Error('the condition never held');
}

test('a moderate recipe keeps the page drawing while it trains: a quarter of its paused pace or more', { timeout: 300000 }, async () => {
  await withPage(suite.browser, `${suite.server.url}#${MODERATE}`, async ({ page }) => {
    let t = await train(page);
    assert.equal(t.estimate.long, false, `estimated ${t.estimate.runSeconds} s: not long`);
    assert.equal(t.target, 2000, 'it trains on open');
    await framesUntil(page, (x) => x.step >= 2);
    const before = t = await train(page);
    const rate = await frameRate(page, 3000);
    t = await train(page);
    console.log(`moderate recipe: ${rate.perSecond.toFixed(1)} frames/s, longest frame ${rate.longest.toFixed(0)} ms, ` +
      `steps ${before.step} → ${t.step}`);
    assert.ok(t.step > before.step, 'training went on while the frames were counted');
    await click(page, 'train_pause');  // the same page paused, for comparison
    await framesUntil(page, (x) => x.done);  // the step's held-out measure too
    const idle = await frameRate(page, 3000);
    console.log(`moderate recipe, paused: ${idle.perSecond.toFixed(1)} frames/s`);
    assert.ok(keepsDrawing(rate, idle), `${rate.perSecond.toFixed(1)} frames a second (paused: ${idle.perSecond.toFixed(1)})`);
  });
});

test('the largest recipe opens paused with its estimate; Train keeps frames coming; Pause acts in a frame', { timeout: 600000 }, async () => {
  const t0 = Date.now();
  await withPage(suite.browser, `${suite.server.url}#${LARGEST}`, { width: 1440, height: 900 }, async ({ page }) => {
    console.log(`largest recipe: the first frame ${Date.now() - t0} ms after opening`);
    let t = await train(page);
    assert.equal(t.estimate.long, true);
    assert.ok(t.estimate.runSeconds > 3600, `the whole run: ${t.estimate.runSeconds} s`);
    assert.ok(t.estimate.stepSeconds > 1, `a step: ${t.estimate.stepSeconds} s`);
    assert.equal(t.target, 0, 'opened paused');
    assert.equal(t.step, 0);
    assert.match((await ui(page)).link, /&trained=0/);
    const opened = await frameRate(page, 2000);  // while the step-0 measure goes a row at a time
    console.log(`largest recipe, opened: ${opened.perSecond.toFixed(1)} frames/s, longest frame ${opened.longest.toFixed(0)} ms`);
    await framesUntil(page, (x) => x.done);
    const idle = await frameRate(page, 2000);  // the drawing alone, for comparison
    console.log(`largest recipe, paused and measured: ${idle.perSecond.toFixed(1)} frames/s, longest frame ${idle.longest.toFixed(0)} ms`);
    await reveal(page, 'train_estimate');

    await reveal(page, 'train_run');
    await click(page, 'train_run');
    await framesUntil(page, (x) => x.target === 20000 && x.inStep);
    const rate = await frameRate(page, 3000);
    t = await train(page);
    console.log(`largest recipe training: ${rate.perSecond.toFixed(1)} frames/s, longest frame ${rate.longest.toFixed(0)} ms, step ${t.step}`);
    assert.ok(keepsDrawing(rate, idle),
      `${rate.perSecond.toFixed(1)} frames a second while a step of seconds runs (paused: ${idle.perSecond.toFixed(1)})`);
    assert.ok(rate.longest < 500 * t.estimate.stepSeconds, `the longest frame, ${rate.longest.toFixed(0)} ms, is not a step's`);

    // Pause in the middle of a step: the next frame has the target at the step and no step in progress.
    await reveal(page, 'train_pause');
    // A step takes seconds: the measuring above may end just as one does. Press Pause inside the next.
    t = await framesUntil(page, (x) => x.inStep && x.target === 20000).then(() => train(page));
    assert.ok(t.inStep && t.target === 20000, 'in a step');
    const [w] = [(await ui(page)).widgets.train_pause];
    await page.mouse.move((w[0] + w[2]) / 2, (w[1] + w[3]) / 2);
    await frames(page, 2);
    await page.mouse.down();
    await frames(page, 1);
    await page.mouse.up();
    const after = await framesUntil(page, (x) => x.target === x.step && !x.inStep);
    assert.ok(after <= 2, `Pause took ${after} frames after the click`);
    t = await train(page);
    assert.equal(t.target, t.step);
  });
});
