// The peers that run inside a JS engine, with one interface for Node and the
// page (bench/web/page.mjs):
//   prepare(w) · run(w, reps) → seconds per run · output(w) → Float32Array
// `ours` wraps the core's wasm build (bench/src/workloads.hpp, also its training
// steps and the real models' rows), `ortPeer` an
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
    trainRun(id, reps, threads = 1) { return m._bench_train_run(id, reps, threads); },
    trainLosses(id, n) { return Array.from({ length: n }, (_, s) => m._bench_train_loss(id, s)); },
    // T3 without drawing: the L9 recipe from scratch to held-out accuracy 0.9.
    learn() {
      const p = m._malloc(4);
      const seconds = m._bench_train_learn(p);
      const step = m.HEAP32[p >> 2];
      m._free(p);
      return { seconds, step };
    },
    // C1, C2: the circuit of the trained L9 model (seconds; bench_circuits).
    circuits() {
      const p = m._malloc(32);
      m._bench_circuits(p, 20);
      const [read, timeline, timeline32, first] = m.HEAPF64.slice(p >> 3, (p >> 3) + 4);
      m._free(p);
      return { read, timeline, timeline32, first };
    },
    // Real models (R1, R2; workloads.hpp's bench_llama_*): the checkpoint's and the
    // tokenizer's bytes copied into the heap, read by the core, then released.
    llamaLoad(model, tokenizer, forwardTokens) {
      const pm = m._malloc(model.length), pt = m._malloc(tokenizer.length);
      if (!pm || !pt) { m._free(pm); m._free(pt); return { error: 'the wasm heap has no room for the files' }; }
      m.HEAPU8.set(model, pm);
      m.HEAPU8.set(tokenizer, pt);
      const r = JSON.parse(m.UTF8ToString(m._bench_llama_load(pm, model.length, pt, tokenizer.length, forwardTokens)));
      m._free(pm);
      m._free(pt);
      return r;
    },
    // R4-R6: a Hugging Face folder's files ([name, bytes] pairs) copied into the heap and
    // handed over (bench_hf_add: the core keeps the safetensors files as the weights), then read.
    hfLoad(files, forwardTokens) {
      for (const [name, bytes] of files) {
        const text = new TextEncoder().encode(name);
        const pn = m._malloc(text.length + 1), pb = m._malloc(Math.max(bytes.length, 1));
        if (!pn || !pb) { m._free(pn); m._free(pb); return { error: 'the wasm heap has no room for the files' }; }
        m.HEAPU8.set(text, pn);
        m.HEAPU8[pn + text.length] = 0;
        m.HEAPU8.set(bytes, pb);
        m._bench_hf_add(pn, pb, bytes.length);  // pb is the core's from here
        m._free(pn);
      }
      return JSON.parse(m.UTF8ToString(m._bench_hf_load(forwardTokens)));
    },
    llamaForward(lean, reps) { return m._bench_llama_forward(lean ? 1 : 0, reps); },
    llamaLogits() {
      const p = m._bench_llama_logits() >> 2;
      return m.HEAPF32.slice(p, p + m._bench_llama_logits_size());
    },
    llamaGenerate(steps, threads = 1) {
      const seconds = m._bench_llama_generate(steps, threads);
      const p = m._bench_llama_generated() >> 2;
      return { seconds, prompt_seconds: m._bench_llama_prompt_seconds(), ids: Array.from(m.HEAP32.slice(p, p + m._bench_llama_generated_count())) };
    },
    llamaCacheBytes(steps) { return m._bench_llama_cache_bytes(steps); },
    llamaProfile(reps) { return JSON.parse(m.UTF8ToString(m._bench_llama_profile(reps))); },
    peak(seconds) {
      m._bench_peak_flops(0.3);  // warm-up: lets the engine tier the probe's kernels up first
      return { arch: api.arch(), flops: m._bench_peak_flops(seconds), bandwidth: m._bench_peak_bandwidth(seconds) };
    },
    // Read bandwidth (bytes/s) over a buffer of `bytes` (a W3 case's K and V).
    bandwidth(seconds, bytes) { return { arch: api.arch(), bytes, bandwidth: m._bench_read_bandwidth(seconds, bytes) }; },
  };
}

// ort: the onnxruntime module; models: id → the graphs that may run the workload,
// [{ op, bytes, feeds }] (the operator chain: one; the fused operators: one per way
// of writing it, see onnx_models.mjs); options: session options. prepare creates a
// session for each and reports those onnxruntime would not create; run.mjs checks
// each one's output, then `choose` keeps the fastest of those that passed (timed
// briefly here), which run and output use from then on.
export function ortPeer(ort, models, options) {
  const sessions = new Map();  // id → { op → { session, feeds } }
  const chosen = new Map();    // id → op
  const get = (w, op) => sessions.get(w.id)[op ?? chosen.get(w.id) ?? Object.keys(sessions.get(w.id))[0]];
  return {
    name: 'ort',
    supports: (w) => models.has(w.id),
    async prepare(w) {
      if (sessions.has(w.id)) return { failed: [] };
      const failed = [], made = {};
      for (const m of models.get(w.id)) {
        try {
          const session = await ort.InferenceSession.create(m.bytes, options);
          const feeds = {};
          for (const [name, data, shape] of m.feeds) feeds[name] = new ort.Tensor('float32', data, shape);
          made[m.op] = { session, feeds };
        } catch (e) {
          failed.push({ op: m.op, error: String(e && e.message || e) });
        }
      }
      sessions.set(w.id, made);
      return { failed };
    },
    candidates: (w) => Object.keys(sessions.get(w.id)),
    // The fastest of `ops` (best of a few runs after a warm-up); one alone is kept as it is.
    async choose(w, ops) {
      let best = null;
      for (const op of ops) {
        if (ops.length === 1) { best = { op }; break; }
        const { session, feeds } = get(w, op);
        await session.run(feeds);
        let fastest = Infinity;
        for (let r = 0, spent = 0; r < 3 || (r < 20 && spent < 0.1); ++r) {
          const t0 = now();
          await session.run(feeds);
          const t = now() - t0;
          spent += t;
          fastest = Math.min(fastest, t);
        }
        if (!best || fastest < best.t) best = { op, t: fastest };
      }
      chosen.set(w.id, best.op);
      return best.op;
    },
    async run(w, reps) {
      const { session, feeds } = get(w);
      const t0 = now();
      for (let r = 0; r < reps; ++r) await session.run(feeds);
      return (now() - t0) / reps;
    },
    async output(w, op) {
      const { session, feeds } = get(w, op);
      const result = await session.run(feeds);
      return Float32Array.from(result.out.data);
    },
  };
}
