// The page's two builds: served with COOP/COEP (serve.py's default) the page is
// cross-origin isolated, web/app.js loads the threaded build (attn-mt.*) and
// training runs on every core (at most 8); served without them it loads the
// single-threaded attn.*. Both train the induction lesson to the weights Node
// records (tests/core/test_train_learning.cpp), bit for bit: the threaded one
// beside the drawing (the steps on a thread of their own, training.hpp), the
// other in the drawing's frames.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, openPage, withPage, appShown, startServer, launchBrowser, lessonRecipe } from './harness.mjs';
import { frames, ui } from './person.mjs';

let isolated, plain, browser;
before(async () => {
  [isolated, plain] = await Promise.all([startServer(), startServer(['--no-isolation'])]);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  isolated?.stop();
  plain?.stop();
});

function recordedHashes() {
  const src = fs.readFileSync(path.join(root, 'tests', 'core', 'test_train_learning.cpp'), 'utf8');
  return { step20: src.match(/recorded_hash_step20 = "([0-9a-f]{16})"/)[1], step120: src.match(/recorded_hash_step120 = "([0-9a-f]{16})"/)[1] };
}

// Opens the lesson's recipe untrained, then asks for step 120 and trains it in
// the page, frame by frame, watched from its first frame; returns what the page reports, the app files it fetched and the frames drawn.
async function trainInPage(server) {
  const { page, problems } = await openPage(browser, `${server.url}#${lessonRecipe()}&trained=0`);
  const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()));
  const start = await page.evaluate(() => { window.__drawn = 0; const tick = () => { window.__drawn++; requestAnimationFrame(tick); }; requestAnimationFrame(tick); return 0; });
  assert.equal(await page.evaluate((r) => window.attn.setExperiment(r + '&trained=120'), lessonRecipe()), '');
  let t, besideFrames = 0, measuredBeside = 0;
  for (let i = 0; i < 20000; i++) {
    t = (await ui(page)).train;
    assert.equal(t.error, '');
    if (t.done) break;
    besideFrames += t.inStep ? 1 : 0;  // a frame drawn with steps under way (apart: beside it)
    // The held-out figures while it trains: the latest snapshot's, never a 0 for a measure not taken.
    if (t.marks > 0) {
      assert.ok(t.heldOutLoss > 0 && t.heldOutAccuracy !== null, `step ${t.step}: held-out ${t.heldOutLoss}, ${t.heldOutAccuracy}`);
      measuredBeside += t.inStep && t.step > 0 ? 1 : 0;
    } else {
      assert.equal(t.heldOutLoss, null, 'no measure yet: no number');
    }
    await frames(page, 1);
  }
  const drawn = (await page.evaluate(() => window.__drawn)) - start;
  const threads = (await ui(page)).threads;  // the page's own, with or without a recipe
  const shell = await page.evaluate(() => ({ build: window.attnShell.build, isolated: self.crossOriginIsolated, cores: navigator.hardwareConcurrency }));
  const hash20 = await page.evaluate((r) => window.attn.trainHash(r, 20), lessonRecipe());
  return { page, problems, t, fetched, drawn, shell, hash20, threads, besideFrames, measuredBeside };
}

test('isolated: the threaded build trains on every core to the weights Node records; the page draws meanwhile', async () => {
  const r = await trainInPage(isolated);
  assert.equal(r.shell.isolated, true, 'serve.py sends COOP and COEP');
  assert.equal(r.shell.build, 'threads');
  assert.ok(r.fetched.includes('attn-mt.wasm') && !r.fetched.includes('attn.wasm'), `one build downloaded: ${r.fetched.join(' ')}`);
  assert.equal(r.threads, Math.min(8, r.shell.cores), 'the page uses every core (at most 8)');
  assert.ok(r.threads >= 2, 'this machine has two cores');
  assert.equal(r.t.threads, r.threads - 1, 'the steps run on every core but the drawing\'s');
  assert.equal(r.t.apart, true, 'the steps run beside the drawing');
  assert.equal(r.t.step, 120);
  assert.equal(r.t.hash, recordedHashes().step120, 'the same bits as one thread under Node');
  assert.equal(r.hash20, recordedHashes().step20);
  console.log(`threaded: ${r.drawn} frames drawn while training, ${r.besideFrames} read with steps under way beside them, ` +
    `${r.measuredBeside} of them with held-out figures`);
  assert.ok(r.drawn >= 3, `${r.drawn} frames drawn while training`);
  assert.ok(r.besideFrames >= 1, `${r.besideFrames} frames drawn while the steps went on beside them`);
  assert.ok(r.measuredBeside >= 1, `${r.measuredBeside} frames read the held-out figures with steps under way`);
  assert.deepEqual(r.problems, []);
  await r.page.close();
});

test('not isolated: the single-threaded build, one thread, the same weights', async () => {
  const r = await trainInPage(plain);
  assert.equal(r.shell.isolated, false);
  assert.equal(r.shell.build, 'single');
  assert.ok(r.fetched.includes('attn.wasm') && !r.fetched.includes('attn-mt.wasm'), `one build downloaded: ${r.fetched.join(' ')}`);
  assert.equal(r.t.threads, 1);
  assert.equal(r.t.apart, false, 'in the frames');
  assert.equal(r.threads, 1);
  assert.equal(r.t.hash, recordedHashes().step120);
  assert.equal(r.hash20, recordedHashes().step20);
  assert.deepEqual(r.problems, []);
  await r.page.close();
});

