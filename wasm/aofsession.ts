// The session's persistence side: the actions that act on the server's
// machine (disk preset, free space, crash, restart), the ledger of writes
// clients were told succeeded, the recovery report that compares that
// ledger with what a restarted server holds, and the AOF view.
//
// The report is an observation: the ledger holds what replies said (SET's
// value once it answered OK, INCR's reply, DEL's keys), for the console's
// commands and for the client programs' (the engine traces every write a
// workload saw acknowledged: GK_TR_ACK), and after a restart the keys are
// read back with GET on a connection of their own. What survived is
// decided by the engine alone.
import { GkError, type Glasskv, type World } from './engine';
import type { ConsoleRunner } from './consolerun';
import { exchange } from './driver';
import { concat, encodeRequest, parseReply, parseRequest, type Reply } from './resp';
import {
  AckKind, AofEvent, BioType, CrashEvent, CrashKind, DiskEvent, FSYNC_NAMES, JobEvent, aofInfo, diskFileInfo, diskInfo, diskReadFile,
  CrashAt, diskSetFree, diskSetPreset, diskSetReadOnly, serverCrash, serverCrashAtEvent, serverIsUp,
  serverLogRead, serverRestart, serverThreads,
} from './aof';
import { TraceType, type TraceRecord } from './engine';
import {
  CRASH_POINTS, DISK_PRESETS, type AckedWrite, type CrashMode, type CrashPoint, type AofCommand, type AofFileView, type AofSeries, type AofView, type CrashRecord,
  type LaneJob, type PersistAction, type RecoveryReport, type RecoveryRow,
} from './aofprotocol';
import type { Action, ConsoleEntry } from './protocol';

/** Keys the ledger follows at most: the ones most recently acknowledged,
 *  which are the ones a crash can lose (a workload of millions of SETs
 *  keeps only these, and counts the rest). */
export const LEDGER_MAX = 10_000;
/** Rows of the recovery report a view carries (the page shows fewer). */
export const REPORT_ROWS = 500;
/** Trace records the AOF view reads back from the engine's ring. */
const VIEW_RECORDS = 16_384;
/** Bytes of the incr file's tail the view shows. */
const FILE_TAIL = 4096;
const REFUSED = 'Could not connect to Redis at 127.0.0.1:6379: Connection refused';
const decoder = new TextDecoder();

/** What the session remembers about persistence (checkpointed with it). */
export interface PersistState {
  controlConn: number;
  /** Acknowledged writes by "db\0key", the latest per key, the key
   *  acknowledged longest ago first. */
  ledger: Map<string, AckedWrite>;
  /** Writes acknowledged since the server last started, all keys. */
  writes: number;
  /** Of those, writes to keys the ledger dropped when full (the keys
   *  acknowledged longest ago). */
  untracked: number;
  /** The configuration file of the next restart. */
  conf: string | null;
  crash: CrashRecord | null;
  report: RecoveryReport | null;
  /** A crash armed, with the configuration in force when it was, and
   *  what the trace showed since: commands run, aof_buf's length. */
  armed: {
    point: CrashPoint; mode: CrashMode; appendonly: boolean; fsync: string; commands: number; buf: number;
  } | null;
  /** Directories made read-only (gkDiskSetReadOnly has no getter). */
  readOnly: string[];
  /** Log lines already shown in a report. */
  logSeq: number;
}

/** The parts of the session's live world this module uses. */
export interface PersistLive {
  gk: Glasskv;
  world: World;
  node: number;
  console: ConsoleRunner;
  controlConn: number;
  controlDb: number;
  persist: PersistState;
}

export function newPersistState(controlConn: number): PersistState {
  return {
    controlConn, ledger: new Map(), writes: 0, untracked: 0, conf: null, crash: null, report: null,
    armed: null, readOnly: [], logSeq: 0,
  };
}

export function copyPersistState(s: PersistState): PersistState {
  return { ...s, ledger: new Map(s.ledger), readOnly: [...s.readOnly], armed: s.armed && { ...s.armed } };
}

