// The attention graphs the onnxruntime peers run, built here from the ONNX schema
// (npm onnx-proto) — nothing is downloaded. buildModel writes each workload with
// standard ONNX operators (opset 17), the operator chain below; buildFusedModels with
// onnxruntime's fused attention operators (at the end of this file):
//   W1  MatMul(Q, Transpose(K)) → Mul(1/√d) → Where(causal mask, −inf, ·) → Softmax → MatMul(·, V)
//   W2  x·W_q, x·W_k, x·W_v (weights as initializers) → Reshape/Transpose to heads → W1's chain
//       per head (batched MatMul) → Transpose/Reshape → ·W_o
//   W3  Concat(past_k, k) and Concat(past_v, v) (the append) → the new token's queries, grouped
//       (kv, h/kv, d) → MatMul with Kᵀ → Mul → Softmax → MatMul with V → (h, d)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const BOOL = onnx.TensorProto.DataType.BOOL;
const INT64 = onnx.TensorProto.DataType.INT64;
const INT32 = onnx.TensorProto.DataType.INT32;

function valueInfo(name, shape) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: FLOAT, shape: { dim: shape.map((d) => ({ dimValue: d })) } } },
  });
}

function tensor(name, dataType, dims, bytes) {
  return onnx.TensorProto.create({ name, dataType, dims, rawData: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
}
const floatTensor = (name, dims, values) => tensor(name, FLOAT, dims, Float32Array.from(values));
const int64Tensor = (name, values) => tensor(name, INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
const int32Tensor = (name, dims, values) => tensor(name, INT32, dims, Int32Array.from(values));

// attrs: integers, lists of integers, or { float: x } for a float attribute.
function node(opType, inputs, outputs, attrs = {}, domain = '') {
  const attribute = Object.entries(attrs).map(([name, v]) => {
    if (Array.isArray(v)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v };
    if (typeof v === 'object') return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v.float };
    return { name, type: onnx.AttributeProto.AttributeType.INT, i: v };
  });
  return onnx.NodeProto.create({ opType, domain, input: inputs, output: outputs, attribute });
}
const contrib = (opType, inputs, outputs, attrs) => node(opType, inputs, outputs, attrs, 'com.microsoft');

function model(name, nodes, inputs, outputs, initializers) {
  const graph = onnx.GraphProto.create({ name, node: nodes, input: inputs, output: outputs, initializer: initializers });
  const m = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'attention-playground-bench',
    // com.microsoft: onnxruntime's contrib operators (the fused attention graphs).
    opsetImport: [{ domain: '', version: 17 }, { domain: 'com.microsoft', version: 1 }],
    graph,
  });
  return onnx.ModelProto.encode(m).finish();
}

// Upper-triangle (key after query) mask, n × n booleans: true = hidden.
function causalMask(name, n, dims) {
  const b = new Uint8Array(n * n);
  for (let i = 0; i < n; ++i) for (let j = i + 1; j < n; ++j) b[i * n + j] = 1;
  return tensor(name, BOOL, dims, b);
}

// The softmax(mask(scores · scale)) · V tail shared by W1 and W2.
function attentionTail(nodes, inits, q, k, v, out, n, d, causal, transposeK) {
  nodes.push(node('Transpose', [k], ['kt'], transposeK));
  nodes.push(node('MatMul', [q, 'kt'], ['scores']));
  inits.push(floatTensor('scale', [], [1 / Math.sqrt(d)]));
  nodes.push(node('Mul', ['scores', 'scale'], ['scaled']));
  let logits = 'scaled';
  if (causal) {
    inits.push(causalMask('mask', n, [n, n]), floatTensor('neg_inf', [], [-Infinity]));
    nodes.push(node('Where', ['mask', 'neg_inf', 'scaled'], ['masked']));
    logits = 'masked';
  }
  nodes.push(node('Softmax', [logits], ['weights'], { axis: -1 }));
  nodes.push(node('MatMul', ['weights', v], [out]));
}

