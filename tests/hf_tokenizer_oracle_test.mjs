// The core's Hugging Face tokenizers (src/core/llama/hf_tokenizer.hpp) against
// @huggingface/tokenizers 0.2.0 (npm, the pure-JavaScript tokenizer of
// transformers.js), on tokenizer.json files this test writes (nothing is
// downloaded): each kind's vocabulary and merges are learned here, by a plain BPE
// trainer, from a generated corpus. For every text of CORPUS and every kind, the
// ids with and without the post-processor's tokens and the decoded text must be
// the same, and decoding must give the text back where the tokenizer keeps it.
//
//   node tests/hf_tokenizer_oracle_test.mjs build/native-debug/tests/attn_hf_tokenize
//
// Kinds: gpt2 (ByteLevel with its own regex), gpt2_prefix (add_prefix_space), gpt2_split (GPT-2's regex in a Split),
// qwen2 (NFC, Split with Qwen2's regex, ByteLevel), llama3 (Llama 3's regex,
// ignore_merges, a BOS template), llama2 (TinyLlama: the Prepend + Replace
// normalizer, byte fallback, a BOS template, Replace/ByteFallback/Fuse/Strip),
// llama2_metaspace (the Metaspace pre-tokenizer instead). Each has special tokens,
// met inside the texts; gpt2 has an lstrip and rstrip one, qwen2 a normalized one and a
// config vocab_size beyond its vocabulary.
//
// Left out on purpose: U+0085 and U+FEFF (JavaScript's \s in the oracle's own
// ByteLevel regex differs from White_Space, which the core and Rust's tokenizers
// use), and code points newer than Unicode 15.0 (the core's tables; Node 20 has
// a newer ICU).
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {createRequire} from 'node:module';

const require = createRequire(import.meta.url);
const {Tokenizer} = require(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules',
                                      '@huggingface', 'tokenizers', 'dist', 'tokenizers.cjs'));

const tool = process.argv[2];
if (!tool) {
  console.error('usage: node tests/hf_tokenizer_oracle_test.mjs path/to/attn_hf_tokenize');
  process.exit(2);
}

