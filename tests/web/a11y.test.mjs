// Open to everyone: the text view a screen reader reads instead of the canvas
// (real tables of the stage's numbers, a live region saying what changed),
// the skip button and the View menu that show it, and a page that lets the
// browser zoom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openPage, withPage, openPoster, browserSuite, root, screenshotPixels } from './harness.mjs';
import { frames, ui, trace, click, widget, gotoStage, STAGE, num, posterCard, appFiles, holdKey, reveal, contrastIn } from './person.mjs';

const suite = browserSuite();

// The text view's tables as the DOM holds them: caption, header row, rows.
const domTables = (page) => page.evaluate(() => Array.from(document.querySelectorAll('#textview table')).map((t) => ({
  caption: t.caption.textContent,
  cols: Array.from(t.tHead.rows[0].cells).slice(1).map((c) => c.textContent),
  rows: Array.from(t.tBodies[0].rows).map((r) => ({
    header: r.cells[0].textContent,
    scope: r.cells[0].getAttribute('scope'),
    cells: Array.from(r.cells).slice(1).map((c) => c.textContent),
  })),
})));

test('the text view holds the weights stage as tables equal to the trace, masked cells in words', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&text=the%20cat%20sat&heads=2&mask=causal&view.stage=5', async ({ page }) => {
    assert.equal((await ui(page)).stage, STAGE.weights);
    await page.waitForFunction(() => document.querySelectorAll('#textview table').length === 2);
    const tables = await domTables(page);
    const t = await trace(page);
    assert.deepEqual(tables.map((x) => x.caption), ['P, head 0 (3 × 3)', 'P, head 1 (3 × 3)']);
    for (let h = 0; h < 2; ++h) {
      const w = t.layers[0].heads[h].weights;
      assert.deepEqual(tables[h].cols, t.tokens);
      for (let r = 0; r < 3; ++r) {
        assert.equal(tables[h].rows[r].header, t.tokens[r]);
        assert.equal(tables[h].rows[r].scope, 'row');
        for (let c = 0; c < 3; ++c) {
          const cell = tables[h].rows[r].cells[c];
          if (c > r) assert.equal(cell, 'masked', `head ${h} (${r}, ${c})`);
          else assert.ok(Math.abs(Number(cell) - num(w.data[r * 3 + c])) <= 0.006, `head ${h} (${r}, ${c}): ${cell} vs ${w.data[r * 3 + c]}`);
        }
      }
    }
    // Hidden from sight, not from assistive technology: present, one pixel.
    const box = await page.evaluate(() => { const r = document.getElementById('textview').getBoundingClientRect(); return [r.width, r.height]; });
    assert.ok(box[0] <= 1 && box[1] <= 1);
    // The hook and the DOM say the same.
    const doc = await page.evaluate(() => window.attn.textView());
    assert.equal(doc.tables[1].cells[2][0], tables[1].rows[2].cells[0]);
  });
});

test('the live region announces an ablation and its effect on the output', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&text=the%20cat%20sat%20down&heads=2&view.stage=5', async ({ page }) => {
    await page.waitForFunction(() => /Stage 6 of 11/.test(document.getElementById('announce').textContent));
    await click(page, 'zero_head1');
    await page.waitForFunction(() => /1 head\(s\) zeroed/.test(document.getElementById('announce').textContent));
    const said = await page.evaluate(() => document.getElementById('announce').textContent);
    const effect = Number(/max \|Δy\| ([0-9.e+-]+)/.exec(said)[1]);
    assert.ok(effect > 0, said);
    const region = await page.evaluate(() => {
      const a = document.getElementById('announce');
      return [a.getAttribute('aria-live'), a.getAttribute('role')];
    });
    assert.deepEqual(region, ['polite', 'status']);
    // The table of the zeroed head says so in its caption.
    await page.waitForFunction(() => /head 1 \(zeroed\)/.test(document.getElementById('textview').textContent));
  });
});

