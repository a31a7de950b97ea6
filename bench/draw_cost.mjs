// What a drawn frame costs each of Chromium's processes (headless, WebGL2
// through SwiftShader, as the tests and bench/train_page.mjs run it): the CPU
// time of the GPU process, the page's renderer and the rest over 3 s, divided
// by the frames drawn then. Beside the page, a canvas that only clears itself
// every frame: what Chromium's compositing costs before the page draws anything.
// A benchmark, not a test: it prints numbers and fails nothing. Linux only (/proc,
// 100 clock ticks a second); it counts every process named like Chromium, so run
// no other Chromium meanwhile.
//
//   node bench/draw_cost.mjs [--size 640x360,1280x720,1920x1080]   (after the web build)
//
// Why it matters: on a machine without a GPU the drawing shares the cores with
// training (T3, docs/benchmarks.md "What the drawing costs").
import fs from 'node:fs';
import { root, startServer, launchBrowser } from '../tests/web/harness.mjs';
import { lessonRecipe } from './lib/train_page.mjs';

const sizeArg = process.argv.indexOf('--size');
const sizes = (sizeArg > 0 ? process.argv[sizeArg + 1] : '640x360,1280x720,1920x1080').split(',')
  .map((s) => s.split('x').map(Number));

// CPU ms so far of every Chromium process, summed by its --type (the browser's own has none).
function cpuByType() {
  const sums = {};
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chrom/.test(cmd)) continue;
      const type = (cmd.match(/--type=([a-z-]+)/) || [null, 'browser'])[1];
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      sums[type] = (sums[type] || 0) + (Number(fields[11]) + Number(fields[12])) * 10;  // utime + stime, in 10 ms ticks
    } catch (e) { /* gone meanwhile */ }
  }
  return sums;
}

// Frames drawn in 3 s (counted by requestAnimationFrame: both pages draw on every one) and the
// CPU they took, after 2 s to settle (the page's fonts and first measures).
async function measure(page) {
  await page.waitForTimeout(2000);
  const before = cpuByType();
  const { frames, ms } = await page.evaluate(() => new Promise((resolve) => {
    const t0 = performance.now();
    let frames = 0;
    const tick = (t) => (t - t0 >= 3000 ? resolve({ frames, ms: t - t0 }) : (frames++, requestAnimationFrame(tick)));
    requestAnimationFrame(tick);
  }));
  const after = cpuByType();
  const per = {};
  for (const k of Object.keys(after)) per[k] = (after[k] - (before[k] || 0)) / frames;
  return { fps: frames / (ms / 1000), gpu: per['gpu-process'] || 0, renderer: per.renderer || 0,
    other: Object.entries(per).filter(([k]) => k !== 'gpu-process' && k !== 'renderer').reduce((s, [, v]) => s + v, 0) };
}

const clearOnly = `<canvas id=c style="position:fixed;inset:0;width:100vw;height:100vh"></canvas><script>
  const c = document.getElementById('c'); c.width = innerWidth; c.height = innerHeight;
  const gl = c.getContext('webgl2', { alpha: true, depth: true, stencil: true, antialias: false });
  let k = 0;
  const f = () => { gl.clearColor((k++ % 60) / 60, 0.2, 0.3, 1); gl.clear(gl.COLOR_BUFFER_BIT); requestAnimationFrame(f); };
  requestAnimationFrame(f);
</script>`;

const server = await startServer();
const browser = await launchBrowser();
const show = (name, size, r) => console.log(`${name} at ${size[0]}x${size[1]}: ${r.fps.toFixed(1)} frames/s; CPU per frame: ` +
  `GPU process ${r.gpu.toFixed(1)} ms, renderer ${r.renderer.toFixed(1)} ms, the rest ${r.other.toFixed(1)} ms`);
try {
  for (const size of sizes) {
    const context = await browser.newContext({ viewport: { width: size[0], height: size[1] }, colorScheme: 'dark' });
    await context.addInitScript(() => {
      try { window.localStorage.setItem('attn.start', 'seen'); } catch (e) { /* storage disabled */ }
    });
    const blank = await context.newPage();
    await blank.setContent(clearOnly);
    show('a canvas cleared each frame', size, await measure(blank));
    await blank.close();
    const page = await context.newPage();
    await page.goto(`${server.url}#${lessonRecipe(root)}&trained=0`);
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn, null, { timeout: 60000 });
    show('L9, untrained, idle', size, await measure(page));
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
