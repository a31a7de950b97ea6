// A node:test reporter for tests/web/run.mjs: at the end, each file's time
// (the files run one at a time: from the previous file's last event to its own
// last, as they arrive, so a file's start-up counts) and the ten slowest tests, so that the browser stage's cost is read
// off every run (docs/testing.md keeps the figures).
import path from 'node:path';

export default async function* times(source) {
  const start = Date.now();
  const files = new Map();  // file → the time of its last event
  const tests = [];         // { file, name, ms }
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {};
    if (!file) continue;
    files.set(file, Date.now());
    if ((event.type === 'test:pass' || event.type === 'test:fail') && nesting === 0 && details?.type !== 'suite')
      tests.push({ file, name, ms: details?.duration_ms ?? 0 });
  }
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7) + ' s';
  let out = '\n=== browser files ===\n';
  let previous = start;
  for (const [file, last] of [...files].sort((a, b) => a[1] - b[1])) {
    out += `${s(last - previous)}  ${path.basename(file)}\n`;
    previous = last;
  }
  out += `${s(previous - start)}  in all (${tests.length} tests)\n\n=== the ten slowest browser tests ===\n`;
  for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, 10))
    out += `${s(t.ms)}  ${path.basename(t.file)}: ${t.name.slice(0, 100)}\n`;
  yield out;
}
