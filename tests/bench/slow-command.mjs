// The slow-command lab's own calibration: Debian's redis-server doing the
// lab's steps on this machine, side by side with `glasskv run
// slow-command` in one run.
//
// The steps, for each of KEYS *, the SCAN walk (COUNT 1000), DEL and
// UNLINK of a 1,000,000-member set, FLUSHALL and FLUSHALL ASYNC, on a
// fresh server each: the command called once on an empty db (its latency
// histogram is made then, as in the lab), DEBUG POPULATE 1000000 (and the
// set, SADD bigset m:0 ... m:999999 a thousand at a time), CONFIG
// RESETSTAT and SLOWLOG RESET; 50 clients each doing GET key:<random>, one
// at a time, from a thread of their own; 50 ms in, the command (the SCAN
// cursor walked to its end); 50 ms after its last reply, and on while the
// lazy-free thread has objects pending (INFO's lazyfree_pending_objects,
// polled every millisecond). Then INFO commandstats, SLOWLOG GET 1 and
// DBSIZE. The lazy-free thread's time is its CPU time over that span, as
// Linux counts it for the server's thread named bio_lazy_free
// (/proc/<pid>/task/<tid>/schedstat), as the lab counts its own thread's.
//
// Compared, each within 25% of the real server's (the median of --reps
// runs): the command's time in INFO commandstats, the slow log's entry,
// the lazy-free thread's time, and the GETs' worst wait while a command
// holds the server. The GETs' usual wait is printed beside them but not
// compared: it is this script's clients' (Node on loopback), not the
// lab's 50 simulated ones. Times under a millisecond (a command that
// returns at once) are compared as that: both under a millisecond.
//
//   node tests/bench/slow-command.mjs [--reps 3] [--only KEYS,SCAN]
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { glasskvBin, openConnection, root, sleep, startServer } from '../server/servers.mjs';
import { flag } from './flags.mjs';

const REPS = Number(flag('--reps', '3'));
const ONLY = flag('--only', '').split(',').filter(Boolean);
const KEYS = 1_000_000;
const BEFORE_MS = 50;
const AFTER_MS = 50;
const TOLERANCE = 0.25;
// the clock the GET clients' thread reads too
const now = () => performance.timeOrigin + performance.now();

// As the lab's runs (engine/src/labs_slow.c), by name.
const RUNS = [
  { name: 'KEYS', stat: 'keys', command: 'KEYS *' },
  { name: 'SCAN', stat: 'scan', command: 'SCAN %s COUNT 1000', scan: true },
  { name: 'DEL of a big set', stat: 'del', command: 'DEL bigset', set: true },
  { name: 'UNLINK of a big set', stat: 'unlink', command: 'UNLINK bigset', set: true },
  { name: 'FLUSHALL', stat: 'flushall', command: 'FLUSHALL' },
  { name: 'FLUSHALL ASYNC', stat: 'flushall', command: 'FLUSHALL ASYNC' },
];

/** A reader of one RESP2 reply fed chunk by chunk, keeping only what it
 *  has not parsed yet: feed() is true once the reply is whole. A 17 MB
 *  KEYS reply is read in one pass. keep: the reply's text is kept too. */
function replyReader(keep = false) {
  let tail = '';
  let text = '';
  const left = [];
  return {
    text: () => text,
    feed(chunk) {
      const s = tail + chunk.toString('latin1');
      if (keep) text += chunk.toString('latin1');
      let at = 0;
      for (;;) {
        const nl = s.indexOf('\r\n', at);
        if (nl < 0) break;
        const type = s[at];
        const n = Number(s.slice(at + 1, nl));
        let end = nl + 2;
        if (type === '$' && n >= 0) {
          if (s.length < end + n + 2) break;
          end += n + 2;
        }
        at = end;
        if (type === '*' && n > 0) {
          left.push(n);
          continue;
        }
        while (left.length && --left[left.length - 1] === 0) left.pop();
        if (!left.length) {
          tail = s.slice(at);
          return true;
        }
      }
      tail = s.slice(at);
      return false;
    },
  };
}

