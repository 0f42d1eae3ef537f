// The page shows the memory figures a 64-bit Redis would: the WebAssembly
// engine, whose pointers are 4 bytes, must report the same used_memory
// growth and MEMORY USAGE as the native engine for the same commands (and
// the native engine is held to redis-server's by tests/server/memory).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { glasskv } from '../diff/build';
import { oneServer, rawExchange } from './helpers';

const SEED = 42;

function script(): string[] {
  const lines: string[] = ['DEBUG POPULATE 1000'];
  for (let i = 0; i < 300; i++) lines.push(`SET s:${i} ${'x'.repeat(1 + (i % 120))}`, `SET n:${i} ${i * 97}`);
  for (let i = 0; i < 50; i++) {
    lines.push(`HSET hl:${i} ${Array.from({ length: 10 }, (_, f) => `f${f} v${f}`).join(' ')}`);
    lines.push(`SADD si:${i} ${Array.from({ length: 10 }, (_, f) => f * 3).join(' ')}`);
    lines.push(`ZADD zl:${i} ${Array.from({ length: 20 }, (_, f) => `${f} m${f}`).join(' ')}`);
  }
  for (let i = 0; i < 5; i++) {
    lines.push(`HSET ht:${i} ${Array.from({ length: 600 }, (_, f) => `f${f} v${f}`).join(' ')}`);
    lines.push(`SADD st:${i} ${Array.from({ length: 600 }, (_, f) => `m${f}`).join(' ')}`);
    lines.push(`ZADD zs:${i} ${Array.from({ length: 300 }, (_, f) => `${f} member:${f}`).join(' ')}`);
    lines.push(`RPUSH l:${i} ${Array.from({ length: 2000 }, (_, f) => `element:${f}`).join(' ')}`);
  }
  lines.push('CONFIG SET list-compress-depth 1');
  lines.push(`RPUSH lz ${Array.from({ length: 5000 }, () => 'abcabcabcabcabcabc').join(' ')}`);
  return lines;
}

/** A stream with a consumer group: its MEMORY USAGE is compared, not its
 *  growth (the radix tree's nodes are still allocated, and charged, at
 *  the host's pointer size). */
function stream(): string[] {
  const lines: string[] = [];
  for (let i = 1; i <= 300; i++) lines.push(`XADD st ${i}-0 f v${i}`);
  lines.push('XGROUP CREATE st g 0', 'XREADGROUP GROUP g alice COUNT 50 STREAMS st >',
    'XREADGROUP GROUP g bob COUNT 20 STREAMS st >');
  return lines;
}

const KEYS = ['key:7', 's:5', 's:50', 's:119', 'n:3', 'n:200', 'hl:3', 'si:3', 'zl:3',
  'ht:3', 'st:3', 'zs:3', 'l:3', 'lz', 'st'];

/** The integers a list of replies holds, in order: ":N" RESP or
 *  "(integer) N" as redis-cli prints them. */
function integers(text: string): number[] {
  return [...text.matchAll(/(?:^:|\(integer\) )(\d+)/gm)].map((m) => Number(m[1]));
}

function usedMemory(text: string): number[] {
  return [...text.matchAll(/used_memory:(\d+)/g)].map((m) => Number(m[1]));
}

describe('memory figures are the same in WebAssembly as natively', () => {
  it('used_memory grows by the same bytes and MEMORY USAGE gives the same figures', async () => {
    const lines = ['INFO memory', ...script(), 'INFO memory', ...stream(),
      ...KEYS.map((k) => `MEMORY USAGE ${k} SAMPLES 0`)];
    const { world, conn } = await oneServer(SEED);
    let wasm = '';
    const usage: string[] = [];
    for (const line of lines) {
      const args = line.split(' ');
      const out = rawExchange(world, conn, `*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`);
      if (line.startsWith('INFO')) wasm += out;
      if (line.startsWith('MEMORY')) usage.push(out);
    }
    const native = spawnSync(glasskv, ['cli', '--seed', String(SEED)],
      { input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(native.status).toBe(0);
    const nativeUsed = usedMemory(native.stdout);
    const wasmUsed = usedMemory(wasm);
    expect(wasmUsed[1] - wasmUsed[0]).toBeGreaterThan(500_000);
    expect(wasmUsed[1] - wasmUsed[0]).toBe(nativeUsed[1] - nativeUsed[0]);
    const nativeUsage = integers(native.stdout).slice(-KEYS.length);
    expect(integers(usage.join(''))).toEqual(nativeUsage);
  });
});

describe('MEMORY STATS, MEMORY DOCTOR and LOLWUT are the same in WebAssembly as natively', () => {
  it('gives the same keyspace and cache figures, the same report and the same drawings', async () => {
    const lines = ['DEBUG POPULATE 70000 key 64', 'EXPIRE key:1 100', 'SELECT 4', 'SET k v',
      'SCRIPT LOAD return', 'SELECT 0', 'MEMORY STATS', 'MEMORY DOCTOR',
      'LOLWUT VERSION 5 30 4 6', 'LOLWUT VERSION 6 30 8', 'LOLWUT'];
    const { world, conn } = await oneServer(SEED);
    const replies = lines.map((line) => {
      const args = line.split(' ');
      return rawExchange(world, conn,
        `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
    });
    const native = spawnSync(glasskv, ['cli', '--seed', String(SEED)],
      { input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(native.status).toBe(0);
    // The keyspace tables, the key count and the scripts' and functions'
    // caches do not depend on the pointer size.
    const stats = replies[6];
    for (const name of ['overhead.hashtable.main', 'overhead.hashtable.expires', 'keys.count',
      'lua.caches', 'functions.caches']) {
      const at = (text: string, re: string) => [...text.matchAll(new RegExp(re, 'g'))]
        .map((m) => m[1]);
      const quoted = name.replace(/\./g, '\\.');
      // RESP from the WebAssembly engine, redis-cli's printing from the
      // native one.
      const mine = at(stats, `\\$${name.length}\\r\\n${quoted}\\r\\n:(\\d+)`);
      const theirs = at(native.stdout, `"${quoted}"\\n\\s*\\d+\\) \\(integer\\) (\\d+)`);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine).toEqual(theirs);
    }
    expect(native.stdout).toContain(replies[7].split('\r\n')[1]);
    for (const k of [8, 9, 10]) {
      const drawing = replies[k].slice(replies[k].indexOf('\r\n') + 2, -2);
      expect(drawing.length).toBeGreaterThan(10);
      expect(native.stdout).toContain(drawing);
    }
  });
});

describe('a drawing too big for the heap limit', () => {
  it('is refused with an error, and the server goes on', async () => {
    const { loadGlasskv } = await import('./helpers');
    const gk = await loadGlasskv();
    const world = gk.createWorld({ seed: SEED, unixMsAtZero: 1_767_225_600_000, heapLimit: 64 << 20 });
    const conn = world.openConn(world.addServer());
    const ask = (line: string) => {
      const args = line.split(' ');
      return rawExchange(world, conn,
        `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
    };
    // Schotter 2,000 dots wide and about 400,000 high: an 800 MB canvas.
    expect(ask('LOLWUT VERSION 5 1000 1 200')).toBe("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    expect(ask('LOLWUT VERSION 5 30 4 6')).toMatch(/^\$\d+\r\n/);
    expect(ask('PING')).toBe('+PONG\r\n');
  });
});
