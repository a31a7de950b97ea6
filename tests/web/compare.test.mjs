// The A/B compare, as a person uses it: pin the experiment as A, change
// something, and the stage shows A, B and B − A with the difference in numbers;
// the pinned A travels in the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, withPage, browserSuite } from './harness.mjs';
import { frames, ui, trace, click, reveal, gotoStage, hoverCell, tooltipValue, STAGE, num, settle, until } from './person.mjs';

const suite = browserSuite();


test('pin, change nothing: B − A is exactly 0; change the scale: it is not; the link keeps the pin', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page, context, problems }) => {
    await gotoStage(page, STAGE.weights);
    let u = await ui(page);
    assert.equal(u.compare.pinned, false);
    assert.equal(u.compare.maxAbs, null);
    await click(page, 'pin');
    u = await until(page, (x) => x.compare.pinned, 'the pin');
    assert.equal(u.compare.maxAbs, 0, 'an unchanged experiment differs from A by exactly 0');
    assert.equal(u.compare.reason, '');
    assert.ok(u.widgets.unpin && u.widgets.compare, 'Unpin and Compare are offered');

    await click(page, 'compare');
    u = await until(page, (x) => x.compare.shown, 'the compare view');
    for (const name of ['cmp_a0', 'cmp_b0', 'cmp_d0'])
      assert.ok(u.widgets[name], `the compare view draws ${name}`);

    await click(page, 'scale');
    await click(page, 'scale_1');  // none
    u = await until(page, (x) => x.compare.maxAbs > 0, 'B − A of a scale change');
    assert.equal(u.stage, STAGE.weights);
    assert.ok(u.compare.pinned);
    const maxAbs = u.compare.maxAbs;
    // Hovering a cell of A, B and B − A gives its value: B's is the trace's, and B − A is their difference.
    const t = await trace(page);
    const w = t.layers[0].heads[0].weights;
    const [n] = w.shape;
    const r = n - 1, c = 0;
    const hovered = {};
    for (const k of ['a', 'b', 'd']) {
      const text = await hoverCell(page, `cmp_${k}0`, r, c, n, n);
      assert.match(text, new RegExp(`^row ${r} \\(${t.tokens[r]}\\)   column ${c} \\(${t.tokens[c]}\\)   value `), text);
      hovered[k] = tooltipValue(text);
    }
    assert.ok(Math.abs(hovered.b - num(w.data[r * n + c])) <= 0.006, `B's cell: ${hovered.b} vs ${w.data[r * n + c]}`);
    assert.ok(Math.abs(hovered.d - (hovered.b - hovered.a)) <= 0.012, `B − A: ${hovered.d} vs ${hovered.b} − ${hovered.a}`);
    await page.waitForFunction(() => location.hash.includes('pin=') && location.hash.includes('scale=none'), null);
    const hash = await page.evaluate(() => location.hash.slice(1));

    const other = await openPage(suite.browser, suite.server.url + '#' + hash, { width: 1440, height: 900 });
    try {
      await gotoStage(other.page, STAGE.weights);
      const v = await until(other.page, (x) => x.compare.pinned, 'the pin after a reload');
      assert.equal(v.compare.maxAbs, maxAbs, 'the same A, the same difference');
      assert.deepEqual(other.problems, []);
    } finally {
      await other.context.close();
    }

    await click(page, 'unpin');
    u = await until(page, (x) => !x.compare.pinned, 'unpinning');
    assert.equal(u.compare.maxAbs, null);
  });
});

test('A and B of different shapes: no numbers, a reason in words', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page }) => {
    await gotoStage(page, STAGE.weights);
    await click(page, 'pin');
    await until(page, (x) => x.compare.pinned, 'the pin');
    const hash = (await ui(page)).link;
    const pin = hash.match(/&pin=[^&]*/)[0];
    assert.equal(await page.evaluate((l) => window.attn.openLink(l), 'v=1&text=a%20b%20c' + pin), '');
    const u = await until(page, (x) => x.compare.reason !== '', 'the reason');
    assert.equal(u.compare.maxAbs, null);
    assert.match(u.compare.reason, /A has \d+ tokens, B has 3: compare needs the same shape/);
  });
});

