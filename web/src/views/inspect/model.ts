// The key inspector's view model: one reading of a key (gkKeyInspect, see
// the GK_PART_* comments in engine/include/glasskv.h) turned into what the
// pane draws, and what changed between two readings of the same key. The
// numbers come from the engine's parts and the bytes it copied out of its
// memory; nothing here re-implements how Redis stores a value, it only
// reads the formats back (a listpack's entry encodings, an intset's
// little-endian elements) to label the bytes. Pure functions, no React.
import { KeyPart as Kind, LpEncoding, type KeyPart } from '../../wasm-gen/seam';
import type { KeyInspection, Snapshot } from '../../../../wasm/protocol';

/** TYPE's names, by the engine's type number. */
export const TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'string', 1: 'list', 2: 'set', 3: 'zset', 4: 'hash', 6: 'stream',
};

export function typeName(type: number): string {
  return TYPE_NAMES[type] ?? `type ${type}`;
}

/** Each part's parts, in order, and the parts that belong to none. */
export interface PartTree {
  roots: number[];
  children: number[][];
}

export function partTree(parts: readonly KeyPart[]): PartTree {
  const children: number[][] = parts.map(() => []);
  const roots: number[] = [];
  parts.forEach((p, i) => {
    if (p.parent >= 0 && p.parent < parts.length) children[p.parent].push(i);
    else roots.push(i);
  });
  return { roots, children };
}

/** A part's bytes in the reading, or null if they were not copied. */
export function partBytes(ins: KeyInspection, p: KeyPart, from = 0, n = p.size - from): Uint8Array | null {
  if (p.offset === Kind.NOT_COPIED || p.offset + from + n > ins.bytes.length || n < 0) return null;
  return ins.bytes.subarray(p.offset + from, p.offset + from + n);
}

// ------------------------------------------------------------ listpacks

/** What a listpack entry's encoding holds, for its label: a string or an
 *  integer, and the bits its first byte (and the ones after) give it. */
export interface LpKind {
  str: boolean;
  bits: number;
  /** The 7-bit integer is unsigned; the others are two's complement. */
  unsigned: boolean;
}

const LP_KINDS: Readonly<Record<number, LpKind>> = {
  [LpEncoding.UINT7]: { str: false, bits: 7, unsigned: true },
  [LpEncoding.STR6]: { str: true, bits: 6, unsigned: false },
  [LpEncoding.INT13]: { str: false, bits: 13, unsigned: false },
  [LpEncoding.STR12]: { str: true, bits: 12, unsigned: false },
  [LpEncoding.INT16]: { str: false, bits: 16, unsigned: false },
  [LpEncoding.INT24]: { str: false, bits: 24, unsigned: false },
  [LpEncoding.INT32]: { str: false, bits: 32, unsigned: false },
  [LpEncoding.INT64]: { str: false, bits: 64, unsigned: false },
  [LpEncoding.STR32]: { str: true, bits: 32, unsigned: false },
};

export function lpKind(kind: number): LpKind {
  return LP_KINDS[kind] ?? { str: true, bits: 0, unsigned: false };
}

/** What an entry stands for in its key: a list's element, a hash's field
 *  or value, a zset's member or score. */
export type LpRole = 'element' | 'field' | 'value' | 'member' | 'score';

export interface LpEntryView {
  /** Its position in the listpack, from 0. */
  index: number;
  /** Its first byte's offset in the listpack. */
  at: number;
  kind: number;
  role: LpRole;
  /** Bytes: the encoding (type bits and length, or a small integer's
   *  value), the data after it, the backlen; null where not copied. */
  enc: Uint8Array | null;
  data: Uint8Array | null;
  back: Uint8Array | null;
  encLen: number;
  dataLen: number;
  backLen: number;
  /** The integer, decoded from its bytes (a string: its text). */
  int: string | null;
  text: string | null;
  /** The backlen's value, read right to left from its bytes: the entry's
   *  length without it, which lets lpPrev step back over the entry. */
  backlen: number | null;
}