// Two ways the threaded build fails before main(): its wasm missing on the host,
// the 404 coming once attn-mt.js has run (the harder order: its script already
// reads the global Module when the shell gives it up); its script throwing where
// it runs (a shared memory the browser refuses to make, as on a small phone).
const failures = {
  'its wasm missing on the host': {
    expect: /attn-mt\.wasm: HTTP 404/,
    prepare: (p) => {
      const ran = new Promise((resolve) => p.on('requestfinished', (r) => { if (r.url().endsWith('/attn-mt.js')) resolve(); }));
      return p.route('**/attn-mt.wasm', async (route) => {
        await ran;
        await p.waitForFunction(() => typeof PThread !== 'undefined');
        await route.fulfill({ status: 404, body: 'not here' });
      });
    },
  },
  'its script refused a shared memory': {
    expect: /could not allocate memory/,
    prepare: (p) => p.route('**/attn-mt.js', (route) => route.fulfill({
      status: 200, contentType: 'text/javascript', body: 'throw new RangeError("WebAssembly.Memory(): could not allocate memory");',
    })),
  },
};
for (const [how, { expect, prepare }] of Object.entries(failures)) {
  test(`isolated, but the threaded build cannot start (${how}): the single-threaded one runs instead`, async () => {
    const { page, problems, context } = await openPage(browser, `${isolated.url}#${lessonRecipe()}&trained=20`, { prepare });
    try {
      const shell = await page.evaluate(() => ({ build: window.attnShell.build, fallback: window.attnShell.fallback, isolated: self.crossOriginIsolated }));
      assert.equal(shell.isolated, true);
      assert.equal(shell.build, 'single');
      assert.match(shell.fallback, expect);
      let t;
      for (let i = 0; i < 20000; i++) {
        t = (await ui(page)).train;
        if (t.done) break;
        await frames(page, 1);
      }
      assert.equal(t.threads, 1);
      assert.equal(t.apart, false);
      assert.equal(t.hash, recordedHashes().step20);
      assert.deepEqual(problems.filter((x) => !/404|could not allocate memory/.test(x)), [], 'nothing wrong but the failure made');
    } finally {
      await context.close();
    }
  });
}

test('a host without COOP/COEP: the first load runs single-threaded; the service worker adds them, and the next load runs threaded', async () => {
  await withPage(browser, `${plain.url}#${lessonRecipe()}&trained=20`, { serviceWorkers: 'allow' }, async ({ page }) => {
    let shell = await page.evaluate(() => ({ build: window.attnShell.build, isolated: self.crossOriginIsolated }));
    assert.deepEqual(shell, { build: 'single', isolated: false }, 'the first load is not the worker\'s');
    await page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller);
    await page.reload();
    await appShown(page);
    shell = await page.evaluate(() => ({ build: window.attnShell.build, isolated: self.crossOriginIsolated }));
    assert.deepEqual(shell, { build: 'threads', isolated: true }, 'the worker\'s headers isolate the page');
    let t;
    for (let i = 0; i < 20000; i++) {
      t = (await ui(page)).train;
      if (t.done) break;
      await frames(page, 1);
    }
    assert.equal(t.apart, true);
    assert.equal(t.threads, (await ui(page)).threads - 1);
    assert.equal(t.hash, recordedHashes().step20);
  });
});

// A worker ended under the page (as a browser may end one): the training job's
// thread is the running worker started last (the pool's helpers start with the
// page's first traced pass, the job at each launch). The page's thread must
// not wait on it for good: it gives the job up (background_job::stop's
// patience, 5 s), stops training and says why, and goes on drawing.
test('isolated: a training worker ended while L9 trains stops the job with a message; the page goes on', async () => {
  await withPage(browser, `${isolated.url}#${lessonRecipe()}&trained=0`, async ({ page, problems }) => {
    assert.equal(await page.evaluate(() => window.attnShell.build), 'threads');
    assert.equal(await page.evaluate((r) => window.attn.setExperiment(r + '&trained=120'), lessonRecipe()), '');
    let killed = false;
    for (let i = 0; i < 2000 && !killed; i++) {
      // In one turn of the page's thread: the job is out (inStep, apart), so its worker is the last running.
      const r = await page.evaluate(() => {
        const t = window.attn.ui().train, running = PThread.runningWorkers;
        if (t.done || !t.inStep || !t.apart || running.length < 1) return { done: t.done, killed: false };
        running[running.length - 1].terminate();
        return { done: t.done, killed: true };
      });
      assert.ok(!r.done, 'the job is ended while it trains');
      killed = r.killed;
      if (!killed) await frames(page, 1);
    }
    assert.ok(killed, 'a training worker was running');
    let t;
    for (let i = 0; i < 2000; i++) {  // each frame waits at most the patience
      t = (await ui(page)).train;
      if (t.error) break;
      await frames(page, 1);
    }
    assert.match(t.error, /^training stopped at step \d+: a worker thread stopped answering \(a browser may end one\)\. Reload the page to train again\.$/);
    assert.equal(t.stopped, true);
    assert.equal(t.done, false);
    const step = t.step;
    await frames(page, 3);  // the page draws on, and training stays stopped
    t = (await ui(page)).train;
    assert.equal(t.step, step);
    assert.equal(t.inStep, false);
  });
});
