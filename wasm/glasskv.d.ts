// Types of the Emscripten factory built by wasm/build.mjs and of the module it
// resolves to. Pointers and sizes are plain numbers (wasm32); values the C
// side returns as uint32 may arrive negative and are read with `>>> 0`.
// The build copies this file next to the generated glasskv.mjs.

/** Options the factory understands (the subset glasskv uses). */
export interface GlasskvModuleOptions {
  /** The .wasm bytes; required under Node, where fetch() of a file URL fails. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Instantiates an already compiled module instead of fetching and compiling. */
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    done: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void,
  ) => WebAssembly.Exports | Record<string, never>;
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  onAbort?: (what: unknown) => void;
}

type Ptr = number;
type World = Ptr;

/** The instantiated module: the C exports (prefixed `_`) and runtime helpers. */
export interface GlasskvModule {
  /** Replaced whenever memory grows: read it again after any call. */
  readonly HEAPU8: Uint8Array;
  UTF8ToString(ptr: Ptr, maxBytesToRead?: number): string;
  stringToUTF8(str: string, ptr: Ptr, maxBytesToWrite: number): void;
  lengthBytesUTF8(str: string): number;

  _malloc(size: number): Ptr;
  _free(ptr: Ptr): void;

  // glasskv.h, called as they are.
  _gkWorldRelease(w: World): void;
  _gkStatusString(status: number): Ptr;
  _gkWorldLastError(w: World): Ptr;
  _gkWorldMemory(w: World): number;
  _gkWorldRunUntilIdle(w: World): number;
  _gkServerAdd(w: World, nodeIdOut: Ptr): number;
  _gkServerConfigSet(w: World, node: number, name: Ptr, value: Ptr): number;
  _gkServerConfigGet(w: World, node: number, name: Ptr, buf: Ptr, cap: number): number;
  _gkConnOpen(w: World, node: number, connIdOut: Ptr): number;
  _gkConnClose(w: World, conn: number): number;
  _gkConnSend(w: World, conn: number, buf: Ptr, len: number): number;
  _gkConnPending(w: World, conn: number): number;
  _gkConnRecv(w: World, conn: number, buf: Ptr, cap: number): number;
  _gkConnIsOpen(w: World, conn: number): number;
  _gkTraceEnable(w: World, typeMask: number): void;
  _gkDictGetBuckets(
    w: World, node: number, db: number, kind: number, table: number,
    bins: number, entries: Ptr, filled: Ptr,
  ): number;
  _gkDictRehashSteps(w: World, node: number, db: number, kind: number, steps: number): number;
  _gkScanAuditBegin(w: World, node: number, db: number, conn: number): number;
  _gkScanAuditMissing(w: World, node: number, out: Ptr, cap: number, writtenOut: Ptr): number;
  _gkScanAuditEnd(w: World, node: number): number;
  _gkWorkloadStop(w: World, id: number): number;
  _gkLabName(i: number): Ptr;

