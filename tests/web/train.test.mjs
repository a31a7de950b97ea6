// Training is deterministic across wasm engines: Chromium trains the first 20
// steps of the induction lesson (src/core/recipe.hpp) to the same weights, bit
// for bit, as Node does in the core tests (tests/core/test_train_learning.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, openPage, browserSuite } from './harness.mjs';

const suite = browserSuite();

// The recipe and the hash, read from the core's own sources so the two never drift.
function lessonRecipe() {
  const src = fs.readFileSync(path.join(root, 'src', 'core', 'recipe.hpp'), 'utf8');
  return src.match(/recipe_lesson_induction =\s*"([^"]+)"/)[1];
}
function recordedHash() {
  const src = fs.readFileSync(path.join(root, 'tests', 'core', 'test_train_learning.cpp'), 'utf8');
  return src.match(/train_weights_hash\(\*init\.run\) == "([0-9a-f]{16})"/)[1];
}

test('Chromium trains the induction lesson to the weights Node computes, bit for bit', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  await page.waitForFunction(() => window.attn && window.attn.trainHash, null, { timeout: 60000 });
  const recipe = lessonRecipe().replace(/steps=\d+/, 'steps=20');
  const hash = await page.evaluate((r) => window.attn.trainHash(r), recipe);
  assert.equal(hash, recordedHash());
  const bad = await page.evaluate(() => window.attn.trainHash('v=1&train=induction&lr=nan'));
  assert.match(bad, /^error: lr must be a finite number/);
  await page.close();
});
