// The messages between the page and the engine worker, and the input log.
// Shared by wasm/worker.ts (webworker lib) and wasm/bridge.ts (dom lib), so
// it uses neither.
//
// Page -> worker: a Request carries an id; the worker answers each with one
// Response carrying the same id, in the order the requests were sent.
// Worker -> page: Events are pushed at any time (log growth, console output,
// snapshots, a crash), and never answer anything.

import type { AofLabName, AofView, PersistAction } from './aofprotocol';
import type { McAction, McLabName, SlabsQuery, SlabsResultMap } from './mcprotocol';
import {
  ErrorCode, Limits, type KeyInfo, type KeyPart, type ScanAudit, type WorkloadSpec,
} from '../web/src/wasm-gen/seam';

// ---------------------------------------------------------------- input log

/** The configuration a session is a pure function of, with its input log. */
export interface SessionConfig {
  /** Seeds the world's PRNG, hence the hash seed and RANDOMKEY (< 2^53). */
  seed: number;
  /** Unix time in ms at virtual time 0. */
  unixMsAtZero: number;
  /** Heap limit in bytes for the engine, at most HEAP_LIMIT_MAX (0: that
   *  maximum). */
  heapLimit: number;
}

/** The largest heap limit the WebAssembly engine takes (GK_HEAP_LIMIT_MAX_32
 *  in engine/include/glasskv.h). */
export const HEAP_LIMIT_MAX: number = Limits.HEAP_LIMIT_MAX_32;

/** How one key is stored, as the key inspector draws it (wasm/inspect.ts):
 *  parts with their parents first, and the encoded bytes they point into. */
export interface KeyInspection {
  key: string;
  info: KeyInfo;
  parts: KeyPart[];
  bytes: Uint8Array;
}

/** A line typed on a second connection while the console waited for a
 *  busy script, sent at virtual time t (ns). */
export interface SecondInput {
  t: number;
  text: string;
}

/** How long, after busy-reply-threshold, a busy script run from the
 *  reader's console may go on while the reader can send SCRIPT KILL from a
 *  second connection (virtual time, paced to real time meanwhile). */
export const SECOND_CONSOLE_BOX_MS = 20_000;
/** Lines a reader may send on the second connection during one command. */
export const MAX_SECOND_INPUTS = 100;

/** Every user action that changes the world. Applying the same actions at
 *  the same virtual times to a world with the same configuration rebuilds
 *  the same state, byte for byte. */
export type Action =
  /** One or more lines typed or pasted in the console: one pipelined write.
   *  With `second` (typed by the reader, where the page can reach the
   *  worker while it runs), a busy script it runs goes on until SCRIPT KILL
   *  or SECOND_CONSOLE_BOX_MS, and what the reader types meanwhile goes on
   *  a second connection; the worker records it there, with the virtual
   *  time it was sent (send it empty). */
  | { kind: 'console'; text: string; second?: SecondInput[] }
  /** n keys prefix:0 ... prefix:n-1 on db (the worker picks a fresh prefix
   *  if none): DEBUG POPULATE n prefix, which sizes the table for n keys
   *  before it adds them; or, with mset, MSET commands of up to 1,000 keys
   *  each, as a client writes them, so the table grows by doubling and
   *  rehashes as it goes. */
  | { kind: 'populate'; db: number; n: number; prefix?: string; mset?: boolean }
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
  /** Sends the next SCAN call of the current walk, or the next `calls`
   *  calls (fewer if the cursor comes back to 0 first). */
  | { kind: 'scanStep'; calls?: number }
  /** Sends SCAN calls until the current walk's cursor is back to 0. */
  | { kind: 'scanFinish' }
  /** Runs the world until virtual time `to` (ns). */
  | { kind: 'advance'; to: number }
  /** Runs the world for `ns` nanoseconds of virtual time from now. */
  | { kind: 'wait'; ns: number }
  /** Runs the world's next event. */
  | { kind: 'step' }
  /** Runs events until host `node` has finished one event-loop iteration. */
  | { kind: 'stepIteration'; node: number }
  /** Starts a client program against the server (gkWorkloadStart). */
  | WorkloadAction
  /** Stops a client program: it sends no new batch (gkWorkloadStop). */
  | { kind: 'workloadStop'; id: number }
  /** Starts the first part of a built-in lab's scenario in the sandbox. */
  | { kind: 'lab'; name: LabName }
  /** Starts the next part of the running lab (its previous part is done). */
  | { kind: 'labNext' }
  /** The server's disk, a crash, a restart (wasm/aofprotocol.ts). */
  | PersistAction
  /** The memcached node: start, protocol lines, fill slices (wasm/mcprotocol.ts). */
  | McAction
  /** Starts another Redis server in the world, on one machine with the
   *  first (127.0.0.1), listening on `port`: redis-server --port N. */
  | { kind: 'server'; port: number }
  /** A setting of the machine every server runs on: a sysctl
   *  (net.ipv4.ip_local_port_range, vm.overcommit_memory ...) or its
   *  memory (mem-total, swap-total), as the kernel weighs a fork. The
   *  world weighs each server's forks against figures of its own: the
   *  vm.* and memory settings are the first server's, or those of the one
   *  on `port`. */
  | { kind: 'machine'; name: MachineSetting; value: string; port?: number }
  /** Executes an unreachable instruction in the engine (crash handling test). */
  | { kind: 'trap' };