// Patch from A: pin, zero head 1, tick the compare and "patch from A": the map
// says head 1 carries all of B's change from A and head 0 none, in ui() (the
// map drawn, compare.patch's numbers) and in the text view's table; a B of
// another shape gets a sentence instead.
test('patch from A: the zeroed head explains B\'s whole change, in the map and the text view', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page }) => {
    await gotoStage(page, STAGE.weights);
    await click(page, 'pin');
    await until(page, (x) => x.compare.pinned, 'the pin');
    await click(page, 'zero_head1');
    await until(page, (x) => x.link.includes('ablate=0.1'), 'head 1 zeroed');
    await click(page, 'compare');
    let u = await until(page, (x) => x.compare.shown && x.widgets.compare_patch, 'the compare view and its patch switch');
    assert.equal(u.compare.patch, null, 'nothing computed before it is asked for');
    await click(page, 'compare_patch');
    u = await until(page, (x) => x.compare.patch && x.compare.patch.total > 0 && x.compare.patch.done === x.compare.patch.total &&
      x.maps.some((m) => m.name === 'compare_patch_map'), 'the patch map');
    const { explained, problem } = u.compare.patch;
    assert.equal(problem, '');
    assert.equal(explained.length, 2, 'one number per head');
    assert.ok(Math.abs(explained[1] - 1) < 1e-5, `head 1 explains all of it: ${explained[1]}`);
    assert.ok(Math.abs(explained[0]) < 1e-5, `head 0 explains nothing: ${explained[0]}`);
    const n = (await trace(page)).tokens.length;
    const map = u.maps.find((m) => m.name === 'compare_patch_map');
    assert.equal(map.cells, 2 * (1 + n), 'every head, at all positions and at each');
    assert.ok(map.labelled === map.cells || map.labelled === 0, 'its numbers drawn all or none');
    assert.ok(u.widgets.compare_patch_map, 'the map has its rectangle');

    const doc = await page.evaluate(() => window.attn.textView());
    const table = doc.tables.find((t) => t.caption.startsWith('Patch from A'));
    assert.ok(table, 'the text view lists the map');
    assert.deepEqual(table.rows, ['L0H0', 'L0H1']);
    assert.equal(table.cols[0], 'all');
    assert.equal(table.cols.length, 1 + n);
    assert.ok(Math.abs(Number(table.cells[1][0]) - 1) < 0.01, `head 1, all positions: ${table.cells[1][0]}`);
    assert.ok(Math.abs(Number(table.cells[0][0])) < 0.01, `head 0, all positions: ${table.cells[0][0]}`);

    // B of another length: a sentence, no map.
    assert.equal(await page.evaluate(() => window.attn.setExperiment('v=1&text=a%20b%20c')), '');
    u = await until(page, (x) => x.compare.patch && x.compare.patch.problem !== '', 'the reason');
    assert.equal(u.compare.patch.problem, `A has ${n} tokens, B has 3: patching needs the same shape`);
    assert.ok(!u.maps.some((m) => m.name === 'compare_patch_map'), 'no map');
  });
});

