// What the event-loop views show, outside React: the timeline's viewport
// and the window of trace the worker last sent for it, the connection the
// sequence diagram follows, latency samples, throughput over the whole
// history, command names, the phase being stepped through, and headless
// lab runs. Every number comes from the worker (the engine's state and
// trace); this only decides what to ask for and when.
//
// Requests are coalesced: at most one of each kind is in flight, and a
// change while one is out asks again once it returns, with the latest
// parameters. Refreshes follow the store's snapshots (time moved).
import type { Bridge } from '../../../wasm/bridge';
import type {
  FiguresLabName, IterationResult, LabName, LabProgress, LabRunResult, LaneItems, SamplesResult, Snapshot, SteppedLabName,
  TimelineResult,
} from '../../../wasm/protocol';
import { TimelineItem } from '../../../wasm/protocol';
import type { Store } from './store';

export interface Viewport {
  /** Window start and end, virtual ns. */
  t0: number;
  t1: number;
  /** Keep the window's right edge at the newest activity. */
  follow: boolean;
}

export interface SequenceView {
  fd: number;
  t0: number;
  t1: number;
  items: LaneItems[];
}

export type LabRunState = LabRunResult | { running: true } | { error: string };

export interface LoopState {
  viewport: Viewport;
  timeline: TimelineResult | null;
  /** Connection the sequence diagram follows (a workload's), or null. */
  conn: number | null;
  sequence: SequenceView | null;
  /** Recent batch latencies per workload id. */
  samples: Record<number, SamplesResult>;
  /** Server throughput over the whole history (bins of node 0). */
  throughput: TimelineResult | null;
  names: Record<number, string>;
  /** The iteration whose phases are being stepped through, and the phase. */
  phase: { iteration: IterationResult; index: number } | null;
  labRuns: Partial<Record<LabName | FiguresLabName, LabRunState>>;
  /** The lab whose headless figures are shown. */
  labShown: LabName | FiguresLabName | null;
  /** The stepped lab (eval-vs-zcard) running live in the worker, or its
   *  last run: its progress, and its figures once done. */
  liveLab: LabProgress | null;
  /** Whose timeline the timeline shows: the sandbox's, or the one the
   *  stepped lab's world recorded (its EVAL run). */
  timelineSource: 'sandbox' | 'lab';
}

/** What the page reads of a stepped lab's figures (gkLabRun's JSON). */
export interface EvalLabRun {
  name: string;
  command: string;
  start_ns: number;
  end_ns: number;
  commands: number;
  result: number;
  virtual_seconds: number;
  client: {
    node: number; bytes_written: number; bytes_read: number; reads: number; writes: number; polls: number;
    phases_ms: { build: number; write: number; wait_read: number };
  };
  server: {
    reads: number; writes: number; polls: number; iterations: number;
    longest_iteration: { ms: number; start_ns: number; end_ns: number };
  };
  server_calls: number;
  freeze_ms: number;
  monitor: { node: number; interval_ms: number; replies: number; max_ms: number };
}

export interface EvalLabFigures {
  dataset: { preloaded_keys: number; load_virtual_ms: number; memory_mb: number };
  zcard: EvalLabRun;
  eval: EvalLabRun;
}

/** The figures of a finished eval-vs-zcard run, by part. */
export function evalLabFigures(json: string): EvalLabFigures {
  const runs = (JSON.parse(json) as { runs: unknown[] }).runs;
  return {
    dataset: runs[0] as EvalLabFigures['dataset'],
    zcard: runs[1] as EvalLabRun,
    eval: runs[2] as EvalLabRun,
  };
}

/** Narrowest and widest windows: from nanoseconds to hours. */
export const MIN_SPAN_NS = 200;
export const MAX_SPAN_NS = 4 * 3600e9;
/** The window a newcomer first sees: half a millisecond holds three or
 *  four iterations of a server busy with a benchmark, each wide enough to
 *  show its phases (two milliseconds held a dozen, too thin to read). */
const DEFAULT_SPAN_NS = 5e5;
/** Virtual time per CSS pixel of the default window, at most: a narrower
 *  timeline (a phone's, about 180 px) opens on a shorter window, so that
 *  an iteration keeps about the width it has on a laptop. */
