// Share, embed, export, as a person uses them: a link reproduces the lesson,
// stage and selection; view.hide / readonly / embed change what the page offers;
// the Share menu copies links and downloads the numbers and the picture; the
// language is remembered; a bad link says what is wrong.
//
// attnShell's copyText / download / openUrl are wrapped after load to record
// their calls (the test checks what the app hands the page, not how the page
// copies or downloads). storageGet / storageSet are backed by localStorage when
// the shell lacks them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, withPage, browserSuite } from './harness.mjs';
import { frames, ui, trace, experiment, widget, click, key, gotoStage, STAGE, num, reveal, settle } from './person.mjs';

const suite = browserSuite();

const hashOf = (page) => page.evaluate(() => location.hash.slice(1));

// Records what the app asks the page to do.
async function recordShell(page) {
  await page.evaluate(() => {
    window.__copied = [];
    window.__downloads = [];
    window.__opened = [];
    window.attnShell.copyText = (t) => window.__copied.push(t);
    window.attnShell.download = (name, mime, bytes) => window.__downloads.push({ name, mime, bytes: Array.from(bytes) });
    window.attnShell.openUrl = (u) => window.__opened.push(u);
  });
}

async function share(page, item) {
  await click(page, 'share');
  await click(page, item);
}

test('a link reproduces the lesson, the stage, the selected row and the experiment', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page, context, problems }) => {
    await click(page, 'lesson3');
    await gotoStage(page, STAGE.scores);
    await key(page, 'ArrowUp', 2);
    const want = await ui(page);
    assert.equal(want.lesson, 2);
    const wantExperiment = await experiment(page);
    await page.waitForFunction(() => location.hash.includes('view.lesson=3') && location.hash.includes('view.stage=2'), null);
    await frames(page, 20);  // past the publishing throttle
    const hash = await hashOf(page);
    assert.equal(hash, want.link);
    assert.match(hash, new RegExp('view.row=' + want.sel_row));

    const other = await openPage(suite.browser, suite.server.url + '#' + hash);
    try {
      const got = await ui(other.page);
      assert.equal(got.lesson, 2);
      assert.equal(got.stage, STAGE.scores);
      assert.equal(got.sel_row, want.sel_row);
      assert.equal(await experiment(other.page), wantExperiment);
      assert.equal(await hashOf(other.page), hash, 'opening the link publishes the same link');
      assert.deepEqual(other.problems, []);
    } finally {
      await other.context.close();
    }
  });
});

test('a link stays readable up to 2000 characters; a z= link past that opens the same experiment', async () => {
  const sentence = 'the quick brown fox jumps over the lazy dog while the cat watches from the warm windowsill';
  const readable = 'v=1&text=' + encodeURIComponent(sentence) + '&heads=4&mask=none&seed=9';
  const short = await openPage(suite.browser, suite.server.url + '#' + readable);
  try {
    assert.match((await ui(short.page)).link, /^v=1&text=the%20quick/);
    await click(short.page, 'share');
    assert.ok(await widget(short.page, 'share_link_length'), 'the Share menu shows the link\'s length');
  } finally {
    await short.context.close();
  }
  // 250 masked edges (a link holds at most 256): over 2000 characters.
  const edges = [];
  for (let h = 0; h < 4; ++h) for (let q = 0; q < 17; ++q) for (let k = q + 1; k < 17; ++k) edges.push(`0.${h}.${q}.${k}`);
  const canonical = readable + '&edges=' + edges.slice(0, 250).join(',');
  await withPage(suite.browser, suite.server.url + '#' + canonical, async ({ page, context }) => {
    const wantExperiment = await experiment(page);
    assert.ok(wantExperiment.length > 2000, 'long enough to be compressed');
    const link = (await ui(page)).link;
    assert.match(link, /^z=[A-Za-z0-9_-]+$/);
    const other = await openPage(suite.browser, suite.server.url + '#' + link);
    try {
      assert.equal(await experiment(other.page), wantExperiment);
      assert.deepEqual((await trace(other.page)).tokens, (await trace(page)).tokens);
    } finally {
      await other.context.close();
    }
  });
});

