// The side-by-side benchmark: our attention core natively, in wasm under Node and
// in wasm in headless Chromium, against the article's numpy code (reference BLAS
// and OpenBLAS on one thread), onnxruntime-web (wasm SIMD, one thread; in Node
// and in Chromium) and onnxruntime-node (one thread), each on the operator chain and
// on its fused attention operators ("fused"), in interleaved rounds.
//
//   bash bench/run.sh [--rounds N]        # what users run: installs, builds, pins to one core, then this
//   node bench/run.mjs [--rounds N] [--out FILE] [--no-page] [--no-numpy] [--no-train] [--train-only] [--no-torch] [--no-chromium]
//                      [--workloads PREFIX,…]   # only the attention workloads whose names start so, e.g. "W3" or "W1 causal,W2"
//                      [--llama-only] [--no-llama] [--llama-shapes stories15M,stories110M] [--llama-rounds N]
//                      [--hf-only] [--no-hf] [--hf-shapes gpt2-small,smollm2-135m] [--hf-rounds N]
//
// Training (T1, T2: one AdamW step of the core's trainer) is timed against PyTorch
// (eager, one thread, Debian's python3-torch) and TensorFlow.js's wasm backend
// (SIMD, one thread) on the same initial weights and batches; --train-only runs
// that part alone (no attention workloads, numpy or page cost; --no-chromium: nor Chromium).
// T3 (time to learn the L9 recipe) runs natively, and in the page unless --no-page
// (--train-only: natively only); --no-train skips it.
//
// Real models (R1 the traced forward, R2 generation through the KV cache, R3 the
// memory of opening the file; bench/lib/llama_bench.mjs) on llama2.c checkpoints with
// random weights written by tests/llama_files.py: stories15M's shape by default,
// stories110M's (~440 MB) only with --llama-shapes naming it; --llama-only runs that
// part alone, --no-llama skips it; --workloads R2 (say) keeps only those rows.
// Hugging Face folders (R4 the traced forward, R5 generation, R6 the memory of opening
// the folder; issue 52) written by tests/hf_files.py --shape: GPT-2 small in F32 and
// F16, SmolLM2-135M in BF16 (--hf-shapes); --hf-only runs them alone (no llama2.c
// shapes), --no-hf skips them; --llama-only runs the llama2.c shapes alone.
//
// [SECTION] peers: one interface (prepare · run(reps) → s/run · output) for every runtime
// [SECTION] measurement: check against ours, calibrate repetitions, interleaved rounds
// [SECTION] training: T1, T2 against PyTorch and TensorFlow.js (wasm)
// [SECTION] page cost: the playground's bytes (gzip) and time to its first frame
// [SECTION] T3: time to learn, natively and through the page's own training loop
// [SECTION] real models: R1-R3 (bench/lib/llama_bench.mjs)
// [SECTION] report: table, targets, JSON
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFusedModels, buildModel } from './lib/onnx_models.mjs';
import { oursWasm, ortPeer } from './lib/peers.mjs';
import { tfjsTrainer, tfjsWasmNode } from './lib/tfjs_train.mjs';
import { lessonRecipe, trainInPage } from './lib/train_page.mjs';
import { llamaBench, printLlama, torchLlamaProcess } from './lib/llama_bench.mjs';

const require = createRequire(import.meta.url);
const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, '..');
const build = (...p) => path.join(root, 'build', ...p);

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const rounds = Number(opt('--rounds', 15));
const outFile = path.resolve(opt('--out', build('bench', 'results.json')));
const dataDir = build('bench', 'data');
const sampleSeconds = Number(opt('--sample-seconds', 0.02));  // each sample: enough runs to last about this long
const onlyWorkloads = opt('--workloads', null)?.split(',').map((x) => x.trim()).filter(Boolean);
const hfOnly = args.includes('--hf-only');
const llamaShapes = hfOnly || args.includes('--no-llama') ? [] : opt('--llama-shapes', 'stories15M').split(',').map((x) => x.trim()).filter(Boolean);
const hfShapes = args.includes('--no-hf') || args.includes('--llama-only') ? [] : opt('--hf-shapes', 'gpt2-small,smollm2-135m').split(',').map((x) => x.trim()).filter(Boolean);
// --workloads names attention workloads; the real models' rows run with them only when a prefix names them (R1, R2, R3).
const wantLlama = (name) => !onlyWorkloads || onlyWorkloads.some((prefix) => name.startsWith(prefix));
const llamaWanted = (llamaShapes.length > 0 || hfShapes.length > 0) && (!onlyWorkloads || onlyWorkloads.some((prefix) => prefix.startsWith('R')));
const log = (...a) => console.error('[bench]', ...a);

// --- [SECTION] peers -------------------------------------------------------------

