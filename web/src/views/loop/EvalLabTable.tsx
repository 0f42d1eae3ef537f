import { memo, useCallback, useMemo } from 'react';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useFormatNumber, useT } from '../../app/hooks';
import type { MessageKey } from '../../i18n';
import { evalLabFigures, type EvalLabRun } from '../../model/loop';
import { formatDuration } from '../../render/timeaxis';
import { useLoopApi } from './hooks';

type Cell = { value: number; text: string };
type Row = { key: string; label: MessageKey; cell: (r: EvalLabRun) => Cell };

const ms = (v: number): Cell => ({ value: v, text: formatDuration(v * 1e6) });

/** The figures of the live eval-vs-zcard run, one column per run: every
 *  number is the engine's (gkLabRun's JSON), none is computed here. */
export const EvalLabTable = memo(function EvalLabTable({ run, seed }: { run: LabRunResult; seed: number }) {
  const t = useT();
  const num = useFormatNumber();
  const loop = useLoopApi();
  const figures = useMemo(() => evalLabFigures(run.json), [run.json]);
  const showFreeze = useCallback(() => loop.showLabTimeline(), [loop]);
  const count = (v: number): Cell => ({ value: v, text: num(v) });
  const calls = (a: number, b: number, c: number): Cell => ({ value: a, text: `${num(a)} / ${num(b)} / ${num(c)}` });
  const rows: Row[] = [
    { key: 'commands', label: 'lab.eval.row.commands', cell: (r) => count(r.commands) },
    { key: 'bytesWritten', label: 'lab.eval.row.bytesWritten', cell: (r) => count(r.client.bytes_written) },
    { key: 'bytesRead', label: 'lab.eval.row.bytesRead', cell: (r) => count(r.client.bytes_read) },
    { key: 'clientCalls', label: 'lab.eval.row.clientCalls', cell: (r) => calls(r.client.writes, r.client.reads, r.client.polls) },
    { key: 'serverCalls', label: 'lab.eval.row.serverCalls', cell: (r) => calls(r.server.reads, r.server.writes, r.server.polls) },
    { key: 'iterations', label: 'lab.eval.row.iterations', cell: (r) => count(r.server.iterations) },
    { key: 'virtual', label: 'lab.eval.row.virtual', cell: (r) => ({ value: r.virtual_seconds, text: formatDuration(r.virtual_seconds * 1e9) }) },
    { key: 'build', label: 'lab.eval.row.build', cell: (r) => ms(r.client.phases_ms.build) },
    { key: 'write', label: 'lab.eval.row.write', cell: (r) => ms(r.client.phases_ms.write) },
    { key: 'wait', label: 'lab.eval.row.wait', cell: (r) => ms(r.client.phases_ms.wait_read) },
    { key: 'freeze', label: 'lab.eval.row.freeze', cell: (r) => ms(r.server.longest_iteration.ms) },
    { key: 'command', label: 'lab.eval.row.command', cell: (r) => ms(r.freeze_ms) },
    { key: 'monitor', label: 'lab.eval.row.monitor', cell: (r) => ms(r.monitor.max_ms) },
    { key: 'sum', label: 'lab.eval.row.sum', cell: (r) => count(r.result) },
  ];
  const { dataset } = figures;
  return (
    <div className="lab-table eval-lab-table">
      <table data-testid={`lab.${run.name}.table`}>
        <caption>{t('lab.eval.figures', { name: t('lab.name.eval-vs-zcard') })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('lab.eval.col.figure')}</th>
            <th scope="col" className="num">{t('lab.eval.col.zcard')}</th>
            <th scope="col" className="num">{t('lab.eval.col.eval')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const z = row.cell(figures.zcard);
            const e = row.cell(figures.eval);
            return (
              <tr key={row.key}>
                <th scope="row">{t(row.label, { ms: figures.eval.monitor.interval_ms })}</th>
                <td className="num" data-testid={`lab.eval.${row.key}.zcard`} data-value={z.value}>{z.text}</td>
                <td className="num" data-testid={`lab.eval.${row.key}.eval`} data-value={e.value}>{e.text}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="panel-hint" data-testid="lab.eval.dataset">
        {t('lab.eval.dataset', {
          n: dataset.preloaded_keys, t: formatDuration(dataset.load_virtual_ms * 1e6), mb: Math.round(dataset.memory_mb),
        })}
      </p>
      <div className="eval-lab-foot">
        <p className="panel-hint">{t('lab.eval.wallLine', { seed, t: formatDuration(run.wallMs * 1e6, 2) })}</p>
        <button type="button" className="btn small" data-testid="lab.eval.showFreeze" onClick={showFreeze}>
          {t('lab.eval.showFreeze')}
        </button>
      </div>
    </div>
  );
});
