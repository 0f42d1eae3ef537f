// The key inspector's reading through the WebAssembly build and the
// session: a list's entries with their bytes, a zset before and after it
// crosses zset-max-listpack-entries, and no reading for a missing key.
import { describe, expect, it } from 'vitest';
import { KeyPart, LpEncoding } from '../../web/src/wasm-gen/seam';
import { emptyLog, newSession } from './helpers';

describe('the key inspector', () => {
  it('reads a list entry by entry, a zset across 128 members, and nothing for a missing key', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(2));
    session.act({ kind: 'console', text: 'RPUSH mylist hello 42' });
    const list = session.inspect('mylist')!;
    expect(list.info.encodingName).toBe('quicklist');
    expect(list.parts.map((p) => p.kind)).toEqual([
      KeyPart.QUICKLIST, KeyPart.QL_NODE, KeyPart.LISTPACK, KeyPart.LP_ENTRY, KeyPart.LP_ENTRY,
    ]);
    const [hello, n42] = list.parts.slice(3);
    expect(hello.a).toBe(LpEncoding.STR6);
    expect(new TextDecoder().decode(list.bytes.subarray(hello.offset + hello.b, hello.offset + hello.b + hello.c))).toBe('hello');
    expect(n42.a).toBe(LpEncoding.UINT7);
    expect(n42.value).toBe(42);
    expect(list.bytes[n42.offset]).toBe(42);

    session.act({ kind: 'console', text: `ZADD z ${Array.from({ length: 128 }, (_, i) => `${i} m${i}`).join(' ')}` });
    expect(session.inspect('z')!.info.encodingName).toBe('listpack');
    session.act({ kind: 'console', text: 'ZADD z 128 m128' });
    const z = session.inspect('z')!;
    expect(z.info.encodingName).toBe('skiplist');
    expect(z.parts.filter((p) => p.kind === KeyPart.SL_NODE).length).toBe(129);
    const usage = session.act({ kind: 'console', text: 'MEMORY USAGE z SAMPLES 0' }).console[0].output;
    expect(usage).toBe(`(integer) ${z.info.memoryUsage}`);
    expect(session.inspect('nosuchkey')).toBeNull();
  });
});
