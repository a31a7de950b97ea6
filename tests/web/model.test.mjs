// A real model in the page, as a person opens one: View → "Open a model…", the
// file chooser with a llama2.c checkpoint and its tokenizer (written here with
// random weights by tests/llama_files.py: the real files are never downloaded),
// then the Model window: the text as the tokenizer cuts it, the next token, every
// head's scores, generation with a seed (the same seed, the same tokens), and a
// corrupted file or a single file refused with a message while the open model stays.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPage, withPage, browserSuite, root } from './harness.mjs';
import { frames, ui, click, revealCells, until } from './person.mjs';

const suite = browserSuite();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-model-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
// tiny: dim 32, hidden 80, 2 layers, 4 heads over 2 K/V heads, the test vocabulary, context 64.
execFileSync('/usr/bin/python3', [path.join(root, 'tests', 'llama_files.py'), dir, '--shape', 'tiny', '--version', '1'],
  { stdio: 'ignore' });
const ckpt = path.join(dir, 'tiny.bin');
const tok = path.join(dir, 'tokenizer.bin');

// until(), the failure saying the Model window's state.
const untilModel = (page, ok, what) => until(page, ok, what, (u) => ': ' + JSON.stringify(u.realModel));


// Turns the wheel over the Model window until widget `name` lies inside it
// (below its title bar): the window scrolls, not the page.
async function revealInWindow(page, name) {
  for (let i = 0; i < 60; i++) {
    const u = await ui(page);
    const w = u.widgets[name], win = u.widgets.model_window;
    assert.ok(win, 'the Model window is open');
    const top = win[1] + 40, bottom = win[3] - 2;  // below the title bar; the last item ends at the padding
    if (w && w[3] > w[1] && w[1] >= top && w[3] <= bottom) return;
    await page.mouse.move(win[2] - 6, (win[1] + win[3]) / 2);  // its scrollbar: over no map
    // Drawn: towards it. Not drawn (no rectangle, or an empty one: clipped above or below, which the
    // rectangle does not say): down for 25 steps (past the window's end, the wheel does nothing), then up.
    const drawn = w && w[3] > w[1];
    await page.mouse.wheel(0, drawn ? (w[1] < top ? -120 : 120) : i < 25 ? 120 : -120);
    await frames(page, 3);
  }
  const u = await ui(page);
  assert.fail(name + ' could not be scrolled into the Model window: ' + JSON.stringify([u.widgets[name], u.widgets.model_window, Object.keys(u.widgets).filter((k) => k.startsWith('model')), u.realModel && u.realModel.kept]));
}

// Presses `name` (a button that opens the chooser) and hands the chooser `files`.
async function choose(page, name, files) {
  const chooser = page.waitForEvent('filechooser');
  await click(page, name);
  await (await chooser).setFiles(files);
}

async function generate(page) {
  await revealInWindow(page, 'model_continue');
  await click(page, 'model_continue');
  return (await untilModel(page, (u) => u.realModel.gen.done && u.realModel.gen.ids.length > 0, 'the generation')).realModel.gen;
}

// The model just chosen, as the Model window and the text view read it.
async function modelRead(page) {
  // The reading can arrive between a frame's drawing and ui(): wait for the frame that draws it.
  let u = await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0 && x.widgets.model_continue, 'the model');
  let m = u.realModel;
  assert.equal(m.name, 'tiny.bin');
  assert.equal(m.tokenizer, 'tokenizer.bin');
  assert.deepEqual(m.config, { dim: 32, hidden: 80, layers: 2, heads: 4, kvHeads: 2, vocab: m.config.vocab, seqLen: 64,
    version: 1, shared: true });
  assert.equal(m.bytes, fs.statSync(ckpt).size);
  assert.equal(m.decoded, 'the cat chased the dog', 'the playground\'s text, tokenised by the model and decoded back');
  assert.equal(m.ids[0], 1, 'BOS first');
  assert.equal(m.next.length, 5);
  for (let i = 1; i < 5; i++) assert.ok(m.next[i].p <= m.next[i - 1].p, 'the next tokens, likeliest first');
  assert.equal(m.heads.length, 8, 'every head of both layers');
  for (const h of m.heads) {
    assert.equal(h.kv, Math.floor(h.head / 2), 'GQA: two query heads share a K/V head');
    assert.ok(h.prev >= 0 && h.prev <= 1 && h.sink >= 0 && h.sink <= 1);
    assert.ok(h.induction >= 0, '"the" repeats in "the cat chased the dog": every head has an induction score');
  }
  for (const name of ['model_head_0_0', 'model_head_1_3', 'model_selected', 'model_continue'])
    assert.ok(u.widgets[name], `the window draws ${name}`);
  // Cut text is judged on a settled window: the frame the model's reading first appears in, the
  // window has not yet learnt that its content needs a scrollbar (Dear ImGui sizes it from the last frame).
  await frames(page, 4);
  const settled = await ui(page);
  assert.deepEqual(settled.clippedItems.filter((c) => c.window.startsWith('Model')), [], 'no text of the Model window is cut at 1280×720');
  // The text view (screen readers) has the window's numbers: the next token and every head's scores.
  const tv = await page.evaluate(() => window.attn.textView());
  const heads = tv.tables.find((t) => t.caption && t.caption.startsWith('Model: each head'));
  assert.ok(heads, 'the text view has the heads table');
  assert.equal(heads.rows.length, 8);
  assert.equal(Number(heads.cells[0][0]), Number(m.heads[0].prev.toFixed(3)));
  assert.ok(tv.tables.some((t) => t.caption === 'Model tiny.bin: the next token'), 'and the next token');
  return u;
}

