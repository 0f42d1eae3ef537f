// The memcached-style node's exports on the real .wasm: the class ladder
// checked against Debian's memcached 1.6.18 (`memcached -vv` prints it at
// start-up), pages and chunks filling as sets arrive, where an item lands,
// fill workloads in slices, and refused options.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { emptyLog, loadGlasskv, rawExchange } from './helpers';
import { GkError, type Glasskv, type World } from '../../wasm/engine';
import { Session } from '../../wasm/session';
import { MC_DEFAULTS, MC_LAB_NAMES } from '../../wasm/mcprotocol';
import { explainSlabLab, parseSlabLab } from '../../web/src/views/slabs/labs';
import type { Action } from '../../wasm/protocol';
import {
  McDist, memcachedAdd, memcachedChunks, memcachedClasses, memcachedFill, memcachedItemClass, memcachedLayout,
  memcachedNotes, memcachedPages, type McFillSpec,
} from '../../wasm/mc';

/** The class table memcached itself prints with -vv for these options
 *  (it is started on no port and stopped at once), or its error line. */
function realLadder(options: string[]): { rows: { id: number; size: number; perslab: number }[]; text: string } {
  const r = spawnSync('timeout', ['-s', 'INT', '0.4', 'memcached', '-u', 'root', '-vv', '-p', '0', '-U', '0',
    '-l', '127.0.0.1', ...options], { encoding: 'utf8' });
  const text = `${r.stdout}${r.stderr}`;
  const rows = [...text.matchAll(/slab class +(\d+): chunk size +(\d+) perslab +(\d+)/g)]
    .map((m) => ({ id: Number(m[1]), size: Number(m[2]), perslab: Number(m[3]) }));
  return { rows, text };
}

async function mcWorld(options = ''): Promise<{ gk: Glasskv; world: World; node: number; conn: number }> {
  const gk = await loadGlasskv();
  const world = gk.createWorld({ seed: 7, unixMsAtZero: 1_767_225_600_000 });
  const node = memcachedAdd(world, options);
  const conn = world.openConn(node);
  return { gk, world, node, conn };
}

const set = (key: string, value: string, flags = 0) => `set ${key} ${flags} 0 ${value.length}\r\n${value}\r\n`;