  // wasm/exports.c: 64-bit values as doubles, structs as arrays of doubles.
  _gkwWorldCreate(
    seedHi: number, seedLo: number, unixMs: number, heapLimit: number,
    traceCapacity: number, statusOut: Ptr,
  ): World;
  _gkwWorldNow(w: World): number;
  _gkwWorldNextEventTime(w: World): number;
  _gkwWorldRunUntil(w: World, timeNs: number): number;
  _gkwWorldStep(w: World, nextTimeOut: Ptr): number;
  _gkwTraceLastSeq(w: World): number;
  _gkwTraceRead(w: World, afterSeq: number, out: Ptr, max: number): number;
  _gkwDictGetInfo(w: World, node: number, db: number, kind: number, out: Ptr): number;
  _gkwScanAuditGet(w: World, node: number, out: Ptr): number;
  _gkwDictGetBucketKeys(
    w: World, node: number, db: number, kind: number, table: number,
    bucket: number, out: Ptr, cap: number, writtenOut: Ptr,
  ): number;
  _gkwWorkloadStart(w: World, node: number, spec: Ptr, command: Ptr, idOut: Ptr): number;
  _gkwWorkloadGetStats(w: World, id: number, out: Ptr): number;
  _gkwWorkloadSamples(w: World, id: number, times: Ptr, latencies: Ptr, max: number): number;
  _gkwNodeGetStats(w: World, node: number, out: Ptr): number;
  _gkwConnSetLink(w: World, conn: number, rttNs: number, bytesPerSec: number): number;
  _gkwLabRun(name: Ptr, seedHi: number, seedLo: number, out: Ptr, cap: number): number;
  _gkwWorkloadRunJson(spec: Ptr, command: Ptr, seedHi: number, seedLo: number, out: Ptr, cap: number): number;
  _gkwHeapTop(): number;
  _gkwWorldDigest(w: World, out: Ptr): void;
  _gkwCliLine(line: Ptr, len: number, out: Ptr, outLen: Ptr, rawOut: Ptr, repeatOut: Ptr): number;
  _gkwCliFormatReply(buf: Ptr, len: number, raw: number, text: Ptr, textLen: Ptr): number;
  _gkwDebugTrap(): void;

  // Persistence: glasskv.h as it is, then wasm/aofexports.c.
  _gkServerCrash(w: World, node: number, kind: number): number;
  _gkServerRestart(w: World, node: number, conf: Ptr): number;
  _gkServerIsUp(w: World, node: number): number;
  _gkDiskSetPreset(w: World, node: number, name: Ptr): number;
  _gkDiskPresetName(i: number): Ptr;
  _gkDiskSetReadOnly(w: World, node: number, dir: Ptr, readonly: number): number;
  _gkDiskList(w: World, node: number, dir: Ptr, out: Ptr, cap: number, writtenOut: Ptr): number;
  _gkwAofGetInfo(w: World, node: number, out: Ptr, names: Ptr): number;
  _gkwServerThreads(w: World, node: number, out: Ptr, names: Ptr): number;
  _gkwDiskGetInfo(w: World, node: number, out: Ptr, preset: Ptr): number;
  _gkwDiskFileInfo(w: World, node: number, path: Ptr, out: Ptr): number;
  _gkwDiskSetFree(w: World, node: number, bytes: number): number;
  _gkwDiskReadFile(w: World, node: number, path: Ptr, durable: number, out: Ptr, cap: number, sizeOut: Ptr): number;
  _gkwServerCrashAt(w: World, node: number, at: number, kind: number, flags: number): number;
  _gkwServerCrashAtEvent(w: World, node: number, kind: number, type: number, a: number, b: number,
    flags: number): number;
  _gkwServerLogRead(w: World, node: number, after: number, out: Ptr, cap: number, lastOut: Ptr): number;

  // memcached-style nodes: glasskv.h as it is, then wasm/mcexports.c.
  _gkMemcachedAdd(w: World, options: Ptr, nodeIdOut: Ptr): number;
  _gkMemcachedPages(w: World, node: number, cls: number, used: Ptr, max: number, nOut: Ptr): number;
  _gkMemcachedChunks(w: World, node: number, cls: number, page: number, bytes: Ptr, max: number, nOut: Ptr): number;
  _gkMemcachedNotes(): Ptr;
  _gkwMemcachedClasses(w: World, node: number, rows: Ptr, totals: Ptr): number;
  _gkwMemcachedLayout(options: Ptr, rows: Ptr, err: Ptr, cap: number): number;
  _gkwMemcachedItemClass(w: World, node: number, nkey: number, flags: number, vlen: number, out: Ptr): number;
  _gkwMemcachedFill(w: World, node: number, spec: Ptr, first: number, count: number, acc: Ptr): number;
}

export type GlasskvFactory = (options?: GlasskvModuleOptions) => Promise<GlasskvModule>;

declare const createGlasskv: GlasskvFactory;
export default createGlasskv;
