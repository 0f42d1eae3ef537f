import { memo, useMemo } from 'react';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { formatDuration } from '../../render/timeaxis';

/** One run of the slow-command lab, as labs_slow.c writes it. */
interface SlowRun {
  name: string;
  command: string;
  calls: number;
  usec: number;
  usec_per_call: number;
  slowlog_usec: number;
  lazyfree_ms: number;
  get: { p50_ms: number; max_ms: number; max_ms_before: number };
}

type Cell = { value: number; text: string };

const us = (v: number): Cell => ({ value: v, text: formatDuration(v * 1e3) });
const ms = (v: number): Cell => ({ value: v, text: formatDuration(v * 1e6) });

const COLUMNS = ['calls', 'main', 'lazy', 'slowlog', 'before', 'max'] as const;
type Column = (typeof COLUMNS)[number];

/** The figures of the slow-command lab run headless: one row per command
 *  sent among the GET clients, every number the engine's. */
export const SlowLabTable = memo(function SlowLabTable({ run, seed, title }: { run: LabRunResult; seed: number; title: string }) {
  const t = useT();
  const num = useFormatNumber();
  const runs = useMemo(() => (JSON.parse(run.json) as { runs: SlowRun[] }).runs, [run.json]);
  const none: Cell = { value: -1, text: t('lab.slow.none') };
  const cell = (r: SlowRun, c: Column): Cell => {
    switch (c) {
      case 'calls': return { value: r.calls, text: num(r.calls) };
      case 'main': return us(r.usec_per_call);
      case 'lazy': return r.lazyfree_ms > 0 ? ms(r.lazyfree_ms) : none;
      case 'slowlog': return r.slowlog_usec >= 0 ? us(r.slowlog_usec) : none;
      case 'before': return ms(r.get.max_ms_before);
      case 'max': return ms(r.get.max_ms);
    }
  };
  return (
    <div className="lab-table slow-lab-table">
      <table data-testid={`lab.${run.name}.table`}>
        <caption>{t('lab.figures', { name: title })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('lab.slow.col.command')}</th>
            {COLUMNS.map((c) => <th key={c} scope="col" className="num">{t(`lab.slow.col.${c}`)}</th>)}
          </tr>
        </thead>
        <tbody>
          {runs.map((r, i) => (
            <tr key={r.name} data-testid="lab.slow.row" data-run={r.name}>
              <th scope="row"><code lang="en">{r.command}</code></th>
              {COLUMNS.map((c) => {
                const v = cell(r, c);
                return <td key={c} className="num" data-testid={`lab.slow.${i}.${c}`} data-value={v.value}>{v.text}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="panel-hint">{t('lab.slow.note')}</p>
      <p className="panel-hint">{t('lab.wall', { seed, ms: Math.round(run.wallMs), name: run.name })}</p>
    </div>
  );
});