// A pinned recipe trains after B, beside it: its progress is on screen and in
// ui().compare.aTrain, Pause A stops it where it is (A's trained= in the link),
// Train A goes on. A of another shape than B is not trained at all.
test('a pinned recipe shows its training and pauses; of another shape it does not train', async () => {
  // The most steps a recipe may have: beside the drawing (the threaded build) a
  // tiny recipe's few thousand steps are over before a click.
  const RECIPE = 'v=1&text=a%20b%20c&train=induction&steps=20000';
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page, context, problems }) => {
    assert.equal(await page.evaluate((l) => window.attn.setExperiment(l), RECIPE + '&trained=0'), '');
    await until(page, (x) => x.train && x.train.done, 'B at step 0');
    await reveal(page, 'pin');
    await click(page, 'pin');
    let u = await until(page, (x) => x.compare.aTrain && x.compare.aTrain.done, 'A pinned at step 0');
    assert.equal(u.compare.aTrain.step, 0);
    await reveal(page, 'pin_train');
    await click(page, 'pin_train');  // A's trained= becomes all of it: A trains
    u = await until(page, (x) => x.compare.aTrain.target === 20000 && x.compare.aTrain.step > 0, 'A training');
    assert.ok(u.widgets.pin_pause, 'Pause A is offered while A trains');
    assert.match(u.compare.reason, /A is still training/);
    await reveal(page, 'pin_pause');
    // A's step, read on every animation frame from before the press until the Pause
    // has landed, never counts down: the steps A's run took meanwhile are kept.
    await page.evaluate(() => {
      window.__aSteps = [];
      const tick = () => {
        const a = window.attn.ui().compare.aTrain;
        window.__aSteps.push(a ? a.step : -1);
        if (!a || !a.done) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await frames(page, 2);
    await click(page, 'pin_pause');
    u = await until(page, (x) => x.compare.aTrain.done, 'A paused');
    const paused = u.compare.aTrain.step;
    const aSteps = await page.evaluate(() => window.__aSteps);
    assert.ok(aSteps.every((x, i) => i === 0 || x >= aSteps[i - 1]), `A's step from before Pause A until it landed: ${aSteps.join(' ')}`);
    assert.ok(paused >= aSteps[0] && paused < 20000, `paused at ${paused} (${aSteps[0]} before the press)`);
    assert.equal(u.compare.aTrain.target, paused);
    await frames(page, 6);
    assert.equal((await ui(page)).compare.aTrain.step, paused, 'a paused A stays where it stopped');
    assert.ok((await ui(page)).widgets.pin_train, 'Train A is offered again');

    // A (set to train through) and B of another shape: A's run is not even made.
    await reveal(page, 'pin_train');
    await click(page, 'pin_train');
    await until(page, (x) => x.compare.aTrain.target === 20000, 'A training again');
    assert.equal(await page.evaluate(() => window.attn.setExperiment('v=1&text=a%20b')), '');
    u = await until(page, (x) => x.compare.aTrain === null, 'A not trained beside a B of 2 tokens');
    assert.match(u.compare.reason, /A has 3 tokens, B has 2/);
    const link = u.link;
    assert.match(link, /pin=/);
    const other = await openPage(suite.browser, suite.server.url + '#' + link, { width: 1440, height: 900 });
    try {
      const v = await until(other.page, (x) => x.compare.pinned, 'the pin from the link');
      await frames(other.page, 6);
      const w = await ui(other.page);
      assert.equal(w.compare.aTrain, null, 'A of another shape is not trained');
      assert.equal(w.train, null);
      assert.match(v.compare.reason, /A has 3 tokens, B has 2/);
      assert.deepEqual(other.problems, []);
    } finally {
      await other.context.close();
    }
  });
});

// A wide experiment compared: A, B and B − A stand side by side only while they
// fit the panel's visible width (else one below the other, each map scrolling in
// itself), and after the window shrinks nothing keeps the panel as wide as before.
test('compare of a wide stage at 1440×900, then 1280×720: the panel never reaches past its edge sideways, no text cut', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page }) => {
    assert.equal(await page.evaluate(() => window.attn.openLink('v=1&d_model=64&heads=2&view.stage=0')), '');
    await click(page, 'pin');
    await until(page, (x) => x.compare.pinned, 'the pin');
    await click(page, 'compare');
    await until(page, (x) => x.compare.shown, 'the compare view');
    for (const [width, height] of [[1440, 900], [1280, 720]]) {
      await page.setViewportSize({ width, height });
      const state = await settle(page, `${width}×${height}`);
      const panel = state.windows.find((w) => w.name === state.widgetWindows.compare);
      assert.ok(panel && panel.over[0] <= 1, `${width}×${height}: the panel reaches ${panel && panel.over[0]} px past its edge sideways`);
      assert.equal(state.clipped, 0, `${width}×${height}: ${JSON.stringify(state.clippedItems, null, 1)}`);
      assert.ok(state.maps.some((m) => m.name === 'cmp_d0' && m.cells === 5 * 64), 'B − A drawn whole');
    }
  });
});
