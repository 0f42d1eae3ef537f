// The lines of a `glasskv do` block: the sandbox's buttons, written as
// words. Each line becomes one or more actions of the input log, exactly
// what clicking the button would have logged.
//
//   add 1000 [db=0] [prefix=k]    DEBUG POPULATE (the Add button)
//   delete 10 [db=0]              RANDOMKEY + DEL, 10 times (the Delete button)
//   rehash-step [n] [db=0]        n incremental rehash steps
//   active-rehashing on|off       CONFIG SET activerehashing
//   scan-start [count=10] [match=*] [db=0]
//   scan-step [n]                 n SCAN calls of the walk
//   scan-finish                   SCAN calls until the cursor is 0
//   wait 100ms                    let virtual time pass (ns, us, ms, s)
//   next-event [n]                run the next n queued events
//   next-iteration [n] [node=0]   run until host `node` has done n more
//                                 event-loop iterations
//   workload PRESET [clients=N] [pipeline=N] [requests=N] [multi=yes|no]
//            [command=GET] [keyspace=N] [value=N] [interval=2s]
//            [rtt=100us] [bandwidth=N] [client-cpu=35us]
//                                 start a client program (the Run panel)
//   workload-stop ID              stop client program ID
//   lab NAME                      start a lab's first part live
//   lab-next                      start the lab's next part now
//   disk PRESET                   the server's disk (nvme, ssd, hdd, slow-fsync)
//   disk-free BYTES               leave exactly BYTES free on that disk
//   crash process|power           kill -9 the server, or cut the power
//   restart                       start redis-server again
//   mc-start [-m 64] [-n 48] [-f 1.25] [-I 1m] [-o slab_chunk_max=N] [-C]
//                                 (re)start the memcached node with these
//                                 command-line options (the others: defaults)
//   mc LINE[\nLINE]               protocol lines typed at the node ("\n"
//                                 written as two characters separates lines)
//   mc-set KEY BYTES [flags=F]    set KEY to a value of BYTES bytes
//   mc-fill DIST A [B] total=N [keys=N] [key=N] [seed=N] [first=N] [count=N]
//                                 sets first .. first+count-1 of a fill:
//                                 fixed SIZE, uniform MIN MAX, normal MEAN
//                                 STDDEV, shift FROM TO (the Fill form)
import { DISK_PRESETS } from '../../../wasm/aofprotocol';
import { FILL_MAX_COUNT, FILL_MAX_VALUE, MC_DEFAULTS, MC_MAX_MB, type McFillSpec, type McOptions } from '../../../wasm/mcprotocol';
import {
  LAB_NAMES, MACHINE_SETTINGS, PRESET_SPECS, type MachineSetting, WORKLOAD_COMMANDS, type Action, type LabName, type WorkloadAction, type WorkloadPreset,
} from '../../../wasm/protocol';

const MAX_KEYS = 1_000_000;
const MAX_REPEAT = 10_000;
const UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 };

/** A line that is not a valid action; the parser adds file and line. */
export class ActionLineError extends Error {}

interface Words {
  positional: string[];
  options: Map<string, string>;
}

/** The words after the verb; an option's value may be quoted to hold
 *  spaces (command="SCRIPT KILL"). */
function split(line: string): Words {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (const w of (line.trim().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).slice(1)) {
    const eq = w.indexOf('=');
    if (eq > 0) options.set(w.slice(0, eq).toLowerCase(), w.slice(eq + 1).replace(/^"(.*)"$/, '$1'));
    else positional.push(w);
  }
  return { positional, options };
}

function int(text: string | undefined, what: string, lo: number, hi: number, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new ActionLineError(`${what} is missing`);
    return fallback;
  }
  const n = /^\d+$/.test(text.replace(/_/g, '')) ? Number(text.replace(/_/g, '')) : NaN;
  if (!Number.isInteger(n) || n < lo || n > hi) throw new ActionLineError(`${what} must be a whole number from ${lo} to ${hi}, not "${text}"`);
  return n;
}