test('the View menu and the skip button show the text view; Escape hides it', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&text=one%20two&view.stage=2', async ({ page }) => {
    await click(page, 'view_menu');
    await click(page, 'view_text');
    await page.waitForFunction(() => document.getElementById('textview').classList.contains('open'));
    const open = await page.evaluate(() => {
      const r = document.getElementById('textview').getBoundingClientRect();
      return { w: r.width, h: r.height, focused: document.activeElement.id };
    });
    assert.ok(open.w > 200 && open.h > 200, JSON.stringify(open));
    assert.equal(open.focused, 'textview');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.getElementById('textview').classList.contains('open'));
    // Closed, the focus is back on the canvas; the skip button comes just before it.
    assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'skip');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('textview').classList.contains('open'));
    await frames(page, 2);
  });
});

test('the page lets the browser zoom: no maximum-scale, no user-scalable=no', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const viewport = await page.evaluate(() => document.querySelector('meta[name=viewport]').content);
    assert.doesNotMatch(viewport, /maximum-scale|user-scalable\s*=\s*no/);
  });
});

// axe-core (npm) on a page: its serious and critical violations, one line each.
async function axeProblems(page) {
  await page.addScriptTag({ path: path.join(root, 'node_modules', 'axe-core', 'axe.min.js') });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

test('axe-core finds no serious or critical problem on the page, an embed and the blog page', async () => {
  for (const [name, url] of [
    ['page', suite.server.url + '#v=1&text=the%20cat%20sat&view.stage=5'],
    ['lesson', suite.server.url + '#v=1&view.lesson=2'],
    ['embed', suite.server.url + '#v=1&text=the%20cat%20sat&view.embed=1&view.stage=5'],
  ]) {
    await withPage(suite.browser, url, async ({ page }) => {
      await page.waitForFunction(() => document.querySelectorAll('#textview table').length > 0);
      assert.deepEqual(await axeProblems(page), [], name);
    });
  }
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    await page.goto(suite.server.url + 'blog.html');
    assert.deepEqual(await axeProblems(page), [], 'blog.html');
  } finally {
    await context.close();
  }
});

test('themes: the system\'s light preference, a link\'s view.theme and the View menu\'s choice (remembered); text stays ≥ 4.5:1', async () => {
  // A system that prefers light gets the light theme, its text readable.
  let { page, context, problems } = await openPage(suite.browser, suite.server.url + '#v=1&view.stage=5', { colorScheme: 'light' });
  try {
    await frames(page, 3);
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains('light')), true);
    for (const name of ['view_menu', 'lesson1', 'share']) {
      const c = await contrastIn(page, name);
      assert.ok(c.background > 0.5, `${name}: a light background (${c.background})`);
      assert.ok(c.ratio >= 4.5, `${name}: contrast ${c.ratio.toFixed(2)}`);
    }
    // The selected row's and column's labels on a map: dark orange, readable on light.
    await gotoStage(page, STAGE.scores);  // a click there selects without changing the experiment
    await click(page, 'grid_head0', 0.3, 0.7);  // selects a cell: its row and column labels light up
    await page.mouse.move(0, 0);  // no hover tint over the labels
    await frames(page, 3);
    for (const name of ['grid_head0_row', 'grid_head0_col']) {
      const c = await contrastIn(page, name);
      assert.ok(c.background > 0.5 && c.ratio >= 4.5, `${name}: contrast ${c.ratio.toFixed(2)} on ${c.background}`);
    }
    // The reader's choice wins over the system's, and is remembered.
    await click(page, 'view_menu');
    await click(page, 'theme_dark');
    await page.waitForFunction(() => !document.documentElement.classList.contains('light'));
    await page.reload();
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen);
    await frames(page, 3);
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains('light')), false);
    const dark = await contrastIn(page, 'view_menu');
    assert.ok(dark.background < 0.2 && dark.ratio >= 4.5, JSON.stringify(dark));
    // A link's view.theme (an embed's host matching its page) wins over both, and stays in the link.
    await page.evaluate(() => { location.hash = '#v=1&view.theme=light&view.stage=5'; });
    await page.waitForFunction(() => document.documentElement.classList.contains('light'));
    await frames(page, 3);
    assert.ok((await contrastIn(page, 'view_menu')).background > 0.5);
    assert.match((await ui(page)).link, /view\.theme=light/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('an embed tells its host how tall its content is (attn:resize); blog.html sizes its frames to it', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__resizes = [];
      window.addEventListener('message', (e) => {
        if (!e.data || e.data.type !== 'attn:resize') return;
        const f = Array.from(document.querySelectorAll('iframe')).find((x) => x.contentWindow === e.source);
        window.__resizes.push({ id: f ? f.id : '', height: e.data.height });
      });
    });
    await page.goto(suite.server.url + 'blog.html');
    await page.locator('#frame-mask').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.__resizes.some((r) => r.id === 'frame-mask'));
    // The frame takes the height its content asked for (the page's bounds allowing).
    await page.waitForFunction(() => {
      const last = window.__resizes.filter((r) => r.id === 'frame-mask').pop();
      return document.getElementById('frame-mask').clientHeight === Math.min(Math.max(last.height, 240), 1600);
    });
    const height = await page.evaluate(() => window.__resizes.filter((r) => r.id === 'frame-mask').pop().height);
    // Everything the embed draws lies within that height, and it is not mostly empty.
    const frame = await (await page.$('#frame-mask')).contentFrame();
    const widgets = await frame.evaluate(() => window.attn.ui().widgets);
    const bottom = Math.max(...Object.values(widgets).map((w) => w[3]));
    assert.ok(bottom <= height, `widgets end at ${bottom}, the frame asked for ${height}`);
    assert.ok(bottom >= height * 0.6, `widgets end at ${bottom} of ${height}`);
  } finally {
    await context.close();
  }
});

