// Runs every test suite in turn and prints a summary: the TypeScript
// type-check of the page, the worker and the tests, C tests natively and
// under AddressSanitizer + UndefinedBehaviorSanitizer, every fuzz corpus
// replayed and each harness run for a short time box, `glasskv server` on a
// real port against Debian's redis-cli and redis-benchmark and node-redis,
// the units of Redis 7.0.15's own suite it passes in full, Vitest (the
// real .wasm, and the differential tests against Debian's redis-server),
// and Playwright in Debian's Chromium.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
const suites = [
  ...['web', 'wasm', 'tests'].map((p) =>
    [`TypeScript (${p})`, process.execPath, [tsc, '-p', p, '--noEmit']]),
  ['C tests', 'make', ['-s', '-C', 'engine', 'test', '-j2']],
  ['C tests (ASan+UBSan)', 'make', ['-s', '-C', 'engine', 'test', 'SAN=1', '-j2']],
  ['Fuzz corpora and short campaigns', process.execPath, ['scripts/fuzz.mjs']],
  ['glasskv server (redis-cli, redis-benchmark, node-redis, AOF, Lua libraries with redis-server)',
    process.execPath, ['--test', 'tests/server/', 'tests/lua/']],
  ['Redis 7.0.15\'s own suite: the units glasskv passes in full',
    process.execPath, ['--test', 'tests/redis-suite/']],
];
if (existsSync(join(root, 'vitest.config.ts')))
  suites.push(['Vitest (wasm, differential)', process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run']]);
if (existsSync(join(root, 'playwright.config.ts')))
  suites.push(['Playwright (Chromium)', process.execPath,
    ['node_modules/@playwright/test/cli.js', 'test']]);

/** Runs one suite, its output passed through as it comes; resolves with
 *  its exit status and its last lines (for the summary of a failure). */
function runSuite(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['inherit', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk, out) => {
      out.write(chunk);
      tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
    };
    child.stdout.on('data', (d) => keep(d, process.stdout));
    child.stderr.on('data', (d) => keep(d, process.stderr));
    child.on('error', (e) => { tail += `\n${e.message}\n`; });
    child.on('close', (status) => resolve({ status, tail }));
  });
}

// How much of a failed suite's output the summary repeats: enough for
// Vitest's and Playwright's lists of failures.
const TAIL_CHARS = 12_000;

const results = [];
for (const [name, cmd, args] of suites) {
  console.log(`\n=== ${name}`);
  const t0 = Date.now();
  const r = await runSuite(cmd, args);
  results.push([name, r.status === 0, (Date.now() - t0) / 1000, r.tail]);
}
for (const [name, ok, , tail] of results) {
  if (ok) continue;
  console.log(`\n=== The end of what "${name}" printed`);
  console.log(tail.replace(/\x1b\[[0-9;]*m/g, ''));
}
console.log('\n=== Summary');
for (const [name, ok, secs] of results)
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}  (${secs.toFixed(1)} s)`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
