// Debian's redis-benchmark against `glasskv server` and against Debian's
// redis-server 7.0 in the same run: 50 clients, SET then GET, without a
// pipeline and with pipelines of 16. Both servers run at once, each on a
// free loopback port, and are stopped by pid at the end; the runs
// alternate between them, so a burst of load on this shared machine hits
// both, and the best of ROUNDS runs counts. Beside the rates it reports the
// CPU time each server process spent per request (from /proc), which tells
// the server's own cost apart from the benchmark client's and the
// kernel's: redis-benchmark and the server share the machine's cores.
//
// Part of npm run bench; alone: node tests/bench/redis-benchmark.mjs
// (GLASSKV_BUILD=dir for a build of one's own, see tests/server/servers.mjs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_BENCHMARK, startServer } from '../server/servers.mjs';

const REQUESTS = 100_000;
const CLIENTS = 50;
const PIPELINES = [1, 16];
const TESTS = ['SET', 'GET'];
const ROUNDS = 3;
const KINDS = ['glasskv', 'redis'];

const clockTicks = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString()) || 100;

/** CPU seconds (user + system) process pid has used so far. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "(comm) ": state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** redis-benchmark's --csv output: { TEST: { rps, ... } }. */
function parseCsv(text) {
  const rows = text.trim().split('\n')
    .map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')));
  const [head, ...rest] = rows;
  return Object.fromEntries(rest.map((row) =>
    [row[0], Object.fromEntries(head.map((h, i) => [h, row[i]]))]));
}

/** One redis-benchmark run on server: { SET: rps, GET: rps, cpu: s }. */
function benchmarkOnce(server, pipeline) {
  const cpu0 = cpuSeconds(server.proc.pid);
  const r = spawnSync(REDIS_BENCHMARK, ['-h', '127.0.0.1', '-p', String(server.port),
    '-c', String(CLIENTS), '-n', String(REQUESTS), '-P', String(pipeline),
    '-t', TESTS.join(',').toLowerCase(), '--csv'], { timeout: 300_000 });
  if (r.status !== 0)
    throw new Error(`redis-benchmark on ${server.kind} failed: ${r.stderr?.toString() ?? r.error}`);
  const cpu = cpuSeconds(server.proc.pid) - cpu0;
  const rows = parseCsv(r.stdout.toString());
  const out = { cpu };
  for (const t of TESTS) {
    if (!rows[t]) throw new Error(`redis-benchmark on ${server.kind}: no ${t} row in\n${r.stdout}`);
    out[t] = Number(rows[t].rps);
  }
  return out;
}

/**
 * Runs the benchmark on both servers: best[kind][pipeline] = { SET, GET,
 * cpu } with the highest rates and the least CPU seen in ROUNDS runs.
 */
export async function redisBenchmark() {
  const dirs = KINDS.map((k) => mkdtempSync(join(tmpdir(), `glasskv-bench-${k}-`)));
  const servers = [];
  try {
    for (const [i, kind] of KINDS.entries())
      servers.push(await startServer(kind, ['--dir', dirs[i]]));
    const best = Object.fromEntries(KINDS.map((k) => [k, {}]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const pipeline of PIPELINES) {
        for (const server of servers) {
          const run = benchmarkOnce(server, pipeline);
          const b = best[server.kind][pipeline] ??= { SET: 0, GET: 0, cpu: Infinity };
          for (const t of TESTS) b[t] = Math.max(b[t], run[t]);
          b.cpu = Math.min(b.cpu, run.cpu);
        }
      }
    }
    return best;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** The figures as a table, in the style of the rest of npm run bench. */
export function printRedisBenchmark(best) {
  const f = (n) => Math.round(n).toLocaleString('en-US').padStart(14);
  console.log(`\nredis-benchmark, ${CLIENTS} clients, ${REQUESTS.toLocaleString('en-US')} requests ` +
    `a test, on loopback (best of ${ROUNDS} runs, alternating servers)\n`);
  console.log(`${'requests/s'.padEnd(18)}${'glasskv server'.padStart(14)}  ` +
    `${'redis-server'.padStart(14)}   glasskv/redis`);
  for (const pipeline of PIPELINES) {
    for (const t of TESTS) {
      const [g, r] = KINDS.map((k) => best[k][pipeline][t]);
      console.log(`${`${t} -P ${pipeline}`.padEnd(18)}${f(g)}  ${f(r)}   ${(g / r).toFixed(2)}x`);
    }
  }
  const us = (b) => `${((b.cpu / (REQUESTS * TESTS.length)) * 1e6).toFixed(2)} µs`.padStart(14);
  for (const pipeline of PIPELINES) {
    const [g, r] = KINDS.map((k) => best[k][pipeline]);
    console.log(`${`server CPU/req -P ${pipeline}`.padEnd(18)}${us(g)}  ${us(r)}   ` +
      `${(g.cpu / r.cpu).toFixed(2)}x`);
  }
  console.log('(server CPU/req: user + system time of the server process over the SETs and GETs');
  console.log(' of its least costly run; the rest of the wall time is redis-benchmark and loopback)');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  printRedisBenchmark(await redisBenchmark());
