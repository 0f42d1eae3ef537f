// The key inspector's view model (web/src/views/inspect/model.ts) on real
// readings of the engine: the bytes it labels are the engine's, every
// listpack encoding decodes to the value the engine reports, the skiplist
// picture links where the spans say, and a change of encoding is named
// with the setting that caused it.
import { describe, expect, it } from 'vitest';
import { KeyPart, LpEncoding } from '../../web/src/wasm-gen/seam';
import {
  bodyOf, bytesText, chainHistogram, changeBetween, decodeBacklen, fillRule, follow, hex, nodeListpack, partTree,
  readListpack, readQuicklist, skiplistGrid, thresholdsOf, ttlOf, type Body,
} from '../../web/src/views/inspect/model';
import type { KeyInspection } from '../../wasm/protocol';
import { emptyLog, newSession } from './helpers';

async function booted() {
  const { session } = newSession();
  await session.boot(emptyLog(3));
  const run = (text: string) => session.act({ kind: 'console', text });
  const read = (key: string) => session.inspect(key)!;
  return { session, run, read };
}

function body<K extends Body['kind']>(ins: KeyInspection, kind: K, more = 0): Extract<Body, { kind: K }> {
  const b = bodyOf(ins, partTree(ins.parts), more);
  expect(b.kind).toBe(kind);
  return b as Extract<Body, { kind: K }>;
}

describe('the key inspector reads a listpack', () => {
  it('entry by entry: encoding, data and backlen bytes tile the listpack between its header and FF', async () => {
    const { run, read } = await booted();
    const long = 'x'.repeat(100);
    const huge = 'y'.repeat(5000);
    const ints = ['0', '127', '-1', '4095', '-4096', '20000', '-32768', '100000', '-8388608', '2000000000',
      '-2147483648', '3000000000', '9223372036854775807', '-9223372036854775808'];
    run(`RPUSH l hello ${ints.join(' ')} ${long} ${huge}`);
    const ins = read('l');
    const tree = partTree(ins.parts);
    const ql = readQuicklist(ins, tree, 0, 10);
    expect(ql.nodes).toBe(1);
    const lpAt = nodeListpack(ins, tree, ql.shown[0].part)!;
    const lp = readListpack(ins, tree, lpAt, 'list', 1000);
    const whole = ins.bytes.subarray(ins.parts[lpAt].offset, ins.parts[lpAt].offset + lp.size);
    expect(lp.totalBytes).toBe(lp.size);
    expect(lp.count).toBe(ints.length + 3);
    expect(lp.end).toBe(0xff);
    expect(lp.more).toBe(0);
    // The segments, end to end, are the listpack's bytes.
    const tiled = [...lp.header!, ...lp.entries.flatMap((e) => [...e.enc!, ...e.data!, ...e.back!]), lp.end!];
    expect(hex(tiled)).toBe(hex(whole));
    for (const e of lp.entries) {
      expect(e.backlen).toBe(e.encLen + e.dataLen);
      expect(e.role).toBe('element');
    }
    expect(lp.entries.map((e) => e.int ?? e.text)).toEqual(['hello', ...ints, long, huge]);
    expect(lp.entries.map((e) => e.kind)).toEqual([
      LpEncoding.STR6, LpEncoding.UINT7, LpEncoding.UINT7, LpEncoding.INT13, LpEncoding.INT13, LpEncoding.INT13,
      LpEncoding.INT16, LpEncoding.INT16, LpEncoding.INT24, LpEncoding.INT24, LpEncoding.INT32, LpEncoding.INT32,
      LpEncoding.INT64, LpEncoding.INT64, LpEncoding.INT64, LpEncoding.STR12, LpEncoding.STR32,
    ]);
    // A 5000-byte entry's backlen takes two bytes, read from the right.
    const last = lp.entries.at(-1)!;
    expect(last.backLen).toBe(2);
    expect(decodeBacklen(last.back!)).toBe(5 + 5000);
  });

  it('pairs a hash\'s fields with their values and a zset\'s members with their scores', async () => {
    const { run, read } = await booted();
    run('HSET h name alice age 42');
    const h = body(read('h'), 'listpack');
    expect(h.owner).toBe('hash');
    expect(h.view.entries.map((e) => [e.role, e.int ?? e.text])).toEqual([
      ['field', 'name'], ['value', 'alice'], ['field', 'age'], ['value', '42'],
    ]);
    run('ZADD z 1.5 a 2 b');
    const z = body(read('z'), 'listpack');
    expect(z.view.entries.map((e) => [e.role, e.int ?? e.text])).toEqual([
      ['member', 'a'], ['score', '1.5'], ['member', 'b'], ['score', '2'],
    ]);
  });

  it('draws the first entries and counts the rest', async () => {
    const { run, read } = await booted();
    run('CONFIG SET hash-max-listpack-entries 1000');
    run(`HSET big ${Array.from({ length: 300 }, (_, i) => `f${i} ${i}`).join(' ')}`);
    const b = body(read('big'), 'listpack');
    expect(b.view.length).toBe(600);
    expect(b.view.entries.length).toBe(48);
    expect(b.view.more).toBe(552);
    expect(body(read('big'), 'listpack', 64).view.entries.length).toBe(112);
  });
});

