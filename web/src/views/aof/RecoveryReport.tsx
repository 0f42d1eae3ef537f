import { memo } from 'react';
import type { AofView, RecoveryRow } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { explainKey } from './model';

/** Rows shown; the summary counts them all. */
const MAX_ROWS = 200;
/** Characters of a value shown in a cell. */
const MAX_VALUE = 40;

function shown(v: string): string {
  return v.length > MAX_VALUE ? `${v.slice(0, MAX_VALUE)}… (${v.length})` : v;
}

const Row = memo(function Row({ row, absent, outcome }: { row: RecoveryRow; absent: string; outcome: string }) {
  return (
    <tr className={row.outcome} data-testid={`aof.report.row.${row.outcome}`}>
      <td><code>{row.db ? `[${row.db}] ` : ''}{row.key}</code></td>
      <td className="num">{row.count}</td>
      <td><code>{row.value === null ? absent : shown(row.value)}</code></td>
      <td><code>{row.found === null ? absent : shown(row.found)}</code></td>
      <td>{outcome}</td>
    </tr>
  );
});

export const RecoveryReport = memo(function RecoveryReport({ view }: { view: AofView }) {
  const t = useT();
  const r = view.report;
  const explain = explainKey(view);
  const target = useLessonTarget('aof.report');
  if (!r) return null;
  const a = r.crash.aof;
  const absent = t('aof.report.absent');
  return (
    <div className="aof-report" data-testid="aof.report" {...target}>
      <h3>{t('aof.report.title')}</h3>
      <p data-testid="aof.report.summary">
        {r.keys
          ? t('aof.report.summary', { kept: r.kept, total: r.keys, lost: r.lost, dbsize: r.dbsize })
          : t('aof.report.summaryNone', { dbsize: r.dbsize })}
        {r.carried ? ` ${t('aof.report.carried', { carried: r.carried })}` : ''}
        {r.newer ? ` ${t('aof.report.newerNote', { newer: r.newer })}` : ''}
      </p>
      <p className="dim" data-testid="aof.report.writes">
        {t('aof.report.writes', { writes: r.writes, followed: r.followed, unacked: r.unacked })}
      </p>
      {r.stopped ? <p className="warn" data-testid="aof.report.stopped">{t('aof.report.stopped')}</p> : null}
      {r.crash.point ? (
        <p className="aof-explain" data-testid="aof.report.point">
          {t('aof.report.point', { point: t(`aof.crashAt.${r.crash.point}`) })}
          {r.crash.sinceArmed ? ` ${t('aof.report.sinceArmed', { ...r.crash.sinceArmed })}` : ''}
        </p>
      ) : null}
      {explain ? <p className="aof-explain" data-testid="aof.report.explain">{t(explain)}</p> : null}
      {a ? <p className="dim">{t('aof.report.offsets', { acked: a.acked, written: a.written, durable: a.durable })}</p> : null}
      {r.rows.length === 0 ? null : (
        <table className="aof-report-table">
          <thead>
            <tr>
              <th>{t('aof.report.key')}</th><th>{t('aof.report.count')}</th><th>{t('aof.report.acked')}</th>
              <th>{t('aof.report.found')}</th><th>{t('aof.report.outcome')}</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.slice(0, MAX_ROWS).map((row) => (
              <Row key={`${row.db}:${row.key}`} row={row} absent={absent} outcome={t(`aof.report.${row.outcome}`)} />
            ))}
          </tbody>
        </table>
      )}
      {r.keys > MAX_ROWS ? <p className="dim">{t('aof.report.more', { n: r.keys - MAX_ROWS })}</p> : null}
      <details>
        <summary>{t('aof.log')}</summary>
        <pre className="aof-log">{r.log}</pre>
      </details>
    </div>
  );
});
