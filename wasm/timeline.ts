// The event-loop timeline: what every host did, when, read from the
// engine's trace and kept where the views can ask for any window of it.
//
// The engine's trace ring is small and overwritten as the world runs, so
// the session drains it often and feeds the records here. They become
// items, one lane per host (the server and each client program):
//
//   ITER          one event-loop iteration, from the wake-up to the sleep
//   POLL / READ / WRITE / FILE   a system call, [start, end]
//   EXEC          a command: from the end of whatever the host did before
//                 it (reading, parsing, the previous command) to its end
//   CRON          serverCron
//   BEFORE_SLEEP  beforeSleep, from its start to the end of the iteration
//                 (it writes the replies)
//   SEND / DONE   a client program wrote a batch / got its last reply
//   REFUSED       a command the server refused before running it (-BUSY
//                 while a script is busy, -OOM ...)
//   ERRORS        a client's batch got error replies
//
// Every time and duration is the engine's: start = record time - duration
// for system calls, phase boundaries from GK_TR_LOOP records. Nothing here
// models the server; it only lays the trace out in time.
//
// A lane keeps its recent items in a ring, and sums them into bins of
// fixed width at ten levels (16 µs up to 4.3 s per bin) for windows where
// one pixel holds many items. Rewinding truncates both to a mark taken
// with the checkpoint; replay then refills them from the trace.
import { ClientEvent, LoopPhase, Syscall, TraceType, type TraceRecord } from './engine';
import {
  TIMELINE_BIN_FIELDS, TimelineBin as BinField, TimelineItem as ItemKind, type LaneBins, type LaneItems,
  type TimelineResult,
} from './protocol';

export { TimelineItem as ItemKind, TimelineBin as BinField } from './protocol';
export const BIN_FIELDS = TIMELINE_BIN_FIELDS;

/** Items a lane keeps: the server's lane far more than a client's, since
 *  one batch of a pipeline is thousands of commands on the server. */
export const ITEM_CAPACITY = 1 << 17;
export const SERVER_ITEM_CAPACITY = 1 << 20;
export const LEVELS = 10;
export const BINS_PER_LEVEL = 1 << 13;
/** Level k sums items into bins of 2^(LEVEL0_SHIFT + 2k) ns. */
const LEVEL0_SHIFT = 14;

export function levelWidth(level: number): number {
  return 2 ** (LEVEL0_SHIFT + 2 * level);
}

export type TimelineWindow = TimelineResult;

/** What a lane looked like at a checkpoint, to truncate back to. */
interface LaneMark {
  count: number;
  maxSpan: number;
  lastT: number;
  lastKey: number;
  maxEnd: number;
  levels: { lo: number; hi: number; bins: Float32Array }[];
}

export interface TimelineMark {
  seq: number;
  time: number;
  lanes: Map<number, LaneMark>;
}

class Level {
  readonly shift: number;
  readonly width: number;
  readonly data = new Float32Array(BINS_PER_LEVEL * BIN_FIELDS);
  /** Highest bin index written; bins in [validFrom, hi] hold data. */
  hi = -1;
  validFrom = 0;

  constructor(level: number) {
    this.shift = LEVEL0_SHIFT + 2 * level;
    this.width = 2 ** this.shift;
  }

  bin(t: number): number {
    return Math.floor(t / this.width);
  }

  /** The slot of bin b, advancing hi (and clearing reused slots) if needed. */
  slot(b: number): number {
    if (b > this.hi) {
      const from = Math.max(this.hi + 1, b - BINS_PER_LEVEL + 1);
      for (let k = from; k <= b; k++) {
        const s = (k % BINS_PER_LEVEL) * BIN_FIELDS;
        this.data.fill(0, s, s + BIN_FIELDS);
      }
      this.hi = b;
      this.validFrom = Math.max(this.validFrom, b - BINS_PER_LEVEL + 1);
    }
    return (b % BINS_PER_LEVEL) * BIN_FIELDS;
  }

  add(t: number, field: number, v: number): void {
    const b = this.bin(t);
    if (b < this.validFrom) return;
    this.data[this.slot(b) + field] += v;
  }

