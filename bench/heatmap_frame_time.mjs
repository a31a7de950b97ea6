// Frame time of the page with a 1024×1024 attention matrix on screen (headless
// Chromium, WebGL2 through SwiftShader: a CPU rasteriser, so slower than any GPU).
// A benchmark, not a test: it prints numbers and fails nothing.
//
//   node bench/heatmap_frame_time.mjs            (after the web build)
//
// For each state it reports requestAnimationFrame deltas over 2 s (median, p90,
// max) and how long the app's own frame (C++ + GL calls) takes, via the JS
// profile of the page's main loop.
import { startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';

const words = Array.from({ length: 1024 }, (_, i) => 't' + (i % 100)).join('%20');
const states = {
  'default (5 tokens)': 'v=1',
  '1024 tokens, 1 head': `v=1&text=${words}&d_model=8&heads=1&mask=none`,
  '1024 tokens, 1 head, causal': `v=1&text=${words}&d_model=8&heads=1&mask=causal`,
};

async function rafDeltas(page, ms) {
  return page.evaluate((ms) => new Promise((resolve) => {
    const d = [];
    let last = performance.now();
    const t0 = last;
    const step = (t) => {
      d.push(t - last);
      last = t;
      if (t - t0 < ms) requestAnimationFrame(step);
      else resolve(d);
    };
    requestAnimationFrame(step);
  }), ms);
}

const stats = (d) => {
  const s = [...d].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `frames ${d.length}, median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms`;
};

const server = await startServer();
const browser = await launchBrowser();
try {
  for (const [name, hash] of Object.entries(states)) {
    const { page, context } = await openPage(browser, server.url + '#' + hash);
    await page.mouse.move(640, 360);  // hover a cell: the highlight follows the pointer every frame
    await page.waitForTimeout(500);
    // Time spent inside the app's frame callback (wasm + WebGL calls), per frame.
    await page.evaluate(() => {
      window.__frameMs = [];
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (cb) => raf((t) => {
        const s = performance.now();
        cb(t);
        window.__frameMs.push(performance.now() - s);
      });
    });
    await page.waitForTimeout(300);
    const d = await rafDeltas(page, 2000);
    const inner = await page.evaluate(() => window.__frameMs.slice(2));
    console.log(`${name}: rAF ${stats(d)}; app frame callback median ${stats(inner).split('median ')[1]}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