describe('memcached slab exports', () => {
  const ladders = [[], ['-f', '2', '-n', '64'], ['-f', '1.08'], ['-n', '100', '-I', '4m'],
    ['-I', '2m', '-o', 'slab_chunk_max=262144'], ['-f', '1.5', '-n', '16', '-C']];
  test.each(ladders.map((o) => [o.join(' ') || '(defaults)', o]))(
    'the class ladder for %s is the one memcached -vv prints', async (_name, options) => {
      const gk = await loadGlasskv();
      const real = realLadder(options as string[]);
      expect(real.rows.length).toBeGreaterThan(0);
      const ours = memcachedLayout(gk, (options as string[]).join(' '));
      expect(ours.map((c) => ({ id: c.id, size: c.chunkSize, perslab: c.perslab }))).toEqual(real.rows);
    });

  test('the default node has 39 classes from 96 bytes to slab_chunk_max, and no page yet', async () => {
    const { world, node } = await mcWorld();
    const { classes, totals } = memcachedClasses(world, node);
    expect(classes.length).toBe(39);
    expect(totals.classes).toBe(39);
    expect(classes[0]).toMatchObject({ id: 1, chunkSize: 96, perslab: 10922, pages: 0, usedChunks: 0 });
    expect(classes[38]).toMatchObject({ id: 39, chunkSize: 524288, perslab: 2 });
    expect(totals).toMatchObject({ pageSize: 1048576, chunkMax: 524288, itemSizeMax: 1048576, limit: 64 << 20 });
    expect(totals.totalMalloced).toBe(0);
    expect(classes.every((c) => c.freeHeadPage === -1 && c.freeHeadChunk === -1)).toBe(true);
  });

  test('options memcached refuses are refused with its message', async () => {
    const gk = await loadGlasskv();
    const real = realLadder(['-f', '0.5']).text.trim();
    expect(() => memcachedLayout(gk, '-f 0.5')).toThrow(GkError);
    expect(() => memcachedLayout(gk, '-f 0.5')).toThrow(real);
    const world = gk.createWorld({ seed: 1 });
    expect(() => memcachedAdd(world, '-o slab_chunk_max=100000')).toThrow(/evenly divisible/);
    expect(() => memcachedClasses(world, 42)).toThrow(GkError);
  });

  test('sets take chunks of the class their size picks, and the first set takes a page', async () => {
    const { world, node, conn } = await mcWorld();
    const where = memcachedItemClass(world, node, 3, 0, 100);
    // 48-byte header + key+1 + value+2 + 8 bytes of CAS = 162: class 4 (192).
    expect(where).toEqual({ cls: 4, ntotal: 48 + 4 + 102 + 8 });
    expect(rawExchange(world, conn, set('k:1', 'x'.repeat(100)))).toBe('STORED\r\n');
    let { classes, totals } = memcachedClasses(world, node);
    const c4 = classes[3];
    expect(c4).toMatchObject({ pages: 1, usedChunks: 1, freeChunks: 5460, items: 1, requested: where.ntotal });
    expect(c4.allocated).toBe(1 << 20);
    expect(totals.totalMalloced).toBe(1 << 20);
    expect(memcachedPages(world, node, 4)).toEqual(new Uint32Array([1]));
    for (let i = 2; i <= 10; i++) rawExchange(world, conn, set(`k:${i}`, 'x'.repeat(100)));
    ({ classes, totals } = memcachedClasses(world, node));
    expect(classes[3].usedChunks).toBe(10);
    expect(totals.currItems).toBe(10);
    const chunks = memcachedChunks(world, node, 4, 0);
    expect(chunks.length).toBe(5461);
    const used = [...chunks].filter((b) => b > 0);
    expect(used.length).toBe(10);
    // Keys k:2 .. k:9 are 3 bytes, k:10 is 4: one byte more.
    expect(used.filter((b) => b === 162).length).toBe(9);
    expect(used.filter((b) => b === 163).length).toBe(1);
    const head = classes[3];
    expect(head.freeHeadPage).toBe(0);
    expect(chunks[head.freeHeadChunk]).toBe(0);
    expect(rawExchange(world, conn, 'delete k:1\r\n')).toBe('DELETED\r\n');
    expect(memcachedClasses(world, node).classes[3].usedChunks).toBe(9);
  });

  test('an item larger than slab_chunk_max is refused above -I and stored in chunks below it', async () => {
    const { world, node, conn } = await mcWorld();
    expect(memcachedItemClass(world, node, 1, 0, 2 << 20).cls).toBe(0);
    const big = memcachedItemClass(world, node, 1, 0, 700_000);
    expect(big.cls).toBe(39);
    expect(rawExchange(world, conn, set('b', 'y'.repeat(700_000)))).toBe('STORED\r\n');
    // As memcached 1.6 chunks it: the header in a small class, 524288
    // bytes in the largest, the rest in the class that fits it.
    const withPages = memcachedClasses(world, node).classes.filter((c) => c.pages > 0);
    expect(withPages.map((c) => [c.id, c.usedChunks])).toEqual([[2, 1], [35, 1], [39, 1]]);
    expect(withPages[2].requested).toBe(big.ntotal);
    expect(() => memcachedChunks(world, node, 3, 0)).toThrow(/no such slab page/);
    expect(() => memcachedPages(world, node, 99)).toThrow(/no such slab class/);
  });

  test('the notes say how the node differs from memcached', async () => {
    const gk = await loadGlasskv();
    expect(memcachedNotes(gk)).toMatch(/no_lru_maintainer/);
  });
});

