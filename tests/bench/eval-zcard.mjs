// Calibrates the eval-vs-zcard lab against the real thing on this machine:
// starts Debian's redis-server on a free port, loads seed 004's dataset
// (1,000,000 sorted sets KEY0 .. KEY999999, each holding DATA at score 0)
// with pipelined ZADDs, runs seed 004's EVAL over every key five times and
// takes the median of what INFO commandstats says each one took
// (cmdstat_eval's usec, before and after each); then a ZCARD per key, for
// cmdstat_zcard's usec_per_call. It runs the lab headless
// (`glasskv run eval-vs-zcard`) and prints both sides with their ratio.
//
//   node tests/bench/eval-zcard.mjs [--json]
//
// With --json it prints one JSON object instead; npm run bench imports
// printEvalZcard.
// The engine's side is virtual time, the same in every run; redis-server's
// is wall time on a machine others share, so the ratio moves with the
// machine's load.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server/servers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const glasskv = join(root, 'build', 'native', 'glasskv');
const KEYS = 1_000_000;
const EVALS = 5;
// Seed 004's script, as redis-rb sends it (102 bytes).
const SCRIPT = "\nlocal sum = 0\nfor index, key in pairs(KEYS) do\n  sum = sum + redis.call('zcard', key);\nend\nreturn sum";

/** Debian's redis-server on a free port, in a directory of its own. */
async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'glasskv-evalcal-'));
  const server = await startServer('redis', ['--appendonly', 'no', '--dir', dir]);
  return { port: server.port, stop: () => server.stop(), dir };
}

/** A RESP request of these arguments. */
function request(args) {
  const parts = [`*${args.length}\r\n`];
  for (const a of args) parts.push(`$${Buffer.byteLength(a)}\r\n${a}\r\n`);
  return parts.join('');
}

/** One connection that sends requests and awaits a count of replies
 *  (each reply here is one line: an integer, a status or an error). */
function client(port) {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let pending = null;
    let buf = '';
    sock.setEncoding('latin1');
    sock.on('data', (d) => {
      buf += d;
      if (!pending) return;
      const lines = buf.split('\r\n');
      if (lines.length - 1 < pending.count) return;
      const { count, done } = pending;
      pending = null;
      const got = lines.slice(0, count);
      buf = lines.slice(count).join('\r\n');
      done(got);
    });
    sock.once('error', reject);
    sock.once('connect', () => resolve({
      send(data, count) {
        return new Promise((done) => {
          pending = { count, done };
          sock.write(data);
        });
      },
      close() { sock.end(); },
    }));
  });
}

/** INFO commandstats as { cmd: { calls, usec } }. */
function commandStats(port) {
  const r = spawnSync('redis-cli', ['-p', String(port), 'INFO', 'commandstats'], { encoding: 'utf8' });
  const out = {};
  for (const m of r.stdout.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm))
    out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  return out;
}

async function measureRedis() {
  const { port, stop, dir } = await startRedis();
  try {
    const c = await client(port);
    const batch = 10_000;
    for (let i = 0; i < KEYS; i += batch) {
      let data = '';
      for (let k = i; k < i + batch; k++) data += request(['zadd', `KEY${k}`, '0', 'DATA']);
      await c.send(data, batch);
    }
    const keys = Array.from({ length: KEYS }, (_, i) => `KEY${i}`);
    const evalReq = request(['eval', SCRIPT, String(KEYS), ...keys]);
    const evalUsec = [];
    for (let i = 0; i < EVALS; i++) {
      const before = commandStats(port).eval?.usec ?? 0;
      const [reply] = await c.send(evalReq, 1);
      if (reply !== `:${KEYS}`) throw new Error(`EVAL replied ${reply}`);
      evalUsec.push(commandStats(port).eval.usec - before);
    }
    for (let i = 0; i < KEYS; i += batch) {
      let data = '';
      for (let k = i; k < i + batch; k++) data += request(['zcard', `KEY${k}`]);
      await c.send(data, batch);
    }
    const zcard = commandStats(port).zcard;
    c.close();
    const sorted = [...evalUsec].sort((a, b) => a - b);
    return { evalUsec, evalMedianUsec: sorted[Math.floor(EVALS / 2)],
      zcardUsecPerCall: zcard.usec / zcard.calls };
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function runLab() {
  const t0 = performance.now();
  const r = spawnSync(glasskv, ['run', 'eval-vs-zcard'], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`glasskv run eval-vs-zcard failed: ${r.stderr}`);
  const lab = JSON.parse(r.stdout);
  return { lab, wallSeconds: (performance.now() - t0) / 1000 };
}

/** Measures both sides; `quiet` keeps the build and progress off the
 *  terminal. */
export async function evalZcard(quiet = false) {
  spawnSync('make', ['-s', '-C', join(root, 'engine'), '-j2'], { stdio: quiet ? 'ignore' : 'inherit' });
  if (!quiet) console.log(`redis-server: loading ${KEYS.toLocaleString('en-US')} sorted sets, then ${EVALS} EVALs...`);
  const real = await measureRedis();
  if (!quiet) console.log('glasskv: glasskv run eval-vs-zcard...');
  const { lab, wallSeconds } = runLab();
  const evalRun = lab.runs.find((r) => r.command === 'eval');
  const zcardRun = lab.runs.find((r) => r.command === 'zcard');
  const freezeUsec = evalRun.freeze_ms * 1000;
  return {
    redis: real,
    engine: {
      evalUsec: freezeUsec,
      zcardUsecPerCall: zcardRun.server_usec_per_call,
      labWallSeconds: wallSeconds,
    },
    ratio: freezeUsec / real.evalMedianUsec,
    load: loadavg()[0],
  };
}

/** Measures both sides and prints them side by side. */
export async function printEvalZcard() {
  const out = await evalZcard();
  const s = (usec) => `${(usec / 1e6).toFixed(3)} s`;
  const { redis, engine, ratio } = out;
  console.log(`\nseed 004's EVAL over ${KEYS.toLocaleString('en-US')} keys (ZCARD of each, summed):`);
  console.log(`  redis-server 7.0.15  cmdstat_eval per EVAL: ${redis.evalUsec.map(s).join(', ')}; median ${s(redis.evalMedianUsec)}`);
  console.log(`  glasskv engine       freeze of the EVAL:     ${s(engine.evalUsec)} (virtual)`);
  console.log(`  engine / redis       ${ratio.toFixed(2)} (target 0.70 .. 1.30: ${ratio >= 0.7 && ratio <= 1.3 ? 'met' : 'NOT met'})`);
  console.log(`cmdstat_zcard usec_per_call: redis-server ${redis.zcardUsecPerCall.toFixed(2)}, engine ${engine.zcardUsecPerCall.toFixed(2)}`);
  console.log(`the lab took ${engine.labWallSeconds.toFixed(2)} s of wall time natively; 1-minute load average ${out.load.toFixed(1)}`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--json')) console.log(JSON.stringify(await evalZcard(true)));
  else await printEvalZcard();
}