test('view.hide removes panels; view.readonly keeps the experiment but allows stepping', async () => {
  let { page, context, problems } = await openPage(suite.browser, suite.server.url + '#v=1&view.hide=controls,code&view.stage=5');
  try {
    const w = (await ui(page)).widgets;
    assert.ok(!w.heads_2 && !w.text, 'no controls');
    assert.ok(!w.code_lit, 'no code');
    assert.ok(w.grid_head0 && w.stage0 && w.share, 'the maps, the stepper and the menu stay');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  ({ page, context, problems } = await openPage(suite.browser, suite.server.url + '#v=1&view.readonly=1&view.stage=5'));
  try {
    const before = await experiment(page);
    assert.equal((await ui(page)).readonly, true);
    await click(page, 'heads_4');
    await click(page, 'grid_head0', 0.9, 0.1);  // would mask an edge
    await key(page, 'Control+z');
    assert.equal(await experiment(page), before, 'nothing changed the experiment');
    await click(page, 'next');
    assert.equal((await ui(page)).stage, STAGE.weighted_sum, 'stepping still works');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('view.readonly in a lesson: its view controls still work, the ones that change the experiment do not', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=5&view.readonly=1',
    { width: 1400, height: 900 }, async ({ page }) => {
    const before = await experiment(page);
    assert.equal((await ui(page)).lesson, 4);
    assert.equal((await ui(page)).numbers.tile_step, 0);
    await click(page, 'l5_step', 0.75);  // "step ▶"
    assert.equal((await ui(page)).numbers.tile_step, 1, 'the tile stepper moved');
    await click(page, 'l5_decode', 0.9);  // would decode more tokens
    await click(page, 'lesson_next');
    assert.equal(await experiment(page), before, 'nothing changed the experiment');
    assert.equal((await ui(page)).lesson, 4, 'still on L5');
  });
});

test('view.embed: a small iframe-sized page with only the maps and "Open in the full playground"', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=4&view.lesson=1&view.embed=1',
    { width: 700, height: 450 }, async ({ page }) => {
    await recordShell(page);
    const state = await ui(page);
    assert.equal(state.embed, true);
    const w = state.widgets;
    assert.ok(!w.share && !w.language && !w.heads_2 && !w.lesson1, 'no top bar, no controls, no lesson list');
    assert.ok(w.open_full && w.stage0 && w.l1_softmax, 'the button, the stepper and the lesson card');
    for (const [name, r] of Object.entries(w)) {
      if (!name.startsWith('grid_') && name !== 'open_full') continue;
      assert.ok(r[0] >= 0 && r[2] <= 700, `${name} fits the width: ${r}`);
    }
    await click(page, 'open_full');
    const opened = await page.evaluate(() => window.__opened);
    assert.equal(opened.length, 1);
    const url = new URL(opened[0]);
    assert.equal(url.origin + url.pathname, new URL(suite.server.url).origin + new URL(suite.server.url).pathname);
    assert.ok(!url.hash.includes('view.embed'), url.hash);
    assert.match(url.hash, /heads=4/);
    assert.match(url.hash, /view.lesson=1/);
  });
});

test('Share: copy the link and the embed code', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=4', async ({ page }) => {
    await recordShell(page);
    await share(page, 'share_copy_link');
    const { link } = await ui(page);
    const base = await page.evaluate(() => location.origin + location.pathname);
    assert.deepEqual(await page.evaluate(() => window.__copied), [base + '#' + link]);
    await share(page, 'share_copy_embed');
    const snippet = (await page.evaluate(() => window.__copied))[1];
    const m = snippet.match(/^<iframe id="(attn-[0-9a-f]{8})" src="([^"]+)" width="100%" height="(\d+)" style="border:0" loading="lazy" title="Attention playground"><\/iframe>\n<script>\n/);
    assert.ok(m, snippet);
    assert.equal(m[2].replaceAll('&amp;', '&'), base + '#' + link + '&view.embed=1');
    assert.ok(Number(m[3]) >= 320 && Number(m[3]) <= 1600, `a first height within 320–1600: ${m[3]}`);
    // The resize listener, as docs/embedding.md's example: this frame, this origin, at most 1600 px.
    assert.ok(snippet.includes(`document.getElementById('${m[1]}')`), snippet);
    assert.ok(snippet.includes(`e.origin !== '${new URL(base).origin}' || e.source !== frame.contentWindow`), snippet);
    assert.ok(snippet.includes("if (e.data.type === 'attn:resize') frame.style.height = Math.min(e.data.height, 1600) + 'px';"), snippet);
  });
});

