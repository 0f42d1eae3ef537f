// Differential tests: every tests/diff/scripts/*.redis script is fed on
// stdin to Debian's `redis-cli --no-raw` talking to a real redis-server
// 7.0, and to `build/native/glasskv cli`; both must print the same bytes.
// The scripts hold only commands whose output is deterministic (no hash
// order, no wall-clock TTLs), so every difference is the engine's. One
// exception is made, for command.redis: COMMAND's documentation text is
// glasskv's own, not Redis's, so it is set apart before comparing (see
// docText.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { glasskv } from './build';
import { withoutDocText } from './docText';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scriptsDir = join(root, 'tests', 'diff', 'scripts');
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

/** Asks the kernel for a free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Sends one inline command and resolves with the first reply line. */
function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    let buf = '';
    sock.once('error', reject);
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const eol = buf.indexOf('\r\n');
      if (eol >= 0) {
        sock.destroy();
        resolve(buf.slice(0, eol));
      }
    });
    sock.write(`${command}\r\n`);
  });
}

/** Polls PING until the server answers +PONG, or fails after timeoutMs. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await ask(port, 'PING')) === '+PONG') return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} never answered PING`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a program with the script on stdin and returns its stdout. */
function runWithStdin(cmd: string, args: string[], input: Buffer): string {
  const r = spawnSync(cmd, args, { input, maxBuffer: 64 << 20, timeout: 50000 });
  if (r.error) throw r.error;
  return r.stdout.toString('latin1');
}

/**
 * A unified diff of the first differing region of two outputs: a few lines
 * of context, then what redis-cli printed (-) against what glasskv printed
 * (+), until the outputs agree again or `span` lines have gone by.
 */
function firstDifference(expected: string, actual: string, span = 12): string | null {
  if (expected === actual) return null;
  const e = expected.split('\n');
  const a = actual.split('\n');
  let i = 0;
  while (i < e.length && i < a.length && e[i] === a[i]) i++;
  const from = Math.max(0, i - 3);
  const out = [`@@ first difference at output line ${i + 1} @@  (- redis-cli, + glasskv)`];
  for (let k = from; k < i; k++) out.push(` ${e[k]}`);
  for (let k = i; k < Math.min(e.length, i + span); k++) out.push(`-${e[k]}`);
  for (let k = i; k < Math.min(a.length, i + span); k++) out.push(`+${a[k]}`);
  if (e.length > i + span || a.length > i + span) out.push('...');
  return out.join('\n');
}

/**
 * The outputs of a script made comparable, redis-cli's first: only
 * command.redis's are changed, its COMMAND DOCS summaries and
 * complexities masked on both sides, and the history and key spec notes
 * redis-server gives (glasskv gives none) removed from its output only.
 */
function comparable(name: string, expected: string, actual: string): [string, string] {
  if (name !== 'command.redis') return [expected, actual];
  return [withoutDocText(expected, ['"history"', '"notes"']), withoutDocText(actual, [])];
}

const scripts = existsSync(scriptsDir)
  ? readdirSync(scriptsDir).filter((f) => f.endsWith('.redis')).sort()
  : [];

describe('glasskv cli prints what redis-cli prints against redis-server 7.0', () => {
  let server: ChildProcess | undefined;
  let port = 0;
  let dir = '';

  beforeAll(async () => {
    port = await freePort();
    // In memory where there is /dev/shm: SAVE and BGSAVE fsync their file,
    // and on a busy disk that outlasts the DEBUG SLEEPs bgsave.redis waits
    // its children with (and redis-cli adds a line for a reply over 0.5 s).
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'glasskv-diff-'));
    server = spawn(REDIS_SERVER, [
      '--port', String(port), '--bind', '127.0.0.1',
      '--save', '', '--appendonly', 'no',
      '--enable-debug-command', 'yes', '--dir', dir,
    ], { stdio: 'ignore' });
    await waitForPong(port, 10000);
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has scripts to run', () => {
    assert.isAbove(scripts.length, 0, `no *.redis scripts in ${scriptsDir}`);
  });

  for (const name of scripts) {
    it(`${name} prints the same bytes on both`, async () => {
      assert.equal(await ask(port, 'FLUSHALL'), '+OK');
      const input = readFileSync(join(scriptsDir, name));
      const [expected, actual] = comparable(name,
        runWithStdin(REDIS_CLI, ['--no-raw', '-p', String(port)], input),
        runWithStdin(glasskv, ['cli'], input));
      const diff = firstDifference(expected, actual);
      if (diff !== null) assert.fail(`${name}: glasskv differs from redis-cli\n${diff}`);
    });
  }
});
