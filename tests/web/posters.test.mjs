// Posters (view.poster=1, web/posters.js "[Poster]"; docs/embedding.md, "Posters") under
// the conditions issue 29 found broken: a host that changes the experiment
// before the picture is taken, lessons past L8 and a link with a problem, and
// a link that arrives while the poster waits for Run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSuite, openPoster } from './harness.mjs';
import { ui, posterCard, appFiles } from './person.mjs';

const suite = browserSuite();

// A host page of the site's own origin (served by a route, so the frame takes it
// for its parent) holding one frame of `link`, with `script` in it. Service
// workers are blocked so the route, not sw.js, answers the host page.
async function openHost(context, link, script = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  const hostUrl = suite.server.url + 'poster-host.html';
  await page.route(hostUrl, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    body: '<!doctype html><meta charset="utf-8"><title>host</title>' +
      '<iframe id="f" style="width:900px;height:560px;border:0" src="index.html#' + link + '"></iframe>' +
      '<script>' + script + '</script>',
  }));
  await page.goto(hostUrl);
  const frame = await (await page.$('#f')).contentFrame();
  await frame.waitForSelector('#poster-run');
  return { page, frame, problems };
}

test("a poster's picture is kept only under the link it shows: a host's attn:set before the picture keeps it from the poster's link", async () => {
  const poster = 'v=1&text=the%20cat%20sat&view.lesson=2&view.embed=1&view.poster=1';
  const other = 'v=1&text=one%20two%20three%20four&heads=4&mask=none';
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 700 }, serviceWorkers: 'block' });
  try {
    // The host changes the experiment as soon as the frame is up, before its tenth frame.
    const { page, frame, problems } = await openHost(context, poster,
      "addEventListener('message', (e) => { if (e.data && e.data.type === 'attn:ready') e.source.postMessage(" +
      JSON.stringify({ type: 'attn:set', link: other }) + ', location.origin); });');
    await frame.click('#poster-run');
    await frame.waitForFunction(() => typeof (window.attnShell && window.attnShell.posterSaved) === 'boolean');
    const shown = (await ui(frame)).link;
    assert.match(shown, /heads=4/, 'the host\'s experiment is what the frame shows');
    const stored = await frame.evaluate(({ poster, shown }) => ({
      underPoster: window.attnShell.posterPictures.load(poster) !== null,
      underShown: window.attnShell.posterPictures.load(shown) !== null,
    }), { poster, shown });
    assert.deepEqual(stored, { underPoster: false, underShown: true }, 'the picture is of the host\'s experiment: kept under its link only');
    assert.deepEqual(problems, []);
    await page.close();
    // The next visit of the poster's link (the same browser): its own card, not the other experiment's picture.
    const next = await openHost(context, poster);
    assert.deepEqual(await posterCard(next.frame), {
      title: 'L2 Why divide by √d_k', sentence: '“the cat sat”', stage: 'Stage 4 of 11: Scale /√d_k', errors: [], picture: false,
    });
  } finally {
    await context.close();
  }
});

