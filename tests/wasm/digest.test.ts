// The world's digest through the worker's session: what a shared link or
// an imported file is checked with.
import { describe, expect, it } from 'vitest';
import { emptyLog, loadGlasskv, newSession } from './helpers';
import { McDist } from '../../wasm/mc';
import { MC_DEFAULTS } from '../../wasm/mcprotocol';
import { Session } from '../../wasm/session';
import type { Action, SessionLog } from '../../wasm/protocol';
import { decodeState, encodeState } from '../../web/src/share/codec';

describe('the world digest', () => {
  it('is the same for a session and its log replayed in a fresh module, and changes with any action', async () => {
    const a = newSession().session;
    await a.boot(emptyLog());
    a.act({ kind: 'console', text: 'SET a 1\nHSET h f v\nSET t x PX 900000' });
    a.act({ kind: 'populate', db: 0, n: 500 });
    a.act({ kind: 'scanStart', db: 0, count: 10, match: '*' });
    a.act({ kind: 'scanStep' });
    a.act({ kind: 'wait', ns: 5e6 });
    const d = a.digest();
    expect(d).toMatch(/^[0-9a-f]{16}$/);
    expect(a.digest()).toBe(d);

    const b = newSession().session;
    await b.boot({ version: 1, config: { ...emptyLog().config }, entries: [...a.entries] });
    expect(b.digest()).toBe(d);

    b.act({ kind: 'console', text: 'SET a 2' });
    expect(b.digest()).not.toBe(d);
  });

  it('is the same at a rewound time whichever way the world got there, and in a fresh replay seeked there', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'populate', db: 0, n: 200 });
    session.act({ kind: 'wait', ns: 1e8 });
    const t = session.position.now;
    session.act({ kind: 'console', text: 'SET later 1' });
    session.act({ kind: 'wait', ns: 2e8 });
    const end = session.digest();
    session.seek(t + 5e7);
    const past = session.digest();
    expect(past).not.toBe(end);
    session.seek(Infinity);
    expect(session.digest()).toBe(end);
    session.seek(t + 5e7);
    expect(session.digest()).toBe(past);

    const other = newSession().session;
    await other.boot({ version: 1, config: { ...emptyLog().config }, entries: [...session.entries] });
    expect(other.digest()).toBe(end);
    other.seek(t + 5e7);
    expect(other.digest()).toBe(past);
  });
});

describe('the world digest of the same actions', () => {
  // A crash leaves the server's timers queued, stale; asking for the next
  // event's time (as every snapshot does) must look past them, not drop
  // them: that would change the queue's length, and its growth after.
  const actions: Action[] = [
    { kind: 'config', name: 'appendonly', value: 'yes' },
    { kind: 'wait', ns: 1e9 },
    { kind: 'config', name: 'appendfsync', value: 'always' },
    { kind: 'console', text: 'SET user:1 alice' },
    { kind: 'config', name: 'appendfsync', value: 'everysec' },
    { kind: 'console', text: 'SET user:2 bob' },
    { kind: 'wait', ns: 1.5e9 },
    { kind: 'console', text: 'SET cart:1 book\nSET cart:2 pen' },
    { kind: 'crash', mode: 'process' },
    { kind: 'restart', conf: 'appendonly yes\nappendfsync everysec\n' },
    { kind: 'console', text: 'SET cart:3 lamp' },
  ];

  it('is the same taken one by one, each answered with a snapshot, as run in one boot, across a crash and a restart', async () => {
    const one = newSession().session;
    await one.boot(emptyLog(4));
    for (const a of actions) one.act(a);
    const all = newSession().session;
    await all.boot(emptyLog(4), actions);
    expect(all.entries.map((e) => e.t)).toEqual(one.entries.map((e) => e.t));
    expect(all.digest()).toBe(one.digest());
  });
});

