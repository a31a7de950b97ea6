// Links: every link in the README, docs/*.md and web/blog.html opens what its
// caption says; a lesson's link starts from the lesson's experiment; a lesson
// opened by link fetches the Chinese font its text needs; a link pasted into an
// open tab, and back / forward, open that experiment through the same path as
// every change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, withPage, browserSuite } from './harness.mjs';
import { frames, ui, trace, experiment, widget, click, startEmbed } from './person.mjs';

const suite = browserSuite();

// Every link written in the README, the docs and the blog: after a '#' or in quotes
// ('v=1&…'), HTML-unescaped; a link cut off to be completed by code ("…&mask="
// + mask) is not a link.
function linksIn(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replaceAll('&amp;', '&');
  const found = new Set();
  for (const m of text.matchAll(/#((?:v=1|z=)[^"'\s`<>)]*)/g)) found.add(m[1]);
  for (const m of text.matchAll(/'(v=1&[^'\s]*)'/g)) found.add(m[1]);
  return [...found].filter((l) => !l.endsWith('='));
}

// What each link's caption promises, checked on what the page shows.
const tokens = async (page) => (await trace(page)).tokens;
const captions = {
  // blog.html, "Why divide by √d_k?": "Lesson 2, live: the scores before and after the √d_k scaling."
  'v=1&text=the%20cat%20sat%20on%20the%20mat&view.lesson=2&view.embed=1&view.poster=1': async (page, s, e) => {
    assert.equal(s.lesson, 1);
    assert.equal(s.stage, 3, 'the scaled scores');
    assert.match(e, /d_model=64&heads=1&/);
    assert.deepEqual(await tokens(page), ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  },
  // docs/embedding.md, "Posters": a host page's poster of lesson 2 on "the cat sat"
  'v=1&text=the%20cat%20sat&view.lesson=2&view.embed=1&view.poster=1': async (page, s) => {
    assert.equal(s.lesson, 1);
    assert.equal(s.stage, 3);
    assert.deepEqual(await tokens(page), ['the', 'cat', 'sat']);
  },
  // blog.html and docs/embedding.md's iframe: "opens on the softmax stage with the causal mask"
  'v=1&text=the%20cat%20chased%20the%20dog&heads=1&mask=causal&view.stage=5&view.embed=1': async (page, s, e) => {
    assert.equal(s.lesson, -1);
    assert.equal(s.stage, 5);
    assert.match(e, /heads=1&.*mask=causal/);
    const w = (await trace(page)).layers[0].heads[0].weights;
    assert.equal(Number(w.data[1]), 0, 'the future is masked: weight (0, 1) is 0');
  },
  // blog.html, "Order needs positions": "Lesson 4, live, with rotary position embeddings."
  'v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&pos=rope&view.lesson=4&view.embed=1&view.poster=1': async (page, s, e) => {
    assert.equal(s.lesson, 3);
    assert.match(e, /pos=rope/);
    assert.match(e, /mask=none/, 'L4 has no mask: the link names only text and pos');
    assert.deepEqual(await tokens(page), ['猫', '追', '狗']);
  },
  // blog.html, "An induction head forms": "Lesson 9, trained in your browser once you press Run (1500 steps): the loss
  // curve with its drop, and each head's attention with its induction score."
  'v=1&view.lesson=9&view.embed=1&view.poster=1': async (page, s, e) => {
    assert.equal(s.lesson, 8);
    assert.match(e, /&train=induction&steps=1500/);
    assert.doesNotMatch(e, /&trained=/, 'trained to the end');
    await page.waitForFunction(() => window.attn.ui().train.done, null, { timeout: 300000 });
    const t = (await ui(page)).train;
    assert.equal(t.step, 1500);
    assert.ok(t.phase > 0, `the loss curve's drop: step ${t.phase}`);
    assert.ok(t.heldOutAccuracy >= 0.9, `learned: ${t.heldOutAccuracy}`);
    assert.ok(t.heads.slice(4).some((h) => h.induction >= 0.5), 'a layer-1 induction head (heads 4–7)');
    assert.ok((await ui(page)).maps.filter((m) => m.name.startsWith('train_map_')).length === 8, "each head's attention");
  },
  // docs/circuits.md, "The markov task": recipe_markov, the recipe that reaches the bigram phase (400 steps
  // over 4 symbols, markov_alpha 0.5): it opens as a markov recipe on its own text
  'v=1&text=a%20b%20a%20c%20a%20b%20d%20a&d_model=32&heads=4&layers=2&block=attn_res&pos=rope&train=markov&steps=400&batch=16&seq=48&vocab=4&markov_alpha=0.5': async (page, s, e) => {
    assert.equal(s.lesson, -1);
    assert.match(e, /&train=markov&steps=400&.*&vocab=4&.*&markov_alpha=0\.5/);
    assert.ok(s.train && s.train.steps === 400, 'a recipe with a run');
    assert.deepEqual(await tokens(page), ['a', 'b', 'a', 'c', 'a', 'b', 'd', 'a']);
  },
  // docs/link-format.md, "One experiment, one value": "#v=1&heads=4 to load one: missing keys take their
  // defaults"; docs/architecture.md, "From a link to pixels", follows the same link
  'v=1&heads=4': async (page, s, e) => {
    assert.equal(s.lesson, -1);
    assert.match(e, /text=the%20cat%20chased%20the%20dog&.*heads=4&kv_heads=4/);
  },
  // docs/building.md, "Building by hand": a whole URL opening lesson L2 with 4 heads
  'v=1&heads=4&view.lesson=2': async (page, s, e) => {
    assert.equal(s.lesson, 1);
    assert.match(e, /d_model=64&heads=4&kv_heads=4/);
  },
  // docs/building.md, "Building by hand": the app on a three-token, one-head experiment
  'v=1&text=a%20b%20c&heads=1': async (page, s, e) => {
    assert.match(e, /heads=1&/);
    assert.deepEqual(await tokens(page), ['a', 'b', 'c']);
  },
  // docs/building.md, "Building by hand": attn eval on "the cat", two heads
  'v=1&text=the%20cat&heads=2': async (page, s, e) => {
    assert.match(e, /heads=2&/);
    assert.deepEqual(await tokens(page), ['the', 'cat']);
  },
};

// The files whose links are checked: the README, every page of docs/, the blog.
const linkedFiles = () => [
  'README.md',
  ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => 'docs/' + f),
  'web/blog.html',
];

test('every link in the README, docs/*.md and web/blog.html opens without an error and shows what its caption says', async () => {
  const links = [...new Set(linkedFiles().flatMap(linksIn))];
  assert.ok(links.length >= 6, 'found the links: ' + links.join(' '));
  // Moving a section between files keeps its links: every checked link is still written somewhere.
  for (const link of Object.keys(captions)) assert.ok(links.includes(link), `${link} is written in no checked file`);
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    for (const link of links) {
      const check = captions[link];
      assert.ok(check, `a caption check for ${link} (add it to this test)`);
      assert.equal(await page.evaluate((l) => window.attn.openLink(l), link), '', link);
      await frames(page, 3);
      const s = await ui(page);
      assert.equal(await page.evaluate(() => window.attn.errors()), '', link);
      await check(page, s, await experiment(page));
    }
  });
});

