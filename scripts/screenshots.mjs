// Regenerates docs/screenshots/ (the README's and docs/using.md's) from the built site:
//   node scripts/screenshots.mjs        (after `python3 serve.py` has built it once)
// Each shot is the real page in headless Chromium: every stage and every lesson at
// 1440×900, and the phone layout (844×390, a phone in landscape) on a few of them.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { root, startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';
import { click, frames, gotoStage, reveal, revealCells, STAGE } from '../tests/web/person.mjs';

const out = path.join(root, 'docs', 'screenshots');
const server = await startServer();
const browser = await launchBrowser();

async function shot(page, name) {
  await page.mouse.move(1, 1);  // off the button just pressed: no tooltip in the picture
  await frames(page, 6);
  const file = path.join(out, name + '.png');
  await page.screenshot({ path: file });
  // Fewer colours: a third of the size, no visible difference for a UI.
  execFileSync('convert', [file, '-colors', '96', file]);
  console.log('wrote', file);
}

// Presses Train, lets it run to `step`, pauses there (the step the picture shows).
async function train(page, step) {
  await reveal(page, 'train_run');  // on a phone it is below the lesson's text
  await click(page, 'train_run');
  await page.waitForFunction((s) => window.attn.ui().train.step >= s, step, { timeout: 600000, polling: 500 });
  const t = await page.evaluate(() => window.attn.ui().train);
  if (!t.done) await click(page, 'train_pause');
  await page.waitForFunction(() => window.attn.ui().train.done, null, { timeout: 60000 });
}

// The residual + FFN stage exists only with the full block.
async function experiment(page, link) {
  await page.evaluate((l) => window.attn.setExperiment(l), link);
  await frames(page, 2);
}

async function stages(page, prefix, only) {
  for (const [key, stage] of Object.entries(STAGE)) {
    if (only && !only.includes(key)) continue;
    if (key === 'block') await experiment(page, 'v=1&block=full');
    await gotoStage(page, stage);
    await shot(page, prefix + 'stage-' + key);
    if (key === 'block') await experiment(page, 'v=1');
  }
}

async function lessons(page, prefix, only) {
  for (let l = 1; l <= 12; l++) {
    if (only && !only.includes(l)) continue;
    await reveal(page, 'lesson' + l);
    await click(page, 'lesson' + l);
    if (l >= 9 && l <= 10) {  // the training lessons, trained to the end, seen from the lesson's top
      await train(page, l === 9 ? 1500 : 300);
      await reveal(page, 'lesson' + l);
    }
    if (l >= 11) {  // L9's model (kept or trained), its circuit read
      await page.waitForFunction(() => {
        const u = window.attn.ui(), n = u.numbers;
        return u.train && u.train.done && n.snapshots > 0 && n.snapshots_done === n.snapshots && n.claims_done !== 0;
      }, null, { timeout: 1200000, polling: 250 });
      await reveal(page, 'lesson' + l);
    }
    if (l === 11 && !prefix) {
      await shot(page, 'lesson11');
      await revealCells(page, 'l11_patch_map');
      await shot(page, 'lesson11-patch');
      continue;
    }
    await shot(page, prefix + 'lesson' + l);
    if (l === 9 && !prefix) {
      await click(page, 'l9_zero_induction');
      await shot(page, 'lesson9-zeroed');
    }
  }
}

try {
  for (const [prefix, size, onlyStages, onlyLessons] of [
    ['', { width: 1440, height: 900 }, null, null],
    ['phone-', { width: 844, height: 390 }, ['embeddings', 'weights'], [1, 4, 7, 9, 11]],
  ]) {
    const { page, context } = await openPage(browser, server.url, size);
    try {
      await stages(page, prefix, onlyStages);
      await lessons(page, prefix, onlyLessons);
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.stop();
}
