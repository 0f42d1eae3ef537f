// The inbox a page shares with its engine worker: while the console waits
// for a busy script, the worker is inside one long call into the engine
// and reads no messages, so the page writes what the reader types on a
// second connection into shared memory, and the engine's host poll takes
// it from there (and waits on it, to pace the busy script to real time).
// Only a cross-origin isolated page can share memory with its worker; on
// another page there is no inbox and the console works as before.

/** Int32 slots: whether a text is waiting, and its length in bytes. */
const FULL = 0;
const LENGTH = 1;
const HEADER_BYTES = 8;
/** The longest text one put carries, in bytes: as long as a console
 *  input may be (web/src/share/validate.ts checks the same of a log). */
export const INBOX_TEXT_BYTES = 1 << 20;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A buffer for an inbox, or null where memory cannot be shared. */
export function newInboxBuffer(): SharedArrayBuffer | null {
  if (typeof SharedArrayBuffer !== 'function' || !globalThis.crossOriginIsolated) return null;
  return new SharedArrayBuffer(HEADER_BYTES + INBOX_TEXT_BYTES);
}

/** The page's end: puts one text at a time. */
export class InboxWriter {
  private readonly slots: Int32Array;
  private readonly bytes: Uint8Array;

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Int32Array(buffer, 0, 2);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** Puts text in and wakes the worker; false while the last text is
   *  still there (try again later). Text past INBOX_TEXT_BYTES is cut. */
  put(text: string): boolean {
    if (Atomics.load(this.slots, FULL) !== 0) return false;
    // Encoded apart and copied in: not every browser encodes into shared
    // memory directly.
    const bytes = whole(encoder.encode(text), this.bytes.length);
    this.bytes.set(bytes);
    Atomics.store(this.slots, LENGTH, bytes.length);
    Atomics.store(this.slots, FULL, 1);
    Atomics.notify(this.slots, FULL);
    return true;
  }

  /** Takes back the text the worker has not taken, if any. */
  reclaim(): string | null {
    return takeText(this.slots, this.bytes);
  }
}

/** The UTF-8 bytes, cut to at most max at a character's start. */
function whole(bytes: Uint8Array, max: number): Uint8Array {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The text waiting in the slots, taken out (null if none, or if the other
 *  end took it first: whoever frees the slot has it). */
function takeText(slots: Int32Array, bytes: Uint8Array): string | null {
  if (Atomics.load(slots, FULL) === 0) return null;
  const length = Math.min(Atomics.load(slots, LENGTH), bytes.length);
  // Copied out of shared memory before decoding.
  const text = decoder.decode(bytes.slice(0, length));
  return Atomics.compareExchange(slots, FULL, 1, 0) === 1 ? text : null;
}

/** The worker's end. */
export class InboxReader {
  private readonly slots: Int32Array;
  private readonly bytes: Uint8Array;

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Int32Array(buffer, 0, 2);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** The text waiting, or null; waits up to waitMs for one. */
  take(waitMs: number): string | null {
    if (waitMs > 0 && Atomics.load(this.slots, FULL) === 0) Atomics.wait(this.slots, FULL, 0, waitMs);
    return takeText(this.slots, this.bytes);
  }
}
