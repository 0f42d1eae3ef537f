// A typed wrapper over the WebAssembly build of the engine. It knows the
// module's memory and calling conventions and nothing about React, workers
// or the UI: the worker uses it in the browser and the tests use it in Node.
//
//   const gk = await Glasskv.load({ factory: createGlasskv, wasmBinary });
//   const world = gk.createWorld({ seed: 42 });
//   const node = world.addServer();
//   const conn = world.openConn(node);
//   world.send(conn, gk.cliLine('PING')!.resp);
//   world.runUntilIdle();
//   world.recv(conn);                       // bytes of "+PONG\r\n"
//
// C calls return status codes; every failing status becomes a GkError with
// the engine's own message. A WebAssembly trap (unreachable, out-of-bounds
// access, abort) becomes a GkTrapError, after which the module is unusable.
import type { GlasskvFactory, GlasskvModule } from './glasskv';
import { captureImage, restoreImage, type MemoryImage } from './memimage';
import type { WorkloadSpec } from './protocol';

export type { WorkloadSpec };

export const Status = {
  OK: 0,
  ERR: -1,
  ENOMEM: -2,
  EINVAL: -3,
  ENOTFOUND: -4,
  ECLOSED: -5,
} as const;

export const TraceType = {
  CMD: 1,
  REHASH_STEP: 2,
  TABLE_NEW: 3,
  TABLE_FREE: 4,
  SCAN_BUCKET: 5,
  SCAN_CALL: 6,
  CRON: 7,
  EXPIRE: 8,
  SYSCALL: 9,
  LOOP: 10,
  CLIENT: 11,
  SLAB_PAGE: 12,
  ITEM_STORE: 13,
  ITEM_EVICT: 14,
  ITEM_FREE: 15,
  AOF: 16,
  BIO: 17,
  DISK: 18,
  CRASH: 19,
  REWRITE: 20,
  ACK: 21,
} as const;

/** System calls in SYSCALL records (a): b = fd, c = bytes, d = duration ns. */
export const Syscall = {
  READ: 0,
  WRITE: 1,
  POLL: 2,
  FWRITE: 3,
  FSYNC: 4,
  FTRUNCATE: 5,
  OPEN: 6,
  CLOSE: 7,
  RENAME: 8,
  UNLINK: 9,
  FREAD: 10,
} as const;

/** Event-loop phases in LOOP records (a); d = the iteration number. */
export const LoopPhase = { BEGIN: 0, BEFORE_SLEEP: 1, END: 2, CRON: 3 } as const;

/** Workload events in CLIENT records (a): b = fd, c = commands, d = bytes
 *  sent (SEND) or the batch's latency in ns (DONE). */
export const ClientEvent = { SEND: 0, DONE: 1 } as const;

export const DictKind = { KEYS: 0, EXPIRES: 1 } as const;

/** Doubles per trace record in a TraceBatch (see wasm/exports.c). */
export const TRACE_FIELDS = 8;

/** A failing status from the engine, with the engine's message. */
export class GkError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'GkError';
    this.code = code;
  }
}

/** The module trapped; its memory may be inconsistent and it must be dropped. */
export class GkTrapError extends Error {
  readonly cause: unknown;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'GkTrapError';
    this.cause = cause;
  }
}

export interface LoadOptions {
  factory: GlasskvFactory;
  /** The .wasm bytes (Node). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** A compiled module to instantiate again (the worker compiles once). */
  wasmModule?: WebAssembly.Module;
}

export interface WorldConfig {
  /** Seeds the world's PRNG and so the hash seed (0 ... 2^64-1). */
  seed?: number | bigint;
  /** Unix time in ms at virtual time 0. */
  unixMsAtZero?: number;
  /** Bytes the engine may hold before refusing growing commands (0 = none). */
  heapLimit?: number;
  /** Records in the trace ring (a power of two; 0 = the engine's default). */
  traceCapacity?: number;
}

export interface DictInfo {
  rehashidx: number;
  size: [number, number];
  used: [number, number];
  pauserehash: number;
  resizePolicy: number;
  /** Changes whenever an entry or a bucket of the dict changes: equal
   *  versions mean identical buckets. */
  version: number;
}