export type ActionKind = Action['kind'];

/** What a `machine` action sets (gkMachineSet, gkWorldSysctlSet). */
export const MACHINE_SETTINGS = [
  'vm.overcommit_memory', 'vm.overcommit_ratio', 'mem-total', 'swap-total', 'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_local_reserved_ports',
] as const;
export type MachineSetting = (typeof MACHINE_SETTINGS)[number];

/** The client programs the workload panel offers: presets of one engine
 *  workload (gkWorkloadSpec), named after the clients they imitate. */
export const WORKLOAD_PRESETS = ['benchmark', 'redis-py', 'lettuce', 'monitor'] as const;
export type WorkloadPreset = (typeof WORKLOAD_PRESETS)[number];

/** A client program's spec (gkWorkloadSpec, declared in glasskv.h). */
export type { WorkloadSpec } from '../web/src/wasm-gen/seam';

/** Starting a workload: the preset it came from and its spec, flat (so
 *  that lesson steps compare field by field). */
export type WorkloadAction = {
  kind: 'workload'; preset: WorkloadPreset;
  /** The server it talks to, by port (default: the first server). */
  port?: number;
} & Partial<WorkloadSpec>;

/** What each preset sets unless told otherwise (the rest is the engine's
 *  gkWorkloadSpecInit): the Run panel's forms and the lessons' workload
 *  lines start from these. */
export const PRESET_SPECS: Record<WorkloadPreset, Partial<WorkloadSpec>> = {
  benchmark: {},
  'redis-py': { clients: 1, multi: true },
  lettuce: { clients: 1, flush: 1 },
  monitor: { clients: 1, pipeline: 1, requests: 0, command: 'INFO', intervalNs: 2e9 },
};

/** The commands a client program can send (gkWorkloadSpec.command): a
 *  key's GET, SET or INCR, or PING, INFO or SCRIPT KILL alone. */
export const WORKLOAD_COMMANDS = ['GET', 'SET', 'INCR', 'MSET', 'PING', 'INFO', 'SCRIPT KILL'] as const;

export const WORKLOAD_SPEC_FIELDS = [
  'clients', 'pipeline', 'requests', 'multi', 'keyspace', 'valueSize', 'clientCmdNs', 'command', 'intervalNs',
  'rttNs', 'bandwidth', 'flush',
] as const;

/** The labs with a live scene in the sandbox (gkLabRun's names, run
 *  headless for their figures): the event loop's, then replication's,
 *  which the Network pane offers. The session's record keeps a lab as its
 *  index here: new names go at the end. */
export const LOOP_LAB_NAMES = ['pipelining', 'pipeline-vs-multi', 'rtt', 'command-flushing'] as const;
export const REPL_LAB_NAMES = ['replication-star', 'replication-chain'] as const;
export const LAB_NAMES = [...LOOP_LAB_NAMES, ...REPL_LAB_NAMES] as const;
export type LabName = (typeof LAB_NAMES)[number];

/** The labs of the event-loop lessons that run headless only, for their
 *  figures: what they send among the client programs (KEYS *, a DEL of a
 *  million-member set) is no client program's command, so they have no
 *  live scene in the sandbox. */
export const FIGURES_LAB_NAMES = ['slow-command'] as const;
export type FiguresLabName = (typeof FIGURES_LAB_NAMES)[number];

/** The labs that run live in a world of their own, a step at a time,
 *  rather than in the sandbox (wasm/livelab.ts): their datasets and runs
 *  are too large for the sandbox's checkpoints and timeline. */