test("blog.html's L4 frame: with positions off, the reversed sentence gives the same outputs (the lesson's own mask)", async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(suite.server.url + 'blog.html');
    const handle = await page.$('iframe#frame-rope');
    await handle.scrollIntoViewIfNeeded();
    const f = await handle.contentFrame();
    await startEmbed(f);  // a poster: Run first
    // As a person: click "none" under "positions:" in the frame.
    let w = await widget(f, 'l4_pos0');
    for (let i = 0; i < 10; i++) {
      await frames(f, 2);
      const again = await widget(f, 'l4_pos0');
      if (again.every((v, k) => v === w[k])) break;
      w = again;
    }
    const box = await handle.boundingBox();
    await page.mouse.move(box.x + (w[0] + w[2]) / 2, box.y + (w[1] + w[3]) / 2);
    await frames(f, 2);
    await page.mouse.down();
    await frames(f, 2);
    await page.mouse.up();
    await f.waitForFunction(() => /pos=none/.test(window.attn.experiment()));
    await frames(f, 4);
    const n = (await ui(f)).numbers;
    assert.match(await experiment(f), /mask=none/);
    assert.ok(n.reverse_output_diff < 1e-4, 'no positions, no order: outputs differ by ' + n.reverse_output_diff);
  } finally {
    await context.close();
  }
});

