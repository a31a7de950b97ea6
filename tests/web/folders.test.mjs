// Hugging Face folders in the page (web/folders.js), as a person opens one: a
// small GPT-2 folder (F16, one model.safetensors) and a sharded BF16 Qwen2 folder
// (an index and two shards), written with random weights by tests/hf_files.py,
// picked through the file chooser (the folder whole, or its files) and fetched
// from a link's model_url= naming the folder; each opened in the Model window
// (its architecture, the text's tokens), kept in this browser and opened again by
// the link's model= after a reload. A folder without tokenizer.json is refused
// with a message naming the file.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPage, browserSuite, root, appShown } from './harness.mjs';
import { ui, click, until } from './person.mjs';

const suite = browserSuite();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-folders-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name, ...args) => {
  execFileSync('/usr/bin/python3', [path.join(root, 'tests', 'hf_files.py'), path.join(dir, name), ...args], { stdio: 'ignore' });
  return path.join(dir, name);
};
const gpt2 = write('tiny-gpt2', '--arch', 'gpt2', '--dtype', 'F16');
const qwen2 = write('tiny-qwen2', '--arch', 'qwen2', '--dtype', 'BF16', '--shards', '2');
const broken = write('no-tokenizer', '--arch', 'gpt2', '--dtype', 'F32');
fs.rmSync(path.join(broken, 'tokenizer.json'));
const filesOf = (folder) => fs.readdirSync(folder).sort().map((f) => path.join(folder, f));

// The text's ids as Hugging Face's own tokenizer makes them (@huggingface/tokenizers, as the oracle test).
const { Tokenizer } = createRequire(import.meta.url)(path.join(root, 'node_modules', '@huggingface', 'tokenizers'));
const TEXT = 'the cat chased the dog';
const idsOf = (folder) => Array.from(new Tokenizer(JSON.parse(fs.readFileSync(path.join(folder, 'tokenizer.json'), 'utf8')),
  { clean_up_tokenization_spaces: false }).encode(TEXT).ids);

const untilModel = (page, ok, what) => until(page, ok, what, (u) => ': ' + JSON.stringify(u.realModel));

// Presses `name` and hands its chooser `files` (a list of files, or a folder for the folder chooser).
async function choose(page, name, files) {
  const chooser = page.waitForEvent('filechooser');
  await click(page, name);
  await (await chooser).setFiles(files);
}

// View → the Model window (with no model open its files' chooser opens too: answered with nothing).
async function openWindow(page) {
  await click(page, 'view_menu');
  await choose(page, 'view_model', []);
}

// The folder's model opened: its architecture in the window's state and the text's tokens. Returns ui().
async function opened(page, folder, arch) {
  const u = await untilModel(page, (x) => x.realModel && (x.realModel.error || (x.realModel.format === arch[0] && x.realModel.ids.length > 0)), 'the folder\'s model');
  assert.equal(u.realModel.error, '', 'opened');
  assert.deepEqual([u.realModel.format, u.realModel.dtype], arch, 'the architecture and the weights\' type');
  const want = idsOf(folder);
  assert.deepEqual(u.realModel.ids.slice(u.realModel.ids.length - want.length), want, 'the text, as tokenizer.json cuts it');
  assert.equal(u.realModel.decoded.trim(), TEXT);
  return u;
}

