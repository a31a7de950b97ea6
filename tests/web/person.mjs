// What a person does on the page: click the widgets the app reports, press
// keys, wait for frames; and what the tests read back through window.attn.
import assert from 'node:assert/strict';
import { screenshotPixels } from './harness.mjs';

// Numbers from window.attn.trace(): NaN and infinities arrive as strings.
export const num = (x) => (x === 'nan' ? NaN : x === 'inf' ? Infinity : x === '-inf' ? -Infinity : Number(x));
export const at = (m, r, c) => num(m.data[r * m.shape[1] + c]);

export async function frames(page, n = 4) {
  await page.evaluate((n) => new Promise((resolve) => {
    let k = 0;
    const tick = () => (++k >= n ? resolve() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }), n);
}
// Waits until the layout has settled: two frames in a row draw the same widgets
// in the same places (a new view, a language or a size can take a frame or
// two); returns that ui() state. `what` names the view in the failure.
export async function settle(page, what = 'the page') {
  let before = '';
  for (let i = 0; i < 20; i++) {
    await frames(page, 2);
    const state = await ui(page);
    const now = JSON.stringify(state.widgets);
    if (now === before) return state;
    before = now;
  }
  assert.fail('the layout of ' + what + ' did not settle');
}
// Waits (frame by frame, no fixed sleep) until ui() satisfies `ok`; returns that
// state. `what` names it in the failure, and `say(u)` adds what the failure shows.
export async function until(page, ok, what, say = () => '') {
  for (let i = 0; i < 300; i++) {
    const u = await ui(page);
    if (ok(u)) return u;
    await frames(page, 2);
  }
  assert.fail('timed out waiting for ' + what + say(await ui(page)));
}
// An embed's frame, up and drawing: a poster (view.poster=1) is started as a
// person would, by pressing its Run button.
export async function startEmbed(f) {
  await f.waitForFunction(() => window.attnShell && document.readyState !== 'loading');
  if (await f.$('#poster-run')) await f.click('#poster-run');
  await f.waitForFunction(() => window.attn && window.attnShell && window.attnShell.firstFrameSeen);
}
// ui() crosses as text: Playwright's value serialiser takes ~60 ms for its ~60 KB
// (the loss curve's points), JSON text ~15 ms, and the page's thread waits on it.
export const ui = async (page) => JSON.parse(await page.evaluate(() => JSON.stringify(window.attn.ui())));
export const trace = (page) => page.evaluate(() => window.attn.trace());
export const experiment = (page) => page.evaluate(() => window.attn.experiment());

export async function widget(page, name) {
  const w = (await ui(page)).widgets[name];
  assert.ok(w, `widget ${name} is on screen`);
  return w;
}
// Clicks like a person: waits until the widget stops moving (a layout can take a
// frame or two to settle after a change), moves there, lets the hover register,
// then presses and releases in separate frames.
export async function click(page, name, fx = 0.5, fy = 0.5) {
  await reveal(page, name);  // a press off screen would land nowhere
  let w = await widget(page, name);
  for (let i = 0; i < 10; i++) {
    await frames(page, 2);
    const again = await widget(page, name);
    if (again.every((v, k) => v === w[k])) break;
    w = again;
  }
  await page.mouse.move(w[0] + (w[2] - w[0]) * fx, w[1] + (w[3] - w[1]) * fy);
  await frames(page, 2);
  await page.mouse.down();
  await frames(page, 2);
  await page.mouse.up();
  await frames(page, 4);
}
// Turns the wheel over `at` (a point in the panel) until `seen(rect)` holds for
// widget `name` (rect: its rectangle, or undefined while its panel does not draw
// it). Dear ImGui scrolls in proportion to the wheel, so after the first turn
// that moves the widget, each turn is sized from how far that one scrolled: a
// widget far below the fold comes into view in two or three turns, not twenty.
async function wheelUntil(page, name, at, seen) {
  const height = page.viewportSize().height;
  let perDelta = null;  // pixels the widget moves up per unit of wheel delta
  for (let i = 0; i < 40; i++) {
    const w = (await ui(page)).widgets[name];
    const drawn = w && w[2] > w[0] && w[3] > w[1];
    if (seen(w, drawn, height)) return true;
    let delta = drawn && w[1] < 0 ? -120 : 120;
    if (drawn && perDelta) {
      const needed = (w[1] + w[3]) / 2 - height / 2;  // the widget's centre to the viewport's middle
      delta = Math.max(-2400, Math.min(2400, needed / perDelta));
    }
    const [x, y] = await at();
    await page.mouse.move(x, y);
    await page.mouse.wheel(0, delta);
    await frames(page, 3);
    const after = (await ui(page)).widgets[name];
    if (drawn && after && after[3] > after[1] && after[1] !== w[1]) perDelta = (w[1] - after[1]) / delta;
  }
  return false;
}
// Scrolls the panel under the widget with the wheel until the widget is wholly
// on screen (a person scrolls to a button below the fold before pressing it).
export async function reveal(page, name) {
  const onScreen = (w, drawn, height) => w && w[1] >= 0 && w[3] <= height;
  const at = async () => {
    const w = await widget(page, name);
    return [(w[0] + w[2]) / 2, page.viewportSize().height / 2];
  };
  if (!(await wheelUntil(page, name, at, onScreen))) throw new Error(`${name} could not be scrolled into view`);
}
// Scrolls the panel until map `name`'s cells are drawn and wholly on screen (a
// map scrolled out of view reports no cells).
export async function revealCells(page, name) {
  const u0 = await ui(page);
  // over the centre panel (the pipeline, a lesson's card, the Train panel)
  const panel = u0.widgets.layer || u0.widgets.unpin || u0.widgets.pin || u0.widgets.train_recipe || u0.widgets.lesson_next;
  const at = async () => [(panel[0] + panel[2]) / 2, page.viewportSize().height / 2];
  const shown = (w, drawn, height) => drawn && w[1] >= 0 && w[3] <= height;
  if (!(await wheelUntil(page, name, at, shown))) assert.fail(name + ' could not be scrolled into view');
}

// Rests the mouse on cell (r, c) of map `name` (rows × cols cells) and returns
// the tooltip the page shows for it: "row r (label)   column c (label)   value v".
export async function hoverCell(page, name, r, c, rows, cols) {
  await revealCells(page, name);
  const w = await widget(page, name);
  await page.mouse.move(w[0] + (w[2] - w[0]) * (c + 0.5) / cols, w[1] + (w[3] - w[1]) * (r + 0.5) / rows);
  // Just after a wheel scroll ImGui keeps the hover on the scrolled panel for a moment.
  await page.waitForFunction(() => window.attn.ui().tooltip !== '').catch(() => {});
  return (await ui(page)).tooltip;
}
// The value a cell's tooltip gives (NaN, ±inf and masked as they are).
export function tooltipValue(text) {
  const m = /value (\S+)$/.exec(text);
  assert.ok(m, 'a tooltip with a value: ' + JSON.stringify(text));
  return m[1] === 'masked' ? 'masked' : num(m[1]);
}
// Presses a key as a person does to activate the focused control: held for a
// couple of frames, then released (a press and release inside one slow frame can
// reach the app as a tap it never sees down, as a click's press and release would).
export async function holdKey(page, k) {
  await page.keyboard.down(k);
  await frames(page, 2);
  await page.keyboard.up(k);
  await frames(page, 1);
}
// A key pressed and released at once: down and up are sent together, not the up
// after the down's round trip, which on a busy machine landed frames later, long
// enough a hold for ImGui to repeat the key (one ArrowRight moved 6 → 10 stages).
// A chord ("Control+z") holds its modifiers around that press.
export async function key(page, k, times = 1) {
  const cut = k.lastIndexOf('+', k.length - 2);
  const modifiers = cut > 0 ? k.slice(0, cut).split('+') : [];
  const main = cut > 0 ? k.slice(cut + 1) : k;
  for (let i = 0; i < times; i++) {
    for (const m of modifiers) await page.keyboard.down(m);
    await Promise.all([page.keyboard.down(main), page.keyboard.up(main)]);
    for (const m of [...modifiers].reverse()) await page.keyboard.up(m);
    await frames(page, 2);
  }
}
export async function gotoStage(page, stage) {
  for (let guard = 0; guard < 20; guard++) {
    const s = (await ui(page)).stage;
    if (s === stage) return;
    await key(page, s < stage ? 'ArrowRight' : 'ArrowLeft');
  }
  assert.fail('could not reach stage ' + stage);
}
export const STAGE = { embeddings: 0, projections: 1, scores: 2, scaled: 3, masked: 4, weights: 5, weighted_sum: 6, concat: 7, wo: 8, block: 9, output: 10 };

// Mean brightness of a region of a screenshot (CSS pixels).
export async function regionMean(page, [x0, y0, x1, y1]) {
  const { data: d } = await screenshotPixels(page, { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) });
  let s = 0;
  for (let i = 0; i < d.length; i += 4) s += d[i] + d[i + 1] + d[i + 2];
  return s / (d.length / 4) / 3;
}

