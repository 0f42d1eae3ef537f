// Probes: what a lesson's questions and claims read from the engine. A
// probe is a path into a few roots built from the engine's own output:
//
//   reply            the reply to the last command the block ran, decoded
//                    (reply[0] is a SCAN cursor, reply[1].length its count)
//   scan.*           the SCAN walker: cursor, calls, done, distinct,
//                    duplicates, duplicated (yes/no), returned, missing,
//                    verdict (running/pass/fail), visits (bucket indexes of
//                    the recent calls, in visit order), last.cursor,
//                    last.from, last.keys, last.buckets
//   ht.*             the keyspace dict the view shows: size[0], size[1], used[0],
//                    used[1], keys, rehashing (yes/no), rehashidx
//   config.NAME      a configuration parameter, read with gkServerConfigGet
//   workload[i].*    the i-th client program started (0 first): id, done
//                    (yes/no), completed, batches, ops (commands per second
//                    of virtual time, rounded), p50_ms, p99_ms, max_ms
//                    (batch latencies), syscalls (its reads and writes per
//                    command, to 3 decimals), errors (error replies read)
//   server.*         the server host: iterations, reads, writes, polls, and
//                    busy.commands, busy.reads, busy.bytes: its last loop
//                    iteration that ran commands, from the trace
//   lab.*            the lab running in the sandbox: part (from 0), done
//   aof.*            the AOF (gkAofGetInfo and the incr file): on, up,
//                    fsync, buffer, fed, written, acked, durable, unwritten
//                    (fed - written), at_risk (acked - durable), last (where
//                    the newest command's bytes are: aof_buf, page-cache or
//                    disk), postponed, delayed, size, commands, durable_commands
//   threads.NAME.*   a server thread (main, bio_close_file, bio_aof_fsync,
//                    bio_lazy_free): busy, pending, done; threads.count
//   disk.*           the server's disk: preset, syncs, writebacks, free
//   crash.*          the last crash: mode, fsync, and the AOF stream at
//                    that instant: fed, written, acked, durable, buffer
//   recovery.*       the report after the restart: kept (= survived), lost,
//                    total, dbsize, lost_keys, kept_keys (each a set,
//                    listed in natural order: cart:2 before cart:10),
//                    lost_age_ms (how long before the crash the oldest
//                    lost acknowledged write was acknowledged)
//   slabs.*          the memcached node (the Slabs view): running (yes/no),
//                    classes, active (classes with pages), class[i] (class
//                    i: id, chunk, perslab, pages, used, free, items,
//                    requested, used_bytes, waste, evicted), total
//                    (malloced, limit, page_size, chunk_max, item_max,
//                    pages, used, free, requested, used_bytes, waste,
//                    items, evictions), evicting and idle (class ids:
//                    full classes that evicted, classes with free chunks
//                    and no eviction), calcified (yes/no), and
//                    item.kK_vV[_fF] (an item of a K-byte key, a V-byte
//                    value and flags F on the running node: class,
//                    ntotal, chunk, waste)
//
// Nothing here knows an answer: it only reads what the engine reported.
import type { AofView, RecoveryRow } from '../../../wasm/aofprotocol';
import type { SlabsQuery, SlabsResultMap, SlabsView } from '../../../wasm/mcprotocol';
import { calcification, classBytes, sumClasses } from '../views/slabs/model';
import type { ReplyValue, Snapshot, WorkloadView } from '../../../wasm/protocol';
import type { CompareOp } from './types';

export type ProbeValue = string | number | boolean | null | undefined | ProbeValue[] | { [k: string]: ProbeValue };

type Segment = { name: string } | { index: number };

export const PROBE_ROOTS = [
  'reply', 'scan', 'ht', 'config', 'workload', 'server', 'lab', 'aof', 'threads', 'disk', 'crash', 'recovery',
  'slabs',
] as const;

/** Roots read from the AOF view (a request of its own to the worker). */
const AOF_ROOTS = new Set(['aof', 'threads', 'disk', 'crash', 'recovery']);

/** Whether a probe path reads the AOF view. */
export function needsAof(path: string): boolean {
  const root = parseProbe(path)[0];
  return 'name' in root && AOF_ROOTS.has(root.name);
}

/** Whether a probe path reads the Slabs view (the memcached node). */
export function needsSlabs(path: string): boolean {
  const root = parseProbe(path)[0];
  return 'name' in root && root.name === 'slabs';
}