const DEFAULT_NS_PER_PX = 800;

/** The window the timeline opens on when its plot is `cssPx` CSS pixels
 *  wide: half a millisecond, shorter on a narrow plot (in steps of 10 µs,
 *  50 µs at least). */
export function defaultSpan(cssPx: number): number {
  const fit = Math.round((cssPx * DEFAULT_NS_PER_PX) / 1e4) * 1e4;
  return Math.max(5e4, Math.min(DEFAULT_SPAN_NS, fit));
}
/** The sequence diagram shows this many round trips at most. */
const SEQUENCE_BATCHES = 3;

type Kind = 'timeline' | 'sequence' | 'samples' | 'throughput';

export function clampSpan(span: number): number {
  return Math.max(MIN_SPAN_NS, Math.min(MAX_SPAN_NS, span));
}

/** The phases of an iteration in order (the iteration item itself left out). */
export function phasesOf(it: IterationResult): number[] {
  const out: number[] = [];
  for (let i = 0; i < it.items.count; i++) if (it.items.kind[i] !== TimelineItem.ITER) out.push(i);
  return out;
}

export class LoopModel {
  private state: LoopState = {
    viewport: { t0: 0, t1: DEFAULT_SPAN_NS, follow: true },
    timeline: null, conn: null, sequence: null, samples: {}, throughput: null, names: {}, phase: null, labRuns: {},
    labShown: null, liveLab: null, timelineSource: 'sandbox',
  };
  /** The sandbox's viewport while the lab's timeline is shown. */
  private sandboxViewport: Viewport | null = null;
  private readonly listeners = new Set<() => void>();
  private readonly bridge: Bridge;
  private readonly store: Store;
  private width = 0;
  /** The window's span was chosen (a zoom, a pan, a fit): the plot's
   *  width no longer picks it. */
  private spanChosen = false;
  private chartWidth = 0;
  private readonly busy = new Set<Kind>();
  private readonly again = new Set<Kind>();
  private lastSnapshot: Snapshot | null = null;
  private seqSpan = 20e6;
  private sampleTimer: ReturnType<typeof setTimeout> | null = null;
  private pendingIdle: (() => void)[] = [];
  /** The world's time and log length when the phase was shown: the phase
   *  is dropped once either moves. */
  private phaseAt = { now: 0, log: 0 };

  constructor(bridge: Bridge, store: Store) {
    this.bridge = bridge;
    this.store = store;
    store.subscribe(() => this.onStore());
    bridge.subscribe((e) => {
      if (e.type === 'labProgress') this.onLabProgress(e.progress);
      else if (e.type === 'dead' && this.state.liveLab?.state === 'running') {
        this.set({ liveLab: { ...this.state.liveLab, state: 'failed', error: e.message } });
      }
    });
  }

  getState = (): LoopState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private set(patch: Partial<LoopState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
  }

  /** Resolves when no view request is in flight (for tests). */
  idle(): Promise<void> {
    if (this.busy.size === 0) return Promise.resolve();
    return new Promise((r) => this.pendingIdle.push(r));
  }

  private onStore(): void {
    const s = this.store.getState();
    const snap = s.snapshot;
    if (!snap || snap === this.lastSnapshot || s.phase !== 'ready') return;
    const first = this.lastSnapshot === null;
    const rewound = this.lastSnapshot !== null && snap.now < this.lastSnapshot.now;
    const jumped = this.lastSnapshot !== null && this.lastSnapshot.history.atEnd !== snap.history.atEnd;
    this.lastSnapshot = snap;
    const { t0, t1, follow } = this.state.viewport;
    const sandbox = this.state.timelineSource === 'sandbox';
    if (sandbox && (rewound || jumped) && !follow && (snap.now < t0 || snap.now > t1)) {
      // A seek moved the world out of sight: bring it back, same zoom.
      const span = t1 - t0;
      this.set({ viewport: { t0: snap.now - span * 0.6, t1: snap.now + span * 0.4, follow: false } });
    }
    if (first && !Object.keys(this.state.names).length) void this.loadNames();
    if (this.state.phase && (rewound || snap.now !== this.phaseAt.now || snap.logLength !== this.phaseAt.log)) {
      this.set({ phase: null });
    }
    if (this.state.conn === null || !snap.workloads.some((w) => w.conns.includes(this.state.conn!))) {
      const first = snap.workloads.find((w) => w.conns.length);
      const conn = first ? first.conns[0] : null;
      if (conn !== this.state.conn) this.set({ conn, sequence: null });
    }
    this.refresh('timeline');
    this.refresh('sequence');
    this.refresh('throughput');
    if (!this.sampleTimer) {
      this.sampleTimer = setTimeout(() => {
        this.sampleTimer = null;
        this.refresh('samples');
      }, 120);
    }
  }

