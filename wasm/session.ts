// One session: a world built from a configuration, changed only by the
// actions of its input log. Every action is logged (stamped with virtual
// time) before it is applied, so replaying the log into a fresh world
// rebuilds the session, console transcript included. The session knows
// nothing about workers or the page: the worker wires it to messages and
// the tests call it directly.
//
// Time travel. The session is at a position of its log: the entries
// applied so far (the last one, a time advance, maybe only in part). At
// the end of the log it is live: actions are appended. Seeking to an
// earlier virtual time restores the nearest checkpoint (a copy of the
// engine's memory, wasm/checkpoints.ts) and replays the log from there;
// the entries after the position stay, as the recorded future, and play
// or a seek forward replays them. An action taken in the past forks: the
// log is cut at the position and the action appended. What the cut took
// away is not lost: the whole log before the cut is set aside, and
// restoreFuture() brings it back (setting the new branch aside in turn),
// so nothing the reader typed disappears because they rewound.
//
// The timeline (wasm/timeline.ts) is fed from the trace as the world runs
// and keeps the recorded future too; a fork cuts it back as well.
import { DictKind, GkError, GkTrapError, LoopPhase, TraceType, type Glasskv, type World } from './engine';
import { Limits, ReplLink, SessionLimit, packTraceRecords } from '../web/src/wasm-gen/seam';
import { ConsoleRunner, SecondConsole } from './consolerun';
import { roundTrip, writeKeys } from './driver';
import { encodeRequest } from './resp';
import {
  matchProblem, scanWalkBegin, scanWalkInfo, scanWalkSnapshot, scanWalkStep, scanWalkVisited, splitKeys,
} from './scanwalk';
import { StripCache } from './stripcache';
import { Checkpoints, atOrBefore, type Checkpoint, type Position } from './checkpoints';
import { Timeline, type TimelineMark } from './timeline';
import { LAB_SCENES, countsForCompletion, type LabPart as ScenePart } from './labscenes';
import { LiveLab } from './livelab';
import { inspectKey } from './inspect';
import { learnCommandNames } from './commandnames';
import {
  aofView, applyPersist, checkListening, completePersist, consoleWhileDown, copyPersistState, isUp,
  loadPersistState, newPersistState, observePersist, type PersistState,
} from './aofsession';
import { serverLogLast, serverLogRead } from './aof';
import { AOF_LAB_NAMES, type AofLabName, type AofView, type RecoveryReport } from './aofprotocol';
import {
  applyMc, completeMc, copyMcState, loadMcState, newMcState, slabsQuery, type McState,
} from './mcsession';
import { MC_LAB_NAMES, type McLabName, type SlabsQuery, type SlabsResultMap } from './mcprotocol';
import {
  CONFIGS_SHOWN, FIGURES_LAB_NAMES, LAB_NAMES, MACHINE_SETTINGS, MAX_SECOND_INPUTS, SECOND_CONSOLE_BOX_MS, STEPPED_LAB_NAMES, WORKLOAD_COMMANDS, WORKLOAD_PRESETS, WORKLOAD_SPEC_FIELDS, type Action,
  type ActAllResult, type ActResult, type AsideLog, type BootResult, type ConsoleEntry, type CrashInfo, type DictSnapshot, type FiguresLabName, type HistoryView,
  type HostView, type NetworkNodeView, type IterationResult, type KeyInspection, type LabDelivery, type ServerLog, type LabName, type LabProgress, type LabRunResult, type LaneItems, type LogEntry,
  type RestoreResult, type SamplesResult, type SecondInput, type SessionLog, type Snapshot, type SteppedLabName, type TableSnapshot,
  type TimelineResult, type TraceResult,
  type ViewOptions, type WorkerEvent, type WorkloadAction, type WorkloadPreset, type WorkloadSpec,
  type WorkloadView,
} from './protocol';

/** The longest wait, in real ms, for the reader's next line while a busy
 *  script is paced to real time: the host poll comes back this often. */
const MAX_PACE_WAIT_MS = 50;

/** What the reader types on a second connection while the console waits
 *  for a busy script (wasm/inbox.ts InboxReader). */
export interface SecondInbox {
  /** The text waiting, or null; waits up to waitMs for one. */
  take(waitMs: number): string | null;
}

/** Transcript entries returned by a boot (older ones are dropped). */
export const CONSOLE_KEEP = 500;
/** Futures set aside by forks kept at once (the oldest goes first). */
export const ASIDE_KEEP = 32;
/** Largest N for the add and delete buttons. */
export const MAX_KEYS_PER_ACTION = 1_000_000;
export const MAX_BINS = 4096;
export const TRACE_CAPACITY = 1 << 16;
/** Longest wait one action may ask for: one virtual hour. */
export const MAX_WAIT_NS = 3600e9;
/** Most SCAN calls one scanFinish sends. */
const MAX_SCAN_CALLS = 10_000_000;
/** Most events one stepIteration runs before giving up. */
const MAX_ITERATION_EVENTS = 1_000_000;
/** Trace records read from the engine at once. */
const DRAIN_BATCH = 16_384;
/** Virtual time run between two drains of the trace: it shrinks when a
 *  stretch fills a quarter of the engine's ring, and grows back. */
const CHUNK_MIN_NS = 1e3;
const CHUNK_AFTER_ACTION_NS = 1e5;
const CHUNK_MAX_NS = 1e9;
/** While a lab part runs, time moves in steps this short, so the next
 *  part starts within this much of the previous one's end. */
const LAB_CHUNK_NS = 1e6;

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

export interface SessionOptions {
  /** Real milliseconds of engine work between two checkpoints (0: one
   *  after every entry and every stretch of time). */
  checkpointEveryMs?: number;
  /** Bytes the checkpoints may hold; past it every other one is dropped. */
  checkpointBudget?: number;
  /** Real time in ms, to measure engine work. */
  clock?: () => number;
}

type LabPart = { name: LabName; part: number };

/** A client program the page started, as the session's record in the
 *  engine (gkSession) names it: its workload id, preset and lab part. */
interface Program {
  id: number;
  preset: WorkloadPreset;
  lab: LabPart | null;
}

function programs(world: World): Program[] {
  const r = world.session();
  const out: Program[] = [];
  for (let i = 0; i < r.programs; i++) {
    const lab = r.programLab[i];
    out.push({
      id: r.programId[i], preset: WORKLOAD_PRESETS[r.programPreset[i]],
      lab: lab < 0 ? null : { name: LAB_NAMES[lab], part: r.programPart[i] },
    });
  }
  return out;
}

function addProgram(world: World, id: number, preset: WorkloadPreset, lab: LabPart | null): void {
  const r = world.session();
  const i = r.programs;
  r.programId[i] = id;
  r.programPreset[i] = WORKLOAD_PRESETS.indexOf(preset);
  r.programLab[i] = lab ? LAB_NAMES.indexOf(lab.name) : -1;
  r.programPart[i] = lab ? lab.part : 0;
  world.setSession({
    programs: i + 1, programId: r.programId, programPreset: r.programPreset, programLab: r.programLab,
    programPart: r.programPart,
  });
}

/** The servers a lab's scene starts, in the order it starts them. */
function labServers(name: LabName): NonNullable<ScenePart['servers']> {
  return LAB_SCENES[name].flatMap((p) => p.servers ?? []);
}

/** When part `part` of lab `name` started its programs (null: it has
 *  none, or has not started). */
function partStart(world: World, name: LabName, part: number): number | null {
  const starts = programs(world).filter((w) => w.lab && w.lab.name === name && w.lab.part === part)
    .map((w) => world.workloadStats(w.id).startedNs);
  return starts.length ? Math.min(...starts) : null;
}