/** Puts a checkpointed state back, connections included. */
export function loadPersistState(live: PersistLive, s: PersistState): void {
  live.persist = copyPersistState(s);
  live.controlConn = s.controlConn;
}

const PERSIST_KINDS = new Set(['disk', 'diskFree', 'diskReadOnly', 'crash', 'crashAt', 'restart']);
/** Actions that need no running server. */
const WHILE_DOWN = new Set(['console', 'advance', 'wait', 'step', 'disk', 'diskFree', 'diskReadOnly', 'restart', 'trap']);
/** Directories a scenario can make read-only: the working one and the AOF's. */
export const READONLY_DIRS = ['', 'appendonlydir'] as const;

export function isPersistAction(a: Action): a is PersistAction {
  return PERSIST_KINDS.has(a.kind);
}

export function isUp(live: PersistLive): boolean {
  return serverIsUp(live.world, live.node);
}

/** Checks an action against the server's state before it is logged, and
 *  completes a restart with its configuration file. Returns the action to
 *  log if it is a persistence action, null for any other (already checked
 *  for a server that is down). */
export function completePersist(live: PersistLive, a: Action): Action | null {
  const up = isUp(live);
  if (!up && !WHILE_DOWN.has(a.kind)) throw new RangeError('the server is down: restart it first');
  if (!isPersistAction(a)) return null;
  switch (a.kind) {
    case 'disk':
      if (!(DISK_PRESETS as readonly string[]).includes(a.preset)) throw new RangeError(`no disk preset ${a.preset}`);
      return a;
    case 'diskFree':
      if (!Number.isInteger(a.bytes) || a.bytes < 0 || a.bytes > 2 ** 50) throw new RangeError('bytes out of range');
      return a;
    case 'diskReadOnly':
      if (!(READONLY_DIRS as readonly string[]).includes(a.dir)) throw new RangeError(`no directory ${a.dir}`);
      if (typeof a.readonly !== 'boolean') throw new RangeError('readonly must be true or false');
      return a;
    case 'crash':
    case 'crashAt':
      if (!up) throw new RangeError('the server is already down');
      if (a.mode !== 'process' && a.mode !== 'power') throw new RangeError('crash mode must be process or power');
      if (a.kind === 'crashAt' && !(CRASH_POINTS as readonly string[]).includes(a.point)) {
        throw new RangeError(`no crash point ${a.point}`);
      }
      return a;
    case 'restart':
      if (up) throw new RangeError('the server is running');
      return a.conf !== undefined ? a : { ...a, conf: live.persist.conf ?? '' };
  }
}

/** Applies a persistence action. */
export function applyPersist(live: PersistLive, a: PersistAction): ConsoleEntry[] {
  const { world, node } = live;
  switch (a.kind) {
    case 'disk':
      diskSetPreset(world, node, a.preset);
      return [live.console.note('persist', `disk preset ${a.preset}`, {})];
    case 'diskFree':
      diskSetFree(world, node, a.bytes);
      return [live.console.note('persist', `disk free ${a.bytes} bytes`, {})];
    case 'diskReadOnly': {
      diskSetReadOnly(world, node, a.dir, a.readonly);
      const ro = live.persist.readOnly.filter((d) => d !== a.dir);
      live.persist.readOnly = a.readonly ? [...ro, a.dir].sort() : ro;
      return [live.console.note('persist', `chmod ${a.readonly ? 'a-w' : 'u+w'} ${a.dir || '.'}`, {})];
    }
    case 'crash':
      crash(live, a.mode);
      return [live.console.note('persist', a.mode === 'power' ? 'power loss' : 'kill -9', {})];
    case 'crashAt':
      arm(live, a.point, a.mode);
      return [live.console.note('persist', `${a.mode === 'power' ? 'power loss' : 'kill -9'} armed: ${a.point}`, {})];
    case 'restart':
      restart(live, a.conf ?? '');
      return [live.console.note('persist', 'redis-server restarted', {})];
  }
}

