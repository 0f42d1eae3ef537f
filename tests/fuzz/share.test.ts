// The share-link fuzzer: session logs built at random from the validator's
// own table of actions (web/src/share/validate.ts SPECS), with values
// picked at the edges of each field's range, then checked as a link or a
// file is checked and, when the validator accepts them, replayed by the
// worker's Session on the real .wasm under Node.
//
// Property: a state the validator accepts never crashes the engine (a
// trap, an abort, a failed allocation) nor the worker's own code (a
// TypeError thrown while replaying). The worker may still refuse an
// action that makes no sense at that point of the log (a workloadStop of
// a client program that does not exist): the page reports that as a link
// that cannot be replayed, which is no crash.
//
// Every committed input (tests/fuzz/corpus/share/*.json) is replayed first.
// Then cases are drawn for FUZZ_SECONDS (default 30) from FUZZ_SEED
// (default: the time); a crashing case is written to
// build/fuzz/crashes/share-<seed>-<case>.json and named in the failure.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ActionKind, LogEntry } from '../../wasm/protocol';
import { GkTrapError } from '../../wasm/engine';
import { MAX_VIRTUAL_NS, SPECS, ShareError, checkShared, type Field, type Spec } from '../../web/src/share/validate';
import { newSession } from '../wasm/helpers';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpusDir = join(root, 'tests', 'fuzz', 'corpus', 'share');
const crashDir = join(root, 'build', 'fuzz', 'crashes');
const seconds = Number(process.env.FUZZ_SECONDS ?? 30);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1e9);

/** xorshift32: the same seed draws the same cases. */
class Rng {
  constructor(private s: number) {
    this.s = (s >>> 0) || 1;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 2 ** 32;
  }
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.below(xs.length)];
  }
}

/** Text worth typing into each kind of string field. */
const TEXT: Record<string, readonly string[]> = {
  console: [
    'SET k v', 'GET k', 'DEBUG POPULATE 100000000', 'DEBUG POPULATE 1000 k 1000000',
    'DEBUG POPULATE 20000000 x 64', 'CONFIG SET proto-max-bulk-len 4gb', 'CONFIG SET maxmemory 1',
    'CONFIG SET appendonly yes', 'CONFIG SET appendfsync always', 'BGREWRITEAOF', 'FLUSHALL',
    'MULTI', 'EXEC', 'SADD s 1 2 3', 'HSET h f v', 'ZADD z 1 m', 'INCRBYFLOAT f 1e308',
    'SCAN 0 COUNT 1000000000', 'KEYS *', 'CLIENT LIST', 'INFO', 'SET b x EX 1',
    '*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$2000000000\r\n', 'DEBUG HTSTATS 0',
  ],
  config: [
    'appendonly', 'appendfsync', 'hz', 'maxmemory', 'proto-max-bulk-len', 'client-query-buffer-limit',
    'hash-max-listpack-entries', 'set-max-intset-entries', 'activerehashing', 'auto-aof-rewrite-percentage',
  ],
  value: ['yes', 'no', 'always', 'everysec', '0', '1', '500', '4gb', '1', '-1', '100000000000'],
  mcLine: [
    'set k 0 0 1\r\nx', 'get k', 'set big 0 0 1048576', 'stats slabs', 'flush_all', 'incr n 1',
    'cas k 0 0 1 1\r\ny', 'verbosity 1', 'ms m 2\r\nhi',
  ],
  conf: ['appendonly yes\nappendfsync always\n', 'maxmemory 1mb\n', 'hz 500\n', 'appendonly no\n', ''],
  dir: ['appendonlydir', '', '/', '.'],
  prefix: ['key', 'k', 'x'.repeat(64)],
  match: ['*', 'key:1*', '', '[a-'],
};

function pickInt(lo: number, hi: number, r: Rng): number {
  const roll = r.next();
  if (roll < 0.15) return lo;
  if (roll < 0.25) return hi;
  if (roll < 0.4) {
    const p = 2 ** r.below(Math.min(53, Math.floor(Math.log2(Math.max(1, hi))) + 1));
    return Math.min(hi, Math.max(lo, p));
  }
  return lo + r.below(Math.min(hi - lo + 1, 100));
}

function pickString(name: string, max: number, r: Rng): string {
  const list = TEXT[name];
  const s = list ? r.pick(list) : 'x'.repeat(r.below(Math.min(max, 300) + 1));
  return s.slice(0, max);
}