export interface ScanAudit {
  tracked: number;
  throughout: number;
  returned: number;
  missing: number;
  duplicates: number;
  foreign: number;
  calls: number;
  active: boolean;
  db: number;
}

export interface TraceRecord {
  seq: number;
  time: number;
  type: number;
  node: number;
  a: number;
  b: number;
  c: number;
  d: number;
}

/** Trace records packed as TRACE_FIELDS doubles each, ready to transfer. */
export interface TraceBatch {
  count: number;
  data: Float64Array;
}

const SPEC_ORDER = [
  'clients', 'pipeline', 'requests', 'multi', 'keyspace', 'valueSize', 'clientCmdNs', 'intervalNs', 'rttNs',
  'bandwidth',
] as const;

/** What a workload has done so far (gkWorkloadStats). Times are virtual ns. */
export interface WorkloadStats {
  sent: number;
  completed: number;
  batches: number;
  startNs: number;
  endNs: number;
  /** Batches timed. */
  latCount: number;
  latSumNs: number;
  latMaxNs: number;
  latP50Ns: number;
  latP99Ns: number;
  /** The program's system calls. */
  reads: number;
  writes: number;
  /** Every request answered. */
  done: boolean;
}

/** A host's system calls and loop iterations (gkNodeGetStats). */
export interface NodeStats {
  reads: number;
  writes: number;
  polls: number;
  iterations: number;
}

/** Recent batch latencies of a workload: when each batch completed and how
 *  long it took, ns, oldest first. */
export interface LatencySamples {
  times: Float64Array;
  latencies: Float64Array;
}

export interface BucketStrip {
  /** Entries per bin. */
  entries: Uint32Array;
  /** Non-empty buckets per bin. */
  filled: Uint32Array;
}

/** cliLine's argc for unbalanced quotes: redis-cli prints "Invalid argument(s)". */
export const CLI_INVALID = -1;
/** cliLine's argc for a bad repeat count ("0 PING"): redis-cli prints
 *  "Invalid redis-cli repeat command option value.". */
export const CLI_BAD_REPEAT = -3;
const CLI_ENOMEM = -2;

export interface CliLine {
  /** Arguments of the command (repeat count excluded), or CLI_INVALID /
   *  CLI_BAD_REPEAT. */
  argc: number;
  /** The RESP request for one copy of the command. */
  resp: Uint8Array;
  /** redis-cli prints this command's reply raw (INFO, DEBUG HTSTATS, ...). */
  raw: boolean;
  /** How many times redis-cli sends it ("3 INCR x" sends it 3 times). */
  repeat: number;
}

export interface CliReply {
  /** Bytes of the buffer the reply took. */
  consumed: number;
  /** What redis-cli --no-raw prints for it. */
  text: string;
}

const SCRATCH_BYTES = 256;
/** Room for one configuration value (they are short numbers and yes/no). */
const CONFIG_VALUE_BYTES = 128;
const NO_EVENT = 2 ** 63;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

function isTrap(e: unknown): boolean {
  return e instanceof WebAssembly.RuntimeError;
}

/** A 64-bit seed as its high and low 32-bit halves. */
function seedHalves(seed: number | bigint): [number, number] {
  const s = BigInt.asUintN(64, BigInt(seed));
  return [Number(s >> 32n), Number(s & 0xffffffffn)];
}

export function traceRecordAt(batch: TraceBatch, i: number): TraceRecord {
  const o = i * TRACE_FIELDS;
  const d = batch.data;
  return { seq: d[o], time: d[o + 1], type: d[o + 2], node: d[o + 3], a: d[o + 4], b: d[o + 5], c: d[o + 6], d: d[o + 7] };
}

/** One instantiated module: memory helpers, the CLI formatter, worlds. */
export class Glasskv {
  readonly module: GlasskvModule;
  private readonly scratch: number;
  private trapped: GkTrapError | null = null;

