// L9's card says only what the model at its step supports, in words built from
// that state, and the text view carries the same sentences with the numbers
// behind them; in 中文 the sentences read as Chinese and wrap between characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, browserSuite, keepRun, lessonRecipe } from './harness.mjs';
import { ui, click, key, reveal, frames, hoverCell, tooltipValue } from './person.mjs';

let page, problems;
browserSuite(async (s) => {
  ({ page, problems } = await openPage(s.browser, s.server.url, { width: 1440, height: 900 }));
});

const textView = () => page.evaluate(() => window.attn.textView());
const lines = async () => (await textView()).lesson.lines;

async function trained() {
  await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.done; }, null, { timeout: 600000, polling: 250 });
  return (await ui(page)).train;
}

async function openL9() {
  await reveal(page, 'lesson9');
  await click(page, 'lesson9');
  assert.equal((await ui(page)).lesson, 8);
}

test('L9 trained: the card words its claims from the model, and the text view has them with the head and curve tables', async () => {
  await openL9();
  let l = await lines();
  assert.ok(l.some((s) => /^Press Train in the Train panel/.test(s)), `untrained: ${l.join(' | ')}`);
  assert.ok(!l.some((s) => /^[123]\. /.test(s)), `no claim before training: ${l.join(' | ')}`);
  await keepRun(page, lessonRecipe());  // trained once for every test that reads it (harness.mjs)
  await click(page, 'train_run');
  const t = await trained();
  assert.equal(t.step, 1500);
  const n = (await ui(page)).numbers;
  assert.ok(n.plateau_loss > 2 && n.loss_now < 0.05, `a plateau at ${n.plateau_loss}, then ${n.loss_now}`);
  const doc = await textView();
  l = doc.lesson.lines;
  const plateau = l.find((s) => s.startsWith('1. A plateau'));
  assert.ok(plateau, l.join(' | '));
  assert.ok(plateau.includes(`at step ${n.phase}`) && plateau.includes(n.plateau_loss.toFixed(2)), plateau);
  assert.ok(l.some((s) => s.startsWith(`2. Layer 1 · head ${n.induction_head}'s induction score jumps`)), l.join(' | '));
  assert.ok(l.some((s) => s.startsWith(`3. It reads through layer 0 · head ${n.previous_head}`)), l.join(' | '));
  assert.ok(!l.some((s) => /breaks the task/.test(s)), 'nothing is zeroed yet: no word on what zeroing does');
  const [heads, curve] = doc.lesson.tables;
  assert.equal(heads.rows.length, 8, 'every head of 2 layers × 4');
  assert.deepEqual(heads.cols.slice(0, 2), ['previous-token', 'induction']);
  assert.equal(heads.cells[4 + n.induction_head][1], n.induction_score.toFixed(2));
  assert.equal(curve.rows.length, 61, 'the curve at every kept snapshot, 0 … 1500 by 25');
  assert.equal(curve.rows[60], 'step 1500');
  assert.match(doc.summary, new RegExp(`The train loss fell at step ${n.phase}, from a plateau at`));
  // Every head zeroed alone, one a frame: the induction head and the previous-token
  // head break the task, and the table agrees with the card's own ablation below.
  await page.waitForFunction(() => (window.attn.textView().lesson.tables[2] || {}).caption === 'Each head zeroed alone, at step 1500',
    null);
  const each = (await textView()).lesson.tables[2];
  assert.deepEqual(each.rows, ['none zeroed', ...[0, 1].flatMap((L) => [0, 1, 2, 3].map((h) => `layer ${L} head ${h} zeroed`))]);
  assert.deepEqual(each.cols, ['held-out accuracy', 'held-out loss']);
  const acc = (row) => Number(each.cells[row][0].replace('%', ''));
  assert.ok(acc(0) > 90, `intact: ${each.cells[0]}`);
  assert.ok(acc(1 + 4 + n.induction_head) < 40, `the induction head zeroed: ${each.cells[1 + 4 + n.induction_head]}`);
  assert.ok(acc(1 + n.previous_head) < 40, `the previous-token head zeroed: ${each.cells[1 + n.previous_head]}`);
  // The Train panel's map of the induction head gives the hovered cell's weight, with its tokens.
  const map = `train_map_1_${n.induction_head}`;
  const cells = (await ui(page)).maps.find((m) => m.name === map).cells;  // n² cells, or n(n+1)/2 under a causal mask
  const square = Math.round(Math.sqrt(cells));
  const side = square * square === cells ? square : Math.round((Math.sqrt(8 * cells + 1) - 1) / 2);
  const tip = await hoverCell(page, map, side - 1, 0, side, side);
  assert.match(tip, new RegExp(`^row ${side - 1} \\(\\S+\\)   column 0 \\(\\S+\\)   value `), tip);
  const v = tooltipValue(tip);
  assert.ok(v >= 0 && v <= 1, tip);
  await page.mouse.move(2, 2);
  // Zeroing the induction head: the card says what it did, from the result.
  await click(page, 'l9_zero_induction');
  await trained();
  await page.waitForFunction(() => window.attn.ui().numbers.task_acc_zeroed !== undefined);
  assert.equal(((await ui(page)).numbers.task_acc_zeroed * 100).toFixed(1) + '%', each.cells[1 + 4 + n.induction_head][0],
    'the table and the card give one accuracy for the induction head zeroed');
  l = await lines();
  assert.ok(l.some((s) => /^held-out accuracy with it zeroed: \d+%/.test(s)), l.join(' | '));
  assert.ok(l.some((s) => /zeroing it breaks the task/.test(s)), l.join(' | '));
  await click(page, 'l9_zero_other');
  // The card words it once the zeroed model's held-out measure lands (a few rows a frame).
  const standing = (l) => !l.some((s) => /breaks the task/.test(s)) && l.some((s) => /leaves the task standing/.test(s));
  await page.waitForFunction(() => window.attn.textView().lesson.lines.some((s) => /leaves the task standing/.test(s)))
    .catch(() => {});
  l = await lines();
  assert.ok(standing(l), l.join(' | '));
  await click(page, 'l9_zero_none');
  assert.deepEqual(problems, []);
});