export const STEPPED_LAB_NAMES = ['eval-vs-zcard'] as const;
export type SteppedLabName = (typeof STEPPED_LAB_NAMES)[number];

/** Where a stepped lab is: sent as it runs and when it ends. */
export interface LabProgress {
  name: SteppedLabName;
  /** Grows with every labStart: events of an earlier run are stale. */
  run: number;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  /** The part running: loading the dataset, the ZCARD run, the EVAL run. */
  part: 'load' | 'zcard' | 'eval' | 'done';
  /** The part's work done and in all: keys loaded, replies received. */
  done: number;
  total: number;
  /** Keys of the lab's dataset. */
  keys: number;
  /** The lab world's virtual clock, and when the run in progress began. */
  nowNs: number;
  partFromNs: number;
  /** Real time since the start, ms. */
  wallMs: number;
  /** The figures, once done (gkLabRun's JSON). */
  result: LabRunResult | null;
  error: string | null;
}

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
  /** 'console' for typed lines; 'second' for lines typed on a second
   *  connection while the console waited for a busy script; the action
   *  kind for lines a button sent. */
  source: 'console' | 'second' | 'populate' | 'delete' | 'activeRehash' | 'config' | 'persist' | 'server';
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
  /** For a 'populate' by MSET: the keys written and the MSET commands
   *  sent (the last one failed if status is 'error'). */
  written?: number;
  commands?: number;
  /** Set on the first command after the server closed the connection. */
  reconnected?: boolean;
  /** The (last) reply decoded, when it is small enough to keep. */
  reply?: ReplyValue;
  /** Index of the log entry that printed it: the transcript of a world
   *  rewound to a position shows the entries before it as done and the
   *  rest as its recorded future. */
  entry?: number;
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

/** The engine's SCAN audit, as the page shows it (the db is the walk's). */
export type ScanAuditView = Omit<ScanAudit, 'db'>;

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

/** A client program as the snapshot shows it. */
export interface WorkloadView {
  /** Its id: the node id of the program's host. */
  id: number;
  preset: WorkloadPreset;
  /** The spec it runs with, the engine's defaults filled in
   *  (gkWorkloadGetSpec). */
  spec: WorkloadSpec;
  /** Virtual time it was started. */
  startedAt: number;
  stopped: boolean;
  /** The lab part that started it, if any. */
  lab: { name: LabName; part: number } | null;
  /** gkWorkloadGetStats. */
  stats: {
    sent: number; completed: number; batches: number; startNs: number; endNs: number; latCount: number;
    latSumNs: number; latMaxNs: number; latP50Ns: number; latP99Ns: number; reads: number; writes: number;
    /** Error replies read (-BUSY while a script is busy ...). */
    errors: number;
    done: boolean;
  };
  /** Its connections (ids), as the trace has shown them so far. */
  conns: number[];
}

/** A host of the world: the server or a client program. */
export interface HostView {
  id: number;
  role: 'server' | 'workload';
  /** gkNodeGetStats. */
  reads: number;
  writes: number;
  polls: number;
  iterations: number;
}

/** One server's place in the replication topology (gkReplInspect) and
 *  the replicas connected to it (gkReplInspectLink). */
export interface NetworkNodeView {
  node: number;
  port: number;
  /** The number of its newest log line (gkServerLogLast). */
  logLast: number;
  /** ReplLinkState: its link to its master (NONE: a master). */
  link: number;
  masterPort: number;
  offset: number;
  appliedOffset: number;
  readOffset: number;
  syncTotal: number;
  syncRead: number;
  backlogSize: number;
  backlogHistlen: number;
  backlogFirst: number;
  /** 1: a child writes an RDB to disk; 2: to replicas' sockets. */
  rdbChild: number;
  replid: string;
  replicas: {
    port: number;
    /** ReplicaState. */
    state: number;
    node: number;
    ackOffset: number;
    ackAgeMs: number;
    buffered: number;
    inFlight: number;
  }[];
}

/** Where the world is in its recorded history. */
export interface HistoryView {
  /** The latest virtual time the log reaches. */
  end: number;
  /** The world is at the end of the log (else it was rewound: the next
   *  action forks, setting what came after aside). */
  atEnd: boolean;
  /** Log entries applied. */
  applied: number;
  /** Virtual times of the checkpoints (snapshots of engine memory). */
  checkpoints: number[];
  /** Bytes the checkpoints hold. */
  checkpointBytes: number;
  /** The future an action in the past set aside last (restore brings it
   *  back), or null: its actions other than time advances, the console
   *  lines typed among them, and the virtual time it ran past the fork. */
  aside: { actions: number; typed: number; ns: number; at: number } | null;
}

