// A model's files as a person gives them (a folder, several files, a drop) or a link's folder address, read and opened.
import { models } from './models.js';

// [Folders] A Hugging Face folder holds config.json, tokenizer.json and
// model.safetensors, or model.safetensors.index.json and the shards it names.
// Read in that order: config.json first, then the index when there is one, whose
// shards the core names (attn_hook_model_folder_files: hf_folder_files), then
// each file the reading needs — the folder's other files are never read. Each
// file is read in pieces into one buffer of its size, its progress shown in the
// Model window (attn_hook_model_fetch) while the page keeps drawing, hashed
// (SHA-256, as llama2.c's files are) and handed to wasm with the others
// (models.hand: attn_hook_open_model_files, the buffers handed over). Opened, the
// files are kept under one key (models.openAndKeep: the key is the core's, as
// for llama2.c's files), with the folder's name, which the kept list shows. The
// files are named "folder/config.json" when the folder's name is known (picked
// whole, dropped, fetched): the core names the model after its folder, else
// after its config's architecture.
// llama2.c's two files, chosen or dropped, open as they always did.
//
// A link's model_url= ending in '/' names a folder on a host: config.json is
// fetched, then model.safetensors.index.json (a 404 means model.safetensors),
// the weights and tokenizer.json, each no further than the core allows
// (attn_hook_folder_limit: a safetensors file's length from its header, its
// first 8 + N bytes, before its tensors' bytes are taken).

const tell = (file, got, total, error) => window.Module.ccall('attn_hook_model_fetch', null,
  ['string', 'number', 'number', 'string'], [file, got, total, error || '']);

// The core's JSON answer of `hook` over `bytes` (copied into the heap for the call).
function askCore(hook, bytes, name) {
  const M = window.Module;
  const p = bytes ? M._malloc(Math.max(1, bytes.length)) : 0;
  if (bytes && !p) throw new Error('the page is out of memory');
  if (p) M.HEAPU8.set(bytes, p);
  const types = name === undefined ? ['number', 'number'] : ['number', 'number', 'string'];
  const args = name === undefined ? [p, bytes ? bytes.length : 0] : [p, bytes ? bytes.length : 0, name];
  const answer = JSON.parse(M.ccall(hook, 'string', types, args));
  if (p) M._free(p);
  if (answer.error) throw new Error(answer.error);
  return answer;
}

// A File read whole into one buffer, a piece at a time, each step shown.
function readFile(f) {
  const size = Number(f.size) || 0;
  const fail = (err) => {
    throw new Error(f.name + ' (' + (size / 1e6).toFixed(1) + ' MB) could not be read: ' +
      String((err && err.message) || err || 'the browser refused it'));
  };
  if (!f.stream) return Promise.resolve().then(() => f.arrayBuffer()).then((b) => new Uint8Array(b), fail);
  let out;
  try { out = new Uint8Array(size); } catch (e) { return Promise.reject(new Error(f.name + ' does not fit in the page\'s memory')); }
  const reader = f.stream().getReader();
  let got = 0, told = 0;
  const pump = () => reader.read().then(({ done, value }) => {
    if (done) return got === size ? out : out.subarray(0, got);
    if (got + value.length > size) throw new Error(f.name + ' grew while it was read');
    out.set(value, got);
    got += value.length;
    if (got - told >= (1 << 22)) { told = got; tell(f.name, got, size); }
    return pump();
  });
  tell(f.name, 0, size);
  return pump().catch(fail);
}

// The files a folder's reading needs, in order, from a name -> File map (or a
// fetch): config.json is required, the index read when there is one.
function neededNames(has, readIndex) {
  if (!has('config.json')) return Promise.reject(new Error('the folder has no config.json: it is no Hugging Face folder'));
  const index = has('model.safetensors.index.json') ? readIndex() : Promise.resolve(null);
  return index.then((bytes) => askCore('attn_hook_model_folder_files', bytes).files);
}