// Keyboard only: Tab until the named widget has the keyboard's focus (the app
// publishes it in ui().focus), at most `limit` presses.
async function tabTo(page, name, limit = 120) {
  for (let i = 0; i < limit; ++i) {
    if ((await ui(page)).focus === name) return;
    await page.keyboard.press('Tab');
    await frames(page, 2);
  }
  assert.fail(`Tab never reached ${name}`);
}

test('keyboard only: open L2, change d_k, zero a head and copy the link, without the mouse', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    await page.evaluate(() => {
      window.__copied = [];
      window.attnShell.copyText = (t) => window.__copied.push(t);
    });
    // The page opens with the canvas focused; Shift+Tab reaches the skip button before it.
    assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'skip');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas');
    // Tab starts keyboard navigation with a visible focus.
    await page.keyboard.press('Tab');
    await frames(page, 2);
    assert.equal((await ui(page)).keyboard, true);
    await tabTo(page, 'lesson2');
    await holdKey(page, 'Space');
    await page.waitForFunction(() => window.attn.ui().lesson === 1);
    // A slider reached by Tab takes a typed value.
    await tabTo(page, 'l2_dk');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('16');
    await holdKey(page, 'Enter');
    await page.waitForFunction(() => window.attn.ui().numbers.dk === 16).catch(async () => {
      assert.fail('d_k did not become 16: ' + JSON.stringify((await ui(page)).numbers));
    });
    await tabTo(page, 'zero_head0');
    await holdKey(page, 'Space');
    await page.waitForFunction(() => /ablate=0\.0/.test(window.attn.experiment()));
    // The Share menu opens with Enter; its first item copies the link.
    await tabTo(page, 'share');
    await holdKey(page, 'Enter');
    await frames(page, 2);
    await tabTo(page, 'share_copy_link', 10);
    await holdKey(page, 'Enter');
    await page.waitForFunction(() => window.__copied.length === 1);
    const copied = await page.evaluate(() => window.__copied[0]);
    assert.match(copied, /view\.lesson=2/);
    assert.match(copied, /ablate=0\.0/);
    // Escape ends keyboard navigation; the arrows step through stages again.
    await page.keyboard.press('Escape');
    await frames(page, 2);
    await page.keyboard.press('Escape');
    await frames(page, 2);
    assert.equal((await ui(page)).keyboard, false);
    const stage = (await ui(page)).stage;
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((s) => window.attn.ui().stage === s + 1, stage);
  });
});

