// Training is deterministic across wasm engines: Chromium trains the first 20
// steps of the induction lesson (src/core/recipe.hpp) to the same weights, bit
// for bit, as Node does in the core tests (tests/core/test_train_learning.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, openPage, browserSuite } from './harness.mjs';

const suite = browserSuite();

// The recipe and the hashes, read from the core's own sources so they never drift.
function lessonRecipe() {
  const src = fs.readFileSync(path.join(root, 'src', 'core', 'recipe.hpp'), 'utf8');
  return src.match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
}
function recordedHashes() {
  const src = fs.readFileSync(path.join(root, 'tests', 'core', 'test_train_learning.cpp'), 'utf8');
  const m = src.match(/recorded_hash_step0 = "([0-9a-f]{16})"[\s\S]*recorded_hash_step20 = "([0-9a-f]{16})"/);
  return { step0: m[1], step20: m[2] };
}

test('Chromium trains the induction lesson to the weights Node computes, bit for bit', async () => {
  const { page, problems } = await openPage(suite.browser, suite.server.url);
  const recipe = lessonRecipe();
  const recorded = recordedHashes();
  assert.equal(await page.evaluate((r) => window.attn.trainHash(r, 0), recipe), recorded.step0);
  assert.equal(await page.evaluate((r) => window.attn.trainHash(r, 20), recipe), recorded.step20);
  const bad = await page.evaluate(() => window.attn.trainHash('v=1&train=induction&lr=nan'));
  assert.match(bad, /^error: lr must be a finite number/);
  assert.deepEqual(problems, []);
  await page.close();
});