// A child process that answers one line per command line.
function lineProcess(cmd, argv, env) {
  const proc = spawn(cmd, argv, { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  const waiting = [];
  proc.stdout.on('data', (d) => {
    buffer += d;
    let at;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      const w = waiting.shift();
      if (w) w.resolve(line);
    }
  });
  proc.on('exit', (code) => { for (const w of waiting.splice(0)) w.reject(new Error(`${cmd} exited with ${code}`)); });
  return {
    ask(line) {
      return new Promise((resolve, reject) => { waiting.push({ resolve, reject }); proc.stdin.write(line + '\n'); });
    },
    stop() { proc.stdin.end('quit\n'); },
    pid: proc.pid,
  };
}

function readF32(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice();
}

// Ours natively, with the best kernel set the CPU runs, or with the one named
// (`arch`: 'sse2', the x86-64 baseline every machine has).
function nativeOurs(arch) {
  const p = lineProcess(build('bench-native', 'attn_bench'), [], process.env);
  const dir = arch ? path.join(dataDir, arch) : dataDir;
  let dumped = false;
  const ready = arch ? p.ask(`arch ${arch}`).then((r) => { if (r !== 'ok') throw new Error(r); }) : Promise.resolve();
  return {
    name: arch ? `ours native ${arch}` : 'ours native', env: 'native', peakKey: arch ? `native_${arch}` : 'native', proc: p, ready,
    supports: () => true,
    prepare: async () => {},
    run: async (w, reps) => Number(await p.ask(`run ${w.id} ${reps}`)),
    // The default process dumps into dataDir first (main); another kernel set
    // dumps its own outputs beside them, to be checked against those.
    output: async (w) => {
      if (arch && !dumped) {
        fs.mkdirSync(dir, { recursive: true });
        await p.ask(`dump ${dir}`);
        dumped = true;
      }
      return readF32(path.join(dir, `${w.id}.out.f32`));
    },
    peak: async (s) => JSON.parse(await p.ask(`peak ${s}`)),
    bandwidth: async (s, bytes, threads = 1) => JSON.parse(await p.ask(`bandwidth ${s} ${bytes} ${threads}`)),
    stop: () => p.stop(),
  };
}

// numpy with a chosen BLAS: Debian's reference BLAS or OpenBLAS (pthread build) on one thread.
function numpyPeer(blas) {
  const lib = '/usr/lib/x86_64-linux-gnu';
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;  // set on some machines for old OpenBLAS builds; they slow a current one
  delete env.OPENBLAS_L2_SIZE;
  env.OPENBLAS_NUM_THREADS = '1';
  env.OMP_NUM_THREADS = '1';
  env.LD_LIBRARY_PATH = blas === 'reference' ? `${lib}/blas:${lib}/lapack` : `${lib}/openblas-pthread`;
  const p = lineProcess('/usr/bin/python3', [path.join(benchDir, 'numpy_peer.py'), dataDir], env);
  return {
    name: `numpy ${blas === 'reference' ? 'ref BLAS' : 'OpenBLAS 1t'}`, env: 'native', proc: p,
    supports: (w) => w.kind !== 'w4',
    prepare: async (w) => { await p.ask(`prepare ${w.id}`); },
    run: async (w, reps) => Number(await p.ask(`run ${w.id} ${reps}`)),
    output: async (w) => {
      const f = path.join(dataDir, `${w.id}.numpy-${blas}.f32`);
      await p.ask(`output ${w.id} ${f}`);
      return readF32(f);
    },
    info: async () => JSON.parse(await p.ask('info')),
    stop: () => p.stop(),
  };
}

// Serves the benchmark page and its files, cross-origin isolated (so that
// performance.now() has its fine resolution and onnxruntime-web may use its
// threaded build with one thread).
function startPageServer() {
  const mounts = [
    ['/ort/', path.join(benchDir, 'node_modules', 'onnxruntime-web', 'dist')],
    ['/tfjs/', path.join(benchDir, 'node_modules', '@tensorflow', 'tfjs', 'dist')],
    ['/tfjs-wasm/', path.join(benchDir, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist')],
    ['/ours/', build('bench-web')],
    ['/ours-mt/', build('bench-web-threads')],
    ['/data/', dataDir],
    ['/lib/', path.join(benchDir, 'lib')],
    ['/web/', path.join(benchDir, 'web')],
  ];
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost').pathname;
    let file = url === '/' ? path.join(benchDir, 'web', 'index.html') : null;
    for (const [prefix, dir] of mounts)
      if (!file && url.startsWith(prefix)) {
        const f = path.resolve(dir, '.' + path.posix.normalize('/' + url.slice(prefix.length)));
        if (f.startsWith(dir + path.sep)) file = f;
      }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, {
      'Content-Type': types[path.extname(file)] || 'application/octet-stream',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

const chromiumArgs = ['--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-quic', '--disable-default-apps', '--disable-renderer-backgrounding', '--disable-background-timer-throttling'];

async function launchChromium() {
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: chromiumArgs });
}

// Chromium on every core, as a person's browser runs: the benchmark is pinned to
// one core, and a Chromium started from it would inherit that (its renderer, GPU
// process and rasteriser threads all on one core). For the page's own figures
// (page cost, T3), started through taskset.
async function launchChromiumAllCores() {
  const wrapper = build('bench', 'chromium-all-cores');
  fs.mkdirSync(path.dirname(wrapper), { recursive: true });
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c 0-${os.cpus().length - 1} "${process.env.CHROMIUM || '/usr/bin/chromium'}" "$@"\n`, { mode: 0o755 });
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath: wrapper, headless: true, args: chromiumArgs });
}

async function chromiumPeers(browser) {
  const { server, url } = await startPageServer();
  const page = await browser.newPage();
  const foreign = [];
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) foreign.push(r.url()); });
  page.on('console', (m) => { if (m.type() === 'error') log('chromium console:', m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => window.benchReady || window.benchError, null, { timeout: 120000 });
  const error = await page.evaluate(() => window.benchError);
  if (error) throw new Error('benchmark page: ' + error);
  const isolated = await page.evaluate(() => window.bench.crossOriginIsolated());
  const threaded = await page.evaluate(() => window.bench.threaded());  // build/bench-web-threads loaded
  const make = (peer, name, supports) => ({
    name, env: 'chromium', supports,
    prepare: (w) => page.evaluate(([p, id]) => window.bench.prepare(p, id), [peer, w.id]),
    run: (w, reps) => page.evaluate(([p, id, r]) => window.bench.run(p, id, r), [peer, w.id, reps]),
    output: async (w, op) => Float32Array.from(await page.evaluate(([p, id, o]) => window.bench.output(p, id, o), [peer, w.id, op])),
  });
  // onnxruntime's peers also list the graphs they could create and keep the fastest that passed.
  const makeOrt = (peer, name, supports) => ({
    ...make(peer, name, supports),
    candidates: (w) => page.evaluate(([p, id]) => window.bench.candidates(p, id), [peer, w.id]),
    choose: (w, ops) => page.evaluate(([p, id, o]) => window.bench.choose(p, id, o), [peer, w.id, ops]),
  });
  return {
    ours: { ...make('ours', 'ours wasm Chromium', () => true), peak: (s) => page.evaluate((sec) => window.bench.peak(sec), s),
      bandwidth: (s, bytes) => page.evaluate(([sec, b]) => window.bench.bandwidth(sec, b), [s, bytes]) },
    ort: makeOrt('ort', 'ort-web Chromium', (w) => Boolean(w.model)),
    ortFused: makeOrt('ortFused', 'ort-web Chromium fused', (w) => Boolean(w.fused)),
    circuits: () => page.evaluate(() => window.bench.circuits()),
    threaded,
    llamaMt: {
      llamaLoad: (model, tokenizer, n) => page.evaluate(([m, t, k]) => window.bench.llamaLoadMt(m, t, k), [model, tokenizer, n]),
      hfLoad: (dir, names, n) => page.evaluate(([d, f, k]) => window.bench.hfLoadMt(d, f, k), [dir, names, n]),
      llamaForward: (lean, reps) => page.evaluate(([l, r]) => window.bench.llamaForwardMt(l, r), [lean, reps]),
      llamaLogits: () => page.evaluate(() => window.bench.llamaLogitsMt()),
      llamaGenerate: (steps) => page.evaluate((s) => window.bench.llamaGenerateMt(s, 2), steps),
    },
    llama: {
      llamaLoad: (model, tokenizer, n) => page.evaluate(([m, t, k]) => window.bench.llamaLoad(m, t, k), [model, tokenizer, n]),
      hfLoad: (dir, names, n) => page.evaluate(([d, f, k]) => window.bench.hfLoad(d, f, k), [dir, names, n]),
      llamaForward: (lean, reps) => page.evaluate(([l, r]) => window.bench.llamaForward(l, r), [lean, reps]),
      llamaLogits: () => page.evaluate(() => window.bench.llamaLogits()),
      llamaGenerate: (steps) => page.evaluate((s) => window.bench.llamaGenerate(s), steps),
    },
    train: {
      threaded,
      pid: process.pid,  // Chromium is a child of this process: its processes are among our descendants
      trainRun: (id, reps) => page.evaluate(([i, r]) => window.bench.trainRun(i, r), [id, reps]),
      trainLosses: (id, n) => page.evaluate(([i, k]) => window.bench.trainLosses(i, k), [id, n]),
      trainRunMt: (id, reps, threads) => page.evaluate(([i, r, n]) => window.bench.trainRunMt(i, r, n), [id, reps, threads]),
      trainLossesMt: (id, n) => page.evaluate(([i, k]) => window.bench.trainLossesMt(i, k), [id, n]),
      tfjsPrepare: (id, name) => page.evaluate(([i, n]) => window.bench.tfjsPrepare(i, n), [id, name]),
      tfjsRun: (id, reps) => page.evaluate(([i, r]) => window.bench.tfjsRun(i, r), [id, reps]),
    },
    foreign, isolated, stop: () => server.close(),
  };
}

// --- [SECTION] measurement -----------------------------------------------------------

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); const at = (s.length - 1) * q; const lo = Math.floor(at); return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo); };

function maxAbsError(a, b) {
  if (a.length !== b.length) return Infinity;
  let e = 0;
  for (let i = 0; i < a.length; ++i) { const d = Math.abs(a[i] - b[i]); if (!(d <= e)) e = Number.isNaN(d) ? Infinity : Math.max(e, d); }
  return e;
}

function shuffle(xs, seed) {
  const out = [...xs];
  let s = seed * 2654435761 % 4294967296;
  for (let i = out.length - 1; i > 0; --i) {
    s = (s * 1664525 + 1013904223) % 4294967296;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// --- [SECTION] training ----------------------------------------------------------------

// Steps every peer repeats from the dump before it is timed; their losses must
// agree with ours natively (the dump's) to `trainTolerance` relative.
const trainCheckSteps = 20;
const trainTolerance = 1e-4;

// Threads and cores. bench/run.sh pins the benchmark to one core (steadier
// figures); a row on n threads gets the first min(n, cores) cores for its run:
// every thread of the processes it uses (pids, and all their descendants: a
// browser's renderer) is moved there, and back to the one core after. The wasm
// workers, Chromium's and PyTorch's threads are threads of those processes.
const pinnedCpu = ((process.env.ATTN_BENCH_PINNED || '').match(/-c (\d+)$/) || [])[1];
function descendants(pid) {
  let kids = [];
  try { kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number); } catch (e) { /* none */ }
  return [pid, ...kids.flatMap(descendants)];
}
function setCores(pids, n) {
  if (pinnedCpu === undefined) return;
  const list = n > 1 ? `0-${Math.min(n, os.cpus().length) - 1}` : pinnedCpu;
  for (const pid of pids.flatMap(descendants)) spawnSync('taskset', ['-a', '-p', '-c', list, String(pid)], { stdio: 'ignore' });
}
async function onCores(pids, n, f, warm) {
  setCores(pids, n);
  try {
    if (warm) await warm();
    return await f();
  } finally { setCores(pids, 1); }
}
// A training row on n cores: moved there, twice its sample run untimed, then its
// sample timed. Its threads have slept (and the other core idled) since its last
// sample, a second ago; for the first tens of ms after, a step on two threads runs up
// to 1.7× slower (T1 in Node, the threaded build alone in its process: a 20 ms sample
// after 500 ms idle took 2.8–3.6 ms a step with 5 ms of warm-up, 2.1 with 20 ms,
// against 1.9–2.2 with no pause). Training in the page runs for seconds: the rows
// time what it gets once under way.
const onCoresRun = (pids, n, run) => (t, reps) => onCores(pids, n, () => run(t, reps), () => run(t, 2 * reps));

// The threaded wasm build under Node (build/bench-web-threads: pthreads, 7
// workers started with it), loaded once, or null when it was not built.
let threadedNode;
async function oursNodeThreads() {
  if (threadedNode !== undefined) return threadedNode;
  const js = build('bench-web-threads', 'attn_bench.js');
  threadedNode = fs.existsSync(js) ? await oursWasm(require(js), fs.readFileSync(build('bench-web-threads', 'attn_bench.wasm'))) : null;
  return threadedNode;
}

// T1, T2: ours natively and in wasm under Node (and in Chromium when given),
// PyTorch eager and tfjs-wasm in Node, each checked on its first steps' losses,
// then timed in interleaved rounds. Returns rows, targets and checks.
async function trainingBench(native, oursNode, chrome) {
  const list = JSON.parse(await native.proc.ask('train_describe'));
  // The threaded build's rows in a process of their own (bench/threads_peer.mjs).
  const mtDir = build('bench-web-threads');
  const mt = fs.existsSync(path.join(mtDir, 'attn_bench.js'))
    ? lineProcess(process.execPath, [path.join(benchDir, 'threads_peer.mjs'), mtDir], process.env) : null;
  if (!mt) log('  no build/bench-web-threads: the threaded wasm rows are left out');
  const dumps = new Map();
  for (const t of list) {
    t.short = t.name.split(' ')[0];
    const file = path.join(dataDir, `${t.short}.train.json`);
    const out = await new Promise((resolve, reject) => {
      const p = spawn(build('bench-native', 'attn_train_dump'), [t.recipe, String(trainCheckSteps)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const chunks = [];
      p.stdout.on('data', (d) => chunks.push(d));
      p.on('exit', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`attn_train_dump exited with ${code}`))));
    });
    fs.writeFileSync(file, out);
    t.file = file;
    dumps.set(t.id, JSON.parse(out));
  }
  const withTorch = !args.includes('--no-torch');
  const torchOn = (n) => lineProcess('/usr/bin/python3', [path.join(benchDir, 'torch_peer.py'), '--serve', String(n)],
    { ...process.env, OMP_NUM_THREADS: String(n), MKL_NUM_THREADS: String(n), OPENBLAS_NUM_THREADS: String(n) });
  const torch = withTorch && torchOn(1);
  const torch2 = withTorch && torchOn(2);
  log('tfjs (wasm backend) in Node');
  const tf = await tfjsWasmNode(benchDir);
  const tfjs = new Map();
  const info = { tfjs: { version: tf.version.tfjs, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'), threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? 'threaded build' : 'one (no threads build)' } };
  let peers = [
    { name: 'ours native', env: 'native', run: async (t, reps) => Number(await native.proc.ask(`train_run ${t.id} ${reps}`)),
      losses: async (t) => JSON.parse(await native.proc.ask(`train_losses ${t.id} ${trainCheckSteps}`)),
      prepare: async (t) => { await native.proc.ask(`train_run ${t.id} ${trainCheckSteps}`); } },
    // The same run on two threads: the same bits (tested), so the same losses.
    { name: 'ours native 2t', env: 'native',
      run: onCoresRun([native.proc.pid], 2, async (t, reps) => Number(await native.proc.ask(`train_run ${t.id} ${reps} 2`))),
      losses: async (t) => JSON.parse(await native.proc.ask(`train_losses ${t.id} ${trainCheckSteps}`)),
      prepare: async () => {} },
    { name: 'ours wasm Node', env: 'node', run: async (t, reps) => oursNode.trainRun(t.id, reps),
      prepare: async (t) => { oursNode.trainRun(t.id, trainCheckSteps); }, losses: async (t) => oursNode.trainLosses(t.id, trainCheckSteps) },
    // The threaded build on 2 threads (the cores here), and on 4 and 8 (oversubscribed):
    // one run, the same bits at every count (tested), so one loss check.
    ...(mt ? [2, 4, 8].map((n) => ({
      name: `ours wasm Node ${n}t`, env: 'node',
      run: onCoresRun([mt.pid], n, async (t, reps) => Number(await mt.ask(`train_run ${t.id} ${reps} ${n}`))),
      prepare: async (t) => { if (n === 2) await mt.ask(`train_run ${t.id} ${trainCheckSteps} ${n}`); },
      losses: async (t) => JSON.parse(await mt.ask(`train_losses ${t.id} ${trainCheckSteps}`)),
    })) : []),
    { name: 'PyTorch eager 1t', env: 'native', run: async (t, reps) => Number(await torch.ask(`run ${t.id} ${reps}`)),
      prepare: async (t) => {
        const r = JSON.parse(await torch.ask(`prepare ${t.id} ${t.file}`));
        info.torch = { version: r.torch, threads: r.threads };
        t.torchLosses = r.losses;
      },
      losses: async (t) => t.torchLosses },
    { name: 'PyTorch eager 2t', env: 'native', run: onCoresRun([torch2.pid], 2, async (t, reps) => Number(await torch2.ask(`run ${t.id} ${reps}`))),
      prepare: async (t) => {
        const r = JSON.parse(await torch2.ask(`prepare ${t.id} ${t.file}`));
        info.torch2 = { version: r.torch, threads: r.threads };
        t.torch2Losses = r.losses;
      },
      losses: async (t) => t.torch2Losses },
    { name: 'tfjs-wasm Node', env: 'node', run: async (t, reps) => {
      const tr = tfjs.get(t.id);
      const t0 = performance.now();
      for (let r = 0; r < reps; ++r) tr.step(tr.at++, tr.lr);
      return (performance.now() - t0) / 1000 / reps;
    },
    prepare: async (t) => {
      const d = dumps.get(t.id);
      const tr = tfjsTrainer(tf, d);
      tr.losses = d.lrs.map((lr, i) => tr.step(i, lr));
      tr.at = d.lrs.length;
      tr.lr = d.lrs[d.lrs.length - 1];
      tfjs.set(t.id, tr);
    },
    losses: async (t) => tfjs.get(t.id).losses },
  ];
  if (!withTorch) peers = peers.filter((p) => !p.name.startsWith('PyTorch eager'));
  if (chrome) {
    peers.push({ name: 'ours wasm Chromium', env: 'chromium', run: (t, reps) => chrome.trainRun(t.id, reps),
      prepare: (t) => chrome.trainRun(t.id, trainCheckSteps), losses: (t) => chrome.trainLosses(t.id, trainCheckSteps) });
    if (chrome.threaded)
      peers.push({ name: 'ours wasm Chromium 2t', env: 'chromium', run: onCoresRun([chrome.pid], 2, (t, reps) => chrome.trainRunMt(t.id, reps, 2)),
        prepare: (t) => chrome.trainRunMt(t.id, trainCheckSteps, 2), losses: (t) => chrome.trainLossesMt(t.id, trainCheckSteps) });
    peers.push({ name: 'tfjs-wasm Chromium', env: 'chromium', run: (t, reps) => chrome.tfjsRun(t.id, reps),
      prepare: async (t) => {
        const r = await chrome.tfjsPrepare(t.id, t.short);
        info.tfjsChromium = { version: r.version, backend: r.backend, simd: r.simd, threads: r.threads ? 'threaded build' : 'one (no threads build)' };
        t.tfjsChromiumLosses = r.losses;
      },
      losses: async (t) => t.tfjsChromiumLosses });
  }

  log(`training: checking every peer's first ${trainCheckSteps} losses against ours natively (relative ≤ ${trainTolerance}) and calibrating`);
  const checks = [];
  const active = new Map();
  for (const t of list) {
    const want = dumps.get(t.id).losses;
    for (const p of peers) {
      await p.prepare(t);
      const got = await p.losses(t);
      const rel = got.length === want.length ? Math.max(...got.map((x, i) => Math.abs(x - want[i]) / Math.abs(want[i]))) : Infinity;
      const ok = rel <= trainTolerance;
      checks.push({ workload: t.short, peer: p.name, lossMaxRel: Number.isNaN(rel) ? Infinity : rel, ok });
      if (!ok) { log(`  ${p.name} on ${t.short}: loss curve off by ${rel} relative: not timed`); continue; }
      await p.run(t, 1);
      const s = await p.run(t, 1);
      active.set(`${p.name}|${t.id}`, Math.max(1, Math.min(1000, Math.ceil(sampleSeconds / s))));
    }
  }
  log(`training: ${rounds} interleaved rounds`);
  const samples = new Map();
  for (let r = 0; r < rounds; ++r) {
    for (const t of list) {
      for (const p of shuffle(peers, r * 17 + t.id)) {
        const key = `${p.name}|${t.id}`;
        if (!active.has(key)) continue;
        const s = await p.run(t, active.get(key));
        if (!samples.has(key)) samples.set(key, []);
        samples.get(key).push(s);
      }
    }
    log(`  training round ${r + 1}/${rounds} done`);
  }
  if (torch) torch.stop();
  if (torch2) torch2.stop();
  if (mt) mt.stop();

  // ratio: median over rounds of (peer's time / ours in the same runtime): how many times faster ours is.
  const oursFor = { native: 'ours native', node: 'ours wasm Node', chromium: 'ours wasm Chromium' };
  const rows = [];
  const ratioOf = (t, oursName, peerName) => {
    const o = samples.get(`${oursName}|${t.id}`), s = samples.get(`${peerName}|${t.id}`);
    return o && s ? median(s.map((x, i) => x / o[i])) : null;
  };
  for (const t of list) {
    for (const p of peers) {
      const s = samples.get(`${p.name}|${t.id}`);
      if (!s) continue;
      const mine = p.name === oursFor[p.env];
      const ratio = mine ? null : ratioOf(t, oursFor[p.env], p.name);
      const row = {
        workload: t.short, description: t.name, recipe: t.recipe, peer: p.name, env: p.env, samples: s.length,
        reps_per_sample: active.get(`${p.name}|${t.id}`),
        median_ms: median(s) * 1e3, p25_ms: quantile(s, 0.25) * 1e3, p75_ms: quantile(s, 0.75) * 1e3,
        min_ms: Math.min(...s) * 1e3, max_ms: Math.max(...s) * 1e3,
        ours_over_peer: ratio ? 1 / ratio : null, ratio,
      };
      if (p.name === 'PyTorch eager 1t') {
        row.ratio_ours_wasm_node = ratioOf(t, 'ours wasm Node', p.name);
        row.ratio_ours_wasm_chromium = ratioOf(t, 'ours wasm Chromium', p.name);
      }
      rows.push(row);
    }
  }
  const targets = [];
  const goal = (t, oursName, peerName, g) => {
    const v = ratioOf(t, oursName, peerName);
    if (v !== null) targets.push({ target: `${t.short}: ${oursName} ≥ ${g}× faster than ${peerName} per step`, value: `${v.toFixed(2)}×`, met: v >= g });
  };
  for (const t of list) {
    goal(t, 'ours wasm Node', 'PyTorch eager 1t', 2);
    goal(t, 'ours wasm Chromium', 'PyTorch eager 1t', 2);
    goal(t, 'ours native', 'PyTorch eager 1t', 4);
    goal(t, 'ours native 2t', 'PyTorch eager 1t', 4);
    goal(t, 'ours native 2t', 'PyTorch eager 2t', 2);
    goal(t, 'ours native 2t', 'ours native', 1.7);  // issue 34: two threads ≥ 1.7× one
    goal(t, 'ours wasm Node 2t', 'ours wasm Node', 1.7);
    goal(t, 'ours wasm Node 2t', 'PyTorch eager 1t', 1.5);
    goal(t, 'ours wasm Node 2t', 'PyTorch eager 2t', 1);
    goal(t, 'ours wasm Chromium 2t', 'ours wasm Chromium', 1.7);
    goal(t, 'ours wasm Chromium 2t', 'PyTorch eager 1t', 1.5);
    goal(t, 'ours wasm Chromium 2t', 'PyTorch eager 2t', 1);
    goal(t, 'ours wasm Node', 'tfjs-wasm Node', 10);
    goal(t, 'ours wasm Chromium', 'tfjs-wasm Chromium', 10);
  }
  return { rows, targets, checks, info, workloads: list.map(({ id, short, name, recipe }) => ({ id, workload: short, name, recipe })) };
}

// --- [SECTION] page cost -------------------------------------------------------------

// The built site served by serve.py (with gzip, as a person gets it) on a free port.
async function serveSite(site) {
  const proc = spawn('python3', [path.join(root, 'serve.py'), '--no-build', '--port', '0', '--site', site],
    { cwd: root, env: { ...process.env, ATTN_SERVE_QUIET: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve.py did not start')), 15000);
    proc.stdout.on('data', (d) => { out += d; const m = out.match(/http:\/\/[^\s]+\//); if (m) { clearTimeout(timer); resolve(m[0]); } });
  });
  return { proc, url };
}

// Five cold loads of the playground in Chromium on every core (as a person's
// browser runs): the bytes transferred and the time from navigation to the first frame.
async function pageCost(loads = 5) {
  const site = build('bench-site', 'site');
  if (!fs.existsSync(path.join(site, 'attn.wasm'))) return { error: 'no site at ' + site };
  const { proc, url } = await serveSite(site);
  const browser = await launchChromiumAllCores();
  const samples = [];
  try {
    for (let i = 0; i < loads; ++i) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      const page = await context.newPage();
      // Wraps attnShell.firstFrame to note when the app reports its first rendered frame.
      await page.addInitScript(() => {
        let shell;
        Object.defineProperty(window, 'attnShell', {
          configurable: true,
          get: () => shell,
          set: (s) => {
            const first = s.firstFrame;
            s.firstFrame = function () { window.benchFirstFrameAt = performance.now(); return first.apply(this, arguments); };
            shell = s;
          },
        });
      });
      const foreign = [];
      page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) foreign.push(r.url()); });
      await page.goto(url);
      await page.waitForFunction(() => window.benchFirstFrameAt !== undefined, null, { timeout: 60000 });
      await page.waitForTimeout(300);  // let any request the first frame started finish
      const s = await page.evaluate(() => {
        const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
        return {
          firstFrameMs: window.benchFirstFrameAt,
          transferBytes: entries.reduce((a, e) => a + e.transferSize, 0),
          encodedBytes: entries.reduce((a, e) => a + e.encodedBodySize, 0),
          decodedBytes: entries.reduce((a, e) => a + e.decodedBodySize, 0),
          files: entries.map((e) => ({ name: new URL(e.name).pathname, encoded: e.encodedBodySize, decoded: e.decodedBodySize })),
        };
      });
      s.foreign = foreign;
      samples.push(s);
      await context.close();
    }
  } finally {
    await browser.close();
    proc.kill('SIGINT');
  }
  return {
    loads,
    firstFrameMs: { median: median(samples.map((s) => s.firstFrameMs)), min: Math.min(...samples.map((s) => s.firstFrameMs)), max: Math.max(...samples.map((s) => s.firstFrameMs)) },
    transferBytes: median(samples.map((s) => s.transferBytes)),
    encodedBytes: median(samples.map((s) => s.encodedBytes)),
    decodedBytes: median(samples.map((s) => s.decodedBytes)),
    files: samples[0].files,
    foreignRequests: samples.flatMap((s) => s.foreign),
  };
}

// --- [SECTION] T3: time to learn ------------------------------------------------------

// The L9 recipe from a fresh start until its held-out accuracy, measured at each
// kept snapshot, first reaches 0.9: natively through the page's trainer without the
// drawing (three runs), the same in wasm under Node (what the page's training
// would take if it had all of the page's time), and in Chromium through the page's own loop (the
// threaded build, served isolated: the steps beside the drawing) at a laptop's and a phone's viewport. The
// page runs on every core, as a person's browser would, not on the one core the
// rest of the benchmark is pinned to: Chromium is started through taskset.
async function timeToLearn(native, oursNode, withPage) {
  const workload = 'T3 time to learn (L9 recipe, held-out accuracy ≥ 0.9)';
  const rows = [], targets = [];
  const runs = [];
  for (let i = 0; i < 3; ++i) runs.push(JSON.parse(await native.proc.ask('train_learn')));
  const ms = runs.map((r) => r.seconds * 1e3);
  rows.push({ workload, peer: 'ours native', env: 'native', median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms),
    step: runs[0].step, ratio: null, runs: runs.length });
  const wasmRuns = [0, 1, 2].map(() => oursNode.learn());
  const wasmMs = wasmRuns.map((r) => r.seconds * 1e3);
  rows.push({ workload, peer: 'ours wasm Node', env: 'node', median_ms: median(wasmMs), min_ms: Math.min(...wasmMs), max_ms: Math.max(...wasmMs),
    step: wasmRuns[0].step, ratio: null, runs: wasmRuns.length });
  if (withPage) {
    const site = build('bench-site', 'site');
    if (!fs.existsSync(path.join(site, 'attn.wasm'))) return { rows, targets, error: 'no site at ' + site };
    const { proc, url } = await serveSite(site);
    const browser = await launchChromiumAllCores();
    try {
      for (const size of [[1280, 720], [844, 390]]) {
        const r = await trainInPage(browser, url, lessonRecipe(root), size, { idle: false, untilLearned: true });
        rows.push({ workload, peer: `ours page Chromium ${r.viewport} (${r.build}, ${r.threads}t${r.apart ? ', beside the drawing' : ''})`,
          env: 'chromium', median_ms: r.learned_ms, step: r.learned_step,
          fps_while_training: r.fps, frame_median_ms: r.frame_median_ms, frame_p90_ms: r.frame_p90_ms, ratio: null, runs: 1 });
        targets.push({ target: `T3 in Chromium at ${r.viewport}: ≤ 2.5 s while the page draws ≥ 20 frames/s`,
          value: r.learned_ms === null ? 'never' : `${(r.learned_ms / 1000).toFixed(1)} s at ${r.fps} frames/s (${r.build} build, ${r.threads} threads)`,
          met: r.learned_ms !== null && r.learned_ms <= 2500 && r.fps >= 20 });
      }
    } finally {
      await browser.close();
      proc.kill('SIGINT');
    }
  }
  return { rows, targets };
}

// --- [SECTION] C1, C2: reading the circuit ------------------------------------------
// Issue 31's speed targets on the trained L9 model (trained once first): C1, items
// 1-6 and 8 for one held-out row (the row read, composition, weight-only circuits,
// patching), per read after a first one; C2, the timeline over the run's 61 kept
// snapshots, over all 128 held-out rows and over 32. Natively, in wasm under Node and,
// when `chromium` (its measured result) is given, in the page's engine.
async function circuitsBench(native, oursNode, chromium = null) {
  const rows = [], targets = [];
  const runs = [['ours native', 'native', JSON.parse(await native.proc.ask('circuits'))], ['ours wasm Node', 'node', oursNode.circuits()]];
  if (chromium) runs.push(['ours wasm Chromium', 'chromium', chromium]);
  for (const [peer, env, c] of runs) {
    rows.push({ workload: 'C1 circuits of one row (items 1-6, 8), L9 trained', peer, env, median_ms: c.read * 1e3, first_ms: c.first * 1e3, ratio: null });
    rows.push({ workload: 'C2 timeline over 61 snapshots, 128 rows', peer, env, median_ms: c.timeline * 1e3, ratio: null });
    rows.push({ workload: 'C2 timeline over 61 snapshots, 32 rows', peer, env, median_ms: c.timeline32 * 1e3, ratio: null });
    if (env === 'node') {
      targets.push({ target: 'C1: items 1-6 and 8 for one trained L9 model, ours wasm Node ≤ 20 ms', value: `${(c.read * 1e3).toFixed(1)} ms (first ${(c.first * 1e3).toFixed(1)} ms)`, met: c.read * 1e3 <= 20 });
      targets.push({ target: 'C2: the timeline of a 1500-step L9 run, ours wasm Node ≤ 0.5 s', value: `${c.timeline.toFixed(2)} s over 128 rows, ${c.timeline32.toFixed(2)} s over 32`, met: c.timeline <= 0.5 });
    }
  }
  return { rows, targets };
}

function printCircuits(r) {
  const c = r.rows.filter((x) => x.workload.startsWith('C'));
  if (!c.length) return;
  console.log('\nC1, C2, reading the circuit of the trained L9 model (docs/circuits.md):');
  for (const x of c) console.log(`  ${x.workload}, ${x.peer}: ${x.median_ms.toFixed(2)} ms` + (x.first_ms ? ` (the first read ${x.first_ms.toFixed(1)} ms)` : ''));
}

// --- [SECTION] real models: R1-R3 ------------------------------------------------------
// R1 (the traced forward over 256 tokens, lean and full), R2 (greedy generation
// through the KV cache) and R3 (the peak RSS of opening the file) on each shape of
// --llama-shapes, in --llama-rounds rounds (default: --rounds; at most 5 for the
// 110M shape unless given); bandwidth: the read probes over 256 MB, {native, node, chromium}.
async function realModels(native, oursNode, chrome, bandwidth) {
  return llamaBench({
    shapes: llamaShapes, hfShapes, hfRounds: opt('--hf-rounds', null) && Number(opt('--hf-rounds', null)), native, oursNode, oursNodeMt: await oursNodeThreads(),
    chrome: chrome && { ...chrome.llama, mt: chrome.threaded ? chrome.llamaMt : null, pid: chrome.train.pid }, bandwidth,
    // The 2-thread rows on 2 cores (the rest stays pinned to one).
    twoCores: (pid, f, warm) => onCores([pid], 2, f, warm),
    torchProcess: args.includes('--no-torch') ? null : torchLlamaProcess(lineProcess, benchDir),
    rounds: Number(opt('--llama-rounds', rounds)), explicitRounds: args.includes('--llama-rounds'), dataDir, build, root, log, want: wantLlama,
  });
}

// --llama-only: the real models' rows alone, natively, in wasm under Node and in
// Chromium (unless --no-chromium), against PyTorch (unless --no-torch).
async function mainLlamaOnly(native, t0) {
  const createAttnBench = require(build('bench-web', 'attn_bench.js'));
  const oursNode = await oursWasm(createAttnBench, fs.readFileSync(build('bench-web', 'attn_bench.wasm')));
  let browser = null, chrome = null;
  if (!args.includes('--no-chromium')) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'workloads.json'), await native.proc.ask('describe'));
    log('launching Chromium');
    browser = await launchChromium();
    chrome = await chromiumPeers(browser);
  }
  log('read probes over 256 MB');
  const probeBytes = 256 * 2 ** 20;
  const bandwidth = {
    native: (await native.bandwidth(0.5, probeBytes)).bandwidth,
    node: oursNode.bandwidth(0.5, probeBytes).bandwidth,
    chromium: chrome ? (await chrome.ours.bandwidth(0.5, probeBytes)).bandwidth : null,
  };
  const llama = await realModels(native, oursNode, chrome, bandwidth);
  if (browser) {
    await browser.close();
    chrome.stop();
  }
  native.stop();
  const result = {
    command: 'bash bench/run.sh ' + args.join(' '),
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().map((c) => c.model)[0], pinned: process.env.ATTN_BENCH_PINNED || 'not pinned' },
    rows: llama.rows, targets: llama.targets, llama,
    chromium: chrome ? { crossOriginIsolated: chrome.isolated, foreignRequests: chrome.foreign } : { skipped: true },
    seconds: (Date.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(result, null, 2));
  printLlama(result);
  console.log('\nTargets:');
  for (const t of result.targets) console.log(`  [${t.met ? 'met' : 'MISSED'}] ${t.target}: ${t.value}`);
  console.log(`\nJSON: ${path.relative(process.cwd(), outFile)}  (${result.seconds.toFixed(0)} s)`);
}

