// The messages between the page and the engine worker, and the input log.
// Shared by wasm/worker.ts (webworker lib) and wasm/bridge.ts (dom lib), so
// it uses neither.
//
// Page -> worker: a Request carries an id; the worker answers each with one
// Response carrying the same id, in the order the requests were sent.
// Worker -> page: Events are pushed at any time (log growth, console output,
// snapshots, a crash), and never answer anything.

// ---------------------------------------------------------------- input log

/** The configuration a session is a pure function of, with its input log. */
export interface SessionConfig {
  /** Seeds the world's PRNG, hence the hash seed and RANDOMKEY (< 2^53). */
  seed: number;
  /** Unix time in ms at virtual time 0. */
  unixMsAtZero: number;
  /** Heap limit in bytes for the engine (0 = none). */
  heapLimit: number;
}

/** Every user action that changes the world. Applying the same actions at
 *  the same virtual times to a world with the same configuration rebuilds
 *  the same state, byte for byte. */
export type Action =
  /** One or more lines typed or pasted in the console: one pipelined write. */
  | { kind: 'console'; text: string }
  /** DEBUG POPULATE n prefix on db (the worker picks a fresh prefix if none). */
  | { kind: 'populate'; db: number; n: number; prefix?: string }
  /** n times RANDOMKEY then DEL of the key it names, on db. */
  | { kind: 'delete'; db: number; n: number }
  /** gkDictRehashSteps on db's keyspace dict. */
  | { kind: 'rehashStep'; db: number; steps: number }
  /** CONFIG SET activerehashing yes|no. */
  | { kind: 'activeRehash'; on: boolean }
  /** CONFIG SET name value, on the control connection. */
  | { kind: 'config'; name: string; value: string }
  /** Starts a SCAN walk on db (and its audit) on the scan connection. */
  | { kind: 'scanStart'; db: number; count: number; match: string }
  /** Sends the next SCAN call of the current walk. */
  | { kind: 'scanStep' }
  /** Sends SCAN calls until the current walk's cursor is back to 0. */
  | { kind: 'scanFinish' }
  /** Runs the world until virtual time `to` (ns). */
  | { kind: 'advance'; to: number }
  /** Runs the world for `ns` nanoseconds of virtual time from now. */
  | { kind: 'wait'; ns: number }
  /** Runs the world's next event. */
  | { kind: 'step' }
  /** Executes an unreachable instruction in the engine (crash handling test). */
  | { kind: 'trap' };

export type ActionKind = Action['kind'];

/** An action stamped with the virtual time (ns) at which it was applied. */
export interface LogEntry {
  t: number;
  action: Action;
}

export interface SessionLog {
  version: 1;
  config: SessionConfig;
  entries: LogEntry[];
}

// ------------------------------------------------------------------ console

export type ConsoleStatus =
  /** A reply that is not an error. */
  | 'ok'
  /** An error reply (-ERR ...). */
  | 'error'
  /** The line could not be parsed: redis-cli prints "Invalid argument(s)". */
  | 'invalid'
  /** No reply arrived before the world went idle. */
  | 'noreply';

/** One command and what came back, as a transcript line pair. */
export interface ConsoleEntry {
  /** Increasing number, stable across replays of the same log. */
  seq: number;
  /** 'console' for typed lines; the action kind for lines a button sent. */
  source: 'console' | 'populate' | 'delete' | 'activeRehash' | 'config';
  /** The prompt shown before the input ("127.0.0.1:6379[2]>"). */
  prompt: string;
  /** The line as typed, or the command a button sent. */
  input: string;
  /** The reply exactly as redis-cli --no-raw prints it. */
  output: string;
  status: ConsoleStatus;
  /** Lines of output left out because the reply was too long to show. */
  omittedLines: number;
  /** For 'delete': how many keys were actually deleted. */
  deleted?: number;
  /** Set on the first command after the server closed the connection. */
  reconnected?: boolean;
  /** The (last) reply decoded, when it is small enough to keep. */
  reply?: ReplyValue;
}

/** A RESP2 reply as plain values: status and bulk strings as text (bulk
 *  bytes decoded as UTF-8), integers as numbers (as decimal text past
 *  2^53), nil as null, errors as { error }. */
export type ReplyValue = string | number | null | { error: string } | ReplyValue[];

// ---------------------------------------------------------------- snapshots

/** One hash table of a dict, its buckets folded into bins. */
export interface TableSnapshot {
  size: number;
  used: number;
  bins: number;
  /** Entries per bin. */
  entries: Uint32Array;
  /** Non-empty buckets per bin. */
  filled: Uint32Array;
  /** 0..255 per bin: the share of the bin's buckets visited by the current
   *  SCAN walk while the table had this size (null when no walk). */
  visited: Uint8Array | null;
}

export interface DictSnapshot {
  db: number;
  rehashidx: number;
  pauserehash: number;
  resizePolicy: number;
  tables: [TableSnapshot | null, TableSnapshot | null];
}

export interface ScanBucket {
  /** The dict's table index (0 or 1) at the time of the call. */
  table: number;
  index: number;
  /** That table's size at the time of the call. */
  size: number;
}

export interface ScanCall {
  n: number;
  cursorIn: string;
  cursorOut: string;
  /** Table sizes when the call ran (0 = no table). */
  sizes: [number, number];
  rehashidx: number;
  /** Buckets in the order the engine visited them (from the trace). */
  buckets: ScanBucket[];
  /** Number of buckets visited (buckets may be cut for display). */
  bucketCount: number;
  keys: string[];
  keyCount: number;
  /** Keys of this call already returned by an earlier call. */
  duplicates: string[];
}