describe('memcached fill workloads', () => {
  const spec: McFillSpec = { dist: McDist.UNIFORM, sizeA: 50, sizeB: 3000, keyBytes: 10, keyspace: 5000, total: 4000, seed: 3 };

  test('a workload run in slices leaves the node as one run does', async () => {
    const a = await mcWorld('-m 2');
    const b = await mcWorld('-m 2');
    const whole = memcachedFill(a.world, a.node, spec, 0, spec.total);
    let acc = undefined;
    for (let first = 0; first < spec.total; first += 700) {
      acc = memcachedFill(b.world, b.node, spec, first, Math.min(700, spec.total - first), acc);
    }
    expect(acc).toEqual(whole);
    expect(whole.sent).toBe(spec.total);
    expect(memcachedClasses(b.world, b.node)).toEqual(memcachedClasses(a.world, a.node));
  });

  test('values that shift from small to large evict in big classes while small ones keep free chunks', async () => {
    const { world, node } = await mcWorld('-m 4');
    const shift: McFillSpec = { dist: McDist.SHIFT, sizeA: 100, sizeB: 4000, keyBytes: 10, keyspace: 3000, total: 30000, seed: 1 };
    const r = memcachedFill(world, node, shift, 0, shift.total);
    expect(r.sent).toBe(shift.total);
    expect(r.evictions).toBeGreaterThan(0);
    const { classes, totals } = memcachedClasses(world, node);
    expect(totals.evictions).toBe(r.evictions);
    const evicting = classes.filter((c) => c.evicted > 0);
    const idle = classes.filter((c) => c.pages > 0 && c.freeChunks > 0 && c.evicted === 0);
    expect(evicting.length).toBeGreaterThan(0);
    expect(idle.length).toBeGreaterThan(0);
    expect(Math.max(...evicting.map((c) => c.chunkSize))).toBeGreaterThan(Math.min(...idle.map((c) => c.chunkSize)));
  });

  test('a fill on a node that does not exist throws', async () => {
    const { world } = await mcWorld();
    expect(() => memcachedFill(world, 99, spec, 0, 10)).toThrow(GkError);
  });
});

