// The real memcached side of the benchmark: starts Debian's memcached
// 1.6.18 on loopback, sends it the very sets of a glasskv fill workload
// (gkMemcachedFill's keys and values, fixed sizes), pipelined in batches,
// and reads back what it says about its memory.
//
// memcached runs with -o no_lru_maintainer, the classic per-class LRU the
// engine implements (as the differential tests do), so that both evict by
// the same rule.
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { readFileSync } from 'node:fs';

const MEMCACHED = '/usr/bin/memcached';

/** A port nothing listens on now (the kernel picks it). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => resolve(sock));
    sock.once('error', reject);
  });
}

/** Polls until memcached accepts connections. */
async function waitListening(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const s = await connect(port);
      s.destroy();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`memcached on ${port} never listened`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** A connection whose replies are read line by line as they arrive. */
class Client {
  constructor(sock) {
    this.sock = sock;
    this.buf = '';
    this.waiters = [];
    sock.setEncoding('latin1');
    sock.on('data', (d) => { this.buf += d; this.wake(); });
  }

  wake() {
    for (const w of [...this.waiters]) if (w.check()) this.waiters.splice(this.waiters.indexOf(w), 1);
  }

  /** Resolves with n whole lines, removed from the buffer. */
  lines(n) {
    return new Promise((resolve) => {
      const check = () => {
        let at = 0;
        for (let k = 0; k < n; k++) {
          const e = this.buf.indexOf('\n', at);
          if (e < 0) return false;
          at = e + 1;
        }
        const got = this.buf.slice(0, at).split('\r\n').slice(0, n);
        this.buf = this.buf.slice(at);
        resolve(got);
        return true;
      };
      if (!check()) this.waiters.push({ check });
    });
  }

  /** Resolves with everything up to and including "END\r\n". */
  untilEnd() {
    return new Promise((resolve) => {
      const check = () => {
        const e = this.buf.indexOf('END\r\n');
        if (e < 0) return false;
        const got = this.buf.slice(0, e + 5);
        this.buf = this.buf.slice(e + 5);
        resolve(got);
        return true;
      };
      if (!check()) this.waiters.push({ check });
    });
  }
}

/** Set i of a fixed-size fill: gkMemcachedFill's key (i % keyspace as
 *  keyBytes zero-padded digits) and value (the key's last digit). */
function setOf(i, spec) {
  const key = String(i % spec.keyspace).padStart(spec.keyBytes, '0');
  return `set ${key} 0 0 ${spec.size}\r\n${key.at(-1).repeat(spec.size)}\r\n`;
}

function statsOf(text) {
  const out = {};
  for (const m of text.matchAll(/STAT (\S+) (\S+)\r\n/g)) out[m[1]] = Number.isNaN(Number(m[2])) ? m[2] : Number(m[2]);
  return out;
}

function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : -1;
}

/** Sends sets 0 .. sets-1 of a fixed-size fill (spec: size, keyBytes,
 *  keyspace) to a fresh memcached started with `options`, 100 sets per
 *  write as gkMemcachedFill pipelines them, and returns its replies'
 *  counts, `stats` and `stats slabs` figures and its resident memory. */
export async function realMemcachedFill(options, spec, sets) {
  const port = await freePort();
  const user = process.getuid && process.getuid() === 0 ? ['-u', 'root'] : [];
  const proc = spawn(MEMCACHED, [...user, '-p', String(port), '-l', '127.0.0.1', '-U', '0',
    '-o', 'no_lru_maintainer', ...options.split(' ').filter(Boolean)], { stdio: 'ignore' });
  try {
    await waitListening(port, 5000);
    const c = new Client(await connect(port));
    const rssBefore = rssBytes(proc.pid);
    let stored = 0, outOfMemory = 0, other = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < sets; i += 100) {
      const n = Math.min(100, sets - i);
      let batch = '';
      for (let k = 0; k < n; k++) batch += setOf(i + k, spec);
      c.sock.write(batch, 'latin1');
      for (const line of await c.lines(n)) {
        if (line === 'STORED') stored++;
        else if (line === 'SERVER_ERROR out of memory storing object') outOfMemory++;
        else other++;
      }
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    c.sock.write('stats\r\n');
    const stats = statsOf(await c.untilEnd());
    c.sock.write('stats slabs\r\n');
    const slabs = statsOf(await c.untilEnd());
    const rss = rssBytes(proc.pid);
    c.sock.destroy();
    return {
      sets, stored, outOfMemory, other, seconds,
      setsPerSec: sets / seconds,
      evictions: stats.evictions, currItems: stats.curr_items, bytes: stats.bytes,
      totalMalloced: slabs.total_malloced, activeSlabs: slabs.active_slabs,
      rss, rssBefore, version: stats.version,
    };
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }
}