/** "100ms", "1.5s", "250us" in nanoseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s)$/.exec(text);
  if (!m) throw new ActionLineError(`"${text}" is not a duration (write e.g. 100ms or 2s)`);
  return Math.round(Number(m[1]) * UNITS[m[2]]);
}

function allowOnly(w: Words, names: string[], verb: string): void {
  for (const k of w.options.keys()) {
    if (!names.includes(k)) throw new ActionLineError(`${verb} has no option "${k}"`);
  }
}

function repeat(n: number, a: Action): Action[] {
  return Array.from({ length: n }, () => ({ ...a }));
}

/** The actions one line stands for. */
export function parseActionLine(line: string): Action[] {
  const verb = line.trim().split(/\s+/)[0].toLowerCase();
  const w = split(line);
  const db = () => int(w.options.get('db'), 'db', 0, 15, 0);
  switch (verb) {
    case 'add': {
      allowOnly(w, ['db', 'prefix'], verb);
      const prefix = w.options.get('prefix');
      const a: Action = { kind: 'populate', db: db(), n: int(w.positional[0], 'the number of keys', 1, MAX_KEYS) };
      return [prefix ? { ...a, prefix } : a];
    }
    case 'delete':
      allowOnly(w, ['db'], verb);
      return [{ kind: 'delete', db: db(), n: int(w.positional[0], 'the number of keys', 1, MAX_KEYS) }];
    case 'rehash-step':
      allowOnly(w, ['db'], verb);
      return [{ kind: 'rehashStep', db: db(), steps: int(w.positional[0], 'the number of steps', 1, MAX_KEYS, 1) }];
    case 'active-rehashing': {
      allowOnly(w, [], verb);
      const v = (w.positional[0] ?? '').toLowerCase();
      if (v !== 'on' && v !== 'off') throw new ActionLineError('active-rehashing takes on or off');
      return [{ kind: 'activeRehash', on: v === 'on' }];
    }
    case 'scan-start':
      allowOnly(w, ['count', 'match', 'db'], verb);
      if (w.positional.length) throw new ActionLineError('scan-start takes count=N, match=PATTERN and db=N');
      return [{
        kind: 'scanStart', db: db(), count: int(w.options.get('count'), 'count', 1, MAX_KEYS, 10),
        match: w.options.get('match') || '*',
      }];
    case 'scan-step':
      allowOnly(w, [], verb);
      return repeat(int(w.positional[0], 'the number of calls', 1, MAX_REPEAT, 1), { kind: 'scanStep' });
    case 'scan-finish':
      allowOnly(w, [], verb);
      return [{ kind: 'scanFinish' }];
    case 'wait':
      allowOnly(w, [], verb);
      if (w.positional.length !== 1) throw new ActionLineError('wait takes one duration, e.g. wait 100ms');
      return [{ kind: 'wait', ns: parseDuration(w.positional[0]) }];
    case 'next-event':
      allowOnly(w, [], verb);
      return repeat(int(w.positional[0], 'the number of events', 1, MAX_REPEAT, 1), { kind: 'step' });
    case 'next-iteration':
      allowOnly(w, ['node'], verb);
      return repeat(int(w.positional[0], 'the number of iterations', 1, MAX_REPEAT, 1),
        { kind: 'stepIteration', node: int(w.options.get('node'), 'node', 0, 15, 0) });
    case 'workload':
      return [workload(w)];
    case 'workload-stop':
      allowOnly(w, [], verb);
      return [{ kind: 'workloadStop', id: int(w.positional[0], 'the workload id', 1, 15) }];
    case 'lab': {
      allowOnly(w, [], verb);
      const name = w.positional[0] ?? '';
      if (!(LAB_NAMES as readonly string[]).includes(name)) throw new ActionLineError(`lab takes one of ${LAB_NAMES.join(', ')}`);
      return [{ kind: 'lab', name: name as LabName }];
    }
    case 'lab-next':
      allowOnly(w, [], verb);
      if (w.positional.length) throw new ActionLineError('lab-next takes nothing');
      return [{ kind: 'labNext' }];
    case 'disk': {
      allowOnly(w, ['port'], verb);
      const preset = w.positional[0] ?? '';
      if (!(DISK_PRESETS as readonly string[]).includes(preset) || w.positional.length !== 1) {
        throw new ActionLineError(`disk takes one of ${DISK_PRESETS.join(', ')}`);
      }
      return [{ kind: 'disk', preset, ...portOf(w) }];
    }
    case 'disk-free':
      allowOnly(w, ['port'], verb);
      return [{ kind: 'diskFree', bytes: int(w.positional[0], 'the free bytes', 0, 2 ** 50), ...portOf(w) }];
    case 'machine': {
      allowOnly(w, ['port'], verb);
      const [name, value] = w.positional;
      if (!(MACHINE_SETTINGS as readonly string[]).includes(name ?? '') || value === undefined || w.positional.length !== 2) {
        throw new ActionLineError(`machine takes one of ${MACHINE_SETTINGS.join(', ')} and its value`);
      }
      return [{ kind: 'machine', name: name as MachineSetting, value, ...portOf(w) }];
    }
    case 'crash': {
      allowOnly(w, [], verb);
      const mode = (w.positional[0] ?? '').toLowerCase();
      if ((mode !== 'process' && mode !== 'power') || w.positional.length !== 1) {
        throw new ActionLineError('crash takes process (kill -9: the page cache survives) or power (it does not)');
      }
      return [{ kind: 'crash', mode }];
    }
    case 'restart':
      allowOnly(w, [], verb);
      if (w.positional.length) throw new ActionLineError('restart takes nothing');
      return [{ kind: 'restart' }];
    case 'server':
      allowOnly(w, ['port'], verb);
      if (w.positional.length) throw new ActionLineError('server takes port=N');
      return [{ kind: 'server', port: int(w.options.get('port'), 'port', 1, 65535) }];
    case 'mc-start':
      return [{ kind: 'mcStart', options: mcOptions(line.trim().split(/\s+/).slice(1)) }];
    case 'mc': {
      const text = line.trim().slice(2).trim().split('\\n').join('\n');
      if (!text) throw new ActionLineError('mc takes the protocol line(s) to send');
      return [{ kind: 'mcLine', text }];
    }
    case 'mc-set': {
      allowOnly(w, ['flags'], verb);
      const [key, bytes] = w.positional;
      if (!key || w.positional.length !== 2 || key.length > 250) {
        throw new ActionLineError('mc-set takes a key (at most 250 bytes) and a value size in bytes');
      }
      const n = int(bytes, 'the value size', 0, FILL_MAX_VALUE);
      const flags = int(w.options.get('flags'), 'flags', 0, 0xffffffff, 0);
      return [{ kind: 'mcSet', key, flags, bytes: n }];
    }
    case 'mc-fill':
      return mcFill(w);
    default:
      throw new ActionLineError(`unknown action "${verb}" (add, delete, rehash-step, active-rehashing, `
        + 'scan-start, scan-step, scan-finish, wait, next-event, next-iteration, workload, workload-stop, lab, '
        + 'lab-next, disk, disk-free, machine, crash, restart, server, mc-start, mc, mc-set, mc-fill)');
  }
}