describe('the key inspector reads the other encodings', () => {
  it('a quicklist\'s nodes with list-max-listpack-size 4, and the rule that splits them', async () => {
    const { run, read } = await booted();
    run('CONFIG SET list-max-listpack-size 4');
    run('RPUSH l a b c d e f g h i');
    const q = body(read('l'), 'quicklist');
    expect(q.view.nodes).toBe(3);
    expect(q.view.fill).toBe(4);
    expect(q.view.shown.map((n) => n.count)).toEqual([4, 4, 1]);
    expect(fillRule(4)).toEqual({ by: 'count', entries: 4, safety: 8192 });
    expect(fillRule(-2)).toEqual({ by: 'size', bytes: 8192 });
    expect(thresholdsOf(read('l'))).toEqual([
      { config: 'list-max-listpack-size', value: 4 }, { config: 'list-compress-depth', value: 0 },
    ]);
  });

  it('an intset\'s elements from their little-endian bytes, at the width its header says', async () => {
    const { run, read } = await booted();
    run('SADD s 5 -3 70000 1');
    const s = body(read('s'), 'intset');
    expect(s.view.width).toBe(4);
    expect(hex(s.view.header!)).toBe('04 00 00 00 04 00 00 00');
    expect(s.view.elements.map((e) => e.value)).toEqual(['-3', '1', '5', '70000']);
    expect(hex(s.view.elements[0].bytes)).toBe('FD FF FF FF');
  });

  it('a hashtable\'s buckets, whose chains hold every entry', async () => {
    const { run, read } = await booted();
    run(`SADD s ${Array.from({ length: 40 }, (_, i) => `m${i}`).join(' ')}`);
    const d = body(read('s'), 'hashtable').view;
    expect(d.entries).toBe(40);
    expect(d.complete).toBe(true);
    expect(d.buckets.reduce((n, b) => n + b.chain, 0)).toBe(40);
    const hist = chainHistogram(d, 0);
    expect(hist.reduce((a, b) => a + b, 0)).toBe(d.sizes[0]);
    expect(hist.reduce((a, n, len) => a + n * len, 0)).toBe(d.buckets.filter((b) => b.table === 0).reduce((n, b) => n + b.chain, 0));
  });

  it('a skiplist drawn with each link ending at the rank its span gives, over the shorter towers', async () => {
    const { run, read } = await booted();
    run(`ZADD z ${Array.from({ length: 200 }, (_, i) => `${i} m${i}`).join(' ')}`);
    const sl = body(read('z'), 'skiplist');
    expect(sl.dict?.entries).toBe(200);
    const v = sl.view;
    expect(v.length).toBe(200);
    expect(v.nodes.length).toBe(24);
    expect(v.nodes.map((n) => n.member)).toEqual(Array.from({ length: 24 }, (_, i) => `m${i}`));
    expect(v.header.length).toBe(v.levels);
    const grid = skiplistGrid(v);
    const n = v.nodes.length;
    for (let level = 0; level < v.levels; level++) {
      const boxes = grid.cells.filter((c) => c.kind === 'box' && c.level === level) as { col: number; span: number; to: number; into: boolean }[];
      boxes.sort((a, b) => a.col - b.col);
      for (let i = 0; i < boxes.length; i++) {
        const b = boxes[i];
        const next = boxes[i + 1];
        if (next) {
          // A link goes to the next box as tall, the span apart.
          expect(b.to).toBe(next.col);
          expect(b.span).toBe(next.col - b.col);
          expect(next.into).toBe(true);
          for (let c = b.col + 1; c < next.col; c++) {
            expect(grid.cells.some((x) => x.kind === 'pass' && x.col === c && x.level === level)).toBe(true);
          }
        } else {
          // The last one leaves the picture: past the nodes drawn, or NULL.
          expect(b.to === 0 || b.to > n).toBe(true);
          expect(grid.cells.some((x) => x.kind === 'end' && x.level === level && x.to === b.to)).toBe(true);
        }
      }
    }
    // Level 0 links every node to the next.
    expect(v.nodes.every((node) => node.levels[0].span === 1 && node.levels[0].to === node.rank + 1)).toBe(true);
  });

  it('strings: int, embstr and raw, and a HyperLogLog named as such', async () => {
    const { run, read } = await booted();
    run('SET n 12345');
    run('SET e hello');
    run(`SET r ${'r'.repeat(50)}`);
    run('PFADD hll a b c');
    expect(body(read('n'), 'string').view).toMatchObject({ encoding: 'int', int: '12345', bytes: null });
    const e = body(read('e'), 'string').view;
    expect(e.encoding).toBe('embstr');
    expect(bytesText(e.bytes!)).toBe('hello');
    expect(body(read('r'), 'string').view.encoding).toBe('raw');
    expect(body(read('hll'), 'string').view.hll).toBe('sparse');
    expect(body(read('e'), 'string').view.hll).toBeNull();
  });

  it('a stream is not drawn yet: its type, encoding and length only', async () => {
    const { run, read } = await booted();
    run('XADD st 1-1 a 1');
    run('XADD st 1-2 b 2');
    const ins = read('st');
    expect(ins.info.encodingName).toBe('stream');
    expect(ins.info.length).toBe(2);
    expect(body(ins, 'none').kind).toBe('none');
  });
});