// Continue twice, and what the window and L5 say of the tokens it generated.
// `u`: ui() once a head is selected.
async function seededGeneration(page, u) {
  // Continue: the same seed generates the same tokens.
  const first = await generate(page);
  assert.ok(first.ids.length > first.prompt, 'tokens were generated');
  assert.deepEqual(first.ids.slice(0, first.prompt), u.realModel.ids, 'after the prompt');
  const again = await generate(page);
  assert.deepEqual(again.ids, first.ids, 'the same seed, the same tokens');
  // Each token's attention as it arrived: the selected head's map, a row per sampled step over every token before.
  await revealInWindow(page, 'model_generated');
  const steps = first.ids.length - first.prompt + (first.stopped === 'bos' ? 1 : 0);
  const lastQuery = first.prompt - 1 + steps - 1;
  const drawn = (await ui(page)).maps.find((m) => m.name === 'model_generated');
  assert.ok(drawn, 'the generated tokens\' attention is drawn');
  assert.equal(drawn.cells, steps * (lastQuery + 1), 'a row per step, a column per token up to the last query');
  // The KV cache on this model's shape (GQA: 4 query heads over 2 K/V heads) and what the last step read.
  const { config: cfg, gen: { cache } } = (await ui(page)).realModel;
  assert.equal(cache.perToken, 2 * cfg.layers * cfg.kvHeads * (cfg.dim / cfg.heads) * 4);
  assert.equal(cache.perTokenMha, 2 * cfg.layers * cfg.dim * 4);
  assert.equal(cache.perTokenMha, 2 * cache.perToken, 'the tiny model shares each K/V head between two query heads');
  assert.equal(cache.lastStepRead, cache.perToken * (lastQuery + 1));
  assert.ok((await ui(page)).widgets.model_cache, 'the window says it');
  assert.equal(cache.context, cache.perToken * cfg.seqLen, 'and a whole context\'s');
  // L5's decode view says the same of this model's cache, beside its own small experiment's.
  assert.equal(await page.evaluate(() => window.attn.openLink('v=1&view.lesson=5')), '');
  const l5 = await untilModel(page, (x) => x.lesson === 4 && x.numbers.real_per_token !== undefined, 'L5 over the open model');
  assert.equal(l5.numbers.real_per_token, cache.perToken);
  assert.equal(l5.numbers.real_per_token_mha, cache.perTokenMha);
  assert.equal(l5.numbers.real_last_step_read, cache.lastStepRead, 'the last Continue step\'s read');
  assert.ok(l5.widgets.l5_real_cache, 'the lesson draws it');
}

// Bad files: the open model stays.
async function badFilesRefused(page) {
  // A corrupted checkpoint is refused with a message naming it; the open model stays.
  const bytes = fs.readFileSync(ckpt);
  const cut = path.join(dir, 'cut.bin');
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
  await revealInWindow(page, 'model_choose');
  await choose(page, 'model_choose', [cut, tok]);
  let u = await untilModel(page, (x) => x.realModel.error !== '', 'the refusal');
  assert.match(u.realModel.error, /^cut\.bin: the file is truncated/);
  assert.equal(u.realModel.name, 'tiny.bin', 'the model opened before stays');
  // One file alone: the window asks for both.
  await choose(page, 'model_choose', [ckpt]);
  u = await untilModel(page, (x) => x.realModel.error.startsWith('only tiny.bin'), 'the single file refused');
  assert.match(u.realModel.error, /choose two files at once/);
}

test('open a llama2.c model through the file chooser: its tokens, next token, heads, a seeded generation; bad files refused', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1280, height: 720 }, async ({ page, context }) => {
    assert.equal((await ui(page)).realModel, null, 'no model before one is opened');
    await click(page, 'view_menu');
    await choose(page, 'view_model', [tok, ckpt]);  // either order
    let u = await modelRead(page);
    // Another text: typed into the box, read on Enter; a repeat gives an induction score.
    await revealInWindow(page, 'model_text');
    await click(page, 'model_text');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Once upon a time Once upon a time');
    await page.keyboard.press('Enter');
    u = await untilModel(page, (x) => x.realModel.decoded === 'Once upon a time Once upon a time', 'the new text');
    assert.ok(u.realModel.heads.every((h) => h.induction >= 0), 'a repeated text has induction scores');
    assert.equal(await page.evaluate(() => window.attn.experiment().includes('text=Once%20upon%20a%20time%20Once')), true,
      'the text is the experiment\'s: the link carries it');

    // A click on a head's small map shows it large.
    await revealInWindow(page, 'model_head_1_2');
    await click(page, 'model_head_1_2');
    u = await untilModel(page, (x) => x.realModel.layer === 1 && x.realModel.head === 2, 'the selected head');

    await seededGeneration(page, u);

    await badFilesRefused(page);
  });
});

// The opened model's prediction read: the logit lens ends at it, the parts of its logit
// sum to it, and the text view has both. Returns the predicted token and the parts.
async function predictionRead(page, m) {
  const top = m.next[0];
  assert.equal(m.lens.length, m.config.layers + 1, 'the embedding and each layer');
  assert.equal(m.lens[0].layer, -1);
  assert.equal(m.lens.at(-1).top, top.id, 'the last layer\'s lens is the model\'s prediction');
  assert.equal(m.lens.at(-1).rank, 0);
  assert.ok(Math.abs(m.lens.at(-1).p - top.p) < 1e-4, 'with its probability');
  const at = m.attribution;
  assert.equal(at.target, top.id);
  assert.equal(at.heads.length, m.config.layers * m.config.heads);
  assert.equal(at.ffn.length, m.config.layers);
  const sum = at.embedding + at.heads.reduce((a, b) => a + b, 0) + at.ffn.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - top.logit) < 1e-3 * Math.max(1, Math.abs(top.logit)), `the parts (${sum}) sum to the logit (${top.logit})`);
  await revealInWindow(page, 'model_lens');
  await revealInWindow(page, 'model_attribution');
  // The text view (screen readers) has every part and every layer's lens.
  const tv = await page.evaluate(() => window.attn.textView());
  const parts = tv.tables.find((t) => t.caption && t.caption.startsWith('Model: who writes the logit'));
  assert.ok(parts, 'the text view has the attribution');
  assert.equal(parts.rows.length, 1 + at.heads.length + at.ffn.length, 'the embedding, every head, every FFN');
  assert.equal(Number(parts.cells[1][0]), Number(at.heads[0].toFixed(4)));
  const lensTable = tv.tables.find((t) => t.caption && t.caption.includes('logit lens'));
  assert.ok(lensTable && lensTable.rows.length === m.lens.length, 'and the lens');
  return { top, at };
}

