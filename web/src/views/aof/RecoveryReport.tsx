import { memo } from 'react';
import type { AofView, RecoveryRow } from '../../../../wasm/aofprotocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { explainKey, summaryOf } from './model';

/** Rows shown; the summary counts them all. */
const MAX_ROWS = 200;
/** Characters of a value shown in a cell. */
const MAX_VALUE = 40;

/** A value as its cell shows it: cut past MAX_VALUE characters, the whole
 *  of it in the tooltip. */
function Value({ v, absent }: { v: string | null; absent: string }) {
  if (v === null) return <code>{absent}</code>;
  if (v.length <= MAX_VALUE) return <code>{v}</code>;
  return <code title={v}>{`${v.slice(0, MAX_VALUE)}… (${v.length})`}</code>;
}

const Row = memo(function Row({ row, absent, outcome, count }: {
  row: RecoveryRow; absent: string; outcome: string; count: string;
}) {
  return (
    <tr className={row.outcome} data-testid={`aof.report.row.${row.outcome}`}>
      <td><code>{row.db ? `[${row.db}] ` : ''}{row.key}</code></td>
      <td className="num">{count}</td>
      <td><Value v={row.value} absent={absent} /></td>
      <td><Value v={row.found} absent={absent} /></td>
      <td className="outcome">{outcome}</td>
    </tr>
  );
});

export const RecoveryReport = memo(function RecoveryReport({ view }: { view: AofView }) {
  const t = useT();
  const num = useFormatNumber();
  const r = view.report;
  const explain = explainKey(view);
  const target = useLessonTarget('aof.report');
  if (!r) return null;
  const a = r.crash.aof;
  const absent = t('aof.report.absent');
  const summary = summaryOf(r);
  return (
    <div className="aof-report" data-testid="aof.report" {...target}>
      <h3>{t('aof.report.title')}</h3>
      <p data-testid="aof.report.summary">
        {t(summary.key, summary.params)}
        {r.carried ? ` ${t('aof.report.carried', { carried: r.carried })}` : ''}
      </p>
      {r.older ? (
        <p className="aof-explain" data-testid="aof.report.olderNote">{t('aof.report.olderNote', { older: r.older })}</p>
      ) : null}
      {r.newer ? (
        <p className="aof-explain" data-testid="aof.report.newerNote">{t('aof.report.newerNote', { newer: r.newer })}</p>
      ) : null}
      <p className="dim" data-testid="aof.report.writes">
        {t(r.unacked ? 'aof.report.writesUnacked' : 'aof.report.writes',
          { writes: r.writes, followed: r.followed, unacked: r.unacked })}
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
        // A narrow screen scrolls the table sideways inside its box (keys
        // and values are never broken), not the page.
        <div className="aof-report-scroll" data-testid="aof.report.scroll" role="region" tabIndex={0}
          aria-label={t('aof.report.tableLabel')}>
          <table className="aof-report-table">
            <thead>
              <tr>
                <th scope="col">{t('aof.report.key')}</th><th scope="col">{t('aof.report.count')}</th>
                <th scope="col">{t('aof.report.acked')}</th><th scope="col">{t('aof.report.found')}</th>
                <th scope="col">{t('aof.report.outcome')}</th>
              </tr>
            </thead>
            <tbody>
              {r.rows.slice(0, MAX_ROWS).map((row) => (
                <Row key={`${row.db}:${row.key}`} row={row} absent={absent} count={num(row.count)}
                  outcome={t(`aof.report.${row.outcome}`)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {r.keys > MAX_ROWS ? <p className="dim">{t('aof.report.more', { n: r.keys - MAX_ROWS })}</p> : null}
      <details>
        <summary>{t('aof.log')}</summary>
        <pre className="aof-log">{r.log}</pre>
      </details>
    </div>
  );
});
