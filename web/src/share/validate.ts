// Checks a session that came from outside (a link, a file): every field
// of the configuration and of each logged action is typed and bounded as
// the worker would accept it, before anything reaches the engine. A
// hostile or damaged log gets a ShareError naming what is wrong, never a
// crash and never a world booted from half-checked input.
import type { Action, ActionKind, LogEntry, SessionConfig, SessionLog } from '../../../wasm/protocol';
import { HEAP_LIMIT_MAX, LAB_NAMES, MACHINE_SETTINGS, MAX_SECOND_INPUTS, WORKLOAD_COMMANDS } from '../../../wasm/protocol';
import { CRASH_POINTS, DISK_PRESETS } from '../../../wasm/aofprotocol';
import { FILL_MAX_COUNT, FILL_MAX_VALUE, MC_MAX_MB, MC_SET_MAX } from '../../../wasm/mcprotocol';
import { INSPECT_KEY_MAX, PANES, type Pane } from '../app/pane';
import { Limits } from '../wasm-gen/seam';

/** Why a shared session was refused: a message key and what it names. */
export class ShareError extends Error {
  constructor(readonly key: ShareErrorKey, readonly detail = '') {
    super(detail ? `${key}: ${detail}` : key);
    this.name = 'ShareError';
  }
}

export type ShareErrorKey =
  | 'share.err.encoding' | 'share.err.compressed' | 'share.err.tooBig' | 'share.err.json'
  | 'share.err.version' | 'share.err.config' | 'share.err.entries' | 'share.err.action'
  | 'share.err.position' | 'share.err.lesson' | 'share.err.unsupported' | 'share.err.notOurs' | 'share.err.replay'
  | 'share.err.tooLong';

/** A session with where it stood: what a link or a file carries. */
export interface SharedState {
  log: SessionLog;
  /** Virtual time the world was rewound to (absent: the end of the log). */
  at?: number;
  lesson?: { id: string; step: number; ran: number; answers?: Record<string, SharedAnswer> };
  pane?: Pane;
  /** The key the inspector follows. */
  inspect?: string;
}

/** A prediction given in the lesson and what the engine said. */
export interface SharedAnswer {
  given: string;
  actual: string;
  correct: boolean;
}

export const MAX_ENTRIES = 200_000;
const MAX_TEXT = 1 << 20;
const MAX_STRING = 4096;
/** The latest virtual time a shared log may reach: one hour. The worker
 *  replays a log by running every timer event up to each entry (serverCron
 *  alone fires 10 times a virtual second), so a log that jumps to 1e18 ns
 *  would keep it busy for years. Measured in Node on this engine, an idle
 *  server's day of virtual time took 229 s to replay and an hour 6.4 s:
 *  an hour is longer than any lesson or experiment needs, and its replay
 *  stays short enough to wait for. */
export const MAX_VIRTUAL_NS = 3600e9;
/** The cap in hours, for the message that names it. */
export const MAX_VIRTUAL_HOURS = MAX_VIRTUAL_NS / 3600e9;

export type Field =
  | ['int', number, number] | ['num', number, number] | ['str', number] | ['bool'] | ['enum', readonly string[]]
  /** A nested object of exactly these fields. */
  | ['obj', Spec]
  /** null, or a value of the field. */
  | ['nullOr', Field]
  /** A list of at most n values of the field. */
  | ['list', number, Field];
export interface Spec {
  required: Record<string, Field>;
  optional?: Record<string, Field>;
}

const db: Field = ['int', 0, 15];
const many: Field = ['int', 1, 1_000_000];
// A time is any whole number of ns here; how far a log may reach is
// checked over the whole log (checkEntries), with its own message.
const ns: Field = ['int', 0, 1e18];

