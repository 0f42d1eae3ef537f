// Sending bytes on a connection and running the world until the replies
// are back. The engine usually answers within the same instant (run until
// idle); if not, the world is stepped through its own events (serverCron,
// later wake-ups) for at most MAX_WAIT_NS of virtual time, so waiting stays
// deterministic and a reply that never comes cannot hang the worker.
import type { World } from './engine';
import { concat, isOutOfBand, parseReply, type Reply } from './resp';

/** Virtual time to wait for replies beyond the instant they were sent. */
const MAX_WAIT_NS = 10e9;

/** Where each of the first `want` complete replies in buf ends. */
export function replyEnds(buf: Uint8Array, want: number): number[] {
  const ends: number[] = [];
  let at = 0;
  while (ends.length < want) {
    const r = parseReply(buf, at);
    if (!r) break;
    ends.push(r.end);
    at = r.end;
  }
  return ends;
}

/** Counts complete replies as bytes arrive, without re-reading old ones.
 *  A RESP3 push that answers no command (a Pub/Sub message) is no reply. */
class ReplyCounter {
  count = 0;
  private at = 0;

  feed(buf: Uint8Array, want: number): void {
    while (this.count < want) {
      const r = parseReply(buf, this.at);
      if (!r) return;
      this.at = r.end;
      if (!isOutOfBand(r.reply)) this.count++;
    }
  }
}

/** Sends `request` on conn and runs the world until `want` replies have
 *  arrived, the server closed the connection, or the wait ran out. Returns
 *  every byte received (possibly fewer replies than wanted). */
export function exchange(world: World, conn: number, request: Uint8Array, want: number): Uint8Array {
  world.send(conn, request);
  world.runUntilIdle();
  const chunks: Uint8Array[] = [world.recv(conn)];
  let buf = chunks[0];
  const counter = new ReplyCounter();
  counter.feed(buf, want);
  const deadline = world.now() + MAX_WAIT_NS;
  while (counter.count < want && world.isOpen(conn)) {
    const next = world.nextEventTime();
    if (next === null || next > deadline) break;
    world.step();
    const more = world.recv(conn);
    if (!more.length) continue;
    chunks.push(more);
    buf = concat(chunks);
    counter.feed(buf, want);
  }
  return buf;
}

/** One request, one decoded reply (null if none came back). */
export function roundTrip(world: World, conn: number, request: Uint8Array): Reply | null {
  const r = parseReply(exchange(world, conn, request, 1), 0);
  return r ? r.reply : null;
}

/** Keys in one MSET of writeKeys: a command of about 30 KB. */
export const MSET_KEYS = 1000;

const utf8 = new TextEncoder();

/** MSET prefix:from value:from ... for count keys, in RESP. Built as one
 *  string and encoded once: encodeRequest's array of parts costs several
 *  times the engine's own work for a million keys. */
function msetRequest(prefix: string, from: number, count: number): Uint8Array {
  const prefixBytes = utf8.encode(prefix).length + 1;
  let s = `*${1 + 2 * count}\r\n$4\r\nMSET\r\n`;
  for (let j = from; j < from + count; j++) {
    const d = String(j);
    s += `$${prefixBytes + d.length}\r\n${prefix}:${d}\r\n$${6 + d.length}\r\nvalue:${d}\r\n`;
  }
  return utf8.encode(s);
}

export interface KeysWritten {
  /** Keys the server acknowledged. */
  written: number;
  /** MSET commands sent, the failed one included. */
  commands: number;
  /** The first reply that was not OK (null: none, or none arrived). */
  refused: Reply | null;
  /** Every command had its reply. */
  answered: boolean;
}

/** Writes n keys prefix:0 ... prefix:n-1, with values value:0 ..., the
 *  names and values DEBUG POPULATE gives them, in MSET commands of up to
 *  MSET_KEYS keys on conn, and stops at the first refusal (the heap
 *  limit). Unlike DEBUG POPULATE, nothing sizes the table first: each
 *  key goes through dictAdd as a client's write does, so the dict
 *  doubles when it is full and moves buckets a step per lookup and add. */
export function writeKeys(world: World, conn: number, prefix: string, n: number): KeysWritten {
  const done: KeysWritten = { written: 0, commands: 0, refused: null, answered: true };
  while (done.written < n) {
    const count = Math.min(MSET_KEYS, n - done.written);
    const reply = roundTrip(world, conn, msetRequest(prefix, done.written, count));
    done.commands++;
    if (!reply) return { ...done, answered: false };
    if (reply.type !== 'status') return { ...done, refused: reply };
    done.written += count;
  }
  return done;
}