describe('memcached actions in the session', () => {
  function session(checkpointEveryMs: number): Session {
    return new Session({ loadEngine: loadGlasskv, emit: () => {} }, { checkpointEveryMs });
  }
  const view = (s: Session, cls = 1) => s.slabs({ what: 'view', cls, from: 0, pages: 4 });
  /** What the Redis side of a session shows: the server's dataset, its
   *  tables, its system calls and iterations, the client programs. */
  const redisSide = (s: Session) => {
    const snap = s.snapshot();
    return {
      dataset: s.datasetDigest(), dict: snap.dict, hosts: snap.hosts,
      workloads: snap.workloads.map((w) => w.stats),
    };
  };

  test('protocol lines typed in two actions reach the node, and the raw replies are kept', async () => {
    const s = session(250);
    await s.boot(emptyLog());
    expect(view(s).running).toBe(false);
    s.act({ kind: 'mcLine', text: 'set greeting 0 0 5' });
    s.act({ kind: 'mcLine', text: 'hello' });
    s.act({ kind: 'mcLine', text: 'get greeting\nset a 0 0 bad\nversion' });
    const v = view(s);
    expect(v.running).toBe(true);
    expect(v.options).toEqual(MC_DEFAULTS);
    expect(v.console.map((e) => e.output)).toEqual([
      '', '', 'STORED\r\n', 'VALUE greeting 0 5\r\nhello\r\nEND\r\nCLIENT_ERROR bad command line format\r\nVERSION 1.6.18\r\n',
    ]);
    expect(v.totals!.currItems).toBe(1);
    // The event-loop views' hosts are the server and the client programs:
    // the memcached node (host 15) is drawn by the Slabs view.
    expect(s.snapshot().hosts.length).toBe(1);
  });

  test('the node runs on the session world\'s clock: Play moves its time, and its items expire with it', async () => {
    const s = session(250);
    await s.boot(emptyLog());
    s.act({ kind: 'mcLine', text: 'set short 0 2 5\nhello\nset long 0 0 3\nabc' });
    const t0 = s.position.now;
    s.advanceBy(3e9);
    expect(s.position.now).toBeGreaterThanOrEqual(t0 + 3e9);
    expect(view(s).now).toBe(s.position.now);
    s.act({ kind: 'mcLine', text: 'get short long' });
    expect(view(s).console.at(-1)!.output).toBe('VALUE long 0 3\r\nabc\r\nEND\r\n');
  });

  test('client programs keep the ids 1, 2, ... when the memcached node started before them', async () => {
    const s = session(250);
    await s.boot(emptyLog());
    s.act({ kind: 'mcLine', text: 'version' });
    s.act({ kind: 'workload', preset: 'benchmark', clients: 1, requests: 10 });
    s.act({ kind: 'workload', preset: 'benchmark', clients: 1, requests: 10 });
    const snap = s.snapshot();
    expect(snap.workloads.map((w) => w.id)).toEqual([1, 2]);
    expect(snap.hosts.map((h) => h.id)).toEqual([0, 1, 2]);
    s.act({ kind: 'workloadStop', id: 2 });
    s.act({ kind: 'stepIteration', node: 1 });
    expect(view(s).console.at(-1)!.output).toBe('VERSION 1.6.18\r\n');
  });

  test('options are checked before they are logged, with memcached messages', async () => {
    const s = session(250);
    await s.boot(emptyLog());
    expect(() => s.act({ kind: 'mcStart', options: { ...MC_DEFAULTS, f: 1 } })).toThrow(/Factor must be greater than 1/);
    expect(() => s.act({ kind: 'mcStart', options: { ...MC_DEFAULTS, m: 1e6 } })).toThrow(RangeError);
    expect(s.entries.length).toBe(0);
    s.act({ kind: 'mcStart', options: { ...MC_DEFAULTS, f: 2, n: 64 } });
    expect(view(s).classes[0].chunkSize).toBe(112);
  });

  test('rewinding and replaying give the node the same slabs as never rewinding', async () => {
    const spec = { dist: McDist.SHIFT, sizeA: 100, sizeB: 3000, keyBytes: 8, keyspace: 2000, total: 6000, seed: 5 };
    const actions: Action[] = [
      { kind: 'mcStart', options: { ...MC_DEFAULTS, m: 3 } },
      { kind: 'mcLine', text: 'set x 0 0 3\nabc' },
      { kind: 'wait', ns: 1e6 },
    ];
    for (let first = 0; first < spec.total; first += 1500) actions.push({ kind: 'mcFill', spec, first, count: 1500 });
    const a = session(0);
    await a.boot(emptyLog());
    const marks: { t: number; view: ReturnType<typeof view> }[] = [];
    for (const act of actions) {
      a.act(act);
      marks.push({ t: a.position.now, view: view(a, 5) });
    }
    const end = view(a, 5);
    expect(end.fill!.result.sent).toBe(spec.total);
    expect(end.fill!.next).toBe(spec.total);
    expect(end.totals!.evictions).toBeGreaterThan(0);
    // Each slice takes virtual time: back to just before the second one
    // was sent, then forward again.
    expect(marks[4].t).toBeGreaterThan(marks[3].t);
    expect(marks[3].view.totals).not.toEqual(end.totals);
    a.seek(marks[3].t - 1);
    expect(view(a, 5).totals).toEqual(marks[3].view.totals);
    a.seek(marks.at(-1)!.t);
    expect(view(a, 5)).toEqual(end);
    // A fresh session replaying the log.
    const b = session(1e9);
    await b.boot({ ...emptyLog(), entries: [...a.entries] });
    expect(view(b, 5)).toEqual(end);
  });

  test('regression: a long fill lets the Redis world run as a wait would, its trace read on the way', async () => {
    // A SET workload runs in the Redis world while a fill of the memcached
    // node takes its virtual time: the timeline and the ledger of
    // acknowledged writes must see all of it, as they do for a wait.
    const spec = { dist: McDist.FIXED, sizeA: 100, sizeB: 0, keyBytes: 10, keyspace: 1 << 20, total: 200_000, seed: 3 };
    const start: Action[] = [
      { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1000 },
      { kind: 'wait', ns: 1e6 },
    ];
    const filled = session(0);
    await filled.boot(emptyLog());
    for (const a of start) filled.act(a);
    filled.act({ kind: 'mcFill', spec, first: 0, count: spec.total });
    const took = filled.position.now - 1e6;
    expect(took).toBeGreaterThan(50e6);
    const waited = session(0);
    await waited.boot(emptyLog());
    for (const a of start) waited.act(a);
    waited.act({ kind: 'wait', ns: took });
    expect(waited.position.now).toBe(filled.position.now);
    expect(filled.snapshot().traceLost).toBe(0);
    expect(filled.aof().writes).toBe(waited.aof().writes);
    // The memcached node and its items are in the world's digest, so the
    // two worlds' digests differ; the Redis server's side must not.
    expect(filled.digest()).not.toBe(waited.digest());
    expect(redisSide(filled)).toEqual(redisSide(waited));
  });

  test('a fill the engine refuses is shown in the memcached console', async () => {
    const s = session(250);
    await s.boot(emptyLog());
    const spec = { dist: McDist.FIXED, sizeA: 10, sizeB: 0, keyBytes: 2, keyspace: 1000, total: 10, seed: 1 };
    s.act({ kind: 'mcFill', spec, first: 0, count: 10 });
    expect(view(s).console.at(-1)!.output).toMatch(/keyspace too large for key_bytes/);
    expect(() => s.act({ kind: 'mcFill', spec, first: 5, count: 10 })).toThrow(RangeError);
  });
});