// Each file read (`read(name)`: its bytes), hashed and placed in wasm's heap one
// after the other, its JS buffer then let go: the page holds one file's bytes
// twice at the most, never the folder's. `keep(name)`: what the store keeps of it
// (the picked File, or a Blob of the fetched bytes). Freed again on a failure.
function placeAll(names, read, keep, named) {
  const files = [];
  return names.reduce((p, n) => p.then(() => read(n)).then((bytes) => models.sha256(bytes).then((sha) => {
    const ptr = models.place(bytes);
    if (bytes.length && !ptr) throw new Error('the folder does not fit in the page\'s memory (' + n + ', ' + (bytes.length / 1e6).toFixed(1) + ' MB)');
    files.push({ name: named(n), ptr, size: bytes.length, sha, kept: keep(n, bytes) });
  })), Promise.resolve()).then(() => files, (err) => {
    files.forEach((f) => f.ptr && window.Module._free(f.ptr));
    throw err;
  });
}

// A picked or dropped folder's files (File objects; `folder`: its name) read,
// opened and kept. '' or why not (also shown).
export function readFolder(list, folder) {
  const byName = new Map(list.map((f) => [f.name, f]));
  const read = new Map();
  const readOnce = (name) => {
    if (!read.has(name)) read.set(name, readFile(byName.get(name)));
    return read.get(name);
  };
  return neededNames((n) => byName.has(n), () => readOnce('model.safetensors.index.json')).then((names) => {
    const missing = names.filter((n) => !byName.has(n));
    if (missing.length) throw new Error('the folder ' + (folder ? folder + ' ' : '') + 'has no ' + missing.join(', '));
    // Named "folder/name" when the folder's name is known: the core names the model after it.
    const named = (n) => (folder ? folder + '/' : '') + n;
    const readAndForget = (n) => { const p = readOnce(n); read.delete(n); return p; };
    return placeAll(names, readAndForget, (n) => byName.get(n), named).then((files) => {
      tell('', 0, 0);
      return models.openAndKeep(files, true, true);
    });
  }).catch((err) => {
    tell('', 0, 0);
    return models.say(String((err && err.message) || err));
  });
}

// Whether these files are a Hugging Face folder's (not llama2.c's .bin pair).
const isFolder = (list) => list.some((f) => /\.(json|safetensors)$/.test(f.name));

// The folder's name from a picked file's webkitRelativePath ("gpt2/config.json"), if any.
const folderOf = (list) => {
  const path = list.length && list[0].webkitRelativePath ? list[0].webkitRelativePath : '';
  return path.includes('/') ? path.split('/')[0] : '';
};

// Picked files (the chooser, the folder chooser) or dropped ones: a folder's
// files, or llama2.c's two (models' readModelFiles).
export function readPicked(files, folder, readPair) {
  const list = Array.from(files || []);
  if (!isFolder(list)) return readPair(list);
  // A folder chosen whole may hold subfolders: its own files are those one level down.
  const name = folder || folderOf(list);
  const own = list.filter((f) => !f.webkitRelativePath || f.webkitRelativePath.split('/').length <= 2);
  return readFolder(own, name);
}

// The entries of a dropped folder (DataTransferItem.webkitGetAsEntry), its files
// only (one level: a folder's subfolders are not read).
function entryFiles(entry) {
  if (entry.isFile) return new Promise((resolve, reject) => entry.file((f) => resolve([f]), reject));
  const reader = entry.createReader();
  const all = [];
  const more = () => new Promise((resolve, reject) => reader.readEntries(resolve, reject)).then((batch) => {
    if (!batch.length) return all;
    all.push(...batch.filter((e) => e.isFile));
    return more();
  });
  return more().then((entries) => Promise.all(entries.map((e) => new Promise((resolve, reject) => e.file(resolve, reject)))));
}

