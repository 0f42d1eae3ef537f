import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { StripCanvas } from './StripCanvas';
import { useLessonTarget } from '../lesson/hooks';

/** One table: its numbers, then its bucket strip. */
export const TableRow = memo(function TableRow({ index }: { index: 0 | 1 }) {
  const t = useT();
  const table = useAppState((s) => s.snapshot?.dict?.tables[index] ?? null);
  const load = table ? table.used / table.size : 0;
  const target = useLessonTarget(`ht.table.${index}`);
  return (
    <div className={`table-row ${table ? '' : 'absent'}`} data-testid={`ht.table.${index}`}
      data-size={table?.size ?? 0} data-used={table?.used ?? 0} {...target}>
      <div className="table-head">
        <span className="table-name">{t('ht.table', { i: index })}</span>
        {table ? (
          <>
            <span className="stat"><b>{table.size.toLocaleString('en-US')}</b> {t('ht.size')}</span>
            <span className="stat"><b>{table.used.toLocaleString('en-US')}</b> {t('ht.used')}</span>
            <span className="stat"><b>{load.toFixed(2)}</b> {t('ht.load')}</span>
            <span className="stat dim">
              {table.bins >= table.size
                ? t('ht.perBucket')
                : t('ht.perColumn', { n: Math.round(table.size / table.bins) })}
            </span>
          </>
        ) : (
          <span className="stat dim">{t('ht.none')}</span>
        )}
      </div>
      <StripCanvas index={index} />
    </div>
  );
});
