// The training lessons as a person sees them after training, for reading by eye:
//   node scripts/look.mjs [out-dir]     (after `python3 serve.py` has built the site)
// L9 and L10 trained to the end at 1440×900, 1280×720 and a touch phone (844×390),
// in English and 中文, light and dark; prints what each frame clipped.
import path from 'node:path';
import { startServer, launchBrowser } from '../tests/web/harness.mjs';
import { frames } from '../tests/web/person.mjs';

const out = process.argv[2] || '/tmp/look';
const server = await startServer();
const browser = await launchBrowser();
const SIZES = [
  ['1440', { width: 1440, height: 900 }, false],
  ['1280', { width: 1280, height: 720 }, false],
  ['phone', { width: 844, height: 390 }, true],
];
try {
  for (const [name, viewport, touch] of SIZES) {
    for (const [lang, theme] of [['en', 'light'], ['zh', 'dark'], ['en', 'dark'], ['zh', 'light']]) {
      if (!touch && lang === 'en' && theme === 'dark' && name === '1280') continue;
      const context = await browser.newContext({ viewport, colorScheme: theme, hasTouch: touch, isMobile: touch });
      await context.addInitScript(([l, t]) => {
        window.localStorage.setItem('attn.lang', l);
        window.localStorage.setItem('attn.theme', t);
      }, [lang, theme]);
      const page = await context.newPage();
      try {
        for (const lesson of [9, 10]) {
          await page.goto(server.url + '#v=1&view.lesson=' + lesson);
          await page.waitForFunction(() => window.attn && window.attn.ui().train && window.attn.ui().train.done, null,
            { timeout: 600000, polling: 500 });
          await frames(page, 8);
          const file = path.join(out, `L${lesson}-${name}-${lang}-${theme}.png`);
          await page.screenshot({ path: file });
          const u = await page.evaluate(() => window.attn.ui());
          console.log(file, 'clipped', u.clipped, JSON.stringify(u.clippedItems.slice(0, 4)));
        }
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  server.stop();
}
