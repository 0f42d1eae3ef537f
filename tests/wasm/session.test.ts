// The worker's logic (wasm/session.ts) driven directly in Node: the same
// code the module worker runs, minus postMessage.
import { describe, expect, it } from 'vitest';
import { DictKind, GkTrapError } from '../../wasm/engine';
import type { Action, Snapshot } from '../../wasm/protocol';
import { EngineDeadError, TRACE_CAPACITY } from '../../wasm/session';
import { StripCache } from '../../wasm/stripcache';
import { emptyLog, newSession, oneServer, rawExchange } from './helpers';

function console1(session: ReturnType<typeof newSession>['session'], text: string) {
  return session.act({ kind: 'console', text }).console;
}

/** What must be identical between a live session and its replay. */
function essence(s: Snapshot) {
  const t = (i: number) => {
    const x = s.dict?.tables[i];
    return x && { size: x.size, used: x.used, entries: Array.from(x.entries), filled: Array.from(x.filled) };
  };
  return {
    now: s.now, memory: s.memory, prompt: s.prompt, rehashidx: s.dict?.rehashidx, t0: t(0), t1: t(1),
    scan: s.scan && { ...s.scan }, logLength: s.logLength,
  };
}

describe('the console', () => {
  it('sends a multi-line input as one pipelined write and prints each reply as redis-cli does', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const out = console1(session, 'SET a 1\nGET a\n\nINCR a\nSELECT 2\nDBSIZE\nNOSUCHCMD');
    expect(out.map((e) => [e.prompt, e.input, e.output, e.status])).toEqual([
      ['127.0.0.1:6379>', 'SET a 1', 'OK', 'ok'],
      ['127.0.0.1:6379>', 'GET a', '"1"', 'ok'],
      ['127.0.0.1:6379>', 'INCR a', '(integer) 2', 'ok'],
      ['127.0.0.1:6379>', 'SELECT 2', 'OK', 'ok'],
      ['127.0.0.1:6379[2]>', 'DBSIZE', '(integer) 0', 'ok'],
      ['127.0.0.1:6379[2]>', 'NOSUCHCMD', "(error) ERR unknown command 'NOSUCHCMD', with args beginning with: ", 'error'],
    ]);
    expect(session.snapshot().prompt).toBe('127.0.0.1:6379[2]>');
  });

  it('refuses unbalanced quotes and bad repeat counts locally, as redis-cli does', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const out = console1(session, 'SET "a 1\n0 PING\n3 INCR n');
    expect(out.map((e) => [e.output, e.status])).toEqual([
      ['Invalid argument(s)', 'invalid'],
      ['Invalid redis-cli repeat command option value.', 'invalid'],
      ['(integer) 1\n(integer) 2\n(integer) 3', 'ok'],
    ]);
  });

  it('prints INFO and DEBUG HTSTATS raw, like redis-cli', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const [ht] = console1(session, 'DEBUG HTSTATS 0');
    expect(ht.output.split('\n').slice(0, 3)).toEqual([
      '[Dictionary HT]', 'Hash table 0 stats (main hash table):', 'No stats available for empty dictionaries',
    ]);
    const [info] = console1(session, 'SET a b\nINFO keyspace').slice(1);
    expect(info.output).toBe('# Keyspace\ndb0:keys=1,expires=0,avg_ttl=0');
  });

  it('echoes the commands the buttons send', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const add = session.act({ kind: 'populate', db: 0, n: 100 }).console;
    expect(add).toMatchObject([{ source: 'populate', input: 'DEBUG POPULATE 100 k1', output: 'OK' }]);
    const add2 = session.act({ kind: 'populate', db: 0, n: 100 }).console;
    expect(add2[0].input).toBe('DEBUG POPULATE 100 k2');
    const del = session.act({ kind: 'delete', db: 0, n: 30 }).console;
    expect(del).toMatchObject([{ source: 'delete', deleted: 30 }]);
    expect(console1(session, 'DBSIZE')[0].output).toBe('(integer) 170');
    const off = session.act({ kind: 'activeRehash', on: false });
    expect(off.console[0]).toMatchObject({ input: 'CONFIG SET activerehashing no', output: 'OK' });
    expect(off.snapshot.activeRehashing).toBe(false);
  });

  it('runs FLUSHALL ASYNC and FLUSHDB ASYNC: the keys go at once, the lazy-free thread frees them (the recovery ledger trapped on them)', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const lazy = () => session.aof().threads.find((t) => t.name === 'bio_lazy_free')!;
    console1(session, 'DEBUG POPULATE 20000');
    expect(console1(session, 'FLUSHALL ASYNC\nDBSIZE').map((e) => e.output)).toEqual(['OK', '(integer) 0']);
    // One job per db, empty or not, as Redis 7.0 hands them over.
    expect(lazy().pending).toBe(16);
    session.act({ kind: 'wait', ns: 100e6 });
    expect(lazy()).toMatchObject({ pending: 0, jobsDone: 16 });
    console1(session, 'SELECT 1\nDEBUG POPULATE 100');
    expect(console1(session, 'FLUSHDB ASYNC\nDBSIZE').map((e) => e.output)).toEqual(['OK', '(integer) 0']);
    session.act({ kind: 'wait', ns: 100e6 });
    expect(lazy().jobsDone).toBe(17);
  });
});

