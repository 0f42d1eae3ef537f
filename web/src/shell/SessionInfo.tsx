import { memo, useCallback } from 'react';
import { useAppState, useStoreApi, useT } from '../app/hooks';
import { useLesson } from '../views/lesson/hooks';
import { NewIcon } from './icons';

export const SessionInfo = memo(function SessionInfo() {
  const t = useT();
  const store = useStoreApi();
  const n = useAppState((s) => s.log.entries.length);
  const seed = useAppState((s) => s.log.config.seed);
  const inLesson = useLesson((s) => s.active !== null);
  const onNew = useCallback(() => {
    if (window.confirm(t('session.newConfirm'))) void store.reset();
  }, [store, t]);
  return (
    <div className="session">
      <span className="session-log" data-testid="session.log" title={`seed ${seed}`}>
        {t('session.log', { n })}
      </span>
      {inLesson ? null : (
        <button type="button" className="btn ghost" data-testid="session.new" onClick={onNew} title={t('session.new')}>
          <NewIcon /> <span className="btn-label">{t('session.new')}</span>
        </button>
      )}
    </div>
  );
});
