// The peers that run inside a JS engine, with one interface for Node and the
// page (bench/web/page.mjs):
//   prepare(w) · run(w, reps) → seconds per run · output(w) → Float32Array
// `ours` wraps the core's wasm build (bench/src/workloads.hpp, also its training
// steps), `ortPeer` an
// onnxruntime session (onnxruntime-web or onnxruntime-node) on the graphs of
// onnx_models.mjs.
const now = () => performance.now() / 1000;

export async function oursWasm(createAttnBench, wasmBinary) {
  const m = await createAttnBench({ wasmBinary, print: () => {}, printErr: () => {} });
  const api = {
    describe: () => JSON.parse(m.UTF8ToString(m._bench_describe())),
    arch: () => m.UTF8ToString(m._bench_arch()),
  };
  return {
    name: 'ours',
    describe: api.describe,
    arch: api.arch,
    prepare(w) { m._bench_prepare(w.id); },
    run(w, reps) { return m._bench_run(w.id, reps); },
    output(w) {
      const p = m._bench_output(w.id) >> 2, count = m._bench_output_size(w.id);
      return m.HEAPF32.slice(p, p + count);
    },
    input(w, i) {
      const p = m._bench_input(w.id, i) >> 2, count = m._bench_input_size(w.id, i);
      return m.HEAPF32.slice(p, p + count);
    },
    // Training workloads (T1, T2): steps of the core's trainer; seconds per step.
    trainRun(id, reps) { return m._bench_train_run(id, reps); },
    trainLosses(id, n) { return Array.from({ length: n }, (_, s) => m._bench_train_loss(id, s)); },
    peak(seconds) {
      m._bench_peak_flops(0.3);  // warm-up: lets the engine tier the probe's kernels up first
      return { arch: api.arch(), flops: m._bench_peak_flops(seconds), bandwidth: m._bench_peak_bandwidth(seconds) };
    },
    // Read bandwidth (bytes/s) over a buffer of `bytes` (a W3 case's K and V).
    bandwidth(seconds, bytes) { return { arch: api.arch(), bytes, bandwidth: m._bench_read_bandwidth(seconds, bytes) }; },
  };
}

// ort: the onnxruntime module; models: id → { bytes, feeds }; options: session options.
export function ortPeer(ort, models, options) {
  const sessions = new Map();
  return {
    name: 'ort',
    supports: (w) => models.has(w.id),
    async prepare(w) {
      if (sessions.has(w.id)) return;
      const m = models.get(w.id);
      const session = await ort.InferenceSession.create(m.bytes, options);
      const feeds = {};
      for (const [name, data, shape] of m.feeds) feeds[name] = new ort.Tensor('float32', data, shape);
      sessions.set(w.id, { session, feeds });
    },
    async run(w, reps) {
      const { session, feeds } = sessions.get(w.id);
      const t0 = now();
      for (let r = 0; r < reps; ++r) await session.run(feeds);
      return (now() - t0) / reps;
    },
    async output(w) {
      const { session, feeds } = sessions.get(w.id);
      const result = await session.run(feeds);
      return Float32Array.from(result.out.data);
    },
  };
}
