// The session's memcached side: a memcached-style node in a World of its
// own (so the Redis world's host ids stay as lessons expect: the server 0,
// client programs 1, 2, ...), created by the log's first memcached action
// and created again when mcStart changes its options; the protocol lines
// typed at it, slices of fill workloads, and the Slabs view's queries.
//
// Both worlds live in the same module, so a checkpoint (a copy of linear
// memory) holds this one too; what stays outside the engine (the world's
// address, the node and connection ids, the console transcript, the fill's
// progress) is small and copied into every checkpoint with McState.
//
// The two clocks go together: before each memcached action the node's
// world runs up to the virtual time the action is stamped with (so expiry
// times typed at it mean what they say), and after it the session's world
// runs up to where the node's clock got. A replay gives the same bytes.
// Reading the view runs nothing.
import { GkError, World, type Glasskv } from './engine';
import {
  emptyFillResult, memcachedAdd, memcachedChunks, memcachedClasses, memcachedFill, memcachedItemClass,
  memcachedLayout, memcachedNotes, memcachedPages,
} from './mc';
import {
  FILL_MAX_COUNT, FILL_MAX_VALUE, MC_DEFAULTS, MC_MAX_MB, MC_REPLY_KEEP, mcCommandLine, type McAction, type McConsoleEntry, type McFillProgress,
  type McOptions, type SlabsPage, type SlabsQuery, type SlabsResultMap, type SlabsView,
} from './mcprotocol';
import type { Action } from './protocol';

/** Exchanges the memcached console keeps. */
export const MC_CONSOLE_KEEP = 200;
/** Pages of chunks one view returns at most. */
export const MC_VIEW_PAGES = 64;
/** Virtual time to wait for replies beyond the instant a line was sent. */
const REPLY_WAIT_NS = 10e9;
const decoder = new TextDecoder();

/** What the session keeps about the memcached node (checkpointed). */
export interface McState {
  /** The node's world in the module (0: not started yet). */
  world: number;
  node: number;
  conn: number;
  options: McOptions | null;
  console: McConsoleEntry[];
  fill: McFillProgress | null;
  /** The session's configuration, for the node's world. */
  seed: number;
  unixMsAtZero: number;
}

/** The parts of the session's live world this module uses. */
export interface McLive {
  gk: Glasskv;
  world: World;
  mc: McState;
  /** The wrapper of mc.world, made again when the address changes. */
  mcWorld: World | null;
}

export function newMcState(seed: number, unixMsAtZero: number): McState {
  return { world: 0, node: -1, conn: -1, options: null, console: [], fill: null, seed, unixMsAtZero };
}

export function copyMcState(s: McState): McState {
  return {
    ...s, options: s.options && { ...s.options }, console: [...s.console],
    fill: s.fill && { ...s.fill, spec: { ...s.fill.spec }, result: { ...s.fill.result } },
  };
}

/** Puts a checkpointed state back; the world's memory came back with the
 *  checkpoint's image, so only the wrapper is made anew. */
export function loadMcState(live: McLive, s: McState): void {
  live.mc = copyMcState(s);
  live.mcWorld = null;
}

const KINDS = new Set<string>(['mcStart', 'mcLine', 'mcFill']);

export function isMcAction(a: Action): a is McAction {
  return KINDS.has(a.kind);
}

function nodeWorld(live: McLive): World | null {
  if (!live.mc.world) return null;
  if (!live.mcWorld || live.mcWorld.released || live.mcWorld.handle !== live.mc.world) {
    live.mcWorld = new World(live.gk, live.mc.world);
  }
  return live.mcWorld;
}