/** port=N, the server an action is for (the first one without it). */
function portOf(w: Words): { port?: number } {
  return w.options.has('port') ? { port: int(w.options.get('port'), 'port', 1, 65535) } : {};
}

const PRESETS: readonly WorkloadPreset[] = ['benchmark', 'redis-py', 'lettuce', 'monitor'];

/** "workload redis-py pipeline=100 multi=yes rtt=100us": the preset's own
 *  settings (PRESET_SPECS: a monitor sends INFO on one connection, redis-py
 *  wraps batches in MULTI/EXEC, Lettuce flushes after every command),
 *  overridden by the options written; the engine's defaults fill the
 *  rest. */
function workload(w: Words): WorkloadAction {
  allowOnly(w, ['clients', 'pipeline', 'flush', 'requests', 'multi', 'command', 'keyspace', 'value', 'interval',
    'rtt', 'bandwidth', 'client-cpu', 'port'], 'workload');
  const preset = w.positional[0] as WorkloadPreset;
  if (!PRESETS.includes(preset) || w.positional.length !== 1) {
    throw new ActionLineError(`workload takes a preset (${PRESETS.join(', ')}) and name=value options`);
  }
  const a: WorkloadAction = { kind: 'workload', preset, ...PRESET_SPECS[preset], ...portOf(w) };
  const o = w.options;
  const num = (k: string, what: string, lo: number, hi: number) => int(o.get(k), what, lo, hi);
  if (o.has('clients')) a.clients = num('clients', 'clients', 1, 10_000);
  if (o.has('pipeline')) a.pipeline = num('pipeline', 'pipeline', 1, 1_000_000);
  if (o.has('flush')) a.flush = num('flush', 'flush', 0, 1_000_000);
  if (o.has('requests')) a.requests = num('requests', 'requests', 0, 1e12);
  if (o.has('keyspace')) a.keyspace = num('keyspace', 'keyspace', 1, 1e9);
  if (o.has('value')) a.valueSize = num('value', 'value', 0, 64 * 1024 * 1024);
  if (o.has('bandwidth')) a.bandwidth = num('bandwidth', 'bandwidth (bytes per second)', 0, 1e12);
  if (o.has('multi')) {
    const v = o.get('multi')!.toLowerCase();
    if (v !== 'yes' && v !== 'no') throw new ActionLineError('multi takes yes or no');
    a.multi = v === 'yes';
  }
  if (o.has('command')) {
    const c = o.get('command')!.toUpperCase();
    if (!(WORKLOAD_COMMANDS as readonly string[]).includes(c)) {
      throw new ActionLineError(`command is one of ${WORKLOAD_COMMANDS.join(', ')}`);
    }
    a.command = c;
  }
  if (o.has('interval')) a.intervalNs = parseDuration(o.get('interval')!);
  if (o.has('rtt')) a.rttNs = parseDuration(o.get('rtt')!);
  if (o.has('client-cpu')) a.clientCmdNs = parseDuration(o.get('client-cpu')!);
  return a;
}

/** A size as memcached's -I and slab_chunk_max take it: bytes, or with a
 *  k or m suffix. */
