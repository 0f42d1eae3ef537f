import { memo } from 'react';
import { useAppState, useT } from '../app/hooks';
import { useLesson } from '../views/lesson/hooks';

/** One line under the header: loading, replay progress, or what failed. */
export const StatusBar = memo(function StatusBar() {
  const t = useT();
  const phase = useAppState((s) => s.phase);
  const replay = useAppState((s) => s.replay);
  const error = useAppState((s) => s.error);
  const diverged = useAppState((s) => s.diverged);
  const lessonBusy = useLesson((s) => s.busy && s.active !== null);
  const rebuilding = useLesson((s) => s.rebuilt);
  let text: string | null = null;
  let tone = 'info';
  if (phase === 'loading' && replay) text = t('status.replaying', { done: replay.done, total: replay.total });
  else if (phase === 'loading' && lessonBusy) text = t(rebuilding ? 'status.rebuilding' : 'status.catchingUp');
  else if (phase === 'loading') text = t('status.loading');
  else if (error) {
    text = t('status.error', { msg: error });
    tone = 'error';
  } else if (diverged !== null) {
    text = t('status.diverged', { i: diverged + 1 });
    tone = 'warn';
  }
  return (
    <div className={`statusbar ${tone}`} data-testid="status.bar" role="status" aria-live="polite">
      {text}
    </div>
  );
});
