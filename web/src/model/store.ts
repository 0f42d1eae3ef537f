// The page's state, outside React: what the engine last reported
// (snapshot, transcript), the input log mirrored from the worker and saved,
// and the app's phase (loading, replaying, ready, crashed, dead). Components
// subscribe to slices of it; every change to the world goes through act().
import { BridgeCallError, type Bridge, type BridgeEvent } from '../../../wasm/bridge';
import type {
  Action, ConsoleEntry, CrashInfo, KeyInspection, LabRunResult, LogEntry, ServerLog, SessionLog, Snapshot,
} from '../../../wasm/protocol';
import type { AofLabName, AofView } from '../../../wasm/aofprotocol';
import type { McLabName, SlabsQuery, SlabsResultMap } from '../../../wasm/mcprotocol';
import type { Lang } from '../i18n';
import { promptFor } from '../../../wasm/protocol';
import { clearLog, freshLog, loadAsides, saveAsides, saveLog } from './persist';

export type Phase = 'loading' | 'replaying' | 'ready' | 'crashed' | 'dead';

export interface AppState {
  phase: Phase;
  replay: { done: number; total: number } | null;
  snapshot: Snapshot | null;
  console: ConsoleEntry[];
  /** Lines typed in the console, oldest first (for Up/Down). */
  history: string[];
  log: SessionLog;
  crash: CrashInfo | null;
  dead: string | null;
  /** Requests in flight. */
  inflight: number;
  /** The message of the last action that failed without a crash. */
  error: string | null;
  diverged: number | null;
  lang: Lang;
  /** The db the hash table and SCAN views show. */
  db: number;
  /** Speed used by Play, in virtual ms per real ms. */
  speed: number;
  /** While the console's command holds the server in a busy script: the
   *  command and the virtual time the script turned busy. What the reader
   *  types then goes on a second connection. */
  blocked: { text: string; prompt: string; now: number } | null;
  /** That second connection's lines answered so far (the console's answer
   *  brings them all, and they leave this list). */
  second: ConsoleEntry[];
}

export const CONSOLE_LIMIT = 500;
const SAVE_DELAY_MS = 200;
/** How long one action of Run to the end aims to take (an action has a
 *  fixed cost, a snapshot of the tables, that many calls share), and its
 *  most calls. */
const SCAN_ACTION_MS = 100;
const SCAN_MAX_CALLS = 65_536;

function historyOf(entries: readonly LogEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.action.kind !== 'console') continue;
    for (const line of e.action.text.split(/\r?\n/)) if (line.trim()) out.push(line);
    for (const s of e.action.second ?? []) out.push(s.text);
  }
  return out;
}

export class Store {
  private state: AppState;
  private readonly bridge: Bridge;
  private readonly listeners = new Set<() => void>();
  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  /** A foreign log is replaying: storage keeps the session it replaces. */
  private holdSave = false;
  private bins = 0;
  private viewQueued = false;
  private idleWaiters: (() => void)[] = [];
  /** Boots begun so far: a call made under an earlier one was meant for a
   *  session that is gone. */
  private generation = 0;
  private scanStopped = false;
  /** Calls made before the latest boot and not answered yet. The worker
   *  answers in order, so until they are, the 'log' events it sends are
   *  the old session's and must not land in the new log. */
  private stale = 0;
  private seekTarget: number | null = null;
  private seeking: Promise<void> | null = null;
  private lastSeek: number | null = null;
  /** The console commands in flight that may hold the server in a busy
   *  script, oldest first, with the prompt each was typed at. */
  private readonly running: { text: string; prompt: string }[] = [];

  constructor(bridge: Bridge, log: SessionLog, lang: Lang) {
    this.bridge = bridge;
    this.state = {
      phase: 'loading', replay: null, snapshot: null, console: [], history: historyOf(log.entries),
      log, crash: null, dead: null, inflight: 0, error: null, diverged: null, lang, db: 0, speed: 1,
      blocked: null, second: [],
    };
    bridge.subscribe((e) => this.onEvent(e));
  }

