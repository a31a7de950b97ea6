// The playground as a person uses it, in headless Chromium: real clicks and
// keys on the canvas (at the rectangles the app reports for its widgets), then
// the experiment and the recomputed numbers read back through window.attn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, canvasStats, browserSuite } from './harness.mjs';
import { frames, ui, trace, experiment, widget, click, key, gotoStage, STAGE, regionMean, num, at } from './person.mjs';

const suite = browserSuite();


test('type a token: the sentence, the tokens and the numbers change, and the URL follows', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const before = await trace(page);
    await click(page, 'text', 0.98);
    await page.keyboard.press('End');
    await page.keyboard.type(' quickly');
    // The app takes the typed characters a few per frame: wait for the whole word.
    await page.waitForFunction((n) => window.attn.trace().tokens.length === n && window.attn.trace().tokens[n - 1] === 'quickly',
      before.tokens.length + 1, { polling: 100 }).catch(() => {});
    const t = await trace(page);
    assert.deepEqual(t.tokens, [...before.tokens, 'quickly']);
    assert.equal(t.layers[0].heads[0].weights.shape[0], before.tokens.length + 1);
    await page.waitForFunction(() => decodeURIComponent(location.hash).includes('chased the dog quickly'));
  });
});

test('change the head count and toggle the causal mask: recomputed at once, the masked triangle appears', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    await gotoStage(page, STAGE.weights);
    await click(page, 'heads_4');
    let t = await trace(page);
    assert.equal(t.layers[0].heads.length, 4);
    assert.match(await experiment(page), /heads=4&kv_heads=4/);
    // Causal now: the upper triangle of each softmax map is exactly zero.
    assert.equal(at(t.layers[0].heads[0].weights, 0, 4), 0);
    const grid = await widget(page, 'grid_head0');
    const upper = [grid[0] + (grid[2] - grid[0]) * 0.62, grid[1] + 2, grid[2] - 2, grid[1] + (grid[3] - grid[1]) * 0.35];
    const causalUpper = await regionMean(page, upper);
    await click(page, 'mask');
    await click(page, 'mask_0'); // none
    t = await trace(page);
    assert.match(await experiment(page), /mask=none/);
    assert.ok(at(t.layers[0].heads[0].weights, 0, 4) > 0, 'the first token now sees the last');
    const openUpper = await regionMean(page, upper);
    // (numbers are drawn in the cells, hatched or not, which narrows the difference)
    assert.ok(Math.abs(openUpper - causalUpper) > 5, `the upper triangle changed (${causalUpper.toFixed(1)} → ${openUpper.toFixed(1)})`);
  });
});

test('step forward through every stage with the arrow keys, and back with the button', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&layers=2&block=full', async ({ page }) => {
    await gotoStage(page, STAGE.embeddings);
    const seen = [];
    let previous = null;
    for (let s = 0; s <= STAGE.output; s++) {
      const state = await ui(page);
      assert.equal(state.stage, s);
      seen.push(s);
      const stats = await canvasStats(page);
      assert.ok(stats.variance > 100, `stage ${s} is drawn`);
      assert.ok(state.widgets.code_lit || s >= STAGE.block, `stage ${s} lights its numpy line`);
      if (previous !== null) assert.notEqual(stats.mean.toFixed(2), previous, `stage ${s} looks different from the one before`);
      previous = stats.mean.toFixed(2);
      if (s < STAGE.output) await key(page, 'ArrowRight');
    }
    assert.equal(seen.length, 11);
    await click(page, 'prev');
    assert.equal((await ui(page)).stage, STAGE.block);
  });
});

test('ablate a head by clicking it, see the change in the output, and undo', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&d_model=16&heads=4&layers=2&block=full', async ({ page }) => {
    await gotoStage(page, STAGE.weights);
    const base = await trace(page);
    await click(page, 'zero_head1');
    assert.match(await experiment(page), /ablate=0\.1/);
    const t = await trace(page);
    assert.ok(t.layers[0].heads[1].ablated);
    let delta = 0;
    t.output.data.forEach((y, i) => { delta = Math.max(delta, Math.abs(num(y) - num(base.output.data[i]))); });
    assert.ok(delta > 1e-3, 'the final output moved: ' + delta);
    assert.ok((await ui(page)).widgets.impact, 'the effect panel shows the size of the change');
    await page.keyboard.down('Control');
    await page.keyboard.press('z');
    await page.keyboard.up('Control');
    await frames(page, 4);
    assert.doesNotMatch(await experiment(page), /ablate=0\.1/);
  });
});