// Why the model predicts what it does, on the model a person just opened: the
// logit lens (each layer's residual through the final norm), the parts of the
// predicted token's logit (embedding, heads, FFNs: they sum to it), a part's
// head selected by a click, and that head zeroed with its effect on the next token.
test('the Model window reads the prediction: logit lens, direct logit attribution, a head zeroed and its effect', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1440, height: 900 }, async ({ page, problems }) => {
    await click(page, 'view_menu');
    await choose(page, 'view_model', [ckpt, tok]);
    let m = (await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0, 'the model')).realModel;
    const { top, at } = await predictionRead(page, m);
    // The largest head's part, clicked, selects that head.
    let best = 0;
    for (let i = 1; i < at.heads.length; i++) if (Math.abs(at.heads[i]) > Math.abs(at.heads[best])) best = i;
    const [bl, bh] = [Math.floor(best / m.config.heads), best % m.config.heads];
    await revealInWindow(page, `model_part_${bl}_${bh}`);
    await click(page, `model_part_${bl}_${bh}`);
    m = (await untilModel(page, (x) => x.realModel.layer === bl && x.realModel.head === bh, 'the part\'s head selected')).realModel;
    assert.equal(m.effect, null, 'nothing zeroed yet');
    // The selected head's earlier stages, recomputed for it: the mask stage hides the later keys.
    const n = m.ids.length;
    const cellsOf = async () => (await ui(page)).maps.find((x) => x.name === 'model_selected').cells;
    assert.equal(await cellsOf(), n * n, 'the softmax weights: every cell (the hidden ones 0)');
    await revealInWindow(page, 'model_stage_2');
    await click(page, 'model_stage_2');
    for (let i = 0; i < 50 && (await cellsOf()) !== n * (n + 1) / 2; i++) await frames(page, 2);
    assert.equal(await cellsOf(), n * (n + 1) / 2, 'after the causal mask: the hidden keys drawn as masked');
    await click(page, 'model_stage_0');
    for (let i = 0; i < 50 && (await cellsOf()) !== n * n; i++) await frames(page, 2);
    assert.equal(await cellsOf(), n * n, 'Q·Kᵀ: every cell');
    await click(page, 'model_stage_3');
    // Zeroed: the model runs again without it, and the window says what changed.
    await revealInWindow(page, 'model_zero');
    await click(page, 'model_zero');
    m = (await untilModel(page, (x) => x.realModel.effect !== null, 'the zeroed head\'s effect')).realModel;
    assert.deepEqual(m.changes.ablate, [[bl, bh]]);
    assert.equal(m.effect.layer, bl, 'the selected head\'s layer kept whole');
    assert.equal(m.effect.next.length, 5);
    assert.equal(m.effect.readingP.length, 5, 'the five tokens predicted with the head, without it');
    assert.ok(m.effect.kl > 0, 'the largest head\'s write matters: the prediction moves');
    assert.ok(m.effect.readingP[0] !== top.p, 'the predicted token\'s probability changes');
    await revealInWindow(page, 'model_effect');
    // A head of another layer selected: the changes run again with that layer kept whole.
    await revealInWindow(page, 'model_head_0_0');
    await click(page, 'model_head_0_0');
    m = (await untilModel(page, (x) => x.realModel.effect && x.realModel.effect.layer === 0 && x.realModel.head === 0,
      'the changes run again with layer 0 kept whole')).realModel;
    await page.waitForFunction((h) => location.hash.includes('view.model_ablate=' + h), `${bl}.${bh}`);
    // A click on a softmax cell masks that edge: the changed pass runs, the head's row
    // shares its weight among the keys left, and the link holds the edge.
    await revealInWindow(page, 'model_selected');
    await click(page, 'model_selected', 0.5 / n, (n - 0.5) / n);  // query n−1, key 0
    m = (await untilModel(page, (x) => x.realModel.changes.edges.length === 1 && x.realModel.effect !== null, 'the masked edge\'s effect')).realModel;
    assert.deepEqual(m.changes.edges[0], [0, 0, n - 1, 0]);
    assert.deepEqual(m.changes.ablate, [[bl, bh]], 'the zeroed head stays zeroed');
    assert.deepEqual(m.changes.problems, []);
    assert.equal(await cellsOf(), n * (n + 1) / 2 - 1, 'the masked edge drawn as masked, beside the causal mask\'s');
    await page.waitForFunction((e) => location.hash.includes('view.model_edges=' + e), `0.0.${n - 1}.0`);
    const tv2 = await page.evaluate(() => window.attn.textView());
    assert.ok(tv2.tables.find((t) => t.caption && t.caption.startsWith('Model: the next token with the changes')), 'the text view says the effect');
    await revealInWindow(page, 'model_changes_clear');
    await click(page, 'model_changes_clear');
    m = (await untilModel(page, (x) => x.realModel.changes.edges.length === 0 && x.realModel.changes.ablate.length === 0, 'the changes cleared')).realModel;
    assert.equal(m.effect, null, 'nothing changed: no effect');
    await frames(page, 4);
    const settled = await ui(page);
    assert.deepEqual(settled.clippedItems.filter((c) => c.window.startsWith('Model')), [], 'no text of the Model window is cut');
  });
});