  /** Spreads the duration [t0, t1) over the bins it covers. */
  span(t0: number, t1: number, field: number): void {
    if (!(t1 > t0)) return;
    let b = this.bin(t0);
    const last = this.bin(t1);
    if (last - b >= BINS_PER_LEVEL) b = last - BINS_PER_LEVEL + 1;
    for (; b <= last; b++) {
      if (b < this.validFrom) continue;
      const lo = Math.max(t0, b * this.width);
      const hi = Math.min(t1, (b + 1) * this.width);
      if (hi > lo) this.data[this.slot(b) + field] += hi - lo;
    }
  }

  get(b: number, field: number): number {
    if (b < this.validFrom || b > this.hi) return 0;
    return this.data[(b % BINS_PER_LEVEL) * BIN_FIELDS + field];
  }

  /** The bins from lo to hi, copied. */
  save(lo: number): { lo: number; hi: number; bins: Float32Array } {
    const from = Math.max(lo, this.validFrom);
    const out = new Float32Array(Math.max(0, this.hi - from + 1) * BIN_FIELDS);
    for (let b = from; b <= this.hi; b++) {
      const s = (b % BINS_PER_LEVEL) * BIN_FIELDS;
      out.set(this.data.subarray(s, s + BIN_FIELDS), (b - from) * BIN_FIELDS);
    }
    return { lo: from, hi: this.hi, bins: out };
  }

  restore(m: { lo: number; hi: number; bins: Float32Array }): void {
    const clearTo = Math.min(this.hi, m.lo + BINS_PER_LEVEL - 1);
    for (let b = m.lo; b <= clearTo; b++) {
      const s = (b % BINS_PER_LEVEL) * BIN_FIELDS;
      this.data.fill(0, s, s + BIN_FIELDS);
    }
    for (let b = m.lo; b <= m.hi; b++) {
      const s = (b % BINS_PER_LEVEL) * BIN_FIELDS;
      this.data.set(m.bins.subarray((b - m.lo) * BIN_FIELDS, (b - m.lo + 1) * BIN_FIELDS), s);
    }
    if (this.validFrom > m.lo) this.validFrom = m.lo;
    this.hi = Math.max(m.hi, m.lo - 1);
  }
}

interface Pending {
  t0: number;
  t1: number;
  kind: number;
  fd: number;
  n: number;
  x: number;
}

/** One host's items and bins. */
class Lane {
  readonly node: number;
  /** Items written so far; those in [validFrom, count) are in the ring. */
  count = 0;
  validFrom = 0;
  /** The ring's size: it starts small and doubles up to ITEM_CAPACITY
   *  (item a lives at a % cap; nothing wraps before the ring is full). */
  cap = 1024;
  t0 = new Float64Array(this.cap);
  t1 = new Float64Array(this.cap);
  /** Running maximum of t0: sorted, for searching. */
  key = new Float64Array(this.cap);
  kind = new Uint8Array(this.cap);
  fd = new Int32Array(this.cap);
  n = new Float64Array(this.cap);
  x = new Float64Array(this.cap);
  readonly levels: Level[] = [];
  /** Longest item so far: how far back a window's search must look. */
  maxSpan = 0;
  /** The latest end of an item. */
  maxEnd = 0;
  lastKey = 0;
  /** The time of the lane's last record (where an EXEC starts). */
  lastT = 0;
  /** Connections the host has sent batches on, and when it first did. */
  readonly fds = new Map<number, number>();
  /** The iteration in progress: its start and number, and its items. */
  iter: { begin: number; number: number; items: Pending[]; beforeSleep: number; cron: number } | null = null;

  /** The most items the ring grows to. */
  readonly capacity: number;

  constructor(node: number, capacity: number) {
    this.node = node;
    this.capacity = capacity;
    for (let k = 0; k < LEVELS; k++) this.levels.push(new Level(k));
  }

  item(p: Pending): void {
    if (this.iter) this.iter.items.push(p);
    else this.commit(p);
  }