// [Posters] view.poster=1: click-to-run embeds (web/posters.js, "Poster").
const POSTER = '#v=1&text=the%20cat%20sat&view.lesson=2&view.embed=1&view.poster=1';
test('a poster embed starts no wasm until clicked; Run (a button, by keyboard) starts the app; the next visit shows its picture', async () => {
  const { page, context, requests, problems } = await openPoster(suite.browser, suite.server.url + POSTER);
  try {
    assert.deepEqual(appFiles(requests), [], 'nothing of the app before Run');
    const card = await page.evaluate(() => ({
      title: document.querySelector('#poster h1').textContent,
      sentence: document.querySelector('#poster .sentence').textContent,
      stage: document.querySelector('#poster .stage').textContent,
      note: document.querySelector('#poster .note').textContent,
      canvasShown: getComputedStyle(document.getElementById('canvas')).display !== 'none',
    }));
    assert.deepEqual(card, { title: 'L2 Why divide by √d_k', sentence: '“the cat sat”', stage: 'Stage 4 of 11: Scale /√d_k',
      note: 'Nothing is downloaded until you press Run', canvasShown: false });
    assert.deepEqual(await axeProblems(page), [], 'the poster, dark');
    // Run is a real button, the first stop of the keyboard.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'poster-run');
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'BUTTON');
    assert.deepEqual(appFiles(requests), [], 'still nothing');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen);
    // (The threaded build's worker loads attn-mt.js again: the same file.)
    assert.equal(new Set(appFiles(requests)).size, 3, 'attn(-mt).js, attn(-mt).wasm and attn.data once Run is pressed: ' + appFiles(requests).join(' '));
    const s = await ui(page);
    assert.equal(s.lesson, 1);
    assert.match(s.link, /view\.poster=1/, 'the link keeps view.poster');
    assert.equal(await page.evaluate(() => document.getElementById('poster')), null);
    // A few frames later the page keeps a picture for the next visit.
    await page.waitForFunction(() => window.attnShell.posterSaved === true);
    requests.length = 0;
    await page.reload();
    await page.waitForSelector('#poster-run');
    await page.waitForLoadState('networkidle');
    const img = await page.evaluate(() => {
      const i = document.querySelector('#poster img');
      return i && { complete: i.complete, width: i.naturalWidth, alt: i.alt, src: i.src.slice(0, 23) };
    });
    assert.ok(img && img.complete && img.width > 100, JSON.stringify(img));
    assert.equal(img.src, 'data:image/jpeg;base64,');
    assert.match(img.alt, /L2 Why divide by √d_k/);
    assert.deepEqual(appFiles(requests), [], 'the picture is no reason to load the app');
    assert.deepEqual(await axeProblems(page), [], 'the poster with its picture');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a poster of a trained lesson (L9) names it, and keeps a picture of the model trained to its step', async () => {
  const link = 'v=1&view.lesson=9&trained=120&view.embed=1&view.poster=1';
  const { page, context, problems } = await openPoster(suite.browser, suite.server.url + '#' + link);
  try {
    assert.deepEqual(await posterCard(page), {
      title: 'L9 Watch an induction head form', sentence: '“j a b c d e f g c d e f g”', stage: 'Stage 6 of 11: Softmax', errors: [], picture: false,
    });
    await page.click('#poster-run');
    await page.waitForFunction(() => window.attnShell.posterSaved === true, null, { timeout: 120000 });
    const t = (await ui(page)).train;
    assert.equal(t.done, true);
    const picture = await page.evaluate((l) => window.attnShell.posterPictures.load(l), link);
    assert.ok(picture, 'a picture kept under the poster\'s link');
    assert.equal(picture.step, 120, 'taken once the model reached the link\'s step, not part-way');
    assert.equal(picture.hash, t.hash, 'of the trained weights');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a poster of L11 is pictured once the circuit is read, on the model trained to its step', async () => {
  const link = 'v=1&view.lesson=11&trained=100&view.embed=1&view.poster=1';
  const { page, context, problems } = await openPoster(suite.browser, suite.server.url + '#' + link);
  try {
    const card = await posterCard(page);
    assert.equal(card.title, 'L11 How the induction head works');
    assert.deepEqual(card.errors, []);
    await page.click('#poster-run');
    await page.waitForFunction(() => window.attnShell.posterSaved === true, null, { timeout: 300000 });
    const u = await ui(page);
    assert.equal(u.train.done, true);
    assert.equal(u.train.step, 100);
    const n = u.numbers;
    assert.ok(n.snapshots > 0 && n.snapshots_done === n.snapshots && n.claims_done === 1,
      `the picture waited for the circuit's reading: ${JSON.stringify(n)}`);
    const picture = await page.evaluate((l) => window.attnShell.posterPictures.load(l), link);
    assert.equal(picture && picture.step, 100);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a poster follows the light theme (a dark picture is not shown there) and stays readable', async () => {
  const { page, context, problems } = await openPoster(suite.browser, suite.server.url + '#v=1&text=one%20two&view.stage=2&view.embed=1&view.poster=1', { colorScheme: 'light' });
  try {
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains('light')), true);
    const card = await page.evaluate(() => ({
      title: document.querySelector('#poster h1').textContent,
      stage: document.querySelector('#poster .stage').textContent,
      background: getComputedStyle(document.querySelector('#poster .card')).backgroundColor,
    }));
    assert.deepEqual(card, { title: 'Attention playground', stage: 'Stage 3 of 11: Scores Q·Kᵀ', background: 'rgb(255, 255, 255)' });
    assert.deepEqual(await axeProblems(page), [], 'the poster, light');
    // A dark picture of the same link: the light page shows the card instead.
    await page.evaluate(() => window.attnShell.posterPictures.save(location.hash.slice(1),
      { width: 4, height: 3, theme: 'dark', data: 'data:image/jpeg;base64,AAAA' }));
    await page.reload();
    await page.waitForSelector('#poster-run');
    assert.equal(await page.evaluate(() => document.querySelector('#poster img')), null);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('poster pictures: at most 10 links kept, the oldest dropped first', async () => {
  const { page, context } = await openPoster(suite.browser, suite.server.url + POSTER);
  try {
    const kept = await page.evaluate(() => {
      const store = window.attnShell.posterPictures;
      const picture = { width: 4, height: 3, theme: 'dark', data: 'data:image/jpeg;base64,AAAA' };
      for (let i = 0; i < 12; ++i) store.save('v=1&heads=' + (i + 1) + '&view.poster=1', picture);
      store.save('v=1&heads=3&view.poster=1', picture);  // saved again: now the newest
      store.save('v=1&heads=13&view.poster=1', picture);
      return Array.from({ length: 13 }, (_, i) => store.load('v=1&heads=' + (i + 1) + '&view.poster=1') !== null);
    });
    // 1, 2 dropped by the 11th and 12th; 4 by the 13th (3 was renewed).
    assert.deepEqual(kept, [false, false, true, false, true, true, true, true, true, true, true, true, true]);
    assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('attn.posters')).length), 10);
  } finally {
    await context.close();
  }
});