const GPT2_RE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const LLAMA3_RE = /(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const GPT2_REGEX = String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`;
const LLAMA3_REGEX = String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`;
const QWEN2_REGEX = LLAMA3_REGEX.replace(String.raw`\p{N}{1,3}`, String.raw`\p{N}`);

// ---- the texts ----
const CORPUS = [
  '', 'Hello world', 'Hello, world! How are you today?', ' leading space', '  two leading spaces',
  'trailing space ', 'tabs\tand\tmore\ttabs', 'line one\nline two\n\nline four', 'windows\r\nline\r\nendings\r\n',
  'spaces     in     between', '   \n\t  mixed white space  \n', 'I\'M HERE\'S THE CAT\'S TOY, WE\'LL SEE',
  'don\'t can\'t won\'t it\'s they\'re we\'ve I\'d', 'digits 1234567890 and 3.14159 and 42',
  '你好，世界！这是一个测试。', '中文和English混合text', 'emoji 🙂👍🏽 and 🇫🇷 flags', '😀😀😀',
  'cafe\u0301 and re\u0301sume\u0301 (e + U+0301)', 'café résumé (precomposed)', 'ﬁ ligature and Å angstrom',
  'def f(x):\n    return x ** 2  # square\n', 'for (int i = 0; i < n; ++i) { sum += a[i]; }',
  'SPECIAL', 'before SPECIAL after', 'SPECIALSPECIAL', 'x SPECIAL\ny', 'once upon a time there was a little girl',
  'The quick brown fox jumps over the lazy dog.', 'ÀÉÎÕÜ àéîõü ñ ß', 'Ελληνικά και русский текст',
  '\u00a0non-breaking\u2003em space', 'a', ' ', '\n', 'x\u0301\u0327 stacked marks', 'MIXED case HeLLo WoRLD',
  '日本語のテキスト、カタカナ', '한국어 \u1100\u1161\u11a8 jamo', 'العربية ١٢٣ ½ ²', 'it’s curly’S', '\n\n\n\r\r\t\n',
  'https://example.com/a?b=c&d=e#f', 'x = [1, 2, 3]\r\n\ty += 10_000', '          ', 'end with newline\n  ',
  'A\u030a \u212b \u00c5 angstroms', '1,234,567.89 0.5 00007', 'tab\t\tdouble', '\u200bzero width\u200b',
];

// ---- a deterministic corpus to learn merges from ----
function rng(seed) {
  let s = BigInt(seed);
  return () => {
    s = (s + 0x9E3779B97F4A7C15n) & 0xFFFFFFFFFFFFFFFFn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & 0xFFFFFFFFFFFFFFFFn;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & 0xFFFFFFFFFFFFFFFFn;
    return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
  };
}
const WORDS = ('the of and to a in is it you that he was for on are with as I his they be at one have this from or had by ' +
  'hello world how today time there little girl once upon fox quick brown jumps over lazy dog cat toy here see space ' +
  'line two four windows endings between mixed white digits and return square sum int for def mixed case text test ' +
  'flags emoji before after leading trailing tabs more resume cafe can won don they we').split(' ');
const EXTRA = ['你好', '世界', '中文', '测试', '这是', '一个', 'English', '123', '42', '2024', '{', '}', '();', '+=', '==',
  '# ', '\n', '\r\n', '    ', "'s", "'t", "'re", "'ll", "'M", 'HERE', 'THE', 'CAT', 'Hello', 'World', 'é', 'ü', 'ñ'];
function training_text() {
  const r = rng(52);
  const parts = [];
  for (let i = 0; i < 3000; ++i) {
    const pool = r() < 0.8 ? WORDS : EXTRA;
    parts.push(pool[Math.floor(r() * pool.length)]);
    parts.push(r() < 0.85 ? ' ' : r() < 0.5 ? '\n' : '. ');
  }
  return parts.join('');
}

// ---- BPE learned from words (each an array of symbols) ----
function learn(words, merges_wanted) {
  const counts = new Map();
  for (const w of words) counts.set(w.join('\u0000'), (counts.get(w.join('\u0000')) ?? 0) + 1);
  let items = [...counts].map(([k, n]) => [k.split('\u0000'), n]);
  const merges = [];
  for (let m = 0; m < merges_wanted; ++m) {
    const pairs = new Map();
    for (const [syms, n] of items)
      for (let i = 0; i + 1 < syms.length; ++i) {
        const key = syms[i] + '\u0000' + syms[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    let best = null, best_n = 1;
    for (const [k, n] of pairs) if (n > best_n || (n === best_n && best !== null && k < best)) best = k, best_n = n;
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    items = items.map(([syms, n]) => {
      const out = [];
      for (let i = 0; i < syms.length; ++i)
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) out.push(a + b), ++i;
        else out.push(syms[i]);
      return [out, n];
    });
  }
  return merges;
}

const BYTE_CHAR = (() => {
  const bs = [];
  for (let i = 33; i <= 126; ++i) bs.push(i);
  for (let i = 161; i <= 172; ++i) bs.push(i);
  for (let i = 174; i <= 255; ++i) bs.push(i);
  const map = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; ++b) map[b] = bs.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);
  return map;
})();
const byte_chars = (s) => [...Buffer.from(s, 'utf8')].map((b) => BYTE_CHAR[b]);

function added(id, content, extra = {}) {
  return {id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...extra};
}

// A byte-level tokenizer.json: the 256 byte characters, merges learned on the regex's words, `extra` whole words.
function byte_level(re, opts) {
  const words = (opts.normalize ? training_text().normalize('NFC') : training_text()).match(re).map(byte_chars);
  const merges = learn(words, 300);
  const vocab = {};
  let id = 0;
  for (const c of BYTE_CHAR) vocab[c] = id++;
  for (const [a, b] of merges) if (!(a + b in vocab)) vocab[a + b] = id++;
  for (const w of opts.extra ?? []) {
    const t = byte_chars(w).join('');
    if (!(t in vocab)) vocab[t] = id++;
  }
  const specials = opts.specials.map((s, i) => added(id + i, ...[].concat(s)));
  for (const s of specials) vocab[s.content] = s.id;
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: specials,
    normalizer: opts.normalize ? {type: 'NFC'} : null,
    pre_tokenizer: opts.pre_tokenizer, post_processor: opts.post_processor ?? {type: 'ByteLevel', add_prefix_space: false,
                                                                              trim_offsets: false, use_regex: false},
    decoder: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true},
    model: {type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
            fuse_unk: false, byte_fallback: false, ignore_merges: opts.ignore_merges ?? false, vocab,
            merges: opts.pair_merges ? merges : merges.map(([a, b]) => `${a} ${b}`)},
  };
}