  private grow(): void {
    const cap = this.cap * 2;
    const more = <T extends Float64Array | Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a as never);
      return b;
    };
    this.t0 = more(this.t0, (n) => new Float64Array(n));
    this.t1 = more(this.t1, (n) => new Float64Array(n));
    this.key = more(this.key, (n) => new Float64Array(n));
    this.kind = more(this.kind, (n) => new Uint8Array(n));
    this.fd = more(this.fd, (n) => new Int32Array(n));
    this.n = more(this.n, (n) => new Float64Array(n));
    this.x = more(this.x, (n) => new Float64Array(n));
    this.cap = cap;
  }

  commit(p: Pending): void {
    if (this.count === this.cap && this.cap < this.capacity) this.grow();
    const i = this.count % this.cap;
    const key = Math.max(this.lastKey, p.t0);
    this.t0[i] = p.t0;
    this.t1[i] = p.t1;
    this.key[i] = key;
    this.kind[i] = p.kind;
    this.fd[i] = p.fd;
    this.n[i] = p.n;
    this.x[i] = p.x;
    this.lastKey = key;
    this.count++;
    if (this.count - this.validFrom > this.cap) this.validFrom = this.count - this.cap;
    if (p.t1 - p.t0 > this.maxSpan) this.maxSpan = p.t1 - p.t0;
    if (p.t1 > this.maxEnd) this.maxEnd = p.t1;
    this.sum(p);
  }

  private sum(p: Pending): void {
    const busy = BUSY_FIELD[p.kind];
    const count = COUNT_FIELD[p.kind];
    for (const level of this.levels) {
      if (busy >= 0) level.span(p.t0, p.t1, busy);
      if (count >= 0) level.add(p.t0, count, 1);
      if (p.kind === ItemKind.READ) level.add(p.t0, BinField.BYTES_IN, p.n);
      else if (p.kind === ItemKind.WRITE) level.add(p.t0, BinField.BYTES_OUT, p.n);
      else if (p.kind === ItemKind.REFUSED) level.add(p.t0, BinField.REFUSED, 1);
      else if (p.kind === ItemKind.ERRORS) level.add(p.t0, BinField.REFUSED, p.n);
    }
  }

  /** Absolute index of the first item (at or after validFrom) whose key
   *  is at least t. */
  lowerBound(t: number): number {
    let lo = this.validFrom;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.key[mid % this.cap] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The earliest time the items still cover. */
  get itemsFrom(): number {
    return this.count > this.validFrom ? this.key[this.validFrom % this.cap] : Infinity;
  }

  mark(time: number): LaneMark {
    return {
      count: this.count, maxSpan: this.maxSpan, lastT: this.lastT, lastKey: this.lastKey, maxEnd: this.maxEnd,
      levels: this.levels.map((l) => l.save(l.bin(time))),
    };
  }

  truncate(m: LaneMark, time: number): void {
    for (const [fd, t] of this.fds) if (t > time) this.fds.delete(fd);
    if (this.validFrom > m.count) this.validFrom = m.count;
    this.count = m.count;
    this.maxSpan = m.maxSpan;
    this.lastT = m.lastT;
    this.lastKey = m.lastKey;
    this.maxEnd = m.maxEnd;
    this.iter = null;
    this.levels.forEach((l, k) => l.restore(m.levels[k]));
  }
}

const BUSY_FIELD: number[] = [];
const COUNT_FIELD: number[] = [];
for (let k = 0; k <= ItemKind.ERRORS; k++) {
  BUSY_FIELD[k] = -1;
  COUNT_FIELD[k] = -1;
}
BUSY_FIELD[ItemKind.ITER] = BinField.BUSY;
BUSY_FIELD[ItemKind.POLL] = BinField.POLL;
BUSY_FIELD[ItemKind.READ] = BinField.READ;
BUSY_FIELD[ItemKind.WRITE] = BinField.WRITE;
BUSY_FIELD[ItemKind.EXEC] = BinField.EXEC;
BUSY_FIELD[ItemKind.CRON] = BinField.CRON;
COUNT_FIELD[ItemKind.ITER] = BinField.ITERS;
COUNT_FIELD[ItemKind.EXEC] = BinField.CMDS;
COUNT_FIELD[ItemKind.READ] = BinField.READS;
COUNT_FIELD[ItemKind.WRITE] = BinField.WRITES;
COUNT_FIELD[ItemKind.POLL] = BinField.POLLS;
COUNT_FIELD[ItemKind.SEND] = BinField.SENDS;
COUNT_FIELD[ItemKind.DONE] = BinField.DONES;

/** Items examined looking for a command (firstExec). */
const MAX_EXEC_SCAN = 2_000_000;

/** Items examined looking back for the last busy iteration. */
const MAX_BUSY_SCAN = 200_000;

export interface BusyIteration {
  number: number;
  t0: number;
  t1: number;
  commands: number;
  reads: number;
  bytes: number;
}

/** Most items one window answer carries across all lanes. */
export const MAX_WINDOW_ITEMS = 60_000;
/** Items mode is used while the window holds at most this many items per
 *  pixel column; beyond, the columns are sums. */
