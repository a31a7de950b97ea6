// GPU heatmaps in the real page (headless Chromium, WebGL2 through SwiftShader):
// the shader compiles under GLSL ES 3.00, NaN weights show in magenta, weights in
// the sequential map, signed values in the diverging one, and a click (mouse or
// touch) on a cell reaches the app (on the softmax stage it masks that edge).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite, appShown, screenshotPixels } from './harness.mjs';
import { frames, ui, widget, click, gotoStage, STAGE, regionMean } from './person.mjs';

const suite = browserSuite();

const NAN_EXPERIMENT = 'v=1&precision=fp16&softmax=no_max&scale=6';

// Counts of telling colours in a real screenshot, and the box of the yellow
// (weight 1) pixels. The predicates match tests/native/heatmap_test.py.
async function colours(page) {
  const img = await screenshotPixels(page);
  const d = img.data;
  const near = (r, g, b, R, G, B, t) => Math.abs(r - R) <= t && Math.abs(g - G) <= t && Math.abs(b - B) <= t;
  const n = { magenta: 0, yellow: 0, red: 0, blue: 0, hatchLight: 0, hatchDark: 0 };
  const box = { x0: Infinity, y0: Infinity, x1: -1, y1: -1 };
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (near(r, g, b, 255, 0, 255, 8)) n.magenta++;
    if (r > 200 && g > 180 && b < 90) {
      n.yellow++;
      const x = (i / 4) % img.width, y = Math.floor(i / 4 / img.width);
      if (x < box.x0 || (x === box.x0 && y < box.y0)) { box.x0 = x; box.y0 = y; }
    }
    if (r > 170 && r - b >= 40 && b >= 30 && b >= 0.55 * g) n.red++;
    if (r >= 25 && r <= 160 && g >= 90 && g <= 210 && b >= 160 && b <= 235 && b - r > 50) n.blue++;
    if (near(r, g, b, 128, 128, 128, 3)) n.hatchLight++;
    if (near(r, g, b, 82, 82, 82, 3)) n.hatchDark++;
  }
  // The first full-weight cell: walk right and down from its top-left pixel.
  if (box.x1 < 0 && n.yellow > 0) {
    const yellow = (x, y) => { const j = (y * img.width + x) * 4; return d[j] > 200 && d[j + 1] > 180 && d[j + 2] < 90; };
    let x = box.x0, y = box.y0;
    while (x + 1 < img.width && yellow(x + 1, box.y0)) x++;
    while (y + 1 < img.height && yellow(box.x0, y + 1)) y++;
    box.x1 = x; box.y1 = y;
  }
  return { ...n, box, width: img.width };
}

function watchShaderMessages(page) {
  const messages = [];
  page.on('console', (m) => { if (/shader|WebGL|GL_INVALID/i.test(m.text())) messages.push(m.text()); });
  return messages;
}

// The page opens on the first stage; these tests look at the softmax weights.
const WEIGHTS_STAGE = '#v=1&view.stage=5';

test('NaN weights are drawn in magenta, by the shader under WebGL2', async () => {
  await withPage(suite.browser, suite.server.url + '#' + NAN_EXPERIMENT + '&view.stage=5', async ({ page }) => {
    const shaderMessages = watchShaderMessages(page);
    await frames(page, 4);
    const t = await page.evaluate(() => window.attn.trace());
    assert.ok(t.layers[0].heads[0].weights.data.includes('nan'), 'the experiment makes NaN weights');
    const c = await colours(page);
    assert.ok(c.magenta > 1000, `magenta NaN cells on screen (${c.magenta} pixels)`);
    assert.deepEqual(shaderMessages, []);
  });
});

// A row whose logits are all NaN (x₀ is inf in fp16 and meets zero weights: inf·0)
// is NaN, drawn in magenta: never zeros, never the look of a masked row.
const NAN_ROW_EXPERIMENT =
  'v=1&text=the%20cat%20sat&d_model=4&heads=1&precision=fp16&mask=none&scale=none&wo=off' +
  '&edits=x.0.0:1e6,l0.w_q.0.0:0,l0.w_q.0.1:0,l0.w_q.0.2:0,l0.w_q.0.3:0,l0.w_k.0.0:0,l0.w_k.0.1:0,l0.w_k.0.2:0,l0.w_k.0.3:0';

test('a row of NaN logits is shown as NaN (magenta), not as a masked row', async () => {
  await withPage(suite.browser, suite.server.url + '#' + NAN_ROW_EXPERIMENT + '&view.stage=5', async ({ page }) => {
    const t = await page.evaluate(() => window.attn.trace());
    const h = t.layers[0].heads[0];
    assert.deepEqual(h.masked.data.slice(0, 3), ['nan', 'nan', 'nan'], 'row 0 of the logits is NaN');
    assert.deepEqual(h.weights.data.slice(0, 3), ['nan', 'nan', 'nan'], 'row 0 of the weights is NaN, not zeros');
    assert.equal(h.row_sums[0], 'nan');
    assert.equal(h.row_entropies[0], 'nan');
    const c = await colours(page);
    assert.ok(c.magenta > 1000, `magenta NaN cells on screen (${c.magenta} pixels)`);
  });
});