// A drop on the page: a folder (its files) or files, read as picked ones.
export function listenForDrops(readPair) {
  window.addEventListener('dragover', (e) => {
    if (e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files')) e.preventDefault();
  });
  window.addEventListener('drop', (e) => {
    if (!e.dataTransfer || !window.Module || !window.Module.ccall) return;
    const items = Array.from(e.dataTransfer.items || []).filter((i) => i.kind === 'file');
    if (!items.length) return;
    e.preventDefault();
    const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
    if (entries.some((x) => !x)) { readPicked(e.dataTransfer.files, '', readPair); return; }
    const dir = entries.length === 1 && entries[0].isDirectory ? entries[0].name : '';
    Promise.all(entries.map(entryFiles)).then((lists) => readPicked(lists.flat(), dir, readPair),
      (err) => models.say('the dropped files could not be read: ' + String((err && err.message) || err)));
  });
}

// attnShell.openModelFolder: the Model window's "Choose a folder…" (bridge_open_model_folder).
export function openModelFolder() {
  const input = document.getElementById('model-folder');
  if (input) { input.value = ''; input.click(); }
}

// The link's model_url= naming a folder (w.url ends in '/'): its files fetched
// (models.fetchBytes, each checked by attn_hook_folder_limit), opened and kept;
// the folder's model must be the one the link names (model=). '' or why not.
export function fetchFolder(w) {
  const base = decodeURIComponent(w.url);
  const folder = base.split('/').filter(Boolean).pop() || 'model';
  const limit = (name) => (first) => {
    const l = askCore('attn_hook_folder_limit', first, name);
    return l.need > first.length ? { need: l.need } : l.bytes;
  };
  const got = new Map();
  const get = (name) => {
    tell(name, 0, 0);
    return models.fetchBytes(encodeURIComponent(base + name), name, tell, limit(name), 'as the core allows it (its header, for a safetensors file)');
  };
  models.abort = typeof AbortController === 'function' ? new AbortController() : null;
  return get('config.json').then((config) => {
    got.set('config.json', config);
    return get('model.safetensors.index.json').then((index) => { got.set('model.safetensors.index.json', index); return index; },
      (e) => { if (e.status === 404) return null; throw e; });
  }).then((index) => askCore('attn_hook_model_folder_files', index).files)
    // The JSON files first, the shards in their names' order, tokenizer.json last.
    .then((needed) => needed.filter((n) => /\.json$/.test(n) && n !== 'tokenizer.json')
      .concat(needed.filter((n) => !/\.json$/.test(n)).sort(), ['tokenizer.json'])).then((names) =>
    placeAll(names, (n) => (got.has(n) ? got.get(n) : get(n)), (n, bytes) => { got.delete(n); return new Blob([bytes]); }, (n) => folder + '/' + n)
      .then((files) => {
        if (models.asks(models.wanted()) !== models.asks(w)) {  // the link moved on meanwhile
          files.forEach((f) => f.ptr && window.Module._free(f.ptr));
          throw new Error('stopped');
        }
        tell('', 0, 0);
        return models.openAndKeep(files, false, true);
      })).then((why) => {
    const u = JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).realModel;
    if (!why && u && u.key !== w.key) throw new Error('the folder at ' + base + ' is not the model the link names: it is ' + u.key + ', the link says ' + w.key);
    return why;
  }).catch((e) => {
    let why = String((e && e.message) || e);
    if (why === 'stopped') why = models.again ? '' : 'stopped fetching ' + folder + ': open the folder yourself, or reload the link to fetch it again';
    tell('', 0, 0, why);
    return why;
  }).finally(() => { models.abort = null; });
}

// The files chosen in #model-files (llama2.c's two, or a folder's files) and the
// folder chosen in #model-folder, read and handed to the app; and drops.
export function listenForModelFiles(readPair) {
  for (const id of ['model-files', 'model-folder']) {
    const input = document.getElementById(id);
    if (input) input.addEventListener('change', () => { readPicked(input.files, '', readPair); });
  }
  listenForDrops(readPair);
}