function gen(name: string, f: Field, r: Rng): unknown {
  switch (f[0]) {
    case 'int': return pickInt(f[1], f[2], r);
    case 'num': return r.next() < 0.3 ? f[r.below(2) + 1] : f[1] + r.next() * Math.min(f[2] - f[1], 4);
    case 'str': return pickString(name, f[1], r);
    case 'bool': return r.next() < 0.5;
    case 'enum': return r.pick(f[1]);
    case 'obj': return genObject(f[1], r);
    case 'nullOr': return r.next() < 0.3 ? null : gen(name, f[1], r);
    case 'list': return Array.from({ length: r.below(Math.min(f[1], 3) + 1) }, () => gen(name, f[2], r));
  }
}

function genObject(spec: Spec, r: Rng): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec.required)) out[name] = gen(name, f, r);
  for (const [name, f] of Object.entries(spec.optional ?? {})) if (r.next() < 0.5) out[name] = gen(name, f, r);
  return out;
}

const KINDS = (Object.keys(SPECS) as ActionKind[]).filter((k) => SPECS[k] !== null);

/** A log of a few actions a short virtual time apart. Times that would
 *  take the replay long (an advance to the hour's edge) are rare. */
function genState(r: Rng): unknown {
  const entries: LogEntry[] = [];
  let t = 0;
  const n = 1 + r.below(10);
  for (let i = 0; i < n; i++) {
    const kind = r.pick(KINDS);
    const action = { kind, ...genObject(SPECS[kind]!, r) } as Record<string, unknown>;
    if (kind === 'advance') action.to = t + pickInt(0, r.next() < 0.02 ? MAX_VIRTUAL_NS - t : 200e6, r);
    if (kind === 'wait') action.ns = pickInt(0, r.next() < 0.02 ? MAX_VIRTUAL_NS - t : 200e6, r);
    entries.push({ t, action } as LogEntry);
    t += r.next() < 0.5 ? 0 : r.below(50e6);
  }
  const heapLimit = r.pick([0, 1, 1 << 20, 64 << 20, 1 << 30, 4 * 1024 ** 3]);
  return { v: 1, log: { version: 1, config: { seed: r.below(1000), unixMsAtZero: 1_767_225_600_000, heapLimit }, entries } };
}

type Outcome = 'refused' | 'replayed' | 'not replayable';

/** Checks the state as the page does and replays what it accepts. Throws
 *  only for a crash of the engine. */
async function tryState(state: unknown): Promise<Outcome> {
  let shared;
  try {
    shared = checkShared(state);
  } catch (e) {
    if (e instanceof ShareError) return 'refused';
    throw e;
  }
  const { session } = newSession();
  try {
    await session.boot(shared.log);
    return 'replayed';
  } catch (e) {
    // A trap is the engine's crash; a TypeError or the like is the
    // worker's own (it would take the page's session down with it).
    if (e instanceof GkTrapError || !(e instanceof Error) || e.constructor.name.match(/^(TypeError|ReferenceError|InternalError)$/)) throw e;
    if (process.env.FUZZ_VERBOSE) console.log(`not replayable: ${(e as Error).message}`);
    return 'not replayable';
  }
}

function saveCrash(name: string, state: unknown): string {
  mkdirSync(crashDir, { recursive: true });
  const path = join(crashDir, `share-${name}.json`);
  writeFileSync(path, JSON.stringify(state));
  return path;
}

describe('share links drawn at the edges of the validator', () => {
  it('replays every committed corpus state without an engine crash', async () => {
    const files = readdirSync(corpusDir).filter((f) => f.endsWith('.json')).sort();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const state = JSON.parse(readFileSync(join(corpusDir, f), 'utf8'));
      const outcome = await tryState(state).catch((e: Error) => `crash: ${e.message}`);
      expect.soft(outcome, f).not.toMatch(/^crash/);
    }
  }, 600_000);

  it(`never crashes the engine on a state the validator accepts (seed ${seed})`, async () => {
    const r = new Rng(seed);
    const counts: Record<Outcome, number> = { refused: 0, replayed: 0, 'not replayable': 0 };
    const until = Date.now() + seconds * 1000;
    for (let i = 0; Date.now() < until; i++) {
      const state = genState(r);
      const t0 = Date.now();
      try {
        counts[await tryState(state)]++;
        if (process.env.FUZZ_VERBOSE) console.log(`case ${i}: ${Date.now() - t0} ms ${JSON.stringify(state).slice(0, 400)}`);
      } catch (e) {
        const path = saveCrash(`${seed}-${i}`, state);
        throw new Error(`case ${i} crashed the engine (${(e as Error).message}); saved to ${path}`);
      }
    }
    console.log(`share fuzz, seed ${seed}: ${JSON.stringify(counts)}`);
    expect(counts.replayed).toBeGreaterThan(0);
  }, (seconds + 120) * 1000);
});
