// Differential tests: every tests/diff/scripts/*.redis script is fed on
// stdin to Debian's `redis-cli --no-raw` talking to a real redis-server
// 7.0, and to `build/native/glasskv cli`; both must print the same bytes.
// The scripts hold only commands whose output is deterministic (no hash
// order, no wall-clock TTLs), so every difference is the engine's. One
// exception is made, for command.redis: COMMAND's documentation text is
// glasskv's own, not Redis's, so it is set apart before comparing (see
// docText.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { glasskv } from './build';
import { withoutDocText } from './docText';
import { startServer } from '../server/servers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scriptsDir = join(root, 'tests', 'diff', 'scripts');
const REDIS_CLI = '/usr/bin/redis-cli';

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
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let port = 0;
  let dir = '';

  beforeAll(async () => {
    // In memory where there is /dev/shm: SAVE and BGSAVE fsync their file,
    // and on a busy disk that outlasts the DEBUG SLEEPs bgsave.redis waits
    // its children with (and redis-cli adds a line for a reply over 0.5 s).
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'glasskv-diff-'));
    // on a free port, checked to be answered by this server and no other
    server = await startServer('redis', ['--appendonly', 'no', '--enable-debug-command', 'yes', '--dir', dir]);
    port = server.port;
  });

  afterAll(async () => {
    await server?.stop();
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
