// The threaded wasm build (build/bench-web-threads) in a Node process of its own,
// answering one line per request on stdin, as the native runner does:
//   train_run ID REPS THREADS -> seconds per step
//   train_losses ID N         -> the first N losses, JSON
//   llama_load MODEL TOKENIZER N -> the files read (bench_llama_load's JSON)
//   llama_generate STEPS THREADS -> {"seconds":…} a token, through the KV cache
//   quit
// bench/run.mjs times its training rows on 2, 4 and 8 threads here, away from the
// benchmark's own process (which holds the single-threaded build, tfjs and the
// children it starts): moved between cores alone, its samples are its own.
//
//   node bench/threads_peer.mjs BUILD_DIR
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import { oursWasm } from './lib/peers.mjs';

const require = createRequire(import.meta.url);
const dir = path.resolve(process.argv[2]);
const ours = await oursWasm(require(path.join(dir, 'attn_bench.js')), fs.readFileSync(path.join(dir, 'attn_bench.wasm')));
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  const [cmd, ...args] = line.trim().split(/\s+/);
  const n = args.map(Number);
  if (cmd === 'train_run') console.log(String(ours.trainRun(n[0], n[1], n[2])));
  else if (cmd === 'train_losses') console.log(JSON.stringify(ours.trainLosses(n[0], n[1])));
  else if (cmd === 'llama_load') console.log(JSON.stringify(ours.llamaLoad(fs.readFileSync(args[0]), fs.readFileSync(args[1]), n[2])));
  else if (cmd === 'llama_generate') console.log(JSON.stringify({ seconds: ours.llamaGenerate(n[0], n[1]).seconds }));
  else if (cmd === 'quit') break;
  else console.log(JSON.stringify({ error: `unknown request: ${line}` }));
}
process.exit(0);  // the module's workers would keep the process alive
