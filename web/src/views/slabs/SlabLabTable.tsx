import { memo, useMemo } from 'react';
import type { McLabName } from '../../../../wasm/mcprotocol';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { SLAB_LAB_LABELS, explainSlabLab, fieldsOf, parseSlabLab, type LabValue, type SlabLabRun } from './labs';

type T = ReturnType<typeof useT>;

function cellText(t: T, num: (n: number) => string, v: LabValue | undefined): string {
  if (v === undefined) return '';
  if (v === '') return '—';
  if (typeof v === 'boolean') return t(v ? 'slabLab.yes' : 'slabLab.no');
  return typeof v === 'number' ? num(v) : v;
}

function label(t: T, k: string): string {
  return SLAB_LAB_LABELS[k] ? t(SLAB_LAB_LABELS[k]) : k;
}

/** One run's rows (its classes or its items). */
const RunRows = memo(function RunRows({ run, index }: { run: SlabLabRun; index: number }) {
  const t = useT();
  const num = useFormatNumber();
  if (run.rows.length === 0) return null;
  return (
    <div className="slabs-table-wrap slabs-lab-rows" data-testid={`slabs.lab.rows.${index}`}>
      <table className="slabs-table">
        <caption>{t('slabLab.rowsOf', { name: run.name })}</caption>
        <thead>
          <tr>{run.columns.map((c) => <th key={c} scope="col">{label(t, c)}</th>)}</tr>
        </thead>
        <tbody>
          {run.rows.map((row, i) => (
            <tr key={i}>{run.columns.map((c) => <td key={c}>{cellText(t, num, row[c])}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
});

/** A lab's figures: a row per figure and a column per run, each run's rows,
 *  then what each run shows in words with its own numbers. */
export const SlabLabTable = memo(function SlabLabTable({ name, run, seed }: {
  name: McLabName; run: LabRunResult; seed: number;
}) {
  const t = useT();
  const num = useFormatNumber();
  const runs = useMemo(() => parseSlabLab(name, run.json), [name, run.json]);
  const fields = useMemo(() => fieldsOf(runs), [runs]);
  const sentences = useMemo(() => explainSlabLab(name, runs), [name, runs]);
  return (
    <div className="slabs-lab-table" data-testid={`slabs.lab.${name}.table`}>
      <table className="slabs-table">
        <thead>
          <tr>
            <th scope="col">{t('slabLab.field')}</th>
            {runs.map((r, i) => <th key={i} scope="col">{r.name}</th>)}
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => (
            <tr key={f}>
              <th scope="row">{label(t, f)}</th>
              {runs.map((r, i) => <td key={i}>{cellText(t, num, r.fields[f])}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="slabs-lab-explain" data-testid={`slabs.lab.${name}.explain`}>
        {sentences.map((s, i) => <li key={i}>{t(s.key, s.params)}</li>)}
      </ul>
      {runs.map((r, i) => <RunRows key={i} run={r} index={i} />)}
      <p className="dim">{t('slabLab.wall', { seed, ms: Math.round(run.wallMs), name })}</p>
    </div>
  );
});
