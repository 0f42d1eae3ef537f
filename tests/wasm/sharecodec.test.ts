// The link codec and the validation of shared sessions (web/src/share),
// run in Node, whose CompressionStream speaks the same raw DEFLATE.
import { describe, expect, it } from 'vitest';
import { decodeState, encodeState, fromBase64Url, toBase64Url } from '../../web/src/share/codec';
import { MAX_VIRTUAL_NS, ShareError, type SharedState } from '../../web/src/share/validate';

const state: SharedState = {
  log: {
    version: 1,
    config: { seed: 42, unixMsAtZero: 1_767_225_600_000, heapLimit: 1 << 30 },
    entries: [
      { t: 0, action: { kind: 'console', text: 'SET a 1\nGET a' } },
      { t: 1200, action: { kind: 'populate', db: 0, n: 1000, prefix: 'k1' } },
      { t: 5000, action: { kind: 'workload', preset: 'lettuce', clients: 1, pipeline: 50 } },
      { t: 9000, action: { kind: 'advance', to: 2e9 } },
    ],
  },
  at: 3000,
  lesson: { id: 'scan-rehashing', step: 2, ran: 1, answers: { '2.1': { given: '16', actual: '16', correct: true } } },
  pane: 'inspect',
  inspect: 'user:1',
};

async function refusal(text: string): Promise<string> {
  try {
    await decodeState(text);
  } catch (e) {
    if (e instanceof ShareError) return e.key;
    throw e;
  }
  throw new Error('accepted');
}

async function packJson(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
  const s = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return toBase64Url(new Uint8Array(await new Response(s).arrayBuffer()));
}