// What a host page hears from embed `index` (its iframe.attn, in order) after
// posting it attn:set with `link`: every attn:train message, up to the one that
// ends the run: stopped, or done (at step `doneAt`, if given; a done of the
// experiment the frame showed before does not end it).
export function hearTraining(page, link, { index = 1, doneAt } = {}) {
  return page.evaluate(({ index, link, doneAt }) => new Promise((resolve) => {
    const frame = document.querySelectorAll('iframe.attn')[index].contentWindow;
    const got = [];
    const listen = (e) => {
      if (e.source !== frame || !e.data || e.data.type !== 'attn:train') return;
      got.push(e.data);
      if (e.data.stopped || (e.data.done && (doneAt === null || e.data.step === doneAt))) {
        window.removeEventListener('message', listen);
        resolve(got);
      }
    };
    window.addEventListener('message', listen);
    frame.postMessage({ type: 'attn:set', link }, location.origin);
  }), { index, link, doneAt: doneAt ?? null });
}

// A poster's card as the person sees it before pressing Run (web/posters.js, "Poster").
export function posterCard(f) {
  return f.evaluate(() => ({
    title: document.querySelector('#poster h1').textContent,
    sentence: document.querySelector('#poster .sentence')?.textContent ?? null,
    stage: document.querySelector('#poster .stage')?.textContent ?? null,
    errors: [...document.querySelectorAll('#poster .error')].map((p) => p.textContent),
    picture: !!document.querySelector('#poster img'),
  }));
}

// The app's own files among requested URLs: what a poster must not load before Run.
// The app's three files, of either build (attn.* or the threaded attn-mt.*: web/app.js).
export const appFiles = (urls) => urls.filter((u) => /\/attn(-mt)?\.(wasm|js|data)(\?|$)/.test(u));

// WCAG contrast of the text in a widget, from its pixels: the most common
// colour is the background, the pixel farthest from it in luminance the text.
export async function contrastIn(page, name) {
  const [x0, y0, x1, y1] = await widget(page, name);
  const { data: d } = await screenshotPixels(page, { x: x0, y: y0, width: x1 - x0, height: y1 - y0 });
  const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (i) => 0.2126 * lin(d[i]) + 0.7152 * lin(d[i + 1]) + 0.0722 * lin(d[i + 2]);
  const counts = new Map();
  for (let i = 0; i < d.length; i += 4) {
    const k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const bgKey = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  let bgIndex = 0;
  for (let i = 0; i < d.length; i += 4) if (((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) === bgKey) { bgIndex = i; break; }
  const bg = lum(bgIndex);
  let best = 1;
  for (let i = 0; i < d.length; i += 4) {
    const l = lum(i);
    best = Math.max(best, (Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05));
  }
  return { ratio: best, background: bg };
}