test("the poster's lesson titles, sentences and stage names are the app's", async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const names = await page.evaluate(() => window.attnShell.posterNames);
    const open = async (link) => {
      assert.equal(await page.evaluate((l) => window.attn.openLink(l), link), '', link);
      await frames(page, 2);
      return page.evaluate(() => ({ doc: window.attn.textView(), experiment: window.attn.experiment() }));
    };
    const sentence = (experiment) => decodeURIComponent(/(?:^|&)text=([^&]*)/.exec(experiment)[1]);
    // The page as it opens without a link: the default sentence and stage.
    const fresh = await page.evaluate(() => ({ doc: window.attn.textView(), experiment: window.attn.experiment() }));
    assert.equal(names.defaultStage, fresh.doc.stage.index);
    assert.equal(names.defaultText, sentence(fresh.experiment));
    assert.equal(names.lessons.length, 13);
    for (let i = 0; i < names.lessons.length; ++i) {
      const { doc, experiment } = await open('v=1&view.lesson=' + (i + 1));
      const mine = names.lessons[i];
      assert.equal(mine.id + ' ' + mine.title, doc.lesson.id + ' ' + doc.lesson.title);
      assert.equal(mine.stage, doc.stage.index, mine.id);
      assert.equal(mine.text, sentence(experiment), mine.id);
    }
    assert.equal(names.stages.length, 11);
    for (let s = 0; s < names.stages.length; ++s) {
      const { doc } = await open('v=1&block=full&view.stage=' + s);
      assert.equal(doc.stage.count, names.stages.length);
      assert.equal(names.stages[s], doc.stage.name, 'stage ' + s);
    }
  });
});

