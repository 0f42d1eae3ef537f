// The reader's second connection while the console waits for a busy
// script, through the WebAssembly build: lines taken from the inbox go on
// a connection of their own, -BUSY and SCRIPT KILL answer them, the log
// records them with their virtual times, and a replay prints the same.
import { describe, expect, it } from 'vitest';
import { InboxReader, InboxWriter } from '../../wasm/inbox';
import { SECOND_CONSOLE_BOX_MS, type LogEntry, type SessionLog, type WorkerEvent } from '../../wasm/protocol';
import { Session, type SecondInbox } from '../../wasm/session';
import { emptyLog, loadGlasskv } from './helpers';

const EVAL = 'EVAL "while true do end" 0';
const KILLED = /^\(error\) ERR Script killed by user with SCRIPT KILL\.\.\. script: \w+, on @user_script:1\.$/;

/** A reader who types each line of `lines` once `clock` reaches its time
 *  (real ms); take() moves the clock on by the wait it is asked for, as if
 *  it had waited that long. */
function reader(lines: { at: number; text: string }[]) {
  const state = { now: 0, waits: [] as number[] };
  const inbox: SecondInbox = {
    take(ms) {
      state.waits.push(ms);
      if (ms > 0) state.now += ms;
      if (lines.length && state.now >= lines[0].at) return lines.shift()!.text;
      return null;
    },
  };
  return { inbox, state };
}

function logOf(events: WorkerEvent[]): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const e of events) if (e.type === 'log') entries[e.index] = JSON.parse(JSON.stringify(e.entry)) as LogEntry;
  return entries;
}

