// A diverged run (issue 29, item 4): L9's shape with lr·wd = 10 makes the loss
// NaN at step 21. The page says where the run stopped and why, its held-out
// accuracy over NaN logits is NaN, and Reset, undo and the scrubber restore the
// kept snapshots, the link naming the step the page shows. An embed's host hears
// attn:train with stopped and the error, never done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, openPage, browserSuite, withPage } from './harness.mjs';
import { frames, ui, click, key, widget, reveal, startEmbed, hearTraining } from './person.mjs';

const suite = browserSuite();

// L9's recipe (src/core/spec/recipe.hpp) at 300 steps, with a learning rate and weight
// decay whose product flips the weights' sign every step.
function divergingRecipe() {
  const src = fs.readFileSync(path.join(root, 'src', 'core', 'spec', 'recipe.hpp'), 'utf8');
  const l9 = src.match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
  return l9.replace('steps=1500', 'steps=300') + '&lr=10&wd=1&clip=0';
}

const train = async (page) => (await ui(page)).train;
const summary = async (page) => (await page.evaluate(() => window.attn.textView())).summary;

// Frame by frame until the trainer has nothing more to do: done, or stopped,
// and the held-out measure of the step it shows taken (it lands frames later).
async function settle(page, limit = 20000) {
  for (let i = 0; i < limit; i++) {
    const t = await train(page);
    assert.ok(t, 'the page has a training run');
    if ((t.done || t.stopped) && !t.measuring) return t;
    await frames(page, 1);
  }
  throw new Error('training neither reached its step nor stopped');
}

async function stoppedAt21(page) {
  const t = await settle(page);
  assert.equal(t.stopped, true, 'the run stopped');
  assert.equal(t.done, false, 'a stopped run is not done');
  assert.equal(t.step, 21, 'the weights are where it stopped');
  assert.equal(t.target, 300);
  assert.match(t.error, /loss became NaN at step 21/);
  assert.equal(t.hash, null, 'no hash of a finished model');
  assert.equal(t.heldOutAccuracy, null, 'NaN (JSON null): no argmax over NaN logits');
  assert.equal(t.heldOutLoss, null);
  assert.match(await summary(page), /Training stopped at step 21 of 300: loss became NaN at step 21[^.]*\. Held-out accuracy NaN\./,
    'the text view says where and why, and NaN as NaN');
  assert.doesNotMatch(await summary(page), /Trained to step/);
  return t;
}

test('a diverged run says where it stopped and why; Reset, undo and the scrubber restore kept snapshots', async () => {
  const recipe = divergingRecipe();
  await withPage(suite.browser, `${suite.server.url}#${recipe}`, { width: 1440, height: 900 }, async ({ page, problems }) => {
    let t = await stoppedAt21(page);
    assert.deepEqual(t.kept.map((k) => k.step), [0, 5, 10, 15, 20], 'the snapshots taken before the stop');
    const kept = t.kept;

    // Reset: step 0 again, the stop cleared, and the link says trained=0.
    await reveal(page, 'train_reset');
    await click(page, 'train_reset');
    t = await settle(page);
    assert.equal(t.done, true);
    assert.equal(t.stopped, false);
    assert.equal(t.step, 0);
    assert.equal(t.error, '');
    assert.equal(t.heldOutAccuracy, kept[0].heldOutAccuracy, 'the measures of the kept step 0');
    assert.ok((await ui(page)).link.includes('&trained=0'));

    // Undo: the run as the link asked for it, stopped at 21 again.
    await key(page, 'Control+z');
    await stoppedAt21(page);
    assert.doesNotMatch((await ui(page)).link, /&trained=/);

    // The scrubber back to the kept step 10 (a stop of the grid's 61 and the dense snapshots taken,
    // ui().train.stops): restored, measured as kept.
    await reveal(page, 'train_scrub');
    const w = await widget(page, 'train_scrub');
    const stops = (await ui(page)).train.stops, index = stops.indexOf(10);
    assert.ok(index > 0, JSON.stringify(stops));
    const width = w[2] - w[0], grab = Math.max((width - 4) / stops.length, 4);
    await click(page, 'train_scrub', (2 + grab / 2 + (index / (stops.length - 1)) * (width - 4 - grab)) / width);
    t = await settle(page);
    assert.equal(t.done, true);
    assert.equal(t.stopped, false);
    assert.equal(t.step, 10, 'the model shown is the one the link names');
    assert.ok((await ui(page)).link.includes('&trained=10'));
    const mark = kept.find((k) => k.step === 10);
    assert.equal(t.heldOutAccuracy, mark.heldOutAccuracy);
    assert.equal(t.heldOutLoss, mark.heldOutLoss);
    assert.match(await summary(page), /Trained to step 10 of 300; held-out accuracy \d+%\./);

    // Step goes on from there; at the stop, Step is not offered (the next loss is NaN).
    await reveal(page, 'train_step');
    await click(page, 'train_step');
    t = await settle(page);
    assert.equal(t.step, 11);
    assert.ok((await ui(page)).link.includes('&trained=11'));
    await click(page, 'train_run');
    await stoppedAt21(page);
    const before = (await ui(page)).link;
    await click(page, 'train_step');
    await frames(page, 2);
    assert.equal((await ui(page)).link, before, 'Step is disabled on a stopped run: the link does not name a step never shown');
    assert.equal((await train(page)).step, 21);
  });
});

test('an embed\'s host hears attn:train with stopped and the error, never done, when the loss becomes NaN', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
    await page.goto(suite.server.url + 'blog.html');
    const handle = (await page.$$('iframe.attn'))[1];
    await handle.scrollIntoViewIfNeeded();
    await startEmbed(await handle.contentFrame());
    const heard = await hearTraining(page, divergingRecipe());
    const last = heard.at(-1);
    assert.equal(last.stopped, true, JSON.stringify(last));
    assert.equal(last.done, false, 'not done, as if it had finished');
    assert.equal(last.step, 21);
    assert.equal(last.target, 300);
    assert.match(last.error, /loss became NaN at step 21/);
    assert.equal(last.heldOutAccuracy, null);
    assert.equal(last.hash, null);
    assert.ok(heard.every((m) => !m.done), 'no attn:train said done');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