/** The lab running in the sandbox. */
export interface LabView {
  name: LabName;
  /** The part running (0-based), of `parts`. */
  part: number;
  /** Its name, as labs.c names its run (sync, idle, ...). */
  partName: string;
  parts: number;
  /** Every part has run to completion. */
  done: boolean;
  /** A replication lab's delivery times, for each part that timed a
   *  write so far. */
  deliveries: LabDelivery[];
}

/** A server's log as its ring holds it (the last 1,024 lines, as
 *  redis-server writes them: "pid:role date time level message"). */
export interface ServerLog {
  node: number;
  /** Its lines after the one asked for, oldest first; none for a host
   *  with no Redis server. */
  lines: string[];
  /** The number of its last line (lines before the ring's are gone):
   *  less than the one asked for when time went back. */
  last: number;
}

/** How long one write took to reach each replica, as seed 003 measured
 *  it: from the end of the command on the master to its end on the
 *  replica (the trace's CMD records). */
export interface LabDelivery {
  /** The part (labs.c's run name: idle, loaded). */
  part: string;
  /** The command timed (SET, MSET). */
  command: string;
  /** When the master ran it, virtual ns; null until it has. */
  masterAt: number | null;
  /** Per replica in the lab's order: ms from the master, and (in a chain)
   *  from the server it follows; null while the write is on its way. */
  replicas: { port: number; follows: number; ms: number | null; hopMs: number | null }[];
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
  workloads: WorkloadView[];
  hosts: HostView[];
  /** Every Redis server of the world and its replication (the network
   *  view), by port. */
  network: NetworkNodeView[];
  history: HistoryView;
  lab: LabView | null;
  /** The server's last iteration (begun by now) that ran commands, from
   *  the trace: how many commands it ran and how many reads fed them. */
  busy: { number: number; t0: number; t1: number; commands: number; reads: number; bytes: number } | null;
  /** The last trace record the timeline has taken in. */
  traceSeq: number;
  /** Trace records overwritten before the timeline could read them. */
  traceLost: number;
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
   *  lesson step's earlier actions); replaces any running session.
   *  `asides`: futures earlier forks of this log set aside (kept over a
   *  reload); those that do not share their beginning with it are dropped. */
  | { id: number; type: 'boot'; log: SessionLog; script?: Action[]; asides?: AsideLog[] }
  /** Apply and log one action. */
  | { id: number; type: 'act'; action: Action }
  /** Apply and log actions in turn, as a boot's script is applied (a
   *  lesson's missing actions), and answer once for all of them. */
  | { id: number; type: 'actAll'; actions: Action[] }
  | { id: number; type: 'view'; view: ViewOptions }
  /** Run virtual time at `speed` virtual ms per real ms until paused. */
  | { id: number; type: 'play'; speed: number }
  | { id: number; type: 'pause' }
  | { id: number; type: 'snapshot' }
  /** Trace records newer than `after` (up to `max`). */
  | { id: number; type: 'trace'; after: number; max: number }
  /** The keys in one bucket of the viewed dict. */
  | { id: number; type: 'bucketKeys'; table: number; bucket: number }
  /** How one key of the viewed db is stored (null: no such key). */
  | { id: number; type: 'inspect'; key: string }
  /** The timeline of [t0, t1] at px columns (hosts `nodes`, default all):
   *  the sandbox's, or with source 'lab' the one the last stepped lab
   *  recorded. */
  | { id: number; type: 'timeline'; t0: number; t1: number; px: number; nodes?: number[]; source?: 'lab' }
  /** One connection's traffic in [t0, t1] (the sequence diagram). */
  | { id: number; type: 'connection'; fd: number; t0: number; t1: number }
  /** A workload's recent batch latencies. */
  | { id: number; type: 'samples'; workload: number; max: number }
  /** Moves the world to virtual time t of its recorded history (restore
   *  the nearest checkpoint, replay the log); not logged. */
  | { id: number; type: 'seek'; t: number }
  /** Brings back the future the last action in the past set aside: the
   *  log becomes the one it cut, the world is at the time of the fork
   *  again, and the branch made there is set aside in its place. */
  | { id: number; type: 'restoreFuture' }
  /** Runs a lab headless (gkLabRun) in a module of its own. */
  | { id: number; type: 'labRun'; name: LabName | SteppedLabName | AofLabName | McLabName | FiguresLabName; seed: number }
  /** Starts a stepped lab in a module of its own; it runs a step at a
   *  time between the other requests, with labProgress events, until it
   *  ends or labCancel stops it (a lab already running is stopped). */
  | { id: number; type: 'labStart'; name: SteppedLabName; seed: number }
  /** Stops the stepped lab running, if any (true if there was one). */
  | { id: number; type: 'labCancel' }
  /** The names of command ids seen in GK_TR_CMD records. */
  | { id: number; type: 'commandNames' }
  /** Host `node`'s last iteration that ended at or before `before` (all
   *  if omitted), with its items (phases and calls). */
  | { id: number; type: 'iteration'; node: number; before?: number }
  /** The AOF panel's view: buffer, file, offsets, threads, crash report. */
  | { id: number; type: 'aof' }
  /** The Slabs view's queries on the memcached node (wasm/mcprotocol.ts). */
  | { id: number; type: 'slabs'; query: SlabsQuery }
  /** The engine's digest of the world's state (read only, not logged). */
  | { id: number; type: 'digest' }
  /** The log of the Redis server on host `node`, its lines after line
   *  `after` (read only, not logged). */
  | { id: number; type: 'serverLog'; node: number; after?: number };

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

export interface ActAllResult {
  console: ConsoleEntry[];
  snapshot: Snapshot;
}

/** A log an action in the past cut, kept whole so that it can come back:
 *  it and the log now share their first `shared` entries and part at
 *  virtual time `at`; `endTime` is the time it reaches. */
export interface AsideLog {
  entries: LogEntry[];
  endTime: number;
  at: number;
  shared: number;
}

export interface RestoreResult {
  /** The whole log, now the one restored. */
  entries: LogEntry[];
  /** Its transcript (the last CONSOLE_KEEP entries). */
  console: ConsoleEntry[];
  snapshot: Snapshot;
}

export interface TraceResult {
  count: number;
  /** The records packed (packTraceRecords of wasm-gen/seam.ts). */
  data: Float64Array;
  lastSeq: number;
}

/** Items of one host in a window, columnar (see wasm/timeline.ts). */
export interface LaneItems {
  node: number;
  count: number;
  t0: Float64Array;
  t1: Float64Array;
  kind: Uint8Array;
  fd: Int32Array;
  n: Float64Array;
  x: Float64Array;
}

export interface LaneBins {
  node: number;
  /** TIMELINE_BIN_FIELDS floats per column. */
  data: Float32Array;
}

export interface TimelineResult {
  t0: number;
  t1: number;
  px: number;
  mode: 'items' | 'bins';
  binNs: number;
  items: LaneItems[];
  bins: LaneBins[];
  from: number;
  clipped: boolean;
  /** The latest end of any item held (hosts run ahead of the world's
   *  event clock while they work). */
  end: number;
}

export interface SamplesResult {
  times: Float64Array;
  latencies: Float64Array;
}

export interface LabRunResult {
  name: LabName | SteppedLabName | AofLabName | McLabName | FiguresLabName;
  /** gkLabRun's JSON. */
  json: string;
  /** Real time the run took, ms. */
  wallMs: number;
}

export interface IterationResult {
  node: number;
  /** The iteration's number (the host's count of iterations before it). */
  number: number;
  t0: number;
  t1: number;
  /** Its phases and calls, in order of start (the iteration itself first). */
  items: LaneItems;
}

export interface ResultMap {
  boot: BootResult;
  act: ActResult;
  actAll: ActAllResult;
  view: Snapshot;
  play: Snapshot;
  pause: Snapshot;
  snapshot: Snapshot;
  trace: TraceResult;
  bucketKeys: string[];
  inspect: KeyInspection | null;
  timeline: TimelineResult;
  connection: LaneItems[];
  samples: SamplesResult;
  seek: Snapshot;
  restoreFuture: RestoreResult;
  labRun: LabRunResult;
  labStart: LabProgress;
  labCancel: boolean;
  commandNames: Record<number, string>;
  iteration: IterationResult | null;
  aof: AofView;
  slabs: SlabsResultMap[keyof SlabsResultMap]
  digest: string;
  serverLog: ServerLog;
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
   *  time advance, index == length - 1; with `update`, the same console
   *  action with the lines its second connection sent recorded in it). */
  | { type: 'log'; index: number; entry: LogEntry; update?: true }
  | { type: 'console'; entries: ConsoleEntry[] }
  /** The futures set aside changed (a fork, a restore, a boot), oldest
   *  first: the page keeps them over a reload. */
  | { type: 'asides'; asides: AsideLog[] }
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'replay'; done: number; total: number }
  | { type: 'crash'; crash: CrashInfo }
  /** Replay found a log entry stamped earlier than the world's clock. */
  | { type: 'diverged'; index: number; t: number; now: number }
  /** A stepped lab went on, or ended. */
  | { type: 'labProgress'; progress: LabProgress }
  /** The console's command holds the server in a busy script (virtual
   *  time now, ns): lines the page writes to its inbox now go on a second
   *  connection, until the command's answer comes. */
  | { type: 'blocked'; now: number }
  /** A line typed on the second connection got its replies. */
  | { type: 'second'; entry: ConsoleEntry };