test('the poster card names L9 and L10 with their own sentence and stage; a view.lesson given twice shows the link\'s error, as the app names it', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 800, height: 500 } });
  try {
    const page = await context.newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const open = async (link) => {
      await page.goto(suite.server.url + '#' + link);
      await page.reload();  // a hash-only goto is no new load
      await page.waitForSelector('#poster-run');
      return posterCard(page);
    };
    assert.deepEqual(await open('v=1&view.lesson=9&view.embed=1&view.poster=1'), {
      title: 'L9 Watch an induction head form', sentence: '“j a b c d e f g c d e f g”', stage: 'Stage 6 of 11: Softmax', errors: [], picture: false,
    });
    assert.deepEqual(await open('v=1&view.lesson=10&view.embed=1&view.poster=1'), {
      title: 'L10 A shortcut, not a circuit', sentence: '“j a b c d e f g c d e f g”', stage: 'Stage 6 of 11: Softmax', errors: [], picture: false,
    });
    // A view.lesson given twice opens no lesson: the card says what is wrong instead
    // of naming either lesson (it named the first), even with a picture stored under it.
    const twice = 'v=1&view.lesson=2&view.lesson=9&view.embed=1&view.poster=1';
    await page.evaluate((l) => window.attnShell.posterPictures.save(l,
      { width: 4, height: 3, theme: 'dark', data: 'data:image/jpeg;base64,AAAA' }), twice);
    const card = await open(twice);
    assert.deepEqual(card, { title: 'This link cannot be opened', sentence: null, stage: null, errors: ["'view.lesson' is given twice"], picture: false });
    assert.deepEqual(appFiles(requests), [], 'nothing of the app before Run');
    // Run: the app says the same.
    await page.click('#poster-run');
    await page.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen);
    const appErrors = (await page.evaluate(() => window.attn.errors())).split('\n').filter((l) => l);
    for (const e of card.errors) assert.ok(appErrors.includes(e), `the app's errors ${JSON.stringify(appErrors)} include ${e}`);
    // And a lesson or stage out of range: the app's words too.
    const cases = [['v=1&view.lesson=14&view.poster=1', "view.lesson must be a whole number from -1 to 13, not '14'"],
      ['v=1&view.lesson=0&view.poster=1', 'view.lesson counts from 1 (L1), not 0'],
      ['v=1&view.stage=x&view.poster=1', "view.stage must be a whole number from -1 to 10, not 'x'"]];
    for (const [link, said] of cases)
      assert.equal(await page.evaluate((l) => window.attn.openLink(l).split('\n')[0], link), said, link);
    for (const [link, said] of cases)
      assert.deepEqual((await open(link)).errors, [said], link);
  } finally {
    await context.close();
  }
});

test('a link that arrives while a poster waits (pasted, Back) is the one shown and run; a link that is no poster starts the app on it', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 800, height: 500 } });
  try {
    const l2 = 'v=1&text=the%20cat%20sat&view.lesson=2&view.embed=1&view.poster=1';
    const l4 = 'v=1&view.lesson=4&view.embed=1&view.poster=1';
    const { page, requests, problems } = await openPoster(suite.browser, suite.server.url + '#' + l2, { context });
    // Pasted: the poster shows the new link.
    await page.evaluate((l) => { location.hash = '#' + l; }, l4);
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L4'));
    // Back: the first link's poster again; Forward: L4's.
    await page.goBack();
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L2'));
    await page.goForward();
    await page.waitForFunction(() => document.querySelector('#poster h1').textContent.startsWith('L4'));
    assert.equal(await page.evaluate(() => document.querySelectorAll('#poster').length), 1, 'one poster, replaced');
    assert.deepEqual(appFiles(requests), [], 'still nothing of the app');
    // Run opens the link the poster shows, and the address bar keeps it.
    await page.click('#poster-run');
    await page.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen);
    const s = await ui(page);
    assert.equal(s.lesson, 3, 'L4 opened');
    assert.equal(await page.evaluate(() => window.attn.errors()), '');
    await page.waitForFunction(() => /view\.lesson=4/.test(location.hash));
    assert.doesNotMatch(await page.evaluate(() => location.hash), /view\.lesson=2/);

    // A link without view.poster pasted while a poster waits: the app starts on it.
    const { page: page2, problems: problems2 } = await openPoster(suite.browser, suite.server.url + '#' + l2, { context });
    await page2.evaluate(() => { location.hash = '#v=1&text=four%20five&heads=1'; });
    await page2.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen);
    assert.match(await page2.evaluate(() => window.attn.experiment()), /text=four%20five&.*heads=1/);
    assert.equal(await page2.evaluate(() => document.getElementById('poster')), null);
    assert.deepEqual(problems, []);
    assert.deepEqual(problems2, []);
  } finally {
    await context.close();
  }
});

test("a diverging recipe's poster gets its picture where the run stopped (it will never be done)", async () => {
  const poster = 'v=1&text=a%20b%20c&train=induction&steps=300&lr=10&wd=1&clip=0&view.embed=1&view.poster=1';
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 700 }, serviceWorkers: 'block' });
  try {
    const { frame, problems } = await openHost(context, poster);
    await frame.click('#poster-run');
    await frame.waitForFunction(() => typeof (window.attnShell && window.attnShell.posterSaved) === 'boolean', null, { timeout: 120000 });
    const t = (await ui(frame)).train;
    assert.equal(t.stopped, true);
    const picture = await frame.evaluate((p) => window.attnShell.posterPictures.load(p), poster);
    assert.ok(picture, 'the picture is kept under the poster\'s link');
    assert.equal(picture.step, t.step, 'it says the step it shows: where the run stopped');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
