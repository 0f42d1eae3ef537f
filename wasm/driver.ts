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
