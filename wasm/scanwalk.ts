// A SCAN walk on its own connection, one call per step. The cursor and the
// keys come from SCAN's replies; the buckets visited come from the engine's
// GK_TR_SCAN_BUCKET trace records; the verdict on SCAN's guarantee comes
// from the engine's scan audit. This file only records and arranges them.
import { DictKind, TraceType, type World } from './engine';
import { roundTrip } from './driver';
import { bytesToLatin1, encodeRequest, type Reply } from './resp';
import type { ScanAuditView, ScanBucket, ScanCall, ScanSnapshot } from './protocol';

/** Calls kept for display, and buckets and keys kept per call. */
const RECENT_CALLS = 32;
const BUCKETS_PER_CALL = 256;
const KEYS_PER_CALL = 200;
const MISSING_SHOWN = 200;

const decoder = new TextDecoder();

function display(latin1: string): string {
  const b = new Uint8Array(latin1.length);
  for (let i = 0; i < latin1.length; i++) b[i] = latin1.charCodeAt(i);
  return decoder.decode(b);
}

function parseScanReply(r: Reply | null): { cursor: string; keys: Uint8Array[] } | string {
  if (!r) return 'no reply';
  if (r.type === 'error') return r.value;
  if (r.type !== 'array' || !r.value || r.value.length !== 2) return 'unexpected SCAN reply';
  const [c, ks] = r.value;
  if (c.type !== 'bulk' || !c.value || ks.type !== 'array' || !ks.value) return 'unexpected SCAN reply';
  const keys: Uint8Array[] = [];
  for (const k of ks.value) if (k.type === 'bulk' && k.value) keys.push(k.value);
  return { cursor: decoder.decode(c.value), keys };
}

/** A walk as a checkpoint keeps it. Keys are only ever added to a walk's
 *  set of keys seen, in order, so the checkpoint keeps the set and how many
 *  keys it had; a walk restored from it copies that many. */
export interface WalkState {
  db: number;
  count: number;
  match: string;
  cursor: string;
  done: boolean;
  calls: number;
  seen: Set<string>;
  seenCount: number;
  duplicateReturns: number;
  recent: ScanCall[];
  visited: Map<number, Uint8Array>;
  audit: ScanAuditView | null;
  missingKeys: string[] | null;
  error: string | null;
}

export class ScanWalk {
  readonly db: number;
  readonly count: number;
  readonly match: string;
  cursor = '0';
  done = false;
  calls = 0;
  private seen = new Set<string>();
  private duplicateReturns = 0;
  private recent: ScanCall[] = [];
  /** Buckets visited, per table size: one byte per bucket. */
  private visited = new Map<number, Uint8Array>();
  /** Folded visited bins, by size, bins and number of calls. */
  private readonly binCache = new Map<string, Uint8Array>();
  private audit: ScanAuditView | null = null;
  private missingKeys: string[] | null = null;
  private error: string | null = null;

  constructor(db: number, count: number, match: string) {
    this.db = db;
    this.count = count;
    this.match = match;
  }

  save(): WalkState {
    const visited = new Map<number, Uint8Array>();
    for (const [size, map] of this.visited) visited.set(size, map.slice());
    return {
      db: this.db, count: this.count, match: this.match, cursor: this.cursor, done: this.done, calls: this.calls,
      seen: this.seen, seenCount: this.seen.size, duplicateReturns: this.duplicateReturns,
      recent: this.recent.slice(), visited, audit: this.audit, missingKeys: this.missingKeys, error: this.error,
    };
  }

  static load(s: WalkState): ScanWalk {
    const w = new ScanWalk(s.db, s.count, s.match);
    w.cursor = s.cursor;
    w.done = s.done;
    w.calls = s.calls;
    let k = 0;
    for (const key of s.seen) {
      if (k++ === s.seenCount) break;
      w.seen.add(key);
    }
    w.duplicateReturns = s.duplicateReturns;
    w.recent = s.recent.slice();
    for (const [size, map] of s.visited) w.visited.set(size, map.slice());
    w.audit = s.audit;
    w.missingKeys = s.missingKeys;
    w.error = s.error;
    return w;
  }

  /** The last call got an error reply instead of a cursor. */
  get failed(): boolean {
    return this.error !== null;
  }

  /** Begins the engine's audit: every key now in db is tracked. */
  begin(world: World, node: number, conn: number): void {
    try {
      world.scanAuditEnd(node);
    } catch {
      // No audit was running: nothing to end.
    }
    world.scanAuditBegin(node, this.db, conn);
    this.audit = auditView(world, node);
  }

  request(): Uint8Array {
    const args = ['SCAN', this.cursor];
    if (this.match !== '' && this.match !== '*') args.push('MATCH', this.match);
    args.push('COUNT', String(this.count));
    return encodeRequest(args);
  }