const split_then_bytes = (regex) => ({type: 'Sequence', pretokenizers: [
  {type: 'Split', pattern: {Regex: regex}, behavior: 'Isolated', invert: false},
  {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false}]});
const template = (name, id) => ({type: 'TemplateProcessing', single: [{SpecialToken: {id: name, type_id: 0}},
  {Sequence: {id: 'A', type_id: 0}}], pair: [], special_tokens: {[name]: {id: name, ids: [id], tokens: [name]}}});

// A SentencePiece-style tokenizer.json: <unk> <s> </s>, the 256 byte tokens, the corpus's characters (emoji and
// some Chinese left out, so byte fallback is met), merges learned on ▁-prefixed words.
function sentencepiece(metaspace) {
  const text = training_text();
  const words = text.split(/\s+/).filter((w) => w).map((w) => ['▁', ...w]);
  const vocab = {'<unk>': 0, '<s>': 1, '</s>': 2};
  let id = 3;
  for (let b = 0; b < 256; ++b) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = id++;
  const chars = [...new Set(words.flat())].filter((c) => c !== '界' && c !== '试').sort();
  for (const c of chars) vocab[c] = id++;
  // The merges whose parts the vocabulary holds (a merge into a left-out character would be refused).
  const merges = [];
  for (const [a, b] of learn(words, 400)) {
    if (!(a in vocab && b in vocab)) continue;
    merges.push([a, b]);
    if (!(a + b in vocab)) vocab[a + b] = id++;
  }
  const specials = [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')];
  const decoder = {type: 'Sequence', decoders: [{type: 'Replace', pattern: {String: '▁'}, content: ' '},
    {type: 'ByteFallback'}, {type: 'Fuse'}, {type: 'Strip', content: ' ', start: 1, stop: 0}]};
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: specials,
    normalizer: metaspace ? null : {type: 'Sequence', normalizers: [{type: 'Prepend', prepend: '▁'},
                                                                     {type: 'Replace', pattern: {String: ' '}, content: '▁'}]},
    pre_tokenizer: metaspace ? {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false} : null,
    post_processor: template('<s>', 1), decoder,
    model: {type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
            fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab,
            merges: merges.map(([a, b]) => `${a} ${b}`)},
  };
}

