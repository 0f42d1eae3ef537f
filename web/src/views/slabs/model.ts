// The Slabs pane's view model: plain functions of what the engine reported
// (no React, no engine behaviour re-done here: class choice, sizes and
// counts all come from the engine; this only adds and compares them).
import type { McClass } from '../../../../wasm/mcprotocol';

/** Bytes of a class's used chunks, and what its items asked for of them. */
export function classBytes(c: McClass): { used: number; waste: number } {
  const used = c.usedChunks * c.chunkSize;
  return { used, waste: Math.max(0, used - c.requested) };
}

export interface ClassTotals {
  pages: number;
  used: number;
  free: number;
  requested: number;
  usedBytes: number;
  waste: number;
  evicted: number;
}

export function sumClasses(classes: readonly McClass[]): ClassTotals {
  const t: ClassTotals = { pages: 0, used: 0, free: 0, requested: 0, usedBytes: 0, waste: 0, evicted: 0 };
  for (const c of classes) {
    const b = classBytes(c);
    t.pages += c.pages;
    t.used += c.usedChunks;
    t.free += c.freeChunks;
    t.requested += c.requested;
    t.usedBytes += b.used;
    t.waste += b.waste;
    t.evicted += c.evicted;
  }
  return t;
}

/** An item a storage command line describes: its key's length in bytes,
 *  its flags and its value's length, as the engine's gkMemcachedItemClass
 *  takes them. */
export interface TypedItem {
  nkey: number;
  flags: number;
  vlen: number;
}

const encoder = new TextEncoder();
const STORAGE = /^(set|add|replace|cas)$/i;

/** The item of a `set <key> <flags> <exptime> <bytes> ...` line being
 *  typed (set, add, replace, cas), or null if the line is not one yet. */
export function typedItem(line: string): TypedItem | null {
  const words = line.trim().split(/\s+/);
  if (words.length < 5 || !STORAGE.test(words[0])) return null;
  const [, key, flags, , bytes] = words;
  if (!/^\d+$/.test(flags) || !/^\d+$/.test(bytes)) return null;
  const f = Number(flags);
  const v = Number(bytes);
  if (f > 0xffffffff || !Number.isSafeInteger(v)) return null;
  return { nkey: encoder.encode(key).length, flags: f, vlen: v };
}

/** Slab calcification as the classes show it: full classes that have
 *  evicted (no free chunk left, so the next set there evicts again) while
 *  others hold pages with free chunks (null if not the case). */
export function calcification(classes: readonly McClass[]): { evicting: number[]; idle: number[]; free: number } | null {
  const evicting = classes.filter((c) => c.evicted > 0 && c.freeChunks === 0).map((c) => c.id);
  const idleRows = classes.filter((c) => c.evicted === 0 && c.pages > 0 && c.freeChunks > 0);
  if (!evicting.length || !idleRows.length) return null;
  return { evicting, idle: idleRows.map((c) => c.id), free: idleRows.reduce((s, c) => s + c.freeChunks, 0) };
}

/** A list of class ids shortened for a sentence: "3, 4, 5 … 12". */
export function idList(ids: readonly number[], max = 6): string {
  if (ids.length <= max) return ids.join(', ');
  return `${ids.slice(0, max - 1).join(', ')} … ${ids[ids.length - 1]}`;
}

/** Byte counts for the table, each with its unit: exact bytes below
 *  10 KiB (written by num, the page's number format), then KiB or MiB of
 *  1,024 and 1,048,576 bytes. */
export function bytesText(n: number, num: (n: number) => string = String): string {
  if (n < 10 * 1024) return `${num(n)} B`;
  if (n < 10 * 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** -I values the slider offers: powers of two from 1 KiB to 128 MiB
 *  (memcached accepts any size from 1 KiB to 1 GiB). */
export const ITEM_MAX_STEPS = Array.from({ length: 18 }, (_, i) => 1024 * 2 ** i);