// --- main -------------------------------------------------------------------------

const trainOnly = args.includes('--train-only');
const trainNotes = [
  'T1/T2 rows: median_ms = time per training step (forward, backward, AdamW) over the rounds; ratio = median over rounds of (peer time / ours in the same runtime): how many times faster ours is; ours_over_peer = its inverse',
  'PyTorch rows also give ratio_ours_wasm_node and ratio_ours_wasm_chromium: PyTorch time / ours wasm in Node (in Chromium), per round',
  'every peer starts from the same initial weights and batches (attn_train_dump), and its first steps\' losses are checked against ours natively before it is timed; ours draws its next batches itself, the peers cycle over the dumped ones',
];

// --train-only: T1, T2 alone: ours natively, in wasm under Node and in Chromium (unless
// --no-chromium), PyTorch and tfjs-wasm in Node and in Chromium.
async function mainTrainOnly(native, t0) {
  const createAttnBench = require(build('bench-web', 'attn_bench.js'));
  const oursNode = await oursWasm(createAttnBench, fs.readFileSync(build('bench-web', 'attn_bench.wasm')));
  // The Chromium page lists the attention workloads (without their ONNX models here).
  let browser = null, chrome = null;
  if (!args.includes('--no-chromium')) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'workloads.json'), await native.proc.ask('describe'));
    log('launching Chromium');
    browser = await launchChromium();
    chrome = await chromiumPeers(browser);
  }
  const training = await trainingBench(native, oursNode, chrome && chrome.train);
  const chromeCircuits = chrome ? await chrome.circuits() : null;
  if (browser) {
    await browser.close();
    chrome.stop();
  }
  log('T3: time to learn, natively (the page\'s: a full run without --no-page)');
  const learn = await timeToLearn(native, oursNode, false);
  log('C1, C2: reading the circuit of the trained L9 model');
  const circuits = await circuitsBench(native, oursNode, chromeCircuits);
  native.stop();
  const result = {
    command: 'bash bench/run.sh ' + args.join(' '),
    date: new Date().toISOString(),
    machine: { cpus: (await import('node:os')).cpus().map((c) => c.model)[0], pinned: process.env.ATTN_BENCH_PINNED || 'not pinned' },
    notes: trainNotes, rows: [...training.rows, ...learn.rows, ...circuits.rows], targets: [...training.targets, ...circuits.targets],
    training: { workloads: training.workloads, peers: training.info, checks: training.checks },
    chromium: chrome ? { crossOriginIsolated: chrome.isolated, foreignRequests: chrome.foreign } : { skipped: true },
    seconds: (Date.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(result, null, 2));
  printTraining(result);
  printTimeToLearn(result);
  printCircuits(result);
  console.log('\nTargets:');
  for (const t of result.targets) console.log(`  [${t.met ? 'met' : 'MISSED'}] ${t.target}: ${t.value}`);
  console.log(`\nJSON: ${path.relative(process.cwd(), outFile)}  (${result.seconds.toFixed(0)} s)`);
}