describe('the key inspector follows a key', () => {
  it('names the 129th member crossing zset-max-listpack-entries 128', async () => {
    const { run, read } = await booted();
    run(`ZADD z ${Array.from({ length: 128 }, (_, i) => `${i} m${i}`).join(' ')}`);
    const before = read('z');
    run('ZADD z 128 m128');
    const after = read('z');
    expect(changeBetween(before, after)).toEqual({
      kind: 'entries', from: 'listpack', to: 'skiplist', config: 'zset-max-listpack-entries', limit: 128, length: 129, before: 128,
    });
  });

  it('names a member longer than zset-max-listpack-value, a member that is not an integer, and a wider intset', async () => {
    const { run, read } = await booted();
    run('ZADD z 1 a');
    const z0 = read('z');
    run(`ZADD z 2 ${'m'.repeat(70)}`);
    expect(changeBetween(z0, read('z'))).toMatchObject({
      kind: 'value', config: 'zset-max-listpack-value', limit: 64, bytes: 70, member: `${'m'.repeat(40)}…`,
    });
    run('SADD s 1 2');
    const s0 = read('s');
    run('SADD s 100000');
    expect(changeBetween(s0, read('s'))).toEqual({ kind: 'width', from: 2, to: 4 });
    const s1 = read('s');
    run('SADD s x');
    expect(changeBetween(s1, read('s'))).toEqual({ kind: 'notInt', from: 'intset', to: 'hashtable' });
  });

  it('names a new quicklist node and a string made raw, and keeps a change until the next one', async () => {
    const { session, run, read } = await booted();
    run('CONFIG SET list-max-listpack-size 4');
    run('RPUSH l a b c d');
    let f = follow(null, 'l', 0, read('l'), 1);
    expect(f.change).toBeNull();
    run('RPUSH l e');
    f = follow(f, 'l', 0, read('l'), 2);
    expect(f.change).toEqual({ kind: 'nodes', from: 1, to: 2, fill: 4 });
    expect(f.changedAt).toBe(2);
    run('RPUSH l f');
    f = follow(f, 'l', 0, read('l'), 3);
    expect(f.change?.kind).toBe('nodes');
    expect(f.changedAt).toBe(2);
    // Another key starts over; so does the key's deletion.
    expect(follow(f, 'm', 0, null, 4).change).toBeNull();
    expect(follow(f, 'l', 0, null, 4)).toMatchObject({ reading: null, change: null });

    run('SET s hello');
    const s0 = read('s');
    run('APPEND s !');
    expect(changeBetween(s0, read('s'))).toEqual({ kind: 'string', from: 'embstr', to: 'raw', length: 6 });
    expect(session.inspect('nosuchkey')).toBeNull();
  });

  it('reads the TTL against the world\'s clock', async () => {
    const { session, run, read } = await booted();
    run('SET k v');
    expect(ttlOf(read('k'), null)).toEqual({ kind: 'none' });
    const snap = run('PEXPIRE k 9000').snapshot;
    const ttl = ttlOf(read('k'), snap);
    expect(ttl.kind).toBe('ms');
    const pttl = Number(/\d+/.exec(run('PTTL k').console[0].output)![0]);
    expect(ttl.kind === 'ms' && Math.abs(ttl.ms - pttl)).toBeLessThanOrEqual(1);
    expect(ttlOf(read('k'), null).kind).toBe('set');
    expect(session.inspect('k')!.parts[0].kind).toBe(KeyPart.STRING);
  });
});
