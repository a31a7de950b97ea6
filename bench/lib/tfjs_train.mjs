// The training workloads (T1, T2) written with TensorFlow.js ops: the model of
// src/core/train/train.hpp (as bench/torch_peer.py builds it in PyTorch), from the
// initial weights, tables and batches attn_train_dump exports, trained with
// tf.variableGrads and AdamW in PyTorch's order of operations (decoupled weight
// decay, bias correction, global-norm clipping). Runs on whatever backend tf has
// (the benchmark sets the wasm backend, SIMD, one thread).
//
//   const t = tfjsTrainer(tf, dump);  t.step(i, lr) → loss of batch i (mod the dump's batches)
//   const tf = await tfjsWasmNode(benchDir);  TensorFlow.js on its wasm backend in Node
//
// Shapes: B rows, T tokens, V vocab, d d_model, h heads of dk = d / h; activations
// are kept as (B·T, d) between the attention's (B, h, T, dk) heads.
export function tfjsTrainer(tf, dump) {
  const c = dump.config;
  const { B, T, V, d, h, g, L } = c;
  if (g !== h) throw new Error('tfjs trainer: kv_heads must equal heads');
  const dk = d / h, half = dk >> 1;
  const vars = new Map(dump.tensors.map((t) => [t.name, tf.variable(tf.tensor2d(t.data, [t.rows, t.cols]), true)]));
  const varList = [...vars.values()];
  const p = (name) => vars.get(name);

  // Constants: the mask as an additive table, RoPE as x·C + (x·P)·S with P swapping
  // the pairs (2i, 2i+1) of every head (folded into W_q, W_k: (xW)P = x(WP)).
  const maskAdd = tf.tensor2d(Float32Array.from(dump.mask, (m) => (m ? -1e30 : 0)), [T, T]);
  const ropeW = dump.rope_cos.length / T;
  const C = new Float32Array(T * d).fill(1), S = new Float32Array(T * d), P = new Float32Array(d * d);
  for (let hd = 0; hd < h; ++hd)
    for (let j = 0; j < 2 * half; ++j) {
      const col = hd * dk + j;
      P[(hd * dk + (j ^ 1)) * d + col] = 1;  // (x·P)[col] = x[col ^ 1]
      for (let t = 0; t < T; ++t) {
        C[t * d + col] = dump.rope_cos[t * ropeW + (j >> 1)];
        S[t * d + col] = (j & 1 ? 1 : -1) * dump.rope_sin[t * ropeW + (j >> 1)];
      }
    }
  const ropeC = tf.tensor3d(C, [1, T, d]), ropeS = tf.tensor3d(S, [1, T, d]), swap = tf.tensor2d(P, [d, d]);
  const positions = tf.tensor3d(Float32Array.from(dump.positions), [1, T, d]);

  // Every batch as tensors, made once (not timed). The wasm backend's OneHot
  // ignores a float32 dtype (it writes int32 bits into a float32 tensor): cast.
  const oneHot = (ids) => tf.cast(tf.oneHot(tf.tensor1d(Int32Array.from(ids), 'int32'), V), 'float32');
  const batches = dump.batches.map((b) => {
    const counted = tf.tensor2d(Float32Array.from(b.counted), [B * T, 1]);
    return {
      tokens: oneHot(b.tokens),
      targets: oneHot(b.targets).mul(counted),
      count: Math.max(1, b.counted.reduce((a, x) => a + x, 0)),
    };
  });

  const rmsnorm = (x) => x.mul(tf.rsqrt(tf.mean(tf.square(x), -1, true).add(1e-6)));
  const rope = (x, xn, w) => (c.rope && half > 0 ? x.reshape([B, T, d]).mul(ropeC).add(xn.matMul(w.matMul(swap)).reshape([B, T, d]).mul(ropeS)).reshape([B * T, d]) : x);
  const heads = (x) => x.reshape([B, T, h, dk]).transpose([0, 2, 1, 3]);

  function loss(batch) {
    let x = batch.tokens.matMul(p('w_e')).reshape([B, T, d]);
    x = x.add(vars.has('w_p') ? p('w_p').reshape([1, T, d]) : positions).reshape([B * T, d]);
    for (let l = 0; l < L; ++l) {
      const w = (n) => p(`layer${l}.${n}`);
      const xn = c.full ? rmsnorm(x) : x;
      const q = heads(rope(xn.matMul(w('w_q')), xn, w('w_q')));
      const k = heads(rope(xn.matMul(w('w_k')), xn, w('w_k')));
      const v = heads(xn.matMul(w('w_v')));
      let s = tf.matMul(q, k, false, true).mul(c.scale).add(maskAdd);
      if (c.temp !== 1) s = s.div(c.temp);
      const concat = tf.matMul(tf.softmax(s), v).transpose([0, 2, 1, 3]).reshape([B * T, d]);
      const a = c.wo ? concat.matMul(w('w_o')) : concat;
      if (!c.full) {
        x = c.res ? x.add(a) : a;
        continue;
      }
      const r = x.add(a);
      x = r.add(tf.relu(rmsnorm(r).matMul(w('w_1'))).matMul(w('w_2')));
    }
    const logp = tf.logSoftmax(x.matMul(p('w_u')));
    return tf.neg(tf.sum(logp.mul(batch.targets))).div(batch.count);
  }

  const m = varList.map((v) => tf.variable(tf.zerosLike(v), false));
  const s2 = varList.map((v) => tf.variable(tf.zerosLike(v), false));
  let steps = 0;
  const [b1, b2, eps] = [c.beta1, c.beta2, c.eps];

  // One step on batch i with learning rate lr; returns the loss before the update.
  function step(i, lr) {
    steps += 1;
    const bc1 = 1 - b1 ** steps, bc2 = Math.sqrt(1 - b2 ** steps);
    const value = tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => loss(batches[i % batches.length]), varList);
      let gs = varList.map((v) => grads[v.name]);
      if (c.clip > 0) {
        const norm = tf.sqrt(tf.addN(gs.map((x) => tf.sum(tf.square(x)))));
        const coef = tf.minimum(1, tf.div(c.clip, norm.add(1e-6)));
        gs = gs.map((x) => x.mul(coef));
      }
      varList.forEach((v, j) => {
        const gj = gs[j];
        m[j].assign(m[j].mul(b1).add(gj.mul(1 - b1)));
        s2[j].assign(s2[j].mul(b2).add(gj.mul(gj).mul(1 - b2)));
        const denom = tf.sqrt(s2[j]).div(bc2).add(eps);
        v.assign(v.mul(1 - lr * c.wd).sub(m[j].div(denom).mul(lr / bc1)));
      });
      return tf.keep(value);
    });
    const out = value.dataSync()[0];
    value.dispose();
    return out;
  }
  return { step, batches: batches.length, lrs: dump.lrs };
}

// TensorFlow.js in Node on its wasm backend: SIMD, one thread (the build without
// threads), the .wasm read from the npm package's dist/ folder (nothing fetched:
// tfjs's Node platform would fetch() the path, which Node's fetch cannot take).
export async function tfjsWasmNode(benchDir) {
  const { createRequire } = await import('node:module');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const require = createRequire(path.join(benchDir, 'package.json'));
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  const dir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), path.sep);
  const platform = tf.env().platform;
  const fetchOther = platform.fetch.bind(platform);
  platform.fetch = (p, init) => (typeof p === 'string' && p.startsWith(dir)
    ? Promise.resolve(new Response(fs.readFileSync(p), { headers: { 'Content-Type': 'application/wasm' } }))
    : fetchOther(p, init));
  wasm.setWasmPaths(dir, true);
  wasm.setThreadsCount(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not start');
  await tf.ready();
  return tf;
}
