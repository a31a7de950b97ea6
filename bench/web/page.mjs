// The benchmark inside Chromium: the core's wasm build and onnxruntime-web (wasm,
// SIMD, one thread), behind window.bench for bench/run.mjs. Everything comes from
// the local server: /ours (build/bench-web), /ort (onnxruntime-web's dist/),
// /data (inputs and models written by run.mjs), /lib (bench/lib).
import * as ort from '/ort/ort.wasm.min.mjs';
import { oursWasm, ortPeer } from '/lib/peers.mjs';

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
  const workloads = await (await fetch('/data/workloads.json')).json();
  const models = new Map();
  for (const w of workloads) {
    if (!w.model) continue;
    const feeds = [];
    for (const [name, index, shape] of w.model.feeds)
      feeds.push([name, new Float32Array((await bytes(`/data/${w.id}.${index}.f32`)).buffer), shape]);
    models.set(w.id, { bytes: await bytes(`/data/models/${w.id}.onnx`), feeds });
  }
  const peers = {
    ours,
    ort: ortPeer(ort, models, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }),
  };
  const byId = new Map(workloads.map((w) => [w.id, w]));
  window.bench = {
    arch: () => ours.arch(),
    crossOriginIsolated: () => window.crossOriginIsolated,
    prepare: async (peer, id) => { await peers[peer].prepare(byId.get(id)); },
    run: async (peer, id, reps) => peers[peer].run(byId.get(id), reps),
    output: async (peer, id) => Array.from(await peers[peer].output(byId.get(id))),
    peak: (seconds) => ours.peak(seconds),
    trainRun: (id, reps) => ours.trainRun(id, reps),
    trainLosses: (id, n) => ours.trainLosses(id, n),
  };
}

init().then(() => { window.benchReady = true; }, (e) => { window.benchError = String(e && e.stack || e); });