// "Open this layer in the pipeline": the stepper, every head's maps and the
// inspector on the model's own numbers; a softmax cell clicked there masks that
// edge of the model (the Model window's change), and the way back is one button.
test('a real model\'s layer in the pipeline: every stage, the inspector on its cells, an edge masked there, and back', async () => {
  await withPage(suite.browser, suite.server.url, { width: 1280, height: 720 }, async ({ page }) => {
    await click(page, 'view_menu');
    await choose(page, 'view_model', [ckpt, tok]);
    let u = await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0, 'the model');
    const n = u.realModel.ids.length, heads = u.realModel.config.heads;
    assert.equal(u.pipeline.real, false, 'the pipeline shows the experiment until asked');
    await revealInWindow(page, 'model_head_1_2');
    await click(page, 'model_head_1_2');
    await revealInWindow(page, 'model_pipeline_open');
    await click(page, 'model_pipeline_open');
    u = await untilModel(page, (x) => x.pipeline.real && !x.realModel.open, 'the pipeline on the model');
    assert.deepEqual([u.pipeline.layer, u.pipeline.heads, u.pipeline.tokens], [1, heads, n]);
    assert.ok(u.widgets.pipeline_model, 'the pipeline says which model it shows');
    await page.waitForFunction(() => location.hash.includes('view.model_pipeline=1'));
    // Every head's softmax map over the model's tokens, the hidden keys drawn as masked.
    const grid = (x, name) => x.maps.find((mp) => mp.name === name);
    assert.equal(grid(u, 'grid_head0').cells, n * (n + 1) / 2);
    assert.ok(u.widgets[`grid_head${heads - 1}`], 'every head');
    // The scores stage: q·k for a clicked cell, in the inspector.
    await click(page, 'stage2');
    u = await untilModel(page, (x) => x.stage === 2 && grid(x, 'grid_head2'), 'the scores');
    assert.equal(grid(u, 'grid_head2').cells, n * n);
    await revealCells(page, 'grid_head2');
    await click(page, 'grid_head2', 0.5 / n, (n - 0.5) / n);
    let inspector = (await page.evaluate(() => window.attn.textView())).inspector.join(' ');
    assert.match(inspector, /q_i·k_j = /, 'the inspector explains the model\'s score');
    // Softmax: a click masks that edge of the model; the pipeline draws the changed pass.
    await click(page, 'stage5');
    await untilModel(page, (x) => x.stage === 5 && grid(x, 'grid_head1'), 'the softmax maps');
    await revealCells(page, 'grid_head1');
    await click(page, 'grid_head1', 0.5 / n, (n - 0.5) / n);
    u = await untilModel(page, (x) => x.realModel.changes.edges.length === 1 && x.realModel.effect !== null, 'the masked edge\'s pass');
    assert.deepEqual(u.realModel.changes.edges[0], [1, 1, n - 1, 0]);
    assert.equal(u.realModel.open, false, 'run for the pipeline, the window closed');
    await frames(page, 2);
    u = await ui(page);
    assert.equal(grid(u, 'grid_head1').cells, n * (n + 1) / 2 - 1, 'the maps are the changed pass: the edge drawn as masked');
    assert.ok(u.widgets.pipeline_model_changes, 'the line over the stages says the change');
    await page.waitForFunction((e) => location.hash.includes('view.model_edges=' + e), `1.1.${n - 1}.0`);
    inspector = (await page.evaluate(() => window.attn.textView())).inspector.join(' ');
    assert.match(inspector, /exp\(/, 'the inspector explains the weight');
    // The Model window, from the pipeline: the edge's effect on the next token; its button comes back.
    await click(page, 'pipeline_model_window');
    u = await untilModel(page, (x) => x.realModel.open && x.realModel.effect !== null, 'the Model window with the edge\'s effect');
    assert.ok(u.realModel.effect.kl >= 0);
    await revealInWindow(page, 'model_pipeline_open');
    await click(page, 'model_pipeline_open');
    await untilModel(page, (x) => x.pipeline.real && !x.realModel.open, 'the pipeline again');
    // Back to the experiment: the toy's maps again.
    await click(page, 'pipeline_model_back');
    u = await untilModel(page, (x) => !x.pipeline.real, 'the experiment again');
    assert.equal(u.pipeline.tokens, (await page.evaluate(() => window.attn.trace())).tokens.length);
  });
});

// L13 as a newcomer meets it: the lesson asks for a model, reads the one opened
// on its own text, and says what it finds — each sentence the core's finding,
// with the hedge when the model lacks it — and its buttons open the Model window
// on the heads it names.
test('L13 a real model: asks for one, then says its shape, GQA and the heads it finds on the lesson\'s text', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=13', { width: 1280, height: 720 }, async ({ page }) => {
    let u = await ui(page);
    assert.equal(u.lesson, 12);
    assert.equal(u.numbers.model_open, 0, 'no model yet');
    assert.ok(u.widgets.l13_open, 'the card offers to open one');
    await choose(page, 'l13_open', [ckpt, tok]);
    u = await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0 && x.numbers.model_open === 1, 'the lesson reading the model');
    const n = u.numbers, m = u.realModel;
    assert.equal(m.text, 'Once upon a time there was a cat. Once upon a time', 'the lesson\'s text, read by the model');
    assert.equal(n.heads, m.config.layers * m.config.heads);
    assert.equal(n.group, m.config.heads / m.config.kvHeads);
    assert.equal(n.repeats, 1, 'the text repeats');
    // The counts are the heads' own scores over the bars the card states (the core's, tested there).
    assert.ok(n.sink_bar >= 0.5 && n.previous_bar >= 0.4 && n.induction_bar >= 0.3);
    assert.equal(n.sink_heads, m.heads.filter((h) => h.sink >= n.sink_bar).length);
    assert.equal(n.previous_heads, m.heads.filter((h) => h.prev >= n.previous_bar).length);
    assert.equal(n.induction_heads, m.heads.filter((h) => h.induction >= n.induction_bar).length);
    const doc = await page.evaluate(() => window.attn.textView());
    const lines = doc.lesson.lines.join('\n');
    assert.match(lines, /tiny\.bin \(llama2\.c\): 2 layers of 4 heads/);
    assert.match(lines, /GQA: every 2 query heads share one K\/V head/);
    const bar = (v) => v.toFixed(2).replace('.', '\\.');
    assert.match(lines, new RegExp(n.sink_heads ? `at least ${bar(n.sink_bar)} of their weight on the first token` : `No head puts ${bar(n.sink_bar)} of its weight`));
    assert.match(lines, new RegExp(n.previous_heads ? `previous token \\(mean weight ≥ ${bar(n.previous_bar)}\\)` : `previous token a mean weight of ${bar(n.previous_bar)}`));
    assert.match(lines, new RegExp(n.induction_heads ? `earlier copy of the current one \\(induction ≥ ${bar(n.induction_bar)}\\)` : `No head reaches an induction score of ${bar(n.induction_bar)}`));
    await frames(page, 4);
    assert.deepEqual((await ui(page)).clippedItems, [], 'no text of the card is cut');
    // "Layer L in the pipeline below": the lesson's model in the pipeline under its card
    // (Escape closes the Model window over it first).
    await page.keyboard.press('Escape');
    await untilModel(page, (x) => !x.realModel.open, 'the Model window closed by Escape');
    await click(page, 'l13_pipeline');
    const shown = await untilModel(page, (x) => x.pipeline.real, 'the model in the pipeline');
    assert.equal(shown.stage, 5, 'at the softmax stage');
    assert.equal(shown.lesson, 12, 'the lesson stays open');
    assert.deepEqual([shown.pipeline.layer, shown.pipeline.heads], [shown.realModel.layer, m.config.heads]);
    await frames(page, 4);
    const line = (await ui(page)).widgets.pipeline_model;
    assert.ok(line && line[1] >= 0 && line[3] <= 720, 'the panel scrolled to the pipeline under the card: ' + JSON.stringify(line));
    // Its buttons: the Model window, on the strongest head a finding names.
    const found = ['l13_sink', 'l13_previous', 'l13_induction'].find((w) => u.widgets[w]);
    if (found) {
      await click(page, found);
      u = await untilModel(page, (x) => x.realModel.open, 'the Model window');
      const score = { l13_sink: 'sink', l13_previous: 'prev', l13_induction: 'induction' }[found];
      const best = m.heads.reduce((a, b) => (b[score] > a[score] ? b : a));
      assert.deepEqual([u.realModel.layer, u.realModel.head], [best.layer, best.head], 'the strongest head of ' + found);
    } else {
      await click(page, 'l13_window');
      await untilModel(page, (x) => x.realModel.open, 'the Model window');
    }
  });
});