  private async loadNames(): Promise<void> {
    try {
      this.set({ names: await this.bridge.call({ type: 'commandNames' }) });
    } catch {
      // Names are a nicety: ids are shown instead.
    }
  }

  // ---- Viewport. ----

  /** The timeline's plot is this many device pixels wide (cssPx CSS
   *  pixels): one column of the window each. Until a span is chosen, the
   *  width picks the window's (defaultSpan). */
  setWidth(px: number, cssPx = px): void {
    const w = Math.max(1, Math.round(px));
    const { t0, t1, follow } = this.state.viewport;
    const span = defaultSpan(cssPx);
    if (!this.spanChosen && span !== t1 - t0) this.set({ viewport: { t0: t1 - span, t1, follow } });
    else if (w === this.width) return;
    this.width = w;
    this.refresh('timeline');
  }

  setChartWidth(px: number): void {
    const w = Math.max(1, Math.round(px));
    if (w === this.chartWidth) return;
    this.chartWidth = w;
    this.refresh('throughput');
  }

  /** The newest time worth showing: the world's clock (a host's iteration
   *  that has run past it on its own clock is drawn up to it, no further). */
  liveEdge(): number {
    const snap = this.lastSnapshot;
    return snap ? snap.now : (this.state.timeline?.end ?? 0);
  }

  setViewport(v: Viewport): void {
    this.spanChosen = true;
    const span = clampSpan(v.t1 - v.t0);
    let t0 = v.t0;
    if (t0 < -span / 2) t0 = -span / 2;
    this.set({ viewport: { t0, t1: t0 + span, follow: v.follow } });
    this.refresh('timeline');
  }

  /** Zooms by `factor` (below 1 zooms in) around time `at`. */
  zoom(factor: number, at?: number): void {
    const { t0, t1, follow } = this.state.viewport;
    const pivot = at ?? (follow ? t1 : (t0 + t1) / 2);
    const span = clampSpan((t1 - t0) * factor);
    const frac = (pivot - t0) / (t1 - t0);
    this.setViewport({ t0: pivot - frac * span, t1: pivot - frac * span + span, follow: follow && at === undefined });
  }

  pan(dt: number): void {
    const { t0, t1 } = this.state.viewport;
    this.setViewport({ t0: t0 + dt, t1: t1 + dt, follow: false });
  }

  follow(on: boolean): void {
    const { t0, t1 } = this.state.viewport;
    this.setViewport({ t0, t1, follow: on });
  }

  /** Shows the whole recorded history (of the lab's EVAL run, when its
   *  timeline is shown). */
  fit(): void {
    const run = this.labEvalRun();
    if (this.state.timelineSource === 'lab' && run) {
      const span = run.end_ns - run.start_ns;
      this.setViewport({ t0: run.start_ns - span * 0.01, t1: run.end_ns + span * 0.01, follow: false });
      return;
    }
    const end = Math.max(this.lastSnapshot?.history.end ?? 0, this.state.timeline?.end ?? 0, MIN_SPAN_NS);
    this.setViewport({ t0: 0, t1: end * 1.02, follow: false });
  }

  /** Shows [t0, t1] (an iteration, a phase) with a margin. */
  focus(t0: number, t1: number): void {
    const span = Math.max(MIN_SPAN_NS, t1 - t0);
    this.setViewport({ t0: t0 - span * 0.25, t1: t1 + span * 0.25, follow: false });
  }

