// Embedding: web/blog.html's live iframes, the postMessage API of web/embed.js
// (docs/embedding.md), window.attnShell's clipboard / download / storage
// functions, and links the shell must survive (a 5 MB hash, broken %-escapes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, browserSuite } from './harness.mjs';
import { at, startEmbed, hearTraining } from './person.mjs';

const suite = browserSuite();

// Opens the blog (or another page of the site without an app of its own),
// collecting console errors and requests to any host but ours and `allow`.
async function openHost(path, { allow = [], contextOptions = {} } = {}) {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 }, ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(suite.server.url).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:') && !allow.some((a) => u.startsWith(a)))
      problems.push('foreign request: ' + u);
  });
  await page.goto(suite.server.url + path);
  return { page, context, problems };
}

// The app frames of the blog, each scrolled into view (they load lazily) and up
// (a poster started with its Run button).
async function appFrames(page) {
  const handles = await page.$$('iframe.attn');
  const frames = [];
  for (const h of handles) {
    await h.scrollIntoViewIfNeeded();
    const f = await h.contentFrame();
    await startEmbed(f);
    frames.push(f);
  }
  return frames;
}

// Whether the app reads view.* keys yet (the app side of the same issue): a
// view key in the hash is then no error.
const appReadsViewKeys = (errors) => !/view\./.test(errors);

