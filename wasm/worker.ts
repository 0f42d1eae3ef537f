// The module worker that owns the engine. It compiles the .wasm once and
// instantiates it afresh for every boot (a trapped instance is never
// reused); wasm/host.ts does the rest.
import createGlasskv from '../web/src/wasm-gen/glasskv.mjs';
import { Glasskv } from './engine';
import { WorkerHost } from './host';
import type { FromWorker, ToWorker } from './protocol';
import { Session } from './session';

declare const self: DedicatedWorkerGlobalScope;

const wasmUrl = new URL('../web/src/wasm-gen/glasskv.wasm', import.meta.url);
let compiled: Promise<WebAssembly.Module> | null = null;

function compileOnce(): Promise<WebAssembly.Module> {
  compiled ??= fetch(wasmUrl)
    .then((res) => {
      if (!res.ok) throw new Error(`cannot load ${wasmUrl.href}: HTTP ${res.status}`);
      return res.arrayBuffer();
    })
    .then((bytes) => WebAssembly.compile(bytes));
  compiled.catch(() => {
    compiled = null;
  });
  return compiled;
}

function post(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

const session = new Session({
  loadEngine: async () => Glasskv.load({ factory: createGlasskv, wasmModule: await compileOnce() }),
  emit: (event) => post(event),
});
const host = new WorkerHost(session, post);

self.onmessage = (e: MessageEvent<ToWorker>) => host.onMessage(e.data);
post({ type: 'ready' });
