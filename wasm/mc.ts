// Typed wrappers over the engine's memcached-style node (glasskv.h:
// gkMemcached*), for a World of wasm/engine.ts. Like aof.ts it knows
// nothing of workers or the page; failing statuses become GkError with the
// engine's message (memcached's own for refused options).
//
//   const node = memcachedAdd(world, '-m 64 -f 1.25');
//   memcachedClasses(world, node)          // class rows and node totals
//   memcachedChunks(world, node, cls, 0)   // bytes used per chunk of a page
//   memcachedItemClass(world, node, 3, 0, 100)  // where a 100-byte value goes
//   memcachedLayout('-f 2 -n 64')          // the ladder, without a world
import { GkError, Status, type Glasskv, type World } from './engine';

/** Doubles per class row and of the totals (wasm/mcexports.c). */
const ROW = 13;
const TOTALS = 11;
const CLASSES_MAX = 64;
const SPEC = 7;
const FILL = 6;
const ERR_CAP = 512;

/** One slab class (gkMcClass). */
export interface McClass {
  id: number;
  chunkSize: number;
  perslab: number;
  pages: number;
  usedChunks: number;
  freeChunks: number;
  items: number;
  /** Where the free list's head chunk is; -1 for both when it is empty. */
  freeHeadPage: number;
  freeHeadChunk: number;
  /** Bytes the class's items count (memcached's mem_requested). */
  requested: number;
  /** Bytes of the class's pages. */
  allocated: number;
  evicted: number;
  outOfMemory: number;
}

/** Node-wide slab figures (gkMcTotals). */
export interface McTotals {
  classes: number;
  activeSlabs: number;
  pageSize: number;
  chunkMax: number;
  itemSizeMax: number;
  /** -m in bytes. */
  limit: number;
  totalMalloced: number;
  requested: number;
  usedBytes: number;
  currItems: number;
  evictions: number;
}

/** Value-size distributions of a fill workload (GK_MC_DIST_*). */
export const McDist = { FIXED: 0, UNIFORM: 1, NORMAL: 2, SHIFT: 3 } as const;
export type McDistId = (typeof McDist)[keyof typeof McDist];

/** A fill workload (gkMcFillSpec). sizeA: the fixed size, uniform min,
 *  normal mean or shift start; sizeB: uniform max, normal stddev or shift
 *  end. Set i writes key i % keyspace; a shift moves over `total` sets. */
export interface McFillSpec {
  dist: McDistId;
  sizeA: number;
  sizeB: number;
  keyBytes: number;
  keyspace: number;
  total: number;
  seed: number;
}

/** What sets of a fill came to (gkMcFillResult), summed over slices. */
export interface McFillResult {
  sent: number;
  stored: number;
  outOfMemory: number;
  tooLarge: number;
  evictions: number;
  valueBytes: number;
}

export function emptyFillResult(): McFillResult {
  return { sent: 0, stored: 0, outOfMemory: 0, tooLarge: 0, evictions: 0, valueBytes: 0 };
}

/** Calls fn with a scratch block of `bytes` bytes in the module's heap. */
function withBlock<T>(gk: Glasskv, bytes: number, fn: (p: number) => T): T {
  return gk.guard(() => gk.withBlock(bytes, fn));
}

function rowsOf(f: Float64Array, n: number): McClass[] {
  const out: McClass[] = [];
  for (let i = 0; i < n; i++) {
    const o = i * ROW;
    out.push({
      id: f[o], chunkSize: f[o + 1], perslab: f[o + 2], pages: f[o + 3], usedChunks: f[o + 4], freeChunks: f[o + 5],
      items: f[o + 6], freeHeadPage: f[o + 7], freeHeadChunk: f[o + 8], requested: f[o + 9], allocated: f[o + 10],
      evicted: f[o + 11], outOfMemory: f[o + 12],
    });
  }
  return out;
}

/** Adds a memcached-style node configured by memcached's command-line
 *  options (e.g. "-m 64 -f 1.25 -n 48 -I 1m -o slab_chunk_max=524288 -C");
 *  returns its node id. Options memcached refuses throw its message. */
export function memcachedAdd(world: World, options = ''): number {
  const gk = world.engine;
  return gk.guard(() => gk.withString(options, (o) => {
    const s = gk.scratchPtr;
    world.checkStatus(gk.module._gkMemcachedAdd(world.handle, o, s));
    return gk.i32(s);
  }));
}

/** The node's slab classes (ids 1 .. n, in order) and its totals. */
export function memcachedClasses(world: World, node: number): { classes: McClass[]; totals: McTotals } {
  const gk = world.engine;
  return withBlock(gk, (CLASSES_MAX * ROW + TOTALS) * 8, (p) => {
    const t = p + CLASSES_MAX * ROW * 8;
    const n = world.checkStatus(gk.module._gkwMemcachedClasses(world.handle, node, p, t));
    const f = gk.f64s(t, TOTALS);
    return {
      classes: rowsOf(gk.f64s(p, n * ROW), n),
      totals: {
        classes: f[0], activeSlabs: f[1], pageSize: f[2], chunkMax: f[3], itemSizeMax: f[4], limit: f[5],
        totalMalloced: f[6], requested: f[7], usedBytes: f[8], currItems: f[9], evictions: f[10],
      },
    };
  });
}