describe('the slab labs as the Slabs pane tells them', () => {
  test('each run of the three labs gets its table and a sentence whose numbers are its own', async () => {
    const gk = await loadGlasskv();
    expect(gk.labNames()).toEqual(expect.arrayContaining([...MC_LAB_NAMES]));
    const classesJson = gk.labRun('slab-classes', 1);
    const classes = parseSlabLab('slab-classes', classesJson);
    const raw = JSON.parse(classesJson).runs;
    expect(classes.map((r) => r.name)).toEqual(raw.map((r: { name: string }) => r.name));
    const told = explainSlabLab('slab-classes', classes);
    expect(told).toHaveLength(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const rows = raw[i].rows;
      expect(classes[i].rows).toHaveLength(rows.length);
      expect(told[i].params).toMatchObject({
        classes: rows.length, first: rows[0].chunk_size, last: rows.at(-1).chunk_size,
        lastPerslab: rows.at(-1).perslab, tail: raw[i].page_tail_bytes_all_classes, worst: raw[i].worst_waste_pct,
      });
    }

    const itemsJson = JSON.parse(gk.labRun('item-placement', 1));
    const items = explainSlabLab('item-placement', parseSlabLab('item-placement', JSON.stringify(itemsJson)));
    const list = itemsJson.runs[0].items;
    expect(items).toHaveLength(list.length);
    list.forEach((it: { stored: boolean; chunks: unknown[]; ntotal: number }, i: number) => {
      const key = !it.stored ? 'slabLab.explain.itemRefused'
        : it.chunks.length === 1 ? 'slabLab.explain.item' : 'slabLab.explain.itemChunked';
      expect(items[i].key).toBe(key);
      expect(items[i].params.ntotal).toBe(it.ntotal);
    });

    const calcJson = JSON.parse(gk.labRun('slab-calcification', 1));
    const calc = explainSlabLab('slab-calcification', parseSlabLab('slab-calcification', JSON.stringify(calcJson)));
    expect(calc).toHaveLength(calcJson.runs.length);
    calc.forEach((s, i) => {
      const r = calcJson.runs[i];
      expect(s.params).toMatchObject({ evictions: r.evictions, idle: r.idle_bytes, cls: r.target_class, sent: r.sent });
    });
  });
});