test('Share: the embed code of a lesson carries only what its author sees, and its frame takes the height its content asks for', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=9&trained=0', { width: 1280, height: 720 }, async ({ page, context }) => {
    await recordShell(page);
    await reveal(page, 'pin');
    await click(page, 'pin');  // pinned, but the compare view is not shown
    assert.equal((await ui(page)).compare.shown, false);
    assert.match((await ui(page)).link, /&pin=/);
    await share(page, 'share_copy_embed');
    await reveal(page, 'compare');
    await click(page, 'compare');  // now A | B | B − A is what the author sees
    assert.equal((await ui(page)).compare.shown, true);
    await share(page, 'share_copy_embed');
    const [unshown, shown] = await page.evaluate(() => window.__copied);
    assert.doesNotMatch(unshown, /pin=/, 'a pin the author is not comparing stays out of the embed');
    assert.match(shown, /pin=/, 'the compare view the author sees carries A');
    const m = unshown.match(/height="(\d+)"/);
    assert.ok(m && Number(m[1]) >= 1000, `L9's card, Train panel and maps need more than a 480 px frame: ${m && m[1]}`);
    assert.match(unshown, /title="Attention playground: L9 Watch an induction head form"/);

    // The snippet on a host page of this site: the frame takes the height the embed reports.
    const host = await context.newPage();
    await context.route(suite.server.url + 'host.html', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><html><body><p>A post.</p>' + unshown + '</body></html>' }));
    await host.addInitScript(() => {
      window.__resizes = [];
      window.addEventListener('message', (e) => { if (e.data && e.data.type === 'attn:resize') window.__resizes.push(e.data.height); });
    });
    await host.goto(suite.server.url + 'host.html');
    const f = await (await host.$('iframe')).contentFrame();
    await f.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen);
    await host.waitForFunction(() => {
      const h = window.__resizes[window.__resizes.length - 1];
      return h > 0 && document.querySelector('iframe').clientHeight === Math.min(h, 1600);
    });
    const resized = await host.evaluate(() => ({ last: window.__resizes[window.__resizes.length - 1], frame: document.querySelector('iframe').clientHeight }));
    assert.ok(resized.last > 480 && resized.frame === Math.min(resized.last, 1600), JSON.stringify(resized));
  });
});

test('Share: export the stage as CSV, the trace as JSON and the canvas as PNG', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&heads=2&view.stage=5',
    { width: 800, height: 500 }, async ({ page }) => {
    await recordShell(page);
    await share(page, 'share_export_csv');
    await share(page, 'share_export_json');
    await share(page, 'share_export_png');
    const downloads = await page.evaluate(() => window.__downloads);
    assert.deepEqual(downloads.map((d) => [d.name, d.mime]),
      [['attn-weights.csv', 'text/csv'], ['attn-trace.json', 'application/json'], ['attn-canvas.png', 'image/png']]);
    const t = await trace(page);
    const text = (d) => Buffer.from(d.bytes).toString('utf8');

    const sections = text(downloads[0]).trim().split('\n\n');
    assert.equal(sections.length, 2, 'one section per head');
    sections.forEach((section, h) => {
      const [title, header, ...rows] = section.split('\n');
      assert.match(title, new RegExp(`^# weights layer 0 head ${h}`));
      assert.deepEqual(header.split(',').slice(1), t.tokens);
      const w = t.layers[0].heads[h].weights;
      assert.equal(rows.length, w.shape[0]);
      rows.forEach((row, r) => {
        const cells = row.split(',');
        assert.equal(cells[0], t.tokens[r]);
        cells.slice(1).forEach((x, c) => assert.equal(num(x), num(w.data[r * w.shape[1] + c]), `head ${h} (${r},${c})`));
      });
    });

    assert.deepEqual(JSON.parse(text(downloads[1])), t);

    const png = Buffer.from(downloads[2].bytes);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const size = await page.evaluate(() => [document.getElementById('canvas').width, document.getElementById('canvas').height]);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], size);
    assert.ok(png.length > size[0] * size[1] * 3, 'holds every pixel');
  });
});

