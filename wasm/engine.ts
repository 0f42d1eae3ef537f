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
import type { GlasskvFactory, GlasskvModule } from '../web/src/wasm-gen/glasskv.mjs';
import {
  CliStatus, ConfigBytes, Limits, DictInfoBytes, ReplLinkBytes, ReplNodeBytes, readReplLink, readReplNode, type ReplLink, type ReplNode, DictKind, EvalLabProgressBytes, NodeStatsBytes, ScanAuditBytes, Status, TraceRecordBytes, WorkloadSpecBytes,
  WorkloadStatsBytes, readDictInfo, readEvalLabProgress, readHex64, readScanAudit, readSession, readTraceRecord, readU64, readU64s,
  readCliRequest, readCliText, readNodeStats, readWorkloadSpec, readWorkloadStats, writeConfig, writeSession,
  writeWorkloadSpec, type ConfigInput, type DictInfo, type EvalLabProgress, type NodeStats, type ScanAudit, type Session as SessionRecord,
  type SessionInput, type TraceRecord, type WorkloadSpec, type WorkloadSpecInput, type WorkloadStats,
} from '../web/src/wasm-gen/seam';
import { captureImage, restoreImage, type MemoryImage } from './memimage';

export {
  ClientEvent, DictKind, EvalLabPart, LoopPhase, ReplicaState, ReplLink as ReplLinkState, Status, Syscall, TraceType,
} from '../web/src/wasm-gen/seam';
export type {
  DictInfo, ReplLink, ReplNode, EvalLabProgress, NodeStats, ScanAudit, SessionInput, SessionRecord, TraceRecord, WorkloadSpec, WorkloadSpecInput,
  WorkloadStats,
};

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

/** A world's configuration (gkConfig); what is left out keeps its value
 *  here: seed 0, Unix time 0 at virtual time 0, no heap limit beyond the
 *  engine's maximum, the engine's default trace ring. */
export type WorldConfig = ConfigInput;

/** Trace records, oldest first, read from the engine's ring in one call. */
export interface TraceBatch {
  count: number;
  records: TraceRecord[];
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
export const CLI_INVALID: number = CliStatus.INVALID;
/** cliLine's argc for a bad repeat count ("0 PING"): redis-cli prints
 *  "Invalid redis-cli repeat command option value.". */
export const CLI_BAD_REPEAT: number = CliStatus.BAD_REPEAT;

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

/** One instantiated module: memory helpers, the CLI formatter, worlds. */
export class Glasskv {
  readonly module: GlasskvModule;
  private readonly scratch: number;
  private trapped: GkTrapError | null = null;
  private dv: DataView | null = null;
  /** Each world's host poll (World.setHostPoll), by its address. */
  readonly hostPolls: Map<number, (now: number) => void>;

  private constructor(module: GlasskvModule, hostPolls: Map<number, (now: number) => void>) {
    this.module = module;
    this.hostPolls = hostPolls;
    this.scratch = module._malloc(SCRATCH_BYTES);
    if (!this.scratch) throw new GkError(Status.ENOMEM, 'cannot allocate scratch memory');
  }

