// Typed wrappers over the engine's memcached-style node (glasskv.h:
// gkMemcached*), for a World of wasm/engine.ts. Like aof.ts it knows
// nothing of workers or the page; failing statuses become GkError with the
// engine's message (memcached's own for refused options).
//
//   const node = memcachedAdd(world, '-m 64 -f 1.25');
//   memcachedStart(world, 15, '-m 8')      // at host 15, or anew there
//   memcachedClasses(world, node)          // class rows and node totals
//   memcachedChunks(world, node, cls, 0)   // bytes used per chunk of a page
//   memcachedItemClass(world, node, 3, 0, 100)  // where a 100-byte value goes
//   memcachedLayout('-f 2 -n 64')          // the ladder, without a world
import { GkError, Status, type Glasskv, type World } from './engine';
import {
  McClassBytes, McFillResultBytes, McFillSpecBytes, McTotalsBytes, readMcClass, readMcFillResult, readMcTotals,
  writeMcFillResult, writeMcFillSpec, type McClass as McClassC, type McFillResult, type McFillSpec, type McTotals,
} from '../web/src/wasm-gen/seam';

import { McDist } from '../web/src/wasm-gen/seam';

export { McDist };
export type { McFillResult, McFillSpec, McTotals };
export type McDistId = (typeof McDist)[keyof typeof McDist];

/** memcached's MAX_NUMBER_OF_SLAB_CLASSES: rows gkMemcachedClasses fills. */
const CLASSES_MAX = 64;
const ERR_CAP = 512;
/** gkMcClass's "none" for the free list's head. */
const NONE = 0xffffffff;

/** One slab class (gkMcClass), with the free list's head at -1 (page and
 *  chunk) when the list is empty. */
export type McClass = McClassC;

export function emptyFillResult(): McFillResult {
  return { sent: 0, stored: 0, outOfMemory: 0, tooLarge: 0, evictions: 0, valueBytes: 0 };
}

/** Calls fn with a scratch block of `bytes` bytes in the module's heap. */
function withBlock<T>(gk: Glasskv, bytes: number, fn: (p: number) => T): T {
  return gk.guard(() => gk.withBlock(bytes, fn));
}

function rowsAt(gk: Glasskv, p: number, n: number): McClass[] {
  const v = gk.view();
  return Array.from({ length: n }, (_, i) => {
    const row = readMcClass(v, p + i * McClassBytes);
    if (row.freeHeadPage === NONE) row.freeHeadPage = -1;
    if (row.freeHeadChunk === NONE) row.freeHeadChunk = -1;
    return row;
  });
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

/** Starts a memcached-style node at host id `node`: a new host on a free
 *  id, or a new process in place of the memcached node there (its items
 *  and connections gone). Options memcached refuses throw its message and
 *  leave a running node alone. */
export function memcachedStart(world: World, node: number, options = ''): void {
  const gk = world.engine;
  gk.guard(() => gk.withString(options, (o) => world.checkStatus(gk.module._gkMemcachedStart(world.handle, node, o))));
}

/** The node's slab classes (ids 1 .. n, in order) and its totals. */
export function memcachedClasses(world: World, node: number): { classes: McClass[]; totals: McTotals } {
  const gk = world.engine;
  return withBlock(gk, CLASSES_MAX * McClassBytes + McTotalsBytes + 8, (p) => {
    const t = p + CLASSES_MAX * McClassBytes;
    const nAt = t + McTotalsBytes;
    world.checkStatus(gk.module._gkMemcachedClasses(world.handle, node, p, CLASSES_MAX, nAt, t));
    const n = Math.min(gk.u32(nAt), CLASSES_MAX);
    return { classes: rowsAt(gk, p, n), totals: readMcTotals(gk.view(), t) };
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
    world.checkStatus(gk.module._gkwMemcachedItemClass(world.handle, node, nkey, flags >>> 0, vlen, p + 8, p));
    return { cls: gk.u32(p + 8), ntotal: gk.u64(p) };
  });
}

/** The class ladder memcached would build from these options, with no
 *  world (for what-if sliders). Options it refuses throw its message. */
export function memcachedLayout(gk: Glasskv, options: string): McClass[] {
  return withBlock(gk, CLASSES_MAX * McClassBytes + 8 + ERR_CAP, (p) => gk.withString(options, (o) => {
    const nAt = p + CLASSES_MAX * McClassBytes;
    const err = nAt + 8;
    gk.module.HEAPU8[err] = 0;
    const status = gk.module._gkMemcachedLayout(o, p, CLASSES_MAX, nAt, err, ERR_CAP);
    if (status < 0) throw new GkError(status, gk.cstring(err) || gk.statusString(status));
    return rowsAt(gk, p, Math.min(gk.u32(nAt), CLASSES_MAX));
  }));
}

/** How the node differs from memcached 1.6.18 (the engine's English text). */
export function memcachedNotes(gk: Glasskv): string {
  return gk.guard(() => gk.cstring(gk.module._gkMemcachedNotes()));
}

/** Throws the GkError memcachedFill would throw for this range of the
 *  workload's sets (bad spec, too many sets or bytes), without sending. */
export function memcachedFillCheck(world: World, spec: McFillSpec, first: number, count: number): void {
  const gk = world.engine;
  withBlock(gk, McFillSpecBytes, (p) => {
    writeMcFillSpec(gk.view(), p, spec);
    world.checkStatus(gk.module._gkwMemcachedFillCheck(world.handle, p, first, count));
  });
}

/** Sends sets first .. first+count-1 of the workload on a connection of
 *  its own and runs the world until their replies are back; returns `acc`
 *  with this slice's outcome added (slices give the same sets as one run). */
export function memcachedFill(world: World, node: number, spec: McFillSpec, first: number, count: number,
  acc: McFillResult = emptyFillResult()): McFillResult {
  const gk = world.engine;
  return withBlock(gk, McFillSpecBytes + McFillResultBytes, (p) => {
    const a = p + McFillSpecBytes;
    writeMcFillSpec(gk.view(), p, spec);
    writeMcFillResult(gk.view(), a, acc);
    world.checkStatus(gk.module._gkwMemcachedFill(world.handle, node, p, first, count, a));
    return readMcFillResult(gk.view(), a);
  });
}
