import { memo, useMemo } from 'react';
import type { AofLabName } from '../../../../wasm/aofprotocol';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { formatDuration } from '../../render/timeaxis';
import { FIELD_LABELS, explainRun, fieldsOf, isMs, parseLab, type LabValue } from './labs';

/** One lab's figures: a row per figure, a column per run, then what each
 *  run shows, in words with its own numbers. */
export const AofLabTable = memo(function AofLabTable({ name, run, seed }: {
  name: AofLabName; run: LabRunResult; seed: number;
}) {
  const t = useT();
  const num = useFormatNumber();
  const runs = useMemo(() => parseLab(run.json), [run.json]);
  const fields = useMemo(() => fieldsOf(runs), [runs]);
  const ms = (v: number) => (v < 0 ? '—' : formatDuration(v * 1e6));
  const yes = (v: boolean) => t(v ? 'aofLab.yes' : 'aofLab.no');
  const cell = (f: string, v: LabValue | undefined): string => {
    if (v === undefined) return '';
    if (typeof v === 'boolean') return yes(v);
    if (typeof v === 'number' && isMs(f)) return ms(v);
    return typeof v === 'number' ? num(v) : v;
  };
  return (
    <div className="aof-lab-table" data-testid={`aof.lab.${name}.table`}>
      <table>
        <thead>
          <tr>
            <th>{t('aofLab.field')}</th>
            {runs.map((r, i) => <th key={i}>{r.name}</th>)}
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => (
            <tr key={f}>
              <th scope="row">{FIELD_LABELS[f] ? t(FIELD_LABELS[f]) : f}</th>
              {runs.map((r, i) => <td key={i} className="num">{cell(f, r.fields[f])}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="aof-lab-explain" data-testid={`aof.lab.${name}.explain`}>
        {runs.map((r, i) => {
          const e = explainRun(name, r, ms, yes);
          return e ? <li key={i}>{t(e.key, e.params)}</li> : null;
        })}
      </ul>
      <p className="dim">{t('aofLab.wall', { seed, ms: Math.round(run.wallMs), name })}</p>
    </div>
  );
});
