// The session's memcached side: a memcached-style node of the session's
// own world, on host id MC_NODE (the last one), so the ids the Redis side
// hands out stay as lessons and logs name them: the server 0, client
// programs 1, 2, ... in the order they start. The log's first memcached
// action starts it (with memcached's defaults, unless it is an mcStart);
// mcStart starts it anew in place with other options. Here too: the
// protocol lines typed at it, slices of fill workloads, and the Slabs
// view's queries.
//
// It runs on the world's clock, so time passes for it as for the server,
// whether an action or Play moves it: an item set to expire in 2 s is gone
// 2 s of virtual time later. Its items, pages and connections live in the
// engine's memory with the rest of the world, so a checkpoint holds them
// and the world's digest covers them; what stays outside the engine (the
// console connection's id, the transcript, the fill's progress) is small
// and copied into every checkpoint with McState. Reading the view runs
// nothing.
import { Limits } from '../web/src/wasm-gen/seam';
import { GkError, type Glasskv, type World } from './engine';
import {
  emptyFillResult, memcachedChunks, memcachedClasses, memcachedFill, memcachedFillCheck, memcachedItemClass,
  memcachedLayout, memcachedNotes, memcachedPages, memcachedStart, type McFillResult,
} from './mc';
import {
  FILL_MAX_COUNT, FILL_MAX_VALUE, MC_DEFAULTS, MC_MAX_MB, MC_REPLY_KEEP, MC_SET_MAX, mcCommandLine, type McAction, type McConsoleEntry, type McFillProgress,
  type McOptions, type SlabsPage, type SlabsQuery, type SlabsResultMap, type SlabsView,
} from './mcprotocol';
import type { Action } from './protocol';

/** The memcached node's host id: the last a world has, so that client
 *  programs keep the ids 1, 2, ... whether or not it was started first. */
export const MC_NODE = Limits.MAX_NODES - 1;
/** Exchanges the memcached console keeps. */
export const MC_CONSOLE_KEEP = 200;
/** Pages of chunks one view returns at most. */
export const MC_VIEW_PAGES = 64;
/** A fill action runs in steps of this many sets at first, with the trace
 *  read between steps; each next step grows or shrinks so that it writes
 *  between FILL_TRACE_LOW and FILL_TRACE_HIGH records (a set writes one
 *  or more, and whatever else runs meanwhile writes its own), well inside
 *  the session's ring of 65,536. The steps depend only on the world, so a
 *  replay takes the same ones. */
const FILL_STEP_FIRST = 4096;
const FILL_STEP_MIN = 100;
const FILL_TRACE_HIGH = 1 << 14;
const FILL_TRACE_LOW = 1 << 11;
const decoder = new TextDecoder();

/** What the session keeps about the memcached node (checkpointed). */
/** What the session keeps about the memcached node outside the engine:
 *  the options it was started with, what its console printed and the fill
 *  in progress. The node's id and the console's connection to it are in
 *  the session's record in the engine (mcNode, mcConn). */
export interface McState {
  options: McOptions | null;
  console: McConsoleEntry[];
  fill: McFillProgress | null;
}

/** The parts of the session's live world this module uses. */
export interface McLive {
  gk: Glasskv;
  world: World;
  mc: McState;
}

export function newMcState(): McState {
  return { options: null, console: [], fill: null };
}

export function copyMcState(s: McState): McState {
  return {
    ...s, options: s.options && { ...s.options }, console: [...s.console],
    fill: s.fill && { ...s.fill, spec: { ...s.fill.spec }, result: { ...s.fill.result } },
  };
}

/** Puts a checkpointed state back (the node came back with the
 *  checkpoint's memory image). */
export function loadMcState(live: McLive, s: McState): void {
  live.mc = copyMcState(s);
}

const KINDS = new Set<string>(['mcStart', 'mcLine', 'mcFill', 'mcSet']);

export function isMcAction(a: Action): a is McAction {
  return KINDS.has(a.kind);
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
    case 'mcSet':
      if (typeof a.key !== 'string' || !/^[^\s\x00-\x1f]{1,250}$/.test(a.key)) {
        throw new RangeError('a key of 1 to 250 characters, without spaces or control characters');
      }
      if (!Number.isInteger(a.flags) || a.flags < 0 || a.flags > 0xffffffff) throw new RangeError('flags in [0, 2^32)');
      if (!Number.isInteger(a.bytes) || a.bytes < 0 || a.bytes > MC_SET_MAX) {
        throw new RangeError(`a value of 0 to ${MC_SET_MAX} bytes`);
      }
      return { kind: 'mcSet', key: a.key, flags: a.flags, bytes: a.bytes };
  }
}

/** Starts the node (anew) with options. The engine's refusal (a link's
 *  log asking for what it cannot do) is shown in the console: the action
 *  is logged already, and replays the same. Returns whether it runs. */
/** The memcached node's id, -1 before it starts (the session's record). */
function mcNode(world: World): number {
  return world.session().mcNode;
}

function start(live: McLive, options: McOptions): boolean {
  const { world } = live;
  const t = world.now();
  try {
    memcachedStart(world, MC_NODE, mcCommandLine(options));
  } catch (e) {
    if (!(e instanceof GkError)) throw e;
    remember(live, { t, input: `memcached ${mcCommandLine(options)}`, output: e.message, bytes: 0 });
    return mcNode(world) >= 0;
  }
  // A restart closed the console's connection; this end is closed too.
  const { mcConn } = world.session();
  if (mcConn >= 0) world.closeConn(mcConn);
  world.setSession({ mcNode: MC_NODE, mcConn: world.openConn(MC_NODE) });
  live.mc = { ...live.mc, options: { ...options }, fill: null };
  remember(live, { t, input: `memcached ${mcCommandLine(options)}`, output: '', bytes: 0 });
  return true;
}

