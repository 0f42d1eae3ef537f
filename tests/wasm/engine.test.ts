// The engine's WebAssembly build, loaded in Node through wasm/engine.ts.
import { describe, expect, it } from 'vitest';
import { CLI_BAD_REPEAT, CLI_INVALID, DictKind, GkError, GkTrapError, Status, TraceType, type World } from '../../wasm/engine';
import { encodeRequest } from '../../wasm/resp';
import { loadGlasskv, oneServer, rawExchange } from './helpers';

const text = new TextDecoder();

function cmd(world: World, conn: number, ...args: string[]): string {
  world.send(conn, encodeRequest(args));
  world.runUntilIdle();
  return text.decode(world.recv(conn));
}

/** SCAN_BUCKET records newer than `after`, as [table, bucket] pairs. */
function scanBuckets(world: World, after: number): [number, number][] {
  return world.traceReadAll(after)
    .filter((r) => r.type === TraceType.SCAN_BUCKET)
    .map((r) => [r.c, r.d]);
}

function scanAll(world: World, conn: number, count: number, between?: (call: number) => void): string[] {
  const keys: string[] = [];
  let cursor = '0';
  let call = 0;
  do {
    const reply = cmd(world, conn, 'SCAN', cursor, 'COUNT', String(count));
    const m = /^\*2\r\n\$\d+\r\n(\d+)\r\n\*(\d+)\r\n/.exec(reply);
    if (!m) throw new Error(`unexpected SCAN reply ${JSON.stringify(reply)}`);
    cursor = m[1];
    keys.push(...[...reply.slice(m[0].length).matchAll(/\$\d+\r\n([^\r]*)\r\n/g)].map((x) => x[1]));
    between?.(++call);
  } while (cursor !== '0');
  return keys;
}

describe('replies through the WASM build', () => {
  it('are byte-exact RESP2 for strings, integers, nils and arrays', async () => {
    const { world, conn } = await oneServer();
    expect(rawExchange(world, conn, 'PING\r\n')).toBe('+PONG\r\n');
    expect(cmd(world, conn, 'SET', 'greeting', 'hello')).toBe('+OK\r\n');
    expect(cmd(world, conn, 'GET', 'greeting')).toBe('$5\r\nhello\r\n');
    expect(cmd(world, conn, 'GET', 'nope')).toBe('$-1\r\n');
    expect(cmd(world, conn, 'INCR', 'n')).toBe(':1\r\n');
    expect(cmd(world, conn, 'MGET', 'greeting', 'nope', 'n')).toBe('*3\r\n$5\r\nhello\r\n$-1\r\n$1\r\n1\r\n');
    expect(cmd(world, conn, 'DEL', 'greeting', 'n', 'nope')).toBe(':2\r\n');
  });

  it('carry Redis 7.0 error strings for unknown commands, arity and types', async () => {
    const { world, conn } = await oneServer();
    expect(cmd(world, conn, 'FOO', 'bar')).toBe("-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n");
    expect(cmd(world, conn, 'GET')).toBe("-ERR wrong number of arguments for 'get' command\r\n");
    cmd(world, conn, 'SADD', 's', 'x');
    expect(cmd(world, conn, 'GET', 's')).toBe('-WRONGTYPE Operation against a key holding the wrong kind of value\r\n');
    expect(cmd(world, conn, 'SCAN', 'abc')).toBe('-ERR invalid cursor\r\n');
  });

  it('answers a pipelined buffer of commands in order', async () => {
    const { world, conn } = await oneServer();
    const reply = rawExchange(world, conn, 'SET a 1\r\nINCR a\r\nGET a\r\n');
    expect(reply).toBe('+OK\r\n:2\r\n$1\r\n2\r\n');
  });
});