function configOr(world: World, node: number, name: string, fallback: string): string {
  try {
    return world.serverConfigGet(node, name);
  } catch (e) {
    if (e instanceof GkError) return fallback;
    throw e;
  }
}

/** How each armed point asks the engine. */
function arm(live: PersistLive, point: CrashPoint, mode: CrashMode): void {
  const { world, node } = live;
  const kind = mode === 'power' ? CrashKind.POWER : CrashKind.PROCESS;
  // Not the next beforeSleep of any iteration (an idle serverCron has one
  // too), but of the next one that runs a command.
  if (point === 'beforeSleep') serverCrashAtEvent(world, node, kind, TraceType.CMD, -1, -1, CrashAt.BEFORE_SLEEP);
  else if (point === 'afterWrite') serverCrashAtEvent(world, node, kind, TraceType.AOF, AofEvent.WRITE);
  else serverCrashAtEvent(world, node, kind, TraceType.BIO, BioType.AOF_FSYNC, JobEvent.START);
  const appendonly = configOr(world, node, 'appendonly', 'no') === 'yes';
  live.persist.armed = {
    point, mode, appendonly, fsync: configOr(world, node, 'appendfsync', 'everysec'), commands: 0,
    buf: appendonly ? aofInfo(world, node).bufferLength : 0,
  };
}

/** An armed crash happened (its CRASH record, at a chosen point): the
 *  record of it, as crash() makes for a crash now. The policy is the one
 *  in force when the process died, which the record carries (a CONFIG SET
 *  may have changed it since the crash was armed). */
function armedCrashed(live: PersistLive, t: number, policy: number): void {
  const p = live.persist;
  const a = p.armed!;
  p.armed = null;
  const appendonly = (policy & 256) !== 0;
  const fsync = FSYNC_NAMES[policy & 255] ?? a.fsync;
  p.crash = {
    t, mode: a.mode, point: a.point, appendonly, fsync, aof: null, acked: p.ledger.size,
    writes: p.writes, untracked: p.untracked, sinceArmed: { commands: a.commands, buf: a.buf },
  };
  p.report = null;
  p.conf = `appendonly ${appendonly ? 'yes' : 'no'}\nappendfsync ${fsync}\n`;
}

function crash(live: PersistLive, mode: 'process' | 'power'): void {
  const { world, node } = live;
  const appendonly = configOr(world, node, 'appendonly', 'no') === 'yes';
  const fsync = configOr(world, node, 'appendfsync', 'everysec');
  let aof: CrashRecord['aof'] = null;
  if (appendonly) {
    const i = aofInfo(world, node);
    aof = { fed: i.fed, written: i.written, acked: i.acked, durable: i.durable, buf: i.bufferLength };
  }
  serverCrash(world, node, mode === 'power' ? CrashKind.POWER : CrashKind.PROCESS);
  const p = live.persist;
  p.armed = null;
  p.crash = {
    t: world.now(), mode, point: null, sinceArmed: null, appendonly, fsync, aof, acked: p.ledger.size, writes: p.writes,
    untracked: p.untracked,
  };
  p.report = null;
  p.conf = `appendonly ${appendonly ? 'yes' : 'no'}\nappendfsync ${fsync}\n`;
}

function restart(live: PersistLive, conf: string): void {
  const { world, node } = live;
  const p = live.persist;
  serverRestart(world, node, conf);
  world.runUntilIdle();
  live.controlConn = p.controlConn = world.openConn(node);
  live.controlDb = 0;
  const rows = readBack(live);
  const log = serverLogRead(world, node, p.logSeq);
  p.logSeq = log.last;
  if (p.crash) {
    const dbsize = reply(live, ['DBSIZE']);
    rows.sort((a, b) => Number(a.outcome === 'kept') - Number(b.outcome === 'kept') || b.t - a.t);
    p.report = {
      crash: p.crash, restartedAt: world.now(), rows, keys: rows.length,
      kept: rows.filter((r) => r.outcome === 'kept').length,
      lost: rows.filter((r) => r.outcome !== 'kept').length,
      followed: rows.reduce((n, r) => n + r.count, 0),
      carried: rows.filter((r) => r.count === 0).length,
      dbsize: dbsize && dbsize.type === 'int' ? Number(dbsize.value) : 0,
      log: lastStart(log.text),
    };
  }
  // From now on the ledger holds what this process has.
  const ledger = new Map<string, AckedWrite>();
  for (const r of rows) {
    if (r.found === null) continue;
    ledger.set(`${r.db}\0${r.key}`, { db: r.db, key: r.key, value: r.found, t: r.t, command: r.command, count: 0 });
  }
  p.ledger = ledger;
  p.writes = 0;
  p.untracked = 0;
}

