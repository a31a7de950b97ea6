// Threads on a busy machine: the threaded paths beside another program that keeps
// every core busy (a busy loop per core, as a person's laptop always runs
// something else), against one thread beside the same load. The pool must not
// make a busy machine slower than one thread (src/core/base/threads.cpp: the
// caller takes the items no helper has taken, never waiting for one to wake).
//
//   node bench/contention.mjs [--rounds N]
//
// Rows: T1's training step natively (build/bench-native) and in the threaded wasm
// build under Node (build/bench-web-threads, bench/threads_peer.mjs), and
// generation through the KV cache on a stories15M-shaped model with random weights
// (tests/llama_files.py) in both. Each on 1 and 2 threads, idle and loaded; the
// ratio is one thread's time over two threads' (above 1: two threads help).
// Builds what is missing as bench/run.sh does (Release, no -march=native).
// Not pinned: the load runs on every core, and so do the rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { llamaFiles } from './lib/llama_bench.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(benchDir);
const args = process.argv.slice(2);
const rounds = Number((args[args.indexOf('--rounds') + 1]) || 5) || 5;
const log = (...a) => console.error('[contention]', ...a);
const build = (...p) => path.join(root, 'build', ...p);

function ensureBuilt() {
  const jobs = String(Math.max(1, os.cpus().length));
  const emToolchain = '/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake';
  const steps = [
    [build('bench-native', 'attn_bench'), ['-S', 'bench', '-B', build('bench-native'), '-DCMAKE_BUILD_TYPE=Release']],
    [build('bench-web-threads', 'attn_bench.js'), ['-S', 'bench', '-B', build('bench-web-threads'), `-DCMAKE_TOOLCHAIN_FILE=${emToolchain}`,
      '-DCMAKE_BUILD_TYPE=Release', '-DATTN_THREADS=ON']],
  ];
  for (const [target, configure] of steps) {
    if (fs.existsSync(target)) continue;
    log(`building ${path.relative(root, path.dirname(target))}`);
    const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
    for (const argv of [configure, ['--build', configure[3], '-j', jobs, '--target', 'attn_bench']]) {
      const r = spawnSync('cmake', argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`cmake ${argv.join(' ')} failed`);
    }
  }
}

// A child answering one line per request line (the runners' protocol).
function lineProcess(cmd, argv) {
  const proc = spawn(cmd, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  const waiting = [];
  proc.stdout.on('data', (d) => {
    buffer += d;
    for (let at; (at = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(at + 1)) waiting.shift()?.resolve(buffer.slice(0, at));
  });
  proc.on('exit', (code) => { for (const w of waiting.splice(0)) w.reject(new Error(`${cmd} exited with ${code}`)); });
  return {
    ask: (line) => new Promise((resolve, reject) => { waiting.push({ resolve, reject }); proc.stdin.write(line + '\n'); }),
    stop: () => proc.stdin.end('quit\n'),
  };
}

// The other program: a busy loop on every core, until stopped.
function startLoad() {
  const loops = os.cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => { for (const p of loops) p.kill('SIGKILL'); };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

ensureBuilt();
const files = llamaFiles(root, build('bench', 'data'), 'stories15M', log);
const native = lineProcess(build('bench-native', 'attn_bench'), []);
const wasm = lineProcess(process.execPath, [path.join(benchDir, 'threads_peer.mjs'), build('bench-web-threads')]);
for (const p of [native, wasm]) await p.ask(`llama_load ${files.model} ${files.tokenizer} 16`);

const genTokens = 32, trainReps = 40;
const rows = [
  { name: 'T1 step, native', run: (n) => native.ask(`train_run 0 ${trainReps} ${n}`).then(Number) },
  { name: 'T1 step, wasm Node', run: (n) => wasm.ask(`train_run 0 ${trainReps} ${n}`).then(Number) },
  { name: 'generation a token, native', run: (n) => native.ask(`llama_generate ${genTokens} ${n}`).then((l) => JSON.parse(l).seconds) },
  { name: 'generation a token, wasm Node', run: (n) => wasm.ask(`llama_generate ${genTokens} ${n}`).then((l) => JSON.parse(l).seconds) },
];
const samples = new Map();
const sample = async (row, load, n) => {
  const key = `${row.name}|${load}|${n}`;
  if (!samples.has(key)) samples.set(key, []);
  samples.get(key).push(await row.run(n));
};
for (let r = 0; r < rounds; ++r) {
  for (const load of ['idle', 'loaded']) {
    const stop = load === 'loaded' ? startLoad() : () => {};
    await new Promise((resolve) => setTimeout(resolve, 200));  // the loops under way
    try {
      for (const row of rows) {
        await row.run(2);  // warm: the workers awake
        for (const n of r % 2 ? [2, 1] : [1, 2]) await sample(row, load, n);
      }
    } finally { stop(); }
  }
  log(`round ${r + 1}/${rounds}`);
}
native.stop();
wasm.stop();

const ms = (s) => `${(s * 1e3).toFixed(2)} ms`;
console.log(`${os.cpus().length} cores; load: a busy loop on each; medians of ${rounds} rounds; ratio = 1 thread ÷ 2 threads`);
console.log('| row | idle 1t | idle 2t | idle ratio | loaded 1t | loaded 2t | loaded ratio |');
console.log('|---|---|---|---|---|---|---|');
const out = [];
for (const row of rows) {
  const m = (load, n) => median(samples.get(`${row.name}|${load}|${n}`));
  const r = { row: row.name, idle1: m('idle', 1), idle2: m('idle', 2), loaded1: m('loaded', 1), loaded2: m('loaded', 2) };
  out.push(r);
  console.log(`| ${r.row} | ${ms(r.idle1)} | ${ms(r.idle2)} | ${(r.idle1 / r.idle2).toFixed(2)}× | ${ms(r.loaded1)} | ${ms(r.loaded2)} | ` +
    `${(r.loaded1 / r.loaded2).toFixed(2)}× |`);
}
fs.mkdirSync(build('bench'), { recursive: true });
fs.writeFileSync(build('bench', 'contention.json'), JSON.stringify(out, null, 1));
process.exit(0);