describe('the second connection', () => {
  it('goes to the server the console was pointed at with CONNECT, where the busy script runs', async () => {
    const { inbox, state } = reader([{ at: 1, text: 'PING' }, { at: 301, text: 'SCRIPT KILL' }]);
    const session = new Session({ loadEngine: loadGlasskv, emit: () => {} }, { clock: () => state.now });
    session.setInbox(inbox);
    await session.boot(emptyLog(3));
    session.act({ kind: 'server', port: 6380 });
    session.act({ kind: 'console', text: 'CONNECT 127.0.0.1 6380' });
    const start = session.snapshot().now;
    const out = session.act({ kind: 'console', text: EVAL, second: [] }).console;
    expect(out.map((e) => [e.source, e.prompt, e.output])).toEqual([
      ['second', '', '(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'],
      ['second', '', 'OK'],
      ['console', '127.0.0.1:6380>', expect.stringMatching(KILLED)],
    ]);
    // 6380 had the console's box, as the first server has it.
    expect(session.snapshot().now - start).toBeLessThan(5.4e9);
  });

  it('sends what the reader types while a script is busy: PING gets -BUSY, SCRIPT KILL stops the script, and a replay prints the same', async () => {
    const events: WorkerEvent[] = [];
    const { inbox, state } = reader([{ at: 1, text: 'PING' }, { at: 301, text: 'SCRIPT KILL' }]);
    const session = new Session({ loadEngine: loadGlasskv, emit: (e) => events.push(e) }, { clock: () => state.now });
    session.setInbox(inbox);
    const log = emptyLog(3);
    await session.boot(log);
    const start = session.snapshot().now;
    const out = session.act({ kind: 'console', text: EVAL, second: [] }).console;
    const tookNs = session.snapshot().now - start;
    expect(out.map((e) => [e.source, e.input, e.output])).toEqual([
      ['second', 'PING', '(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'],
      ['second', 'SCRIPT KILL', 'OK'],
      ['console', EVAL, expect.stringMatching(KILLED)],
    ]);
    // Paced to real time once busy: killed 0.3 s after busy-reply-threshold.
    expect(tookNs).toBeGreaterThan(5.3e9);
    expect(tookNs).toBeLessThan(5.4e9);
    expect(Math.max(...state.waits)).toBeLessThanOrEqual(50);
    const blocked = events.filter((e) => e.type === 'blocked');
    expect(blocked.length).toBe(1);
    expect(events.filter((e) => e.type === 'second').map((e) => e.type === 'second' && e.entry.input))
      .toEqual(['PING', 'SCRIPT KILL']);
    // The log holds both lines with the virtual times they were sent at.
    const entries = logOf(events);
    const action = entries[entries.length - 1].action;
    expect(action.kind === 'console' && action.second?.map((s) => s.text)).toEqual(['PING', 'SCRIPT KILL']);
    const [ping, kill] = action.kind === 'console' ? action.second! : [];
    expect(ping.t).toBeGreaterThanOrEqual(start + 5e9);
    expect(kill.t - ping.t).toBeGreaterThan(0.29e9);
    expect(kill.t - ping.t).toBeLessThan(0.31e9);
    const after = session.act({ kind: 'console', text: 'PING' }).console;
    expect(after.map((e) => e.output)).toEqual(['PONG']);
    // Replayed into a fresh session, which has no inbox: the same lines,
    // sent at the same times, print the same transcript.
    const replayed = await new Session({ loadEngine: loadGlasskv, emit: () => {} })
      .boot({ ...log, entries: logOf(events) } satisfies SessionLog);
    const strip = (e: { seq: number; source: string; input: string; output: string; status: string }) =>
      [e.seq, e.source, e.input, e.output, e.status];
    expect(replayed.console.map(strip)).toEqual([...out, ...after].map(strip));
    expect(replayed.snapshot.now).toBe(session.snapshot().now);
  });

  it('keeps a busy script going past the usual box while the reader could still kill it, and stops it at its own', async () => {
    const { inbox, state } = reader([]);
    const session = new Session({ loadEngine: loadGlasskv, emit: () => {} }, { clock: () => state.now });
    session.setInbox(inbox);
    await session.boot(emptyLog(4));
    // A short threshold keeps the run short: 100 ms, then the box.
    session.act({ kind: 'console', text: 'CONFIG SET busy-reply-threshold 100' });
    const start = session.snapshot().now;
    const out = session.act({ kind: 'console', text: EVAL, second: [] }).console;
    expect(out[0].output).toMatch(new RegExp(`^\\(error\\) ERR Script stopped by the simulation after ${SECOND_CONSOLE_BOX_MS + 100} ms \\(its time box for a busy script\\)`));
    expect(session.snapshot().now - start).toBeGreaterThan((SECOND_CONSOLE_BOX_MS + 100) * 1e6);
    // The next command typed without a second connection has the usual box.
    const again = session.act({ kind: 'console', text: EVAL }).console;
    expect(again[0].output).toMatch(/^\(error\) ERR Script stopped by the simulation after 2100 ms \(the console cannot send SCRIPT KILL while the world runs\)/);
  }, 120_000);

  it('lets SHUTDOWN NOSAVE from the second connection end the script with the server, and logs the command whole', async () => {
    const events: WorkerEvent[] = [];
    const { inbox, state } = reader([{ at: 1, text: 'SHUTDOWN NOSAVE' }]);
    const session = new Session({ loadEngine: loadGlasskv, emit: (e) => events.push(e) }, { clock: () => state.now });
    session.setInbox(inbox);
    const log = emptyLog(6);
    await session.boot(log);
    session.act({ kind: 'console', text: 'CONFIG SET busy-reply-threshold 100', second: [] });
    const start = session.snapshot().now;
    const out = session.act({ kind: 'console', text: EVAL, second: [] }).console;
    // Neither connection gets a reply: the process is gone, at once, not
    // at the script's box.
    expect(out.map((e) => [e.source, e.input, e.status])).toEqual([
      ['second', 'SHUTDOWN NOSAVE', 'noreply'], ['console', EVAL, 'noreply'],
    ]);
    expect(session.snapshot().now - start).toBeLessThan(1e9);
    const next = session.act({ kind: 'console', text: 'PING', second: [] }).console;
    expect(next.map((e) => e.output)).toEqual(['Could not connect to Redis at 127.0.0.1:6379: Connection refused']);
    const entries = logOf(events);
    const action = entries[entries.length - 2].action;
    expect(action.kind === 'console' && action.second?.map((x) => x.text)).toEqual(['SHUTDOWN NOSAVE']);
    const replayed = await new Session({ loadEngine: loadGlasskv, emit: () => {} }).boot({ ...log, entries });
    expect(replayed.console.slice(-out.length - next.length).map((e) => e.output)).toEqual([...out, ...next].map((e) => e.output));
  });

  it('is not offered without an inbox: the action is logged without it and the script stops at the usual box', async () => {
    const events: WorkerEvent[] = [];
    const session = new Session({ loadEngine: loadGlasskv, emit: (e) => events.push(e) });
    await session.boot(emptyLog(5));
    session.act({ kind: 'console', text: 'CONFIG SET busy-reply-threshold 100' });
    const out = session.act({ kind: 'console', text: EVAL, second: [] }).console;
    expect(out[0].output).toMatch(/after 2100 ms \(the console cannot send SCRIPT KILL/);
    const entries = logOf(events);
    expect(entries[entries.length - 1].action).toEqual({ kind: 'console', text: EVAL });
    expect(() => session.act({ kind: 'console', text: 'PING', second: [{ t: 0, text: 'PING' }] }))
      .toThrow(/recorded by the worker/);
  });
});

describe('the inbox', () => {
  it('carries one text at a time from the page to the worker through shared memory', () => {
    const buffer = new SharedArrayBuffer(8 + 16 * 1024);
    const page = new InboxWriter(buffer);
    const worker = new InboxReader(buffer);
    expect(worker.take(0)).toBeNull();
    expect(page.put('SCRIPT KILL')).toBe(true);
    expect(page.put('PING')).toBe(false);
    expect(worker.take(10)).toBe('SCRIPT KILL');
    expect(worker.take(0)).toBeNull();
    expect(page.put('한글 PING')).toBe(true);
    expect(worker.take(0)).toBe('한글 PING');
    // A text the worker never took goes back to the page, once.
    expect(page.put('INFO')).toBe(true);
    expect(page.reclaim()).toBe('INFO');
    expect(worker.take(0)).toBeNull();
    expect(page.reclaim()).toBeNull();
  });
});
