// Posters (view.poster=1, web/shell.js "[Poster]"; README.md, "Posters") under
// the conditions issue 29 found broken: a link that arrives while the poster
// waits for Run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite } from './harness.mjs';
import { ui } from './person.mjs';

const suite = browserSuite();
const appFiles = (urls) => urls.filter((u) => /\/attn\.(wasm|js|data)(\?|$)/.test(u));

test('a link that arrives while a poster waits (pasted, Back) is the one shown and run; a link that is no poster starts the app on it', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 800, height: 500 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const l2 = 'v=1&text=the%20cat%20sat&view.lesson=2&view.embed=1&view.poster=1';
    const l4 = 'v=1&view.lesson=4&view.embed=1&view.poster=1';
    await page.goto(suite.server.url + '#' + l2);
    await page.waitForSelector('#poster-run');
    // Pasted: the poster shows the new link.
    await page.evaluate((l) => { location.hash = '#' + l; }, l4);
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L4'), null, { timeout: 10000 });
    // Back: the first link's poster again; Forward: L4's.
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L2'), null, { timeout: 10000 });
    await page.goForward();
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L4'), null, { timeout: 10000 });
    assert.equal(await page.evaluate(() => document.querySelectorAll('#poster').length), 1, 'one poster, replaced');
    assert.deepEqual(appFiles(requests), [], 'still nothing of the app');
    // Run opens the link the poster shows, and the address bar keeps it.
    await page.click('#poster-run');
    await page.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen, null, { timeout: 60000 });
    const s = await ui(page);
    assert.equal(s.lesson, 3, 'L4 opened');
    assert.equal(await page.evaluate(() => window.attn.errors()), '');
    await page.waitForFunction(() => /view\.lesson=4/.test(location.hash), null, { timeout: 10000 });
    assert.doesNotMatch(await page.evaluate(() => location.hash), /view\.lesson=2/);

    // A link without view.poster pasted while a poster waits: the app starts on it.
    const page2 = await context.newPage();
    await page2.goto(suite.server.url + '#' + l2);
    await page2.waitForSelector('#poster-run');
    await page2.evaluate(() => { location.hash = '#v=1&text=four%20five&heads=1'; });
    await page2.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen, null, { timeout: 60000 });
    assert.match(await page2.evaluate(() => window.attn.experiment()), /text=four%20five&.*heads=1/);
    assert.equal(await page2.evaluate(() => document.getElementById('poster')), null);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
