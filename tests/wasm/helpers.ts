// Loading the real .wasm in Node, and small conveniences for the tests.
import { readFileSync } from 'node:fs';
import createGlasskv from '../../web/src/wasm-gen/glasskv.mjs';
import { Glasskv, type World } from '../../wasm/engine';
import { Session } from '../../wasm/session';
import type { SessionLog, WorkerEvent } from '../../wasm/protocol';

const wasmPath = new URL('../../web/src/wasm-gen/glasskv.wasm', import.meta.url);
let wasmBytes: Uint8Array<ArrayBuffer> | null = null;
let compiled: WebAssembly.Module | null = null;

/** A fresh instance of the module (its own memory). */
export async function loadGlasskv(): Promise<Glasskv> {
  wasmBytes ??= new Uint8Array(readFileSync(wasmPath));
  compiled ??= await WebAssembly.compile(wasmBytes);
  return Glasskv.load({ factory: createGlasskv, wasmModule: compiled });
}

/** A world with one server and one connection. */
export async function oneServer(seed = 42): Promise<{ gk: Glasskv; world: World; node: number; conn: number }> {
  const gk = await loadGlasskv();
  const world = gk.createWorld({ seed, unixMsAtZero: 1_767_225_600_000 });
  const node = world.addServer();
  const conn = world.openConn(node);
  return { gk, world, node, conn };
}

const decoder = new TextDecoder();

/** Sends raw bytes, runs what is due, returns what came back as text. */
export function rawExchange(world: World, conn: number, bytes: string): string {
  world.send(conn, bytes);
  world.runUntilIdle();
  return decoder.decode(world.recv(conn));
}

/** A session driven as the worker drives it, recording pushed events. */
export function newSession(): { session: Session; events: WorkerEvent[] } {
  const events: WorkerEvent[] = [];
  const session = new Session({ loadEngine: loadGlasskv, emit: (e) => events.push(e) });
  return { session, events };
}

export function emptyLog(seed = 7): SessionLog {
  return { version: 1, config: { seed, unixMsAtZero: 1_767_225_600_000, heapLimit: 0 }, entries: [] };
}
