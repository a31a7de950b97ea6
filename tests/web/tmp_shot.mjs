import { startServer, launchBrowser, openPage } from './harness.mjs';
import { click, frames, gotoStage, STAGE } from './person.mjs';
const server = await startServer();
const browser = await launchBrowser();
const { page, context } = await openPage(browser, server.url, { width: 1440, height: 900 });
for (const [n, s] of [['emb', STAGE.embeddings], ['qkv', STAGE.projections], ['w', STAGE.weights]]) {
  await gotoStage(page, s); await frames(page, 5); await page.screenshot({ path: `/tmp/s_${n}.png` });
}
await click(page, 'lesson8'); await frames(page, 5); await page.screenshot({ path: '/tmp/s_l8.png' });
await context.close(); await browser.close(); server.stop();
