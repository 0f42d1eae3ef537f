// Calibrates the engine's cost model against the real thing on this
// machine: runs Debian's redis-server with redis-benchmark (GET, 50
// clients) at pipeline depths 1, 4, 16 and 64, and with one client and no
// pipeline (where client and server take turns, so every system call of
// both sides is on the critical path), runs the same workloads in the
// engine (`glasskv run benchmark`), and prints both side by side.
// With --write it saves the table to tests/bench/calibration.json.
//
//   node tests/bench/calibrate.mjs [--write]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const glasskv = join(root, 'build', 'native', 'glasskv');
const depths = [1, 4, 16, 64];
const clients = 50;
const requests = 200000;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'glasskv-cal-'));
  const proc = spawn('redis-server', ['--port', String(port), '--save', '',
    '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const r = spawnSync('redis-cli', ['-p', String(port), 'PING']);
    if (r.stdout?.toString().trim() === 'PONG') return { port, proc, dir };
    await new Promise((res) => setTimeout(res, 50));
  }
  proc.kill();
  throw new Error('redis-server did not start');
}

function realRps(port, depth, conns = clients) {
  const r = spawnSync('redis-benchmark', ['-p', String(port), '-t', 'get',
    '-n', String(requests), '-c', String(conns), '-P', String(depth),
    '--csv'], { encoding: 'utf8' });
  const line = r.stdout.trim().split('\n').find((l) => l.startsWith('"GET"'));
  return Number(JSON.parse(`[${line}]`)[1]);
}

function engineRps(depth, conns = clients) {
  const r = spawnSync(glasskv, ['run', 'benchmark', '--clients',
    String(conns), '--pipeline', String(depth), '--requests',
    String(requests)], { encoding: 'utf8' });
  return JSON.parse(r.stdout).ops_per_sec;
}

spawnSync('make', ['-s', '-C', join(root, 'engine')], { stdio: 'inherit' });
const { port, proc, dir } = await startRedis();
const rows = [];
let single;
try {
  for (const depth of depths)
    rows.push({ pipeline: depth, redis: realRps(port, depth), engine: engineRps(depth) });
  single = { clients: 1, pipeline: 1, redis: realRps(port, 1, 1), engine: engineRps(1, 1) };
} finally {
  proc.kill();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`GET, ${clients} clients, ${requests} requests per run\n`);
console.log('pipeline   redis-server 7.0    glasskv engine   engine/redis');
const base = rows[0];
for (const r of rows)
  console.log(`${String(r.pipeline).padStart(8)} ${Math.round(r.redis).toLocaleString('en-US').padStart(18)} ${Math.round(r.engine).toLocaleString('en-US').padStart(17)} ${(r.engine / r.redis).toFixed(2).padStart(14)}`);
console.log('\nspeed-up over pipeline 1:');
for (const r of rows)
  console.log(`${String(r.pipeline).padStart(8)}  redis ${(r.redis / base.redis).toFixed(1)}x  engine ${(r.engine / base.engine).toFixed(1)}x`);
console.log(`\none client, no pipeline: redis ${Math.round(single.redis).toLocaleString('en-US')}  engine ${Math.round(single.engine).toLocaleString('en-US')}  engine/redis ${(single.engine / single.redis).toFixed(2)}`);
if (process.argv.includes('--write')) {
  const out = { measured: new Date().toISOString().slice(0, 10), clients,
    requests, command: 'GET', rows, single };
  writeFileSync(join(root, 'tests', 'bench', 'calibration.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('\nwrote tests/bench/calibration.json');
}
