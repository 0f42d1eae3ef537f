// Typed wrappers over the engine's persistence API (glasskv.h: the AOF,
// the simulated disk, the server's threads, crashes and restarts), for a
// World of wasm/engine.ts. Like engine.ts it knows nothing of workers or
// the page; failing statuses become GkError with the engine's message.
//
//   aofInfo(world, node)                      // gkAofGetInfo
//   aofHistory(world, node)                   // gkAofHistory: offsets over time
//   serverCrash(world, node, CrashKind.POWER) // pull the plug
//   serverRestart(world, node, 'appendonly yes\n')
//   diskReadFile(world, node, 'appendonlydir/appendonly.aof.1.incr.aof')
//   serverRecoveryInfo(world, node)           // the last recovery report
import type { World } from './engine';
import {
  AofInfoBytes, AofLimit, AofSampleBytes, CrashEvent, DiskFileBytes, DiskInfoBytes, RecoveryInfoBytes,
  RecoveryRowBytes, Status, ThreadInfoBytes, readAofInfo, readAofSample, readDiskFile, readDiskInfo,
  readRecoveryInfo, readRecoveryRow, readThreadInfo, type AofInfo as AofInfoC, type AofSample, type DiskFile,
  type DiskInfo, type RecoveryInfo, type RecoveryRow, type ThreadInfo,
} from '../web/src/wasm-gen/seam';

export {
  AckKind, AofEvent, BioType, CrashAt, CrashEvent, DiskEvent, JobEvent, RecoveryLimit, RecoveryOutcome,
} from '../web/src/wasm-gen/seam';
export type { AofSample, DiskInfo, RecoveryInfo, RecoveryRow, ThreadInfo };
/** One file of the disk (gkDiskFile). */
export type DiskFileInfo = DiskFile;

/** gkServerCrash kinds: a process crash (kill -9) or a power loss. */
export const CrashKind = { PROCESS: CrashEvent.PROCESS, POWER: CrashEvent.POWER } as const;

/** appendfsync as gkAofInfo.fsync numbers it. */
export const FSYNC_NAMES = ['no', 'always', 'everysec'] as const;
export type FsyncPolicy = (typeof FSYNC_NAMES)[number];

/** gkAofInfo, with appendfsync by name and the two write statuses as
 *  flags. */
export type AofInfo = Omit<AofInfoC, 'fsync'> & { fsync: FsyncPolicy; lastWriteOk: boolean; bioFsyncOk: boolean };

/** Threads gkServerThreads reports at most (main, three bio threads, the
 *  rewrite child, with room to spare). */
const THREADS_MAX = 8;

const decoder = new TextDecoder();

/** Calls fn with a scratch block of `bytes` bytes in the module's heap. */
function withBlock<T>(world: World, bytes: number, fn: (p: number) => T): T {
  return world.engine.guard(() => world.engine.withBlock(bytes, fn));
}

export function aofInfo(world: World, node: number): AofInfo {
  const gk = world.engine;
  const raw = withBlock(world, AofInfoBytes, (p) => {
    world.checkStatus(gk.module._gkAofGetInfo(world.handle, node, p));
    return readAofInfo(gk.view(), p);
  });
  return {
    ...raw, fsync: FSYNC_NAMES[raw.fsync] ?? 'everysec', lastWriteOk: raw.lastWriteStatus === 0,
    bioFsyncOk: raw.bioFsyncStatus === 0,
  };
}

/** The AOF stream's offsets over the process's life, oldest first
 *  (gkAofHistory): at most GK_AOF_HISTORY_MAX samples, the older ones
 *  further apart. */
export function aofHistory(world: World, node: number): AofSample[] {
  return readRows(world, AofLimit.HISTORY_MAX, AofSampleBytes, readAofSample,
    (p, max, nAt) => world.engine.module._gkAofHistory(world.handle, node, p, max, nAt));
}

/** Rows of size bytes that call writes at p (at most max, their number at
 *  nAt), read back with read. */
function readRows<T>(world: World, max: number, size: number, read: (v: DataView, p: number) => T,
  call: (p: number, max: number, nAt: number) => number): T[] {
  const gk = world.engine;
  return withBlock(world, max * size + 4, (p) => {
    const nAt = p + max * size;
    world.checkStatus(call(p, max, nAt));
    const n = Math.min(gk.i32(nAt), max);
    const v = gk.view();
    return Array.from({ length: n }, (_, i) => read(v, p + i * size));
  });
}