  /** The window the timeline asks for: the viewport, moved to the live
   *  edge when following. */
  window(): { t0: number; t1: number } {
    const { t0, t1, follow } = this.state.viewport;
    if (!follow) return { t0, t1 };
    const span = t1 - t0;
    let edge = this.liveEdge();
    // Following a server that has gone quiet: keep its last work in view
    // rather than an empty stretch up to now.
    const busy = this.lastSnapshot?.busy;
    if (busy && edge - busy.t1 > span) edge = busy.t1 + span * 0.1;
    return { t0: edge + span * 0.04 - span, t1: edge + span * 0.04 };
  }

  // ---- Connection and phases. ----

  selectConn(fd: number | null): void {
    this.seqSpan = 20e6;
    this.set({ conn: fd, sequence: null });
    this.refresh('sequence');
  }

  /** Steps through the phases of the server's iterations: the next phase
   *  of the one shown, or the first phase of the next iteration (which
   *  the engine runs whole, as one event). */
  async nextPhase(node = 0): Promise<void> {
    const cur = this.state.phase;
    if (cur) {
      const phases = phasesOf(cur.iteration);
      const k = phases.indexOf(cur.index);
      if (k >= 0 && k + 1 < phases.length) {
        this.showPhase(cur.iteration, phases[k + 1]);
        return;
      }
    }
    await this.store.act({ kind: 'stepIteration', node });
    const it = await this.bridge.call({ type: 'iteration', node });
    if (!it) return;
    const phases = phasesOf(it);
    if (phases.length) this.showPhase(it, phases[0]);
  }

  private showPhase(iteration: IterationResult, index: number): void {
    if (this.state.timelineSource === 'lab') this.showSandboxTimeline();
    const snap = this.lastSnapshot;
    this.phaseAt = { now: snap?.now ?? 0, log: snap?.logLength ?? 0 };
    this.set({ phase: { iteration, index } });
    this.focus(iteration.t0, iteration.t1);
  }

  clearPhase(): void {
    if (this.state.phase) this.set({ phase: null });
  }

  // ---- Labs. ----

  async runLab(name: LabName | FiguresLabName, seed: number): Promise<void> {
    this.set({ labRuns: { ...this.state.labRuns, [name]: { running: true } }, labShown: name });
    try {
      const r = await this.bridge.call({ type: 'labRun', name, seed });
      this.set({ labRuns: { ...this.state.labRuns, [name]: r } });
    } catch (e) {
      this.set({ labRuns: { ...this.state.labRuns, [name]: { error: e instanceof Error ? e.message : String(e) } } });
    }
  }

  // ---- The stepped lab, run live. ----

  /** Starts eval-vs-zcard in the worker, a module of its own; its
   *  progress comes as events. The timeline goes back to the sandbox's
   *  until the new run is done. */
  async startLiveLab(name: SteppedLabName, seed: number): Promise<void> {
    this.showSandboxTimeline();
    try {
      this.onLabProgress(await this.bridge.call({ type: 'labStart', name, seed }));
    } catch (e) {
      this.set({
        liveLab: {
          name, run: -1, state: 'failed', part: 'load', done: 0, total: 0, keys: 0,
          nowNs: 0,
          partFromNs: 0, wallMs: 0, result: null, error: e instanceof Error ? e.message : String(e),
        },
      });
    }
  }

  /** Stops the stepped lab where it is. */
  async cancelLiveLab(): Promise<void> {
    try {
      await this.bridge.call({ type: 'labCancel' });
    } catch {
      // A dead worker has stopped it already.
    }
  }

  private onLabProgress(p: LabProgress): void {
    const cur = this.state.liveLab;
    if (cur && p.run < cur.run) return;
    if (cur && p.run === cur.run && cur.state !== 'running') return;
    this.set({ liveLab: p });
    if (p.state === 'done') this.showLabTimeline();
  }

  /** The EVAL run of the last finished stepped lab, from its figures. */
  labEvalRun(): EvalLabRun | null {
    const json = this.state.liveLab?.result?.json;
    return json ? evalLabFigures(json).eval : null;
  }