test('blog.html starts one app, not three: its lesson embeds are posters that report their height', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 } });
  try {
    const page = await context.newPage();
    const requests = [];
    // The frames' own requests (sw.js, once an app runs, caches the site for offline use: not a start).
    context.on('request', (r) => { if (!r.serviceWorker()) requests.push(r.url()); });
    await page.addInitScript(() => {
      window.__resizes = [];
      window.addEventListener('message', (e) => {
        if (!e.data || e.data.type !== 'attn:resize') return;
        const f = Array.from(document.querySelectorAll('iframe')).find((x) => x.contentWindow === e.source);
        window.__resizes.push({ id: f ? f.id : '', height: e.data.height });
      });
    });
    await page.goto(suite.server.url + 'blog.html');
    for (const id of ['frame-scale', 'frame-mask', 'frame-rope']) await page.locator('#' + id).scrollIntoViewIfNeeded();
    const mask = await (await page.$('#frame-mask')).contentFrame();
    await mask.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen);
    for (const id of ['frame-scale', 'frame-rope']) {
      const f = await (await page.$('#' + id)).contentFrame();
      await f.waitForSelector('#poster-run');
      // The poster asks for its card's height, and the blog gives it.
      await page.waitForFunction((id) => {
        const last = window.__resizes.filter((r) => r.id === id).pop();
        return last && document.getElementById(id).clientHeight === Math.min(Math.max(last.height, 240), 1600);
      }, id);
    }
    await page.waitForLoadState('networkidle');
    assert.equal(requests.filter((u) => /\/attn(-mt)?\.wasm$/.test(u)).length, 1, 'one app: ' + appFiles(requests).join(' '));
    assert.deepEqual(await axeProblems(page), [], 'blog.html with posters');
  } finally {
    await context.close();
  }
});

// [Zoom] 200 %: nothing a person must read is clipped. ui().windows holds each
// ImGui window's visible rectangle, scroll, how far its content reaches past it
// (over) and its scrollbars (bars); ui().widgets the named widgets.
const EPS = 1.5;
// Whether rectangle r can be brought into view: inside window w's content, past
// w's visible rectangle only in a direction w scrolls, and w itself seen (in its
// parent the same way, the top window on the screen).
function reachable(r, w, byName, screen) {
  if (!w) return r[0] >= -EPS && r[1] >= -EPS && r[2] <= screen[0] + EPS && r[3] <= screen[1] + EPS;
  const [x0, y0, x1, y1] = w.rect;
  const cx0 = x0 - w.scroll[0], cy0 = y0 - w.scroll[1];
  const cx1 = cx0 + (x1 - x0) + w.over[0], cy1 = cy0 + (y1 - y0) + w.over[1];
  if (r[0] < cx0 - EPS || r[1] < cy0 - EPS || r[2] > cx1 + EPS || r[3] > cy1 + EPS) return false;
  if ((r[0] < x0 - EPS || r[2] > x1 + EPS) && !w.bars[0]) return false;
  if ((r[1] < y0 - EPS || r[3] > y1 + EPS) && !w.bars[1]) return false;
  return reachable(w.rect, byName.get(w.parent), byName, screen);
}
function clippedContent(s, screen) {
  const problems = [];
  const windows = s.windows.filter((w) => !/^##Tooltip/.test(w.name));
  const byName = new Map(windows.map((w) => [w.name, w]));
  for (const w of windows) {
    if (w.over[0] > EPS && !w.bars[0]) problems.push(`${w.name}: content ${w.over[0]} px past its right edge, no horizontal scrollbar`);
    if (w.over[1] > EPS && !w.bars[1]) problems.push(`${w.name}: content ${w.over[1]} px past its bottom, no vertical scrollbar`);
  }
  for (const [name, r] of Object.entries(s.widgets)) {
    if (r[2] - r[0] < 0.5 || r[3] - r[1] < 0.5) continue;  // nothing drawn
    const w = byName.get(s.widgetWindows[name]);
    if (!w) problems.push(`${name}: in no window drawn (${s.widgetWindows[name]})`);
    else if (!reachable(r, w, byName, screen)) problems.push(`${name} [${r.map((v) => v.toFixed(0))}] cannot be scrolled into view in ${w.name}`);
  }
  return problems;
}

// L11/L12 once the model is at its step and the circuit study has read every snapshot.
async function circuitShown(page) {
  await page.waitForFunction(() => {
    const u = window.attn.ui(), n = u.numbers;
    return u.train && u.train.done && n.snapshots > 0 && n.snapshots_done === n.snapshots;
  }, null, { timeout: 300000, polling: 250 });
}

for (const [width, height, scale] of [[720, 450, 2], [640, 360, 2], [844, 390, 1], [422, 195, 2]]) {
  test(`zoom: at ${width}×${height}@${scale} every named widget can be seen or scrolled to, and no window clips its content`, async () => {
    await withPage(suite.browser, suite.server.url + '#v=1&view.stage=5',
      { width, height, deviceScaleFactor: scale }, async ({ page }) => {
      const found = [];
      for (const link of ['v=1&view.stage=5', 'v=1&heads=4&view.stage=1', 'v=1&view.lesson=2', 'v=1&view.lesson=5',
        'v=1&view.lesson=11&trained=100', 'v=1&view.lesson=12&trained=100']) {
        assert.equal(await page.evaluate((l) => window.attn.openLink(l), link), '');
        if (/lesson=1[12]/.test(link)) await circuitShown(page);  // L9's run to step 100, then its circuit read
        await frames(page, 6);  // the layout settles (content sizes are the last frame's)
        for (const p of clippedContent(await ui(page), [width, height])) found.push(`${link}: ${p}`);
      }
      assert.deepEqual(found, []);
    });
  });
}

test('keyboard in L11: Tab reaches the patching map, the arrows move its cursor, Enter patches the cell there', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=11&trained=100', async ({ page }) => {
    await circuitShown(page);
    await page.waitForFunction(() => window.attn.ui().numbers.patched === 1);
    await page.keyboard.press('Tab');  // keyboard navigation on
    await frames(page, 2);
    await tabTo(page, 'grid_l11_patch_map', 200);
    const cell = async () => { const n = (await ui(page)).numbers; return [n.cell_head, n.cell_pos]; };
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.attn.ui().numbers.cell_head !== undefined);
    const [head, pos] = await cell();
    await page.keyboard.press('ArrowRight');
    await frames(page, 2);
    assert.equal((await ui(page)).focus, 'grid_l11_patch_map', 'the map keeps the focus');
    assert.deepEqual(await cell(), [head, pos], 'moving the cursor patches nothing');
    await page.keyboard.press('ArrowDown');
    await frames(page, 2);
    await page.keyboard.press('Enter');
    await page.waitForFunction(([h, p]) => { const n = window.attn.ui().numbers; return n.cell_head === h && n.cell_pos === p; },
      [head + 1, pos + 1]).catch(async () => assert.fail(`after → ↓ Enter: ${JSON.stringify(await cell())}, from ${[head, pos]}`));
  });
});