describe('the world digest covers memcached items and disk files', () => {
  /** A session that checkpoints after every entry, so a rewind restores
   *  a memory image and replays from there. */
  const fineSession = () => new Session({ loadEngine: loadGlasskv, emit: () => {} }, { checkpointEveryMs: 0 });
  const logOf = (s: Session): SessionLog => ({ version: 1, config: { ...emptyLog().config }, entries: [...s.entries] });
  const lastReply = (s: Session) => s.slabs({ what: 'view', cls: 1, from: 0, pages: 0 }).console.at(-1)!.output;

  it('is the same for a session with a memcached node after rewind and replay, and rebuilt from its link', async () => {
    const spec = { dist: McDist.SHIFT, sizeA: 100, sizeB: 3000, keyBytes: 8, keyspace: 2000, total: 3000, seed: 5 };
    const a = fineSession();
    await a.boot(emptyLog());
    a.act({ kind: 'mcStart', options: { ...MC_DEFAULTS, m: 4 } });
    a.act({ kind: 'mcLine', text: 'set brief 0 2 5\nhello\nset kept 3 0 4\nlong' });
    a.act({ kind: 'mcFill', spec, first: 0, count: 1500 });
    const mid = a.position.now + 1e9;
    // Played, not acted: the item set to live 2 s is gone 3 s later.
    a.advanceBy(3e9);
    a.act({ kind: 'mcLine', text: 'get brief kept' });
    expect(lastReply(a)).toBe('VALUE kept 3 4\r\nlong\r\nEND\r\n');
    a.act({ kind: 'mcFill', spec, first: 1500, count: 1500 });
    const end = a.digest();

    a.seek(mid);
    const past = a.digest();
    expect(past).not.toBe(end);
    a.seek(Infinity);
    expect(a.digest()).toBe(end);
    a.seek(mid);
    expect(a.digest()).toBe(past);
    a.seek(Infinity);

    // The link: configuration, seed, log and position, in a fresh module.
    const shared = await decodeState(await encodeState({ log: logOf(a), at: mid }));
    const b = newSession().session;
    await b.boot(shared.log);
    expect(b.digest()).toBe(end);
    expect(lastReply(b)).toBe(lastReply(a));
    b.seek(shared.at!);
    expect(b.digest()).toBe(past);
  });

  it('is the same for a session writing an AOF after rewind and replay, and rebuilt from its log', async () => {
    const a = fineSession();
    await a.boot(emptyLog());
    a.act({ kind: 'config', name: 'appendonly', value: 'yes' });
    a.act({ kind: 'config', name: 'appendfsync', value: 'no' });
    a.act({ kind: 'wait', ns: 2e9 });
    a.act({ kind: 'console', text: 'SET a 1\nRPUSH l x y z' });
    a.act({ kind: 'wait', ns: 1e9 });
    const mid = a.position.now;
    a.act({ kind: 'console', text: 'SET b 2' });
    // The kernel's flusher writes the page cache back after 30 s.
    a.act({ kind: 'wait', ns: 40e9 });
    const disk = a.aof().disk!;
    expect(disk.files).toBeGreaterThan(0);
    expect(disk.durableBytes).toBeGreaterThan(0);
    const end = a.digest();

    a.seek(mid);
    const past = a.digest();
    expect(past).not.toBe(end);
    a.seek(Infinity);
    expect(a.digest()).toBe(end);

    const b = newSession().session;
    await b.boot(logOf(a));
    expect(b.digest()).toBe(end);
    b.seek(mid);
    expect(b.digest()).toBe(past);
  });

  it('differs when one memcached item differs by one byte, and not otherwise', async () => {
    const run = async (value: string) => {
      const s = newSession().session;
      await s.boot(emptyLog());
      const actions: Action[] = [
        { kind: 'console', text: 'SET a 1' },
        { kind: 'mcLine', text: `set k 0 0 5\n${value}` },
        { kind: 'wait', ns: 1e6 },
      ];
      for (const act of actions) s.act(act);
      return s.digest();
    };
    const hello = await run('hello');
    expect(await run('hello')).toBe(hello);
    expect(await run('hellp')).not.toBe(hello);
  });
});