describe('adding keys', () => {
  const tables = (s: Snapshot) => s.dict!.tables.map((t) => (t ? { size: t.size, used: t.used } : null));

  it('by DEBUG POPULATE on an empty db sizes the table for them first, so nothing is rehashed', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(4));
    const snap = session.act({ kind: 'populate', db: 0, n: 10_000 }).snapshot;
    expect(snap.dict!.rehashidx).toBe(-1);
    expect(tables(snap)).toEqual([{ size: 16_384, used: 10_000 }, null]);
  });

  it('by MSET on an empty db grows the table by doubling and ends with the last doubling under way', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(4));
    const { console: out, snapshot: snap } = session.act({ kind: 'populate', db: 0, n: 10_000, mset: true });
    expect(out).toMatchObject([{
      source: 'populate', input: 'MSET k1:0 value:0 … k1:9999 value:9999', status: 'ok', written: 10_000, commands: 10,
    }]);
    // The 8,193rd key found 8,192 buckets full and started the move to
    // 16,384; each of the last 1,807 keys moved a bucket at its lookup and
    // another at its insert (skipping up to ten empty ones each).
    const [t0, t1] = tables(snap);
    expect(t0!.size).toBe(8192);
    expect(t1!.size).toBe(16_384);
    expect(t0!.used + t1!.used).toBe(10_000);
    expect(t0!.used).toBeGreaterThan(0);
    expect(snap.dict!.rehashidx).toBeGreaterThan(2 * 1807);
    expect(snap.dict!.rehashidx).toBeLessThan(8192);
    expect(console1(session, 'GET k1:9999\nDBSIZE').map((e) => e.output)).toEqual(['"value:9999"', '(integer) 10000']);
    // serverCron's active rehashing finishes the move on its next tick.
    const later = session.act({ kind: 'wait', ns: 200e6 }).snapshot;
    expect(later.dict!.rehashidx).toBe(-1);
    expect(tables(later)).toEqual([{ size: 16_384, used: 10_000 }, null]);
  });

  it('by MSET stops at the first refusal and says how many keys were written', async () => {
    const { session } = newSession();
    await session.boot({ ...emptyLog(4), config: { ...emptyLog(4).config, heapLimit: 16 << 20 } });
    const [entry] = session.act({ kind: 'populate', db: 0, n: 1_000_000, mset: true }).console;
    expect(entry.status).toBe('error');
    expect(entry.output).toMatch(/^\(error\) OOM /);
    expect(entry.written).toBeGreaterThan(0);
    expect(entry.written).toBeLessThan(1_000_000);
    expect(entry.commands).toBe(entry.written! / 1000 + 1);
    expect(console1(session, 'DBSIZE')[0].output).toBe(`(integer) ${entry.written}`);
  });

  it('by MSET replays from the input log to the same table, bucket for bucket', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(4));
    session.act({ kind: 'populate', db: 0, n: 3000, mset: true });
    const live = session.act({ kind: 'populate', db: 0, n: 2500, mset: true }).snapshot;
    const log = { version: 1 as const, config: emptyLog(4).config, entries: [...session.entries] };
    expect(log.entries.map((e) => e.action)).toMatchObject([
      { kind: 'populate', prefix: 'k1', mset: true }, { kind: 'populate', prefix: 'k2', mset: true },
    ]);
    const again = newSession();
    const replayed = (await again.session.boot(log)).snapshot;
    expect(essence(replayed)).toEqual(essence(live));
  });
});