/** The lab running, from the session's record. */
function labRunning(world: World): LabPart | null {
  const r = world.session();
  return r.lab < 0 ? null : { name: LAB_NAMES[r.lab], part: r.labPart };
}

/** The connection the page's buttons use (populate, delete, config). */
function controlConn(world: World): number {
  return world.session().controlConn;
}

/** What the session holds about the world outside the engine's memory,
 *  copied into every checkpoint: the crash scenario's notes and what the
 *  memcached console printed. The rest (connections, the labs and client
 *  programs started) is in the engine's record of the session. */
interface HostState {
  persist: PersistState;
  mc: McState;
}

interface Live {
  gk: Glasskv;
  world: World;
  node: number;
  console: ConsoleRunner;
  strips: StripCache;
  timeline: Timeline;
  persist: PersistState;
  /** The memcached node (wasm/mcsession.ts). */
  mc: McState;
}

type Phase = CrashInfo['during'];

/** A log cut by a fork, kept whole so that it can come back. `at` is the
 *  virtual time of the fork, `shared` the entries before it that both
 *  branches share (those before the cut time advance, if there is one). */
interface Aside extends AsideLog {
  /** Its transcript, as the session kept it; null for one brought over a
   *  reload (restoring it replays the log once to print it again). */
  said: ConsoleEntry[] | null;
}

/** Whether an aside brought from outside belongs to a log: its numbers
 *  make sense and its first `shared` entries are the log's. */
function belongsTo(a: AsideLog, entries: readonly LogEntry[]): boolean {
  if (!Array.isArray(a.entries) || !Number.isInteger(a.shared) || a.shared < 0) return false;
  if (a.shared > entries.length || a.shared > a.entries.length) return false;
  if (!Number.isFinite(a.at) || !Number.isFinite(a.endTime) || a.at < 0 || a.at > a.endTime) return false;
  return JSON.stringify(a.entries.slice(0, a.shared)) === JSON.stringify(entries.slice(0, a.shared));
}

/** What an aside holds past the fork, for the page to say. */
function asideView(a: Aside): NonNullable<HistoryView['aside']> {
  let actions = 0;
  let typed = 0;
  for (const e of a.entries.slice(a.shared)) {
    if (isTimeAction(e.action)) continue;
    actions++;
    if (e.action.kind === 'console') typed += e.action.text.split(/\r?\n/).filter((l) => l.trim()).length;
  }
  return { actions, typed, ns: Math.max(0, a.endTime - a.at), at: a.at };
}

function isTimeAction(a: Action): a is Extract<Action, { kind: 'advance' | 'wait' }> {
  return a.kind === 'advance' || a.kind === 'wait';
}

/** Where a time advance ends. */
function entryEnd(e: LogEntry): number {
  if (e.action.kind === 'advance') return e.action.to;
  if (e.action.kind === 'wait') return e.t + e.action.ns;
  return e.t;
}