  private constructor(module: GlasskvModule) {
    this.module = module;
    this.scratch = module._malloc(SCRATCH_BYTES);
    if (!this.scratch) throw new GkError(Status.ENOMEM, 'cannot allocate scratch memory');
  }

  static async load(opts: LoadOptions): Promise<Glasskv> {
    const { wasmModule } = opts;
    const module = await opts.factory({
      wasmBinary: opts.wasmBinary,
      instantiateWasm: wasmModule
        ? (imports, done) => {
            WebAssembly.instantiate(wasmModule, imports).then((instance) => done(instance, wasmModule));
            return {};
          }
        : undefined,
      print: () => {},
      printErr: () => {},
    });
    return new Glasskv(module);
  }

  /** Set once a call trapped; every later call throws it again. */
  get trap(): GkTrapError | null {
    return this.trapped;
  }

  /** Runs fn, turning a trap into a GkTrapError that poisons the module. */
  guard<T>(fn: () => T): T {
    if (this.trapped) throw this.trapped;
    try {
      return fn();
    } catch (e) {
      if (isTrap(e)) {
        this.trapped = new GkTrapError(e);
        throw this.trapped;
      }
      throw e;
    }
  }

  createWorld(config: WorldConfig = {}): World {
    const [hi, lo] = seedHalves(config.seed ?? 0);
    return this.guard(() => {
      const m = this.module;
      const ptr = m._gkwWorldCreate(hi, lo, config.unixMsAtZero ?? 0, config.heapLimit ?? 0,
        config.traceCapacity ?? 0, this.scratch);
      if (!ptr) {
        const status = this.i32(this.scratch);
        throw new GkError(status, this.statusString(status));
      }
      return new World(this, ptr);
    });
  }

  statusString(status: number): string {
    return this.guard(() => this.module.UTF8ToString(this.module._gkStatusString(status)));
  }

  /** Splits one console line as redis-cli's interactive loop does; null
   *  for a blank line. See CliLine for the invalid cases. */
  cliLine(line: string): CliLine | null {
    return this.guard(() => {
      const m = this.module;
      const bytes = encoder.encode(line);
      const s = this.scratch;
      return this.withBlock(bytes.length + 1, (buf) => {
        m.HEAPU8.set(bytes, buf);
        const argc = m._gkwCliLine(buf, bytes.length, s, s + 4, s + 8, s + 12);
        if (argc === 0) return null;
        if (argc === CLI_ENOMEM) throw new GkError(Status.ENOMEM, 'out of memory splitting the line');
        if (argc < 0) return { argc, resp: new Uint8Array(0), raw: false, repeat: 0 };
        const resp = this.takeMalloced(this.u32(s), this.u32(s + 4));
        return { argc, resp, raw: this.i32(s + 8) !== 0, repeat: this.i32(s + 12) };
      });
    });
  }

  /** Formats the first RESP2 reply in `reply` as redis-cli prints it
   *  (raw for the commands CliLine.raw flags). consumed is 0 when the reply
   *  is incomplete and -1 when it is malformed. */
  cliFormatReply(reply: Uint8Array, raw = false): CliReply {
    return this.guard(() => {
      const m = this.module;
      const s = this.scratch;
      return this.withBlock(reply.length + 1, (buf) => {
        m.HEAPU8.set(reply, buf);
        const consumed = m._gkwCliFormatReply(buf, reply.length, raw ? 1 : 0, s, s + 4);
        if (consumed === CLI_ENOMEM) throw new GkError(Status.ENOMEM, 'out of memory formatting a reply');
        if (consumed <= 0) return { consumed, text: '' };
        const text = decoder.decode(this.takeMalloced(this.u32(s), this.u32(s + 4)));
        return { consumed, text };
      });
    });
  }

  /** The names of the built-in labs, in the engine's order. */
  labNames(): string[] {
    return this.guard(() => {
      const out: string[] = [];
      for (let i = 0; ; i++) {
        const p = this.module._gkLabName(i);
        if (!p) return out;
        out.push(this.cstring(p));
      }
    });
  }

