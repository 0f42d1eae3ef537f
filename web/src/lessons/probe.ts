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
//                    command, to 3 decimals)
//   server.*         the server host: iterations, reads, writes, polls, and
//                    busy.commands, busy.reads, busy.bytes: its last loop
//                    iteration that ran commands, from the trace
//   lab.*            the lab running in the sandbox: part (from 0), done
//
// Nothing here knows an answer: it only reads what the engine reported.
import type { ReplyValue, Snapshot, WorkloadView } from '../../../wasm/protocol';
import type { CompareOp } from './types';

export type ProbeValue = string | number | boolean | null | undefined | ProbeValue[] | { [k: string]: ProbeValue };

type Segment = { name: string } | { index: number };

export const PROBE_ROOTS = ['reply', 'scan', 'ht', 'config', 'workload', 'server', 'lab'] as const;

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

/** The roots a probe reads, from a snapshot and the block's last reply. */
export function probeRoots(snapshot: Snapshot | null, reply: ReplyValue | undefined): Record<string, ProbeValue> {
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
  };
}

const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;

function workloadProbe(w: WorkloadView): ProbeValue {
  const s = w.stats;
  const secs = (s.endNs - s.startNs) / 1e9;
  return {
    id: w.id, done: s.done ? 'yes' : 'no', completed: s.completed, batches: s.batches,
    ops: secs > 0 ? Math.round(s.completed / secs) : 0, p50_ms: ms(s.latP50Ns), p99_ms: ms(s.latP99Ns),
    max_ms: ms(s.latMaxNs), syscalls: s.completed ? Math.round(((s.reads + s.writes) / s.completed) * 1e3) / 1e3 : 0,
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

function asNumber(s: string): number | null {
  const t = s.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
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