const ITEMS_PER_PX = 12;

export interface TimelineOptions {
  /** What becomes of a command run inside another one by a client with
   *  no connection (a script's redis.call, a loader's command): an item
   *  of its own (the default), or only a count, for a record where a
   *  million of them would cost seconds to lay out. Counted, it leaves
   *  the command around it whole: that one's EXEC still begins where the
   *  host's work before it ended. */
  nested?: 'items' | 'count';
}

export class Timeline {
  private readonly lanes = new Map<number, Lane>();
  /** The last trace sequence number ingested. */
  lastSeq = 0;
  /** Records the engine overwrote before they were read. */
  lost = 0;
  /** Commands run inside another one, counted rather than laid out. */
  nestedCounted = 0;
  private readonly countNested: boolean;

  constructor(options: TimelineOptions = {}) {
    this.countNested = options.nested === 'count';
  }

  private lane(node: number): Lane {
    let l = this.lanes.get(node);
    if (!l) {
      l = new Lane(node, node === 0 ? SERVER_ITEM_CAPACITY : ITEM_CAPACITY);
      this.lanes.set(node, l);
    }
    return l;
  }

  /** Feeds trace records (seq increasing). */
  ingest(records: readonly TraceRecord[]): void {
    for (const r of records) {
      const seq = r.seq;
      if (seq <= this.lastSeq) continue;
      if (this.lastSeq && seq > this.lastSeq + 1) {
        this.lost += seq - this.lastSeq - 1;
        for (const l of this.lanes.values()) l.iter = null;
      }
      this.lastSeq = seq;
      this.record(r.time, r.type, r.node, r.a, r.b, r.c, r.d);
    }
  }

  private record(time: number, type: number, node: number, a: number, b: number, c: number, d: number): void {
    switch (type) {
      case TraceType.LOOP:
        this.loop(this.lane(node), time, a, d);
        return;
      case TraceType.SYSCALL: {
        const lane = this.lane(node);
        const kind = a === Syscall.READ ? ItemKind.READ : a === Syscall.WRITE ? ItemKind.WRITE
          : a === Syscall.POLL ? ItemKind.POLL : ItemKind.FILE;
        lane.item({ t0: time - d, t1: time, kind, fd: kind === ItemKind.POLL ? -1 : b | 0, n: c, x: a });
        lane.lastT = time;
        return;
      }
      case TraceType.CMD: {
        const lane = this.lane(node);
        if (this.countNested && (b | 0) === -1 && lane.iter) {
          this.nestedCounted++;
          return;
        }
        const start = lane.iter ? Math.max(lane.lastT, lane.iter.begin) : time;
        lane.item({ t0: Math.min(start, time), t1: time, kind: ItemKind.EXEC, fd: b | 0, n: c, x: d });
        lane.lastT = time;
        return;
      }
      case TraceType.REFUSED: {
        const lane = this.lane(node);
        lane.item({ t0: time, t1: time, kind: ItemKind.REFUSED, fd: b | 0, n: d, x: a });
        lane.lastT = time;
        return;
      }
      case TraceType.CLIENT: {
        const lane = this.lane(node);
        const kind = a === ClientEvent.SEND ? ItemKind.SEND : a === ClientEvent.ERRORS ? ItemKind.ERRORS
          : ItemKind.DONE;
        lane.item({ t0: time, t1: time, kind, fd: b | 0, n: c, x: d });
        if (!lane.fds.has(b)) lane.fds.set(b, time);
        lane.lastT = time;
        return;
      }
      default:
        return;
    }
  }

  private loop(lane: Lane, time: number, phase: number, d: number): void {
    const it = lane.iter;
    switch (phase) {
      case LoopPhase.BEGIN:
        if (it) this.close(lane, time);
        lane.iter = { begin: time, number: d, items: [], beforeSleep: -1, cron: -1 };
        lane.lastT = time;
        return;
      case LoopPhase.CRON:
        if (it) it.cron = time;
        lane.lastT = time;
        return;
      case LoopPhase.BEFORE_SLEEP:
        if (it) {
          if (it.cron >= 0) {
            it.items.push({ t0: it.cron, t1: time, kind: ItemKind.CRON, fd: -1, n: 0, x: 0 });
            it.cron = -1;
          }
          it.beforeSleep = time;
        }
        lane.lastT = time;
        return;
      case LoopPhase.END:
        if (it) this.close(lane, time);
        lane.lastT = time;
        return;
    }
  }