/** Calls a gkMemcachedPages-style function with growing buffers: a
 *  Uint32Array of every entry it reports. */
function u32List(gk: Glasskv, world: World, call: (out: number, max: number, n: number) => number, first: number): Uint32Array {
  let max = first;
  for (;;) {
    const got = withBlock(gk, max * 4 + 4, (p) => {
      const nAt = p + max * 4;
      world.checkStatus(call(p, max, nAt));
      const n = gk.u32(nAt);
      if (n > max) return n;
      const h = gk.module.HEAPU8;
      return new Uint32Array(h.buffer.slice(p, p + n * 4));
    });
    if (typeof got !== 'number') return got;
    max = got;
  }
}

/** Used chunks of each page of class cls, in the order the pages were taken. */
export function memcachedPages(world: World, node: number, cls: number): Uint32Array {
  const gk = world.engine;
  return u32List(gk, world, (out, max, n) => gk.module._gkMemcachedPages(world.handle, node, cls, out, max, n), 64);
}

/** Bytes used by each chunk of one page of class cls (its header
 *  included; 0 for a free chunk; the rest up to the chunk size is padding). */
export function memcachedChunks(world: World, node: number, cls: number, page: number): Uint32Array {
  const gk = world.engine;
  return u32List(gk, world,
    (out, max, n) => gk.module._gkMemcachedChunks(world.handle, node, cls, page, out, max, n), 1024);
}

/** Where an item (key of nkey bytes, client flags, value of vlen bytes)
 *  would go: its class (0: too large to store) and its size as memcached
 *  counts it. */
export function memcachedItemClass(world: World, node: number, nkey: number, flags: number,
  vlen: number): { cls: number; ntotal: number } {
  const gk = world.engine;
  if (!Number.isInteger(nkey) || nkey < 0 || nkey > 0xffffffff) throw new GkError(Status.EINVAL, 'bad key length');
  if (!Number.isInteger(vlen) || vlen < 0) throw new GkError(Status.EINVAL, 'bad value length');
  return withBlock(gk, 16, (p) => {
    world.checkStatus(gk.module._gkwMemcachedItemClass(world.handle, node, nkey, flags >>> 0, vlen, p));
    const f = gk.f64s(p, 2);
    return { cls: f[0], ntotal: f[1] };
  });
}

/** The class ladder memcached would build from these options, with no
 *  world (for what-if sliders). Options it refuses throw its message. */
export function memcachedLayout(gk: Glasskv, options: string): McClass[] {
  return withBlock(gk, CLASSES_MAX * ROW * 8 + ERR_CAP, (p) => gk.withString(options, (o) => {
    const err = p + CLASSES_MAX * ROW * 8;
    const n = gk.module._gkwMemcachedLayout(o, p, err, ERR_CAP);
    if (n < 0) throw new GkError(n, gk.cstring(err) || gk.statusString(n));
    return rowsOf(gk.f64s(p, n * ROW), n);
  }));
}

/** How the node differs from memcached 1.6.18 (the engine's English text). */
export function memcachedNotes(gk: Glasskv): string {
  return gk.guard(() => gk.cstring(gk.module._gkMemcachedNotes()));
}

/** Sends sets first .. first+count-1 of the workload on a connection of
 *  its own and runs the world until their replies are back; returns `acc`
 *  with this slice's outcome added (slices give the same sets as one run). */
export function memcachedFill(world: World, node: number, spec: McFillSpec, first: number, count: number,
  acc: McFillResult = emptyFillResult()): McFillResult {
  const gk = world.engine;
  return withBlock(gk, (SPEC + FILL) * 8, (p) => {
    const a = p + SPEC * 8;
    const h = gk.module.HEAPU8;
    const view = new DataView(h.buffer, h.byteOffset);
    [spec.dist, spec.sizeA, spec.sizeB, spec.keyBytes, spec.keyspace, spec.total, spec.seed]
      .forEach((v, i) => view.setFloat64(p + i * 8, v, true));
    [acc.sent, acc.stored, acc.outOfMemory, acc.tooLarge, acc.evictions, acc.valueBytes]
      .forEach((v, i) => view.setFloat64(a + i * 8, v, true));
    world.checkStatus(gk.module._gkwMemcachedFill(world.handle, node, p, first, count, a));
    const f = gk.f64s(a, FILL);
    return { sent: f[0], stored: f[1], outOfMemory: f[2], tooLarge: f[3], evictions: f[4], valueBytes: f[5] };
  });
}
