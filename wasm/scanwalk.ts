// A node's SCAN walk, typed (gkScanWalk* in glasskv.h). The engine owns the
// walk: its connection, cursor and calls, the keys it has seen, the buckets
// each call visited (told by the server as it visits them), the audit's
// counters. A copy of the module's memory therefore holds the walk whole,
// and a rewind or a replay gives it back exactly. This file begins and
// steps walks, and reads what the engine kept into the shapes the page
// draws (ScanSnapshot, ScanCall).
//
//   scanWalkBegin(world, node, 0, 10, '*')   // gkScanWalkBegin
//   scanWalkStep(world, node)                // one SCAN call
//   scanWalkSnapshot(world, node)            // { cursor, recent, audit, ... }
import type { World } from './engine';
import {
  ScanAuditBytes, ScanWalkBucketBytes, ScanWalkCallBytes, ScanWalkInfoBytes, ScanWalkLimit, readScanAudit,
  readScanWalkBucket, readScanWalkCall, readScanWalkInfo, type ScanWalkCall as WalkCall, type ScanWalkInfo,
} from '../web/src/wasm-gen/seam';
import type { ScanAuditView, ScanCall, ScanSnapshot } from './protocol';

export { ScanWalkLimit, type ScanWalkInfo };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function withBlock<T>(world: World, bytes: number, fn: (p: number) => T): T {
  return world.engine.guard(() => world.engine.withBlock(bytes, fn));
}

/** Why a MATCH pattern cannot begin a walk, or null if it can. */
export function matchProblem(match: string): string | null {
  const bytes = encoder.encode(match);
  if (bytes.length > ScanWalkLimit.MATCH) return `a MATCH pattern has at most ${ScanWalkLimit.MATCH} bytes`;
  if (bytes.includes(0)) return 'a MATCH pattern cannot hold a NUL byte';
  return null;
}

/** Begins a walk of db (forgetting the node's last one) and the SCAN
 *  audit of db for its connection. No MATCH for '' or '*'. */
export function scanWalkBegin(world: World, node: number, db: number, count: number, match: string): void {
  const bytes = encoder.encode(match);
  withBlock(world, bytes.length, (p) => {
    world.engine.module.HEAPU8.set(bytes, p);
    world.checkStatus(world.engine.module._gkwScanWalkBegin(world.handle, node, db, count, p, bytes.length));
  });
}

/** Sends the walk's next SCAN call and records it (an error reply is
 *  recorded too, as the walk's error). */
export function scanWalkStep(world: World, node: number): void {
  world.engine.guard(() => world.checkStatus(world.engine.module._gkScanWalkStep(world.handle, node)));
}

/** Steps until the cursor is 0, a call fails, or maxCalls calls. */
export function scanWalkFinish(world: World, node: number, maxCalls: number): void {
  world.engine.guard(() => world.checkStatus(world.engine.module._gkwScanWalkFinish(world.handle, node, maxCalls)));
}

/** The walk as a whole; `active` is false when none was begun. */
export function scanWalkInfo(world: World, node: number): ScanWalkInfo {
  const gk = world.engine;
  return withBlock(world, ScanWalkInfoBytes, (p) => {
    world.checkStatus(gk.module._gkScanWalkGetInfo(world.handle, node, p));
    return readScanWalkInfo(gk.view(), p);
  });
}

/** 0..255 per bin: the share of the bin's buckets the walk visited while
 *  the table had `size` buckets, folded as gkDictGetBuckets folds. */
export function scanWalkVisited(world: World, node: number, size: number, bins: number): Uint8Array {
  const gk = world.engine;
  return withBlock(world, bins, (p) => {
    world.checkStatus(gk.module._gkwScanWalkVisited(world.handle, node, size, bins, p));
    return gk.bytes(p, bins);
  });
}

