// Starting and talking to real servers on loopback: `glasskv server` and
// Debian's redis-server 7.0, side by side, each on a free port; raw
// sockets; Debian's redis-cli. Used by tests/server and by
// scripts/redis-suite.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// GLASSKV_BUILD: a build directory of one's own (make -C engine BUILD=...).
export const buildDir = process.env.GLASSKV_BUILD ?? join(root, 'build', 'native');
export const glasskvBin = join(buildDir, 'glasskv');
export const REDIS_SERVER = '/usr/bin/redis-server';
export const REDIS_CLI = '/usr/bin/redis-cli';
export const REDIS_BENCHMARK = '/usr/bin/redis-benchmark';
export const REDIS_CHECK_AOF = '/usr/bin/redis-check-aof';

/** A port nothing listens on now, from the kernel. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A connection that stays open: send(), the bytes so far, take() them,
 *  closed, close(), and its socket. */
export function openConnection(port) {
  return new Promise((resolve, reject) => {
    const c = { chunks: [], closed: false };
    const sock = createConnection({ host: '127.0.0.1', port });
    c.sock = sock;
    sock.on('data', (d) => c.chunks.push(d));
    sock.on('close', () => { c.closed = true; });
    sock.on('error', () => { c.closed = true; });
    c.send = (text) => sock.write(text);
    c.bytes = () => Buffer.concat(c.chunks).toString('latin1');
    c.take = () => {
      const s = c.bytes();
      c.chunks = [];
      return s;
    };
    c.close = () => sock.destroy();
    sock.once('connect', () => resolve(c));
    sock.once('error', reject);
  });
}

/** Waits until fn() holds, up to ms; returns whether it did. */
export async function until(fn, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** Where the RESP value starting at i in s ends, or -1 if it is not all
 *  there yet. */
export function respEnd(s, i = 0) {
  const eol = s.indexOf('\r\n', i);
  if (eol < 0) return -1;
  const type = s[i];
  const n = Number(s.slice(i + 1, eol));
  if (type === '$' || type === '=' || type === '!') {
    if (n < 0) return eol + 2;
    return s.length >= eol + 2 + n + 2 ? eol + 2 + n + 2 : -1;
  }
  if ('*%~>|'.includes(type)) {
    let at = eol + 2;
    const items = type === '%' || type === '|' ? 2 * n : n;
    for (let k = 0; k < items && at >= 0; k++) at = respEnd(s, at);
    return n < 0 ? eol + 2 : at;
  }
  return eol + 2;
}

/** Sends one command on an openConnection and waits for its whole reply
 *  (or 300 ms of none). */
export async function command(c, text) {
  c.send(`${text}\r\n`);
  await until(() => c.bytes().length > 0 && respEnd(c.bytes()) === c.bytes().length, 300);
  return c.take();
}

/**
 * Sends bytes on a new connection and collects what comes back until the
 * server closes it or `quietMs` pass without a byte. Resolves with
 * { data: Buffer, closed: boolean }.
 */
export function raw(port, bytes, quietMs = 300) {
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    const chunks = [];
    let timer;
    const done = (closed) => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ data: Buffer.concat(chunks), closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => done(false), quietMs);
    };
    sock.once('error', (e) => (chunks.length ? done(true) : reject(e)));
    sock.on('data', (d) => {
      chunks.push(d);
      arm();
    });
    sock.once('end', () => done(true));
    sock.once('connect', () => {
      sock.write(bytes);
      arm();
    });
  });
}

/** Runs redis-cli against port with args (and optional stdin). */
export function cli(port, args, input) {
  const r = spawnSync(REDIS_CLI, ['-p', String(port), ...args], {
    input, maxBuffer: 64 << 20, timeout: 30000,
  });
  if (r.error) throw r.error;
  return { out: r.stdout.toString('latin1'), err: r.stderr.toString('latin1'), status: r.status };
}