function kinds() {
  const gpt2_pre = {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true};
  const gpt2 = byte_level(GPT2_RE, {pre_tokenizer: gpt2_pre,
                                    specials: ['<|endoftext|>', ['<mask>', {lstrip: true, rstrip: true}]]});
  const prefix = byte_level(GPT2_RE, {pre_tokenizer: {...gpt2_pre, add_prefix_space: true}, specials: ['<|endoftext|>']});
  const split = byte_level(GPT2_RE, {pre_tokenizer: split_then_bytes(GPT2_REGEX), specials: ['<|endoftext|>']});
  const qwen2 = byte_level(LLAMA3_RE, {pre_tokenizer: split_then_bytes(QWEN2_REGEX), normalize: true,
                                       specials: ['<|endoftext|>', '<|im_start|>', '<|im_end|>',
                                                  ['cafe\u0301', {special: false, normalized: true}]]});
  const llama3 = byte_level(LLAMA3_RE, {pre_tokenizer: split_then_bytes(LLAMA3_REGEX), ignore_merges: true,
                                        pair_merges: true, extra: [' ligature', ' angstrom', ' stacked', 'HeLLo'],
                                        specials: ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>']});
  const bot = llama3.added_tokens[0].id;
  llama3.post_processor = {type: 'Sequence', processors: [{type: 'ByteLevel', add_prefix_space: true, trim_offsets: false,
                                                           use_regex: true}, template('<|begin_of_text|>', bot)]};
  const size = (j) => Math.max(...Object.values(j.model.vocab), ...j.added_tokens.map((a) => a.id)) + 1;
  return [
    {name: 'gpt2', json: gpt2, special: '<|endoftext|> <mask>', round_trip: true},
    {name: 'gpt2_prefix', json: prefix, special: '<|endoftext|>', round_trip: false},
    {name: 'gpt2_split', json: split, special: '<|endoftext|>', round_trip: true},
    // The normalized added token decodes as written (e + U+0301), not as NFC made the text.
    {name: 'qwen2', json: qwen2, special: '<|im_start|>', round_trip: 'nfc', extra_vocab: 7, keeps_not: /café/},
    {name: 'llama3', json: llama3, special: '<|eot_id|>', round_trip: true},
    {name: 'llama2', json: sentencepiece(false), special: '</s>', round_trip: 'spm'},
    // prepend_scheme first adds no ▁ to a text that starts with a space, and the decoder strips that space.
    {name: 'llama2_metaspace', json: sentencepiece(true), special: '</s>', round_trip: 'spm', keeps_not: /^ /},
  ].map((k) => ({...k, vocab_size: size(k.json) + (k.extra_vocab ?? 0)}));
}

// ---- compare ----
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-oracle-'));
let agreed = 0, failures = [];
const hex = (s) => Buffer.from(s, 'utf8').toString('hex');
for (const k of kinds()) {
  const file = path.join(dir, `${k.name}.json`);
  fs.writeFileSync(file, JSON.stringify(k.json));
  const texts = CORPUS.map((t) => t.replaceAll('SPECIAL', k.special));
  const out = execFileSync(tool, [file, String(k.vocab_size)], {input: texts.map((t) => JSON.stringify(t)).join('\n') + '\n',
                                                                stdio: ['pipe', 'pipe', 'inherit']})
    .toString().trim().split('\n').map((l) => JSON.parse(l));
  const oracle = new Tokenizer(JSON.parse(fs.readFileSync(file, 'utf8')), {clean_up_tokenization_spaces: false});
  texts.forEach((t, i) => {
    const want_ids = oracle.encode(t).ids, want_plain = oracle.encode(t, {add_special_tokens: false}).ids;
    const want_text = want_plain.length ? oracle.decode(want_plain, {skip_special_tokens: false}) : '';
    const got = out[i];
    const problems = [];
    if (JSON.stringify(got.ids) !== JSON.stringify(want_ids)) problems.push(`ids ${JSON.stringify(got.ids)} != ${JSON.stringify(want_ids)}`);
    if (JSON.stringify(got.plain) !== JSON.stringify(want_plain)) problems.push(`plain ids ${JSON.stringify(got.plain)} != ${JSON.stringify(want_plain)}`);
    if (got.decoded !== hex(want_text)) problems.push(`decoded ${Buffer.from(got.decoded, 'hex').toString()} != ${want_text}`);
    const back = k.round_trip === 'nfc' ? t.normalize('NFC') : t;
    const keeps = !t.includes(k.special.split(' ')[0]) && !(k.keeps_not && k.keeps_not.test(back));
    if (k.round_trip && keeps && got.decoded !== hex(back)) problems.push(`does not decode back to the text`);
    if (problems.length) failures.push(`${k.name} ${JSON.stringify(t)}: ${problems.join('; ')}`);
    else ++agreed;
  });
  if (k.name === 'qwen2' && out[0].ids.length !== 0) failures.push('qwen2: empty text gave ids');
}
if (!process.env.HF_ORACLE_KEEP) fs.rmSync(dir, {recursive: true, force: true});
else console.log(`kept ${dir}`);
const total = CORPUS.length * kinds().length;
for (const f of failures.slice(0, 30)) console.log('MISMATCH', f);
console.log(`hf_tokenizer_oracle: ${agreed} of ${total} (${CORPUS.length} texts x ${kinds().length} kinds) agree with ` +
            '@huggingface/tokenizers 0.2.0');
process.exit(failures.length ? 1 : 0);