test('click a softmax cell to mask that edge; the row renormalises without it', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&mask=none', async ({ page }) => {
    await gotoStage(page, STAGE.weights);
    const g = await widget(page, 'grid_head0');
    const n = 5, row = 3, col = 1;
    const cw = (g[2] - g[0]) / n, ch = (g[3] - g[1]) / n;
    await page.mouse.click(g[0] + cw * (col + 0.5), g[1] + ch * (row + 0.5));
    await frames(page, 4);
    assert.match(await experiment(page), /edges=0\.0\.3\.1/);
    const t = await trace(page);
    assert.equal(at(t.layers[0].heads[0].weights, row, col), 0);
    assert.ok(Math.abs(t.layers[0].heads[0].row_sums[row] - 1) < 1e-5);
    assert.ok(at(t.layers[0].heads[1].weights, row, col) > 0, 'only that head loses the edge');
  });
});

test('edit a number: drag an embedding value and the pipeline follows', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    await gotoStage(page, STAGE.embeddings);
    const g = await widget(page, 'grid_map1'); // E, the editable embeddings
    const cols = 8, rows = 5;
    await page.mouse.click(g[0] + (g[2] - g[0]) / cols * 2.5, g[1] + (g[3] - g[1]) / rows * 1.5);
    await frames(page, 4);
    const before = await trace(page);
    const w = await widget(page, 'edit_value');
    const y = (w[1] + w[3]) / 2;
    await page.mouse.move(w[0] + 20, y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) { await page.mouse.move(w[0] + 20 + i * 15, y); await frames(page, 1); }
    await page.mouse.up();
    await frames(page, 4);
    assert.match(await experiment(page), /edits=x\.1\.2:/);
    const t = await trace(page);
    assert.ok(at(t.x, 1, 2) > at(before.x, 1, 2), 'the value went up with the drag');
    assert.notDeepEqual(t.layers[0].heads[0].weights.data, before.layers[0].heads[0].weights.data, 'weights recomputed');
  });
});

test('reload and a copied address reproduce the exact experiment', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page, context }) => {
    await click(page, 'heads_1');
    // The advanced settings are folded until opened (a newcomer meets the basic ones first).
    assert.equal((await ui(page)).widgets.precision_bf16, undefined, 'precision is folded away');
    await click(page, 'advanced');
    await click(page, 'precision_bf16');
    await page.waitForFunction(() => /precision=bf16/.test(location.hash));
    const text = await experiment(page);
    const t = await trace(page);
    await page.reload();
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
    assert.equal(await experiment(page), text);
    assert.deepEqual((await trace(page)).output, t.output);
    await frames(page, 2);
    assert.ok((await ui(page)).widgets.precision_bf16, 'a setting in use stays in sight: the fold opens by itself');
    const copy = await context.newPage();
    await copy.goto(page.url());
    await copy.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
    assert.equal(await experiment(copy), text);
  });
});

test('language switch, help panel, shuffle, and a phone in landscape', async () => {
  await withPage(suite.browser, suite.server.url, { width: 800, height: 380, deviceScaleFactor: 2 }, async ({ page }) => {
    await click(page, 'language');
    assert.equal((await ui(page)).language, 'zh');
    await key(page, 'h');
    assert.ok((await ui(page)).widgets.help_table, 'the help panel lists the shortcuts');
    await key(page, 'Escape');
    const before = (await trace(page)).tokens;
    await click(page, 'shuffle');
    const after = (await trace(page)).tokens;
    assert.deepEqual([...after].sort(), [...before].sort());
    assert.notDeepEqual(after, before);
    const stats = await canvasStats(page);
    assert.equal(stats.width, 1600);
    assert.ok(stats.variance > 100);
  });
});
