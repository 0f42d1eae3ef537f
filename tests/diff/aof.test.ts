// The engine's AOF files against Debian's redis-server 7.0 and
// redis-check-aof. `glasskv cli --aof DIR` runs a script with appendonly
// yes and appendfsync always and writes its simulated appendonlydir into
// DIR; then:
//   - its incr file must be byte-identical to the one redis-server writes
//     for the same script, absolute expiry times (13-digit ms) aside;
//   - redis-check-aof must accept the directory;
//   - a real redis-server started on that directory must hold the same
//     dataset as a real redis-server that ran the script itself.
// The servers run on free ports in 6440-6449, each in its own directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { glasskv } from './build';
import { startServer as startGlasskv } from '../server/servers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const here = join(root, 'tests', 'diff', 'aof');
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const REDIS_CHECK_AOF = '/usr/bin/redis-check-aof';
const INCR = 'appendonly.aof.1.incr.aof';

/** Whether a port can be listened on. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The first free port of 6440-6449 not in `taken`. */
async function freePort(taken: number[]): Promise<number> {
  for (let p = 6440; p <= 6449; p++)
    if (!taken.includes(p) && (await portFree(p))) return p;
  throw new Error('no free port in 6440-6449');
}

/** Polls PING until the server answers +PONG. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = createConnection({ host: '127.0.0.1', port });
      sock.once('error', () => resolve(false));
      sock.on('data', (d) => {
        sock.destroy();
        resolve(d.toString('latin1').startsWith('+PONG'));
      });
      sock.write('PING\r\n');
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`no PONG on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A redis-server of its own: a port, a directory, the process. */
interface Server { port: number; dir: string; proc: ChildProcess }
const servers: Server[] = [];

async function startServer(dir: string, args: string[]): Promise<Server> {
  const port = await freePort(servers.map((s) => s.port));
  const proc = spawn(REDIS_SERVER, [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '',
    '--dir', dir, ...args,
  ], { stdio: 'ignore' });
  const s = { port, dir, proc };
  servers.push(s);
  await waitForPong(port, 10000);
  return s;
}

async function stopServer(s: Server): Promise<void> {
  if (s.proc.exitCode !== null) return;
  const exited = new Promise((r) => s.proc.once('exit', r));
  s.proc.kill('SIGTERM');
  await exited;
}

function run(cmd: string, args: string[], input?: Buffer) {
  const r = spawnSync(cmd, args, { input, maxBuffer: 64 << 20, timeout: 50000 });
  if (r.error) throw r.error;
  return r;
}

function cli(port: number, file: string): string {
  return run(REDIS_CLI, ['--no-raw', '-p', String(port)],
    readFileSync(join(here, file))).stdout.toString('latin1');
}

/** Polls INFO persistence until no AOF rewrite is running or scheduled. */
async function waitForRewrite(port: number): Promise<void> {
  const deadline = Date.now() + 10000;
  for (;;) {
    const info = run(REDIS_CLI, ['-p', String(port), 'info', 'persistence'])
      .stdout.toString('latin1');
    if (info.includes('aof_rewrite_in_progress:0') &&
        info.includes('aof_rewrite_scheduled:0')) return;
    if (Date.now() > deadline) throw new Error(`the rewrite on port ${port} never ended`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a script on the engine with --aof; returns the directory. */
function engineAof(dir: string, file: string): string {
  const out = join(dir, 'engine-aof');
  const r = run(glasskv, ['cli', '--aof', out], readFileSync(join(here, file)));
  assert.equal(r.status, 0, r.stderr.toString());
  return out;
}

/** Absolute expiry times (13-digit ms arguments) masked. */
function maskTimes(b: Buffer): string {
  return b.toString('latin1').replace(/\r\n\d{13}\r\n/g, '\r\nTTTTTTTTTTTTT\r\n');
}

describe('the engine\'s AOF files against redis-server 7.0 and redis-check-aof', () => {
  let work = '';

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'glasskv-aof-'));
  });

  afterAll(async () => {
    for (const s of servers) await stopServer(s);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('writes an incr file byte-identical to redis-server 7.0\'s for the same script', async () => {
    const rdir = join(work, 'real');
    mkdirSync(rdir);
    const real = await startServer(rdir, ['--appendonly', 'yes', '--appendfsync', 'always']);
    cli(real.port, 'writes.redis');
    const want = readFileSync(join(rdir, 'appendonlydir', INCR));
    const got = readFileSync(join(engineAof(work, 'writes.redis'), INCR));
    assert.isAbove(want.length, 1000);
    assert.equal(maskTimes(got), maskTimes(want));
    await stopServer(real);
  });

  it('writes a directory redis-check-aof accepts', () => {
    const dir = engineAof(join(work), 'dataset.redis');
    const r = run(REDIS_CHECK_AOF, [join(dir, 'appendonly.aof.manifest')]);
    const out = r.stdout.toString();
    assert.equal(r.status, 0, out);
    assert.include(out, 'RDB preamble is OK');
    assert.include(out, 'All AOF files and manifest are valid');
  });

  it('is loaded by redis-server 7.0 into the dataset the script makes', async () => {
    const edir = engineAof(join(work), 'dataset.redis');
    const manifest = readFileSync(join(edir, 'appendonly.aof.manifest'), 'latin1');
    assert.include(manifest, 'appendonly.aof.2.base.rdb seq 2 type b');
    const ldir = join(work, 'load');
    mkdirSync(ldir);
    cpSync(edir, join(ldir, 'appendonlydir'), { recursive: true });
    const loaded = await startServer(ldir, ['--appendonly', 'yes']);
    const rdir = join(work, 'ref');
    mkdirSync(rdir);
    const ref = await startServer(rdir, ['--appendonly', 'no']);
    cli(ref.port, 'dataset.redis');
    const want = cli(ref.port, 'query.redis');
    assert.include(want, '"v3"');
    assert.include(want, '"11"');
    assert.equal(cli(loaded.port, 'query.redis'), want);
    await stopServer(loaded);
    await stopServer(ref);
  });

  it('loads the AOF redis-server 7.0 writes, lists with compressed and plain nodes in its RDB base', async () => {
    const rdir = join(work, 'lists-real');
    mkdirSync(rdir);
    const real = await startServer(rdir, ['--appendonly', 'yes', '--enable-debug-command', 'yes']);
    cli(real.port, 'lists_base.redis');
    await waitForRewrite(real.port);
    run(REDIS_CLI, ['-p', String(real.port), 'lpush', 'lc', 'after-rewrite']);
    const want = cli(real.port, 'lists_query.redis');
    assert.include(want, '"after-rewrite"');
    assert.include(want, '"9223372036854775807"');
    await stopServer(real);
    const gdir = join(work, 'lists-glasskv');
    mkdirSync(gdir);
    cpSync(join(rdir, 'appendonlydir'), join(gdir, 'appendonlydir'), { recursive: true });
    assert.include(readFileSync(join(gdir, 'appendonlydir', 'appendonly.aof.manifest'), 'latin1'),
      'appendonly.aof.2.base.rdb');
    const g = await startGlasskv('glasskv', ['--dir', gdir, '--appendonly', 'yes']);
    try {
      assert.equal(cli(g.port, 'lists_query.redis'), want);
    } finally {
      await g.stop();
    }
  });
});