/** Whether the node runs, started with memcached's defaults if it was not. */
function running(live: McLive): boolean {
  return mcNode(live.world) >= 0 || start(live, MC_DEFAULTS);
}

function remember(live: McLive, e: McConsoleEntry): void {
  const c = live.mc.console;
  // A value of megabytes typed in one line stays in the log, not here:
  // every view copies the console.
  c.push(e.input.length > MC_REPLY_KEEP ? { ...e, input: `${e.input.slice(0, MC_REPLY_KEEP)}…` } : e);
  if (c.length > MC_CONSOLE_KEEP) c.splice(0, c.length - MC_CONSOLE_KEEP);
}

/** Sends typed lines and collects what comes back once the world has run
 *  until the host's connections are quiet (the node read everything sent
 *  and its replies arrived, or it waits for more of a value). */
function sendLines(live: McLive, text: string): void {
  const { world } = live;
  let { mcConn: conn } = world.session();
  if (!world.isOpen(conn)) {
    // It closed (quit, or a line it would not take): a new one, as a
    // client reconnects.
    world.closeConn(conn);
    conn = world.openConn(mcNode(world));
    world.setSession({ mcConn: conn });
  }
  const t = world.now();
  const body = text.replace(/\r?\n/g, '\r\n');
  world.send(conn, body.endsWith('\r\n') ? body : `${body}\r\n`);
  world.runUntilIdle();
  const reply = world.recv(conn);
  const output = decoder.decode(reply.subarray(0, MC_REPLY_KEEP));
  remember(live, { t, input: text, output, bytes: reply.length });
}

/** One fill action, in steps with the trace read between them (drain
 *  returns how many records it read). A range the engine refuses is
 *  refused whole, before a set is sent, and shown in the console; the
 *  fill's progress moves only when every step went through. */
function runFill(live: McLive, a: Extract<McAction, { kind: 'mcFill' }>, drain: () => number): void {
  const { world, mc } = live;
  const same = mc.fill && a.first > 0 && mc.fill.next === a.first &&
    JSON.stringify(mc.fill.spec) === JSON.stringify(a.spec);
  let result: McFillResult = { ...(same ? mc.fill!.result : emptyFillResult()) };
  try {
    memcachedFillCheck(world, a.spec, a.first, a.count);
    let step = FILL_STEP_FIRST;
    for (let at = a.first; at < a.first + a.count;) {
      const n = Math.min(step, a.first + a.count - at);
      result = memcachedFill(world, mcNode(world), a.spec, at, n, result);
      at += n;
      const read = drain();
      if (read > FILL_TRACE_HIGH) step = Math.max(FILL_STEP_MIN, Math.floor(step / 4));
      else if (read < FILL_TRACE_LOW) step = Math.min(FILL_MAX_COUNT, step * 2);
    }
    mc.fill = { spec: { ...a.spec }, next: a.first + a.count, result };
  } catch (e) {
    if (!(e instanceof GkError)) throw e;
    // Logged already: the engine's refusal is shown, and replays the same.
    remember(live, { t: world.now(), input: `fill ${a.first}..${a.first + a.count - 1}`, output: e.message, bytes: 0 });
  }
}

/** Applies a memcached action. The world runs while it does (a fill's
 *  sets take a while), the other hosts with it; `drain` reads the trace
 *  written so far, for the steps of a long fill. */
export function applyMc(live: McLive, a: McAction, drain: () => number): void {
  switch (a.kind) {
    case 'mcStart':
      start(live, a.options);
      break;
    case 'mcLine':
      if (running(live)) sendLines(live, a.text);
      break;
    case 'mcFill':
      if (running(live)) runFill(live, a, drain);
      break;
    case 'mcSet':
      if (running(live)) sendLines(live, `set ${a.key} ${a.flags} 0 ${a.bytes}\n${'x'.repeat(a.bytes)}`);
      break;
  }
}

function view(live: McLive, cls: number, from: number, count: number): SlabsView {
  const { mc, world: w } = live;
  const notes = memcachedNotes(live.gk);
  const node = mcNode(w);
  if (node < 0) {
    return {
      running: false, options: null, now: live.world.now(), classes: [], totals: null, cls: 0,
      used: new Uint32Array(0), pages: [], console: [], fill: null, notes,
    };
  }
  const { classes, totals } = memcachedClasses(w, node);
  const c = Math.min(Math.max(1, Math.floor(cls) || 1), Math.max(1, classes.length));
  const used = memcachedPages(w, node, c);
  const pages: SlabsPage[] = [];
  const first = Math.max(0, Math.floor(from) || 0);
  const n = Math.min(Math.max(0, Math.floor(count) || 0), MC_VIEW_PAGES);
  for (let p = first; p < used.length && p < first + n; p++) {
    pages.push({ index: p, chunks: memcachedChunks(w, node, c, p) });
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
      const node = mcNode(live.world);
      if (node < 0) return null;
      try {
        return memcachedItemClass(live.world, node, q.nkey, q.flags, q.vlen);
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