test('folders picked: a GPT-2 folder whole, a sharded BF16 Qwen2 folder by its files; opened, kept, and again after a reload', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url + '#v=1&text=' + encodeURIComponent(TEXT));
  try {
    await openWindow(page);
    await choose(page, 'model_choose_folder', gpt2);
    const g = await opened(page, gpt2, ['GPT-2', 'F16']);
    await untilModel(page, (x) => x.realModel.kept === 1 && x.realModel.notKept === '', 'the GPT-2 folder kept');
    await choose(page, 'model_choose', filesOf(qwen2));
    const q = await opened(page, qwen2, ['Qwen2', 'BF16']);
    const u = await untilModel(page, (x) => x.realModel.kept === 2, 'both folders kept');
    assert.ok(u.link.includes('model=' + q.realModel.key), 'the link names the open model');
    const kept = await page.evaluate(() => window.attnShell.models.list());
    // The folder's name (picked whole), or, for files picked without it, the model's name as the core gives it.
    assert.equal(kept.find((m) => m.key === g.realModel.key).name, 'tiny-gpt2', 'the kept list shows the folder\'s name');
    assert.ok(g.realModel.key.startsWith('tiny-gpt2@'), 'model= names the folder');
    assert.equal(kept.find((m) => m.key === q.realModel.key).name, q.realModel.name);
    assert.equal(kept.find((m) => m.key === q.realModel.key).files.length, 5, 'config, tokenizer, index and two shards under one key');
    // A reload: the link's model= opens the kept folder again.
    await page.reload();
    await appShown(page);
    const again = await untilModel(page, (x) => x.realModel && x.realModel.ids && x.realModel.ids.length > 0, 'the kept model, reopened');
    assert.equal(again.realModel.key, q.realModel.key);
    assert.deepEqual(again.realModel.ids, q.realModel.ids);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The test server's address for the folders (routed here: the site serves no models).
function folderHost(base) {
  const asked = [];
  const prepare = (page) => page.route(base + 'hf/**', async (route) => {
    const [folder, name] = new URL(route.request().url()).pathname.split('/').slice(-2);
    asked.push(folder + '/' + name);
    const file = path.join(dir, folder, name);
    await route.fulfill(fs.existsSync(file) ? { status: 200, body: fs.readFileSync(file) } : { status: 404, body: 'no' });
  });
  return { asked, prepare };
}

// A folder's model opened from a link's model_url= naming it (the key from its folder
// picked in a page of its own), each file fetched once in `order`, then kept.
async function fromLink(folder, arch, order) {
  const host = folderHost(suite.server.url);
  let { page, context } = await openPage(suite.browser, suite.server.url + '#v=1&text=' + encodeURIComponent(TEXT));
  let key;
  try {
    await openWindow(page);
    await choose(page, 'model_choose_folder', path.join(dir, folder));  // named after the folder, as the link's
    key = (await opened(page, path.join(dir, folder), arch)).realModel.key;
  } finally {
    await context.close();
  }
  const link = suite.server.url + '#v=1&text=' + encodeURIComponent(TEXT) + '&model=' + key +
    '&model_url=' + encodeURIComponent('hf/' + folder + '/');
  ({ page, context } = await openPage(suite.browser, link, { prepare: host.prepare }));
  try {
    const u = await opened(page, path.join(dir, folder), arch);
    assert.equal(u.realModel.key, key, 'the model the link names');
    assert.deepEqual(host.asked, order.map((n) => folder + '/' + n), 'each file once, config.json first, the tokenizer last');
    await untilModel(page, (x) => x.realModel.kept === 1, 'kept');
  } finally {
    await context.close();
  }
}

test('model_url= naming a sharded Qwen2 folder: config.json, the index, both shards, tokenizer.json; opened and kept', () =>
  fromLink('tiny-qwen2', ['Qwen2', 'BF16'], ['config.json', 'model.safetensors.index.json', 'model-00001-of-00002.safetensors',
    'model-00002-of-00002.safetensors', 'tokenizer.json']));

test('model_url= naming a GPT-2 folder: the index a 404, then model.safetensors; opened and kept', () =>
  fromLink('tiny-gpt2', ['GPT-2', 'F16'], ['config.json', 'model.safetensors.index.json', 'model.safetensors', 'tokenizer.json']));

test('a folder without tokenizer.json: refused with a message naming it, nothing read of its weights', async () => {
  const { page, context, problems } = await openPage(suite.browser, suite.server.url);
  try {
    await openWindow(page);
    await choose(page, 'model_choose', filesOf(broken));
    const u = await untilModel(page, (x) => x.realModel && x.realModel.error, 'the refusal');
    assert.match(u.realModel.error, /has no tokenizer\.json/);
    assert.equal(u.realModel.bytes, undefined, 'no model opened');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