  /** Sends the next SCAN call and records what it did. */
  step(world: World, node: number, conn: number): void {
    const info = world.dictInfo(node, this.db, DictKind.KEYS);
    const sizes: [number, number] = [info.size[0], info.size[1]];
    const mark = world.traceLastSeq();
    const cursorIn = this.cursor;
    const parsed = parseScanReply(roundTrip(world, conn, this.request()));
    this.calls++;
    const buckets = this.bucketsSince(world, mark, sizes);
    if (typeof parsed === 'string') {
      this.error = parsed;
      this.audit = auditView(world, node);
      return;
    }
    this.error = null;
    const keys: string[] = [];
    const duplicates: string[] = [];
    for (const k of parsed.keys) {
      const id = bytesToLatin1(k);
      if (this.seen.has(id)) {
        this.duplicateReturns++;
        if (duplicates.length < KEYS_PER_CALL) duplicates.push(display(id));
      } else {
        this.seen.add(id);
      }
      if (keys.length < KEYS_PER_CALL) keys.push(display(id));
    }
    this.cursor = parsed.cursor;
    this.done = parsed.cursor === '0';
    this.remember({
      n: this.calls, cursorIn, cursorOut: parsed.cursor, sizes, rehashidx: info.rehashidx,
      buckets: buckets.slice(0, BUCKETS_PER_CALL), bucketCount: buckets.length,
      keys, keyCount: parsed.keys.length, duplicates,
    });
    this.audit = auditView(world, node);
    if (this.done && this.audit && this.audit.missing > 0) this.missingKeys = missingKeys(world, node);
    else if (this.done) this.missingKeys = [];
  }

  private bucketsSince(world: World, mark: number, sizes: [number, number]): ScanBucket[] {
    const out: ScanBucket[] = [];
    for (const r of world.traceReadAll(mark)) {
      if (r.type !== TraceType.SCAN_BUCKET || r.a !== this.db || r.b !== DictKind.KEYS) continue;
      const size = sizes[r.c] ?? 0;
      out.push({ table: r.c, index: r.d, size });
      this.markVisited(size, r.d);
    }
    return out;
  }

  private markVisited(size: number, index: number): void {
    if (size <= 0 || index >= size) return;
    let map = this.visited.get(size);
    if (!map) {
      map = new Uint8Array(size);
      this.visited.set(size, map);
    }
    map[index] = 1;
  }

  private remember(call: ScanCall): void {
    this.recent.push(call);
    if (this.recent.length > RECENT_CALLS) this.recent.shift();
  }

  /** 0..255 per bin: the share of the bin's buckets this walk visited while
   *  the table had `size` buckets. Bin k holds buckets [k*size/bins,
   *  (k+1)*size/bins), the same folding as gkDictGetBuckets. */
  visitedBins(size: number, bins: number): Uint8Array {
    const key = `${size}:${bins}:${this.calls}`;
    const cached = this.binCache.get(key);
    if (cached) return cached.slice();
    const out = this.foldVisited(size, bins);
    if (this.binCache.size > 8) this.binCache.clear();
    this.binCache.set(key, out);
    return out.slice();
  }

  private foldVisited(size: number, bins: number): Uint8Array {
    const out = new Uint8Array(bins);
    const map = this.visited.get(size);
    if (!map) return out;
    for (let k = 0; k < bins; k++) {
      const from = Math.floor((k * size) / bins);
      const to = Math.floor(((k + 1) * size) / bins);
      let hit = 0;
      for (let i = from; i < to; i++) hit += map[i];
      out[k] = to > from ? Math.round((255 * hit) / (to - from)) : 0;
    }
    return out;
  }

  snapshot(): ScanSnapshot {
    return {
      db: this.db,
      count: this.count,
      match: this.match,
      cursor: this.cursor,
      done: this.done,
      calls: this.calls,
      recent: this.recent.slice(),
      distinctKeys: this.seen.size,
      duplicateReturns: this.duplicateReturns,
      audit: this.audit,
      missingKeys: this.missingKeys,
      error: this.error,
    };
  }
}

function auditView(world: World, node: number): ScanAuditView {
  const a = world.scanAuditGet(node);
  return {
    tracked: a.tracked, throughout: a.throughout, returned: a.returned, missing: a.missing,
    duplicates: a.duplicates, foreign: a.foreign, calls: a.calls, active: a.active,
  };
}

function missingKeys(world: World, node: number): string[] {
  const raw = world.scanAuditMissingRaw(node);
  return splitKeys(raw).slice(0, MISSING_SHOWN);
}

/** Keys as gkScanAuditMissing and gkDictGetBucketKeys write them: each a
 *  4-byte little-endian length, then its bytes. */
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
