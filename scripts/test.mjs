// Runs every test suite, in turn or side by side, and prints a summary:
// the TypeScript type-check of the page, the worker and the tests, C tests
// natively and under AddressSanitizer + UndefinedBehaviorSanitizer, every
// fuzz corpus replayed and each harness run for a short time box, `glasskv
// server` on a real port against Debian's redis-cli and redis-benchmark and
// node-redis, the units of Redis 7.0.15's own suite it passes in full,
// Vitest (the real .wasm, and the differential tests against Debian's
// redis-server), and Playwright in Debian's Chromium.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
// Suites of the same group (a fourth field) run at the same time: the
// server's tests and the Redis suite's wait on sockets most of the time, so
// together they take about as long as the longer, and each runs two of its files or units at
// once. The first suite of a group prints as it goes; the others' output is
// printed when all have ended.
const suites = [
  ...['web', 'wasm', 'tests'].map((p) =>
    [`TypeScript (${p})`, process.execPath, [tsc, '-p', p, '--noEmit']]),
  ['C tests', 'make', ['-s', '-C', 'engine', 'test', '-j2']],
  ['C tests (ASan+UBSan)', 'make', ['-s', '-C', 'engine', 'test', 'SAN=1', '-j2']],
  ['Fuzz corpora and short campaigns', process.execPath, ['scripts/fuzz.mjs']],
  ['glasskv server (redis-cli, redis-benchmark, node-redis, AOF, Lua libraries with redis-server)',
    process.execPath, ['--test', '--test-concurrency=2', 'tests/server/', 'tests/lua/'], 'sockets'],
  ['Redis 7.0.15\'s own suite: the units glasskv passes in full',
    process.execPath, ['--test', 'tests/redis-suite/'], 'sockets'],
];
if (existsSync(join(root, 'vitest.config.ts')))
  suites.push(['Vitest (wasm, differential)', process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run']]);
if (existsSync(join(root, 'playwright.config.ts')))
  suites.push(['Playwright (Chromium)', process.execPath,
    ['node_modules/@playwright/test/cli.js', 'test']]);

/** Runs one suite, its output passed through as it comes (or, quiet, kept
 *  for later); resolves with its exit status, its last lines (for the
 *  summary of a failure) and, quiet, a function that prints what it kept. */
function runSuite(cmd, args, quiet) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: [quiet ? 'ignore' : 'inherit', 'pipe', 'pipe'] });
    let tail = '';
    const kept = [];
    const keep = (chunk, out) => {
      if (quiet) kept.push([chunk, out]);
      else out.write(chunk);
      tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
    };
    child.stdout.on('data', (d) => keep(d, process.stdout));
    child.stderr.on('data', (d) => keep(d, process.stderr));
    child.on('error', (e) => { tail += `\n${e.message}\n`; });
    child.on('close', (status) => resolve({
      status, tail, replay: () => { for (const [chunk, out] of kept) out.write(chunk); },
    }));
  });
}

// How much of a failed suite's output the summary repeats: enough for
// Vitest's and Playwright's lists of failures.
const TAIL_CHARS = 12_000;

const results = [];
for (let i = 0; i < suites.length;) {
  let j = i + 1;
  while (suites[i][3] !== undefined && j < suites.length && suites[j][3] === suites[i][3]) j++;
  const group = suites.slice(i, j);
  console.log(`\n=== ${group[0][0]}`);
  if (group.length > 1) console.log(`(${group.slice(1).map(([name]) => name).join('; ')}: at the same time, printed after)`);
  const runs = await Promise.all(group.map(async ([, cmd, args], k) => {
    const t0 = Date.now();
    const r = await runSuite(cmd, args, k > 0);
    return { ...r, secs: (Date.now() - t0) / 1000 };
  }));
  runs.forEach((r, k) => {
    if (k > 0) {
      console.log(`\n=== ${group[k][0]}`);
      r.replay();
    }
    results.push([group[k][0], r.status === 0, r.secs, r.tail]);
  });
  i = j;
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