  static async load(opts: LoadOptions): Promise<Glasskv> {
    const { wasmModule } = opts;
    const hostPolls = new Map<number, (now: number) => void>();
    const module = await opts.factory({
      onHostPoll: (world, now) => hostPolls.get(world)?.(now),
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
    return new Glasskv(module, hostPolls);
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
    return this.guard(() => this.withBlock(ConfigBytes, (cfg) => {
      const m = this.module;
      m._gkConfigInit(cfg);
      const { traceCapacity, ...rest } = config;
      writeConfig(this.view(), cfg, {
        seed: 0, unixMsAtZero: 0, heapLimit: 0, ...rest, ...(traceCapacity ? { traceCapacity } : {}),
      });
      const status = m._gkWorldCreate(this.scratch, cfg, 0, 0);
      if (status !== Status.OK) throw new GkError(status, this.statusString(status));
      return new World(this, this.u32(this.scratch));
    }));
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
        const argc = m._gkwCliLine(buf, bytes.length, s);
        if (argc === 0) return null;
        if (argc === CliStatus.ENOMEM) throw new GkError(Status.ENOMEM, 'out of memory splitting the line');
        if (argc < 0) return { argc, resp: new Uint8Array(0), raw: false, repeat: 0 };
        const req = readCliRequest(this.view(), s);
        return { argc, resp: this.takeMalloced(req.resp, req.respLen), raw: req.raw, repeat: req.repeat };
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
        const consumed = m._gkwCliFormatReply(buf, reply.length, raw ? 1 : 0, s);
        if (consumed === CliStatus.ENOMEM) throw new GkError(Status.ENOMEM, 'out of memory formatting a reply');
        if (consumed <= 0) return { consumed, text: '' };
        const out = readCliText(this.view(), s);
        return { consumed, text: decoder.decode(this.takeMalloced(out.text, out.len)) };
      });
    });
  }

  /** The id of a command (not a subcommand) in the trace's CMD records,
   *  by its name in any case; -1 for no command. */
  commandId(name: string): number {
    return this.guard(() => this.withString(name, (n) => this.module._gkCommandId(n)));
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

  /** Seed 004's lab, eval-vs-zcard, to be run a step at a time
   *  (gkEvalLabCreate): with trace, its world records the EVAL run. */
  evalLab(seed: number | bigint = 1, trace = false): EvalLab {
    const [hi, lo] = seedHalves(seed);
    return this.guard(() => {
      const status = this.module._gkwEvalLabCreate(this.scratch, hi, lo, trace ? 1 : 0);
      if (status !== Status.OK) throw new GkError(status, this.statusString(status));
      return new EvalLab(this, this.u32(this.scratch));
    });
  }

  /** Runs one workload to completion in a fresh world (gkWorkloadRunJson). */
  workloadRunJson(spec: WorkloadSpecInput, seed: number | bigint = 1): string {
    const [hi, lo] = seedHalves(seed);
    return this.guard(() => this.withSpec(spec, (p) =>
      this.jsonCall((out, cap) => this.module._gkwWorkloadRunJson(p, hi, lo, out, cap), 'invalid workload')));
  }

  /** Calls fn(out, cap) with growing buffers until the JSON it writes fits. */
  jsonCall(fn: (out: number, cap: number) => number, notFound: string): string {
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

  /** Calls fn with a gkWorkloadSpec in the heap: gkWorkloadSpecInit's
   *  defaults, then the fields spec gives. */
  withSpec<T>(spec: WorkloadSpecInput, fn: (spec: number) => T): T {
    return this.withBlock(WorkloadSpecBytes, (p) => {
      this.module._gkWorkloadSpecInit(p);
      writeWorkloadSpec(this.view(), p, spec);
      return fn(p);
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

  /** A view of the module's memory (made again whenever memory grew). */
  view(): DataView {
    const h = this.module.HEAPU8;
    if (this.dv?.buffer !== h.buffer) this.dv = new DataView(h.buffer, h.byteOffset);
    return this.dv;
  }

  i32(ptr: number): number {
    return this.view().getInt32(ptr, true);
  }

  u32(ptr: number): number {
    return this.i32(ptr) >>> 0;
  }

  /** A uint64 at ptr (an out-parameter), exact up to 2^53. */
  u64(ptr: number): number {
    return readU64(this.view(), ptr);
  }

  /** Calls fn with a block of `bytes` bytes and reads the struct it
   *  filled with read (a generated reader of seam.ts). */
  withStruct<T>(bytes: number, read: (v: DataView, p: number) => T, fn: (p: number) => void): T {
    return this.withBlock(bytes, (p) => {
      fn(p);
      return read(this.view(), p);
    });
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
    this.gk.hostPolls.delete(p);
    if (!this.gk.trap) this.m._gkWorldRelease(p);
  }

  get released(): boolean {
    return this.ptr === 0;
  }

  /** Lets go of a world another object owns and releases (an EvalLab's),
   *  so that no call reaches it afterwards. */
  forget(): void {
    this.ptr = 0;
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
    this.call(() => this.m._gkWorldStep(this.w, s));
    return this.gk.u64(s);
  }

  runUntil(timeNs: number): void {
    this.call(() => this.m._gkwWorldRunUntil(this.w, timeNs));
  }

  runUntilIdle(): void {
    this.call(() => this.m._gkWorldRunUntilIdle(this.w));
  }

  /** Runs `during` with `poll` as the host's turn whenever a node is held
   *  in a busy script, once the world has caught up with its clock: poll
   *  may open connections, send and receive (a second redis-cli). An
   *  error poll throws cannot cross the engine's frames: it is kept, the
   *  polls stop, and it is thrown when `during` returns. */
  withHostPoll<T>(poll: (now: number) => void, during: () => T): T {
    const w = this.w;
    let failed: { error: unknown } | null = null;
    this.gk.hostPolls.set(w, (now) => {
      if (failed) return;
      try {
        poll(now);
      } catch (error) {
        failed = { error };
      }
    });
    this.gk.guard(() => this.m._gkwSetHostPoll(w, 1));
    try {
      const out = during();
      if (failed) throw (failed as { error: unknown }).error;
      return out;
    } finally {
      this.gk.hostPolls.delete(w);
      if (!this.gk.trap && this.ptr) this.m._gkwSetHostPoll(w, 0);
    }
  }

  /** How long a busy script may run before the world stops it, in ms
   *  after busy-reply-threshold; consoleCanKill: the host polls while it
   *  runs (withHostPoll), so a reader could have sent SCRIPT KILL. */
  setScriptTimeBox(node: number, ms: number, consoleCanKill: boolean): void {
    this.call(() => this.m._gkServerSetScriptTimeBox(this.w, node, ms, consoleCanKill ? 1 : 0));
  }

  /** Bytes the engine holds, as its allocator accounts them. */
  memory(): number {
    return this.gk.guard(() => this.m._gkWorldMemory(this.w) >>> 0);
  }

  /** gkWorldDigest as 16 hex digits: equal for worlds in the same state
   *  (data, tables, clocks, counters), different otherwise. */
  digest(): string {
    const out = this.gk.scratchPtr + 8;
    this.gk.guard(() => this.m._gkWorldDigest(this.w, out));
    return readHex64(this.gk.view(), out);
  }

  /** gkServerDatasetDigest of a Redis-style node as 16 hex digits: its
   *  keys, values and expire times alone, whatever their order, encoding
   *  or tables; keys expiring at or before cutoffMs (Unix ms) left out. */
  datasetDigest(node: number, cutoffMs = 0): string {
    const out = this.gk.scratchPtr + 8;
    this.call(() => this.m._gkwServerDatasetDigest(this.w, node, cutoffMs, out));
    return readHex64(this.gk.view(), out);
  }

  // ---- Nodes and connections. ----

  addServer(): number {
    const s = this.gk.scratchPtr;
    this.call(() => this.m._gkServerAdd(this.w, s));
    return this.gk.i32(s);
  }

  /** Starts a Redis server node from a redis.conf-style configuration;
   *  its id. */
  addServerConfig(conf: string): number {
    const s = this.gk.scratchPtr;
    this.call(() => this.gk.withString(conf, (c) => this.m._gkServerAddConfig(this.w, c, s)));
    return this.gk.i32(s);
  }

  /** gkWorldSetCpus: every host of the world shares `cpus` CPUs (0: each
   *  its own, the default); a host woken on an idle CPU runs wakeNs later,
   *  and a CPU passes to the next host waiting in switchNs. Refused while
   *  hosts hold or wait for CPUs. */
  setCpus(cpus: number, wakeNs: number, switchNs: number): void {
    this.call(() => this.m._gkwWorldSetCpus(this.w, cpus, wakeNs, switchNs));
  }

  /** gkMachineSet: the memory of node's machine as its kernel weighs a
   *  fork ("mem-total", "swap-total", "vm.overcommit_memory",
   *  "vm.overcommit_ratio"). Throws GkError, with the engine's message, for
   *  an unknown name or a bad value. */
  machineSet(node: number, name: string, value: string): void {
    this.call(() => this.gk.withString(name, (n) =>
      this.gk.withString(value, (v) => this.m._gkMachineSet(this.w, node, n, v))));
  }

  /** gkWorldSysctlSet: net.ipv4.ip_local_port_range or
   *  net.ipv4.ip_local_reserved_ports of the world's machine. */
  sysctlSet(name: string, value: string): void {
    this.call(() => this.gk.withString(name, (n) =>
      this.gk.withString(value, (v) => this.m._gkWorldSysctlSet(this.w, n, v))));
  }

  /** Node's replication, or null if no server runs there. */
  replNode(node: number): ReplNode | null {
    // Asked of every host id at each snapshot: a host that runs no server
    // is an answer, not an error to throw and catch.
    return this.gk.guard(() => this.gk.withBlock(ReplNodeBytes, (p) => {
      const st = this.m._gkReplInspect(this.w, node, p);
      if (st === Status.ENOTFOUND) return null;
      this.check(st);
      return readReplNode(this.gk.view(), p);
    }));
  }

  /** The node of the Redis server listening on port, -1 if none. */
  serverOnPort(port: number): number {
    for (let node = 0; node < Limits.MAX_NODES; node++)
      if (this.replNode(node)?.port === port) return node;
    return -1;
  }

  /** Every Redis server of the world by the port it listens on: one pass
   *  over the hosts, for callers that look up several ports. */
  serverPorts(): Map<number, number> {
    const out = new Map<number, number>();
    for (let node = 0; node < Limits.MAX_NODES; node++) {
      const r = this.replNode(node);
      if (r) out.set(r.port, node);
    }
    return out;
  }

  /** The replicas connected to node, in the order they came. */
  replLinks(node: number, count: number): ReplLink[] {
    const out: ReplLink[] = [];
    for (let i = 0; i < count; i++)
      out.push(this.struct(ReplLinkBytes, readReplLink, (p) => this.m._gkReplInspectLink(this.w, node, i, p)));
    return out;
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
    return this.gk.guard(() => this.gk.withBlock(max * TraceRecordBytes, (p) => {
      const count = this.m._gkwTraceRead(this.w, afterSeq, p, max) >>> 0;
      const v = this.gk.view();
      const records: TraceRecord[] = new Array(count);
      for (let i = 0; i < count; i++) records[i] = readTraceRecord(v, p + i * TraceRecordBytes);
      return { count, records };
    }));
  }

  /** Every record newer than afterSeq still in the ring, in batches. */
  traceReadAll(afterSeq: number): TraceRecord[] {
    const out: TraceRecord[] = [];
    let after = afterSeq;
    for (;;) {
      const batch = this.traceRead(after);
      out.push(...batch.records);
      if (batch.count < 4096) return out;
      after = out[out.length - 1].seq;
    }
  }

  // ---- Introspection. ----

  dictInfo(node: number, db: number, kind: number = DictKind.KEYS): DictInfo {
    return this.struct(DictInfoBytes, readDictInfo, (p) => this.m._gkDictGetInfo(this.w, node, db, kind, p));
  }

  /** Calls a gk*Get* function filling a struct at p and reads it back. */
  private struct<T>(bytes: number, read: (v: DataView, p: number) => T, fill: (p: number) => number): T {
    return this.gk.guard(() => this.gk.withStruct(bytes, read, (p) => this.check(fill(p))));
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
  workloadStart(node: number, spec: WorkloadSpecInput): number {
    return this.gk.guard(() => this.gk.withSpec(spec, (p) => {
      const s = this.gk.scratchPtr;
      this.check(this.m._gkWorkloadStart(this.w, node, p, s));
      return this.gk.i32(s);
    }));
  }

  /** Stops sending; batches in flight still complete. */
  workloadStop(id: number): void {
    this.call(() => this.m._gkWorkloadStop(this.w, id));
  }

  workloadStats(id: number): WorkloadStats {
    return this.struct(WorkloadStatsBytes, readWorkloadStats, (p) => this.m._gkWorkloadGetStats(this.w, id, p));
  }

  /** The spec the workload runs with, the engine's defaults filled in. */
  workloadSpec(id: number): WorkloadSpec {
    return this.struct(WorkloadSpecBytes, readWorkloadSpec, (p) => this.m._gkWorkloadGetSpec(this.w, id, p));
  }

  /** The page's record kept in the world's memory (gkWorldSession). */
  session(): SessionRecord {
    return this.gk.guard(() => readSession(this.gk.view(), this.m._gkWorldSession(this.w)));
  }

  /** Writes the given fields of the page's record in place. */
  setSession(fields: SessionInput): void {
    this.gk.guard(() => writeSession(this.gk.view(), this.m._gkWorldSession(this.w), fields));
  }

  /** The workload's most recent batch latencies (at most max, the engine
   *  keeps 4,096). */
  workloadSamples(id: number, max = 4096): LatencySamples {
    return this.gk.guard(() => this.gk.withBlock(max * 16, (p) => {
      const n = this.m._gkWorkloadSamples(this.w, id, p, p + max * 8, max) >>> 0;
      const v = this.gk.view();
      return { times: readU64s(v, p, n), latencies: readU64s(v, p + max * 8, n) };
    }));
  }

  /** System calls and loop iterations of any host (server or workload). */
  nodeStats(node: number): NodeStats {
    return this.struct(NodeStatsBytes, readNodeStats, (p) => this.m._gkNodeGetStats(this.w, node, p));
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
    return this.struct(ScanAuditBytes, readScanAudit, (p) => this.m._gkScanAuditGet(this.w, node, p));
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

/** Seed 004's lab in progress (gkEvalLab): each step loads a slice of the
 *  dataset or runs some of the world's events; the figures come once it
 *  is done, the same as gkLabRun's. */
export class EvalLab {
  private readonly gk: Glasskv;
  private ptr: number;
  /** The lab's world, for its trace (owned by the lab). */
  readonly world: World;

  constructor(gk: Glasskv, ptr: number) {
    this.gk = gk;
    this.ptr = ptr;
    this.world = new World(gk, gk.guard(() => gk.module._gkEvalLabWorld(ptr)));
  }

  private get l(): number {
    if (!this.ptr) throw new GkError(Status.EINVAL, 'the lab was released');
    return this.ptr;
  }

  /** One step of at most `work` keys loaded or events run. */
  step(work: number): EvalLabProgress {
    const gk = this.gk;
    return gk.guard(() => gk.withStruct(EvalLabProgressBytes, readEvalLabProgress, (p) => {
      const status = gk.module._gkEvalLabStep(this.l, Math.max(1, Math.min(0xffffffff, Math.floor(work))) >>> 0, p);
      if (status !== Status.OK) throw new GkError(status, gk.statusString(status));
    }));
  }

  progress(): EvalLabProgress {
    const gk = this.gk;
    return gk.guard(() => gk.withStruct(EvalLabProgressBytes, readEvalLabProgress,
      (p) => gk.module._gkEvalLabGetProgress(this.l, p)));
  }

  /** The figures, as gkLabRun writes them; GkError before the end. */
  figures(): string {
    return this.gk.jsonCall((out, cap) => this.gk.module._gkEvalLabFigures(this.l, out, cap), 'the lab is not done');
  }

  release(): void {
    if (!this.ptr) return;
    const p = this.ptr;
    this.ptr = 0;
    this.world.forget();
    if (!this.gk.trap) this.gk.module._gkEvalLabRelease(p);
  }
}