/** Sends one command and resolves with its reply's text (kept) once it
 *  is whole; rejects if the connection ends first or no reply comes in
 *  60 s. */
function ask(conn, line, keep = true) {
  return new Promise((resolve, reject) => {
    const r = replyReader(keep);
    const done = () => {
      clearTimeout(timer);
      conn.sock.off('data', onData);
      conn.sock.off('close', onClose);
    };
    const onData = (d) => {
      if (!r.feed(d)) return;
      done();
      resolve(r.text());
    };
    const onClose = () => {
      done();
      reject(new Error(`slow-command: the connection closed during ${line.slice(0, 40)}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`slow-command: no reply in 60 s to ${line.slice(0, 40)}`));
    }, 60_000);
    conn.chunks = [];
    conn.sock.on('data', onData);
    conn.sock.on('close', onClose);
    conn.send(`${line}\r\n`);
  });
}

// The GET clients, in a thread of their own so that reading a command's
// big reply here does not hold them up. Each GET's start (on the clock
// both threads share, performance.timeOrigin + performance.now()) and
// wait are kept.
const GETTER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createConnection } = require('node:net');
const { performance } = require('node:perf_hooks');
const now = () => performance.timeOrigin + performance.now();
const { port, clients, keys } = workerData;
const starts = [], waits = [];
let stopping = false, open = 0;
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % keys;
for (let i = 0; i < clients; i++) {
  const sock = createConnection({ host: '127.0.0.1', port });
  let sent = 0, buf = '';
  const send = () => {
    if (stopping) { sock.destroy(); return; }
    sent = now();
    sock.write('GET key:' + next() + '\\r\\n');
  };
  sock.on('connect', () => { if (++open === clients) parentPort.postMessage('started'); send(); });
  sock.on('data', (d) => {
    buf += d.toString('latin1');
    // a value's bulk string or a nil: one reply a client at a time
    const nl = buf.indexOf('\\r\\n');
    if (nl < 0) return;
    const n = Number(buf.slice(1, nl));
    if (n >= 0 && buf.length < nl + 2 + n + 2) return;
    buf = '';
    starts.push(sent);
    waits.push(now() - sent);
    send();
  });
  sock.on('error', (e) => parentPort.postMessage({ error: String(e) }));
}
parentPort.on('message', () => {
  stopping = true;
  parentPort.postMessage({ starts, waits });
});
`;

function startGetters(port) {
  const worker = new Worker(GETTER, { eval: true, workerData: { port, clients: 50, keys: KEYS } });
  const started = new Promise((resolve, reject) => worker.once('message', (m) =>
    (m === 'started' ? resolve() : reject(new Error(`slow-command: a GET client: ${m.error}`)))));
  return {
    started,
    terminate: () => worker.terminate(),
    async stop() {
      const got = new Promise((resolve) => {
        const take = (m) => {
          if (!m?.starts) return;     // a client's late error: not the figures
          worker.off('message', take);
          resolve(m);
        };
        worker.on('message', take);
      });
      worker.postMessage('stop');
      const r = await got;
      await worker.terminate();
      return r;
    },
  };
}

const field = (text, name) => {
  const m = new RegExp(`${name}[=:](-?[\\d.]+)`).exec(text);
  return m ? Number(m[1]) : -1;
};

function quantile(sorted, q) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The nanoseconds a thread of process pid named name has spent on a CPU,
 *  as Linux counts them; the script stops when there is no such thread. */
function threadCpuNs(pid, name) {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'latin1').trim() !== name) continue;
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
  }
  throw new Error(`slow-command: redis-server (pid ${pid}) has no thread named ${name}`);
}

/** ask(), where an error reply stops the script. */
async function must(conn, line) {
  const reply = await ask(conn, line);
  if (reply.startsWith('-')) throw new Error(`slow-command: ${line.slice(0, 40)}: ${reply.trim()}`);
  return reply;
}

async function realRun(run) {
  const server = await startServer('redis', ['--enable-debug-command', 'yes', '--appendonly', 'no']);
  const c = await openConnection(server.port);
  const poll = await openConnection(server.port);
  let getters = null;
  try {
    await must(c, 'SELECT 9');
    await must(c, run.command.replace('%s', '0'));
    await must(c, 'SELECT 0');
    await must(c, `DEBUG POPULATE ${KEYS}`);
    if (run.set) {
      for (let i = 0; i < KEYS; i += 1000) {
        const parts = ['SADD bigset'];
        for (let j = i; j < i + 1000; j++) parts.push(`m:${j}`);
        await must(c, parts.join(' '));
      }
    }
    await must(c, 'CONFIG RESETSTAT');
    await must(c, 'SLOWLOG RESET');
    getters = startGetters(server.port);
    await getters.started;
    const start = now();
    await sleep(BEFORE_MS);
    const lazyCpu0 = threadCpuNs(server.proc.pid, 'bio_lazy_free');
    const t0 = now();
    let cursor = '0';
    do {
      const reply = await ask(c, run.command.replace('%s', cursor), !!run.scan);
      if (run.scan) cursor = /^\*2\r\n\$\d+\r\n(\d+)/.exec(reply)?.[1] ?? '0';
    } while (run.scan && cursor !== '0');
    const t1 = now();
    // the lazy-free thread's work, from the reply until nothing is pending
    // (polled), at most 60 s: its CPU time, and the wall time it took
    let lazyWallMs = 0;
    for (let k = 0; k < 60_000; k++) {
      const pending = field(await ask(poll, 'INFO memory'), 'lazyfree_pending_objects');
      if (pending <= 0) break;
      lazyWallMs = now() - t1;
      await sleep(1);
    }
    const lazyMs = (threadCpuNs(server.proc.pid, 'bio_lazy_free') - lazyCpu0) / 1e6;
    const rest = t1 + AFTER_MS - now();
    if (rest > 0) await sleep(rest);
    const end = now();
    const { starts, waits } = await getters.stop();
    const stats = await ask(c, 'INFO commandstats');
    const line = stats.split('\r\n').find((l) => l.startsWith(`cmdstat_${run.stat}:`)) ?? '';
    const calls = field(line, 'calls');
    const usec = field(line, 'usec');
    const slow = await ask(c, 'SLOWLOG GET 1');
    // *1 *6 :id :time :duration ...
    const slowUs = slow.startsWith('*1') ? Number(slow.split('\r\n')[4].slice(1)) : -1;
    const dbsize = Number((await ask(c, 'DBSIZE')).slice(1));
    const sorted = [...waits].sort((a, b) => a - b);
    const before = waits.filter((_, i) => starts[i] + waits[i] <= t0);
    return {
      name: run.name, calls, usec, usec_per_call: calls > 0 ? usec / calls : 0,
      wall_ms: t1 - t0, slowlog_usec: slowUs, lazyfree_ms: lazyMs, lazyfree_wall_ms: lazyWallMs, dbsize_after: dbsize,
      get: {
        clients: 50, commands: waits.length, ops_per_sec: waits.length / ((end - start) / 1000),
        p50_ms: quantile(sorted, 0.5), p99_ms: quantile(sorted, 0.99),
        max_ms: sorted.length ? sorted[sorted.length - 1] : 0,
        max_ms_before: before.length ? Math.max(...before) : 0,
      },
    };
  } finally {
    await getters?.terminate();
    c.close();
    poll.close();
    await server.stop('SIGKILL');
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Prints a figure of the real server's runs (their median) beside the
 *  lab's, and returns how it compares: { ok, byRatio }, or null when it
 *  is not compared. Agreeing as none in both or as both under 1 ms is not
 *  a ratio; one side without the other is a miss. */
function compare(label, real, lab, unit, compared = true) {
  let verdict = '(not compared)';
  let result = null;
  if (compared) {
    const small = unit === 'us' ? 1000 : 1;
    if (real < 0 || lab < 0) result = { ok: real === lab, byRatio: false, why: 'none in both' };
    else if (real < small && lab < small) result = { ok: true, byRatio: false, why: 'both under 1 ms' };
    else result = { ok: Math.abs(lab / real - 1) <= TOLERANCE, byRatio: true, why: 'by ratio' };
    verdict = `${result.ok ? 'met' : 'NOT met'} (${result.ok || result.byRatio ? result.why : 'in one only'})`;
  }
  const fmt = (v) => (v === null ? '-' : v < 0 ? 'none' : v.toLocaleString('en-US', { maximumFractionDigits: 2 }));
  const ratio = real > 0 && lab !== null && lab >= 0 ? (lab / real).toFixed(2) : '-';
  console.log(`  ${label.padEnd(30)} ${fmt(real).padStart(12)} ${fmt(lab).padStart(12)} ${unit.padEnd(3)} ${ratio.padStart(6)}  ${verdict}`);
  return result;
}

spawnSync('make', ['-s', '-C', join(root, 'engine')], { stdio: 'inherit' });
const lab = spawnSync(glasskvBin, ['run', 'slow-command'], { encoding: 'utf8', maxBuffer: 16 << 20 });
if (lab.status !== 0) {
  console.error(`slow-command: glasskv run slow-command failed\n${lab.stderr}`);
  process.exit(1);
}
const labRuns = JSON.parse(lab.stdout).runs;

console.log(`The slow-command lab against redis-server on this machine, the same steps (${REPS} runs each, the median)`);
console.log(`  ${'figure'.padEnd(30)} ${'redis-server'.padStart(12)} ${'lab'.padStart(12)}     ${'ratio'.padStart(6)}`);
let met = 0;
let total = 0;
let trivial = 0;
let missed = 0;
for (const run of RUNS) {
  if (ONLY.length && !ONLY.some((o) => run.name.startsWith(o))) continue;
  const reals = [];
  for (let i = 0; i < REPS; i++) reals.push(await realRun(run));
  const m = (f) => median(reals.map(f));
  const l = labRuns.find((r) => r.name === run.name);
  console.log(`${run.name}: ${run.scan ? 'SCAN <cursor> COUNT 1000' : run.command}`);
  const holds = m((r) => r.usec_per_call) >= 10000;
  const rows = [
    ['calls', m((r) => r.calls), l.calls, '', false],
    ['time in INFO commandstats', m((r) => r.usec), l.usec, 'us', true],
    ['slow log entry', m((r) => r.slowlog_usec), l.slowlog_usec, 'us', true],
    ['lazy-free thread, CPU', m((r) => r.lazyfree_ms), l.lazyfree_ms, 'ms', true],
    ['lazy-free thread, wall', m((r) => r.lazyfree_wall_ms), null, 'ms', false],
    ['GETs\' worst wait', m((r) => r.get.max_ms), l.get.max_ms, 'ms', holds],
    ['GETs\' worst wait before it', m((r) => r.get.max_ms_before), l.get.max_ms_before, 'ms', false],
    ['GETs\' median wait', m((r) => r.get.p50_ms), l.get.p50_ms, 'ms', false],
    ['GETs per second', m((r) => r.get.ops_per_sec), l.get.ops_per_sec, '', false],
    ['keys after', m((r) => r.dbsize_after), l.dbsize_after, '', false],
  ];
  for (const [label, real, labv, unit, compared] of rows) {
    const r = compare(label, real, labv, unit, compared);
    if (r?.byRatio) {
      total++;
      if (r.ok) met++;
    } else if (r) {
      if (r.ok) trivial++;
      else missed++;
    }
  }
}
console.log(`\n${met} of ${total} figures compared by ratio within ${TOLERANCE * 100}% of redis-server's (the GETs' worst wait where the command holds the server 10 ms or more); ${trivial} more agree as none in both or both under 1 ms, ${missed} are in one and not the other`);
