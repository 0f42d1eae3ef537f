// The page's side of the worker protocol: typed calls that return promises,
// answered in the order they were made, and a stream of pushed events. If
// the worker itself dies (an error escaping it, or it cannot start), every
// pending call is rejected with WorkerDeadError and listeners hear 'dead';
// restart() then starts a new worker.
import { InboxWriter, newInboxBuffer } from './inbox';
import {
  isResponse, type FromWorker, type Request, type ResultMap, type ToWorker,
  type WireError, type WorkerEvent,
} from './protocol';

/** A request failed in the worker; `remote` names the worker-side error. */
export class BridgeCallError extends Error {
  readonly remote: string;
  readonly code: number | undefined;
  constructor(error: WireError) {
    super(error.message);
    this.name = 'BridgeCallError';
    this.remote = error.name;
    this.code = error.code;
  }
}

export class WorkerDeadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerDeadError';
  }
}

export type BridgeEvent = WorkerEvent | { type: 'dead'; message: string };

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
/** A request without its id (distributed over the union of requests). */
export type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

export class Bridge {
  private readonly makeWorker: () => Worker;
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(e: BridgeEvent) => void>();
  private deadReason: string | null = null;
  /** Shared with each worker, where the page is cross-origin isolated. */
  private readonly inbox: SharedArrayBuffer | null;
  private readonly inboxWriter: InboxWriter | null;
  /** Lines waiting for the worker to take the one before. */
  private readonly outbox: string[] = [];
  private outboxTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(makeWorker: () => Worker, inbox: SharedArrayBuffer | null = newInboxBuffer()) {
    this.makeWorker = makeWorker;
    this.inbox = inbox;
    this.inboxWriter = inbox ? new InboxWriter(inbox) : null;
    this.start();
  }

  /** Whether the reader can type on a second connection while the
   *  console waits for a busy script (the worker reads an inbox then). */
  get hasInbox(): boolean {
    return this.inboxWriter !== null;
  }

  /** Puts a line typed on the second connection in the worker's inbox,
   *  after the lines before it (one at a time, as the worker takes them).
   *  False without an inbox. */
  typeSecond(text: string): boolean {
    if (!this.inboxWriter) return false;
    this.outbox.push(text);
    this.flushOutbox();
    return true;
  }

  /** Takes back the lines typed on the second connection that the worker
   *  has not taken (its command ended first), oldest first. */
  reclaimSecond(): string[] {
    if (this.outboxTimer !== null) clearTimeout(this.outboxTimer);
    this.outboxTimer = null;
    const inInbox = this.inboxWriter?.reclaim() ?? null;
    const left = [...(inInbox === null ? [] : [inInbox]), ...this.outbox.splice(0)];
    return left;
  }

  private flushOutbox(): void {
    while (this.outbox.length && this.inboxWriter!.put(this.outbox[0])) this.outbox.shift();
    if (this.outbox.length && this.outboxTimer === null) {
      this.outboxTimer = setTimeout(() => {
        this.outboxTimer = null;
        this.flushOutbox();
      }, 20);
    }
  }

  get dead(): string | null {
    return this.deadReason;
  }

  private start(): void {
    this.deadReason = null;
    const w = this.makeWorker();
    w.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.die(e.message || 'the engine worker failed');
    };
    w.onmessageerror = () => this.die('a message from the engine worker could not be read');
    this.worker = w;
    if (this.inbox) w.postMessage({ type: 'inbox', buffer: this.inbox } satisfies ToWorker);
  }

  /** Terminates the worker (if any) and starts a fresh one. */
  restart(): void {
    this.worker?.terminate();
    this.rejectAll(new WorkerDeadError('the engine worker was restarted'));
    this.start();
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.rejectAll(new WorkerDeadError('the bridge was disposed'));
  }

  subscribe(fn: (e: BridgeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Sends a request; resolves with its result or rejects with BridgeCallError. */
  call<B extends RequestBody>(body: B): Promise<ResultMap[B['type']]> {
    if (this.deadReason !== null || !this.worker) {
      return Promise.reject(new WorkerDeadError(this.deadReason ?? 'no engine worker'));
    }
    const id = this.nextId++;
    const msg = { ...body, id } as Request;
    return new Promise<ResultMap[B['type']]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send(msg);
    });
  }

  /** Tells the worker the last pushed snapshot is drawn. */
  ack(): void {
    if (this.worker && this.deadReason === null) this.send({ type: 'ack' });
  }

  private send(msg: ToWorker): void {
    this.worker!.postMessage(msg);
  }

  private receive(msg: FromWorker): void {
    if (!isResponse(msg)) {
      for (const fn of this.listeners) fn(msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new BridgeCallError(msg.error));
  }

  private die(message: string): void {
    if (this.deadReason !== null) return;
    this.deadReason = message;
    this.rejectAll(new WorkerDeadError(message));
    for (const fn of this.listeners) fn({ type: 'dead', message });
  }

  private rejectAll(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }
}
