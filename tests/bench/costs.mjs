// What a command costs, Debian's redis-server 7.0 against the engine's
// virtual CPU time, side by side in one run: for each row, the same data
// is built in both (at 10k, 100k and 1M elements where the size matters),
// the command is run, and INFO commandstats' usec_per_call is read from
// each: the real server's measured time, the engine's simulated one (its
// `glasskv cli` world). The table is what the engine's cost model is
// calibrated against (engine/src/cost.h and what uses it).
//
//   node tests/bench/costs.mjs [--sizes 10000,100000] [--only KEYS,SCAN]
//                              [--reps 3] [--write] [--engine]
//
// The real server's figure is the median of --reps runs, each on freshly
// built data (the engine's is the same every time). Beside it, the
// runs' spread: their lowest and highest against the median. Where the
// real server itself strays more than 25% from its median from one run to
// the next, a ratio within ±25% of that median says little either way, so
// such rows are counted apart. The machines these
// run on differ (a 32 MB L3 cache or a 480 MB one), and so do the real
// server's times on them, by up to 3x for the same row: tests/bench/
// costs.json keeps a table per machine measured, and the cost model is
// fitted across them. --write adds this machine's table to it (or
// replaces the one of the same processor and caches). --engine runs the
// engine alone and compares it with every table kept.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { glasskvBin as glasskv, root, startServer } from '../server/servers.mjs';
import { flag } from './flags.mjs';

const SIZES = flag('--sizes', '10000,100000,1000000').split(',').map(Number);
const ONLY = flag('--only', '').split(',').filter(Boolean);
const REPS = Number(flag('--reps', '3'));

/** Lines adding n members to a collection, 1000 to a command. */
function fill(cmd, key, n, member) {
  const lines = [];
  for (let i = 0; i < n; i += 1000) {
    const parts = [cmd, key];
    for (let j = i; j < Math.min(n, i + 1000); j++) parts.push(...member(j));
    lines.push(parts.join(' '));
  }
  return lines;
}

const populate = (n) => [`DEBUG POPULATE ${n}`];
const set = (n, key = 's') => fill('SADD', key, n, (j) => [`member:${j}`]);
const hash = (n) => fill('HSET', 'h', n, (j) => [`field:${j}`, `value:${j}`]);
const zset = (n, key = 'z') => fill('ZADD', key, n, (j) => [j, `member:${j}`]);
const list = (n) => fill('RPUSH', 'l', n, (j) => [`element:${j}`]);
const numbers = (n) => fill('RPUSH', 'l', n, (j) => [(j * 7919) % n]);
const calls = (n, line) => Array.from({ length: n }, (_, i) => line(i));

// name, the cmdstat it is read from, whether it depends on the size, the
// data, and the commands timed (usec_per_call is their average; a command
// that leaves the data as it was is timed a few times, as a first call
// alone also pays for cold caches).
const ROWS = [
  ['KEYS *', 'keys', true, populate, () => calls(3, () => 'KEYS *')],
  // ten calls from cursors far apart, as a walk's calls each read buckets
  // of their own (ten calls from 0 would read the same 1000 keys, in cache
  // after the first)
  ['SCAN c COUNT 1000', 'scan', true, populate, () => calls(10, (i) => `SCAN ${(i + 1) * 104729} COUNT 1000`)],
  ['FLUSHALL', 'flushall', true, populate, () => ['FLUSHALL']],
  ['FLUSHALL ASYNC', 'flushall', true, populate, () => ['FLUSHALL ASYNC']],
  ['DEBUG POPULATE', 'debug', true, () => [], (n) => [`DEBUG POPULATE ${n}`]],
  ['DEL of a set', 'del', true, set, () => ['DEL s']],
  ['UNLINK of a set', 'unlink', true, set, () => ['UNLINK s']],
  ['DEL of a hash', 'del', true, hash, () => ['DEL h']],
  ['DEL of a zset', 'del', true, zset, () => ['DEL z']],
  ['DEL of a list', 'del', true, list, () => ['DEL l']],
  ['SMEMBERS', 'smembers', true, set, () => calls(3, () => 'SMEMBERS s')],
  ['HGETALL', 'hgetall', true, hash, () => calls(3, () => 'HGETALL h')],
  ['LRANGE 0 -1', 'lrange', true, list, () => calls(3, () => 'LRANGE l 0 -1')],
  ['ZRANGE 0 -1', 'zrange', true, zset, () => calls(3, () => 'ZRANGE z 0 -1')],
  ['SUNIONSTORE', 'sunionstore', true,
    (n) => [...set(n / 2, 's1'), ...fill('SADD', 's2', n / 2, (j) => [`other:${j}`])],
    () => ['SUNIONSTORE d s1 s2']],
  ['ZUNIONSTORE', 'zunionstore', true,
    (n) => [...zset(n / 2, 'z1'), ...fill('ZADD', 'z2', n / 2, (j) => [j, `other:${j}`])],
    () => ['ZUNIONSTORE d 2 z1 z2']],
  // a walk down the skiplist to a member's rank (after its dict lookup);
  // ZCOUNT's to a range's two ends, and their ranks
  ['ZRANK', 'zrank', true, zset, (n) => calls(1000, (i) => `ZRANK z member:${(i * 7919) % n}`)],
  ['ZCOUNT', 'zcount', true, zset, (n) => calls(1000, (i) => `ZCOUNT z ${(i * 7919) % n} ${(i * 7919) % n + 10}`)],
  ['SORT', 'sort', true, numbers, () => calls(3, () => 'SORT l')],
  ['MGET of 100 keys', 'mget', false, () => populate(100),
    () => calls(100, () => `MGET ${calls(100, (i) => `key:${i}`).join(' ')}`)],
  ['SET of 1 MB', 'set', false, () => [], () => calls(10, (i) => `SET big:${i} ${'x'.repeat(1 << 20)}`)],
  ['GET', 'get', false, () => populate(1000), () => calls(10000, (i) => `GET key:${i % 1000}`)],
  ['SET', 'set', false, () => [], () => calls(10000, (i) => `SET k:${i} v${i}`)],
  ['INCR', 'incr', false, () => [], () => calls(10000, (i) => `INCR c:${i % 100}`)],
  ['LPUSH', 'lpush', false, () => [], () => calls(10000, (i) => `LPUSH q e${i}`)],
  ['ZADD', 'zadd', false, () => [], () => calls(10000, (i) => `ZADD zz ${i} m${i}`)],
  // a listpack of 128 pairs (the default limit) searched element by element
  ['HGET in a listpack of 128', 'hget', false,
    () => [`HSET lh ${calls(128, (j) => `field:${j} value:${j}`).join(' ')}`],
    () => calls(10000, (i) => `HGET lh field:${(i * 7) % 128}`)],
  ['ZRANK in a listpack of 128', 'zrank', false,
    () => [`ZADD lz ${calls(128, (j) => `${j} member:${j}`).join(' ')}`],
    () => calls(10000, (i) => `ZRANK lz member:${(i * 7) % 128}`)],
];