describe('what snapshots read from the engine', () => {
  it('shows activerehashing as the engine has it, also after a CONFIG SET typed in the console', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    expect(session.snapshot()).toMatchObject({ activeRehashing: true, config: { activerehashing: 'yes', hz: '10' } });
    console1(session, 'CONFIG SET activerehashing no');
    expect(session.snapshot()).toMatchObject({ activeRehashing: false, config: { activerehashing: 'no' } });
    console1(session, 'config set hz 20 ACTIVEREHASHING yes');
    expect(session.snapshot()).toMatchObject({ activeRehashing: true, config: { activerehashing: 'yes', hz: '20' } });
    const failed = console1(session, 'CONFIG SET activerehashing maybe');
    expect(failed[0].status).toBe('error');
    expect(session.snapshot().activeRehashing).toBe(true);
    const set = session.act({ kind: 'config', name: 'set-max-intset-entries', value: '4' });
    expect(set.console[0]).toMatchObject({ source: 'config', input: 'CONFIG SET set-max-intset-entries 4', output: 'OK' });
    expect(set.snapshot.config['set-max-intset-entries']).toBe('4');
  });

  it('speaks RESP3 after HELLO 3 and prints it as redis-cli does, then RESP2 again after HELLO 2', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const out = console1(session, 'HELLO 3\nHSET h a 1\nHGETALL h\nZADD z 1.5 m\nZSCORE z m\nGET nope\n'
      + 'DEBUG PROTOCOL true\nDEBUG PROTOCOL attrib\nDEBUG PROTOCOL bignum\nHELLO 2\nGET nope\nHGETALL h');
    expect(out[0].output.split('\n')).toEqual([
      '1# "server" => "redis"', '2# "version" => "7.0.15"', '3# "proto" => (integer) 3',
      expect.stringMatching(/^4# "id" => \(integer\) \d+$/), '5# "mode" => "standalone"',
      '6# "role" => "master"', '7# "modules" => (empty array)',
    ]);
    expect(out.slice(1).map((e) => [e.output, e.reply])).toEqual([
      ['(integer) 1', 1],
      ['1# "a" => "1"', ['a', '1']],
      ['(integer) 1', 1],
      ['(double) 1.5', '1.5'],
      ['(nil)', null],
      ['(true)', 1],
      ['Error: Protocol error, got "|" as reply type byte', 'Some real reply following the attribute'],
      ['Unknown reply type: 13', '1234567999999999999999999999999999999'],
      [expect.stringContaining('1) "server"'), expect.arrayContaining(['proto', 2])],
      ['(nil)', null],
      ['1) "a"\n2) "1"', ['a', '1']],
    ]);
  });

  it('keeps decoded replies next to what redis-cli prints', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    const out = console1(session, 'SADD s 1 2 3\nSSCAN s 0\nGET nope\nNOSUCHCMD x');
    expect(out.map((e) => e.reply)).toEqual([
      3, ['0', ['1', '2', '3']], null, { error: "ERR unknown command 'NOSUCHCMD', with args beginning with: 'x' " },
    ]);
  });
});