test('中文: the sentences are Chinese with no stray colon, the toast follows the language, and lines wrap between characters', async () => {
  // A notice in English ("Embed code copied."), then the switch: it does not stay in English.
  await page.evaluate(() => { window.attnShell.copyText = () => {}; });
  await reveal(page, 'share');
  const before = (await ui(page)).widgets.lesson_next;
  await click(page, 'share');
  await click(page, 'share_copy_embed');
  await page.waitForFunction(() => window.attn.ui().widgets.toast);
  const shown = await ui(page);
  assert.ok(shown.widgets.toast && !shown.widgets.banner, 'the notice is a toast');
  assert.deepEqual(shown.widgets.lesson_next, before, 'the toast moves nothing under it');
  await key(page, 'l');
  await page.waitForFunction(() => window.attn.textView().lang === 'zh');
  assert.ok(!(await ui(page)).widgets.toast, 'no English notice left in 中文');
  const l = await lines();
  assert.ok(l.length >= 4, l.join(' | '));
  for (const s of l) {
    assert.doesNotMatch(s, /:\s*步/, `a format's colon in the sentence: ${s}`);
    assert.doesNotMatch(s, /[A-Za-z]{3,}/, `English in a Chinese sentence: ${s}`);
  }
  assert.ok(l.some((s) => s.startsWith('1. 训练损失先停在')), l.join(' | '));
  // On a phone in landscape the card's Chinese lines break between characters:
  // none of its sentences is cut (a clip report names an item by its first 40 bytes).
  await page.setViewportSize({ width: 844, height: 390 });
  try {
    for (const name of ['lesson_next', 'l9_zero_induction']) {
      await reveal(page, name);
      const state = await ui(page);
      const doc = await textView();
      const card = [doc.lesson.text, ...doc.lesson.lines];
      const cut = state.clippedItems.filter((c) => card.some((s) => s.startsWith(c.text)));
      assert.deepEqual(cut, [], 'the card cut at 844×390');
    }
  } finally {
    await page.setViewportSize({ width: 1440, height: 900 });
    await key(page, 'l');
    await page.waitForFunction(() => window.attn.textView().lang === 'en');
  }
  assert.deepEqual(problems, []);
});

test('L9 scrubbed back before the drop: no induction head yet, no drop yet, and no claim 3 alone', async () => {
  const link = (await ui(page)).link;
  assert.doesNotMatch(link, /trained=/);
  await page.evaluate((l) => { location.hash = l + '&trained=275'; }, link);
  await page.waitForFunction(() => { const t = window.attn.ui().train; return t && t.step === 275 && t.done; }, null, { timeout: 120000 });
  assert.equal((await ui(page)).lesson, 8);
  const n = (await ui(page)).numbers;
  assert.equal(n.step, 275);
  assert.equal(n.induction_shown, 0);
  const l = await lines();
  assert.ok(l.includes('1. No drop yet at step 275: train loss ' + n.loss_now.toFixed(2) + '.'), l.join(' | '));
  assert.ok(l.some((s) => s.startsWith('2. No induction head yet at step 275: the highest induction score is')), l.join(' | '));
  assert.ok(!l.some((s) => /^3\. |reads through|jumps/.test(s)), l.join(' | '));
  assert.deepEqual(problems, []);
});

test('L9 with the recipe changed to reverse: no induction claims, the heads read as an anti-diagonal', async () => {
  await reveal(page, 'train_recipe');
  // reveal() stops once the fold is inside the viewport; it may still sit under the
  // panel's top edge (the menu bar): a notch more, so the click lands on it.
  for (let i = 0; i < 5; i++) {
    const u = await ui(page);
    const win = u.windows.find((w) => w.name === u.widgetWindows.train_recipe);
    const w = u.widgets.train_recipe;
    if (!win || w[1] >= win.rect[1]) break;
    await page.mouse.move((w[0] + w[2]) / 2, (win.rect[1] + win.rect[3]) / 2);
    await page.mouse.wheel(0, -120);
    await frames(page, 3);
  }
  await click(page, 'train_recipe');
  await click(page, 'recipe_task');
  await click(page, 'recipe_task_2');  // reverse (the train key's order: induction, copy_offset, reverse, sort, previous)
  await click(page, 'recipe_steps', 0.01);  // a short run: the claims hang on the task, not on the training
  assert.match(await page.evaluate(() => window.attn.experiment()), /&train=reverse/);
  assert.equal((await ui(page)).lesson, 8, 'still L9');
  await reveal(page, 'train_run');
  await click(page, 'train_run');
  await trained();
  const n = (await ui(page)).numbers;
  assert.equal(n.induction_shown, 0);
  const l = await lines();
  assert.ok(l.some((s) => s.startsWith('This model is trained on reverse, not on the induction task')), l.join(' | '));
  assert.ok(l.some((s) => /anti-diagonal score (is )?\d\.\d\d/.test(s)), l.join(' | '));
  assert.ok(!l.some((s) => /^[23]\. |reads through|induction score|breaks the task|drop at step 139/.test(s)), l.join(' | '));
  await key(page, 'Control+z', 3);  // Train, the steps, the task: back to the lesson's recipe
  assert.match(await page.evaluate(() => window.attn.experiment()), /&train=induction/);
  assert.deepEqual(problems, []);
});