function mcBytes(text: string | undefined, what: string): number {
  const m = /^(\d+)([kKmM]?)$/.exec(text ?? '');
  if (!m) throw new ActionLineError(`${what} takes a size such as 1m, 512k or 65536, not "${text ?? ''}"`);
  const unit = m[2].toLowerCase() === 'm' ? 1 << 20 : m[2].toLowerCase() === 'k' ? 1024 : 1;
  return Number(m[1]) * unit;
}

/** "mc-start -m 16 -f 1.25 -C": memcached's own options, over its
 *  defaults. Whether memcached accepts the combination is the engine's to
 *  say (mcStart is checked against its parser before it is logged). */
function mcOptions(args: string[]): McOptions {
  const o: McOptions = { ...MC_DEFAULTS };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new ActionLineError(`${flag} needs a value`);
      return args[++i];
    };
    switch (flag) {
      case '-m': o.m = int(value(), '-m (megabytes)', 1, MC_MAX_MB); break;
      case '-n': o.n = int(value(), '-n (bytes)', 1, 1 << 20); break;
      case '-f': {
        const v = value();
        if (!/^\d+(\.\d+)?$/.test(v)) throw new ActionLineError(`-f takes a number such as 1.25, not "${v}"`);
        o.f = Number(v);
        break;
      }
      case '-I': o.I = mcBytes(value(), '-I'); break;
      case '-C': o.noCas = true; break;
      case '-o': {
        const v = value();
        if (!v.startsWith('slab_chunk_max=')) throw new ActionLineError('-o takes slab_chunk_max=SIZE');
        o.chunkMax = mcBytes(v.slice('slab_chunk_max='.length), 'slab_chunk_max');
        break;
      }
      default:
        throw new ActionLineError(`mc-start takes memcached's -m, -n, -f, -I, -o slab_chunk_max=N and -C, not "${flag}"`);
    }
  }
  return o;
}

const DISTS: Record<string, { id: McFillSpec['dist']; sizes: number }> = {
  fixed: { id: 0, sizes: 1 }, uniform: { id: 1, sizes: 2 }, normal: { id: 2, sizes: 2 }, shift: { id: 3, sizes: 2 },
};

/** "mc-fill shift 100 4000 total=40000 keys=4000": the Fill form's
 *  workload. Sets past FILL_MAX_COUNT go in further slices, as the form
 *  sends them. */
function mcFill(w: Words): Action[] {
  allowOnly(w, ['total', 'keys', 'key', 'seed', 'first', 'count'], 'mc-fill');
  const d = DISTS[(w.positional[0] ?? '').toLowerCase()];
  if (!d) throw new ActionLineError(`mc-fill takes a distribution: ${Object.keys(DISTS).join(', ')}`);
  if (w.positional.length !== 1 + d.sizes) {
    throw new ActionLineError('mc-fill takes fixed SIZE, uniform MIN MAX, normal MEAN STDDEV or shift FROM TO');
  }
  const size = (i: number) => int(w.positional[1 + i], 'a value size', 0, FILL_MAX_VALUE);
  const total = int(w.options.get('total'), 'total', 1, 1e12);
  const spec: McFillSpec = {
    dist: d.id, sizeA: size(0), sizeB: d.sizes > 1 ? size(1) : 0,
    keyBytes: int(w.options.get('key'), 'key (bytes of each key)', 1, 250, 10),
    keyspace: int(w.options.get('keys'), 'keys', 1, 1e12, total), total,
    seed: int(w.options.get('seed'), 'seed', 0, 2 ** 32, 1),
  };
  const first = int(w.options.get('first'), 'first', 0, total - 1, 0);
  const count = int(w.options.get('count'), 'count', 1, total - first, total - first);
  const out: Action[] = [];
  for (let at = first; at < first + count; at += FILL_MAX_COUNT) {
    out.push({ kind: 'mcFill', spec: { ...spec }, first: at, count: Math.min(FILL_MAX_COUNT, first + count - at) });
  }
  return out;
}

/** Actions are the same step of a lesson if they are equal, fields the
 *  lesson left to the session aside (the key prefix of an add, the
 *  configuration file a restart is logged with). */
export function sameAction(logged: Action, planned: Action): boolean {
  if (logged.kind !== planned.kind) return false;
  const a = logged as unknown as Record<string, unknown>;
  const b = planned as unknown as Record<string, unknown>;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if ((k === 'prefix' || k === 'conf') && b[k] === undefined) continue;
    // The memcached actions carry objects (options, a fill's spec):
    // compared by value, as they are logged as copies.
    const x = a[k];
    const y = b[k];
    if (x !== y && !(typeof x === 'object' && typeof y === 'object' && JSON.stringify(x) === JSON.stringify(y))) {
      return false;
    }
  }
  return true;
}
