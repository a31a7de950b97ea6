// The text view: the app's text mirror as HTML, its summary announced, and the keys that are the page's.
import { shell, canvas, el } from './page.js';
import { framed } from './embed.js';

// [Text view] The app's text mirror as HTML, built with textContent only.
const textViewEl = document.getElementById('textview');
const textBody = document.getElementById('tv-body');
const announceEl = document.getElementById('announce');
let lastSummary = '';
let announceTimer = null;
let lastAnnounced = 0;
let pendingTextView = null;  // the text mirror that came before the first frame

function renderTable(t) {
  if (!t.cells) {
    const p = el('p');
    p.appendChild(el('strong', t.caption));
    p.appendChild(document.createTextNode(' — ' + t.note));
    return p;
  }
  const table = el('table');
  table.appendChild(el('caption', t.caption));
  const head = el('thead');
  const hr = el('tr');
  hr.appendChild(el('td'));
  for (const c of t.cols) { const th = el('th', c); th.scope = 'col'; hr.appendChild(th); }
  head.appendChild(hr);
  table.appendChild(head);
  const body = el('tbody');
  t.cells.forEach((row, r) => {
    const tr = el('tr');
    const th = el('th', t.rows[r]);
    th.scope = 'row';
    tr.appendChild(th);
    for (const v of row) tr.appendChild(el('td', v));
    body.appendChild(tr);
  });
  table.appendChild(body);
  return table;
}

function renderTextView(doc) {
  const zh = doc.lang === 'zh';
  document.getElementById('tv-title').textContent = zh ? '文本视图' : 'Text view';
  document.getElementById('tv-close').textContent = zh ? '关闭文本视图' : 'Close the text view';
  textViewEl.setAttribute('aria-label', zh ? '文本视图' : 'Text view');
  textViewEl.lang = zh ? 'zh' : 'en';
  const parts = [el('p', doc.summary)];
  if (doc.errors.length) for (const e of doc.errors) parts.push(el('p', e, 'error'));
  if (doc.lesson) {
    parts.push(el('h2', doc.lesson.id + ' ' + doc.lesson.title));
    parts.push(el('p', doc.lesson.text));
    for (const line of doc.lesson.lines || []) parts.push(el('p', line));
    for (const t of doc.lesson.tables || []) parts.push(renderTable(t));
    if (doc.lesson.numbers.length && !(doc.lesson.lines || []).length) {  // a card's sentences say them in words
      const dl = el('dl');
      for (const [name, value] of doc.lesson.numbers) { dl.appendChild(el('dt', name)); dl.appendChild(el('dd', value)); }
      parts.push(dl);
    }
  }
  const s = doc.stage;
  parts.push(el('h2', (zh ? '阶段 ' : 'Stage ') + (s.index + 1) + ' / ' + s.count + ': ' + s.name));
  parts.push(el('p', s.formula, 'formula'));
  parts.push(el('p', s.explain));
  for (const t of doc.tables) parts.push(renderTable(t));
  if (doc.inspector.length) {
    parts.push(el('h2', zh ? '检查器' : 'Inspector'));
    for (const line of doc.inspector) parts.push(el('p', line, 'formula'));
  }
  if (doc.effect) parts.push(el('p', doc.effect));
  textBody.replaceChildren(...parts);
}

function announce(summary) {
  if (summary === lastSummary) return;
  lastSummary = summary;
  clearTimeout(announceTimer);
  const wait = Math.max(0, 1000 - (performance.now() - lastAnnounced));
  announceTimer = setTimeout(() => {
    lastAnnounced = performance.now();
    announceEl.textContent = lastSummary;
  }, wait);
}

function setTextViewOpen(open) {
  textViewEl.classList.toggle('open', open);
  textViewEl.classList.toggle('sr-only', !open);
  if (open) textViewEl.focus();
  else if (!framed) canvas().focus();
}

// attnShell.textView: the app's text mirror (JSON), when it changed.
export function textView(json) {
  let doc;
  try { doc = JSON.parse(String(json)); } catch (e) { return; }
  // Before the first frame is on screen the page's layout of the text view
  // (tens of ms) would delay it: the first one waits for firstFrame.
  if (!shell.firstFrameSeen) { pendingTextView = doc; return; }
  renderTextView(doc);
  announce(doc.summary);
}

// At the first frame: the text mirror that came before it.
export function showPendingTextView() {
  if (!pendingTextView) return;
  const doc = pendingTextView;
  pendingTextView = null;
  renderTextView(doc);
  announce(doc.summary);
}

// attnShell.toggleTextView: shows or hides the text view for everyone (View menu, skip button).
export function toggleTextView() { setTextViewOpen(!textViewEl.classList.contains('open')); }

const canvasName = canvas().getAttribute('aria-label') || 'Attention playground';
// attnShell.focusLabel: the canvas's accessible name follows the control keyboard navigation is on.
export function focusLabel(label) {
  label = String(label);
  canvas().setAttribute('aria-label', label ? canvasName + ': ' + label : canvasName);
}

// The app (GLFW) listens for keys on the whole window and keeps Tab from
// moving the focus. Keys typed into the page's own elements (the skip button,
// the text view) are not the app's, and Tab from anywhere but the canvas moves
// the focus as in any page. Registered before the app's listeners, so first.
function keepKeysFromApp(e) {
  const t = e.target;
  const ours = t instanceof Element && t.closest('#textview, #skip, #fatal');
  // Shift+Tab on the canvas leaves it (for the skip button) unless the app is
  // navigating its controls by keyboard, where Shift+Tab steps back.
  const leaving = e.key === 'Tab' && e.shiftKey && t instanceof HTMLCanvasElement && window.Module && window.Module._attn_hook_keyboard_nav &&
    !window.Module._attn_hook_keyboard_nav();
  if (ours || leaving || (e.key === 'Tab' && !(t instanceof HTMLCanvasElement))) e.stopImmediatePropagation();
  // Stopped here, the event reaches no element's own listener: Escape is handled here.
  if (ours && e.type === 'keydown' && e.key === 'Escape' && textViewEl.classList.contains('open')) setTextViewOpen(false);
}

// The page's keys, and the skip and close buttons.
export function listenForTextView() {
  for (const type of ['keydown', 'keyup', 'keypress']) window.addEventListener(type, keepKeysFromApp, true);
  document.getElementById('skip').addEventListener('click', () => setTextViewOpen(true));
  document.getElementById('tv-close').addEventListener('click', () => setTextViewOpen(false));
}
