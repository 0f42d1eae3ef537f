// A stepped lab run live: seed 004's eval-vs-zcard (engine/src/labs_eval.c)
// in a module instance of its own, a step at a time, so that the worker
// answers the page between two slices of it and reports how far it is.
//
// Why not in the sandbox, as the other labs run: a million sorted sets
// take 150 MB of memory that every checkpoint of the session would copy,
// and the ZCARD run's million round trips are some twenty million trace
// records, seconds of work for the timeline alone. Here the dataset lives
// only as long as the lab, and the world records only the EVAL run: its
// client writing the 15 MB command, the monitor's PINGs, and the frozen
// iteration with the million commands the script calls. That record
// becomes a timeline of its own, which the page shows in place of the
// sandbox's once the lab is done.
//
// At the end, or when stopped, the module is dropped whole: freeing a
// million keys one by one would cost the reader another second.
import { EvalLabPart, type EvalLab, type EvalLabProgress, type Glasskv } from './engine';
import type { LabProgress, SteppedLabName } from './protocol';
import { Timeline } from './timeline';

/** Real time one slice may take before the worker turns to the page's
 *  requests and reports progress. A step that cannot be cut takes what it
 *  takes: the EVAL's frozen iteration is one event of the world. */
export const SLICE_MS = 40;
/** Real time one engine step should take: the work per step grows or
 *  shrinks to stay near it. */
const STEP_MS = 8;
const MIN_WORK = 256;
const MAX_WORK = 1 << 22;
/** Trace records read from the lab's world at once. */
const DRAIN_BATCH = 16_384;

const PARTS: Record<number, LabProgress['part']> = {
  [EvalLabPart.LOAD]: 'load',
  [EvalLabPart.ZCARD]: 'zcard',
  [EvalLabPart.EVAL]: 'eval',
  [EvalLabPart.DONE]: 'done',
};

export class LiveLab {
  readonly name: SteppedLabName;
  readonly run: number;
  /** The record of the EVAL run, filled as the lab goes. The million
   *  ZCARDs the script calls are counted, not laid out one by one: that
   *  would double the time the lab takes. */
  readonly timeline = new Timeline({ nested: 'count' });
  private lab: EvalLab | null;
  private readonly clock: () => number;
  private readonly started: number;
  private ended = 0;
  private state: LabProgress['state'] = 'running';
  private last: EvalLabProgress;
  private result: LabProgress['result'] = null;
  private error: string | null = null;
  private drained = 0;
  private work = 4096;

  /** Starts the lab in gk, a module instance nothing else uses (it is
   *  dropped at the end). */
  constructor(gk: Glasskv, name: SteppedLabName, seed: number, run: number, clock: () => number) {
    this.name = name;
    this.run = run;
    this.clock = clock;
    this.started = clock();
    this.lab = gk.evalLab(seed, true);
    this.last = this.lab.progress();
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** Runs steps for about ms of real time (at least one step), reading the
   *  trace after each, and stops early where a part begins, so that the
   *  page hears of it before the part's first step (the EVAL's freeze
   *  holds the worker for a second); ends the lab when it is done or
   *  fails. */
  slice(ms = SLICE_MS): LabProgress {
    const until = this.clock() + ms;
    const part = this.last.part;
    while (this.lab) {
      const t0 = this.clock();
      try {
        this.last = this.lab.step(this.work);
        this.drain(this.lab);
        if (this.last.part === EvalLabPart.DONE) {
          this.result = { name: this.name, json: this.lab.figures(), wallMs: this.clock() - this.started };
          this.end('done');
          break;
        }
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        this.end('failed');
        break;
      }
      const took = this.clock() - t0;
      if (took < STEP_MS / 2) this.work = Math.min(MAX_WORK, this.work * 2);
      else if (took > STEP_MS * 2) this.work = Math.max(MIN_WORK, Math.floor(this.work / 2));
      if (this.clock() >= until || this.last.part !== part) break;
    }
    return this.progress();
  }

  /** Stops the lab where it is. */
  cancel(): LabProgress {
    if (this.running) this.end('cancelled');
    return this.progress();
  }

  progress(): LabProgress {
    const p = this.last;
    return {
      name: this.name, run: this.run, state: this.state, part: PARTS[p.part], done: p.done, total: p.total, keys: p.keys,
      nowNs: p.nowNs, partFromNs: p.partFromNs, wallMs: (this.ended || this.clock()) - this.started,
      result: this.result, error: this.error,
    };
  }

  private drain(lab: EvalLab): void {
    for (;;) {
      const batch = lab.world.traceRead(this.drained, DRAIN_BATCH);
      if (!batch.count) return;
      this.timeline.ingest(batch.records);
      this.drained = batch.records[batch.count - 1].seq;
      if (batch.count < DRAIN_BATCH) return;
    }
  }

  /** Drops the lab with its module, unreleased: nothing refers to either
   *  afterwards, and the memory goes with them. */
  private end(state: LabProgress['state']): void {
    this.state = state;
    this.ended = this.clock();
    this.lab?.world.forget();
    this.lab = null;
  }
}
