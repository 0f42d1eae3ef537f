import { memo, useState } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { formatDuration } from '../render/timeaxis';

/** Above the transcript, while commands typed in a future an action in the
 *  past set aside are out of it: where they went, and how to bring them
 *  back (the history bar's restore button, here by the console). */
export const AsideNotice = memo(function AsideNotice() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const aside = useAppState((s) => s.snapshot?.history.aside ?? null);
  const [hidden, setHidden] = useState<string | null>(null);
  if (!aside || aside.typed === 0) return null;
  const which = `${aside.at}:${aside.actions}:${aside.ns}`;
  if (hidden === which) return null;
  return (
    <div className="aside-notice" role="status" data-testid="console.aside">
      <p>{t('console.aside', { n: aside.actions, typed: aside.typed, t: formatDuration(aside.ns, 3) })}</p>
      <button type="button" className="btn small" data-testid="console.restore" disabled={!ready}
        aria-keyshortcuts="U" onClick={() => void store.restoreFuture()}>
        {t('console.restore')}
      </button>
      <button type="button" className="btn ghost small" data-testid="console.aside.hide" onClick={() => setHidden(which)}>
        {t('console.asideHide')}
      </button>
    </div>
  );
});
