// Nothing a person must read is cut by its window: at 1280×720, 1440×900 and a
// phone in landscape (844×390), every stage and every lesson reports zero
// clipped text items (window.attn.ui().clipped, counted by the app against each
// item's window: src/ui/view/app.cpp, item_cut). On the phone, whose page gets the
// touch layout, every named target is at least 32 CSS px each way. No map
// scrolls inside the scrolling panel. The lessons that train (L9, L10) are also
// checked trained, at three of their kept snapshots, in both languages (below).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite, keepRun, lessonRecipe } from './harness.mjs';
import { click, frames, reveal, settle, ui } from './person.mjs';

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
  return settle(page, link);
}

// Widgets that are not targets a finger presses: a map's cells (grid_*, sized by
// the map; their own cells are what is pressed) and its highlighted labels, and
// the lit line of code (a rectangle for tests to find).
const notTarget = (name) => name.startsWith('grid_') || name === 'code_lit';

// The start card (a first visit) and the help panel are read whole too; on the
// phone the heads of a stage stack one per row and keep their numbers. Then, on
// the same page, every stage and lesson.
for (const [width, height] of [[1280, 720], [1440, 900], [844, 390]]) {
  test(`${width}×${height}: the start card, the help panel and every stage and lesson: no text is cut` +
    (height < 500 ? '; one head per row, numbers shown; touch targets ≥ 32 px' : ''), async () => {
    await withPage(suite.browser, suite.server.url, { width, height, firstVisit: true }, async ({ page }) => {
      await frames(page, 3);
      let state = await ui(page);
      assert.ok(state.widgets.start_card, 'the start card is on screen');
      assert.equal(state.clipped, 0, `start card: ${JSON.stringify(state.clippedItems, null, 1)}`);
      await click(page, 'start_explore');
      await page.waitForFunction(() => !window.attn.ui().widgets.start_card);
      await click(page, 'help');
      await page.waitForFunction(() => window.attn.ui().widgets.help_table);
      await frames(page, 2);
      state = await ui(page);
      assert.equal(state.clipped, 0, `help: ${JSON.stringify(state.clippedItems, null, 1)}`);
      await click(page, 'help');  // closed again: the stages and lessons as a return visit shows them
      await page.waitForFunction(() => !window.attn.ui().widgets.help_table);
      if (height < 500) {
        state = await show(page, 'v=1&view.stage=5');
        const [h0, h1] = [state.widgets.grid_head0, state.widgets.grid_head1];
        assert.ok(h0 && h1 && h1[1] >= h0[3], `head 1 below head 0: ${JSON.stringify([h0, h1])}`);
        for (const m of state.maps) assert.equal(m.labelled, m.cells, `${m.name}: every number shown`);
      }
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
    });
  });
}

// After training, the lessons that train (L9, L10) show their claims, the claimed
// head's labelled map and every head's scores: at 1440×900, in English and 中文,
// at the first, a middle and the last kept snapshot the scrubber shows (descending:
// going back restores a snapshot, nothing retrains), nothing is cut and the panel
// does not reach past its edge sideways. Each lesson trains once.
test('1440×900: L9 and L10 trained, at the first, a middle and the last kept snapshot, EN and 中文, then L9\'s prediction at the Output stage at every size: no text is cut', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page }) => {
    for (const lesson of [9, 10]) {
      await keepRun(page, lessonRecipe(lesson === 9 ? 'induction' : 'copy_offset'));  // trained once (harness.mjs)
      let state = await show(page, 'v=1&view.lesson=' + lesson);  // at the end of its kept run
      await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done; }, null,
        { timeout: 1200000, polling: 250 });
      state = await ui(page);
      const kept = state.train.kept.map((k) => k.step);
      assert.equal(kept[kept.length - 1], state.train.steps, `L${lesson}: trained to its last kept snapshot`);
      const shown = [kept[kept.length - 1], kept[Math.floor(kept.length / 2)], kept[0]];
      for (const step of shown) {
        const e = (await page.evaluate(() => window.attn.experiment())).replace(/&trained=\d+/, '');
        assert.equal(await page.evaluate((x) => window.attn.setExperiment(x), e + '&trained=' + step), '');
        await page.waitForFunction((s) => { const t = window.attn.ui().train; return t && t.done && t.step === s; }, step,
          { timeout: 600000, polling: 250 });
        for (const language of ['en', 'zh']) {
          if ((await ui(page)).language !== language) await page.keyboard.press('l');
          await page.waitForFunction((l) => window.attn.ui().language === l, language);
          const where = `L${lesson} at step ${step}, ${language}`;
          state = await settle(page, where);
          assert.equal(state.clipped, 0, `${where}: ${JSON.stringify(state.clippedItems, null, 1)}`);
          const panel = state.windows.find((w) => w.name === state.widgetWindows.train_title);
          assert.ok(panel && panel.over[0] <= 1, `${where}: the panel reaches ${panel && panel.over[0]} px past its edge sideways`);
          if (lesson === 9 && step === kept[kept.length - 1]) {
            const map = state.maps.find((m) => m.name === 'l9_head_map');
            assert.ok(map && state.widgets.l9_head_map, `${where}: the induction head's map is in the card`);
          }
        }
      }
      if ((await ui(page)).language !== 'en') await page.keyboard.press('l');
    }
    // The Output stage of a trained model (L9's, kept: not trained again) adds its prediction and
    // logit lens under the output's map: at each size, in English and 中文, scrolled to them, nothing is cut.
    await show(page, lessonRecipe() + '&view.stage=10&view.row=8');
    await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done && t.step === 1500; }, null,
      { polling: 250 });
    for (const [width, height] of [[1280, 720], [1440, 900], [844, 390]]) {
      await page.setViewportSize({ width, height });
      for (const language of ['en', 'zh']) {
        if ((await ui(page)).language !== language) await page.keyboard.press('l');
        await page.waitForFunction((l) => window.attn.ui().language === l, language);
        await reveal(page, 'prediction');
        const where = `${width}×${height}, ${language}`;
        const state = await settle(page, where);
        assert.ok(state.prediction && state.widgets.prediction, `${where}: the prediction is shown`);
        assert.equal(state.clipped, 0, `${where}: ${JSON.stringify(state.clippedItems, null, 1)}`);
      }
    }
  });
});
