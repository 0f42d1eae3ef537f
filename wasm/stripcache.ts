// Bucket strips are the expensive part of a snapshot: gkDictGetBuckets
// walks every bucket and chain, about 80 ms for a million keys. While time
// plays and nothing touches the keyspace, the strips cannot change, so they
// are kept and reused until the table's shape changes or the trace shows an
// event that may have moved keys (a command, a rehash step, a table created
// or freed, an expired key), or the trace ring overflowed since the last
// look.
import { DictKind, TraceType, type BucketStrip, type DictInfo, type World } from './engine';

const MOVES_KEYS = new Set<number>([
  TraceType.CMD, TraceType.REHASH_STEP, TraceType.TABLE_NEW, TraceType.TABLE_FREE, TraceType.EXPIRE,
]);

interface Entry {
  shape: string;
  strips: [BucketStrip | null, BucketStrip | null];
}

export class StripCache {
  private entry: Entry | null = null;
  private seenSeq = 0;

  /** The strips of both tables of db's keyspace, copied (the caller may
   *  transfer them). */
  get(world: World, node: number, db: number, info: DictInfo, bins: number): [BucketStrip | null, BucketStrip | null] {
    const shape = [db, bins, info.size[0], info.size[1], info.used[0], info.used[1], info.rehashidx].join(':');
    const changed = this.keysMayHaveMoved(world);
    if (!this.entry || changed || this.entry.shape !== shape) {
      const strip = (t: number) => (info.size[t] ? world.dictBuckets(node, db, DictKind.KEYS, t, Math.min(bins, info.size[t])) : null);
      this.entry = { shape, strips: [strip(0), strip(1)] };
    }
    const copy = (s: BucketStrip | null) => s && { entries: s.entries.slice(), filled: s.filled.slice() };
    return [copy(this.entry.strips[0]), copy(this.entry.strips[1])];
  }

  invalidate(): void {
    this.entry = null;
  }

  private keysMayHaveMoved(world: World): boolean {
    const last = world.traceLastSeq();
    if (last === this.seenSeq) return false;
    const records = world.traceReadAll(this.seenSeq);
    const gap = records.length === 0 || records[0].seq !== this.seenSeq + 1;
    this.seenSeq = last;
    return gap || records.some((r) => MOVES_KEYS.has(r.type));
  }
}
