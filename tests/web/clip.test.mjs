// Nothing a person must read is cut by its window: at 1280×720, 1440×900 and a
// phone in landscape (844×390), every stage and every lesson reports zero
// clipped text items (window.attn.ui().clipped, counted by the app against each
// item's window: src/ui/app.cpp, item_cut). On the phone, whose page gets the
// touch layout, every named target is at least 32 CSS px each way. No map
// scrolls inside the scrolling panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, browserSuite } from './harness.mjs';
import { click, frames, ui } from './person.mjs';

const suite = browserSuite();

// Each stage of the default experiment (stage 9, the residual, needs a block
// that has one), then each lesson as its own link opens it.
const views = [
  ...Array.from({ length: 11 }, (_, s) => ({ name: 'stage ' + s, link: 'v=1&view.stage=' + s + (s === 9 ? '&block=attn_res' : '') })),
  ...Array.from({ length: 8 }, (_, l) => ({ name: 'L' + (l + 1), link: 'v=1&view.lesson=' + (l + 1) })),
];

// Opens the link and waits until the layout has settled: two frames in a row
// draw the same widgets in the same places (a new view can take a frame or two).
async function show(page, link) {
  assert.equal(await page.evaluate((l) => window.attn.openLink(l), link), '');
  let before = '';
  for (let i = 0; i < 20; i++) {
    await frames(page, 2);
    const state = await ui(page);
    const now = JSON.stringify(state.widgets);
    if (now === before) return state;
    before = now;
  }
  assert.fail('the layout of ' + link + ' did not settle');
}

// Widgets that are not targets a finger presses: a map's cells (grid_*, sized by
// the map; their own cells are what is pressed) and its highlighted labels, and
// the lit line of code (a rectangle for tests to find).
const notTarget = (name) => name.startsWith('grid_') || name === 'code_lit';

for (const [width, height] of [[1280, 720], [1440, 900], [844, 390]]) {
  test(`${width}×${height}: no text is cut in any stage or lesson` + (height < 500 ? '; touch targets ≥ 32 px' : ''), async () => {
    const { page, context, problems } = await openPage(suite.browser, suite.server.url, { width, height });
    try {
      for (const v of views) {
        const state = await show(page, v.link);
        assert.equal(state.clipped, 0, `${v.name} at ${width}×${height}: ${JSON.stringify(state.clippedItems, null, 1)}`);
        // No scrolling area inside the scrolling panel: a map is drawn whole (the panel scrolls).
        const nested = state.windows.filter((w) => /\/m\d+_h\d+_s\d+/.test(w.name) && w.bars[1]).map((w) => w.name);
        assert.deepEqual(nested, [], `${v.name} at ${width}×${height}: maps that scroll inside the panel`);
        if (height >= 500) continue;
        // ui() rectangles are in CSS pixels (the bridge divides by devicePixelRatio).
        const small = Object.entries(state.widgets)
          .filter(([name, [x0, y0, x1, y1]]) => !notTarget(name) && (x1 - x0 < 32 || y1 - y0 < 32))
          .map(([name, [x0, y0, x1, y1]]) => `${name} ${(x1 - x0).toFixed(0)}×${(y1 - y0).toFixed(0)}`);
        assert.deepEqual(small, [], `${v.name}: targets under 32 px`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

// The start card (a first visit) and the help panel are read whole too; on the
// phone the heads of a stage stack one per row and keep their numbers.
for (const [width, height] of [[1280, 720], [1440, 900], [844, 390]]) {
  test(`${width}×${height}: the start card and the help panel are not cut` + (height < 500 ? '; one head per row, numbers shown' : ''), async () => {
    const { page, context, problems } = await openPage(suite.browser, suite.server.url, { width, height, firstVisit: true });
    try {
      await frames(page, 3);
      let state = await ui(page);
      assert.ok(state.widgets.start_card, 'the start card is on screen');
      assert.equal(state.clipped, 0, `start card: ${JSON.stringify(state.clippedItems, null, 1)}`);
      await click(page, 'start_explore');
      await page.waitForFunction(() => !window.attn.ui().widgets.start_card, null, { timeout: 10000 });
      await click(page, 'help');
      await page.waitForFunction(() => window.attn.ui().widgets.help_table, null, { timeout: 10000 });
      await frames(page, 2);
      state = await ui(page);
      assert.equal(state.clipped, 0, `help: ${JSON.stringify(state.clippedItems, null, 1)}`);
      if (height < 500) {
        state = await show(page, 'v=1&view.stage=5');
        const [h0, h1] = [state.widgets.grid_head0, state.widgets.grid_head1];
        assert.ok(h0 && h1 && h1[1] >= h0[3], `head 1 below head 0: ${JSON.stringify([h0, h1])}`);
        for (const m of state.maps) assert.equal(m.labelled, m.cells, `${m.name}: every number shown`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
