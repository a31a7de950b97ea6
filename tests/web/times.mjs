// A node:test reporter for tests/web/run.mjs: at the end, each file's time (the
// sum of its tests' times: files run side by side, so their spans overlap), the
// stage's whole time and the ten slowest tests, so that the browser stage's cost
// is read off every run (docs/testing.md keeps the figures).
import fs from 'node:fs';
import path from 'node:path';

export default async function* times(source) {
  const start = Date.now();
  const files = new Map();  // file → { first, last: its first and last event's time, busy: its tests' time }
  const tests = [];         // { file, name, ms }
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {};
    if (!file) continue;
    const f = files.get(file) ?? { first: Date.now(), last: 0, busy: 0 };
    f.last = Date.now();
    files.set(file, f);
    if ((event.type === 'test:pass' || event.type === 'test:fail') && nesting === 0 && details?.type !== 'suite') {
      tests.push({ file, name, ms: details?.duration_ms ?? 0 });
      f.busy += details?.duration_ms ?? 0;
    }
  }
  // ATTN_WEB_TIMES=<file>: every test's time, one a line (ms, file, name), for finding where the time goes.
  if (process.env.ATTN_WEB_TIMES) {
    fs.writeFileSync(process.env.ATTN_WEB_TIMES,
      tests.map((t) => `${Math.round(t.ms)}\t${path.basename(t.file)}\t${t.name}\n`).join(''), { flag: 'a' });
  }
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7) + ' s';
  let out = '\n=== browser files (the time of their tests) ===\n';
  let busy = 0;
  for (const [file, f] of [...files].sort((a, b) => b[1].busy - a[1].busy)) {
    out += `${s(f.busy)}  ${path.basename(file)}\n`;
    busy += f.busy;
  }
  const wall = Math.max(0, ...[...files.values()].map((f) => f.last)) - start;
  out += `${s(busy)}  the tests' time in all (${tests.length} tests)\n${s(wall)}  from the first to the last\n\n`;
  out += '=== the ten slowest browser tests ===\n';
  for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, 10))
    out += `${s(t.ms)}  ${path.basename(t.file)}: ${t.name.slice(0, 100)}\n`;
  yield out;
}
