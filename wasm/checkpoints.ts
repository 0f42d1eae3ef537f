// Checkpoints of a session: copies of the engine's memory at positions of
// the input log, so that rewinding to any virtual time costs one restore
// plus the replay of a short stretch of the log, never the whole log.
//
// A position is (index, partial, now): the first `index` entries are
// applied, and with `partial` the entry at `index` (a time advance) is
// applied up to `now`. Positions only move forward along the log, and so
// does virtual time, so checkpoints are kept in order of both.
import type { MemoryImage } from './memimage';

export interface Position {
  index: number;
  partial: boolean;
  now: number;
}

export interface Checkpoint<S, M> extends Position {
  /** The engine's trace sequence number at the checkpoint. */
  traceSeq: number;
  image: MemoryImage;
  /** What the session keeps outside the engine (tiny), copied. */
  state: S;
  /** The timeline's mark, or null when the timeline was ahead of the
   *  engine (a checkpoint taken while replaying after a rewind). */
  mark: M | null;
}

/** a is at or before b along the log. */
export function atOrBefore(a: Position, b: Position): boolean {
  if (a.now !== b.now) return a.now < b.now;
  if (a.index !== b.index) return a.index < b.index;
  return !a.partial || b.partial;
}

export class Checkpoints<S, M> {
  private list: Checkpoint<S, M>[] = [];
  private readonly budget: number;
  /** Bytes of distinct pages the images hold. */
  bytes = 0;

  constructor(budget: number) {
    this.budget = budget;
  }

  get all(): readonly Checkpoint<S, M>[] {
    return this.list;
  }

  clear(): void {
    this.list = [];
    this.bytes = 0;
  }

  /** The last checkpoint at or before p. */
  latest(p: Position): Checkpoint<S, M> | null {
    for (let i = this.list.length - 1; i >= 0; i--) if (atOrBefore(this.list[i], p)) return this.list[i];
    return null;
  }

  /** The last checkpoint at or before virtual time t. */
  latestAt(t: number): Checkpoint<S, M> | null {
    for (let i = this.list.length - 1; i >= 0; i--) if (this.list[i].now <= t) return this.list[i];
    return null;
  }

  /** The last checkpoint with a timeline mark at or before p. */
  latestMarked(p: Position): Checkpoint<S, M> | null {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const c = this.list[i];
      if (c.mark && atOrBefore(c, p)) return c;
    }
    return null;
  }

  /** The image a new checkpoint at p should share pages with. */
  neighbour(p: Position): MemoryImage | null {
    return this.latest(p)?.image ?? null;
  }

  insert(c: Checkpoint<S, M>): void {
    let i = this.list.length;
    while (i > 0 && !atOrBefore(this.list[i - 1], c)) i--;
    this.list.splice(i, 0, c);
    this.bytes += c.image.ownBytes;
    if (this.bytes > this.budget) this.thin();
  }

  /** Keeps the checkpoints still valid once the log is cut to `length`
   *  entries at time now: those before the cut. */
  dropAfter(length: number, now: number): void {
    const keep = this.list.filter((c) => c.now <= now && (c.index < length || (c.index === length && !c.partial)));
    if (keep.length !== this.list.length) {
      this.list = keep;
      this.recount();
    }
  }

  /** Over budget: drops every other checkpoint but the first and the last
   *  (rewinding gets slower, never wrong), until the rest fits. */
  private thin(): void {
    while (this.bytes > this.budget && this.list.length > 2) {
      this.list = this.list.filter((_, i) => i === 0 || i === this.list.length - 1 || i % 2 === 0);
      this.recount();
      if (this.list.length <= 2) break;
    }
  }

  private recount(): void {
    const pages = new Set<Uint8Array>();
    let bytes = 0;
    for (const c of this.list) {
      for (const p of c.image.pages) {
        if (pages.has(p)) continue;
        pages.add(p);
        bytes += p.length;
      }
    }
    this.bytes = bytes;
  }
}