test('a link names the model (model=name@hash): this browser keeps it, opens it again, generates the same; removed, the link asks for the file', async () => {
  const hash = crypto.createHash('sha256').update(fs.readFileSync(ckpt)).digest('hex').slice(0, 16);
  await withPage(suite.browser, suite.server.url, { width: 1280, height: 720 }, async ({ page, context }) => {
    await click(page, 'view_menu');
    await choose(page, 'view_model', [ckpt, tok]);
    let u = await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0 && x.realModel.kept === 1, 'the model, kept');
    assert.equal(u.realModel.key, `tiny.bin@${hash}`);
    await page.waitForFunction((h) => location.hash.includes('&model=tiny.bin@' + h), hash);
    // Continue's seed typed in the window: the link carries it (view.gen_seed), so the other tab samples alike.
    await revealInWindow(page, 'model_seed');
    await click(page, 'model_seed', 0.1);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('7');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash.includes('view.gen_seed=7'));
    const link = await page.evaluate(() => location.hash.slice(1));
    const first = await generate(page);
    // The View menu lists the kept model too (with its size): a click opens it, the window with it.
    await click(page, 'view_menu');
    assert.ok((await ui(page)).widgets[`view_kept_remove_tiny.bin@${hash}`], 'the menu offers to remove it');
    await click(page, `view_kept_open_tiny.bin@${hash}`);
    await untilModel(page, (x) => x.realModel.open && x.realModel.key === `tiny.bin@${hash}`, 'the model opened from the View menu');

    // The same link in another tab of this browser: the model opens from the store, reads the same, generates the same.
    const other = await context.newPage();
    // With a head zeroed and an edge masked: they run as soon as the model opens.
    await other.goto(suite.server.url + '#' + link.replace('&model=', '&view.model_head=1.1&view.model_ablate=0.1&view.model_edges=1.1.2.0&model='));
    await other.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen);
    u = await untilModel(other, (x) => x.realModel && x.realModel.ids && x.realModel.ids.length > 0, 'the kept model, opened by the link');
    assert.equal(u.realModel.key, `tiny.bin@${hash}`);
    u = await untilModel(other, (x) => x.realModel.effect !== null, 'the link\'s changes run');
    assert.deepEqual([u.realModel.layer, u.realModel.head], [1, 1], 'the link\'s selected head');
    assert.deepEqual(u.realModel.changes.ablate, [[0, 1]]);
    assert.deepEqual(u.realModel.changes.edges, [[1, 1, 2, 0]]);
    assert.ok(Number.isFinite(u.realModel.effect.kl) && u.realModel.effect.kl >= 0);
    assert.equal(u.realModel.open, true, 'the link opens the Model window');
    assert.deepEqual(u.realModel.ids, first.ids.slice(0, first.prompt), 'the same text, the same tokens');
    assert.deepEqual((await generate(other)).ids, first.ids, 'the link\'s seed generates the same tokens');

    // Removed from the browser: the link now asks for the file by its name.
    await revealInWindow(other, `model_kept_remove_tiny.bin@${hash}`);
    await click(other, `model_kept_remove_tiny.bin@${hash}`);
    await untilModel(other, (x) => x.realModel.kept === 0, 'the removal');
    const third = await context.newPage();
    await third.goto(suite.server.url + '#' + link);
    await third.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen);
    u = await untilModel(third, (x) => x.widgets.model_wanted, 'the request for the file');
    assert.equal(u.realModel, null, 'no model: this browser no longer keeps it');
    assert.ok(u.link.includes(`model=tiny.bin@${hash}`), 'the link still names it');
  });
});

test('the Model window on a phone (844×390): opened, nothing of it cut, the chooser reached', async () => {
  await withPage(suite.browser, suite.server.url, { width: 844, height: 390 }, async ({ page }) => {
    await click(page, 'view_menu');
    await choose(page, 'view_model', [ckpt, tok]);
    await untilModel(page, (x) => x.realModel && x.realModel.ids.length > 0, 'the model');
    await frames(page, 4);  // a settled window (see the first test)
    const u = await ui(page);
    assert.deepEqual(u.clippedItems.filter((c) => c.window.startsWith('Model')), [], 'no text of the Model window is cut');
    await revealInWindow(page, 'model_continue');
  });
});

