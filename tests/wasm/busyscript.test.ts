// A script that keeps the server busy, through the WebAssembly build: the
// frozen iteration on the timeline, the other clients' commands refused
// with -BUSY inside it, and their error replies.
import { describe, expect, it } from 'vitest';
import { TIMELINE_BIN_FIELDS, TimelineBin, TimelineItem, errorCodeText, type LaneItems } from '../../wasm/protocol';
import { emptyLog, newSession } from './helpers';

const items = (l: LaneItems) => Array.from({ length: l.count }, (_, i) => ({
  t0: l.t0[i], t1: l.t1[i], kind: l.kind[i], fd: l.fd[i], n: l.n[i], x: l.x[i],
}));

describe('a busy script', () => {
  it('freezes one iteration, in which the pinging client is answered -BUSY after 5 s', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    session.act({ kind: 'workload', preset: 'monitor', clients: 1, command: 'PING', intervalNs: 100e6 });
    session.act({ kind: 'wait', ns: 50e6 });
    const start = session.snapshot().now;
    const out = session.act({ kind: 'console', text: 'EVAL "while true do end" 0' }).console;
    expect(out[0].output).toMatch(/^\(error\) ERR Script stopped by the simulation after 7000 ms/);
    // The last -BUSY reply is still on its way to the client.
    session.act({ kind: 'wait', ns: 10e6 });
    const end = session.snapshot().now;
    const w = session.timeline(start, end, 4000, [0, 1]);
    const server = items(w.items.find((l) => l.node === 0)!);
    const frozen = server.filter((i) => i.kind === TimelineItem.ITER && i.t1 - i.t0 >= 7e9);
    expect(frozen.length).toBe(1);
    const [it] = frozen;
    const refused = server.filter((i) => i.kind === TimelineItem.REFUSED);
    expect(refused.length).toBeGreaterThanOrEqual(19);
    expect(refused.length).toBeLessThanOrEqual(21);
    const names = await session.commandNames();
    for (const r of refused) {
      expect(errorCodeText(r.n)).toBe('BUSY');
      expect(names[r.x]).toBe('PING');
      expect(r.t0).toBeGreaterThanOrEqual(it.t0 + 5e9);
      expect(r.t0).toBeLessThanOrEqual(it.t1);
    }
    const client = items(w.items.find((l) => l.node === 1)!);
    const errors = client.filter((i) => i.kind === TimelineItem.ERRORS);
    expect(errors.length).toBe(refused.length);
    expect(errors.every((e) => e.n === 1 && errorCodeText(e.x) === 'BUSY')).toBe(true);
    expect(session.snapshot().workloads[0].stats.errors).toBe(refused.length);
    // Zoomed out, the sums count them too.
    const bins = session.timeline(0, end, 50, [0, 1]);
    expect(bins.mode).toBe('bins');
    const sum = (node: number) => {
      const lane = bins.bins.find((b) => b.node === node)!;
      let n = 0;
      for (let c = 0; c < bins.px; c++) n += lane.data[c * TIMELINE_BIN_FIELDS + TimelineBin.REFUSED];
      return n;
    };
    expect(sum(0)).toBe(refused.length);
    expect(sum(1)).toBe(refused.length);
  });

  it('reads error codes of up to ten letters and digits', () => {
    const code = (s: string) => [...s].reduce((v, ch) => v * 37 + (/\d/.test(ch) ? Number(ch) + 27 : ch.charCodeAt(0) - 64), 0);
    for (const s of ['BUSY', 'OOM', 'NOREPLICAS', 'MASTERDOWN', 'ERR', 'NOTBUSY']) expect(errorCodeText(code(s))).toBe(s);
  });
});
