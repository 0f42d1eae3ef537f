import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

const SHOWN = 40;

/** Keys of the last call; a key returned by an earlier call is flagged. */
export const KeysList = memo(function KeysList() {
  const t = useT();
  const last = useAppState((s) => s.snapshot?.scan?.recent.at(-1) ?? null);
  const distinct = useAppState((s) => s.snapshot?.scan?.distinctKeys ?? 0);
  const dups = useAppState((s) => s.snapshot?.scan?.duplicateReturns ?? 0);
  const target = useLessonTarget('scan.keys');
  const dupSet = new Set(last?.duplicates ?? []);
  return (
    <div className="card keys-card" {...target}>
      <span className="card-label">{t('scan.keys')}</span>
      <div className="keys-summary">
        {last ? <span className="stat" data-testid="scan.keys.last">{t('scan.lastKeys', { n: last.keyCount })}</span> : null}
        <span className="stat" data-testid="scan.keys.distinct">{t('scan.distinct', { n: distinct })}</span>
        <span className={`stat ${dups ? 'warn' : ''}`}>{t('scan.dups', { n: dups })}</span>
      </div>
      <ul className="keys" data-testid="scan.keys">
        {last && last.keyCount === 0 ? <li className="dim">{t('scan.noKeys')}</li> : null}
        {(last?.keys ?? []).slice(0, SHOWN).map((k, i) => (
          <li key={i} className={dupSet.has(k) ? 'dup' : ''} title={dupSet.has(k) ? t('scan.duplicate') : undefined}>
            {k}
          </li>
        ))}
        {last && last.keyCount > SHOWN ? <li className="dim">{t('scan.moreKeys', { n: last.keyCount - SHOWN })}</li> : null}
      </ul>
    </div>
  );
});