// One entry per action kind: the compiler refuses this table when a kind
// is added to the protocol without being described here. The bounds are
// the worker's (wasm/session.ts complete()). The share fuzzer
// (tests/fuzz/share.test.ts) draws its actions from the same table.
export const SPECS: Readonly<Record<ActionKind, Spec | null>> = {
  console: {
    required: { text: ['str', MAX_TEXT] },
    optional: { second: ['list', MAX_SECOND_INPUTS, ['obj', { required: { t: ns, text: ['str', MAX_TEXT] } }]] },
  },
  // The worker logs a populate with the prefix it picked, and replays it
  // as logged: a link without one cannot be replayed.
  populate: { required: { db, n: many, prefix: ['str', 64] }, optional: { mset: ['bool'] } },
  delete: { required: { db, n: many } },
  rehashStep: { required: { db, steps: many } },
  activeRehash: { required: { on: ['bool'] } },
  config: { required: { name: ['str', 128], value: ['str', MAX_STRING] } },
  scanStart: { required: { db, count: many, match: ['str', MAX_STRING] } },
  scanStep: { required: {}, optional: { calls: ['int', 1, 10_000_000] } },
  scanFinish: { required: {} },
  advance: { required: { to: ns } },
  wait: { required: { ns: ['int', 0, 3600e9] } },
  step: { required: {} },
  stepIteration: { required: { node: ['int', 0, Limits.MAX_NODES - 1] } },
  workload: {
    required: { preset: ['enum', ['benchmark', 'redis-py', 'lettuce', 'monitor']] },
    optional: {
      clients: ['int', 1, 10_000], pipeline: many, requests: ['int', 0, 1e12], multi: ['bool'],
      keyspace: ['int', 1, 1e9], valueSize: ['int', 0, 64 * 1024 * 1024], clientCmdNs: ['int', 0, 1e9],
      command: ['enum', WORKLOAD_COMMANDS], intervalNs: ['int', 0, 3600e9],
      rttNs: ['int', 0, 60e9], bandwidth: ['int', 0, 1e12], flush: ['int', 0, 1_000_000],
      port: ['int', 1, 65535],
    },
  },
  workloadStop: { required: { id: ['int', 0, Limits.MAX_NODES - 1] } },
  lab: { required: { name: ['enum', LAB_NAMES] } },
  labNext: { required: {} },
  disk: { required: { preset: ['enum', DISK_PRESETS] }, optional: { port: ['int', 1, 65535] } },
  diskFree: { required: { bytes: ['int', 0, 1e15] }, optional: { port: ['int', 1, 65535] } },
  diskReadOnly: { required: { dir: ['str', 256], readonly: ['bool'] }, optional: { port: ['int', 1, 65535] } },
  crash: { required: { mode: ['enum', ['process', 'power']] } },
  crashAt: { required: { point: ['enum', CRASH_POINTS], mode: ['enum', ['process', 'power']] } },
  restart: { required: {}, optional: { conf: ['str', 64 * 1024] } },
  server: { required: { port: ['int', 1, 65535] } },
  machine: {
    required: { name: ['enum', MACHINE_SETTINGS], value: ['str', 256] }, optional: { port: ['int', 1, 65535] },
  },
  mcStart: {
    required: {
      options: ['obj', {
        required: {
          m: ['int', 1, MC_MAX_MB], n: ['int', 1, 1 << 20], f: ['num', 0, 1000], I: ['int', 1024, 1 << 30],
          chunkMax: ['nullOr', ['int', 1, 1 << 30]], noCas: ['bool'],
        },
      }],
    },
  },
  mcLine: { required: { text: ['str', 4 << 20] } },
  mcSet: { required: { key: ['str', 250], flags: ['int', 0, 0xffffffff], bytes: ['int', 0, MC_SET_MAX] } },
  mcFill: {
    required: {
      spec: ['obj', {
        required: {
          dist: ['int', 0, 3], sizeA: ['int', 0, FILL_MAX_VALUE], sizeB: ['int', 0, FILL_MAX_VALUE],
          keyBytes: ['int', 1, 250], keyspace: ['int', 1, Number.MAX_SAFE_INTEGER],
          total: ['int', 1, Number.MAX_SAFE_INTEGER], seed: ['int', 0, Number.MAX_SAFE_INTEGER],
        },
      }],
      first: ['int', 0, Number.MAX_SAFE_INTEGER], count: ['int', 1, FILL_MAX_COUNT],
    },
  },
  // A deliberate trap only makes sense in the crash-handling tests.
  trap: null,
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fits(v: unknown, f: Field): boolean {
  switch (f[0]) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && v >= f[1] && v <= f[2];
    case 'num':
      return typeof v === 'number' && Number.isFinite(v) && v >= f[1] && v <= f[2];
    case 'str':
      return typeof v === 'string' && v.length <= f[1];
    case 'bool':
      return typeof v === 'boolean';
    case 'enum':
      return typeof v === 'string' && f[1].includes(v);
    case 'obj':
      return isObject(v) && misfit(v, f[1]) === null;
    case 'nullOr':
      return v === null || fits(v, f[1]);
    case 'list':
      return Array.isArray(v) && v.length <= f[1] && v.every((x) => fits(x, f[2]));
  }
}

/** The first field of v that does not fit spec, or null: every required
 *  field must fit, and every other one be an optional field that fits
 *  (unknown fields are refused). `skip` names a field checked elsewhere. */
function misfit(v: Record<string, unknown>, spec: Spec, skip = ''): string | null {
  for (const [name, f] of Object.entries(spec.required)) if (!fits(v[name], f)) return name;
  for (const [name, value] of Object.entries(v)) {
    if (name === skip || Object.hasOwn(spec.required, name)) continue;
    const f = spec.optional && Object.hasOwn(spec.optional, name) ? spec.optional[name] : null;
    if (!f || (value !== undefined && !fits(value, f))) return name;
  }
  return null;
}