/** Page -> worker, no reply: the page has drawn the last snapshot. */
export interface AckMessage {
  type: 'ack';
}

/** Page -> worker, no reply, once: the page's side of the inbox the
 *  worker reads while the console waits for a busy script (wasm/inbox.ts).
 *  Only a cross-origin isolated page can share memory with its worker. */
export interface InboxMessage {
  type: 'inbox';
  buffer: SharedArrayBuffer;
}

export type ToWorker = Request | AckMessage | InboxMessage;
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

/** Kinds of timeline items (wasm/timeline.ts ItemKind). */
export const TimelineItem = {
  ITER: 0,
  POLL: 1,
  READ: 2,
  WRITE: 3,
  EXEC: 4,
  CRON: 5,
  BEFORE_SLEEP: 6,
  SEND: 7,
  DONE: 8,
  FILE: 9,
  /** A command refused before it ran (-BUSY ...): n its error's code
   *  (errorCodeText), x its command id. */
  REFUSED: 10,
  /** A batch's replies held errors: n how many, x the first's code. */
  ERRORS: 11,
} as const;

/** Fields of a timeline bin (wasm/timeline.ts BinField). */
export const TimelineBin = {
  BUSY: 0,
  POLL: 1,
  READ: 2,
  WRITE: 3,
  EXEC: 4,
  CRON: 5,
  ITERS: 6,
  CMDS: 7,
  READS: 8,
  WRITES: 9,
  POLLS: 10,
  SENDS: 11,
  DONES: 12,
  BYTES_IN: 13,
  BYTES_OUT: 14,
  /** Commands refused (the server's lane), error replies (a client's). */
  REFUSED: 15,
} as const;
export const TIMELINE_BIN_FIELDS = 16;