/** The walk as the page shows it, or null when there is none. */
export function scanWalkSnapshot(world: World, node: number): ScanSnapshot | null {
  const info = scanWalkInfo(world, node);
  if (!info.active) return null;
  return {
    db: info.db,
    count: info.count,
    match: info.match,
    cursor: String(info.cursor),
    done: info.done,
    calls: info.calls,
    recent: recentCalls(world, node, info.recent),
    distinctKeys: info.distinct,
    duplicateReturns: info.duplicates,
    audit: walkAudit(world, node),
    missingKeys: info.done ? missingKeys(world, node, info.missingBytes) : null,
    error: info.failed ? info.error : null,
  };
}

function recentCalls(world: World, node: number, kept: number): ScanCall[] {
  const gk = world.engine;
  const calls = withBlock(world, kept * ScanWalkCallBytes + 4, (p) => {
    const nAt = p + kept * ScanWalkCallBytes;
    world.checkStatus(gk.module._gkScanWalkCalls(world.handle, node, p, kept, nAt));
    const n = Math.min(gk.u32(nAt), kept);
    const v = gk.view();
    return Array.from({ length: n }, (_, i) => readScanWalkCall(v, p + i * ScanWalkCallBytes));
  });
  return calls.map((c) => ({
    n: c.n,
    cursorIn: String(c.cursorIn),
    cursorOut: String(c.cursorOut),
    sizes: [c.size[0], c.size[1]],
    rehashidx: c.rehashidx,
    buckets: callBuckets(world, node, c),
    bucketCount: c.buckets,
    keys: callKeys(world, node, c.n, false, c.keysBytes),
    keyCount: c.keys,
    duplicates: callKeys(world, node, c.n, true, c.duplicatesBytes),
  }));
}

function callBuckets(world: World, node: number, c: WalkCall): ScanCall['buckets'] {
  const gk = world.engine;
  const max = c.bucketsKept;
  return withBlock(world, max * ScanWalkBucketBytes + 4, (p) => {
    const nAt = p + max * ScanWalkBucketBytes;
    world.checkStatus(gk.module._gkwScanWalkBuckets(world.handle, node, c.n, p, max, nAt));
    const n = Math.min(gk.u32(nAt), max);
    const v = gk.view();
    return Array.from({ length: n }, (_, i) => {
      const b = readScanWalkBucket(v, p + i * ScanWalkBucketBytes);
      return { table: b.table, index: b.index, size: c.size[b.table] ?? 0 };
    });
  });
}

function callKeys(world: World, node: number, call: number, duplicates: boolean, bytes: number): string[] {
  const gk = world.engine;
  return withBlock(world, bytes + 4, (p) => {
    const s = gk.scratchPtr;
    world.checkStatus(gk.module._gkwScanWalkKeys(world.handle, node, call, duplicates ? 1 : 0, p, bytes, s));
    return splitKeys(gk.bytes(p, gk.u32(s)));
  });
}

function missingKeys(world: World, node: number, bytes: number): string[] {
  const gk = world.engine;
  return withBlock(world, bytes + 4, (p) => {
    const s = gk.scratchPtr;
    world.checkStatus(gk.module._gkScanWalkMissing(world.handle, node, p, bytes, s));
    return splitKeys(gk.bytes(p, gk.u32(s)));
  });
}

function walkAudit(world: World, node: number): ScanAuditView {
  const gk = world.engine;
  const a = withBlock(world, ScanAuditBytes, (p) => {
    world.checkStatus(gk.module._gkScanWalkAudit(world.handle, node, p));
    return readScanAudit(gk.view(), p);
  });
  return {
    tracked: a.tracked, throughout: a.throughout, returned: a.returned, missing: a.missing,
    duplicates: a.duplicates, foreign: a.foreign, calls: a.calls, active: a.active,
  };
}

/** Keys as the engine writes them (gkScanWalkKeys, gkDictGetBucketKeys):
 *  each a 4-byte little-endian length, then its bytes, shown as UTF-8. */
export function splitKeys(raw: Uint8Array): string[] {
  const out: string[] = [];
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let at = 0; at + 4 <= raw.length;) {
    const len = view.getUint32(at, true);
    if (at + 4 + len > raw.length) break;
    out.push(decoder.decode(raw.subarray(at + 4, at + 4 + len)));
    at += 4 + len;
  }
  return out;
}