/** What slabs.* probes read: the node's view and where the items they
 *  name land, keyed by their names ("k10_v100"). */
export interface SlabsProbeInput {
  view: SlabsView;
  items: Record<string, { cls: number; ntotal: number } | null>;
}

const ITEM_NAME = /^k(\d+)_v(\d+)(?:_f(\d+))?$/;

/** The item a "k10_v100_f5" segment names; null if it names none. */
export function slabItem(name: string): { nkey: number; vlen: number; flags: number } | null {
  const m = ITEM_NAME.exec(name);
  if (!m) return null;
  return { nkey: Number(m[1]), vlen: Number(m[2]), flags: m[3] === undefined ? 0 : Number(m[3]) };
}

type Ask = <Q extends SlabsQuery>(q: Q) => SlabsResultMap[Q['what']] | null | Promise<SlabsResultMap[Q['what']] | null>;

/** Asks the node (through the page's store or a session) for what these
 *  probes read; null when none reads the Slabs view. */
export async function readSlabs(paths: readonly string[], ask: Ask): Promise<SlabsProbeInput | null> {
  const mine = paths.filter(needsSlabs);
  if (!mine.length) return null;
  const view = await ask({ what: 'view', cls: 1, from: 0, pages: 0 });
  if (!view) return null;
  const items: SlabsProbeInput['items'] = {};
  for (const p of mine) {
    const segs = parseProbe(p);
    const name = segs[2];
    if (!(segs[1] && 'name' in segs[1] && segs[1].name === 'item' && name && 'name' in name)) continue;
    const item = slabItem(name.name);
    if (item && !(name.name in items)) items[name.name] = await ask({ what: 'itemClass', ...item });
  }
  return { view, items };
}

/** Splits "reply[1].length" into segments; throws on a malformed path. */
export function parseProbe(path: string): Segment[] {
  const out: Segment[] = [];
  const re = /(\.)?([A-Za-z][\w-]*)|\[(\d+)\]/y;
  let at = 0;
  const p = path.trim();
  while (at < p.length) {
    re.lastIndex = at;
    const m = re.exec(p);
    const dotted = m?.[1] !== undefined;
    if (!m || (m[2] !== undefined && dotted !== out.length > 0)) throw new Error(`"${path}" is not a probe path`);
    out.push(m[2] !== undefined ? { name: m[2] } : { index: Number(m[3]) });
    at = re.lastIndex;
  }
  const root = out[0];
  if (!root || !('name' in root) || !(PROBE_ROOTS as readonly string[]).includes(root.name)) {
    throw new Error(`a probe starts with one of ${PROBE_ROOTS.join(', ')}: "${path}"`);
  }
  return out;
}