// A host of the model's files (model_url=, tokenizer_url=) routed for a page: it answers
// each held file once the test releases it, and notes the files asked for.
function modelHost() {
  const bytes = fs.readFileSync(ckpt), tokBytes = fs.readFileSync(tok);
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const host = 'https://models.example.test/';
  const held = {};  // the test answers each file when it has seen the page wait for it
  const hold = (name) => { let release; const p = new Promise((r) => { release = r; }); held[name] = { p, release }; };
  hold('tiny.bin');
  hold('tokenizer.bin');
  const asked = [];
  const prepare = (page) => page.route(host + '**', async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    asked.push(name);
    if (held[name]) await held[name].p;
    const body = name === 'tiny.bin' ? bytes : name === 'tokenizer.bin' ? tokBytes : null;
    await route.fulfill(body ? { status: 200, body, headers: { 'Access-Control-Allow-Origin': '*', 'Content-Length': String(body.length) } }
      : { status: 404, body: 'no', headers: { 'Access-Control-Allow-Origin': '*' } }).catch(() => {});  // a stopped fetch is gone
  });
  const link = (key, file) => `#v=1&text=Once%20upon%20a%20time&model=${key}` +
    `&model_url=${encodeURIComponent(host + file)}&tokenizer_url=${encodeURIComponent(host + 'tok/tokenizer.bin')}`;
  const ours = (problems) => problems.filter((p) => !p.startsWith('foreign request: ' + host));
  return { bytes, hash, held, hold, asked, prepare, link, ours };
}

// A host names where it keeps the files (model_url=, tokenizer_url=): the page
// fetches them (each step shown), checks the checkpoint's SHA-256 against
// model=, opens and keeps the model; a file that is not the one named, or a
// fetch that fails, is said in the window and nothing opens.
test('a link with model_url= and tokenizer_url=: fetched with progress, hash checked, opened and kept; a wrong file or a 404 said', async () => {
  const { bytes, hash, held, hold, asked, prepare, link, ours } = modelHost();
  let { page, context, problems } = await openPage(suite.browser, suite.server.url + link(`tiny.bin@${hash}`, 'tiny.bin'), { prepare });
  try {
    let u = await untilModel(page, (x) => x.modelFetch.file === 'tiny.bin' && x.widgets.model_fetch, 'the checkpoint\'s fetch shown');
    assert.equal(u.wantedModel.key, `tiny.bin@${hash}`);
    held['tiny.bin'].release();
    u = await untilModel(page, (x) => x.modelFetch.file === 'tokenizer.bin' && x.widgets.model_fetch, 'the tokenizer\'s fetch shown');
    held['tokenizer.bin'].release();
    u = await untilModel(page, (x) => x.realModel && x.realModel.ids && x.realModel.ids.length > 0 && x.realModel.kept === 1, 'the fetched model, opened and kept');
    assert.equal(u.realModel.key, `tiny.bin@${hash}`);
    assert.equal(u.realModel.bytes, bytes.length);
    assert.equal(u.wantedModel, null);
    assert.equal(u.modelFetch.file, '', 'the fetch ended');
    assert.deepEqual(asked, ['tiny.bin', 'tokenizer.bin'], 'each file fetched once, the checkpoint first');
    assert.ok(u.link.includes('model_url=') && u.link.includes(`model=tiny.bin@${hash}`), 'the link keeps where the files are');
    assert.deepEqual(ours(problems), []);
    await context.close();

    // A file that is not the model the link names (its hash differs): refused, said, nothing opened.
    ({ page, context, problems } = await openPage(suite.browser, suite.server.url + link('tiny.bin@0123456789abcdef', 'tiny.bin'), { prepare }));
    // The state says the error at once; the widgets are the last frame's: wait for the frame that draws it.
    u = await untilModel(page, (x) => x.realModel && x.realModel.error && x.widgets.model_wanted, 'the refusal');
    assert.match(u.realModel.error, new RegExp(`is not the model the link names: its SHA-256 starts ${hash}, the link says 0123456789abcdef`));
    assert.equal(u.realModel.bytes, undefined, 'no model opened');
    assert.ok(u.widgets.model_wanted, 'the window still asks for the file');
    assert.deepEqual(ours(problems), []);
    await context.close();

    // A fetch that fails (404): said, with the address.
    ({ page, context, problems } = await openPage(suite.browser, suite.server.url + link(`tiny.bin@${hash}`, 'missing.bin'), { prepare }));
    u = await untilModel(page, (x) => x.realModel && x.realModel.error && x.widgets.model_wanted, 'the failed fetch');
    assert.match(u.realModel.error, /missing\.bin: HTTP 404/);
    assert.deepEqual(ours(problems).filter((p) => !/404/.test(p)), []);
    await context.close();

    // A link that arrives after the page opened (pasted: hashchange) is fetched too, without a reload;
    // Stop ends the fetch, says so, and opens nothing.
    hold('tiny.bin');
    ({ page, context, problems } = await openPage(suite.browser, suite.server.url, { prepare }));
    asked.length = 0;
    await page.evaluate((h) => { location.hash = h; }, link(`tiny.bin@${hash}`, 'tiny.bin'));
    u = await untilModel(page, (x) => x.modelFetch.file === 'tiny.bin' && x.widgets.model_fetch_stop, 'the pasted link\'s fetch shown');
    assert.deepEqual(asked, ['tiny.bin']);
    await click(page, 'model_fetch_stop');
    u = await untilModel(page, (x) => x.realModel && x.realModel.error && x.modelFetch.file === '', 'the stop');
    assert.match(u.realModel.error, /^stopped fetching tiny\.bin/);
    assert.equal(u.realModel.bytes, undefined, 'nothing opened');
    held['tiny.bin'].release();
    // A link naming another model while one is fetched: that fetch stops without a word, the new one follows.
    hold('tiny.bin');
    asked.length = 0;
    await page.evaluate((h) => { location.hash = h; }, link(`tiny.bin@${hash}`, 'tiny.bin') + '&heads=2');
    await untilModel(page, (x) => x.modelFetch.file === 'tiny.bin', 'the first link\'s fetch');
    await page.evaluate((h) => { location.hash = h; }, link('other.bin@0123456789abcdef', 'missing.bin'));
    u = await untilModel(page, (x) => x.realModel && /missing\.bin: HTTP 404/.test(x.realModel.error || ''), 'the second link\'s fetch, failed');
    assert.deepEqual(asked, ['tiny.bin', 'missing.bin'], 'the first stopped, the second fetched');
    assert.equal(u.wantedModel.key, 'other.bin@0123456789abcdef');
    held['tiny.bin'].release();
    assert.deepEqual(ours(problems).filter((p) => !/404/.test(p)), []);
  } finally {
    await context.close();
  }
});

