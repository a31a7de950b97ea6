// Training in the page: L9's recipe trained by the playground's own loop (a
// slice of steps per frame) in headless Chromium, as a person's link would.
// A benchmark, not a test: it prints numbers and fails nothing.
//
//   node bench/train_page.mjs [--size 1440x900,844x390] [--out FILE]   (after the web build: build/web/site)
//
// Reports, at each of three viewports (a desktop, a laptop, a phone in
// landscape): the frames per second of the same page idle for 3 s (what the
// drawing alone allows here), then over the whole training run: frames per
// second with the median and p90 frame interval, the wall time until the
// held-out accuracy first reaches 0.9 (the time to learn) and until the last
// step, steps per second (bench/lib/train_page.mjs).
import fs from 'node:fs';
import { root, startServer, launchBrowser } from '../tests/web/harness.mjs';
import { lessonRecipe, trainInPage } from './lib/train_page.mjs';

const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : null;
const sizeArg = process.argv.indexOf('--size');
const sizes = (sizeArg > 0 ? process.argv[sizeArg + 1] : '1440x900,1280x720,844x390').split(',')
  .map((s) => s.split('x').map(Number));

const server = await startServer();
const browser = await launchBrowser();
try {
  const rows = [];
  for (const size of sizes) {
    const r = { workload: 'L9 recipe trained in the page (Chromium)', ...await trainInPage(browser, server.url, lessonRecipe(root), size) };
    rows.push(r);
    console.log(`L9 recipe in Chromium at ${r.viewport}, ${r.build} build on ${r.threads} thread(s)${r.apart ? ' beside the drawing' : ''} ` +
      `(idle ${r.idle_fps} frames/s): ${r.steps} steps in ` +
      `${(r.total_ms / 1000).toFixed(1)} s (${r.steps_per_second} steps/s) at ${r.fps} frames/s ` +
      `(frame median ${r.frame_median_ms} ms, p90 ${r.frame_p90_ms} ms); held-out accuracy ≥ 0.9 first at step ` +
      `${r.learned_step}, ${r.learned_ms === null ? '—' : (r.learned_ms / 1000).toFixed(1) + ' s'}`);
  }
  if (out) fs.writeFileSync(out, JSON.stringify(rows, null, 2) + '\n');
} finally {
  await browser.close();
  server.stop();
}
