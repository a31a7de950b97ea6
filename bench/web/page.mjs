// The benchmark inside Chromium: the core's wasm build and onnxruntime-web (wasm,
// SIMD, one thread; on the operator chain and on its fused attention operators), and for training TensorFlow.js (wasm, SIMD, one thread),
// behind window.bench for bench/run.mjs. Everything comes from the local server:
// /ours (build/bench-web), /ort (onnxruntime-web's dist/), /tfjs and /tfjs-wasm
// (the tfjs packages' dist/), /data (inputs, models, training dumps and the real
// models' files written by run.mjs), /lib (bench/lib).
import * as ort from '/ort/ort.wasm.min.mjs';
import { oursWasm, ortPeer } from '/lib/peers.mjs';
import { tfjsTrainer } from '/lib/tfjs_train.mjs';

// TensorFlow.js (/tfjs: the union package's UMD bundle, /tfjs-wasm: its wasm
// backend and .wasm files), loaded only when the training peers start: wasm
// backend, SIMD, the build without threads, one thread.
let tfReady = null;
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error('could not load ' + src));
    document.head.appendChild(s);
  });
}
async function tfjsWasm() {
  await loadScript('/tfjs/tf.min.js');
  await loadScript('/tfjs-wasm/tf-backend-wasm.min.js');
  const tf = window.tf;
  tf.wasm.setWasmPaths('/tfjs-wasm/');
  tf.wasm.setThreadsCount(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not start');
  await tf.ready();
  return tf;
}

async function bytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
  return new Uint8Array(await r.arrayBuffer());
}

async function init() {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.proxy = false;
  const ours = await oursWasm(window.createAttnBench, await bytes('/ours/attn_bench.wasm'));
  // The threaded build (build/bench-web-threads; this page is cross-origin isolated), when built.
  const oursMt = window.createAttnBenchMt ? await oursWasm(window.createAttnBenchMt, await bytes('/ours-mt/attn_bench.wasm')) : null;
  const workloads = await (await fetch('/data/workloads.json')).json();
  // The operator chain (w.model, /data/models/<id>.onnx) and the fused operators
  // (w.fused: one graph per way of writing it, /data/models/<id>.<op>.onnx), on the
  // inputs run.mjs dumped (each loaded once).
  const models = new Map(), fusedModels = new Map();
  for (const w of workloads) {
    const inputs = new Map();
    const input = async (index) => {
      if (!inputs.has(index)) inputs.set(index, new Float32Array((await bytes(`/data/${w.id}.${index}.f32`)).buffer));
      return inputs.get(index);
    };
    const load = async (m, file) => {
      const feeds = [];
      for (const [name, index, shape] of m.feeds) feeds.push([name, await input(index), shape]);
      return { op: m.op, bytes: await bytes(`/data/models/${file}`), feeds };
    };
    if (w.model) models.set(w.id, [await load({ op: 'chain', feeds: w.model.feeds }, `${w.id}.onnx`)]);
    if (w.fused) fusedModels.set(w.id, await Promise.all(w.fused.map((m) => load(m, `${w.id}.${m.op}.onnx`))));
  }
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const peers = {
    ours,
    ort: ortPeer(ort, models, options),
    ortFused: ortPeer(ort, fusedModels, options),
  };
  const byId = new Map(workloads.map((w) => [w.id, w]));
  const trainers = new Map();
  window.bench = {
    arch: () => ours.arch(),
    crossOriginIsolated: () => window.crossOriginIsolated,
    prepare: async (peer, id) => peers[peer].prepare(byId.get(id)),
    candidates: (peer, id) => peers[peer].candidates(byId.get(id)),
    choose: (peer, id, ops) => peers[peer].choose(byId.get(id), ops),
    run: async (peer, id, reps) => peers[peer].run(byId.get(id), reps),
    output: async (peer, id, op) => Array.from(await peers[peer].output(byId.get(id), op)),
    peak: (seconds) => ours.peak(seconds),
    bandwidth: (seconds, bytes) => ours.bandwidth(seconds, bytes),
    circuits: () => ours.circuits(),
    // Real models (R1, R2): the files run.mjs wrote under /data/llama/, fetched and read by the core.
    llamaLoad: async (model, tokenizer, forwardTokens) =>
      ours.llamaLoad(await bytes(`/data/llama/${model}`), await bytes(`/data/llama/${tokenizer}`), forwardTokens),
    // R4, R5: a Hugging Face folder run.mjs wrote under /data/hf/<name>/, each file fetched.
    hfLoad: async (dir, names, forwardTokens) =>
      ours.hfLoad(await Promise.all(names.map(async (n) => [n, await bytes(`/data/${dir}/${n}`)])), forwardTokens),
    hfLoadMt: async (dir, names, forwardTokens) =>
      oursMt.hfLoad(await Promise.all(names.map(async (n) => [n, await bytes(`/data/${dir}/${n}`)])), forwardTokens),
    llamaForward: (lean, reps) => ours.llamaForward(lean, reps),
    llamaLogits: () => Array.from(ours.llamaLogits()),
    llamaGenerate: (steps) => ours.llamaGenerate(steps),
    llamaCacheBytes: (steps) => ours.llamaCacheBytes(steps),
    trainRun: (id, reps, threads = 1) => ours.trainRun(id, reps, threads),
    trainLosses: (id, n) => ours.trainLosses(id, n),
    // The threaded build: null when it was not built.
    threaded: () => Boolean(oursMt),
    trainRunMt: (id, reps, threads) => oursMt.trainRun(id, reps, threads),
    trainLossesMt: (id, n) => oursMt.trainLosses(id, n),
    llamaLoadMt: async (model, tokenizer, forwardTokens) =>
      oursMt.llamaLoad(await bytes(`/data/llama/${model}`), await bytes(`/data/llama/${tokenizer}`), forwardTokens),
    llamaForwardMt: (lean, reps) => oursMt.llamaForward(lean, reps),
    llamaLogitsMt: () => Array.from(oursMt.llamaLogits()),
    llamaGenerateMt: (steps, threads) => oursMt.llamaGenerate(steps, threads),
    // tfjs on the dump run.mjs wrote (/data/<name>.train.json): its losses on the dump's steps, then timed steps.
    tfjsPrepare: async (id, name) => {
      const tf = await (tfReady ||= tfjsWasm());
      const dump = await (await fetch(`/data/${name}.train.json`)).json();
      const t = tfjsTrainer(tf, dump);
      t.losses = dump.lrs.map((lr, i) => t.step(i, lr));
      t.at = dump.lrs.length;
      t.lr = dump.lrs[dump.lrs.length - 1];
      trainers.set(id, t);
      return { losses: t.losses, version: tf.version.tfjs, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
        threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') };
    },
    tfjsRun: (id, reps) => {
      const t = trainers.get(id);
      const t0 = performance.now();
      for (let r = 0; r < reps; ++r) t.step(t.at++, t.lr);
      return (performance.now() - t0) / 1000 / reps;
    },
  };
}

init().then(() => { window.benchReady = true; }, (e) => { window.benchError = String(e && e.stack || e); });
