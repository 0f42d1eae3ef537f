import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

/** The recent calls, newest first, each with the buckets it visited in order. */
export const VisitedList = memo(function VisitedList() {
  const t = useT();
  const recent = useAppState((s) => s.snapshot?.scan?.recent ?? null);
  const target = useLessonTarget('scan.visited');
  if (!recent) return null;
  const calls = recent.slice(-4).reverse();
  return (
    <div className="card visited-card" {...target}>
      <span className="card-label">{t('scan.visited')}</span>
      <ol className="calls" data-testid="scan.buckets">
        {calls.map((c) => (
          <li key={c.n} className="call">
            <span className="call-head">
              {t('scan.callN', { n: c.n })}: <code>{c.cursorIn}</code> → <code>{c.cursorOut}</code>
            </span>
            <span className="bucket-chips">
              {c.buckets.length === 0 ? <span className="dim">{t('scan.noBuckets')}</span> : null}
              {c.buckets.slice(0, 24).map((b, i) => (
                <span key={i} className={`bucket-chip t${b.table}`}>
                  ht[{b.table}]<b>{b.index}</b>
                </span>
              ))}
              {c.bucketCount > 24 ? <span className="dim">{t('scan.moreBuckets', { n: c.bucketCount - 24 })}</span> : null}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
});
