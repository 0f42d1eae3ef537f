// The slab labs' figures as the Slabs pane shows them: gkLabRun's JSON
// (engine/src/labs_mc.c) read into each run's own figures, its table of
// rows (classes or items), and the sentence that says what the run shows,
// built from the run's own numbers. Pure, no React.
import type { McLabName } from '../../../../wasm/mcprotocol';
import type { MessageKey, Params } from '../../i18n';

export type LabValue = string | number | boolean;

/** One run: its top-level figures, and its rows as a table. */
export interface SlabLabRun {
  name: string;
  fields: Record<string, LabValue>;
  columns: string[];
  rows: Record<string, LabValue>[];
  /** The rows as the engine wrote them (the sentences read them). */
  raw: Record<string, unknown>[];
}

/** Which array of a run is its table, and the columns shown of it. */
const TABLES: Record<McLabName, { key: string; columns: string[] }> = {
  'slab-classes': {
    key: 'rows',
    columns: ['id', 'chunk_size', 'perslab', 'page_tail_bytes', 'smallest_item', 'max_waste_bytes', 'max_waste_pct'],
  },
  'item-placement': {
    key: 'items',
    columns: ['key_bytes', 'flags', 'value_bytes', 'ntotal', 'class', 'chunks', 'allocated', 'waste', 'reply'],
  },
  'slab-calcification': {
    key: 'classes',
    columns: ['id', 'chunk_size', 'pages', 'used_chunks', 'free_chunks', 'items', 'free_bytes', 'evicted'],
  },
};

type Chunk = { class: number; chunk_size: number; count: number };

/** "1×120 (2) + 1×524288 (39)": count × chunk size (class). */
function chunksText(v: unknown): string {
  if (!Array.isArray(v)) return '';
  return (v as Chunk[]).map((c) => `${c.count}×${c.chunk_size} (${c.class})`).join(' + ');
}

function cellOf(col: string, v: unknown): LabValue | undefined {
  if (col === 'chunks') return chunksText(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return undefined;
}

export function parseSlabLab(lab: McLabName, json: string): SlabLabRun[] {
  const doc = JSON.parse(json) as { runs?: Record<string, unknown>[] };
  const table = TABLES[lab];
  return (doc.runs ?? []).map((r) => {
    const fields: Record<string, LabValue> = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === 'name') continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
    }
    const raw = Array.isArray(r[table.key]) ? (r[table.key] as Record<string, unknown>[]) : [];
    const rows = raw.map((row) => {
      const out: Record<string, LabValue> = {};
      for (const c of table.columns) {
        const v = cellOf(c, row[c]);
        if (v !== undefined) out[c] = v;
      }
      return out;
    });
    return { name: String(r.name ?? ''), fields, columns: table.columns, rows, raw };
  });
}

/** Every top-level figure of the runs, in the order they first appear. */
export function fieldsOf(runs: readonly SlabLabRun[]): string[] {
  const seen = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r.fields)) seen.add(k);
  return [...seen];
}

/** Labels of the figures and columns gkLabRun writes (one not listed shows
 *  its JSON name). */
export const SLAB_LAB_LABELS: Record<string, MessageKey> = {
  options: 'slabLab.f.options',
  classes: 'slabLab.f.classes',
  page_size: 'slabLab.f.page_size',
  slab_chunk_max: 'slabLab.f.slab_chunk_max',
  item_size_max: 'slabLab.f.item_size_max',
  page_tail_bytes_all_classes: 'slabLab.f.page_tail_bytes_all_classes',
  worst_waste_pct: 'slabLab.f.worst_waste_pct',
  size_from: 'slabLab.f.size_from',
  size_to: 'slabLab.f.size_to',
  keyspace: 'slabLab.f.keyspace',
  sets_from: 'slabLab.f.sets_from',
  sets_to: 'slabLab.f.sets_to',
  sent: 'slabLab.f.sent',
  stored: 'slabLab.f.stored',
  out_of_memory: 'slabLab.f.out_of_memory',
  evictions: 'slabLab.f.evictions',
  curr_items: 'slabLab.f.curr_items',
  total_malloced: 'slabLab.f.total_malloced',
  target_class: 'slabLab.f.target_class',
  target_chunk_size: 'slabLab.f.target_chunk_size',
  target_pages: 'slabLab.f.target_pages',
  target_items: 'slabLab.f.target_items',
  target_evicted: 'slabLab.f.target_evicted',
  idle_bytes: 'slabLab.f.idle_bytes',
  idle_pct_of_malloced: 'slabLab.f.idle_pct_of_malloced',
  id: 'slabLab.c.id',
  chunk_size: 'slabLab.c.chunk_size',
  perslab: 'slabLab.c.perslab',
  page_tail_bytes: 'slabLab.c.page_tail_bytes',
  smallest_item: 'slabLab.c.smallest_item',
  max_waste_bytes: 'slabLab.c.max_waste_bytes',
  max_waste_pct: 'slabLab.c.max_waste_pct',
  key_bytes: 'slabLab.c.key_bytes',
  flags: 'slabLab.c.flags',
  value_bytes: 'slabLab.c.value_bytes',
  ntotal: 'slabLab.c.ntotal',
  class: 'slabLab.c.class',
  chunks: 'slabLab.c.chunks',
  allocated: 'slabLab.c.allocated',
  waste: 'slabLab.c.waste',
  reply: 'slabLab.c.reply',
  pages: 'slabLab.c.pages',
  used_chunks: 'slabLab.c.used_chunks',
  free_chunks: 'slabLab.c.free_chunks',
  items: 'slabLab.c.items',
  free_bytes: 'slabLab.c.free_bytes',
  evicted: 'slabLab.c.evicted',
};