test('keyboard within a map: Tab stops on its cells; arrows, Home/End, PageUp/PageDown move the selected cell and the inspector; Enter and Space press it', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&text=the%20cat%20sat%20down&heads=1&view.stage=5', async ({ page }) => {
    await page.keyboard.press('Tab');  // keyboard navigation on
    await frames(page, 2);
    await tabTo(page, 'grid_head0');
    const cell = async () => {
      const s = await ui(page);
      return { focus: s.focus, stage: s.stage, row: s.sel_row, selected: s.selected };
    };
    const inspector = async () => (await page.evaluate(() => window.attn.textView())).inspector.join(' ');
    // Each key: the selected cell [matrix, head, row, col] moves, the map keeps the focus, the stage stays.
    const press = async (k, row, col) => {
      await page.keyboard.press(k);
      await page.waitForFunction(([row, col]) => {
        const s = window.attn.ui();
        return s.selected[2] === row && s.selected[3] === col;
      }, [row, col]).catch(async () => assert.fail(`${k}: expected (${row}, ${col}), got ${JSON.stringify(await cell())}`));
      const c = await cell();
      assert.deepEqual(c, { focus: 'grid_head0', stage: STAGE.weights, row, selected: [0, 0, row, col] }, k);
    };
    await press('ArrowRight', 0, 1);
    const first = await inspector();
    assert.match(first, /./, 'the inspector explains the selected cell');
    await press('ArrowDown', 1, 1);
    assert.notEqual(await inspector(), first, 'the inspector follows the keys');
    await press('End', 1, 3);
    await press('Home', 1, 0);
    await press('PageDown', 3, 0);
    await press('PageUp', 0, 0);
    await press('Control+End', 3, 3);
    await press('Control+Home', 0, 0);
    await press('ArrowLeft', 0, 0);  // at the edge: stays
    await press('ArrowDown', 1, 0);
    await press('ArrowDown', 2, 0);
    await press('ArrowRight', 2, 1);
    // Enter presses the cell as a click does: on softmax weights, it masks that edge; Space again unmasks it.
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /edges=0\.0\.2\.1(&|$)/.test(window.attn.experiment()));
    await frames(page, 2);
    assert.deepEqual(await cell(), { focus: 'grid_head0', stage: STAGE.weights, row: 2, selected: [0, 0, 2, 1] }, 'the cell stays selected');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => /edges=&/.test(window.attn.experiment()));
    // Tab moves on: the arrows are the navigation's again.
    await page.keyboard.press('Tab');
    await frames(page, 2);
    assert.notEqual((await ui(page)).focus, 'grid_head0');
  });
});