/** The log lines from the last "Redis is starting". */
function lastStart(text: string): string {
  const lines = text.split('\n');
  let from = 0;
  lines.forEach((l, i) => {
    if (l.includes('Redis is starting')) from = i;
  });
  return lines.slice(from).join('\n').trim();
}

function reply(live: PersistLive, args: string[]): Reply | null {
  const r = parseReply(exchange(live.world, live.controlConn, encodeRequest(args), 1), 0);
  return r ? r.reply : null;
}

function selectControl(live: PersistLive, db: number): void {
  if (live.controlDb === db) return;
  reply(live, ['SELECT', String(db)]);
  live.controlDb = db;
}

/** GETs sent in one pipeline when reading the ledger back. */
const READ_BATCH = 512;

/** Reads every ledger key back from the restarted server, GETs pipelined
 *  a batch at a time (tens of thousands of keys after a workload). */
function readBack(live: PersistLive): RecoveryRow[] {
  const rows: RecoveryRow[] = [];
  const writes = [...live.persist.ledger.values()].sort((a, b) => a.db - b.db || a.t - b.t);
  for (let i = 0; i < writes.length;) {
    const db = writes[i].db;
    selectControl(live, db);
    const batch: AckedWrite[] = [];
    for (; i < writes.length && writes[i].db === db && batch.length < READ_BATCH; i++) batch.push(writes[i]);
    const bytes = exchange(live.world, live.controlConn,
      concat(batch.map((w) => encodeRequest(['GET', w.key]))), batch.length);
    let at = 0;
    for (const w of batch) {
      const r = parseReply(bytes, at);
      if (r) at = r.end;
      const got = r ? r.reply : null;
      let found: string | null = null;
      if (got && got.type === 'bulk' && got.value) found = decoder.decode(got.value);
      else if (got && got.type === 'error') found = `(${got.value.split(' ')[0]})`;
      let outcome: RecoveryRow['outcome'] = 'kept';
      if (found !== w.value) outcome = found === null || w.value === null ? 'lost' : 'older';
      rows.push({ ...w, found, outcome });
    }
  }
  selectControl(live, 0);
  return rows;
}

/** The console while the server is down: redis-cli cannot connect. */
export function consoleWhileDown(live: PersistLive, text: string): ConsoleEntry[] | null {
  if (isUp(live)) return null;
  const out: ConsoleEntry[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    out.push(live.console.note('console', line, { prompt: 'not connected>', output: REFUSED, status: 'error' }));
  }
  return out;
}

// ---- The ledger of acknowledged writes. ----

const INCRS = new Set(['incr', 'decr', 'incrby', 'decrby', 'incrbyfloat']);

function dbOfPrompt(prompt: string): number {
  const m = /\[(\d+)\]>$/.exec(prompt);
  return m ? Number(m[1]) : 0;
}

/** Records the writes of console entries whose replies said they were
 *  done. Only replies are read: SET/SETEX/PSETEX/MSET answered OK, the
 *  INCR family's new value, DEL/UNLINK, FLUSHDB/FLUSHALL. */