export interface Sentence {
  key: MessageKey;
  params: Params;
}

const num = (o: Record<string, unknown>, k: string): number => Number(o[k] ?? NaN);

/** "growth factor 2 (-f 2)": the run's name, and its options if any. */
function runHead(run: SlabLabRun): string {
  const o = String(run.fields.options ?? '');
  return o ? `${run.name} (${o})` : run.name;
}

/** The sentence of one slab-classes run: the ladder's two ends and what it
 *  wastes, from its own rows. */
function classesSentence(run: SlabLabRun): Sentence | null {
  const rows = run.raw;
  if (rows.length === 0) return null;
  const first = rows[0];
  const last = rows[rows.length - 1];
  let worst = first;
  for (const r of rows) if (num(r, 'max_waste_pct') > num(worst, 'max_waste_pct')) worst = r;
  return {
    key: 'slabLab.explain.classes',
    params: {
      run: runHead(run), classes: rows.length,
      first: num(first, 'chunk_size'), firstPerslab: num(first, 'perslab'),
      lastId: num(last, 'id'), last: num(last, 'chunk_size'), lastPerslab: num(last, 'perslab'),
      page: num(run.fields, 'page_size'), tail: num(run.fields, 'page_tail_bytes_all_classes'),
      worst: num(worst, 'max_waste_pct'), worstId: num(worst, 'id'), worstItem: num(worst, 'smallest_item'),
      worstChunk: num(worst, 'chunk_size'),
    },
  };
}

/** The sentence of one item of item-placement: where it went and why. */
export function itemSentence(item: Record<string, unknown>): Sentence {
  const base = { key: num(item, 'key_bytes'), value: num(item, 'value_bytes'), ntotal: num(item, 'ntotal') };
  if (item.stored !== true) {
    return { key: 'slabLab.explain.itemRefused', params: { ...base, reply: String(item.reply ?? '') } };
  }
  const chunks = Array.isArray(item.chunks) ? (item.chunks as Chunk[]) : [];
  if (chunks.length === 1 && chunks[0].count === 1) {
    return {
      key: 'slabLab.explain.item',
      params: { ...base, cls: num(item, 'class'), chunk: chunks[0].chunk_size, waste: num(item, 'waste') },
    };
  }
  const header = (item.header ?? {}) as Record<string, unknown>;
  return {
    key: 'slabLab.explain.itemChunked',
    params: {
      ...base, cls: num(item, 'lru_class'), headerCls: num(header, 'class'),
      n: chunks.reduce((s, c) => s + c.count, 0), chunks: chunksText(chunks),
      allocated: num(item, 'allocated'), waste: num(item, 'waste'),
    },
  };
}

function calcSentence(run: SlabLabRun): Sentence {
  const f = run.fields;
  return {
    key: 'slabLab.explain.calc',
    params: {
      run: runHead(run), sent: num(f, 'sent'), from: num(f, 'size_from'),
      to: num(f, 'size_to'), first: num(f, 'sets_from'), last: num(f, 'sets_to'), evictions: num(f, 'evictions'), items: num(f, 'curr_items'),
      cls: num(f, 'target_class'), chunk: num(f, 'target_chunk_size'), pages: num(f, 'target_pages'),
      evicted: num(f, 'target_evicted'), idle: num(f, 'idle_bytes'), pct: num(f, 'idle_pct_of_malloced'),
      malloced: num(f, 'total_malloced'),
    },
  };
}

/** What each run shows, in sentences with its own figures: one per run,
 *  and for item-placement one per item. */
export function explainSlabLab(lab: McLabName, runs: readonly SlabLabRun[]): Sentence[] {
  const out: Sentence[] = [];
  for (const run of runs) {
    if (lab === 'slab-classes') {
      const s = classesSentence(run);
      if (s) out.push(s);
    } else if (lab === 'item-placement') {
      for (const item of run.raw) out.push(itemSentence(item));
    } else if ('idle_bytes' in run.fields) {
      out.push(calcSentence(run));
    }
  }
  return out;
}
