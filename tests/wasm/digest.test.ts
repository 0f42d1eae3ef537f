// The world's digest through the worker's session: what a shared link or
// an imported file is checked with.
import { describe, expect, it } from 'vitest';
import { emptyLog, newSession } from './helpers';

describe('the world digest', () => {
  it('is the same for a session and its log replayed in a fresh module, and changes with any action', async () => {
    const a = newSession().session;
    await a.boot(emptyLog());
    a.act({ kind: 'console', text: 'SET a 1\nHSET h f v\nSET t x PX 900000' });
    a.act({ kind: 'populate', db: 0, n: 500 });
    a.act({ kind: 'scanStart', db: 0, count: 10, match: '*' });
    a.act({ kind: 'scanStep' });
    a.act({ kind: 'wait', ns: 5e6 });
    const d = a.digest();
    expect(d).toMatch(/^[0-9a-f]{16}$/);
    expect(a.digest()).toBe(d);

    const b = newSession().session;
    await b.boot({ version: 1, config: { ...emptyLog().config }, entries: [...a.entries] });
    expect(b.digest()).toBe(d);

    b.act({ kind: 'console', text: 'SET a 2' });
    expect(b.digest()).not.toBe(d);
  });

  it('is the same at a rewound time whichever way the world got there, and in a fresh replay seeked there', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'populate', db: 0, n: 200 });
    session.act({ kind: 'wait', ns: 1e8 });
    const t = session.position.now;
    session.act({ kind: 'console', text: 'SET later 1' });
    session.act({ kind: 'wait', ns: 2e8 });
    const end = session.digest();
    session.seek(t + 5e7);
    const past = session.digest();
    expect(past).not.toBe(end);
    session.seek(Infinity);
    expect(session.digest()).toBe(end);
    session.seek(t + 5e7);
    expect(session.digest()).toBe(past);

    const other = newSession().session;
    await other.boot({ version: 1, config: { ...emptyLog().config }, entries: [...session.entries] });
    expect(other.digest()).toBe(end);
    other.seek(t + 5e7);
    expect(other.digest()).toBe(past);
  });
});