/** The action, checked field by field (unknown fields are refused). */
export function checkAction(v: unknown, i: number): Action {
  const where = `#${i + 1}`;
  if (!isObject(v) || typeof v.kind !== 'string' || !Object.hasOwn(SPECS, v.kind)) {
    throw new ShareError('share.err.action', `${where}: ${isObject(v) ? String(v.kind).slice(0, 40) : typeof v}`);
  }
  const spec = SPECS[v.kind as ActionKind];
  if (!spec) throw new ShareError('share.err.unsupported', `${where}: ${v.kind}`);
  const bad = misfit(v, spec, 'kind');
  if (bad !== null) throw new ShareError('share.err.action', `${where} ${v.kind}.${bad}`);
  return v as unknown as Action;
}

export function checkConfig(v: unknown): SessionConfig {
  if (!isObject(v)) throw new ShareError('share.err.config');
  const { seed, unixMsAtZero, heapLimit } = v;
  if (!fits(seed, ['int', 0, Number.MAX_SAFE_INTEGER])) throw new ShareError('share.err.config', 'seed');
  // Unix ms between 1970 and 9999.
  if (!fits(unixMsAtZero, ['int', 0, 253402300799999])) throw new ShareError('share.err.config', 'unixMsAtZero');
  if (!fits(heapLimit, ['int', 0, HEAP_LIMIT_MAX])) throw new ShareError('share.err.config', 'heapLimit');
  return { seed: seed as number, unixMsAtZero: unixMsAtZero as number, heapLimit: heapLimit as number };
}

/** The virtual time the world reaches once entry e has applied: an advance
 *  moves it to its target, a wait past the entry's time. */
function reach(e: LogEntry): number {
  const a = e.action;
  if (a.kind === 'advance') return Math.max(e.t, a.to);
  if (a.kind === 'wait') return e.t + a.ns;
  return e.t;
}

function tooLong(where: string): ShareError {
  return new ShareError('share.err.tooLong', where);
}

/** Entries in order of virtual time, each with a checked action, none of
 *  them taking the world past MAX_VIRTUAL_NS. */
export function checkEntries(v: unknown): LogEntry[] {
  if (!Array.isArray(v)) throw new ShareError('share.err.entries');
  if (v.length > MAX_ENTRIES) throw new ShareError('share.err.entries', `${v.length} > ${MAX_ENTRIES}`);
  const out: LogEntry[] = [];
  let last = 0;
  v.forEach((e: unknown, i) => {
    if (!isObject(e) || !fits(e.t, ns) || (e.t as number) < last) throw new ShareError('share.err.entries', `#${i + 1}`);
    last = e.t as number;
    const entry = { t: last, action: checkAction(e.action, i) };
    if (reach(entry) > MAX_VIRTUAL_NS) throw tooLong(`#${i + 1}`);
    out.push(entry);
  });
  return out;
}

export function checkLog(v: unknown): SessionLog {
  if (!isObject(v) || v.version !== 1) throw new ShareError('share.err.version');
  return { version: 1, config: checkConfig(v.config), entries: checkEntries(v.entries) };
}

function checkAnswers(v: unknown): Record<string, SharedAnswer> {
  if (!isObject(v) || Object.keys(v).length > 1000) throw new ShareError('share.err.lesson');
  const out: Record<string, SharedAnswer> = {};
  for (const [key, a] of Object.entries(v)) {
    if (!/^\d{1,4}\.\d{1,4}$/.test(key) || !isObject(a) || !fits(a.given, ['str', MAX_STRING])
      || !fits(a.actual, ['str', MAX_STRING]) || !fits(a.correct, ['bool'])) {
      throw new ShareError('share.err.lesson');
    }
    out[key] = { given: a.given as string, actual: a.actual as string, correct: a.correct as boolean };
  }
  return out;
}

/** A whole shared state (the JSON of a link or a file). */
export function checkShared(v: unknown): SharedState {
  if (!isObject(v) || v.v !== 1) throw new ShareError('share.err.version');
  const out: SharedState = { log: checkLog(v.log) };
  if (v.at !== undefined) {
    if (!fits(v.at, ns)) throw new ShareError('share.err.position');
    if ((v.at as number) > MAX_VIRTUAL_NS) throw tooLong('at');
    out.at = v.at as number;
  }
  if (v.lesson !== undefined) {
    const l = v.lesson;
    if (!isObject(l) || !fits(l.id, ['str', 128]) || !fits(l.step, ['int', 0, 1000]) || !fits(l.ran, ['int', 0, 1000])) {
      throw new ShareError('share.err.lesson');
    }
    out.lesson = { id: l.id as string, step: l.step as number, ran: l.ran as number };
    if (l.answers !== undefined) out.lesson.answers = checkAnswers(l.answers);
  }
  if (v.pane !== undefined && (PANES as readonly unknown[]).includes(v.pane)) out.pane = v.pane as Pane;
  if (typeof v.inspect === 'string' && v.inspect !== '' && v.inspect.length <= INSPECT_KEY_MAX) out.inspect = v.inspect;
  return out;
}