  /** Runs a lab headless in fresh worlds of this module and returns its
   *  figures as the JSON text gkLabRun writes. */
  labRun(name: string, seed: number | bigint = 1): string {
    const [hi, lo] = seedHalves(seed);
    return this.jsonCall((out, cap) => this.withString(name, (n) => this.module._gkwLabRun(n, hi, lo, out, cap)),
      `no lab named ${name}`);
  }

  /** Runs one workload to completion in a fresh world (gkWorkloadRunJson). */
  workloadRunJson(spec: Partial<WorkloadSpec>, seed: number | bigint = 1): string {
    const [hi, lo] = seedHalves(seed);
    return this.withSpec(spec, (f, cmd) =>
      this.jsonCall((out, cap) => this.module._gkwWorkloadRunJson(f, cmd, hi, lo, out, cap), 'invalid workload'));
  }

  /** Calls fn(out, cap) with growing buffers until the JSON it writes fits. */
  private jsonCall(fn: (out: number, cap: number) => number, notFound: string): string {
    return this.guard(() => {
      let cap = 1 << 16;
      for (;;) {
        const text = this.withBlock(cap, (out) => {
          const n = fn(out, cap);
          if (n < 0) throw new GkError(n, n === Status.ENOTFOUND || n === Status.EINVAL ? notFound : this.statusString(n));
          if (n < cap) return decoder.decode(this.bytes(out, n));
          cap = n + 1;
          return null;
        });
        if (text !== null) return text;
      }
    });
  }

  /** Calls fn with a workload spec in the heap as gkwWorkloadStart reads it. */
  withSpec<T>(spec: Partial<WorkloadSpec>, fn: (fields: number, command: number) => T): T {
    return this.withBlock(SPEC_ORDER.length * 8, (p) => {
      const h = this.module.HEAPU8;
      const view = new DataView(h.buffer, h.byteOffset);
      SPEC_ORDER.forEach((k, i) => {
        const v = spec[k];
        view.setFloat64(p + i * 8, v === undefined ? NaN : Number(v), true);
      });
      return this.withString(spec.command ?? '', (cmd) => fn(p, cmd));
    });
  }

  /** The end of the module's heap: linear memory below it is the whole
   *  state of every world in the module. */
  heapTop(): number {
    return this.guard(() => this.module._gkwHeapTop() >>> 0);
  }

  /** A copy of linear memory up to the heap's end, sharing the pages that
   *  have not changed since `previous`. */
  captureMemory(previous: MemoryImage | null = null): MemoryImage {
    return this.guard(() => captureImage(this.module.HEAPU8, this.heapTop(), previous));
  }

  /** Writes an image back: every world in the module returns to the state
   *  it had when the image was taken. Call it between engine calls only. */
  restoreMemory(image: MemoryImage): void {
    this.guard(() => restoreImage(this.module.HEAPU8, image, this.heapTop()));
  }

  /** Deliberately traps, to exercise crash handling. */
  debugTrap(): never {
    this.guard(() => this.module._gkwDebugTrap());
    throw new Error('unreachable');
  }

  // ---- Memory helpers used by World. ----

  alloc(size: number): number {
    const p = this.module._malloc(Math.max(size, 1));
    if (!p) throw new GkError(Status.ENOMEM, `cannot allocate ${size} bytes in the WASM heap`);
    return p >>> 0;
  }

  i32(ptr: number): number {
    const h = this.module.HEAPU8;
    return new DataView(h.buffer, h.byteOffset).getInt32(ptr, true);
  }

  u32(ptr: number): number {
    return this.i32(ptr) >>> 0;
  }

  f64(ptr: number): number {
    const h = this.module.HEAPU8;
    return new DataView(h.buffer, h.byteOffset).getFloat64(ptr, true);
  }

  f64s(ptr: number, n: number): Float64Array {
    const h = this.module.HEAPU8;
    return new Float64Array(h.buffer.slice(ptr, ptr + n * 8));
  }

  bytes(ptr: number, len: number): Uint8Array {
    return this.module.HEAPU8.slice(ptr, ptr + len);
  }

  cstring(ptr: number): string {
    return ptr ? this.module.UTF8ToString(ptr >>> 0) : '';
  }