// issue 49, item 13: a link's tokenizer is part of what it reads. A link whose
// tokenizer_url= is someone else's (here a tokenizer whose first score differs:
// any other bytes) opens that pair and keeps it, but a later link reads the
// tokenizer it names (tokenizer=, checked like model=) or, written before
// tokenizer= existed, the one at its own tokenizer_url=; one naming neither is
// not given a tokenizer this browser fetched for another link.
test('a kept model\'s tokenizer opens for a link only when the link names its hash: a hostile tokenizer_url= poisons nothing', async () => {
  const bytes = fs.readFileSync(ckpt), tokBytes = fs.readFileSync(tok);
  const evil = Buffer.from(tokBytes);
  evil.writeFloatLE(1.5, 4);  // token 0's score: still a tokenizer, other bytes
  const sha = (b) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 16);
  const [hash, good, bad] = [sha(bytes), sha(tokBytes), sha(evil)];
  const host = 'https://models.example.test/';
  const asked = [];
  let held = null;  // when set, the legitimate tokenizer is answered only once it resolves
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.route(host + '**', async (route) => {
    const p = new URL(route.request().url()).pathname;
    asked.push(p);
    if (p === '/tok/tokenizer.bin' && held) await held;
    const body = p === '/tiny.bin' ? bytes : p === '/tok/tokenizer.bin' ? tokBytes : p === '/evil/tokenizer.bin' ? evil : null;
    return route.fulfill(body ? { status: 200, body, headers: { 'Access-Control-Allow-Origin': '*' } } : { status: 404, body: 'no' })
      .catch(() => undefined);  // the page stopped that fetch
  });
  const link = (tokDir, named) => `#v=1&text=Once%20upon&model=tiny.bin@${hash}` + (named ? `&tokenizer=tokenizer.bin@${named}` : '') +
    `&model_url=${encodeURIComponent(host + 'tiny.bin')}&tokenizer_url=${encodeURIComponent(host + tokDir + '/tokenizer.bin')}`;
  const open = async (hashPart) => {
    const page = await context.newPage();
    await page.goto(suite.server.url + hashPart);
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen, null, { timeout: 60000 });
    return page;
  };
  const opened = (page, tokHash, what) => untilModel(page, (x) => x.realModel && x.realModel.ids && x.realModel.ids.length > 0 &&
    x.realModel.tokenizerKey === `tokenizer.bin@${tokHash}` && x.wantedModel === null, what);
  try {
    // The attacker's link (no tokenizer=, as links were written): opened, and kept.
    let page = await open(link('evil'));
    await opened(page, bad, 'the attacker\'s pair');
    assert.ok((await ui(page)).link.includes(`tokenizer=tokenizer.bin@${bad}`), 'the page names the tokenizer it read');
    // The legitimate link of the same form, in another tab: its own tokenizer_url=, fetched (the kept checkpoint is not).
    asked.length = 0;
    page = await open(link('tok'));
    let u = await opened(page, good, 'the legitimate tokenizer, not the kept one');
    assert.deepEqual(asked, ['/tok/tokenizer.bin']);
    // A link that names the attacker's tokenizer keeps that pair again; one naming the legitimate one then reads it.
    await page.evaluate((h) => { location.hash = h; }, link('evil', bad));
    await opened(page, bad, 'the pair that link names');
    // A tokenizer that is not the one the link names: refused, said, not opened.
    await page.evaluate((h) => { location.hash = h; }, link('evil', good));
    u = await untilModel(page, (x) => x.realModel && /is not the tokenizer the link names/.test(x.realModel.error || ''), 'the refusal');
    assert.match(u.realModel.error, new RegExp(`its SHA-256 starts ${bad}, the link says ${good}`));
    assert.equal(u.realModel.tokenizerKey, `tokenizer.bin@${bad}`, 'the open model stays as it was');
    // Two links of the same model in a row, the second while the first's tokenizer is still on its
    // way: the second is followed (it was once dropped as "the same model", and the first's pair opened).
    asked.length = 0;
    let answer;
    held = new Promise((resolve) => { answer = resolve; });
    await page.evaluate((h) => { location.hash = h; }, link('tok', good));
    await untilModel(page, () => asked.includes('/tok/tokenizer.bin'), 'the first link\'s fetch');
    await page.evaluate((h) => { location.hash = h; }, link('evil', good));
    await frames(page, 2);
    held = null;
    answer();
    u = await untilModel(page, (x) => asked.includes('/evil/tokenizer.bin') && x.realModel &&
      /is not the tokenizer the link names/.test(x.realModel.error || ''), 'the second link\'s refusal');
    assert.equal(u.realModel.tokenizerKey, `tokenizer.bin@${bad}`, 'the first link\'s pair did not open in its place');
    await page.evaluate((h) => { location.hash = h; }, link('tok', good));
    u = await opened(page, good, 'the tokenizer the link names');
    assert.ok(u.link.includes(`&model=tiny.bin@${hash}&tokenizer=tokenizer.bin@${good}&model_url=`));
    // A link naming the model alone (no addresses, no tokenizer=): the store's fetched pair is not taken on trust.
    page = await open(`#v=1&text=Once%20upon&model=tiny.bin@${hash}`);
    u = await untilModel(page, (x) => x.widgets.model_wanted && x.realModel && x.realModel.kept === 1, 'the request for the files, and the kept list');
    assert.equal(u.realModel.ids, undefined, 'nothing opened from the store');
    assert.equal(u.realModel.kept, 1, 'the kept model is listed, to open by hand');
  } finally {
    await context.close();
  }
});