test('Share: the stage\'s maps as SVG parse as SVG, with the tokens as labels and every cell', async () => {
  await withPage(suite.browser, suite.server.url + '#v=1&text=the%20cat%20sat&heads=2&mask=causal&view.stage=5', async ({ page }) => {
    await recordShell(page);
    await share(page, 'share_export_svg');
    const [d] = await page.evaluate(() => window.__downloads);
    assert.deepEqual([d.name, d.mime], ['attn-weights.svg', 'image/svg+xml']);
    const svg = Buffer.from(d.bytes).toString('utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror') ? doc.querySelector('parsererror').textContent : '',
        root: doc.documentElement.nodeName,
        cells: doc.querySelectorAll('rect.cell').length,
        hatched: doc.querySelectorAll('path.hatch').length,
        texts: Array.from(doc.querySelectorAll('text')).map((t) => t.textContent),
      };
    }, svg);
    assert.equal(parsed.error, '');
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.cells, 2 * 3 * 3, 'two heads of 3 × 3');
    assert.equal(parsed.hatched, 2 * 3, 'the causal mask\'s cells, hatched');
    for (const token of ['the', 'cat', 'sat']) assert.ok(parsed.texts.includes(token), token);
    assert.ok(parsed.texts.some((t) => /head 1/.test(t)), 'each map titled');
    assert.ok(parsed.texts.includes('1.00'), 'values written in the cells');
  });
});

test('the interface language is remembered across a reload', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url, {
    prepare: (p) => p.addInitScript(() => {
      // Give the shell localStorage-backed storage if it has none (the app only needs the two names).
      let shell;
      Object.defineProperty(window, 'attnShell', {
        configurable: true,
        get: () => shell,
        set: (s) => {
          shell = s;
          s.storageGet ??= (k) => localStorage.getItem(k);
          s.storageSet ??= (k, v) => localStorage.setItem(k, v);
        },
      });
    }),
  });
  try {
    assert.equal((await ui(page)).language, 'en');
    await click(page, 'language');
    assert.equal((await ui(page)).language, 'zh');
    await frames(page, 4);
    await page.reload();
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
    assert.equal((await ui(page)).language, 'zh');
    assert.ok(!/lang/.test(new URL(page.url()).hash), 'the language is not part of the link');
    assert.deepEqual(problems.filter((p) => !p.includes('font')), []);
  } finally {
    await context.close();
  }
});

test('panels closed from the View menu stay closed after a reload, and are not part of the link', async () => {
  await withPage(suite.browser, suite.server.url, async ({ page }) => {
    assert.ok((await ui(page)).widgets.code_lit, 'the code panel is open');
    await click(page, 'view_menu');
    await click(page, 'view_code');
    await key(page, 'Escape');
    assert.ok(!(await ui(page)).widgets.code_lit, 'the code panel closed');
    assert.equal(await page.evaluate(() => localStorage.getItem('attn.layout')), 'code');
    await page.reload();
    await page.waitForFunction(() => window.attnShell && window.attnShell.firstFrameSeen && window.attn);
    await frames(page, 4);
    const state = await ui(page);
    assert.ok(!state.widgets.code_lit, 'still closed after the reload');
    assert.ok(state.widgets.heads_2, 'the rest of the layout is there');
    assert.ok(!/view\./.test(new URL(page.url()).hash), 'the layout is not part of the link');
    await click(page, 'view_menu');
    await click(page, 'view_code');
    await key(page, 'Escape');
    assert.ok((await ui(page)).widgets.code_lit, 'open again');
  });
});

