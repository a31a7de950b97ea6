// A phone in landscape (844 × 390, a touch screen): real touch events (CDP
// Input.dispatchTouchEvent), not the wheel. A swipe scrolls the panel under the
// finger and coasts on after release; a tap presses a button; a tap that opened
// a tooltip is followed by one elsewhere that closes it; two fingers pinch a
// map's cells bigger; the centre panel holds its widgets within its width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './harness.mjs';
import { frames, ui } from './person.mjs';

const suite = browserSuite();
const WIDTH = 844, HEIGHT = 390;

async function openPhone(link) {
  const context = await suite.browser.newContext({
    viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: 2, hasTouch: true, isMobile: true,
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  await page.goto(suite.server.url + link);
  await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
  await frames(page, 4);
  const cdp = await context.newCDPSession(page);
  // Fingers as [x, y] in CSS pixels; touchEnd lifts them all.
  // `at`: the event's time (seconds since 1970). A flick's moves are given the
  // times of a 60 Hz screen: this machine's frames may come seconds apart, and a
  // finger that slow would be one that stopped.
  const send = (type, points = [], at = undefined) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })), ...(at ? { timestamp: at } : {}) });
  const finger = {
    async tap(x, y) {
      await send('touchStart', [[x, y]]);
      await frames(page, 3);
      await send('touchEnd');
      await frames(page, 4);
    },
    // One finger from (x, y0) to (x, y1) in `steps` moves, a frame apart, then lifted.
    // `hold`: the finger rests before it lifts (no coasting); else it lifts while moving, a flick.
    async swipe(x, y0, y1, steps = 8, hold = false) {
      let at = Date.now() / 1000;
      await send('touchStart', [[x, y0]], at);
      await frames(page, 3);
      for (let i = 1; i <= steps; ++i) {
        await send('touchMove', [[x, y0 + (y1 - y0) * i / steps]], at += 1 / 60);
        if (i < steps || hold) await frames(page, hold && i === steps ? 10 : 1);
      }
      await send('touchEnd', [], at += hold ? 0.5 : 1 / 60);
    },
    // Two fingers about (x, y), from `from` to `to` pixels apart.
    async pinch(x, y, from, to, steps = 6) {
      await send('touchStart', [[x - from / 2, y], [x + from / 2, y]]);
      await frames(page, 2);
      for (let i = 1; i <= steps; ++i) {
        const d = from + (to - from) * i / steps;
        await send('touchMove', [[x - d / 2, y], [x + d / 2, y]]);
        await frames(page, 1);
      }
      await send('touchEnd');
      await frames(page, 4);
    },
  };
  return { page, context, problems, finger };
}

const rect = async (page, name) => (await ui(page)).widgets[name];
const centreWindow = (s) => s.windows.find((w) => /^##root\/center_/.test(w.name));

// Swipes the panel under (x, HEIGHT/2) until the widget is wholly on screen.
async function swipeTo(page, finger, name) {
  const centre = centreWindow(await ui(page));
  const x = (centre.rect[0] + centre.rect[2]) / 2;
  for (let i = 0; i < 30; ++i) {
    const r = await rect(page, name);
    assert.ok(r, name + ' is drawn');
    const drawn = r[2] > r[0];  // a map scrolled out of view reports an empty rectangle
    if (drawn && r[1] >= 0 && r[3] <= HEIGHT) return r;
    const up = !drawn || r[3] > HEIGHT;
    await finger.swipe(x, up ? HEIGHT * 0.7 : HEIGHT * 0.3, up ? HEIGHT * 0.3 : HEIGHT * 0.7, 4, true);
    // Until it has stopped coasting: no gesture under way (a tap while the panel coasts stops it
    // and presses nothing, as on a phone), and the scroll the same two frames apart.
    await page.waitForFunction(() => {
      if (window.attn.ui().touch.mode !== 0) return false;
      const a = JSON.stringify(window.attn.ui().windows.map((w) => w.scroll));
      return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() =>
        resolve(a === JSON.stringify(window.attn.ui().windows.map((w) => w.scroll))))));
    }, null, { polling: 100 });
  }
  assert.fail(name + ' could not be swiped into view');
}