export interface ScanAuditView {
  tracked: number;
  throughout: number;
  returned: number;
  missing: number;
  duplicates: number;
  foreign: number;
  calls: number;
  active: boolean;
}

export interface ScanSnapshot {
  db: number;
  count: number;
  match: string;
  cursor: string;
  done: boolean;
  calls: number;
  /** The most recent calls, newest last. */
  recent: ScanCall[];
  distinctKeys: number;
  duplicateReturns: number;
  audit: ScanAuditView | null;
  /** Keys present throughout but never returned, once the walk is done. */
  missingKeys: string[] | null;
  /** A SCAN error reply, if the last call failed. */
  error: string | null;
}

export interface Snapshot {
  /** Virtual time, ns. */
  now: number;
  /** Virtual time of the next queued event, or null. */
  nextEvent: number | null;
  unixMsAtZero: number;
  memory: number;
  dict: DictSnapshot | null;
  /** Keys in the viewed db's expires dict. */
  expiresUsed: number;
  /** The server's activerehashing, read from the engine. */
  activeRehashing: boolean;
  /** The server's configuration (CONFIGS_SHOWN), read from the engine. */
  config: Record<string, string>;
  scan: ScanSnapshot | null;
  /** Prompt of the console connection. */
  prompt: string;
  logLength: number;
  playing: boolean;
  speed: number;
}

// ----------------------------------------------------------------- requests

/** What the views want in snapshots (presentation only: not logged). */
export interface ViewOptions {
  db: number;
  /** Bins per bucket strip, usually its width in pixels. */
  bins: number;
}

export type Request =
  /** (Re)start the engine from a log, then apply and log `script` (a
   *  lesson step's earlier actions); replaces any running session. */
  | { id: number; type: 'boot'; log: SessionLog; script?: Action[] }
  /** Apply and log one action. */
  | { id: number; type: 'act'; action: Action }
  | { id: number; type: 'view'; view: ViewOptions }
  /** Run virtual time at `speed` virtual ms per real ms until paused. */
  | { id: number; type: 'play'; speed: number }
  | { id: number; type: 'pause' }
  | { id: number; type: 'snapshot' }
  /** Trace records newer than `after` (up to `max`). */
  | { id: number; type: 'trace'; after: number; max: number }
  /** The keys in one bucket of the viewed dict. */
  | { id: number; type: 'bucketKeys'; table: number; bucket: number };

export type RequestType = Request['type'];

export interface BootResult {
  /** The transcript the replayed log produced. */
  console: ConsoleEntry[];
  snapshot: Snapshot;
  replayed: number;
}

export interface ActResult {
  /** Index of the entry in the log. */
  index: number;
  entry: LogEntry;
  console: ConsoleEntry[];
  snapshot: Snapshot;
}

export interface TraceResult {
  count: number;
  /** TRACE_FIELDS doubles per record (see wasm/engine.ts). */
  data: Float64Array;
  lastSeq: number;
}

export interface ResultMap {
  boot: BootResult;
  act: ActResult;
  view: Snapshot;
  play: Snapshot;
  pause: Snapshot;
  snapshot: Snapshot;
  trace: TraceResult;
  bucketKeys: string[];
}

export interface WireError {
  /** 'GkError' (a failing engine status), 'GkTrapError' (the engine
   *  trapped), 'EngineDead' (no engine until the next boot) or 'Error'. */
  name: string;
  message: string;
  /** The engine's status code for a GkError. */
  code?: number;
}

export type Response =
  | { id: number; ok: true; type: RequestType; result: ResultMap[RequestType] }
  | { id: number; ok: false; type: RequestType; error: WireError };

// ------------------------------------------------------------------- events

export interface CrashInfo {
  /** The trap's message, e.g. "unreachable" or "memory access out of bounds". */
  message: string;
  stack: string;
  /** 'action' when applying a new action, 'replay' while replaying the log,
   *  'play' while running time. */
  during: 'action' | 'replay' | 'play';
  /** Index in the log of the entry being applied. */
  entryIndex: number;
  action: Action | null;
  logLength: number;
}

export type WorkerEvent =
  /** The worker loaded and is ready for a boot. */
  | { type: 'ready' }
  /** A log entry was appended (index == length) or replaced (coalesced
   *  time advance, index == length - 1). */
  | { type: 'log'; index: number; entry: LogEntry }
  | { type: 'console'; entries: ConsoleEntry[] }
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'replay'; done: number; total: number }
  | { type: 'crash'; crash: CrashInfo }
  /** Replay found a log entry stamped earlier than the world's clock. */
  | { type: 'diverged'; index: number; t: number; now: number };

/** Page -> worker, no reply: the page has drawn the last snapshot. */
export interface AckMessage {
  type: 'ack';
}

export type ToWorker = Request | AckMessage;
export type FromWorker = Response | WorkerEvent;

export function isResponse(m: FromWorker): m is Response {
  return 'id' in m;
}

/** Transferable buffers inside a snapshot (sent without copying). */
export function snapshotTransfers(s: Snapshot): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const t of s.dict?.tables ?? []) {
    if (!t) continue;
    out.push(t.entries.buffer as ArrayBuffer, t.filled.buffer as ArrayBuffer);
    if (t.visited) out.push(t.visited.buffer as ArrayBuffer);
  }
  return out;
}

/** The configuration parameters every snapshot carries. */
export const CONFIGS_SHOWN = [
  'activerehashing', 'hz', 'set-max-intset-entries', 'hash-max-listpack-entries',
  'hash-max-listpack-value', 'zset-max-listpack-entries', 'zset-max-listpack-value',
] as const;

export const PROMPT_HOST = '127.0.0.1:6379';

export function promptFor(db: number): string {
  return db === 0 ? `${PROMPT_HOST}>` : `${PROMPT_HOST}[${db}]>`;
}
