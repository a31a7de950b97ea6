// Training in the page: L9's recipe trained by the playground's own loop (a
// slice of steps per frame) in headless Chromium, as a person's link would.
// A benchmark, not a test: it prints numbers and fails nothing.
//
//   node bench/train_page.mjs [--out FILE]     (after the web build: build/web/site)
//
// Reports, over the whole run: frames per second while training (rAF count over
// wall time) with the median and p90 frame interval; the wall time until the
// held-out accuracy (measured at each kept snapshot) first reaches 0.9 — the
// time to learn — and until the last step; steps per second.
import fs from 'node:fs';
import path from 'node:path';
import { root, startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';

const recipe = fs.readFileSync(path.join(root, 'src', 'core', 'recipe.hpp'), 'utf8')
  .match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : null;

const server = await startServer();
const browser = await launchBrowser();
try {
  // Opened untrained, then trained from a clean start (no compile or load in the timing).
  const { page } = await openPage(browser, `${server.url}#${recipe}&trained=0`, { width: 1440, height: 900 });
  const result = await page.evaluate((recipe) => new Promise((resolve) => {
    const intervals = [];
    let last = performance.now(), learned = null, frames = 0;
    const t0 = last;
    window.attn.setExperiment(recipe);  // all its steps: the trainer starts on the next frame
    const tick = (t) => {
      intervals.push(t - last);
      last = t;
      frames++;
      const now = performance.now() - t0;
      // ui() builds the whole page state: read it every 100 ms, not every frame.
      if (now - (window.__lastRead || -1e9) < 100) { requestAnimationFrame(tick); return; }
      window.__lastRead = now;
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
  const summary = {
    workload: 'L9 recipe trained in the page (Chromium)',
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
  console.log(`L9 recipe in Chromium: ${summary.steps} steps in ${(summary.total_ms / 1000).toFixed(1)} s ` +
    `(${summary.steps_per_second} steps/s) at ${summary.fps} frames/s (frame median ${summary.frame_median_ms} ms, ` +
    `p90 ${summary.frame_p90_ms} ms); held-out accuracy ≥ 0.9 first at step ${summary.learned_step}, ` +
    `${summary.learned_ms === null ? '—' : (summary.learned_ms / 1000).toFixed(1) + ' s'}`);
  if (out) fs.writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
} finally {
  await browser.close();
  server.stop();
}
