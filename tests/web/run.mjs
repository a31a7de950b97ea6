// Runs browser test files against one served site and one Chromium, started
// here once instead of once per file (a browser server, playwright's
// launchServer; harness.mjs connects to it). Each file runs in its own Node
// process with its own browser contexts, ATTN_WEB_JOBS files side by side (3 by
// default): a browser test spends most of its time waiting for frames, steps and
// fetches, not on a core, and none asserts a clock (freeze.test.mjs compares the
// page's pace with its own pace paused, measured beside it).
//
//   node tests/web/run.mjs                          # every tests/web/*.test.mjs
//   node tests/web/run.mjs tests/web/links.test.mjs --test-name-pattern=poster
//   ATTN_WEB_JOBS=1 node tests/web/run.mjs          # one file at a time
//
// Arguments starting with '-' go to `node --test`; the exit code is its.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root, startServer, chromiumOptions } from './harness.mjs';

const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith('-'));
let files = args.filter((a) => !a.startsWith('-'));
if (files.length === 0) {
  const dir = path.join(root, 'tests', 'web');
  // The longest files first (their size stands for their time), so that the last to start are short.
  files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
}

const server = await startServer();
const browser = await chromium.launchServer(chromiumOptions);
let code = 1;
try {
  // The usual report, and each file's time with the slowest tests at the end (times.mjs).
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'tests', 'web', 'times.mjs')}`, '--test-reporter-destination=stdout'];
  const jobs = Math.max(1, Number(process.env.ATTN_WEB_JOBS) || 3);
  const child = spawn(process.execPath, ['--test', `--test-concurrency=${jobs}`, ...reporters, ...options, ...files], {
    stdio: 'inherit',
    env: { ...process.env, ATTN_TEST_URL: server.url, ATTN_TEST_BROWSER: browser.wsEndpoint() },
  });
  const stop = (signal) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
} finally {
  await browser.close();
  server.stop();
}
process.exit(code);
