// Differential tests against Debian's memcached 1.6.18.
//
// Protocol: every tests/diff/memcached/*.txt script is sent to a real
// memcached over a loopback socket, one command at a time (a storage
// command together with its value block), waiting for each command's
// replies to be complete before the next; and the same script goes on
// stdin to `build/native/glasskv cli --memcached`. The bytes must match.
// To know when a reply is complete the real server gets a meta no-op
// ("mn") after each command and the client reads up to its "MN\r\n",
// which is then cut off. glasskv's node behaves as memcached with
// -o no_lru_maintainer (see gkMemcachedNotes), so the real server runs
// with that option. Each script gets a fresh server, since stats count
// from start-up.
//
// Script format: lines starting with '#' are not sent; "# options: ..."
// gives memcached options for both sides; "{{repeat:S:N}}" stands for S
// repeated N times, so megabyte values fit in a small file.
//
// Only deterministic output is compared: values that depend on the
// process, the wall clock or the socket (pid, uptime, time, rusage, bytes
// and connection counts, buffers, the port, `oldest`, item ages) are
// masked on both sides.
//
// Slab table: `glasskv slabs <opts>` must print the lines `memcached -vv
// <opts>` prints to stderr at start-up, and for options memcached refuses,
// the same message.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { glasskv } from './build';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scriptsDir = join(root, 'tests', 'diff', 'memcached');
const MEMCACHED = '/usr/bin/memcached';
const PORTS = [11311, 11312, 11313, 11314, 11315, 11316, 11317, 11318, 11319];
const STORAGE: Record<string, number> = { set: 5, add: 5, replace: 5, append: 5, prepend: 5, cas: 6 };
const MASKED = [
  'pid', 'uptime', 'time', 'rusage_user', 'rusage_system', 'curr_connections',
  'total_connections', 'connection_structures', 'response_obj_count', 'response_obj_bytes',
  'read_buf_count', 'read_buf_bytes', 'read_buf_bytes_free', 'bytes_read', 'bytes_written',
  'tcpport', 'udpport', 'inter', 'oldest', 'items:\\d+:age', 'items:\\d+:evicted_time',
];
const MASK = new RegExp(`STAT (${MASKED.join('|')}) [^\\r]*\\r\\n`, 'g');

const running = new Set<ChildProcess>();

/** Resolves true if nothing listens on 127.0.0.1:port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function pickPort(): Promise<number> {
  for (const port of PORTS) if (await portFree(port)) return port;
  throw new Error('no free port in 11311-11319');
}

function serverArgs(port: number, opts: string[]): string[] {
  const user = process.getuid && process.getuid() === 0 ? ['-u', 'root'] : [];
  return [...user, '-p', String(port), '-l', '127.0.0.1', '-U', '0', ...opts];
}

/** Polls until the port accepts a connection. */
async function waitListening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = createConnection({ host: '127.0.0.1', port });
      sock.once('connect', () => { sock.destroy(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`memcached on ${port} never listened`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startMemcached(opts: string[]): Promise<{ proc: ChildProcess; port: number }> {
  const port = await pickPort();
  const proc = spawn(MEMCACHED, serverArgs(port, ['-o', 'no_lru_maintainer', ...opts]), { stdio: 'ignore' });
  running.add(proc);
  await waitListening(port, 5000);
  return { proc, port };
}

/** Ends a server this file started. memcached takes a second to act on
 * SIGTERM once a client has connected, and keeps nothing worth a clean
 * shutdown, so it gets SIGKILL. */
async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }
  running.delete(proc);
}

/** Reads a script: its options and the bytes to send. */
function loadScript(name: string): { opts: string[]; body: Buffer } {
  const raw = readFileSync(join(scriptsDir, name)).toString('latin1');
  let opts: string[] = [];
  const kept: string[] = [];
  for (const line of raw.split('\n')) {
    if (!line.startsWith('#')) { kept.push(line); continue; }
    const m = /^#\s*options:(.*)$/.exec(line);
    if (m) opts = m[1].trim().split(/\s+/).filter(Boolean);
  }
  const body = kept.join('\n').replace(/\{\{repeat:([^:}]*):(\d+)\}\}/g, (_, s: string, n: string) => s.repeat(Number(n)));
  // The script's own "mn" would be taken for the end of its reply.
  if (/(^|\n)mn\r?\n/.test(body)) throw new Error(`${name}: scripts may not use mn`);
  return { opts, body: Buffer.from(body, 'latin1') };
}

/** Splits a script into commands: a line, plus the value block that a
 * well-formed storage command announces. */
function commands(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < data.length) {
    const nl = data.indexOf(0x0a, i);
    if (nl < 0) { out.push(data.subarray(i)); break; }
    let end = nl + 1;
    const words = data.subarray(i, nl).toString('latin1').replace(/\r$/, '').split(' ').filter(Boolean);
    const want = STORAGE[words[0] ?? ''];
    if (want !== undefined && (words.length === want || words.length === want + 1) && /^\d+$/.test(words[4])) {
      end = Math.min(data.length, end + Number(words[4]) + 2);
    }
    out.push(data.subarray(i, end));
    i = end;
  }
  return out;
}

/** Sends each command followed by "mn" and collects the replies before
 * the "MN" that answers it; stops when the server closes. */
function talk(port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    const cmds = commands(data);
    const replies: Buffer[] = [];
    let buf = Buffer.alloc(0);
    let next = 0;
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`no reply to command ${next}`)); }, 20000);
    const finish = (): void => { clearTimeout(timer); sock.destroy(); resolve(Buffer.concat([...replies, buf])); };
    const sendNext = (): void => {
      if (next === cmds.length) { finish(); return; }
      sock.write(Buffer.concat([cmds[next++], Buffer.from('mn\r\n')]));
    };
    sock.on('connect', sendNext);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf.subarray(buf.length - 4).toString('latin1') === 'MN\r\n') {
        replies.push(buf.subarray(0, buf.length - 4));
        buf = Buffer.alloc(0);
        sendNext();
      }
    });
    sock.on('close', finish);
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