  /** Ends the iteration in progress at `end`: the iteration first, then its
   *  phases and calls in order of start (so items stay sorted by start). */
  private close(lane: Lane, end: number): void {
    const it = lane.iter!;
    lane.iter = null;
    if (it.cron >= 0) it.items.push({ t0: it.cron, t1: end, kind: ItemKind.CRON, fd: -1, n: 0, x: 0 });
    if (it.beforeSleep >= 0) {
      it.items.push({ t0: it.beforeSleep, t1: end, kind: ItemKind.BEFORE_SLEEP, fd: -1, n: 0, x: 0 });
    }
    lane.commit({ t0: it.begin, t1: end, kind: ItemKind.ITER, fd: -1, n: it.items.length, x: it.number });
    // Sorted by start; of two that start together the phase that contains
    // the other (the longer one, or beforeSleep around its writes) first.
    const phase = (p: Pending) => (p.kind === ItemKind.BEFORE_SLEEP || p.kind === ItemKind.CRON ? 0 : 1);
    it.items.sort((p, q) => p.t0 - q.t0 || q.t1 - p.t1 || phase(p) - phase(q));
    for (const p of it.items) lane.commit(p);
  }

  /** The latest end of any item: how far the hosts' clocks have run. */
  get end(): number {
    let e = 0;
    for (const l of this.lanes.values()) e = Math.max(e, l.maxEnd);
    return e;
  }

  /** Host node's last iteration that began by time t and ran at least
   *  one command: its number, span, commands, reads and bytes read. */
  lastBusy(node: number, t: number): BusyIteration | null {
    const l = this.lanes.get(node);
    if (!l) return null;
    let commands = 0;
    let reads = 0;
    let bytes = 0;
    const stop = Math.max(l.validFrom, l.count - MAX_BUSY_SCAN);
    // An iteration runs whole within one step of the world, on the host's
    // own clock, which runs ahead of the world's: the one that began by t
    // has calls that start after t, and they are all in the past. They
    // end at the next iteration (when the timeline holds a future).
    let from = l.lowerBound(t + 1);
    while (from < l.count && l.kind[from % l.cap] !== ItemKind.ITER) from++;
    for (let a = from - 1; a >= stop; a--) {
      const i = a % l.cap;
      const k = l.kind[i];
      if (k === ItemKind.EXEC) commands++;
      else if (k === ItemKind.READ) {
        reads++;
        bytes += l.n[i];
      } else if (k === ItemKind.ITER) {
        if (commands > 0) return { number: l.x[i], t0: l.t0[i], t1: l.t1[i], commands, reads, bytes };
        commands = 0;
        reads = 0;
        bytes = 0;
      }
    }
    return null;
  }

  /** The connections host `node` has sent batches on, in order. */
  connections(node: number): number[] {
    const l = this.lanes.get(node);
    return l ? [...l.fds.keys()] : [];
  }

  /** Hosts with a lane, in node order. */
  nodes(): number[] {
    return [...this.lanes.keys()].sort((a, b) => a - b);
  }

  mark(time: number): TimelineMark {
    const lanes = new Map<number, LaneMark>();
    for (const [node, l] of this.lanes) lanes.set(node, l.mark(time));
    return { seq: this.lastSeq, time, lanes };
  }

  /** Forgets everything after the mark (lanes born after it included). */
  truncate(m: TimelineMark): void {
    for (const [node, l] of this.lanes) {
      const lm = m.lanes.get(node);
      if (lm) l.truncate(lm, m.time);
      else this.lanes.delete(node);
    }
    this.lastSeq = m.seq;
  }

  /** Everything known about the window [t0, t1] at px columns: every item
   *  when they are few enough to draw one by one, else per-column sums. */
  window(t0: number, t1: number, px: number, nodes?: readonly number[]): TimelineWindow {
    const cols = Math.max(1, Math.min(8192, Math.floor(px)));
    const span = Math.max(1, t1 - t0);
    const lanes = (nodes ?? this.nodes()).map((n) => this.lanes.get(n)).filter((l): l is Lane => !!l);
    const ranges = lanes.map((l) => itemRange(l, t0, t1));
    const total = ranges.reduce((sum, r) => sum + r.back.length + r.last - r.mid, 0);
    const covered = lanes.every((l) => l.validFrom === 0 || l.itemsFrom <= t0);
    const fits = total <= Math.max(2000, cols * ITEMS_PER_PX);
    if (fits && (covered || span / cols < levelWidth(0))) return this.itemsWindow(lanes, ranges, t0, t1, cols, total);
    return this.binsWindow(lanes, t0, t1, cols);
  }