test('a lesson opened by link in English fetches the Chinese font its text quotes', async () => {
  // L4's card quotes "猫追狗" in English; the sentence here is English, the interface too.
  const fonts = [];
  await withPage(suite.browser, suite.server.url + '#v=1&text=the%20cat%20sat&view.lesson=4', {
    prepare: async (p) => p.on('request', (r) => { if (r.url().endsWith('/assets/ui-cjk.ttf')) fonts.push(r.url()); }),
  }, async ({ page }) => {
    assert.equal((await ui(page)).language, 'en');
    assert.equal((await ui(page)).lesson, 3);
    await page.waitForFunction(() => window.attnShell.fonts['ui-cjk.ttf'] === 'loaded');
    await frames(page, 4);
    assert.equal(fonts.length, 1);
  });
});

test('a link pasted into an open tab opens it (an undo step); back and forward move between pasted links', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    const first = await experiment(page);
    // Pasting a link changes only the hash: no reload, a hashchange.
    await page.evaluate(() => { location.hash = '#v=1&text=one%20two%20three&heads=4&view.stage=2'; });
    await page.waitForFunction(() => /heads=4/.test(window.attn.experiment()));
    let s = await ui(page);
    assert.equal(s.stage, 2);
    assert.equal(s.undo, 1, 'one undo step');
    assert.deepEqual(await trace(page).then((t) => t.tokens), ['one', 'two', 'three']);
    await page.evaluate(() => { location.hash = '#v=1&text=four%20five&heads=1&view.lesson=1'; });
    await page.waitForFunction(() => /text=four%20five/.test(window.attn.experiment()));
    s = await ui(page);
    assert.equal(s.lesson, 0);
    assert.equal(s.undo, 2);
    // Back: the first pasted link again; forward: the second.
    await page.goBack();
    await page.waitForFunction(() => /text=one%20two%20three/.test(window.attn.experiment()));
    assert.equal((await ui(page)).stage, 2);
    await page.goForward();
    await page.waitForFunction(() => /text=four%20five/.test(window.attn.experiment()));
    // Back to where the page started: no hash opens the experiment it opened with.
    await page.goBack();
    await page.waitForFunction(() => /text=one%20two%20three/.test(window.attn.experiment()));
    // A frame that publishes the experiment being left after the address bar
    // has changed but before its hashchange has run (as happens under load)
    // must not overwrite the entry the reader went back to.
    await page.evaluate(() => window.addEventListener('popstate', () => {
      window.attnShell.publishExperiment(window.attn.experiment());
    }, { once: true }));
    await page.goBack();
    await page.waitForFunction((e) => window.attn.experiment() === e, first);
    assert.equal((await ui(page)).undo, 6, 'every link opened is one undo step');
    // Undo walks the same history as every other change: the last one was back to the start.
    await click(page, 'undo');
    await page.waitForFunction(() => /text=one%20two%20three/.test(window.attn.experiment()));
    // A bad pasted link: named on the banner, the experiment kept.
    const before = await experiment(page);
    await page.evaluate(() => { location.hash = '#v=1&heads=3&mask=sideways'; });
    await page.waitForFunction(() => /mask/.test(window.attn.errors()));
    assert.equal(await experiment(page), before);
  });
});

test('a link that arrives while the page loads (pasted, Back) is the one opened: the load-time link never overwrites it', async () => {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
    // attn.wasm is held back until the links below have arrived: the page is still loading.
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route(/\/attn(-mt)?\.wasm$/, async (route) => { await held; await route.continue(); });
    await page.goto(suite.server.url + '#v=1&text=loaded%20first&heads=2');
    await page.evaluate(() => { location.hash = '#v=1&text=pasted%20while%20loading&heads=4'; });
    await page.evaluate(() => { location.hash = '#v=1&text=pasted%20again&heads=1'; });
    await page.goBack();  // Back, still loading: the first pasted link
    await page.waitForFunction(() => /pasted%20while%20loading/.test(location.hash));
    assert.equal(await page.evaluate(() => !!window.attn), false, 'the app is not up yet');
    release();
    await page.waitForFunction(() => window.attn && window.attnShell.firstFrameSeen);
    assert.match(await experiment(page), /text=pasted%20while%20loading&.*heads=4/);
    assert.deepEqual((await trace(page)).tokens, ['pasted', 'while', 'loading']);
    assert.equal((await ui(page)).undo, 0, 'opened as the page\'s own link, not an undo step over the load-time one');
    // The app's publish writes its own words for that link, never the load-time one.
    await page.waitForFunction(() => /heads=4/.test(location.hash) && /pasted%20while%20loading/.test(location.hash));
    await frames(page, 4);
    assert.doesNotMatch(await page.evaluate(() => location.hash), /loaded%20first/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