/** Inline command lines as RESP, split at spaces. */
function resp(lines) {
  return lines.map((l) => {
    const a = l.split(' ');
    return `*${a.length}\r\n${a.map((x) => `$${Buffer.byteLength(x)}\r\n${x}\r\n`).join('')}`;
  }).join('');
}

function usecPerCall(info, stat) {
  const m = new RegExp(`cmdstat_${stat.replace('|', '\\|')}:calls=(\\d+),usec=(\\d+)`).exec(info);
  return m ? Number(m[2]) / Number(m[1]) : NaN;
}

function redisPipe(port, lines) {
  const r = spawnSync('redis-cli', ['-p', String(port), '--pipe'],
    { input: resp(lines), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (!/errors: 0,/.test(r.stdout)) throw new Error(`redis-cli --pipe: ${r.stdout}${r.stderr}`);
}

function redisRow(port, setup, timed, stat) {
  redisPipe(port, ['FLUSHALL', ...setup]);
  redisPipe(port, ['CONFIG RESETSTAT', ...timed]);
  const info = spawnSync('redis-cli', ['-p', String(port), 'INFO', 'commandstats'], { encoding: 'utf8' }).stdout;
  return usecPerCall(info, stat);
}

function engineRow(setup, timed, stat) {
  const input = [...setup, 'CONFIG RESETSTAT', ...timed, 'INFO commandstats'].join('\n') + '\n';
  const r = spawnSync(glasskv, ['cli'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`glasskv cli: ${r.stderr}`);
  return usecPerCall(r.stdout.slice(r.stdout.lastIndexOf('# Commandstats')), stat);
}

/** This machine: its processor, CPUs and caches. */
function machine() {
  const cache = (i) => {
    try {
      return readFileSync(`/sys/devices/system/cpu/cpu0/cache/index${i}/size`, 'utf8').trim();
    } catch {
      return '?';
    }
  };
  return `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} CPUs, L2 ${cache(2)}, L3 ${cache(3)}`;
}

const JSON_PATH = join(root, 'tests', 'bench', 'costs.json');
const kept = JSON.parse(readFileSync(JSON_PATH, 'utf8'));
const within = (ratio) => ratio >= 0.75 && ratio <= 1.25;
const fmtN = (n) => (n === null ? '' : n.toLocaleString('en-US')).padStart(10);

spawnSync('make', ['-s', '-C', join(root, 'engine')], { stdio: 'inherit' });
const selected = ROWS.filter(([name]) => !ONLY.length || ONLY.some((o) => name.startsWith(o)));

if (process.argv.includes('--engine')) {
  // The engine alone, against every machine's table kept.
  const names = kept.machines.map((m, i) => `machine ${i + 1}`);
  kept.machines.forEach((m, i) => console.log(`machine ${i + 1}: ${m.cpu} (measured ${m.measured})`));
  console.log(`${'command'.padEnd(20)} ${'elements'.padStart(10)} ${'engine usec'.padStart(12)} `
    + names.map((n) => `${n.padStart(12)} ratio`).join(' '));
  const counts = kept.machines.map(() => [0, 0]);
  for (const [name, stat, sized, setup, timed] of selected) {
    for (const n of sized ? SIZES : [null]) {
      const engine = engineRow(setup(n ?? 0), timed(n ?? 0), stat);
      const cells = kept.machines.map((m, i) => {
        const row = m.rows.find((r) => r.name === name && r.n === n);
        if (!row) return `${'-'.padStart(12)}      `;
        const ratio = engine / row.redis;
        counts[i][0] += within(ratio) ? 1 : 0;
        counts[i][1]++;
        return `${row.redis.toFixed(2).padStart(12)} ${ratio.toFixed(2).padStart(5)}`;
      });
      console.log(`${name.padEnd(20)} ${fmtN(n)} ${engine.toFixed(2).padStart(12)} ${cells.join(' ')}`);
    }
  }
  counts.forEach(([w, t], i) => console.log(`machine ${i + 1}: ${w} of ${t} rows within ±25%`));
  process.exit(0);
}

const server = await startServer('redis', ['--enable-debug-command', 'yes', '--appendonly', 'no']);
const { port } = server;
const table = [];
console.log(`on ${machine()}`);
console.log(`${'command'.padEnd(20)} ${'elements'.padStart(10)} ${'redis usec'.padStart(12)}`
  + ` ${'its runs'.padStart(11)} ${'engine usec'.padStart(12)} ${'ratio'.padStart(8)}`
  + '   (usec_per_call of INFO commandstats; its runs: lowest and highest / median)');
try {
  for (const [name, stat, sized, setup, timed] of selected) {
    for (const n of sized ? SIZES : [null]) {
      const s = setup(n ?? 0), t = timed(n ?? 0);
      const runs = Array.from({ length: REPS }, () => redisRow(port, s, t, stat)).sort((a, b) => a - b);
      const redis = runs[Math.floor(runs.length / 2)];
      const engine = engineRow(s, t, stat);
      const row = { name, n, redis: Number(redis.toFixed(2)), engine: Number(engine.toFixed(2)),
        ratio: Number((engine / redis).toFixed(3)),
        low: Number((runs[0] / redis).toFixed(2)), high: Number((runs.at(-1) / redis).toFixed(2)) };
      table.push(row);
      console.log(`${name.padEnd(20)} ${fmtN(n)} ${row.redis.toFixed(2).padStart(12)}`
        + ` ${`${row.low.toFixed(2)}-${row.high.toFixed(2)}`.padStart(11)}`
        + ` ${row.engine.toFixed(2).padStart(12)} ${row.ratio.toFixed(2).padStart(8)}`);
    }
  }
} finally {
  await server.stop();
}
const off = table.filter((r) => !within(r.ratio));
console.log(`\n${table.length - off.length} of ${table.length} rows within ±25% (engine usec per call against redis-server's)`);
// the rows the real server itself does not hold to ±25% of its median
const loose = table.filter((r) => !within(r.low) || !within(r.high));
if (REPS > 1) {
  console.log(`in ${loose.length} of the ${table.length} rows, redis-server's own runs strayed more than 25% from their median`
    + `${loose.length ? ` (${loose.map((r) => `${r.name}${r.n ? ` ${fmtN(r.n).trim()}` : ''}`).join(', ')})` : ''};`
    + ` of the other ${table.length - loose.length},`
    + ` ${table.filter((r) => !loose.includes(r) && within(r.ratio)).length} are within ±25%`);
}
if (process.argv.includes('--write')) {
  const cpu = machine();
  // rows measured now replace those of this machine's table; the others stay
  const old = kept.machines.find((m) => m.cpu === cpu)?.rows ?? [];
  const fresh = table.map(({ name, n, redis, low, high }) => ({ name, n, redis, low, high }));
  const rows = ROWS.flatMap(([name]) => [...new Map([...old, ...fresh]
    .filter((r) => r.name === name).map((r) => [r.n, r])).values()]);
  const entry = { cpu, measured: new Date().toISOString().slice(0, 10), reps: REPS, rows };
  const machines = kept.machines.filter((m) => m.cpu !== cpu);
  // a row a line
  const text = JSON.stringify({ unit: 'usec_per_call', machines: [...machines, entry] }, null, 1)
    .replace(/\{\n\s+("name": .*,)\n\s+("n": .*,)\n\s+("redis": [^\n]*)(?:\n\s+("low": .*,)\n\s+("high": .*))?\n\s+\}/g,
      (_, a, b, c, d, e) => `{ ${[a, b, c, d, e].filter(Boolean).join(' ')} }`);
  writeFileSync(JSON_PATH, `${text}\n`);
  console.log(`wrote this machine's table to tests/bench/costs.json (${machines.length + 1} machines)`);
}