  private itemsWindow(lanes: Lane[], ranges: ItemRange[], t0: number, t1: number, cols: number,
    total: number): TimelineWindow {
    const out: LaneItems[] = [];
    let clipped = false;
    let from = 0;
    lanes.forEach((l, j) => {
      const r = ranges[j];
      const want = r.back.length + r.last - r.mid;
      const n = total <= MAX_WINDOW_ITEMS ? want : Math.floor((MAX_WINDOW_ITEMS * want) / total);
      if (n < want) clipped = true;
      const o = emptyItems(l.node, n);
      let k = 0;
      const put = (a: number) => {
        const i = a % l.cap;
        o.t0[k] = l.t0[i];
        o.t1[k] = l.t1[i];
        o.kind[k] = l.kind[i];
        o.fd[k] = l.fd[i];
        o.n[k] = l.n[i];
        o.x[k] = l.x[i];
        k++;
      };
      for (let b = r.back.length - 1; b >= 0 && k < n; b--) put(r.back[b]);
      for (let a = r.mid; a < r.last && k < n; a++) put(a);
      out.push(shrinkItems(o, k));
      if (l.validFrom > 0) from = Math.max(from, l.itemsFrom);
    });
    return { t0, t1, px: cols, mode: 'items', binNs: 0, items: out, bins: [], from, clipped, end: this.end };
  }

  private binsWindow(lanes: Lane[], t0: number, t1: number, cols: number): TimelineWindow {
    const colNs = Math.max(1, (t1 - t0) / cols);
    let level = 0;
    while (level < LEVELS - 1 && levelWidth(level + 1) <= colNs) level++;
    // A level that has dropped the window's start hands over to a coarser one.
    while (level < LEVELS - 1 && lanes.some((l) => l.levels[level].hi >= 0 &&
      l.levels[level].validFrom * l.levels[level].width > t0)) level++;
    const out: LaneBins[] = [];
    let from = 0;
    for (const l of lanes) {
      const lv = l.levels[level];
      const data = new Float32Array(cols * BIN_FIELDS);
      const b0 = lv.bin(t0);
      const b1 = lv.bin(t1);
      if (lv.width > colNs) {
        // Bins wider than columns: each column takes its share of the bin
        // under its middle (a pixel is a fraction of the bin's time).
        const share = colNs / lv.width;
        for (let c = 0; c < cols; c++) {
          const b = lv.bin(t0 + (c + 0.5) * colNs);
          if (b < lv.validFrom || b > lv.hi) continue;
          const s = (b % BINS_PER_LEVEL) * BIN_FIELDS;
          for (let f = 0; f < BIN_FIELDS; f++) data[c * BIN_FIELDS + f] = lv.data[s + f] * share;
        }
      } else {
        for (let b = Math.max(b0, lv.validFrom); b <= Math.min(b1, lv.hi); b++) {
          const mid = (b + 0.5) * lv.width;
          const c = Math.min(cols - 1, Math.max(0, Math.floor((mid - t0) / colNs)));
          const s = (b % BINS_PER_LEVEL) * BIN_FIELDS;
          for (let f = 0; f < BIN_FIELDS; f++) data[c * BIN_FIELDS + f] += lv.data[s + f];
        }
      }
      out.push({ node: l.node, data });
      from = Math.max(from, lv.validFrom * lv.width);
    }
    return {
      t0, t1, px: cols, mode: 'bins', binNs: levelWidth(level), items: [], bins: out, from, clipped: false,
      end: this.end,
    };
  }

