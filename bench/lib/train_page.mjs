// Training in the page: the L9 recipe trained by the playground's own loop in
// headless Chromium, as a person's link would (the threaded build, served
// isolated: the steps beside the drawing; else a slice of steps per frame). Used
// by bench/train_page.mjs (three viewports, to the last step) and by
// bench/run.mjs (T3: until the held-out accuracy first reaches 0.9).
import fs from 'node:fs';
import path from 'node:path';

export function lessonRecipe(root) {
  return fs.readFileSync(path.join(root, 'src', 'core', 'spec', 'recipe.hpp'), 'utf8')
    .match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
}

const idleFps = (page) => page.evaluate(() => new Promise((resolve) => {
  const t0 = performance.now();
  let frames = 0;
  const tick = (t) => (t - t0 >= 3000 ? resolve(frames / ((t - t0) / 1000)) : (frames++, requestAnimationFrame(tick)));
  requestAnimationFrame(tick);
}));

// Opens the site untrained at `width`×`height` (a return visit: no start card),
// then trains from a clean start (no compile or load in the timing): frames per
// second (rAF count over wall time) with the median and p90 frame interval, the
// wall time until the held-out accuracy (measured at each kept snapshot) first
// reaches 0.9, steps per second. `idle`: first the page's own frame rate over
// 3 s without training. `untilLearned`: stop there, not at the last step.
export async function trainInPage(browser, siteUrl, recipe, [width, height], { idle = true, untilLearned = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: 'dark' });
  try {
    await context.addInitScript(() => {
      try { window.localStorage.setItem('attn.start', 'seen'); } catch (e) { /* storage disabled */ }
    });
    const page = await context.newPage();
    await page.goto(`${siteUrl}#${recipe}&trained=0`);
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn, null, { timeout: 60000 });
    const idleRate = idle ? await idleFps(page) : null;
    const result = await page.evaluate(([recipe, untilLearned]) => new Promise((resolve) => {
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
        if (u.done || (untilLearned && learned)) {
          resolve({ ms: now, steps: u.step, frames, intervals, learned, hash: u.hash, accuracy: u.heldOutAccuracy });
        } else {
          requestAnimationFrame(tick);
        }
      };
      requestAnimationFrame(tick);
    }), [recipe, untilLearned]);
    const runsOn = await page.evaluate(() => ({ build: window.attnShell.build, threads: window.attn.ui().train.threads,
      apart: window.attn.ui().train.apart }));
    const s = [...result.intervals].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return {
      viewport: `${width}x${height}`,
      build: runsOn.build,
      threads: runsOn.threads,
      apart: runsOn.apart,
      idle_fps: idleRate === null ? null : +idleRate.toFixed(1),
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