test('a bad, truncated or oversized link: a banner says what is wrong, the default experiment opens', async () => {
  const cases = [
    ['#v=1&heads=2&view.lesson=99', /view\.lesson/],
    ['#z=AQxyz', /z|compress|check|payload/i],
    ['#v=1&text=' + 'a'.repeat(70000), /65536/],
  ];
  for (const [hash, why] of cases) {
    await withPage(suite.browser, suite.server.url + hash, async ({ page }) => {
      assert.match(await page.evaluate(() => window.attn.errors()), why);
      assert.match(await experiment(page), /text=the%20cat%20chased%20the%20dog&.*heads=2/);
      await widget(page, 'banner');
      await click(page, 'banner_close');
      assert.ok(!(await ui(page)).widgets.banner, 'the banner closes');
    });
  }
});

// The Share menu of a recipe holds sentences: in 中文 at 1440 and 1280 px the longest
// ran past the screen's right edge (9 items cut). They wrap within the screen now.
test('the Share menu of a lesson, in English and 中文, at 1440, 1280 and on a phone: inside the screen, nothing cut', async () => {
  for (const [width, height] of [[1440, 900], [1280, 720], [844, 390]]) {
    for (const lang of ['en', 'zh']) {
      await withPage(suite.browser, suite.server.url + '#v=1&view.lesson=9&trained=0', { width, height }, async ({ page }) => {
        if (lang === 'zh') {
          await key(page, 'l');
          await page.waitForFunction(() => window.attn.textView().lang === 'zh');
        }
        await reveal(page, 'share');
        await click(page, 'share');
        const u = await settle(page, `the Share menu, ${width}×${height}, ${lang}`);
        assert.equal(u.clipped, 0, `${width}×${height} ${lang}: cut ${JSON.stringify(u.clippedItems)}`);
        for (const name of ['share_copy_link', 'share_embed_cost', 'share_export_svg']) {
          const r = u.widgets[name];
          assert.ok(r && r[0] >= 0 && r[2] <= width && r[3] <= height, `${width}×${height} ${lang}: ${name} on screen: ${JSON.stringify(r)}`);
        }
      });
    }
  }
});

// issue 49, item 10: a teacher's embed need not train in every reader's page as
// it loads: Share offers the poster form (view.poster=1), which loads and trains
// nothing until the reader presses Run, and says what the live form costs.
test('Share: the embed code of a poster, which trains only on Run; a recipe\'s menu says each reader trains it', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url + '#v=1&view.lesson=9&trained=0', { width: 1280, height: 720 });
  try {
    await recordShell(page);
    await click(page, 'share');
    assert.ok((await ui(page)).widgets.share_embed_cost, 'the menu says what a live embed of a recipe costs');
    await click(page, 'share_copy_embed_poster');
    const [snippet] = await page.evaluate(() => window.__copied);
    const src = snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
    assert.ok(src.endsWith('#' + (await ui(page)).link + '&view.embed=1&view.poster=1'), src);
    assert.match(snippet, /title="Attention playground: L9 Watch an induction head form"/);
    // The snippet on a host page: a poster, nothing of the app downloaded.
    const host = await context.newPage();
    const requested = [];
    host.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await context.route(suite.server.url + 'poster-host.html', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><html><body>' + snippet + '</body></html>' }));
    await host.goto(suite.server.url + 'poster-host.html');
    const frame = await (await host.waitForSelector('iframe')).contentFrame();
    await frame.waitForSelector('#poster-run', { timeout: 10000 });
    assert.ok(!requested.some((p) => /attn(-mt)?\.(js|wasm)$/.test(p)), 'no app before Run: ' + requested.join(' '));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