test('weights use the sequential map, masked cells are hatched, signed values use the diverging map', async () => {
  await withPage(suite.browser, suite.server.url + WEIGHTS_STAGE, async ({ page }) => {
    const shaderMessages = watchShaderMessages(page);
    let c = await colours(page);
    assert.ok(c.yellow > 400, `viridis' bright end where a weight is 1 (${c.yellow} pixels)`);
    assert.equal(c.magenta, 0, 'no NaN colour without NaN');
    assert.ok(c.red < 50, `weights are not in the diverging map (${c.red} red pixels)`);
    assert.ok(c.hatchLight > 2000 && c.hatchDark > 2000, `masked cells hatched (${c.hatchLight} / ${c.hatchDark})`);

    // Zeroing head 1 shows Δy, a signed matrix, in blue - white - red.
    assert.equal(await page.evaluate(() => window.attn.setExperiment('v=1&ablate=0.1')), '');
    await frames(page, 4);
    c = await colours(page);
    assert.ok(c.red > 300 && c.blue > 300, `diverging map on screen (${c.red} red, ${c.blue} blue pixels)`);
    assert.deepEqual(shaderMessages, []);
  });
});

// Clicks (or taps) the cell one row below the first full-weight cell: query 1
// ("cat") attending to key 0 ("the") of head 0; on the softmax stage that masks the edge.
async function clickSecondRowCell(page, tap) {
  const { box } = await colours(page);
  assert.ok(box.x1 > box.x0 + 4, 'found the weight-1 cell: ' + JSON.stringify(box));
  const cell = box.x1 - box.x0 + 1;
  const x = box.x0 + cell / 2, y = box.y0 + cell * 1.5;
  if (tap) await page.touchscreen.tap(x, y);
  else await page.mouse.click(x, y);
  await page.waitForFunction(() => /edges=0\.0\.1\.0/.test(window.attn.experiment()));
}

test('a mouse click on a cell reports it (the app masks that edge)', async () => {
  await withPage(suite.browser, suite.server.url + WEIGHTS_STAGE, async ({ page }) => {
    await page.mouse.move(5, 5);
    await frames(page, 2);
    await clickSecondRowCell(page, false);
    assert.match(await page.evaluate(() => window.attn.experiment()), /edges=0\.0\.1\.0/);
    // The masked edge's effect shows where it was clicked: on its head's header.
    await page.waitForFunction(() => window.attn.ui().widgets.effect_head0);
    assert.equal((await ui(page)).widgets.effect_head1, undefined, 'the other head has no effect line');
  });
});

test('a tap on a cell reports it too', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 }, hasTouch: true });
  const page = await context.newPage();
  try {
    await page.goto(suite.server.url + WEIGHTS_STAGE);
    await appShown(page);
    await clickSecondRowCell(page, true);
  } finally {
    await context.close();
  }
});

test('Scores and Scaled share one colour scale, so scaling visibly fades the colours; per-map scales look alike', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const mean = async (stage) => {
      await gotoStage(page, stage);
      await frames(page, 3);
      return regionMean(page, await widget(page, 'grid_head0'));
    };
    // d_k = 4: the scaled scores are half the scores, so nearer the diverging map's white.
    const scores = await mean(STAGE.scores), scaled = await mean(STAGE.scaled);
    assert.ok(scaled - scores > 8, `scaled maps are paler on the shared scale (brightness ${scores} → ${scaled})`);
    await click(page, 'shared_scale');
    await frames(page, 3);
    const ownScaled = await mean(STAGE.scaled), ownScores = await mean(STAGE.scores);
    assert.ok(Math.abs(ownScaled - ownScores) < 3, `each map on its own scale looks alike (${ownScores} vs ${ownScaled})`);
  });
});

test('a zeroed head is dimmed where it is drawn, with its effect on the output on its own header', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=2&view.stage=5', async ({ page }) => {
    await frames(page, 3);
    const head0 = await regionMean(page, await widget(page, 'grid_head0'));
    const head1 = await regionMean(page, await widget(page, 'grid_head1'));
    assert.equal((await ui(page)).widgets.effect_head1, undefined, 'no effect line before zeroing');
    await click(page, 'zero_head1');
    await page.waitForFunction(() => window.attn.ui().widgets.effect_head1);
    await frames(page, 3);
    const dimmed = await regionMean(page, await widget(page, 'grid_head1'));
    assert.ok(Math.abs(dimmed - head1) > 10, `the zeroed head's map is veiled (brightness ${head1} → ${dimmed})`);
    const other = await regionMean(page, await widget(page, 'grid_head0'));
    assert.ok(Math.abs(other - head0) < 1, `the other head is drawn as before (${head0} → ${other})`);
  });
});

test('every value is shown or the map says why: at 1440×900 the default experiment labels every cell of X and Q, K, V', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page }) => {
    for (const stage of [STAGE.embeddings, STAGE.projections, STAGE.scores, STAGE.weights, STAGE.weighted_sum]) {
      await gotoStage(page, stage);
      await frames(page, 3);
      const maps = (await ui(page)).maps;
      assert.ok(maps.length > 0, `stage ${stage} draws maps`);
      for (const m of maps) assert.equal(m.labelled, m.cells, `stage ${stage}, ${m.name}: ${m.labelled} of ${m.cells} cells labelled`);
      // Each map says over it what its rows and columns are.
      for (const m of maps) assert.match(m.axes, /^↓ .+ → .+/, `stage ${stage}, ${m.name}: an axis caption`);
      if (stage === STAGE.weights) assert.equal(maps[0].axes, '↓ query token i   → key token j');
    }
    // 64 tokens cannot carry numbers at this size: none are drawn (never some), and the map says so.
    const long = Array.from({ length: 64 }, (_, i) => 'w' + i).join('%20');
    assert.equal(await page.evaluate((l) => window.attn.setExperiment(l), 'v=1&text=' + long), '');
    await gotoStage(page, STAGE.scores);
    await frames(page, 3);
    for (const m of (await ui(page)).maps) assert.ok(m.labelled === 0 || m.labelled === m.cells, `${m.name}: all or none`);
  });
});