// w: a workload from bench_describe; inputs: its Float32Arrays in order.
// Returns { bytes, feeds: [[name, Float32Array, shape]], output }.
export function buildModel(w, inputs) {
  const nodes = [], inits = [];
  if (w.kind === 'w1') {
    const shape = [w.n, w.d];
    attentionTail(nodes, inits, 'q', 'k', 'v', 'out', w.n, w.d, w.causal, { perm: [1, 0] });
    return {
      bytes: model('w1', nodes, ['q', 'k', 'v'].map((s) => valueInfo(s, shape)), [valueInfo('out', shape)], inits),
      feeds: ['q', 'k', 'v'].map((s, i) => [s, inputs[i], shape]),
    };
  }
  if (w.kind === 'w2') {
    const n = w.n, dm = w.d_model, h = w.heads, dk = dm / h;
    ['w_q', 'w_k', 'w_v', 'w_o'].forEach((s, i) => inits.push(tensor(s, FLOAT, [dm, dm], inputs[i + 1])));
    inits.push(int64Tensor('heads_shape', [n, h, dk]), int64Tensor('concat_shape', [n, dm]));
    for (const p of ['q', 'k', 'v']) {
      nodes.push(node('MatMul', ['x', 'w_' + p], [p + '_proj']));
      nodes.push(node('Reshape', [p + '_proj', 'heads_shape'], [p + '_split']));
    }
    nodes.push(node('Transpose', ['q_split'], ['q_heads'], { perm: [1, 0, 2] }));  // (h, n, dk)
    nodes.push(node('Transpose', ['v_split'], ['v_heads'], { perm: [1, 0, 2] }));
    // K: (n, h, dk) → (h, dk, n) in one Transpose, done by the tail.
    attentionTail(nodes, inits, 'q_heads', 'k_split', 'v_heads', 'o_heads', n, dk, w.causal, { perm: [1, 2, 0] });
    nodes.push(node('Transpose', ['o_heads'], ['o_tokens'], { perm: [1, 0, 2] }));
    nodes.push(node('Reshape', ['o_tokens', 'concat_shape'], ['concat']));
    nodes.push(node('MatMul', ['concat', 'w_o'], ['out']));
    return {
      bytes: model('w2', nodes, [valueInfo('x', [n, dm])], [valueInfo('out', [n, dm])], inits),
      feeds: [['x', inputs[0], [n, dm]]],
    };
  }
  if (w.kind === 'w3') {
    const t = w.n, kv = w.kv_heads, h = w.heads, d = w.d, group = h / kv;
    inits.push(int64Tensor('axis1', [1]), int64Tensor('group_shape', [kv, group, d]), int64Tensor('out_shape', [h, d]));
    inits.push(floatTensor('scale', [], [1 / Math.sqrt(d)]));
    nodes.push(node('Unsqueeze', ['k', 'axis1'], ['k_row']));
    nodes.push(node('Unsqueeze', ['v', 'axis1'], ['v_row']));
    nodes.push(node('Concat', ['past_k', 'k_row'], ['present_k'], { axis: 1 }));  // (kv, t, d)
    nodes.push(node('Concat', ['past_v', 'v_row'], ['present_v'], { axis: 1 }));
    nodes.push(node('Reshape', ['q', 'group_shape'], ['q_groups']));                 // (kv, group, d)
    nodes.push(node('Transpose', ['present_k'], ['kt'], { perm: [0, 2, 1] }));        // (kv, d, t)
    nodes.push(node('MatMul', ['q_groups', 'kt'], ['scores']));                      // (kv, group, t)
    nodes.push(node('Mul', ['scores', 'scale'], ['scaled']));
    nodes.push(node('Softmax', ['scaled'], ['weights'], { axis: -1 }));
    nodes.push(node('MatMul', ['weights', 'present_v'], ['o_groups']));               // (kv, group, d)
    nodes.push(node('Reshape', ['o_groups', 'out_shape'], ['out']));
    const shapes = [[h, d], [kv, d], [kv, d], [kv, t - 1, d], [kv, t - 1, d]];
    const names = ['q', 'k', 'v', 'past_k', 'past_v'];
    return {
      bytes: model('w3', nodes, names.map((s, i) => valueInfo(s, shapes[i])), [valueInfo('out', [h, d])], inits),
      feeds: names.map((s, i) => [s, inputs[i], shapes[i]]),
    };
  }
  return null;
}