export function recordAcks(live: PersistLive, entries: readonly ConsoleEntry[]): void {
  const p = live.persist;
  const t = live.world.now();
  for (const e of entries) {
    if (e.source !== 'console' || e.status !== 'ok' || e.reply === undefined) continue;
    const line = live.gk.cliLine(e.input);
    const args = line && line.argc > 0 ? parseRequest(line.resp) : null;
    if (!args || !args.length) continue;
    const argv = args.map((a) => decoder.decode(a));
    const cmd = argv[0].toLowerCase();
    const db = dbOfPrompt(e.prompt);
    const command = argv.join(' ');
    const put = (key: string, value: string | null) => ack(p, db, key, value, t, command);
    if (cmd === 'set' && argv.length >= 3 && e.reply === 'OK') put(argv[1], argv[2]);
    else if ((cmd === 'setex' || cmd === 'psetex') && argv.length === 4 && e.reply === 'OK') put(argv[1], argv[3]);
    else if (cmd === 'mset' && e.reply === 'OK') for (let i = 1; i + 1 < argv.length; i += 2) put(argv[i], argv[i + 1]);
    else if (INCRS.has(cmd) && argv.length >= 2 && typeof e.reply !== 'object') put(argv[1], String(e.reply));
    else if ((cmd === 'del' || cmd === 'unlink') && typeof e.reply === 'number') {
      for (const k of argv.slice(1)) put(k, null);
    } else if (cmd === 'flushall' || (cmd === 'flushdb' && e.reply === 'OK')) {
      for (const w of [...p.ledger.values()]) if (cmd === 'flushall' || w.db === db) put(w.key, null);
    }
  }
}

/** Records one acknowledged write: the key's latest value and how many
 *  writes it was told succeeded. The key moves to the end of the ledger
 *  (Map order); when full, the key acknowledged longest ago is dropped
 *  and its writes counted as untracked. A new object each time, so
 *  checkpoints can share the ledger's entries. */
function ack(p: PersistState, db: number, key: string, value: string | null, t: number, command: string): void {
  p.writes++;
  const id = `${db}\0${key}`;
  const prev = p.ledger.get(id);
  if (prev) {
    p.ledger.delete(id);
  } else if (p.ledger.size >= LEDGER_MAX) {
    const [oldest, w] = p.ledger.entries().next().value!;
    p.ledger.delete(oldest);
    p.untracked += w.count;
  }
  p.ledger.set(id, { db, key, value, t, command, count: (prev ? prev.count : 0) + 1 });
}

/** Records one write acknowledged to one of the page's own connections
 *  (a button's), as the console's are. */
export function recordAck(live: PersistLive, db: number, key: string, value: string | null, command: string): void {
  ack(live.persist, db, key, value, live.world.now(), `${command} ${key}`);
}

/** SET values of a client program: `n` times "x", as redis-benchmark
 *  writes them (one string per length). */
const xs = new Map<number, string>();
function valueOfLength(n: number): string {
  let v = xs.get(n);
  if (v === undefined) xs.set(n, (v = 'x'.repeat(n)));
  return v;
}

/** Reads the trace as the session drains it: the writes the client
 *  programs were told succeeded (GK_TR_ACK records: key:N in db 0; d is
 *  INCR's reply or the length of SET's value), and the moment an armed
 *  crash happened (a CRASH record at a chosen point). */
export function observePersist(live: PersistLive, records: readonly TraceRecord[]): void {
  const p = live.persist;
  for (const r of records) {
    const { type } = r;
    if (p.armed && r.node === live.node) {
      if (type === TraceType.CMD) p.armed.commands++;
      else if (type === TraceType.AOF && r.a === AofEvent.FEED) p.armed.buf = r.d;
      else if (type === TraceType.AOF && r.a === AofEvent.WRITE) p.armed.buf = 0;
      else if (type === TraceType.CRASH && r.b === 1 && r.a !== CrashEvent.RESTART) {
        armedCrashed(live, r.time, r.c);
        continue;
      }
    }
    if (type !== TraceType.ACK) continue;
    const set = r.c === AckKind.SET;
    // d is signed (INCR's value may be negative); past 2^53 a double
    // rounds it, as any counter that large would be in the page.
    const value = set ? valueOfLength(r.d) : String(r.d);
    const key = `key:${r.a}`;
    ack(p, 0, key, value, r.time, set ? `SET ${key} ${value.length > 16 ? `(${value.length} bytes)` : value}`
      : `INCR ${key}`);
  }
}

