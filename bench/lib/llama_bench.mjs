// Real models (llama2.c shapes; issue 33's targets), for bench/run.mjs, on checkpoints
// with random weights the benchmark writes itself (tests/llama_files.py, under
// build/bench/data/llama/; nothing is downloaded):
//   R1  the traced forward (llama_forward) over 256 tokens, lean (no head keeps its
//       n×n matrices) and the full trace: ours natively, in wasm under Node and in
//       Chromium, against PyTorch eager on one thread (bench/llama_torch_peer.py)
//       running the same weights read from the same file
//   R2  greedy generation through the KV cache, 128 tokens after "Once upon a time":
//       tokens per second in each runtime and PyTorch's per-token KV-cache decode;
//       natively also against the memory-bandwidth bound (the weight bytes a step
//       reads / the native read probe over 256 MB)
//   R3  the peak resident memory of opening the file natively (attn eval --model,
//       and the read and llama_checkpoint_read alone: bench/src/llama_memory.cpp)
// Hugging Face folders (issue 52) with random weights written by tests/hf_files.py
// --shape under build/bench/data/hf/<name>/ (GPT-2 small in F32 and F16, SmolLM2-135M
// in BF16; --hf-shapes gpt2-small,smollm2-135m), the same way:
//   R4  the traced forward over 256 tokens with the page's trace (lean)
//   R5  generation through the KV cache, natively also against the bandwidth bound of
//       the bytes a step reads (its weights in their own type + the cached K and V)
//   R6  the peak resident memory of opening the folder natively, its files handed
//       over (attn_llama_memory --hf), against the folder's size
// Every peer is checked first: R1's last row of logits against ours natively
// (max |error| / max |ours| ≤ 1e-4), R2's tokens equal to ours natively.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); const at = (s.length - 1) * q; const lo = Math.floor(at); return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo); };

export const llamaTolerance = 1e-4;
export const llamaForwardTokens = 256;
export const llamaSteps = 128;
// R5 generates fewer: a step of these folders reads 250-500 MB (4-8× stories15M's), and its
// cost hardly changes with the position (the cached K and V are ≤ 1 % of the bytes).
export const hfSteps = 32;
const memoryProbeBytes = 256 * 2 ** 20;

// max |a − b| / max |b| (b: ours natively).
function relativeError(a, b) {
  if (a.length !== b.length) return Infinity;
  let e = 0, scale = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    e = Number.isNaN(d) ? Infinity : Math.max(e, d);
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return e / Math.max(scale, 1e-30);
}

function readF32(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice();
}

// The shape's checkpoint and tokenizer.bin under dir, written when missing
// (stories110M's is ~440 MB: only when asked for).
export function llamaFiles(root, dir, shape, log) {
  const model = path.join(dir, `${shape}.bin`), tokenizer = path.join(dir, 'tokenizer.bin');
  if (!fs.existsSync(model) || !fs.existsSync(tokenizer)) {
    log(`writing ${path.relative(root, model)} (random weights, tests/llama_files.py --shape ${shape})`);
    const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'llama_files.py'), dir, '--shape', shape], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`tests/llama_files.py --shape ${shape} failed`);
  }
  return { model, tokenizer, bytes: fs.statSync(model).size };
}

// The Hugging Face folders of --hf-shapes: gpt2-small in F32 and F16, smollm2-135m in BF16.
export const hfShapeFolders = {
  'gpt2-small': [{ shape: 'gpt2-small', dtype: 'F32' }, { shape: 'gpt2-small', dtype: 'F16' }],
  'smollm2-135m': [{ shape: 'smollm2-135m', dtype: 'BF16' }],
};

// A folder under dir/hf/, written when missing (tests/hf_files.py --shape; no download):
// { kind: 'hf', name, dir, rel (from dataDir, for the page), names (its files), bytes (their sum) }.
export function hfFiles(root, dataDir, { shape, dtype }, log) {
  const name = `${shape}-${dtype}`, dir = path.join(dataDir, 'hf', name);
  if (!fs.existsSync(path.join(dir, 'config.json')) || !fs.existsSync(path.join(dir, 'tokenizer.json'))) {
    log(`writing ${path.relative(root, dir)} (random weights, tests/hf_files.py --shape ${shape} --dtype ${dtype})`);
    const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'hf_files.py'), dir, '--shape', shape, '--dtype', dtype], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`tests/hf_files.py --shape ${shape} failed`);
  }
  fs.mkdirSync(path.join(dataDir, 'llama'), { recursive: true });  // the logits files
  const names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') || n.endsWith('.safetensors')).sort();
  return { kind: 'hf', name, dir, model: dir, rel: path.join('hf', name), names, bytes: names.reduce((a, n) => a + fs.statSync(path.join(dir, n)).size, 0) };
}