  /** The items of one connection in [t0, t1]: its client program's calls
   *  and batches and the server's reads, writes and commands on it. Runs
   *  of commands one after another become one EXEC item (n = how many),
   *  and past `max` items per host the latest are kept. */
  connection(fd: number, t0: number, t1: number, max = 20_000): LaneItems[] {
    const out: LaneItems[] = [];
    for (const l of this.lanes.values()) {
      const first = l.lowerBound(t0 - Math.min(l.maxSpan, MAX_LOOKBACK_NS));
      const picked: Pending[] = [];
      for (let a = l.lowerBound(t1 + 1) - 1; a >= first && picked.length < max; a--) {
        const i = a % l.cap;
        if (l.fd[i] !== fd || l.t1[i] < t0) continue;
        const kind = l.kind[i];
        const prev = picked[picked.length - 1];
        if (kind === ItemKind.EXEC && prev && prev.kind === ItemKind.EXEC) {
          prev.t0 = l.t0[i];
          prev.n++;
          prev.x = l.x[i];
          continue;
        }
        picked.push({ t0: l.t0[i], t1: l.t1[i], kind, fd, n: kind === ItemKind.EXEC ? 1 : l.n[i], x: l.x[i] });
      }
      if (!picked.length) continue;
      picked.reverse();
      const o = emptyItems(l.node, picked.length);
      picked.forEach((p, k) => {
        o.t0[k] = p.t0;
        o.t1[k] = p.t1;
        o.kind[k] = p.kind;
        o.fd[k] = fd;
        o.n[k] = p.n;
        o.x[k] = p.x;
      });
      out.push(o);
    }
    return out;
  }

  /** The first command node ran that ended after `after` and by `until`,
   *  of argc arguments and, if cmd is given, of that command id: its end
   *  and id; null if there is none, or if the record no longer reaches
   *  back to `after` (commands of an iteration in progress are not held
   *  yet). */
  firstExec(node: number, after: number, until: number, argc: number, cmd?: number): { t: number; cmd: number } | null {
    const l = this.lanes.get(node);
    if (!l || (l.validFrom > 0 && l.itemsFrom > after)) return null;
    const end = Math.min(l.count, l.validFrom + l.cap);
    for (let a = l.lowerBound(after - Math.min(l.maxSpan, MAX_LOOKBACK_NS)), k = 0; a < end && k < MAX_EXEC_SCAN; a++, k++) {
      const i = a % l.cap;
      if (l.key[i] > until) return null;
      if (l.kind[i] !== ItemKind.EXEC || l.t1[i] <= after || l.t1[i] > until || l.n[i] !== argc) continue;
      if (cmd !== undefined && l.x[i] !== cmd) continue;
      return { t: l.t1[i], cmd: l.x[i] };
    }
    return null;
  }

  /** The last completed iteration of node that ended at or before t, if
   *  it is still held: its number, start and end. */
  lastIteration(node: number, t = Infinity): { number: number; t0: number; t1: number } | null {
    const l = this.lanes.get(node);
    if (!l) return null;
    for (let a = Math.min(l.count, l.lowerBound(t + 1)) - 1; a >= l.validFrom && a >= l.count - 100_000; a--) {
      const i = a % l.cap;
      if (l.kind[i] === ItemKind.ITER && l.t1[i] <= t) return { number: l.x[i], t0: l.t0[i], t1: l.t1[i] };
    }
    return null;
  }
}

interface ItemRange {
  /** Items that start before the window and reach into it, newest first. */
  back: number[];
  /** Items [mid, last) start inside the window. */
  mid: number;
  last: number;
}

/** How far before a window to look for items reaching into it. */
const MAX_LOOKBACK_NS = 60e9;
/** Items examined when looking back. */
const MAX_LOOKBACK_ITEMS = 4096;

function itemRange(l: Lane, t0: number, t1: number): ItemRange {
  const mid = l.lowerBound(t0);
  const last = l.lowerBound(t1 + 1);
  const back: number[] = [];
  const stop = t0 - Math.min(l.maxSpan, MAX_LOOKBACK_NS);
  for (let a = mid - 1, seen = 0; a >= l.validFrom && seen < MAX_LOOKBACK_ITEMS; a--, seen++) {
    const i = a % l.cap;
    if (l.key[i] < stop) break;
    if (l.t1[i] >= t0) back.push(a);
  }
  return { back, mid, last };
}

function emptyItems(node: number, n: number): LaneItems {
  const size = Math.max(0, n);
  return {
    node, count: size, t0: new Float64Array(size), t1: new Float64Array(size), kind: new Uint8Array(size),
    fd: new Int32Array(size), n: new Float64Array(size), x: new Float64Array(size),
  };
}

function shrinkItems(o: LaneItems, k: number): LaneItems {
  if (k === o.count) return o;
  return {
    node: o.node, count: k, t0: o.t0.slice(0, k), t1: o.t1.slice(0, k), kind: o.kind.slice(0, k),
    fd: o.fd.slice(0, k), n: o.n.slice(0, k), x: o.x.slice(0, k),
  };
}
