// Regenerates the README's screenshots from the built site:
//   node scripts/screenshots.mjs        (after `python3 serve.py` has built it once)
// Each shot is the real page in headless Chromium, opened on a stage or a lesson.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { root, startServer, launchBrowser, openPage } from '../tests/web/harness.mjs';
import { click, frames, gotoStage, STAGE } from '../tests/web/person.mjs';

const out = path.join(root, 'docs', 'screenshots');
const server = await startServer();
const browser = await launchBrowser();
const { page, context } = await openPage(browser, server.url, { width: 1280, height: 800 });
async function shot(name) {
  await frames(page, 6);
  const file = path.join(out, name + '.png');
  await page.screenshot({ path: file });
  // Fewer colours: a third of the size, no visible difference for a UI.
  execFileSync('convert', [file, '-colors', '96', file]);
  console.log('wrote', file);
}
try {
  for (const [name, stage] of [['stage-embeddings', STAGE.embeddings], ['stage-qkv', STAGE.projections],
    ['stage-masked', STAGE.masked], ['stage-weights', STAGE.weights], ['stage-output', STAGE.wo]]) {
    await gotoStage(page, stage);
    await shot(name);
  }
  for (let l = 1; l <= 8; l++) {
    await click(page, 'lesson' + l);
    await shot('lesson' + l);
  }
} finally {
  await context.close();
  await browser.close();
  server.stop();
}
