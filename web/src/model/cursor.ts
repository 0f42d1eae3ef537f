// The SCAN cursor as bits, for display. SCAN's cursor lives in the low
// bits of the larger table's mask; Redis increments it with its bits
// reversed (dictScan: set the bits above the mask, reverse, add one,
// reverse). These helpers only lay the engine's cursor out for reading.

export interface CursorBits {
  /** Bits shown, most significant first (length = width). */
  bits: number[];
  /** The same bits reversed: the number SCAN counts up in. */
  reversed: number[];
  /** Bits covered by the small table's mask (from the right). */
  smallBits: number;
  /** Bits covered by the large table's mask. */
  largeBits: number;
  /** cursor & mask of each table (null when the table is absent). */
  buckets: [number | null, number | null];
  /** The reversed cursor as a number, within the large mask. */
  reversedValue: number;
  /** True if the cursor has bits above the large mask. */
  overflow: boolean;
}

export function log2(size: number): number {
  return size > 0 ? Math.round(Math.log2(size)) : 0;
}

/** Lays out `cursor` against tables of sizes [s0, s1] (0 = absent). */
export function cursorBits(cursor: string, sizes: [number, number]): CursorBits {
  let c: bigint;
  try {
    c = BigInt(cursor);
  } catch {
    c = 0n;
  }
  const present = sizes.filter((s) => s > 0);
  const small = present.length ? Math.min(...present) : 1;
  const large = present.length ? Math.max(...present) : 1;
  const width = Math.max(log2(large), 1);
  const bits: number[] = [];
  for (let i = width - 1; i >= 0; i--) bits.push(Number((c >> BigInt(i)) & 1n));
  const reversed = bits.slice().reverse();
  const reversedValue = reversed.reduce((v, b) => v * 2 + b, 0);
  const mask = (s: number) => (s > 0 ? Number(c & BigInt(s - 1)) : null);
  return {
    bits,
    reversed,
    smallBits: log2(small),
    largeBits: log2(large),
    buckets: [mask(sizes[0]), mask(sizes[1])],
    reversedValue,
    overflow: c >> BigInt(width) !== 0n,
  };
}