function checkOptions(gk: Glasskv, o: McOptions): void {
  const whole = (v: number, lo: number, hi: number, what: string) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${what} must be an integer in [${lo}, ${hi}]`);
  };
  whole(o.m, 1, MC_MAX_MB, '-m');
  whole(o.n, 1, 1 << 20, '-n');
  whole(o.I, 1024, 1 << 30, '-I');
  if (o.chunkMax !== null) whole(o.chunkMax, 1, 1 << 30, 'slab_chunk_max');
  if (!Number.isFinite(o.f)) throw new RangeError('-f must be a number');
  // memcached's own checks, with its messages (the engine's parser).
  memcachedLayout(gk, mcCommandLine(o));
}

function checkFill(a: Extract<McAction, { kind: 'mcFill' }>): void {
  const s = a.spec;
  const whole = (v: number, lo: number, hi: number, what: string) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${what} must be an integer in [${lo}, ${hi}]`);
  };
  whole(s.dist, 0, 3, 'dist');
  whole(s.sizeA, 0, FILL_MAX_VALUE, 'sizeA');
  whole(s.sizeB, 0, FILL_MAX_VALUE, 'sizeB');
  whole(s.keyBytes, 1, 250, 'keyBytes');
  whole(s.keyspace, 1, Number.MAX_SAFE_INTEGER, 'keyspace');
  whole(s.total, 1, Number.MAX_SAFE_INTEGER, 'total');
  whole(s.seed, 0, Number.MAX_SAFE_INTEGER, 'seed');
  whole(a.count, 1, FILL_MAX_COUNT, 'count');
  whole(a.first, 0, s.total - a.count, 'first');
}

/** Checks a memcached action before it is logged (throws if it cannot
 *  apply); null for other actions. */
export function completeMc(live: McLive, a: Action): Action | null {
  if (!isMcAction(a)) return null;
  switch (a.kind) {
    case 'mcStart':
      checkOptions(live.gk, a.options);
      return { kind: 'mcStart', options: { ...a.options } };
    case 'mcLine':
      if (typeof a.text !== 'string' || a.text.length === 0) throw new RangeError('nothing to send');
      if (a.text.length > 4 << 20) throw new RangeError('lines of at most 4 MiB');
      return a;
    case 'mcFill':
      checkFill(a);
      return { kind: 'mcFill', spec: { ...a.spec }, first: a.first, count: a.count };
  }
}

/** Starts the node (anew) with options, its clock at the session's. */
function start(live: McLive, options: McOptions): World {
  const old = nodeWorld(live);
  if (old) old.release();
  live.mcWorld = null;
  const w = live.gk.createWorld({ seed: live.mc.seed, unixMsAtZero: live.mc.unixMsAtZero, traceCapacity: 1024 });
  try {
    const t = live.world.now();
    if (t > 0) w.runUntil(t);
    const node = memcachedAdd(w, mcCommandLine(options));
    const conn = w.openConn(node);
    const started: McConsoleEntry = { t, input: `memcached ${mcCommandLine(options)}`, output: '', bytes: 0 };
    live.mc = { ...live.mc, world: w.handle, node, conn, options: { ...options }, fill: null };
    remember(live, started);
    live.mcWorld = w;
    return w;
  } catch (e) {
    w.release();
    live.mc = { ...live.mc, world: 0, node: -1, conn: -1, options: null };
    throw e;
  }
}

/** The node's world, started with memcached's defaults if it is not yet. */
function running(live: McLive): World {
  const w = nodeWorld(live) ?? start(live, MC_DEFAULTS);
  const t = live.world.now();
  if (w.now() < t) w.runUntil(t);
  return w;
}

function remember(live: McLive, e: McConsoleEntry): void {
  const c = live.mc.console;
  // A value of megabytes typed in one line stays in the log, not here:
  // every view copies the console.
  c.push(e.input.length > MC_REPLY_KEEP ? { ...e, input: `${e.input.slice(0, MC_REPLY_KEEP)}…` } : e);
  if (c.length > MC_CONSOLE_KEEP) c.splice(0, c.length - MC_CONSOLE_KEEP);
}

/** Sends typed lines and collects what comes back until the node is
 *  idle (or the wait runs out). */
function sendLines(live: McLive, w: World, text: string): void {
  const mc = live.mc;
  if (!w.isOpen(mc.conn)) mc.conn = w.openConn(mc.node);
  const t = w.now();
  const body = text.replace(/\r?\n/g, '\r\n');
  w.send(mc.conn, body.endsWith('\r\n') ? body : `${body}\r\n`);
  w.runUntilIdle();
  const chunks: Uint8Array[] = [w.recv(mc.conn)];
  const deadline = w.now() + REPLY_WAIT_NS;
  for (;;) {
    const next = w.nextEventTime();
    if (next === null || next > deadline || !w.isOpen(mc.conn)) break;
    w.step();
    chunks.push(w.recv(mc.conn));
  }
  let bytes = 0;
  for (const c of chunks) bytes += c.length;
  const all = new Uint8Array(Math.min(bytes, MC_REPLY_KEEP));
  let at = 0;
  for (const c of chunks) {
    if (at >= all.length) break;
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
  }
  remember(live, { t, input: text, output: decoder.decode(all), bytes });
}