/** Polls PING until +PONG (or -LOADING has passed), up to timeoutMs. */
export async function waitForPong(port, proc, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && proc.exitCode !== null)
      throw new Error(`the server on port ${port} exited with ${proc.exitCode}`);
    try {
      const { data } = await raw(port, 'PING\r\n', 200);
      if (data.toString() === '+PONG\r\n') return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nothing answered PING on port ${port}`);
    await sleep(30);
  }
}

// The process groups of the servers (and other detached children, such as
// the Redis suite's runtests) still running, stopped if this process exits
// first (a detached group would outlive it).
const running = new Set();
export const runningGroups = running;
process.on('exit', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/**
 * A server process: `glasskv server` (kind 'glasskv') or redis-server
 * (kind 'redis'), started with args after --port; with `script`, glasskv
 * is started the way `npm run glasskv -- server` starts it. Its output is
 * kept in .log. stop() sends a signal (SIGTERM) and resolves with the exit
 * code, or the signal's name if one killed it.
 */
export async function startServer(kind, args = [], { port, script } = {}) {
  // A port found free may be taken by another process before this server
  // binds it: then this one exits, and PING is answered by the other or by
  // no one. The answer must come from this process, or it starts on
  // another port.
  for (let attempt = 0; ; attempt++) {
    const last = port !== undefined || attempt === 4;
    let server;
    try {
      server = await _start(kind, args, { port, script });
    } catch (e) {
      if (last || !/Address already in use/i.test(e.message)) throw e;
      continue;
    }
    if (await _isOurs(server)) return server;
    const code = await server.stop('SIGKILL');
    if (last) throw new Error(`port ${server.port} is someone else's (exit ${code})\n${server.log}`);
  }
}

/** Whether the server answering on its port is its own process (or, for
 * `npm run glasskv -- server`, that process's child). */
async function _isOurs(server) {
  const r = spawnSync(REDIS_CLI, ['-p', String(server.port), 'info', 'server'], { timeout: 10000 });
  const m = /process_id:(\d+)/.exec(r.stdout?.toString() ?? '');
  if (!m) return false;
  const pid = Number(m[1]);
  if (pid === server.proc.pid) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === server.proc.pid;
  } catch {
    return false;
  }
}

async function _start(kind, args, { port, script }) {
  port ??= await freePort();
  let file = REDIS_SERVER;
  let argv = ['--port', String(port), '--save', '', '--bind', '127.0.0.1', ...args];
  if (kind === 'glasskv') {
    file = script ? process.execPath : glasskvBin;
    // No save points, as redis-server is started: a server stopped here
    // leaves no dump.rdb behind for the next one started in its directory.
    argv = [...(script ? [join(root, 'scripts', 'glasskv.mjs')] : []),
      'server', '--port', String(port), '--save', '', ...args];
  }
  // A process group of its own, so that what it leaves behind when it
  // stops (redis-server's BGSAVE child, slow under rdb-key-save-delay) is
  // stopped too and cannot hold the pipes open.
  const proc = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const server = { kind, port, proc, log: '' };
  proc.stdout.on('data', (d) => { server.log += d.toString(); });
  proc.stderr.on('data', (d) => { server.log += d.toString(); });
  running.add(proc.pid);
  server.exited = once(proc, 'exit').then(([code, signal]) => code ?? signal);
  server.stop = async (sig = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    const code = await server.exited;
    try {
      process.kill(-proc.pid, 'SIGKILL');   // what it left behind
    } catch {
      // nothing was left
    }
    running.delete(proc.pid);
    return code;
  };
  try {
    await waitForPong(port, proc);
  } catch (e) {
    await server.stop('SIGKILL');
    // its last words ("Address already in use") may still be in the pipes
    await Promise.race([once(proc, 'close'), sleep(1000)]);
    throw new Error(`${e.message}\n${server.log}`);
  }
  return server;
}

/** A server's INFO replication as a map of field to value, in order. */
export function replInfo(server) {
  const m = {};
  const { out } = cli(server.port, ['info', 'replication']);
  for (const line of out.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) m[line.slice(0, i)] = line.slice(i + 1);
  }
  return m;
}

/** Waits until every replica has applied the master's whole stream. */
export async function caughtUp(master, replicas, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const want = replInfo(master).master_repl_offset;
    const states = replicas.map((r) => replInfo(r));
    if (states.every((i) => i.master_link_status === 'up' && i.slave_repl_offset === want))
      return;
    if (Date.now() > deadline) {
      throw new Error(`replicas not caught up with ${want}: ${JSON.stringify(states)}\n`
        + replicas.map((r) => r.log).join('\n'));
    }
    await sleep(50);
  }
}

/** Whether the server's log shows re within ms (the log is written in
 *  batches). */
export async function logged(server, re, ms = 5000) {
  await until(() => re.test(server.log), ms);
  return re.test(server.log);
}