// [Focus] Where the keyboard's focus goes when a lesson opens, and that it is
// said: the canvas's accessible name follows the focused control.
const canvasName = (page) => page.evaluate(() => document.getElementById('canvas').getAttribute('aria-label'));

test("keyboard focus: Enter on the start card's guided path lands on the lesson's first control, Tab goes on, and the canvas names it", async () => {
  await withPage(suite.browser, suite.server.url, { firstVisit: true }, async ({ page }) => {
    await page.keyboard.press('Tab');  // keyboard navigation on
    await frames(page, 2);
    await tabTo(page, 'start_lessons', 10);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.attn.ui().lesson === 0);
    // L1's card: "previous" is disabled, "next" is its first control.
    await page.waitForFunction(() => window.attn.ui().focus === 'lesson_next')
      .catch(async () => assert.fail('the focus is not on the lesson\'s first control: ' + JSON.stringify((await ui(page)).focus)));
    await page.waitForFunction(() => /next/.test(window.attn.ui().focusLabel))
      .catch(async () => assert.fail('the focused control is named ' + JSON.stringify((await ui(page)).focusLabel)));
    const label = (await ui(page)).focusLabel;
    await page.waitForFunction((l) => document.getElementById('canvas').getAttribute('aria-label') === 'Attention playground: ' + l,
      label).catch(async () => assert.fail('the canvas is named ' + JSON.stringify(await canvasName(page))));
    // Tab moves on from there, and the name follows.
    await page.keyboard.press('Tab');
    await frames(page, 4);
    const next = await ui(page);
    assert.notEqual(next.focus, 'lesson_next');
    assert.notEqual(next.focus, '');
    await page.waitForFunction((l) => document.getElementById('canvas').getAttribute('aria-label') === 'Attention playground: ' + l,
      next.focusLabel);
    // Escape ends navigation: the canvas is the playground again.
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.getElementById('canvas').getAttribute('aria-label') === 'Attention playground', null);
  });
});

// From L9's own link: the first Tab shows the focus on the card's previous, then next, the recipe, Train.
const TABS_TO_TRAIN = 4;

test(`keyboard focus: from an L9 link Train is at most ${TABS_TO_TRAIN} Tabs away; after Enter on it the focus stays and Tab goes on`, async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=9&trained=0', async ({ page }) => {
    let tabs = 0;
    while ((await ui(page)).focus !== 'train_run') {
      assert.ok(tabs < TABS_TO_TRAIN, `Train not reached in ${TABS_TO_TRAIN} Tabs (at ${(await ui(page)).focus})`);
      await page.keyboard.press('Tab');
      await frames(page, 2);
      ++tabs;
    }
    assert.match(await canvasName(page), /: Train$/);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.attn.ui().train.target > 0);
    await frames(page, 3);
    // Train became Pause: the same control keeps the focus.
    const pressed = await ui(page);
    assert.ok(['train_pause', 'train_run'].includes(pressed.focus), 'focus after Enter on Train: ' + JSON.stringify(pressed.focus));
    await page.keyboard.press('Tab');
    await frames(page, 3);
    const after = (await ui(page)).focus;
    assert.ok(after !== '' && after !== pressed.focus, 'Tab after Train: ' + JSON.stringify(after));
  });
});
