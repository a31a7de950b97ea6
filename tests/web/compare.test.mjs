// The A/B compare, as a person uses it: pin the experiment as A, change
// something, and the stage shows A, B and B − A with the difference in numbers;
// the pinned A travels in the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, browserSuite } from './harness.mjs';
import { frames, ui, trace, click, gotoStage, hoverCell, tooltipValue, STAGE, num } from './person.mjs';

const suite = browserSuite();

// Waits (frame by frame, no fixed sleep) until ui() satisfies `ok`; returns it.
async function until(page, ok, what) {
  for (let i = 0; i < 200; i++) {
    const u = await ui(page);
    if (ok(u)) return u;
    await frames(page, 2);
  }
  assert.fail('timed out waiting for ' + what);
}

test('pin, change nothing: B − A is exactly 0; change the scale: it is not; the link keeps the pin', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url, { width: 1440, height: 900 });
  try {
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
    await page.waitForFunction(() => location.hash.includes('pin=') && location.hash.includes('scale=none'), null,
      { timeout: 5000 });
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
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('A and B of different shapes: no numbers, a reason in words', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url, { width: 1440, height: 900 });
  try {
    await gotoStage(page, STAGE.weights);
    await click(page, 'pin');
    await until(page, (x) => x.compare.pinned, 'the pin');
    const hash = (await ui(page)).link;
    const pin = hash.match(/&pin=[^&]*/)[0];
    assert.equal(await page.evaluate((l) => window.attn.openLink(l), 'v=1&text=a%20b%20c' + pin), '');
    const u = await until(page, (x) => x.compare.reason !== '', 'the reason');
    assert.equal(u.compare.maxAbs, null);
    assert.match(u.compare.reason, /A has \d+ tokens, B has 3: compare needs the same shape/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
