import { memo, useMemo } from 'react';
import type { LabRunResult } from '../../../../wasm/protocol';
import { useT } from '../../app/hooks';
import { formatRate } from '../../render/charts';
import { formatDuration } from '../../render/timeaxis';

interface LabRun {
  name: string;
  ops_per_sec: number;
  server_syscalls_per_cmd: number;
  client_syscalls_per_cmd: number;
  batch_latency_ms: { p50: number; p99: number; max: number };
  monitor?: { max_ms: number };
}

/** The figures of a headless lab run, as gkLabRun wrote them. */
export const LabTable = memo(function LabTable({ run, seed, title }: { run: LabRunResult; seed: number; title: string }) {
  const t = useT();
  const runs = useMemo(() => (JSON.parse(run.json) as { runs: LabRun[] }).runs, [run.json]);
  const monitor = runs.some((r) => r.monitor);
  return (
    <div className="lab-table">
      <table data-testid={`lab.${run.name}.table`}>
        <caption>{t('lab.figures', { name: title })}</caption>
        <thead>
          <tr>
            <th>{t('lab.col.run')}</th>
            <th>{t('lab.col.ops')}</th>
            <th>{t('lab.col.client')}</th>
            <th>{t('lab.col.server')}</th>
            <th>{t('lab.col.p50')}</th>
            <th>{t('lab.col.max')}</th>
            {monitor ? <th>{t('lab.col.monitor')}</th> : null}
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.name}>
              <td>{r.name}</td>
              <td className="num">{formatRate(r.ops_per_sec)}</td>
              <td className="num">{r.client_syscalls_per_cmd.toFixed(3)}</td>
              <td className="num">{r.server_syscalls_per_cmd.toFixed(3)}</td>
              <td className="num">{formatDuration(r.batch_latency_ms.p50 * 1e6)}</td>
              <td className="num">{formatDuration(r.batch_latency_ms.max * 1e6)}</td>
              {monitor ? <td className="num">{r.monitor ? formatDuration(r.monitor.max_ms * 1e6) : ''}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="panel-hint">{t('lab.wall', { seed, ms: Math.round(run.wallMs), name: run.name })}</p>
    </div>
  );
});
