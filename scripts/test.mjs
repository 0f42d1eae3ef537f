// Runs every test suite in turn and prints a summary: the TypeScript
// type-check of the page, the worker and the tests, C tests natively and
// under AddressSanitizer + UndefinedBehaviorSanitizer, every fuzz corpus
// replayed and each harness run for a short time box, `glasskv server` on a
// real port against Debian's redis-cli and redis-benchmark and node-redis,
// the units of Redis 7.0.15's own suite it passes in full, Vitest (the
// real .wasm, and the differential tests against Debian's redis-server),
// and Playwright in Debian's Chromium.
import { spawnSync } from 'node:child_process';
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
  ['glasskv server (redis-cli, redis-benchmark, node-redis, AOF with redis-server)',
    process.execPath, ['--test', 'tests/server/']],
  ['Redis 7.0.15\'s own suite: the units glasskv passes in full',
    process.execPath, ['--test', 'tests/redis-suite/']],
];
if (existsSync(join(root, 'vitest.config.ts')))
  suites.push(['Vitest (wasm, differential)', process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run']]);
if (existsSync(join(root, 'playwright.config.ts')))
  suites.push(['Playwright (Chromium)', process.execPath,
    ['node_modules/@playwright/test/cli.js', 'test']]);

const results = [];
for (const [name, cmd, args] of suites) {
  console.log(`\n=== ${name}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  results.push([name, r.status === 0, (Date.now() - t0) / 1000]);
}
console.log('\n=== Summary');
for (const [name, ok, secs] of results)
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}  (${secs.toFixed(1)} s)`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
