// One session: a world built from a configuration, changed only by the
// actions of its input log. Every action is logged (stamped with virtual
// time) before it is applied, so replaying the log into a fresh world
// rebuilds the session, console transcript included. The session knows
// nothing about workers or the page: the worker wires it to messages and
// the tests call it directly.
import { DictKind, GkError, GkTrapError, TraceType, type Glasskv, type World } from './engine';
import { ConsoleRunner } from './consolerun';
import { roundTrip } from './driver';
import { encodeRequest } from './resp';
import { ScanWalk, splitKeys } from './scanwalk';
import { StripCache } from './stripcache';
import {
  CONFIGS_SHOWN, type Action, type ActResult, type BootResult, type ConsoleEntry, type CrashInfo, type DictSnapshot,
  type LogEntry, type SessionLog, type Snapshot, type TableSnapshot, type TraceResult, type ViewOptions,
  type WorkerEvent,
} from './protocol';

/** Transcript entries returned by a boot (older ones are dropped). */
export const CONSOLE_KEEP = 500;
/** Largest N for the add and delete buttons. */
export const MAX_KEYS_PER_ACTION = 1_000_000;
export const MAX_BINS = 4096;
export const TRACE_CAPACITY = 1 << 16;
/** Longest wait one action may ask for: one virtual hour. */
export const MAX_WAIT_NS = 3600e9;
/** Most SCAN calls one scanFinish sends. */
const MAX_SCAN_CALLS = 10_000_000;

const ALL_TRACE_TYPES = Object.values(TraceType).reduce((m, t) => m | (1 << t), 0);

/** The world has no engine until the next boot (it trapped, or never booted). */
export class EngineDeadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineDead';
  }
}

export interface SessionHost {
  /** A fresh instance of the module (its memory starts empty). */
  loadEngine(): Promise<Glasskv>;
  emit(event: WorkerEvent): void;
}

interface Live {
  gk: Glasskv;
  world: World;
  node: number;
  console: ConsoleRunner;
  scanConn: number;
  controlConn: number;
  controlDb: number;
  scanDb: number;
  populated: number;
  walk: ScanWalk | null;
  strips: StripCache;
}

export class Session {
  private readonly host: SessionHost;
  private live: Live | null = null;
  private log: SessionLog | null = null;
  private crashInfo: CrashInfo | null = null;
  private view: ViewOptions = { db: 0, bins: 512 };
  playing = false;
  speed = 1;

  constructor(host: SessionHost) {
    this.host = host;
  }

  get crashed(): CrashInfo | null {
    return this.crashInfo;
  }

  get entries(): readonly LogEntry[] {
    return this.log?.entries ?? [];
  }

  /** Builds a fresh world from log.config and replays log.entries, then
   *  applies and logs the actions of `script` one after another, as if
   *  they had been sent one by one (each stamped with the time it runs). */
  async boot(log: SessionLog, script: readonly Action[] = []): Promise<BootResult> {
    this.shutdown();
    this.crashInfo = null;
    this.playing = false;
    const gk = await this.host.loadEngine();
    this.live = this.open(gk, log);
    this.log = { version: 1, config: { ...log.config }, entries: [] };
    const transcript: ConsoleEntry[] = [];
    const total = log.entries.length;
    for (let i = 0; i < total; i++) {
      const entry = log.entries[i];
      this.log.entries.push(entry);
      this.guarded('replay', i, entry.action, () => {
        const now = this.live!.world.now();
        if (entry.t > now) this.live!.world.runUntil(entry.t);
        else if (entry.t < now) this.host.emit({ type: 'diverged', index: i, t: entry.t, now });
        const out = this.apply(entry.action);
        for (const e of out) transcript.push(e);
        if (transcript.length > 2 * CONSOLE_KEEP) transcript.splice(0, transcript.length - CONSOLE_KEEP);
      });
      if (total > 50 && i % 50 === 49) this.host.emit({ type: 'replay', done: i + 1, total });
    }
    for (const action of script) {
      for (const e of this.actQuietly(action).console) transcript.push(e);
    }
    return { console: transcript.slice(-CONSOLE_KEEP), snapshot: this.snapshot(), replayed: total };
  }

  private open(gk: Glasskv, log: SessionLog): Live {
    const world = gk.createWorld({
      seed: log.config.seed,
      unixMsAtZero: log.config.unixMsAtZero,
      heapLimit: log.config.heapLimit,
      traceCapacity: TRACE_CAPACITY,
    });
    world.traceEnable(ALL_TRACE_TYPES);
    const node = world.addServer();
    const console = new ConsoleRunner(gk, world, node);
    const scanConn = world.openConn(node);
    const controlConn = world.openConn(node);
    return { gk, world, node, console, scanConn, controlConn, controlDb: 0, scanDb: 0, populated: 0, walk: null,
      strips: new StripCache() };
  }

  /** Releases the world (the module instance is dropped with it). */
  shutdown(): void {
    if (this.live) this.live.world.release();
    this.live = null;
  }

