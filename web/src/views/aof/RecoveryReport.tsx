import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { explainKey } from './model';

/** Rows shown; the summary counts them all. */
const MAX_ROWS = 200;

export const RecoveryReport = memo(function RecoveryReport({ view }: { view: AofView }) {
  const t = useT();
  const r = view.report;
  const explain = explainKey(view);
  if (!r) return null;
  const a = r.crash.aof;
  return (
    <div className="aof-report" data-testid="aof.report">
      <h3>{t('aof.report.title')}</h3>
      <p data-testid="aof.report.summary">
        {t('aof.report.summary', { kept: r.kept, total: r.rows.length, lost: r.lost, dbsize: r.dbsize })}
      </p>
      {explain ? <p className="aof-explain" data-testid="aof.report.explain">{t(explain)}</p> : null}
      {a ? <p className="dim">{t('aof.report.offsets', { acked: a.acked, written: a.written, durable: a.durable })}</p> : null}
      {r.rows.length === 0 ? <p className="dim">{t('aof.report.none')}</p> : (
        <table className="aof-report-table">
          <thead>
            <tr>
              <th>{t('aof.report.key')}</th><th>{t('aof.report.acked')}</th>
              <th>{t('aof.report.found')}</th><th>{t('aof.report.outcome')}</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.slice(0, MAX_ROWS).map((row) => (
              <tr key={`${row.db}:${row.key}`} className={row.outcome} data-testid={`aof.report.row.${row.outcome}`}>
                <td><code>{row.db ? `[${row.db}] ` : ''}{row.key}</code></td>
                <td><code>{row.value ?? t('aof.report.absent')}</code></td>
                <td><code>{row.found ?? t('aof.report.absent')}</code></td>
                <td>{t(`aof.report.${row.outcome}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details>
        <summary>{t('aof.log')}</summary>
        <pre className="aof-log">{r.log}</pre>
      </details>
    </div>
  );
});