  /** Shows the timeline the stepped lab recorded, on its frozen
   *  iteration (the longest of the EVAL run, as the engine measured it). */
  showLabTimeline(): void {
    const run = this.labEvalRun();
    if (!run) return;
    if (this.state.timelineSource === 'sandbox') this.sandboxViewport = this.state.viewport;
    const { start_ns: t0, end_ns: t1 } = run.server.longest_iteration;
    const pad = (t1 - t0) * 0.15;
    this.set({ timelineSource: 'lab', phase: null });
    this.setViewport({ t0: t0 - pad, t1: t1 + pad, follow: false });
  }

  /** Back to the sandbox's timeline, where it was. */
  showSandboxTimeline(): void {
    if (this.state.timelineSource === 'sandbox') return;
    const v = this.sandboxViewport ?? { t0: 0, t1: DEFAULT_SPAN_NS, follow: true };
    this.sandboxViewport = null;
    this.set({ timelineSource: 'sandbox' });
    this.setViewport(v);
  }

  // ---- Requests. ----

  private refresh(kind: Kind): void {
    if (this.busy.has(kind)) {
      this.again.add(kind);
      return;
    }
    if (this.store.getState().phase !== 'ready') return;
    this.busy.add(kind);
    void this.fetch(kind).catch(() => undefined).finally(() => {
      this.busy.delete(kind);
      if (this.again.delete(kind)) this.refresh(kind);
      if (this.busy.size === 0 && this.pendingIdle.length) {
        const waiting = this.pendingIdle;
        this.pendingIdle = [];
        for (const w of waiting) w();
      }
    });
  }

  private async fetch(kind: Kind): Promise<void> {
    const snap = this.lastSnapshot;
    switch (kind) {
      case 'timeline': {
        if (!this.width) return;
        const { t0, t1 } = this.window();
        const source = this.state.timelineSource;
        const timeline = await this.bridge.call({
          type: 'timeline', t0, t1, px: this.width, ...(source === 'lab' ? { source } : {}),
        });
        // A switch of source while the answer was on its way asks again.
        if (source === this.state.timelineSource) this.set({ timeline });
        return;
      }
      case 'throughput': {
        if (!snap || !this.chartWidth) return;
        const end = Math.max(snap.history.end, snap.now, 1e6);
        const throughput = await this.bridge.call({ type: 'timeline', t0: 0, t1: end, px: this.chartWidth, nodes: [0] });
        this.set({ throughput });
        return;
      }
      case 'samples': {
        if (!snap) return;
        const samples: Record<number, SamplesResult> = {};
        for (const w of snap.workloads) samples[w.id] = await this.bridge.call({ type: 'samples', workload: w.id, max: 4096 });
        this.set({ samples });
        return;
      }
      case 'sequence':
        await this.fetchSequence();
        return;
    }
  }

  /** The last few complete round trips of the selected connection, up to
   *  now: the window widens until it holds them (or a minute). */
  private async fetchSequence(): Promise<void> {
    const fd = this.state.conn;
    const snap = this.lastSnapshot;
    if (fd === null || !snap) {
      if (this.state.sequence) this.set({ sequence: null });
      return;
    }
    const end = snap.now;
    for (;;) {
      const t0 = Math.max(0, end - this.seqSpan);
      const items = await this.bridge.call({ type: 'connection', fd, t0, t1: end + 1 });
      const client = items.find((l) => l.node !== 0);
      const sends: number[] = [];
      if (client) for (let i = 0; i < client.count; i++) if (client.kind[i] === TimelineItem.SEND) sends.push(client.t0[i]);
      if (sends.length > SEQUENCE_BATCHES || t0 === 0 || this.seqSpan >= 60e9) {
        const from = sends.length > SEQUENCE_BATCHES ? sends[sends.length - SEQUENCE_BATCHES - 1] : t0;
        if (sends.length > 4 * SEQUENCE_BATCHES && this.seqSpan > 1e4) this.seqSpan /= 2;
        // A connection gone quiet is shown up to its last activity.
        let last = from;
        for (const l of items) for (let i = 0; i < l.count; i++) last = Math.max(last, l.t1[i]);
        const until = Math.min(end, last + (last - from) * 0.06);
        this.set({ sequence: { fd, t0: from, t1: Math.max(until, from + 1), items } });
        return;
      }
      this.seqSpan *= 4;
    }
  }
}