test('blog.html: three embeds (two posters, run), no errors, no foreign requests, each its own experiment', async (t) => {
  const { page, context, problems } = await openHost('blog.html');
  try {
    const frames = await appFrames(page);
    assert.ok(frames.length >= 3, `at least three embeds, found ${frames.length}`);
    const states = [];
    for (const f of frames) {
      states.push(await f.evaluate(() => ({
        errors: window.attn.errors(), experiment: window.attn.experiment(), embedded: window.attnShell.embedded,
        scroll: [document.documentElement.scrollWidth > innerWidth, document.documentElement.scrollHeight > innerHeight],
      })));
    }
    for (const s of states) {
      assert.equal(s.embedded, true);
      assert.deepEqual(s.scroll, [false, false], 'no scrollbars in an embed');
    }
    if (states.every((s) => appReadsViewKeys(s.errors))) {
      for (const s of states) assert.equal(s.errors, '', 'each embed opens without an error');
      assert.match(states[1].experiment, /mask=causal/);
      assert.match(states[2].experiment, /pos=rope/);
      assert.equal(new Set(states.map((s) => s.experiment)).size, states.length, 'the experiments differ');
    } else {
      t.diagnostic('the app does not read view.* keys yet: the embeds show its error banner; experiment checks skipped');
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// From the blog page: post `message` to frame `index`, then an attn:get as a
// sentinel, and collect what the frame sends back until the sentinel's answer
// (the frame answers in order, at once) and, with `until`, a message of that
// type (attn:changed comes when the app publishes). No fixed wait: a message
// that gets no answer has had none by the time the sentinel's comes back.
async function exchange(page, index, message, until = null) {
  return page.evaluate(({ index, message, until }) => new Promise((resolve) => {
    const frame = document.querySelectorAll('iframe.attn')[index].contentWindow;
    const heard = [];
    const states = message && message.type === 'attn:get' ? 2 : 1;  // the sentinel's answer is the last attn:state
    let sentinel = false;
    const finish = () => {
      if (!sentinel || (until && !heard.some((m) => m.data && m.data.type === until))) return;
      window.removeEventListener('message', listen);
      resolve(heard);
    };
    // attn:resize comes whenever the content's height changes, not in answer to anything (a11y.test.mjs checks it).
    const listen = (e) => {
      if (e.source !== frame || (e.data && e.data.type === 'attn:resize')) return;
      if (e.data && e.data.type === 'attn:state' && heard.filter((m) => m.data.type === 'attn:state').length + 1 === states) sentinel = true;
      else heard.push({ origin: e.origin, data: e.data });
      finish();
    };
    window.addEventListener('message', listen);
    frame.postMessage(message, location.origin);
    frame.postMessage({ type: 'attn:get' }, location.origin);
  }), { index, message, until });
}

test('postMessage: attn:set changes the frame and the host hears attn:changed; bad messages change nothing', async () => {
  const { page, context, problems } = await openHost('blog.html');
  try {
    const frames = await appFrames(page);
    const f = frames[1];
    const experiment = () => f.evaluate(() => window.attn.experiment());
    const origin = new URL(suite.server.url).origin;

    const got = await exchange(page, 1, { type: 'attn:set', link: 'v=1&text=one%20two%20three&heads=4&mask=none' }, 'attn:changed');
    assert.match(await experiment(), /text=one%20two%20three&.*heads=4.*mask=none/);
    const changed = got.filter((m) => m.data.type === 'attn:changed');
    assert.ok(changed.length >= 1, 'the host heard attn:changed: ' + JSON.stringify(got));
    assert.match(changed.at(-1).data.link, /heads=4.*mask=none/);
    assert.equal(changed.at(-1).origin, origin);

    const state = await exchange(page, 1, { type: 'attn:get' });
    assert.equal(state.length, 1);
    assert.equal(state[0].data.type, 'attn:state');
    assert.match(state[0].data.link, /heads=4.*mask=none/);

    const before = await experiment();
    const errorsOf = (msgs) => msgs.filter((m) => m.data.type === 'attn:error').map((m) => m.data.errors.join(' '));
    // Not our shape: ignored, no answer.
    for (const bad of ['attn:set', 42, null, [1, 2], { type: 7 }, { link: 'v=1&heads=1' }, { type: 'other:set', link: 'v=1&heads=1' }])
      assert.deepEqual(await exchange(page, 1, bad), [], 'ignored: ' + JSON.stringify(bad));
    // Our shape, wrong content: answered with attn:error.
    assert.match(errorsOf(await exchange(page, 1, { type: 'attn:set', link: 42 }))[0], /string/);
    assert.match(errorsOf(await exchange(page, 1, { type: 'attn:set', link: 'v=1&heads=1' + '&x'.repeat(40000) }))[0], /limit is 65536/);
    assert.match(errorsOf(await exchange(page, 1, { type: 'attn:set', link: 'v=1&heads=3&mask=sideways' }))[0], /mask/);
    assert.match(errorsOf(await exchange(page, 1, { type: 'attn:set', link: 'v=1&text=%E7%8' }))[0], /./);
    assert.match(errorsOf(await exchange(page, 1, { type: 'attn:eval', code: 'alert(1)' }))[0], /unknown message type/);
    assert.equal(await experiment(), before, 'no invalid message changed the experiment');

    // The blog's own button uses the same API.
    await page.click('#toggle-mask');
    await page.waitForFunction(() => /mask=none/.test(document.getElementById('heard').textContent));
    assert.match(await experiment(), /heads=1.*mask=none/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('postMessage: attn:set with a recipe trains it in the frame; the host hears attn:train up to done, with the weights hash', async () => {
  const { page, context, problems } = await openHost('blog.html');
  try {
    const frames = await appFrames(page);
    const recipe = 'v=1&text=a%20b%20c%20a%20b%20c&d_model=16&heads=2&layers=2&block=attn_res&pos=rope&train=induction&steps=200&batch=8';
    const heard = await hearTraining(page, recipe + '&trained=40', { doneAt: 40 });
    const last = heard.at(-1);
    assert.equal(last.target, 40);
    assert.equal(last.steps, 200);
    assert.ok(Number.isFinite(last.loss) && Number.isFinite(last.heldOutAccuracy), JSON.stringify(last));
    assert.equal(last.hash, await frames[1].evaluate((r) => window.attn.trainHash(r, 40), recipe), 'the weights of 40 steps');
    assert.ok(heard.every((m, i) => i === 0 || m.step >= heard[i - 1].step), 'progress only moves forward');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('postMessage: a frame of another origin is ignored (a real cross-origin iframe, http://evil.test, served by a route)', async () => {
  const { page, context, problems } = await openHost('blog.html', { allow: ['http://evil.test/'] });
  try {
    await context.route('http://evil.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>evil</title>' }));
    const frames = await appFrames(page);
    const f = frames[0];
    const before = await f.evaluate(() => window.attn.experiment());
    await page.evaluate(() => new Promise((resolve) => {
      const evil = document.createElement('iframe');
      evil.src = 'http://evil.test/evil.html';
      evil.id = 'evil';
      evil.onload = resolve;
      document.body.appendChild(evil);
    }));
    const evil = await (await page.$('#evil')).contentFrame();
    await evil.evaluate(() => {
      const target = window.parent.frames[0];  // the first embed
      window.heard = [];
      window.addEventListener('message', (e) => window.heard.push(e.data));
      target.postMessage({ type: 'attn:set', link: 'v=1&heads=4&mask=none' }, '*');
      target.postMessage({ type: 'attn:get' }, '*');
    });
    // Another origin gets no answer, so no sentinel can mark the end: the host draws
    // for 1.5 s of its own clock (a cross-origin frame's animation frames are throttled).
    await page.evaluate(() => new Promise((r) => {
      const t0 = performance.now();
      const tick = () => (performance.now() - t0 >= 1500 ? r() : requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    }));
    const heard = await evil.evaluate(() => window.heard);
    assert.deepEqual(heard, [], 'no answer to another origin');
    assert.equal(await f.evaluate(() => window.attn.experiment()), before, 'the experiment did not change');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('attnShell: copyText, download, storageGet/storageSet, openUrl, embedded', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(suite.server.url).origin });
    assert.equal(await page.evaluate(() => window.attnShell.embedded), false);
    const copied = await page.evaluate(() => window.attnShell.copyText('v=1&heads=3 猫'));
    assert.equal(copied, true);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'v=1&heads=3 猫');
    // The fallback path, when the Clipboard API refuses.
    const fallback = await page.evaluate(async () => {
      const original = navigator.clipboard.writeText;
      navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
      try { return await window.attnShell.copyText('fallback text'); } finally { navigator.clipboard.writeText = original; }
    });
    assert.equal(typeof fallback, 'boolean');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.evaluate(() => window.attnShell.download('../trace.json', 'application/json', new TextEncoder().encode('{"a":1}'))),
    ]);
    assert.match(download.suggestedFilename(), /^[^/\\]*trace\.json$/, 'no path in the name');
    const bytes = [];
    for await (const chunk of await download.createReadStream()) bytes.push(chunk);  // also from a shared browser (run.mjs)
    assert.equal(Buffer.concat(bytes).toString('utf8'), '{"a":1}');

    assert.equal(await page.evaluate(() => window.attnShell.storageGet('attn.test')), null);
    assert.equal(await page.evaluate(() => window.attnShell.storageSet('attn.test', 'x=1')), true);
    assert.equal(await page.evaluate(() => window.attnShell.storageGet('attn.test')), 'x=1');
    // Storage that throws (disabled, private mode): null and false, never an exception.
    const broken = await page.evaluate(() => {
      const proto = Object.getPrototypeOf(window.localStorage);
      const get = proto.getItem, set = proto.setItem;
      proto.getItem = () => { throw new Error('SecurityError'); };
      proto.setItem = () => { throw new Error('QuotaExceededError'); };
      try { return [window.attnShell.storageGet('attn.test'), window.attnShell.storageSet('attn.test', 'y')]; } finally { proto.getItem = get; proto.setItem = set; }
    });
    assert.deepEqual(broken, [null, false]);

    assert.equal(await page.evaluate(() => window.attnShell.openUrl('javascript:alert(1)')), false);
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate(() => window.attnShell.openUrl('blog.html')),
    ]);
    await popup.waitForLoadState();
    assert.match(popup.url(), /blog\.html$/);
    assert.equal(await popup.evaluate(() => window.opener), null, 'noopener');
  });
});

for (const [what, hash] of [
  // Chromium itself refuses to navigate to a URL over 2 MB, so 1.9 MB is the largest a page can see.
  ['a 1.9 MB hash', 'v=1&text=' + 'a%20'.repeat(1.9 * 1024 * 1024 / 4)],
  ['malformed percent-escapes', 'v=1&text=%E0%A4%A&heads=%zz&mask=%'],
  ['a truncated compressed link', 'z=AcQCaba_9f8BHE9c-R1L4ci3nFa'],
]) {
  test(`${what} in the URL: the app still comes up and names the problem`, async () => {
    await withPage(suite.browser, suite.server.url + '#' + hash, async ({ page }) => {
      const errors = await page.evaluate(() => window.attn.errors());
      assert.notEqual(errors.trim(), '', 'the app names a problem');
      assert.match(await page.evaluate(() => window.attn.experiment()), /^v=1&/);
      assert.ok((await page.evaluate(() => window.attn.trace())).tokens.length > 0, 'the default experiment computes');
    });
  });
}

test("postMessage: a host's attn:set flood is one undo step; the reader's own undo steps stay and undo reaches them", async () => {
  const { page, context, problems } = await openHost('blog.html');
  try {
    // Only the causal-mask frame (no poster) is started.
    const handle = await page.$('#frame-mask');
    await handle.scrollIntoViewIfNeeded();
    const f = await handle.contentFrame();
    await startEmbed(f);
    const index = await page.evaluate(() => [...document.querySelectorAll('iframe.attn')].findIndex((x) => x.id === 'frame-mask'));
    const undoSteps = () => f.evaluate(() => window.attn.ui().undo);
    const start = await undoSteps();
    // The reader's own steps: three links opened in the frame (it opened with heads=1).
    for (const heads of [2, 4, 8])
      assert.equal(await f.evaluate((h) => window.attn.openLink('v=1&text=the%20cat%20chased%20the%20dog&heads=' + h + '&view.embed=1'), heads), '');
    assert.equal(await undoSteps(), start + 3);
    // The host floods the frame with more changes than the history holds (200).
    const flood = 260;
    await page.evaluate(({ index, flood }) => {
      const frame = document.querySelectorAll('iframe.attn')[index].contentWindow;
      for (let k = 1; k <= flood; ++k)
        frame.postMessage({ type: 'attn:set', link: 'v=1&text=the%20cat%20chased%20the%20dog&heads=4&pos_offset=' + k }, location.origin);
    }, { index, flood });
    await f.waitForFunction((n) => /pos_offset=260(&|$)/.test(window.attn.experiment()), flood);
    assert.equal(await undoSteps(), start + 4, 'the reader\'s three steps and one for the host\'s flood');
    // Undo (Ctrl+Z in the frame): before the flood, then the reader's own steps in turn.
    await f.focus('#canvas');
    const heads = () => f.evaluate(() => Number(/(?:^|&)heads=(\d+)/.exec(window.attn.experiment())[1]));
    const offset = () => f.evaluate(() => Number((/(?:^|&)pos_offset=(\d+)/.exec(window.attn.experiment()) || [0, 0])[1]));
    const undo = async (steps) => {
      await page.keyboard.press('Control+z');
      await f.waitForFunction((n) => window.attn.ui().undo === n, steps);
    };
    await undo(start + 3);
    assert.deepEqual([await heads(), await offset()], [8, 0]);
    await undo(start + 2);
    assert.deepEqual([await heads(), await offset()], [4, 0]);
    await undo(start + 1);
    assert.deepEqual([await heads(), await offset()], [2, 0]);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
