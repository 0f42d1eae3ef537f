import { memo, useState, useSyncExternalStore, type FormEvent } from 'react';
import type { McFillProgress, McFillSpec } from '../../../../wasm/mcprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { CALCIFICATION, getFillRun, runFill, stopFill, subscribeFillRun } from './fill';

interface Fields {
  dist: number;
  a: string;
  b: string;
  keyspace: string;
  total: string;
  slice: string;
}

const INITIAL: Fields = { dist: 1, a: '100', b: '1000', keyspace: '10000', total: '20000', slice: '2000' };

function specOf(f: Fields): { spec: McFillSpec; slice: number } | null {
  const nums = [f.a, f.b, f.keyspace, f.total, f.slice];
  if (!nums.every((x) => /^\d+$/.test(x))) return null;
  const [a, b, keyspace, total, slice] = nums.map(Number);
  if (keyspace < 1 || total < 1 || slice < 1 || keyspace > 1e10) return null;
  if (f.dist === 1 && a > b) return null;
  return { spec: { dist: f.dist as McFillSpec['dist'], sizeA: a, sizeB: f.dist === 0 ? 0 : b, keyBytes: 10, keyspace,
    total, seed: 1 }, slice };
}

const Field = memo(function Field(props: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <label className="fill-field">{props.label}
      <input type="number" min={0} value={props.value} data-testid={props.id}
        onChange={(e) => props.onChange(e.target.value)} aria-invalid={!/^\d+$/.test(props.value)} />
    </label>
  );
});

/** A value-size distribution workload, run in slices. */
export const FillForm = memo(function FillForm({ fill }: { fill: McFillProgress | null }) {
  const target = useLessonTarget('slabs.fill');
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const run = useSyncExternalStore(subscribeFillRun, getFillRun);
  const [f, setF] = useState<Fields>(INITIAL);
  const parsed = specOf(f);
  const set = (patch: Partial<Fields>) => setF((x) => ({ ...x, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (parsed) void runFill(store, parsed.spec, parsed.slice);
  };
  const preset = async () => {
    const c = CALCIFICATION;
    setF({ dist: c.spec.dist, a: String(c.spec.sizeA), b: String(c.spec.sizeB), keyspace: String(c.spec.keyspace),
      total: String(c.spec.total), slice: String(c.slice) });
    await store.act({ kind: 'mcStart', options: c.options });
    await runFill(store, c.spec, c.slice);
  };
  const r = fill?.result;
  return (
    <section className="slabs-fill" aria-labelledby="fill-title" {...target} data-testid="slabs.fill">
      <h3 id="fill-title">{t('slabs.fill.title')}</h3>
      <p className="dim small">{t('slabs.fill.hint')}</p>
      <form onSubmit={submit} className="fill-grid">
        <label className="fill-field">{t('slabs.fill.dist')}
          <select value={f.dist} onChange={(e) => set({ dist: Number(e.target.value) })} data-testid="slabs.fill.dist">
            {[0, 1, 2, 3].map((d) => <option key={d} value={d}>{t(`slabs.fill.dist.${d as 0 | 1 | 2 | 3}`)}</option>)}
          </select>
        </label>
        <Field id="slabs.fill.a" label={t(`slabs.fill.a.${f.dist as 0 | 1 | 2 | 3}`)} value={f.a} onChange={(a) => set({ a })} />
        {f.dist !== 0 ? (
          <Field id="slabs.fill.b" label={t(`slabs.fill.b.${f.dist as 1 | 2 | 3}`)} value={f.b} onChange={(b) => set({ b })} />
        ) : null}
        <Field id="slabs.fill.keyspace" label={t('slabs.fill.keyspace')} value={f.keyspace}
          onChange={(keyspace) => set({ keyspace })} />
        <Field id="slabs.fill.total" label={t('slabs.fill.total')} value={f.total} onChange={(total) => set({ total })} />
        <Field id="slabs.fill.slice" label={t('slabs.fill.slice')} value={f.slice} onChange={(slice) => set({ slice })} />
        <div className="slabs-row-head">
          <button type="submit" className="btn primary small" disabled={!ready || !parsed || run.running}
            data-testid="slabs.fill.run">{t('slabs.fill.run')}</button>
          <button type="button" className="btn small" disabled={!run.running || run.stopping} onClick={stopFill}
            data-testid="slabs.fill.stop">{t('slabs.fill.stop')}</button>
          <button type="button" className="btn small ghost" disabled={!ready || run.running}
            onClick={() => void preset()} data-testid="slabs.fill.preset" title={t('slabs.fill.presetHint')}>
            {t('slabs.fill.preset')}
          </button>
        </div>
      </form>
      {!parsed ? <p className="bad small">{t('slabs.fill.invalid')}</p> : null}
      <p className="dim small">{t('slabs.fill.presetHint')}</p>
      {r && fill ? (
        <p data-testid="slabs.fill.progress" data-sent={r.sent} data-evictions={r.evictions} aria-live="polite">
          {t('slabs.fill.progress', { sent: r.sent, total: fill.spec.total, stored: r.stored, evictions: r.evictions,
            oom: r.outOfMemory, large: r.tooLarge })}
        </p>
      ) : null}
    </section>
  );
});
