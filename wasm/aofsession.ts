// The session's persistence side: the actions that act on the server's
// machine (disk preset, free space, crash, restart), the recovery report
// after a restart, and the AOF view.
//
// The report is the engine's: the server node keeps a ledger of the
// writes its process acknowledged (gkServerRecoveryFollow, turned on when
// the session's node is made), and its restart compares them, key by key,
// with what the new process loaded (gkServerRecoveryInfo/Rows). This
// module only copies the report out for the view, with what the page saw
// of the crash itself (its mode, the point it was armed for, the AOF's
// offsets at that instant).
import { GkError, type Glasskv, type World } from './engine';
import type { ConsoleRunner } from './consolerun';
import { parseReply } from './resp';
import {
  AofEvent, BioType, CrashEvent, CrashKind, DiskEvent, FSYNC_NAMES, JobEvent, RecoveryLimit, RecoveryOutcome, aofInfo,
  aofHistory, CrashAt, diskFileInfo, diskInfo, diskReadFile, diskIsReadOnly, diskSetFree, diskSetPreset, diskSetReadOnly, serverCrash,
  serverCrashAtEvent, serverIsUp, serverLogRead, serverRecoveryFollow, serverRecoveryInfo, serverRecoveryRows,
  serverRestart, serverThreads, type AofSample, type RecoveryRow as EngineRow, type ThreadInfo,
} from './aof';
import { TraceType, type TraceRecord } from './engine';
import {
  CRASH_POINTS, DISK_PRESETS, type CrashMode, type CrashPoint, type AofCommand, type AofFileView, type AofSeries, type AofView, type CrashRecord,
  type LaneJob, type PersistAction, type RecoveryOutcomeName, type RecoveryReport, type RecoveryRow,
} from './aofprotocol';
import type { Action, ConsoleEntry } from './protocol';

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
  /** The configuration file of the next restart. */
  conf: string | null;
  crash: CrashRecord | null;
  report: RecoveryReport | null;
  /** A crash armed, with the configuration in force when it was, and
   *  what the trace showed since: commands run, aof_buf's length. */
  armed: {
    point: CrashPoint; mode: CrashMode; appendonly: boolean; fsync: string; commands: number; buf: number;
  } | null;
  /** Log lines already shown in a report. */
  logSeq: number;
}

/** The parts of the session's live world this module uses. */
export interface PersistLive {
  gk: Glasskv;
  world: World;
  node: number;
  console: ConsoleRunner;
  persist: PersistState;
}

/** The persistence state of a new session, whose server node keeps a
 *  ledger of the writes it acknowledges from the start. */
export function newPersistState(world: World, node: number): PersistState {
  serverRecoveryFollow(world, node, true);
  return { conf: null, crash: null, report: null, armed: null, logSeq: 0 };
}

export function copyPersistState(s: PersistState): PersistState {
  return { ...s, armed: s.armed && { ...s.armed } };
}