describe('shared links', () => {
  it('round-trip a session, its position, lesson, pane and inspected key exactly', async () => {
    const text = await encodeState(state);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeState(text)).toEqual(state);
  });

  it('leave out an inspected key that is not a name, as an unknown pane is left out', async () => {
    for (const inspect of [42, '', 'k'.repeat(4097), { key: 'a' }]) {
      const decoded = await decodeState(await packJson({ v: 1, log: state.log, pane: 'nowhere', inspect }));
      expect(decoded.inspect).toBeUndefined();
      expect(decoded.pane).toBeUndefined();
    }
  });

  it('base64url round-trips every byte value', () => {
    const all = Uint8Array.from({ length: 256 * 3 + 1 }, (_, i) => (i * 7) & 255);
    expect(fromBase64Url(toBase64Url(all))).toEqual(all);
  });

  it('refuse damaged or hostile fragments with a reason, never a throw of another kind', async () => {
    expect(await refusal('!!!')).toBe('share.err.encoding');
    expect(await refusal('')).toBe('share.err.encoding');
    expect(await refusal('AAAA_w')).toBe('share.err.compressed');
    expect(await refusal(await packJson('{not json'))).toBe('share.err.json');
    expect(await refusal(await packJson({ v: 2 }))).toBe('share.err.version');
    const log = state.log;
    const bad = (patch: object) => packJson({ v: 1, log: { ...log, ...patch } });
    expect(await refusal(await bad({ config: { ...log.config, seed: -1 } }))).toBe('share.err.config');
    expect(await refusal(await bad({ entries: [{ t: 5, action: { kind: 'nuke' } }] }))).toBe('share.err.action');
    expect(await refusal(await bad({ entries: [{ t: 5, action: { kind: 'populate', db: 0, n: 1e9 } }] }))).toBe('share.err.action');
    expect(await refusal(await bad({ entries: [{ t: 5, action: { kind: 'console', text: 'PING', extra: 1 } }] }))).toBe('share.err.action');
    expect(await refusal(await bad({ entries: [{ t: 5, action: { kind: 'trap' } }] }))).toBe('share.err.unsupported');
    expect(await refusal(await bad({
      entries: [{ t: 9, action: { kind: 'step' } }, { t: 5, action: { kind: 'step' } }],
    }))).toBe('share.err.entries');
    expect(await refusal(await packJson({ v: 1, log, at: -4 }))).toBe('share.err.position');
    expect(await refusal(await packJson({ v: 1, log, lesson: { id: 3 } }))).toBe('share.err.lesson');
    expect(await refusal(await packJson({ v: 1, log, lesson: { id: 'x', step: 0, ran: 0, answers: { '0.1': { given: 1 } } } }))).toBe('share.err.lesson');
  });

  it('carry the AOF and memcached actions, nested fields checked one by one', async () => {
    const options = { m: 16, n: 48, f: 1.25, I: 1 << 20, chunkMax: null, noCas: false };
    const spec = { dist: 3, sizeA: 100, sizeB: 1000, keyBytes: 8, keyspace: 50_000, total: 100_000, seed: 7 };
    const entries = [
      { t: 0, action: { kind: 'diskReadOnly', dir: 'appendonlydir', readonly: true } },
      { t: 1, action: { kind: 'crashAt', point: 'afterWrite', mode: 'power' } },
      { t: 2, action: { kind: 'mcStart', options } },
      { t: 3, action: { kind: 'mcLine', text: 'set k 0 0 5\nhello' } },
      { t: 4, action: { kind: 'mcFill', spec, first: 0, count: 5000 } },
    ];
    const shared = { v: 1, log: { ...state.log, entries } };
    expect((await decodeState(await packJson(shared))).log.entries).toEqual(entries);
    const withAction = (action: object) => packJson({ v: 1, log: { ...state.log, entries: [{ t: 0, action }] } });
    const refusedField = async (action: object) => {
      try {
        await decodeState(await withAction(action));
      } catch (e) {
        if (e instanceof ShareError) return e.detail;
        throw e;
      }
      return 'accepted';
    };
    expect(await refusedField({ kind: 'mcStart', options: { ...options, m: 0 } })).toBe('#1 mcStart.options');
    expect(await refusedField({ kind: 'mcStart', options: { ...options, chunkMax: 'big' } })).toBe('#1 mcStart.options');
    expect(await refusedField({ kind: 'mcStart', options: { ...options, evil: 1 } })).toBe('#1 mcStart.options');
    expect(await refusedField({ kind: 'mcFill', spec, first: 0, count: 1 << 21 })).toBe('#1 mcFill.count');
    expect(await refusedField({ kind: 'mcFill', spec: { ...spec, keyBytes: 251 }, first: 0, count: 1 })).toBe('#1 mcFill.spec');
    expect(await refusedField({ kind: 'crashAt', point: 'whenever', mode: 'power' })).toBe('#1 crashAt.point');
    expect(await refusedField({ kind: 'mcStart', options: { ...options, chunkMax: 65536 } })).toBe('accepted');
  });

  it('refuse a log that takes virtual time past an hour, so its replay cannot run for days', async () => {
    expect(MAX_VIRTUAL_NS).toBe(3600 * 1e9);
    const at = (entries: object[], extra: object = {}) => packJson({ v: 1, log: { ...state.log, entries }, ...extra });
    const refused = async (text: string) => {
      try {
        await decodeState(text);
      } catch (e) {
        if (e instanceof ShareError) return `${e.key} ${e.detail}`;
        throw e;
      }
      return 'accepted';
    };
    const cap = MAX_VIRTUAL_NS;
    // Up to the cap is accepted, one nanosecond past it is not, in every way a log can get there.
    expect(await refused(await at([{ t: 0, action: { kind: 'advance', to: cap } }]))).toBe('accepted');
    expect(await refused(await at([{ t: 0, action: { kind: 'advance', to: cap + 1 } }]))).toBe('share.err.tooLong #1');
    expect(await refused(await at([{ t: 0, action: { kind: 'advance', to: 1e18 } }]))).toBe('share.err.tooLong #1');
    expect(await refused(await at([{ t: 1, action: { kind: 'step' } }, { t: cap + 1, action: { kind: 'step' } }])))
      .toBe('share.err.tooLong #2');
    expect(await refused(await at([{ t: cap - 60e9, action: { kind: 'wait', ns: 60e9 } }]))).toBe('accepted');
    expect(await refused(await at([{ t: cap - 60e9 + 1, action: { kind: 'wait', ns: 60e9 } }]))).toBe('share.err.tooLong #1');
    expect(await refused(await at([], { at: cap + 1 }))).toBe('share.err.tooLong at');
    // Past what a double holds exactly is still a refusal, not a wrap-around.
    expect(await refused(await at([{ t: 2 ** 60, action: { kind: 'step' } }]))).toBe('share.err.entries #1');
  });

  it('refuse a small fragment that inflates past the cap (a zip bomb)', async () => {
    const huge = `{"v":1,"pad":"${'a'.repeat(20 << 20)}"}`;
    const text = await packJson(huge);
    expect(text.length).toBeLessThan(40_000);
    expect(await refusal(text)).toBe('share.err.tooBig');
  });
});