describe('the bucket strip cache', () => {
  it("reads the strips again only when the dict's version moved", async () => {
    const { world, node, conn } = await oneServer();
    const cache = new StripCache();
    const get = () => cache.get(world, node, 0, world.dictInfo(node, 0, DictKind.KEYS), 64);
    rawExchange(world, conn, '*3\r\n$5\r\nDEBUG\r\n$8\r\nPOPULATE\r\n$3\r\n100\r\n');
    const first = get();
    get();
    expect(cache.reads).toBe(1);
    rawExchange(world, conn, 'GET key:1\r\nSCAN 0\r\n');
    world.runUntil(world.now() + 2e9);
    get();
    expect(cache.reads).toBe(1);
    rawExchange(world, conn, 'DEL key:1\r\n');
    const after = get();
    expect(cache.reads).toBe(2);
    const sum = (s: typeof first) => Array.from(s[0]?.entries ?? []).reduce((a, b) => a + b, 0);
    expect(sum(first) - sum(after)).toBe(1);
    cache.get(world, node, 0, world.dictInfo(node, 0, DictKind.KEYS), 32);
    expect(cache.reads).toBe(3);
  });
});

describe('the input log', () => {
  it('rebuilds the same world, transcript and SCAN walk when replayed', async () => {
    const a = newSession();
    await a.session.boot(emptyLog(99));
    const actions: Action[] = [
      { kind: 'populate', db: 0, n: 3000 },
      { kind: 'console', text: 'SET user:1 alice\nEXPIRE user:1 5\nSELECT 3\nSET x y' },
      { kind: 'scanStart', db: 0, count: 25, match: '*' },
      { kind: 'scanStep' },
      { kind: 'populate', db: 0, n: 2000 },
      { kind: 'scanStep' },
      { kind: 'rehashStep', db: 0, steps: 3 },
      { kind: 'delete', db: 0, n: 50 },
      { kind: 'scanStep' },
      { kind: 'step' },
    ];
    const transcript = [];
    for (const action of actions) transcript.push(...a.session.act(action).console);
    a.session.advanceBy(250e6);
    a.session.advanceBy(250e6);
    const live = a.session.snapshot();
    const log = { version: 1 as const, config: emptyLog(99).config, entries: [...a.session.entries] };
    expect(log.entries.length).toBe(actions.length + 1);

    const b = newSession();
    const replayed = await b.session.boot(log);
    expect(replayed.console).toEqual(transcript);
    expect(essence(replayed.snapshot)).toEqual(essence(live));
    expect(b.events.filter((e) => e.type === 'diverged')).toEqual([]);
  });

  it('merges consecutive time advances into one entry', async () => {
    const { session, events } = newSession();
    await session.boot(emptyLog());
    for (let i = 0; i < 10; i++) session.advanceBy(16e6);
    expect(session.entries).toEqual([{ t: 0, action: { kind: 'advance', to: 160e6 } }]);
    expect(events.filter((e) => e.type === 'log').length).toBe(10);
    session.act({ kind: 'console', text: 'PING' });
    session.advanceBy(1e6);
    expect(session.entries.map((e) => e.action.kind)).toEqual(['advance', 'console', 'advance']);
  });

  it('refuses an invalid action before logging it', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    expect(() => session.act({ kind: 'scanStep' })).toThrow(/no SCAN walk/);
    expect(() => session.act({ kind: 'populate', db: 0, n: 0 })).toThrow(RangeError);
    expect(session.entries).toEqual([]);
  });

  it('refuses a logged action that needs an earlier one it lacks, with a clear message instead of a TypeError', async () => {
    const cases: [Action, RegExp][] = [
      [{ kind: 'scanStep' }, /^action #2 \(scanStep\) needs a SCAN walk, and none was started before it/],
      [{ kind: 'scanFinish' }, /^action #2 \(scanFinish\) needs a SCAN walk/],
      [{ kind: 'labNext' }, /^action #2 \(labNext\) needs a lab/],
      [{ kind: 'workloadStop', id: 7 }, /^action #2 \(workloadStop\) stops workload 7, which was never started/],
    ];
    for (const [action, message] of cases) {
      const { session } = newSession();
      const log = { ...emptyLog(3), entries: [{ t: 0, action: { kind: 'console', text: 'SET a 1' } as Action }, { t: 0, action }] };
      const booted = session.boot(log);
      await expect(booted).rejects.toThrow(RangeError);
      await expect(booted).rejects.toThrow(message);
    }
    // A walk that has finished cannot be stepped again either.
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'scanStart', db: 0, count: 10, match: '*' });
    session.act({ kind: 'scanFinish' });
    const log = { ...emptyLog(3), entries: [...session.entries, { t: session.snapshot().now, action: { kind: 'scanStep' } as Action }] };
    await expect(newSession().session.boot(log)).rejects.toThrow(/^action #3 \(scanStep\) comes after the SCAN walk finished/);
  });
});

describe('a trap in the engine', () => {
  it('becomes a crash event; restarting without the last action restores the session', async () => {
    const { session, events } = newSession();
    await session.boot(emptyLog(5));
    session.act({ kind: 'populate', db: 0, n: 500 });
    const before = session.snapshot();
    expect(() => session.act({ kind: 'trap' })).toThrow(GkTrapError);
    const crash = events.find((e) => e.type === 'crash');
    expect(crash).toMatchObject({ type: 'crash', crash: { during: 'action', entryIndex: 1, action: { kind: 'trap' } } });
    expect(() => session.act({ kind: 'console', text: 'PING' })).toThrow(EngineDeadError);

    const log = { version: 1 as const, config: emptyLog(5).config, entries: [...session.entries] };
    const again = newSession();
    await expect(again.session.boot(log)).rejects.toThrow(GkTrapError);
    expect(again.events.find((e) => e.type === 'crash')).toMatchObject({ crash: { during: 'replay', entryIndex: 1 } });

    const restored = await session.boot({ ...log, entries: log.entries.slice(0, 1) });
    expect(essence(restored.snapshot)).toEqual(essence(before));
    expect(console1(session, 'DBSIZE')[0].output).toBe('(integer) 500');
  });
});

describe('the SCAN walker', () => {
  it('returns every original key while keys are added between calls', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'populate', db: 0, n: 10_000 });
    session.act({ kind: 'scanStart', db: 0, count: 100, match: '*' });
    let snap = session.snapshot();
    for (let call = 0; !snap.scan!.done; call++) {
      snap = session.act({ kind: 'scanStep' }).snapshot;
      if (call < 6) snap = session.act({ kind: 'populate', db: 0, n: 1500 }).snapshot;
    }
    const scan = snap.scan!;
    expect(scan.cursor).toBe('0');
    expect(scan.audit).toMatchObject({ tracked: 10_000, throughout: 10_000, returned: 10_000, missing: 0 });
    expect(scan.missingKeys).toEqual([]);
    expect(scan.recent.at(-1)!.buckets.length).toBeGreaterThan(0);
    const sizes = snap.dict!.tables.map((t) => t?.size ?? 0);
    expect(Math.max(...sizes)).toBe(32_768);
  });

  it('records the buckets of each call from the trace, with the table sizes of the moment', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'console', text: 'MSET a 1 b 2 c 3 d 4 e 5' });
    session.act({ kind: 'scanStart', db: 0, count: 1, match: '*' });
    const snap = session.act({ kind: 'scanStep' }).snapshot;
    const call = snap.scan!.recent[0];
    expect(call.cursorIn).toBe('0');
    expect(call.buckets[0]).toEqual({ table: call.buckets[0].table, index: 0, size: call.sizes[call.buckets[0].table] });
    expect(snap.dict!.tables.some((t) => t?.visited && t.visited.some((v) => v > 0))).toBe(true);
  });

  it('run to its end among busy client programs, leaves every trace record to the timeline (the ring overflowed)', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'populate', db: 0, n: 100_000 });
    session.act({ kind: 'workload', preset: 'benchmark', clients: 50, requests: 0, keyspace: 100_000, rttNs: 100_000 });
    session.act({ kind: 'wait', ns: 10e6 });
    session.act({ kind: 'scanStart', db: 0, count: 100, match: '*' });
    const stepped = session.act({ kind: 'scanStep', calls: 300 }).snapshot;
    expect(stepped.scan!.calls).toBe(300);
    const snap = session.act({ kind: 'scanFinish' }).snapshot;
    expect(snap.scan!.done).toBe(true);
    expect(snap.scan!.audit).toMatchObject({ returned: 100_000, missing: 0 });
    // Fifty programs answered for the whole walk: far more records than
    // the engine's ring holds, read as they came.
    expect(snap.traceSeq).toBeGreaterThan(4 * TRACE_CAPACITY);
    expect(snap.traceLost).toBe(0);
  });
});