function runGlasskv(args: string[], input?: Buffer): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(glasskv, args, { input, maxBuffer: 256 << 20, timeout: 60000 });
  if (r.error) throw r.error;
  return { stdout: r.stdout.toString('latin1'), stderr: r.stderr.toString('latin1'), status: r.status };
}

const mask = (s: string): string => s.replace(MASK, 'STAT $1 *\r\n');

/** The first differing line of two outputs, with a little context. */
function firstDifference(expected: string, actual: string): string | null {
  if (expected === actual) return null;
  const e = expected.split('\n');
  const a = actual.split('\n');
  let i = 0;
  while (i < e.length && i < a.length && e[i] === a[i]) i++;
  const cut = (l: string | undefined): string => (l ?? '<end>').slice(0, 160);
  return `line ${i + 1}:\n  memcached: ${cut(e[i])}\n  glasskv:   ${cut(a[i])}`;
}

const scripts = existsSync(scriptsDir) ? readdirSync(scriptsDir).filter((f) => f.endsWith('.txt')).sort() : [];

beforeAll(() => {
});

afterAll(async () => {
  for (const proc of [...running]) await stop(proc);
});

describe('glasskv cli --memcached replies as memcached 1.6.18 does', () => {
  it('has scripts to run', () => {
    assert.isAbove(scripts.length, 0, `no *.txt scripts in ${scriptsDir}`);
  });

  for (const name of scripts) {
    it(`${name} gets the same bytes from both`, async () => {
      const { opts, body } = loadScript(name);
      const { proc, port } = await startMemcached(opts);
      let expected: Buffer;
      try {
        expected = await talk(port, body);
      } finally {
        await stop(proc);
      }
      const actual = runGlasskv(['cli', '--memcached', ...opts], body);
      assert.equal(actual.stderr, '');
      const diff = firstDifference(mask(expected.toString('latin1')), mask(actual.stdout));
      if (diff !== null) assert.fail(`${name}: glasskv differs from memcached at ${diff}`);
    }, 60000);
  }
});

/** What memcached prints on stderr for opts, until it listens or exits. */
async function memcachedStartup(opts: string[]): Promise<string> {
  const port = await pickPort();
  const proc = spawn(MEMCACHED, serverArgs(port, opts), { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let text = '';
  const collect = (d: Buffer): void => { text += d.toString('latin1'); };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const deadline = Date.now() + 5000;
  while (!/server listening/.test(text) && proc.exitCode === null && proc.signalCode === null && Date.now() < deadline) {
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20))]);
  }
  await stop(proc);
  return text;
}

const tables = [
  [], ['-f', '1.1'], ['-n', '100'], ['-I', '4m'], ['-f', '2', '-n', '8'],
  ['-o', 'slab_chunk_max=262144'], ['-n', '1000', '-f', '1.5', '-I', '2m', '-m', '16'],
  ['-o', 'slab_sizes=100-200-300'], ['-o', 'no_chunked_items'], ['-C', '-n', '64'],
  ['-I', '512k', '-o', 'slab_chunk_max=65536'], ['-f', '1.01'], ['-n', '-10'],
  ['-R', '-5', '-o', 'hot_lru_pct=1,slab_automove=2,lru_crawler_sleep=1000000,tail_repair_time=10'],
];

const refused = [
  ['-f', '1'], ['-n', '0'], ['-I', '512'], ['-I', '2g'], ['-m', '2', '-I', '2m'], ['-I', '128k'],
  ['-o', 'slab_chunk_max=1000'], ['-o', 'slab_chunk_max=2097152'], ['-o', 'bogus,slab_chunk_max=1'],
  ['-o', 'slab_sizes=100-104'], ['-o', 'slab_sizes=200-100'], ['-o', 'hot_lru_pct=90'],
  ['-x'], ['-m'], ['--foo'], ['--help=3'], ['-B', 'foo'], ['-c', '0'], ['-p', '70000'],
  ['-t', '0'], ['-t', '-2'], ['-R', '0'], ['-c', '-1'], ['-o', 'hot_lru_pct=80'], ['-o', 'warm_lru_pct=0'],
  ['-o', 'slab_automove=3'], ['-o', 'slab_automove=-1'], ['-o', 'lru_crawler_sleep=1000001'],
  ['-o', 'lru_crawler_sleep=-1'], ['-o', 'tail_repair_time=9'], ['-o', 'hot_lru_pct=79'],
];

describe('glasskv slabs prints the class table memcached -vv prints', () => {
  for (const opts of tables) {
    it(`with "${opts.join(' ')}"`, async () => {
      const text = await memcachedStartup(['-vv', ...opts]);
      const expected = text.split('\n').filter((l) => l.startsWith('slab class')).join('\n');
      assert.isAbove(expected.length, 0, `memcached printed no table:\n${text}`);
      const actual = runGlasskv(['slabs', '-vv', ...opts]);
      assert.equal(actual.status, 0, actual.stderr);
      assert.equal(actual.stdout.trimEnd(), expected);
    }, 20000);
  }

  for (const opts of refused) {
    it(`refuses "${opts.join(' ')}" with memcached's message`, async () => {
      const text = await memcachedStartup(opts);
      const expected = text.replace(/^\/usr\/bin\/memcached:/gm, 'memcached:').trimEnd();
      const actual = runGlasskv(['slabs', ...opts]);
      assert.equal(actual.status, 1);
      assert.equal(actual.stderr.trimEnd(), expected);
    }, 20000);
  }
});
