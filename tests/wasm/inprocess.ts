// The worker's message handling (WorkerHost and Session, the code
// wasm/worker.ts runs) behind a Worker-shaped object, connected in-process
// through structured clones, for tests of the bridge and of what uses it.
import { WorkerHost } from '../../wasm/host';
import type { FromWorker, ToWorker } from '../../wasm/protocol';
import { Session } from '../../wasm/session';
import { loadGlasskv } from './helpers';

export class InProcessWorker {
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: ((e: { message: string; preventDefault(): void }) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  readonly host: WorkerHost;
  terminated = false;

  constructor() {
    const session = new Session({ loadEngine: loadGlasskv, emit: (e) => this.deliver(e) });
    this.host = new WorkerHost(session, (m) => this.deliver(m));
  }

  postMessage(msg: ToWorker): void {
    const copy = structuredClone(msg);
    queueMicrotask(() => this.host.onMessage(copy));
  }

  terminate(): void {
    this.terminated = true;
  }

  die(message: string): void {
    this.onerror?.({ message, preventDefault() {} });
  }

  private deliver(msg: FromWorker): void {
    if (this.terminated) return;
    const copy = structuredClone(msg);
    queueMicrotask(() => this.onmessage?.({ data: copy }));
  }
}