test('touch: a tap opens a tooltip and a tap elsewhere closes it; a swipe scrolls the panel and coasts; a tap presses Train', async () => {
  const { page, context, problems, finger } = await openPhone('#v=1&view.lesson=9&trained=0');
  try {
    const tooltip = async () => (await ui(page)).windows.some((w) => /^##Tooltip/.test(w.name));
    // The open lesson's chip: its title as a tooltip while the finger's pointer rests there.
    const chip = await rect(page, 'lesson9');
    await finger.tap((chip[0] + chip[2]) / 2, (chip[1] + chip[3]) / 2);
    await page.waitForFunction(() => window.attn.ui().windows.some((w) => /^##Tooltip/.test(w.name)));
    const title = await rect(page, 'train_title');
    await finger.tap(WIDTH * 0.6, Math.min(title[1] - 10, HEIGHT - 20));
    await page.waitForFunction(() => !window.attn.ui().windows.some((w) => /^##Tooltip/.test(w.name)))
      .catch(() => assert.fail('the tooltip stayed open after a tap elsewhere'));
    assert.equal(await tooltip(), false);

    // A swipe up on the centre panel: the content follows the finger up, and
    // keeps going for a while after the finger lifts.
    const s0 = await ui(page);
    const centre = centreWindow(s0);
    assert.ok(centre, 'the centre panel is drawn');
    assert.equal(s0.train.target, 0, 'untrained to begin with');
    const before = s0.widgets.train_title;
    const x = (centre.rect[0] + centre.rect[2]) / 2;
    await finger.swipe(x, HEIGHT * 0.8, HEIGHT * 0.4, 8);  // 156 px up
    await frames(page, 1);
    const released = (await rect(page, 'train_title'))[1];
    assert.ok(before[1] - released >= 120, `the panel followed the finger: ${before[1]} → ${released}`);
    await frames(page, 8);
    const coasted = (await rect(page, 'train_title'))[1];
    assert.ok(coasted < released - 10, `it coasts on after release: ${released} → ${coasted}`);
    // And then it stops (ui().touch.mode 0: no gesture under way), where it stays.
    await page.waitForFunction(() => window.attn.ui().touch.mode === 0);
    const stopped = (await rect(page, 'train_title'))[1];
    await frames(page, 4);
    assert.equal((await rect(page, 'train_title'))[1], stopped, 'it stopped');
    assert.ok(stopped <= coasted, `it stopped further on: ${stopped} after ${coasted}`);

    // Train, below the fold, is reached by swiping and pressed by a tap. Once the untrained model's
    // measure is done: until then the card above Train can still change its height (on a busy
    // machine it ended after the swipe, Train moved and the tap pressed what came under it).
    await page.waitForFunction(() => window.attn.ui().train.done);
    const train = await swipeTo(page, finger, 'train_run');
    await finger.tap((train[0] + train[2]) / 2, (train[1] + train[3]) / 2);
    await page.waitForFunction(() => window.attn.ui().train.target > 0, null, { timeout: 30000 })
      .catch(async () => {
        const u = await ui(page);
        assert.fail(`a tap on Train did not start training: tapped ${train}, Train now at ${u.widgets.train_run}, ` +
          `touch ${JSON.stringify(u.touch)}, train ${JSON.stringify({ ...u.train, curve: undefined, kept: undefined })}`);
      });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('touch: two fingers pinch a map bigger; the centre panel keeps its widgets within its width', async () => {
  const { page, context, problems, finger } = await openPhone('#v=1&text=the%20cat%20sat%20on&heads=1&view.stage=5');
  try {
    const s = await ui(page);
    const centre = centreWindow(s);
    assert.ok(centre, 'the centre panel is drawn');
    // Nothing in the centre panel reaches past its right edge: no sideways scrolling.
    assert.ok(centre.over[0] <= 1, `the centre panel's content is ${centre.over[0]} px wider than the panel`);
    for (const [name, r] of Object.entries(s.widgets))
      if (s.widgetWindows[name] === centre.name) assert.ok(r[2] <= centre.rect[2] + 1, `${name} ends at ${r[2]}, past ${centre.rect[2]}`);

    const grid = await swipeTo(page, finger, 'grid_head0');
    const width = grid[2] - grid[0];
    const selected = (await ui(page)).selected;
    await finger.pinch((grid[0] + grid[2]) / 2, (grid[1] + grid[3]) / 2, 40, 120);
    await page.waitForFunction((w) => {
      const r = window.attn.ui().widgets.grid_head0;
      return r && r[2] - r[0] > w * 1.5;
    }, width).catch(async () => {
      const r = await rect(page, 'grid_head0');
      assert.fail(`the pinch did not zoom the map: ${width} → ${r[2] - r[0]} px wide`);
    });
    assert.deepEqual((await ui(page)).selected, selected, 'the pinch selected no cell');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
