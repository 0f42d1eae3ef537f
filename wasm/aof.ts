// Typed wrappers over the engine's persistence API (glasskv.h: the AOF,
// the simulated disk, the server's threads, crashes and restarts), for a
// World of wasm/engine.ts. Like engine.ts it knows nothing of workers or
// the page; failing statuses become GkError with the engine's message.
//
//   aofInfo(world, node)                      // gkAofGetInfo
//   serverCrash(world, node, CrashKind.POWER) // pull the plug
//   serverRestart(world, node, 'appendonly yes\n')
//   diskReadFile(world, node, 'appendonlydir/appendonly.aof.1.incr.aof')
import type { World } from './engine';

/** gkServerCrash kinds (GK_CRASH_*). */
export const CrashKind = { PROCESS: 0, POWER: 1 } as const;
/** gkServerCrashAt flags (GK_CRASH_AT_*). */
export const CrashAt = { BEFORE_SLEEP: 1, TRACE: 2 } as const;
/** CRASH trace records also carry RESTART (a new process started). */
export const CrashEvent = { PROCESS: 0, POWER: 1, RESTART: 2 } as const;

/** AOF events in AOF trace records (a). */
export const AofEvent = {
  FEED: 0, WRITE: 1, POSTPONE: 2, FORCED: 3, WRITE_ERR: 4, FSYNC: 5, FSYNC_QUEUED: 6, LOADED: 7, TRUNCATED: 8,
} as const;
/** bio job types (a) and job events (b) in BIO trace records. */
export const BioType = { CLOSE_FILE: 0, AOF_FSYNC: 1, LAZY_FREE: 2 } as const;
export const JobEvent = { QUEUED: 0, START: 1, DONE: 2 } as const;
/** ACK trace records (GK_TR_ACK): a client program was told a write
 *  succeeded; a = key number (key:N, db 0), b = fd, c = AckKind, d = INCR's
 *  new value or the length of SET's value (that many "x"). */
export const AckKind = { SET: 0, INCR: 1 } as const;
/** Disk events in DISK trace records (a). */
export const DiskEvent = { SYNCED: 0, WRITTEN_BACK: 1, POWER_LOSS: 2 } as const;

/** appendfsync as gkAofInfo.fsync numbers it. */
export const FSYNC_NAMES = ['no', 'always', 'everysec'] as const;
export type FsyncPolicy = (typeof FSYNC_NAMES)[number];

export interface AofInfo {
  /** 0 off, 1 on, 2 waiting for its first rewrite. */
  state: number;
  fsync: FsyncPolicy;
  lastWriteOk: boolean;
  lastWriteErrno: number;
  bioFsyncOk: boolean;
  rewriteInProgress: boolean;
  selectedDb: number;
  bufferLength: number;
  currentSize: number;
  baseSize: number;
  fsyncOffset: number;
  pendingBioFsync: number;
  delayedFsync: number;
  flushPostponedStart: number;
  lastFsync: number;
  /** One stream of bytes since the process started, at four stages. */
  fed: number;
  written: number;
  acked: number;
  durable: number;
  incrFile: string;
  baseFile: string;
}

export interface ThreadInfo {
  name: string;
  busy: boolean;
  pending: number;
  busySince: number;
  busyUntil: number;
  jobsDone: number;
  busyNs: number;
}

export interface DiskInfo {
  preset: string;
  capacity: number;
  used: number;
  free: number;
  deviceBusyUntil: number;
  queued: number;
  files: number;
  written: number;
  durableBytes: number;
  syncs: number;
  writebacks: number;
}

export interface DiskFileInfo {
  /** Bytes in the page cache (what read(2) sees). */
  size: number;
  /** Bytes on the device. */
  durable: number;
  dirty: number;
  syncingUntil: number;
  dirtySince: number;
  inode: number;
  open: number;
}

const AOF_FIELDS = 20;
const AOF_NAME = 64;
const THREAD_FIELDS = 6;
const THREAD_NAME = 24;
const THREADS_MAX = 8;
const STATUS_ENOTFOUND = -4;

const decoder = new TextDecoder();