// The same workloads on onnxruntime's fused attention operators (contrib domain
// com.microsoft, onnxruntime's ContribOperators.md), the strongest configuration it offers
// beside the chain above. `variant` picks among the ways a workload can be written:
//   W1  MultiHeadAttention, one head, query/key/value (1, n, d); causal: 'mha' by
//       unidirectional = 1, 'mha-bias' by an attention_bias of 0 and −inf (the kernels
//       take different paths for the two, and neither is faster everywhere)
//   W2  'mha', 'mha-bias': MatMuls for the projections (x as (1, n, d_m)) → MultiHeadAttention
//       (8 heads, causal as in W1) → ·W_o;  'attention': Attention with the merged
//       (d_m, 3·d_m) Q/K/V weights (one GEMM), unidirectional → ·W_o
//   W3  'gqa': GroupQueryAttention (kv_num_heads = kv; for MHA kv = h), past_key/past_value
//       (1, kv, t − 1, d) in, the new k, v appended into present_key/value (the op's own
//       append); 'mha': MultiHeadAttention with past_key/past_value (h = kv only). The
//       present K and V are computed, as the chain's Concat is, but are not graph outputs:
//       returning them would copy the whole cache out of onnxruntime on every run.
// Constants the ops take as inputs (GQA's sequence lengths, zero biases) are initializers,
// so the feeds are the workload's inputs as they are, reshaped.
function buildFusedModel(w, inputs, variant) {
  if (variant === 'mha-bias' && !w.causal) return null;  // no mask: the same graph as 'mha'
  const nodes = [], inits = [];
  // 'bias': the causal mask as an additive attention_bias (1, 1, n, n) of 0 and −inf instead of unidirectional.
  const causalBias = (n) => {
    const b = new Float32Array(n * n);
    for (let i = 0; i < n; ++i) b.fill(-Infinity, i * n + i + 1, (i + 1) * n);
    inits.push(floatTensor('causal_bias', [1, 1, n, n], b));
    return ['', '', 'causal_bias'];  // after query, key, value: bias, key_padding_mask, attention_bias
  };
  if (w.kind === 'w1') {
    const shape = [1, w.n, w.d];
    const bias = variant === 'mha-bias' && w.causal;
    nodes.push(contrib('MultiHeadAttention', ['q', 'k', 'v', ...(bias ? causalBias(w.n) : [])], ['out'], { num_heads: 1, unidirectional: w.causal && !bias ? 1 : 0 }));
    return {
      bytes: model('w1_fused', nodes, ['q', 'k', 'v'].map((s) => valueInfo(s, shape)), [valueInfo('out', shape)], inits),
      feeds: ['q', 'k', 'v'].map((s, i) => [s, inputs[i], shape]),
    };
  }
  if (w.kind === 'w2') {
    const n = w.n, dm = w.d_model, h = w.heads, shape = [1, n, dm];
    inits.push(tensor('w_o', FLOAT, [dm, dm], inputs[4]));
    if (variant === 'attention') {
      // (d_m, 3·d_m): row i is [W_q row i | W_k row i | W_v row i].
      const merged = new Float32Array(dm * 3 * dm);
      for (let i = 0; i < dm; ++i)
        for (let p = 0; p < 3; ++p) merged.set(inputs[p + 1].subarray(i * dm, (i + 1) * dm), (i * 3 + p) * dm);
      inits.push(tensor('w_qkv', FLOAT, [dm, 3 * dm], merged), floatTensor('b_qkv', [3 * dm], new Float32Array(3 * dm)));
      nodes.push(contrib('Attention', ['x', 'w_qkv', 'b_qkv'], ['concat'], { num_heads: h, unidirectional: w.causal ? 1 : 0 }));
    } else {
      ['w_q', 'w_k', 'w_v'].forEach((s, i) => inits.push(tensor(s, FLOAT, [dm, dm], inputs[i + 1])));
      for (const p of ['q', 'k', 'v']) nodes.push(node('MatMul', ['x', 'w_' + p], [p + '_proj']));
      const bias = variant === 'mha-bias' && w.causal;
      nodes.push(contrib('MultiHeadAttention', ['q_proj', 'k_proj', 'v_proj', ...(bias ? causalBias(n) : [])], ['concat'],
        { num_heads: h, unidirectional: w.causal && !bias ? 1 : 0 }));
    }
    nodes.push(node('MatMul', ['concat', 'w_o'], ['out']));
    return {
      bytes: model('w2_fused', nodes, [valueInfo('x', shape)], [valueInfo('out', shape)], inits),
      feeds: [['x', inputs[0], shape]],
    };
  }
  if (w.kind === 'w3') {
    const t = w.n, kv = w.kv_heads, h = w.heads, d = w.d;
    const shapes = [[1, 1, h * d], [1, 1, kv * d], [1, 1, kv * d], [1, kv, t - 1, d], [1, kv, t - 1, d]];
    const names = ['q', 'k', 'v', 'past_k', 'past_v'];
    const outputs = [valueInfo('out', [1, 1, h * d])];
    if (variant === 'mha') {
      if (kv !== h) return null;
      nodes.push(contrib('MultiHeadAttention', ['q', 'k', 'v', '', '', '', 'past_k', 'past_v'], ['out', 'present_k', 'present_v'], { num_heads: h }));
    } else {
      // seqlens_k: the total length − 1 (the token's own position); total_sequence_length: t.
      inits.push(int32Tensor('seqlens_k', [1], [t - 1]), int32Tensor('total_len', [], [t]));
      nodes.push(contrib('GroupQueryAttention', ['q', 'k', 'v', 'past_k', 'past_v', 'seqlens_k', 'total_len'], ['out', 'present_k', 'present_v'],
        { num_heads: h, kv_num_heads: kv }));
    }
    return {
      bytes: model('w3_fused', nodes, names.map((s, i) => valueInfo(s, shapes[i])), outputs, inits),
      feeds: names.map((s, i) => [s, inputs[i], shapes[i]]),
    };
  }
  return null;
}

// Every fused graph of the workload, each labelled by the contrib operator it runs on:
// [{ op, bytes, feeds }] (empty for W4). The peers time the fastest that passes the check.
const fusedVariants = { w1: [['MultiHeadAttention', 'mha'], ['MultiHeadAttention-bias', 'mha-bias']],
  w2: [['MultiHeadAttention', 'mha'], ['MultiHeadAttention-bias', 'mha-bias'], ['Attention', 'attention']],
  w3: [['GroupQueryAttention', 'gqa'], ['MultiHeadAttention', 'mha']] };
export function buildFusedModels(w, inputs) {
  return (fusedVariants[w.kind] || []).map(([op, variant]) => {
    const m = buildFusedModel(w, inputs, variant);
    return m && { op, ...m };
  }).filter(Boolean);
}