  getState = (): AppState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private set(patch: Partial<AppState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
    if (this.state.inflight === 0 && this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.state.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async track<T>(p: () => Promise<T>): Promise<T> {
    const generation = this.generation;
    this.set({ inflight: this.state.inflight + 1 });
    try {
      return await p();
    } finally {
      if (generation !== this.generation) this.stale--;
      this.set({ inflight: this.state.inflight - 1 });
    }
  }

  // ---- Events pushed by the worker. ----

  private onEvent(e: BridgeEvent): void {
    switch (e.type) {
      case 'log':
        if (this.stale !== 0) break;
        if (e.update) this.updateLog(e.index, e.entry);
        else this.mirrorLog(e.index, e.entry);
        break;
      case 'blocked':
        // The worker runs the commands in order: the oldest one in flight.
        if (this.stale === 0 && this.running.length) this.set({ blocked: { ...this.running[0], now: e.now } });
        break;
      case 'second':
        if (this.stale === 0 && this.state.blocked !== null) this.set({ second: [...this.state.second, e.entry] });
        break;
      case 'snapshot':
        this.set({ snapshot: e.snapshot });
        requestAnimationFrame(() => this.bridge.ack());
        break;
      case 'replay':
        this.set({ replay: { done: e.done, total: e.total } });
        break;
      case 'crash':
        this.saveNow();
        this.set({ phase: 'crashed', crash: e.crash });
        break;
      case 'dead':
        this.saveNow();
        this.set({ phase: 'dead', dead: e.message });
        break;
      case 'diverged':
        if (this.state.diverged === null) this.set({ diverged: e.index });
        break;
      case 'console':
        this.appendConsole(e.entries);
        break;
      case 'asides':
        // A log from outside is not the reader's until it has replayed.
        if (this.stale === 0 && !this.holdSave) saveAsides(this.state.log.config, e.asides);
        break;
      case 'ready':
        break;
    }
  }

  private mirrorLog(index: number, entry: LogEntry): void {
    const entries = this.state.log.entries.slice(0, index);
    entries.push(entry);
    const history = entry.action.kind === 'console'
      ? [...this.state.history, ...historyOf([entry])]
      : this.state.history;
    // An entry written over others (a fork in the past) takes the lines
    // they printed out of the transcript: the session set them aside.
    const cut = this.state.console.some((c) => c.entry !== undefined && c.entry >= index);
    const console = cut ? this.state.console.filter((c) => c.entry === undefined || c.entry < index) : this.state.console;
    this.set({ log: { ...this.state.log, entries }, history, console });
    // A time advance is rewritten on every play tick: save it lazily. Any
    // other action is saved at once, so a reload right after it keeps it.
    if (entry.action.kind === 'advance') this.scheduleSave();
    else this.saveNow();
  }

  /** The same entry with more recorded in it: the lines typed on the
   *  console's second connection join the history. */
  private updateLog(index: number, entry: LogEntry): void {
    const was = this.state.log.entries[index];
    if (!was) return;
    const entries = [...this.state.log.entries];
    entries[index] = entry;
    const before = was.action.kind === 'console' ? was.action.second?.length ?? 0 : 0;
    const added = entry.action.kind === 'console' ? (entry.action.second ?? []).slice(before).map((s) => s.text) : [];
    this.set({ log: { ...this.state.log, entries }, history: [...this.state.history, ...added] });
    this.saveNow();
  }

  private scheduleSave(): void {
    if (this.saveTimer !== null) return;
    this.saveTimer = setTimeout(() => this.saveNow(), SAVE_DELAY_MS);
  }

  /** Writes the log to storage now (also called when the page is hidden). */
  saveNow(): void {
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    if (!this.holdSave) saveLog(this.state.log);
  }

  private appendConsole(entries: readonly ConsoleEntry[]): void {
    if (!entries.length) return;
    const all = [...this.state.console, ...entries];
    this.set({ console: all.length > CONSOLE_LIMIT ? all.slice(-CONSOLE_LIMIT) : all });
  }

  // ---- Session life cycle. ----

  /** Boots the worker from `log` (replaying it), then applies `script`
   *  action by action, logging each. Resolves true when the engine is ready.
   *  `foreign`: the log came from a link or a file (see below). */
  async boot(log: SessionLog = this.state.log, script: Action[] = [], foreign = false): Promise<boolean> {
    this.lastSeek = null;
    this.saveNow();
    this.generation++;
    this.stale = this.state.inflight;
    // A log from outside (a link, a file) is saved as the session only once
    // it has replayed: a reload during a slow or failing replay then comes
    // back to the reader's own session instead of replaying it again.
    this.holdSave = foreign;
    this.set({
      phase: 'loading', log, history: historyOf(log.entries), crash: null, dead: null, error: null,
      diverged: null, replay: null, console: [],
    });
    if (!foreign) saveLog(log);
    try {
      const asides = foreign ? [] : loadAsides(log.config);
      const r = await this.track(() => this.bridge.call({ type: 'boot', log, script, asides }));
      if (foreign) {
        this.holdSave = false;
        saveLog(log);
      }
      this.set({ phase: 'ready', snapshot: r.snapshot, console: r.console, replay: null });
      this.pushView();
      return true;
    } catch (e) {
      this.failed(e);
      await this.recover();
      return false;
    }
  }

  /** After a boot that failed without a crash (a script action refused),
   *  the world it built so far is still there: show it and carry on. */
  private async recover(): Promise<void> {
    if (this.state.phase !== 'loading') return;
    try {
      const snapshot = await this.track(() => this.bridge.call({ type: 'snapshot' }));
      this.set({ phase: 'ready', snapshot, replay: null });
      this.pushView();
    } catch {
      // No engine to show: the crash or dead dialog says why.
    }
  }

  /** Restarts from the saved log; with `withoutCrashing`, drops the action
   *  that crashed and everything after it. */
  restart(withoutCrashing: boolean): Promise<boolean> {
    const { log, crash, phase } = this.state;
    let entries = log.entries;
    if (withoutCrashing) entries = entries.slice(0, crash ? crash.entryIndex : Math.max(0, entries.length - 1));
    if (phase === 'dead') this.bridge.restart();
    return this.boot({ ...log, entries });
  }

  /** Discards the log and starts an empty session. */
  reset(seed?: number): Promise<boolean> {
    clearLog();
    if (this.state.phase === 'dead') this.bridge.restart();
    return this.boot(freshLog(seed));
  }

  private failed(e: unknown): void {
    if (e instanceof BridgeCallError && (e.remote === 'GkTrapError' || e.remote === 'EngineDead')) return;
    if (this.state.phase === 'dead' || this.state.phase === 'crashed') return;
    this.set({ error: e instanceof Error ? e.message : String(e) });
  }

  // ---- Actions. ----

  /** Applies one action; resolves with its transcript lines ([] on failure). */
  async act(action: Action): Promise<ConsoleEntry[]> {
    if (this.state.phase !== 'ready') return [];
    this.lastSeek = null;
    const generation = this.generation;
    try {
      const r = await this.track(() => this.bridge.call({ type: 'act', action }));
      // Answered for a session a boot has replaced since: nothing to show.
      if (generation !== this.generation) return [];
      this.appendConsole(r.console);
      this.set({ snapshot: r.snapshot, error: null });
      return r.console;
    } catch (e) {
      if (generation === this.generation) this.failed(e);
      return [];
    }
  }

  /** Applies actions in turn in one call to the engine (a lesson step's
   *  missing actions); the page waits meanwhile as during a boot. Resolves
   *  true when every one ran; after one refused, shows the world as the
   *  ones before it left it. */
  async actAll(actions: readonly Action[]): Promise<boolean> {
    if (this.state.phase !== 'ready') return false;
    this.lastSeek = null;
    const generation = this.generation;
    this.set({ phase: 'loading', error: null });
    try {
      const r = await this.track(() => this.bridge.call({ type: 'actAll', actions: [...actions] }));
      if (generation !== this.generation) return false;
      this.appendConsole(r.console);
      this.set({ phase: 'ready', snapshot: r.snapshot });
      this.pushView();
      return true;
    } catch (e) {
      if (generation !== this.generation) return false;
      this.failed(e);
      await this.recover();
      return false;
    }
  }

  /** Calls SCAN until the walk finishes or stopScan is called: many
   *  calls per action, as many as keep one action near SCAN_ACTION_MS
   *  (doubling while it takes less, halving when it takes three times
   *  more), so the page draws the walk going on and a click on Stop lands
   *  between two actions. Resolves when it has stopped. */
  async scanToEnd(): Promise<void> {
    this.scanStopped = false;
    let calls = 1;
    while (!this.scanStopped) {
      const scan = this.state.snapshot?.scan;
      if (!scan || scan.done || scan.error || this.state.phase !== 'ready') return;
      const before = this.state.log.entries.length;
      const t0 = performance.now();
      await this.act({ kind: 'scanStep', calls });
      if (this.state.log.entries.length === before) return;
      const ms = performance.now() - t0;
      if (ms < SCAN_ACTION_MS) calls = Math.min(calls * 2, SCAN_MAX_CALLS);
      else if (ms > 3 * SCAN_ACTION_MS) calls = Math.max(1, calls >> 1);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
  }

  /** Stops a scanToEnd after the action in flight. */
  stopScan(): void {
    this.scanStopped = true;
  }

  /** Runs what the reader typed, or, while the console waits for a busy
   *  script, sends it on the second connection. */
  async runConsole(text: string): Promise<ConsoleEntry[]> {
    if (this.state.blocked !== null && this.bridge.typeSecond(text)) return [];
    if (!this.bridge.hasInbox) return this.act({ kind: 'console', text });
    const mine = { text, prompt: this.state.snapshot?.prompt ?? promptFor(0) };
    this.running.push(mine);
    try {
      return await this.act({ kind: 'console', text, second: [] });
    } finally {
      this.running.splice(this.running.indexOf(mine), 1);
      // What the worker never took was typed as the script ended: it goes
      // to the console, after.
      const left = this.bridge.reclaimSecond();
      this.set({ blocked: null, second: [] });
      for (const line of left) void this.runConsole(line);
    }
  }

  /** The keys in one bucket of the viewed db's table (read only, not logged). */
  async bucketKeys(table: number, bucket: number): Promise<string[]> {
    if (this.state.phase !== 'ready') return [];
    try {
      return await this.bridge.call({ type: 'bucketKeys', table, bucket });
    } catch {
      return [];
    }
  }

  /** How `key` of the viewed db is stored (read only, not logged): null
   *  if the db has no such key, undefined if the engine cannot say now. */
  async inspect(key: string): Promise<KeyInspection | null | undefined> {
    if (this.state.phase !== 'ready') return undefined;
    try {
      return await this.bridge.call({ type: 'inspect', key });
    } catch {
      return undefined;
    }
  }

  /** The AOF panel's view (read only, not logged); null if unavailable. */
  async aofView(): Promise<AofView | null> {
    if (this.state.phase !== 'ready') return null;
    try {
      return await this.bridge.call({ type: 'aof' });
    } catch {
      return null;
    }
  }

  /** The Slabs pane's queries (read only, not logged); null if unavailable. */
  async slabs<Q extends SlabsQuery>(query: Q): Promise<SlabsResultMap[Q['what']] | null> {
    if (this.state.phase !== 'ready') return null;
    try {
      return (await this.bridge.call({ type: 'slabs', query })) as SlabsResultMap[Q['what']];
    } catch {
      return null;
    }
  }

  /** The figures of an AOF lab run headless in the worker (not logged). */
  aofLabRun(name: AofLabName, seed: number): Promise<LabRunResult> {
    return this.bridge.call({ type: 'labRun', name, seed });
  }

  /** The log of the Redis server on host `node` (not logged); null if the
   *  worker could not answer. */
  async serverLog(node: number, after = 0): Promise<ServerLog | null> {
    try {
      return await this.bridge.call({ type: 'serverLog', node, after });
    } catch {
      return null;
    }
  }

  /** The figures of a slab lab run headless in the worker (not logged). */
  mcLabRun(name: McLabName, seed: number): Promise<LabRunResult> {
    return this.bridge.call({ type: 'labRun', name, seed });
  }

  clearConsole(): void {
    this.set({ console: [] });
  }

  async play(): Promise<void> {
    this.lastSeek = null;
    await this.control(() => this.bridge.call({ type: 'play', speed: this.state.speed }));
  }

  async pause(): Promise<void> {
    await this.control(() => this.bridge.call({ type: 'pause' }));
  }

  /** Moves the world to virtual time t of its recorded history (not
   *  logged). While one seek runs, later ones wait and only the last of
   *  them is made: dragging the scrubber never queues up work. */
  async seek(t: number): Promise<void> {
    this.seekTarget = t;
    if (this.seeking) return this.seeking;
    this.seeking = (async () => {
      while (this.seekTarget !== null) {
        const target = this.seekTarget;
        this.seekTarget = null;
        this.lastSeek = target;
        await this.control(() => this.bridge.call({ type: 'seek', t: target }));
      }
    })();
    try {
      await this.seeking;
    } finally {
      this.seeking = null;
    }
  }

  /** Back to the start of the recorded history, as a video player's
   *  rewind: playing stops first. */
  async rewind(): Promise<void> {
    if (this.state.phase !== 'ready') return;
    if (this.state.snapshot?.playing) await this.pause();
    await this.seek(0);
  }

  /** Brings back the future the last action in the past set aside (the
   *  world goes to the moment of that fork; the branch made there is set
   *  aside in its place). */
  async restoreFuture(): Promise<void> {
    if (this.state.phase !== 'ready') return;
    this.lastSeek = null;
    const generation = this.generation;
    try {
      const r = await this.track(() => this.bridge.call({ type: 'restoreFuture' }));
      if (generation !== this.generation) return;
      const log = { ...this.state.log, entries: r.entries };
      this.set({ log, history: historyOf(r.entries), console: r.console, snapshot: r.snapshot, error: null });
      this.saveNow();
      // The world is where a seek to the fork's time puts it.
      this.lastSeek = r.snapshot.history.atEnd ? null : r.snapshot.now;
    } catch (e) {
      if (generation === this.generation) this.failed(e);
    }
  }

  /** The virtual time the world was last sought to, while it stays there
   *  (null once an action, a boot or play moved it): a world in the past
   *  is rebuilt exactly by seeking to this same time, not to its clock,
   *  which a busy host may have run past it. */
  get seekedTo(): number | null {
    return this.lastSeek;
  }

  async setSpeed(speed: number): Promise<void> {
    this.set({ speed });
    if (this.state.snapshot?.playing) await this.play();
  }

  private async control(call: () => Promise<Snapshot>): Promise<void> {
    if (this.state.phase !== 'ready') return;
    try {
      this.set({ snapshot: await this.track(call) });
    } catch (e) {
      this.failed(e);
    }
  }

  setLang(lang: Lang): void {
    this.set({ lang });
  }

  setDb(db: number): void {
    this.set({ db });
    this.pushView();
  }

  /** A strip reports its width in device pixels; snapshots carry that many bins. */
  setBins(bins: number): void {
    const b = Math.max(16, Math.round(bins));
    if (b === this.bins) return;
    this.bins = b;
    this.pushView();
  }

  private pushView(): void {
    if (this.viewQueued || this.state.phase !== 'ready' || this.bins === 0) return;
    this.viewQueued = true;
    queueMicrotask(() => {
      this.viewQueued = false;
      void this.control(() => this.bridge.call({ type: 'view', view: { db: this.state.db, bins: this.bins } }));
    });
  }
}
