// The worker's message handling, apart from the worker global so that it
// can run anywhere: requests are applied strictly one after another, the
// play loop turns real time into virtual time, and pushed snapshots wait
// for the page's ack so they never pile up faster than the page draws.
import { GkError, GkTrapError } from './engine';
import { EngineDeadError, type Session } from './session';
import { slabsTransfers } from './mcsession';
import { InboxReader } from './inbox';
import {
  snapshotTransfers, timelineTransfers, type FromWorker, type LaneItems, type Request, type ResultMap, type Snapshot,
  type ToWorker, type WireError,
} from './protocol';

/** Longest stretch of real time one play tick turns into virtual time. */
const MAX_TICK_MS = 250;
const TICK_MS = 16;

export type Post = (msg: FromWorker, transfer?: Transferable[]) => void;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

function wireError(e: unknown): WireError {
  if (e instanceof GkError) return { name: e.name, message: e.message, code: e.code };
  if (e instanceof GkTrapError || e instanceof EngineDeadError) return { name: e.name, message: e.message };
  if (e instanceof Error) return { name: 'Error', message: e.message };
  return { name: 'Error', message: String(e) };
}

function transfersOf(type: Request['type'], result: unknown): Transferable[] {
  switch (type) {
    case 'trace':
      return [(result as ResultMap['trace']).data.buffer as ArrayBuffer];
    case 'boot':
    case 'act':
    case 'actAll':
    case 'restoreFuture':
      return snapshotTransfers((result as { snapshot: Snapshot }).snapshot);
    case 'view':
    case 'play':
    case 'pause':
    case 'snapshot':
    case 'seek':
      return snapshotTransfers(result as Snapshot);
    case 'timeline':
      return timelineTransfers(result as ResultMap['timeline']);
    case 'connection':
      return timelineTransfers({ items: result as LaneItems[], bins: [] });
    case 'iteration': {
      const r = result as ResultMap['iteration'];
      return r ? timelineTransfers({ items: [r.items], bins: [] }) : [];
    }
    case 'samples': {
      const r = result as ResultMap['samples'];
      return [r.times.buffer as ArrayBuffer, r.latencies.buffer as ArrayBuffer];
    }
    case 'slabs':
      return slabsTransfers(result);
    default:
      return [];
  }
}

export class WorkerHost {
  private readonly session: Session;
  private readonly post: Post;
  private readonly clock: Clock;
  private chain: Promise<void> = Promise.resolve();
  private awaitingAck = false;
  private dirty = false;
  private lastTick = 0;
  private tickTimer: unknown = null;

  constructor(session: Session, post: Post, clock: Clock = realClock) {
    this.session = session;
    this.post = post;
    this.clock = clock;
  }

  onMessage(msg: ToWorker): void {
    if (msg.type === 'inbox') {
      this.session.setInbox(new InboxReader(msg.buffer));
      return;
    }
    if (msg.type === 'ack') {
      this.awaitingAck = false;
      if (this.dirty) this.enqueue(async () => this.pushSnapshot());
      return;
    }
    this.enqueue(() => this.handle(msg));
  }

  /** Resolves when every queued job has run (for tests). */
  settled(): Promise<void> {
    return this.chain;
  }

  private enqueue(job: () => Promise<void>): void {
    this.chain = this.chain.then(job, job);
  }

  private handle(req: Request): Promise<void> {
    return this.dispatch(req).then(
      (result) => this.post({ id: req.id, ok: true, type: req.type, result } as FromWorker, transfersOf(req.type, result)),
      (e: unknown) => this.post({ id: req.id, ok: false, type: req.type, error: wireError(e) }),
    );
  }

  private async dispatch(req: Request): Promise<unknown> {
    const s = this.session;
    switch (req.type) {
      case 'boot':
        this.stopPlaying();
        return s.boot(req.log, req.script, req.asides);
      case 'act':
        return s.act(req.action);
      case 'actAll':
        this.stopPlaying();
        return s.actAll(req.actions);
      case 'view':
        s.setView(req.view);
        return s.snapshot();
      case 'play':
        this.startPlaying(req.speed);
        return s.snapshot();
      case 'pause':
        this.stopPlaying();
        return s.snapshot();
      case 'snapshot':
        return s.snapshot();
      case 'trace':
        return s.trace(req.after, req.max);
      case 'bucketKeys':
        return s.bucketKeys(req.table, req.bucket);
      case 'inspect':
        return s.inspect(req.key);
      case 'timeline':
        return s.timeline(req.t0, req.t1, req.px, req.nodes, req.source);
      case 'connection':
        return s.connection(req.fd, req.t0, req.t1);
      case 'samples':
        return s.samples(req.workload, req.max);
      case 'seek':
        return s.seek(req.t);
      case 'restoreFuture':
        this.stopPlaying();
        return s.restoreFuture();
      case 'labRun':
        return s.labRun(req.name, req.seed);
      case 'labStart': {
        const progress = await s.labStart(req.name, req.seed);
        this.scheduleLab(progress.run);
        return progress;
      }
      case 'labCancel': {
        const progress = s.labCancel();
        if (progress) this.post({ type: 'labProgress', progress });
        return progress !== null;
      }
      case 'commandNames':
        return s.commandNames();
      case 'iteration':
        return s.iteration(req.node, req.before ?? Infinity);
      case 'aof':
        return s.aof();
      case 'slabs':
        return s.slabs(req.query);
      case 'digest':
        return s.digest();
      case 'serverLog':
        return s.serverLog(req.node, req.after);
    }
  }

  /** Queues the next slice of stepped lab `run` behind whatever the page
   *  has asked for meanwhile, and reports its progress after it. */
  private scheduleLab(run: number): void {
    this.clock.setTimeout(() => this.enqueue(async () => {
      const progress = this.session.labSlice(run);
      if (!progress) return;
      this.post({ type: 'labProgress', progress });
      if (progress.state === 'running') this.scheduleLab(run);
    }), 0);
  }

  private pushSnapshot(): void {
    if (this.session.crashed) return;
    if (this.awaitingAck) {
      this.dirty = true;
      return;
    }
    this.dirty = false;
    this.awaitingAck = true;
    const snapshot = this.session.snapshot();
    this.post({ type: 'snapshot', snapshot }, snapshotTransfers(snapshot));
  }

  private startPlaying(speed: number): void {
    if (!(speed > 0)) throw new RangeError('speed must be positive');
    if (this.session.crashed) throw new EngineDeadError('the engine crashed; restart it');
    this.session.speed = speed;
    if (this.session.playing) return;
    this.session.playing = true;
    this.lastTick = this.clock.now();
    this.scheduleTick();
  }

  private stopPlaying(): void {
    this.session.playing = false;
    if (this.tickTimer !== null) this.clock.clearTimeout(this.tickTimer);
    this.tickTimer = null;
  }

  private scheduleTick(): void {
    this.tickTimer = this.clock.setTimeout(() => {
      this.tickTimer = null;
      this.enqueue(async () => this.tick());
    }, TICK_MS);
  }

  private tick(): void {
    if (!this.session.playing) return;
    const now = this.clock.now();
    const realMs = Math.min(MAX_TICK_MS, now - this.lastTick);
    this.lastTick = now;
    try {
      this.session.advanceBy(realMs * this.session.speed * 1e6);
      this.pushSnapshot();
    } catch {
      // A trap was already reported by the session as a crash event.
      this.stopPlaying();
      return;
    }
    if (this.session.playing) this.scheduleTick();
  }
}
