// L11 in the page (headless Chromium): how fast its views follow the model.
// A benchmark, not a test: it prints numbers and fails nothing.
//
//   node bench/circuit_page.mjs [--size 1280x720] [--out FILE]   (after the web build: build/web/site)
//
// With L9's model trained in the page: (1) opening L11 from L9 — the time from
// the link opened (the model is ready: L9's run is kept) to the end of the first
// frame that draws L11, and of the first that draws its first claim, and the
// longest frame interval until everything is read; (2) scrubbing — the kept snapshots shown one after
// another as fast as the page follows (the next step asked for as soon as the
// card shows the last one's K-composition), as frames per second: each move is a
// change of the experiment (trained=N), so every L11 view is redrawn for it.
import fs from 'node:fs';
import { startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';
import { ui } from '../tests/web/person.mjs';

const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : null;
const sizeArg = process.argv.indexOf('--size');
const [width, height] = (sizeArg > 0 ? process.argv[sizeArg + 1] : '1280x720').split('x').map(Number);

const server = await startServer();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser, `${server.url}#v=1&view.lesson=9&trained=1500`, { width, height });
  await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done && t.step === 1500; }, null,
    { timeout: 1200000, polling: 250 });
  // Frame times in the page, from requestAnimationFrame.
  await page.evaluate(() => {
    window.benchFrames = [];
    const tick = (t) => { window.benchFrames.push(t); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  // The model is ready once L9's own measures of it are done too: ten frames in a
  // row drawn at least 25 a second (the page idle).
  await page.waitForFunction(() => {
    const f = window.benchFrames;
    if (f.length < 11) return false;
    for (let i = f.length - 10; i < f.length; i++) if (f[i] - f[i - 1] > 40) return false;
    return true;
  }, null, { timeout: 120000, polling: 100 });
  // L11 opened on the model already trained (L9's run, kept): from the call to the
  // end of the first frame that draws L11's card with its first claim's numbers.
  const t0 = await page.evaluate(() => performance.now());
  const open = await page.evaluate(() => new Promise((resolve) => {
    const start = performance.now();
    let frame = null;
    window.attn.openLink('v=1&view.lesson=11&trained=1500');
    const tick = () => {
      const u = window.attn.ui();
      if (frame === null && u.lesson === 10) frame = performance.now() - start;
      if (u.numbers.k_comp !== undefined) resolve({ frame, claim: performance.now() - start });
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
  await page.waitForFunction(() => { const n = window.attn.ui().numbers; return n.claims_done === 1 && n.snapshots_done === n.snapshots; },
    null, { timeout: 600000, polling: 250 });
  const t2 = await page.evaluate(() => performance.now());
  const worst = await page.evaluate((a) => {
    const f = window.benchFrames.filter((t) => t >= a);
    let w = 0;
    for (let i = 1; i < f.length; i++) w = Math.max(w, f[i] - f[i - 1]);
    return w;
  }, t0);
  // Scrubbing: every kept snapshot from the last back to the first.
  const kept = (await ui(page)).train.kept.map((k) => k.step).reverse();
  const e = (await page.evaluate(() => window.attn.experiment())).replace(/&trained=\d+/, '');
  // In the page, frame by frame: the next snapshot is asked for in the first frame
  // whose card shows the last one (no round trip through the test's process).
  const scrub = await page.evaluate(({ e, kept }) => new Promise((resolve) => {
    const t0 = performance.now(), f0 = window.benchFrames.length;
    let asked = -1;
    const tick = () => {
      const n = window.attn.ui().numbers;
      if (asked < 0 || (n.step === kept[asked] && n.k_comp !== undefined)) {
        if (++asked >= kept.length) {
          resolve({ ms: performance.now() - t0, frames: window.benchFrames.length - f0 });
          return;
        }
        window.attn.setExperiment(e + '&trained=' + kept[asked]);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }), { e, kept });
  const s0 = 0, s1 = scrub.ms, f0 = 0, f1 = scrub.frames;
  const row = {
    workload: 'L11 in the page (Chromium)', viewport: `${width}×${height}`,
    open_first_frame_ms: Math.round(open.frame), open_first_claim_ms: Math.round(open.claim), open_all_read_ms: Math.round(t2 - t0), open_longest_frame_ms: Math.round(worst),
    scrub_snapshots: kept.length, scrub_per_second: +(kept.length / ((s1 - s0) / 1000)).toFixed(1),
    scrub_fps: +((f1 - f0) / ((s1 - s0) / 1000)).toFixed(1),
  };
  console.log(`L11 in Chromium at ${row.viewport}: first frame ${row.open_first_frame_ms} ms after the link, the first claim ${row.open_first_claim_ms} ms, everything read in ` +
    `${row.open_all_read_ms} ms (longest frame ${row.open_longest_frame_ms} ms); scrubbing ${row.scrub_snapshots} snapshots: ` +
    `${row.scrub_per_second} snapshots/s at ${row.scrub_fps} frames/s`);
  if (out) fs.writeFileSync(out, JSON.stringify([row], null, 2) + '\n');
} finally {
  await browser.close();
  server.stop();
}
