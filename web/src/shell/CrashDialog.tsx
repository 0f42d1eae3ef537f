import { memo, useEffect, useRef } from 'react';
import { useAppState, useStoreApi, useT } from '../app/hooks';
import { actionText } from '../model/format';

/** Says what stopped the engine and offers to rebuild it from the log. */
export const CrashDialog = memo(function CrashDialog() {
  const t = useT();
  const store = useStoreApi();
  const phase = useAppState((s) => s.phase);
  const crash = useAppState((s) => s.crash);
  const dead = useAppState((s) => s.dead);
  const n = useAppState((s) => s.log.entries.length);
  const first = useRef<HTMLButtonElement>(null);
  const open = phase === 'crashed' || phase === 'dead';
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);
  if (!open) return null;

  let title = t('dead.title');
  let body = t('dead.body', { msg: dead ?? '' });
  if (phase === 'crashed' && crash) {
    const action = crash.action ? actionText(t, crash.action) : '';
    const during = crash.during === 'play'
      ? t('crash.during.play')
      : t(crash.during === 'replay' ? 'crash.during.replay' : 'crash.during.action', { i: crash.entryIndex + 1, action });
    title = t('crash.title');
    body = t('crash.body', { msg: crash.message, during, n });
  }
  return (
    <div className="overlay" role="presentation">
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="crash-title" data-testid="crash.dialog">
        <h2 id="crash-title">
          <span className="crash-icon" aria-hidden="true">!</span> {title}
        </h2>
        <p>{body}</p>
        {crash?.stack ? <pre className="crash-stack">{crash.stack.split('\n').slice(0, 6).join('\n')}</pre> : null}
        <div className="dialog-actions">
          <button ref={first} type="button" className="btn primary" data-testid="crash.restart"
            onClick={() => void store.restart(false)}>
            {t('crash.restart')}
          </button>
          {n > 0 ? (
            <button type="button" className="btn" data-testid="crash.restartWithout"
              onClick={() => void store.restart(true)}>
              {crash && crash.entryIndex < n - 1
                ? t('crash.restartBefore', { i: crash.entryIndex + 1 })
                : t('crash.restartWithout')}
            </button>
          ) : null}
          <button type="button" className="btn ghost" data-testid="crash.fresh" onClick={() => void store.reset()}>
            {t('crash.fresh')}
          </button>
        </div>
      </div>
    </div>
  );
});
