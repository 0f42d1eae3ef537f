// Bucket strips are the expensive part of a snapshot: gkDictGetBuckets
// walks every bucket and chain, about 80 ms for a million keys. The engine
// bumps a dict's version whenever an entry or a bucket changes (an insert,
// a delete, a rehash step, a table created or freed), so strips read at one
// version stay exact until the version moves. While time plays and nothing
// touches the keyspace, every snapshot reuses them.
import { DictKind, type BucketStrip, type DictInfo, type World } from './engine';

interface Entry {
  /** db, bins and the dict's version the strips were read at. */
  key: string;
  strips: [BucketStrip | null, BucketStrip | null];
}

export class StripCache {
  private entry: Entry | null = null;
  /** How many times the strips were read from the engine (for tests). */
  reads = 0;

  /** The strips of both tables of db's keyspace, copied (the caller may
   *  transfer them). */
  get(world: World, node: number, db: number, info: DictInfo, bins: number): [BucketStrip | null, BucketStrip | null] {
    const key = `${db}:${bins}:${info.version}`;
    if (!this.entry || this.entry.key !== key) {
      const strip = (t: number) => (info.size[t] ? world.dictBuckets(node, db, DictKind.KEYS, t, Math.min(bins, info.size[t])) : null);
      this.entry = { key, strips: [strip(0), strip(1)] };
      this.reads++;
    }
    const copy = (s: BucketStrip | null) => s && { entries: s.entries.slice(), filled: s.filled.slice() };
    return [copy(this.entry.strips[0]), copy(this.entry.strips[1])];
  }

  invalidate(): void {
    this.entry = null;
  }
}
