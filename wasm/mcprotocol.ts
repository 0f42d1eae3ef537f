// The memcached part of the worker protocol: the logged actions that start
// the memcached-style node, type protocol lines at it and run slices of a
// fill workload, and the read-only queries the Slabs view makes. Shared by
// both sides, so it uses neither lib.
import type { McClass, McFillResult, McFillSpec, McTotals } from './mc';

export type { McClass, McFillResult, McFillSpec, McTotals };

/** The node's options, as memcached's command line sets them. */
export interface McOptions {
  /** -m: megabytes for items. */
  m: number;
  /** -n: the smallest chunk's room for key, value and flags, bytes. */
  n: number;
  /** -f: the growth factor between classes. */
  f: number;
  /** -I: the largest item, bytes. */
  I: number;
  /** -o slab_chunk_max, bytes (null: memcached's default, half of -I). */
  chunkMax: number | null;
  /** -C: no CAS (8 bytes less per item). */
  noCas: boolean;
}

/** memcached 1.6.18's defaults. */
export const MC_DEFAULTS: McOptions = { m: 64, n: 48, f: 1.25, I: 1 << 20, chunkMax: null, noCas: false };

/** The most memory the page lets the node have: every megabyte of it may
 *  end up in the engine's memory and in its checkpoints. */
export const MC_MAX_MB = 1024;
/** Sets one mcFill action may send, and the largest value of a fill:
 *  gkMemcachedFill's own limits (GK_MC_FILL_MAX_COUNT, _VALUE). */
export const FILL_MAX_COUNT = 1_048_576;
export const FILL_MAX_VALUE = 1 << 24;

/** A size as memcached's -I takes it: "1m", "512k" or bytes. */
export function mcSize(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)}m`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024}k`;
  return String(bytes);
}

/** The command line (without the program name) for these options. */
export function mcCommandLine(o: McOptions): string {
  const parts = [`-m ${o.m}`, `-n ${o.n}`, `-f ${o.f}`, `-I ${mcSize(o.I)}`];
  if (o.chunkMax !== null) parts.push(`-o slab_chunk_max=${o.chunkMax}`);
  if (o.noCas) parts.push('-C');
  return parts.join(' ');
}

export type McAction =
  /** Starts the memcached node with these options; a running one is
   *  replaced (its items are gone, as after a restart). */
  | { kind: 'mcStart'; options: McOptions }
  /** Text typed at the node in its protocol, lines separated by "\n"
   *  (sent with "\r\n"), e.g. "set k 0 0 5\nhello". */
  | { kind: 'mcLine'; text: string }
  /** Sets first .. first+count-1 of a fill workload (gkMemcachedFill). */
  | { kind: 'mcFill'; spec: McFillSpec; first: number; count: number }
  /** "set key flags 0 bytes" and a value of that many x's, sent as
   *  mcLine would send them: the console's quick set, whose value need
   *  not be written into the log. */
  | { kind: 'mcSet'; key: string; flags: number; bytes: number };

/** The largest value an mcSet sends: past memcached's own item maximum
 *  (-I, at most 1 GB), so that the node can refuse a value too large
 *  with its own error. */
export const MC_SET_MAX = 16 << 20;

/** The slab labs (engine/src/labs_mc.c), run headless by the worker's
 *  labRun like the others. */
export const MC_LAB_NAMES = ['slab-classes', 'item-placement', 'slab-calcification'] as const;
export type McLabName = (typeof MC_LAB_NAMES)[number];

export const MC_ACTION_KINDS = ['mcStart', 'mcLine', 'mcFill', 'mcSet'] as const;

/** One exchange in the memcached console. */
export interface McConsoleEntry {
  /** Virtual time it was sent. */
  t: number;
  /** What was sent (its first MC_REPLY_KEEP characters: the log holds
   *  it whole). */
  input: string;
  /** The raw reply, as the node sent it (truncated past MC_REPLY_KEEP). */
  output: string;
  /** Bytes of the whole reply. */
  bytes: number;
}

/** Bytes of a reply (characters of an input) the console keeps. */
export const MC_REPLY_KEEP = 16 * 1024;

/** A fill workload as run so far. */
export interface McFillProgress {
  spec: McFillSpec;
  /** The next set to send (sets before it were sent). */
  next: number;
  result: McFillResult;
}

export type SlabsQuery =
  /** The node's classes, and the pages of class `cls` from page `from`
   *  on (at most `pages` of them) with every chunk's use. */
  | { what: 'view'; cls: number; from: number; pages: number }
  /** The ladder these options would give (no node needed). */
  | { what: 'layout'; options: McOptions }
  /** Where an item would land on the running node. */
  | { what: 'itemClass'; nkey: number; flags: number; vlen: number };

export interface SlabsPage {
  /** Index of the page in its class. */
  index: number;
  /** Bytes used per chunk (0: free). */
  chunks: Uint32Array;
}

export interface SlabsView {
  /** False until the first mcStart. */
  running: boolean;
  options: McOptions | null;
  now: number;
  classes: McClass[];
  totals: McTotals | null;
  /** The class the pages are of, and its used chunks per page. */
  cls: number;
  used: Uint32Array;
  pages: SlabsPage[];
  console: McConsoleEntry[];
  fill: McFillProgress | null;
  /** How the node differs from memcached (the engine's English text). */
  notes: string;
}

export type SlabsResult =
  | SlabsView
  | { classes: McClass[]; error: string | null }
  | { cls: number; ntotal: number } | null;

export interface SlabsResultMap {
  view: SlabsView;
  layout: { classes: McClass[]; error: string | null };
  itemClass: { cls: number; ntotal: number } | null;
}