export interface ListpackView {
  part: number;
  /** Bytes in the engine's memory. */
  size: number;
  copied: boolean;
  /** The 6-byte header: total bytes (32 bits) and count (16 bits), both
   *  little-endian; a count of 65535 means "count them". */
  header: Uint8Array | null;
  totalBytes: number | null;
  count: number | null;
  entries: LpEntryView[];
  /** Entries it holds (the reading's count). */
  length: number;
  /** Entries not drawn. */
  more: number;
  /** Its last byte: 0xFF, the terminator. */
  end: number | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text: UTF-8 when they are, control characters and bytes that
 *  are not escaped as redis-cli writes them ("\x00", "\n"). */
export function bytesText(b: Uint8Array): string {
  let s: string;
  try {
    s = utf8.decode(b);
  } catch {
    s = Array.from(b, (c) => (c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${hex2(c)}`)).join('');
    return s;
  }
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\x${hex2(c.charCodeAt(0))}`;
  });
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** Bytes in hex, "81 61 02". */
export function hex(b: Uint8Array | readonly number[]): string {
  return Array.from(b, (c) => hex2(c).toUpperCase()).join(' ');
}

/** A backlen's value: its bytes read from the right, 7 bits each, while a
 *  byte's high bit says another byte lies to its left. */
export function decodeBacklen(back: Uint8Array): number {
  let v = 0;
  let scale = 1;
  for (let i = back.length - 1; i >= 0; i--) {
    v += (back[i] & 127) * scale;
    scale *= 128;
    if ((back[i] & 128) === 0) break;
  }
  return v;
}

/** Reads a little-endian two's complement integer of n bytes. */
function readIntLE(b: Uint8Array, n: number): bigint {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  const top = 1n << BigInt(8 * n - 1);
  return v >= top ? v - (top << 1n) : v;
}

/** An integer entry's value from its encoding and data bytes. */
export function decodeLpInt(kind: number, enc: Uint8Array, data: Uint8Array): bigint {
  switch (kind) {
    case LpEncoding.UINT7:
      return BigInt(enc[0] & 0x7f);
    case LpEncoding.INT13: {
      const v = ((enc[0] & 0x1f) << 8) | enc[1];
      return BigInt(v >= 4096 ? v - 8192 : v);
    }
    default:
      return readIntLE(data, data.length);
  }
}

function roleOf(owner: 'list' | 'hash' | 'zset', i: number): LpRole {
  if (owner === 'hash') return i % 2 === 0 ? 'field' : 'value';
  if (owner === 'zset') return i % 2 === 0 ? 'member' : 'score';
  return 'element';
}

function lpEntry(ins: KeyInspection, p: KeyPart, index: number, lpOffset: number, owner: 'list' | 'hash' | 'zset'): LpEntryView {
  const copied = p.offset !== Kind.NOT_COPIED;
  const backLen = p.size - p.b - p.c;
  const enc = copied ? partBytes(ins, p, 0, p.b) : null;
  const data = copied ? partBytes(ins, p, p.b, p.c) : null;
  const back = copied ? partBytes(ins, p, p.b + p.c, backLen) : null;
  const kind = lpKind(p.a);
  let int: string | null = null;
  let text: string | null = null;
  if (kind.str) text = data ? bytesText(data) : null;
  else int = enc && data ? decodeLpInt(p.a, enc, data).toString() : String(p.value);
  return {
    index, at: copied ? p.offset - lpOffset : -1, kind: p.a, role: roleOf(owner, index),
    enc, data, back, encLen: p.b, dataLen: p.c, backLen,
    int, text, backlen: back ? decodeBacklen(back) : null,
  };
}

/** The listpack at part `index`: its header, its first `shown` entries and
 *  its terminator. `owner` says how its entries pair up. */
export function readListpack(ins: KeyInspection, tree: PartTree, index: number, owner: 'list' | 'hash' | 'zset',
  shown: number): ListpackView {
  const p = ins.parts[index];
  const copied = p.offset !== Kind.NOT_COPIED;
  const header = copied ? partBytes(ins, p, 0, 6) : null;
  const kids = tree.children[index].filter((i) => ins.parts[i].kind === Kind.LP_ENTRY);
  const entries = kids.slice(0, shown).map((i, n) => lpEntry(ins, ins.parts[i], n, p.offset, owner));
  const last = copied ? partBytes(ins, p, p.size - 1, 1) : null;
  return {
    part: index, size: p.size, copied, header,
    totalBytes: header ? header[0] | (header[1] << 8) | (header[2] << 16) | (header[3] * 2 ** 24) : null,
    count: header ? header[4] | (header[5] << 8) : null,
    entries, length: p.value, more: Math.max(0, p.value - entries.length),
    end: last ? last[0] : null,
  };
}

// ------------------------------------------------------------ quicklists

export interface QlNodeView {
  index: number;
  part: number;
  count: number;
  /** Bytes stored: compressed, if it is. */
  stored: number;
  /** Bytes of its listpack uncompressed. */
  raw: number;
  compressed: boolean;
  plain: boolean;
}

export interface QuicklistView {
  part: number;
  length: number;
  nodes: number;
  fill: number;
  compress: number;
  shown: QlNodeView[];
  more: number;
}

export function readQuicklist(ins: KeyInspection, tree: PartTree, index: number, shown: number): QuicklistView {
  const p = ins.parts[index];
  const nodes = tree.children[index].filter((i) => ins.parts[i].kind === Kind.QL_NODE);
  return {
    part: index, length: p.value, nodes: p.a, fill: p.b, compress: p.c,
    shown: nodes.slice(0, shown).map((i, n) => {
      const q = ins.parts[i];
      return { index: n, part: i, count: q.value, stored: q.size, raw: q.c, compressed: q.a === 2, plain: q.b === 1 };
    }),
    more: Math.max(0, p.a - Math.min(shown, nodes.length)),
  };
}

/** The listpack part of a quicklist node (null: compressed, or plain). */
export function nodeListpack(ins: KeyInspection, tree: PartTree, node: number): number | null {
  return tree.children[node].find((i) => ins.parts[i].kind === Kind.LISTPACK) ?? null;
}

/** Redis's sizes for a negative list-max-listpack-size: -1 is 4 KB a node
 *  ... -5 is 64 KB. */
export function fillBytes(fill: number): number | null {
  return fill < 0 ? 4096 * 2 ** (Math.min(5, -fill) - 1) : null;
}

/** What stops a node taking one more entry: a count (with the 8 KB safety
 *  limit beside it) or a size. */
export type FillRule = { by: 'count'; entries: number; safety: number } | { by: 'size'; bytes: number };

export function fillRule(fill: number): FillRule {
  const bytes = fillBytes(fill);
  return bytes === null ? { by: 'count', entries: fill, safety: 8192 } : { by: 'size', bytes };
}

// ------------------------------------------------------------ intsets

export interface IntsetView {
  /** Bytes per element: 2, 4 or 8. */
  width: number;
  length: number;
  header: Uint8Array | null;
  /** The first elements, decoded from their bytes. */
  elements: { bytes: Uint8Array; value: string }[];
  more: number;
  size: number;
}

export function readIntset(ins: KeyInspection, index: number, shown: number): IntsetView {
  const p = ins.parts[index];
  const header = partBytes(ins, p, 0, 8);
  const elements: IntsetView['elements'] = [];
  const n = Math.min(shown, p.value);
  for (let i = 0; i < n; i++) {
    const b = partBytes(ins, p, 8 + i * p.a, p.a);
    if (!b) break;
    elements.push({ bytes: b, value: readIntLE(b, p.a).toString() });
  }
  return { width: p.a, length: p.value, header, elements, more: p.value - elements.length, size: p.size };
}

// ------------------------------------------------------------ hashtables

export interface BucketView {
  table: number;
  index: number;
  chain: number;
}

export interface DictView {
  entries: number;
  /** Buckets in ht[0] and ht[1] (null: no table). */
  sizes: [number | null, number | null];
  rehashidx: number;
  /** The buckets holding entries the reading carries, in table order. */
  buckets: BucketView[];
  /** Whether every non-empty bucket is here (the reading was not cut). */
  complete: boolean;
}

export function readDict(ins: KeyInspection, tree: PartTree, index: number): DictView {
  const p = ins.parts[index];
  const size = (exp: number) => (exp < 0 ? null : 2 ** exp);
  const buckets = tree.children[index].filter((i) => ins.parts[i].kind === Kind.BUCKET)
    .map((i) => ({ table: ins.parts[i].a, index: ins.parts[i].value, chain: ins.parts[i].b }));
  const inBuckets = buckets.reduce((n, b) => n + b.chain, 0);
  return {
    entries: p.value, sizes: [size(p.a), size(p.b)], rehashidx: p.extra, buckets,
    complete: inBuckets === p.value,
  };
}

/** How many buckets hold chains of each length (index: length; 0 is the
 *  empty buckets, when the table's size is known). */
export function chainHistogram(d: DictView, table: number): number[] {
  const out: number[] = [0];
  let filled = 0;
  for (const b of d.buckets) {
    if (b.table !== table) continue;
    while (out.length <= b.chain) out.push(0);
    out[b.chain]++;
    filled++;
  }
  const size = d.sizes[table];
  out[0] = size === null ? 0 : Math.max(0, size - filled);
  return out;
}

// ------------------------------------------------------------ skiplists

export interface SlLink {
  level: number;
  span: number;
  /** The rank it points to (0: NULL, the end of the list). */
  to: number;
}

export interface SlNodeView {
  rank: number;
  score: number;
  member: string | null;
  memberBytes: number;
  height: number;
  levels: SlLink[];
}

export interface SkiplistView {
  length: number;
  /** Levels in use: the header's height that counts. */
  levels: number;
  /** The header's links, level by level, found from the nodes: level l
   *  points to the first node taller than l (null: not in the reading). */
  header: (SlLink | null)[];
  nodes: SlNodeView[];
  more: number;
}

export function readSkiplist(ins: KeyInspection, tree: PartTree, index: number, shown: number): SkiplistView {
  const p = ins.parts[index];
  const nodeParts = tree.children[index].filter((i) => ins.parts[i].kind === Kind.SL_NODE);
  const header: (SlLink | null)[] = Array.from({ length: p.a }, () => null);
  let open = p.a;
  for (const i of nodeParts) {
    if (open === 0) break;
    const q = ins.parts[i];
    for (let l = 0; l < Math.min(q.a, p.a); l++) {
      if (header[l] === null) {
        header[l] = { level: l, span: q.value, to: q.value };
        open--;
      }
    }
  }
  const nodes = nodeParts.slice(0, shown).map((i) => {
    const q = ins.parts[i];
    const b = partBytes(ins, q);
    const levels = tree.children[i].filter((j) => ins.parts[j].kind === Kind.SL_LEVEL)
      .map((j) => ({ level: ins.parts[j].a, span: ins.parts[j].value, to: ins.parts[j].extra }));
    return { rank: q.value, score: q.score, member: b ? bytesText(b) : null, memberBytes: q.size, height: q.a, levels };
  });
  return { length: p.value, levels: p.a, header, nodes, more: Math.max(0, p.value - nodes.length) };
}

// ------------------------------------------------------------ strings

export interface StringView {
  encoding: 'int' | 'embstr' | 'raw';
  /** The integer of an int string. */
  int: string | null;
  length: number;
  bytes: Uint8Array | null;
  /** The engine's allocations: the object, and its bytes' sds. */
  objectBlock: number;
  sdsBlock: number;
  /** A HyperLogLog (its bytes start with "HYLL"): dense or sparse. */
  hll: 'dense' | 'sparse' | null;
}

/** OBJ_ENCODING_* numbers of a string part's a. */
const STRING_ENCODINGS: Readonly<Record<number, StringView['encoding']>> = { 0: 'raw', 1: 'int', 8: 'embstr' };

export function readString(ins: KeyInspection, index: number, shown: number): StringView {
  const p = ins.parts[index];
  const encoding = STRING_ENCODINGS[p.a] ?? 'raw';
  const length = encoding === 'int' ? 0 : p.value;
  const bytes = encoding === 'int' ? null : partBytes(ins, p, 0, Math.min(shown, p.size));
  const head = encoding === 'int' ? null : partBytes(ins, p, 0, Math.min(5, p.size));
  const hll = head && head.length === 5 && bytesText(head.subarray(0, 4)) === 'HYLL' && head[4] <= 1
    ? (head[4] === 0 ? 'dense' : 'sparse') : null;
  return {
    encoding, int: encoding === 'int' ? String(p.value) : null, length, bytes,
    objectBlock: p.b, sdsBlock: p.c, hll,
  };
}

// ------------------------------------------------------------ the whole key

/** How much of each structure the pane draws at first. */
export const SHOWN = {
  entries: 48,
  nodes: 32,
  elements: 96,
  slNodes: 24,
  stringBytes: 256,
} as const;

export type Body =
  | { kind: 'string'; view: StringView }
  | { kind: 'quicklist'; view: QuicklistView }
  | { kind: 'listpack'; view: ListpackView; owner: 'hash' | 'zset' }
  | { kind: 'intset'; view: IntsetView }
  | { kind: 'hashtable'; view: DictView; owner: 'set' | 'hash' }
  | { kind: 'skiplist'; view: SkiplistView; dict: DictView | null }
  | { kind: 'none' };

function rootOf(ins: KeyInspection, tree: PartTree, kind: number): number | null {
  return tree.roots.find((i) => ins.parts[i].kind === kind) ?? null;
}

/** What the pane draws for a reading, `more` entries beyond SHOWN. */
export function bodyOf(ins: KeyInspection, tree: PartTree, more = 0): Body {
  const type = typeName(ins.info.type);
  const at = (kind: number) => rootOf(ins, tree, kind);
  const string = at(Kind.STRING);
  if (string !== null) return { kind: 'string', view: readString(ins, string, SHOWN.stringBytes + more) };
  const ql = at(Kind.QUICKLIST);
  if (ql !== null) return { kind: 'quicklist', view: readQuicklist(ins, tree, ql, SHOWN.nodes + more) };
  const lp = at(Kind.LISTPACK);
  if (lp !== null && (type === 'hash' || type === 'zset')) {
    return { kind: 'listpack', owner: type, view: readListpack(ins, tree, lp, type, SHOWN.entries + more) };
  }
  const is = at(Kind.INTSET);
  if (is !== null) return { kind: 'intset', view: readIntset(ins, is, SHOWN.elements + more) };
  const sl = at(Kind.SKIPLIST);
  const dict = at(Kind.DICT);
  if (sl !== null) {
    return { kind: 'skiplist', view: readSkiplist(ins, tree, sl, SHOWN.slNodes + more), dict: dict === null ? null : readDict(ins, tree, dict) };
  }
  if (dict !== null && (type === 'set' || type === 'hash')) return { kind: 'hashtable', owner: type, view: readDict(ins, tree, dict) };
  return { kind: 'none' };
}

// ------------------------------------------------------------ header

/** The configuration that converts a key of this type, with its values
 *  as the reading gives them. */
export interface Threshold {
  config: string;
  value: number;
}

export function thresholdsOf(ins: KeyInspection): Threshold[] {
  const { type, limitEntries, limitValue } = ins.info;
  switch (typeName(type)) {
    case 'list':
      return [{ config: 'list-max-listpack-size', value: limitEntries }, { config: 'list-compress-depth', value: limitValue }];
    case 'set':
      return [{ config: 'set-max-intset-entries', value: limitEntries }];
    case 'hash':
      return [{ config: 'hash-max-listpack-entries', value: limitEntries }, { config: 'hash-max-listpack-value', value: limitValue }];
    case 'zset':
      return [{ config: 'zset-max-listpack-entries', value: limitEntries }, { config: 'zset-max-listpack-value', value: limitValue }];
    default:
      return [];
  }
}

/** The key's time to live: none, ms left (negative: expired, not yet
 *  removed), or "has one" when there is no clock to measure it against. */
export type Ttl = { kind: 'none' } | { kind: 'ms'; ms: number; at: number } | { kind: 'set'; at: number };

export function ttlOf(ins: KeyInspection, snapshot: Pick<Snapshot, 'unixMsAtZero' | 'now'> | null): Ttl {
  const at = ins.info.expireMs;
  if (at < 0) return { kind: 'none' };
  if (!snapshot) return { kind: 'set', at };
  return { kind: 'ms', ms: at - (snapshot.unixMsAtZero + Math.floor(snapshot.now / 1e6)), at };
}

// ------------------------------------------------------------ changes

/** What changed in how a key is stored between two readings. */
export type Change =
  /** A compact encoding gave way because the key grew past `limit`
   *  entries (members, fields): it now has `length`. */
  | { kind: 'entries'; from: string; to: string; config: string; limit: number; length: number; before: number }
  /** A compact encoding gave way to an element longer than `limit` bytes
   *  (`member`: that element, when the new encoding names it). */
  | { kind: 'value'; from: string; to: string; config: string; limit: number; member: string | null; bytes: number | null }
  /** An intset met a member that is not an integer. */
  | { kind: 'notInt'; from: string; to: string }
  /** An intset's elements were widened for one that did not fit. */
  | { kind: 'width'; from: number; to: number }
  /** A list's quicklist gained or lost nodes. */
  | { kind: 'nodes'; from: number; to: number; fill: number }
  /** A string changed encoding (`length`: its bytes now). */
  | { kind: 'string'; from: string; to: string; length: number }
  /** Any other change of encoding (back in time, say). */
  | { kind: 'encoding'; from: string; to: string };

const COMPACT: Readonly<Record<string, string>> = {
  set: 'intset', hash: 'listpack', zset: 'listpack',
};

function longMember(ins: KeyInspection, limit: number): { member: string; bytes: number } | null {
  for (const p of ins.parts) {
    if (p.kind !== Kind.SL_NODE || p.size <= limit) continue;
    const b = partBytes(ins, p);
    return { member: b ? bytesText(b.subarray(0, 40)) + (b.length > 40 ? '…' : '') : '', bytes: p.size };
  }
  return null;
}

/** The change between two readings of one key of the same type (null:
 *  nothing the pane points out). */
export function changeBetween(prev: KeyInspection, next: KeyInspection): Change | null {
  const a = prev.info;
  const b = next.info;
  const type = typeName(b.type);
  if (a.type !== b.type) return null;
  if (a.encodingName !== b.encodingName) {
    const from = a.encodingName;
    const to = b.encodingName;
    if (type === 'string') return { kind: 'string', from, to, length: b.length };
    if (COMPACT[type] !== from) return { kind: 'encoding', from, to };
    if (b.length > b.limitEntries) {
      const config = type === 'set' ? 'set-max-intset-entries' : `${type}-max-listpack-entries`;
      return { kind: 'entries', from, to, config, limit: b.limitEntries, length: b.length, before: a.length };
    }
    if (type === 'set') return { kind: 'notInt', from, to };
    const long = type === 'zset' ? longMember(next, b.limitValue) : null;
    return {
      kind: 'value', from, to, config: `${type}-max-listpack-value`, limit: b.limitValue,
      member: long?.member ?? null, bytes: long?.bytes ?? null,
    };
  }
  if (type === 'set' && b.encodingName === 'intset') {
    const w0 = prev.parts.find((p) => p.kind === Kind.INTSET)?.a ?? 0;
    const w1 = next.parts.find((p) => p.kind === Kind.INTSET)?.a ?? 0;
    if (w0 && w1 && w0 !== w1) return { kind: 'width', from: w0, to: w1 };
  }
  if (type === 'list') {
    const q0 = prev.parts.find((p) => p.kind === Kind.QUICKLIST);
    const q1 = next.parts.find((p) => p.kind === Kind.QUICKLIST);
    if (q0 && q1 && q0.a !== q1.a) return { kind: 'nodes', from: q0.a, to: q1.a, fill: q1.b };
  }
  return null;
}

/** What the pane follows: the key, the db it was read from, the latest
 *  reading (null: no such key) and the last change seen, with the
 *  virtual time it was seen at. */
export interface Followed {
  key: string;
  db: number;
  reading: KeyInspection | null;
  change: Change | null;
  changedAt: number | null;
}

/** The next state of a key being followed, given a new reading at virtual
 *  time `now`. A change is kept until the next one; a different key or
 *  db, or a key deleted or replaced by one of another type, starts over. */
export function follow(prev: Followed | null, key: string, db: number, reading: KeyInspection | null, now: number): Followed {
  const fresh: Followed = { key, db, reading, change: null, changedAt: null };
  if (!prev || prev.key !== key || prev.db !== db || !prev.reading || !reading) return fresh;
  if (prev.reading.info.type !== reading.info.type) return fresh;
  const change = changeBetween(prev.reading, reading);
  return change ? { key, db, reading, change, changedAt: now } : { ...prev, reading };
}

/** One cell of the skiplist's picture: column 0 is the header, 1..n the
 *  nodes drawn (rank = column), n+1 where links leave the picture. */
export type SlCell =
  /** One level of a node (or of the header), its link's span and target
   *  (-1: unknown, past the reading), `into`: a link from the left ends
   *  here. */
  | { kind: 'box'; col: number; level: number; span: number | null; to: number; into: boolean }
  /** A link passing over a node too short to hold this level. */
  | { kind: 'pass'; col: number; level: number }
  /** Links that end past the nodes drawn: NULL (to 0), a later rank, or
   *  one past the reading (-1). */
  | { kind: 'end'; col: number; level: number; to: number };

export function skiplistGrid(v: SkiplistView): { cols: number; cells: SlCell[] } {
  const n = v.nodes.length;
  const tail = n + 1;
  const cells: SlCell[] = [];
  const boxes = new Map<string, SlCell & { kind: 'box' }>();
  const towers: { col: number; links: (SlLink | null)[] }[] = [
    { col: 0, links: v.header },
    ...v.nodes.map((node, i) => ({ col: i + 1, links: node.levels as (SlLink | null)[] })),
  ];
  for (const tower of towers) {
    tower.links.forEach((link, level) => {
      const box = { kind: 'box' as const, col: tower.col, level, span: link?.span ?? null, to: link?.to ?? -1, into: false };
      boxes.set(`${tower.col}:${level}`, box);
      cells.push(box);
    });
  }
  for (const tower of towers) {
    tower.links.forEach((link, level) => {
      if (!link) {
        // The header's link to a node the reading did not reach.
        for (let c = tower.col + 1; c < tail; c++) cells.push({ kind: 'pass', col: c, level });
        cells.push({ kind: 'end', col: tail, level, to: -1 });
        return;
      }
      const target = link.to === 0 || link.to > n ? tail : link.to;
      for (let c = tower.col + 1; c < target; c++) {
        if (!boxes.has(`${c}:${level}`)) cells.push({ kind: 'pass', col: c, level });
      }
      const hit = boxes.get(`${target}:${level}`);
      if (hit) hit.into = true;
      else if (target === tail) cells.push({ kind: 'end', col: tail, level, to: link.to });
    });
  }
  return { cols: n + 2, cells };
}