// R6: attn_llama_memory --hf DIR (the files handed over; --copy: borrowed and copied, as
// hf_folder_read does) and attn eval --model DIR as a child.
function hfMemoryRows(build, files) {
  const tool = build('bench-native', 'attn_llama_memory');
  const attn = build('bench-native', 'attn', 'attn');
  if (!fs.existsSync(tool)) return { error: `no ${tool}` };
  const run = (argv) => {
    const r = spawnSync(tool, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`attn_llama_memory ${argv.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout.trim());
  };
  const out = { file_bytes: files.bytes, handed_over: run(['--hf', files.dir]), copied: run(['--hf', files.dir, '--copy']) };
  if (fs.existsSync(attn)) {
    const argv = ['--exec', attn, 'eval', 'v=1&text=Once%20upon%20a%20time', '--model', files.dir];
    out.attn_eval = run(argv);
    out.attn_eval.command = argv.slice(1).map((a) => (/[&%]/.test(a) ? `'${a}'` : a)).join(' ');
  }
  return out;
}

// R3: attn_llama_memory (bench/src/llama_memory.cpp) in process, the model adopting
// the file's bytes as attn eval does and copying them, and attn eval --model itself.
function memoryRows(build, files, log) {
  const tool = build('bench-native', 'attn_llama_memory');
  const attn = build('bench-native', 'attn', 'attn');  // the root project's CLI, built in its subfolder
  if (!fs.existsSync(tool)) return { error: `no ${tool}` };
  const run = (argv) => {
    const r = spawnSync(tool, argv, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`attn_llama_memory ${argv.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout.trim());
  };
  const out = { file_bytes: files.bytes, adopted: run([files.model]), copied: run([files.model, '--copy']) };
  if (fs.existsSync(attn)) {
    const argv = ['--exec', attn, 'eval', 'v=1&text=Once%20upon%20a%20time', '--model', files.model, '--tokenizer', files.tokenizer];
    out.attn_eval = run(argv);
    out.attn_eval.command = argv.slice(1).map((a) => (/[&%]/.test(a) ? `'${a}'` : a)).join(' ');
    // The same without a model: what the process holds before any file.
    out.attn_eval_baseline = run(['--exec', attn, 'eval', 'v=1&text=Once%20upon%20a%20time']);
  } else log(`no ${attn}: R3 without attn eval`);
  return out;
}

// The peers of R1 and R2 for one shape: { name, env, load(), forward(lean, reps),
// logits(), generate(steps) → {seconds, ids}, cacheBytes(steps) }.
// A 2-thread row generates this many tokens untimed once moved to two cores: its
// threads have slept since its last round (see onCoresRun in bench/run.mjs).
const warmTokens = 32;

function peersFor({ native, oursNode, oursNodeMt, chrome, torch, files, dataDir, twoCores = (pid, f, warm) => (warm ? warm().then(f) : f()) }) {
  const peers = [];
  const rel = files.kind === 'hf' ? files.rel : path.relative(path.join(dataDir, 'llama'), files.model);
  const hf = files.kind === 'hf';
  const hfBytes = () => files.names.map((n) => [n, fs.readFileSync(path.join(files.dir, n))]);
  peers.push({
    name: 'ours native', env: 'native',
    load: async () => JSON.parse(await native.proc.ask(hf ? `hf_load ${files.dir} ${llamaForwardTokens}` : `llama_load ${files.model} ${files.tokenizer} ${llamaForwardTokens}`)),
    forward: async (lean, reps) => Number(await native.proc.ask(`llama_forward ${lean ? 1 : 0} ${reps}`)),
    logits: async () => {
      const f = path.join(dataDir, 'llama', 'logits.native.f32');
      await native.proc.ask(`llama_logits ${f}`);
      return readF32(f);
    },
    generate: async (steps) => JSON.parse(await native.proc.ask(`llama_generate ${steps}`)),
    cacheBytes: async (steps) => Number(await native.proc.ask(`llama_cache_bytes ${steps}`)),
    profile: async (reps) => JSON.parse(await native.proc.ask(`llama_profile ${reps}`)),
  });
  peers.push({  // the same loaded model, generating on the 2 cores here
    name: 'ours native 2t', env: 'native', genOnly: true,
    load: async () => ({}),
    generate: (steps) => twoCores(native.proc.pid, async () => JSON.parse(await native.proc.ask(`llama_generate ${steps} 2`)),
      async () => native.proc.ask(`llama_generate ${warmTokens} 2`)),
  });
  peers.push({
    name: 'ours wasm Node', env: 'node',
    load: async () => (hf ? oursNode.hfLoad(hfBytes(), llamaForwardTokens) : oursNode.llamaLoad(fs.readFileSync(files.model), fs.readFileSync(files.tokenizer), llamaForwardTokens)),
    forward: async (lean, reps) => oursNode.llamaForward(lean, reps),
    logits: async () => oursNode.llamaLogits(),
    generate: async (steps) => oursNode.llamaGenerate(steps),
    profile: async (reps) => oursNode.llamaProfile(reps),
  });
  if (oursNodeMt) {  // the threaded build (build/bench-web-threads) on this machine's 2 cores
    peers.push({
      name: 'ours wasm Node 2t', env: 'node',
      load: async () => (hf ? oursNodeMt.hfLoad(hfBytes(), llamaForwardTokens) : oursNodeMt.llamaLoad(fs.readFileSync(files.model), fs.readFileSync(files.tokenizer), llamaForwardTokens)),
      forward: async (lean, reps) => oursNodeMt.llamaForward(lean, reps),
      logits: async () => oursNodeMt.llamaLogits(),
      generate: (steps) => twoCores(process.pid, async () => oursNodeMt.llamaGenerate(steps, 2), async () => oursNodeMt.llamaGenerate(warmTokens, 2)),
    });
  }
  if (chrome && chrome.mt) {  // the threaded build in the page, on 2 threads
    peers.push({
      name: 'ours wasm Chromium 2t', env: 'chromium',
      load: () => (hf ? chrome.mt.hfLoad(rel, files.names, llamaForwardTokens) : chrome.mt.llamaLoad(rel, 'tokenizer.bin', llamaForwardTokens)),
      forward: (lean, reps) => chrome.mt.llamaForward(lean, reps),
      logits: async () => Float32Array.from(await chrome.mt.llamaLogits()),
      generate: (steps) => twoCores(chrome.pid, () => chrome.mt.llamaGenerate(steps), () => chrome.mt.llamaGenerate(warmTokens)),
    });
  }
  if (chrome) {
    peers.push({
      name: 'ours wasm Chromium', env: 'chromium',
      load: () => (hf ? chrome.hfLoad(rel, files.names, llamaForwardTokens) : chrome.llamaLoad(rel, 'tokenizer.bin', llamaForwardTokens)),
      forward: (lean, reps) => chrome.llamaForward(lean, reps),
      logits: async () => Float32Array.from(await chrome.llamaLogits()),
      generate: (steps) => chrome.llamaGenerate(steps),
    });
  }
  if (torch) {
    peers.push({
      name: 'PyTorch eager 1t', env: 'native', torch: true,
      load: async () => JSON.parse(await torch.ask(`${hf ? 'load_hf' : 'load'} ${files.model}`)),
      setIds: async (ids) => { if ((await torch.ask(`ids ${ids.join(',')}`)) !== 'ok') throw new Error('PyTorch peer: ids'); },
      forward: async () => Number(await torch.ask('forward 1')),
      logits: async () => {
        const f = path.join(dataDir, 'llama', 'logits.torch.f32');
        await torch.ask(`logits ${f}`);
        return readF32(f);
      },
      generate: async (steps, prompt) => {
        const r = JSON.parse(await torch.ask(`generate ${prompt.join(',')} ${steps}`));
        return { seconds: r.seconds_per_token, prompt_seconds: r.prompt_seconds, ids: r.ids };
      },
    });
  }
  return peers;
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

// One shape's R1 and R2 (rows of `want`ed workloads), then R3.
async function benchShape({ shape, files, hfRounds, native, oursNode, oursNodeMt, chrome, twoCores = (pid, f, warm) => (warm ? warm().then(f) : f()), torchProcess, rounds, explicitRounds, dataDir, build, root, log, want, bandwidth }) {
  const hf = files.kind === 'hf';
  // A Hugging Face folder's rows: R4 (the page's lean trace only), R5, R6.
  const names = hf ? {
    lean: `R4 forward ${llamaForwardTokens} tokens ${shape}, lean trace`, full: null,
    gen: `R5 generate ${hfSteps} tokens ${shape} (greedy, KV cache)`,
    mem: `R6 open ${shape} natively: peak RSS`,
  } : {
    lean: `R1 forward ${llamaForwardTokens} tokens ${shape}, lean trace`,
    full: `R1 forward ${llamaForwardTokens} tokens ${shape}, full trace`,
    gen: `R2 generate ${llamaSteps} tokens ${shape} (greedy, KV cache)`,
    mem: `R3 open ${shape} natively: peak RSS`,
  };
  const kinds = hf ? [true] : [true, false];  // lean, (full)
  const steps = hf ? hfSteps : llamaSteps;
  const rows = [], targets = [], checks = [];
  const info = { shape, file_bytes: files.bytes, model: path.relative(root, files.model) };
  const doForward = want(names.lean) || (names.full && want(names.full)), doGen = want(names.gen);
  if (doForward || doGen) {
    const torch = torchProcess ? torchProcess() : null;
    const peers = peersFor({ native, oursNode, oursNodeMt, chrome, twoCores, torch, files, dataDir });
    const nat = peers[0];
    const loaded = await nat.load();
    if (loaded.error) throw new Error(`${files.model}: ${loaded.error}`);
    info.config = loaded;
    info.forward_ids = loaded.forward_ids.length;
    info.prompt_ids = loaded.prompt_ids;
    const active = [];
    for (const p of peers) {
      log(`  ${shape}: loading into ${p.name}`);
      const r = p === nat ? loaded : await p.load();
      if (r.error) { checks.push({ workload: shape, peer: p.name, ok: false, error: r.error }); log(`  ${p.name}: ${r.error}: not timed`); continue; }
      if (p.torch) { info.torch = { version: r.torch, threads: r.threads, blas: r.blas }; await p.setIds(loaded.forward_ids); }
      active.push(p);
    }
    // Checks: R1's last row of logits (lean and full, ours; PyTorch's one pass) and R2's tokens.
    const ok = new Set();
    let want1 = null, wantIds = null;
    for (const p of active) {
      if (doForward && !p.genOnly) {
        for (const lean of p.torch ? [true] : kinds) {
          await p.forward(lean, 1);
          const got = await p.logits();
          if (!want1) want1 = got;
          const err = relativeError(got, want1);
          const pass = err <= llamaTolerance;
          checks.push({ workload: lean || p.torch ? names.lean : names.full, peer: p.name, relError: err, ok: pass });
          if (pass) ok.add(`${p.name}|${p.torch ? 'forward' : lean ? 'lean' : 'full'}`);
          else log(`  ${p.name} on ${shape} (${lean ? 'lean' : 'full'}): last row of logits off by ${err} relative: not timed`);
        }
      }
      if (doGen) {
        const g = await p.generate(steps, loaded.prompt_ids);
        if (!wantIds) wantIds = g.ids;
        const same = g.ids.length === wantIds.length && g.ids.every((t, i) => t === wantIds[i]);
        let agree = 0;
        while (agree < Math.min(g.ids.length, wantIds.length) && g.ids[agree] === wantIds[agree]) ++agree;
        checks.push({ workload: names.gen, peer: p.name, tokensAgreeing: agree, of: wantIds.length, ok: same });
        if (same) ok.add(`${p.name}|gen`);
        else log(`  ${p.name} on ${shape}: generated tokens differ from ours natively after ${agree} of ${wantIds.length}: not timed`);
      }
    }
    info.generated = wantIds;
    // Interleaved rounds: every peer's forward (lean, then full; PyTorch's pass once)
    // and generation, in a shuffled order per round.
    const samples = new Map();  // `${peer}|${kind}` → seconds (generation: per token)
    const add = (k, v) => { if (!samples.has(k)) samples.set(k, []); samples.get(k).push(v); };
    // A 110M-shaped round takes ~40 s: five unless --llama-rounds says otherwise.
    if (hf && hfRounds) rounds = hfRounds;
    else if (!explicitRounds && files.bytes > 200 * 2 ** 20) rounds = Math.min(rounds, hf ? 3 : 5);
    log(`  ${shape}: ${rounds} interleaved rounds`);
    for (let r = 0; r < rounds; ++r) {
      for (const p of shuffle(active, r * 13 + 7)) {
        if (p.torch && ok.has(`${p.name}|forward`)) add(`${p.name}|forward`, await p.forward(true, 1));
        for (const lean of kinds)
          if (!p.torch && ok.has(`${p.name}|${lean ? 'lean' : 'full'}`)) add(`${p.name}|${lean ? 'lean' : 'full'}`, await p.forward(lean, 1));
        if (ok.has(`${p.name}|gen`)) add(`${p.name}|gen`, (await p.generate(steps, loaded.prompt_ids)).seconds);
      }
      log(`  ${shape}: round ${r + 1}/${rounds} done`);
    }
    if (torch) torch.stop();
    // Bandwidth bound of R2: the weights a step reads (and the mean cached K and V
    // beside) against the native read probes, and the wasm runtimes' own probes.
    const cache = await nat.cacheBytes(steps);
    const stepBytes = loaded.step_weight_bytes;
    const probes = {
      native: bandwidth.native, native_same_bytes: (await native.bandwidth(0.5, stepBytes)).bandwidth,
      // Both cores reading the step's weights, each its half: what any runtime on two threads can reach.
      native_two_cores: (await twoCores(native.proc.pid, () => native.bandwidth(0.5, stepBytes, 2))).bandwidth,
      node: bandwidth.node, chromium: bandwidth.chromium,
    };
    info.bandwidth = { step_weight_bytes: stepBytes, mean_cache_bytes: cache, probes };
    if (!hf) info.profile = { native: await nat.profile(20), node: await peers.find((p) => p.name === 'ours wasm Node').profile(5) };

    // Rows: ratio = median over rounds of (PyTorch time / ours in the given runtime).
    const ratio = (oursKey, peerKey) => {
      const o = samples.get(oursKey), s = samples.get(peerKey);
      return o && s ? median(s.map((x, i) => x / o[i])) : null;
    };
    const timed = (p, kind, workload, extra = {}) => {
      const s = samples.get(`${p.name}|${kind}`);
      if (!s) return null;
      const row = {
        section: 'real models', workload, shape, peer: p.name, env: p.env, samples: s.length,
        median_ms: median(s) * 1e3, p25_ms: quantile(s, 0.25) * 1e3, p75_ms: quantile(s, 0.75) * 1e3,
        min_ms: Math.min(...s) * 1e3, max_ms: Math.max(...s) * 1e3, ...extra,
      };
      rows.push(row);
      return row;
    };
    const torchPeer = active.find((p) => p.torch);
    for (const kind of ['lean', 'full']) {
      if (!names[kind] || !want(names[kind])) continue;
      for (const p of active) {
        if (p.torch) continue;
        const row = timed(p, kind, names[kind]);
        if (row && torchPeer) row.ratio_vs_torch = ratio(`${p.name}|${kind}`, `${torchPeer.name}|forward`);
        if (row && p.env !== 'native') row.ratio_vs_native = ratio(`ours native|${kind}`, `${p.name}|${kind}`);
      }
      if (torchPeer && kind === 'lean') timed(torchPeer, 'forward', `${hf ? 'R4' : 'R1'} forward ${llamaForwardTokens} tokens ${shape} (PyTorch: logits only)`);
    }
    if (doGen) {
      for (const p of active) {
        const bytes = stepBytes + cache;
        const row = timed(p, 'gen', names.gen);
        if (!row) continue;
        row.ms_per_token = row.median_ms;
        row.tokens_per_s = 1e3 / row.median_ms;
        row.gbytes_per_s = bytes / (row.median_ms / 1e3) / 1e9;
        if (p.env === 'native' && !p.torch && hf) {
          // R5's bound: every byte a step reads (weights in their type + the mean cached K and V) at the probe's rate.
          row.bound_ms_per_token = bytes / probes.native * 1e3;
          row.fraction_of_bandwidth = bytes / (row.median_ms / 1e3) / probes.native;
          row.fraction_of_bandwidth_same_bytes = bytes / (row.median_ms / 1e3) / probes.native_same_bytes;
        } else if (p.env === 'native' && !p.torch) {
          row.bound_ms_per_token = stepBytes / probes.native * 1e3;
          row.fraction_of_bandwidth = stepBytes / (row.median_ms / 1e3) / probes.native;
          row.fraction_of_bandwidth_same_bytes = stepBytes / (row.median_ms / 1e3) / probes.native_same_bytes;
        } else if (probes[p.env] && !p.torch) {
          row.fraction_of_runtime_bandwidth = stepBytes / (row.median_ms / 1e3) / probes[p.env];
        }
        if (!p.torch && torchPeer) row.ratio_vs_torch = ratio(`${p.name}|gen`, `${torchPeer.name}|gen`);
      }
    }
    const find = (workload, peer) => rows.find((r) => r.workload === workload && r.peer === peer);
    const lean = find(names.lean, 'ours wasm Chromium'), leanNode = find(names.lean, 'ours wasm Node');
    if ((lean || leanNode) && (shape === 'stories15M' || hf)) {  // issue 33's target is on this shape; issue 52's on every folder
      const r = lean || leanNode;
      targets.push({ target: `${names.lean}: ${r.peer} ≤ 1 s`, value: `${r.median_ms.toFixed(0)} ms` + (lean && leanNode ? ` (Node ${leanNode.median_ms.toFixed(0)} ms)` : ''), met: r.median_ms <= 1000 });
    }
    for (const who of ['ours wasm Node', 'ours wasm Node 2t', 'ours wasm Chromium', 'ours wasm Chromium 2t']) {
      const r = find(names.gen, who);
      // What 2× PyTorch asks of the memory: its time per token halved, the step's weights read in it.
      const t = torchPeer && find(names.gen, torchPeer.name);
      const need = t ? ` (2× PyTorch reads the weights at ${(stepBytes / (t.median_ms / 2e3) / 1e9).toFixed(1)} GB/s; both cores read ${(probes.native_two_cores / 1e9).toFixed(1)}, one ${(probes.native_same_bytes / 1e9).toFixed(1)})` : '';
      if (r && r.ratio_vs_torch) targets.push({ target: `${names.gen}: ${who} ≥ 2× PyTorch eager 1t tokens/s`, value: `${r.ratio_vs_torch.toFixed(2)}× (${r.tokens_per_s.toFixed(0)} tokens/s)${need}`, met: r.ratio_vs_torch >= 2 });
    }
    for (const who of ['ours native', 'ours native 2t']) {
      const g = find(names.gen, who);
      if (g && hf) targets.push({ target: `${names.gen}: ${who} ≥ 60 % of the memory-bandwidth bound (${(stepBytes / 1e6).toFixed(1)} MB of weights + ${(cache / 1e6).toFixed(2)} MB of cached K/V per token / the native read probe over 256 MB, ${(probes.native / 1e9).toFixed(1)} GB/s)`, value: `${(100 * g.fraction_of_bandwidth).toFixed(1)} % of the bound (${g.ms_per_token.toFixed(2)} ms/token, bound ${g.bound_ms_per_token.toFixed(2)} ms)`, met: g.fraction_of_bandwidth >= 0.6 });
      else if (g) targets.push({ target: `${names.gen}: ${who} ≥ 60 % of the memory-bandwidth bound (${(stepBytes / 1e6).toFixed(1)} MB of weights per token / the native read probe over 256 MB)`, value: `${(100 * g.fraction_of_bandwidth).toFixed(1)} % (${g.ms_per_token.toFixed(2)} ms/token, bound ${g.bound_ms_per_token.toFixed(2)} ms)`, met: g.fraction_of_bandwidth >= 0.6 });
    }
  }
  if (hf && want(names.mem)) {
    log(`  ${shape}: R6, peak resident memory of opening the folder`);
    const m = hfMemoryRows(build, files);
    info.memory = m;
    if (!m.error) {
      const peak = m.handed_over.max_rss_bytes;
      rows.push({ section: 'real models', workload: names.mem, shape, peer: 'files handed over (hf_model_read in place)', env: 'native',
        file_bytes: files.bytes, peak_rss_bytes: peak, ratio_to_file: peak / files.bytes,
        in_process: { adopted_peak: peak, copied_peak: m.copied.max_rss_bytes }, attn_eval_peak: m.attn_eval ? m.attn_eval.max_rss_bytes : null });
      targets.push({ target: `${names.mem}: ≤ 1.2× the folder (${(files.bytes / 2 ** 20).toFixed(0)} MB), the files handed over`, value: `${(peak / files.bytes).toFixed(2)}× (${(peak / 2 ** 20).toFixed(0)} MB; copied ${(m.copied.max_rss_bytes / files.bytes).toFixed(2)}×` + (m.attn_eval ? `; attn eval --model DIR ${(m.attn_eval.max_rss_bytes / files.bytes).toFixed(2)}×)` : ')'), met: peak / files.bytes <= 1.2 });
    }
  } else if (want(names.mem)) {
    log(`  ${shape}: R3, peak resident memory of opening the file`);
    const m = memoryRows(build, files, log);
    info.memory = m;
    if (!m.error) {
      const peak = m.attn_eval ? m.attn_eval.max_rss_bytes : m.adopted.max_rss_bytes;
      rows.push({ section: 'real models', workload: names.mem, shape, peer: m.attn_eval ? 'attn eval --model' : 'llama_file_read + llama_checkpoint_adopt', env: 'native',
        file_bytes: files.bytes, peak_rss_bytes: peak, ratio_to_file: peak / files.bytes,
        in_process: { adopted_peak: m.adopted.max_rss_bytes, copied_peak: m.copied.max_rss_bytes } });
      targets.push({ target: `${names.mem}: ≤ 1.2× the file (${(files.bytes / 2 ** 20).toFixed(0)} MB)`, value: `${(peak / files.bytes).toFixed(2)}× (${(peak / 2 ** 20).toFixed(0)} MB)`, met: peak / files.bytes <= 1.2 });
    }
  }
  return { rows, targets, checks, info };
}

// Every shape asked for; `bandwidth`: {native, node, chromium} read probes over 256 MB (bytes/s).
export async function llamaBench(opts) {
  const out = { rows: [], targets: [], checks: [], shapes: [] };
  const runs = [
    ...opts.shapes.map((shape) => ({ shape, files: () => llamaFiles(opts.root, path.join(opts.dataDir, 'llama'), shape, opts.log) })),
    ...(opts.hfShapes || []).flatMap((s) => hfShapeFolders[s] || []).map((f) => ({ shape: `${f.shape} ${f.dtype}`, files: () => hfFiles(opts.root, opts.dataDir, f, opts.log) })),
  ];
  for (const { shape, files } of runs) {
    opts.log(`real models: ${shape}`);
    const r = await benchShape({ ...opts, shape, files: files() });
    out.rows.push(...r.rows);
    out.targets.push(...r.targets);
    out.checks.push(...r.checks);
    out.shapes.push(r.info);
  }
  return out;
}

// The PyTorch peer's process (a line protocol), one thread.
export function torchLlamaProcess(lineProcess, benchDir) {
  return () => lineProcess('/usr/bin/python3', [path.join(benchDir, 'llama_torch_peer.py'), '--serve'],
    { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' });
}

export function printLlama(r) {
  const l = r.llama;
  if (!l || !l.rows.length) return;
  const g = (x, d = 1) => (x === undefined || x === null ? '' : x.toFixed(d));
  console.log('\nReal models (llama2.c shapes and Hugging Face folders, random weights written by tests/llama_files.py and tests/hf_files.py; one thread each unless 2t):');
  for (const s of l.shapes) {
    const c = s.config;
    if (c) console.log(`  ${s.shape}: ${c.model_arch || 'llama'}, dim ${c.dim}, hidden ${c.hidden_dim}, ${c.n_layers} layers, ${c.n_heads} heads (${c.n_kv_heads} KV), vocab ${c.vocab_size}, seq ${c.seq_len}; ` +
      `${(s.file_bytes / 2 ** 20).toFixed(1)} MB file; R1 on ${s.forward_ids} tokens; R2 after ${s.prompt_ids.length} prompt tokens` +
      (s.torch ? `; PyTorch ${s.torch.version}, ${s.torch.threads} thread, BLAS ${(s.torch.blas || []).filter((b) => b.internal_api !== 'openmp').map((b) => `${b.internal_api} ${b.version || ''} ${b.architecture || ''}`).join(', ')}` : ''));
    if (s.bandwidth) console.log(`    R2 bytes per token: ${(s.bandwidth.step_weight_bytes / 1e6).toFixed(1)} MB of weights + ${(s.bandwidth.mean_cache_bytes / 1e6).toFixed(2)} MB of cached K/V on average; ` +
      `read probes: native ${g(s.bandwidth.probes.native / 1e9)} GB/s over 256 MB, ${g(s.bandwidth.probes.native_same_bytes / 1e9)} over the step's weights (${g(s.bandwidth.probes.native_two_cores / 1e9)} on both cores); wasm Node ${g(s.bandwidth.probes.node / 1e9)}, Chromium ${g(s.bandwidth.probes.chromium / 1e9)}`);
  }
  const head = ['workload', 'peer', 'median ms', 'p25–p75 ms', 'tokens/s', 'GB/s', '% BW', '% own BW', '×faster than PyTorch', 'ours native ×faster'];
  const lines = [head];
  for (const x of l.rows.filter((row) => row.median_ms !== undefined))
    lines.push([x.workload, x.peer, g(x.median_ms, x.median_ms < 10 ? 3 : 1), `${g(x.p25_ms, x.median_ms < 10 ? 3 : 1)}–${g(x.p75_ms, x.median_ms < 10 ? 3 : 1)}`, g(x.tokens_per_s, 0), g(x.gbytes_per_s),
      x.fraction_of_bandwidth ? g(100 * x.fraction_of_bandwidth) : '', x.fraction_of_runtime_bandwidth ? g(100 * x.fraction_of_runtime_bandwidth) : '',
      g(x.ratio_vs_torch, 2), g(x.ratio_vs_native, 2)]);
  const widths = head.map((_, i) => Math.max(...lines.map((ln) => String(ln[i]).length)));
  console.log('');
  for (const [i, ln] of lines.entries()) {
    console.log(ln.map((c, j) => (j < 2 ? String(c).padEnd(widths[j]) : String(c).padStart(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('  R2 median ms = per generated token. % BW: the step\'s weight bytes / time against the native read probe over 256 MB (memory); % own BW: against that runtime\'s own probe.');
  if (l.rows.some((x) => x.workload.startsWith('R5'))) console.log('  R5 % BW: the step\'s weight bytes in their own type + the mean cached K/V, per token, against the same probe (R4-R6: Hugging Face folders, tests/hf_files.py --shape).');
  console.log('  ×faster than PyTorch: median over rounds of PyTorch\'s time / ours in that runtime (R1: PyTorch\'s pass computes the logits only). ours native ×faster: wasm rows, ours native\'s speed over that row\'s.');
  for (const x of l.rows.filter((row) => row.peak_rss_bytes !== undefined && row.workload.startsWith('R6')))
    console.log(`  ${x.workload}: ${x.peer} peaks at ${(x.peak_rss_bytes / 2 ** 20).toFixed(0)} MB resident for a ${(x.file_bytes / 2 ** 20).toFixed(0)} MB folder: ${x.ratio_to_file.toFixed(2)}× ` +
      `(borrowed and copied, hf_folder_read: ${(x.in_process.copied_peak / 2 ** 20).toFixed(0)} MB` + (x.attn_eval_peak ? `; attn eval --model DIR ${(x.attn_eval_peak / 2 ** 20).toFixed(0)} MB)` : ')'));
  for (const x of l.rows.filter((row) => row.peak_rss_bytes !== undefined && !row.workload.startsWith('R6')))
    console.log(`  ${x.workload}: ${x.peer} peaks at ${(x.peak_rss_bytes / 2 ** 20).toFixed(0)} MB resident for a ${(x.file_bytes / 2 ** 20).toFixed(0)} MB file: ${x.ratio_to_file.toFixed(2)}× ` +
      `(in process: the model adopting the file ${(x.in_process.adopted_peak / 2 ** 20).toFixed(0)} MB, copying it ${(x.in_process.copied_peak / 2 ** 20).toFixed(0)} MB)`);
  for (const s of l.shapes) {
    for (const [where, p] of Object.entries(s.profile || {})) {
      if (!p) continue;
      const sum = p.parts.reduce((a, x) => a + x.step_seconds, 0), probe = p.parts.reduce((a, x) => a + x.probe_step_seconds, 0);
      const bytes = p.parts.reduce((a, x) => a + x.out * x.in * 4 * x.layers, 0);
      console.log(`  ${s.shape} profile ${where === 'native' ? 'natively' : 'in wasm (Node)'} (best trials): a decode step ${(p.step_seconds * 1e3).toFixed(2)} ms, ` +
        `its weight products by kernel_matmul_bt ${(sum * 1e3).toFixed(2)} ms (${g(bytes / sum / 1e9)} GB/s; ` +
        `${p.parts.map((x) => `${x.name} ${g(x.step_gbytes_per_s)}`).join(', ')}), by a plain 8-row matrix-vector product ${(probe * 1e3).toFixed(2)} ms (${g(bytes / probe / 1e9)} GB/s); ` +
        `one layer's, in the cache: ${p.parts.filter((x) => x.layers > 1).map((x) => `${x.name} ${g(x.hot_gbytes_per_s, 0)}`).join(', ')} GB/s`);
      console.log(`    R1 lean pass ${(p.forward_seconds * 1e3).toFixed(0)} ms, its products by kernel_matmul_bt ~${(p.forward_products_seconds * 1e3).toFixed(0)} ms ` +
        `(${(100 * p.forward_products_seconds / p.forward_seconds).toFixed(0)} %); GFLOP/s on ${p.forward_rows} rows, kernel_matmul_bt(x, W) / kernel_matmul(x, Wᵀ): ` +
        p.parts.filter((x, i, a) => a.findIndex((y) => y.out === x.out && y.in === x.in) === i).map((x) => `${x.out}×${x.in} ${x.matmul_bt_gflops.toFixed(0)} / ${x.matmul_transposed_gflops.toFixed(0)}`).join(', '));
    }
  }
  const failed = l.checks.filter((c) => !c.ok);
  console.log(`  Checks against ours natively: ${l.checks.length - failed.length}/${l.checks.length} pass` + (failed.length ? '; failed: ' + failed.map((c) => `${c.peer} on ${c.workload}`).join(', ') : '') +
    '; R1 worst ' + Math.max(0, ...l.checks.filter((c) => c.relError !== undefined).map((c) => c.relError)).toExponential(1) + ' relative');
}
