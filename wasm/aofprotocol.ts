// The persistence part of the worker protocol: the actions that change the
// server's machine (its disk, a crash, a restart) and the AOF view the
// worker answers with. Shared by both sides, so it uses neither lib.
import type { AofInfo, DiskInfo, ThreadInfo } from './aof';

/** How the server goes down: kill -9 of the process (the page cache
 *  survives) or a power loss (only bytes on the device survive). */
export type CrashMode = 'process' | 'power';

export type PersistAction =
  /** Switches the server's disk to a preset (gkDiskSetPreset). The disk
   *  actions act on the first server, or on the one listening on `port`. */
  | { kind: 'disk'; preset: string; port?: number }
  /** Leaves exactly `bytes` free on the server's disk (gkDiskSetFree). */
  | { kind: 'diskFree'; bytes: number; port?: number }
  /** Makes a directory of the server's disk read-only or writable again
   *  (gkDiskSetReadOnly; "" is the working directory). */
  | { kind: 'diskReadOnly'; dir: string; readonly: boolean; port?: number }
  /** Arms a crash at a chosen point of what the server does next. */
  | { kind: 'crashAt'; point: CrashPoint; mode: CrashMode }
  /** Kills the server's process or cuts the machine's power now. */
  | { kind: 'crash'; mode: CrashMode }
  /** Starts a new server process, with `conf` as its configuration file
   *  (filled in when logged: appendonly and appendfsync as they were in
   *  force when the server went down). */
  | { kind: 'restart'; conf?: string };

export const DISK_PRESETS = ['nvme', 'ssd', 'hdd', 'slow-fsync'] as const;

/** The labs of the AOF issue (gkLabRun's names), run headless. */
export const AOF_LAB_NAMES = ['aof-not-a-wal', 'fsync-policies', 'disk-full'] as const;
export type AofLabName = (typeof AOF_LAB_NAMES)[number];

/** Where an armed crash stops the process:
 *  - beforeSleep: at the beforeSleep of the next iteration that runs a
 *    command: its commands ran, their AOF flush and their replies never
 *    happen (a GK_TR_CMD record, GK_CRASH_AT_BEFORE_SLEEP);
 *  - afterWrite: right after the next write(2) of aof_buf, before its
 *    fsync (always) and before the replies (GK_AOF_WRITE);
 *  - duringFsync: while the next background fsync runs (everysec: the
 *    bio_aof_fsync job started and not done), noticed at the main
 *    thread's next point (GK_BIO_AOF_FSYNC, GK_JOB_START). */
export const CRASH_POINTS = ['beforeSleep', 'afterWrite', 'duringFsync'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Offsets of the AOF stream over time, from the engine's trace, anchored
 *  at the values gkAofGetInfo reports now. NaN where not known. */
export interface AofSeries {
  t: number[];
  fed: number[];
  written: number[];
  acked: number[];
  durable: number[];
  /** aof_buf length. */
  buf: number[];
}

/** A job on a lane: a bio job (START to DONE) or a main-thread iteration. */
export interface LaneJob {
  lane: number;
  t0: number;
  t1: number;
}

/** One command of the incr file, where it is. */
export interface AofCommand {
  /** Byte offset in the incr file. */
  start: number;
  end: number;
  argv: string[];
  stage: 'durable' | 'written';
}

export interface AofFileView {
  path: string;
  size: number;
  durable: number;
  dirty: number;
  /** The bytes shown (the file's tail), from `from`. */
  from: number;
  text: string;
  commands: AofCommand[];
}

export interface CrashRecord {
  t: number;
  mode: CrashMode;
  /** The chosen point of an armed crash (null: a crash now). */
  point: CrashPoint | null;
  /** For an armed crash, what the trace showed between the arming and
   *  the crash: commands the server ran, aof_buf's length at the end. */
  sinceArmed: { commands: number; buf: number } | null;
  appendonly: boolean;
  fsync: string;
  /** The AOF stream at the instant of the crash (null: AOF off, or an
   *  armed crash, whose instant the page learns afterwards). */
  aof: { fed: number; written: number; acked: number; durable: number; buf: number } | null;
  /** Keys of the acknowledged dataset when the process died (the engine's
   *  ledger, gkRecoveryInfo.keys_now). */
  acked: number;
  /** Write commands the process acknowledged between its start and its
   *  death (gkRecoveryInfo.acked_now). */
  writes: number;
}

/** What the restarted server holds of a key, as the engine compared it:
 *  the acknowledged value (kept), one from later writes no client was
 *  told about that reached the AOF (newer), nothing (lost), or a value
 *  from before the acknowledged write (older). */
export type RecoveryOutcomeName = 'kept' | 'newer' | 'lost' | 'older';

/** One key of the engine's recovery report (gkRecoveryRow). */
export interface RecoveryRow {
  db: number;
  /** The key (its first bytes, escaped, when it is long or binary). */
  key: string;
  /** The acknowledged value as the engine summarizes it (a string as it
   *  is, {a, b} a set, {f: v} a hash, {m: score} a sorted set); null when
   *  the acknowledged dataset does not hold the key. */
  value: string | null;
  /** What the restarted server holds, the same way; null: nothing. */
  found: string | null;
  outcome: RecoveryOutcomeName;
  /** Virtual time of the key's last acknowledged write (0: none since the
   *  process started: the key was carried over). */
  t: number;
  /** That write's command (EXEC for a transaction), '' if none. */
  command: string;
  /** Write commands to the key acknowledged since the process started. */
  count: number;
  /** Expire times, Unix ms, null for none. */
  ackedExpire: number | null;
  foundExpire: number | null;
}

export interface RecoveryReport {
  crash: CrashRecord;
  restartedAt: number;
  /** Keys compared, lost and older first, then newer, then kept, each the
   *  latest acknowledged first. The view carries the first REPORT_ROWS
   *  of them; `keys` counts them all. */
  rows: RecoveryRow[];
  keys: number;
  kept: number;
  /** Keys holding values from writes no client was told about. */
  newer: number;
  /** Keys absent or holding an older value after the restart. */
  lost: number;
  /** Of those, the keys holding an older value (the rest are absent). */
  older: number;
  /** Acknowledged write commands on the keys compared. */
  followed: number;
  /** Keys kept with no acknowledged write since the process started
   *  (carried over from the restart before): count 0. */
  carried: number;
  /** Keys the restarted server has in all. */
  dbsize: number;
  /** Write commands the dead process acknowledged, and ran without ever
   *  acknowledging them. */
  writes: number;
  unacked: number;
  /** The ledger had stopped following (past half the heap limit): the
   *  report has counts of writes but no keys. */
  stopped: boolean;
  /** The server log lines of the restart. */
  log: string;
}

export interface AofView {
  now: number;
  up: boolean;
  appendonly: boolean;
  info: AofInfo | null;
  threads: ThreadInfo[];
  disk: DiskInfo | null;
  file: AofFileView | null;
  series: AofSeries;
  jobs: LaneJob[];
  /** Where the trace records read back begin: the jobs cover from here,
   *  the series in full detail (before it, the engine's coarser history). */
  t0: number;
  crash: CrashRecord | null;
  report: RecoveryReport | null;
  /** A crash armed and not happened yet. */
  armed: { point: CrashPoint; mode: CrashMode } | null;
  /** Directories made read-only. */
  readOnly: string[];
  /** Keys of the acknowledged dataset (the engine's ledger). */
  acked: number;
  /** Write commands acknowledged since the server last started. */
  writes: number;
}