// ---- The AOF view. ----

const MAIN_LANE = 0;
const BIO_LANE: Record<number, number> = {
  [BioType.CLOSE_FILE]: 1, [BioType.AOF_FSYNC]: 2, [BioType.LAZY_FREE]: 3,
};

/** The server's trace records still in the engine's ring, since its
 *  process last started, oldest first. */
function recentRecords(world: World, node: number): TraceRecord[] {
  const last = world.traceLastSeq();
  const batch = world.traceRead(Math.max(0, last - VIEW_RECORDS), VIEW_RECORDS);
  const out: TraceRecord[] = [];
  for (const r of batch.records) {
    if (r.node !== node) continue;
    if (r.type === TraceType.CRASH && r.a === CrashEvent.RESTART) out.length = 0;
    out.push(r);
  }
  return out;
}

/** fed/written/acked/buf/durable over the records, anchored at `now`'s
 *  values: sums of what each record added, taken back from today's. */
function seriesOf(recs: TraceRecord[], now: number, anchor: { fed: number; written: number; acked: number;
  durable: number; buf: number }, incr: { inode: number; size: number } | null): AofSeries {
  let fedAdded = 0;
  let writtenAdded = 0;
  for (const r of recs) {
    if (r.type !== TraceType.AOF) continue;
    if (r.a === AofEvent.FEED) fedAdded += r.c;
    else if (r.a === AofEvent.WRITE || (r.a === AofEvent.WRITE_ERR && r.c > 0)) writtenAdded += r.c;
  }
  let fed = anchor.fed - fedAdded;
  let written = anchor.written - writtenAdded;
  let incrSize = incr ? incr.size - writtenAdded : NaN;
  let acked = NaN;
  let durable = NaN;
  let buf = NaN;
  const s: AofSeries = { t: [], fed: [], written: [], acked: [], durable: [], buf: [] };
  const push = (t: number) => {
    s.t.push(t);
    s.fed.push(fed);
    s.written.push(written);
    s.acked.push(acked);
    s.durable.push(durable);
    s.buf.push(buf);
  };
  for (const r of recs) {
    if (r.type === TraceType.AOF && r.a === AofEvent.FEED) {
      fed += r.c;
      buf = r.d;
    } else if (r.type === TraceType.AOF && (r.a === AofEvent.WRITE || r.a === AofEvent.WRITE_ERR)) {
      written += r.c;
      incrSize += r.c;
      buf = r.a === AofEvent.WRITE ? 0 : r.d;
    } else if (r.type === TraceType.AOF && r.a === AofEvent.FSYNC) {
      durable = written;
    } else if (r.type === TraceType.LOOP && r.a === 2) {
      acked = fed;
    } else if (r.type === TraceType.DISK && incr && r.b === incr.inode &&
      (r.a === DiskEvent.SYNCED || r.a === DiskEvent.WRITTEN_BACK)) {
      durable = written - Math.max(0, incrSize - r.d);
    } else {
      continue;
    }
    push(r.time);
  }
  fed = anchor.fed;
  written = anchor.written;
  acked = anchor.acked;
  durable = anchor.durable;
  buf = anchor.buf;
  // A host's clock runs ahead of the world's while it works, so its last
  // records may be stamped after the world's now.
  push(Math.max(now, s.t.length ? s.t[s.t.length - 1] : now));
  return s;
}

