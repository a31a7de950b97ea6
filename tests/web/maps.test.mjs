// The maps on screen are pictures of the numbers they say they show: read back
// from real screenshots, each cell's colour follows the weights of the layer
// (and, in Compare A | B, of the model) shown, not those of a layer or model
// drawn before. L9's model, trained past its drop, has a previous-token head in
// layer 0 and an induction head in layer 1: different pictures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite, screenshotPixels, keepRun, lessonRecipe } from './harness.mjs';
import { frames, ui, click, reveal, revealCells, gotoStage, STAGE, num, until } from './person.mjs';

const suite = browserSuite();

// Until the trainer is at its step.
async function trained(page) {
  await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done; }, null,
    { timeout: 600000, polling: 250 });
}


// The luminance of each unmasked cell (key ≤ query) of the map whose cells are at
// `rect` (CSS pixels), sampled in the cell's top strip (above the number a cell
// may print, below the highlight lines on its edges). Rows and columns of the
// selected cell are left out (their highlight crosses the cells).
async function cellLuma(page, rect, n, skipRow) {
  const [x0, y0, x1, y1] = rect;
  const img = await screenshotPixels(page, { x: x0, y: y0, width: x1 - x0, height: y1 - y0 });
  const d = img.data;
  const cw = img.width / n, ch = img.height / n;
  const out = [];
  for (let r = 0; r < n; r++) {
    if (r === skipRow) continue;
    for (let k = 0; k <= r; k++) {
      const x = Math.floor(k * cw + cw / 2), y = Math.floor(r * ch + Math.max(3, ch * 0.18));
      const j = (y * img.width + x) * 4;
      out.push({ r, k, luma: 0.2126 * d[j] + 0.7152 * d[j + 1] + 0.0722 * d[j + 2] });
    }
  }
  return out;
}

function correlation(xs, ys) {
  const n = xs.length, mx = xs.reduce((s, v) => s + v, 0) / n, my = ys.reduce((s, v) => s + v, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

// How well the picture of map `name` follows each candidate matrix (a weights
// map {shape, data} of window.attn.trace()): the correlation of its cells'
// luminance with the candidate's values (viridis grows brighter with the value).
async function follows(page, name, candidates) {
  await revealCells(page, name);
  await page.mouse.move(2, 2);  // no hover band over the cells
  await frames(page, 2);
  const u = await ui(page);
  const n = candidates[0].shape[0];
  const cells = await cellLuma(page, u.widgets[name], n, u.sel_row);
  const luma = cells.map((c) => c.luma);
  return candidates.map((m) => correlation(luma, cells.map((c) => num(m.data[c.r * n + c.k]))));
}

const weights = (t, layer, head) => t.layers[layer].heads[head].weights;

test('L9 trained: the layer control redraws every head map with that layer\'s weights; Compare A | B at layer 1 draws layer 1', async () => {
  // A: L9's model untrained (pinned at once: nothing to train); B: trained past the drop (step ≈ 330),
  // with layer 1's induction head.
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=9&trained=0',
    { width: 1440, height: 900 }, async ({ page }) => {
    await trained(page);
    await keepRun(page, lessonRecipe());  // B's step 400 is one of its kept snapshots: nothing trains (harness.mjs)
    await gotoStage(page, STAGE.weights);
    const ta = await page.evaluate(() => window.attn.trace());
    await reveal(page, 'pin');
    await click(page, 'pin');
    const pinned = await until(page, (u) => u.compare.pinned, 'the pin');
    assert.match(pinned.link, /&trained=0(&|$)/);
    assert.equal(await page.evaluate((l) => window.attn.openLink(l), pinned.link.replace(/&trained=0(&|$)/, '&trained=400$1')), '');
    await until(page, (u) => u.train.target === 400, 'B asks for step 400');
    await trained(page);
    const t = await page.evaluate(() => window.attn.trace());
    const heads = t.layers[0].heads.length;
    assert.equal(t.layers.length, 2);
    for (const layer of [0, 1, 0, 1]) {
      if ((await ui(page)).layer !== layer) {
        await reveal(page, 'layer');
        await click(page, 'layer', layer ? 0.97 : 0.03);
        await until(page, (u) => u.layer === layer, 'layer ' + layer);
      }
      for (let h = 0; h < heads; h++) {
        const [own, other] = await follows(page, 'grid_head' + h, [weights(t, layer, h), weights(t, 1 - layer, h)]);
        assert.ok(own > 0.9, `layer ${layer} head ${h}: the picture follows its weights (r = ${own.toFixed(3)})`);
        assert.ok(own > other + 0.05,
          `layer ${layer} head ${h}: the picture is not the other layer's (r = ${own.toFixed(3)} vs ${other.toFixed(3)})`);
      }
    }

    // Compare A | B at layer 1: A's maps are A's layer 1, B's are B's layer 1.
    await reveal(page, 'compare');
    await click(page, 'compare');
    const u = await until(page, (x) => x.compare.shown && x.compare.maxAbs !== null && x.layer === 1, 'the compare view');
    assert.ok(u.compare.maxAbs > 0.1, `A (untrained) and B (trained) differ: ${u.compare.maxAbs}`);
    for (let h = 0; h < heads; h++) {
      const [a1, b1] = await follows(page, 'cmp_a' + h, [weights(ta, 1, h), weights(t, 1, h)]);
      assert.ok(a1 > 0.9 && a1 > b1 + 0.05, `A's head ${h} at layer 1: r = ${a1.toFixed(3)} (B's: ${b1.toFixed(3)})`);
      const [bb1, bb0] = await follows(page, 'cmp_b' + h, [weights(t, 1, h), weights(t, 0, h)]);
      assert.ok(bb1 > 0.9 && bb1 > bb0 + 0.05, `B's head ${h} at layer 1: r = ${bb1.toFixed(3)} (its layer 0: ${bb0.toFixed(3)})`);
    }
  });
});
