// What the app asks of the browser: the clipboard, downloads, localStorage, new tabs, fonts when needed.
import { shell } from './page.js';

// attnShell.copyText: the clipboard (navigator.clipboard, else a hidden textarea and
// execCommand('copy')); a Promise of whether it worked.
export function copyText(text) {
  text = String(text);
  const fallback = () => {
    let ok = false;
    try {
      const ta = document.createElement('textarea');
      ta.value = text;
      ta.setAttribute('readonly', '');
      ta.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;opacity:0;';
      document.body.appendChild(ta);
      ta.select();
      ok = document.execCommand('copy');
      ta.remove();
      document.getElementById('canvas').focus({ preventScroll: true });
    } catch (e) { ok = false; }
    return ok;
  };
  try {
    if (navigator.clipboard && navigator.clipboard.writeText)
      return navigator.clipboard.writeText(text).then(() => true, () => fallback());
  } catch (e) { /* fall through */ }
  return Promise.resolve(fallback());
}

// attnShell.download: bytes (a Uint8Array, copied at once, or a string) saved as a file.
export function download(filename, mimeType, bytes) {
  try {
    const name = String(filename || 'download').replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').slice(0, 200) || 'download';
    // Copy: bytes may be a view of the wasm heap, which the app reuses or grows.
    const data = typeof bytes === 'string' ? bytes : new Uint8Array(bytes);
    const blob = new Blob([data], { type: String(mimeType || 'application/octet-stream') });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.style.display = 'none';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    return true;
  } catch (e) {
    console.warn('attn: download failed: ' + (e && e.message));
    return false;
  }
}

// attnShell.storageGet and storageSet: localStorage, or nothing when it is disabled (private mode).
export function storageGet(key) {
  try {
    const v = window.localStorage.getItem(String(key));
    return v === null ? null : String(v);
  } catch (e) { return null; }
}

export function storageSet(key, value) {
  try {
    window.localStorage.setItem(String(key), String(value));
    return true;
  } catch (e) { return false; }
}

// attnShell.openUrl: an http(s) URL in a new tab, noopener.
export function openUrl(url) {
  try {
    const u = new URL(String(url), document.baseURI);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    window.open(u.href, '_blank', 'noopener,noreferrer');
    return true;
  } catch (e) { return false; }
}

// attnShell.fetchFont: called by the app (bridge_fetch_font) the first time some text needs a
// font not in attn.data: the Chinese one, ~400 KB gzip, so never up front.
// Fetches assets/<name> from this site only and hands the bytes to the wasm
// in a Module._malloc'd buffer, which the app then owns; on failure it says
// why here and tells the app, which draws those characters as '?'.
export function fetchFont(name) {
  const M = window.Module;
  const hand = (bytes) => {
    const ptr = bytes && bytes.length ? M._malloc(bytes.length) : 0;
    if (ptr) M.HEAPU8.set(bytes, ptr);
    M.ccall('attn_hook_font_received', null, ['string', 'number', 'number'], [name, ptr, ptr ? bytes.length : 0]);
    return ptr !== 0;
  };
  const report = (why) => {
    shell.fonts[name] = 'failed';
    console.error('attn: font ' + name + ' could not be loaded (' + why + '); characters the UI font lacks show as "?"');
  };
  const fail = (why) => { report(why); hand(null); };
  shell.fonts[name] = 'loading';
  const url = new URL('assets/' + name, document.baseURI);
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || url.origin !== window.location.origin) {
    Promise.resolve().then(() => fail('not a font of this site'));  // answer outside the app's frame
    return;
  }
  fetch(url.href, { credentials: 'same-origin' })
    .then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.arrayBuffer();
    })
    .then((buffer) => {
      if (!buffer.byteLength) return fail('empty file');
      if (hand(new Uint8Array(buffer))) shell.fonts[name] = 'loaded';
      else report('out of memory');
    }, (err) => fail(String(err.message || err)));
}