function specOf(a: WorkloadAction): Partial<WorkloadSpec> {
  const spec: Partial<WorkloadSpec> = {};
  for (const k of WORKLOAD_SPEC_FIELDS) {
    if (a[k] !== undefined) (spec as Record<string, unknown>)[k] = a[k];
  }
  return spec;
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export class Session {
  private readonly host: SessionHost;
  private live: Live | null = null;
  private log: SessionLog | null = null;
  private crashInfo: CrashInfo | null = null;
  private view: ViewOptions = { db: 0, bins: 512 };
  /** Command ids by name (gkCommandId), as the lab probes ask them. */
  private readonly commandIds = new Map<string, number>();
  playing = false;
  speed = 1;

  /** Entries applied; with `partial`, entry `pos` is applied up to now. */
  private pos = 0;
  private partial = false;
  /** The virtual time the log reaches. */
  private endTime = 0;
  private readonly checkpoints: Checkpoints<HostState, TimelineMark>;
  private readonly everyMs: number;
  private readonly clock: () => number;
  /** Real ms of engine work since the last checkpoint passed or taken. */
  private work = 0;
  private lastCheckpoint: Checkpoint<HostState, TimelineMark> | null = null;
  /** The engine's trace read up to here. */
  private drained = 0;
  private chunkNs = 1e6;
  private labEngine: Promise<Glasskv> | null = null;
  /** The transcript of the log (its last entries), each entry tagged with
   *  the log entry that printed it. */
  private said: ConsoleEntry[] = [];
  /** Logs cut by forks, the latest last. */
  private asides: Aside[] = [];
  private names: Record<number, string> | null = null;
  /** The stepped lab running or last run, and labStart calls so far. */
  private liveLab: LiveLab | null = null;
  private labStarts = 0;
  /** Where a second connection's lines come from, if the page can send
   *  while the worker runs. */
  private inbox: SecondInbox | null = null;

  constructor(host: SessionHost, options: SessionOptions = {}) {
    this.host = host;
    this.everyMs = options.checkpointEveryMs ?? 250;
    this.clock = options.clock ?? now;
    this.checkpoints = new Checkpoints(options.checkpointBudget ?? 512 * 1024 * 1024);
  }

  /** Lets console commands typed from now on take a second connection's
   *  lines from inbox while they wait for a busy script. */
  setInbox(inbox: SecondInbox | null): void {
    this.inbox = inbox;
  }

  get crashed(): CrashInfo | null {
    return this.crashInfo;
  }

  get entries(): readonly LogEntry[] {
    return this.log?.entries ?? [];
  }

  /** The session's place in its log. */
  get position(): Position {
    return { index: this.pos, partial: this.partial, now: this.live?.world.now() ?? 0 };
  }

  private get atEnd(): boolean {
    return !this.partial && this.pos === this.entries.length;
  }

  /** Builds a fresh world from log.config and replays log.entries, then
   *  applies and logs the actions of `script` one after another, as if
   *  they had been sent one by one (each stamped with the time it runs). */
  async boot(log: SessionLog, script: readonly Action[] = [], asides: readonly AsideLog[] = []): Promise<BootResult> {
    this.shutdown();
    this.crashInfo = null;
    this.playing = false;
    const gk = await this.host.loadEngine();
    this.live = this.open(gk, log);
    this.log = { version: 1, config: { ...log.config }, entries: [...log.entries] };
    this.pos = 0;
    this.partial = false;
    this.checkpoints.clear();
    this.lastCheckpoint = null;
    this.drained = 0;
    this.asides = [];
    this.drain();
    this.checkpoint();
    const transcript: ConsoleEntry[] = [];
    this.replayTo(Infinity, 'replay', transcript);
    this.endTime = this.live.world.now();
    this.said = transcript.slice(-CONSOLE_KEEP);
    this.asides = asides.filter((a) => belongsTo(a, log.entries)).slice(-ASIDE_KEEP)
      .map((a) => ({ entries: [...a.entries], endTime: a.endTime, at: a.at, shared: a.shared, said: null }));
    this.emitAsides();
    for (const action of script) {
      for (const e of this.actQuietly(action).console) transcript.push(e);
    }
    return { console: transcript.slice(-CONSOLE_KEEP), snapshot: this.snapshot(), replayed: log.entries.length };
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
    world.setSession({ controlConn: world.openConn(node) });
    return {
      gk, world, node, console, strips: new StripCache(), timeline: new Timeline(),
      persist: newPersistState(world, node),
      mc: newMcState(),
    };
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

  /** act() for each action in turn, with one snapshot at the end; an
   *  action refused stops there, those before it applied. */
  actAll(actions: readonly Action[]): ActAllResult {
    const console: ConsoleEntry[] = [];
    for (const action of actions) console.push(...this.actQuietly(action).console);
    return { console: console.slice(-CONSOLE_KEEP), snapshot: this.snapshot() };
  }

  private actQuietly(action: Action): Omit<ActResult, 'snapshot'> {
    const live = this.engine;
    const complete = this.complete(live, action);
    if (!this.atEnd) this.fork();
    const { index, entry } = this.append(live, complete);
    const console: ConsoleEntry[] = [];
    this.replayTo(Infinity, 'action', console);
    // Lines typed on a second connection were recorded into the action.
    if (complete.kind === 'console' && complete.second?.length) this.host.emit({ type: 'log', index, entry, update: true });
    this.endTime = live.world.now();
    this.said.push(...console);
    if (this.said.length > 2 * CONSOLE_KEEP) this.said.splice(0, this.said.length - CONSOLE_KEEP);
    return { index, entry, console };
  }

  /** Runs virtual time forward by ns (the play loop). At the end of the
   *  log it is logged as an advance; in the recorded past it replays the
   *  log, and goes on live once it reaches the end. */
  advanceBy(ns: number): void {
    const live = this.engine;
    const target = live.world.now() + Math.max(0, Math.round(ns));
    if (!this.atEnd) {
      this.replayTo(Math.min(target, this.endTime), 'play');
      if (!this.atEnd || live.world.now() >= target) return;
    }
    for (let guard = 0; guard < 64; guard++) {
      const { index } = this.append(live, { kind: 'advance', to: target });
      this.pos = index;
      this.partial = true;
      const stopped = this.replayTo(target, 'play', undefined, this.labPartDone(live));
      this.endTime = live.world.now();
      if (!stopped) return;
      // The lab's part ended: the advance ends there, and the next part
      // starts at once (both logged), then time goes on.
      const entries = this.log!.entries;
      const cut: LogEntry = { t: entries[index].t, action: { kind: 'advance', to: live.world.now() } };
      entries[index] = cut;
      this.host.emit({ type: 'log', index, entry: cut });
      this.pos = index + 1;
      this.partial = false;
      this.actQuietly({ kind: 'labNext' });
      if (live.world.now() >= target) return;
    }
  }

  /** Moves the world to virtual time t (clamped to the recorded history):
   *  restores the last checkpoint at or before it, unless going on from
   *  here is shorter, and replays the log up to t. Not logged. */
  seek(t: number): Snapshot {
    if (!this.engine) return this.snapshot();
    const target = Math.max(0, Math.min(this.endTime, Math.floor(t)));
    const here = this.position;
    const cp = this.checkpoints.latestAt(target);
    if (target < here.now || (cp && !atOrBefore(cp, here))) {
      if (!cp) throw new RangeError('no checkpoint before that time');
      this.restore(cp);
    }
    this.replayTo(target, 'replay');
    return this.snapshot();
  }

  /** Checks an action can apply now and fills what the log must pin down
   *  (a populate's prefix). Throws before anything is logged. */
  private complete(live: Live, a: Action): Action {
    const persisted = completePersist(live, a);
    if (persisted) return persisted;
    const mc = completeMc(live, a);
    if (mc) return mc;
    const whole = (n: number, lo: number, hi: number, what: string) => {
      if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`${what} must be an integer in [${lo}, ${hi}]`);
    };
    const listening = (port: number | undefined) => checkListening(live.world, port);
    switch (a.kind) {
      case 'console':
        if (!a.second) return a;
        if (a.second.length) throw new RangeError('console: second is recorded by the worker: send it empty');
        // Without an inbox nothing could be typed meanwhile: the console
        // works as it always did.
        return this.inbox ? { ...a, second: [] } : { kind: 'console', text: a.text };
      case 'populate':
        whole(a.n, 1, MAX_KEYS_PER_ACTION, 'n');
        whole(a.db, 0, 15, 'db');
        return a.prefix ? a : { ...a, prefix: `k${live.world.session().populated + 1}` };
      case 'delete':
        whole(a.n, 1, MAX_KEYS_PER_ACTION, 'n');
        whole(a.db, 0, 15, 'db');
        return a;
      case 'rehashStep':
        whole(a.steps, 1, 1_000_000, 'steps');
        whole(a.db, 0, 15, 'db');
        return a;
      case 'scanStart': {
        whole(a.count, 1, 1_000_000, 'count');
        whole(a.db, 0, 15, 'db');
        const problem = matchProblem(a.match);
        if (problem) throw new RangeError(problem);
        return a;
      }
      case 'scanStep':
      case 'scanFinish': {
        if (a.kind === 'scanStep' && a.calls !== undefined) whole(a.calls, 1, MAX_SCAN_CALLS, 'calls');
        const walk = scanWalkInfo(live.world, live.node);
        if (!walk.active) throw new RangeError('no SCAN walk: start one first');
        if (walk.done) throw new RangeError('the SCAN walk is finished: start a new one');
        return a;
      }
      case 'advance':
        if (!(a.to >= live.world.now())) throw new RangeError('advance: time cannot go backwards');
        return Number.isInteger(a.to) ? a : { kind: 'advance', to: Math.floor(a.to) };
      case 'wait':
        whole(a.ns, 0, MAX_WAIT_NS, 'ns');
        return a;
      case 'config':
        if (!a.name || /\s/.test(a.name)) throw new RangeError('config: a parameter name is required');
        return a;
      case 'stepIteration':
        whole(a.node, 0, Limits.MAX_NODES - 1, 'node');
        return a;
      case 'server':
        whole(a.port, 1, 65535, 'port');
        return a;
      case 'workload':
        this.checkWorkload(a);
        listening(a.port);
        return a;
      case 'machine':
        if (!(MACHINE_SETTINGS as readonly string[]).includes(a.name)) {
          throw new RangeError(`machine: the setting is one of ${MACHINE_SETTINGS.join(', ')}`);
        }
        if (a.name.startsWith('net.') && a.port !== undefined) {
          throw new RangeError(`machine: ${a.name} is the machine's, for every server: it takes no port`);
        }
        listening(a.port);
        return a;
      case 'workloadStop':
        if (!programs(live.world).some((w) => w.id === a.id)) throw new RangeError(`no workload ${a.id}`);
        return a;
      case 'lab': {
        if (!(a.name in LAB_SCENES)) throw new RangeError(`no lab named ${a.name}`);
        // Its client programs must all find a place in the session's
        // record (a lab run before keeps the places it took).
        // A scene with servers makes them replicas of the page's server,
        // which must then be a master.
        if (labServers(a.name).length && live.world.replNode(live.node)?.link !== ReplLink.NONE) {
          throw new RangeError(`lab ${a.name} needs the server on 6379 to be a master: REPLICAOF NO ONE there first`);
        }
        const need = LAB_SCENES[a.name].reduce((n, p) => n + p.programs.length, 0);
        const room = SessionLimit.PROGRAMS_MAX - live.world.session().programs;
        if (need > room) {
          throw new RangeError(`lab ${a.name} starts ${need} client programs and this session has room for ${room} `
            + 'more: start a new session for it');
        }
        return a;
      }
      case 'labNext': {
        const lab = labRunning(live.world);
        if (!lab || lab.part + 1 >= LAB_SCENES[lab.name].length) throw new RangeError('no lab part to start');
        return a;
      }
      default:
        return a;
    }
  }

  private checkWorkload(a: WorkloadAction): void {
    const whole = (v: number | undefined, lo: number, hi: number, what: string) => {
      if (v !== undefined && (!Number.isInteger(v) || v < lo || v > hi)) {
        throw new RangeError(`${what} must be an integer in [${lo}, ${hi}]`);
      }
    };
    whole(a.clients, 1, 10_000, 'clients');
    whole(a.pipeline, 1, 1_000_000, 'pipeline');
    whole(a.flush, 0, 1_000_000, 'flush');
    whole(a.requests, 0, 1e12, 'requests');
    whole(a.keyspace, 1, 1e9, 'keyspace');
    whole(a.valueSize, 0, 64 * 1024 * 1024, 'value size');
    whole(a.clientCmdNs, 0, 1e9, 'client CPU per command');
    whole(a.intervalNs, 0, MAX_WAIT_NS, 'interval');
    whole(a.rttNs, 0, 60e9, 'round trip');
    whole(a.bandwidth, 0, 1e12, 'bandwidth');
    if (a.command !== undefined && !(WORKLOAD_COMMANDS as readonly string[]).includes(a.command)) {
      throw new RangeError(`command must be one of ${WORKLOAD_COMMANDS.join(', ')}`);
    }
  }

  /** Appends to the log; a time advance directly after another one that
   *  ended now is merged into it, so playing adds one entry, not thousands. */
  private append(live: Live, action: Action): { index: number; entry: LogEntry } {
    const entries = this.log!.entries;
    const t = live.world.now();
    const last = entries[entries.length - 1];
    if (action.kind === 'advance' && last && last.action.kind === 'advance' && last.action.to === t) {
      const entry: LogEntry = { t: last.t, action };
      entries[entries.length - 1] = entry;
      this.host.emit({ type: 'log', index: entries.length - 1, entry });
      return { index: entries.length - 1, entry };
    }
    const entry: LogEntry = { t, action };
    entries.push(entry);
    this.host.emit({ type: 'log', index: entries.length - 1, entry });
    return { index: entries.length - 1, entry };
  }

  /** Cuts the log at the current position, so an action taken in the past
   *  becomes the new end; the timeline forgets the future with it. The log
   *  as it was is set aside first (restoreFuture brings it back). */
  private fork(): void {
    const live = this.live!;
    const t = live.world.now();
    const entries = this.log!.entries;
    this.setAside({ entries: [...entries], endTime: this.endTime, said: this.said, at: t, shared: this.pos });
    this.said = this.said.filter((c) => c.entry === undefined || c.entry < this.pos);
    if (this.partial) {
      const e = entries[this.pos];
      const cut: LogEntry = { t: e.t, action: { kind: 'advance', to: t } };
      entries[this.pos] = cut;
      entries.length = this.pos + 1;
      this.host.emit({ type: 'log', index: this.pos, entry: cut });
      this.pos++;
      this.partial = false;
    } else {
      entries.length = this.pos;
    }
    this.endTime = t;
    this.checkpoints.dropAfter(entries.length, t);
    if (live.timeline.lastSeq <= this.drained) return;
    // The timeline holds what came after: rebuild it from the last
    // checkpoint it was marked at, replaying up to here again.
    this.rebuildFrom(this.position, t);
  }

  private setAside(a: Aside): void {
    this.asides.push(a);
    if (this.asides.length > ASIDE_KEEP) this.asides.shift();
    this.emitAsides();
  }

  private emitAsides(): void {
    const asides = this.asides.map(({ entries, endTime, at, shared }) => ({ entries, endTime, at, shared }));
    this.host.emit({ type: 'asides', asides });
  }

  /** Restores the last checkpoint at or before p that marks the timeline,
   *  cuts the timeline there and replays the log up to virtual time t
   *  (its transcript into `transcript`, if given). */
  private rebuildFrom(p: Position, t: number, transcript?: ConsoleEntry[]): void {
    const cp = this.checkpoints.latestMarked(p);
    if (!cp) throw new Error('no marked checkpoint before the fork');
    this.restore(cp);
    this.live!.timeline.truncate(cp.mark!);
    this.replayTo(t, 'replay', transcript);
  }

  /** Brings back the log the last fork cut: the world goes back to the
   *  moment of that fork, in the past of the restored log (play or a seek
   *  replays its future), and the branch made since is set aside in its
   *  place, so that restoring again swaps them back. Only checkpoints
   *  taken before the fork serve both logs; the rest are dropped. Throws
   *  RangeError when nothing is set aside. */
  restoreFuture(): RestoreResult {
    if (!this.engine) throw new EngineDeadError('no session: boot first');
    const aside = this.asides.pop();
    if (!aside) throw new RangeError('no future was set aside');
    const log = this.log!;
    this.asides.push({ entries: log.entries, endTime: this.endTime, said: this.said, at: aside.at, shared: aside.shared });
    // Entries before `shared` are the same in both logs; the checkpoints
    // among them stay, and the timeline goes back to one of them.
    this.checkpoints.dropAfter(aside.shared, aside.at);
    log.entries = [...aside.entries];
    this.endTime = aside.endTime;
    if (aside.said) {
      this.said = aside.said;
      this.rebuildFrom({ index: aside.shared, partial: false, now: aside.at }, aside.at);
    } else {
      // Brought over a reload without its transcript: the restored log is
      // replayed to its end once, from the start, to print it again (as a
      // boot does), then the world goes back to the fork.
      const transcript: ConsoleEntry[] = [];
      this.rebuildFrom({ index: 0, partial: false, now: 0 }, Infinity, transcript);
      this.said = transcript.slice(-CONSOLE_KEEP);
      this.endTime = this.live!.world.now();
      this.seek(aside.at);
    }
    this.emitAsides();
    return { entries: [...log.entries], console: this.said.slice(-CONSOLE_KEEP), snapshot: this.snapshot() };
  }

  /** Applies the log from the current position up to virtual time target:
   *  every entry stamped at or before it, and time advances up to it.
   *  Returns true if `stop` ended it early. */
  private replayTo(target: number, during: Phase, transcript?: ConsoleEntry[], stop?: () => boolean): boolean {
    const live = this.live!;
    const { world } = live;
    const entries = this.log!.entries;
    const total = entries.length;
    for (;;) {
      const e = entries[this.pos];
      if (!e) return false;
      if (this.partial) {
        const end = entryEnd(e);
        let stopped = false;
        this.guarded(during, this.pos, e.action, () => {
          stopped = this.runTo(Math.min(end, target), stop);
        });
        if (stopped) return true;
        if (end > target) return false;
        this.pos++;
        this.partial = false;
        continue;
      }
      if (e.t > target) {
        if (target > world.now()) this.guarded(during, this.pos, e.action, () => this.runTo(target));
        return false;
      }
      const at = world.now();
      if (e.t > at) this.guarded(during, this.pos, e.action, () => this.runTo(e.t));
      else if (e.t < at && during === 'replay') this.host.emit({ type: 'diverged', index: this.pos, t: e.t, now: at });
      if (isTimeAction(e.action)) {
        this.partial = true;
        continue;
      }
      const missing = missingPrior(live, e.action);
      if (missing) throw new RangeError(`action #${this.pos + 1} (${e.action.kind}) ${missing}`);
      this.guarded(during, this.pos, e.action, () => {
        const t0 = this.clock();
        const out = this.apply(e.action, during === 'action');
        this.work += this.clock() - t0;
        for (const c of out) c.entry = this.pos;
        if (transcript) {
          for (const c of out) transcript.push(c);
          if (transcript.length > 2 * CONSOLE_KEEP) transcript.splice(0, transcript.length - CONSOLE_KEEP);
        }
      });
      this.pos++;
      this.drain();
      // The action may have started something busy: time moves in short
      // stretches again until the trace shows how busy.
      this.chunkNs = Math.min(this.chunkNs, CHUNK_AFTER_ACTION_NS);
      this.maybeCheckpoint();
      if (during === 'replay' && total > 50 && this.pos % 50 === 0) {
        this.host.emit({ type: 'replay', done: this.pos, total });
      }
    }
  }

  /** Runs the world until time t in stretches, reading the trace between
   *  them so the engine's ring never overflows. Returns true if `stop`
   *  held after a stretch (and t was not reached). */
  private runTo(until: number, stop?: () => boolean): boolean {
    const { world } = this.live!;
    const t = Math.floor(until);
    do {
      this.stretch(t, stop ? LAB_CHUNK_NS : CHUNK_MAX_NS);
      this.maybeCheckpoint();
      if (stop && world.now() < t && stop()) return true;
    } while (world.now() < t);
    return false;
  }

  /** One stretch towards time t: at most the current chunk (and `most`),
   *  then the trace is read, and the chunk shrinks when the stretch filled
   *  a quarter of the engine's ring, or grows back when it was quiet. */
  private stretch(t: number, most: number): void {
    const { world } = this.live!;
    const t0 = this.clock();
    world.runUntil(Math.min(t, world.now() + Math.min(this.chunkNs, most)));
    this.work += this.clock() - t0;
    const read = this.drain();
    if (read > TRACE_CAPACITY / 4) this.chunkNs = Math.max(CHUNK_MIN_NS, this.chunkNs / 4);
    else if (read < TRACE_CAPACITY / 32) this.chunkNs = Math.min(CHUNK_MAX_NS, this.chunkNs * 2);
  }

  /** Sends up to n calls of the SCAN walk, fewer if its cursor comes back
   *  to 0 first, reading the trace after each: client programs go on
   *  meanwhile, and a walk of a million keys among fifty of them writes
   *  twenty times what the engine's ring holds. */
  private scanCalls(n: number): void {
    const { world, node } = this.live!;
    for (let i = 0; i < n; i++) {
      const walk = scanWalkInfo(world, node);
      if (!walk.active || walk.done || walk.failed) return;
      scanWalkStep(world, node);
      this.drain();
    }
  }

  /** Feeds the trace written since the last drain to the timeline. */
  private drain(): number {
    const { world, timeline } = this.live!;
    let read = 0;
    for (;;) {
      const batch = world.traceRead(this.drained, DRAIN_BATCH);
      if (!batch.count) return read;
      timeline.ingest(batch.records);
      observePersist(this.live!, batch.records);
      this.drained = batch.records[batch.count - 1].seq;
      read += batch.count;
      if (batch.count < DRAIN_BATCH) return read;
    }
  }

  // ---- Checkpoints. ----

  /** The position, with an advance that ended exactly now counted as in
   *  progress (it may be extended by the next play tick). */
  private checkpointPosition(): Position {
    const t = this.live!.world.now();
    const entries = this.log!.entries;
    if (!this.partial && this.pos > 0) {
      const last = entries[this.pos - 1];
      if (isTimeAction(last.action) && entryEnd(last) === t) return { index: this.pos - 1, partial: true, now: t };
    }
    return { index: this.pos, partial: this.partial, now: t };
  }

  private maybeCheckpoint(): void {
    const p = this.checkpointPosition();
    const passed = this.checkpoints.latest(p);
    if (passed !== this.lastCheckpoint) {
      this.lastCheckpoint = passed;
      this.work = 0;
    }
    if (this.work >= this.everyMs) this.checkpoint();
  }

  /** Takes a checkpoint here (unless there is one already). */
  checkpoint(): void {
    const live = this.engine;
    const p = this.checkpointPosition();
    const prev = this.checkpoints.latest(p);
    if (prev && prev.now === p.now && prev.index === p.index && prev.partial === p.partial) return;
    const timelineAhead = live.timeline.lastSeq > this.drained;
    const cp: Checkpoint<HostState, TimelineMark> = {
      ...p,
      traceSeq: this.drained,
      image: live.gk.captureMemory(prev?.image ?? null),
      state: this.saveState(live),
      mark: timelineAhead ? null : live.timeline.mark(p.now),
    };
    this.checkpoints.insert(cp);
    this.lastCheckpoint = cp;
    this.work = 0;
  }

  private restore(cp: Checkpoint<HostState, TimelineMark>): void {
    const live = this.live!;
    live.gk.restoreMemory(cp.image);
    this.loadState(live, cp.state);
    this.pos = cp.index;
    this.partial = cp.partial;
    this.drained = cp.traceSeq;
    live.strips.invalidate();
    this.lastCheckpoint = cp;
    this.work = 0;
  }

  private saveState(live: Live): HostState {
    return { persist: copyPersistState(live.persist), mc: copyMcState(live.mc) };
  }

  private loadState(live: Live, s: HostState): void {
    loadPersistState(live, s.persist);
    loadMcState(live, s.mc);
  }

  /** The console's command, while the reader can type on a second
   *  connection: a busy script it runs goes on until SCRIPT KILL or the
   *  box (SECOND_CONSOLE_BOX_MS), paced to real time once busy. Fresh, the
   *  lines come from the inbox and are recorded in `second` with the
   *  virtual time they were sent; replayed, they are sent again at those
   *  times. Returns the second connection's entries, then the console's. */
  private consoleWithSecond(live: Live, text: string, second: SecondInput[], fresh: boolean): ConsoleEntry[] {
    const { world } = live;
    // The server the console talks to (CONNECT may have chosen another):
    // its busy script is the one the second connection can reach.
    const target = live.console.targetNode();
    const node = target >= 0 ? target : live.node;
    // A line still in the inbox was typed while a command before this one
    // was busy and came too late for it: it goes on this command's second
    // connection if this one turns busy, else the page takes it back.
    const inbox = fresh ? this.inbox : null;
    const cli = new SecondConsole(live.console, world, node, inbox ? (entry) => this.host.emit({ type: 'second', entry }) : undefined);
    let next = 0;
    let paced: { wall: number; virt: number } | null = null;
    const poll = (now: number) => {
      if (inbox) {
        if (!paced) {
          paced = { wall: this.clock(), virt: now };
          this.host.emit({ type: 'blocked', now });
        }
        const ahead = (now - paced.virt) / 1e6 - (this.clock() - paced.wall);
        const typed = second.length < MAX_SECOND_INPUTS ? inbox.take(Math.min(ahead, MAX_PACE_WAIT_MS)) : null;
        if (typed !== null && typed.trim()) {
          second.push({ t: now, text: typed });
          cli.send(typed);
        }
      } else {
        for (; next < second.length && second[next].t <= now; next++) cli.send(second[next].text);
      }
      cli.read();
    };
    world.setScriptTimeBox(node, SECOND_CONSOLE_BOX_MS, true);
    try {
      const entries = world.withHostPoll(poll, () => live.console.run(text, () => cli.finish()));
      return [...cli.entries, ...entries].sort((x, y) => x.seq - y.seq);
    } finally {
      // A server the command took down has no box to reset: a restarted
      // one starts with the usual box.
      if (node === live.node ? isUp(live) : world.replNode(node) !== null) {
        world.setScriptTimeBox(node, Limits.SCRIPT_TIME_BOX_MS, false);
      }
    }
  }

  private guarded(during: Phase, index: number, action: Action, fn: () => void): void {
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

  /** Applies one action; `fresh`: it was just appended (not replayed). */
  private apply(a: Action, fresh: boolean): ConsoleEntry[] {
    const live = this.live!;
    const { world, node } = live;
    switch (a.kind) {
      case 'console': {
        const refused = consoleWhileDown(live, a.text);
        if (refused) return refused;
        if (!a.second) return live.console.run(a.text);
        return this.consoleWithSecond(live, a.text, a.second, fresh);
      }
      case 'populate':
        world.setSession({ populated: world.session().populated + 1 });
        this.selectControl(live, a.db);
        if (a.mset) return [this.msetKeys(live, a.n, a.prefix!)];
        return [live.console.runFor('populate', controlConn(world), ['DEBUG', 'POPULATE', String(a.n), a.prefix!])];
      case 'delete':
        this.selectControl(live, a.db);
        return [this.deleteRandom(live, a.n)];
      case 'activeRehash':
        return [live.console.runFor('activeRehash', controlConn(world),
          ['CONFIG', 'SET', 'activerehashing', a.on ? 'yes' : 'no'])];
      case 'config':
        return [live.console.runFor('config', controlConn(world), ['CONFIG', 'SET', a.name, a.value])];
      case 'rehashStep':
        world.rehashSteps(node, a.db, DictKind.KEYS, a.steps);
        return [];
      case 'scanStart':
        scanWalkBegin(world, node, a.db, a.count, a.match);
        return [];
      case 'scanStep':
        this.scanCalls(a.calls ?? 1);
        return [];
      case 'scanFinish':
        this.scanCalls(MAX_SCAN_CALLS);
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
      case 'stepIteration':
        this.stepIteration(live, a.node);
        return [];
      case 'workload':
        this.startWorkload(live, a, null);
        return [];
      case 'workloadStop':
        world.workloadStop(a.id);
        return [];
      case 'lab':
        this.startLabPart(live, a.name, 0);
        return [];
      case 'labNext': {
        const lab = labRunning(world)!;
        this.startLabPart(live, lab.name, lab.part + 1);
        return [];
      }
      case 'disk':
      case 'diskFree':
      case 'diskReadOnly':
        return applyPersist(live, a);
      case 'crash':
      case 'crashAt':
      case 'restart':
        // A restarted server's keyspace is a new dict whose version counts
        // from the start again, so strips cached before could pass for it.
        live.strips.invalidate();
        return applyPersist(live, a);
      case 'mcStart':
      case 'mcLine':
      case 'mcFill':
      case 'mcSet':
        applyMc(live, a, () => this.drain());
        return [];
      case 'server':
        return [this.startServer(live, a.port)];
      case 'machine':
        return [this.setMachine(live, a)];
      case 'trap':
        return live.gk.debugTrap();
    }
  }

  /** Another redis-server in the world, on `port`; a port taken is
   *  refused with redis-server's message (its log says the same). */
  private startServer(live: Live, port: number): ConsoleEntry {
    const input = `redis-server --port ${port}`;
    try {
      live.world.addServerConfig(`port ${port}\n`);
      return live.console.note('server', input, {});
    } catch (e) {
      if (!(e instanceof GkError)) throw e;
      return live.console.note('server', input, { output: `${e.message}\n`, status: 'error' });
    }
  }

  /** A setting of the machine: a sysctl, as `sysctl name=value` sets it,
   *  or its memory; refused with the engine's message for a bad value. */
  private setMachine(live: Live, a: Extract<Action, { kind: 'machine' }>): ConsoleEntry {
    const { world } = live;
    const sysctl = a.name.includes('.');
    const input = sysctl ? `sysctl ${a.name}=${a.value}` : `${a.name} ${a.value}`;
    try {
      if (a.name.startsWith('net.')) world.sysctlSet(a.name, a.value);
      else world.machineSet(a.port === undefined ? live.node : world.serverOnPort(a.port), a.name, a.value);
      return live.console.note('persist', input, {});
    } catch (e) {
      if (!(e instanceof GkError)) throw e;
      return live.console.note('persist', input, { output: `${e.message}\n`, status: 'error' });
    }
  }

  /** Every Redis server of the world, with its replication. */
  private network(live: Live): NetworkNodeView[] {
    const out: NetworkNodeView[] = [];
    for (let node = 0; node < Limits.MAX_NODES; node++) {
      const r = live.world.replNode(node);
      if (!r) continue;
      const { replicas, ...rest } = r;
      out.push({
        node, logLast: serverLogLast(live.world, node), ...rest, replicas: live.world.replLinks(node, replicas),
      });
    }
    return out;
  }

  /** Runs events until host `node` has completed one more iteration of its
   *  event loop. An iteration is one event, the wake-up of the host, which
   *  the engine runs whole with the host's clock running ahead of the
   *  world's; the world then follows it to the iteration's end, so that the
   *  step shows all of it, short of what is due at that very moment (the
   *  host's next wake-up, which would be a second iteration). */
  private stepIteration(live: Live, node: number): void {
    const { world } = live;
    const before = world.nodeStats(node).iterations;
    for (let i = 0; i < MAX_ITERATION_EVENTS && world.nextEventTime() !== null; i++) {
      world.step();
      if (world.nodeStats(node).iterations === before) continue;
      const end = lastLoopEnd(world, node);
      if (end !== null && end - 1 > world.now()) world.runUntil(end - 1);
      return;
    }
  }

  private startWorkload(live: Live, a: WorkloadAction, lab: LabPart | null): void {
    // The record has fewer places for programs (GK_SESSION_PROGRAMS_MAX)
    // than the world has hosts (GK_MAX_NODES): its limit comes first.
    if (live.world.session().programs >= SessionLimit.PROGRAMS_MAX) throw new RangeError('too many client programs');
    const node = a.port === undefined ? live.node : live.world.serverOnPort(a.port);
    if (node < 0) throw new RangeError(`no server listens on port ${a.port}`);
    const id = live.world.workloadStart(node, specOf(a));
    addProgram(live.world, id, a.preset, lab);
  }

  private startLabPart(live: Live, name: LabName, part: number): void {
    const { world } = live;
    const scene = LAB_SCENES[name][part];
    world.setSession({ lab: LAB_NAMES.indexOf(name), labPart: part });
    if (scene.cpus) {
      // Refused while processes hold CPUs: only when a run of a lab set
      // them before, to the same figures.
      try {
        world.setCpus(scene.cpus.n, scene.cpus.wakeNs, scene.cpus.switchNs);
      } catch (e) {
        if (!(e instanceof GkError)) throw e;
      }
    }
    // A server already on its port (another lab, a lesson) is kept, and
    // told to follow the server the scene needs (REPLICAOF, as a client
    // would), unless it already does.
    for (const s of scene.servers ?? []) {
      const node = world.serverOnPort(s.port);
      if (node < 0) {
        world.addServerConfig(`port ${s.port}\nreplicaof 127.0.0.1 ${s.replicaof}\n`);
      } else if (world.replNode(node)?.masterPort !== s.replicaof) {
        const conn = world.openConn(node);
        roundTrip(world, conn, encodeRequest(['REPLICAOF', '127.0.0.1', String(s.replicaof)]));
        world.closeConn(conn);
      }
    }
    for (const p of scene.programs) this.startWorkload(live, p, { name, part });
  }

  /** While a lab runs and has a next part: whether its current part is
   *  done (every program but monitors has had all its replies). */
  private labPartDone(live: Live): (() => boolean) | undefined {
    const lab = labRunning(live.world);
    if (!lab || lab.part + 1 >= LAB_SCENES[lab.name].length) return undefined;
    return () => this.partDone(live);
  }

  private partDone(live: Live): boolean {
    const { world } = live;
    const lab = labRunning(world)!;
    const until = LAB_SCENES[lab.name][lab.part].until ?? 'replies';
    if (until === 'synced') {
      const nodes = world.serverPorts();
      return labServers(lab.name).every((s) => {
        const node = nodes.get(s.port);
        const r = node !== undefined ? world.replNode(node) : null;
        return r !== null && r.link === ReplLink.UP && r.masterPort === s.replicaof;
      });
    }
    if (until === 'delivered') {
      const d = this.delivery(live, lab.name, lab.part);
      return d !== null && d.replicas.every((r) => r.ms !== null);
    }
    if (until === 'elapsed') {
      const start = partStart(world, lab.name, lab.part);
      return start !== null && world.now() >= start + (LAB_SCENES[lab.name][lab.part].forNs ?? 0);
    }
    return programs(world)
      .filter((w) => w.lab && w.lab.name === lab.name && w.lab.part === lab.part &&
        countsForCompletion(world.workloadSpec(w.id)))
      .every((w) => world.workloadStats(w.id).done);
  }

  private selectControl(live: Live, db: number): void {
    const { world } = live;
    if (world.session().controlDb === db) return;
    roundTrip(world, controlConn(world), encodeRequest(['SELECT', String(db)]));
    world.setSession({ controlDb: db });
  }

  /** n times: RANDOMKEY, then DEL of the key it returned. RANDOMKEY draws
   *  from the world's PRNG, so the same log deletes the same keys. */
  private deleteRandom(live: Live, n: number): ConsoleEntry {
    let deleted = 0;
    for (let i = 0; i < n; i++) {
      const key = roundTrip(live.world, controlConn(live.world), encodeRequest(['RANDOMKEY']));
      if (!key || key.type !== 'bulk' || !key.value) break;
      const del = roundTrip(live.world, controlConn(live.world), encodeRequest(['DEL', key.value]));
      if (del && del.type === 'int') deleted += Number(del.value);
    }
    return live.console.note('delete', `RANDOMKEY + DEL × ${n}`, { deleted });
  }

  /** A populate by MSET, as one transcript entry: the first and last of
   *  the keys, how many were written in how many commands, or the error
   *  that stopped it. */
  private msetKeys(live: Live, n: number, prefix: string): ConsoleEntry {
    const r = writeKeys(live.world, controlConn(live.world), prefix, n);
    const input = n === 1 ? `MSET ${prefix}:0 value:0` : `MSET ${prefix}:0 value:0 … ${prefix}:${n - 1} value:${n - 1}`;
    const counts = { written: r.written, commands: r.commands };
    if (!r.answered) return live.console.note('populate', input, { ...counts, status: 'noreply' });
    if (r.refused) {
      const output = r.refused.type === 'error' ? `(error) ${r.refused.value}` : r.refused.type;
      return live.console.note('populate', input, { ...counts, status: 'error', output });
    }
    return live.console.note('populate', input, counts);
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
      scan: scanWalkSnapshot(world, live.node),
      prompt: live.console.prompt,
      logLength: this.log!.entries.length,
      playing: this.playing,
      speed: this.speed,
      workloads: programs(world).map((w) => this.workloadView(live, w)),
      hosts: this.hosts(live),
      network: this.network(live),
      history: {
        end: this.endTime, atEnd: this.atEnd, applied: this.pos,
        checkpoints: this.checkpoints.all.map((c) => c.now), checkpointBytes: this.checkpoints.bytes,
        aside: this.asides.length ? asideView(this.asides[this.asides.length - 1]) : null,
      },
      lab: this.labView(live),
      busy: live.timeline.lastBusy(live.node, world.now()),
      traceSeq: Math.min(this.drained, live.timeline.lastSeq),
      traceLost: live.timeline.lost,
    };
  }

  private labView(live: Live): Snapshot['lab'] {
    const lab = labRunning(live.world);
    if (!lab) return null;
    const parts = LAB_SCENES[lab.name].length;
    const deliveries: LabDelivery[] = [];
    for (let part = 0; part <= lab.part; part++) {
      const d = this.delivery(live, lab.name, part);
      if (d) deliveries.push(d);
    }
    return {
      name: lab.name, part: lab.part, partName: LAB_SCENES[lab.name][lab.part].name, parts,
      done: lab.part + 1 === parts && this.partDone(live), deliveries,
    };
  }

  /** Part `part` of lab `name`'s delivery times (null if it times no
   *  write, or has not started): when the master ran the part's probe,
   *  then when each replica ran the same command. */
  private delivery(live: Live, name: LabName, part: number): LabDelivery | null {
    const { world, timeline } = live;
    const probe = LAB_SCENES[name][part].probe;
    if (!probe) return null;
    const start = partStart(world, name, part);
    if (start === null) return null;
    const cmd = this.commandIds.get(probe.command) ?? live.gk.commandId(probe.command);
    this.commandIds.set(probe.command, cmd);
    // Only what has happened by now (the timeline keeps a recorded future
    // too); null where the record no longer reaches back far enough.
    const now = world.now();
    const master = timeline.firstExec(live.node, start, now, probe.argc, cmd);
    const ran = new Map<number, number | null>([[world.replNode(live.node)?.port ?? -1, master ? master.t : null]]);
    const nodes = world.serverPorts();
    const replicas = labServers(name).map((s) => {
      const node = nodes.get(s.port);
      const at = master && node !== undefined ? timeline.firstExec(node, master.t, now, probe.argc, cmd)?.t ?? null : null;
      ran.set(s.port, at);
      const before = ran.get(s.replicaof) ?? null;
      return {
        port: s.port, follows: s.replicaof,
        ms: at !== null && master ? (at - master.t) / 1e6 : null,
        hopMs: at !== null && before !== null ? (at - before) / 1e6 : null,
      };
    });
    return { part: LAB_SCENES[name][part].name, command: probe.command, masterAt: master ? master.t : null, replicas };
  }

  private workloadView(live: Live, w: Program): WorkloadView {
    const stats = live.world.workloadStats(w.id);
    return {
      id: w.id, preset: w.preset, spec: live.world.workloadSpec(w.id), startedAt: stats.startedNs,
      stopped: stats.stopped, lab: w.lab, stats, conns: live.timeline.connections(w.id),
    };
  }

  private hosts(live: Live): HostView[] {
    const ids = [live.node, ...programs(live.world).map((w) => w.id)];
    return ids.map((id) => ({ id, role: id === live.node ? 'server' : 'workload', ...live.world.nodeStats(id) }));
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
    const walk = scanWalkInfo(world, node);
    const walked = walk.active && walk.db === db;
    const table = (t: number): TableSnapshot | null => {
      const size = info.size[t];
      const strip = strips[t];
      if (!size || !strip) return null;
      const bins = strip.entries.length;
      return {
        size, used: info.used[t], bins, entries: strip.entries, filled: strip.filled,
        visited: walked ? scanWalkVisited(world, node, size, bins) : null,
      };
    };
    return {
      db, rehashidx: info.rehashidx, pauserehash: info.pauserehash, resizePolicy: info.resizePolicy,
      tables: [table(0), table(1)],
    };
  }

  private config(live: Live): Record<string, string> {
    const out: Record<string, string> = {};
    if (!isUp(live)) return out;
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
    return { count: batch.count, data: packTraceRecords(batch.records), lastSeq: world.traceLastSeq() };
  }

  /** How `key` of the viewed db is stored; null if there is no such key. */
  inspect(key: string): KeyInspection | null {
    const { world, node } = this.engine;
    return inspectKey(world, node, this.view.db, key);
  }

  bucketKeys(table: number, bucket: number): string[] {
    const { world, node } = this.engine;
    return splitKeys(world.bucketKeysRaw(node, this.view.db, DictKind.KEYS, table, bucket));
  }

  // ---- The views of the event loop. ----

  timeline(t0: number, t1: number, px: number, nodes?: number[], source?: 'lab'): TimelineResult {
    const timeline = source === 'lab' ? this.liveLab?.timeline ?? new Timeline() : this.engine.timeline;
    return timeline.window(t0, Math.max(t0 + 1, t1), px, nodes);
  }

  connection(fd: number, t0: number, t1: number): LaneItems[] {
    return this.engine.timeline.connection(fd, t0, Math.max(t0 + 1, t1));
  }

  iteration(node: number, before: number): IterationResult | null {
    const { timeline } = this.engine;
    const it = timeline.lastIteration(node, before);
    if (!it) return null;
    const lane = timeline.window(it.t0, it.t1, 8192, [node]).items[0];
    const keep: number[] = [];
    if (lane) for (let i = 0; i < lane.count; i++) if (lane.t0[i] >= it.t0 && lane.t1[i] <= it.t1) keep.push(i);
    const pick = <T extends Float64Array | Uint8Array | Int32Array>(a: T, out: T): T => {
      keep.forEach((k, j) => { out[j] = a[k]; });
      return out;
    };
    const n = keep.length;
    return {
      node, number: it.number, t0: it.t0, t1: it.t1,
      items: lane ? {
        node, count: n, t0: pick(lane.t0, new Float64Array(n)), t1: pick(lane.t1, new Float64Array(n)),
        kind: pick(lane.kind, new Uint8Array(n)), fd: pick(lane.fd, new Int32Array(n)),
        n: pick(lane.n, new Float64Array(n)), x: pick(lane.x, new Float64Array(n)),
      } : {
        node, count: 0, t0: new Float64Array(0), t1: new Float64Array(0), kind: new Uint8Array(0),
        fd: new Int32Array(0), n: new Float64Array(0), x: new Float64Array(0),
      },
    };
  }

  samples(workload: number, max: number): SamplesResult {
    const { world } = this.engine;
    return world.workloadSamples(workload, Math.max(1, Math.min(4096, Math.floor(max))));
  }

  /** Runs a lab headless in a module instance of its own, so the
   *  session's memory (and its checkpoints) never see it. */
  async labRun(name: LabName | SteppedLabName | AofLabName | McLabName | FiguresLabName, seed: number): Promise<LabRunResult> {
    if (!(name in LAB_SCENES) && !(AOF_LAB_NAMES as readonly string[]).includes(name)
      && !(MC_LAB_NAMES as readonly string[]).includes(name)
      && !(STEPPED_LAB_NAMES as readonly string[]).includes(name)
      && !(FIGURES_LAB_NAMES as readonly string[]).includes(name)) {
      throw new RangeError(`no lab named ${name}`);
    }
    const gk = await this.labModule();
    const t0 = this.clock();
    const json = gk.labRun(name, seed);
    return { name, json, wallMs: this.clock() - t0 };
  }

  /** Starts a stepped lab in a module instance of its own (stopping the
   *  one running, if any); labSlice runs it. Not logged: the sandbox never
   *  sees it. */
  async labStart(name: SteppedLabName, seed: number): Promise<LabProgress> {
    if (!(STEPPED_LAB_NAMES as readonly string[]).includes(name)) throw new RangeError(`no stepped lab named ${name}`);
    this.labCancel();
    const run = ++this.labStarts;
    const gk = await this.host.loadEngine();
    // A later start, or a cancel, while the module loaded wins.
    if (run !== this.labStarts) throw new RangeError('the lab was stopped before it started');
    this.liveLab = new LiveLab(gk, name, seed, run, this.clock);
    return this.liveLab.progress();
  }

  /** Runs the stepped lab `run` for about ms of real time; null if it is
   *  not the one running. */
  labSlice(run: number, ms?: number): LabProgress | null {
    const lab = this.liveLab;
    if (!lab || lab.run !== run || !lab.running) return null;
    return lab.slice(ms);
  }

  /** Stops the stepped lab running: its last progress, or null if none
   *  was running. */
  labCancel(): LabProgress | null {
    this.labStarts++;
    const lab = this.liveLab;
    if (!lab || !lab.running) return null;
    return lab.cancel();
  }

  /** What the command ids of GK_TR_CMD records stand for. */
  async commandNames(): Promise<Record<number, string>> {
    this.names ??= learnCommandNames(await this.labModule());
    return this.names;
  }

  /** The engine's digest of the world's state (gkWorldDigest): equal
   *  digests mean equal datasets, tables, memcached items, disk files,
   *  clocks and counters, whatever path led to them (engine/src/digest.c). */
  digest(): string {
    return this.engine.world.digest();
  }

  /** The log of the Redis server on host `node` after line `after`, as
   *  its ring holds it; `last` is its newest line's number. */
  serverLog(node: number, after = 0): ServerLog {
    const { world } = this.engine;
    // A crashed server's lines stay (the ring is its machine's, as a log
    // file would be); a host with no Redis server has none.
    if (!Number.isInteger(node) || node < 0 || node >= Limits.MAX_NODES) return { node, lines: [], last: 0 };
    const newest = serverLogLast(world, node);
    if (!(after >= 0) || after >= newest) return { node, lines: [], last: newest };
    const { text, last } = serverLogRead(world, node, after);
    return { node, lines: text.split('\n').filter((l) => l !== ''), last };
  }

  /** The digest of the server's dataset alone (gkServerDatasetDigest):
   *  its keys, values and expire times, whatever else the world holds. */
  datasetDigest(): string {
    const { world, node } = this.engine;
    return world.datasetDigest(node);
  }

  /** The AOF panel's view of the server (not logged). */
  aof(): AofView {
    return aofView(this.engine);
  }

  /** The Slabs view's queries (not logged; nothing runs). */
  slabs<Q extends SlabsQuery>(query: Q): SlabsResultMap[Q['what']] {
    return slabsQuery(this.engine, query);
  }

  /** The last recovery report with all its rows (views carry the first). */
  recoveryReport(): RecoveryReport | null {
    return this.engine.persist.report;
  }

  private labModule(): Promise<Glasskv> {
    this.labEngine ??= this.host.loadEngine();
    this.labEngine.catch(() => {
      this.labEngine = null;
    });
    return this.labEngine;
  }
}

/** What an action needs from the actions before it, and lacks here: a
 *  logged scanStep with no scanStart before it, a labNext with no lab, a
 *  workloadStop of a workload never started. Live actions are refused
 *  earlier (complete); this guards a log read from a link or a file, which
 *  would otherwise fail deep inside with a bare TypeError. */
function missingPrior(live: Live, a: Action): string | null {
  switch (a.kind) {
    case 'scanStep':
    case 'scanFinish': {
      const walk = scanWalkInfo(live.world, live.node);
      if (!walk.active) return 'needs a SCAN walk, and none was started before it (scanStart)';
      if (walk.done) return 'comes after the SCAN walk finished';
      return null;
    }
    case 'labNext': {
      const lab = labRunning(live.world);
      if (!lab) return 'needs a lab, and none was started before it';
      if (lab.part + 1 >= LAB_SCENES[lab.name].length) return `comes after the last part of lab ${lab.name}`;
      return null;
    }
    case 'workloadStop':
      if (!programs(live.world).some((w) => w.id === a.id)) return `stops workload ${a.id}, which was never started`;
      return null;
    default:
      return null;
  }
}

/** When host `node` last went to sleep (its last GK_LOOP_END record among
 *  the trace's newest), or null. */
function lastLoopEnd(world: World, node: number): number | null {
  const last = world.traceLastSeq();
  const { records } = world.traceRead(Math.max(0, last - 256), 256);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.type === TraceType.LOOP && r.node === node && r.a === LoopPhase.END) return r.time;
  }
  return null;
}
