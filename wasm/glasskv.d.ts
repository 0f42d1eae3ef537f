// Types of the Emscripten factory built by wasm/build.mjs and of the module it
// resolves to. Pointers and sizes are plain numbers (wasm32); values the C
// side returns as uint32 may arrive negative and are read with `>>> 0`.
// wasm/seam.mjs writes this file next to the generated glasskv.mjs as
// glasskv.d.mts, with the C exports in place of the @exports line: each
// function of engine/include/glasskv.h and wasm/exports.c that wasm/ calls,
// those with 64-bit integers as their gkw wrappers.

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
  /** The host's turn while a node of `world` is held in a busy script
   *  (wasm/exports.c gkwSetHostPoll), at virtual time `now` (ns). */
  onHostPoll?: (world: number, now: number) => void;
}

/** The instantiated module: the C exports (prefixed `_`) and runtime helpers. */
export interface GlasskvModule {
  /** Replaced whenever memory grows: read it again after any call. */
  readonly HEAPU8: Uint8Array;
  UTF8ToString(ptr: number, maxBytesToRead?: number): string;
  stringToUTF8(str: string, ptr: number, maxBytesToWrite: number): void;
  lengthBytesUTF8(str: string): number;

  // @exports
}

export type GlasskvFactory = (options?: GlasskvModuleOptions) => Promise<GlasskvModule>;

declare const createGlasskv: GlasskvFactory;
export default createGlasskv;