  /** Calls fn with a block of `bytes` bytes in the module's heap and frees
   *  it afterwards, whatever fn does. Like the other memory helpers it has
   *  no guard of its own: callers run it inside one. */
  withBlock<T>(bytes: number, fn: (ptr: number) => T): T {
    const p = this.alloc(bytes);
    try {
      return fn(p);
    } finally {
      this.module._free(p);
    }
  }

  withString<T>(s: string, fn: (ptr: number) => T): T {
    const bytes = encoder.encode(s);
    return this.withBlock(bytes.length + 1, (p) => {
      const h = this.module.HEAPU8;
      h.set(bytes, p);
      h[p + bytes.length] = 0;
      return fn(p);
    });
  }

  get scratchPtr(): number {
    return this.scratch;
  }

  private takeMalloced(ptr: number, len: number): Uint8Array {
    try {
      return this.bytes(ptr, len);
    } finally {
      this.module._free(ptr);
    }
  }
}

/** One simulated world: clock, event queue, nodes and connections. */
export class World {
  private readonly gk: Glasskv;
  private ptr: number;

  constructor(gk: Glasskv, ptr: number) {
    this.gk = gk;
    this.ptr = ptr;
  }

  private get m(): GlasskvModule {
    return this.gk.module;
  }

  private get w(): number {
    if (!this.ptr) throw new GkError(Status.EINVAL, 'the world was released');
    return this.ptr;
  }

  private check(status: number): number {
    if (status < 0) {
      const msg = this.gk.cstring(this.m._gkWorldLastError(this.w)) || this.gk.statusString(status);
      throw new GkError(status, msg);
    }
    return status;
  }

  private call(fn: () => number): number {
    return this.gk.guard(() => this.check(fn()));
  }

  release(): void {
    if (!this.ptr) return;
    const p = this.ptr;
    this.ptr = 0;
    if (!this.gk.trap) this.m._gkWorldRelease(p);
  }

  get released(): boolean {
    return this.ptr === 0;
  }

  /** The module this world lives in, and its handle there, for the
   *  wrappers kept in their own files (wasm/aof.ts). */
  get engine(): Glasskv {
    return this.gk;
  }

  get handle(): number {
    return this.w;
  }

  /** Throws the world's last error as a GkError for a failing status. */
  checkStatus(status: number): number {
    return this.check(status);
  }

  // ---- Time. ----

  now(): number {
    return this.gk.guard(() => this.m._gkwWorldNow(this.w));
  }

  /** Virtual time of the next queued event, or null when nothing is queued. */
  nextEventTime(): number | null {
    const t = this.gk.guard(() => this.m._gkwWorldNextEventTime(this.w));
    return t >= NO_EVENT ? null : t;
  }