  private get engine(): Live {
    if (this.crashInfo) throw new EngineDeadError(`the engine crashed (${this.crashInfo.message}); restart it`);
    if (!this.live) throw new EngineDeadError('no session: boot first');
    return this.live;
  }

  /** Validates, completes, logs and applies one action. */
  act(action: Action): ActResult {
    return { ...this.actQuietly(action), snapshot: this.snapshot() };
  }

  private actQuietly(action: Action): Omit<ActResult, 'snapshot'> {
    const live = this.engine;
    const complete = this.complete(live, action);
    const { index, entry } = this.append(live, complete);
    let console: ConsoleEntry[] = [];
    this.guarded('action', index, complete, () => {
      console = this.apply(complete);
    });
    return { index, entry, console };
  }

  /** Runs virtual time forward by ns (the play loop); logged as an advance. */
  advanceBy(ns: number): void {
    const live = this.engine;
    const to = live.world.now() + Math.max(0, Math.round(ns));
    const action: Action = { kind: 'advance', to };
    const { index } = this.append(live, action);
    this.guarded('play', index, action, () => {
      this.apply(action);
    });
  }

  /** Checks an action can apply now and fills what the log must pin down
   *  (a populate's prefix). Throws before anything is logged. */
  private complete(live: Live, a: Action): Action {
    const whole = (n: number, lo: number, hi: number, what: string) => {
      if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`${what} must be an integer in [${lo}, ${hi}]`);
    };
    switch (a.kind) {
      case 'populate':
        whole(a.n, 1, MAX_KEYS_PER_ACTION, 'n');
        whole(a.db, 0, 15, 'db');
        return a.prefix ? a : { ...a, prefix: `k${live.populated + 1}` };
      case 'delete':
        whole(a.n, 1, MAX_KEYS_PER_ACTION, 'n');
        whole(a.db, 0, 15, 'db');
        return a;
      case 'rehashStep':
        whole(a.steps, 1, 1_000_000, 'steps');
        whole(a.db, 0, 15, 'db');
        return a;
      case 'scanStart':
        whole(a.count, 1, 1_000_000, 'count');
        whole(a.db, 0, 15, 'db');
        return a;
      case 'scanStep':
      case 'scanFinish':
        if (!live.walk) throw new RangeError('no SCAN walk: start one first');
        if (live.walk.done) throw new RangeError('the SCAN walk is finished: start a new one');
        return a;
      case 'advance':
        if (!(a.to >= live.world.now())) throw new RangeError('advance: time cannot go backwards');
        return a;
      case 'wait':
        whole(a.ns, 0, MAX_WAIT_NS, 'ns');
        return a;
      case 'config':
        if (!a.name || /\s/.test(a.name)) throw new RangeError('config: a parameter name is required');
        return a;
      default:
        return a;
    }
  }

  /** Appends to the log; a time advance directly after another one that
   *  ended now is merged into it, so playing adds one entry, not thousands. */
  private append(live: Live, action: Action): { index: number; entry: LogEntry } {
    const entries = this.log!.entries;
    const now = live.world.now();
    const last = entries[entries.length - 1];
    if (action.kind === 'advance' && last && last.action.kind === 'advance' && last.action.to === now) {
      const entry: LogEntry = { t: last.t, action };
      entries[entries.length - 1] = entry;
      this.host.emit({ type: 'log', index: entries.length - 1, entry });
      return { index: entries.length - 1, entry };
    }
    const entry: LogEntry = { t: now, action };
    entries.push(entry);
    this.host.emit({ type: 'log', index: entries.length - 1, entry });
    return { index: entries.length - 1, entry };
  }

  private guarded(during: CrashInfo['during'], index: number, action: Action, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof GkTrapError)) throw e;
      this.crashInfo = {
        message: e.message,
        stack: e.cause instanceof Error ? e.cause.stack ?? '' : '',
        during,
        entryIndex: index,
        action,
        logLength: this.log?.entries.length ?? 0,
      };
      this.playing = false;
      this.host.emit({ type: 'crash', crash: this.crashInfo });
      throw e;
    }
  }

  private apply(a: Action): ConsoleEntry[] {
    const live = this.live!;
    const { world, node } = live;
    switch (a.kind) {
      case 'console':
        return live.console.run(a.text);
      case 'populate':
        live.populated++;
        this.selectControl(live, a.db);
        return [live.console.runFor('populate', live.controlConn, ['DEBUG', 'POPULATE', String(a.n), a.prefix!])];
      case 'delete':
        this.selectControl(live, a.db);
        return [this.deleteRandom(live, a.n)];
      case 'activeRehash':
        return [live.console.runFor('activeRehash', live.controlConn,
          ['CONFIG', 'SET', 'activerehashing', a.on ? 'yes' : 'no'])];
      case 'config':
        return [live.console.runFor('config', live.controlConn, ['CONFIG', 'SET', a.name, a.value])];
      case 'rehashStep':
        world.rehashSteps(node, a.db, DictKind.KEYS, a.steps);
        return [];
      case 'scanStart':
        this.startWalk(live, a.db, a.count, a.match);
        return [];
      case 'scanStep':
        live.walk!.step(world, node, live.scanConn);
        return [];
      case 'scanFinish':
        for (let i = 0; i < MAX_SCAN_CALLS && !live.walk!.done && !live.walk!.failed; i++) {
          live.walk!.step(world, node, live.scanConn);
        }
        return [];
      case 'advance':
        world.runUntil(a.to);
        return [];
      case 'wait':
        world.runUntil(world.now() + a.ns);
        return [];
      case 'step':
        if (world.nextEventTime() !== null) world.step();
        return [];
      case 'trap':
        return live.gk.debugTrap();
    }
  }

  private selectControl(live: Live, db: number): void {
    if (live.controlDb === db) return;
    roundTrip(live.world, live.controlConn, encodeRequest(['SELECT', String(db)]));
    live.controlDb = db;
  }

  /** n times: RANDOMKEY, then DEL of the key it returned. RANDOMKEY draws
   *  from the world's PRNG, so the same log deletes the same keys. */
  private deleteRandom(live: Live, n: number): ConsoleEntry {
    let deleted = 0;
    for (let i = 0; i < n; i++) {
      const key = roundTrip(live.world, live.controlConn, encodeRequest(['RANDOMKEY']));
      if (!key || key.type !== 'bulk' || !key.value) break;
      const del = roundTrip(live.world, live.controlConn, encodeRequest(['DEL', key.value]));
      if (del && del.type === 'int') deleted += Number(del.value);
    }
    return live.console.note('delete', `RANDOMKEY + DEL × ${n}`, { deleted });
  }

  private startWalk(live: Live, db: number, count: number, match: string): void {
    const walk = new ScanWalk(db, count, match);
    if (live.scanDb !== db) {
      roundTrip(live.world, live.scanConn, encodeRequest(['SELECT', String(db)]));
      live.scanDb = db;
    }
    walk.begin(live.world, live.node, live.scanConn);
    live.walk = walk;
  }

  setView(view: ViewOptions): void {
    const bins = Math.max(1, Math.min(MAX_BINS, Math.floor(view.bins)));
    this.view = { db: Math.max(0, Math.min(15, Math.floor(view.db))), bins };
  }

  snapshot(): Snapshot {
    const live = this.engine;
    const { world } = live;
    const config = this.config(live);
    return {
      now: world.now(),
      nextEvent: world.nextEventTime(),
      unixMsAtZero: this.log!.config.unixMsAtZero,
      memory: world.memory(),
      dict: this.dictSnapshot(live),
      expiresUsed: this.expiresUsed(live),
      activeRehashing: config.activerehashing === 'yes',
      config,
      scan: live.walk ? live.walk.snapshot() : null,
      prompt: live.console.prompt,
      logLength: this.log!.entries.length,
      playing: this.playing,
      speed: this.speed,
    };
  }

  private dictSnapshot(live: Live): DictSnapshot | null {
    const { world, node } = live;
    const db = this.view.db;
    let info;
    try {
      info = world.dictInfo(node, db, DictKind.KEYS);
    } catch (e) {
      if (e instanceof GkError) return null;
      throw e;
    }
    const strips = live.strips.get(world, node, db, info, this.view.bins);
    const table = (t: number): TableSnapshot | null => {
      const size = info.size[t];
      const strip = strips[t];
      if (!size || !strip) return null;
      const bins = strip.entries.length;
      const walk = live.walk && live.walk.db === db ? live.walk : null;
      return {
        size, used: info.used[t], bins, entries: strip.entries, filled: strip.filled,
        visited: walk ? walk.visitedBins(size, bins) : null,
      };
    };
    return {
      db, rehashidx: info.rehashidx, pauserehash: info.pauserehash, resizePolicy: info.resizePolicy,
      tables: [table(0), table(1)],
    };
  }

  private config(live: Live): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of CONFIGS_SHOWN) out[name] = live.world.serverConfigGet(live.node, name);
    return out;
  }

  private expiresUsed(live: Live): number {
    try {
      const info = live.world.dictInfo(live.node, this.view.db, DictKind.EXPIRES);
      return info.used[0] + info.used[1];
    } catch (e) {
      if (e instanceof GkError) return 0;
      throw e;
    }
  }

  trace(after: number, max: number): TraceResult {
    const { world } = this.engine;
    const batch = world.traceRead(after, Math.max(1, Math.min(65536, max)));
    return { count: batch.count, data: batch.data, lastSeq: world.traceLastSeq() };
  }

  bucketKeys(table: number, bucket: number): string[] {
    const { world, node } = this.engine;
    return splitKeys(world.bucketKeysRaw(node, this.view.db, DictKind.KEYS, table, bucket));
  }
}