function runFill(live: McLive, w: World, a: Extract<McAction, { kind: 'mcFill' }>): void {
  const mc = live.mc;
  const same = mc.fill && a.first > 0 && mc.fill.next === a.first &&
    JSON.stringify(mc.fill.spec) === JSON.stringify(a.spec);
  const before = same ? mc.fill!.result : emptyFillResult();
  try {
    const result = memcachedFill(w, mc.node, a.spec, a.first, a.count, { ...before });
    mc.fill = { spec: { ...a.spec }, next: a.first + a.count, result };
  } catch (e) {
    if (!(e instanceof GkError)) throw e;
    // Logged already: the engine's refusal is shown, and replays the same.
    remember(live, { t: w.now(), input: `fill ${a.first}..${a.first + a.count - 1}`, output: e.message, bytes: 0 });
  }
}

/** Applies a memcached action and returns the node's clock after it. The
 *  time the node took (a fill's sets take a while) must then pass in the
 *  session's world too (the session runs it, reading the trace as it
 *  goes), so the clocks agree and each slice of a fill sits at its own
 *  place in time. */
export function applyMc(live: McLive, a: McAction): number {
  switch (a.kind) {
    case 'mcStart':
      start(live, a.options);
      break;
    case 'mcLine':
      sendLines(live, running(live), a.text);
      break;
    case 'mcFill':
      runFill(live, running(live), a);
      break;
  }
  return nodeWorld(live)?.now() ?? 0;
}

function view(live: McLive, cls: number, from: number, count: number): SlabsView {
  const mc = live.mc;
  const w = nodeWorld(live);
  const notes = memcachedNotes(live.gk);
  if (!w) {
    return {
      running: false, options: null, now: live.world.now(), classes: [], totals: null, cls: 0,
      used: new Uint32Array(0), pages: [], console: [], fill: null, notes,
    };
  }
  const { classes, totals } = memcachedClasses(w, mc.node);
  const c = Math.min(Math.max(1, Math.floor(cls) || 1), Math.max(1, classes.length));
  const used = memcachedPages(w, mc.node, c);
  const pages: SlabsPage[] = [];
  const first = Math.max(0, Math.floor(from) || 0);
  const n = Math.min(Math.max(0, Math.floor(count) || 0), MC_VIEW_PAGES);
  for (let p = first; p < used.length && p < first + n; p++) {
    pages.push({ index: p, chunks: memcachedChunks(w, mc.node, c, p) });
  }
  return {
    running: true, options: mc.options && { ...mc.options }, now: w.now(), classes, totals, cls: c, used, pages,
    console: mc.console.slice(), fill: mc.fill && { ...mc.fill, result: { ...mc.fill.result } }, notes,
  };
}

/** Answers the Slabs view's read-only queries. */
export function slabsQuery<Q extends SlabsQuery>(live: McLive, q: Q): SlabsResultMap[Q['what']] {
  return answer(live, q) as SlabsResultMap[Q['what']];
}

function answer(live: McLive, q: SlabsQuery): SlabsResultMap[keyof SlabsResultMap] {
  switch (q.what) {
    case 'view':
      return view(live, q.cls, q.from, q.pages);
    case 'layout':
      try {
        return { classes: memcachedLayout(live.gk, mcCommandLine(q.options)), error: null };
      } catch (e) {
        if (!(e instanceof GkError)) throw e;
        return { classes: [], error: e.message };
      }
    case 'itemClass': {
      const w = nodeWorld(live);
      if (!w) return null;
      try {
        return memcachedItemClass(w, live.mc.node, q.nkey, q.flags, q.vlen);
      } catch (e) {
        if (!(e instanceof GkError)) throw e;
        return null;
      }
    }
  }
  return null;
}

/** Buffers a view can transfer instead of copying. */
export function slabsTransfers(r: unknown): ArrayBuffer[] {
  if (!r || typeof r !== 'object' || !('pages' in r)) return [];
  const v = r as SlabsView;
  return [v.used.buffer as ArrayBuffer, ...v.pages.map((p) => p.chunks.buffer as ArrayBuffer)];
}
