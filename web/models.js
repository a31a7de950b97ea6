// The model store: real models kept in IndexedDB, and the model a link names, opened from it or fetched.
import { keptStore } from './idb.js';

// [Models] real models the person opened (the Model window): each kept in this
// browser's IndexedDB under name@hash (the first 16 hex digits of the
// checkpoint's SHA-256, which a link's model= names), with its tokenizer and
// that file's SHA-256, so a link that reads it opens it again here; never sent
// anywhere. Without IndexedDB or crypto.subtle (a private window, an insecure
// origin) models open but are not kept, and the Model window says so (as it
// does when the store is full or was cleared).
//
// A kept tokenizer is trusted for a link only when the link names its hash
// (tokenizer=name@hash, which the page writes whenever it names a model). A
// link without tokenizer= (written before it existed) takes the tokenizer from
// its tokenizer_url= (fetched again; the kept checkpoint is used), or, without
// one, from the store only when the person chose that pair of files themselves
// in this browser; otherwise the window asks for the files. So a link with
// someone else's tokenizer_url= can never make a later link read that tokenizer.
//
// A link's model_url= is read no further than the checkpoint's header says the
// file is (attn_hook_model_limits, after its first 256 bytes), and its
// tokenizer_url= no further than the longest tokenizer that vocabulary allows:
// a host answering endless bytes, with or without Content-Length, is stopped
// with a message. Both are fetched with cache: 'no-store', which sw.js also
// reads as "do not keep" (the model is kept here, once).
export const models = Object.assign(keptStore('attn-models', 'models'), {
  list() { return this.run('readonly', (s) => s.getAll()).catch(() => []); },
  remove(key) { return this.run('readwrite', (s) => s.delete(key)).catch(() => undefined); },
  // The kept models' names and sizes to the app (attn_hook_kept_models).
  tell() {
    return this.list().then((all) => {
      const clean = (t) => String(t).replace(/[\t\n]/g, ' ');
      const lines = all.map((m) => [m.key, clean(m.name), clean(m.tokenizer), this.bytes(m)].join('\t'));
      window.Module.ccall('attn_hook_kept_models', null, ['string'], [lines.join('\n')]);
    });
  },
  sha256(bytes) {
    if (!(window.crypto && crypto.subtle)) return Promise.resolve('');
    return crypto.subtle.digest('SHA-256', bytes).then(
      (d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join(''), () => '');
  },
  // A problem with files or a fetch, shown in the Model window (as a failed fetch is); returned.
  say(why) {
    window.Module.ccall('attn_hook_model_fetch', null, ['string', 'number', 'number', 'string'], ['', 0, 0, why]);
    return why;
  },
  // The files of one model ({name, bytes: Uint8Array or null, sha}: llama2.c's two,
  // or a folder's) into Module._malloc'd buffers handed to the app
  // (attn_hook_open_model_files, which frees them); its answer: '' or why not.
  // A file already placed in the heap ({name, ptr, size, sha}: place) is handed as it is.
  hand(files) {
    const M = window.Module;
    const ptrs = files.map((f) => (f.ptr !== undefined ? f.ptr : this.place(f.bytes)));
    const size = (f) => (f.ptr !== undefined ? f.size : f.bytes ? f.bytes.length : 0);
    const table = M._malloc(Math.max(1, files.length) * 8);
    if (!table || files.some((f, i) => size(f) && !ptrs[i])) {
      ptrs.forEach((p) => p && M._free(p));
      if (table) M._free(table);
      return this.say('these files do not fit in the page\'s memory');
    }
    files.forEach((f, i) => { M.HEAPU32[(table >> 2) + 2 * i] = ptrs[i]; M.HEAPU32[(table >> 2) + 2 * i + 1] = ptrs[i] ? size(f) : 0; });
    const names = files.map((f) => [String(f.name).replace(/[\t\n]/g, ' '), f.sha || ''].join('\t')).join('\n');
    const why = M.ccall('attn_hook_open_model_files', 'string', ['string', 'number', 'number'], [names, table, files.length]);
    M._free(table);
    return why;
  },
  // `bytes` copied into a Module._malloc'd buffer (0 when empty or it does not fit).
  place(bytes) {
    const M = window.Module;
    const p = bytes && bytes.length ? M._malloc(bytes.length) : 0;
    if (p) M.HEAPU8.set(bytes, p);
    return p;
  },
  // Hashes both (unless hashed already), hands them over, and keeps them when the
  // app opened them; `chosen`: the person picked these files here. The Model
  // window hears when they could not be kept.
  // `folder`: the files are a Hugging Face folder's (kept under one key, with the
  // model's name, which is the folder's when the core was told it).
  openAndKeep(files, chosen = false, folder = false) {
    return Promise.all(files.map((f) => (f.sha !== undefined ? f.sha : this.sha256(f.bytes)))).then((shas) => {
      files.forEach((f, i) => { f.sha = shas[i]; });
      const why = this.hand(files);
      if (why) return why;
      const u = JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).realModel;
      const key = u.key || '';
      const notKept = (why) => window.Module.ccall('attn_hook_model_not_kept', null, ['string'], [why]);
      if (!key) return notKept('this page cannot compute SHA-256 here: https or localhost only'), '';
      return this.run('readwrite', (s) => s.put(this.record(key, files, chosen, folder)))
        .then(() => notKept(''), (e) => notKept(e && e.name === 'QuotaExceededError'
          ? 'the browser\'s storage for this site is full' : String((e && e.message) || e)))
        .then(() => this.tell()).catch(() => undefined).then(() => '');
    });
  },
  // What the store keeps of an opened model under `key`: llama2.c's pair as
  // {ckpt, tok} (as it always was), a folder's N files as {folder: true, files:
  // [{name, sha, bytes}]} with the model's name, the folder's (the kept list shows it).
  record(key, files, chosen, folder) {
    const tok = files.find((f) => /(^|\/)tokenizer\./.test(f.name)) || files[1];
    const u = JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).realModel;
    if (folder) {
      return { key, name: u.name, folder: true, tokenizer: tok ? tok.name : '', tokSha: tok ? tok.sha : '', chosen,
        files: files.map((f) => ({ name: f.name, sha: f.sha, bytes: f.kept })), added: Date.now() };
    }
    const ckpt = files.find((f) => f.name === u.name) || files[0];
    const pair = files.find((f) => f !== ckpt);
    return { key, name: ckpt.name, tokenizer: pair.name, sha: ckpt.sha, tokSha: pair.sha,
      chosen, ckpt: ckpt.bytes.buffer, tok: pair.bytes.buffer, added: Date.now() };
  },
  // A kept record's bytes in all.
  bytes(m) { return m.folder ? m.files.reduce((n, f) => n + (f.bytes.byteLength || f.bytes.size || 0), 0) : m.ckpt.byteLength + m.tok.byteLength; },
  openKept(key) {
    return this.run('readonly', (s) => s.get(key)).then((m) => {
      if (!m) return this.say('this browser no longer keeps ' + key);
      if (m.folder) {
        return Promise.all(m.files.map((f) => (f.bytes instanceof Blob ? f.bytes.arrayBuffer() : f.bytes)))
          .then((all) => this.hand(m.files.map((f, i) => ({ name: f.name, bytes: new Uint8Array(all[i]), sha: f.sha }))));
      }
      return this.tokenizerSha(m).then((tokSha) => this.hand([{ name: m.name, bytes: new Uint8Array(m.ckpt), sha: m.sha },
        { name: m.tokenizer, bytes: new Uint8Array(m.tok), sha: tokSha }]));
    }).catch((e) => this.say(String((e && e.message) || e)));
  },
  // A kept model's tokenizer's SHA-256 (computed for one kept before it was stored).
  tokenizerSha(m) { return m.tokSha ? Promise.resolve(m.tokSha) : this.sha256(m.tok); },
  // Whether the kept model `m` is what the link (wanted() `w`) reads: see the top.
  trusts(m, w) {
    if (w.tokenizer) return this.tokenizerSha(m).then((sha) => sha !== '' && sha.slice(0, 16) === w.tokenizer.slice(w.tokenizer.lastIndexOf('@') + 1));
    return Promise.resolve(!w.tokenizerUrl && m.chosen === true);
  },
  // One address of the link's (model_url=, tokenizer_url=: percent-encoded, relative to the
  // page or http(s)) read whole, each step told to the app as `label`'s progress.
  // `limit(first)`: the most bytes the file may have, from its first bytes (at
  // least 256 when it has them), or {need: n} to be asked again with n bytes (a
  // safetensors header), or throws why not; `limitSays`: what sets it.
  fetchBytes(value, label, tell, limit, limitSays) {
    let url;
    try {
      url = new URL(decodeURIComponent(value), document.baseURI);
    } catch (e) {
      return Promise.reject(new Error(label + ': \'' + value.slice(0, 80) + '\' is not an address this page can read'));
    }
    if (!/^https?:$/.test(url.protocol)) return Promise.reject(new Error(url.href + ' is not an http(s) address'));
    const signal = this.abort ? this.abort.signal : undefined;
    return fetch(url.href, { credentials: 'same-origin', signal, cache: 'no-store' }).catch(() => {
      if (signal && signal.aborted) throw new Error('stopped');
      throw new Error('could not fetch ' + url.href + ' (offline, or its host does not let this page read it: CORS)');
    }).then((r) => {
      if (!r.ok) throw Object.assign(new Error(url.href + ': HTTP ' + r.status + ' ' + r.statusText), { status: r.status });
      const said = Number(r.headers.get('Content-Length')) || 0;
      const reader = r.body ? r.body.getReader() : null;
      let out = new Uint8Array(Math.min(said || (1 << 20), 1 << 20)), got = 0, told = 0, most = null, want = 256;
      const tooLong = (n) => new Error(url.href + ' is ' + (n === said ? '' : 'more than ') + n + ' bytes, longer than ' + label +
        ' can be (' + most + ' bytes, ' + limitSays + '): stopped');
      const give = (part, room = 0) => {
        if (got + part.length > out.length || room > out.length) {  // grown by doubling, never past the limit
          const grown = new Uint8Array(Math.max(room, Math.min(Math.max(out.length * 2, got + part.length), most === null ? Infinity : most)));
          grown.set(out.subarray(0, got));
          out = grown;
        }
        out.set(part, got);
        got += part.length;
      };
      const pump = () => (reader ? reader.read() : r.arrayBuffer().then((b) => ({ done: false, value: new Uint8Array(b), last: true })))
        .catch((e) => { throw signal && signal.aborted ? new Error('stopped') : e; })
        .then(({ done, value: part, last }) => {
          if (!done) {
            if (most === null && got + part.length >= want) {
              const l = limit(concat(out.subarray(0, got), part));
              if (typeof l === 'object') want = l.need;  // a safetensors header longer than that: asked again with it
              else most = l;
              if (most !== null && said > most) throw tooLong(said);  // the host says so itself: not one byte more
              if (most !== null && said > out.length) give(new Uint8Array(0), said);  // the whole file's room at once
            }
            if (most !== null && got + part.length > most) throw tooLong(got + part.length);
            give(part);
            if (got - told >= (1 << 18)) { told = got; tell(label, got, said); }
            if (!last) return pump();
          }
          if (most === null && typeof limit(out.subarray(0, got)) === 'object')  // a file shorter than 256 bytes: its header, or why not
            throw new Error(url.href + ' ends before its header does (' + got + ' bytes)');
          tell(label, got, said);
          return got === out.length ? out : out.slice(0, got);  // its own buffer, exactly the file (it is kept whole)
        });
      // Refused (no checkpoint, too long) or stopped: the rest is never downloaded.
      return pump().catch((e) => {
        if (reader) reader.cancel().catch(() => {});
        throw e;
      });
    });
  },
  // The most bytes of `name`: the checkpoint's by its header, or its tokenizer's by
  // the vocabulary; throws the core's reason when the bytes are no checkpoint.
  checkpointLimits(first, name) {
    const M = window.Module;
    const head = first.subarray(0, 256);
    const p = M._malloc(Math.max(1, head.length));
    if (!p) throw new Error('the page is out of memory');
    M.HEAPU8.set(head, p);
    const answer = JSON.parse(M.ccall('attn_hook_model_limits', 'string', ['number', 'number', 'string'], [p, head.length, name]));
    M._free(p);
    if (answer.error) throw new Error(answer.error);
    return answer;
  },
  // The link's model_url= and tokenizer_url= (a host's copies of the model it names):
  // fetched with their progress shown (the checkpoint only when `kept` lacks it),
  // the checkpoint's SHA-256 checked against model= and the tokenizer's against
  // tokenizer=, then opened and kept. '' or why not (also shown).
  fetchNamed(w, kept) {
    const M = window.Module;
    const tell = (file, got, total, error) => M.ccall('attn_hook_model_fetch', null,
      ['string', 'number', 'number', 'string'], [file, got, total, error || '']);
    const at = w.key.lastIndexOf('@');
    const name = w.key.slice(0, at), want = w.key.slice(at + 1);
    let tokName = 'tokenizer.bin';
    try { tokName = decodeURIComponent(w.tokenizerUrl).split(/[/?#]/).filter(Boolean).pop() || tokName; } catch (e) { /* said by fetchBytes */ }
    const wantTok = w.tokenizer ? w.tokenizer.slice(w.tokenizer.lastIndexOf('@') + 1) : '';
    let limits = null;
    const ckptLimit = (first) => (limits = this.checkpointLimits(first, name)).checkpoint;
    tell(kept ? tokName : name, 0, 0);
    this.abort = typeof AbortController === 'function' ? new AbortController() : null;
    const checkpoint = kept
      ? Promise.resolve().then(() => {
        const bytes = new Uint8Array(kept.ckpt);
        limits = this.checkpointLimits(bytes, name);
        return { bytes, sha: kept.sha };
      })
      : this.fetchBytes(w.url, name, tell, ckptLimit, 'as its header describes').then((bytes) => this.sha256(bytes).then((sha) => {
        if (!sha) throw new Error('this page cannot check the file\'s SHA-256 here (the browser gives crypto.subtle to https and localhost only)');
        if (sha.slice(0, 16) !== want) throw new Error('the file at ' + decodeURIComponent(w.url) + ' is not the model the link names: its SHA-256 starts ' + sha.slice(0, 16) + ', the link says ' + want);
        return { bytes, sha };
      }));
    return checkpoint.then((ckpt) => {
      tell(tokName, 0, 0);
      return this.fetchBytes(w.tokenizerUrl, tokName, tell, () => limits.tokenizer, 'the longest tokenizer for the checkpoint\'s vocabulary').then((tok) => this.sha256(tok).then((tokSha) => {
        if (wantTok && tokSha.slice(0, 16) !== wantTok)
          throw new Error('the file at ' + decodeURIComponent(w.tokenizerUrl) + ' is not the tokenizer the link names: its SHA-256 starts ' + tokSha.slice(0, 16) + ', the link says ' + wantTok);
        if (this.asks(this.wanted()) !== this.asks(w)) throw new Error('stopped');  // the link moved on meanwhile
        tell('', 0, 0);
        return this.openAndKeep([{ name, bytes: ckpt.bytes, sha: ckpt.sha }, { name: tokName, bytes: tok, sha: tokSha }]);
      }));
    }).catch((e) => {
      let why = String((e && e.message) || e);
      if (why === 'stopped') why = this.again ? '' : 'stopped fetching ' + name + ': open the files yourself, or reload the link to fetch them again';
      tell('', 0, 0, why);
      return why;
    }).finally(() => { this.abort = null; });
  },
  // The Model window's Stop while the link's files arrive.
  stop() {
    if (this.abort) this.abort.abort();
  },
  // After the first frame: the kept list to the app, then the model the link names
  // opened from this browser's store, or else fetched from the link's addresses.
  start() {
    if (!window.Module || !window.Module.ccall) return;
    this.tell().then(() => this.follow()).catch(() => undefined);
  },
  // The model the app's link names and has not opened: from this browser's store
  // (when it keeps what the link reads: see the top), or fetched from the link's
  // addresses — at start and after a link changes (a pasted link, back, a host's
  // attn:set). One at a time.
  // A link that asks for something else (another model, none, or the same model
  // with another tokenizer or address) while one is fetched or still being kept
  // stops that fetch, and the new one follows when it has ended.
  follow() {
    if (!window.Module || !window.Module.ccall) return Promise.resolve();
    const w = this.wanted();
    const asks = this.asks(w);
    if (this.following) {
      if (asks !== this.following) { this.again = true; this.stop(); }
      return Promise.resolve();
    }
    if (!w) return Promise.resolve();
    this.following = asks;
    return this.run('readonly', (s) => s.get(w.key)).catch(() => undefined).then((kept) => {
      const folder = w.url && /(\/|%2F)$/i.test(w.url) && this.fetchFolder;  // a folder's address (folders.js)
      if (folder && !(kept && kept.folder)) return this.fetchFolder(w);
      if (!kept) return w.url ? this.fetchNamed(w, null) : undefined;
      return this.trusts(kept, w).then((trusted) => {
        if (trusted) return this.openKept(w.key);
        if (folder) return this.fetchFolder(w);
        if (w.url) return this.fetchNamed(w, kept);  // the kept checkpoint, the link's tokenizer
        return undefined;  // the window asks for the files (the kept ones are listed there)
      });
    }).catch(() => undefined).finally(() => {
      this.following = null;
      if (this.again) { this.again = false; this.follow(); }
    });
  },
  // What a wanted() asks for, as one string ('' for nothing).
  asks(w) { return w ? JSON.stringify([w.key, w.tokenizer, w.url, w.tokenizerUrl]) : ''; },
  // The model the app's link names and has not opened ({key, tokenizer, url, tokenizerUrl}), or null.
  wanted() {
    return JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).wantedModel;
  },
});

// Two byte arrays as one.
function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

// attnShell.openModelFiles: the Model window's "Choose the two files…"
// (bridge_open_model_files): a click on the hidden input, in the frame that
// answers the person's click (the browser's user activation still holds).
export function openModelFiles() {
  const input = document.getElementById('model-files');
  if (input) { input.value = ''; input.click(); }
}

// attnShell.readModelFiles: the chosen files handed to the app (models.hand), then
// kept in this browser when the app opened them. One file, or more than two, is
// handed as "not chosen": the app asks for both.
// A file the browser will not read (Chromium refuses one of 2 GiB or more at
// once) is said in the Model window with its name and size, never dropped.
export function readModelFiles(files) {
  const list = Array.from(files || []);
  if (list.length !== 2) return Promise.resolve(models.hand([{ name: list.length === 1 ? list[0].name : '', bytes: null }, { name: '', bytes: null }]));
  const read = (f) => Promise.resolve().then(() => f.arrayBuffer()).catch((err) => {
    throw new Error(f.name + ' (' + (Number(f.size) / 1e6).toFixed(1) + ' MB) could not be read: ' +
      String((err && err.message) || err || 'the browser refused it'));
  });
  return Promise.all(list.map(read))
    .then((buffers) => models.openAndKeep(list.map((f, i) => ({ name: f.name, bytes: new Uint8Array(buffers[i]) })), true),
      (err) => models.say(String(err.message)));
}

// attnShell.keptModel: the Model window's Open / Remove of a kept model (bridge_kept_model).
export function keptModel(action, key) {
  if (action === 'open') models.openKept(String(key));
  else if (action === 'remove') models.remove(String(key)).then(() => models.tell());
}