  /** Runs the next event; returns the time the engine reports as next. */
  step(): number {
    const s = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwWorldStep(this.w, s));
    return this.gk.f64(s);
  }

  runUntil(timeNs: number): void {
    this.call(() => this.m._gkwWorldRunUntil(this.w, timeNs));
  }

  runUntilIdle(): void {
    this.call(() => this.m._gkWorldRunUntilIdle(this.w));
  }

  /** Bytes the engine holds, as its allocator accounts them. */
  memory(): number {
    return this.gk.guard(() => this.m._gkWorldMemory(this.w) >>> 0);
  }

  /** gkWorldDigest as 16 hex digits: equal for worlds in the same state
   *  (data, tables, clocks, counters), different otherwise. */
  digest(): string {
    const out = this.gk.scratchPtr;
    this.gk.guard(() => this.m._gkwWorldDigest(this.w, out));
    return this.gk.cstring(out);
  }

  // ---- Nodes and connections. ----

  addServer(): number {
    const s = this.gk.scratchPtr;
    this.call(() => this.m._gkServerAdd(this.w, s));
    return this.gk.i32(s);
  }

  serverConfigSet(node: number, name: string, value: string): void {
    this.call(() => this.gk.withString(name, (n) =>
      this.gk.withString(value, (v) => this.m._gkServerConfigSet(this.w, node, n, v))));
  }

  /** A configuration parameter's current value as CONFIG GET prints it
   *  ("yes", "10"); throws GkError for an unknown name. */
  serverConfigGet(node: number, name: string): string {
    return this.gk.guard(() => this.gk.withString(name, (n) =>
      this.gk.withBlock(CONFIG_VALUE_BYTES, (buf) => {
        this.check(this.m._gkServerConfigGet(this.w, node, n, buf, CONFIG_VALUE_BYTES));
        return this.gk.cstring(buf);
      })));
  }

  openConn(node: number): number {
    const s = this.gk.scratchPtr;
    this.call(() => this.m._gkConnOpen(this.w, node, s));
    return this.gk.i32(s);
  }

  closeConn(conn: number): void {
    this.call(() => this.m._gkConnClose(this.w, conn));
  }

  isOpen(conn: number): boolean {
    return this.gk.guard(() => this.m._gkConnIsOpen(this.w, conn)) > 0;
  }

  send(conn: number, data: Uint8Array | string): void {
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    this.gk.guard(() => this.gk.withBlock(bytes.length, (p) => {
      this.m.HEAPU8.set(bytes, p);
      this.check(this.m._gkConnSend(this.w, conn, p, bytes.length));
    }));
  }

  /** Bytes waiting to be read on conn. */
  pending(conn: number): number {
    return this.gk.guard(() => this.m._gkConnPending(this.w, conn) >>> 0);
  }

  /** Reads everything waiting on conn (or at most max bytes). */
  recv(conn: number, max = Infinity): Uint8Array {
    return this.gk.guard(() => {
      const n = Math.min(this.pending(conn), max);
      if (n === 0) return new Uint8Array(0);
      return this.gk.withBlock(n, (p) => {
        const got = this.m._gkConnRecv(this.w, conn, p, n) >>> 0;
        return this.gk.bytes(p, got);
      });
    });
  }

  // ---- Trace. ----

  traceLastSeq(): number {
    return this.gk.guard(() => this.m._gkwTraceLastSeq(this.w));
  }

  traceEnable(typeMask: number): void {
    this.gk.guard(() => this.m._gkTraceEnable(this.w, typeMask >>> 0));
  }

  /** Records with seq > afterSeq, oldest first, at most max. */
  traceRead(afterSeq: number, max = 4096): TraceBatch {
    return this.gk.guard(() => this.gk.withBlock(max * TRACE_FIELDS * 8, (p) => {
      const count = this.m._gkwTraceRead(this.w, afterSeq, p, max) >>> 0;
      return { count, data: this.gk.f64s(p, count * TRACE_FIELDS) };
    }));
  }

  /** Every record newer than afterSeq still in the ring, in batches. */
  traceReadAll(afterSeq: number): TraceRecord[] {
    const out: TraceRecord[] = [];
    let after = afterSeq;
    for (;;) {
      const batch = this.traceRead(after);
      for (let i = 0; i < batch.count; i++) out.push(traceRecordAt(batch, i));
      if (batch.count < 4096) return out;
      after = out[out.length - 1].seq;
    }
  }

  // ---- Introspection. ----

  dictInfo(node: number, db: number, kind: number = DictKind.KEYS): DictInfo {
    const s = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwDictGetInfo(this.w, node, db, kind, s));
    const f = this.gk.f64s(s, 8);
    return {
      rehashidx: f[0],
      size: [f[1], f[2]],
      used: [f[3], f[4]],
      pauserehash: f[5],
      resizePolicy: f[6],
      version: f[7],
    };
  }

  /** The buckets of one table folded into `bins` bins. */
  dictBuckets(node: number, db: number, kind: number, table: number, bins: number): BucketStrip {
    return this.gk.guard(() => this.gk.withBlock(bins * 8, (p) => {
      this.check(this.m._gkDictGetBuckets(this.w, node, db, kind, table, bins, p, p + bins * 4));
      const h = this.m.HEAPU8;
      const entries = new Uint32Array(h.buffer.slice(p, p + bins * 4));
      const filled = new Uint32Array(h.buffer.slice(p + bins * 4, p + bins * 8));
      return { entries, filled };
    }));
  }

  /** The raw bytes gkDictGetBucketKeys writes for one bucket. */
  bucketKeysRaw(node: number, db: number, kind: number, table: number, bucket: number, cap = 65536): Uint8Array {
    const s = this.gk.scratchPtr;
    return this.gk.guard(() => this.gk.withBlock(cap, (p) => {
      this.check(this.m._gkwDictGetBucketKeys(this.w, node, db, kind, table, bucket, p, cap, s));
      return this.gk.bytes(p, this.gk.u32(s));
    }));
  }

  /** Runs `steps` incremental rehash steps; returns the engine's result. */
  rehashSteps(node: number, db: number, kind: number, steps: number): number {
    return this.call(() => this.m._gkDictRehashSteps(this.w, node, db, kind, steps));
  }

  // ---- Workloads and hosts. ----

  /** Starts a client program against node; returns its id (a node id). */
  workloadStart(node: number, spec: Partial<WorkloadSpec>): number {
    return this.gk.guard(() => this.gk.withSpec(spec, (f, cmd) => {
      const s = this.gk.scratchPtr;
      this.check(this.m._gkwWorkloadStart(this.w, node, f, cmd, s));
      return this.gk.i32(s);
    }));
  }

  /** Stops sending; batches in flight still complete. */
  workloadStop(id: number): void {
    this.call(() => this.m._gkWorkloadStop(this.w, id));
  }

  workloadStats(id: number): WorkloadStats {
    const s = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwWorkloadGetStats(this.w, id, s));
    const f = this.gk.f64s(s, 13);
    return {
      sent: f[0], completed: f[1], batches: f[2], startNs: f[3], endNs: f[4], latCount: f[5], latSumNs: f[6],
      latMaxNs: f[7], latP50Ns: f[8], latP99Ns: f[9], reads: f[10], writes: f[11], done: f[12] !== 0,
    };
  }

  /** The workload's most recent batch latencies (at most max, the engine
   *  keeps 4,096). */
  workloadSamples(id: number, max = 4096): LatencySamples {
    return this.gk.guard(() => this.gk.withBlock(max * 16, (p) => {
      const n = this.check(this.m._gkwWorkloadSamples(this.w, id, p, p + max * 8, max));
      return { times: this.gk.f64s(p, n), latencies: this.gk.f64s(p + max * 8, n) };
    }));
  }

  /** System calls and loop iterations of any host (server or workload). */
  nodeStats(node: number): NodeStats {
    const s = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwNodeGetStats(this.w, node, s));
    const f = this.gk.f64s(s, 4);
    return { reads: f[0], writes: f[1], polls: f[2], iterations: f[3] };
  }

  /** Round-trip time (ns) and bandwidth (bytes/s, 0 = unlimited) of conn. */
  connSetLink(conn: number, rttNs: number, bytesPerSec: number): void {
    this.call(() => this.m._gkwConnSetLink(this.w, conn, rttNs, bytesPerSec));
  }

  // ---- SCAN audit. ----

  scanAuditBegin(node: number, db: number, conn: number): void {
    this.call(() => this.m._gkScanAuditBegin(this.w, node, db, conn));
  }

  scanAuditGet(node: number): ScanAudit {
    const s = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwScanAuditGet(this.w, node, s));
    const f = this.gk.f64s(s, 9);
    return {
      tracked: f[0], throughout: f[1], returned: f[2], missing: f[3],
      duplicates: f[4], foreign: f[5], calls: f[6], active: f[7] !== 0, db: f[8],
    };
  }

  /** The raw bytes gkScanAuditMissing writes. */
  scanAuditMissingRaw(node: number, cap = 65536): Uint8Array {
    const s = this.gk.scratchPtr;
    return this.gk.guard(() => this.gk.withBlock(cap, (p) => {
      this.check(this.m._gkScanAuditMissing(this.w, node, p, cap, s));
      return this.gk.bytes(p, this.gk.u32(s));
    }));
  }

  scanAuditEnd(node: number): void {
    this.call(() => this.m._gkScanAuditEnd(this.w, node));
  }
}