function replyProbe(v: ReplyValue | undefined): ProbeValue {
  if (v === undefined || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(replyProbe);
  return { error: v.error };
}

/** The roots a probe reads, from a snapshot, the block's last reply and,
 *  for the persistence roots, the AOF view. */
export function probeRoots(snapshot: Snapshot | null, reply: ReplyValue | undefined,
  aof: AofView | null = null, slabs: SlabsProbeInput | null = null): Record<string, ProbeValue> {
  const scan = snapshot?.scan ?? null;
  const dict = snapshot?.dict ?? null;
  const last = scan?.recent.at(-1) ?? null;
  const t = dict?.tables ?? [null, null];
  const verdict = scan?.audit ? (!scan.done ? 'running' : scan.audit.missing === 0 ? 'pass' : 'fail') : null;
  return {
    reply: replyProbe(reply),
    scan: scan && {
      cursor: scan.cursor,
      calls: scan.calls,
      done: scan.done ? 'yes' : 'no',
      distinct: scan.distinctKeys,
      duplicates: scan.duplicateReturns,
      duplicated: scan.duplicateReturns > 0 ? 'yes' : 'no',
      visits: scan.recent.flatMap((c) => c.buckets.map((b) => b.index)),
      returned: scan.audit?.returned ?? null,
      missing: scan.audit?.missing ?? null,
      verdict,
      last: last && {
        cursor: last.cursorOut,
        from: last.cursorIn,
        keys: last.keyCount,
        buckets: last.buckets.map((b) => b.index),
      },
    },
    ht: dict && {
      size: [t[0]?.size ?? 0, t[1]?.size ?? 0],
      used: [t[0]?.used ?? 0, t[1]?.used ?? 0],
      keys: (t[0]?.used ?? 0) + (t[1]?.used ?? 0),
      rehashing: dict.rehashidx >= 0 ? 'yes' : 'no',
      rehashidx: dict.rehashidx,
    },
    config: snapshot ? { ...snapshot.config } : null,
    workload: snapshot ? snapshot.workloads.map(workloadProbe) : null,
    server: snapshot && serverProbe(snapshot),
    lab: snapshot?.lab ? { part: snapshot.lab.part, done: snapshot.lab.done ? 'yes' : 'no' } : null,
    ...aofRoots(aof),
    slabs: slabsRoot(slabs),
  };
}

/** The slabs root: the node's classes (class[i] is class i), its totals,
 *  calcification as the pane shows it, and the items asked about. */
function slabsRoot(input: SlabsProbeInput | null): ProbeValue {
  if (!input) return null;
  const v = input.view;
  if (!v.running || !v.totals) return { running: 'no' };
  const t = v.totals;
  const sums = sumClasses(v.classes);
  const calc = calcification(v.classes);
  const byId = new Map(v.classes.map((c) => [c.id, c]));
  const item: Record<string, ProbeValue> = {};
  for (const [name, r] of Object.entries(input.items)) {
    const c = r && r.cls > 0 ? byId.get(r.cls) : undefined;
    item[name] = r && {
      class: r.cls, ntotal: r.ntotal, chunk: c ? c.chunkSize : null,
      // A chunked item (ntotal past slab_chunk_max) has no one chunk's waste.
      waste: c && r.ntotal <= c.chunkSize ? c.chunkSize - r.ntotal : null,
    };
  }
  return {
    running: 'yes',
    classes: v.classes.length,
    active: v.classes.filter((c) => c.pages > 0).length,
    class: [null, ...v.classes.map((c) => {
      const b = classBytes(c);
      return {
        id: c.id, chunk: c.chunkSize, perslab: c.perslab, pages: c.pages, used: c.usedChunks, free: c.freeChunks,
        items: c.items, requested: c.requested, used_bytes: b.used, waste: b.waste, evicted: c.evicted,
      };
    })],
    total: {
      malloced: t.totalMalloced, limit: t.limit, page_size: t.pageSize, chunk_max: t.chunkMax, item_max: t.itemSizeMax,
      pages: sums.pages, used: sums.used, free: sums.free, requested: sums.requested, used_bytes: sums.usedBytes,
      waste: sums.waste, items: t.currItems, evictions: t.evictions,
    },
    evicting: calc ? calc.evicting : [],
    idle: calc ? calc.idle : [],
    calcified: yesNo(calc !== null),
    item,
  };
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

function aofRoots(v: AofView | null): Record<string, ProbeValue> {
  if (!v) return { aof: null, threads: null, disk: null, crash: null, recovery: null };
  const i = v.info;
  const cmds = v.file?.commands ?? [];
  const threads: Record<string, ProbeValue> = { count: v.threads.length };
  for (const t of v.threads) threads[t.name] = { busy: yesNo(t.busy), pending: t.pending, done: t.jobsDone };
  const c = v.crash;
  const r = v.report;
  return {
    aof: {
      up: yesNo(v.up), on: yesNo(v.up && v.appendonly),
      ...(i && {
        fsync: i.fsync, buffer: i.bufferLength, fed: i.fed, written: i.written, acked: i.acked, durable: i.durable,
        unwritten: i.fed - i.written, at_risk: i.acked - i.durable, last: lastStage(v), postponed: yesNo(i.flushPostponedStart !== 0),
        delayed: i.delayedFsync, size: i.currentSize, commands: cmds.length,
        durable_commands: cmds.filter((x) => x.stage === 'durable').length,
      }),
    },
    threads,
    disk: v.disk && { preset: v.disk.preset, syncs: v.disk.syncs, writebacks: v.disk.writebacks, free: v.disk.freeBytes },
    crash: c && {
      mode: c.mode, fsync: c.fsync, ...(c.aof && {
        fed: c.aof.fed, written: c.aof.written, acked: c.aof.acked, durable: c.aof.durable, buffer: c.aof.buf,
      }),
    },
    recovery: r && {
      kept: r.kept, survived: r.kept, lost: r.lost, total: r.rows.length, dbsize: r.dbsize,
      kept_keys: keysWhere(r.rows, (x) => x.outcome === 'kept'),
      lost_keys: keysWhere(r.rows, (x) => x.outcome === 'lost' || x.outcome === 'older'),
      lost_age_ms: lostAgeMs(r.crash.t, r.rows),
    },
  };
}

/** How long before the crash the oldest lost acknowledged write was
 *  acknowledged, in ms (0 when nothing was lost): what the crash cost in
 *  time. The report's rows hold each key's last acknowledged write. */
function lostAgeMs(crashAt: number, rows: readonly RecoveryRow[]): number {
  let oldest = crashAt;
  for (const x of rows) {
    if ((x.outcome === 'lost' || x.outcome === 'older') && x.t > 0 && x.t < oldest) oldest = x.t;
  }
  return ms(crashAt - oldest);
}

/** The keys of the rows that pass, in natural order: the report lists
 *  lost keys first and newest first, but an answer is a set. */
function keysWhere<R extends { key: string }>(rows: readonly R[], keep: (r: R) => boolean): string[] {
  return rows.filter(keep).map((x) => x.key)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** Where the newest command's bytes are: still in aof_buf (the process's
 *  memory), written to the page cache, or fsynced to the device. */
function lastStage(v: AofView): string | null {
  const i = v.info;
  if (!i || i.fed === 0) return null;
  if (i.fed > i.written) return 'aof_buf';
  return i.durable >= i.written ? 'disk' : 'page-cache';
}

const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;

function workloadProbe(w: WorkloadView): ProbeValue {
  const s = w.stats;
  const secs = (s.endNs - s.startNs) / 1e9;
  return {
    id: w.id, done: s.done ? 'yes' : 'no', completed: s.completed, batches: s.batches,
    ops: secs > 0 ? Math.round(s.completed / secs) : 0, p50_ms: ms(s.latP50Ns), p99_ms: ms(s.latP99Ns),
    max_ms: ms(s.latMaxNs), syscalls: s.completed ? Math.round(((s.reads + s.writes) / s.completed) * 1e3) / 1e3 : 0,
    errors: s.errors,
  };
}

function serverProbe(s: Snapshot): ProbeValue {
  const h = s.hosts.find((x) => x.role === 'server');
  return {
    iterations: h?.iterations ?? 0, reads: h?.reads ?? 0, writes: h?.writes ?? 0, polls: h?.polls ?? 0,
    busy: s.busy && { commands: s.busy.commands, reads: s.busy.reads, bytes: s.busy.bytes },
  };
}

/** Follows a path through the roots; undefined where it leads nowhere. */
export function readProbe(path: string, roots: Record<string, ProbeValue>): ProbeValue {
  let v: ProbeValue = roots;
  for (const seg of parseProbe(path)) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    if ('index' in seg) {
      v = Array.isArray(v) ? v[seg.index] : undefined;
    } else if (seg.name === 'length' && Array.isArray(v)) {
      v = v.length;
    } else {
      v = Array.isArray(v) ? undefined : (v as Record<string, ProbeValue>)[seg.name];
    }
  }
  return v;
}

/** A probe's value as a person reads it. */
export function showValue(v: ProbeValue): string {
  if (v === undefined) return '?';
  if (v === null) return '(nil)';
  if (Array.isArray(v)) return v.map(showValue).join(', ');
  if (typeof v === 'object') return typeof v.error === 'string' ? v.error : JSON.stringify(v);
  return String(v);
}

function normalize(s: string): string {
  let t = s.trim().replace(/\s+/g, ' ');
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
  return t.toLowerCase();
}

/** The number s writes (digits, a sign, a decimal point), or null. */
export function asNumber(s: string): number | null {
  const t = s.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/** Whether a typed answer fits its question's type: anything not blank for
 *  a text, a number written as numbers are compared for a number. */
export function answerFits(type: 'choice' | 'number' | 'text', given: string): boolean {
  if (!given.trim()) return false;
  return type !== 'number' || asNumber(given) !== null;
}

/** Compares a probe's value with a written value: numerically when both
 *  are numbers, else as text (trimmed, unquoted, case-insensitive). */
export function compare(v: ProbeValue, op: CompareOp, written: string): boolean {
  if (v === undefined) return false;
  const shown = showValue(v);
  const a = asNumber(shown);
  const b = asNumber(written);
  if (op === '=' || op === '!=') {
    const same = a !== null && b !== null ? a === b : normalize(shown) === normalize(written);
    return op === '=' ? same : !same;
  }
  if (a === null || b === null) return false;
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
  }
}
