// Training in the page: L9's recipe trained by the playground's own loop (a
// slice of steps per frame) in headless Chromium, as a person's link would.
// A benchmark, not a test: it prints numbers and fails nothing.
//
//   node bench/train_page.mjs [--size 1440x900,844x390] [--out FILE]   (after the web build: build/web/site)
//
// Reports, at each of three viewports (a desktop, a laptop, a phone in
// landscape): the frames per second of the same page idle for 3 s (what the
// drawing alone allows here), then over the whole training run: frames per
// second (rAF count over wall time) with the median and p90 frame interval;
// the wall time until the held-out accuracy (measured at each kept snapshot)
// first reaches 0.9 — the time to learn — and until the last step; steps per
// second.
import fs from 'node:fs';
import path from 'node:path';
import { root, startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';

const recipe = fs.readFileSync(path.join(root, 'src', 'core', 'recipe.hpp'), 'utf8')
  .match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : null;
const sizeArg = process.argv.indexOf('--size');
const sizes = (sizeArg > 0 ? process.argv[sizeArg + 1] : '1440x900,1280x720,844x390').split(',')
  .map((s) => s.split('x').map(Number));

const idleFps = (page) => page.evaluate(() => new Promise((resolve) => {
  const t0 = performance.now();
  let frames = 0;
  const tick = (t) => (t - t0 >= 3000 ? resolve(frames / ((t - t0) / 1000)) : (frames++, requestAnimationFrame(tick)));
  requestAnimationFrame(tick);
}));

async function measure(browser, server, [width, height]) {
  // Opened untrained, then trained from a clean start (no compile or load in the timing).
  const { page, context } = await openPage(browser, `${server.url}#${recipe}&trained=0`, { width, height });
  try {
    const idle = await idleFps(page);
    const result = await page.evaluate((recipe) => new Promise((resolve) => {
      const intervals = [];
      let last = performance.now(), learned = null, frames = 0, lastRead = -1e9;
      const t0 = last;
      window.attn.setExperiment(recipe);  // all its steps: the trainer starts on the next frame
      const tick = (t) => {
        intervals.push(t - last);
        last = t;
        frames++;
        const now = performance.now() - t0;
        // ui() builds the whole page state: read it every 100 ms, not every frame.
        if (now - lastRead < 100) { requestAnimationFrame(tick); return; }
        lastRead = now;
        const u = window.attn.ui().train;
        if (learned === null && u.kept.some((k) => k.heldOutAccuracy >= 0.9)) {
          const k = u.kept.find((m) => m.heldOutAccuracy >= 0.9);
          learned = { ms: now, step: k.step };
        }
        if (u.done) resolve({ ms: now, steps: u.step, frames, intervals, learned, hash: u.hash, accuracy: u.heldOutAccuracy });
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }), recipe);
    const s = [...result.intervals].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return {
      workload: 'L9 recipe trained in the page (Chromium)',
      viewport: `${width}x${height}`,
      idle_fps: +idle.toFixed(1),
      steps: result.steps,
      total_ms: Math.round(result.ms),
      steps_per_second: +(result.steps / (result.ms / 1000)).toFixed(1),
      fps: +(result.frames / (result.ms / 1000)).toFixed(1),
      frame_median_ms: +q(0.5).toFixed(1),
      frame_p90_ms: +q(0.9).toFixed(1),
      learned_ms: result.learned ? Math.round(result.learned.ms) : null,
      learned_step: result.learned ? result.learned.step : null,
      held_out_accuracy: result.accuracy,
      hash: result.hash,
    };
  } finally {
    await context.close();
  }
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const rows = [];
  for (const size of sizes) {
    const r = await measure(browser, server, size);
    rows.push(r);
    console.log(`L9 recipe in Chromium at ${r.viewport} (idle ${r.idle_fps} frames/s): ${r.steps} steps in ` +
      `${(r.total_ms / 1000).toFixed(1)} s (${r.steps_per_second} steps/s) at ${r.fps} frames/s ` +
      `(frame median ${r.frame_median_ms} ms, p90 ${r.frame_p90_ms} ms); held-out accuracy ≥ 0.9 first at step ` +
      `${r.learned_step}, ${r.learned_ms === null ? '—' : (r.learned_ms / 1000).toFixed(1) + ' s'}`);
  }
  if (out) fs.writeFileSync(out, JSON.stringify(rows, null, 2) + '\n');
} finally {
  await browser.close();
  server.stop();
}