export function serverThreads(world: World, node: number): ThreadInfo[] {
  return readRows(world, THREADS_MAX, ThreadInfoBytes, readThreadInfo,
    (p, max, nAt) => world.engine.module._gkServerThreads(world.handle, node, p, max, nAt));
}

export function diskInfo(world: World, node: number): DiskInfo {
  const gk = world.engine;
  return withBlock(world, DiskInfoBytes, (p) => {
    world.checkStatus(gk.module._gkDiskGetInfo(world.handle, node, p));
    return readDiskInfo(gk.view(), p);
  });
}

/** One file of the node's disk, or null if it does not exist. */
export function diskFileInfo(world: World, node: number, path: string): DiskFileInfo | null {
  const gk = world.engine;
  return withBlock(world, DiskFileBytes, (p) => gk.withString(path, (name) => {
    const status = gk.module._gkDiskFileInfo(world.handle, node, name, p);
    if (status === Status.ENOTFOUND) return null;
    world.checkStatus(status);
    return readDiskFile(gk.view(), p);
  }));
}

/** The names in a directory of the node's disk ("" is the working one);
 *  null if there is no such directory. */
export function diskList(world: World, node: number, dir: string): string[] | null {
  const gk = world.engine;
  const cap = 64 * 1024;
  return withBlock(world, cap, (p) => gk.withString(dir, (d) => {
    const s = gk.scratchPtr;
    const status = gk.module._gkDiskList(world.handle, node, d, p, cap, s);
    if (status === Status.ENOTFOUND) return null;
    world.checkStatus(status);
    const text = decoder.decode(gk.bytes(p, gk.u32(s)));
    return text.split('\0').filter((x) => x.length > 0);
  }));
}

/** A file's bytes as the page cache has them (durable: as the device
 *  does), at most `max` of them from the start, and its full size; null
 *  if it does not exist. */
export function diskReadFile(world: World, node: number, path: string, durable = false,
  max = 1 << 20): { bytes: Uint8Array; size: number } | null {
  const gk = world.engine;
  return withBlock(world, max + 8, (p) => gk.withString(path, (name) => {
    const sizeAt = p + max;
    const status = gk.module._gkDiskReadFile(world.handle, node, name, durable ? 1 : 0, p, max, sizeAt);
    if (status === Status.ENOTFOUND) return null;
    world.checkStatus(status);
    const size = gk.u32(sizeAt);
    return { bytes: gk.bytes(p, Math.min(size, max)), size };
  }));
}

/** Switches the node's disk to a preset ("nvme", "ssd", "hdd", "slow-fsync"). */
export function diskSetPreset(world: World, node: number, name: string): void {
  const gk = world.engine;
  gk.guard(() => gk.withString(name, (n) => world.checkStatus(gk.module._gkDiskSetPreset(world.handle, node, n))));
}

/** The disk presets the engine knows, in its order. */
export function diskPresets(world: World): string[] {
  const gk = world.engine;
  return gk.guard(() => {
    const out: string[] = [];
    for (let i = 0; i < 32; i++) {
      const p = gk.module._gkDiskPresetName(i);
      if (!p) break;
      out.push(gk.cstring(p));
    }
    return out;
  });
}

/** Leaves exactly `bytes` free on the node's disk. */
export function diskSetFree(world: World, node: number, bytes: number): void {
  const gk = world.engine;
  gk.guard(() => world.checkStatus(gk.module._gkwDiskSetFree(world.handle, node, bytes)));
}

export function diskSetReadOnly(world: World, node: number, dir: string, readonly: boolean): void {
  const gk = world.engine;
  gk.guard(() => gk.withString(dir, (d) =>
    world.checkStatus(gk.module._gkDiskSetReadOnly(world.handle, node, d, readonly ? 1 : 0))));
}

/** Whether a directory of the node's disk is read-only. */
export function diskIsReadOnly(world: World, node: number, dir: string): boolean {
  const gk = world.engine;
  return gk.guard(() => gk.withString(dir, (d) =>
    world.checkStatus(gk.module._gkDiskIsReadOnly(world.handle, node, d)))) === 1;
}