describe('the TypeScript wrapper', () => {
  it('throws GkError with the engine status and message for a bad call', async () => {
    const { world } = await oneServer();
    let err: unknown;
    try {
      world.send(999, 'PING\r\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GkError);
    expect((err as GkError).code).toBe(Status.ENOTFOUND);
    expect((err as GkError).message).toBe('no such connection');
  });

  it('turns a trap into GkTrapError and refuses every later call', async () => {
    const gk = await loadGlasskv();
    const world = gk.createWorld({ seed: 1 });
    expect(() => gk.debugTrap()).toThrow(GkTrapError);
    expect(gk.trap).toBeInstanceOf(GkTrapError);
    expect(() => world.now()).toThrow(GkTrapError);
  });

  it('gives each instance its own memory', async () => {
    const a = await oneServer();
    const b = await oneServer();
    cmd(a.world, a.conn, 'SET', 'only-in-a', '1');
    expect(cmd(b.world, b.conn, 'EXISTS', 'only-in-a')).toBe(':0\r\n');
  });
});

describe('the redis-cli formatter compiled into the module', () => {
  it('prints replies as redis-cli --no-raw does', async () => {
    const gk = await loadGlasskv();
    const enc = new TextEncoder();
    expect(gk.cliFormatReply(enc.encode('+OK\r\n')).text).toBe('OK\n');
    expect(gk.cliFormatReply(enc.encode(':3\r\n')).text).toBe('(integer) 3\n');
    expect(gk.cliFormatReply(enc.encode('$-1\r\n')).text).toBe('(nil)\n');
    expect(gk.cliFormatReply(enc.encode('*0\r\n')).text).toBe('(empty array)\n');
    expect(gk.cliFormatReply(enc.encode('-ERR boom\r\n')).text).toBe('(error) ERR boom\n');
    const nested = gk.cliFormatReply(enc.encode('*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n'));
    expect(nested.text).toBe('1) "0"\n2) 1) "a"\n   2) "b"\n');
    expect(gk.cliFormatReply(enc.encode('$5\r\nhel')).consumed).toBe(0);
  });

  it('splits lines with quotes, a repeat count and the raw-printed commands', async () => {
    const gk = await loadGlasskv();
    const set = gk.cliLine('SET "a b" \'c\\\'d\'')!;
    expect(set.argc).toBe(3);
    expect(text.decode(set.resp)).toBe('*3\r\n$3\r\nSET\r\n$3\r\na b\r\n$3\r\nc\'d\r\n');
    expect(gk.cliLine('   ')).toBeNull();
    expect(gk.cliLine('GET "unbalanced')!.argc).toBe(CLI_INVALID);
    const rep = gk.cliLine('3 INCR x')!;
    expect([rep.argc, rep.repeat, rep.raw]).toEqual([2, 3, false]);
    expect(gk.cliLine('0 INCR x')!.argc).toBe(CLI_BAD_REPEAT);
    expect(gk.cliLine('DEBUG HTSTATS 0')!.raw).toBe(true);
    expect(gk.cliLine('info')!.raw).toBe(true);
  });
});

describe('introspection while the keyspace rehashes', () => {
  it('reports both tables, rehashidx and the buckets of each', async () => {
    const { world, node, conn } = await oneServer();
    for (let i = 0; i < 4; i++) cmd(world, conn, 'SET', `k${i}`, 'v');
    expect(world.dictInfo(node, 0).size).toEqual([4, 0]);
    cmd(world, conn, 'SET', 'k4', 'v');
    const info = world.dictInfo(node, 0, DictKind.KEYS);
    expect(info.rehashidx).toBeGreaterThanOrEqual(0);
    expect(info.size).toEqual([4, 8]);
    expect(info.used[0] + info.used[1]).toBe(5);
    const t1 = world.dictBuckets(node, 0, DictKind.KEYS, 1, 8);
    expect(t1.entries.reduce((a, b) => a + b, 0)).toBe(info.used[1]);
    let rounds = 0;
    while (world.dictInfo(node, 0).rehashidx >= 0 && rounds++ < 10) world.rehashSteps(node, 0, DictKind.KEYS, 1);
    const done = world.dictInfo(node, 0);
    expect(done).toMatchObject({ rehashidx: -1, size: [8, 0], used: [5, 0] });
    const steps = world.traceReadAll(0).filter((r) => r.type === TraceType.REHASH_STEP);
    expect(steps.length).toBeGreaterThan(0);
  });

  it('folds a large table into bins that add up to the key count', async () => {
    const { world, node, conn } = await oneServer();
    cmd(world, conn, 'DEBUG', 'POPULATE', '100000', 'big');
    const info = world.dictInfo(node, 0);
    const strip = world.dictBuckets(node, 0, DictKind.KEYS, 0, 1000);
    expect(strip.entries.length).toBe(1000);
    expect(strip.entries.reduce((a, b) => a + b, 0)).toBe(info.used[0]);
    expect(strip.filled.every((f, i) => f <= strip.entries[i] && f <= info.size[0] / 1000)).toBe(true);
  });
});

describe('configuration and change counters', () => {
  it('reads configuration parameters from the engine, also after CONFIG SET', async () => {
    const { world, node, conn } = await oneServer();
    expect(world.serverConfigGet(node, 'activerehashing')).toBe('yes');
    expect(world.serverConfigGet(node, 'hz')).toBe('10');
    expect(world.serverConfigGet(node, 'set-max-intset-entries')).toBe('512');
    expect(cmd(world, conn, 'CONFIG', 'SET', 'activerehashing', 'no', 'hz', '50')).toBe('+OK\r\n');
    expect(world.serverConfigGet(node, 'activerehashing')).toBe('no');
    expect(world.serverConfigGet(node, 'hz')).toBe('50');
    world.serverConfigSet(node, 'activerehashing', 'yes');
    expect(cmd(world, conn, 'CONFIG', 'GET', 'activerehashing')).toBe('*2\r\n$15\r\nactiverehashing\r\n$3\r\nyes\r\n');
    expect(() => world.serverConfigGet(node, 'no-such-parameter')).toThrow(GkError);
    expect(() => world.serverConfigGet(7, 'hz')).toThrow(GkError);
  });

  it("changes a dict's version when entries or buckets change, and only then", async () => {
    const { world, node, conn } = await oneServer();
    const v = () => world.dictInfo(node, 0).version;
    const v0 = v();
    cmd(world, conn, 'SET', 'a', '1');
    const v1 = v();
    expect(v1).not.toBe(v0);
    cmd(world, conn, 'GET', 'a');
    cmd(world, conn, 'SCAN', '0');
    cmd(world, conn, 'EXISTS', 'nope');
    world.runUntil(world.now() + 1e9);
    expect(v()).toBe(v1);
    cmd(world, conn, 'SET', 'a', '2');
    expect(v()).toBe(v1);
    for (let i = 0; i < 4; i++) cmd(world, conn, 'SET', `k${i}`, 'v');
    const grown = v();
    expect(grown).not.toBe(v1);
    expect(world.dictInfo(node, 0).rehashidx).toBeGreaterThanOrEqual(0);
    world.rehashSteps(node, 0, DictKind.KEYS, 1);
    expect(v()).not.toBe(grown);
    const before = v();
    cmd(world, conn, 'DEL', 'a');
    expect(v()).not.toBe(before);
  });
});

describe('SCAN through the trace', () => {
  it('visits the buckets of an 8-bucket table in reverse binary order', async () => {
    const { world, conn } = await oneServer();
    for (let i = 0; i < 5; i++) cmd(world, conn, 'SET', `k${i}`, 'v');
    while (world.dictInfo(0, 0).rehashidx >= 0) world.rehashSteps(0, 0, DictKind.KEYS, 1);
    world.traceEnable(1 << TraceType.SCAN_BUCKET);
    const mark = world.traceLastSeq();
    scanAll(world, conn, 1);
    expect(scanBuckets(world, mark)).toEqual([0, 4, 2, 6, 1, 5, 3, 7].map((b) => [0, b]));
  });

  it('visits the small bucket then both expansions while rehashing 8 -> 16', async () => {
    const { world, node, conn } = await oneServer();
    for (let i = 0; i < 8; i++) cmd(world, conn, 'SET', `k${i}`, 'v');
    while (world.dictInfo(node, 0).rehashidx >= 0) world.rehashSteps(node, 0, DictKind.KEYS, 1);
    cmd(world, conn, 'SET', 'k8', 'v');
    expect(world.dictInfo(node, 0).size).toEqual([8, 16]);
    world.traceEnable(1 << TraceType.SCAN_BUCKET);
    const mark = world.traceLastSeq();
    const cursors: string[] = [];
    let cursor = '0';
    do {
      const reply = cmd(world, conn, 'SCAN', cursor, 'COUNT', '1');
      cursor = /^\*2\r\n\$\d+\r\n(\d+)\r\n/.exec(reply)![1];
      cursors.push(cursor);
    } while (cursor !== '0');
    const expected: [number, number][] = [];
    for (const small of [0, 4, 2, 6, 1, 5, 3, 7]) expected.push([0, small], [1, small], [1, small + 8]);
    expect(scanBuckets(world, mark)).toEqual(expected);
    expect(world.dictInfo(node, 0).size).toEqual([8, 16]);
  });
});

describe('the SCAN audit', () => {
  it('proves every key present throughout is returned while the table grows', async () => {
    const { world, node, conn } = await oneServer();
    const writer = world.openConn(node);
    cmd(world, writer, 'DEBUG', 'POPULATE', '1000', 'orig');
    world.scanAuditBegin(node, 0, conn);
    let batch = 0;
    scanAll(world, conn, 20, (call) => {
      if (call % 5 === 0) cmd(world, writer, 'DEBUG', 'POPULATE', '300', `new${batch++}`);
    });
    const audit = world.scanAuditGet(node);
    expect(world.dictInfo(node, 0).size[0]).toBeGreaterThan(1024);
    expect(audit).toMatchObject({ tracked: 1000, throughout: 1000, returned: 1000, missing: 0, active: true });
    expect(audit.foreign).toBeGreaterThan(0);
    world.scanAuditEnd(node);
  });

  it('stops counting a key deleted during the walk and names keys a broken walk missed', async () => {
    const { world, node, conn } = await oneServer();
    const writer = world.openConn(node);
    cmd(world, writer, 'DEBUG', 'POPULATE', '200', 'k');
    world.scanAuditBegin(node, 0, conn);
    cmd(world, writer, 'DEL', 'k:0', 'k:1');
    // A walk that jumps from the first cursor straight to the end misses keys.
    const first = cmd(world, conn, 'SCAN', '0', 'COUNT', '10');
    expect(first.startsWith('*2\r\n')).toBe(true);
    const audit = world.scanAuditGet(node);
    expect(audit.throughout).toBe(198);
    expect(audit.missing).toBe(198 - audit.returned);
    expect(audit.missing).toBeGreaterThan(0);
    const raw = world.scanAuditMissingRaw(node);
    const firstLen = raw[0] | (raw[1] << 8) | (raw[2] << 16) | (raw[3] << 24);
    expect(text.decode(raw.subarray(4, 4 + firstLen))).toMatch(/^k:\d+$/);
  });
});
