// How long one write takes to reach ten replicas on this machine (seed
// 003's experiment), side by side in one run: Debian's redis-server, a
// master and ten replicas in a star and in a chain on loopback, a redis-cli
// MONITOR on each writing to a file, against the replication-star and
// replication-chain labs, whose world is a machine like this one.
//
// For each topology: "idle", one SET key1 111111 on the quiet master, and
// "loaded", the last MSET of a redis-benchmark run (SET then MSET, 50
// clients). A replica's delivery time is its MONITOR line's timestamp less
// the master's; in the chain, also per hop. Three runs of each, since a
// shared machine spreads them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REPLICAS = 10;
const BASE = 25011;
const RUNS = 3;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cli(port, ...args) {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout;
}

async function realRun(chain, loaded) {
  const dir = mkdtempSync(join(tmpdir(), 'glasskv-repl-'));
  const ports = Array.from({ length: REPLICAS + 1 }, (_, i) => BASE + i);
  const kids = [];
  try {
    for (const p of ports) {
      kids.push(spawn('redis-server', ['--port', String(p), '--dir', dir, '--dbfilename', `${p}.rdb`,
        '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0', '--logfile', join(dir, `${p}.log`)], { stdio: 'ignore' }));
    }
    for (const p of ports) while (cli(p, 'ping').trim() !== 'PONG') await sleep(20);
    ports.slice(1).forEach((p, i) => cli(p, 'replicaof', '127.0.0.1', String(chain && i > 0 ? p - 1 : BASE)));
    for (let t = 0; t < 600; t++) {
      if (ports.slice(1).every((p) => cli(p, 'info', 'replication').includes('master_link_status:up'))) break;
      await sleep(100);
    }
    const mons = ports.map((p) => spawn('sh', ['-c', `exec redis-cli -p ${p} monitor > ${join(dir, `${p}.mon`)}`]));
    await sleep(500);
    let word = 'set';
    if (loaded) {
      spawnSync('redis-benchmark', ['-p', String(BASE), '-q', '-c', '50', '-n', '20000', '-t', 'set,mset']);
      word = 'mset';
    } else {
      cli(BASE, 'set', 'key1', '111111');
    }
    await sleep(1000);
    mons.forEach((m) => m.kill());
    await sleep(100);
    const at = ports.map((p) => {
      const lines = readFileSync(join(dir, `${p}.mon`), 'utf8').split('\n')
        .filter((l) => l.toLowerCase().includes(`"${word}"`));
      return lines.length ? Number(lines[lines.length - 1].split(' ')[0]) : NaN;
    });
    const delivery = at.slice(1).map((t) => (t - at[0]) * 1000);
    const hops = at.slice(1).map((t, i) => (t - at[i]) * 1000);
    return { delivery, hops };
  } finally {
    for (const k of kids) k.kill('SIGKILL');
    await sleep(100);
    rmSync(dir, { recursive: true, force: true });
  }
}

function lab(name) {
  const r = spawnSync(join(root, 'build', 'native', 'glasskv'), ['run', name], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`glasskv run ${name} failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  return out.runs ?? out;
}

const stats = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return { min: Math.min(...v), avg: v.reduce((a, b) => a + b, 0) / v.length, max: Math.max(...v) };
};
const fmt = (s) => `${s.min.toFixed(2).padStart(6)} ${s.avg.toFixed(2).padStart(6)} ${s.max.toFixed(2).padStart(6)}`;

if (spawnSync('redis-server', ['--version']).status !== 0) {
  console.log('replication: redis-server is not installed; skipped');
  process.exit(0);
}
console.log('\nOne write reaching ten replicas, ms (min avg max): redis-server on this machine against the labs');
console.log('(seed 003, a 2015 machine: star idle 0.7 2.2 4.8, loaded 5.1 22.1 65.8; chain 0.3 per hop idle, 0.7 5.3 15.3 loaded)\n');
for (const chain of [false, true]) {
  const runs = lab(chain ? 'replication-chain' : 'replication-star');
  for (const loaded of [false, true]) {
    const name = loaded ? 'loaded' : 'idle';
    const eng = runs.find((r) => r.name === name);
    const key = chain ? 'hop_ms' : 'delivery_ms';
    console.log(`${chain ? 'chain' : 'star '} ${name.padEnd(6)} lab (${eng.cpus} CPUs, MONITOR on each) ${fmt(stats(eng[key]))}`);
    for (let i = 0; i < RUNS; i++) {
      const real = await realRun(chain, loaded);
      console.log(`${chain ? 'chain' : 'star '} ${name.padEnd(6)} redis-server run ${i + 1}           ${fmt(stats(chain ? real.hops : real.delivery))}`);
    }
  }
}