/** Kills the node's process now (PROCESS, kill -9) or cuts the machine's
 *  power (POWER). */
export function serverCrash(world: World, node: number, kind: number): void {
  const gk = world.engine;
  gk.guard(() => world.checkStatus(gk.module._gkServerCrash(world.handle, node, kind)));
}

/** Schedules a crash (gkServerCrashAt; flags GK_CRASH_AT_*). */
export function serverCrashAt(world: World, node: number, at: number, kind: number, flags = 0): void {
  const gk = world.engine;
  gk.guard(() => world.checkStatus(gk.module._gkwServerCrashAt(world.handle, node, at, kind, flags)));
}

/** Arms a crash right after the node's next trace record of this type,
 *  a and b (-1: any), written from now on; with CrashAt.BEFORE_SLEEP, at
 *  the first beforeSleep after it (gkServerCrashAtEvent). */
export function serverCrashAtEvent(world: World, node: number, kind: number, type: number, a: number,
  b = -1, flags = 0): void {
  const gk = world.engine;
  gk.guard(() => world.checkStatus(gk.module._gkwServerCrashAtEvent(world.handle, node, kind, type, a, b, flags)));
}

/** Starts a new process on a node that is down; conf in redis.conf syntax
 *  (null: the configuration the node was created with). */
export function serverRestart(world: World, node: number, conf: string | null): void {
  const gk = world.engine;
  gk.guard(() => {
    if (conf === null) return world.checkStatus(gk.module._gkServerRestart(world.handle, node, 0));
    return gk.withString(conf, (c) => world.checkStatus(gk.module._gkServerRestart(world.handle, node, c)));
  });
}

export function serverIsUp(world: World, node: number): boolean {
  const gk = world.engine;
  return gk.guard(() => world.checkStatus(gk.module._gkServerIsUp(world.handle, node))) === 1;
}

/** The number of the server log's newest line (0: none). */
export function serverLogLast(world: World, node: number): number {
  return world.engine.guard(() => world.engine.module._gkwServerLogLast(world.handle, node));
}

/** The server log's lines newer than `after`, and the last one's number. */
export function serverLogRead(world: World, node: number, after = 0): { text: string; last: number } {
  const gk = world.engine;
  const cap = 256 * 1024;
  return withBlock(world, cap + 8, (p) => {
    const n = gk.module._gkwServerLogRead(world.handle, node, after, p, cap, p + cap);
    return { text: decoder.decode(gk.bytes(p, n >>> 0)), last: gk.u64(p + cap) };
  });
}

// ---- The recovery ledger and its report (gkServerRecovery*). ----

/** Whether the node keeps a ledger of the writes it acknowledged, from now
 *  on and in every process it starts (its next restart is then compared
 *  with what it acknowledged). */
export function serverRecoveryFollow(world: World, node: number, on: boolean): void {
  const gk = world.engine;
  gk.guard(() => world.checkStatus(gk.module._gkServerRecoveryFollow(world.handle, node, on ? 1 : 0)));
}

/** The node's last recovery report (ready false if none yet) and its
 *  ledger's live counts. */
export function serverRecoveryInfo(world: World, node: number): RecoveryInfo {
  const gk = world.engine;
  return withBlock(world, RecoveryInfoBytes, (p) => {
    world.checkStatus(gk.module._gkServerRecoveryInfo(world.handle, node, p));
    return readRecoveryInfo(gk.view(), p);
  });
}

/** Rows first .. first+max-1 of the node's last report, the most telling
 *  first (lost and older, then newer, then kept; the latest first). */
export function serverRecoveryRows(world: World, node: number, first: number, max: number): RecoveryRow[] {
  const gk = world.engine;
  if (max <= 0) return [];
  return withBlock(world, max * RecoveryRowBytes + 4, (p) => {
    const nAt = p + max * RecoveryRowBytes;
    world.checkStatus(gk.module._gkServerRecoveryRows(world.handle, node, first, p, max, nAt));
    const n = Math.min(gk.u32(nAt), max);
    const v = gk.view();
    return Array.from({ length: n }, (_, i) => readRecoveryRow(v, p + i * RecoveryRowBytes));
  });
}