/** An error's code from its number in a trace record (GK_ERROR_CODE_BASE
 *  in glasskv.h): BUSY, OOM, READONLY ... */
export function errorCodeText(v: number): string {
  let s = '';
  for (let k = 0; v > 0 && k < ErrorCode.MAX; k++) {
    const digit = v % ErrorCode.BASE;
    v = Math.floor(v / ErrorCode.BASE);
    s = (digit <= 26 ? String.fromCharCode(64 + digit) : String(digit - 27)) + s;
  }
  return s || 'ERR';
}

export function timelineTransfers(w: { items: LaneItems[]; bins: LaneBins[] }): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const l of w.items) {
    for (const a of [l.t0, l.t1, l.kind, l.fd, l.n, l.x]) out.push(a.buffer as ArrayBuffer);
  }
  for (const b of w.bins) out.push(b.data.buffer as ArrayBuffer);
  return out;
}

/** The configuration parameters every snapshot carries. */
export const CONFIGS_SHOWN = [
  'activerehashing', 'hz', 'set-max-intset-entries', 'hash-max-listpack-entries',
  'hash-max-listpack-value', 'zset-max-listpack-entries', 'zset-max-listpack-value',
] as const;

export const PROMPT_HOST = '127.0.0.1:6379';
export const DEFAULT_PORT = 6379;

/** redis-cli's prompt: host:port, the db if not 0; "not connected>"
 *  once CONNECT found nobody at the port (port < 0). */
export function promptFor(db: number, port = DEFAULT_PORT): string {
  if (port < 0) return 'not connected>';
  const host = `127.0.0.1:${port}`;
  return db === 0 ? `${host}>` : `${host}[${db}]>`;
}