/** Puts a checkpointed state back. */
export function loadPersistState(live: PersistLive, s: PersistState): void {
  live.persist = copyPersistState(s);
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
/** Checks that port, if given, is a port a server of the world listens
 *  on (an action for that server). */
export function checkListening(world: World, port: number | undefined): void {
  if (port === undefined) return;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError('port must be an integer in [1, 65535]');
  if (world.serverOnPort(port) < 0) throw new RangeError(`no server listens on port ${port}`);
}

export function completePersist(live: PersistLive, a: Action): Action | null {
  const up = isUp(live);
  if (!up && !WHILE_DOWN.has(a.kind)) throw new RangeError('the server is down: restart it first');
  if (!isPersistAction(a)) return null;
  if (a.kind === 'disk' || a.kind === 'diskFree' || a.kind === 'diskReadOnly') checkListening(live.world, a.port);
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
  const { world } = live;
  // The disk actions may name another server by its port (checked when
  // the action was taken); the crash actions are the first server's.
  const port = 'port' in a && a.port !== undefined ? a.port : null;
  const node = port === null ? live.node : world.serverOnPort(port);
  const on = port === null ? '' : ` (:${port})`;
  switch (a.kind) {
    case 'disk':
      diskSetPreset(world, node, a.preset);
      return [live.console.note('persist', `disk preset ${a.preset}${on}`, {})];
    case 'diskFree':
      diskSetFree(world, node, a.bytes);
      return [live.console.note('persist', `disk free ${a.bytes} bytes${on}`, {})];
    case 'diskReadOnly': {
      diskSetReadOnly(world, node, a.dir, a.readonly);
      return [live.console.note('persist', `chmod ${a.readonly ? 'a-w' : 'u+w'} ${a.dir || '.'}${on}`, {})];
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
  const dead = serverRecoveryInfo(live.world, live.node);
  p.crash = {
    t, mode: a.mode, point: a.point, appendonly, fsync, aof: null, acked: dead.keysNow, writes: dead.ackedNow,
    sinceArmed: { commands: a.commands, buf: a.buf },
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
  const dead = serverRecoveryInfo(world, node);
  p.armed = null;
  p.crash = {
    t: world.now(), mode, point: null, sinceArmed: null, appendonly, fsync, aof, acked: dead.keysNow,
    writes: dead.ackedNow,
  };
  p.report = null;
  p.conf = `appendonly ${appendonly ? 'yes' : 'no'}\nappendfsync ${fsync}\n`;
}

function restart(live: PersistLive, conf: string): void {
  const { world, node } = live;
  const p = live.persist;
  serverRestart(world, node, conf);
  world.runUntilIdle();
  world.setSession({ controlConn: world.openConn(node), controlDb: 0 });
  const log = serverLogRead(world, node, p.logSeq);
  p.logSeq = log.last;
  const info = serverRecoveryInfo(world, node);
  if (p.crash && info.ready) {
    p.report = {
      crash: p.crash, restartedAt: world.now(),
      rows: serverRecoveryRows(world, node, 0, RecoveryLimit.ROWS_MAX).map(rowOf),
      keys: info.keys, kept: info.kept, newer: info.newer, lost: info.lost + info.older, older: info.older, followed: info.followed,
      carried: info.carried, dbsize: info.dbsize, writes: info.writes, unacked: info.unacked, stopped: info.stopped,
      log: lastStart(log.text),
    };
  }
}

const OUTCOME_NAMES: Record<number, RecoveryOutcomeName> = {
  [RecoveryOutcome.KEPT]: 'kept', [RecoveryOutcome.NEWER]: 'newer', [RecoveryOutcome.LOST]: 'lost',
  [RecoveryOutcome.OLDER]: 'older',
};

/** A row of the engine's report as the view draws it. */
function rowOf(r: EngineRow): RecoveryRow {
  return {
    db: r.db, key: r.key, value: r.ackedPresent ? r.acked : null, found: r.foundPresent ? r.found : null,
    outcome: OUTCOME_NAMES[r.outcome] ?? 'lost', t: r.ackedAt, command: r.command, count: r.writes,
    ackedExpire: r.ackedExpire >= 0 ? r.ackedExpire : null, foundExpire: r.foundExpire >= 0 ? r.foundExpire : null,
  };
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

/** The console while the server is down: redis-cli cannot connect. */
export function consoleWhileDown(live: PersistLive, text: string): ConsoleEntry[] | null {
  if (isUp(live) || live.console.elsewhere) return null;
  const out: ConsoleEntry[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    out.push(live.console.note('console', line, { prompt: 'not connected>', output: REFUSED, status: 'error' }));
  }
  return out;
}

/** Reads the trace as the session drains it, while a crash is armed:
 *  what the server did since the arming, and the moment the crash
 *  happened (a CRASH record at a chosen point). */
export function observePersist(live: PersistLive, records: readonly TraceRecord[]): void {
  const p = live.persist;
  for (const r of records) {
    if (!p.armed || r.node !== live.node) continue;
    const { type } = r;
    if (type === TraceType.CMD) p.armed.commands++;
    else if (type === TraceType.AOF && r.a === AofEvent.FEED) p.armed.buf = r.d;
    else if (type === TraceType.AOF && r.a === AofEvent.WRITE) p.armed.buf = 0;
    else if (type === TraceType.CRASH && r.b === 1 && r.a !== CrashEvent.RESTART) armedCrashed(live, r.time, r.c);
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

function jobsOf(recs: TraceRecord[], now: number): LaneJob[] {
  const jobs: LaneJob[] = [];
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
      else if (r.a === 2 && iter === iter) {
        jobs.push({ lane: MAIN_LANE, t0: iter, t1: r.time });
        iter = NaN;
      }
    }
  }
  for (const [lane, t0] of Object.entries(open)) jobs.push({ lane: Number(lane), t0, t1: now });
  return jobs;
}

const LANE_OF_THREAD: Record<string, number> = { bio_close_file: 1, bio_aof_fsync: 2, bio_lazy_free: 3 };

/** The bio jobs running whose start the ring no longer holds: client
 *  programs fill it within milliseconds, and a lazy free can last a
 *  quarter of a second. Each is drawn from its start as the thread
 *  reports it (gkServerThreads). */
function runningUnseen(threads: readonly ThreadInfo[], jobs: readonly LaneJob[], now: number): LaneJob[] {
  const out: LaneJob[] = [];
  for (const th of threads) {
    const lane = LANE_OF_THREAD[th.name];
    if (lane === undefined || !th.busy || jobs.some((j) => j.lane === lane && j.t1 >= now)) continue;
    out.push({ lane, t0: th.busySince, t1: now });
  }
  return out;
}

/** The series over the process's whole life: the engine's history of
 *  the offsets (gkAofHistory, coarser the older it is) up to t0, where the
 *  trace records read back begin, then the series the records give, in
 *  full detail. A history sample may hold offsets reached a little after
 *  its time (aofhist.h), so none is let past what the records show from
 *  t0 on; offsets the records do not reach back to (acknowledged and
 *  durable before their first event) are the history's last. */
export function withHistory(hist: readonly AofSample[], s: AofSeries, t0: number): AofSeries {
  const old = hist.filter((h) => h.time < t0);
  if (!old.length || !s.t.length) return s;
  const firstKnown = (v: number[]) => v.find((x) => !Number.isNaN(x)) ?? Infinity;
  const fed = s.fed[0];
  const written = s.written[0];
  const acked = Math.min(fed, firstKnown(s.acked));
  const durable = Math.min(written, firstKnown(s.durable));
  const out: AofSeries = { t: [], fed: [], written: [], acked: [], durable: [], buf: [] };
  for (const h of old) {
    out.t.push(h.time);
    out.fed.push(Math.min(h.fed, fed));
    out.written.push(Math.min(h.written, written));
    out.acked.push(Math.min(h.acked, acked));
    out.durable.push(Math.min(h.durable, durable));
    out.buf.push(NaN);
  }
  const k = out.t.length - 1;
  const known = (v: number, before: number) => (Number.isNaN(v) ? before : v);
  s.t.forEach((t, i) => {
    out.t.push(t);
    out.fed.push(s.fed[i]);
    out.written.push(s.written[i]);
    out.acked.push(known(s.acked[i], out.acked[k]));
    out.durable.push(known(s.durable[i], out.durable[k]));
    out.buf.push(s.buf[i]);
  });
  return out;
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
  const ledger = serverRecoveryInfo(world, node);
  const base = {
    now, crash: p.crash, acked: ledger.keysNow, writes: ledger.ackedNow,
    readOnly: READONLY_DIRS.filter((d) => diskIsReadOnly(world, node, d)),
    armed: p.armed && { point: p.armed.point, mode: p.armed.mode },
    report: p.report && p.report.rows.length > REPORT_ROWS
      ? { ...p.report, rows: p.report.rows.slice(0, REPORT_ROWS) } : p.report,
    series: { t: [], fed: [], written: [], acked: [], durable: [], buf: [] }, jobs: [], t0: now,
  };
  const disk = diskInfo(world, node);
  if (!isUp(live)) {
    return { ...base, up: false, appendonly: false, info: null, threads: [], disk, file: null };
  }
  const appendonly = world.serverConfigGet(node, 'appendonly') === 'yes';
  const threads = serverThreads(world, node);
  const recs = recsNow;
  const jobs = jobsOf(recs, now);
  jobs.push(...runningUnseen(threads, jobs, now));
  const t0 = recs.length ? recs[0].time : now;
  const info = aofInfo(world, node);
  const i = info;
  const path = i.incrFile ? `appendonlydir/${i.incrFile}` : '';
  const file = path ? fileView(world, node, path) : null;
  const fi = path ? diskFileInfo(world, node, path) : null;
  const series = i.state === 0 ? base.series : withHistory(aofHistory(world, node), seriesOf(recs, now,
    { fed: i.fed, written: i.written, acked: i.acked, durable: i.durable, buf: i.bufferLength },
    fi ? { inode: fi.inode, size: fi.size } : null), t0);
  return { ...base, up: true, appendonly, info, threads, disk, file, series, jobs, t0 };
}