/** Calls fn with a scratch block of `bytes` bytes in the module's heap. */
function withBlock<T>(world: World, bytes: number, fn: (p: number) => T): T {
  return world.engine.guard(() => world.engine.withBlock(bytes, fn));
}

export function aofInfo(world: World, node: number): AofInfo {
  const gk = world.engine;
  return withBlock(world, AOF_FIELDS * 8 + 2 * AOF_NAME, (p) => {
    world.checkStatus(gk.module._gkwAofGetInfo(world.handle, node, p, p + AOF_FIELDS * 8));
    const f = gk.f64s(p, AOF_FIELDS);
    const names = p + AOF_FIELDS * 8;
    return {
      state: f[0], fsync: FSYNC_NAMES[f[1]] ?? 'everysec', lastWriteOk: f[2] === 0, lastWriteErrno: f[3],
      bioFsyncOk: f[4] === 0, rewriteInProgress: f[5] !== 0, selectedDb: f[6], bufferLength: f[7],
      currentSize: f[8], baseSize: f[9], fsyncOffset: f[10], pendingBioFsync: f[11], delayedFsync: f[12],
      flushPostponedStart: f[13], lastFsync: f[14], fed: f[15], written: f[16], acked: f[17], durable: f[18],
      incrFile: gk.cstring(names), baseFile: gk.cstring(names + AOF_NAME),
    };
  });
}

export function serverThreads(world: World, node: number): ThreadInfo[] {
  const gk = world.engine;
  return withBlock(world, THREADS_MAX * (THREAD_FIELDS * 8 + THREAD_NAME), (p) => {
    const names = p + THREADS_MAX * THREAD_FIELDS * 8;
    const n = world.checkStatus(gk.module._gkwServerThreads(world.handle, node, p, names));
    const f = gk.f64s(p, n * THREAD_FIELDS);
    const out: ThreadInfo[] = [];
    for (let i = 0; i < n; i++) {
      const o = i * THREAD_FIELDS;
      out.push({
        name: gk.cstring(names + i * THREAD_NAME), busy: f[o] !== 0, pending: f[o + 1], busySince: f[o + 2],
        busyUntil: f[o + 3], jobsDone: f[o + 4], busyNs: f[o + 5],
      });
    }
    return out;
  });
}

export function diskInfo(world: World, node: number): DiskInfo {
  const gk = world.engine;
  return withBlock(world, 10 * 8 + 16, (p) => {
    world.checkStatus(gk.module._gkwDiskGetInfo(world.handle, node, p, p + 80));
    const f = gk.f64s(p, 10);
    return {
      preset: gk.cstring(p + 80), capacity: f[0], used: f[1], free: f[2], deviceBusyUntil: f[3], queued: f[4],
      files: f[5], written: f[6], durableBytes: f[7], syncs: f[8], writebacks: f[9],
    };
  });
}

/** One file of the node's disk, or null if it does not exist. */
export function diskFileInfo(world: World, node: number, path: string): DiskFileInfo | null {
  const gk = world.engine;
  return withBlock(world, 7 * 8, (p) => gk.withString(path, (name) => {
    const status = gk.module._gkwDiskFileInfo(world.handle, node, name, p);
    if (status === STATUS_ENOTFOUND) return null;
    world.checkStatus(status);
    const f = gk.f64s(p, 7);
    return { size: f[0], durable: f[1], dirty: f[2], syncingUntil: f[3], dirtySince: f[4], inode: f[5], open: f[6] };
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
    if (status === STATUS_ENOTFOUND) return null;
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
    const status = gk.module._gkwDiskReadFile(world.handle, node, name, durable ? 1 : 0, p, max, sizeAt);
    if (status === STATUS_ENOTFOUND) return null;
    world.checkStatus(status);
    const size = gk.f64(sizeAt);
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

/** The server log's lines newer than `after`, and the last one's number. */
export function serverLogRead(world: World, node: number, after = 0): { text: string; last: number } {
  const gk = world.engine;
  const cap = 256 * 1024;
  return withBlock(world, cap + 8, (p) => {
    const n = gk.module._gkwServerLogRead(world.handle, node, after, p, cap, p + cap);
    return { text: decoder.decode(gk.bytes(p, n)), last: gk.f64(p + cap) };
  });
}

