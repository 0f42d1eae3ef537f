import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';

/** Rehashing or not, how far along, and the key counts. */
export const DictStatus = memo(function DictStatus() {
  const t = useT();
  const dict = useAppState((s) => s.snapshot?.dict ?? null);
  const expires = useAppState((s) => s.snapshot?.expiresUsed ?? 0);
  const t0 = dict?.tables[0];
  const rehashing = Boolean(dict && dict.rehashidx >= 0 && t0);
  const keys = (dict?.tables[0]?.used ?? 0) + (dict?.tables[1]?.used ?? 0);
  const pct = rehashing && t0 ? Math.floor((100 * dict!.rehashidx) / t0.size) : 0;
  return (
    <div className="dict-status" data-testid="ht.status" data-rehashing={rehashing ? 'yes' : 'no'}
      data-rehashidx={dict?.rehashidx ?? -1}>
      <span className={`chip ${rehashing ? 'chip-warn' : 'chip-ok'}`}>
        {rehashing ? t('ht.rehashing', { idx: dict!.rehashidx }) : t('ht.stable')}
        {rehashing ? <span className="chip-more"> · {t('ht.rehashProgress', { pct })}</span> : null}
      </span>
      {dict && dict.pauserehash > 0 ? <span className="chip">{t('ht.paused', { n: dict.pauserehash })}</span> : null}
      <span className="stat">
        <b data-testid="ht.keys">{keys.toLocaleString('en-US')}</b> {t('ht.used')}
      </span>
      {expires > 0 ? <span className="stat">{t('ht.expires', { n: expires })}</span> : null}
    </div>
  );
});