// issue 49, item 15: a link's model_url= is read no further than its header says
// the file is; an address the page cannot decode is the link's error, not a
// fetch that never ends.
test('a model_url= download stops at what the checkpoint\'s header allows; zeros are refused at the header; %FF is a link error', async () => {
  const bytes = fs.readFileSync(ckpt), tokBytes = fs.readFileSync(tok);
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const host = 'https://models.example.test/';
  const bodies = {
    '/long.bin': Buffer.concat([bytes, Buffer.alloc(4 << 20)]),  // the model, then 4 MB more
    '/zeros.bin': Buffer.alloc(4 << 20),
    '/tokenizer.bin': tokBytes,
    '/big-tokenizer.bin': Buffer.concat([tokBytes, Buffer.alloc(8 << 20)]),
    '/tiny.bin': bytes,
  };
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.route(host + '**', (route) => {
    const body = bodies[new URL(route.request().url()).pathname];
    return route.fulfill(body ? { status: 200, body, headers: { 'Access-Control-Allow-Origin': '*' } } : { status: 404, body: 'no' });
  });
  const link = (file, tokFile = 'tokenizer.bin') => `#v=1&text=Once&model=tiny.bin@${hash}` +
    `&model_url=${encodeURIComponent(host + file)}&tokenizer_url=${encodeURIComponent(host + tokFile)}`;
  const page = await context.newPage();
  const failed = (what) => untilModel(page, (x) => x.realModel && x.realModel.error && x.modelFetch.file === '', what);
  try {
    await page.goto(suite.server.url + link('long.bin'));
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen, null, { timeout: 60000 });
    let u = await failed('the long file, stopped');
    assert.match(u.realModel.error, new RegExp(`long\\.bin is (more than )?\\d+ bytes, longer than tiny\\.bin can be \\(${bytes.length} bytes, as its header describes\\): stopped`));
    await page.evaluate((h) => { location.hash = h; }, link('zeros.bin'));
    u = await untilModel(page, (x) => x.realModel && /^tiny\.bin: /.test(x.realModel.error || '') && x.modelFetch.file === '', 'the zeros, refused');
    assert.doesNotMatch(u.realModel.error, /SHA-256/, 'refused at the header, not after reading it all');
    await page.evaluate((h) => { location.hash = h; }, link('tiny.bin', 'big-tokenizer.bin'));
    u = await untilModel(page, (x) => x.realModel && /big-tokenizer\.bin is/.test(x.realModel.error || '') && x.modelFetch.file === '', 'the long tokenizer, stopped');
    assert.match(u.realModel.error, /longer than big-tokenizer\.bin can be \(\d+ bytes, the longest tokenizer for the checkpoint's vocabulary\)/);
    // model_url=%FF: refused with the link, never "fetching…" for ever.
    const answer = await page.evaluate((h) => window.attn.openLink(h), link('tiny.bin').slice(1).replace(encodeURIComponent(host + 'tiny.bin'), '%FF'));
    assert.match(answer, /model_url='%FF' is not a percent-encoded address/);
    assert.equal((await ui(page)).modelFetch.file, '', 'nothing is being fetched');
  } finally {
    await context.close();
  }
});

// issue 49, item 15: files the browser will not read, and a store that cannot keep a model, are said on the page.
test('a chosen file the browser refuses to read is said in the Model window; a full or cleared store says "not kept", then keeps again', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url, { width: 1280, height: 720 });
  // The chooser with the same two files again (its value cleared first, as the Model window's button does).
  const chooseAgain = async (p) => {
    await p.evaluate(() => { document.getElementById('model-files').value = ''; });
    await p.setInputFiles('#model-files', [ckpt, tok]);
  };
  try {
    // Chromium refuses to read a file of 2 GiB or more at once (NotReadableError): as such a file behaves.
    await page.evaluate(() => {
      const big = (name) => ({ name, size: 2 ** 31, arrayBuffer: () => Promise.reject(new DOMException('The requested file could not be read', 'NotReadableError')) });
      window.attnShell.readModelFiles([big('huge.bin'), big('tokenizer.bin')]);
    });
    let u = await untilModel(page, (x) => x.realModel && x.realModel.error && x.widgets.model_choose, 'the refusal, said');
    assert.match(u.realModel.error, /^huge\.bin \(2147\.5 MB\) could not be read: The requested file could not be read/);

    // A full store: the model opens, and the window says it is not kept.
    await page.evaluate(() => {
      window.realPut = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function () { throw new DOMException('full', 'QuotaExceededError'); };
    });
    await chooseAgain(page);
    u = await untilModel(page, (x) => x.realModel && x.realModel.ids && x.realModel.notKept && x.widgets.model_not_kept, 'the model, not kept');
    assert.equal(u.realModel.notKept, 'the browser\'s storage for this site is full');
    assert.equal(u.realModel.kept, 0);
    await page.evaluate(() => { IDBObjectStore.prototype.put = window.realPut; });
    await chooseAgain(page);
    u = await untilModel(page, (x) => x.realModel && x.realModel.kept === 1 && x.realModel.notKept === '', 'the model, kept');

    // "Clear site data" closes the store under the page: the next model is kept all the same, without a reload.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(suite.server.url).origin, storageTypes: 'indexeddb' });
    await page.evaluate(() => window.attnShell.models.tell());
    await untilModel(page, (x) => x.realModel.kept === 0, 'the store, emptied');
    await chooseAgain(page);
    u = await untilModel(page, (x) => x.realModel && x.realModel.kept === 1, 'the model, kept again');
    assert.equal(u.realModel.notKept, '');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