async function main() {
  fs.mkdirSync(path.join(dataDir, 'models'), { recursive: true });
  const t0 = Date.now();
  const native = nativeOurs();
  if (trainOnly) return mainTrainOnly(native, t0);
  if (args.includes('--llama-only') || hfOnly) return mainLlamaOnly(native, t0);
  const workloads = JSON.parse(await native.proc.ask('describe'))
    .filter((w) => !onlyWorkloads || onlyWorkloads.some((prefix) => w.name.startsWith(prefix)));
  await native.proc.ask(`dump ${dataDir}`);
  const models = new Map(), fusedModels = new Map();  // id → [{ op, bytes, feeds }]
  for (const w of workloads) {
    const inputs = w.inputs.map((_, i) => readF32(path.join(dataDir, `${w.id}.${i}.f32`)));
    const m = buildModel(w, inputs);
    if (!m) continue;
    fs.writeFileSync(path.join(dataDir, 'models', `${w.id}.onnx`), m.bytes);
    const feedsByIndex = (feeds) => feeds.map(([name, data, shape]) => [name, inputs.indexOf(data), shape]);
    w.model = { feeds: feedsByIndex(m.feeds) };
    models.set(w.id, [{ op: 'chain', bytes: m.bytes, feeds: m.feeds }]);
    // The fused operators: every way onnx_models.mjs writes the workload with them.
    const fused = buildFusedModels(w, inputs);
    for (const f of fused) fs.writeFileSync(path.join(dataDir, 'models', `${w.id}.${f.op}.onnx`), f.bytes);
    if (fused.length) {
      w.fused = fused.map((f) => ({ op: f.op, feeds: feedsByIndex(f.feeds) }));
      fusedModels.set(w.id, fused);
    }
  }
  fs.writeFileSync(path.join(dataDir, 'workloads.json'), JSON.stringify(workloads));

  // Peers.
  const createAttnBench = require(build('bench-web', 'attn_bench.js'));
  const oursNode = await oursWasm(createAttnBench, fs.readFileSync(build('bench-web', 'attn_bench.wasm')));
  const ortNode = require('onnxruntime-node');
  const ortWeb = await import('onnxruntime-web');
  ortWeb.env.wasm.numThreads = 1;
  const ortWebOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const ortNodeOptions = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
  const peers = [
    native,
    { ...oursNode, name: 'ours wasm Node', env: 'node', supports: () => true },
    { ...ortPeer(ortWeb, models, ortWebOptions), name: 'ort-web Node', env: 'node' },
    { ...ortPeer(ortNode, models, ortNodeOptions), name: 'ort-node', env: 'native' },
    { ...ortPeer(ortWeb, fusedModels, ortWebOptions), name: 'ort-web Node fused', env: 'node' },
    { ...ortPeer(ortNode, fusedModels, ortNodeOptions), name: 'ort-node fused', env: 'native' },
  ];
  // The portable build of the same core (x86-64 only: the dispatch's baseline set).
  const portable = nativeOurs('sse2');
  try {
    await portable.ready;
    peers.splice(1, 0, portable);
  } catch (e) {
    log(`no sse2 kernel set here (${e.message}): one native row`);
    portable.stop();
  }
  const numpyInfo = {};
  if (!args.includes('--no-numpy')) {
    for (const blas of ['reference', 'openblas']) {
      const p = numpyPeer(blas);
      numpyInfo[p.name] = await p.info();
      peers.push(p);
    }
  }
  log('launching Chromium');
  const browser = await launchChromium();
  const chrome = await chromiumPeers(browser);
  peers.push(chrome.ours, chrome.ort, chrome.ortFused);

  // Peak probes, each in its own runtime.
  log('peak probes');
  const peak = {
    native: await native.peak(1.0),
    ...(peers.includes(portable) ? { native_sse2: await portable.peak(1.0) } : {}),
    node: oursNode.peak(1.0),
    chromium: await chrome.ours.peak(1.0),
  };
  // The machine's memory bandwidth is the native figure; wasm's own are recorded beside it.
  const bandwidth = peak.native.bandwidth;
  // Read bandwidth over each W3 case's own K and V bytes (2 and 8 MB stay in the
  // cache, 128 MB does not), in every runtime: runtime → bytes → bytes/s.
  const probeBytes = [...new Set(workloads.filter((w) => w.bytes).map((w) => w.bytes))];
  const bandwidthProbes = {};
  const probers = { native, ...(peers.includes(portable) ? { native_sse2: portable } : {}), node: oursNode, chromium: chrome.ours };
  for (const [key, who] of Object.entries(probers)) {
    bandwidthProbes[key] = {};
    for (const b of probeBytes) bandwidthProbes[key][b] = (await who.bandwidth(0.5, b)).bandwidth;
  }

  // The reference is ours natively; every peer is checked against it before it is timed.
  log('checking every peer against ours (max |error| <= 1e-4) and calibrating');
  const checks = [];
  const active = new Map();  // "peer|w" → reps
  const timedOp = new Map();  // "peer|w" → the fused graph timed (its label in onnx_models.mjs)
  for (const w of workloads) {
    const want = await native.output(w);
    for (const p of peers) {
      if (!p.supports(w)) continue;
      const prepared = await p.prepare(w);
      if (p.candidates) {
        // onnxruntime: every graph it created is checked; those it would not create are
        // recorded as failed checks with its error; the fastest that passed is timed.
        for (const f of prepared.failed) {
          checks.push({ workload: w.name, peer: p.name, op: f.op, maxAbsError: null, ok: false, error: f.error });
          log(`  ${p.name} on ${w.name}: ${f.op}: no session (${f.error.split('\n')[0]}): not timed`);
        }
        const passed = [];
        for (const op of await p.candidates(w)) {
          // A session onnxruntime created may still refuse the graph when it runs.
          let err;
          try {
            err = maxAbsError(await p.output(w, op), want);
          } catch (e) {
            const error = String(e && e.message || e);
            checks.push({ workload: w.name, peer: p.name, op, maxAbsError: null, ok: false, error });
            log(`  ${p.name} on ${w.name}: ${op}: failed to run (${error.split('\n')[0]}): not timed`);
            continue;
          }
          checks.push({ workload: w.name, peer: p.name, op, maxAbsError: err, ok: err <= 1e-4 });
          if (err <= 1e-4) passed.push(op);
          else log(`  ${p.name} on ${w.name}: ${op}: max |error| ${err}: not timed`);
        }
        if (!passed.length) continue;
        const op = await p.choose(w, passed);
        if (op !== 'chain') timedOp.set(`${p.name}|${w.id}`, op);
        if (passed.length > 1) log(`  ${p.name} on ${w.name}: ${passed.join(', ')} pass; timing the fastest, ${op}`);
      } else {
        const err = maxAbsError(await p.output(w), want);
        const ok = err <= 1e-4;
        checks.push({ workload: w.name, peer: p.name, maxAbsError: err, ok });
        if (!ok) { log(`  ${p.name} on ${w.name}: max |error| ${err}: not timed`); continue; }
      }
      await p.run(w, 1);  // warm-up (JIT tiers, caches, lazy allocations)
      const t = Math.max(await p.run(w, 1), await p.run(w, 1) * 0 + 1e-7);
      active.set(`${p.name}|${w.id}`, Math.max(1, Math.min(5000, Math.ceil(sampleSeconds / t))));
    }
  }

  log(`${rounds} interleaved rounds`);
  const samples = new Map();  // "peer|w" → [s/run per round]
  for (let r = 0; r < rounds; ++r) {
    for (const w of workloads) {
      for (const p of shuffle(peers, r * 31 + w.id)) {
        const key = `${p.name}|${w.id}`;
        if (!active.has(key)) continue;
        const t = await p.run(w, active.get(key));
        if (!samples.has(key)) samples.set(key, []);
        samples.get(key).push(t);
      }
    }
    log(`  round ${r + 1}/${rounds} done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }

  const training = args.includes('--no-train') ? null : await trainingBench(native, oursNode, chrome.train);
  const chromeCircuits = args.includes('--no-train') ? null : await chrome.circuits();
  const llama = llamaWanted ? await realModels(native, oursNode, chrome, { native: peak.native.bandwidth, node: peak.node.bandwidth, chromium: peak.chromium.bandwidth }) : null;

  await browser.close();
  chrome.stop();
  log('page cost');
  const page = args.includes('--no-page') ? { skipped: true } : await pageCost();
  let learn = null;
  if (!args.includes('--no-train')) {
    log('T3: time to learn, natively and in the page');
    learn = await timeToLearn(native, oursNode, !args.includes('--no-page'));
    log('C1, C2: reading the circuit of the trained L9 model');
    const c = await circuitsBench(native, oursNode, chromeCircuits);
    learn.rows.push(...c.rows);
    learn.targets.push(...c.targets);
  }
  for (const p of peers) if (p.stop) p.stop();

  // --- [SECTION] report ---------------------------------------------------------------
  const oursFor = { native: 'ours native', node: 'ours wasm Node', chromium: 'ours wasm Chromium' };
  const peakFor = Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, v.flops]));
  const rows = [];
  for (const w of workloads) {
    for (const p of peers) {
      const s = samples.get(`${p.name}|${w.id}`);
      if (!s) continue;
      const ours = samples.get(`${oursFor[p.env]}|${w.id}`);
      const ratios = p.name === oursFor[p.env] ? null : s.map((t, i) => ours[i] / t);
      const med = median(s);
      const row = {
        workload: w.name, peer: p.name, env: p.env, samples: s.length, reps_per_sample: active.get(`${p.name}|${w.id}`),
        ...(timedOp.has(`${p.name}|${w.id}`) ? { op: timedOp.get(`${p.name}|${w.id}`) } : {}),
        median_ms: med * 1e3, p25_ms: quantile(s, 0.25) * 1e3, p75_ms: quantile(s, 0.75) * 1e3, min_ms: Math.min(...s) * 1e3,
        max_ms: Math.max(...s) * 1e3,
        ours_over_peer: ratios ? median(ratios) : null,
        ours_over_peer_p25: ratios ? quantile(ratios, 0.25) : null, ours_over_peer_p75: ratios ? quantile(ratios, 0.75) : null,
      };
      if (w.flop && w.kind !== 'w3') {
        row.gflops_done = w.flop_done / med / 1e9;
        row.gflops_dense_equivalent = w.flop / med / 1e9;
        row.fraction_of_peak = w.flop_done / med / peakFor[p.peakKey || p.env];
      }
      if (w.bytes) {
        // Against the native read probe over the same bytes (the machine's rate for
        // that working set); ours in wasm and sse2 also against their own runtime's probe.
        const own = bandwidthProbes[p.peakKey || p.env];
        row.gbytes_per_s = w.bytes / med / 1e9;
        row.bandwidth_probe_bytes = w.bytes;
        row.bandwidth_probe = `native ${peak.native.arch}, read over ${w.bytes} bytes`;
        row.bandwidth_probe_gbytes_per_s = bandwidthProbes.native[w.bytes] / 1e9;
        row.fraction_of_bandwidth = w.bytes / med / bandwidthProbes.native[w.bytes];
        if (own && own !== bandwidthProbes.native) {
          row.runtime_bandwidth_probe_gbytes_per_s = own[w.bytes] / 1e9;
          row.fraction_of_runtime_bandwidth = w.bytes / med / own[w.bytes];
        }
      }
      rows.push(row);
    }
  }

  const find = (wname, peer) => rows.find((r) => r.workload.startsWith(wname) && r.peer === peer);
  const targets = [];
  // Against onnxruntime, the faster of its operator chain and its fused operators in
  // that runtime (the one against which ours gains least), named in the target.
  const speedup = (wname, env, oursName, peerName, goal) => {
    const rs = [find(wname, peerName), find(wname, `${peerName} fused`)].filter(Boolean);
    if (!rs.length) return;
    const r = rs.reduce((a, b) => (b.ours_over_peer > a.ours_over_peer ? b : a));
    const value = 1 / r.ours_over_peer;
    const which = r.op ? `fused, ${r.op}` : 'operator chain';
    const other = rs.find((x) => x !== r);
    targets.push({
      target: `${wname}: ${oursName} ≥ ${goal}× faster than ${peerName} (the faster of chain and fused: ${which})`,
      value: `${value.toFixed(2)}×` + (other ? ` (${other.op ? 'fused' : 'chain'}: ${(1 / other.ours_over_peer).toFixed(2)}×)` : ' (fused: not timed)'),
      met: value >= goal, peer: r.peer, ...(r.op ? { op: r.op } : {}),
    });
  };
  for (const n of [512, 2048]) {
    speedup(`W1 causal n=${n}`, 'node', 'ours wasm Node', 'ort-web Node', 2);
    speedup(`W1 causal n=${n}`, 'chromium', 'ours wasm Chromium', 'ort-web Chromium', 2);
  }
  for (const who of ['ours wasm Node', 'ours wasm Chromium']) {
    const r = find('W1 no mask n=2048', who);
    if (r) targets.push({ target: `W1 no mask n=2048: ${who} ≥ 60 % of wasm simd128 peak`, value: `${(100 * r.fraction_of_peak).toFixed(1)} %`, met: r.fraction_of_peak >= 0.6 });
  }
  speedup('W2', 'node', 'ours wasm Node', 'ort-web Node', 1.5);
  speedup('W2', 'chromium', 'ours wasm Chromium', 'ort-web Chromium', 1.5);
  speedup('W2', 'native', 'ours native', 'ort-node', 1);
  speedup('W1 no mask n=2048', 'native', 'ours native', 'ort-node', 1);
  for (const w of workloads.filter((x) => x.kind === 'w3')) {
    for (const who of ['ours native', 'ours wasm Node', 'ours wasm Chromium']) {
      const r = rows.find((x) => x.workload === w.name && x.peer === who);
      if (r) targets.push({ target: `${w.name}: ${who} ≥ 50 % of the native read bandwidth over the same ${mb(w.bytes)} MB`, value: `${(100 * r.fraction_of_bandwidth).toFixed(1)} %`, met: r.fraction_of_bandwidth >= 0.5 });
    }
  }
  const w4 = find('W4', 'ours wasm Chromium');
  if (w4) targets.push({ target: 'W4: full recompute of the default experiment in Chromium < 2 ms', value: `${w4.median_ms.toFixed(3)} ms`, met: w4.median_ms < 2 });
  if (page.transferBytes !== undefined) {
    targets.push({ target: 'Page: < 800 KB transferred (gzip) in total', value: `${(page.transferBytes / 1024).toFixed(0)} KB`, met: page.transferBytes < 800 * 1024 });
    targets.push({ target: 'Page: first frame < 1.5 s after navigation', value: `${(page.firstFrameMs.median / 1000).toFixed(2)} s`, met: page.firstFrameMs.median < 1500 });
  }

  const result = {
    command: 'bash bench/run.sh ' + args.join(' '),
    date: new Date().toISOString(),
    machine: { cpus: (await import('node:os')).cpus().map((c) => c.model)[0], pinned: process.env.ATTN_BENCH_PINNED || 'not pinned' },
    notes: [
      'gflops_done = FLOP the mask leaves to compute / median time: 4·d per (query, key) entry computed, a causal n×n attention counting its n(n+1)/2 lower-triangle entries with the diagonal (+ 8·n·d_model² for W2\'s projections); the tiled kernel also computes the masked half of each 64×64 diagonal tile, not counted',
      'gflops_dense_equivalent = (4·n²·d per head, + 8·n·d_model² for W2\'s projections) / median time: masked work counted as if done (the same as gflops_done without a mask)',
      'ours_over_peer = median over rounds of (our time / peer time) in the same round; below 1 means ours is faster',
      'ours is compared in the same runtime: native peers against ours native, ort-web Node against ours wasm Node, ort-web Chromium against ours wasm Chromium',
      'fraction_of_peak = gflops_done against the peak probe of that runtime and kernel set (native: the set in use, with FMA where it has one; ours native sse2 against the sse2 probe; wasm: simd128, no FMA)',
      'W3 gbytes_per_s = bytes of cached K and V read per step / median time; fraction_of_bandwidth against the native read probe over the same number of bytes (bandwidth_probe_bytes: the case\'s K and V; 2 and 8 MB stay in the cache, 128 MB is read from memory); ours in wasm and sse2 rows also give fraction_of_runtime_bandwidth, against the probe in their own runtime and kernel set',
      'numpy W2 is the article\'s attention() per head as written there, which computes softmax twice (it also returns the weights)',
      'onnxruntime runs two graphs of each workload: its operator chain (ort-node, ort-web Node, ort-web Chromium) and its fused com.microsoft attention operators (the same names + " fused"; op: the operator timed, the fastest of those that passed the check when several can write the workload); checks list each graph, with onnxruntime\'s error where it would not create the session; targets against onnxruntime use the faster of the two in that runtime',
    ],
    peak, bandwidth, bandwidth_probes: bandwidthProbes, numpy: numpyInfo, checks,
    rows: [...rows, ...(training ? training.rows : []), ...(learn ? learn.rows : []), ...(llama ? llama.rows : [])],
    targets: [...targets, ...(training ? training.targets : []), ...(learn ? learn.targets : []), ...(llama ? llama.targets : [])], page,
    ...(llama ? { llama } : {}),
    training: training && { workloads: training.workloads, peers: training.info, checks: training.checks, notes: trainNotes },
    chromium: { crossOriginIsolated: chrome.isolated, foreignRequests: chrome.foreign },
    seconds: (Date.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(result, null, 2));
  printReport(result);
  console.log(`\nJSON: ${path.relative(process.cwd(), outFile)}  (${result.seconds.toFixed(0)} s)`);
}

const mb = (bytes) => (Number(bytes) / 2 ** 20).toFixed(Number(bytes) < 2 ** 24 ? 1 : 0);

function printReport(r) {
  const g = (x, d = 1) => (x === undefined || x === null ? '' : x.toFixed(d));
  console.log(`\nPeaks (best of ~1 s): native ${r.peak.native.arch} ${g(r.peak.native.flops / 1e9)} GFLOP/s` +
    (r.peak.native_sse2 ? ` (sse2 ${g(r.peak.native_sse2.flops / 1e9)})` : '') + ', ' +
    `wasm simd128 Node ${g(r.peak.node.flops / 1e9)} GFLOP/s, Chromium ${g(r.peak.chromium.flops / 1e9)} GFLOP/s (independent multiply-add chains; FMA natively where the set has it, none in wasm); ` +
    `read bandwidth over 256 MB (memory) native ${g(r.bandwidth / 1e9)} GB/s (wasm Node ${g(r.peak.node.bandwidth / 1e9)}, Chromium ${g(r.peak.chromium.bandwidth / 1e9)})`);
  const bp = r.bandwidth_probes;
  if (bp && Object.keys(bp.native).length)
    console.log('Read bandwidth over each W3 case\'s K and V bytes (the probe of its "% BW"): ' + Object.keys(bp.native).map((b) =>
      `${mb(b)} MB native ${g(bp.native[b] / 1e9)} GB/s` + (bp.native_sse2 ? ` (sse2 ${g(bp.native_sse2[b] / 1e9)}` : ' (') +
      `, wasm Node ${g(bp.node[b] / 1e9)}, Chromium ${g(bp.chromium[b] / 1e9)})`).join('; '));
  for (const [name, info] of Object.entries(r.numpy)) {
    const tp = Array.isArray(info.threadpoolctl) ? info.threadpoolctl.map((t) => `${t.internal_api} ${t.version || ''} ${t.architecture || ''} threads=${t.num_threads}`).join('; ') : '';
    console.log(`${name}: numpy ${info.numpy}, loaded ${info.libraries.filter((l) => /blas/.test(l)).join(', ')}${tp ? ' [' + tp + ']' : ''}`);
  }
  const head = ['workload', 'peer', 'median ms', 'p25–p75 ms', 'GFLOP/s done', '% peak', 'GFLOP/s dense-eq.', 'GB/s', 'BW probe', '% BW', '% own BW', 'ours/peer', '×faster'];
  const lines = [head];
  const shortOp = { MultiHeadAttention: 'MHA', 'MultiHeadAttention-bias': 'MHA+bias', GroupQueryAttention: 'GQA' };
  const pct = (f) => (f === undefined ? '' : g(100 * f));
  for (const x of r.rows.filter((row) => !row.recipe && !row.section && !/^(T3|C1|C2)/.test(row.workload))) {
    lines.push([x.workload, x.op ? `${x.peer} (${shortOp[x.op] || x.op})` : x.peer, g(x.median_ms, 3), `${g(x.p25_ms, 3)}–${g(x.p75_ms, 3)}`, g(x.gflops_done), pct(x.fraction_of_peak), g(x.gflops_dense_equivalent),
      g(x.gbytes_per_s), x.bandwidth_probe_bytes ? `${mb(x.bandwidth_probe_bytes)} MB` : '', pct(x.fraction_of_bandwidth), pct(x.fraction_of_runtime_bandwidth),
      x.ours_over_peer === null ? '—' : g(x.ours_over_peer, 3), x.ours_over_peer === null ? '' : g(1 / x.ours_over_peer, 2)]);
  }
  const widths = head.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  console.log('');
  for (const [i, l] of lines.entries()) {
    console.log(l.map((c, j) => (j < 2 ? String(c).padEnd(widths[j]) : String(c).padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('GFLOP/s done: the work the mask leaves (a causal n×n attention: its n(n+1)/2 lower-triangle entries with the diagonal, 4·d FLOP each; + 8·n·d_model² projections in W2) / median time; % peak is this against the runtime\'s peak probe.');
  console.log('GFLOP/s dense-eq.: 4·n²·d per head (+ projections) / median time, masked work counted as if done (the same without a mask).');
  console.log('GB/s: W3\'s K and V bytes per step / median time. % BW: against the native read probe over the same bytes (BW probe: 2 and 8 MB stay in the cache, 128 MB comes from memory); % own BW: against that probe in the row\'s own runtime (wasm, sse2).');
  console.log(`  ours/peer: median over ${r.rows[0]?.samples} rounds of the per-round time ratio against ours in the same runtime (< 1: ours faster).`);
  const failed = r.checks.filter((c) => !c.ok);
  console.log(`Checks against ours natively: ${r.checks.length - failed.length}/${r.checks.length} within 1e-4` +
    (failed.length ? '; failed: ' + failed.map((c) => `${c.peer}${c.op ? ' ' + c.op : ''} on ${c.workload} (${c.error ? 'no session' : c.maxAbsError})`).join(', ') : ''));
  printFused(r);
  if (r.page.transferBytes !== undefined) {
    console.log(`\nPage cost (playground, build/bench-site, served by serve.py with gzip, ${r.page.loads} cold loads in headless Chromium on every core): ` +
      `${(r.page.transferBytes / 1024).toFixed(0)} KB transferred (${(r.page.encodedBytes / 1024).toFixed(0)} KB bodies, ${(r.page.decodedBytes / 1024).toFixed(0)} KB uncompressed), ` +
      `first frame ${r.page.firstFrameMs.median.toFixed(0)} ms median (${r.page.firstFrameMs.min.toFixed(0)}–${r.page.firstFrameMs.max.toFixed(0)})` +
      (r.page.foreignRequests.length ? `; FOREIGN REQUESTS: ${r.page.foreignRequests.join(', ')}` : ''));
  } else if (r.page.error) console.log('\nPage cost: ' + r.page.error);
  if (r.training) printTraining(r);
  printTimeToLearn(r);
  printCircuits(r);
  printLlama(r);
  console.log('\nTargets:');
  for (const t of r.targets) console.log(`  [${t.met ? 'met' : 'MISSED'}] ${t.target}: ${t.value}`);
}

// Which fused operator each onnxruntime runtime timed per workload, and what it could not run.
function printFused(r) {
  const fused = r.checks.filter((c) => c.op && c.op !== 'chain');
  if (!fused.length) return;
  console.log('Fused attention operators (com.microsoft), per runtime:');
  for (const peer of [...new Set(fused.map((c) => c.peer))]) {
    const parts = [];
    for (const wname of [...new Set(fused.filter((c) => c.peer === peer).map((c) => c.workload))]) {
      const cs = fused.filter((c) => c.peer === peer && c.workload === wname);
      const timed = r.rows.find((x) => x.peer === peer && x.workload === wname)?.op;
      parts.push(`${wname}: ` + cs.map((c) => c.op + (c.op === timed ? ' (timed)' : '') + (c.error ? ` NOT RUN: ${c.error.split('\n')[0].slice(0, 160)}` :
        c.ok ? '' : ` WRONG (max |error| ${c.maxAbsError})`)).join(', '));
    }
    console.log(`  ${peer}: ${parts.join('; ')}`);
  }
}

function printTimeToLearn(r) {
  const learn = r.rows.filter((x) => x.workload.startsWith('T3'));
  if (learn.length) {
    console.log('\nT3, time to learn (the L9 recipe from scratch until held-out accuracy ≥ 0.9 at a kept snapshot):');
    for (const x of learn) {
      console.log(`  ${x.peer}: ${x.median_ms === null ? 'never' : (x.median_ms / 1000).toFixed(2) + ' s'} (step ${x.step})` +
        (x.fps_while_training ? `, drawing ${x.fps_while_training} frames/s (frame median ${x.frame_median_ms} ms, p90 ${x.frame_p90_ms} ms)` : '') +
        (x.runs > 1 ? `, median of ${x.runs} runs (${(x.min_ms / 1000).toFixed(2)}–${(x.max_ms / 1000).toFixed(2)} s)` : ''));
    }
  }
}

function printTraining(r) {
  const g = (x, d = 1) => (x === undefined || x === null ? '' : x.toFixed(d));
  const t = r.training;
  const p = t.peers;
  console.log(`\nTraining steps (forward, backward, AdamW; one thread each): PyTorch ${p.torch?.version} eager float32, ` +
    `tfjs ${p.tfjs?.version} ${p.tfjs?.backend} backend (SIMD ${p.tfjs?.simd}, threads: ${p.tfjs?.threads}` +
    (p.tfjsChromium ? `; in Chromium: SIMD ${p.tfjsChromium.simd}, threads: ${p.tfjsChromium.threads})` : ')'));
  for (const w of t.workloads) console.log(`  ${w.name}: ${w.recipe}`);
  const head = ['workload', 'peer', 'ms/step', 'p25–p75 ms', 'ours ×faster', 'ours wasm Node ×faster', 'ours wasm Chromium ×faster'];
  const lines = [head];
  for (const x of r.rows.filter((row) => row.recipe))
    lines.push([x.workload, x.op ? `${x.peer} (${shortOp[x.op] || x.op})` : x.peer, g(x.median_ms, 3), `${g(x.p25_ms, 3)}–${g(x.p75_ms, 3)}`, x.ratio === null ? '—' : g(x.ratio, 2), g(x.ratio_ours_wasm_node, 2), g(x.ratio_ours_wasm_chromium, 2)]);
  const widths = head.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  console.log('');
  for (const [i, l] of lines.entries()) {
    console.log(l.map((c, j) => (j < 2 ? String(c).padEnd(widths[j]) : String(c).padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('  ours ×faster: median over rounds of peer time / ours in the same runtime (native for PyTorch, wasm in Node or Chromium for tfjs-wasm there).');
  const failed = t.checks.filter((c) => !c.ok);
  console.log(`Loss-curve checks against ours natively (first ${trainCheckSteps} steps, relative ≤ ${trainTolerance}): ${t.checks.length - failed.length}/${t.checks.length}; ` +
    t.checks.map((c) => `${c.peer} ${c.workload} ${c.lossMaxRel.toExponential(1)}`).join(', '));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });  // exit: the threaded module's workers keep Node alive