function jobsOf(recs: TraceRecord[], now: number): { jobs: LaneJob[]; flushes: number[] } {
  const jobs: LaneJob[] = [];
  const flushes: number[] = [];
  const open: Record<number, number> = {};
  let iter = NaN;
  for (const r of recs) {
    if (r.type === TraceType.BIO) {
      const lane = BIO_LANE[r.a];
      if (lane === undefined) continue;
      if (r.b === JobEvent.START) open[lane] = r.time;
      else if (r.b === JobEvent.DONE && open[lane] !== undefined) {
        jobs.push({ lane, t0: open[lane], t1: r.time });
        delete open[lane];
      }
    } else if (r.type === TraceType.LOOP) {
      if (r.a === 0) iter = r.time;
      else if (r.a === 1) flushes.push(r.time);
      else if (r.a === 2 && iter === iter) {
        jobs.push({ lane: MAIN_LANE, t0: iter, t1: r.time });
        iter = NaN;
      }
    }
  }
  for (const [lane, t0] of Object.entries(open)) jobs.push({ lane: Number(lane), t0, t1: now });
  return { jobs, flushes };
}

/** The commands in a tail of the incr file, each with its stage. */
export function commandsOf(bytes: Uint8Array, from: number, durable: number): AofCommand[] {
  const out: AofCommand[] = [];
  let at = 0;
  // The tail may start inside a command: skip to the first "*" at a line start.
  if (from > 0) {
    for (at = 0; at < bytes.length; at++) {
      if (bytes[at] === 42 && at > 0 && bytes[at - 1] === 10) break;
    }
  }
  while (at < bytes.length) {
    let r;
    try {
      r = parseReply(bytes, at);
    } catch {
      break;
    }
    if (!r) break;
    const argv = r.reply.type === 'array' && r.reply.value
      ? r.reply.value.map((x) => (x.type === 'bulk' && x.value ? decoder.decode(x.value) : ''))
      : [];
    const start = from + at;
    const end = from + r.end;
    out.push({ start, end, argv, stage: end <= durable ? 'durable' : 'written' });
    at = r.end;
  }
  return out;
}

function fileView(world: World, node: number, path: string): AofFileView | null {
  const info = diskFileInfo(world, node, path);
  if (!info) return null;
  const from = Math.max(0, info.size - FILE_TAIL);
  const all = diskReadFile(world, node, path, false, info.size);
  if (!all) return null;
  const bytes = all.bytes.subarray(from);
  return {
    path, size: info.size, durable: info.durable, dirty: info.dirty, from,
    text: decoder.decode(bytes), commands: commandsOf(bytes, from, info.durable),
  };
}

/** Everything the AOF panel shows, read from the engine now. */
export function aofView(live: PersistLive): AofView {
  const { world, node } = live;
  const p = live.persist;
  const recsNow = isUp(live) ? recentRecords(world, node) : [];
  const now = Math.max(world.now(), recsNow.length ? recsNow[recsNow.length - 1].time : 0);
  const base = {
    now, crash: p.crash, acked: p.ledger.size, writes: p.writes, readOnly: p.readOnly,
    armed: p.armed && { point: p.armed.point, mode: p.armed.mode },
    report: p.report && p.report.rows.length > REPORT_ROWS
      ? { ...p.report, rows: p.report.rows.slice(0, REPORT_ROWS) } : p.report,
    series: { t: [], fed: [], written: [], acked: [], durable: [], buf: [] }, jobs: [], flushes: [], t0: now,
  };
  const disk = diskInfo(world, node);
  if (!isUp(live)) {
    return { ...base, up: false, appendonly: false, info: null, threads: [], disk, file: null };
  }
  const appendonly = world.serverConfigGet(node, 'appendonly') === 'yes';
  const threads = serverThreads(world, node);
  const recs = recsNow;
  const { jobs, flushes } = jobsOf(recs, now);
  const t0 = recs.length ? recs[0].time : now;
  const info = aofInfo(world, node);
  const i = info;
  const path = i.incrFile ? `appendonlydir/${i.incrFile}` : '';
  const file = path ? fileView(world, node, path) : null;
  const fi = path ? diskFileInfo(world, node, path) : null;
  const series = i.state === 0 ? base.series : seriesOf(recs, now,
    { fed: i.fed, written: i.written, acked: i.acked, durable: i.durable, buf: i.bufferLength },
    fi ? { inode: fi.inode, size: fi.size } : null);
  return { ...base, up: true, appendonly, info, threads, disk, file, series, jobs, flushes, t0 };
}
